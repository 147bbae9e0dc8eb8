"""Exercise checkers for the chapter on real sentences, in the style of :mod:`attnbook.checks`.

.. code-block:: python

    from attnbook.checks.real import check_split_by_english


    def my_split(pairs, test_fraction, seed):
        cut = round(len(pairs) * (1 - test_fraction))
        return pairs[:cut], pairs[cut:]  # by pair: an English sentence can land on both sides


    check_split_by_english(my_split)  # fails, naming the sentence found on both sides
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from attnbook.checks.runner import CheckResult
from attnbook.nmt.data import SentencePair

SplitFn = Callable[[list[SentencePair], float, int], tuple[Sequence[SentencePair], Sequence[SentencePair]]]


def _case(n_sentences: int) -> list[SentencePair]:
    """English sentences with one to four French translations each, in an order that mixes them."""
    pairs = []
    for k in range(n_sentences):
        for version in range(1 + k % 4):
            pairs.append(SentencePair(("sentence", str(k), "."), ("phrase", str(k), f"v{version}", ".")))
    return sorted(pairs, key=lambda p: (p.target[2], p.source[1]))  # translations of one sentence far apart


def check_split_by_english(fn: SplitFn) -> CheckResult:
    """Check ``fn(pairs, test_fraction, seed) -> (train_pairs, test_pairs)``: a split by English sentence.

    Passes when, for every case, each pair lands on exactly one side, no English sentence is on both
    sides (so every translation of a test sentence is in the test), and the test side holds
    ``test_fraction`` of the distinct English sentences (within one sentence).

    Args:
        fn: the reader's function; ``pairs`` is a list of :class:`~attnbook.nmt.data.SentencePair`.

    Returns:
        A :class:`~attnbook.checks.CheckResult`.
    """
    for n_sentences, fraction, seed in [(40, 0.25, 0), (101, 0.1, 1), (12, 0.5, 2)]:
        pairs = _case(n_sentences)
        note = f"{len(pairs)} pairs of {n_sentences} English sentences, test_fraction={fraction}, seed={seed}"
        train_pairs, test_pairs = fn(list(pairs), fraction, seed)
        if sorted(map(str, [*train_pairs, *test_pairs])) != sorted(map(str, pairs)):
            return CheckResult(
                False,
                f"✗ {note}: the two sides hold {len(train_pairs)} + {len(test_pairs)} pairs; every one of the "
                f"{len(pairs)} pairs must be on exactly one side",
            )
        both = {p.source for p in train_pairs} & {p.source for p in test_pairs}
        if both:
            shown = " ".join(sorted(both)[0])
            return CheckResult(
                False,
                f"✗ {note}: {len(both)} English sentence(s) are on both sides, e.g. {shown!r}; "
                "a test sentence's translations must all be held out with it",
            )
        n_test = len({p.source for p in test_pairs})
        if abs(n_test - fraction * n_sentences) > 1:
            return CheckResult(
                False,
                f"✗ {note}: the test side holds {n_test} distinct English sentences, expected about "
                f"{fraction * n_sentences:g} (the fraction counts English sentences, not pairs)",
            )
    return CheckResult(
        True, "✓ passed: every English sentence is on one side only, with all its translations"
    )
