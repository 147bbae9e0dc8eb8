"""A run on real pairs recorded with its held-out translations, so that a
page can score and compare them without training the model again.

The real-sentences chapter compares its attention model with the same
encoder-decoder without attention, trained for the same steps on the same
pairs. A CPU cannot train both within the chapter's time, so the baseline's
run ships with the package: its configuration, its losses and its
translations of the held-out sentences. The chapter trains its first steps
again (:func:`retrain_recorded_start`) and compares the losses with the
record, and scores the recorded translations itself. The record was made by
the command line's ``--record`` option::

    python -m attnbook train --corpus tatoeba --attention none \\
        --epochs 2 --beam 1 --threads 1 \\
        --record code/src/attnbook/data/realbaseline_cpu.json

>>> record = packaged_recorded_run()
>>> record.config["model"]["attention"], len(record.hypotheses)
('none', 1097)
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import torch

from attnbook.core.records import (
    environment,
    load_result,
    package_path,
    save_result,
)
from attnbook.nmt.data import SentencePair
from attnbook.nmt.training import TrainResult
from attnbook.studies.realdata import (
    RealConfig,
    RealExperiment,
    train_real_start,
)

PACKAGED_BASELINE = "realbaseline_cpu.json"
"""The file name, in the package's ``data`` folder, of the recorded
baseline without attention (the real-sentences chapter's settings)."""


@dataclass(frozen=True)
class RecordedTranslations:
    """One run on real pairs: how it was made, how it trained and what it
    wrote for each held-out English sentence.

    Attributes:
        command: the command that made the record.
        environment: where and when (see
            :class:`~attnbook.core.records.Environment`).
        config: the run's :class:`~attnbook.studies.realdata.RealConfig`,
            as plain values (:func:`recorded_config` reads it back).
        train_steps, train_seconds: optimiser steps and wall-clock seconds.
        train_losses: the training loss every ``log_every`` steps.
        val_steps, val_losses: the validation losses.
        sources: the distinct held-out English sentences, in the
            evaluation's order.
        hypotheses: the model's translation of each (tokens, ``<unk>``
            where it wrote one).
    """

    command: str
    environment: dict[str, Any]
    config: dict[str, Any]
    train_steps: int
    train_seconds: float
    train_losses: tuple[float, ...]
    val_steps: tuple[int, ...]
    val_losses: tuple[float, ...]
    sources: tuple[tuple[str, ...], ...]
    hypotheses: tuple[tuple[str, ...], ...]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, values: dict[str, Any]) -> RecordedTranslations:
        return cls(
            values["command"],
            values["environment"],
            values["config"],
            values["train_steps"],
            values["train_seconds"],
            tuple(values["train_losses"]),
            tuple(values["val_steps"]),
            tuple(values["val_losses"]),
            tuple(tuple(s) for s in values["sources"]),
            tuple(tuple(h) for h in values["hypotheses"]),
        )


def record_run(
    experiment: RealExperiment, command: str
) -> RecordedTranslations:
    """The record of a finished run (:func:`run_real_experiment`'s
    result), made by ``command``."""
    config = experiment.config
    training = experiment.training
    return RecordedTranslations(
        command=command,
        environment=asdict(
            environment(experiment.device, torch.get_num_threads())
        ),
        config=config.to_dict(),
        train_steps=training.steps,
        train_seconds=training.seconds,
        train_losses=tuple(r.loss for r in training.history),
        val_steps=tuple(r.step for r in training.val_history),
        val_losses=tuple(r.loss for r in training.val_history),
        sources=tuple(experiment.evaluation.sources),
        hypotheses=tuple(
            tuple(h) for h in experiment.evaluation.hypotheses
        ),
    )


def recorded_config(record: RecordedTranslations) -> RealConfig:
    """The :class:`~attnbook.studies.realdata.RealConfig` the record was
    trained with."""
    return RealConfig.from_dict(record.config)


def retrain_recorded_start(
    record: RecordedTranslations,
    pairs: Sequence[SentencePair],
    steps: int = 20,
) -> TrainResult:
    """Train the recorded run's model again from its seed, for its first
    ``steps``, on the CPU.

    The split, the vocabularies, the first weights, the batch order and
    the learning-rate schedule (planned over the whole run) are the
    record's, so the training losses logged in those steps should match
    its ``train_losses`` (up to another CPU's rounding).

    Raises:
        ValueError: ``steps`` is below 1.
    """
    if steps < 1:
        raise ValueError(f"steps must be at least 1, got {steps}")
    return train_real_start(pairs, recorded_config(record), steps)


def save_recorded_run(
    record: RecordedTranslations, path: str | os.PathLike[str]
) -> Path:
    """Write a record as indented JSON (creating the folder);
    return the path."""
    return save_result(record, path)


def load_recorded_run(
    path: str | os.PathLike[str],
) -> RecordedTranslations:
    """Read a record written by :func:`save_recorded_run`.

    Raises:
        ValueError: the file does not hold one; the message names the file.
    """
    return load_result(
        RecordedTranslations.from_dict,
        path,
        "a recorded run with its translations",
    )


def packaged_recorded_run(
    name: str = PACKAGED_BASELINE,
) -> RecordedTranslations:
    """A record shipped in the package (by default the baseline without
    attention; see the module's docstring for how it was made)."""
    with package_path(name) as path:
        return load_recorded_run(path)
