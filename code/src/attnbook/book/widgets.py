"""Interactive attention figures as self-contained HTML:
no library, no CDN, no server, no kernel.

Each function returns a :class:`Widget`, whose ``_repr_html_`` is one
``<div class="attention-widget">`` holding its data (as JSON),
the style sheet ``widgets.css`` and the script ``widgets.js`` of this
package (readable files, embedded inline).
A notebook, Colab and the HTML book all show it as it is,
online or offline:

- :func:`attention_widget`: a weight matrix with tokens on both axes
  (source on x, target on y). Hover or arrow-key over a cell to read its
  target word, source word and weight (and score);
  hover a target word to draw its row of weights onto the source words.
- :func:`decoder_stepper`: a slider over decoder steps showing,
  for step ``i``, the query, the scores over the source words,
  the softmax weights as bars and the emitted word;
  several runs (an untrained and a trained model) get a toggle.
- :func:`weights_slider`: a slider over precomputed rows of weights,
  e.g. one per temperature.
- :func:`curve_slider`: a slider over precomputed curves, e.g. kernel
  regression fits, one per bandwidth.
- :func:`checkpoint_slider`: a slider over snapshots of an attention
  matrix taken while a model trained, each with its measures and the true
  links outlined.

In the book every widget is a numbered figure:
its cell's metadata ``mystnb: figure: {name, caption}`` (name
``fig-<chapter>-<what>-widget``) makes Jupyter Book wrap the output in a
figure, numbered and captioned alike in the web page (around the HTML,
whose own caption ``widgets.css`` then hides) and in the PDF (around the
static PNG), so that ``{numref}`` and the list of figures agree between
the two.

The output depends on the arguments only: the element id is the ``name``
given, or a hash of the content, so every build writes the same page.
Colours follow the book's theme (its CSS variables) in light and dark mode,
with fallbacks where the theme is absent (Colab, Jupyter).
"""

from __future__ import annotations

import base64
import functools
import hashlib
import html
import io
import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

import numpy as np
import torch

MAX_BYTES = 50_000
"""The most bytes one widget may take: a page with several widgets
stays light."""

DECIMALS = 4
"""Weights, scores and curves are embedded rounded to this many decimals
(the widgets show three)."""

PNG_DPI = 100
"""The resolution of a widget's static figure (:attr:`Widget.png`):
small enough to keep notebooks light."""

ArrayLike = torch.Tensor | np.ndarray | Sequence[Any]


@dataclass(frozen=True)
class Widget:
    """One interactive figure, rendered as self-contained HTML,
    with a static picture of the same numbers.

    A notebook gets both from :meth:`_repr_mimebundle_`:
    ``text/html`` (the interactive figure, which the web page shows)
    and ``image/png`` (a static figure drawn from the same data,
    which a PDF or any front end without JavaScript shows).

    Attributes:
        name: the element id of the widget's root (``attention-widget`` is
            its class).
        kind: ``"matrix"``, ``"stepper"``, ``"slider"``, ``"curve"`` or
            ``"translator"``.
        html: the whole output: a ``<style>``, the root ``<div>`` with its
            data and its script.
        data: the numbers and labels the widget shows (what its JSON
            holds); the PNG is drawn from them.
    """

    name: str
    kind: str
    html: str
    data: Mapping[str, Any] = field(
        default_factory=dict, compare=False, repr=False
    )

    @property
    def size(self) -> int:
        """The size of the HTML in bytes (UTF-8)."""
        return len(self.html.encode("utf-8"))

    @property
    def png(self) -> bytes:
        """The static figure as PNG bytes (drawn at :data:`PNG_DPI` dots
        per inch)."""
        return _static_png(self.kind, self.data)

    def _repr_html_(self) -> str:
        return self.html

    def _repr_mimebundle_(
        self, include: Any = None, exclude: Any = None
    ) -> dict[str, str]:
        return {
            "text/html": self.html,
            "image/png": base64.b64encode(self.png).decode("ascii"),
        }

    def __repr__(self) -> str:
        return (
            f"Widget(name={self.name!r}, kind={self.kind!r}, "
            f"size={self.size:,} bytes)"
        )


