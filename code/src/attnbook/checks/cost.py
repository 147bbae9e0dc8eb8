"""The checker of the appendix's exercise: a reader's count of attention's floating-point operations."""

from __future__ import annotations

from collections.abc import Callable

from attnbook.benchmark.attention_cost import attention_flops
from attnbook.checks.runner import CheckResult


def check_attention_flops(fn: Callable[[int, int, int, int, int], int]) -> CheckResult:
    """Check a reader's count of the floating-point operations of scaled dot-product attention.

    Expected signature: ``fn(batch, tgt_len, src_len, key_dim, value_dim) -> int``, the operations of the
    two matrix products (scores and context), a multiply-add counting as two. Compared with
    :func:`attention_flops` on cases where every size differs, so a swapped or missing factor shows.
    """
    cases = [(1, 1, 1, 1, 1), (2, 3, 5, 7, 11), (4, 128, 64, 32, 16), (32, 128, 128, 64, 64), (1, 7, 3, 2, 9)]
    for number, (batch, tgt_len, src_len, key_dim, value_dim) in enumerate(cases, start=1):
        sizes = (
            f"batch={batch}, tgt_len={tgt_len}, src_len={src_len}, key_dim={key_dim}, value_dim={value_dim}"
        )
        where = f"case {number} of {len(cases)} ({sizes})"
        try:
            got = fn(batch, tgt_len, src_len, key_dim, value_dim)
        except Exception as exc:
            return CheckResult(
                False, f"✗ failed: your function raised {type(exc).__name__} on {where}: {exc}"
            )
        expected = attention_flops(batch, tgt_len, src_len, key_dim, value_dim)
        if got != expected:
            return CheckResult(False, f"✗ failed on {where}: expected {expected:,} operations, got {got!r}")
    return CheckResult(
        True, f"✓ passed: {len(cases)} cases agree with attnbook.benchmark.attention_cost.attention_flops."
    )
