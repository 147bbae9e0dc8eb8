"""Exercise checkers for the Transformer chapter, in the style of
:mod:`attnbook.checks`.

.. code-block:: python

    from attnbook.checks.transformer import check_decoder_mask


    def my_decoder_mask(tgt_mask):
        length = tgt_mask.shape[1]
        return torch.ones(
            length, length, dtype=torch.bool
        ).triu()  # wrong: the future, not the past


    check_decoder_mask(my_decoder_mask)  # says which entries differ
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
from torch import Tensor

from attnbook.checks.attention import _attend_where, _softmax_where
from attnbook.checks.runner import Case, CheckResult, Slip, run_cases
from attnbook.layers.multihead import MultiHeadAttention, causal_mask


def _decoder_mask_slips(
    tgt_mask: Tensor, expected: Tensor
) -> tuple[Slip, ...]:
    length = tgt_mask.shape[1]
    # (batch, 1, tgt_len): key j is a real token
    keys = tgt_mask[:, None, :]
    queries = tgt_mask[:, :, None]  # (batch, tgt_len, 1)
    past = causal_mask(length)[None]  # (1, tgt_len, tgt_len): j <= i
    return (
        Slip(
            "your mask is inverted: True must mean may attend (the book's "
            "convention), not may not "
            "(nn.MultiheadAttention's attn_mask); look at where you "
            "negate",
            (~expected,),
        ),
        Slip(
            "position i may attend to the future (j >= i) and not to the "
            "past: the causal mask is "
            "lower-triangular, j <= i (torch.tril, or causal_mask)",
            (
                keys
                & torch.ones(length, length, dtype=torch.bool).triu()[
                    None
                ],
            ),
        ),
        Slip(
            "position i may see the future: your mask lets it attend to "
            "every real position j, "
            "including j > i; combine it with the causal mask, j <= i",
            (keys.expand(-1, length, -1),),
        ),
        Slip(
            "position i may not attend to itself: the causal mask "
            "includes the diagonal, j <= i, not j < i",
            (
                keys
                & torch.ones(length, length, dtype=torch.bool).tril(-1)[
                    None
                ],
            ),
        ),
        Slip(
            "your mask lets positions attend to padded target positions: "
            "the padding is ignored; combine "
            "the causal mask with tgt_mask over the keys, tgt_mask[:, "
            "None, :]",
            (past.expand(len(tgt_mask), -1, -1),),
        ),
        Slip(
            "your mask empties the padded positions' rows (tgt_mask[:, :, "
            "None] masks the queries) where "
            "the exercise masks the padded keys, tgt_mask[:, None, :]: a "
            "padded position still attends, "
            "causally, to the real positions before it",
            (queries & past,),
        ),
    )


def check_decoder_mask(fn: Callable[[Tensor], Tensor]) -> CheckResult:
    """Check a reader's decoder self-attention mask:
    causal *and* blind to padded target positions.

    Expected signature: ``fn(tgt_mask) -> mask`` with ``tgt_mask`` boolean
    ``(batch, tgt_len)``, True at real tokens, and ``mask`` boolean
    ``(batch, tgt_len, tgt_len)``, **True = may attend**:
    position ``i`` may attend to position ``j`` when ``j <= i`` and ``j``
    is a real token.

    Returns:
        A :class:`~attnbook.checks.CheckResult`.
    """
    cases = []
    for lengths, tgt_len in (([3], 3), ([4, 2], 4), ([1, 5, 3], 6)):
        tgt_mask = torch.arange(tgt_len) < torch.tensor(lengths).unsqueeze(
            1
        )
        expected = tgt_mask[:, None, :] & causal_mask(tgt_len)[None]
        label = f"tgt_mask {tuple(tgt_mask.shape)}, lengths {lengths}"
        slips = _decoder_mask_slips(tgt_mask, expected)
        cases.append(
            Case(
                (("tgt_mask", tgt_mask),),
                (("mask", expected),),
                slips=slips,
                label=label,
            )
        )
    return run_cases(
        fn, cases, "causal_mask combined with padding", random_cases=False
    )


def _heads_with(
    mha: MultiHeadAttention,
    query: Tensor,
    keys: Tensor,
    values: Tensor,
    mask: Tensor | None,
    *,
    scale: float | None = None,
    dim: int = -1,
    interleaved: bool = False,
    out_proj: bool = True,
) -> tuple[Tensor, Tensor]:
    """Multi-head attention with one step changed (the keywords);
    NaN where the change leaves it open."""
    heads, head_dim = mha.num_heads, mha.head_dim

    # (batch, len, embed_dim) -> (batch, heads, len, head_dim)
    def split(x: Tensor) -> Tensor:
        if interleaved:
            return x.view(*x.shape[:2], head_dim, heads).permute(
                0, 3, 1, 2
            )
        return x.view(*x.shape[:2], heads, head_dim).transpose(1, 2)

    q, k, v = (
        split(mha.query_proj(query)),
        split(mha.key_proj(keys)),
        split(mha.value_proj(values)),
    )
    scores = (
        q
        @ k.transpose(-2, -1)
        / (math.sqrt(head_dim) if scale is None else scale)
    )
    weights = _softmax_where(
        scores, None if mask is None else mask[:, None, None, :], dim=dim
    )
    # (batch, heads, tgt_len, head_dim)
    context = _attend_where(weights, v)
    joined = (
        context.permute(0, 2, 3, 1)
        if interleaved
        else context.transpose(1, 2)
    ).flatten(2)
    return (mha.out_proj(joined) if out_proj else joined), weights


def _multihead_slips(
    mha: MultiHeadAttention,
    query: Tensor,
    keys: Tensor,
    values: Tensor,
    mask: Tensor,
) -> tuple[Slip, ...]:
    def heads(
        *, mask: Tensor | None = mask, **change: object
    ) -> tuple[Tensor, Tensor]:
        with torch.no_grad():
            return _heads_with(  # type: ignore[arg-type]
                mha,
                query,
                keys,
                values,
                mask,
                **change,
            )

    context, weights = heads()
    return (
        Slip(
            "your scores are not divided by sqrt(head_dim): an unscaled "
            "dot product; each head divides "
            "q·k by the square root of its own width, mha.head_dim",
            heads(scale=1.0),
        ),
        Slip(
            "you divide the scores by sqrt(embed_dim); each head divides "
            "by the square root of its own "
            "width, sqrt(mha.head_dim) = sqrt(embed_dim / num_heads)",
            heads(scale=math.sqrt(mha.embed_dim)),
        ),
        Slip(
            "your weights sum to one over the queries, not the keys "
            "(softmax over dim=-2 instead of "
            "dim=-1); look at the axis of your softmax",
            heads(dim=-2),
        ),
        Slip(
            "your weights are not 0 at the padded keys: the mask is "
            "ignored; pass it to every head",
            heads(mask=None),
        ),
        Slip(
            "your heads take interleaved features (a reshape to (..., "
            "head_dim, num_heads)): head h takes "
            "the contiguous slice h * head_dim : (h + 1) * head_dim of "
            "each projection",
            heads(interleaved=True),
        ),
        Slip(
            "your heads are joined but not passed through mha.out_proj; "
            "the context is out_proj of the "
            "joined heads",
            heads(out_proj=False),
        ),
        Slip(
            "your weights are the heads' average, (batch, tgt_len, "
            "src_len): return every head's, "
            "(batch, num_heads, tgt_len, src_len), e.g. "
            "torch.stack(weights, dim=1)",
            (context, weights.mean(dim=1)),
        ),
    )


def check_multihead_attention(
    fn: Callable[
        [MultiHeadAttention, Tensor, Tensor, Tensor, Tensor],
        tuple[Tensor, Tensor],
    ],
    seed: int = 0,
) -> CheckResult:
    """Check a reader's multi-head attention written head by head,
    against :class:`MultiHeadAttention`.

    Expected signature: ``fn(mha, query, keys, values, mask) -> (context,
    weights)``, using the weights of the module ``mha`` (``query_proj``,
    ``key_proj``, ``value_proj``, ``out_proj``, ``num_heads``)
    on float64 inputs: query ``(batch, tgt_len, embed_dim)``,
    keys ``(batch, src_len, kdim)``, values ``(batch, src_len, vdim)``,
    mask boolean ``(batch, src_len)`` (True = may attend);
    context ``(batch, tgt_len, embed_dim)``, weights ``(batch, num_heads,
    tgt_len, src_len)``.

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
        # the module's initial weights, sparing the reader's generator
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed + batch)
            mha = MultiHeadAttention(
                embed_dim, num_heads, kdim=kdim, vdim=vdim
            ).double()
        query = torch.randn(
            batch,
            tgt_len,
            embed_dim,
            generator=generator,
            dtype=torch.float64,
        )
        keys = torch.randn(
            batch, src_len, kdim, generator=generator, dtype=torch.float64
        )
        values = torch.randn(
            batch, src_len, vdim, generator=generator, dtype=torch.float64
        )
        mask = torch.arange(src_len) < torch.randint(
            1, src_len + 1, (batch, 1), generator=generator
        )
        with torch.no_grad():
            context, weights = mha(query, keys, values, mask=mask)
        inputs = (
            ("mha", mha),
            ("query", query),
            ("keys", keys),
            ("values", values),
            ("mask", mask),
        )
        heads = f"{num_heads} head" + ("s" if num_heads > 1 else "")
        label = (
            f"{heads}, query {tuple(query.shape)}, keys "
            f"{tuple(keys.shape)}"
        )
        slips = _multihead_slips(mha, query, keys, values, mask)
        cases.append(
            Case(
                inputs,
                (("context", context), ("weights", weights)),
                "padding",
                slips=slips,
                label=label,
            )
        )
    with torch.no_grad():
        return run_cases(fn, cases, "attnbook.MultiHeadAttention")
