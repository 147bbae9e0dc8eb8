"""What attention costs on paper, and the implementations the
benchmark compares.

- :func:`naive_attention` (a loop over target positions: the oracle)
  and :func:`sdpa_context` (PyTorch's fused
  ``scaled_dot_product_attention``) beside the package's
  :class:`~attnbook.ScaledDotProductAttention`.
- Counting: :func:`attention_flops`, :func:`attention_weight_bytes`,
  :func:`precompute_multiply_adds` and
  :func:`predicted_precompute_speedup`, and :func:`fit_loglog_slope` for
  the exponent of a measured power law
  (:func:`attnbook.checks.check_attention_flops` checks a reader's count).

>>> import torch
>>> from attnbook.benchmark.attention_cost import (
...     attention_flops,
...     naive_attention,
...     sdpa_context,
... )
>>> query, keys = torch.randn(2, 3, 4), torch.randn(2, 5, 4)
>>> context, weights = naive_attention(query, keys)
>>> torch.allclose(sdpa_context(query, keys), context, atol=1e-6)
True
>>> attention_flops(
...     batch=2, tgt_len=3, src_len=5, key_dim=4
... )  # 2 B T S (d_k + d_v)
480
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence

import torch
import torch.nn.functional as F
from torch import Tensor


def naive_attention(
    query: Tensor, keys: Tensor, values: Tensor | None = None
) -> tuple[Tensor, Tensor]:
    r"""Scaled dot-product attention one target position at a time:
    the oracle with a Python loop.

    For each target step ``i`` it scores every key, :math:`e_{ij} =
    q_i^\top k_j / \sqrt{d}`, takes the softmax over ``j`` and averages the
    values. No mask.

    Args:
        query: ``(batch, tgt_len, d)``.
        keys: ``(batch, src_len, d)``.
        values: ``(batch, src_len, value_dim)``; ``None`` uses ``keys``.

    Returns:
        ``context`` ``(batch, tgt_len, value_dim)`` and ``attn_weights``
        ``(batch, tgt_len, src_len)``.
    """
    values = keys if values is None else values
    scale = 1.0 / math.sqrt(keys.shape[-1])
    contexts, weight_rows = [], []
    for step in range(query.shape[1]):
        scores = (
            torch.bmm(keys, query[:, step].unsqueeze(-1)).squeeze(-1)
            * scale
        )  # (batch, src_len)
        weights = torch.softmax(scores, dim=-1)
        # (batch, value_dim)
        contexts.append(torch.bmm(weights.unsqueeze(1), values).squeeze(1))
        weight_rows.append(weights)
    return torch.stack(contexts, dim=1), torch.stack(weight_rows, dim=1)


def sdpa_context(
    query: Tensor,
    keys: Tensor,
    values: Tensor | None = None,
    head_axis: bool = True,
) -> Tensor:
    """PyTorch's :func:`~torch.nn.functional.scaled_dot_product_attention`
    (SDPA): the context only.

    PyTorch's fused kernels (FlashAttention, memory-efficient attention,
    and FlashAttention for the CPU) take only 4-D ``(batch, heads,
    length, dim)`` inputs; given 3-D tensors, SDPA runs its unfused "math"
    path. With ``head_axis=True`` (the default) the inputs get a head axis
    of size one, so a fused kernel can run; ``head_axis=False`` passes them
    as they are.

    Args:
        query: ``(batch, tgt_len, d)``.
        keys: ``(batch, src_len, d)``.
        values: ``(batch, src_len, value_dim)``; ``None`` uses ``keys``.
        head_axis: add a head axis of size one (a view, no copy)
            before calling SDPA.

    Returns:
        ``context``, ``(batch, tgt_len, value_dim)``.
        The weights are never returned and, in the fused kernels,
        never stored whole.
    """
    values = keys if values is None else values
    if not head_axis:
        return F.scaled_dot_product_attention(query, keys, values)
    context = F.scaled_dot_product_attention(
        query.unsqueeze(1), keys.unsqueeze(1), values.unsqueeze(1)
    )
    return context.squeeze(1)


def attention_flops(
    batch: int,
    tgt_len: int,
    src_len: int,
    key_dim: int,
    value_dim: int | None = None,
) -> int:
    r"""Floating-point operations of the two matrix products of scaled
    dot-product attention.

    The scores :math:`QK^\top` take ``B T S d_k`` multiply-adds and the
    context :math:`AV` takes ``B T S d_v``; one multiply-add counts as two
    operations. The softmax and the scaling (``O(B T S)``) are left out.
    """
    value_dim = key_dim if value_dim is None else value_dim
    return 2 * batch * tgt_len * src_len * (key_dim + value_dim)


def attention_weight_bytes(
    batch: int, tgt_len: int, src_len: int, element_size: int = 4
) -> int:
    """Bytes of the weight tensor ``(batch, tgt_len, src_len)``:
    ``B T S`` times the element size.

    >>> attention_weight_bytes(
    ...     batch=32, tgt_len=8192, src_len=8192
    ... ) / 2**30  # GiB, float32
    8.0
    """
    return batch * tgt_len * src_len * element_size


def precompute_multiply_adds(
    src_len: int,
    tgt_len: int,
    query_dim: int,
    key_dim: int,
    attn_dim: int,
    once: bool,
) -> int:
    """Multiply-adds of ``tgt_len`` Bahdanau steps for one sentence,
    projecting the keys once or every step.

    Per step: ``d_a d_s`` (the query), ``S d_a`` (``v_a^T tanh``),
    ``S d_h`` (the context), and the key projection ``S d_a d_h`` either at
    every step or once in all.
    """
    per_step = (
        attn_dim * query_dim + src_len * attn_dim + src_len * key_dim
    )
    projection = src_len * attn_dim * key_dim
    return tgt_len * per_step + (
        projection if once else tgt_len * projection
    )


def predicted_precompute_speedup(
    src_len: int, tgt_len: int, query_dim: int, key_dim: int, attn_dim: int
) -> float:
    r"""The speed-up that counting multiply-adds predicts for projecting
    Bahdanau's keys once.

    Over ``T`` decoder steps, the key projection :math:`U_a h_j` costs
    :math:`P = S\,d_a d_h` per projection, and the rest of a step :math:`r
    = d_a d_s + S\,d_a + S\,d_h`. Projecting at every step costs :math:`T(P
    + r)`; projecting once costs :math:`P + T r`.
    The prediction is their ratio,

    .. math:: \frac{T\,(P + r)}{P + T\,r},

    amortised over the ``T`` steps: it is 1 for a single step and
    approaches :math:`(P + r) / r` as ``T`` grows.
    It is the ratio of :func:`precompute_multiply_adds` for the two ways.

    Args:
        src_len: ``S``, the source positions.
        tgt_len: ``T``, the decoder steps that share one projection.
        query_dim: ``d_s``, the decoder state's size.
        key_dim: ``d_h``, the annotation's size.
        attn_dim: ``d_a``, the alignment model's hidden size.

    >>> sizes = dict(src_len=40, query_dim=256, key_dim=512, attn_dim=128)
    >>> predicted_precompute_speedup(
    ...     tgt_len=1, **sizes
    ... )  # one step: nothing to share
    1.0
    >>> round(
    ...     predicted_precompute_speedup(tgt_len=10, **sizes), 2
    ... )  # T (P + r) / (P + T r)
    8.36
    """
    sizes = (src_len, tgt_len, query_dim, key_dim, attn_dim)
    if min(sizes) < 1:
        raise ValueError(
            "every size must be at least 1, got (S, T, d_s, d_h, d_a) = "
            f"{sizes}"
        )
    every_step = precompute_multiply_adds(*sizes, once=False)
    return every_step / precompute_multiply_adds(*sizes, once=True)


def fit_loglog_slope(xs: Sequence[float], ys: Sequence[float]) -> float:
    """Least-squares slope of ``log y`` against ``log x``:
    the exponent ``p`` in ``y ~ x^p``.

    >>> round(
    ...     fit_loglog_slope(
    ...         [64, 128, 256], [3 * n**2 for n in (64, 128, 256)]
    ...     ),
    ...     6,
    ... )
    2.0
    """
    if len(xs) != len(ys) or len(xs) < 2:
        raise ValueError(
            "need at least two (x, y) pairs of equal length, got "
            f"{len(xs)} and {len(ys)}"
        )
    log_x = [math.log(x) for x in xs]
    log_y = [math.log(y) for y in ys]
    mean_x, mean_y = statistics.fmean(log_x), statistics.fmean(log_y)
    spread = sum((x - mean_x) ** 2 for x in log_x)
    if spread == 0:
        raise ValueError("need at least two different x values")
    return (
        sum(
            (x - mean_x) * (y - mean_y)
            for x, y in zip(log_x, log_y, strict=True)
        )
        / spread
    )
