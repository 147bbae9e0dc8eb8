"""Exercise checkers for the Transformer chapter, in the style of :mod:`attnbook.checks`.

.. code-block:: python

    from attnbook.checks.transformer import check_decoder_mask


    def my_decoder_mask(tgt_mask):
        length = tgt_mask.shape[1]
        return torch.ones(length, length, dtype=torch.bool).triu()  # wrong: the future, not the past


    check_decoder_mask(my_decoder_mask)  # says which entries differ
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor

from attnbook.checks.runner import CheckResult, compare
from attnbook.layers.multihead import MultiHeadAttention, causal_mask


def _first_failure(
    fn: Callable[..., object], cases: list[tuple[str, tuple, tuple[Tensor, ...]]]
) -> str | None:
    """Run ``fn`` on each ``(description, arguments, expected outputs)``; say what the first failure is."""
    for number, (description, arguments, expected) in enumerate(cases, start=1):
        where = f"case {number} of {len(cases)} ({description})"
        try:
            output = fn(*arguments)
        except Exception as exc:
            return f"your function raised {type(exc).__name__} on {where}: {exc}"
        outputs = (output,) if len(expected) == 1 else output
        if not isinstance(outputs, (tuple, list)) or len(outputs) != len(expected):
            return f"on {where}: expected {len(expected)} outputs, got {type(output).__name__}"
        for index, (got, want) in enumerate(zip(outputs, expected, strict=True)):
            if want.dtype == torch.bool:
                if not isinstance(got, Tensor) or got.dtype != torch.bool:
                    return f"on {where}: output {index} should be a boolean tensor (True = may attend)"
                got, want = got.double(), want.double()
            problem = compare(f"output {index}", got, want.double())
            if problem is not None:
                return f"on {where}: {problem}"
    return None


def check_decoder_mask(fn: Callable[[Tensor], Tensor]) -> CheckResult:
    """Check a reader's decoder self-attention mask: causal *and* blind to padded target positions.

    Expected signature: ``fn(tgt_mask) -> mask`` with ``tgt_mask`` boolean ``(batch, tgt_len)``, True at
    real tokens, and ``mask`` boolean ``(batch, tgt_len, tgt_len)``, **True = may attend**: position
    ``i`` may attend to position ``j`` when ``j <= i`` and ``j`` is a real token.

    Returns:
        A :class:`~attnbook.checks.CheckResult`.
    """
    cases = []
    for lengths, tgt_len in (([3], 3), ([4, 2], 4), ([1, 5, 3], 6)):
        tgt_mask = torch.arange(tgt_len) < torch.tensor(lengths).unsqueeze(1)
        expected = tgt_mask[:, None, :] & causal_mask(tgt_len)[None]
        cases.append(
            (f"tgt_mask {tuple(tgt_mask.shape)}, lengths {lengths}", (tgt_mask.clone(),), (expected,))
        )
    failure = _first_failure(fn, cases)
    if failure:
        return CheckResult(False, f"✗ failed {failure}")
    return CheckResult(True, f"✓ passed: {len(cases)} cases agree with causal_mask combined with padding.")


def check_multihead_attention(
    fn: Callable[[MultiHeadAttention, Tensor, Tensor, Tensor, Tensor], tuple[Tensor, Tensor]], seed: int = 0
) -> CheckResult:
    """Check a reader's multi-head attention written head by head, against :class:`MultiHeadAttention`.

    Expected signature: ``fn(mha, query, keys, values, mask) -> (context, weights)``, using the weights of
    the module ``mha`` (``query_proj``, ``key_proj``, ``value_proj``, ``out_proj``, ``num_heads``) on
    float64 inputs: query ``(batch, tgt_len, embed_dim)``, keys ``(batch, src_len, kdim)``, values
    ``(batch, src_len, vdim)``, mask boolean ``(batch, src_len)`` (True = may attend); context
    ``(batch, tgt_len, embed_dim)``, weights ``(batch, num_heads, tgt_len, src_len)``.

    Returns:
        A :class:`~attnbook.checks.CheckResult`.
    """
    generator = torch.Generator().manual_seed(seed)
    cases = []
    for batch, tgt_len, src_len, embed_dim, num_heads, kdim, vdim in (
        (1, 1, 3, 4, 1, 4, 4),
        (2, 3, 5, 8, 2, 8, 8),
        (3, 4, 6, 12, 3, 5, 7),
    ):
        torch.manual_seed(seed + batch)
        mha = MultiHeadAttention(embed_dim, num_heads, kdim=kdim, vdim=vdim).double()
        query = torch.randn(batch, tgt_len, embed_dim, generator=generator, dtype=torch.float64)
        keys = torch.randn(batch, src_len, kdim, generator=generator, dtype=torch.float64)
        values = torch.randn(batch, src_len, vdim, generator=generator, dtype=torch.float64)
        mask = torch.arange(src_len) < torch.randint(1, src_len + 1, (batch, 1), generator=generator)
        with torch.no_grad():
            expected = mha(query, keys, values, mask=mask)
        description = f"{num_heads} heads, query {tuple(query.shape)}, keys {tuple(keys.shape)}, padding"
        cases.append((description, (mha, query, keys, values, mask), expected))
    with torch.no_grad():
        failure = _first_failure(fn, cases)
    if failure:
        return CheckResult(False, f"✗ failed {failure}")
    return CheckResult(True, f"✓ passed: {len(cases)} random cases agree with attnbook.MultiHeadAttention.")
