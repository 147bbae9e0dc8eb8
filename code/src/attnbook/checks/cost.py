"""The checker of appendix A's exercise: a reader's count of attention's
floating-point operations."""

from __future__ import annotations

from collections.abc import Callable
from numbers import Integral, Real

from attnbook.benchmark.attention_cost import attention_flops
from attnbook.checks.runner import Case, CheckResult, Slip, run_cases


def _compare_count(name: str, got: object, expected: object) -> str | None:
    """Why the count ``got`` is not ``expected`` (an int), or None when
    it is."""
    if isinstance(got, bool) or not isinstance(got, Real):
        return f"{name} should be a number, got {type(got).__name__}"
    if got == expected:
        return None
    shown = f"{got:,}" if isinstance(got, Integral) else repr(got)
    return f"expected {expected:,} {name}, got {shown}"


def _flop_slips(
    batch: int, tgt_len: int, src_len: int, key_dim: int, value_dim: int
) -> tuple[Slip, ...]:
    # one score and one weighted value per (query, key) pair
    pairs = batch * tgt_len * src_len
    return (
        Slip(
            "you counted multiply-adds: each counts as two operations, a "
            "multiply and an add; double it",
            (pairs * (key_dim + value_dim),),
        ),
        Slip(
            "you counted only the scores' product Q K^T; the context's "
            "product A V adds "
            "2 * batch * tgt_len * src_len * value_dim",
            (2 * pairs * key_dim,),
        ),
        Slip(
            "you counted only the context's product A V; the scores' "
            "product Q K^T adds "
            "2 * batch * tgt_len * src_len * key_dim",
            (2 * pairs * value_dim,),
        ),
        Slip(
            "you used key_dim for both products: the context's product A "
            "V runs over value_dim",
            (4 * pairs * key_dim,),
        ),
        Slip(
            "your count does not grow with the batch: every sequence in "
            "it does the same work; multiply by batch",
            (2 * tgt_len * src_len * (key_dim + value_dim),),
        ),
        Slip(
            "you used tgt_len twice (tgt_len * tgt_len): one score per "
            "query and key, tgt_len * src_len",
            (2 * batch * tgt_len * tgt_len * (key_dim + value_dim),),
        ),
        Slip(
            "you used src_len twice (src_len * src_len): one score per "
            "query and key, tgt_len * src_len",
            (2 * batch * src_len * src_len * (key_dim + value_dim),),
        ),
    )


def check_attention_flops(
    fn: Callable[[int, int, int, int, int], int],
) -> CheckResult:
    """Check a reader's count of the floating-point operations of scaled
    dot-product attention.

    Expected signature: ``fn(batch, tgt_len, src_len, key_dim,
    value_dim) -> int``, the operations of the two matrix products (scores
    and context), a multiply-add counting as two.
    Compared with :func:`attention_flops` on cases where every size
    differs, so a swapped or missing factor shows.

    >>> print(
    ...     check_attention_flops(
    ...         lambda b, t, s, dk, dv: 2 * b * t * s * (dk + dv)
    ...     )
    ... )  # doctest: +ELLIPSIS
    ✓ passed: 5 cases agree with
    attnbook.benchmark.attention_cost.attention_flops.
    """
    cases = []
    for sizes in [
        (1, 1, 1, 1, 1),
        (2, 3, 5, 7, 11),
        (4, 128, 64, 32, 16),
        (32, 128, 128, 64, 64),
        (1, 7, 3, 2, 9),
    ]:
        names = ("batch", "tgt_len", "src_len", "key_dim", "value_dim")
        inputs = tuple(zip(names, sizes, strict=True))
        label = ", ".join(f"{name}={size}" for name, size in inputs)
        expected = attention_flops(*sizes)
        slips = _flop_slips(*sizes)
        cases.append(
            Case(
                inputs,
                (("operations", expected),),
                slips=slips,
                compare=_compare_count,
                label=label,
            )
        )
    return run_cases(
        fn,
        cases,
        "attnbook.benchmark.attention_cost.attention_flops",
        random_cases=False,
    )
