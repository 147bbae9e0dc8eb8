"""Step diagrams: one step of each attention mechanism, drawn before the
equations that define it.

Each diagram is a function that takes a :class:`Theme` and returns a
matplotlib :class:`~matplotlib.figure.Figure` (no pyplot: nothing is
displayed by accident). :func:`show_diagram` draws a diagram in the book's
light and dark themes and shows the one that matches the page: the web
book swaps them with the theme (pydata-sphinx-theme's ``only-light`` and
``only-dark`` image classes), the PDF prints the light one.

The symbols are those of the book's notation page: ``h_j`` the encoder
states, ``s_i`` the decoder state, ``e_ij`` the scores, ``alpha_ij`` the
weights, ``c_i`` the context. matplotlib is imported inside the functions,
on first use, as in :mod:`attnbook.book.plotting`.
"""

from __future__ import annotations

import base64
import html
import io
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from attnbook.book.widgets._embed import asset

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from matplotlib.patches import Rectangle


@dataclass(frozen=True)
class Theme:
    """The colours of one of the book's themes.

    The role colours are the Okabe-Ito palette (colour-blind safe), a
    lighter variant of each on the dark background.

    Attributes:
        name: ``"light"`` or ``"dark"``, the theme's name in the page.
        background: the page's background (pydata-sphinx-theme's).
        ink: text and arrows.
        muted: secondary marks: ellipses, zero weights, guides.
        query: the query and everything computed from it alone.
        key: the keys (encoder states, annotations).
        value: the values and the context made from them.
        weight: scores and attention weights.
        output: the decoder's new state and its prediction.
    """

    name: str
    background: str
    ink: str
    muted: str
    query: str
    key: str
    value: str
    weight: str
    output: str


LIGHT = Theme(
    name="light",
    background="#ffffff",
    ink="#222832",
    muted="#5f6873",
    query="#a65e00",
    key="#0072b2",
    value="#00805c",
    weight="#a8437c",
    output="#b34400",
)
"""The book's light theme."""

DARK = Theme(
    name="dark",
    background="#121212",
    ink="#ced6dd",
    muted="#8b949e",
    query="#f0b43c",
    key="#56b4e9",
    value="#3fd0a4",
    weight="#e3a6ca",
    output="#f08a4b",
)
"""The book's dark theme (pydata-sphinx-theme's dark background)."""

THEMES = (LIGHT, DARK)

Diagram = Callable[[Theme], "Figure"]
"""A function that draws one diagram in a theme."""

FONT_SIZE = 11
"""The size of the diagrams' labels in points."""

PNG_DPI = 200
"""The resolution of a diagram's PNG: sharp on a high-density screen."""

PAGE_DPI = 110
"""The pixels per inch of a figure in the web page: the book's
``figure.dpi``, so that a diagram and a plot of the same width in inches
appear the same width."""


# Drawing primitives: a blank canvas, labelled boxes, arrows, weight bars.


def _canvas(
    width: float, height: float, xlim: float, ylim: float, theme: Theme
) -> tuple[Figure, Axes]:
    """A figure of ``width x height`` inches whose one axes spans it, in
    data units from 0 to ``xlim`` and 0 to ``ylim``, with no frame."""
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height), facecolor=theme.background)
    ax = figure.add_axes((0.0, 0.0, 1.0, 1.0))
    ax.set_xlim(0, xlim)
    ax.set_ylim(0, ylim)
    ax.set_facecolor(theme.background)
    ax.set_axis_off()
    return figure, ax


def _box(
    ax: Axes,
    centre: tuple[float, float],
    text: str,
    colour: str,
    theme: Theme,
    size: tuple[float, float] = (1.0, 0.6),
    fontsize: float = FONT_SIZE,
) -> None:
    """A rounded box of ``size`` centred on ``centre``, outlined in
    ``colour``, tinted with it, and labelled ``text``."""
    from matplotlib.patches import FancyBboxPatch

    width, height = size
    x, y = centre
    ax.add_patch(
        FancyBboxPatch(
            (x - width / 2, y - height / 2),
            width,
            height,
            boxstyle="round,pad=0,rounding_size=0.12",
            facecolor=_tint(colour, theme),
            edgecolor=colour,
            linewidth=1.6,
            zorder=3,
        )
    )
    ax.text(
        x,
        y,
        text,
        ha="center",
        va="center",
        color=theme.ink,
        fontsize=fontsize,
        zorder=4,
    )


def _arrow(
    ax: Axes,
    start: tuple[float, float],
    end: tuple[float, float],
    colour: str,
    width: float = 1.4,
    style: str = "-|>",
    linestyle: str = "-",
    connection: str = "arc3",
) -> None:
    """An arrow from ``start`` to ``end`` that stops short of the boxes at
    either end."""
    from matplotlib.patches import FancyArrowPatch

    ax.add_patch(
        FancyArrowPatch(
            start,
            end,
            arrowstyle=style,
            mutation_scale=12,
            color=colour,
            linewidth=width,
            linestyle=linestyle,
            connectionstyle=connection,
            shrinkA=2,
            shrinkB=2,
            zorder=2,
        )
    )


