"""What attention costs on paper, and the implementations the benchmark compares.

- :func:`naive_attention` (a loop over target positions: the oracle) and :func:`sdpa_context` (PyTorch's
  fused ``scaled_dot_product_attention``) beside the package's :class:`~attnbook.ScaledDotProductAttention`.
- Counting: :func:`attention_flops`, :func:`attention_weight_bytes`, :func:`precompute_multiply_adds`,
  and :func:`fit_loglog_slope` for the exponent of a measured power law; :func:`check_attention_flops`
  checks a reader's count.

>>> import torch
>>> from attnbook.attention_cost import attention_flops, naive_attention, sdpa_context
>>> query, keys = torch.randn(2, 3, 4), torch.randn(2, 5, 4)
>>> context, weights = naive_attention(query, keys)
>>> torch.allclose(sdpa_context(query, keys), context, atol=1e-6)
True
>>> attention_flops(batch=2, tgt_len=3, src_len=5, key_dim=4)  # 2 B T S (d_k + d_v)
480
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Sequence

import torch
import torch.nn.functional as F
from torch import Tensor

from attnbook.checks import CheckResult


def naive_attention(query: Tensor, keys: Tensor, values: Tensor | None = None) -> tuple[Tensor, Tensor]:
    r"""Scaled dot-product attention one target position at a time: the oracle with a Python loop.

    For each target step ``i`` it scores every key, :math:`e_{ij} = q_i^\top k_j / \sqrt{d}`, takes the
    softmax over ``j`` and averages the values. No mask.

    Args:
        query: ``(batch, tgt_len, d)``.
        keys: ``(batch, src_len, d)``.
        values: ``(batch, src_len, value_dim)``; ``None`` uses ``keys``.

    Returns:
        ``context`` ``(batch, tgt_len, value_dim)`` and ``attn_weights`` ``(batch, tgt_len, src_len)``.
    """
    values = keys if values is None else values
    scale = 1.0 / math.sqrt(keys.shape[-1])
    contexts, weight_rows = [], []
    for step in range(query.shape[1]):
        scores = torch.bmm(keys, query[:, step].unsqueeze(-1)).squeeze(-1) * scale  # (batch, src_len)
        weights = torch.softmax(scores, dim=-1)
        contexts.append(torch.bmm(weights.unsqueeze(1), values).squeeze(1))  # (batch, value_dim)
        weight_rows.append(weights)
    return torch.stack(contexts, dim=1), torch.stack(weight_rows, dim=1)


def sdpa_context(query: Tensor, keys: Tensor, values: Tensor | None = None, head_axis: bool = True) -> Tensor:
    """PyTorch's :func:`~torch.nn.functional.scaled_dot_product_attention` (SDPA): the context only.

    PyTorch's fused kernels (FlashAttention, memory-efficient attention, and FlashAttention for the CPU)
    take only 4-D ``(batch, heads, length, dim)`` inputs; given 3-D tensors, SDPA runs its unfused "math"
    path. With ``head_axis=True`` (the default) the inputs get a head axis of size one, so a fused kernel
    can run; ``head_axis=False`` passes them as they are.

    Args:
        query: ``(batch, tgt_len, d)``.
        keys: ``(batch, src_len, d)``.
        values: ``(batch, src_len, value_dim)``; ``None`` uses ``keys``.
        head_axis: add a head axis of size one (a view, no copy) before calling SDPA.

    Returns:
        ``context``, ``(batch, tgt_len, value_dim)``. The weights are never returned and, in the fused
        kernels, never stored whole.
    """
    values = keys if values is None else values
    if not head_axis:
        return F.scaled_dot_product_attention(query, keys, values)
    context = F.scaled_dot_product_attention(query.unsqueeze(1), keys.unsqueeze(1), values.unsqueeze(1))
    return context.squeeze(1)


def attention_flops(
    batch: int, tgt_len: int, src_len: int, key_dim: int, value_dim: int | None = None
) -> int:
    r"""Floating-point operations of the two matrix products of scaled dot-product attention.

    The scores :math:`QK^\top` take ``B T S d_k`` multiply-adds and the context :math:`AV` takes
    ``B T S d_v``; one multiply-add counts as two operations. The softmax and the scaling (``O(B T S)``)
    are left out.
    """
    value_dim = key_dim if value_dim is None else value_dim
    return 2 * batch * tgt_len * src_len * (key_dim + value_dim)


def attention_weight_bytes(batch: int, tgt_len: int, src_len: int, element_size: int = 4) -> int:
    """Bytes of the weight tensor ``(batch, tgt_len, src_len)``: ``B T S`` times the element size.

    >>> attention_weight_bytes(batch=32, tgt_len=8192, src_len=8192) / 2**30  # GiB, float32
    8.0
    """
    return batch * tgt_len * src_len * element_size


def precompute_multiply_adds(
    src_len: int, tgt_len: int, query_dim: int, key_dim: int, attn_dim: int, once: bool
) -> int:
    """Multiply-adds of ``tgt_len`` Bahdanau steps for one sentence, projecting the keys once or every step.

    Per step: ``d_a d_s`` (the query), ``S d_a`` (``v_a^T tanh``), ``S d_h`` (the context), and the key
    projection ``S d_a d_h`` either at every step or once in all.
    """
    per_step = attn_dim * query_dim + src_len * attn_dim + src_len * key_dim
    projection = src_len * attn_dim * key_dim
    return tgt_len * per_step + (projection if once else tgt_len * projection)


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
        True, f"✓ passed: {len(cases)} cases agree with attnbook.attention_cost.attention_flops."
    )


def fit_loglog_slope(xs: Sequence[float], ys: Sequence[float]) -> float:
    """Least-squares slope of ``log y`` against ``log x``: the exponent ``p`` in ``y ~ x^p``.

    >>> round(fit_loglog_slope([64, 128, 256], [3 * n**2 for n in (64, 128, 256)]), 6)
    2.0
    """
    if len(xs) != len(ys) or len(xs) < 2:
        raise ValueError(f"need at least two (x, y) pairs of equal length, got {len(xs)} and {len(ys)}")
    log_x = [math.log(x) for x in xs]
    log_y = [math.log(y) for y in ys]
    mean_x, mean_y = statistics.fmean(log_x), statistics.fmean(log_y)
    spread = sum((x - mean_x) ** 2 for x in log_x)
    if spread == 0:
        raise ValueError("need at least two different x values")
    return sum((x - mean_x) * (y - mean_y) for x, y in zip(log_x, log_y, strict=True)) / spread
