"""Training and scoring on real sentence pairs, where one English sentence
has several correct translations.

A real corpus differs from the toy grammar in three ways that change how a
model must be evaluated:

- **The same English sentence comes back with other French translations**
  (*I'm cold.* is *J'ai froid.* and *Je suis gelé.*).
  A split by pair would put one translation in training and another in the
  test, so the test would reward memorising the English.
  :func:`split_by_english` splits by English sentence.
- **Every translation of a held-out sentence is a correct answer.**
  :func:`score_against_references` scores with all of them as
  references (``sacrebleu``'s multi-reference BLEU and chrF),
  on detokenised text (:func:`detokenize_french`) with ``sacrebleu``'s
  default ``13a`` tokenisation.
- **Some words are rare or unknown.** A vocabulary of the words seen at
  least twice maps the rest to ``<unk>``, so the model learns to write
  ``<unk>`` where it meets one; :func:`replace_unknown` then copies the
  source word the attention points at (after Luong et al., 2015,
  and Jean et al., 2015).

:func:`run_real_experiment` runs the whole pipeline (split, vocabularies,
model, training, scoring); the command line's ``train --corpus`` uses it.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Hashable, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any, NamedTuple

import torch
from torch import Tensor

from attnbook.core.config import check_fields
from attnbook.core.runtime import get_device
from attnbook.nmt.data import SentencePair, Vocab
from attnbook.nmt.metrics import score_texts
from attnbook.nmt.seq2seq import ModelConfig
from attnbook.nmt.training import TrainConfig, TrainResult, train
from attnbook.nmt.transformer import TransformerSizes
from attnbook.nmt.translator import Translator
from attnbook.studies.experiment import (
    MODEL_KIND_NAMES,
    attention_name,
    build_translator,
    run_settings,
)

UNK = "<unk>"
UNK_SCORED = "UNK"
"""How a ``<unk>`` is written for scoring: one upper-case token,
which no lower-cased reference contains (``sacrebleu``'s tokeniser would
split ``<unk>`` into three tokens and lengthen the translation)."""


# -------------------------------------------------------------------------
# Splitting by English sentence


@dataclass(frozen=True)
class EnglishSplit:
    """Training, validation and test pairs such that no English sentence is
    in two of them.

    Attributes:
        train, val, test: the pairs; every translation of an English
            sentence is in the same split.
    """

    train: list[SentencePair]
    val: list[SentencePair]
    test: list[SentencePair]

    def sources(self, name: str) -> set[tuple[str, ...]]:
        """The distinct English sentences of the split ``name``
        (``"train"``, ``"val"`` or ``"test"``)."""
        return {p.source for p in getattr(self, name)}


def split_by_english(
    pairs: Sequence[SentencePair],
    *,
    test_fraction: float = 0.1,
    val_fraction: float = 0.05,
    seed: int = 0,
    key: Callable[[SentencePair], Hashable] | None = None,
) -> EnglishSplit:
    """Split ``pairs`` by English sentence: all translations of one
    sentence land in the same split.

    The distinct English sentences are shuffled with ``seed`` and cut into
    test, validation and training shares; each pair follows its sentence.
    The fractions count English sentences, not pairs.

    Args:
        pairs: the corpus.
        test_fraction, val_fraction: the shares of English sentences held
            out for testing and validation.
        seed: the seed of the shuffle.
        key: what counts as the same English sentence (default: the source
            tokens). Cased pairs split with ``key=lowered_source`` land
            where their lower-cased pairs would.

    Raises:
        ValueError: a fraction is outside ``[0, 1)``, they add up to 1 or
            more, or there are too few distinct English sentences to give
            every split at least one.
    """
    for name, value in (
        ("test_fraction", test_fraction),
        ("val_fraction", val_fraction),
    ):
        if not 0.0 <= value < 1.0:
            raise ValueError(f"{name} must be in [0, 1), got {value}")
    if test_fraction + val_fraction >= 1.0:
        raise ValueError(
            "test_fraction + val_fraction must be below 1, got "
            f"{test_fraction + val_fraction}"
        )
    key = key or _source
    # distinct, in first-seen order
    english = list(dict.fromkeys(key(p) for p in pairs))
    random.Random(seed).shuffle(english)
    n_test = (
        max(1, round(test_fraction * len(english))) if test_fraction else 0
    )
    n_val = (
        max(1, round(val_fraction * len(english))) if val_fraction else 0
    )
    if len(english) - n_test - n_val < 1:
        raise ValueError(
            f"the corpus has {len(english)} distinct English sentence(s): "
            "too few to hold out "
            f"{n_test} for testing and {n_val} for validation and still "
            "train on one"
        )
    where = {s: "test" for s in english[:n_test]}
    where.update({s: "val" for s in english[n_test : n_test + n_val]})
    parts: dict[str, list[SentencePair]] = {
        "train": [],
        "val": [],
        "test": [],
    }
    for pair in pairs:
        parts[where.get(key(pair), "train")].append(pair)
    return EnglishSplit(**parts)


def _source(pair: SentencePair) -> tuple[str, ...]:
    return pair.source


def lowered_source(pair: SentencePair) -> tuple[str, ...]:
    """The source tokens of ``pair``, lower-cased:
    the English sentence as the word-level loader reads it.

    >>> lowered_source(
    ...     SentencePair(
    ...         ("Tom", "left", "."), ("Tom", "est", "parti", ".")
    ...     )
    ... )
    ('tom', 'left', '.')
    """
    return tuple(token.lower() for token in pair.source)


def group_references(
    pairs: Sequence[SentencePair],
) -> tuple[list[tuple[str, ...]], list[list[tuple[str, ...]]]]:
    """The distinct English sentences of ``pairs`` (first-seen order)
    and, for each, all its translations.

    >>> pairs = [
    ...     SentencePair(("hi", "."), ("salut", ".")),
    ...     SentencePair(("hi", "."), ("bonjour", ".")),
    ... ]
    >>> group_references(pairs)
    ([('hi', '.')], [[('salut', '.'), ('bonjour', '.')]])
    """
    grouped: dict[tuple[str, ...], list[tuple[str, ...]]] = {}
    for pair in pairs:
        references = grouped.setdefault(pair.source, [])
        if pair.target not in references:
            references.append(pair.target)
    return list(grouped), list(grouped.values())


# -------------------------------------------------------------------------
# Scoring against several references

_SPACE_BEFORE = re.compile(r" ([.,)])")
_SPACE_AFTER = re.compile(r"([(']) ")
_HYPHEN = re.compile(r" - ")


def detokenize_french(tokens: Sequence[str]) -> str:
    """Join the loader's French tokens back into text:
    ``["j'", "ai", "froid", "."]`` -> ``"j'ai froid."``.

    Elided words are glued to the next word, ``.`` and ``,`` to the
    previous one, and a hyphen to both of its neighbours (the loader splits
    *allons-nous* into three tokens; the shipped French has no dash between
    spaces, so every ``-`` token was inside a word);
    ``!``, ``?``, ``:`` and ``;`` keep the space French typography puts
    before them. The text stays lower-cased, as the loader made it.

    >>> detokenize_french(["j'", "ai", "froid", "."])
    "j'ai froid."
    >>> detokenize_french(["allons", "-", "nous", "y", "?"])
    'allons-nous y ?'
    >>> detokenize_french(
    ...     [
    ...         "qu'",
    ...         "est",
    ...         "-",
    ...         "ce",
    ...         "qu'",
    ...         "il",
    ...         "a",
    ...         "-",
    ...         "t",
    ...         "-",
    ...         "il",
    ...         "?",
    ...     ]
    ... )
    "qu'est-ce qu'il a-t-il ?"
    """
    joined = _HYPHEN.sub("-", " ".join(tokens))
    return _SPACE_AFTER.sub(r"\1", _SPACE_BEFORE.sub(r"\1", joined))


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
    and scored by :func:`~attnbook.nmt.metrics.score_texts`.
    A ``<unk>`` in a translation is scored as one token that matches
    nothing (:data:`UNK_SCORED`).

    Args:
        hypotheses: one tokenised translation per sentence.
        references: for each sentence, one or more tokenised
            reference translations.

    Raises:
        ValueError: the two lists differ in length, they are empty,
            or a sentence has no reference.
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
    texts = [
        detokenize_french([UNK_SCORED if t == UNK else t for t in h])
        for h in hypotheses
    ]
    scores = score_texts(
        texts,
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
    from sacrebleu.metrics import BLEU, CHRF
    from sacrebleu.significance import PairedTest

    def texts(hypotheses: Sequence[Sequence[str]]) -> list[str]:
        return [
            detokenize_french([UNK_SCORED if t == UNK else t for t in h])
            for h in hypotheses
        ]

    depth = max(len(r) for r in references)
    streams = [
        [
            detokenize_french(r[k]) if k < len(r) else None
            for r in references
        ]
        for k in range(depth)
    ]
    test = PairedTest(
        [("baseline", texts(baseline)), ("system", texts(system))],
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
        name: PairedBootstrap(
            metric=name,
            baseline=float(result[0].score),
            system=float(result[1].score),
            baseline_ci=float(result[0].ci),
            system_ci=float(result[1].ci),
            p_value=float(result[1].p_value),
            n_samples=n_samples,
        )
        for name, result in named.items()
    }


# -------------------------------------------------------------------------
# Translating, and replacing <unk> through attention


def replace_unknown(
    target: Sequence[str], source: Sequence[str], weights: Tensor | None
) -> list[str]:
    """Replace each ``<unk>`` of a translation by the source word its
    attention weighs most.

    The *copy* form of unknown-word replacement (Luong et al.,
    2015; Jean et al., 2015): where the model writes ``<unk>``,
    look at the row of attention weights that produced it and copy the
    source word with the largest weight. It helps when the word translates
    as itself (names, numbers) and fails otherwise;
    the source ``<eos>`` column is never copied.

    Args:
        target: the translation's tokens.
        source: the source tokens as given (unknown words as the user wrote
            them, not ``<unk>``).
        weights: ``(>= len(target), len(source) + 1)`` attention weights,
            one row per target token; ``None`` (a model without attention)
            leaves the translation unchanged.

    Shape:
        - weights: rows for the target tokens, columns for the source
          tokens and ``<eos>``.
    """
    if weights is None or UNK not in target:
        return list(target)
    if weights.size(0) < len(target) or weights.size(1) < len(source):
        raise ValueError(
            f"weights must have at least ({len(target)}, {len(source)}) "
            "entries for this pair, "
            f"got {tuple(weights.shape)}"
        )
    copied = weights[: len(target), : len(source)].argmax(dim=-1).tolist()
    return [
        source[copied[i]] if token == UNK else token
        for i, token in enumerate(target)
    ]


@dataclass(frozen=True)
class RealEvaluation:
    """A model's translations of held-out English sentences, scored against
    all their references.

    Attributes:
        score: BLEU, chrF and exact match of the raw translations.
        score_replaced: the same after :func:`replace_unknown` (equal to
            ``score`` without attention).
        sources: the distinct English sentences, in order.
        references: all the French translations of each.
        hypotheses: the model's translations (``<unk>`` where it
            wrote one).
        replaced: the translations after unknown-word replacement.
        weights: each translation's attention weights, ``(len(hypothesis) +
            finished, len(source) + 1)`` (rows: the French tokens written
            and ``<eos>``; columns: the English tokens and ``<eos>``),
            or ``None`` for a model without attention.
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
        }