@dataclass(frozen=True)
class DecoderRun:
    """What a decoder did at each of its ``T`` steps over a source of ``S``
    tokens, for :func:`decoder_stepper`.

    Attributes:
        weights: ``(T, S)`` attention weights;
            row ``i`` is step ``i``'s distribution over the source.
        emitted: ``T`` words, the word the decoder emitted at each step.
        scores: optional ``(T, S)`` scores before the softmax (``-inf`` for
            masked positions is allowed).
        queries: optional ``(T, d)`` queries, e.g. the decoder state each
            step attends from.
    """

    weights: ArrayLike
    emitted: Sequence[str]
    scores: ArrayLike | None = None
    queries: ArrayLike | None = None


def _array(name: str, value: ArrayLike, ndim: int) -> np.ndarray:
    if isinstance(value, torch.Tensor):
        value = value.detach().to("cpu", torch.float64).numpy()
    try:
        array = np.asarray(value, dtype=float)
    except (TypeError, ValueError) as error:
        raise TypeError(
            f"{name} must be a tensor, an array or nested lists of "
            f"numbers; {error}"
        ) from error
    if array.ndim != ndim:
        raise ValueError(
            f"{name} must be {ndim}-D, got shape {tuple(array.shape)}"
        )
    return array


def _finite(
    name: str, array: np.ndarray, allow_neg_inf: bool = False
) -> None:
    bad = np.isnan(array) | (
        np.isinf(array) & ~(allow_neg_inf & (array < 0))
    )
    if bad.any():
        raise ValueError(
            f"{name} has {int(bad.sum())} non-finite entries (first at "
            f"{np.argwhere(bad)[0].tolist()})"
        )


def _tokens(
    name: str, tokens: Sequence[str], length: int, axis: str
) -> list[str]:
    if isinstance(tokens, str):
        raise TypeError(
            f"{name} must be a sequence of tokens, not one string: split "
            "it first"
        )
    tokens = [str(token) for token in tokens]
    if len(tokens) != length:
        raise ValueError(
            f"{name} has {len(tokens)} tokens but the weights have "
            f"{length} {axis}"
        )
    return tokens


def _rounded(array: np.ndarray) -> list:
    """Nested lists rounded to DECIMALS; ``-inf`` (a masked score)
    becomes ``None``."""
    rounded = np.round(array, DECIMALS) + 0.0  # + 0.0 turns -0.0 into 0.0
    return [
        _rounded(row)
        if isinstance(row, np.ndarray)
        else (None if math.isinf(row) else float(row))
        for row in rounded
    ]


def _weights(name: str, value: ArrayLike) -> np.ndarray:
    weights = _array(name, value, 2)
    _finite(name, weights)
    if (weights < 0).any():
        raise ValueError(
            f"{name} must be non-negative (attention weights); the "
            f"smallest is {weights.min():.4g}"
        )
    return weights


