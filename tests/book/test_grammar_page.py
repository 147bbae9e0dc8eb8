"""The page's reading of the toy grammar (book/grammar.js) against the grammar of attnbook.nmt.grammar.

The seq2seq chapter's translator box draws the true alignment of a typed sentence with grammar.js: for
every sentence the Python grammar writes, it must find the same French, links and categories, and it must
find nothing for a sentence the grammar cannot make. Run with Node.js (the browser test runs it in the page).
"""

from __future__ import annotations

import json
import subprocess
from importlib import resources

from attnbook.nmt import generate_pairs, grammar_lexicon

RUNNER = """
const grammar = require(process.argv[2]);
const job = JSON.parse(require("fs").readFileSync(process.argv[3], "utf8"));
console.log(JSON.stringify(job.sentences.map((tokens) => grammar.parse(tokens, job.lexicon))));
"""


def parse_in_node(node, tmp_path, sentences: list[list[str]]) -> list:
    script = resources.files("attnbook.book").joinpath("grammar.js")
    (tmp_path / "job.json").write_text(json.dumps({"lexicon": grammar_lexicon(), "sentences": sentences}))
    (tmp_path / "runner.js").write_text(RUNNER)
    result = subprocess.run(
        [node, str(tmp_path / "runner.js"), str(script), str(tmp_path / "job.json")],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_the_pages_grammar_writes_the_french_links_and_categories_of_every_sentence_drawn(node, tmp_path):
    pairs = generate_pairs(1000, seed=3)
    found = parse_in_node(node, tmp_path, [list(p.source) for p in pairs])
    for pair, parsed in zip(pairs, found, strict=True):
        assert parsed == {
            "target": list(pair.target),
            "alignment": [list(a) for a in pair.alignment],
            "categories": list(pair.categories),
        }, pair.source


def test_the_pages_grammar_finds_nothing_in_a_sentence_the_grammar_cannot_make(node, tmp_path):
    sentences = [
        "cat the sleeps",  # word order
        "the book sleeps",  # an inanimate subject
        "some small cats sleep",  # French would need "de petits chats"
        "the cat does not see a dog",  # French would need "de" after the negation
        "the cat sleeps the dog",  # an intransitive verb with an object
        "the cats sleeps",  # no agreement
        "the cat sleeps and the dog runs and the cow sings and the duck dances",  # four clauses
    ]
    assert parse_in_node(node, tmp_path, [s.split() for s in sentences]) == [None] * len(sentences)
    (parsed,) = parse_in_node(node, tmp_path, [["the", "cat", "does", "not", "see", "the", "old", "dog"]])
    assert parsed["target"] == ["le", "chat", "ne", "voit", "pas", "le", "vieux", "chien"]
    assert parsed["alignment"] == [[0], [1], [2, 3], [4], [2, 3], [5], [6], [7]]
