"""Interactive attention figures as self-contained HTML:
no library, no CDN, no server, no kernel.

Each function returns a :class:`Widget`, whose ``_repr_html_`` is one
``<div class="attention-widget">`` holding its data (as JSON),
the style sheet ``widgets.css`` and the script ``widgets.js`` of
:mod:`attnbook.book` (readable files, embedded inline).
A notebook, Colab and the HTML book all show it as it is,
online or offline. Each kind has a module of its own, which holds the
function that builds it and the :class:`Widget` subclass that draws its
static picture:

- :func:`attention_widget` (:mod:`.matrix`): a weight matrix with tokens
  on both axes (source on x, target on y). Hover or arrow-key over a cell
  to read its target word, source word and weight (and score);
  hover a target word to draw its row of weights onto the source words.
- :func:`decoder_stepper` (:mod:`.stepper`): a slider over decoder steps
  showing, for step ``i``, the query, the scores over the source words,
  the softmax weights as bars and the emitted word;
  several runs (an untrained and a trained model) get a toggle.
- :func:`weights_slider` (:mod:`.slider`): a slider over precomputed rows
  of weights, e.g. one per temperature.
- :func:`curve_slider` (:mod:`.curve`): a slider over precomputed curves,
  e.g. kernel regression fits, one per bandwidth.
- :func:`checkpoint_slider` (:mod:`.checkpoints`): a slider over snapshots
  of an attention matrix taken while a model trained, each with its
  measures and the true links outlined.
- :func:`translator_widget` (:mod:`.translator`): a text box that
  translates in the page and draws the translation's attention.

:data:`KINDS` lists them by the name ``widgets.js`` draws each by.

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

from collections.abc import Mapping
from types import MappingProxyType

from attnbook.book.widgets._base import (
    DECIMALS,
    MAX_BYTES,
    PNG_DPI,
    Widget,
)
from attnbook.book.widgets.checkpoints import (
    CheckpointWidget,
    checkpoint_slider,
)
from attnbook.book.widgets.curve import CurveWidget, curve_slider
from attnbook.book.widgets.matrix import MatrixWidget, attention_widget
from attnbook.book.widgets.slider import SliderWidget, weights_slider
from attnbook.book.widgets.stepper import (
    DecoderRun,
    StepperWidget,
    decoder_stepper,
)
from attnbook.book.widgets.translator import (
    TranslationExample,
    TranslatorWidget,
    translator_widget,
)

KINDS: Mapping[str, type[Widget]] = MappingProxyType(
    {
        kind.kind: kind
        for kind in (
            MatrixWidget,
            StepperWidget,
            SliderWidget,
            CurveWidget,
            CheckpointWidget,
            TranslatorWidget,
        )
    }
)
"""Every kind of widget by its name: the name its data carries, which
picks the function of ``widgets.js`` that draws it (the translator's
script is ``translator.js``)."""

__all__ = [
    "DECIMALS",
    "KINDS",
    "MAX_BYTES",
    "PNG_DPI",
    "DecoderRun",
    "TranslationExample",
    "Widget",
    "attention_widget",
    "checkpoint_slider",
    "curve_slider",
    "decoder_stepper",
    "translator_widget",
    "weights_slider",
]
