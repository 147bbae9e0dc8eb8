"""The toy grammar's translator: the box of the seq2seq chapter, opened from the disk.

The built chapter's box must load the shipped grammar model (``translator-grammar.js``, copied beside the
pages by the build) only when the reader first focuses it. A page made the way the chapter makes its box,
with the shipped file beside it as in the build, must translate grammar sentences as PyTorch does with the
same int8 weights, draw the grammar's true alignment for a sentence the grammar can make (and only then),
and answer a word outside the grammar with a message, with no console error; its reading of the grammar
(``grammar.js``) must give the French and the links that the Python grammar wrote.
"""

from __future__ import annotations

import json
import shutil

import pytest
import torch
from test_translator import first_step_margin, translate
from test_widget_harness import PAGE, FileBook, browser, built_chapter  # noqa: F401 (a fixture)
from test_widgets import WidgetPage

from attnbook.book import translator_widget
from attnbook.core.records import package_path
from attnbook.nmt import GRAMMAR_TRANSLATOR, generate_pairs, grammar_lexicon, shipped_export
from attnbook.nmt.search import greedy_decode
from attnbook.studies.shipped import GRAMMAR_CONFIG

N_SENTENCES = 20


@pytest.fixture(scope="module")
def grammar_model():
    """The shipped grammar translator in PyTorch, and test sentences of the chapter's split."""
    test = GRAMMAR_CONFIG.data.splits().test
    return shipped_export(GRAMMAR_TRANSLATOR).to_translator(), test[:N_SENTENCES]


@pytest.fixture(scope="module")
def chapter(browser):  # noqa: F811
    page = built_chapter(browser, "07_what_attention_learned")
    yield page
    page.close()


@pytest.fixture(scope="module")
def box(browser, tmp_path_factory):  # noqa: F811
    """The chapter's box on a page of its own, the shipped weights one folder up as in the build."""
    folder = tmp_path_factory.mktemp("grammar")
    (folder / "chapters").mkdir()
    with package_path(GRAMMAR_TRANSLATOR) as weights:
        shutil.copy(weights, folder / GRAMMAR_TRANSLATOR)
        size = weights.stat().st_size
    widget = translator_widget(
        f"../{GRAMMAR_TRANSLATOR}",
        size=size,
        placeholder="the black cat does not see the small mouse",
        grammar=grammar_lexicon(),
        name="seq2seq-translator",
    )
    (folder / "chapters" / "box.html").write_text(PAGE.format(body=widget.html))
    page = WidgetPage(FileBook(browser, folder / "chapters"), "box")
    yield page
    page.close()


def test_the_chapter_box_loads_the_grammar_model_only_on_focus(chapter):
    root = chapter.tab.query_selector(".attn-translator")
    assert root is not None, "the seq2seq chapter has no translator box"
    # a page opened from the disk records no resource timing for file URLs:
    # look for the script element that loads the weights instead
    weights = "() => document.querySelectorAll('script[src$=\"translator-grammar.js\"]').length"
    assert chapter.tab.evaluate(weights) == 0
    root.query_selector("[data-role=source]").focus()
    chapter.tab.wait_for_function(
        "() => document.querySelector('.attn-translator [data-role=status]').dataset.kind === 'ready'"
    )
    assert chapter.tab.evaluate(weights) == 1
    assert not chapter.errors and not chapter.external


def test_grammar_sentences_translate_as_pytorch_with_the_true_alignment_beside(box, grammar_model, capsys):
    translator, pairs = grammar_model
    agree = 0
    for pair in pairs:
        shown = translate(box, " ".join(pair.source), 1)
        src = torch.tensor([translator.src_vocab.encode(list(pair.source))])
        (expected,) = greedy_decode(translator.model, src, src != 0)
        expected_ids = [*expected.ids, 2] if expected.finished else expected.ids
        if shown["ids"] == expected_ids:
            agree += 1
        else:  # a disagreement must be a near tie between two words (float64 page, float32 torch)
            k = next(i for i, (x, y) in enumerate(zip(shown["ids"], expected_ids, strict=False)) if x != y)
            margin = first_step_margin(
                translator.model, src, expected_ids[:k], shown["ids"][k], expected_ids[k]
            )
            assert margin < 1e-5, (
                f"{pair.source}: the page differs from PyTorch at step {k + 1} by {margin:.2e}"
            )
        root = box.tab.query_selector(".attn-translator")
        assert root.get_attribute("data-grammar") == "yes"
        assert sorted(map(tuple, json.loads(root.get_attribute("data-truth")))) == sorted(pair.links())
        assert root.query_selector("[data-role=truth]") is not None
    with capsys.disabled():
        print(f"\ngrammar model, greedy: {agree} of {len(pairs)} test translations equal PyTorch's")
    assert agree >= len(pairs) - 1
    assert not box.errors, box.errors


def test_a_sentence_the_grammar_cannot_make_gets_no_true_alignment(box):
    shown = translate(box, "the cat sleeps the dog", 1)  # grammar words, not a grammar sentence
    root = box.tab.query_selector(".attn-translator")
    assert shown["status"] == "done" and shown["output"]
    assert root.get_attribute("data-grammar") == "no" and root.get_attribute("data-truth") is None
    assert root.query_selector("[data-role=truth]") is None
    assert "cannot make this sentence" in shown["unknown"]
    assert not box.errors, box.errors


def test_a_word_outside_the_grammar_gets_a_message_and_no_translation(box):
    shown = translate(box, "The zebra sleeps.", 1)
    status = box.tab.query_selector(".attn-translator [data-role=status]").text_content()
    assert shown["status"] == "unknown-word" and shown["output"] == "" and shown["tokens"] is None
    assert "\u201czebra\u201d is not a word of the toy grammar" in status
    assert not box.errors, box.errors


def test_the_pages_grammar_writes_the_french_and_links_of_the_python_grammar(box):
    pairs = generate_pairs(300, seed=11)
    found = box.tab.evaluate(
        """(sentences) => {
          const data = JSON.parse(document.querySelector('.attn-translator script.aw-data').textContent);
          return sentences.map((s) => window.attnbookToyGrammar.parse(s, data.grammar));
        }""",
        [list(p.source) for p in pairs],
    )
    for pair, parsed in zip(pairs, found, strict=True):
        assert parsed is not None, pair.source
        assert parsed["target"] == list(pair.target), pair.source
        assert [tuple(a) for a in parsed["alignment"]] == list(pair.alignment), pair.source
        assert parsed["categories"] == list(pair.categories), pair.source
    rejected = box.tab.evaluate(
        """(sentences) => {
          const data = JSON.parse(document.querySelector('.attn-translator script.aw-data').textContent);
          return sentences.map((s) => window.attnbookToyGrammar.parse(s.split(' '), data.grammar));
        }""",
        ["cat the sleeps", "the book sleeps", "some small cats sleep", "the cat does not see a dog"],
    )
    assert rejected == [None, None, None, None]  # word order, an inanimate subject, two French-only gaps
