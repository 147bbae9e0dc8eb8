"""Scores of translations against references: exact match, token accuracy, BLEU and chrF.

:func:`score_translations` returns a :class:`TranslationMetrics`. BLEU (Papineni et al., 2002) and chrF
(Popović, 2015) come from ``sacrebleu``, imported when first needed.

>>> from attnbook.nmt.data import SentencePair
>>> from attnbook.nmt.metrics import score_translations
>>> pairs = [SentencePair(("the", "cat"), ("le", "chat")), SentencePair(("a", "dog"), ("un", "chien"))]
>>> metrics = score_translations([["le", "chat"], ["un", "chat"]], pairs)
>>> metrics.exact_match, metrics.token_accuracy, metrics.count_by_length
(0.5, 0.75, {'1-8': 2})
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from attnbook.nmt.data import SentencePair, length_bucket


@dataclass(frozen=True)
class TranslationMetrics:
    """How close translations are to their references.

    Attributes:
        exact_match: the fraction of sentences translated exactly right.
        token_accuracy: the fraction of positions where the translation has the reference token, over
            the longer of the two (so a missing or extra word counts against it).
        bleu: corpus BLEU from ``sacrebleu`` (0-100).
        chrf: corpus chrF from ``sacrebleu`` (0-100): character n-grams, kinder to a near miss.
        exact_match_by_length: exact match per source-length bucket (see
            :func:`~attnbook.nmt.data.length_bucket`), shortest first.
        count_by_length: the number of sentences in each bucket.
        token_accuracy_by_length: token accuracy per source-length bucket. Exact match falls with
            length even at a constant per-token accuracy p (about p**T for T target words); this does not.
        bleu_by_length: corpus BLEU of each source-length bucket's sentences.
    """

    exact_match: float
    token_accuracy: float
    bleu: float
    chrf: float
    exact_match_by_length: dict[str, float]
    count_by_length: dict[str, int]
    token_accuracy_by_length: dict[str, float]
    bleu_by_length: dict[str, float]

    def to_dict(self) -> dict[str, Any]:
        """The metrics as plain values, for JSON."""
        return asdict(self)


def score_translations(
    hypotheses: Sequence[Sequence[str]], pairs: Sequence[SentencePair]
) -> TranslationMetrics:
    """Score translations (one list of tokens per pair) against the pairs' references.

    Raises:
        ValueError: the numbers of translations and pairs differ, or there are none.
    """
    if len(hypotheses) != len(pairs):
        raise ValueError(f"got {len(hypotheses)} hypotheses for {len(pairs)} pairs")
    if not pairs:
        raise ValueError("cannot score no translations")
    import sacrebleu  # imported here: `import attnbook` stays light

    references = [list(p.target) for p in pairs]
    exact = [list(h) == r for h, r in zip(hypotheses, references, strict=True)]
    by_length: dict[str, list[int]] = defaultdict(list)
    for k, pair in enumerate(pairs):
        by_length[length_bucket(len(pair.source))].append(k)
    buckets = sorted(by_length, key=lambda name: int(name.split("-")[0].rstrip("+")))

    def token_accuracy(indices: Sequence[int]) -> float:
        right = sum(sum(a == b for a, b in zip(hypotheses[k], references[k], strict=False)) for k in indices)
        return right / max(sum(max(len(hypotheses[k]), len(references[k])) for k in indices), 1)

    def bleu(indices: Sequence[int], metric: Any = sacrebleu.corpus_bleu) -> float:
        joined = [" ".join(hypotheses[k]) for k in indices]
        return metric(joined, [[" ".join(references[k]) for k in indices]]).score

    everything = range(len(pairs))
    return TranslationMetrics(
        exact_match=sum(exact) / len(exact),
        token_accuracy=token_accuracy(everything),
        bleu=bleu(everything),
        chrf=bleu(everything, sacrebleu.corpus_chrf),
        exact_match_by_length={b: sum(exact[k] for k in by_length[b]) / len(by_length[b]) for b in buckets},
        count_by_length={b: len(by_length[b]) for b in buckets},
        token_accuracy_by_length={b: token_accuracy(by_length[b]) for b in buckets},
        bleu_by_length={b: bleu(by_length[b]) for b in buckets},
    )
