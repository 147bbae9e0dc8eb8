"""Chapter 9's Transformer on the toy grammar, trained with and without
the usual training choices: a learning-rate warm-up, label smoothing,
dropout, and post-norm layers with and without the warm-up.

Each choice is trained with three seeds at the chapter's budget
(:data:`CHOICES_BASE`: two epochs in batches of 64, the learning rate
falling to zero), more than the chapter can spend, so the study is run
once and its record ships with the package: :func:`run_training_choices`
trains and scores every run, :class:`TrainingChoices` holds the curves
and scores (``TrainingChoices.packaged()`` is the recorded run), and
:meth:`TrainingChoices.recorded_start` lets a chapter train a recorded
run's first steps again (:func:`~attnbook.studies.replay.replay`).
Record it again with::

    python -c "from attnbook.studies.training_choices import
    write_training_choices as w; w('code/src/attnbook/data')"
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import torch

from attnbook.core.records import (
    Environment,
    Record,
    SeededRuns,
    environment,
)
from attnbook.core.runtime import one_thread
from attnbook.nmt.evaluation import evaluate
from attnbook.nmt.training import TrainConfig
from attnbook.nmt.transformer import TransformerSizes
from attnbook.studies.experiment import ExperimentConfig
from attnbook.studies.recipe import RecordedStart, run_once, words_data

CHOICES_BASE = ExperimentConfig(
    model=TransformerSizes(),
    train=TrainConfig(
        max_epochs=2,
        batch_size=64,
        lr=3e-3,
        eval_every=50,
        patience=100,
        lr_decay=True,
        keep_best=False,
    ),
)
"""Chapter 9's run of its Transformer on the grammar: its sizes, two
epochs of 20,000 pairs in batches of 64 (626 steps), the rate falling
linearly to zero, a validation every 50 steps; the last weights are
kept (the rate has fallen to zero), as the curves end."""

CHOICES: dict[str, dict[str, dict[str, Any]]] = {
    "plain": {},
    "warm-up": {"train": {"warmup_steps": 100}},
    "label smoothing": {"train": {"label_smoothing": 0.1}},
    "dropout": {"model": {"dropout": 0.1}},
    "post-norm": {"model": {"norm_first": False}},
    "post-norm + warm-up": {
        "model": {"norm_first": False},
        "train": {"warmup_steps": 100},
    },
}
"""Each choice's changes to :data:`CHOICES_BASE`: the fields of its model
and of its training that differ (``plain``: none; the pre-norm layers,
no warm-up, no smoothing, no dropout)."""


def choice_config(
    choice: str,
    seed: int,
    base: ExperimentConfig = CHOICES_BASE,
) -> ExperimentConfig:
    """``base`` with the changes of :data:`CHOICES` ``[choice]``, seeded
    ``seed``.

    >>> config = choice_config("post-norm + warm-up", 2)
    >>> (
    ...     config.model.norm_first,
    ...     config.train.warmup_steps,
    ...     config.train.seed,
    ... )
    (False, 100, 2)

    Raises:
        ValueError: ``choice`` is not one of :data:`CHOICES`.
    """
    if choice not in CHOICES:
        raise ValueError(
            f"choice must be one of {tuple(CHOICES)}, got {choice!r}"
        )
    changes = CHOICES[choice]
    return replace(
        base,
        model=replace(base.model, **changes.get("model", {})),
        train=replace(base.train, seed=seed, **changes.get("train", {})),
    )


@dataclass(frozen=True)
class ChoiceRun:
    """One run of the study.

    Attributes:
        choice: its name in :data:`CHOICES`; seed: its seed.
        steps: the optimiser steps; cpu_seconds: the process's CPU time
            while training.
        val_steps, val_losses, val_accuracies: the validation curve
            (teacher-forced loss, unsmoothed, and token accuracy);
        train_losses: the training loss every ``log_every`` steps (what a
            replay of the run's start checks; smoothed where the run
            smooths its labels).
        exact_match: greedy exact match on the test split, with the last
            weights.
    """

    choice: str
    seed: int
    steps: int
    cpu_seconds: float
    val_steps: tuple[int, ...]
    val_losses: tuple[float, ...]
    val_accuracies: tuple[float, ...]
    train_losses: tuple[float, ...]
    exact_match: float


@dataclass(frozen=True)
class TrainingChoices(SeededRuns[ChoiceRun], Record):
    """A run of :func:`run_training_choices`.

    Attributes:
        environment: the machine, the versions and the threads.
        base: :data:`CHOICES_BASE` as plain values (its model and its
            training).
        choices: :data:`CHOICES` as recorded.
        runs: one per choice and seed.
        seconds: how long the whole study took.
    """

    PACKAGED = "training_choices_cpu.json"
    WHAT = "a recorded study of the Transformer's training choices"
    BY = "choice"

    environment: Environment
    base: dict[str, Any]
    choices: dict[str, Any]
    runs: tuple[ChoiceRun, ...]
    seconds: float

    def recorded_start(self, run: ChoiceRun) -> RecordedStart:
        """``run``'s configuration and its logged training losses, to
        train its first steps again."""
        return RecordedStart(
            choice_config(run.choice, run.seed), run.train_losses
        )


def run_training_choices(
    choices: Sequence[str] = tuple(CHOICES),
    seeds: Sequence[int] = (0, 1, 2),
    base: ExperimentConfig = CHOICES_BASE,
    *,
    progress: bool = False,
) -> TrainingChoices:
    """Train every choice with every seed on the grammar's splits, on the
    CPU, one thread; score each on the test split (greedy exact match).

    Each run is scored with the weights its configuration keeps
    (:data:`CHOICES_BASE`: the last).
    """
    start = time.perf_counter()
    with one_thread():
        splits = base.data.splits()
        data = words_data(splits)
        runs = []
        for choice in choices:
            for seed in seeds:
                config = choice_config(choice, seed, base)
                trained = run_once(config, data, progress=progress)
                result = trained.training
                history = result.val_history
                scores = evaluate(trained.translator, splits.test)
                runs.append(
                    ChoiceRun(
                        choice=choice,
                        seed=seed,
                        steps=result.steps,
                        cpu_seconds=trained.cpu_seconds,
                        val_steps=tuple(r.step for r in history),
                        val_losses=tuple(r.loss for r in history),
                        val_accuracies=tuple(
                            r.token_accuracy for r in history
                        ),
                        train_losses=tuple(r.loss for r in result.history),
                        exact_match=scores.metrics.exact_match,
                    )
                )
    return TrainingChoices(
        environment=environment(torch.device("cpu"), 1),
        base={
            "model": asdict(base.model),
            "train": base.train.to_dict(),
        },
        choices={name: CHOICES[name] for name in choices},
        runs=tuple(runs),
        seconds=time.perf_counter() - start,
    )


def write_training_choices(folder: str | Path) -> Path:
    """Run :func:`run_training_choices` with its defaults and write the
    record into ``folder`` (as ``training_choices_cpu.json``);
    return its path."""
    return run_training_choices().save(
        Path(folder) / TrainingChoices.PACKAGED
    )
