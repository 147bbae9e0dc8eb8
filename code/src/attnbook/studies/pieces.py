"""The run on real sentences over subword units, scored on
detokenised, cased text.

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

The comparison of this run with the word-level one over three seeds, and
its record, are :mod:`attnbook.studies.units`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import torch

from attnbook.core.runtime import get_device
from attnbook.nmt.data import SentencePair, Vocab
from attnbook.nmt.metrics import score_texts, scored_text
from attnbook.nmt.split import (
    EnglishSplit,
    lowered_source,
)
from attnbook.nmt.subwords import SUBWORD_UNK, Subwords, learn_subwords
from attnbook.nmt.text import detokenize_french
from attnbook.nmt.training import TrainResult
from attnbook.nmt.translator import Translator
from attnbook.studies.realdata import RealConfig, cased_split
from attnbook.studies.recipe import RunData, run_once


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


def prepare_pieces(
    pairs: Sequence[SentencePair],
    config: RealConfig,
    units: tuple[Subwords, Subwords] | None = None,
) -> RunData[EnglishSplit]:
    """The data of a run over pieces: the cased split, the pieces (learnt
    on its training sentences unless given), the training and validation
    pairs cut into them, and their vocabularies.

    Raises:
        ValueError: ``units`` are not of ``config.data.subwords`` pieces.
    """
    data = config.data
    split = cased_split(pairs, data)
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
    longest = max(
        data.max_src_len,
        *(len(source_units.encode(p.source)) for p in pairs),
    )
    return RunData(
        split,
        piece_pairs(split.train, source_units, target_units),
        piece_pairs(split.val, source_units, target_units),
        # <unk> is a special
        Vocab(source_units.pieces),
        Vocab(target_units.pieces),
        longest,
        (source_units, target_units),
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
    prepared = prepare_pieces(pairs, config, units)
    assert prepared.units is not None  # a run over pieces
    source_units, target_units = prepared.units
    run = run_once(
        config,
        prepared,
        lambda translator, data: evaluate_pieces(
            translator,
            data.split.test,
            source_units,
            target_units,
            beam_size=config.beam_size,
        ),
        device=device,
        progress=progress,
    )
    assert run.evaluation is not None  # evaluated above
    return PiecesExperiment(
        config,
        prepared.split,
        source_units,
        target_units,
        run.translator,
        run.training,
        run.evaluation,
        device,
    )