def _label(
    ax: Axes,
    position: tuple[float, float],
    text: str,
    theme: Theme,
    colour: str | None = None,
    ha: str = "left",
    fontsize: float = FONT_SIZE,
    style: str = "normal",
) -> None:
    """Free text at ``position`` (vertically centred)."""
    ax.text(
        *position,
        text,
        ha=ha,
        va="center",
        color=colour or theme.ink,
        fontsize=fontsize,
        fontstyle=style,
        zorder=4,
    )


def _tint(
    colour: str, theme: Theme, amount: float = 0.18
) -> tuple[float, ...]:
    """``colour`` mixed into the theme's background: a box's fill."""
    from matplotlib.colors import to_rgb

    ink, paper = to_rgb(colour), to_rgb(theme.background)
    return tuple(
        amount * c + (1 - amount) * p
        for c, p in zip(ink, paper, strict=True)
    )


def _weight_bars(
    ax: Axes,
    xs: Sequence[float],
    base: float,
    weights: Sequence[float],
    theme: Theme,
    height: float = 1.3,
    width: float = 0.5,
) -> list[tuple[float, float]]:
    """One bar per weight, ``height`` for a weight of 1, with its value
    above it; returns the top centre of each bar."""
    tops = []
    for x, weight in zip(xs, weights, strict=True):
        top = base + max(weight, 0.0) * height
        ax.add_patch(_bar(x, base, width, top - base, theme))
        ax.text(
            x,
            top + 0.05,
            f"{weight:.2f}",
            ha="center",
            va="bottom",
            color=theme.ink,
            fontsize=FONT_SIZE - 2,
            zorder=4,
        )
        tops.append((x, top + 0.35))
    ax.plot(
        [xs[0] - width, xs[-1] + width],
        [base, base],
        color=theme.muted,
        linewidth=1.0,
        zorder=2,
    )
    return tops


def _bar(
    x: float, base: float, width: float, height: float, theme: Theme
) -> Rectangle:
    """A vertical bar of ``height`` on ``base``, centred on ``x``."""
    from matplotlib.patches import Rectangle

    return Rectangle(
        (x - width / 2, base),
        width,
        height,
        facecolor=theme.weight,
        edgecolor="none",
        zorder=3,
    )


def _weighted_sum(
    ax: Axes,
    sources: Sequence[tuple[float, float]],
    weights: Sequence[float],
    target: tuple[float, float],
    colour: str,
) -> None:
    """Lines from each source to ``target``, as thick as the weight:
    the weighted sum."""
    for source, weight in zip(sources, weights, strict=True):
        ax.plot(
            [source[0], target[0]],
            [source[1], target[1]],
            color=colour,
            linewidth=0.6 + 5.0 * weight,
            alpha=0.35 + 0.65 * weight,
            solid_capstyle="round",
            zorder=1,
        )


def _softmax(scores: Sequence[float]) -> list[float]:
    top = max(scores)
    exps = [math.exp(score - top) for score in scores]
    return [value / sum(exps) for value in exps]


# The diagrams, one per mechanism.

RUNNING_SOURCE = ("the", "black", "cat", "does", "not")
"""The first five words of the book's running example."""

NOIR_SCORES = (-0.8, 2.2, 0.6, -1.0, -1.2)
"""Illustrative scores of the step that writes *noir*: most on *black*,
some on *cat*."""


def encoder_decoder_attention(theme: Theme = LIGHT) -> Figure:
    """The encoder-decoder with attention at one step: the decoder state
    s_(i-1) is scored against every encoder state h_j, the softmax turns
    the scores e_ij into weights alpha_ij, and their weighted sum of the
    h_j, the context c_i, feeds the decoder's next state, which writes the
    word noir while most of the weight sits on black."""
    figure, ax = _canvas(8.0, 4.6, 13.0, 7.5, theme)
    xs = [3.0 + 1.5 * j for j in range(len(RUNNING_SOURCE))]
    weights = _softmax(NOIR_SCORES)
    for j, (x, word) in enumerate(
        zip(xs, RUNNING_SOURCE, strict=True), start=1
    ):
        _label(ax, (x, 0.4), word, theme, ha="center", style="italic")
        _arrow(ax, (x, 0.65), (x, 1.1), theme.muted)
        _box(ax, (x, 1.4), f"$h_{j}$", theme.key, theme)
        if j > 1:
            _arrow(ax, (x - 1.05, 1.4), (x - 0.5, 1.4), theme.muted)
        _arrow(ax, (x, 1.7), (x, 2.55), theme.key)
        _box(
            ax,
            (x, 2.85),
            f"$e_{{i{j}}}$",
            theme.weight,
            theme,
            size=(0.8, 0.55),
        )
    # the query runs along the row of scores
    decoder_x = 11.6
    _box(ax, (decoder_x, 1.4), "$s_{i-1}$", theme.query, theme)
    ax.plot(
        [decoder_x, decoder_x, xs[0] - 0.5],
        [1.7, 2.85, 2.85],
        color=theme.query,
        linewidth=1.6,
        zorder=1,
    )
    tops = _weight_bars(ax, xs, 3.75, weights, theme)
    for x in xs:
        _arrow(ax, (x, 3.12), (x, 3.7), theme.weight, width=1.0)
    context = (xs[2], 6.65)
    _weighted_sum(
        ax, tops, weights, (context[0], context[1] - 0.3), theme.value
    )
    _box(ax, context, "$c_i$", theme.value, theme)
    _box(ax, (decoder_x, 6.65), "$s_i$", theme.output, theme)
    _arrow(
        ax, (context[0] + 0.5, 6.65), (decoder_x - 0.5, 6.65), theme.value
    )
    _arrow(ax, (decoder_x, 1.7), (decoder_x, 6.35), theme.query)
    _label(
        ax, (decoder_x + 0.1, 4.4), "$f_{\\mathrm{dec}}$", theme, ha="left"
    )
    _label(
        ax, (decoder_x, 7.25), "writes $y_i$ = noir", theme, ha="center"
    )
    for y, text in [
        (0.4, "source $x_j$"),
        (1.4, "encoder states"),
        (2.85, "scores"),
        (4.3, "weights $\\alpha_{ij}$\n(softmax)"),
        (6.65, "context"),
    ]:
        _label(ax, (0.15, y), text, theme, colour=theme.muted)
    _label(
        ax,
        (decoder_x, 0.4),
        "decoder",
        theme,
        colour=theme.muted,
        ha="center",
    )
    return figure


