"""The attention matrix: tokens on both axes, hover a cell to read its
weight, a target word to see its row (:func:`attention_widget`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from attnbook.book.widgets._base import (
    ArrayLike,
    Widget,
    as_array,
    check_finite,
    heatmap_size,
    render,
    rounded,
    token_list,
    weight_matrix,
)

if TYPE_CHECKING:
    from matplotlib.figure import Figure


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
    matrix = weight_matrix("weights", weights)
    tgt_len, src_len = matrix.shape
    data = {
        "src": token_list(
            "src_tokens", src_tokens, src_len, "columns (src_len)"
        ),
        "tgt": token_list(
            "tgt_tokens", tgt_tokens, tgt_len, "rows (tgt_len)"
        ),
        "weights": rounded(matrix),
        "scores": None,
    }
    if scores is not None:
        score_matrix = as_array("scores", scores, 2)
        if score_matrix.shape != matrix.shape:
            raise ValueError(
                f"scores must have the weights' shape {matrix.shape}, got "
                f"{score_matrix.shape}"
            )
        check_finite("scores", score_matrix, allow_neg_inf=True)
        data["scores"] = rounded(score_matrix)
    return render(MatrixWidget, data, name, caption)


class MatrixWidget(Widget):
    """A weight matrix with tokens on both axes (source on x, target on
    y); its picture is the book's heatmap of the same numbers."""

    kind = "matrix"

    def picture(self) -> Figure:
        from matplotlib.figure import Figure

        from attnbook.book.plotting import attention_heatmap

        weights = np.array(self.data["weights"], dtype=float)
        figure = Figure(figsize=heatmap_size(*weights.shape))
        attention_heatmap(
            weights,
            self.data["src"],
            self.data["tgt"],
            ax=figure.add_subplot(),
        )
        return figure
