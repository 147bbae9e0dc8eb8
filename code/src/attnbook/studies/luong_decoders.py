"""Chapter 3's comparison of five attention decoders trained alike:
Bahdanau's, and Luong's with the general score, the concat score, the
general score with input feeding, and the general score with local-p
attention.

Every decoder reads the same toy-grammar pairs (:data:`DECODERS_DATA`),
has the same sizes (:data:`DECODER_SIZES`) and trains on the same
schedule (:data:`DECODERS_TRAIN`: five epochs in batches of 64 at a
constant rate), once per seed. Fifteen runs take longer than the
chapter may spend, so the comparison is run once and its record ships
with the package: :func:`run_decoder_comparison` trains and scores
every run on the CPU, one thread; :class:`DecoderComparison` holds, per
run, the scores the chapter compares (on the test split: greedy exact
match and BLEU; under teacher forcing, the attention's mean entropy,
alignment accuracy, alignment error rate and mass on the true links),
the CPU seconds of training and the logged training losses
(``DecoderComparison.packaged()`` is the recorded comparison), and
:meth:`DecoderComparison.recorded_start` lets a chapter train a recorded
run's first steps again (:func:`~attnbook.studies.replay.replay`).
Record it again with::

    python -c "from attnbook.studies.luong_decoders import
    write_decoder_comparison as w; w('code/src/attnbook/data')"
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import torch

from attnbook.core.records import (
    Environment,
    Record,
    SeededRuns,
    environment,
)
from attnbook.core.runtime import one_thread
from attnbook.nmt.evaluation import evaluate
from attnbook.nmt.seq2seq import ModelConfig
from attnbook.nmt.training import TrainConfig
from attnbook.studies.experiment import DataConfig, ExperimentConfig
from attnbook.studies.recipe import RecordedStart, run_once, words_data

DECODER_SIZES = {"emb_dim": 32, "hidden_dim": 32, "attn_dim": 32}
"""The sizes every compared decoder shares: embeddings, GRU states
(``hidden_dim`` per encoder direction) and Bahdanau's score."""

DECODERS: dict[str, ModelConfig] = {
    "Bahdanau": ModelConfig(attention="bahdanau", **DECODER_SIZES),
    "general": ModelConfig(
        attention="luong", luong_score="general", **DECODER_SIZES
    ),
    "concat": ModelConfig(
        attention="luong", luong_score="concat", **DECODER_SIZES
    ),
    "general + feeding": ModelConfig(
        attention="luong",
        luong_score="general",
        input_feeding=True,
        **DECODER_SIZES,
    ),
    "general + local-p": ModelConfig(
        attention="luong",
        luong_score="general",
        local_p=True,
        **DECODER_SIZES,
    ),
}
"""The five compared decoders, by the names the chapter gives them (the
dot score is absent: the bidirectional encoder's states are twice the
decoder state's size)."""

DECODERS_DATA = DataConfig(
    n_train=4000, n_val=100, n_test=300, max_src_len=8
)
"""The toy grammar's splits: 4,000 training pairs of at most 8 English
words, 100 for validation, 300 held out for the scores."""

DECODERS_TRAIN = TrainConfig(
    max_epochs=5,
    batch_size=64,
    lr=1e-2,
    eval_every=1000,
    lr_decay=False,
)
"""The one schedule: five epochs in batches of 64 (315 steps) at a
constant learning rate of 0.01; each run's seed replaces ``seed``."""

SCORES = (
    "exact_match",
    "bleu",
    "mean_entropy",
    "alignment_accuracy",
    "aer",
    "attention_mass",
)
"""The scores of each run, as
:meth:`~attnbook.nmt.evaluation.EvalResult.to_dict` names them."""