def bahdanau_step(theme: Theme = LIGHT) -> Figure:
    """One Bahdanau decoder step: the previous state s_(i-1), the query,
    is projected by W_a; every annotation h_j is projected by U_a into a
    key once per sentence; each score e_ij adds the two projections,
    applies tanh and takes the dot product with v_a; the softmax gives the
    weights alpha_ij; the context c_i sums the annotations with those
    weights; and only then does the recurrence f_dec make the new state s_i
    from s_(i-1), y_(i-1) and c_i."""
    figure, ax = _canvas(8.4, 5.6, 13.6, 9.0, theme)
    scores = (-0.6, 1.9, 0.9, -0.9)
    weights = _softmax(scores)
    xs = [3.6 + 1.7 * j for j in range(len(scores))]
    for j, x in enumerate(xs, start=1):
        _box(ax, (x, 0.5), f"$h_{j}$", theme.key, theme)
        _arrow(ax, (x, 0.8), (x, 1.35), theme.key)
        _box(
            ax,
            (x, 1.65),
            f"$U_a h_{j}$",
            theme.key,
            theme,
            size=(1.3, 0.6),
        )
        _arrow(ax, (x, 1.95), (x, 2.85), theme.key)
        _box(
            ax,
            (x, 3.15),
            f"$e_{{i{j}}}$",
            theme.weight,
            theme,
            size=(0.8, 0.55),
        )
    decoder_x = 12.2
    _box(ax, (decoder_x, 0.5), "$s_{i-1}$", theme.query, theme)
    _arrow(ax, (decoder_x, 0.8), (decoder_x, 1.35), theme.query)
    _box(
        ax,
        (decoder_x, 1.65),
        "$W_a s_{i-1}$",
        theme.query,
        theme,
        size=(1.5, 0.6),
    )
    ax.plot(
        [decoder_x, decoder_x, xs[0] - 0.5],
        [1.95, 3.15, 3.15],
        color=theme.query,
        linewidth=1.6,
        zorder=1,
    )
    _label(
        ax,
        (xs[-1] + 0.8, 2.45),
        "query (query_proj)",
        theme,
        colour=theme.muted,
        fontsize=FONT_SIZE - 1,
    )
    _label(
        ax,
        ((xs[0] + xs[-1]) / 2, 3.85),
        "$e_{ij} = v_a^\\top \\tanh(W_a s_{i-1} + U_a h_j)$",
        theme,
        colour=theme.weight,
        ha="center",
    )
    tops = _weight_bars(ax, xs, 4.35, weights, theme)
    context = ((xs[1] + xs[2]) / 2, 7.35)
    _weighted_sum(
        ax, tops, weights, (context[0], context[1] - 0.3), theme.value
    )
    _box(
        ax,
        context,
        "$c_i = \\Sigma_j\\, \\alpha_{ij} h_j$",
        theme.value,
        theme,
        size=(2.4, 0.65),
    )
    state = (decoder_x, 7.35)
    _box(ax, state, "$s_i$", theme.output, theme)
    _arrow(
        ax, (context[0] + 1.2, 7.35), (decoder_x - 0.5, 7.35), theme.value
    )
    _arrow(ax, (decoder_x, 1.95), (decoder_x, 7.05), theme.query)
    _label(ax, (decoder_x - 0.6, 6.55), "$y_{i-1}$", theme, ha="right")
    _arrow(
        ax, (decoder_x - 0.55, 6.75), (decoder_x - 0.15, 7.05), theme.ink
    )
    _label(
        ax,
        (decoder_x, 8.35),
        "$s_i = f_{\\mathrm{dec}}(s_{i-1}, y_{i-1}, c_i)$",
        theme,
        colour=theme.output,
        ha="right",
    )
    for y, text in [
        (0.5, "annotations"),
        (1.65, "keys (key_proj),\nonce per sentence"),
        (3.15, "scores"),
        (5.0, "weights $\\alpha_{ij}$\n(softmax)"),
        (7.35, "context"),
    ]:
        _label(ax, (0.15, y), text, theme, colour=theme.muted)
    return figure


