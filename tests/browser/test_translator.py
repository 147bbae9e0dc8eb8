"""The page's translator (attnbook.book.translator_widget) in headless Chromium, opened from the disk.

A small model is exported (attnbook.nmt.export_translator) next to a page holding the translator box.
The page must load nothing until the box is focused, then load the weights with a script element (no
request off the machine, no fetch), and translate exactly as PyTorch does with the same weights: the
same tokens for greedy search and a beam of 4, the same attention weights. Unknown words, an empty box,
200 characters of punctuation and a 60-word sentence each give a sensible result and no console error.
The time from Enter to the drawn translation is measured (printed; never asserted on one run).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from dataclasses import dataclass
from functools import partial

import pytest
import torch
from test_widget_harness import PAGE, FileBook, browser  # noqa: F401 (a fixture)
from test_widgets import USE, WidgetPage

from attnbook.book import translator_widget
from attnbook.nmt import Seq2Seq, Seq2SeqConfig, Translator, Vocab, beam_search, export_translator
from attnbook.nmt.corpus import tokenize_english
from attnbook.nmt.export import read_export
from attnbook.nmt.grammar import make_splits
from attnbook.nmt.search import greedy_decode

N_SENTENCES = 50


LONGEST = 4
"""The longest training sentence the harness box is told of, so that most of the grammar's sentences are longer."""


@pytest.fixture(scope="module")
def toy():
    """A small model over the toy grammar, its export (int8) and 50 held-out sentences."""
    torch.manual_seed(0)
    splits = make_splits(200, 20, N_SENTENCES, seed=7, max_src_len=10)
    src_vocab = Vocab.build(p.source for p in splits.train)
    tgt_vocab = Vocab.build(p.target for p in splits.train)
    config = Seq2SeqConfig(
        len(src_vocab), len(tgt_vocab), emb_dim=32, hidden_dim=48, attn_dim=32, max_src_len=25
    )
    return Translator(Seq2Seq(config).eval(), src_vocab, tgt_vocab), [" ".join(p.source) for p in splits.test]


@pytest.fixture(scope="module")
def page(browser, toy, tmp_path_factory):  # noqa: F811
    folder = tmp_path_factory.mktemp("translator")
    path = export_translator(toy[0], folder / "weights" / "toy.js", name="toy")
    widget = translator_widget("weights/toy.js", size=path.stat().st_size, longest=LONGEST, name="translator")
    (folder / "translator.html").write_text(PAGE.format(body=widget.html))
    requests: list[str] = []
    page = WidgetPage(FileBook(browser, folder), "translator")
    page.tab.on("request", lambda request: requests.append(request.url))
    page.requests = requests
    page.exported = read_export(path).to_translator()
    yield page
    page.close()


BOX = ".attn-translator"

READ_BOX_JS = f"""() => {{
  const root = document.querySelector('{BOX}');
  const part = (role) => root.querySelector(`[data-role=${{role}}]`);
  const json = (name) => JSON.parse(root.getAttribute(name) || 'null');
  return {{
    output: part('output').textContent,
    status: part('status').getAttribute('data-kind'),
    tokens: json('data-tokens'),
    ids: json('data-ids'),
    ms: Number(root.getAttribute('data-ms')),
    unknown: part('unknown').textContent,
  }};
}}"""
"""What the first box on a page shows, read in one call to the page (each call costs a round trip)."""


