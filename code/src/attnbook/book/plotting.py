"""The book's figure style, its token-labelled attention heatmap,
and a scale that places BLEU scores.

matplotlib and seaborn are imported inside the functions, on first use,
so that ``import attnbook`` does not load them (they take longer to import
than the rest of the package besides torch).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import torch

if TYPE_CHECKING:
    from matplotlib.axes import Axes

BOOK_CMAP = "rocket_r"
"""The colour map for attention weights: sequential, colour-blind safe,
dark = high weight."""


def set_book_style() -> None:
    """Apply the book's matplotlib/seaborn style:
    white grid, readable fonts, crisp figures.

    >>> import matplotlib.pyplot as plt
    >>> with plt.rc_context():  # restores the previous style afterwards
    ...     set_book_style()
    ...     plt.rcParams["axes.titleweight"]
    'bold'
    """
    import matplotlib.pyplot as plt
    import seaborn as sns

    sns.set_theme(context="notebook", style="whitegrid", font_scale=1.0)
    plt.rcParams.update(
        {
            "figure.dpi": 110,
            "savefig.dpi": 150,
            "figure.figsize": (6.4, 4.0),
            "axes.titleweight": "bold",
            "axes.spines.top": False,
            "axes.spines.right": False,
        }
    )


def _as_matrix(
    weights: torch.Tensor | np.ndarray | Sequence[Sequence[float]],
) -> np.ndarray:
    if isinstance(weights, torch.Tensor):
        weights = weights.detach().to("cpu", torch.float32).numpy()
    matrix = np.asarray(weights, dtype=float)
    if matrix.ndim == 1:
        matrix = matrix[None, :]
    if matrix.ndim != 2:
        raise ValueError(
            "weights must be 2-D (tgt_len, src_len) or 1-D (src_len,), "
            f"got shape {tuple(matrix.shape)}"
        )
    return matrix


def attention_heatmap(
    weights: torch.Tensor | np.ndarray | Sequence[Sequence[float]],
    src_tokens: Sequence[str],
    tgt_tokens: Sequence[str] | None = None,
    *,
    ax: Axes | None = None,
    title: str | None = None,
    annotate: bool | None = None,
    highlight: Iterable[tuple[int, int]] | None = None,
    vmax: float | None = 1.0,
    cmap: str = BOOK_CMAP,
    colorbar: bool = True,
) -> Axes:
    """Draw attention weights as a heatmap with source tokens on x and
    target tokens on y.

    Args:
        weights: ``(tgt_len, src_len)`` weights (row ``i`` is target step
            ``i``'s distribution over the source), or ``(src_len,)``
            for one step. A tensor may live on any device.
        src_tokens: ``src_len`` labels for the columns.
        tgt_tokens: ``tgt_len`` labels for the rows;
            ``None`` numbers the rows.
        ax: axes to draw into; ``None`` makes a new figure sized to
            the matrix.
        title: the axes title.
        annotate: print each weight in its cell.
            ``None`` annotates matrices of at most 12 x 12.
        highlight: ``(target_index, source_index)`` cells to outline,
            e.g. a reference alignment.
        vmax: the weight drawn darkest; ``1.0`` makes figures comparable,
            ``None`` uses the maximum.
        cmap: a sequential colour map; the default is colour-blind safe.
        colorbar: draw a colour bar labelled "attention weight".

    Returns:
        The :class:`~matplotlib.axes.Axes` drawn into.

    Raises:
        ValueError: the weights are not 1-D or 2-D, or the token lists do
            not match their shape.

    >>> weights = torch.tensor([[0.9, 0.1], [0.2, 0.8]])
    >>> ax = attention_heatmap(
    ...     weights,
    ...     ["the", "cat"],
    ...     ["le", "chat"],
    ...     highlight=[(0, 0), (1, 1)],
    ... )
    >>> (
    ...     [label.get_text() for label in ax.get_xticklabels()],
    ...     ax.get_ylabel(),
    ... )
    (['the', 'cat'], 'target')
    """
    import matplotlib.pyplot as plt
    import seaborn as sns
    from matplotlib.patches import Rectangle

    matrix = _as_matrix(weights)
    tgt_len, src_len = matrix.shape
    if len(src_tokens) != src_len:
        raise ValueError(
            f"src_tokens has {len(src_tokens)} labels but weights have "
            f"src_len={src_len} columns"
        )
    if tgt_tokens is None:
        tgt_tokens = [str(i) for i in range(tgt_len)]
    if len(tgt_tokens) != tgt_len:
        raise ValueError(
            f"tgt_tokens has {len(tgt_tokens)} labels but weights have "
            f"tgt_len={tgt_len} rows"
        )
    if ax is None:
        width = min(2.0 + 0.55 * src_len, 14.0)
        height = min(1.4 + 0.45 * tgt_len, 12.0)
        _, ax = plt.subplots(figsize=(width, height))
    if annotate is None:
        annotate = max(tgt_len, src_len) <= 12
    sns.heatmap(
        matrix,
        ax=ax,
        cmap=cmap,
        vmin=0.0,
        vmax=vmax,
        square=False,
        linewidths=0.5,
        linecolor="white",
        annot=annotate,
        fmt=".2f",
        annot_kws={"fontsize": 8},
        cbar=colorbar,
        cbar_kws={"label": "attention weight"} if colorbar else None,
        xticklabels=list(src_tokens),
        yticklabels=list(tgt_tokens),
    )
    for row, col in highlight or ():
        if not (0 <= row < tgt_len and 0 <= col < src_len):
            raise ValueError(
                f"highlight cell {(row, col)} is outside the {tgt_len} x "
                f"{src_len} matrix"
            )
        ax.add_patch(
            Rectangle(
                (col, row),
                1,
                1,
                fill=False,
                edgecolor="#1f77b4",
                linewidth=2.0,
            )
        )
    ax.set_xlabel("source")
    ax.set_ylabel("target")
    ax.tick_params(axis="x", labelrotation=45)
    ax.tick_params(axis="y", labelrotation=0)
    for label in ax.get_xticklabels():
        label.set_horizontalalignment("right")
        label.set_rotation_mode("anchor")
    if title:
        ax.set_title(title)
    return ax


@dataclass(frozen=True)
class ScaleEntry:
    """One bar of :func:`bleu_scale_figure`: a BLEU, or a range of BLEU,
    and whose it is.

    Attributes:
        label: the system, as the axis shows it.
        low, high: the BLEU (equal) or the range of reported BLEU (0-100).
        group: ``"book"`` for the book's own models, anything else (e.g.
            ``"published"``) for others'.
        note: the test set and what kind of BLEU, shown beside the bar.
        budget: what the model was trained on and for how long (pairs,
            epochs, search, time), shown after the note.
    """

    label: str
    low: float
    high: float
    group: str = "book"
    note: str = ""
    budget: str = ""

    def __post_init__(self) -> None:
        if not 0.0 <= self.low <= self.high <= 100.0:
            raise ValueError(
                f"need 0 <= low <= high <= 100, got low={self.low} and "
                f"high={self.high}"
            )


def bleu_scale_figure(
    entries: Sequence[ScaleEntry], ax: Axes | None = None
) -> Axes:
    """Place BLEU scores on one horizontal scale, the book's models beside
    published ones, highest first.

    A range is drawn from ``low`` to ``high``; a single score as a mark.
    The book's entries (a range from one reference to every reference) are
    thick bars with a dot at each end, in one colour; the others (a range
    over the models or test sets their source reports) thin lines with a
    tick at each end, in a second colour, so that the two kinds of range
    do not look alike. Each carries its note and its budget; the legend
    stands above the axes, where it covers none of them.

    Args:
        entries: the scores to place (any number: a model added later is
            one more entry).
        ax: where to draw; ``None`` makes a figure sized for the entries.

    Raises:
        ValueError: no entries.
    """
    import matplotlib.pyplot as plt
    import seaborn as sns

    if not entries:
        raise ValueError("entries must hold at least one score")
    ordered = sorted(entries, key=lambda e: e.high, reverse=True)
    if ax is None:
        _, ax = plt.subplots(figsize=(7.6, 0.42 * len(ordered) + 1.2))
    book, other = sns.color_palette("colorblind", 2)
    for row, entry in enumerate(ordered):
        ours = entry.group == "book"
        colour = book if ours else other
        ax.plot(
            [entry.low, entry.high],
            [row, row],
            color=colour,
            linewidth=6 if ours else 1.5,
            solid_capstyle="round",
        )
        ax.plot(
            [entry.low, entry.high],
            [row, row],
            "o" if ours else "|",
            color=colour,
            markersize=6 if ours else 12,
            markeredgewidth=1.5,
        )
        text = (
            f"{entry.low:.1f}"
            if entry.low == entry.high
            else f"{entry.low:.1f}-{entry.high:.1f}"
        )
        said = "; ".join(p for p in (entry.note, entry.budget) if p)
        ax.annotate(
            f"{text}  {said}".rstrip(),
            (entry.high, row),
            xytext=(8, 0),
            textcoords="offset points",
            va="center",
            fontsize=8,
        )
    ax.set_yticks(range(len(ordered)), [e.label for e in ordered])
    ax.invert_yaxis()
    ax.set_xlim(0, 100)
    ax.set_xlabel("BLEU (0-100; test sets differ: a scale, not a ranking)")
    handles = [
        plt.Line2D(
            [],
            [],
            color=book,
            linewidth=6,
            marker="o",
            label="this book: one reference to every reference",
        ),
        plt.Line2D(
            [],
            [],
            color=other,
            linewidth=1.5,
            marker="|",
            markersize=12,
            label="published: range over models or test sets",
        ),
    ]
    ax.legend(
        handles=handles,
        loc="lower center",
        bbox_to_anchor=(0.5, 1.0),
        ncol=2,
        fontsize=8,
        frameon=False,
    )
    return ax
