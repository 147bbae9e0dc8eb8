"""The checkpoint slider: a slider over snapshots of one attention
matrix taken while a model trained, each with its measures and the true
links outlined (:func:`checkpoint_slider`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
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
)

if TYPE_CHECKING:
    from matplotlib.figure import Figure


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
    frames = as_array("weights", weights, 3)
    check_finite("weights", frames)
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
        "src": token_list(
            "src_tokens", src_tokens, src_len, "columns (src_len)"
        ),
        "tgt": token_list(
            "tgt_tokens", tgt_tokens, tgt_len, "rows (tgt_len)"
        ),
        "steps": step_values,
        "weights": rounded(frames),
        "fields": [
            [[str(key), str(value)] for key, value in frame]
            for frame in fields
        ],
        "links": link_list,
    }
    return render(CheckpointWidget, data, name, caption)


class CheckpointWidget(Widget):
    """One matrix per snapshot, with that snapshot's measures; its
    picture shows the first, the last and two evenly spaced snapshots
    between them."""

    kind = "checkpoints"

    def picture(self) -> Figure:
        from matplotlib.figure import Figure

        from attnbook.book.plotting import attention_heatmap

        data = self.data
        frames = np.array(data["weights"], dtype=float)
        shown = sorted(
            {
                round(k)
                for k in np.linspace(
                    0, len(frames) - 1, min(4, len(frames))
                )
            }
        )
        width, height = heatmap_size(len(data["tgt"]), len(data["src"]))
        figure = Figure(figsize=(width * len(shown), height + 0.4))
        links = (
            [tuple(link) for link in data["links"]]
            if data["links"]
            else None
        )
        for index, k in enumerate(shown):
            ax = figure.add_subplot(1, len(shown), index + 1)
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
        return figure