def _slug(name: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    if not slug:
        raise ValueError(
            f"name must contain a letter or a digit, got {name!r}"
        )
    return slug


def _render(
    kind: str, data: dict, name: str | None, caption: str | None
) -> Widget:
    payload = json.dumps(
        {"kind": kind, **data}, separators=(",", ":"), allow_nan=False
    )  # ASCII
    if name is None:
        digest = hashlib.sha1(
            f"{kind}\0{payload}\0{caption}".encode()
        ).hexdigest()[:10]
        element_id = f"aw-{kind}-{digest}"
    else:
        element_id = f"aw-{_slug(name)}"
    # JSON inside <script>: never close the element early
    payload = payload.replace("</", "<\\/")
    caption_html = (
        f'<div class="aw-caption">{_ascii_html(caption)}</div>'
        if caption
        else ""
    )
    label = _ascii_html(
        caption or f"interactive attention figure ({kind})"
    )
    document = (
        f"<style>{_asset('widgets.css')}</style>"
        f'<div class="attention-widget" id="{element_id}" '
        f'data-kind="{kind}" role="figure" aria-label="{label}">'
        '<div class="aw-body">Interactive figure: it needs '
        f"JavaScript.</div>{caption_html}"
        '<script type="application/json" '
        f'class="aw-data">{payload}</script>'
        f"<script>{_asset('widgets.js').replace('__AW_ID__', element_id)}"
        "</script></div>"
    )
    # the page's declared encoding cannot garble it
    assert document.isascii()
    widget = Widget(element_id, kind, document, {"kind": kind, **data})
    if widget.size > MAX_BYTES:
        raise ValueError(
            f"the {kind} widget takes {widget.size:,} bytes, over the "
            f"limit of {MAX_BYTES:,}: "
            "pass fewer frames, steps or points"
        )
    return widget


def _ascii_html(text: str) -> str:
    """Escaped text in pure ASCII (non-ASCII characters as references):
    any page encoding shows it right."""
    return (
        html.escape(text, quote=True)
        .encode("ascii", "xmlcharrefreplace")
        .decode("ascii")
    )


def attention_widget(
    weights: ArrayLike,
    src_tokens: Sequence[str],
    tgt_tokens: Sequence[str],
    *,
    scores: ArrayLike | None = None,
    name: str | None = None,
    caption: str | None = None,
) -> Widget:
    """An attention matrix with tokens on both axes:
    hover a cell to read it, a target word to see its row.

    Args:
        weights: ``(tgt_len, src_len)`` weights;
            row ``i`` is target step ``i``'s distribution.
        src_tokens: ``src_len`` labels of the columns (x axis).
        tgt_tokens: ``tgt_len`` labels of the rows (y axis).
        scores: optional ``(tgt_len, src_len)`` scores before the softmax,
            shown beside the weight.
        name: the element id (made URL-safe, prefixed ``aw-``);
            ``None`` hashes the content.
        caption: a sentence shown under the figure.

    Shape:
        - weights, scores: ``(T, S)``; src_tokens: ``S``;
          tgt_tokens: ``T``.

    Returns:
        A :class:`Widget`; a notebook displays it.

    Raises:
        ValueError: the weights are not 2-D, not finite or negative,
            the token lists do not match their shape, the scores' shape
            differs from the weights', or the widget exceeds ``MAX_BYTES``.
    """
    matrix = _weights("weights", weights)
    tgt_len, src_len = matrix.shape
    data = {
        "src": _tokens(
            "src_tokens", src_tokens, src_len, "columns (src_len)"
        ),
        "tgt": _tokens(
            "tgt_tokens", tgt_tokens, tgt_len, "rows (tgt_len)"
        ),
        "weights": _rounded(matrix),
        "scores": None,
    }
    if scores is not None:
        score_matrix = _array("scores", scores, 2)
        if score_matrix.shape != matrix.shape:
            raise ValueError(
                f"scores must have the weights' shape {matrix.shape}, got "
                f"{score_matrix.shape}"
            )
        _finite("scores", score_matrix, allow_neg_inf=True)
        data["scores"] = _rounded(score_matrix)
    return _render("matrix", data, name, caption)


def _run_data(label: str, run: DecoderRun, src_len: int) -> dict:
    weights = _weights(f"runs[{label!r}].weights", run.weights)
    steps = weights.shape[0]
    if weights.shape[1] != src_len:
        raise ValueError(
            f"runs[{label!r}].weights has {weights.shape[1]} columns but "
            f"src_tokens has {src_len} tokens"
        )
    data = {
        "label": label,
        "weights": _rounded(weights),
        "emitted": _tokens(
            f"runs[{label!r}].emitted", run.emitted, steps, "rows (steps)"
        ),
        "scores": None,
        "queries": None,
    }
    if run.scores is not None:
        scores = _array(f"runs[{label!r}].scores", run.scores, 2)
        if scores.shape != weights.shape:
            raise ValueError(
                f"runs[{label!r}].scores must have the weights' shape "
                f"{weights.shape}, got {scores.shape}"
            )
        _finite(f"runs[{label!r}].scores", scores, allow_neg_inf=True)
        data["scores"] = _rounded(scores)
    if run.queries is not None:
        queries = _array(f"runs[{label!r}].queries", run.queries, 2)
        if queries.shape[0] != steps:
            raise ValueError(
                f"runs[{label!r}].queries has {queries.shape[0]} rows but "
                f"the weights have {steps} steps"
            )
        _finite(f"runs[{label!r}].queries", queries)
        data["queries"] = _rounded(queries)
    return data


def decoder_stepper(
    src_tokens: Sequence[str],
    runs: DecoderRun | Mapping[str, DecoderRun],
    *,
    name: str | None = None,
    caption: str | None = None,
) -> Widget:
    """A slider (and the arrow keys) over decoder steps:
    query, scores, weights and emitted word of step ``i``.

    Args:
        src_tokens: the ``S`` source tokens the decoder attends over.
        runs: one :class:`DecoderRun`, or several by label (``{"untrained":
            ..., "trained": ...}``), which the widget lets the reader
            toggle between.
        name: the element id (made URL-safe, prefixed ``aw-``);
            ``None`` hashes the content.
        caption: a sentence shown under the figure.

    Returns:
        A :class:`Widget`.

    Raises:
        ValueError: a run's weights do not have ``S`` columns,
            its emitted words, scores or queries do not match its number of
            steps, ``runs`` is empty, or the widget exceeds ``MAX_BYTES``.
    """
    runs = {"": runs} if isinstance(runs, DecoderRun) else dict(runs)
    if not runs:
        raise ValueError(
            "runs is empty: pass a DecoderRun or a mapping of labels to "
            "DecoderRuns"
        )
    if isinstance(src_tokens, str):
        raise TypeError(
            "src_tokens must be a sequence of tokens, not one string: "
            "split it first"
        )
    src = [str(token) for token in src_tokens]
    data = {
        "src": src,
        "runs": [
            _run_data(str(label), run, len(src))
            for label, run in runs.items()
        ],
    }
    return _render("stepper", data, name, caption)


def weights_slider(
    weights: ArrayLike,
    key_tokens: Sequence[str],
    values: Sequence[float],
    *,
    parameter: str = "τ",
    name: str | None = None,
    caption: str | None = None,
) -> Widget:
    """A slider over precomputed rows of weights, one per value of a
    parameter (e.g. the temperature).

    Args:
        weights: ``(F, S)`` weights, row ``f`` computed at ``values[f]``.
        key_tokens: the ``S`` labels of the keys.
        values: the ``F`` parameter values, in the order the slider
            visits them.
        parameter: the parameter's symbol or name, shown as
            ``parameter = value``.
        name: the element id (made URL-safe, prefixed ``aw-``);
            ``None`` hashes the content.
        caption: a sentence shown under the figure.

    Raises:
        ValueError: the shapes of weights, key_tokens and values disagree,
            or the widget exceeds ``MAX_BYTES``.
    """
    frames = _weights("weights", weights)
    values = _array("values", values, 1)
    if len(values) != frames.shape[0]:
        raise ValueError(
            f"values has {len(values)} entries but weights has "
            f"{frames.shape[0]} rows (frames)"
        )
    _finite("values", values)
    data = {
        "src": _tokens(
            "key_tokens", key_tokens, frames.shape[1], "columns"
        ),
        "parameter": parameter,
        "values": [float(f"{value:.4g}") for value in values],
        "weights": _rounded(frames),
    }
    return _render("slider", data, name, caption)


def curve_slider(
    x: ArrayLike,
    curves: ArrayLike,
    values: Sequence[float],
    *,
    parameter: str = "σ",
    points: tuple[ArrayLike, ArrayLike] | None = None,
    reference: ArrayLike | None = None,
    x_label: str = "x",
    y_label: str = "y",
    name: str | None = None,
    caption: str | None = None,
) -> Widget:
    """A slider over precomputed curves on one grid, one per value of a
    parameter (e.g. a bandwidth).

    Hover the plot (or focus it and press the arrow keys) to read the curve
    at a grid point.

    Args:
        x: the ``N`` grid points, increasing.
        curves: ``(F, N)`` curve values, row ``f`` computed at
            ``values[f]``.
        values: the ``F`` parameter values.
        parameter: the parameter's symbol or name.
        points: optional ``(xs, ys)`` samples drawn as dots (e.g. the
            training data).
        reference: optional ``N`` values of a reference curve (e.g. the
            true function), dashed.
        x_label, y_label: the axis titles.
        name: the element id (made URL-safe, prefixed ``aw-``);
            ``None`` hashes the content.
        caption: a sentence shown under the figure.

    Raises:
        ValueError: the shapes disagree, x is not increasing, or the widget
            exceeds ``MAX_BYTES``.
    """
    grid = _array("x", x, 1)
    frames = _array("curves", curves, 2)
    values = _array("values", values, 1)
    for label, array in (
        ("x", grid),
        ("curves", frames),
        ("values", values),
    ):
        _finite(label, array)
    if frames.shape[1] != len(grid):
        raise ValueError(
            f"curves has {frames.shape[1]} columns but x has {len(grid)} "
            "grid points"
        )
    if len(values) != frames.shape[0]:
        raise ValueError(
            f"values has {len(values)} entries but curves has "
            f"{frames.shape[0]} rows (frames)"
        )
    if len(grid) < 2 or (np.diff(grid) <= 0).any():
        raise ValueError(
            "x must have at least two grid points, in increasing order"
        )
    data = {
        "parameter": parameter,
        "values": [float(f"{value:.4g}") for value in values],
        "x": _rounded(grid),
        "curves": _rounded(frames),
        "points": None,
        "reference": None,
        "xLabel": x_label,
        "yLabel": y_label,
    }
    if points is not None:
        xs, ys = (
            _array("points[0]", points[0], 1),
            _array("points[1]", points[1], 1),
        )
        if xs.shape != ys.shape:
            raise ValueError(
                f"points must be two arrays of one length, got {len(xs)} "
                f"and {len(ys)}"
            )
        data["points"] = [_rounded(xs), _rounded(ys)]
    if reference is not None:
        ref = _array("reference", reference, 1)
        if ref.shape != grid.shape:
            raise ValueError(
                f"reference has {len(ref)} values but x has {len(grid)} "
                "grid points"
            )
        data["reference"] = _rounded(ref)
    return _render("curve", data, name, caption)


def checkpoint_slider(
    weights: ArrayLike,
    src_tokens: Sequence[str],
    tgt_tokens: Sequence[str],
    steps: Sequence[int],
    *,
    measures: Sequence[Mapping[str, str]] | None = None,
    links: Iterable[tuple[int, int]] | None = None,
    name: str | None = None,
    caption: str | None = None,
) -> Widget:
    """A slider over snapshots of one attention matrix taken while a model
    trained, with their measures.

    Each frame is an attention matrix (hover a cell to read it,
    as in :func:`attention_widget`); the true links, if given,
    are outlined in every frame, and each frame's measures (e.g. the
    validation loss and the alignment accuracy at that step) are written
    above it.

    Args:
        weights: ``(F, T, S)`` weights, frame ``f`` taken at training
            step ``steps[f]``.
        src_tokens, tgt_tokens: the ``S`` column and ``T`` row labels.
        steps: the ``F`` training steps, in the order the slider
            visits them.
        measures: one mapping per frame from a measure's name to its value
            as text.
        links: true ``(i, j)`` links (row, column) to outline.
        name: the element id (made URL-safe, prefixed ``aw-``);
            ``None`` hashes the content.
        caption: a sentence shown under the figure.

    Raises:
        ValueError: the shapes of weights, tokens, steps and measures
            disagree, a link lies outside the matrix, or the widget
            exceeds ``MAX_BYTES``.
    """
    frames = _array("weights", weights, 3)
    _finite("weights", frames)
    if (frames < 0).any():
        raise ValueError("weights must be non-negative")
    n_frames, tgt_len, src_len = frames.shape
    step_values = [int(step) for step in steps]
    if len(step_values) != n_frames:
        raise ValueError(
            f"steps has {len(step_values)} entries but weights has "
            f"{n_frames} frames"
        )
    fields = (
        [list(map(list, frame.items())) for frame in measures]
        if measures is not None
        else [[]] * n_frames
    )
    if len(fields) != n_frames:
        raise ValueError(
            f"measures has {len(fields)} entries but weights has "
            f"{n_frames} frames"
        )
    link_list = (
        [[int(i), int(j)] for i, j in links] if links is not None else None
    )
    if link_list and any(
        not (0 <= i < tgt_len and 0 <= j < src_len) for i, j in link_list
    ):
        raise ValueError(
            f"links must lie inside the {tgt_len} x {src_len} matrix"
        )
    data = {
        "src": _tokens(
            "src_tokens", src_tokens, src_len, "columns (src_len)"
        ),
        "tgt": _tokens(
            "tgt_tokens", tgt_tokens, tgt_len, "rows (tgt_len)"
        ),
        "steps": step_values,
        "weights": _rounded(frames),
        "fields": [
            [[str(key), str(value)] for key, value in frame]
            for frame in fields
        ],
        "links": link_list,
    }
    return _render("checkpoints", data, name, caption)


@dataclass(frozen=True)
class TranslationExample:
    """One translation, drawn as the translator's static figure (what a PDF
    shows in its place).

    Attributes:
        source: the ``S`` source tokens as the model read them
            (``<eos>`` last).
        target: the ``T`` target tokens it wrote (``<eos>`` last when it
            ended the sentence).
        weights: ``(T, S)`` attention weights.
        sentence: the sentence as typed, for the figure's title.
    """

    source: Sequence[str]
    target: Sequence[str]
    weights: ArrayLike
    sentence: str = ""


def translator_widget(
    src: str,
    *,
    size: int,
    example: TranslationExample | None = None,
    placeholder: str = "I am cold.",
    grammar: Mapping[str, Any] | None = None,
    name: str | None = None,
    caption: str | None = None,
) -> Widget:
    """A text box that translates in the page with the model whose weights
    file is at ``src``.

    The page runs the model itself (``seq2seq.js``, the forward pass and
    searches of ``attnbook.nmt``, and ``detok.js``, its detokeniser).
    The weights, a file written by
    ``attnbook.nmt.export_translator``, are not in the page:
    the widget loads them with a ``<script>`` element the first time the
    reader focuses the box, so a page opened from the disk works offline
    and stays light until then. The reader types English and presses Enter
    (or chooses greedy search or a beam of 4) and sees the French,
    the words the model did not know, each ``<unk>`` replaced through
    attention, the attention matrix and a decoder stepper.

    Args:
        src: the URL of the weights file, relative to the page (e.g.
            ``"../translator.js"``).
        size: the weights file's size in bytes (the box says how much it
            will load).
        example: a translation drawn as the static figure (PDF);
            ``None`` draws a note instead.
        placeholder: the example sentence shown in the empty box.
        grammar: for a model of the toy grammar,
            ``attnbook.nmt.grammar_lexicon()``:
            the page then reads each sentence with the grammar too
            (``grammar.js``) and draws the true alignment beside the
            attention when the grammar can make the sentence, drops
            punctuation, and answers a word outside the model's vocabulary
            with a message instead of reading it as ``<unk>``.
        name: the element id (made URL-safe, prefixed ``aw-``);
            ``None`` hashes the content.
        caption: a sentence shown under the box.

    Returns:
        A :class:`Widget` of kind ``"translator"``:
        its root has the class ``attn-translator``, the text box
        ``data-role="source"`` and the translation ``data-role="output"``.

    Raises:
        ValueError: ``src`` is empty or ``size`` is not positive.
    """
    if not isinstance(src, str) or not src.strip():
        raise ValueError(
            f"src must be the URL of the weights file, got {src!r}"
        )
    if size < 1:
        raise ValueError(
            "size must be the weights file's size in bytes (positive), "
            f"got {size}"
        )
    megabytes = f"{size / 1e6:.1f}"
    data: dict[str, Any] = {
        "kind": "translator",
        "src": src,
        "megabytes": megabytes,
        "placeholder": placeholder,
        "intro": "Type an English sentence and press Enter. The model "
        f"({megabytes} MB) loads when you "
        "first click or tab into the box.",
        "ready": "Type an English sentence and press Enter.",
        "grammar": dict(grammar) if grammar is not None else None,
        "refuseUnknown": grammar is not None,
        "failed": f"The model could not be loaded from {src}: this "
        "translator runs in the book's web "
        "pages (online or opened from the disk). In a notebook, translate "
        "with Python instead.",
    }
    payload = json.dumps(
        data, separators=(",", ":"), allow_nan=False
    ).replace("</", "<\\/")
    if name is None:
        element_id = (
            "aw-translator-"
            + hashlib.sha1(f"{payload}\0{caption}".encode()).hexdigest()[
                :10
            ]
        )
    else:
        element_id = f"aw-{_slug(name)}"
    label = _ascii_html(
        caption
        or "translator: type English, read the French and its attention"
    )
    caption_html = (
        f'<div class="aw-caption">{_ascii_html(caption)}</div>'
        if caption
        else ""
    )
    document = (
        f"<style>{_asset('widgets.css')}{_asset('translator.css')}</style>"
        f'<div class="attn-translator" id="{element_id}" '
        'data-kind="translator" role="group" '
        f'aria-label="{label}"><div class="aw-body">The translator needs '
        f"JavaScript.</div>{caption_html}"
        '<script type="application/json" '
        f'class="aw-data">{payload}</script>'
        f"<script>{_asset('widgets.js').replace('__AW_ID__', '')}</script>"
        f"<script>{_asset('detok.js')}</script>"
        f"<script>{_asset('seq2seq.js')}</script>"
        + (
            f"<script>{_asset('grammar.js')}</script>"
            if grammar is not None
            else ""
        )
        + "<script>"
        + _asset("translator.js").replace("__AW_ID__", element_id)
        + "</script></div>"
    )
    assert document.isascii()
    static: dict[str, Any] = {"kind": "translator", "example": None}
    if example is not None:
        weights = _weights("example.weights", example.weights)
        static["example"] = {
            "src": _tokens(
                "example.source",
                example.source,
                weights.shape[1],
                "columns",
            ),
            "tgt": _tokens(
                "example.target", example.target, weights.shape[0], "rows"
            ),
            "weights": _rounded(weights),
            "sentence": example.sentence,
        }
    return Widget(element_id, "translator", document, static)


def _compact_css(text: str) -> str:
    """The style sheet without its comments and line breaks (the file
    itself is the readable form)."""
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.DOTALL)
    return " ".join(
        line.strip() for line in text.splitlines() if line.strip()
    )


