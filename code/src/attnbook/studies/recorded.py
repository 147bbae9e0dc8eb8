"""A run on real pairs recorded with its held-out translations, so that a
page can score and compare them without training the model again.

The real-sentences chapter compares the attention model with the same
encoder-decoder without attention, trained for the same steps on the same
pairs. A CPU cannot train both within the chapter's time, so both runs
ship with the package: their configuration, their losses and their
translations of the held-out sentences. The chapter trains the first steps
of each again (:func:`~attnbook.studies.replay.replay` of
:meth:`RecordedTranslations.recorded_start`) and compares the losses with
the record, and scores the recorded translations itself. The records were
made by the command line's ``--record`` option::

    python -m attnbook train --corpus tatoeba --model seq2seq \\
        --attention none --epochs 2 --beam 1 --threads 1 \\
        --record code/src/attnbook/data/realbaseline_cpu.json
    python -m attnbook train --corpus tatoeba --model seq2seq \\
        --epochs 2 --beam 1 --threads 1 \\
        --record code/src/attnbook/data/realattention_cpu.json

>>> record = RecordedTranslations.packaged()
>>> record.config["model"]["attention"], len(record.hypotheses)
('none', 1097)
>>> RecordedTranslations.packaged(ATTENTION).config["model"]["attention"]
'bahdanau'
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import torch

from attnbook.core.records import Record, environment
from attnbook.studies.realdata import RealConfig, RealExperiment
from attnbook.studies.recipe import RecordedStart

# The attention model's run at the baseline's budget, of the same kind.
ATTENTION = "realattention_cpu.json"


@dataclass(frozen=True)
class RecordedTranslations(Record):
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

    PACKAGED = "realbaseline_cpu.json"  # the baseline; ATTENTION beside it
    WHAT = "a recorded run with its translations"

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

    def recorded_start(self) -> RecordedStart:
        """The run's configuration and its logged losses, to train its
        first steps again (on the pairs it was trained on)."""
        return RecordedStart(
            recorded_config(self),
            self.train_losses,
            dict(zip(self.val_steps, self.val_losses, strict=True)),
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