def translate(page, text: str, beam: int) -> dict:
    """Type ``text`` into the page's first box at ``beam`` and press Enter, as a reader does; what it shows."""
    beam_now, done = page.tab.evaluate(
        f"() => {{ const root = document.querySelector('{BOX}');"
        " return [root.querySelector('[data-role=beam]').value, Number(root.dataset.done || 0)]; }"
    )
    if beam_now != str(beam):  # a new beam translates the box's old text again
        page.tab.select_option(f"{BOX} [data-role=beam]", str(beam))
        done = page.tab.evaluate(f"() => Number(document.querySelector('{BOX}').dataset.done || 0)")
    page.tab.fill(f"{BOX} [data-role=source]", text)
    started = time.perf_counter()
    page.tab.press(f"{BOX} [data-role=source]", "Enter")
    page.tab.wait_for_function(f"() => Number(document.querySelector('{BOX}').dataset.done || 0) > {done}")
    seconds = time.perf_counter() - started
    shown = page.tab.evaluate(READ_BOX_JS)
    return {
        **shown,
        "seconds": seconds,
        "matrix": page.tab.query_selector(f"{BOX} .attention-widget[data-kind=matrix]"),
    }


def test_nothing_is_loaded_until_the_box_is_focused(page):
    assert page.tab.query_selector(".attn-translator").get_attribute("data-ready") == "1"
    assert not [url for url in page.requests if url.endswith("toy.js")]
    page.tab.query_selector("[data-role=source]").focus()
    page.tab.wait_for_function("() => document.querySelector('[data-role=status]').dataset.kind === 'ready'")
    assert [url for url in page.requests if url.endswith("toy.js")], "focusing the box loads the weights"
    assert not page.errors and not page.external


def first_step_margin(model, src: torch.Tensor, prefix: list[int], a: int, b: int) -> float:
    """PyTorch's log-probability gap between tokens ``a`` and ``b`` after ``prefix`` (greedy's choice)."""
    memory = model.encode(src, src != 0)
    state = model.decoder.init_state(memory)
    token = torch.tensor([1])  # <sos>
    for next_token in [*prefix, None]:
        logits, state, _ = model.decoder.step(token, state, memory)
        if next_token is None:
            log_probs = torch.log_softmax(logits.double(), dim=-1)[0]
            return abs(float(log_probs[a] - log_probs[b]))
        token = torch.tensor([next_token])
    raise AssertionError("unreachable")


def matrix_weights(page) -> torch.Tensor:
    """The weights the box's attention matrix draws."""
    matrix = page.tab.query_selector(".attn-translator .attention-widget[data-kind=matrix]")
    return torch.tensor(json.loads(matrix.query_selector("script.aw-data").text_content())["weights"])


@dataclass
class AgainstPytorch:
    """How many of ``sentences`` translations the page wrote with PyTorch's tokens, and how many of
    those also print PyTorch's text."""

    sentences: int
    agree: int = 0
    same_text: int = 0


def printed_by_the_command_line(sentences: list[str], *flags: str) -> dict[str, str]:
    """The translation ``python -m attnbook translate`` without a checkpoint prints for each sentence.

    One process reads them all from standard input (``--input -``, a sentence a line); the first is also
    given alone on the command line, as a reader types it, and must print the same first line.
    """
    command = [sys.executable, "-m", "attnbook", "translate", "--device", "cpu", *flags]
    run = partial(subprocess.run, capture_output=True, text=True, check=True)
    lines = run([*command, "--input", "-"], input="".join(f"{s}\n" for s in sentences)).stdout.splitlines()
    assert len(lines) == len(sentences), lines
    assert run([*command, sentences[0]]).stdout.splitlines()[0] == lines[0]
    return dict(zip(sentences, lines, strict=True))


