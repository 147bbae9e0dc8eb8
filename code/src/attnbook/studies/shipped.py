"""How the translators the book ships in its pages were trained,
so that anyone can train them again.

- :func:`train_grammar_translator`: chapter 6's attention model of the toy
  grammar, trained exactly as the chapter trains it on a CPU
  (:data:`GRAMMAR_CONFIG`, one thread): the model the chapter's box runs.
- :func:`write_grammar_translator`: trains it and writes it as int8 weights
  for the page (:func:`~attnbook.nmt.export.export_translator`),
  with the run's environment in the file's ``info``.
  The file the package ships, ``data/translator-grammar.js``,
  was written by::

      python -c "from attnbook.studies import write_grammar_translator as w
      w('translator-grammar.js')"

- :func:`write_grammar_baseline`: chapter 6's baseline without attention,
  trained as the chapter trains it on a CPU, written as a checkpoint with
  its run's record. A CPU cannot afford to train both models within the
  chapter's time, so the chapter trains the attention model and loads this
  baseline (:func:`packaged_grammar_baseline`), after training its first
  steps again (``train_grammar_translator(grammar_baseline_config(),
  stop_after=...)``) and comparing their losses with the record.
- :func:`retrain_shipped_start`: the first steps of the run that made the
  shipped Tatoeba translator (``python -m attnbook train --corpus
  tatoeba``), trained again on the CPU, with the same split, first weights,
  batch order and learning rates; :func:`shipped_run_record` holds that
  run's losses (:data:`SHIPPED_RUN`), to compare them with.
"""

from __future__ import annotations

import json
import platform
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

import torch

from attnbook.core.records import environment, package_file, package_path
from attnbook.core.runtime import one_thread
from attnbook.nmt.corpus import load_tatoeba, shipped_path
from attnbook.nmt.data import Vocab
from attnbook.nmt.evaluation import evaluate
from attnbook.nmt.export import export_translator
from attnbook.nmt.training import (
    LossRecord,
    TrainConfig,
    TrainResult,
    train,
)
from attnbook.nmt.translator import Translator
from attnbook.studies.experiment import ExperimentConfig, build_translator
from attnbook.studies.realdata import RealConfig, prepare_real_data

GRAMMAR_CONFIG = ExperimentConfig(train=TrainConfig(max_epochs=4))
"""Chapter 6's run on a CPU: the grammar's default splits and model,
four epochs."""

GRAMMAR_NAME = "Toy grammar English-French (Bahdanau attention)"
"""The name the grammar's exported translator carries."""


def train_grammar_translator(
    config: ExperimentConfig = GRAMMAR_CONFIG,
    stop_after: int | None = None,
) -> tuple[Translator, TrainResult]:
    """Train chapter 6's attention model as the chapter does on a CPU:
    same splits, seed and steps.

    Training runs on one thread (as in the chapter), which is
    restored afterwards.

    Args:
        config: the run (the baseline's is
            :func:`grammar_baseline_config`).
        stop_after: stop after this many optimiser steps (``None``: the
            whole run).

    Returns:
        The trained translator (on the CPU) and what
        :func:`~attnbook.nmt.training.train` measured.
    """
    splits = config.data.splits()
    src_vocab = Vocab.build(p.source for p in splits.train)
    tgt_vocab = Vocab.build(p.target for p in splits.train)
    translator = build_translator(
        config, src_vocab, tgt_vocab, device="cpu"
    )
    with one_thread():
        result = train(
            translator,
            splits.train,
            splits.val,
            config.train,
            progress=False,
            stop_after=stop_after,
        )
    return translator, result


GRAMMAR_BASELINE = "grammar-baseline.pt"
"""Chapter 6's baseline without attention, trained as the chapter trains
it beside the attention model on a CPU (:func:`grammar_baseline_config`):
its checkpoint (:meth:`~attnbook.nmt.translator.Translator.save`)."""

GRAMMAR_BASELINE_RUN = "grammar-baseline.json"
"""How the shipped baseline trained: its
:class:`~attnbook.nmt.training.TrainResult` and where it ran."""


def grammar_baseline_config(
    config: ExperimentConfig = GRAMMAR_CONFIG,
) -> ExperimentConfig:
    """``config`` with the decoder that has no attention: chapter 6's
    baseline."""
    return replace(config, model=replace(config.model, attention="none"))