def luong_step(theme: Theme = LIGHT) -> Figure:
    """One Luong decoder step: the recurrence f_dec first makes the new
    state s_i from s_(i-1), the previous word y_(i-1) and the previous
    attentional state; s_i, the query, is scored against every encoder
    state h_j; the softmax gives the weights alpha_ij and the context c_i;
    the attentional state tilde s_i = tanh(W_c [c_i; s_i]) combines the
    context with the state and predicts the word y_i."""
    figure, ax = _canvas(8.4, 5.4, 13.6, 8.8, theme)
    scores = (-0.5, 0.7, 2.0, -0.7)
    weights = _softmax(scores)
    xs = [2.9 + 1.75 * j for j in range(len(scores))]
    for j, x in enumerate(xs, start=1):
        _box(ax, (x, 1.8), f"$h_{j}$", theme.key, theme)
        _arrow(ax, (x, 2.1), (x, 2.65), theme.key)
        _box(
            ax,
            (x, 2.95),
            f"$e_{{i{j}}}$",
            theme.weight,
            theme,
            size=(0.8, 0.55),
        )
    decoder_x = 12.2
    _box(ax, (decoder_x, 0.5), "$s_{i-1}$", theme.muted, theme)
    _arrow(ax, (decoder_x, 0.8), (decoder_x, 1.5), theme.ink)
    _label(ax, (decoder_x + 0.1, 1.15), "$f_{\\mathrm{dec}}$", theme)
    _label(
        ax,
        (decoder_x - 0.6, 1.15),
        "$y_{i-1}$, $\\tilde{s}_{i-1}$",
        theme,
        ha="right",
    )
    _arrow(
        ax, (decoder_x - 0.55, 1.15), (decoder_x - 0.05, 1.45), theme.ink
    )
    _box(ax, (decoder_x, 1.8), "$s_i$", theme.query, theme)
    ax.plot(
        [decoder_x, decoder_x, xs[0] - 0.5],
        [2.1, 2.95, 2.95],
        color=theme.query,
        linewidth=1.6,
        zorder=1,
    )
    _label(
        ax,
        (xs[-1] + 0.8, 2.45),
        "query $s_i$",
        theme,
        colour=theme.muted,
        fontsize=FONT_SIZE - 1,
    )
    tops = _weight_bars(ax, xs, 3.7, weights, theme)
    for x in xs:
        _arrow(ax, (x, 3.22), (x, 3.65), theme.weight, width=1.0)
    context = ((xs[1] + xs[2]) / 2, 6.55)
    _weighted_sum(
        ax, tops, weights, (context[0], context[1] - 0.3), theme.value
    )
    _box(ax, context, "$c_i$", theme.value, theme)
    attentional = (decoder_x, 6.55)
    _box(
        ax,
        attentional,
        "$\\tilde{s}_i = \\tanh(W_c [c_i; s_i])$",
        theme.output,
        theme,
        size=(2.5, 0.65),
    )
    _arrow(
        ax, (context[0] + 0.5, 6.55), (decoder_x - 1.25, 6.55), theme.value
    )
    _arrow(ax, (decoder_x, 2.1), (decoder_x, 6.22), theme.query)
    _arrow(ax, (decoder_x, 6.88), (decoder_x, 7.75), theme.output)
    _label(
        ax,
        (decoder_x + 1.1, 8.1),
        "$p(y_i) = \\mathrm{softmax}(W_o \\tilde{s}_i)$",
        theme,
        ha="right",
    )
    for y, text in [
        (1.8, "encoder states"),
        (2.95, "scores"),
        (4.4, "weights $\\alpha_{ij}$\n(softmax)"),
        (6.55, "context"),
    ]:
        _label(ax, (0.15, y), text, theme, colour=theme.muted)
    _label(
        ax,
        (decoder_x - 1.0, 0.5),
        "1. step first",
        theme,
        colour=theme.muted,
        ha="right",
    )
    _label(
        ax, (xs[-1] + 0.8, 3.45), "2. then look", theme, colour=theme.muted
    )
    return figure


LOCAL_SOURCE_LEN = 12
LOCAL_CENTRE = 6.4
LOCAL_HALF_WIDTH = 2
LOCAL_SCORES = (
    0.3,
    -0.2,
    0.8,
    0.1,
    0.5,
    1.4,
    0.9,
    0.2,
    1.1,
    -0.3,
    0.6,
    0.0,
)
"""Illustrative scores of the twelve source positions."""


