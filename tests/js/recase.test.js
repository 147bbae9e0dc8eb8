// The page's restoreCase (book/detok.js) against the table of cases the Python tests read
// (tests/data/recase_cases.json). Run: node --test tests/js/
"use strict";

const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");
const test = require("node:test");

const book = path.join(__dirname, "..", "..", "code", "src", "attnbook", "book");
const { restoreCase } = require(path.join(book, "detok.js"));
const table = JSON.parse(
  fs.readFileSync(path.join(__dirname, "..", "data", "recase_cases.json"), "utf8"),
);

for (const { what, tokens, casing, cased } of table.cases) {
  test(`${what}: ${JSON.stringify(tokens)} -> ${JSON.stringify(cased)}`, () => {
    assert.deepEqual(restoreCase(tokens, casing), cased);
  });
}
