"""Held-out evaluation: translate pairs, score the translations and,
where there is a truth, the attention.

:func:`evaluate` decodes with :class:`~attnbook.nmt.translator.Translator`
(greedy or beam search), scores with
:func:`~attnbook.nmt.metrics.score_translations` and, for the toy grammar's
pairs, measures
:func:`~attnbook.nmt.attention_analysis.alignment_accuracy`,
the alignment error rate, the attention mass on the true links and the
attention's entropy (:func:`attention_scores`).
It returns an :class:`EvalResult`.

>>> from attnbook.nmt.data import SentencePair, Vocab
>>> from attnbook.nmt.evaluation import evaluate
>>> from attnbook.nmt.seq2seq import Seq2Seq, Seq2SeqConfig
>>> from attnbook.nmt.translator import Translator
>>> pair = SentencePair(("the", "cat"), ("le", "chat"))
>>> model = Seq2Seq(
...     Seq2SeqConfig(6, 6, attention="none", emb_dim=4, hidden_dim=4)
... )
>>> result = evaluate(
...     Translator(model, Vocab(pair.source), Vocab(pair.target)), [pair]
... )
>>> (
...     len(result.hypotheses),
...     result.alignment is None,
... )  # no attention: no alignment to score
(1, True)
>>> sorted(result.to_dict())[:3]
['aer', 'alignment_accuracy', 'alignment_by_category']
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import torch

from attnbook.core.alignment import attention_entropy
from attnbook.nmt.alignment_metrics import (
    AlignmentScores,
    alignment_scores,
)
from attnbook.nmt.attention_analysis import (
    AlignmentResult,
    alignment_accuracy,
    teacher_forced_attention,
)
from attnbook.nmt.data import SentencePair
from attnbook.nmt.metrics import TranslationMetrics, score_translations
from attnbook.nmt.model import evaluating
from attnbook.nmt.translator import Translator


@dataclass(frozen=True)
class EvalResult:
    """Held-out results of a model.

    Attributes:
        metrics: exact match, token accuracy, BLEU, chrF, and exact match
            by source length.
        alignment: the alignment scores, or ``None`` (no attention,
            or no true alignments).
        hypotheses: the decoded sentences, in order.
        n_unknown: how many source and target tokens the vocabularies did
            not know.
        scores: the AER of the attention's argmax against the sure and
            possible links, and the attention mass on the true links
            (see :mod:`attnbook.nmt.alignment_metrics`), or ``None``
            like ``alignment``.
        mean_entropy: the mean entropy, in nats, of the teacher-forced
            attention rows of the target words (each row renormalised to
            sum 1 first; local-p rows sum to less), or ``None``.
    """

    metrics: TranslationMetrics
    alignment: AlignmentResult | None
    hypotheses: list[list[str]]
    n_unknown: int
    scores: AlignmentScores | None = None
    mean_entropy: float | None = None

    def to_dict(self) -> dict[str, Any]:
        """The metrics as plain values (what ``python -m attnbook
        train --json`` prints), without the hypotheses and the
        per-token argmax."""
        metrics = self.metrics
        return {
            "exact_match": metrics.exact_match,
            "token_accuracy": metrics.token_accuracy,
            "bleu": metrics.bleu,
            "chrf": metrics.chrf,
            "alignment_accuracy": None
            if self.alignment is None
            else self.alignment.accuracy,
            "alignment_by_category": {}
            if self.alignment is None
            else self.alignment.by_category,
            "exact_match_by_length": metrics.exact_match_by_length,
            "count_by_length": metrics.count_by_length,
            "n_unknown": self.n_unknown,
            "aer": None if self.scores is None else self.scores.aer,
            "attention_mass": None
            if self.scores is None
            else self.scores.mass,
            "mean_entropy": self.mean_entropy,
        }


def attention_scores(
    translator: Translator, pairs: Sequence[SentencePair]
) -> tuple[AlignmentScores, float]:
    """Score the teacher-forced attention against the true alignment beyond
    the argmax.

    Returns:
        The :class:`~attnbook.nmt.alignment_metrics.AlignmentScores` (AER
        of the argmax against the sure and possible links, mass on the true
        links, by word category) and the mean entropy in nats of the target
        words' attention rows (each renormalised to sum 1).
    """
    # (T + 1, S + 1) per pair
    weights = teacher_forced_attention(translator, pairs)
    lengths = [len(pair.target) for pair in pairs]
    scores = alignment_scores(
        weights,
        [pair.sure_links() for pair in pairs],
        [p.categories for p in pairs],
        possible_links=[pair.links() for pair in pairs],
        tgt_lengths=lengths,
    )
    entropies = []
    for matrix, length in zip(weights, lengths, strict=True):
        rows = matrix[:length]
        entropies.append(
            attention_entropy(
                rows / rows.sum(dim=-1, keepdim=True).clamp_min(1e-12)
            )
        )
    return scores, torch.cat(entropies).mean().item()


def evaluate(
    translator: Translator,
    pairs: Sequence[SentencePair],
    *,
    beam_size: int = 1,
    with_alignment: bool = True,
) -> EvalResult:
    """Translate held-out ``pairs`` and score the translations (and, if
    possible, the attention).

    Args:
        translator: the trained model and its vocabularies (unknown tokens
            become ``<unk>`` and are counted).
        pairs: held-out pairs, disjoint from the training pairs.
        beam_size: 1 for greedy search, more for beam search.
        with_alignment: also compute the alignment accuracy when the model
            attends and the pairs carry true alignments.

    Raises:
        ValueError: there are no pairs.
    """
    if not pairs:
        raise ValueError("cannot evaluate on no pairs")
    hypotheses = translator.translate_pairs(pairs, beam_size=beam_size)
    alignment = scores = entropy = None
    if (
        with_alignment
        and translator.model.decoder.uses_attention
        and all(p.has_alignment for p in pairs)
    ):
        alignment = alignment_accuracy(translator, pairs)
        scores, entropy = attention_scores(translator, pairs)
    return EvalResult(
        score_translations(hypotheses, pairs),
        alignment,
        hypotheses,
        translator.n_unknown(pairs),
        scores,
        entropy,
    )


@torch.no_grad()
def error_by_position(
    translator: Translator,
    pairs: Sequence[SentencePair],
    batch_size: int = 256,
) -> list[float]:
    """The teacher-forced error rate at each target position:
    how often word ``i`` is mispredicted.

    Under teacher forcing the decoder reads the reference words before
    position ``i``, so an error at ``i`` is the model's own, not a
    consequence of an earlier mistake (as it would be in a greedy
    translation). A model whose summary forgets the end of a long sentence
    errs more at late positions.

    Args:
        translator: the model and its vocabularies.
        pairs: the pairs to score (the final ``<eos>`` is not counted).
        batch_size: pairs per forward pass.

    Returns:
        ``errors[i]``: the fraction of the pairs with a word at 0-based
        target position ``i`` whose prediction there is wrong,
        for ``i`` up to the longest target.

    Raises:
        ValueError: there are no pairs.
    """
    if not pairs:
        raise ValueError("cannot measure errors on no pairs")
    longest = max(len(p.target) for p in pairs)
    wrong, count = torch.zeros(longest), torch.zeros(longest)
    model = translator.model
    with evaluating(model):
        for batch in translator.batches(pairs, batch_size):
            logits, _ = model(batch.src, batch.src_mask, batch.tgt_in)
            words = torch.tensor(
                [len(pairs[k].target) for k in batch.indices],
                device=logits.device,
            )
            positions = torch.arange(logits.size(1), device=logits.device)
            # (batch, tgt_len): a word, not <eos> or padding
            real = positions < words[:, None]
            errors = (logits.argmax(dim=-1) != batch.tgt_out) & real
            n = min(logits.size(1), longest)
            wrong[:n] += errors.sum(dim=0)[:n].cpu()
            count[:n] += real.sum(dim=0)[:n].cpu()
    return (wrong / count).tolist()
