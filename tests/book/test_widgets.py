"""The interactive widgets: self-contained, deterministic HTML that embeds exactly the numbers given.

What the widgets do in a browser (hover, sliders, keys) is tested in tests/browser/test_widgets.py.
"""

from __future__ import annotations

import base64
import json
import math
import re
from html.parser import HTMLParser
from importlib import resources

import numpy as np
import pytest
import torch

from attnbook.book.widgets import (
    DECIMALS,
    KINDS,
    MAX_BYTES,
    DecoderRun,
    TranslationExample,
    Widget,
    attention_widget,
    checkpoint_slider,
    curve_slider,
    decoder_stepper,
    translator_widget,
    weights_slider,
)

SRC = ["the", "black", "cat", "sleeps", "<eos>"]
TGT = ["le", "chat", "noir", "dort", "<eos>"]


class _Elements(HTMLParser):
    """Every start tag with its attributes, and the text of each <script>."""

    def __init__(self):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.scripts: list[tuple[dict, str]] = []
        self._script: dict | None = None

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag == "script":
            self._script = dict(attrs)

    def handle_data(self, data):
        if self._script is not None:
            self.scripts.append((self._script, data))
            self._script = None


def parse(widget: Widget) -> _Elements:
    parser = _Elements()
    parser.feed(widget.html)
    return parser


def embedded(widget: Widget) -> dict:
    (data,) = [text for attrs, text in parse(widget).scripts if attrs.get("type") == "application/json"]
    return json.loads(data)


def weights_matrix(seed: int = 0, shape=(4, 5)) -> torch.Tensor:
    generator = torch.Generator().manual_seed(seed)
    return torch.softmax(torch.randn(*shape, generator=generator), dim=-1)


def every_widget() -> list[Widget]:
    weights = weights_matrix()
    grid = np.linspace(0, 5, 41)
    return [
        attention_widget(weights, SRC, TGT[:4], scores=torch.log(weights), caption="a caption"),
        decoder_stepper(
            SRC,
            {
                "untrained": DecoderRun(
                    weights, TGT[:4], scores=torch.log(weights), queries=torch.ones(4, 6)
                ),
                "trained": DecoderRun(weights_matrix(1), TGT[:4]),
            },
        ),
        weights_slider(weights_matrix(2, (6, 5)), SRC, [10, 1, 0.3, 0.1, 0.03, 0.01]),
        curve_slider(
            grid, np.sin(grid)[None] * np.arange(1, 4)[:, None], [0.1, 0.2, 0.3], points=([1, 2], [0, 1])
        ),
        checkpoint_slider(
            torch.stack([weights, weights_matrix(1), weights_matrix(2)]),
            SRC,
            TGT[:4],
            [0, 10, 20],
            measures=[{"validation loss": "2.0"}, {"validation loss": "1.0"}, {"validation loss": "0.5"}],
            links=[(0, 0), (1, 1)],
        ),
    ]


def test_every_kind_is_drawn_by_the_script_under_its_python_name():
    """widgets.js draws a kind with the function its table KINDS gives for the kind's name (a kind
    with a script of its own, widgets-curve.js, under the same name there); the translator's own
    script (translator.js) draws the translator."""
    files = resources.files("attnbook.book")
    script = files.joinpath("widgets.js").read_text(encoding="utf-8")
    (table,) = re.findall(r"^  const KINDS = \{\n(.*?)^  \};", script, re.MULTILINE | re.DOTALL)
    names = re.findall(r"^\s*(\w+): draw\w+,$", table, re.MULTILINE)
    own = re.findall(r"^\s*(\w+): ownScripts\.(\w+)\(shared\),$", table, re.MULTILINE)
    assert own == [("curve", "curve")]
    curve = files.joinpath("widgets-curve.js").read_text(encoding="utf-8")
    assert "window.attnbookWidgetKinds.curve = " in curve
    names += [name for name, _ in own]
    assert names and set(names) == set(KINDS) - {"translator"}
    assert {widget.kind for widget in every_widget()} == set(names)
    assert all(name == kind.kind for name, kind in KINDS.items())


