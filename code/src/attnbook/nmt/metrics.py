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

from attnbook.nmt.data import UNK, SentencePair, length_bucket
from attnbook.nmt.text import detokenize_french


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


# -------------------------------------------------------------------------
# Tokenised French against several references

UNK_SCORED = "UNK"
"""How a ``<unk>`` is written for scoring: one upper-case token,
which no lower-cased reference contains (``sacrebleu``'s tokeniser would
split ``<unk>`` into three tokens and lengthen the translation)."""


def scored_text(tokens: Sequence[str]) -> str:
    """A tokenised translation as the scores read it: joined into text
    (:func:`~attnbook.nmt.text.detokenize_french`), each ``<unk>`` written
    :data:`UNK_SCORED`.

    >>> scored_text(["<unk>", "dort", "."])
    'UNK dort.'
    """
    return detokenize_french(
        [UNK_SCORED if t == UNK else t for t in tokens]
    )


@dataclass(frozen=True)
class MultiReferenceScore:
    """Scores of translations against every reference translation of
    each sentence.

    Attributes:
        bleu: corpus BLEU with every reference of each sentence,
            0-100 (``sacrebleu``, detokenised text, ``13a`` tokenisation).
        chrf: corpus chrF, 0-100 (``sacrebleu``; character n-grams,
            so it gives credit for a word that is almost right,
            e.g. the wrong gender ending).
        exact_match: the fraction of sentences whose translation equals one
            of their references.
        n_sentences: the number of (distinct English) sentences scored.
        bleu_single: corpus BLEU with only the first reference of each
            sentence, as a test set with one translation per sentence would
            score it.
        bleu_signature: ``sacrebleu``'s signature of ``bleu`` (references,
            case, tokenisation, smoothing, version).
        cased: whether the scores tell upper from lower case (false for
            lower-cased text).
    """

    bleu: float
    chrf: float
    exact_match: float
    n_sentences: int
    bleu_single: float
    bleu_signature: str
    cased: bool

    def describe(self) -> str:
        """The BLEU with what it is: ``"BLEU 37.5 (multi-reference,
        uncased; nrefs:var|case:mixed|...)"``."""
        case = "cased" if self.cased else "uncased"
        return (
            f"BLEU {self.bleu:.1f} (multi-reference, {case}; "
            f"{self.bleu_signature}), "
            f"BLEU {self.bleu_single:.1f} (first reference only), chrF "
            f"{self.chrf:.1f}"
        )


def score_against_references(
    hypotheses: Sequence[Sequence[str]],
    references: Sequence[Sequence[Sequence[str]]],
) -> MultiReferenceScore:
    """Score tokenised translations against all the reference translations
    of each sentence.

    The tokens are joined back into text (:func:`detokenize_french`)
    and scored by :func:`score_texts`.
    A ``<unk>`` in a translation is scored as one token that matches
    nothing (:data:`UNK_SCORED`).

    Args:
        hypotheses: one tokenised translation per sentence.
        references: for each sentence, one or more tokenised
            reference translations.

    Raises:
        ValueError: the two lists differ in length, they are empty,
            or a sentence has no reference (:func:`score_texts` checks).
    """
    scores = score_texts(
        [scored_text(h) for h in hypotheses],
        [[detokenize_french(r) for r in refs] for refs in references],
    )
    exact = sum(
        tuple(h) in {tuple(r) for r in refs}
        for h, refs in zip(hypotheses, references, strict=True)
    )
    return MultiReferenceScore(
        bleu=scores["bleu"],
        chrf=scores["chrf"],
        exact_match=exact / len(hypotheses),
        n_sentences=len(hypotheses),
        bleu_single=scores["bleu_single"],
        bleu_signature=scores["bleu_signature"],
        cased=scores["cased"],
    )


