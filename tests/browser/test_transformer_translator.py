"""The Transformer the book ships, translating in the page (transformer.js), opened from the disk.

A harness page holds a translator box over the shipped Transformer's int8 weights
(``translator-tatoeba-transformer.js``, copied beside it), so these tests need no built book; the same
tests then run on the built Transformer chapter, whose box loads the file the build copies beside the
pages. With no network the box loads the weights only when focused, then translates as PyTorch does with
the same weights: the same tokens for 50 held-out English sentences with greedy search and with a beam
of 4 on the harness page, and for the first 10 of them in the chapter, whose box runs the same script
over the same file (the page computes in float64, PyTorch in float32, so only a near tie may come out
differently), the same attention weights. The reader's choice of a layer and a head, or of their average, draws that
cross-attention, and both choices work from the keyboard. ``python -m attnbook translate --model
transformer`` without a checkpoint prints the page's translation. The time from Enter to the drawn translation
of ten words is printed (never asserted on one run).
"""

from __future__ import annotations

import shutil
import statistics

import pytest
import torch
from axe import audit, describe, failing
from test_keyboard import ACTIVE_JS, TAB_FROM_JS, assert_focus_ring
from test_translator import compare_with_pytorch, matrix_weights, printed_by_the_command_line, translate
from test_widget_harness import PAGE, FileBook, browser, built_chapter  # noqa: F401 (a fixture)
from test_widgets import WidgetPage

from attnbook.book import translator_widget
from attnbook.core.records import package_path
from attnbook.nmt import shipped_export
from attnbook.nmt.corpus import tokenize_english
from attnbook.nmt.export import SHIPPED_TRANSFORMER
from attnbook.studies.shipped import shipped_split

N_SENTENCES = 50
N_IN_CHAPTER = 10  # the chapter's box runs the harness's script and weights: its wiring is what is new
BOX = "aw-transformer-translator"


@pytest.fixture(scope="module")
def shipped():
    """The shipped Transformer in PyTorch, and 50 held-out English sentences as a reader would type them."""
    sentences = list(dict.fromkeys(" ".join(pair.source) for pair in shipped_split().test))[:N_SENTENCES]
    assert len(sentences) == N_SENTENCES
    exported = shipped_export(SHIPPED_TRANSFORMER)
    assert exported.kind == "transformer"
    return exported.to_translator(), sentences


@pytest.fixture(scope="module")
def harness(browser, tmp_path_factory):  # noqa: F811
    """A page with one box over the shipped Transformer, its weights file beside it."""
    folder = tmp_path_factory.mktemp("transformer")
    with package_path(SHIPPED_TRANSFORMER) as path:
        shutil.copy(path, folder / SHIPPED_TRANSFORMER)
    config = shipped_export(SHIPPED_TRANSFORMER).config
    box = translator_widget(
        SHIPPED_TRANSFORMER,
        size=(folder / SHIPPED_TRANSFORMER).stat().st_size,
        beam=4,
        name="transformer translator",
        transformer=(config["num_layers"], config["num_heads"]),
    )
    (folder / "transformer.html").write_text(PAGE.format(body=box.html))
    page = WidgetPage(FileBook(browser, folder), "transformer")
    yield page
    page.close()


@pytest.fixture(scope="module")
def chapter(browser):  # noqa: F811
    page = built_chapter(browser, "09_transformer")
    yield page
    page.close()


@pytest.fixture(scope="module", params=["harness", "chapter"])
def page(request):
    """The box on the harness page, then in the built chapter; ``held_out``: how many of the held-out
    sentences it translates."""
    found = request.getfixturevalue(request.param)
    found.held_out = N_SENTENCES if request.param == "harness" else N_IN_CHAPTER
    return found


