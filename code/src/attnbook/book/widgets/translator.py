"""The translator: a text box that translates in the page with a model
exported for it, and draws the translation's attention
(:func:`translator_widget`)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from attnbook.book.widgets._base import (
    ArrayLike,
    Widget,
    ascii_html,
    heatmap_size,
    rounded,
    slug,
    token_list,
    weight_matrix,
)
from attnbook.book.widgets._embed import asset, widget_script

if TYPE_CHECKING:
    from matplotlib.figure import Figure

BEAMS = (1, 4)
"""The searches the box offers: greedy search and a beam of 4."""


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
    placeholder: str = "I am hungry.",
    beam: int = 1,
    longest: int | None = None,
    grammar: Mapping[str, Any] | None = None,
    name: str | None = None,
    caption: str | None = None,
    transformer: tuple[int, int] | None = None,
) -> Widget:
    """A text box that translates in the page with the model whose weights
    file is at ``src``.

    The page runs the model itself (``seq2seq.js``, the forward pass and
    searches of ``attnbook.nmt``, ``transformer.js`` for a Transformer,
    and ``detok.js``, its detokeniser).
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
        beam: the search the box starts with, 1 (greedy) or 4: the
            beam of the scores the page quotes for this model, so that
            the reader's first translation is the kind they measured.
        longest: the most tokens of an English sentence the model was
            trained on; a longer sentence gets a note saying so.
            ``None``: no note.
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
        transformer: for a Transformer's weights file, its ``(num_layers,
            num_heads)``: the page then runs ``transformer.js`` and lets
            the reader choose the cross-attention drawn, a layer and one
            of its heads or their average (by default the last layer's
            average, the weights that replace an unknown word).

    Returns:
        A :class:`Widget` of kind ``"translator"``:
        its root has the class ``attn-translator``, the text box
        ``data-role="source"`` and the translation ``data-role="output"``.

    Raises:
        ValueError: ``src`` is empty, ``size`` is not positive, or
            ``transformer`` is not two positive numbers.
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
    if beam not in BEAMS:
        raise ValueError(
            f"beam must be one of the box's searches {BEAMS}, got {beam!r}"
        )
    if transformer is not None and (
        len(transformer) != 2 or min(transformer) < 1
    ):
        raise ValueError(
            "transformer must be the model's (num_layers, num_heads), got "
            f"{transformer!r}"
        )
    megabytes = f"{size / 1e6:.1f}"
    data: dict[str, Any] = {
        "kind": "translator",
        "src": src,
        "megabytes": megabytes,
        "placeholder": placeholder,
        "beam": beam,
        "longest": longest,
        "intro": "Type an English sentence and press Enter. The model "
        f"({megabytes} MB) loads when you "
        "first click or tab into the box.",
        "ready": "Type an English sentence and press Enter.",
        # what attnbook.nmt.text says of the case (LOWER_CASED, RECASED);
        # the weights file says which: a casing table in its header
        "casing": "the model reads and writes lower-cased words",
        "recased": "the model reads and writes lower-cased words; "
        "capitals are put back after it, on each sentence's first word "
        "and on the names its training French spells with one",
        "grammar": dict(grammar) if grammar is not None else None,
        "refuseUnknown": grammar is not None,
        "transformer": (
            None
            if transformer is None
            else {"layers": transformer[0], "heads": transformer[1]}
        ),
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
        element_id = f"aw-{slug(name)}"
    label = ascii_html(
        caption
        or "translator: type English, read the French and its attention"
    )
    caption_html = (
        f'<div class="aw-caption">{ascii_html(caption)}</div>'
        if caption
        else ""
    )
    # widgets.js draws the translation's matrix and stepper
    scripts = [
        widget_script().replace("__AW_ID__", ""),
        asset("detok.js"),
        asset("seq2seq.js"),
        *([asset("transformer.js")] if transformer is not None else []),
        *([asset("grammar.js")] if grammar is not None else []),
        asset("translator.js").replace("__AW_ID__", element_id),
    ]
    document = (
        f"<style>{asset('widgets.css')}{asset('translator.css')}</style>"
        f'<div class="attn-translator" id="{element_id}" '
        'data-kind="translator" role="group" '
        f'aria-label="{label}"><div class="aw-body">The translator needs '
        f"JavaScript.</div>{caption_html}"
        '<script type="application/json" '
        f'class="aw-data">{payload}</script>'
        + "".join(f"<script>{script}</script>" for script in scripts)
        + "</div>"
    )
    assert document.isascii()
    static: dict[str, Any] = {"kind": "translator", "example": None}
    if example is not None:
        weights = weight_matrix("example.weights", example.weights)
        static["example"] = {
            "src": token_list(
                "example.source",
                example.source,
                weights.shape[1],
                "columns",
            ),
            "tgt": token_list(
                "example.target", example.target, weights.shape[0], "rows"
            ),
            "weights": rounded(weights),
            "sentence": example.sentence,
        }
    return TranslatorWidget(element_id, document, static)


class TranslatorWidget(Widget):
    """The translator box, whose script is ``translator.js``; its
    picture is the example translation's attention, or a note."""

    kind = "translator"

    def picture(self) -> Figure:
        from matplotlib.figure import Figure

        from attnbook.book.plotting import attention_heatmap

        example = self.data["example"]
        if example is None:
            figure = Figure(figsize=(6.4, 0.8))
            figure.text(
                0.5,
                0.5,
                "The translator runs in the book's web pages.",
                ha="center",
                va="center",
            )
            return figure
        weights = np.array(example["weights"], dtype=float)
        figure = Figure(figsize=heatmap_size(*weights.shape))
        ax = figure.add_subplot()
        attention_heatmap(weights, example["src"], example["tgt"], ax=ax)
        ax.set_title(
            "The translator in the web page, shown here for: "
            f"{example['sentence']}",
            fontsize=9,
        )
        return figure
