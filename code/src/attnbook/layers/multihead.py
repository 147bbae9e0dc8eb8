r"""Multi-head attention, the Transformer's attention, built from the
book's scaled dot product.

One head is Luong's scaled dot score over *projected* queries,
keys and values:

.. math::

    \mathrm{head}_\eta = \mathrm{softmax}\!\left( \frac{(Q W^Q_\eta)(K
        W^K_\eta)^\top}{\sqrt{d_{\text{head}}}}\right) V W^V_\eta,
    \qquad \mathrm{MultiHead}(Q, K, V) = [\mathrm{head}_1;
    \dots; \mathrm{head}_{n_{\text{head}}}]\, W^O.

With ``num_heads`` heads (:math:`n_{\text{head}}`) of size ``head_dim =
embed_dim / num_heads`` (:math:`d_{\text{head}}`) it costs about what one
head of size ``embed_dim`` costs, but each head has its own softmax,
so different heads can look at different positions at once.

The call follows the package's convention, ``context, weights = mha(query,
keys, values=None, mask=None)``, with the mask's polarity **True = may
attend**: the opposite of ``key_padding_mask`` and ``attn_mask`` of
:class:`torch.nn.MultiheadAttention` (where True means "ignore").
Convert with ``~mask``.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor, nn

from attnbook.layers.attention import (
    _check_mask_dtype,
    _check_tensor,
    masked_softmax,
    optional_dropout,
)


def causal_mask(
    length: int, *, device: torch.device | str | None = None
) -> Tensor:
    """The boolean ``(length, length)`` mask that lets position ``i``
    attend to positions ``0 ... i``.

    True on and below the diagonal (**True = may attend**), so no position
    sees the future. Add a batch axis (``causal_mask(n)[None]``)
    or combine it with a padding mask by broadcasting (``pad_mask[:, None,
    :] & causal_mask(n)``) to pass it to :class:`MultiHeadAttention`.

    Args:
        length: the sequence length.
        device: where to create the mask.

    Shape:
        - output: ``(length, length)``, dtype ``torch.bool``.

    >>> causal_mask(3)
    tensor([[ True, False, False],
            [ True,  True, False],
            [ True,  True,  True]])
    """
    if not isinstance(length, int) or length < 1:
        raise ValueError(f"length must be a positive int, got {length!r}")
    return torch.ones(
        length, length, dtype=torch.bool, device=device
    ).tril()


class MultiHeadAttention(nn.Module):
    r"""Multi-head scaled dot-product attention (Vaswani et al., 2017).

    The query, keys and values are projected to ``embed_dim`` features each
    (``query_proj``, ``key_proj``, ``value_proj``), split into
    ``num_heads`` heads of ``head_dim = embed_dim // num_heads`` features,
    attended head by head with the scaled dot score :math:`q^\top k /
    \sqrt{d_{\text{head}}}`, and the heads' contexts are concatenated and
    projected by ``out_proj``. Self-attention passes one sequence as query
    and keys; cross-attention passes the decoder's states as query and the
    encoder's as keys.

    A masked position gets weight exactly 0;
    a row with no attendable position gets all-zero weights (and a context
    equal to ``out_proj``'s bias), never NaN, where
    :class:`torch.nn.MultiheadAttention` returns NaN. float16 and bfloat16
    stay finite. :meth:`from_torch` copies the weights of a
    :class:`torch.nn.MultiheadAttention`; the initialisation is the same as
    its (Xavier-uniform projections, zero biases).

    Args:
        embed_dim: the feature size of the query and of the output;
            divisible by ``num_heads``.
        num_heads: the number of heads :math:`n_{\text{head}}`.
        kdim: the feature size of the keys; ``None`` means ``embed_dim``.
        vdim: the feature size of the values;
            ``None`` means ``kdim``, so that ``values=None`` (the keys)
            works (``nn.MultiheadAttention`` takes ``embed_dim`` instead).
        bias: give the four projections a bias.
        dropout: the probability of zeroing an attention weight while
            training, before the weights mix the values (attention
            dropout, Vaswani et al., 2017, in their code); the weights
            returned are those before it. 0: none, and no random number
            drawn.

    Shape:
        - query: ``(batch, tgt_len, embed_dim)``.
        - keys: ``(batch, src_len, kdim)``; values:
          ``(batch, src_len, vdim)``, default ``keys``.
        - mask: boolean, **True = may attend**, ``(batch, src_len)``
          (padding) or ``(batch or 1, tgt_len, src_len)`` (for example
          :func:`causal_mask` with a batch axis);
          ``None`` attends everywhere. ``nn.MultiheadAttention``'s
          ``key_padding_mask`` is ``~mask``.
        - outputs: context ``(batch, tgt_len, embed_dim)``;
          weights ``(batch, num_heads, tgt_len, src_len)``, one attention
          matrix per head (average over axis 1 for
          ``nn.MultiheadAttention``'s default).

    Raises:
        ValueError: ``embed_dim`` not divisible by ``num_heads``;
            at call time, a wrong shape.
        TypeError: at call time, a float or integer mask, or inputs of
            another dtype than the module.

    >>> mha = MultiHeadAttention(embed_dim=8, num_heads=2)
    >>> states = torch.randn(3, 5, 8)  # (batch, seq_len, embed_dim)
    >>> context, weights = mha(states, states, mask=causal_mask(5)[None])
    >>> tuple(context.shape), tuple(weights.shape)
    ((3, 5, 8), (3, 2, 5, 5))
    >>> bool(
    ...     weights[0, :, 0, 1:].eq(0).all()
    ... )  # the first position sees only itself
    True
    """

    def __init__(
        self,
        embed_dim: int,
        num_heads: int,
        *,
        kdim: int | None = None,
        vdim: int | None = None,
        bias: bool = True,
        dropout: float = 0.0,
    ) -> None:
        super().__init__()
        if not 0.0 <= dropout < 1.0:
            raise ValueError(f"dropout must be in [0, 1), got {dropout!r}")
        for name, size in (
            ("embed_dim", embed_dim),
            ("num_heads", num_heads),
        ):
            if not isinstance(size, int) or size < 1:
                raise ValueError(
                    f"{name} must be a positive int, got {size!r}"
                )
        if embed_dim % num_heads != 0:
            raise ValueError(
                "embed_dim must be divisible by num_heads, got "
                f"embed_dim={embed_dim} and "
                f"num_heads={num_heads} (embed_dim % num_heads = "
                f"{embed_dim % num_heads})"
            )
        self.embed_dim, self.num_heads = embed_dim, num_heads
        self.head_dim = embed_dim // num_heads
        self.kdim = embed_dim if kdim is None else kdim
        self.vdim = self.kdim if vdim is None else vdim
        # W^Q, all heads side by side
        self.query_proj = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.key_proj = nn.Linear(self.kdim, embed_dim, bias=bias)  # W^K
        self.value_proj = nn.Linear(self.vdim, embed_dim, bias=bias)  # W^V
        self.out_proj = nn.Linear(embed_dim, embed_dim, bias=bias)  # W^O
        self.weight_dropout = optional_dropout(dropout)
        for proj in (self.query_proj, self.key_proj, self.value_proj):
            nn.init.xavier_uniform_(proj.weight)
        for proj in (
            self.query_proj,
            self.key_proj,
            self.value_proj,
            self.out_proj,
        ):
            if proj.bias is not None:
                nn.init.zeros_(proj.bias)

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
        # (batch, heads, src_len, head_dim)
        k = self._split_heads(self.key_proj(keys))
        # (batch, heads, src_len, head_dim)
        v = self._split_heads(self.value_proj(values))
        return self._attend(q, k, v, head_mask)

    def _attend(
        self, q: Tensor, k: Tensor, v: Tensor, head_mask: Tensor | None
    ) -> tuple[Tensor, Tensor]:
        """Scaled dot-product attention head by head over projected
        ``q`` ``(batch, heads, tgt_len, head_dim)`` and ``k``, ``v``
        ``(batch, heads, src_len, head_dim)``, then the heads joined and
        projected by ``out_proj``; returns ``(context, weights)``."""
        # (batch, heads, tgt_len, src_len)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.head_dim)
        weights = masked_softmax(scores, head_mask)
        # (batch, heads, tgt_len, head_dim)
        heads = self.weight_dropout(weights) @ v
        batch, _, tgt_len, _ = heads.shape
        merged = heads.transpose(1, 2).reshape(
            batch, tgt_len, self.embed_dim
        )  # [head_1; ...; head_H]
        return self.out_proj(merged), weights

    def _split_heads(self, projected: Tensor) -> Tensor:
        """``(batch, len, embed_dim)`` to ``(batch, num_heads,
        len, head_dim)``."""
        batch, length, _ = projected.shape
        return projected.view(
            batch, length, self.num_heads, self.head_dim
        ).transpose(1, 2)

    def _check_inputs(
        self,
        query: Tensor,
        keys: Tensor,
        values: Tensor,
        mask: Tensor | None,
    ) -> Tensor | None:
        """Check shapes, dtypes and the mask; return the mask shaped to
        broadcast over the heads."""
        for name, tensor, size in (
            ("query", query, ("tgt_len", "embed_dim", self.embed_dim)),
            ("keys", keys, ("src_len", "kdim", self.kdim)),
            ("values", values, ("src_len", "vdim", self.vdim)),
        ):
            _check_tensor(name, tensor)
            if tensor.dim() != 3 or tensor.shape[-1] != size[2]:
                raise ValueError(
                    f"{name} must have shape (batch, {size[0]}, "
                    f"{size[1]}={size[2]}), got {tuple(tensor.shape)}"
                )
        batch, tgt_len, _ = query.shape
        src_len = keys.shape[1]
        if keys.shape[0] != batch or values.shape[:2] != keys.shape[:2]:
            raise ValueError(
                "query, keys and values must share the batch size and "
                "keys and values the length: got "
                f"query {tuple(query.shape)}, keys {tuple(keys.shape)}, "
                f"values {tuple(values.shape)}"
            )
        dtype = self.query_proj.weight.dtype
        for name, tensor in (
            ("query", query),
            ("keys", keys),
            ("values", values),
        ):
            if tensor.dtype != dtype:
                raise TypeError(
                    f"{name} must have the module's dtype {dtype}, got "
                    f"{tensor.dtype}; "
                    f"convert one, e.g. mha.to({tensor.dtype})"
                )
        if mask is None:
            return None
        _check_mask_dtype(mask)
        if mask.shape == (batch, src_len):
            # (batch, 1, 1, src_len): the same for every head and query
            return mask[:, None, None, :]
        if (
            mask.dim() == 3
            and mask.shape[0] in (1, batch)
            and mask.shape[1:] == (tgt_len, src_len)
        ):
            return mask[:, None, :, :]  # (batch or 1, 1, tgt_len, src_len)
        raise ValueError(
            f"mask must have shape (batch={batch}, src_len={src_len}) or "
            f"(batch={batch} or 1, tgt_len={tgt_len}, src_len={src_len}) "
            "with True = may attend, "
            f"got {tuple(mask.shape)}"
        )

    @classmethod
    def from_torch(
        cls, module: nn.MultiheadAttention
    ) -> MultiHeadAttention:
        """A module with the weights of ``module``, giving the same outputs
        (in eval mode).

        ``nn.MultiheadAttention`` stores the three input projections either
        stacked in ``in_proj_weight`` (when ``kdim == vdim == embed_dim``)
        or as ``q_proj_weight``, ``k_proj_weight``, ``v_proj_weight``;
        both are handled. Its dropout is not copied (this module has none):
        compare the two in eval mode. Call the copy with
        ``mask = ~key_padding_mask`` (and ``~attn_mask``).

        Raises:
            TypeError: ``module`` is not an ``nn.MultiheadAttention``.
            ValueError: ``module`` uses ``add_bias_kv`` or
                ``add_zero_attn``, which this module lacks.
        """
        if not isinstance(module, nn.MultiheadAttention):
            raise TypeError(
                "module must be a torch.nn.MultiheadAttention, got "
                f"{type(module).__name__}"
            )
        if module.bias_k is not None or module.add_zero_attn:
            raise ValueError(
                "module must not use add_bias_kv or add_zero_attn: this "
                "module has no such keys"
            )
        has_bias = module.in_proj_bias is not None
        mha = cls(
            module.embed_dim,
            module.num_heads,
            kdim=module.kdim,
            vdim=module.vdim,
            bias=has_bias,
        )
        reference = module.out_proj.weight
        # before copying, so no digit is lost
        mha.to(device=reference.device, dtype=reference.dtype)
        if module.in_proj_weight is not None:
            weights = module.in_proj_weight.chunk(3)
        else:
            weights = (
                module.q_proj_weight,
                module.k_proj_weight,
                module.v_proj_weight,
            )
        biases = (
            module.in_proj_bias.chunk(3)
            if has_bias
            else (None, None, None)
        )
        projections = (mha.query_proj, mha.key_proj, mha.value_proj)
        with torch.no_grad():
            for proj, weight, proj_bias in zip(
                projections, weights, biases, strict=True
            ):
                proj.weight.copy_(weight)
                if proj_bias is not None:
                    proj.bias.copy_(proj_bias)
            mha.out_proj.weight.copy_(module.out_proj.weight)
            if has_bias:
                mha.out_proj.bias.copy_(module.out_proj.bias)
        return mha

    def extra_repr(self) -> str:
        return (
            f"embed_dim={self.embed_dim}, num_heads={self.num_heads}, "
            f"kdim={self.kdim}, vdim={self.vdim}"
        )