def write_grammar_baseline(folder: str | Path) -> tuple[Path, Path]:
    """Train chapter 6's baseline (:func:`grammar_baseline_config`, one
    thread) and write its checkpoint and its run's record into ``folder``,
    named :data:`GRAMMAR_BASELINE` and :data:`GRAMMAR_BASELINE_RUN`.

    The files the package ships were written by::

        python -c "from attnbook.studies import write_grammar_baseline as w
        w('code/src/attnbook/data')"

    Returns:
        The two paths written.
    """
    translator, result = train_grammar_translator(
        grammar_baseline_config()
    )
    folder = Path(folder)
    weights = translator.save(folder / GRAMMAR_BASELINE)
    record = folder / GRAMMAR_BASELINE_RUN
    record.write_text(
        json.dumps(
            {
                "trained_by": "attnbook.studies.write_grammar_baseline",
                "environment": asdict(
                    environment(torch.device("cpu"), threads=1)
                ),
                "train": result.to_dict(),
            },
            indent=1,
        )
        + "\n",
        encoding="utf-8",
    )
    return weights, record


def packaged_grammar_baseline(
    device: torch.device | str | None = None,
) -> tuple[Translator, TrainResult, dict[str, Any]]:
    """The baseline the package ships: the translator (on ``device``),
    what its training measured, and where it ran (the
    :class:`~attnbook.core.records.Environment`'s fields).

    Its vocabularies are those of the grammar's default training
    split."""
    with package_path(GRAMMAR_BASELINE) as path:
        translator = Translator.load(path, device=device)
    record = json.loads(
        package_file(GRAMMAR_BASELINE_RUN).read_text(encoding="utf-8")
    )
    return (
        translator,
        TrainResult.from_dict(record["train"]),
        record["environment"],
    )


def write_grammar_translator(
    path: str | Path, config: ExperimentConfig = GRAMMAR_CONFIG
) -> Path:
    """Train the grammar's translator (:func:`train_grammar_translator`)
    and write it for the page (int8).

    The file's ``info`` records how and where it was trained,
    the steps, and its held-out exact match.

    Returns:
        The path written.
    """
    translator, result = train_grammar_translator(config)
    test = config.data.splits().test
    metrics = evaluate(translator, test, with_alignment=False).metrics
    where = environment(torch.device("cpu"), threads=1)
    info: dict[str, Any] = {
        "trained_by": "attnbook.studies.write_grammar_translator",
        "recorded": where.date[:10],
        "torch": where.torch,
        "python": platform.python_version(),
        "machine": f"{where.cpu_count} CPU cores, {platform.machine()}",
        "threads": 1,
        "epochs": config.train.max_epochs,
        "steps": result.steps,
        "best_step": result.best_step,
        "train": asdict(config.train),
        "held_out": {
            "sentences": len(test),
            "exact_match": metrics.exact_match,
            "bleu": metrics.bleu,
        },
    }
    return export_translator(
        translator, path, name=GRAMMAR_NAME, info=info
    )


SHIPPED_RUN = "translator-tatoeba-run.json"
"""The record of the run that made the shipped Tatoeba translator: its
training loss every ``log_every`` steps and its validation losses, trained
again from this package's code, which gave the shipped weights exactly."""


def shipped_run_record() -> dict[str, Any]:
    """The record :data:`SHIPPED_RUN`, as a dictionary (``train_loss`` and
    ``val_loss`` are ``[step, loss]`` pairs)."""
    return json.loads(
        package_file(SHIPPED_RUN).read_text(encoding="utf-8")
    )


def retrain_shipped_start(
    steps: int, config: RealConfig | None = None
) -> TrainResult:
    """The first ``steps`` optimiser steps of ``python -m attnbook train
    --corpus tatoeba``, on the CPU.

    The split, the vocabularies, the first weights, the batch order and the
    learning rate of every step are those of the whole run (the rate decays
    over the whole run's planned steps); a validation on a few pairs after
    step ``steps`` ends the run early (a validation changes nothing the
    training depends on). So the training losses logged every ``log_every``
    steps are those of the whole run's first steps, up to the rounding of
    another CPU or thread count.

    Raises:
        ValueError: ``steps`` is below 1.
    """
    config = config or RealConfig()
    if steps < 1:
        raise ValueError(f"steps must be at least 1, got {steps}")
    pairs = load_tatoeba(shipped_path()).pairs
    split, src_vocab, tgt_vocab, longest = prepare_real_data(
        pairs, config.data
    )
    translator = build_translator(
        config, src_vocab, tgt_vocab, device="cpu", max_src_len=longest
    )
    # the first validation comes after the last step wanted
    start = replace(config.train, eval_every=steps)

    def stop(step: int, record: LossRecord) -> bool:
        return step >= steps

    return train(
        translator,
        split.train,
        split.val[:8],
        start,
        progress=False,
        on_validation=stop,
    )
