"""Scores of translations against references:
exact match, token accuracy, BLEU and chrF.

:func:`score_translations` returns a :class:`TranslationMetrics`;
:func:`score_texts` scores detokenised text against several references per
sentence and says what each BLEU is (sacreBLEU's signature).
BLEU (Papineni et al., 2002) and chrF (Popović, 2015) come from
``sacrebleu``, imported when first needed.

>>> from attnbook.nmt.data import SentencePair
>>> from attnbook.nmt.metrics import score_translations
>>> pairs = [
...     SentencePair(("the", "cat"), ("le", "chat")),
...     SentencePair(("a", "dog"), ("un", "chien")),
... ]
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
        token_accuracy: the fraction of positions where the translation has
            the reference token, over the longer of the two (so a missing
            or extra word counts against it).
        bleu: corpus BLEU from ``sacrebleu`` (0-100).
        chrf: corpus chrF from ``sacrebleu`` (0-100):
            character n-grams, kinder to a near miss.
        exact_match_by_length: exact match per source-length bucket (see
            :func:`~attnbook.nmt.data.length_bucket`), shortest first.
        count_by_length: the number of sentences in each bucket.
        token_accuracy_by_length: token accuracy per source-length bucket.
            Exact match falls with length even at a constant per-token
            accuracy p (about p**T for T target words); this does not.
        bleu_by_length: corpus BLEU of each source-length
            bucket's sentences.
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
    """Score translations (one list of tokens per pair) against the
    pairs' references.

    Raises:
        ValueError: the numbers of translations and pairs differ,
            or there are none.
    """
    if len(hypotheses) != len(pairs):
        raise ValueError(
            f"got {len(hypotheses)} hypotheses for {len(pairs)} pairs"
        )
    if not pairs:
        raise ValueError("cannot score no translations")
    import sacrebleu  # imported here: `import attnbook` stays light

    references = [list(p.target) for p in pairs]
    exact = [
        list(h) == r for h, r in zip(hypotheses, references, strict=True)
    ]
    by_length: dict[str, list[int]] = defaultdict(list)
    for k, pair in enumerate(pairs):
        by_length[length_bucket(len(pair.source))].append(k)
    buckets = sorted(
        by_length, key=lambda name: int(name.split("-")[0].rstrip("+"))
    )

    def token_accuracy(indices: Sequence[int]) -> float:
        right = sum(
            sum(
                a == b
                for a, b in zip(hypotheses[k], references[k], strict=False)
            )
            for k in indices
        )
        return right / max(
            sum(
                max(len(hypotheses[k]), len(references[k]))
                for k in indices
            ),
            1,
        )

    def bleu(
        indices: Sequence[int], metric: Any = sacrebleu.corpus_bleu
    ) -> float:
        joined = [" ".join(hypotheses[k]) for k in indices]
        return metric(
            joined, [[" ".join(references[k]) for k in indices]]
        ).score

    everything = range(len(pairs))
    return TranslationMetrics(
        exact_match=sum(exact) / len(exact),
        token_accuracy=token_accuracy(everything),
        bleu=bleu(everything),
        chrf=bleu(everything, sacrebleu.corpus_chrf),
        exact_match_by_length={
            b: sum(exact[k] for k in by_length[b]) / len(by_length[b])
            for b in buckets
        },
        count_by_length={b: len(by_length[b]) for b in buckets},
        token_accuracy_by_length={
            b: token_accuracy(by_length[b]) for b in buckets
        },
        bleu_by_length={b: bleu(by_length[b]) for b in buckets},
    )


def _is_cased(texts: Sequence[str]) -> bool:
    return any(ch != ch.lower() for text in texts for ch in text)


def score_texts(
    hypotheses: Sequence[str],
    references: Sequence[Sequence[str]],
    *,
    lowercase: bool = False,
) -> dict[str, Any]:
    """Corpus BLEU and chrF of detokenised translations, each scored
    against all its references.

    The scores a reader can place beside published ones:
    ``sacrebleu``'s BLEU (``13a`` tokenisation, exponential smoothing)
    with every reference of each sentence, the same BLEU with only the
    first reference of each sentence (what a test set with one translation
    per sentence would give), chrF, and ``sacrebleu``'s signature,
    which names the settings a BLEU depends on (number of references,
    case, tokenisation, smoothing, version).
    Two BLEU figures are comparable only when their signatures and their
    test sentences match.

    Args:
        hypotheses: one detokenised translation per sentence.
        references: for each sentence, one or more detokenised reference
            translations (the first one is the reference of
            ``bleu_single``).
        lowercase: lower-case translations and references before scoring
            (sacreBLEU's ``-lc``).

    Returns:
        ``{"bleu", "bleu_single", "chrf", "bleu_signature",
        "bleu_single_signature", "chrf_signature", "cased", "n_sentences",
        "n_references"}``: the scores are 0-100;
        ``cased`` is true when the scores tell upper from lower case,
        i.e. ``lowercase`` is false and the references contain upper case
        (a lower-cased corpus scored as it is gives an uncased score
        whatever the signature says); ``n_references`` is the largest
        number of references of one sentence.

    Raises:
        ValueError: the two lists differ in length, they are empty,
            or a sentence has no reference.

    >>> scores = score_texts(
    ...     ["J'ai froid.", "Il pleut."],
    ...     [["J'ai froid.", "Je suis gelé."], ["Il pleut !"]],
    ... )
    >>> round(scores["chrf"], 1), scores["cased"], scores["n_references"]
    (91.7, True, 2)
    >>> scores["bleu_signature"].split("|")[:2]
    ['nrefs:var', 'case:mixed']
    """
    if len(hypotheses) != len(references):
        raise ValueError(
            f"got {len(hypotheses)} hypotheses for {len(references)} "
            "sentences"
        )
    if not hypotheses:
        raise ValueError("cannot score no sentences")
    if any(len(r) == 0 for r in references):
        raise ValueError(
            "every sentence needs at least one reference translation"
        )
    # imported here: `import attnbook` stays light
    from sacrebleu.metrics.bleu import BLEU
    from sacrebleu.metrics.chrf import CHRF

    depth = max(len(r) for r in references)
    # sacrebleu takes one stream per reference position;
    # None where a sentence has fewer references (sacrebleu reads None as
    # a missing reference, which its type hints do not say)
    streams: Any = [
        [r[k] if k < len(r) else None for r in references]
        for k in range(depth)
    ]
    hypotheses = list(hypotheses)
    bleu, bleu_single, chrf = (
        BLEU(lowercase=lowercase),
        BLEU(lowercase=lowercase),
        CHRF(lowercase=lowercase),
    )
    multi = bleu.corpus_score(hypotheses, streams)
    single = bleu_single.corpus_score(
        hypotheses, [[r[0] for r in references]]
    )
    char = chrf.corpus_score(hypotheses, streams)
    return {
        "bleu": multi.score,
        "bleu_single": single.score,
        "chrf": char.score,
        "bleu_signature": str(bleu.get_signature()),
        "bleu_single_signature": str(bleu_single.get_signature()),
        "chrf_signature": str(chrf.get_signature()),
        "cased": not lowercase
        and _is_cased([r for refs in references for r in refs]),
        "n_sentences": len(hypotheses),
        "n_references": depth,
    }
