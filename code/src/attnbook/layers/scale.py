r"""Attention at scale: a key-value cache for decoding, grouped-query
attention, sliding windows, tiled attention with the online softmax, and
linear attention.

Each answers one cost of the attention of
:class:`~attnbook.layers.multihead.MultiHeadAttention`:

- decoding one token at a time re-projects every earlier key and value
  unless they are kept: :meth:`GroupedQueryAttention.step` keeps them in a
  :class:`KVCache`, and :func:`kv_cache_bytes` counts what that costs;
- the cache grows with the number of key-value heads, which
  :class:`GroupedQueryAttention` lets fall below the number of query heads
  (multi-query attention at one);
- every position attends to every earlier one, unless
  :func:`sliding_window_mask` keeps only the last ``window``;
- the ``(tgt_len, src_len)`` table of scores need never be held whole:
  :func:`tiled_attention` runs the online softmax over blocks;
- the softmax itself can be swapped for a kernel feature map, which makes
  attention linear in the length (:func:`linear_attention`) at a price that
  :func:`linear_attention_weights` shows.

Masks follow the package's polarity, **True = may attend**.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch import Tensor, nn

from attnbook.layers.multihead import MultiHeadAttention, causal_mask


@dataclass(frozen=True)
class KVCache:
    """The projected keys and values of the positions decoded so far.

    Shape:
        - keys, values: ``(batch, num_kv_heads, positions, head_dim)``.
    """

    keys: Tensor
    values: Tensor

    @property
    def positions(self) -> int:
        """How many positions the cache holds."""
        return self.keys.shape[2]

    @property
    def nbytes(self) -> int:
        """The bytes the cached keys and values take."""
        return self.keys.nbytes + self.values.nbytes


class GroupedQueryAttention(MultiHeadAttention):
    r"""Multi-head attention whose query heads share fewer key-value heads
    (Ainslie et al., 2023).

    The ``num_heads`` query heads fall into ``num_kv_heads`` groups of
    ``num_heads // num_kv_heads``; the heads of a group attend over the
    same projected keys and values. ``num_kv_heads = num_heads`` is
    multi-head attention, ``num_kv_heads = 1`` is multi-query attention
    (Shazeer, 2019). ``key_proj`` and ``value_proj`` therefore give
    ``num_kv_heads * head_dim`` features, and a decoder caches that many
    per position and layer instead of ``embed_dim``.

    Args:
        embed_dim: the feature size of the query and of the output;
            divisible by ``num_heads``.
        num_heads: the number of query heads.
        num_kv_heads: the number of key-value heads; divides
            ``num_heads``.
        kdim, vdim, bias: as for :class:`MultiHeadAttention`.

    Shape:
        - query: ``(batch, tgt_len, embed_dim)``; keys
          ``(batch, src_len, kdim)``; values ``(batch, src_len, vdim)``;
          mask as for :class:`MultiHeadAttention` (**True = may attend**).
        - outputs: context ``(batch, tgt_len, embed_dim)``; weights
          ``(batch, num_heads, tgt_len, src_len)``.

    Raises:
        ValueError: ``num_kv_heads`` not a positive divisor of
            ``num_heads``.

    >>> gqa = GroupedQueryAttention(
    ...     embed_dim=8, num_heads=4, num_kv_heads=2
    ... )
    >>> states = torch.randn(3, 5, 8)  # (batch, seq_len, embed_dim)
    >>> context, weights = gqa(states, states, mask=causal_mask(5)[None])
    >>> tuple(context.shape), tuple(weights.shape)
    ((3, 5, 8), (3, 4, 5, 5))
    >>> gqa.key_proj.out_features  # 2 key heads of 2 features
    4
    """

    def __init__(
        self,
        embed_dim: int,
        num_heads: int,
        num_kv_heads: int,
        *,
        kdim: int | None = None,
        vdim: int | None = None,
        bias: bool = True,
    ) -> None:
        super().__init__(
            embed_dim, num_heads, kdim=kdim, vdim=vdim, bias=bias
        )
        if (
            not isinstance(num_kv_heads, int)
            or num_kv_heads < 1
            or num_heads % num_kv_heads != 0
        ):
            raise ValueError(
                "num_kv_heads must be a positive divisor of "
                f"num_heads={num_heads}, got {num_kv_heads!r}"
            )
        self.num_kv_heads = num_kv_heads
        kv_dim = num_kv_heads * self.head_dim
        self.key_proj = nn.Linear(self.kdim, kv_dim, bias=bias)
        self.value_proj = nn.Linear(self.vdim, kv_dim, bias=bias)
        for proj in (self.key_proj, self.value_proj):
            nn.init.xavier_uniform_(proj.weight)
            if proj.bias is not None:
                nn.init.zeros_(proj.bias)

    @property
    def group_size(self) -> int:
        """How many query heads share one key-value head."""
        return self.num_heads // self.num_kv_heads

    @classmethod
    def from_multihead(
        cls, mha: MultiHeadAttention, num_kv_heads: int | None = None
    ) -> GroupedQueryAttention:
        """A module with the weights of ``mha``.

        With ``num_kv_heads`` ``None`` (or ``mha.num_heads``) it computes
        exactly what ``mha`` computes. With fewer, each group's key and
        value projections are the mean of its heads' (Ainslie et al.'s
        "mean pooling" of a trained checkpoint), an approximation.
        """
        kv_heads = mha.num_heads if num_kv_heads is None else num_kv_heads
        has_bias = mha.query_proj.bias is not None
        gqa = cls(
            mha.embed_dim,
            mha.num_heads,
            kv_heads,
            kdim=mha.kdim,
            vdim=mha.vdim,
            bias=has_bias,
        )
        reference = mha.query_proj.weight
        gqa.to(device=reference.device, dtype=reference.dtype)
        group = mha.num_heads // kv_heads
        with torch.no_grad():
            for ours, theirs in (
                (gqa.query_proj, mha.query_proj),
                (gqa.out_proj, mha.out_proj),
            ):
                ours.load_state_dict(theirs.state_dict())
            for ours, theirs in (
                (gqa.key_proj, mha.key_proj),
                (gqa.value_proj, mha.value_proj),
            ):
                # (kv_heads, group, head_dim, in_features): a group's rows
                weight = theirs.weight.view(
                    kv_heads, group, mha.head_dim, -1
                ).mean(dim=1)
                ours.weight.copy_(weight.reshape(ours.weight.shape))
                if theirs.bias is not None and ours.bias is not None:
                    bias = theirs.bias.view(kv_heads, group, -1).mean(1)
                    ours.bias.copy_(bias.reshape(-1))
        return gqa

    def forward(
        self,
        query: Tensor,
        keys: Tensor,
        values: Tensor | None = None,
        mask: Tensor | None = None,
    ) -> tuple[Tensor, Tensor]:
        """Attend from every query position over the keys;
        return ``(context, weights)`` (see the class)."""
        values = keys if values is None else values
        head_mask = self._check_inputs(query, keys, values, mask)
        # (batch, heads, tgt_len, head_dim)
        q = self._split_heads(self.query_proj(query))
        # (batch, kv_heads, src_len, head_dim)
        k = self._split_kv_heads(self.key_proj(keys))
        v = self._split_kv_heads(self.value_proj(values))
        return self._attend(q, self._share(k), self._share(v), head_mask)

    def step(
        self, state: Tensor, cache: KVCache | None = None
    ) -> tuple[Tensor, Tensor, KVCache]:
        """Causal self-attention for one new position, reusing the keys
        and values of the earlier ones from ``cache``.

        Projects only the new ``state`` into a query, a key and a value,
        appends the key and value to the cache, and attends from the new
        query over every cached position. No mask is needed: the cache
        holds only the past and the present.

        Args:
            state: the new position's input, ``(batch, embed_dim)``.
            cache: what earlier calls returned; ``None`` at the first
                position.

        Returns:
            ``(context, weights, cache)``: context ``(batch, embed_dim)``,
            weights ``(batch, num_heads, positions)`` and the cache grown
            by one position.

        Shape:
            - cache keys, values: ``(batch, num_kv_heads, positions,
              head_dim)``.
        """
        if state.dim() != 2 or state.shape[-1] != self.embed_dim:
            raise ValueError(
                "state must have shape (batch, embed_dim="
                f"{self.embed_dim}), got {tuple(state.shape)}"
            )
        new = state[:, None, :]  # (batch, 1, embed_dim)
        q = self._split_heads(self.query_proj(new))
        k = self._split_kv_heads(self.key_proj(new))
        v = self._split_kv_heads(self.value_proj(new))
        if cache is not None:
            k = torch.cat([cache.keys, k], dim=2)
            v = torch.cat([cache.values, v], dim=2)
        context, weights = self._attend(
            q, self._share(k), self._share(v), None
        )
        return context[:, 0], weights[:, :, 0], KVCache(k, v)

    def _split_kv_heads(self, projected: Tensor) -> Tensor:
        """``(batch, len, num_kv_heads * head_dim)`` to ``(batch,
        num_kv_heads, len, head_dim)``."""
        batch, length, _ = projected.shape
        return projected.view(
            batch, length, self.num_kv_heads, self.head_dim
        ).transpose(1, 2)

    def _share(self, kv: Tensor) -> Tensor:
        """Give every query head its group's keys or values:
        ``(batch, num_kv_heads, len, head_dim)`` to ``(batch, num_heads,
        len, head_dim)``, query head ``h`` reading kv head
        ``h // group_size``."""
        return kv.repeat_interleave(self.group_size, dim=1)

    def extra_repr(self) -> str:
        return f"{super().extra_repr()}, num_kv_heads={self.num_kv_heads}"