def evaluate_real(
    translator: Translator,
    pairs: Sequence[SentencePair],
    *,
    beam_size: int = 1,
) -> RealEvaluation:
    """Translate each distinct English sentence of ``pairs`` once and score
    it against all its translations.

    Decoding goes through
    :meth:`~attnbook.nmt.translator.Translator.decode_pairs` (greedy, or
    beam search), which keeps each translation's attention weights for
    :func:`replace_unknown`.

    Args:
        translator: the trained model and its vocabularies (unknown source
            words are read as ``<unk>``).
        pairs: held-out pairs (no English sentence of them seen
            in training).
        beam_size: 1 for greedy search, more for beam search.

    Raises:
        ValueError: ``pairs`` is empty.
    """
    if not pairs:
        raise ValueError("cannot evaluate on no pairs")
    sources, references = group_references(pairs)
    first: dict[
        tuple[str, ...], SentencePair
        # one pair per English sentence: the sentence is translated once
    ] = {}
    for pair in pairs:
        first.setdefault(pair.source, pair)
    decoded = translator.decode_pairs(
        [first[s] for s in sources], beam_size=beam_size
    )
    hypotheses = [translator.tgt_vocab.decode(h.ids) for h in decoded]
    replaced = [
        replace_unknown(h, s, d.weights)
        for h, s, d in zip(hypotheses, sources, decoded, strict=True)
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
            len(translator.src_vocab.unknown(s)) for s in sources
        ),
        n_unk_written=sum(h.count(UNK) for h in hypotheses),
    )