def local_weights(
    scores: Sequence[float], centre: float, half_width: int
) -> list[float]:
    """Luong's local-p weights of one step: the softmax of the scores of
    the positions ``1 .. len(scores)`` within ``half_width`` of ``centre``,
    times a Gaussian of standard deviation ``half_width / 2`` centred
    there; zero outside the window.

    >>> [round(w, 3) for w in local_weights([0.0, 0.0, 0.0], 2.0, 1)]
    [0.045, 0.333, 0.045]
    """
    positions = range(1, len(scores) + 1)
    inside = [abs(j - centre) <= half_width for j in positions]
    window = _softmax(
        [s for s, keep in zip(scores, inside, strict=True) if keep]
    )
    sd = half_width / 2
    weights, k = [], 0
    for j, keep in zip(positions, inside, strict=True):
        if keep:
            weights.append(
                window[k] * math.exp(-((j - centre) ** 2) / (2 * sd**2))
            )
            k += 1
        else:
            weights.append(0.0)
    return weights


def local_window(theme: Theme = LIGHT) -> Figure:
    """Luong's local-p window at one step: the predicted centre p_i on the
    source positions, the window from p_i - D to p_i + D in which
    positions are scored, the Gaussian of standard deviation D/2 around
    p_i that scales the window's softmax weights, and weights of exactly
    zero outside the window."""
    from matplotlib.figure import Figure

    figure = Figure(figsize=(7.6, 3.4), facecolor=theme.background)
    ax = figure.add_axes((0.08, 0.17, 0.9, 0.7))
    ax.set_facecolor(theme.background)
    positions = list(range(1, LOCAL_SOURCE_LEN + 1))
    weights = local_weights(LOCAL_SCORES, LOCAL_CENTRE, LOCAL_HALF_WIDTH)
    low, high = (
        LOCAL_CENTRE - LOCAL_HALF_WIDTH,
        LOCAL_CENTRE + LOCAL_HALF_WIDTH,
    )
    ax.axvspan(low, high, color=_tint(theme.query, theme, 0.22), zorder=0)
    ax.bar(positions, weights, width=0.55, color=theme.weight, zorder=2)
    outside = [
        j for j in positions if abs(j - LOCAL_CENTRE) > LOCAL_HALF_WIDTH
    ]
    ax.plot(
        outside,
        [0.0] * len(outside),
        "o",
        color=theme.muted,
        markersize=4,
        zorder=3,
    )
    sd = LOCAL_HALF_WIDTH / 2
    grid = [0.5 + k * (LOCAL_SOURCE_LEN / 400) for k in range(401)]
    ax.plot(
        grid,
        [math.exp(-((x - LOCAL_CENTRE) ** 2) / (2 * sd**2)) for x in grid],
        color=theme.query,
        linewidth=1.8,
        zorder=3,
    )
    ax.axvline(
        LOCAL_CENTRE,
        color=theme.query,
        linestyle="--",
        linewidth=1.2,
        zorder=1,
    )
    top = 1.18
    ax.set_ylim(0, top)
    ax.set_xlim(0.4, LOCAL_SOURCE_LEN + 0.6)
    ax.text(
        LOCAL_CENTRE,
        top * 0.97,
        "$p_i$",
        ha="center",
        va="top",
        color=theme.ink,
        fontsize=FONT_SIZE,
    )
    for x, text in [(low, "$p_i - D$"), (high, "$p_i + D$")]:
        ax.text(
            x,
            top * 0.97,
            text,
            ha="center",
            va="top",
            color=theme.ink,
            fontsize=FONT_SIZE,
        )
    ax.annotate(
        "",
        (LOCAL_CENTRE + sd, math.exp(-0.5)),
        (LOCAL_CENTRE, math.exp(-0.5)),
        arrowprops={
            "arrowstyle": "<|-|>",
            "color": theme.query,
            "shrinkA": 0,
            "shrinkB": 0,
        },
    )
    ax.text(
        LOCAL_CENTRE + sd + 0.15,
        math.exp(-0.5),
        "Gaussian factor,\nsd $D/2$",
        va="center",
        color=theme.query,
        fontsize=FONT_SIZE - 1,
    )
    ax.text(
        1.0,
        0.2,
        "outside the window:\nweight exactly 0",
        color=theme.muted,
        fontsize=FONT_SIZE - 1,
    )
    ax.set_xticks(positions)
    ax.set_xlabel("source position $j$", color=theme.ink)
    ax.set_ylabel("weight $\\alpha_{ij}$ (bars)", color=theme.ink)
    ax.tick_params(colors=theme.ink)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    for side in ("left", "bottom"):
        ax.spines[side].set_color(theme.muted)
    return figure


LOOKUP_KEYS = ("apple", "bread", "cheese", "milk", "rice", "tea")
LOOKUP_SOFT_WEIGHTS = (0.04, 0.13, 0.52, 0.24, 0.05, 0.02)
"""Illustrative soft weights of a query close to cheese and milk."""