def decode_with_cache(
    attn: GroupedQueryAttention, states: Tensor
) -> tuple[Tensor, KVCache]:
    """Causal self-attention over ``states`` one position at a time with
    :meth:`GroupedQueryAttention.step` and its cache: each position's key
    and value are projected once.

    Shape:
        - states: ``(batch, seq_len, embed_dim)``.
        - output: contexts ``(batch, seq_len, embed_dim)`` and the final
          cache.
    """
    cache: KVCache | None = None
    contexts = []
    for position in range(states.shape[1]):
        context, _, cache = attn.step(states[:, position], cache)
        contexts.append(context)
    if cache is None:
        raise ValueError("states must hold at least one position")
    return torch.stack(contexts, dim=1), cache


def decode_by_recomputing(
    attn: MultiHeadAttention, states: Tensor
) -> Tensor:
    """Causal self-attention over ``states`` one position at a time
    without a cache: at position ``t`` the whole prefix ``0 ... t`` is
    projected and attended again under :func:`causal_mask`, and only the
    last position is kept.

    Shape:
        - states: ``(batch, seq_len, embed_dim)``.
        - output: ``(batch, seq_len, embed_dim)``.
    """
    contexts = []
    for position in range(states.shape[1]):
        prefix = states[:, : position + 1]
        mask = causal_mask(position + 1, device=states.device)[None]
        context, _ = attn(prefix, prefix, mask=mask)
        contexts.append(context[:, -1])
    return torch.stack(contexts, dim=1)