@pytest.mark.parametrize("widget", every_widget(), ids=lambda w: w.kind)
def test_widget_html_is_self_contained(widget):
    """Nothing to fetch: no URL but the SVG namespace name, no script or style loaded from elsewhere."""
    urls = set(re.findall(r"(?:https?:)?//[\w.-]+[^\s\"')]*", widget.html))
    assert urls <= {"http://www.w3.org/2000/svg"}, urls  # a namespace name, never requested
    for tag, attrs in parse(widget).tags:
        assert "src" not in attrs and "href" not in attrs, (tag, attrs)
        assert tag not in {"link", "iframe", "img", "object", "embed"}, tag
    assert widget.html.isascii()  # shows the same under any declared page encoding
    assert "@import" not in widget.html and "url(" not in widget.html and "import(" not in widget.html


@pytest.mark.parametrize("widget", every_widget(), ids=lambda w: w.kind)
def test_widget_has_one_root_with_its_class_and_id(widget):
    roots = [attrs for _, attrs in parse(widget).tags if "attention-widget" in attrs.get("class", "").split()]
    assert len(roots) == 1
    assert roots[0]["id"] == widget.name and roots[0]["data-kind"] == widget.kind
    assert widget._repr_html_() == widget.html


@pytest.mark.parametrize("widget", every_widget(), ids=lambda w: w.kind)
def test_widget_is_under_the_size_limit(widget):
    assert widget.size == len(widget.html.encode("utf-8")) < MAX_BYTES


def test_same_input_gives_the_same_html_and_different_input_a_different_id():
    first, second = every_widget(), every_widget()
    assert [w.html for w in first] == [w.html for w in second]
    other = attention_widget(weights_matrix(seed=7), SRC, TGT[:4])
    assert other.name != first[0].name
    assert len({w.name for w in first}) == len(first)
    assert "random" not in "".join(w.html for w in first).lower()


def test_name_gives_the_element_id():
    widget = attention_widget(weights_matrix(), SRC, TGT[:4], name="Chapter 1: soft alignment")
    assert widget.name == "aw-chapter-1-soft-alignment"
    assert f'id="{widget.name}"' in widget.html
    with pytest.raises(ValueError, match="name"):
        attention_widget(weights_matrix(), SRC, TGT[:4], name="!!!")


def test_embedded_matrix_equals_the_weights_given():
    weights = weights_matrix(shape=(4, 5)).double()
    scores = torch.log(weights)
    data = embedded(attention_widget(weights, SRC, TGT[:4], scores=scores))
    assert data["src"] == SRC and data["tgt"] == TGT[:4]
    tolerance = 0.5 * 10**-DECIMALS + 1e-12
    np.testing.assert_allclose(np.array(data["weights"]), weights.numpy(), rtol=0, atol=tolerance)
    np.testing.assert_allclose(np.array(data["scores"]), scores.numpy(), rtol=0, atol=tolerance)


def test_embedded_stepper_runs_equal_the_runs_given():
    weights, queries = weights_matrix(), torch.linspace(-1, 1, 24).reshape(4, 6)
    masked_scores = torch.log(weights).masked_fill(torch.tensor([False] * 4 + [True]), -math.inf)
    widget = decoder_stepper(SRC, {"a": DecoderRun(weights, TGT[:4], scores=masked_scores, queries=queries)})
    (run,) = embedded(widget)["runs"]
    assert run["label"] == "a" and run["emitted"] == TGT[:4]
    np.testing.assert_allclose(np.array(run["weights"]), weights.numpy(), atol=1e-4)
    np.testing.assert_allclose(np.array(run["queries"]), queries.numpy(), atol=1e-4)
    assert all(row[-1] is None for row in run["scores"])  # a masked score: -inf, shown as such
    np.testing.assert_allclose(
        np.array([r[:4] for r in run["scores"]]), masked_scores[:, :4].numpy(), atol=1e-4
    )


def test_single_run_stepper_has_no_toggle_label():
    widget = decoder_stepper(SRC, DecoderRun(weights_matrix(), TGT[:4]))
    assert [run["label"] for run in embedded(widget)["runs"]] == [""]


def test_embedded_slider_frames_equal_the_frames_given():
    frames, values = weights_matrix(3, (6, 5)), [10, 1, 0.3, 0.1, 0.03, 0.01]
    data = embedded(weights_slider(frames, SRC, values, parameter="τ"))
    assert data["values"] == values and data["parameter"] == "τ"
    np.testing.assert_allclose(np.array(data["weights"]), frames.numpy(), atol=1e-4)
    grid = np.linspace(0, 1, 11)
    curves = np.stack([grid**k for k in range(1, 4)])
    data = embedded(curve_slider(grid, curves, [1, 2, 3], reference=grid))
    np.testing.assert_allclose(np.array(data["curves"]), curves, atol=1e-4)
    np.testing.assert_allclose(np.array(data["x"]), grid, atol=1e-4)


