"""A recorded run's first steps, trained again and set beside the record.

Every run the package ships a record of (a study, a comparison, a
baseline, the translator of the page) was trained by
:func:`~attnbook.studies.recipe.run_once`: its data come from its
configuration, its first weights and its batch order from its seed, its
learning rate from a schedule planned over the whole run. So its first
steps, trained again from the same configuration, log the losses the
record logged, up to the rounding of another CPU or thread count: a
chapter that shows a record checks it that way.

:func:`replay` does it for any record: each record says what a replay
needs of it (its ``recorded_start``: the configuration and the logged
losses, a :class:`~attnbook.studies.recipe.RecordedStart`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from attnbook.nmt.corpus import load_tatoeba, shipped_path
from attnbook.nmt.data import SentencePair
from attnbook.nmt.subwords import Subwords
from attnbook.nmt.training import TrainResult
from attnbook.studies.experiment import ExperimentConfig
from attnbook.studies.pieces import prepare_pieces
from attnbook.studies.realdata import RealConfig, prepare_real_data
from attnbook.studies.recipe import (
    RecordedStart,
    RunData,
    run_once,
    words_data,
)


@dataclass(frozen=True, eq=False)
class Replay:
    """The first steps of a recorded run, trained again, beside the
    record.

    Attributes:
        steps: the steps whose losses are compared.
        live: the losses logged at those steps now.
        recorded: the losses the record logged at those steps.
        training: what the new training measured.
    """

    steps: tuple[int, ...]
    live: tuple[float, ...]
    recorded: tuple[float, ...]
    training: TrainResult

    @property
    def largest_relative_gap(self) -> float:
        """The largest ``|live - recorded| / |recorded|`` over the steps
        (0 where they agree to the last digit)."""
        return max(
            abs(new - old) / abs(old)
            for new, old in zip(self.live, self.recorded, strict=True)
        )


def run_data(
    config: Any,
    pairs: Sequence[SentencePair] | None = None,
    units: tuple[Subwords, Subwords] | None = None,
) -> RunData[Any]:
    """The data a configuration's run trained on: the toy grammar's
    splits for a chapter 6 run; for a run on real pairs, ``pairs``
    (default: the shipped Tatoeba pairs, cased for a run over pieces),
    as words or cut into ``units`` (learnt here when ``None``).

    Raises:
        TypeError: ``config`` is of neither kind.
    """
    if isinstance(config, ExperimentConfig):
        return words_data(config.data.splits())
    if not isinstance(config, RealConfig):
        raise TypeError(
            "config must be an ExperimentConfig or a RealConfig, got "
            f"{type(config).__name__}"
        )
    pieces = config.data.subwords > 0
    if pairs is None:
        pairs = load_tatoeba(shipped_path(), cased=pieces).pairs
    if pieces:
        return prepare_pieces(pairs, config, units)
    return prepare_real_data(pairs, config.data)


def replay(
    start: RecordedStart,
    steps: int,
    pairs: Sequence[SentencePair] | None = None,
    *,
    units: tuple[Subwords, Subwords] | None = None,
) -> Replay:
    """Train a recorded run again from its seed for its first ``steps``,
    on the CPU, and set the losses it logs beside the record's.

    The training losses are compared where the record kept them (every
    ``log_every`` steps), else the validation losses at the steps the run
    validated.

    Args:
        start: the record's configuration and losses (its
            ``recorded_start``).
        steps: how many optimiser steps to take.
        pairs: the corpus of a run on real pairs (default: the shipped
            pairs, which every shipped record trained on).
        units: a run over pieces' English and French pieces, already
            learnt from its training split (``None``: learn them here).

    Raises:
        ValueError: ``steps`` is below 1, or the record logged no loss in
            those steps.
    """
    if steps < 1:
        raise ValueError(f"steps must be at least 1, got {steps}")
    data = run_data(start.config, pairs, units)
    training = run_once(start.config, data, stop_after=steps).training
    if start.train_losses:
        logged = training.history[: len(start.train_losses)]
        recorded = start.train_losses[: len(logged)]
    else:
        logged = tuple(
            r for r in training.val_history if r.step in start.val_losses
        )
        recorded = tuple(start.val_losses[r.step] for r in logged)
    if not logged:
        raise ValueError(
            f"the record logged no loss in the first {steps} steps"
        )
    return Replay(
        tuple(r.step for r in logged),
        tuple(r.loss for r in logged),
        tuple(recorded),
        training,
    )
