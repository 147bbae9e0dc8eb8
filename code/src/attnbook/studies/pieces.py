"""The run on real sentences over subword units, scored on
detokenised, cased text; and the recorded comparison of words and
pieces over three seeds.

:func:`run_pieces_experiment` is
:func:`~attnbook.studies.realdata.run_real_experiment` with pieces for
words: it splits the *cased* pairs exactly where the word-level run splits
the lower-cased ones (the same held-out English sentences), learns
``subwords`` pieces per language on the training sentences only
(:func:`~attnbook.nmt.subwords.learn_subwords`), trains the same model over
pieces, translates the held-out sentences, joins the pieces back into words
and the words into text, and scores the text with :func:`score_report`:
cased, and lower-cased for comparison with the word-level model (whose text
is lower-cased). It scores the pieces as the model wrote them, without
unknown-word replacement, and counts the held-out sentences that still
contain an unknown piece.

A chapter cannot train six models for five epochs, so the comparison of
words and pieces over three seeds is recorded once and ships with the
package (:func:`packaged_units_comparison`).
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
(:func:`retrain_pieces_start`) and compares their losses with the record.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, NamedTuple

import torch

from attnbook.core.records import (
    environment,
    load_result,
    package_path,
    save_result,
)
from attnbook.core.runtime import get_device
from attnbook.nmt.data import SentencePair, Vocab
from attnbook.nmt.metrics import score_texts, scored_text
from attnbook.nmt.split import (
    EnglishSplit,
    lowered_source,
    split_by_english,
)
from attnbook.nmt.subwords import SUBWORD_UNK, Subwords, learn_subwords
from attnbook.nmt.text import Tokenizer, detokenize_french
from attnbook.nmt.training import TrainResult, train
from attnbook.nmt.translator import Translator
from attnbook.studies.experiment import build_translator
from attnbook.studies.realdata import RealConfig, run_real_experiment

PACKAGED_UNITS = "subwords_cpu.json"
"""The file name, in the package's ``data`` folder, of the recorded
comparison of words and pieces."""


def score_report(
    hypotheses: Sequence[str],
    references: Sequence[Sequence[str]],
    *,
    cased: bool,
) -> dict[str, Any]:
    """What a record keeps of :func:`~attnbook.nmt.metrics.score_texts`:
    BLEU against every reference and against the first one only, chrF,
    BLEU's sacreBLEU signature and whether the scores tell case
    (``cased=False`` lower-cases both sides first, ``lc`` in the
    signature).

    >>> report = score_report(
    ...     ["Il fait froid."],
    ...     [["Il fait froid.", "J'ai froid."]],
    ...     cased=True,
    ... )
    >>> round(report["bleu"]), report["bleu_signature"].split("|")[1:3]
    (100, ['case:mixed', 'eff:no'])
    """
    scores = score_texts(hypotheses, references, lowercase=not cased)
    return {key: scores[key] for key in _REPORTED}


_REPORTED = ("bleu", "bleu_single", "chrf", "bleu_signature", "cased")


# -------------------------------------------------------------------------
# Pieces: the split, the units, the evaluation


def piece_pairs(
    pairs: Sequence[SentencePair], source: Subwords, target: Subwords
) -> list[SentencePair]:
    """``pairs`` with each side cut into pieces (the word tokens joined by
    spaces, then cut)."""
    return [
        SentencePair(
            tuple(source.encode(p.source)), tuple(target.encode(p.target))
        )
        for p in pairs
    ]


@dataclass(frozen=True)
class PiecesEvaluation:
    """A pieces model's translations of the held-out English sentences,
    joined back into text and scored.

    Attributes:
        cased: :func:`score_report` on the cased text.
        lowercased: the same on lower-cased text (comparable with the
            word-level model's scores).
        sources: each held-out English sentence, as cased words (the first
            of its cased spellings).
        source_pieces: the pieces the model read for each.
        pieces: the pieces the model wrote for each (no ``<eos>``).
        translations: the translations as text.
        references: every French translation of each sentence, as text.
        weights: each translation's attention, ``(len(pieces) + finished,
            len(source_pieces) + 1)``.
        n_sentences_unknown: held-out English sentences with at least one
            unknown piece.
        n_unknown: unknown pieces in the held-out English.
    """

    cased: dict[str, Any]
    lowercased: dict[str, Any]
    sources: list[tuple[str, ...]]
    source_pieces: list[list[str]]
    pieces: list[list[str]]
    translations: list[str]
    references: list[list[str]]
    weights: list[torch.Tensor | None]
    n_sentences_unknown: int
    n_unknown: int

    def to_dict(self) -> dict[str, Any]:
        """The headline numbers as plain values;
        the scores keep their keys, the lower-cased ones with the suffix
        ``_lowercased``."""
        lower = {
            f"{k}_lowercased": v
            for k, v in self.lowercased.items()
            if k != "cased"
        }
        return {
            **{k: v for k, v in self.cased.items() if k != "cased"},
            **lower,
            "n_sentences": len(self.sources),
            "n_sentences_unknown": self.n_sentences_unknown,
            "n_unknown": self.n_unknown,
        }


def evaluate_pieces(
    translator: Translator,
    pairs: Sequence[SentencePair],
    source_units: Subwords,
    target_units: Subwords,
    *,
    beam_size: int = 1,
) -> PiecesEvaluation:
    """Translate each held-out English sentence once (pieces in,
    pieces out) and score the joined text.

    Sentences are grouped as the word-level run groups them
    (:func:`~attnbook.nmt.split.lowered_source`), so the same
    sentences are scored; every cased French translation of a sentence is
    a reference.

    Args:
        translator: a model trained over pieces (its vocabularies hold
            the pieces).
        pairs: held-out cased pairs, as words.
        source_units, target_units: the pieces of each language.
        beam_size: 1 for greedy search, more for beam search.

    Raises:
        ValueError: ``pairs`` is empty.
    """
    if not pairs:
        raise ValueError("cannot evaluate on no pairs")
    first: dict[tuple[str, ...], SentencePair] = {}
    grouped: dict[tuple[str, ...], list[str]] = {}
    for pair in pairs:
        key = lowered_source(pair)
        first.setdefault(key, pair)
        text = detokenize_french(pair.target)
        if text not in grouped.setdefault(key, []):
            grouped[key].append(text)
    sources = [first[k].source for k in grouped]
    source_pieces = [source_units.encode(s) for s in sources]
    decoded = translator.decode_pairs(
        [SentencePair(tuple(p), ("▁",)) for p in source_pieces],
        beam_size=beam_size,
    )
    pieces = [translator.tgt_vocab.decode(h.ids) for h in decoded]
    # as the evaluation of every model on real pairs writes them
    translations = [
        scored_text(Subwords.join(ps).split()) for ps in pieces
    ]
    references = list(grouped.values())
    return PiecesEvaluation(
        cased=score_report(translations, references, cased=True),
        lowercased=score_report(translations, references, cased=False),
        sources=sources,
        source_pieces=source_pieces,
        pieces=pieces,
        translations=translations,
        references=references,
        weights=[d.weights for d in decoded],
        n_sentences_unknown=sum(SUBWORD_UNK in p for p in source_pieces),
        n_unknown=sum(p.count(SUBWORD_UNK) for p in source_pieces),
    )


@dataclass(frozen=True)
class PiecesHeatmap:
    """One held-out translation over pieces and its attention: what the
    real-sentences chapter draws.

    Attributes:
        source: the English sentence, as cased words.
        source_pieces, target_pieces: the pieces read and written
            (no ``<eos>``).
        weights: the attention, one row per written piece and one column
            per read piece (the columns of ``<eos>`` left out).
        translation: the written pieces joined into text.
        references: every French translation of the sentence.
    """

    source: tuple[str, ...]
    source_pieces: tuple[str, ...]
    target_pieces: tuple[str, ...]
    weights: tuple[tuple[float, ...], ...]
    translation: str
    references: tuple[str, ...]

    @property
    def correct(self) -> bool:
        """Whether the translation is one of the references."""
        return self.translation in self.references

    @classmethod
    def from_dict(cls, values: dict[str, Any]) -> PiecesHeatmap:
        return cls(
            tuple(values["source"]),
            tuple(values["source_pieces"]),
            tuple(values["target_pieces"]),
            tuple(tuple(row) for row in values["weights"]),
            values["translation"],
            tuple(values["references"]),
        )


def words_in_several_pieces(pieces: Sequence[str]) -> int:
    """How many words of a sentence are spelt with more than one piece.

    >>> words_in_several_pieces(["▁Tom", "▁s", "ne", "ezed", "."])
    1
    """
    index = Subwords.word_index(list(pieces))
    return sum(index.count(w) > 1 for w in set(index))


def _pieces_agree(
    weights: torch.Tensor,
    source_pieces: Sequence[str],
    target_pieces: Sequence[str],
) -> bool:
    # do all the pieces of each French word read most from (the pieces
    # of) one and the same English word?
    source_word = Subwords.word_index(list(source_pieces))
    read = [source_word[int(j)] for j in weights.argmax(-1)]
    target_word = Subwords.word_index(list(target_pieces))
    return all(
        len(
            {
                r
                for r, w in zip(read, target_word, strict=True)
                if w == word
            }
        )
        == 1
        for word in set(target_word)
    )


def pick_heatmap(evaluation: PiecesEvaluation) -> PiecesHeatmap | None:
    """The held-out sentence the chapter draws: the first, in the
    evaluation's order, of 4 to 9 English pieces and 4 to 10 French ones,
    with a word spelt in several pieces on each side, whose every French
    word's pieces read most from one English word; a correct translation
    where there is one. ``None`` when no held-out translation is of that
    kind (a model trained too briefly, say).
    """

    def cut(i: int) -> torch.Tensor:
        weights = evaluation.weights[i]
        assert weights is not None  # every translation keeps its weights
        return weights[
            : len(evaluation.pieces[i]), : len(evaluation.source_pieces[i])
        ]

    candidates = [
        i
        for i, (source, target) in enumerate(
            zip(evaluation.source_pieces, evaluation.pieces, strict=True)
        )
        if 4 <= len(source) <= 9
        and 4 <= len(target) <= 10
        and words_in_several_pieces(source) >= 1
        and words_in_several_pieces(target) >= 1
        and _pieces_agree(cut(i), source, target)
    ]
    if not candidates:
        return None
    correct = [
        i
        for i in candidates
        if evaluation.translations[i] in evaluation.references[i]
    ]
    i = (correct or candidates)[0]
    return PiecesHeatmap(
        tuple(evaluation.sources[i]),
        tuple(evaluation.source_pieces[i]),
        tuple(evaluation.pieces[i]),
        tuple(tuple(float(w) for w in row) for row in cut(i).tolist()),
        evaluation.translations[i],
        tuple(evaluation.references[i]),
    )


@dataclass(frozen=True, eq=False)
class PiecesExperiment:
    """Everything :func:`run_pieces_experiment` built and measured."""

    config: RealConfig
    split: EnglishSplit
    source_units: Subwords
    target_units: Subwords
    translator: Translator
    training: TrainResult
    evaluation: PiecesEvaluation
    device: torch.device

    def to_dict(self) -> dict[str, Any]:
        """The headline numbers as plain values (the command
        line's JSON)."""
        return {
            "units": "pieces",
            "subwords": self.config.data.subwords,
            "device": str(self.device),
            **self.evaluation.to_dict(),
            "train_seconds": self.training.seconds,
            "train_steps": self.training.steps,
            "n_train": len(self.split.train),
            "n_test": len(self.split.test),
            "src_vocab": len(self.translator.src_vocab),
            "tgt_vocab": len(self.translator.tgt_vocab),
        }


class _PreparedPieces(NamedTuple):
    split: EnglishSplit
    source_units: Subwords
    target_units: Subwords
    train_pairs: list[SentencePair]
    val_pairs: list[SentencePair]
    translator: Translator


def _prepare_pieces(
    pairs: Sequence[SentencePair],
    config: RealConfig,
    units: tuple[Subwords, Subwords] | None,
    device: torch.device,
) -> _PreparedPieces:
    """The split, the pieces (learnt here unless given), the training and
    validation pairs as pieces, and the untrained model of a pieces run."""
    data = config.data
    split = split_by_english(
        pairs,
        test_fraction=data.test_fraction,
        val_fraction=data.val_fraction,
        seed=data.split_seed,
        key=lowered_source,
    )
    if units is None:
        source_units = learn_subwords(
            (p.source for p in split.train), data.subwords
        )
        target_units = learn_subwords(
            (p.target for p in split.train), data.subwords
        )
    else:
        source_units, target_units = units
        if (len(source_units), len(target_units)) != (
            data.subwords,
            data.subwords,
        ):
            raise ValueError(
                f"units has {len(source_units)} and {len(target_units)} "
                "pieces; config.data.subwords "
                f"asks for {data.subwords}"
            )
    train_pairs = piece_pairs(split.train, source_units, target_units)
    val_pairs = piece_pairs(split.val, source_units, target_units)
    src_vocab, tgt_vocab = (
        Vocab(source_units.pieces),
        Vocab(target_units.pieces),
    )  # <unk> is a special
    longest = max(
        data.max_src_len,
        *(len(source_units.encode(p.source)) for p in pairs),
    )
    translator = replace(
        build_translator(
            config,
            src_vocab,
            tgt_vocab,
            device=device,
            max_src_len=longest,
        ),
        tokenizer=Tokenizer(source_units, target_units),
    )
    return _PreparedPieces(
        split,
        source_units,
        target_units,
        train_pairs,
        val_pairs,
        translator,
    )


def run_pieces_experiment(
    pairs: Sequence[SentencePair],
    config: RealConfig,
    *,
    device: torch.device | str | None = None,
    progress: bool = False,
    units: tuple[Subwords, Subwords] | None = None,
) -> PiecesExperiment:
    """Split cased ``pairs`` by English sentence, learn pieces on the
    training split, train, score.

    Args:
        pairs: the corpus as cased words (``load_tatoeba(path,
            cased=True).pairs``).
        config: the run; ``config.data.subwords`` is the number of pieces
            per language (at least 4).
        device: where to train; ``None`` uses
            :func:`~attnbook.core.runtime.get_device`.
        progress: show the training progress bar.
        units: the English and French pieces, already learnt from this
            split's training pairs with ``config.data.subwords`` pieces
            each (``None``: learn them here).

    Raises:
        ValueError: ``config.data.subwords`` is 0 (a word-level run),
            ``pairs`` is empty, or the training sentences are too few for
            that many pieces.
    """
    data = config.data
    if data.subwords == 0:
        raise ValueError(
            "config.data.subwords is 0 (whole words): use "
            "run_real_experiment"
        )
    if not pairs:
        raise ValueError(
            "the corpus has no sentence pairs: nothing to train on"
        )
    device = torch.device(device) if device is not None else get_device()
    prepared = _prepare_pieces(pairs, config, units, device)
    training = train(
        prepared.translator,
        prepared.train_pairs,
        prepared.val_pairs,
        config.train,
        progress=progress,
    )
    evaluation = evaluate_pieces(
        prepared.translator,
        prepared.split.test,
        prepared.source_units,
        prepared.target_units,
        beam_size=config.beam_size,
    )
    return PiecesExperiment(
        config,
        prepared.split,
        prepared.source_units,
        prepared.target_units,
        prepared.translator,
        training,
        evaluation,
        device,
    )


# -------------------------------------------------------------------------
# The recorded comparison: words and pieces, three seeds


def word_report(experiment: Any) -> dict[str, Any]:
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
            ``log_every`` steps (what :func:`retrain_pieces_start`
            checks).
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
class UnitsComparison:
    """Words and pieces trained with the same seeds on the same split:
    the record and how it was made."""

    command: str
    environment: dict[str, Any]
    config: dict[str, Any]
    runs: tuple[UnitsRun, ...]
    seconds: float
    chapter_run: UnitsRun | None = None

    def runs_of(self, units: str) -> list[UnitsRun]:
        """The runs over ``units`` (``"words"`` or ``"pieces"``),
        in seed order."""
        return sorted(
            (r for r in self.runs if r.units == units),
            key=lambda r: r.seed,
        )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, values: dict[str, Any]) -> UnitsComparison:
        def run(r: dict[str, Any]) -> UnitsRun:
            heatmap = r.get("heatmap")
            return UnitsRun(
                **{
                    **r,
                    "val_steps": tuple(r["val_steps"]),
                    "val_losses": tuple(r["val_losses"]),
                    "train_losses": tuple(r.get("train_losses", ())),
                    "examples": tuple(
                        (e[0], e[1]) for e in r.get("examples", ())
                    ),
                    "heatmap": None
                    if heatmap is None
                    else PiecesHeatmap.from_dict(heatmap),
                }
            )

        chapter = values.get("chapter_run")
        return cls(
            values["command"],
            values["environment"],
            values["config"],
            tuple(run(r) for r in values["runs"]),
            values["seconds"],
            None if chapter is None else run(chapter),
        )


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