def test_the_box_loads_the_transformer_only_on_focus(page):
    root = page.tab.query_selector(".attn-translator")
    assert root is not None and root.query_selector("[data-role=head]") is not None
    loaded = page.tab.evaluate("() => performance.getEntriesByType('resource').map((r) => r.name)")
    assert not [url for url in loaded if url.endswith(SHIPPED_TRANSFORMER)]
    root.query_selector("[data-role=source]").focus()
    page.tab.wait_for_function(
        "() => document.querySelector('.attn-translator [data-role=status]').dataset.kind === 'ready'"
    )
    scripts = f"() => document.querySelectorAll('script[src$=\"{SHIPPED_TRANSFORMER}\"]').length"
    assert page.tab.evaluate(scripts) == 1, "focusing the box loads the weights, once"
    assert not page.errors and not page.external


@pytest.mark.parametrize("beam", [1, 4])
def test_the_page_translates_held_out_sentences_as_pytorch(page, shipped, beam, capsys):
    translator, sentences = shipped
    found = compare_with_pytorch(page, translator, sentences[: page.held_out], beam, weights=True)
    with capsys.disabled():
        print(
            f"\nshipped Transformer, beam {beam}: {found.agree} of {found.sentences} held-out translations "
            f"equal PyTorch's, {found.same_text} of them print the same text"
        )
    assert found.same_text == found.agree
    assert not page.errors, page.errors


def test_each_layer_and_head_draws_its_own_cross_attention(page, shipped):
    translator = shipped[0]
    model = translator.model
    sentence = "Tom told me that he would be home this evening."
    shown = translate(page, sentence, 1)
    root = page.tab.query_selector(".attn-translator")
    src = torch.tensor([translator.src_vocab.encode(tokenize_english(sentence))])
    tgt_in = torch.tensor([[1, *shown["ids"][:-1]]])
    with torch.no_grad():
        _, cross = model.cross_attention(src, src != 0, tgt_in)  # (1, layers, heads, T, S)
    layers, heads = cross.shape[1:3]
    assert root.get_attribute("data-view") == f"{layers - 1}:mean"
    done = root.get_attribute("data-done")
    drawn = {}
    for layer in range(layers):
        root.query_selector("[data-role=layer]").select_option(value=str(layer))
        for head in ["mean", *map(str, range(heads))]:
            root.query_selector("[data-role=head]").select_option(value=head)
            assert root.get_attribute("data-view") == f"{layer}:{head}"
            expected = cross[0, layer].mean(dim=0) if head == "mean" else cross[0, layer, int(head)]
            drawn[layer, head] = matrix_weights(page)
            assert torch.allclose(drawn[layer, head].double(), expected.double(), atol=1e-5), (layer, head)
    # the heads look at different words: every choice draws other weights
    pictures = list(drawn.values())
    assert all(not torch.allclose(a, b, atol=1e-3) for i, a in enumerate(pictures) for b in pictures[i + 1 :])
    caption = root.query_selector(".attention-widget[data-kind=matrix] .aw-caption").text_content()
    assert f"layer {layers}, head {heads}" in caption
    assert root.get_attribute("data-done") == done, "another head is drawn without a new search"
    assert not page.errors, page.errors


def test_the_layer_and_the_head_are_chosen_with_the_keyboard(harness):
    harness.tab.reload(wait_until="load")
    harness.errors.clear()
    root = f"document.getElementById('{BOX}')"
    harness.tab.evaluate(TAB_FROM_JS, BOX)
    harness.tab.keyboard.press("Tab")
    harness.tab.wait_for_function(
        f"() => {root}.querySelector('[data-role=status]').dataset.kind === 'ready'"
    )
    harness.tab.keyboard.type("I am hungry.")
    harness.tab.keyboard.press("Enter")
    harness.tab.wait_for_function(f"() => Number({root}.dataset.done || 0) >= 1")
    before = matrix_weights(harness)
    for _ in range(2):  # the beam, the button
        harness.tab.keyboard.press("Tab")
    # the layer select, then the head select: each focused with its ring, each moved by an arrow key
    for value, label, key, view in [
        ("1", "layer", "ArrowUp", "0:mean"),
        ("mean", "head", "ArrowDown", "0:0"),
    ]:
        harness.tab.keyboard.press("Tab")
        found = harness.tab.evaluate(ACTIVE_JS)
        assert (found["tag"], found["value"]) == ("select", value) and label in found["label"]
        assert_focus_ring(found)
        harness.tab.keyboard.press(key)
        assert harness.tab.evaluate(f"() => {root}.dataset.view") == view
    assert not torch.allclose(matrix_weights(harness), before, atol=1e-3)
    assert harness.tab.evaluate(f"() => {root}.dataset.done") == "1", "a new head is no new search"
    # the matrix of the chosen head is the next focus stop
    harness.tab.keyboard.press("Tab")
    assert harness.tab.evaluate(ACTIVE_JS)["role"] == "gridcell"
    assert not harness.errors, harness.errors


