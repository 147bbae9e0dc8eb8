"""Sentences that state a measurement of the real-sentences chapter the
way the book's rules read it ("How to read the measurements" in the
book's introduction): a resampling test's p-value at its resolution, and
the verdict of two settings over paired seeds.

>>> p_value_text(1 / 1001, 1000)
'p ≤ 0.001'
>>> p_value_text(0.0312, 1000)
'p = 0.031'
>>> text = seed_sentence(
...     "chrF",
...     "the GRU",
...     [49.0, 47.3, 48.1],
...     "the Transformer",
...     [46.9, 46.9, 46.0],
... )
>>> text.startswith("on chrF the GRU is ahead of the Transformer")
True
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from attnbook.core.records import mean_sd, seed_verdict


def p_value_text(p_value: float, n_samples: int) -> str:
    """``p_value`` of a test over ``n_samples`` resamples, as text.

    A resampling test cannot give less than ``1 / (n_samples + 1)``: at
    that limit the value is an upper bound, written ``p ≤`` the next power
    of ten; above it, ``p =`` to three decimals.

    Raises:
        ValueError: ``n_samples`` is below 1, or ``p_value`` is not in
            (0, 1].
    """
    if n_samples < 1:
        raise ValueError(f"n_samples must be at least 1, got {n_samples}")
    if not 0.0 < p_value <= 1.0:
        raise ValueError(f"p_value must be in (0, 1], got {p_value}")
    resolution = 1 / (n_samples + 1)
    if p_value <= resolution * (1 + 1e-9):
        return f"p ≤ {10 ** math.ceil(math.log10(p_value)):g}"
    return f"p = {p_value:.3f}"


def seed_sentence(
    what: str,
    name_a: str,
    a: Sequence[float],
    name_b: str,
    b: Sequence[float],
) -> str:
    """The verdict of :func:`~attnbook.core.records.seed_verdict` on paired
    seeds, as a clause: who is ahead on ``what``, by how much, or why the
    two tie."""
    verdict = seed_verdict(a, b, paired=True)
    (mean_a, sd_a), (mean_b, sd_b) = mean_sd(a), mean_sd(b)
    gap, spread = abs(mean_a - mean_b), max(sd_a, sd_b)
    if verdict != "tie":
        first, second = (
            (name_a, name_b) if verdict == "ahead" else (name_b, name_a)
        )
        return (
            f"on {what} {first} is ahead of {second} in every paired "
            f"seed, by {gap:.1f} on average, more than the seeds move "
            f"either "
            f"({spread:.1f})"
        )
    if gap <= spread:
        why = f"the gap, {gap:.1f}, is within what the seeds move either "
        why += f"({spread:.1f})"
    else:
        why = "not every paired seed puts the same one ahead"
    return f"on {what} the two tie: {why}"