def retrain_pieces_start(
    comparison: UnitsComparison,
    pairs: Sequence[SentencePair],
    units: tuple[Subwords, Subwords] | None = None,
    steps: int = 30,
) -> TrainResult:
    """Train the chapter's recorded pieces run again from its seed, for
    its first ``steps``, on the CPU.

    The split, the pieces, the first weights, the batch order and the
    learning-rate schedule (planned over the whole run) are the record's,
    so the training losses logged in those steps should match the
    chapter run's ``train_losses`` (up to another CPU's rounding).

    Args:
        comparison: the record; its ``chapter_run`` is trained again.
        pairs: the record's corpus, cased.
        units: the English and French pieces, already learnt from the
            training split (``None``: learn them here).
        steps: how many optimiser steps to take.

    Raises:
        ValueError: the record has no chapter run, or ``steps`` is below 1.
    """
    run = comparison.chapter_run
    if run is None:
        raise ValueError("the record holds no chapter run to train again")
    if steps < 1:
        raise ValueError(f"steps must be at least 1, got {steps}")
    config = chapter_pieces_config(
        real_config(
            comparison.config["data"]["subwords"],
            run.seed,
            units_config(comparison),
        )
    )
    prepared = _prepare_pieces(pairs, config, units, torch.device("cpu"))
    return train(
        prepared.translator,
        prepared.train_pairs,
        prepared.val_pairs,
        config.train,
        progress=False,
        stop_after=steps,
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
    if not parts:
        raise ValueError("parts is empty: nothing to merge")
    if any(p.config != parts[0].config for p in parts):
        raise ValueError(
            "the parts were recorded with different configurations"
        )
    runs = sorted(
        (r for p in parts for r in p.runs),
        key=lambda r: (r.seed, r.units != "words"),
    )
    keys = [(r.units, r.seed) for r in runs]
    if len(set(keys)) != len(keys):
        raise ValueError("a seed is recorded in two parts")
    chapters = [p.chapter_run for p in parts if p.chapter_run is not None]
    return UnitsComparison(
        command=command,
        environment=parts[0].environment,
        config=parts[0].config,
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


def save_units_comparison(
    comparison: UnitsComparison, path: str | os.PathLike[str]
) -> Path:
    """Write a comparison as indented JSON (creating the folder);
    return the path."""
    return save_result(comparison, path)


def load_units_comparison(path: str | os.PathLike[str]) -> UnitsComparison:
    """Read a comparison written by :func:`save_units_comparison`.

    Raises:
        ValueError: the file does not hold one; the message names the file.
    """
    return load_result(
        UnitsComparison.from_dict,
        path,
        "a recorded comparison of words and pieces",
    )


def packaged_units_comparison(
    name: str = PACKAGED_UNITS,
) -> UnitsComparison:
    """The comparison recorded in the package (see the module's docstring
    for how it was made)."""
    with package_path(name) as path:
        return load_units_comparison(path)


def units_config(comparison: UnitsComparison) -> RealConfig:
    """The pieces run's :class:`~attnbook.studies.realdata.RealConfig` of a
    recorded comparison (seed 0)."""
    from attnbook.nmt.seq2seq import ModelConfig
    from attnbook.nmt.training import TrainConfig
    from attnbook.studies.realdata import RealDataConfig

    values = {k: v for k, v in comparison.config.items() if k != "chapter"}
    return RealConfig(
        data=RealDataConfig(**values["data"]),
        model=ModelConfig(**values["model"]),
        train=TrainConfig(**values["train"]),
        beam_size=values["beam_size"],
    )


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
        means = [
            statistics.mean(r.scores[k + suffix] for r in runs)
            for k in keys
        ]
        spreads = [
            statistics.stdev(r.scores[k + suffix] for r in runs)
            if len(runs) > 1
            else 0.0
            for k in keys
        ]
        lines.append(
            f"{label + ', mean ± sd':<29}"
            + "".join(
                f"{m:>6.1f}±{s:<4.1f}"
                for m, s in zip(means, spreads, strict=True)
            )
        )
    return "\n".join(lines)
