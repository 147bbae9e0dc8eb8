"""Multiplicative attention (Luong et al., 2015): the dot, general,
concat and location scores of the decoder's current state.

It follows the call convention of :mod:`attnbook.layers.attention`;
local-p attention, which builds on it, is :mod:`attnbook.layers.local`.
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

from attnbook.layers.attention import (
    _Attention,
    _check_projected_keys,
    _check_tensor,
)

_LUONG_SCORES = ("dot", "general", "concat", "location")


class LuongAttention(_Attention):
    r"""Multiplicative attention (Luong et al., 2015), a family of
    four scores.

    The query is the *current* top-layer decoder state :math:`h_t`;
    the keys are the encoder states :math:`\bar h_s`.
    The score is chosen by ``score``:

    - ``"dot"``: :math:`h_t^\top \bar h_s`. No parameters;
      needs ``query_dim == key_dim``.
    - ``"general"``: :math:`h_t^\top W_a \bar h_s`, one bias-free
      ``key_proj`` with ``W_a`` of shape ``(query_dim, key_dim)``.
      :math:`W_a \bar h_s` does not depend on the decoder step,
      so a decoder that steps can compute it once per sentence with
      :meth:`project_keys` and pass it to every step as ``projected_keys``,
      as with :class:`BahdanauAttention`.
    - ``"concat"``: :math:`v_a^\top \tanh(W_a [h_t; \bar h_s])`,
      bias-free ``concat_proj`` (``W_a``, ``(attn_dim, query_dim +
      key_dim)``) and ``v``; ``attn_dim`` defaults to ``key_dim``.
    - ``"location"``: :math:`a_t = \mathrm{softmax}(W_a h_t)`,
      from the query alone. ``location_proj`` maps the query to
      ``max_src_len`` scores, one per source *position*, so ``max_src_len``
      must be fixed at construction; the scores beyond the batch's
      ``src_len`` are cut off, and a longer source is an error.
      The keys are used only for their length and as default values.

    Args:
        query_dim: feature size of the query (the decoder state).
        key_dim: feature size of the keys (the encoder states).
        score: ``"dot"``, ``"general"``, ``"concat"`` or ``"location"``.
        attn_dim: hidden size of the concat score;
            ``None`` means ``key_dim``. Ignored by other scores.
        max_src_len: the longest source the location score handles;
            required by it, ignored by others.

    Shape:
        - query: ``(batch, query_dim)`` or ``(batch, tgt_len, query_dim)``.
        - keys: ``(batch, src_len, key_dim)``; values:
          ``(batch, src_len, value_dim)``, default ``keys``.
        - mask: ``(batch, src_len)``, boolean, **True = may attend** (the
          opposite of ``nn.MultiheadAttention``'s ``key_padding_mask``).
        - projected_keys (``"general"`` only):
          ``(batch, src_len, query_dim)``, from :meth:`project_keys`;
          ``None`` projects the keys inside the call.
        - outputs: context ``(batch, [tgt_len,] value_dim)``, attn_weights
          ``(batch, [tgt_len,] src_len)``.

    Raises:
        ValueError: an unknown ``score``; ``"dot"`` with
            ``query_dim != key_dim``; ``"location"`` without
            ``max_src_len``; at call time, a source longer than
            ``max_src_len`` or ``projected_keys`` of the wrong shape.
        TypeError: at call time, ``projected_keys`` given to a score other
            than ``"general"``.

    >>> attn = LuongAttention(query_dim=8, key_dim=16, score="general")
    >>> context, attn_weights = attn(
    ...     torch.randn(2, 8), torch.randn(2, 5, 16)
    ... )  # one step, 5 positions
    >>> context.shape, attn_weights.shape
    (torch.Size([2, 16]), torch.Size([2, 5]))
    >>> LuongAttention(query_dim=8, key_dim=16, score="dot")
    Traceback (most recent call last):
        ...
    ValueError: score='dot' needs query_dim == key_dim, got query_dim=8 and
    key_dim=16; use score='general' ...
    """

    def __init__(
        self,
        query_dim: int,
        key_dim: int,
        score: str = "dot",
        attn_dim: int | None = None,
        max_src_len: int | None = None,
    ) -> None:
        super().__init__()
        if score not in _LUONG_SCORES:
            raise ValueError(
                f"score must be one of {_LUONG_SCORES}, got {score!r}"
            )
        if score == "dot" and query_dim != key_dim:
            raise ValueError(
                "score='dot' needs query_dim == key_dim, got "
                f"query_dim={query_dim} and key_dim={key_dim}; "
                "use score='general' to compare states of different sizes"
            )
        if score == "location" and (
            max_src_len is None or max_src_len < 1
        ):
            raise ValueError(
                "score='location' needs a positive max_src_len, got "
                f"{max_src_len!r}"
            )
        self.query_dim, self.key_dim, self.score = (
            query_dim,
            key_dim,
            score,
        )
        concat_dim = key_dim if attn_dim is None else attn_dim
        self.attn_dim = concat_dim if score == "concat" else None
        self.max_src_len = max_src_len if score == "location" else None
        if score == "general":
            # W_a
            self.key_proj = nn.Linear(key_dim, query_dim, bias=False)
        elif score == "concat":
            self.concat_proj = nn.Linear(
                query_dim + key_dim, concat_dim, bias=False
            )  # W_a
            self.v = nn.Linear(concat_dim, 1, bias=False)
        elif self.max_src_len is not None:  # the location score
            self.location_proj = nn.Linear(
                query_dim, self.max_src_len, bias=False
            )  # W_a

    def project_keys(self, keys: Tensor) -> Tensor:
        """The general score's :math:`W_a \\bar h_s` for every source
        position: ``(batch, src_len, query_dim)``.

        >>> attn = LuongAttention(query_dim=4, key_dim=6, score="general")
        >>> query, keys = torch.randn(2, 3, 4), torch.randn(2, 5, 6)
        >>> projected = attn.project_keys(keys)  # once per sentence
        >>> torch.equal(
        ...     attn.scores(query, keys, projected_keys=projected),
        ...     attn.scores(query, keys),
        ... )
        True
        """
        if self.score != "general":
            raise ValueError(
                "project_keys belongs to the general score (W_a h_s); "
                f"this module's score is {self.score!r}"
            )
        keys = _check_tensor("keys", keys)
        if keys.dim() != 3 or keys.shape[-1] != self.key_dim:
            raise ValueError(
                "keys must have shape (batch, src_len, "
                f"key_dim={self.key_dim}), got {tuple(keys.shape)}"
            )
        return self.key_proj(keys)

    def _check_score_args(
        self, keys: Tensor, **score_args: Tensor
    ) -> None:
        if self.score != "general" or set(score_args) - {"projected_keys"}:
            # only the general score takes projected_keys
            super()._check_score_args(keys, **score_args)
        elif score_args.get("projected_keys") is not None:
            expected = (*keys.shape[:2], self.query_dim)
            _check_projected_keys(
                score_args["projected_keys"], expected, keys, "query_dim"
            )

    def _score(
        self,
        query: Tensor,
        keys: Tensor,
        projected_keys: Tensor | None = None,
    ) -> Tensor:
        src_len = keys.shape[1]
        if self.score == "dot":
            return query @ keys.transpose(1, 2)
        if self.score == "general":
            if projected_keys is None:
                # W_a h_s: (batch, src_len, query_dim)
                projected_keys = self.key_proj(keys)
            return query @ projected_keys.transpose(1, 2)
        if self.score == "concat":
            tgt_len = query.shape[1]
            # every query beside every key: (batch, tgt_len, src_len,
            # query_dim) and (..., key_dim)
            query_rows = query.unsqueeze(2).expand(-1, -1, src_len, -1)
            key_columns = keys.unsqueeze(1).expand(-1, tgt_len, -1, -1)
            # [h_t; h_s] for every pair (t, s)
            pairs = torch.cat([query_rows, key_columns], dim=-1)
            return self.v(torch.tanh(self.concat_proj(pairs))).squeeze(-1)
        if src_len > self.location_proj.out_features:
            raise ValueError(
                f"keys has src_len={src_len} but this location score was "
                "built with "
                f"max_src_len={self.max_src_len}; build it with a larger "
                "max_src_len"
            )
        return self.location_proj(query)[..., :src_len]

    def extra_repr(self) -> str:
        return (
            f"query_dim={self.query_dim}, key_dim={self.key_dim}, "
            f"score={self.score!r}"
        )
