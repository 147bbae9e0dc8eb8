"""Held-out evaluation: translate pairs, score the translations and, where there is a truth, the attention.

:func:`evaluate` decodes with :class:`~attnbook.translator.Translator` (greedy or beam search), scores
with :func:`~attnbook.metrics.score_translations` and, for the toy grammar's pairs, measures
:func:`~attnbook.attention_analysis.alignment_accuracy`. It returns an :class:`EvalResult`.

>>> from attnbook.data import SentencePair, Vocab
>>> from attnbook.evaluation import evaluate
>>> from attnbook.seq2seq import Seq2Seq, Seq2SeqConfig
>>> from attnbook.translator import Translator
>>> pair = SentencePair(("the", "cat"), ("le", "chat"))
>>> model = Seq2Seq(Seq2SeqConfig(6, 6, attention="none", emb_dim=4, hidden_dim=4))
>>> result = evaluate(Translator(model, Vocab(pair.source), Vocab(pair.target)), [pair])
>>> len(result.hypotheses), result.alignment is None  # no attention: no alignment to score
(1, True)
>>> sorted(result.to_dict())[:3]
['alignment_accuracy', 'alignment_by_category', 'bleu']
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from attnbook.attention_analysis import AlignmentResult, alignment_accuracy
from attnbook.data import SentencePair
from attnbook.metrics import TranslationMetrics, score_translations
from attnbook.translator import Translator


@dataclass(frozen=True)
class EvalResult:
    """Held-out results of a model.

    Attributes:
        metrics: exact match, token accuracy, BLEU, chrF, and exact match by source length.
        alignment: the alignment scores, or ``None`` (no attention, or no true alignments).
        hypotheses: the decoded sentences, in order.
        n_unknown: how many source and target tokens the vocabularies did not know.
    """

    metrics: TranslationMetrics
    alignment: AlignmentResult | None
    hypotheses: list[list[str]]
    n_unknown: int

    def to_dict(self) -> dict[str, Any]:
        """The metrics as plain values (what ``python -m attnbook train --json`` prints), without the
        hypotheses and the per-token argmax."""
        metrics = self.metrics
        return {
            "exact_match": metrics.exact_match,
            "token_accuracy": metrics.token_accuracy,
            "bleu": metrics.bleu,
            "chrf": metrics.chrf,
            "alignment_accuracy": None if self.alignment is None else self.alignment.accuracy,
            "alignment_by_category": {} if self.alignment is None else self.alignment.by_category,
            "exact_match_by_length": metrics.exact_match_by_length,
            "count_by_length": metrics.count_by_length,
            "n_unknown": self.n_unknown,
        }


def evaluate(
    translator: Translator,
    pairs: Sequence[SentencePair],
    *,
    beam_size: int = 1,
    with_alignment: bool = True,
) -> EvalResult:
    """Translate held-out ``pairs`` and score the translations (and, if possible, the attention).

    Args:
        translator: the trained model and its vocabularies (unknown tokens become ``<unk>`` and are
            counted).
        pairs: held-out pairs, disjoint from the training pairs.
        beam_size: 1 for greedy search, more for beam search.
        with_alignment: also compute the alignment accuracy when the model attends and the pairs carry
            true alignments.

    Raises:
        ValueError: there are no pairs.
    """
    if not pairs:
        raise ValueError("cannot evaluate on no pairs")
    hypotheses = translator.translate_pairs(pairs, beam_size=beam_size)
    alignment = None
    if with_alignment and translator.model.decoder.uses_attention and all(p.has_alignment for p in pairs):
        alignment = alignment_accuracy(translator, pairs)
    return EvalResult(
        score_translations(hypotheses, pairs), alignment, hypotheses, translator.n_unknown(pairs)
    )
