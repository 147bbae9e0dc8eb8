"""The curve slider: a slider over precomputed curves on one grid, one
per value of a parameter such as a bandwidth (:func:`curve_slider`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from attnbook.book.widgets._base import (
    ArrayLike,
    Widget,
    as_array,
    check_finite,
    render,
    rounded,
)

if TYPE_CHECKING:
    from matplotlib.figure import Figure


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
    grid = as_array("x", x, 1)
    frames = as_array("curves", curves, 2)
    parameter_values = as_array("values", values, 1)
    for label, array in (
        ("x", grid),
        ("curves", frames),
        ("values", parameter_values),
    ):
        check_finite(label, array)
    if frames.shape[1] != len(grid):
        raise ValueError(
            f"curves has {frames.shape[1]} columns but x has {len(grid)} "
            "grid points"
        )
    if len(parameter_values) != frames.shape[0]:
        raise ValueError(
            f"values has {len(parameter_values)} entries but curves has "
            f"{frames.shape[0]} rows (frames)"
        )
    if len(grid) < 2 or (np.diff(grid) <= 0).any():
        raise ValueError(
            "x must have at least two grid points, in increasing order"
        )
    data = {
        "parameter": parameter,
        "values": [float(f"{value:.4g}") for value in parameter_values],
        "x": rounded(grid),
        "curves": rounded(frames),
        "points": None,
        "reference": None,
        "xLabel": x_label,
        "yLabel": y_label,
    }
    if points is not None:
        xs, ys = (
            as_array("points[0]", points[0], 1),
            as_array("points[1]", points[1], 1),
        )
        if xs.shape != ys.shape:
            raise ValueError(
                f"points must be two arrays of one length, got {len(xs)} "
                f"and {len(ys)}"
            )
        data["points"] = [rounded(xs), rounded(ys)]
    if reference is not None:
        ref = as_array("reference", reference, 1)
        if ref.shape != grid.shape:
            raise ValueError(
                f"reference has {len(ref)} values but x has {len(grid)} "
                "grid points"
            )
        data["reference"] = rounded(ref)
    return render(CurveWidget, data, name, caption)


class CurveWidget(Widget):
    """An SVG plot of one curve per parameter value, read by a probe;
    its picture draws every curve, darker as the parameter grows."""

    kind = "curve"

    def picture(self) -> Figure:
        from matplotlib.figure import Figure

        data = self.data
        figure = Figure(figsize=(6.4, 3.4))
        ax = figure.add_subplot()
        x = np.array(data["x"], dtype=float)
        curves = np.array(data["curves"], dtype=float)
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
        return figure