def dictionary_lookup(theme: Theme = LIGHT) -> Figure:
    """The dictionary lookup done two ways: on the left a hard lookup,
    where the query q equals one key k_j and the indicator picks that one
    value v_j; on the right a soft lookup, where the query is compared
    with every key, the softmax turns the scores e_j into weights alpha_j,
    and the context c is the weighted sum of all the values."""
    figure, ax = _canvas(8.6, 4.4, 14.4, 7.4, theme)
    hard = [1.0 if key == "cheese" else 0.0 for key in LOOKUP_KEYS]
    panels = [
        (0.0, hard, "hard: weight $1[q = k_j]$", "$v_3$", "one value"),
        (
            7.4,
            list(LOOKUP_SOFT_WEIGHTS),
            "soft: $\\alpha_j$ = softmax of $e_j = q^\\top k_j$",
            "$c$",
            "$c = \\Sigma_j\\, \\alpha_j v_j$",
        ),
    ]
    rows = [5.6 - 0.9 * k for k in range(len(LOOKUP_KEYS))]
    middle = sum(rows) / len(rows)
    for left, weights, title, result, result_note in panels:
        _label(ax, (left + 3.3, 7.0), title, theme, ha="center")
        query = (left + 0.45, middle)
        _box(ax, query, "$q$", theme.query, theme, size=(0.7, 0.6))
        answer = (left + 6.3, middle)
        for j, (y, key, weight) in enumerate(
            zip(rows, LOOKUP_KEYS, weights, strict=True), start=1
        ):
            key_x = left + 1.95
            _arrow(
                ax,
                (query[0] + 0.35, middle),
                (key_x - 0.65, y),
                theme.query,
                width=0.9,
            )
            _box(
                ax,
                (key_x, y),
                key,
                theme.key,
                theme,
                size=(1.3, 0.6),
                fontsize=FONT_SIZE - 1,
            )
            bar_x = left + 2.8
            ax.add_patch(_bar_h(bar_x, y, weight, theme))
            ax.text(
                bar_x + BAR_LENGTH * weight + 0.08,
                y,
                f"{weight:.2f}",
                va="center",
                color=theme.ink if weight > 0 else theme.muted,
                fontsize=FONT_SIZE - 2,
                zorder=4,
            )
            value_x = left + 5.0
            _box(
                ax,
                (value_x, y),
                f"$v_{j}$",
                theme.value,
                theme,
                size=(0.7, 0.6),
            )
            _weighted_sum(
                ax,
                [(value_x + 0.35, y)],
                [weight],
                (answer[0] - 0.4, middle),
                theme.value,
            )
        _box(ax, answer, result, theme.value, theme, size=(0.8, 0.6))
        _label(
            ax,
            (answer[0], middle - 0.65),
            result_note,
            theme,
            ha="center",
            fontsize=FONT_SIZE - 1,
        )
        for x, text in [
            (1.95, "keys $k_j$"),
            (3.45, "weights"),
            (5.0, "values $v_j$"),
        ]:
            _label(
                ax,
                (left + x, 6.35),
                text,
                theme,
                colour=theme.muted,
                ha="center",
            )
    ax.plot([7.1, 7.1], [0.3, 7.2], color=theme.muted, linewidth=0.8)
    return figure


BAR_LENGTH = 1.0
"""The length of a weight of 1 in :func:`dictionary_lookup`."""


def _bar_h(x: float, y: float, weight: float, theme: Theme) -> Rectangle:
    """A horizontal bar of the weight's length, starting at ``x`` and
    centred on ``y``."""
    from matplotlib.patches import Rectangle

    return Rectangle(
        (x, y - 0.18),
        BAR_LENGTH * weight,
        0.36,
        facecolor=theme.weight,
        edgecolor="none",
        zorder=3,
    )


LAYER_BOX = (2.9, 0.55)
"""The size of a sublayer's box in :func:`transformer_layers`."""


def _plus(ax: Axes, centre: tuple[float, float], theme: Theme) -> None:
    """The residual sum: a small circle with a plus."""
    from matplotlib.patches import Circle

    ax.add_patch(
        Circle(
            centre,
            0.2,
            facecolor=theme.background,
            edgecolor=theme.ink,
            linewidth=1.3,
            zorder=3,
        )
    )
    _label(ax, centre, "+", theme, ha="center", fontsize=FONT_SIZE + 1)


def _residual_branch(
    ax: Axes,
    x: float,
    base: float,
    text: str,
    colour: str,
    theme: Theme,
    side: float,
) -> float:
    """One pre-norm sublayer from the stream at height ``base``: the
    LayerNorm, the sublayer, the sum with the skip line drawn on ``side``
    (-1 left, +1 right); returns the height of the sum."""
    norm_y, sub_y, plus_y = base + 0.55, base + 1.35, base + 2.15
    _box(
        ax,
        (x, norm_y),
        "LayerNorm",
        theme.muted,
        theme,
        size=(2.0, 0.45),
        fontsize=FONT_SIZE - 1,
    )
    _box(ax, (x, sub_y), text, colour, theme, size=LAYER_BOX)
    _plus(ax, (x, plus_y), theme)
    _arrow(ax, (x, base), (x, norm_y - 0.24), theme.ink)
    _arrow(ax, (x, norm_y + 0.23), (x, sub_y - 0.28), theme.ink)
    _arrow(ax, (x, sub_y + 0.28), (x, plus_y - 0.2), theme.ink)
    # the skip: the stream goes round the sublayer, unchanged
    skip = x + side * 1.75
    ax.plot(
        [x, skip, skip],
        [base + 0.12, base + 0.12, plus_y],
        color=theme.muted,
        linewidth=1.4,
        zorder=1,
    )
    _arrow(ax, (skip, plus_y), (x + side * 0.21, plus_y), theme.muted)
    return plus_y