def kv_cache_bytes(
    layers: int,
    positions: int,
    kv_heads: int,
    head_dim: int,
    bytes_per_value: int,
    *,
    batch: int = 1,
) -> int:
    """The bytes a decoder's key-value cache takes: a key and a value of
    ``head_dim`` numbers per key-value head, position, layer and
    sequence.

    .. math::

        2 \\times \\text{layers} \\times \\text{positions} \\times
        \\text{kv\\_heads} \\times \\text{head\\_dim} \\times
        \\text{bytes\\_per\\_value} \\times \\text{batch}

    >>> kv_cache_bytes(32, 4096, 32, 128, 2) / 2**30  # GiB, float16
    2.0
    """
    for name, size in (
        ("layers", layers),
        ("positions", positions),
        ("kv_heads", kv_heads),
        ("head_dim", head_dim),
        ("bytes_per_value", bytes_per_value),
        ("batch", batch),
    ):
        if not isinstance(size, int) or size < 1:
            raise ValueError(
                f"{name} must be a positive int, got {size!r}"
            )
    return (
        2
        * layers
        * positions
        * kv_heads
        * head_dim
        * bytes_per_value
        * batch
    )


def sliding_window_mask(
    length: int, window: int, *, device: torch.device | str | None = None
) -> Tensor:
    """The causal mask in which position ``i`` attends to the last
    ``window`` positions, ``i - window + 1 ... i``.

    **True = may attend**. ``window >= length`` gives :func:`causal_mask`;
    ``window = 1`` lets each position see only itself.

    Shape:
        - output: ``(length, length)``, dtype ``torch.bool``.

    >>> sliding_window_mask(4, 2).int()
    tensor([[1, 0, 0, 0],
            [1, 1, 0, 0],
            [0, 1, 1, 0],
            [0, 0, 1, 1]], dtype=torch.int32)
    """
    if not isinstance(window, int) or window < 1:
        raise ValueError(f"window must be a positive int, got {window!r}")
    # key j is at most window - 1 positions before query i
    return causal_mask(length, device=device).triu(-(window - 1))


