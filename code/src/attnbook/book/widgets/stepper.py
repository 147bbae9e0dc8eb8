"""The decoder stepper: a slider over decoder steps showing the query,
the scores, the weights and the emitted word of each step
(:func:`decoder_stepper`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from attnbook.book.widgets._base import (
    ArrayLike,
    Widget,
    as_array,
    check_finite,
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


MAX_FRAMES = 5
"""The most steps the stepper's static picture shows side by side."""

MAX_WIDTH = 14.0
"""The widest the picture may be, in inches."""


def frame_steps(steps: int, frames: int) -> list[int]:
    """``frames`` steps spread evenly from the first to the last
    (every step if there are no more than ``frames``).

    >>> frame_steps(9, 4), frame_steps(3, 5)
    ([0, 3, 5, 8], [0, 1, 2])
    """
    if steps <= frames:
        return list(range(steps))
    return [round(k * (steps - 1) / (frames - 1)) for k in range(frames)]


class StepperWidget(Widget):
    """A slider over decoder steps, with a toggle between runs; its
    picture is a strip of the slider's frames, a few steps side by side
    (the first and the last among them), one row per run."""

    kind = "stepper"

    def picture(self) -> Figure:
        from matplotlib.figure import Figure

        from attnbook.book.diagrams import LIGHT

        src, runs = self.data["src"], self.data["runs"]
        frame_width = max(2.2, 0.25 * len(src) + 0.6)
        frames = max(2, min(MAX_FRAMES, int(MAX_WIDTH // frame_width)))
        steps = max(len(run["weights"]) for run in runs)
        columns = min(frames, steps)
        figure = Figure(
            figsize=(frame_width * columns, 2.5 * len(runs)),
            layout="constrained",
        )
        axes = figure.subplots(
            len(runs), columns, squeeze=False, sharey=True
        )
        for row, run in enumerate(runs):
            shown = frame_steps(len(run["weights"]), columns)
            for column, ax in enumerate(axes[row]):
                if column >= len(shown):
                    ax.set_visible(False)
                    continue
                step = shown[column]
                weights = run["weights"][step]
                ax.bar(range(len(src)), weights, color=LIGHT.weight)
                ax.set_ylim(0, 1)
                ax.set_xticks(range(len(src)), src, rotation=60)
                ax.tick_params(axis="x", labelsize=8)
                title = f"step {step + 1}: {run['emitted'][step]}"
                ax.set_title(title, fontsize=9)
            label = run["label"]
            axes[row][0].set_ylabel(
                f"{label}\nattention weight"
                if label
                else "attention weight"
            )
        return figure
