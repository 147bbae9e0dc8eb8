// The page's detokeniser (book/detok.js) against the table of cases the Python tests read
// (tests/data/detok_cases.json). Run: node --test tests/js/
"use strict";

const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");
const test = require("node:test");

const book = path.join(__dirname, "..", "..", "code", "src", "attnbook", "book");
const { detokenizeFrench } = require(path.join(book, "detok.js"));
const seq2seq = require(path.join(book, "seq2seq.js"));
const table = JSON.parse(
  fs.readFileSync(path.join(__dirname, "..", "data", "detok_cases.json"), "utf8"),
);

test("the table has cases of every kind", () => {
  const kinds = new Set(table.cases.map((c) => c.what));
  for (const kind of ["hyphenated inversions", "elision", "guillemets", "numbers", "capitals"]) {
    assert.ok(kinds.has(kind), kind);
  }
  assert.ok(table.cases.length >= 40);
});

for (const { what, tokens, text } of table.cases) {
  test(`${what}: ${JSON.stringify(tokens)} -> ${text}`, () => {
    assert.equal(detokenizeFrench(tokens), text);
  });
}

test("the translator's script joins French with the same function", () => {
  assert.equal(seq2seq.detokenizeFrench, detokenizeFrench);
});
