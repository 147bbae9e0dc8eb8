"""The decoder stepper: a slider over decoder steps showing the query,
the scores, the weights and the emitted word of each step
(:func:`decoder_stepper`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

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


def _run_data(label: str, run: DecoderRun, src_len: int) -> dict[str, Any]:
    """One run's numbers, checked against the source's length."""
    weights = weight_matrix(f"runs[{label!r}].weights", run.weights)
    steps = weights.shape[0]
    if weights.shape[1] != src_len:
        raise ValueError(
            f"runs[{label!r}].weights has {weights.shape[1]} columns but "
            f"src_tokens has {src_len} tokens"
        )
    data = {
        "label": label,
        "weights": rounded(weights),
        "emitted": token_list(
            f"runs[{label!r}].emitted", run.emitted, steps, "rows (steps)"
        ),
        "scores": None,
        "queries": None,
    }
    if run.scores is not None:
        scores = as_array(f"runs[{label!r}].scores", run.scores, 2)
        if scores.shape != weights.shape:
            raise ValueError(
                f"runs[{label!r}].scores must have the weights' shape "
                f"{weights.shape}, got {scores.shape}"
            )
        check_finite(f"runs[{label!r}].scores", scores, allow_neg_inf=True)
        data["scores"] = rounded(scores)
    if run.queries is not None:
        queries = as_array(f"runs[{label!r}].queries", run.queries, 2)
        if queries.shape[0] != steps:
            raise ValueError(
                f"runs[{label!r}].queries has {queries.shape[0]} rows but "
                f"the weights have {steps} steps"
            )
        check_finite(f"runs[{label!r}].queries", queries)
        data["queries"] = rounded(queries)
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
    return render(StepperWidget, data, name, caption)


class StepperWidget(Widget):
    """A slider over decoder steps, with a toggle between runs; its
    picture is one heatmap per run, a row per step."""

    kind = "stepper"

    def picture(self) -> Figure:
        from matplotlib.figure import Figure

        from attnbook.book.plotting import attention_heatmap

        src, runs = self.data["src"], self.data["runs"]
        steps = max(len(run["weights"]) for run in runs)
        width, height = heatmap_size(steps, len(src))
        figure = Figure(figsize=(width * len(runs), height))
        for index, run in enumerate(runs):
            ax = figure.add_subplot(1, len(runs), index + 1)
            attention_heatmap(
                np.array(run["weights"], dtype=float),
                src,
                run["emitted"],
                ax=ax,
                title=run["label"] or None,
            )
            ax.set_ylabel("emitted at each step")
        return figure