def test_tokens_are_escaped_not_injected():
    widget = attention_widget(weights_matrix(shape=(1, 2)), ["</script><b>", "&"], ["x"], caption="<i>c</i>")
    assert "</script><b>" not in widget.html and "<i>c</i>" not in widget.html
    assert embedded(widget)["src"] == ["</script><b>", "&"]


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (
            lambda: attention_widget(weights_matrix(), SRC[:4], TGT[:4]),
            r"src_tokens has 4 tokens .* 5 columns",
        ),
        (lambda: attention_widget(weights_matrix(), SRC, TGT), r"tgt_tokens has 5 tokens .* 4 rows"),
        (lambda: attention_widget(torch.ones(5), SRC, TGT), r"weights must be 2-D, got shape \(5,\)"),
        (
            lambda: attention_widget(weights_matrix(), SRC, TGT[:4], scores=torch.ones(4, 4)),
            "scores must have",
        ),
        (lambda: attention_widget(-weights_matrix(), SRC, TGT[:4]), "non-negative"),
        (lambda: attention_widget(weights_matrix() * math.nan, SRC, TGT[:4]), "non-finite"),
        (lambda: attention_widget(weights_matrix(), "the black cat", TGT[:4]), "not one string"),
        (lambda: decoder_stepper(SRC[:3], DecoderRun(weights_matrix(), TGT[:4])), "3 tokens"),
        (lambda: decoder_stepper(SRC, DecoderRun(weights_matrix(), TGT[:3])), "emitted"),
        (
            lambda: decoder_stepper(SRC, DecoderRun(weights_matrix(), TGT[:4], queries=torch.ones(3, 2))),
            "queries",
        ),
        (lambda: decoder_stepper(SRC, {}), "empty"),
        (lambda: weights_slider(weights_matrix(), SRC, [1, 2]), "values has 2 entries"),
        (lambda: curve_slider([0, 1], [[0, 1, 2]], [1]), "curves has 3 columns"),
        (lambda: curve_slider([1, 0], [[0, 1]], [1]), "increasing"),
    ],
)
def test_bad_input_gives_a_clear_error(make, message):
    with pytest.raises((ValueError, TypeError), match=message):
        make()


def test_too_large_a_widget_is_refused():
    grid = np.linspace(0, 1, 1000)
    with pytest.raises(ValueError, match=f"over the limit of {MAX_BYTES:,}"):
        curve_slider(grid, np.random.default_rng(0).random((20, 1000)), np.arange(20))


# --- the static figure beside the HTML (what a PDF shows) ------------------------------------------------

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def png_size(png: bytes) -> tuple[int, int]:
    """Width and height from a PNG's IHDR chunk."""
    return int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")


@pytest.mark.parametrize("widget", every_widget(), ids=lambda w: w.kind)
def test_widget_output_carries_its_html_and_a_small_png(widget):
    bundle = widget._repr_mimebundle_()
    assert set(bundle) == {"text/html", "image/png"}
    assert bundle["text/html"] == widget.html
    png = base64.b64decode(bundle["image/png"])
    assert png.startswith(PNG_SIGNATURE)
    width, height = png_size(png)
    assert 100 < width <= 1400 and 50 < height <= 1200, (width, height)  # 100 dpi: at most 14 x 12 inches
    assert len(png) < 120_000


def test_matrix_png_is_drawn_from_the_same_numbers():
    light = attention_widget(np.eye(3), ["a", "b", "c"], ["x", "y", "z"]).png
    other = attention_widget(np.eye(3)[::-1].copy(), ["a", "b", "c"], ["x", "y", "z"]).png
    assert light != other  # the picture changes with the weights, not only with the labels


# --- the translator box (its behaviour in a browser: tests/browser/test_translator.py) -------------------


def test_translator_widget_has_its_roles_and_loads_no_weights_with_the_page():
    widget = translator_widget("../model.js", size=3_000_000, name="translator")
    assert widget.name == "aw-translator" and widget.kind == "translator"
    elements = parse(widget)
    roots = [attrs for tag, attrs in elements.tags if "attn-translator" in attrs.get("class", "").split()]
    assert [root["id"] for root in roots] == ["aw-translator"]
    assert not [attrs for tag, attrs in elements.tags if tag == "script" and "src" in attrs]
    data = embedded(widget)
    assert (data["kind"], data["src"], data["megabytes"]) == ("translator", "../model.js", "3.0")
    assert widget.html.isascii() and widget.size < 60_000
    assert "attention-widget" not in roots[0]["class"]  # its figures are widgets, the box is not