# -------------------------------------------------------------------------
# The whole pipeline


@dataclass(frozen=True)
class RealDataConfig:
    """The data of a run on real pairs: how the corpus is split and which
    words the model knows.

    Attributes:
        min_count: words seen fewer times than this in the training pairs
            become <unk> (2 leaves the model <unk> tokens to learn from,
            which unknown-word replacement needs).
        test_fraction, val_fraction, split_seed:
            see :func:`split_by_english`.
        max_src_len: the longest English sentence, in tokens, the model
            accepts (raised to the corpus's longest if that is longer).
        subwords: 0 for a vocabulary of whole words;
            else the number of subword units learnt for each language,
            on the cased training sentences
            (:func:`~attnbook.studies.pieces.run_pieces_experiment`).
    """

    min_count: int = field(default=2, metadata={"minimum": 1})
    test_fraction: float = field(default=0.1, metadata={"minimum": 0.0})
    val_fraction: float = field(default=0.05, metadata={"minimum": 0.0})
    split_seed: int = 0
    max_src_len: int = field(default=25, metadata={"minimum": 1})
    subwords: int = field(default=0, metadata={"minimum": 0})

    def __post_init__(self) -> None:
        check_fields(self)


class PreparedData(NamedTuple):
    """A corpus split by English sentence, and the vocabularies of its
    training split (what :func:`prepare_real_data` returns)."""

    split: EnglishSplit
    src_vocab: Vocab
    tgt_vocab: Vocab
    longest: int
    """The longest English sentence the model must read: ``max_src_len``,
    or the corpus's longest if that is longer."""


