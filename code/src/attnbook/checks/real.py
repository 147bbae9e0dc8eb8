"""Exercise checkers for the chapter on real sentences, in the style of
:mod:`attnbook.checks`.

.. code-block:: python

    from attnbook.checks.real import check_split_by_english


    def my_split(pairs, test_fraction, seed):
        cut = round(len(pairs) * (1 - test_fraction))
        # by pair: an English sentence can land on both sides
        return pairs[:cut], pairs[cut:]


    # fails, naming the sentence found on both sides
    check_split_by_english(my_split)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from attnbook.checks.runner import Case, CheckResult, run_cases
from attnbook.nmt.data import SentencePair

SplitFn = Callable[
    [list[SentencePair], float, int],
    tuple[Sequence[SentencePair], Sequence[SentencePair]],
]


def _case(n_sentences: int) -> list[SentencePair]:
    """English sentences with one to four French translations each,
    in an order that mixes them."""
    pairs = []
    for k in range(n_sentences):
        for version in range(1 + k % 4):
            pairs.append(
                SentencePair(
                    ("sentence", str(k), "."),
                    ("phrase", str(k), f"v{version}", "."),
                )
            )
    # translations of one sentence far apart
    return sorted(pairs, key=lambda p: (p.target[2], p.source[1]))


@dataclass(frozen=True)
class _SplitRules:
    """What a split of ``pairs`` by English sentence must satisfy,
    with ``test_fraction`` of them held out."""

    pairs: tuple[SentencePair, ...]
    test_fraction: float

    @property
    def n_sentences(self) -> int:
        return len({p.source for p in self.pairs})


def _compare_split(name: str, got: object, rules: object) -> str | None:
    """Why ``got`` is not a split by English sentence under ``rules``,
    naming the classic slip."""
    assert isinstance(rules, _SplitRules)
    if not (isinstance(got, (tuple, list)) and len(got) == 2):
        return (
            "expected a (train_pairs, test_pairs) pair, got "
            f"{type(got).__name__}"
        )
    train_pairs, test_pairs = (list(side) for side in got)
    if Counter(map(str, [*train_pairs, *test_pairs])) != Counter(
        map(str, rules.pairs)
    ):
        return (
            f"the two sides hold {len(train_pairs)} + {len(test_pairs)} "
            "pairs; every one of the "
            f"{len(rules.pairs)} pairs must be on exactly one side (none "
            "lost, none on both)"
        )
    both = {p.source for p in train_pairs} & {p.source for p in test_pairs}
    if both:
        shown = " ".join(sorted(both)[0])
        return (
            f"{len(both)} English sentence(s) are on both sides, e.g. "
            f"{shown!r}: a split by pair leaks an "
            "English sentence into both splits; choose the test's English "
            "sentences first, then put every "
            "pair of each on its side"
        )
    n_test = len({p.source for p in test_pairs})
    if abs(n_test - rules.test_fraction * rules.n_sentences) > 1:
        return (
            f"the test side holds {n_test} distinct English sentences, "
            "expected about "
            f"{rules.test_fraction * rules.n_sentences:g}: the fraction "
            "counts English sentences, not pairs; "
            "look at what you multiply test_fraction by"
        )
    return None


def check_split_by_english(fn: SplitFn) -> CheckResult:
    """Check ``fn(pairs, test_fraction, seed) -> (train_pairs,
    test_pairs)``: a split by English sentence.

    Passes when, for every case, each pair lands on exactly one side,
    no English sentence is on both sides (so every translation of a test
    sentence is in the test), and the test side holds ``test_fraction`` of
    the distinct English sentences (within one sentence).

    Args:
        fn: the reader's function; ``pairs`` is a list of
            :class:`~attnbook.nmt.data.SentencePair`.

    Returns:
        A :class:`~attnbook.checks.CheckResult`.
    """
    cases = []
    for n_sentences, fraction, seed in [
        (40, 0.25, 0),
        (101, 0.1, 1),
        (12, 0.5, 2),
    ]:
        pairs = _case(n_sentences)
        label = (
            f"{len(pairs)} pairs of {n_sentences} English sentences, "
            f"test_fraction={fraction}, seed={seed}"
        )
        inputs = (
            ("pairs", pairs),
            ("test_fraction", fraction),
            ("seed", seed),
        )
        rules = _SplitRules(tuple(pairs), fraction)
        cases.append(
            Case(
                inputs,
                (("split", rules),),
                compare=_compare_split,
                label=label,
            )
        )
    return run_cases(
        fn,
        cases,
        "a split by English sentence (each on one side only, with all its "
        "translations, and test_fraction "
        "of the English sentences in the test)",
        random_cases=False,
    )