def transformer_layers(theme: Theme = LIGHT) -> Figure:
    """One encoder layer and one decoder layer of the Transformer,
    pre-norm: each sublayer reads a LayerNorm of the stream and its
    output is added back to the stream, which goes round it. The encoder
    layer has self-attention over the source and a feed-forward network;
    the decoder layer has self-attention under the causal mask,
    cross-attention whose keys and values are the encoder's states h_j,
    and a feed-forward network."""
    figure, ax = _canvas(8.6, 6.2, 14.0, 10.1, theme)
    encoder_x, decoder_x = 3.0, 10.4
    _label(
        ax,
        (encoder_x, 9.75),
        "encoder layer (one of $N$)",
        theme,
        ha="center",
    )
    _label(
        ax,
        (decoder_x, 9.75),
        "decoder layer (one of $N$)",
        theme,
        ha="center",
    )
    # the encoder: self-attention, then the feed-forward network
    _label(
        ax,
        (encoder_x, 0.3),
        "source states $x_j$",
        theme,
        colour=theme.muted,
        ha="center",
    )
    top = _residual_branch(
        ax, encoder_x, 0.6, "self-attention", theme.key, theme, -1
    )
    top = _residual_branch(
        ax, encoder_x, top + 0.2, "feed-forward", theme.value, theme, -1
    )
    encoder_out = (encoder_x, top + 1.3)
    _arrow(
        ax,
        (encoder_x, top + 0.2),
        (encoder_out[0], encoder_out[1] - 0.3),
        theme.ink,
    )
    _box(ax, encoder_out, "$h_j$", theme.key, theme, size=(0.9, 0.55))
    # the decoder: causal self-attention, cross-attention, feed-forward
    _label(
        ax,
        (decoder_x, 0.3),
        "target states (shifted right)",
        theme,
        colour=theme.muted,
        ha="center",
    )
    top = _residual_branch(
        ax, decoder_x, 0.6, "self-attention", theme.query, theme, 1
    )
    self_y = 0.6 + 1.35
    cross_base = top + 0.2
    top = _residual_branch(
        ax,
        decoder_x,
        cross_base,
        "cross-attention",
        theme.weight,
        theme,
        1,
    )
    cross_y = cross_base + 1.35
    top = _residual_branch(
        ax, decoder_x, top + 0.2, "feed-forward", theme.value, theme, 1
    )
    _arrow(ax, (decoder_x, top + 0.2), (decoder_x, top + 0.75), theme.ink)
    _label(
        ax,
        (decoder_x, top + 0.95),
        "to the next layer",
        theme,
        colour=theme.muted,
        ha="center",
    )
    # the encoder's states are the keys and values of cross-attention
    turn = 6.6
    ax.plot(
        [encoder_out[0] + 0.45, turn, turn],
        [encoder_out[1], encoder_out[1], cross_y],
        color=theme.key,
        linewidth=1.6,
        zorder=1,
    )
    _arrow(
        ax,
        (turn, cross_y),
        (decoder_x - LAYER_BOX[0] / 2, cross_y),
        theme.key,
    )
    _label(
        ax,
        (turn + 0.1, cross_y + 0.3),
        "keys, values",
        theme,
        colour=theme.key,
        fontsize=FONT_SIZE - 1,
    )
    # the causal mask: position i sees positions 0..i only
    cells, cell = 4, 0.28
    left, bottom = 6.4, self_y - cells * cell / 2
    from matplotlib.patches import Rectangle

    for row in range(cells):
        for column in range(cells):
            ax.add_patch(
                Rectangle(
                    (
                        left + column * cell,
                        bottom + (cells - 1 - row) * cell,
                    ),
                    cell,
                    cell,
                    facecolor=theme.query
                    if column <= row
                    else theme.background,
                    edgecolor=theme.muted,
                    linewidth=0.6,
                    zorder=3,
                )
            )
    _arrow(
        ax,
        (left + cells * cell + 0.05, self_y),
        (decoder_x - LAYER_BOX[0] / 2, self_y),
        theme.query,
    )
    _label(
        ax,
        (left + cells * cell / 2, bottom - 0.3),
        "causal mask",
        theme,
        colour=theme.muted,
        ha="center",
        fontsize=FONT_SIZE - 1,
    )
    _label(
        ax,
        (7.0, 9.2),
        "each branch: $x + \\mathrm{sublayer}(\\mathrm{LayerNorm}(x))$",
        theme,
        ha="center",
        fontsize=FONT_SIZE - 1,
    )
    return figure


# Showing a diagram in both themes.