@dataclass(frozen=True)
class PairedBootstrap:
    """Two systems' corpus scores compared by ``sacrebleu``'s paired
    bootstrap resampling (Koehn, 2004).

    Attributes:
        metric: ``"BLEU"`` or ``"chrF"``.
        baseline, system: the two corpus scores on all the test
            sentences, 0-100.
        baseline_ci, system_ci: half-widths of the 95% intervals of the
            resampled scores.
        p_value: the chance of a difference at least this large if the two
            systems were equally good, estimated from ``n_samples``
            resamples of the test sentences (the same sentences for both).
        n_samples: the number of resamples.
    """

    metric: str
    baseline: float
    system: float
    baseline_ci: float
    system_ci: float
    p_value: float
    n_samples: int


def paired_bootstrap(
    baseline: Sequence[Sequence[str]],
    system: Sequence[Sequence[str]],
    references: Sequence[Sequence[Sequence[str]]],
    n_samples: int = 1000,
) -> dict[str, PairedBootstrap]:
    """Compare two systems' translations of the same sentences with a
    paired bootstrap, BLEU and chrF.

    The text is prepared as in :func:`score_against_references`
    (detokenised, every reference kept). ``sacrebleu`` draws ``n_samples``
    resamples of the test sentences with its fixed seed (the environment
    variable ``SACREBLEU_SEED``, 12345 unless set), so the result repeats.

    Args:
        baseline, system: one tokenised translation per sentence from
            each system.
        references: for each sentence, one or more tokenised
            reference translations.

    Returns:
        ``{"BLEU": ..., "chrF": ...}``.

    Raises:
        ValueError: the lists differ in length, they are empty,
            a sentence has no reference, or ``n_samples`` is not positive.
    """
    if not len(baseline) == len(system) == len(references):
        raise ValueError(
            f"got {len(baseline)} baseline and {len(system)} system "
            f"translations for {len(references)} sentences"
        )
    if not references:
        raise ValueError("cannot compare on no sentences")
    if any(len(r) == 0 for r in references):
        raise ValueError(
            "every sentence needs at least one reference translation"
        )
    if n_samples < 1:
        raise ValueError(f"n_samples must be positive, got {n_samples}")
    from sacrebleu.metrics.bleu import BLEU
    from sacrebleu.metrics.chrf import CHRF
    from sacrebleu.significance import PairedTest

    depth = max(len(r) for r in references)
    # one stream per reference position, None where a sentence has fewer
    # (as in score_against_references)
    streams: Any = [
        [
            detokenize_french(r[k]) if k < len(r) else None
            for r in references
        ]
        for k in range(depth)
    ]
    test = PairedTest(
        [
            ("baseline", [scored_text(h) for h in baseline]),
            ("system", [scored_text(h) for h in system]),
        ],
        {
            "BLEU": BLEU(references=streams),
            "chrF": CHRF(references=streams),
        },
        references=None,
        test_type="bs",
        n_samples=n_samples,
    )
    _, results = test()
    named = {
        "BLEU": results["BLEU"],
        "chrF": results["chrF2"],
    }  # sacrebleu names chrF by its beta
    return {
        name: _compared(name, result, n_samples)
        for name, result in named.items()
    }


def _compared(
    name: str, result: Sequence[Any], n_samples: int
) -> PairedBootstrap:
    """A :class:`PairedBootstrap` from sacrebleu's two results (baseline,
    system) of one metric."""
    from sacrebleu.significance import Result

    baseline, system = result
    if not (isinstance(baseline, Result) and isinstance(system, Result)):
        raise TypeError(f"sacrebleu gave no {name} scores to compare")
    if baseline.ci is None or system.ci is None or system.p_value is None:
        raise TypeError(f"sacrebleu's {name} bootstrap gave no interval")
    return PairedBootstrap(
        metric=name,
        baseline=float(baseline.score),
        system=float(system.score),
        baseline_ci=float(baseline.ci),
        system_ci=float(system.ci),
        p_value=float(system.p_value),
        n_samples=n_samples,
    )