def compare_with_pytorch(page, translator: Translator, sentences: list[str], beam: int, weights=False):
    """Each sentence translated in the page's box and by PyTorch's search with the same weights. The
    same tokens count as agreeing (and ``weights``: the matrix then draws the weights that search
    kept); a greedy disagreement must be a near tie between two words, as the page computes in float64
    and PyTorch in float32, so that two words whose scores differ by less than float32's rounding can
    swap."""
    model = translator.model
    found = AgainstPytorch(len(sentences))
    for sentence in sentences:
        shown = translate(page, sentence, beam)
        src = torch.tensor([translator.src_vocab.encode(tokenize_english(sentence))])
        search = greedy_decode if beam == 1 else partial(beam_search, beam_size=beam)
        (expected,) = search(model, src, src != 0)
        expected_ids = [*expected.ids, 2] if expected.finished else expected.ids
        if shown["ids"] == expected_ids:
            found.agree += 1
            found.same_text += shown["output"] == translator.translate(sentence, beam_size=beam)
            if weights:
                assert torch.allclose(matrix_weights(page).double(), expected.weights.double(), atol=1e-5)
        elif beam == 1:
            k = next(i for i, (x, y) in enumerate(zip(shown["ids"], expected_ids, strict=False)) if x != y)
            margin = first_step_margin(model, src, expected_ids[:k], shown["ids"][k], expected_ids[k])
            assert margin < 1e-5, (
                f"{sentence!r}: the page differs from PyTorch at step {k + 1} by {margin:.2e}"
            )
    assert found.agree >= 0.96 * found.sentences, (
        f"{found.agree} of {found.sentences} translations equal PyTorch's (beam {beam})"
    )
    return found


@pytest.mark.parametrize("beam", [1, 4])
def test_page_translates_held_out_sentences_as_pytorch(page, toy, beam):
    found = compare_with_pytorch(page, page.exported, toy[1], beam)
    print(f"\nbeam {beam}: {found.agree} of {found.sentences} translations equal PyTorch's")
    assert not page.errors, page.errors


def test_weights_shown_equal_pytorchs_and_the_matrix_responds(page, toy):
    sentence = toy[1][0]
    shown = translate(page, sentence, 1)
    data = json.loads(shown["matrix"].query_selector("script.aw-data").text_content())
    expected = page.exported.translation(tokenize_english(sentence))
    assert torch.allclose(
        torch.tensor(data["weights"], dtype=torch.float64), expected.weights.double(), atol=1e-5
    )
    USE["matrix"](page, shown["matrix"])  # hover and keys as every matrix widget
    assert not page.errors, page.errors


def test_a_sentence_longer_than_the_training_sentences_gets_a_note(page):
    long = translate(page, "the cat sees the dog", 1)
    assert long["status"] == "done"
    assert f"the longest English sentence the model was trained on has {LONGEST}" in long["unknown"]
    short = translate(page, "the cat sleeps", 1)
    assert "trained on has" not in short["unknown"]
    status = page.tab.query_selector(".attn-translator [data-role=status]").text_content()
    assert "greedy search; the model reads and writes lower-cased words" in status
    assert not page.errors, page.errors


def test_unknown_words_are_named_and_replaced_through_attention(page):
    shown = translate(page, "the zorblax sees Gandalf", 1)
    assert shown["status"] == "done"
    assert "zorblax gandalf" in shown["unknown"]
    replacements = page.tab.query_selector_all(".attn-translator .at-replacement")
    assert len(replacements) == shown["tokens"].count("<unk>")
    assert not page.errors, page.errors


@pytest.mark.parametrize(
    ("text", "status"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("!?.,;:" * 33 + "!!", "too-long"),
        (" ".join(["the cat"] * 30), "too-long"),
    ],
    ids=["empty", "spaces", "200 punctuation", "60 words"],
)
def test_odd_input_gives_a_message_and_no_console_error(page, text, status):
    shown = translate(page, text, 4)
    assert shown["status"] == status and shown["output"] == ""
    assert not page.errors, page.errors


def test_time_from_enter_to_drawn_translation(page, capsys):
    sentence = "the small dog sees the old cat and the big bird sings"
    times = {beam: [translate(page, sentence, beam)["seconds"] for _ in range(3)] for beam in (1, 4)}
    with capsys.disabled():
        for beam, seconds in times.items():
            print(
                f"\ntranslator, {len(sentence.split())} words, beam {beam}: "
                + ", ".join(f"{1000 * s:.0f} ms" for s in seconds)
            )
    assert all(s > 0 for values in times.values() for s in values)