TYPED = ["I am cold.", "Can you read?", "I'm a zorblax."]


@pytest.fixture(scope="module")
def printed():
    return printed_by_the_command_line(TYPED, "--model", "transformer")


@pytest.mark.parametrize("sentence", TYPED)
def test_the_command_line_without_a_checkpoint_prints_the_pages_translation(page, shipped, printed, sentence):
    shown = translate(page, sentence, 4)
    assert shown["status"] == "done"
    assert printed[sentence] == shown["output"] == shipped[0].translate(sentence, beam_size=4)


def test_time_from_enter_to_the_drawn_translation_of_ten_words(page, capsys):
    sentence = "Tom told me that he would be home this evening."
    assert len(tokenize_english(sentence)) == 11  # ten words and the full stop
    shown = {beam: [translate(page, sentence, beam) for _ in range(3)] for beam in (1, 4)}
    with capsys.disabled():
        for beam, runs in shown.items():
            # the page's own clock, from Enter to the drawn figures; and this test's, which adds the
            # browser's round trips and the polling that notices the box is done
            inside, outside = [r["ms"] for r in runs], [1000 * r["seconds"] for r in runs]
            print(
                f"\nshipped Transformer, 10 words, beam {beam}: in the page, median "
                f"{statistics.median(inside):.0f} ms of " + ", ".join(f"{ms:.0f}" for ms in inside) + "; "
                f"seen by the test, median {statistics.median(outside):.0f} ms of "
                + ", ".join(f"{ms:.0f}" for ms in outside)
            )
    assert all(r["ms"] > 0 and r["seconds"] > 0 for runs in shown.values() for r in runs) and not page.errors


def test_the_model_is_compiled_while_the_reader_types_and_then_translates_as_pytorch(
    harness, shipped, capsys
):
    """Focusing the box loads the model and, once loaded, translates a throwaway sentence; the reader's first
    sentence then gets the same French as PyTorch's, and its time is printed beside the next two."""
    harness.tab.reload(wait_until="load")
    harness.errors.clear()
    harness.tab.focus(f"#{BOX} [data-role=source]")
    harness.tab.wait_for_function(
        "() => Object.values(window.attnbookTranslatorModels).some((entry) => entry.warm)", timeout=60_000
    )
    sentence = "Tom told me that he would be home this evening."
    runs = [translate(harness, sentence, 1) for _ in range(3)]
    assert {run["output"] for run in runs} == {shipped[0].translate(sentence, beam_size=1)}
    with capsys.disabled():
        print(
            "\nshipped Transformer, 10 words, greedy, warmed while typing: in the page "
            + ", ".join(f"{run['ms']:.0f} ms" for run in runs)
        )
    assert not harness.errors


def test_axe_finds_no_serious_violation_in_the_transformer_box(harness):
    """axe-core over the harness page once the box has drawn a translation with one head chosen."""
    harness.tab.reload(wait_until="load")
    harness.errors.clear()
    translate(harness, "I am hungry.", 4)
    harness.tab.query_selector("[data-role=head]").select_option(value="1")
    bad = failing(audit(harness.tab, []))
    assert not bad, describe(bad, "the Transformer box")
    assert not harness.errors, harness.errors
