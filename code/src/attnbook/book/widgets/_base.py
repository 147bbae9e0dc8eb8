"""What every kind of widget shares: the Widget class, the checks of
its input, the rounding of its numbers, its element id and its HTML.

A kind of widget is a subclass of :class:`Widget` in a module of its
own, beside the function that builds it: the subclass names its kind
(the name ``widgets.js`` draws it by) and draws its static picture.
"""

from __future__ import annotations

import base64
import hashlib
import html
import io
import json
import math
import re
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

import numpy as np
import torch

from attnbook.book.widgets._embed import asset, widget_script

if TYPE_CHECKING:
    from matplotlib.figure import Figure

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


@dataclass(frozen=True, repr=False)
class Widget(ABC):
    """One interactive figure, rendered as self-contained HTML,
    with a static picture of the same numbers.

    A notebook gets both from :meth:`_repr_mimebundle_`:
    ``text/html`` (the interactive figure, which the web page shows)
    and ``image/png`` (a static figure drawn from the same data,
    which a PDF or any front end without JavaScript shows).

    Each kind of widget is a subclass that sets :attr:`kind` and draws
    its :meth:`picture`.

    Attributes:
        kind: the kind's name, the same in the widget's data and in the
            table of kinds of ``widgets.js``: ``"matrix"``,
            ``"stepper"``, ``"slider"``, ``"curve"``, ``"checkpoints"``
            or ``"translator"``.
        name: the element id of the widget's root (``attention-widget`` is
            its class).
        html: the whole output: a ``<style>``, the root ``<div>`` with its
            data and its script.
        data: the numbers and labels the widget shows (what its JSON
            holds); the PNG is drawn from them.
    """

    kind: ClassVar[str]
    name: str
    html: str
    data: Mapping[str, Any] = field(default_factory=dict, compare=False)

    @abstractmethod
    def picture(self) -> Figure:
        """The widget's numbers as a static matplotlib figure (no pyplot:
        nothing else is displayed)."""

    @property
    def size(self) -> int:
        """The size of the HTML in bytes (UTF-8)."""
        return len(self.html.encode("utf-8"))

    @property
    def png(self) -> bytes:
        """The static figure as PNG bytes (drawn at :data:`PNG_DPI` dots
        per inch)."""
        buffer = io.BytesIO()
        self.picture().savefig(
            buffer, format="png", dpi=PNG_DPI, bbox_inches="tight"
        )
        return buffer.getvalue()

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


# The checks of a widget's input: each error names the argument.


def as_array(name: str, value: ArrayLike, ndim: int) -> np.ndarray:
    """``value`` as a float array of ``ndim`` dimensions."""
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


def check_finite(
    name: str, array: np.ndarray, allow_neg_inf: bool = False
) -> None:
    """Refuse NaN and infinity (``-inf``, a masked score, if allowed)."""
    bad = np.isnan(array) | (
        np.isinf(array) & ~(allow_neg_inf & (array < 0))
    )
    if bad.any():
        raise ValueError(
            f"{name} has {int(bad.sum())} non-finite entries (first at "
            f"{np.argwhere(bad)[0].tolist()})"
        )


def token_list(
    name: str, tokens: Sequence[str], length: int, axis: str
) -> list[str]:
    """The tokens as strings, as many as the weights' ``axis`` has."""
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


def weight_matrix(name: str, value: ArrayLike) -> np.ndarray:
    """A 2-D array of finite, non-negative attention weights."""
    weights = as_array(name, value, 2)
    check_finite(name, weights)
    if (weights < 0).any():
        raise ValueError(
            f"{name} must be non-negative (attention weights); the "
            f"smallest is {weights.min():.4g}"
        )
    return weights


def rounded(array: np.ndarray) -> list[Any]:
    """Nested lists rounded to DECIMALS; ``-inf`` (a masked score)
    becomes ``None``."""
    # + 0.0 turns -0.0 into 0.0
    values = np.round(array, DECIMALS) + 0.0
    return [
        rounded(row)
        if isinstance(row, np.ndarray)
        else (None if math.isinf(row) else float(row))
        for row in values
    ]


# The HTML: an element id, escaped text, and the whole widget.


def slug(name: str) -> str:
    """``name`` made URL-safe: lower case, words joined by hyphens."""
    text = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    if not text:
        raise ValueError(
            f"name must contain a letter or a digit, got {name!r}"
        )
    return text


def ascii_html(text: str) -> str:
    """Escaped text in pure ASCII (non-ASCII characters as references):
    any page encoding shows it right."""
    return (
        html.escape(text, quote=True)
        .encode("ascii", "xmlcharrefreplace")
        .decode("ascii")
    )


AnyWidget = TypeVar("AnyWidget", bound=Widget)


def render(
    kind: type[AnyWidget],
    data: dict[str, Any],
    name: str | None,
    caption: str | None,
) -> AnyWidget:
    """A widget of ``kind`` showing ``data``, drawn by ``widgets.js``.

    Its element id is ``aw-`` and the slug of ``name``, or, without a
    name, the kind and a hash of the data and caption: the same input
    always gives the same HTML.
    """
    payload = json.dumps(
        {"kind": kind.kind, **data}, separators=(",", ":"), allow_nan=False
    )  # ASCII
    if name is None:
        digest = hashlib.sha1(
            f"{kind.kind}\0{payload}\0{caption}".encode()
        ).hexdigest()[:10]
        element_id = f"aw-{kind.kind}-{digest}"
    else:
        element_id = f"aw-{slug(name)}"
    # JSON inside <script>: never close the element early
    payload = payload.replace("</", "<\\/")
    caption_html = (
        f'<div class="aw-caption">{ascii_html(caption)}</div>'
        if caption
        else ""
    )
    label = ascii_html(
        caption or f"interactive attention figure ({kind.kind})"
    )
    script = widget_script().replace("__AW_ID__", element_id)
    document = (
        f"<style>{asset('widgets.css')}</style>"
        f'<div class="attention-widget" id="{element_id}" '
        f'data-kind="{kind.kind}" role="figure" aria-label="{label}">'
        '<div class="aw-body">Interactive figure: it needs '
        f"JavaScript.</div>{caption_html}"
        '<script type="application/json" '
        f'class="aw-data">{payload}</script>'
        f"<script>{script}</script></div>"
    )
    # the page's declared encoding cannot garble it
    assert document.isascii()
    widget = kind(element_id, document, {"kind": kind.kind, **data})
    if widget.size > MAX_BYTES:
        raise ValueError(
            f"the {kind.kind} widget takes {widget.size:,} bytes, over "
            f"the limit of {MAX_BYTES:,}: "
            "pass fewer frames, steps or points"
        )
    return widget


def heatmap_size(rows: int, columns: int) -> tuple[float, float]:
    """The figure size ``attention_heatmap`` gives a ``rows x columns``
    matrix of its own."""
    return min(2.0 + 0.55 * columns, 14.0), min(1.4 + 0.45 * rows, 12.0)