def prepare_real_data(
    pairs: Sequence[SentencePair], data: RealDataConfig
) -> PreparedData:
    """Split ``pairs`` by English sentence and build both vocabularies
    from the training split alone, as every run on real pairs does.

    >>> pairs = [
    ...     SentencePair(("hi", "."), ("salut", ".")),
    ...     SentencePair(("go", "."), ("va", ".")),
    ... ] * 10 + [SentencePair(("run", "."), ("cours", "."))]
    >>> prepared = prepare_real_data(pairs, RealDataConfig(split_seed=1))
    >>> len(prepared.split.train) + len(prepared.split.val) + len(
    ...     prepared.split.test
    ... ) == len(pairs)
    True
    """
    split = split_by_english(
        pairs,
        test_fraction=data.test_fraction,
        val_fraction=data.val_fraction,
        seed=data.split_seed,
    )
    src_vocab = Vocab.build(
        (p.source for p in split.train), min_count=data.min_count
    )
    tgt_vocab = Vocab.build(
        (p.target for p in split.train), min_count=data.min_count
    )
    longest = max(data.max_src_len, *(len(p.source) for p in pairs))
    return PreparedData(split, src_vocab, tgt_vocab, longest)


def _real_training() -> TrainConfig:
    return TrainConfig(
        max_epochs=5,
        batch_size=128,
        lr=5e-3,
        lr_decay=True,
        eval_every=100,
        patience=10,
        keep_best=False,
    )


@dataclass(frozen=True)
class RealConfig:
    """The configuration of a run on real pairs (``python -m attnbook train
    --corpus tatoeba``).

    It nests the same model configuration as every run
    (:class:`~attnbook.nmt.seq2seq.ModelConfig`, or the Transformer's
    sizes), with defaults of its own.

    Attributes:
        data: the split and the vocabularies.
        model: the recurrent model's choices and sizes (embeddings of
            96 here).
        train: the training settings; training is sized in epochs (steps),
            never in seconds. The default trains 5 epochs (605 steps on the
            shipped pairs) while the learning rate falls linearly from lr
            to zero, and keeps the weights of the end of that schedule:
            a patience of 10 validations (1,000 steps) is longer than the
            run, so early stopping does not cut the schedule short.
        beam_size: the beam used to translate the held-out sentences (1:
            greedy search).
        model_kind: which model to train, seq2seq or transformer.
        transformer: the Transformer's sizes (used when model_kind
            is transformer).
    """

    data: RealDataConfig = field(default_factory=RealDataConfig)
    model: ModelConfig = field(
        default_factory=lambda: ModelConfig(emb_dim=96)
    )
    train: TrainConfig = field(default_factory=_real_training)
    beam_size: int = field(
        default=4, metadata={"minimum": 1, "flag": "--beam"}
    )
    model_kind: str = field(
        default="seq2seq",
        metadata={"choices": MODEL_KIND_NAMES, "flag": "--model"},
    )
    transformer: TransformerSizes = field(default_factory=TransformerSizes)

    def __post_init__(self) -> None:
        check_fields(self)

    def to_dict(self) -> dict[str, Any]:
        """The configuration as plain values, for JSON
        (:meth:`from_dict` reads them back)."""
        return asdict(self)

    @classmethod
    def from_dict(
        cls, values: dict[str, Any], model_key: str = "model"
    ) -> RealConfig:
        """A configuration read back from plain values.

        Args:
            values: :meth:`to_dict`'s values, or a record's.
            model_key: the key of the recurrent model's sizes (a
                comparison of models keeps them under ``"seq2seq"``).
                Values without ``model_kind`` keep the default.

        >>> config = RealConfig(beam_size=1, model_kind="transformer")
        >>> RealConfig.from_dict(config.to_dict()) == config
        True
        """
        config = cls(
            data=RealDataConfig(**values["data"]),
            model=ModelConfig(**values[model_key]),
            train=TrainConfig(**values["train"]),
            beam_size=values["beam_size"],
            transformer=TransformerSizes(**values["transformer"]),
        )
        if "model_kind" in values:
            config = replace(config, model_kind=values["model_kind"])
        return config