def _compact_js(text: str) -> str:
    """The script without its comment lines and indentation, non-ASCII
    characters as ``\\u`` escapes.

    Every comment in the file sits on a line of its own and no string spans
    lines, so dropping those lines and the leading spaces keeps the program
    as it is (the line breaks stay). Non-ASCII characters occur only inside
    string literals, where ``\\uXXXX`` means the same character.
    """
    lines = (line.strip() for line in text.splitlines())
    text = "\n".join(
        line for line in lines if line and not line.startswith("//")
    )
    return re.sub(
        r"[^\x00-\x7f]", lambda m: f"\\u{ord(m.group()):04x}", text
    )


@functools.cache
def _asset(name: str) -> str:
    """A widget file of this package (``widgets.js``, ``widgets.css``),
    compacted for embedding."""
    text = (
        resources.files(__package__)
        .joinpath(name)
        .read_text(encoding="utf-8")
    )
    return (
        _compact_js(text) if name.endswith(".js") else _compact_css(text)
    )


# The static figures: what a PDF (or any front end that runs no script)
# shows in the widget's place.


def _static_png(kind: str, data: Mapping[str, Any]) -> bytes:
    """Draw the widget's numbers as a static matplotlib figure (no pyplot:
    nothing else is displayed)."""
    from matplotlib.figure import Figure

    from attnbook.book.plotting import attention_heatmap

    def matrix(value: Any) -> np.ndarray:
        return np.array(value, dtype=float)

    if kind == "matrix":
        weights = matrix(data["weights"])
        figure = Figure(figsize=_heatmap_size(*weights.shape))
        attention_heatmap(
            weights, data["src"], data["tgt"], ax=figure.add_subplot()
        )
    elif kind == "stepper":
        runs = data["runs"]
        steps = max(len(run["weights"]) for run in runs)
        width, height = _heatmap_size(steps, len(data["src"]))
        figure = Figure(figsize=(width * len(runs), height))
        for index, run in enumerate(runs):
            ax = figure.add_subplot(1, len(runs), index + 1)
            attention_heatmap(
                matrix(run["weights"]),
                data["src"],
                run["emitted"],
                ax=ax,
                title=run["label"] or None,
            )
            ax.set_ylabel("emitted at each step")
    elif kind == "slider":
        weights = matrix(data["weights"])
        figure = Figure(figsize=_heatmap_size(*weights.shape))
        rows = [
            f"{data['parameter']} = {value}" for value in data["values"]
        ]
        ax = figure.add_subplot()
        attention_heatmap(weights, data["src"], rows, ax=ax, vmax=None)
        ax.set_ylabel(data["parameter"])
    elif kind == "curve":
        figure = Figure(figsize=(6.4, 3.4))
        ax = figure.add_subplot()
        x, curves = matrix(data["x"]), matrix(data["curves"])
        if data.get("points"):
            ax.scatter(
                data["points"][0],
                data["points"][1],
                s=8,
                color="0.3",
                label="samples",
            )
        if data.get("reference"):
            ax.plot(
                x, data["reference"], "k--", linewidth=1, label="reference"
            )
        colours = np.linspace(0.25, 0.95, len(curves))
        for value, curve, shade in zip(
            data["values"], curves, colours, strict=True
        ):
            ax.plot(
                x,
                curve,
                color=(0.12, 0.44, 0.70, shade),
                label=f"{data['parameter']} = {value}",
            )
        ax.set_xlabel(data["xLabel"])
        ax.set_ylabel(data["yLabel"])
        ax.legend(fontsize=7, ncol=2 if len(curves) > 6 else 1, loc="best")
    elif (
        kind == "checkpoints"
    ):  # the first, the last and two evenly spaced snapshots between them
        frames = matrix(data["weights"])
        shown = sorted(
            {
                round(k)
                for k in np.linspace(
                    0, len(frames) - 1, min(4, len(frames))
                )
            }
        )
        width, height = _heatmap_size(len(data["tgt"]), len(data["src"]))
        figure = Figure(figsize=(width * len(shown), height + 0.4))
        for index, k in enumerate(shown):
            ax = figure.add_subplot(1, len(shown), index + 1)
            links = (
                [tuple(link) for link in data["links"]]
                if data["links"]
                else None
            )
            attention_heatmap(
                frames[k],
                data["src"],
                data["tgt"],
                ax=ax,
                annotate=False,
                highlight=links,
            )
            notes = ", ".join(
                f"{key} {value}" for key, value in data["fields"][k]
            )
            ax.set_title(
                f"step {data['steps'][k]}"
                + (f"\n{notes}" if notes else ""),
                fontsize=8,
            )
    elif kind == "translator" and data["example"] is not None:
        example = data["example"]
        weights = matrix(example["weights"])
        figure = Figure(figsize=_heatmap_size(*weights.shape))
        ax = figure.add_subplot()
        attention_heatmap(weights, example["src"], example["tgt"], ax=ax)
        ax.set_title(
            "The translator in the web page, shown here for: "
            f"{example['sentence']}",
            fontsize=9,
        )
    elif kind == "translator":
        figure = Figure(figsize=(6.4, 0.8))
        figure.text(
            0.5,
            0.5,
            "The translator runs in the book's web pages.",
            ha="center",
            va="center",
        )
    else:
        raise ValueError(f"no static figure for a widget of kind {kind!r}")
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=PNG_DPI, bbox_inches="tight")
    return buffer.getvalue()


def _heatmap_size(rows: int, columns: int) -> tuple[float, float]:
    """The figure size ``attention_heatmap`` gives a ``rows x columns``
    matrix of its own."""
    return min(2.0 + 0.55 * columns, 14.0), min(1.4 + 0.45 * rows, 12.0)
