"""Words against subword pieces on real sentences: the word-level model
and the model over pieces trained with the same seeds on the same split,
and the record of that comparison the package ships.

A chapter cannot train six models for five epochs, so the comparison of
words and pieces over three seeds is recorded once and ships with the
package (``UnitsComparison.packaged()``).
The shipped record is of the chapter's short run (2 epochs, greedy search),
one process per seed side by side, then merged::

    # seed 0; the same for seeds 1 and 2
    python -m attnbook subwords --subwords 2000 --epochs 2 --beam 1 \
        --seeds 0 --save part0.json
    python -m attnbook subwords --merge part0.json part1.json part2.json \
        --save code/src/attnbook/data/subwords_cpu.json

Without ``--epochs`` and ``--beam`` it compares the command line's default
run (5 epochs, a beam of 4).

The record's ``chapter_run`` is the first seed's run over pieces with what
the chapter shows of it (:func:`chapter_units_run`: its training losses,
three translations and the sentence of its heatmap), so the chapter need
not train it: it trains the first steps again
(:meth:`UnitsComparison.recorded_start`,
:func:`~attnbook.studies.replay.replay`) and compares their losses with
the record.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

import torch

from attnbook.core.records import (
    Record,
    SeededRuns,
    environment,
    mean_sd,
    merged_runs,
)
from attnbook.nmt.data import SentencePair
from attnbook.nmt.metrics import scored_text
from attnbook.nmt.text import detokenize_french
from attnbook.nmt.training import TrainResult
from attnbook.studies.pieces import (
    PiecesExperiment,
    PiecesHeatmap,
    pick_heatmap,
    run_pieces_experiment,
    score_report,
)
from attnbook.studies.realdata import (
    RealConfig,
    RealExperiment,
    run_real_experiment,
)
from attnbook.studies.recipe import RecordedStart


def word_report(experiment: RealExperiment) -> dict[str, Any]:
    """The word-level run's scores as :func:`score_report` gives them
    (lower-cased text, ``<unk>`` kept), and the count of held-out sentences
    with an unknown word."""
    evaluation = experiment.evaluation
    texts = [scored_text(h) for h in evaluation.hypotheses]
    references = [
        [detokenize_french(r) for r in refs]
        for refs in evaluation.references
    ]
    vocab = experiment.translator.src_vocab
    return {
        **score_report(texts, references, cased=False),
        "n_sentences": len(evaluation.sources),
        "n_sentences_unknown": sum(
            bool(vocab.unknown(s)) for s in evaluation.sources
        ),
        "n_unknown": evaluation.n_unknown,
        "bleu_unk_replaced": evaluation.score_replaced.bleu,
    }


@dataclass(frozen=True)
class UnitsRun:
    """One trained model of the comparison: which units, which seed,
    its scores and its training.

    Attributes:
        units: ``"words"`` or ``"pieces"``.
        seed: the training seed (first weights and batch order; the split
            is the same for all).
        scores: :func:`score_report`'s keys (lower-cased for words; cased,
            and ``*_lowercased``, for pieces) and the unknown-word counts.
        train_seconds, train_steps: the training loop's wall-clock time and
            optimiser steps.
        val_steps, val_losses: the validation losses during training.
        train_losses: the chapter's run only: the training loss every
            ``log_every`` steps (what a replay of its start checks).
        examples: the chapter's run only: the first held-out sentences
            and their translations.
        heatmap: the chapter's run only: the translation the chapter
            draws (:func:`pick_heatmap`).
    """

    units: str
    seed: int
    scores: dict[str, Any]
    train_seconds: float
    train_steps: int
    val_steps: tuple[int, ...]
    val_losses: tuple[float, ...]
    train_losses: tuple[float, ...] = ()
    examples: tuple[tuple[str, str], ...] = ()
    heatmap: PiecesHeatmap | None = None


@dataclass(frozen=True)
class UnitsComparison(SeededRuns[UnitsRun], Record):
    """Words and pieces trained with the same seeds on the same split:
    the record and how it was made."""

    PACKAGED = "subwords_cpu.json"
    WHAT = "a recorded comparison of words and pieces"
    BY = "units"
    """What each run trained over: ``"words"`` or ``"pieces"``."""

    command: str
    environment: dict[str, Any]
    config: dict[str, Any]
    runs: tuple[UnitsRun, ...]
    seconds: float
    chapter_run: UnitsRun | None = None

    def recorded_start(self) -> RecordedStart:
        """The chapter's run over pieces and its logged training losses,
        to train its first steps again (on the cased pairs of the
        record's corpus).

        The split, the pieces, the first weights, the batch order and the
        learning-rate schedule (planned over the whole run) are the
        record's, so the training losses logged in those steps should
        match the chapter run's ``train_losses`` (up to another CPU's
        rounding).

        Raises:
            ValueError: the record holds no chapter run.
        """
        run = self.chapter_run
        if run is None:
            raise ValueError(
                "the record holds no chapter run to train again"
            )
        config = chapter_pieces_config(
            real_config(
                self.config["data"]["subwords"],
                run.seed,
                units_config(self),
            )
        )
        return RecordedStart(config, run.train_losses)


def real_config(
    subwords: int, seed: int, base: RealConfig | None = None
) -> RealConfig:
    """``base`` (default: the command line's default run) with ``subwords``
    pieces and training seed ``seed``."""
    base = base or RealConfig()
    return replace(
        base,
        data=replace(base.data, subwords=subwords),
        train=replace(base.train, seed=seed),
    )


def _units_run(
    units: str, seed: int, scores: dict[str, Any], training: TrainResult
) -> UnitsRun:
    return UnitsRun(
        units=units,
        seed=seed,
        scores=scores,
        train_seconds=training.seconds,
        train_steps=training.steps,
        val_steps=tuple(r.step for r in training.val_history),
        val_losses=tuple(r.loss for r in training.val_history),
    )


def chapter_units_run(experiment: PiecesExperiment) -> UnitsRun:
    """The record of the chapter's pieces run: its scores and losses, as
    every run's, and what the chapter shows of it (its training losses,
    three translations and the heatmap's sentence)."""
    evaluation = experiment.evaluation
    return replace(
        _units_run(
            "pieces",
            experiment.config.train.seed,
            evaluation.to_dict(),
            experiment.training,
        ),
        train_losses=tuple(r.loss for r in experiment.training.history),
        examples=tuple(
            (" ".join(source), translation)
            for source, translation in zip(
                evaluation.sources[:3],
                evaluation.translations[:3],
                strict=True,
            )
        ),
        heatmap=pick_heatmap(evaluation),
    )


def compare_units(
    word_pairs: Sequence[SentencePair],
    cased_pairs: Sequence[SentencePair],
    subwords: int,
    *,
    seeds: Sequence[int] = (0, 1, 2),
    base: RealConfig | None = None,
    device: torch.device | str = "cpu",
    progress: bool = False,
) -> UnitsComparison:
    """Train the word-level model and the pieces model once per seed,
    one after the other; score each.

    It also records the short pieces run the real-sentences chapter trains
    live (:func:`chapter_pieces_config`, the first seed), so that the
    chapter can compare its run with the record:
    the first seed's pieces run when ``base`` is that short run already,
    else one more run.

    Args:
        word_pairs: the corpus as the word-level run reads it
            (lower-cased).
        cased_pairs: the same corpus, cased
            (``load_tatoeba(path, cased=True)``).
        subwords: the number of pieces per language.
        seeds: the training seeds.
        base: the run (default: the command line's default run).
        device: where to train.
        progress: show each run's training progress bar.
    """
    base = base or RealConfig()
    device = torch.device(device)
    start = time.perf_counter()
    chapter_config = chapter_pieces_config(
        real_config(subwords, seeds[0], base)
    )
    chapter_run = None
    if chapter_config != real_config(
        subwords, seeds[0], base
    ):  # else the first seed's run is the chapter's
        chapter = run_pieces_experiment(
            cased_pairs, chapter_config, device=device, progress=progress
        )
        chapter_run = chapter_units_run(chapter)
    runs = []
    for seed in seeds:
        words = run_real_experiment(
            word_pairs,
            real_config(0, seed, base),
            device=device,
            progress=progress,
        )
        runs.append(
            _units_run("words", seed, word_report(words), words.training)
        )
        pieces = run_pieces_experiment(
            cased_pairs,
            real_config(subwords, seed, base),
            device=device,
            progress=progress,
        )
        runs.append(
            _units_run(
                "pieces",
                seed,
                pieces.evaluation.to_dict(),
                pieces.training,
            )
        )
        if chapter_run is None:  # the first seed's run is the chapter's
            chapter_run = chapter_units_run(pieces)
    config = {
        "data": asdict(replace(base.data, subwords=subwords)),
        "model": asdict(base.model),
        "train": base.train.to_dict(),
        "beam_size": base.beam_size,
        "chapter": {
            "max_epochs": chapter_config.train.max_epochs,
            "beam_size": chapter_config.beam_size,
        },
    }
    command = (
        " ".join(["python -m attnbook", *sys.argv[1:]])
        if sys.argv[0].endswith("attnbook")
        else ""
    )
    return UnitsComparison(
        command=command
        or f"python -m attnbook subwords --subwords {subwords}",
        environment=asdict(environment(device, torch.get_num_threads())),
        config=config,
        runs=tuple(runs),
        seconds=time.perf_counter() - start,
        chapter_run=chapter_run,
    )


def merge_units_comparisons(
    parts: Sequence[UnitsComparison], command: str
) -> UnitsComparison:
    """One comparison from several recorded with the same configuration and
    other seeds (run side by side).

    The runs are put together in seed order;
    the chapter's run is the one of the lowest seed;
    the environment is the first part's, and ``seconds`` the longest part's
    (they ran at the same time).

    Raises:
        ValueError: no parts, parts of different configurations,
            or a seed recorded twice.
    """
    runs = sorted(
        merged_runs(parts, key=lambda run: (run.units, run.seed)),
        key=lambda r: (r.seed, r.units != "words"),
    )
    chapters = [p.chapter_run for p in parts if p.chapter_run is not None]
    return replace(
        parts[0],
        command=command,
        runs=tuple(runs),
        seconds=max(p.seconds for p in parts),
        chapter_run=min(chapters, key=lambda r: r.seed)
        if chapters
        else None,
    )


def chapter_pieces_config(config: RealConfig) -> RealConfig:
    """The short run the real-sentences chapter trains live:
    ``config`` for 2 epochs (the learning rate still falls to zero over
    them), translated greedily."""
    return replace(
        config, beam_size=1, train=replace(config.train, max_epochs=2)
    )


def units_config(comparison: UnitsComparison) -> RealConfig:
    """The pieces run's :class:`~attnbook.studies.realdata.RealConfig` of a
    recorded comparison (seed 0)."""
    # the record keeps the chapter's epochs and beam beside the run's
    values = {k: v for k, v in comparison.config.items() if k != "chapter"}
    return RealConfig.from_dict(values)


def format_units_comparison(comparison: UnitsComparison) -> str:
    """A table of the comparison: per seed and as mean ± standard
    deviation, BLEU, chrF and seconds."""
    keys = ("bleu", "bleu_single", "chrf")
    lines = [
        f"{'units':<24}{'seed':>5}{'BLEU':>8}{'BLEU 1-ref':>12}{'chrF':>8}"
        f"{'seconds':>9}{'unknown':>9}"
    ]
    for units, suffix, label in (
        ("words", "", "words (lower-cased)"),
        ("pieces", "_lowercased", "pieces (lower-cased)"),
        ("pieces", "", "pieces (cased)"),
    ):
        runs = comparison.runs_of(units)
        for run in runs:
            values = [run.scores[k + suffix] for k in keys]
            lines.append(
                f"{label:<24}{run.seed:>5}{values[0]:>8.1f}"
                f"{values[1]:>12.1f}{values[2]:>8.1f}"
                f"{run.train_seconds:>9.0f}"
                f"{run.scores['n_sentences_unknown']:>9}"
            )
        cells = [
            mean_sd([r.scores[k + suffix] for r in runs]) for k in keys
        ]
        lines.append(
            f"{label + ', mean ± sd':<29}"
            + "".join(f"{m:>6.1f}±{s:<4.1f}" for m, s in cells)
        )
    return "\n".join(lines)