def tiled_attention(
    query: Tensor, keys: Tensor, values: Tensor, block: int = 128
) -> Tensor:
    r"""Scaled dot-product attention computed over tiles, never holding the
    whole ``(tgt_len, src_len)`` table of scores: FlashAttention's loop
    (Dao et al., 2022) in plain PyTorch.

    For each block of queries, the keys come in blocks of ``block``. Each
    query keeps a running maximum :math:`\mu`, a running denominator
    :math:`\ell` and a running weighted sum :math:`o`; when a block of
    scores :math:`e_j` arrives and the maximum grows to :math:`\mu'`, the
    old sums are rescaled by :math:`e^{\mu - \mu'}` (the online softmax of
    Milakov and Gimelshein, 2018). After the last block the context is
    :math:`o / \ell`: exactly the softmax's, up to rounding.

    Args:
        query: ``(..., tgt_len, d_k)``.
        keys: ``(..., src_len, d_k)``.
        values: ``(..., src_len, d_v)``.
        block: the tile size, for queries and keys alike.

    Returns:
        The context ``(..., tgt_len, d_v)`` (no weights: they are never
        all in memory at once).
    """
    if not isinstance(block, int) or block < 1:
        raise ValueError(f"block must be a positive int, got {block!r}")
    if (
        keys.shape[-2] != values.shape[-2]
        or query.shape[-1] != keys.shape[-1]
    ):
        raise ValueError(
            "query (..., tgt_len, d_k), keys (..., src_len, d_k) and "
            "values "
            f"(..., src_len, d_v) disagree: got {tuple(query.shape)}, "
            f"{tuple(keys.shape)}, {tuple(values.shape)}"
        )
    scale = 1.0 / math.sqrt(query.shape[-1])
    outputs = []
    for q_start in range(0, query.shape[-2], block):
        q = query[..., q_start : q_start + block, :] * scale
        running_max = q.new_full((*q.shape[:-1], 1), float("-inf"))  # mu
        denominator = q.new_zeros((*q.shape[:-1], 1))  # ell
        weighted_sum = q.new_zeros((*q.shape[:-1], values.shape[-1]))  # o
        for k_start in range(0, keys.shape[-2], block):
            k = keys[..., k_start : k_start + block, :]
            v = values[..., k_start : k_start + block, :]
            scores = q @ k.transpose(-2, -1)  # (..., block, block)
            new_max = torch.maximum(
                running_max, scores.amax(dim=-1, keepdim=True)
            )
            rescale = torch.exp(running_max - new_max)
            unnormalised = torch.exp(scores - new_max)
            denominator = denominator * rescale + unnormalised.sum(
                dim=-1, keepdim=True
            )
            weighted_sum = weighted_sum * rescale + unnormalised @ v
            running_max = new_max
        outputs.append(weighted_sum / denominator)
    return torch.cat(outputs, dim=-2)


def elu_feature_map(x: Tensor) -> Tensor:
    """The feature map of Katharopoulos et al. (2020),
    ``elu(x) + 1``: positive everywhere, so every weight is positive."""
    return torch.nn.functional.elu(x) + 1.0


def linear_attention_weights(
    query: Tensor,
    keys: Tensor,
    feature_map: Callable[[Tensor], Tensor] = elu_feature_map,
) -> Tensor:
    r"""The weights linear attention gives, written out as a table:
    :math:`\alpha_{ij} = \phi(q_i)^\top \phi(k_j) / \sum_{j'}
    \phi(q_i)^\top \phi(k_{j'})`.

    :func:`linear_attention` never builds this table; it is here to look
    at (and to check against).

    Shape:
        - query: ``(..., tgt_len, d_k)``; keys ``(..., src_len, d_k)``.
        - output: ``(..., tgt_len, src_len)``, rows summing to one.
    """
    similarity = feature_map(query) @ feature_map(keys).transpose(-2, -1)
    return similarity / similarity.sum(dim=-1, keepdim=True)


def linear_attention(
    query: Tensor,
    keys: Tensor,
    values: Tensor,
    feature_map: Callable[[Tensor], Tensor] = elu_feature_map,
) -> Tensor:
    r"""Attention with a kernel feature map :math:`\phi` in place of the
    softmax (Katharopoulos et al., 2020), in time and memory linear in the
    length:

    .. math::

        c_i = \frac{\phi(q_i)^\top \sum_j \phi(k_j) v_j^\top}
                   {\phi(q_i)^\top \sum_j \phi(k_j)} .

    The sums over keys are computed once, a ``(d_k, d_v)`` matrix and a
    ``d_k`` vector, and shared by every query.

    Shape:
        - query: ``(..., tgt_len, d_k)``; keys ``(..., src_len, d_k)``;
          values ``(..., src_len, d_v)``.
        - output: ``(..., tgt_len, d_v)``, equal to
          ``linear_attention_weights(query, keys) @ values``.
    """
    phi_q, phi_k = feature_map(query), feature_map(keys)
    key_value_sum = phi_k.transpose(-2, -1) @ values  # (..., d_k, d_v)
    key_sum = phi_k.sum(dim=-2)  # (..., d_k)
    numerator = phi_q @ key_value_sum  # (..., tgt_len, d_v)
    denominator = (phi_q * key_sum[..., None, :]).sum(dim=-1, keepdim=True)
    return numerator / denominator
