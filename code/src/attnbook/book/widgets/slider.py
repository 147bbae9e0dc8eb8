"""The weights slider: a slider over precomputed rows of weights, one
per value of a parameter such as the temperature
(:func:`weights_slider`)."""

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
    frames = weight_matrix("weights", weights)
    parameter_values = as_array("values", values, 1)
    if len(parameter_values) != frames.shape[0]:
        raise ValueError(
            f"values has {len(parameter_values)} entries but weights has "
            f"{frames.shape[0]} rows (frames)"
        )
    check_finite("values", parameter_values)
    data = {
        "src": token_list(
            "key_tokens", key_tokens, frames.shape[1], "columns"
        ),
        "parameter": parameter,
        "values": [float(f"{value:.4g}") for value in parameter_values],
        "weights": rounded(frames),
    }
    return render(SliderWidget, data, name, caption)


class SliderWidget(Widget):
    """Bars of weights over the keys, one row per parameter value; its
    picture is every row at once, as a heatmap."""

    kind = "slider"

    def picture(self) -> Figure:
        from matplotlib.figure import Figure

        from attnbook.book.plotting import attention_heatmap

        parameter = self.data["parameter"]
        weights = np.array(self.data["weights"], dtype=float)
        figure = Figure(figsize=heatmap_size(*weights.shape))
        rows = [f"{parameter} = {value}" for value in self.data["values"]]
        ax = figure.add_subplot()
        attention_heatmap(
            weights, self.data["src"], rows, ax=ax, vmax=None
        )
        ax.set_ylabel(parameter)
        return figure