@dataclass(frozen=True, eq=False)
class RealExperiment:
    """Everything :func:`run_real_experiment` built and measured."""

    config: RealConfig
    split: EnglishSplit
    translator: Translator
    training: TrainResult
    evaluation: RealEvaluation
    device: torch.device

    def to_dict(self) -> dict[str, Any]:
        """The headline numbers as plain values (the command
        line's JSON)."""
        return {
            "attention": attention_name(self.config),
            "device": str(self.device),
            **self.evaluation.to_dict(),
            "train_seconds": self.training.seconds,
            "train_steps": self.training.steps,
            "best_step": self.training.best_step,
            "n_train": len(self.split.train),
            "n_val": len(self.split.val),
            "n_test": len(self.split.test),
            "config": {
                **run_settings(self.config),
                "beam_size": self.config.beam_size,
            },
            "train_config": self.config.train.to_dict(),
        }


def train_real_start(
    pairs: Sequence[SentencePair], config: RealConfig, steps: int
) -> TrainResult:
    """The first ``steps`` optimiser steps of the run ``config`` on
    ``pairs``, on the CPU.

    The split, the vocabularies, the first weights, the batch order and
    the learning-rate schedule (planned over the whole run) are the whole
    run's, so the training losses logged in those steps are the ones the
    whole run logged (up to another CPU's rounding): what a page compares
    with a recorded run.
    """
    split, src_vocab, tgt_vocab, longest = prepare_real_data(
        pairs, config.data
    )
    translator = build_translator(
        config, src_vocab, tgt_vocab, device="cpu", max_src_len=longest
    )
    return train(
        translator,
        split.train,
        split.val,
        config.train,
        progress=False,
        stop_after=steps,
    )


def run_real_experiment(
    pairs: Sequence[SentencePair],
    config: RealConfig | None = None,
    *,
    device: torch.device | str | None = None,
    progress: bool = False,
) -> RealExperiment:
    """Split ``pairs`` by English sentence, build the vocabularies and the
    model, train, score the test split.

    The model is built by
    :func:`~attnbook.studies.experiment.build_translator`, as in every run.
    The test sentences are translated with a beam of ``config.beam_size``
    (greedy for 1).

    Args:
        pairs: the corpus (e.g. ``load_tatoeba(shipped_path()).pairs``).
        config: the run; ``None`` uses :class:`RealConfig`'s defaults.
        device: where to train; ``None`` uses
            :func:`~attnbook.core.runtime.get_device`.
        progress: show the training progress bar.

    Raises:
        ValueError: ``pairs`` is empty or has too few distinct English
            sentences to split.
    """
    config = config or RealConfig()
    if config.data.subwords:
        raise ValueError(
            f"config.data.subwords is {config.data.subwords}: a run over "
            "pieces is "
            "attnbook.studies.run_pieces_experiment, on cased pairs"
        )
    if not pairs:
        raise ValueError(
            "the corpus has no sentence pairs: nothing to train on"
        )
    device = torch.device(device) if device is not None else get_device()
    split, src_vocab, tgt_vocab, longest = prepare_real_data(
        pairs, config.data
    )
    translator = build_translator(
        config, src_vocab, tgt_vocab, device=device, max_src_len=longest
    )
    training = train(
        translator, split.train, split.val, config.train, progress=progress
    )
    evaluation = evaluate_real(
        translator, split.test, beam_size=config.beam_size
    )
    return RealExperiment(
        config, split, translator, training, evaluation, device
    )
