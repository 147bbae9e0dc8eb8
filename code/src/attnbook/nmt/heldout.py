"""Held-out real sentences: each distinct English sentence translated
once and scored against every one of its translations.

:func:`evaluate_real` is the evaluation of every model on real pairs, over
words or over pieces: what ``python -m attnbook evaluate`` prints, and what
a run on the Tatoeba pairs reports about its held-out sentences.
Its :class:`RealEvaluation` holds the scores of the raw translations and of
the same after unknown-word replacement.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from torch import Tensor

from attnbook.nmt.coverage import repeated_words, unattended_words
from attnbook.nmt.data import UNK, SentencePair
from attnbook.nmt.metrics import (
    MultiReferenceScore,
    score_against_references,
)
from attnbook.nmt.split import group_references, lowered_source
from attnbook.nmt.text import replace_unknown
from attnbook.nmt.translator import Translator


@dataclass(frozen=True)
class RealEvaluation:
    """A model's translations of held-out English sentences, scored against
    all their references.

    Attributes:
        score: BLEU, chrF and exact match of the raw translations.
        score_replaced: the same after
            :func:`~attnbook.nmt.text.replace_unknown` (equal to
            ``score`` without attention).
        sources: the distinct English sentences, in order.
        references: all the French translations of each.
        hypotheses: the model's translations, as words (``<unk>`` where it
            wrote one).
        replaced: the translations after unknown-word replacement.
        weights: each translation's attention weights, one row per token
            written (and ``<eos>`` when it finished), one column per token
            read (and ``<eos>``): words, or pieces for a model over
            pieces; ``None`` for a model without attention.
        n_unknown: source tokens the source vocabulary does not know (read
            as ``<unk>``).
        n_unk_written: ``<unk>`` tokens in the raw translations.
    """

    score: MultiReferenceScore
    score_replaced: MultiReferenceScore
    sources: list[tuple[str, ...]]
    references: list[list[tuple[str, ...]]]
    hypotheses: list[list[str]]
    replaced: list[list[str]]
    weights: list[Tensor | None]
    n_unknown: int
    n_unk_written: int

    def to_dict(self) -> dict[str, float | int | str | bool]:
        """The headline numbers as plain values (what the command line
        prints as JSON).

        ``bleu`` is multi-reference, ``bleu_single`` first-reference-only;
        ``bleu_signature`` and ``cased`` say how both were computed.
        """
        return {
            "bleu": self.score.bleu,
            "bleu_single": self.score.bleu_single,
            "chrf": self.score.chrf,
            "bleu_signature": self.score.bleu_signature,
            "cased": self.score.cased,
            "exact_match": self.score.exact_match,
            "bleu_unk_replaced": self.score_replaced.bleu,
            "chrf_unk_replaced": self.score_replaced.chrf,
            "n_sentences": self.score.n_sentences,
            "n_unknown": self.n_unknown,
            "n_unk_written": self.n_unk_written,
            "n_repeating": sum(1 for r in self.repeats() if r),
        }

    def repeats(self) -> list[int]:
        """Each translation's mistaken repeats: a word written twice in a
        row where no reference has it so
        (:func:`~attnbook.nmt.coverage.repeated_words`)."""
        return [
            len(repeated_words(h, refs))
            for h, refs in zip(
                self.hypotheses, self.references, strict=True
            )
        ]

    def unattended(self) -> list[int]:
        """Each translation's unread English content words
        (:func:`~attnbook.nmt.coverage.unattended_words`): the words it may
        have dropped.

        Raises:
            ValueError: the model has no attention, or its attention
                columns are pieces rather than the source's words.
        """
        counts = []
        for source, weights in zip(
            self.sources, self.weights, strict=True
        ):
            if weights is None or weights.size(1) != len(source) + 1:
                raise ValueError(
                    "unattended words need attention over the source's "
                    "words (a model over whole words, with attention)"
                )
            counts.append(len(unattended_words(source, weights)))
        return counts


def evaluate_real(
    translator: Translator,
    pairs: Sequence[SentencePair],
    *,
    beam_size: int = 1,
    coverage_penalty: float = 0.0,
) -> RealEvaluation:
    """Translate each distinct English sentence of ``pairs`` once and score
    it against all its translations.

    The sentences are grouped as the split groups them
    (:func:`~attnbook.nmt.split.lowered_source`), so a cased corpus gives
    the sentences of its lower-cased one, each spelt as its first pair
    spells it. Each is cut by the translator's tokeniser (whole words, or
    pieces), decoded through
    :meth:`~attnbook.nmt.translator.Translator.decode_pairs` (greedy, or
    beam search), which keeps each translation's attention weights for
    :func:`~attnbook.nmt.text.replace_unknown`, and what the model wrote
    is joined back into words (a model over pieces writes pieces).

    Args:
        translator: the trained model, its vocabularies and its tokeniser
            (unknown source tokens are read as ``<unk>``).
        pairs: held-out pairs, as the corpus loader reads them (cased for
            a model over pieces, which reads case), no English sentence of
            them seen in training.
        beam_size: 1 for greedy search, more for beam search.
        coverage_penalty: the weight of beam search's coverage penalty
            (:func:`~attnbook.nmt.search.beam_search`).

    Raises:
        ValueError: ``pairs`` is empty.
    """
    if not pairs:
        raise ValueError("cannot evaluate on no pairs")
    tokenizer = translator.tokenizer
    sources, references = group_references(pairs, key=lowered_source)
    read = [tokenizer.source(s) for s in sources]
    decoded = translator.decode_pairs(
        [
            SentencePair(tuple(r), tuple(tokenizer.target(refs[0])))
            for r, refs in zip(read, references, strict=True)
        ],
        beam_size=beam_size,
        coverage_penalty=coverage_penalty,
    )
    written = [translator.tgt_vocab.decode(h.ids) for h in decoded]
    hypotheses = [tokenizer.target_words(w) for w in written]
    replaced = [
        tokenizer.target_words(
            replace_unknown(w, r, d.weights, translator.src_vocab)
        )
        for w, r, d in zip(written, read, decoded, strict=True)
    ]
    return RealEvaluation(
        score=score_against_references(hypotheses, references),
        score_replaced=score_against_references(replaced, references),
        sources=sources,
        references=references,
        hypotheses=hypotheses,
        replaced=replaced,
        weights=[d.weights for d in decoded],
        n_unknown=sum(
            len(translator.src_vocab.unknown(r)) + r.count(UNK)
            for r in read
        ),
        n_unk_written=sum(w.count(UNK) for w in written),
    )