def alt_text(draw: Diagram) -> str:
    """A diagram's alternative text: the first paragraph of its function's
    docstring, on one line, with its symbols as a screen reader should say
    them (:func:`spoken`)."""
    doc = draw.__doc__ or ""
    return spoken(" ".join(doc.strip().split("\n\n")[0].split()))


def spoken(text: str) -> str:
    """The docstrings' plain-text symbols in words: ``s_(i-1)`` as
    "s sub i minus 1", ``alpha_ij`` as "alpha sub i j", ``f_dec`` as
    "f sub dec", so that a screen reader does not spell out underscores and
    brackets.

    >>> spoken("s_(i-1) and alpha_ij give c_i through f_dec.")
    's sub i minus 1 and alpha sub i j give c sub i through f sub dec.'
    """

    def subscript(match: re.Match[str]) -> str:
        index = match.group(2) or match.group(3)
        if match.group(3) and len(index) == 2:  # two indices: i j
            index = " ".join(index)
        index = index.replace("-", " minus ").replace("+", " plus ")
        return f"{match.group(1)} sub {' '.join(index.split())}"

    return re.sub(
        r"\b(\w+?)_(?:\(([^)]*)\)|([A-Za-z0-9]+))", subscript, text
    )


PNG_COLOURS = 64
"""The colours of a diagram's PNG palette: a diagram has a handful of
colours and their anti-aliased edges, and a palette makes the PNG about a
quarter of its full-colour size."""


def _png(figure: Figure) -> bytes:
    """The figure as a palette PNG at :data:`PNG_DPI`."""
    from PIL import Image

    drawn = io.BytesIO()
    figure.savefig(
        drawn, format="png", dpi=PNG_DPI, facecolor=figure.get_facecolor()
    )
    drawn.seek(0)
    palette = (
        Image.open(drawn)
        .convert("RGB")
        .quantize(colors=PNG_COLOURS, method=Image.Quantize.MEDIANCUT)
    )
    buffer = io.BytesIO()
    palette.save(buffer, format="PNG", optimize=True)
    return buffer.getvalue()


@dataclass(frozen=True, repr=False)
class DiagramImage:
    """A diagram drawn in the light and the dark theme, which a notebook
    displays as the one that matches the page.

    Its :meth:`_repr_mimebundle_` gives ``text/html`` (both pictures, one
    hidden by the theme's ``only-light`` / ``only-dark`` classes; where
    no theme sets them, as in Jupyter or Colab, the light one) and
    ``image/png`` (the light picture, which the PDF prints).

    Attributes:
        name: the diagram's function name, e.g. ``"bahdanau_step"``.
        light: the light picture as PNG bytes.
        dark: the dark picture as PNG bytes.
        width: the picture's width in the page in CSS pixels.
        alt: the alternative text both ``<img>`` carry.
    """

    name: str
    light: bytes
    dark: bytes
    width: int
    alt: str

    @property
    def html(self) -> str:
        """Both pictures in one ``<div>``, with the style sheet
        (``diagrams.css``) that shows the one matching the page."""
        alt = html.escape(self.alt, quote=True)
        images = "".join(
            f'<img class="only-{theme}" src="data:image/png;base64,'
            f'{base64.b64encode(data).decode("ascii")}" alt="{alt}" '
            f'width="{self.width}" style="max-width: 100%; height: auto;">'
            for theme, data in (("light", self.light), ("dark", self.dark))
        )
        style = f"<style>{asset('diagrams.css')}</style>"
        return (
            f'<div class="attnbook-diagram" data-diagram="{self.name}">'
            f"{style}{images}</div>"
        )

    def _repr_mimebundle_(
        self, include: Any = None, exclude: Any = None
    ) -> dict[str, str]:
        return {
            "text/html": self.html,
            "image/png": base64.b64encode(self.light).decode("ascii"),
        }

    def __repr__(self) -> str:
        return f"DiagramImage({self.name!r})"


def show_diagram(draw: Diagram, alt: str | None = None) -> DiagramImage:
    """Draw ``draw`` in the light and the dark theme, for display.

    Args:
        draw: one of this module's diagrams, e.g. :func:`bahdanau_step`.
        alt: the alternative text; ``None`` takes the first paragraph of
            ``draw``'s docstring (:func:`alt_text`).

    Returns:
        A :class:`DiagramImage`, which a notebook shows.

    >>> image = show_diagram(dictionary_lookup)
    >>> image.html.count("<img"), image.alt.split()[:3]
    (2, ['The', 'dictionary', 'lookup'])
    """
    light, dark = draw(LIGHT), draw(DARK)
    width = round(light.get_figwidth() * PAGE_DPI)
    return DiagramImage(
        name=getattr(draw, "__name__", "diagram"),
        light=_png(light),
        dark=_png(dark),
        width=width,
        alt=alt_text(draw) if alt is None else alt,
    )


DIAGRAMS: tuple[Diagram, ...] = (
    encoder_decoder_attention,
    bahdanau_step,
    luong_step,
    local_window,
    dictionary_lookup,
    transformer_layers,
)
"""Every diagram of the book, in the order of the chapters."""