def test_the_translator_box_says_what_the_command_line_says_of_the_case():
    from attnbook.nmt.text import LOWER_CASED, RECASED

    data = embedded(translator_widget("m.js", size=10, name="t"))
    assert (data["casing"], data["recased"]) == (LOWER_CASED, RECASED)


def test_translator_png_shows_the_example_or_a_note():
    example = TranslationExample(
        ["i", "am", "cold", ".", "<eos>"], ["j'", "ai", "froid", ".", "<eos>"], np.eye(5)
    )
    with_example = translator_widget("m.js", size=10, example=example, name="t").png
    note = translator_widget("m.js", size=10, name="t").png
    assert with_example.startswith(PNG_SIGNATURE) and note.startswith(PNG_SIGNATURE)
    assert png_size(with_example)[1] > png_size(note)[1]


def test_a_transformer_box_embeds_transformer_js_and_names_its_layers_and_heads():
    plain = translator_widget("m.js", size=10, name="t")
    widget = translator_widget("m.js", size=10, name="t", transformer=(2, 4))
    assert embedded(widget)["transformer"] == {"layers": 2, "heads": 4}
    assert embedded(plain)["transformer"] is None
    assert "attnbookTransformer" in widget.html and "attnbookTransformer =" not in plain.html
    assert widget.html.isascii() and widget.size < 70_000


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"src": "", "size": 10}, "src must be the URL"),
        ({"src": "m.js", "size": 0}, "size must be"),
        ({"src": "m.js", "size": 10, "transformer": (2, 0)}, "num_layers, num_heads"),
    ],
)
def test_translator_widget_bad_arguments_give_a_clear_error(arguments, message):
    with pytest.raises(ValueError, match=message):
        translator_widget(**arguments)


def test_checkpoint_slider_holds_one_frame_per_step_and_refuses_shapes_that_disagree():
    frames = torch.stack([weights_matrix(seed) for seed in range(3)])
    widget = checkpoint_slider(
        frames, SRC, TGT[:4], [0, 5, 10], measures=[{"AER": "0.5"}] * 3, links=[(0, 1)]
    )
    data = widget.data
    assert data["steps"] == [0, 5, 10] and data["links"] == [[0, 1]] and data["fields"][2] == [["AER", "0.5"]]
    assert np.array(data["weights"]).shape == (3, 4, len(SRC))
    assert widget.png.startswith(b"\x89PNG")
    with pytest.raises(ValueError, match="steps has 2 entries but weights has 3 frames"):
        checkpoint_slider(frames, SRC, TGT[:4], [0, 5])
    with pytest.raises(ValueError, match="measures has 1 entries"):
        checkpoint_slider(frames, SRC, TGT[:4], [0, 5, 10], measures=[{}])
    with pytest.raises(ValueError, match="links must lie inside the 4 x"):
        checkpoint_slider(frames, SRC, TGT[:4], [0, 5, 10], links=[(4, 0)])


def test_stepper_picture_is_a_strip_of_frames_one_row_per_run():
    steps = 9
    weights = torch.softmax(torch.randn(steps, len(SRC), generator=torch.Generator().manual_seed(3)), dim=-1)
    emitted = [f"w{k}" for k in range(steps)]
    widget = decoder_stepper(
        SRC, {"a": DecoderRun(weights, emitted), "b": DecoderRun(weights[:3], emitted[:3])}
    )
    figure = widget.picture()
    shown = [ax for ax in figure.axes if ax.get_visible()]
    first_row = [ax.get_title() for ax in shown[: len(shown) - 3]]
    # several steps side by side, the first and the last among them, each titled with its emitted word
    assert (
        len(first_row) >= 3
        and first_row[0] == "step 1: w0"
        and first_row[-1] == f"step {steps}: w{steps - 1}"
    )
    assert [ax.get_title() for ax in shown[-3:]] == ["step 1: w0", "step 2: w1", "step 3: w2"]
    # each frame's bars are that step's weights
    bars = [patch.get_height() for patch in shown[0].patches]
    np.testing.assert_allclose(bars, weights[0].numpy(), atol=1e-4)
