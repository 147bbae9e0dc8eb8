"""The translator the book ships, in the built real-sentences chapter, opened from the disk.

The chapter's box must load the shipped weights (``translator-tatoeba.js``, copied beside the pages by the
build) with a script element when the reader first focuses it, with no network, and then translate as
PyTorch does with the same int8 weights: the same tokens for 50 held-out English sentences, with greedy
search and with a beam of 4, and the same printed French as the Python ``Translator`` writes (hyphens,
elisions, spacing and unknown words copied through attention alike). The page's detokeniser passes the
table of cases the Python and Node tests read. ``python -m attnbook translate`` without a checkpoint runs
the same file, so it prints the page's translation.
"""

from __future__ import annotations

import json

import pytest
from book_config import REPO_ROOT
from test_translator import compare_with_pytorch, printed_by_the_command_line, translate
from test_widget_harness import FileBook, browser, built_chapter  # noqa: F401 (a fixture)

from attnbook.nmt import shipped_export
from attnbook.nmt.corpus import tokenize_english
from attnbook.studies.shipped import shipped_split

N_SENTENCES = 50


@pytest.fixture(scope="module")
def shipped():
    """The shipped translator in PyTorch, and 50 held-out English sentences as a reader would type them."""
    sentences = list(dict.fromkeys(" ".join(pair.source) for pair in shipped_split().test))[:N_SENTENCES]
    assert len(sentences) == N_SENTENCES
    return shipped_export().to_translator(), sentences


@pytest.fixture(scope="module")
def chapter(browser):  # noqa: F811
    page = built_chapter(browser, "08_real_sentences")
    yield page
    page.close()


def test_the_chapter_box_loads_the_shipped_weights_only_on_focus(chapter):
    root = chapter.tab.query_selector(".attn-translator")
    assert root is not None, "the real-sentences chapter has no translator box"
    loaded = chapter.tab.evaluate("() => performance.getEntriesByType('resource').map((r) => r.name)")
    assert not [url for url in loaded if url.endswith("translator-tatoeba.js")]
    root.query_selector("[data-role=source]").focus()
    chapter.tab.wait_for_function(
        "() => document.querySelector('.attn-translator [data-role=status]').dataset.kind === 'ready'"
    )
    assert not chapter.errors and not chapter.external


@pytest.mark.parametrize("beam", [1, 4])
def test_the_page_translates_held_out_sentences_as_pytorch_with_the_same_weights(
    chapter, shipped, beam, capsys
):
    translator, sentences = shipped
    found = compare_with_pytorch(chapter, translator, sentences, beam)
    with capsys.disabled():
        print(
            f"\nshipped model, beam {beam}: {found.agree} of {found.sentences} held-out translations equal "
            f"PyTorch's, {found.same_text} of them print the same text"
        )
    # the same tokens: the same text, to the character
    assert found.same_text == found.agree
    assert not chapter.errors, chapter.errors


def test_the_pages_detokeniser_passes_the_shared_table(chapter):
    cases = json.loads((REPO_ROOT / "tests" / "data" / "detok_cases.json").read_text(encoding="utf-8"))[
        "cases"
    ]
    joined = chapter.tab.evaluate(
        "(cases) => cases.map((c) => window.attnbookDetok.detokenizeFrench(c.tokens))", cases
    )
    assert joined == [case["text"] for case in cases]


TYPED = ["I am cold.", "Can you read?", "Do it again.", "I'm a zorblax."]


@pytest.fixture(scope="module")
def printed():
    return printed_by_the_command_line(TYPED, "--model", "seq2seq")


@pytest.mark.parametrize("sentence", TYPED)
def test_the_command_line_without_a_checkpoint_prints_the_pages_translation(
    chapter, shipped, printed, sentence
):
    """At the beam both start with, the command line's default and the box's first choice."""
    from attnbook.cli.translate import DEFAULT_BEAM

    data = chapter.tab.evaluate(
        "() => JSON.parse(document.querySelector('.attn-translator > script.aw-data').textContent)"
    )
    assert data["beam"] == DEFAULT_BEAM  # the box starts with the command line's beam
    shown = translate(chapter, sentence, DEFAULT_BEAM)
    expected = shipped[0].translate(sentence, beam_size=DEFAULT_BEAM)
    assert shown["status"] == "done" and printed[sentence] == shown["output"] == expected


def test_time_from_enter_to_the_drawn_translation_of_ten_words(chapter, capsys):
    sentence = "Tom told me that he would be home this evening."
    assert len(tokenize_english(sentence)) == 11  # ten words and the full stop
    times = {beam: [translate(chapter, sentence, beam)["seconds"] for _ in range(3)] for beam in (1, 4)}
    with capsys.disabled():
        for beam, seconds in times.items():
            print(
                f"\nshipped model, 10 words, beam {beam}: " + ", ".join(f"{1000 * s:.0f} ms" for s in seconds)
            )
    assert all(s > 0 for values in times.values() for s in values) and not chapter.errors
