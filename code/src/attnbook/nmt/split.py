"""Held-out sentences for a real corpus: a split by English sentence,
and every translation of a held-out sentence kept as a reference.

The same English sentence comes back with other French translations
(*I'm cold.* is *J'ai froid.* and *Je suis gelé.*). A split by pair would
put one translation in training and another in the test, so the test would
reward memorising the English: :func:`split_by_english` splits by English
sentence, and :func:`group_references` gathers all the translations of
each held-out sentence, since every one of them is a correct answer.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass

from attnbook.nmt.data import SentencePair


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
    key: Callable[[SentencePair], Hashable] | None = None,
) -> tuple[list[tuple[str, ...]], list[list[tuple[str, ...]]]]:
    """The distinct English sentences of ``pairs`` (first-seen order)
    and, for each, all its translations.

    Args:
        pairs: the pairs.
        key: what counts as the same English sentence (default: the source
            tokens); each sentence is given as the first pair of its key
            spells it.

    >>> pairs = [
    ...     SentencePair(("hi", "."), ("salut", ".")),
    ...     SentencePair(("hi", "."), ("bonjour", ".")),
    ... ]
    >>> group_references(pairs)
    ([('hi', '.')], [[('salut', '.'), ('bonjour', '.')]])
    """
    key = key or _source
    sources: dict[Hashable, tuple[str, ...]] = {}
    grouped: dict[Hashable, list[tuple[str, ...]]] = {}
    for pair in pairs:
        sources.setdefault(key(pair), pair.source)
        references = grouped.setdefault(key(pair), [])
        if pair.target not in references:
            references.append(pair.target)
    return list(sources.values()), list(grouped.values())