@dataclass(frozen=True)
class DecoderRun:
    """One run of the comparison: one decoder, one seed.

    Attributes:
        decoder: its name in the comparison's ``decoders``; seed: its
            seed.
        steps: the optimiser steps; cpu_seconds: the process's CPU time
            while training.
        train_losses: the training loss every ``log_every`` steps (what
            a replay of the run's start checks).
        exact_match, bleu: greedy translations of the test split.
        mean_entropy, alignment_accuracy, aer, attention_mass: its
            attention on the test split under teacher forcing, against
            the grammar's true links.
    """

    decoder: str
    seed: int
    steps: int
    cpu_seconds: float
    train_losses: tuple[float, ...]
    exact_match: float
    bleu: float
    mean_entropy: float
    alignment_accuracy: float
    aer: float
    attention_mass: float


@dataclass(frozen=True)
class DecoderComparison(SeededRuns[DecoderRun], Record):
    """A run of :func:`run_decoder_comparison`.

    Attributes:
        environment: the machine, the versions and the threads.
        data: the splits every decoder read.
        train: the schedule every decoder trained on (its ``seed`` is
            each run's own).
        decoders: each compared decoder's configuration, by name.
        runs: one per decoder and seed.
        seconds: how long the whole comparison took.
    """

    PACKAGED = "luong_decoders_cpu.json"
    WHAT = "a recorded comparison of attention decoders"
    BY = "decoder"

    environment: Environment
    data: DataConfig
    train: TrainConfig
    decoders: dict[str, ModelConfig]
    runs: tuple[DecoderRun, ...]
    seconds: float

    def config(self, run: DecoderRun) -> ExperimentConfig:
        """The configuration ``run`` trained with."""
        return ExperimentConfig(
            self.data,
            self.decoders[run.decoder],
            replace(self.train, seed=run.seed),
        )

    def recorded_start(self, run: DecoderRun) -> RecordedStart:
        """``run``'s configuration and its logged training losses, to
        train its first steps again."""
        return RecordedStart(self.config(run), run.train_losses)


def run_decoder_comparison(
    decoders: Mapping[str, ModelConfig] = DECODERS,
    seeds: Sequence[int] = (0, 1, 2),
    data: DataConfig = DECODERS_DATA,
    train: TrainConfig = DECODERS_TRAIN,
    *,
    progress: bool = False,
) -> DecoderComparison:
    """Train every decoder with every seed on the same splits, on the
    CPU, one thread; score each on the test split (:data:`SCORES`).

    Each run is scored with the weights its schedule keeps (that of the
    lowest validation loss; :data:`DECODERS_TRAIN` validates only at the
    end of each epoch).

    Raises:
        ValueError: a score is missing (a decoder without attention).
    """
    start = time.perf_counter()
    with one_thread():
        splits = data.splits()
        prepared = words_data(splits)
        runs = []
        for name, model in decoders.items():
            for seed in seeds:
                config = ExperimentConfig(
                    data, model, replace(train, seed=seed)
                )
                trained = run_once(config, prepared, progress=progress)
                scores = evaluate(trained.translator, splits.test)
                values = scores.to_dict()
                missing = [key for key in SCORES if values[key] is None]
                if missing:
                    raise ValueError(
                        f"decoder {name!r} has no {', '.join(missing)}"
                    )
                runs.append(
                    DecoderRun(
                        decoder=name,
                        seed=seed,
                        steps=trained.training.steps,
                        cpu_seconds=trained.cpu_seconds,
                        train_losses=tuple(
                            r.loss for r in trained.training.history
                        ),
                        **{key: float(values[key]) for key in SCORES},
                    )
                )
    return DecoderComparison(
        environment=environment(torch.device("cpu"), 1),
        data=data,
        train=train,
        decoders=dict(decoders),
        runs=tuple(runs),
        seconds=time.perf_counter() - start,
    )


def write_decoder_comparison(folder: str | Path) -> Path:
    """Run :func:`run_decoder_comparison` with its defaults and write the
    record into ``folder`` (as ``luong_decoders_cpu.json``); return its
    path."""
    return run_decoder_comparison().save(
        Path(folder) / DecoderComparison.PACKAGED
    )
