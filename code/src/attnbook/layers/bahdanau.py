"""Additive attention (Bahdanau et al., 2015): the decoder's previous
state and each encoder state, projected, added, squashed and scored.

It follows the call convention of :mod:`attnbook.layers.attention`.
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

from attnbook.layers.attention import (
    _Attention,
    _check_projected_keys,
    _check_tensor,
)

# the names of the same three weights in the W1 / W2 / v convention
_W1_W2_V_TO_BAHDANAU = (
    ("W1.weight", "query_proj.weight"),
    ("W2.weight", "key_proj.weight"),
    ("v.weight", "v.weight"),
)


class BahdanauAttention(_Attention):
    r"""Additive attention (Bahdanau et al., 2015):
    :math:`e_j = v^\top \tanh(W q + U k_j)`.

    The query ``q`` is the *previous* decoder state :math:`s_{i-1}` and the
    keys ``k_j`` are the encoder states :math:`h_j`.
    The three parameters are bias-free: ``query_proj`` (:math:`W`),
    ``key_proj`` (:math:`U`) and ``v``. The key projection :math:`U h_j`
    does not depend on the decoder step, so it can be computed once per
    source sentence and passed to every step as ``projected_keys``:

    >>> attn = BahdanauAttention(query_dim=6, key_dim=8, attn_dim=4)
    >>> encoder_states = torch.randn(2, 5, 8)  # (batch, src_len, key_dim)
    >>> src_mask = torch.tensor(
    ...     [[True] * 5, [True] * 3 + [False] * 2]
    ... )  # True = may attend
    >>> projected = attn.project_keys(
    ...     encoder_states
    ... )  # (batch, src_len, attn_dim), once
    >>> decoder_state = torch.randn(2, 6)  # s_{i-1}: (batch, query_dim)
    >>> context, attn_weights = attn(
    ...     decoder_state,
    ...     encoder_states,
    ...     mask=src_mask,
    ...     projected_keys=projected,
    ... )
    >>> context.shape, attn_weights.shape
    (torch.Size([2, 8]), torch.Size([2, 5]))
    >>> attn_weights[1, 3:].tolist()  # the padding gets no weight
    [0.0, 0.0]

    Weights of a module whose layers are named ``W1`` (the query
    projection), ``W2`` (the key projection) and ``v`` load with
    :meth:`load_w1_w2_v_state_dict` or :meth:`from_w1_w2_v_state_dict`.
    Such modules often take ``(enc_dim, dec_dim, attn_dim)``;
    this one takes ``(query_dim, key_dim, attn_dim)``:
    the query comes first.

    Args:
        query_dim: feature size of the query (the decoder state).
        key_dim: feature size of the keys (the encoder states).
        attn_dim: size of the hidden layer inside the score.

    Shape:
        - query: ``(batch, query_dim)`` or ``(batch, tgt_len, query_dim)``.
        - keys: ``(batch, src_len, key_dim)``; values:
          ``(batch, src_len, value_dim)``, default ``keys``.
        - mask: ``(batch, src_len)``, boolean, **True = may attend** (the
          opposite of ``nn.MultiheadAttention``'s ``key_padding_mask``).
        - projected_keys: ``(batch, src_len, attn_dim)``, from
          :meth:`project_keys`; ``None`` projects the keys inside the call.
        - outputs: context ``(batch, [tgt_len,] value_dim)``, attn_weights
          ``(batch, [tgt_len,] src_len)``.
    """

    def __init__(
        self, query_dim: int, key_dim: int, attn_dim: int
    ) -> None:
        super().__init__()
        self.query_dim, self.key_dim, self.attn_dim = (
            query_dim,
            key_dim,
            attn_dim,
        )
        self.query_proj = nn.Linear(query_dim, attn_dim, bias=False)  # W
        self.key_proj = nn.Linear(key_dim, attn_dim, bias=False)  # U
        self.v = nn.Linear(attn_dim, 1, bias=False)

    def project_keys(self, keys: Tensor) -> Tensor:
        """Compute :math:`U k_j` for every source position:
        ``(batch, src_len, attn_dim)``."""
        keys = _check_tensor("keys", keys)
        if keys.dim() != 3 or keys.shape[-1] != self.key_dim:
            raise ValueError(
                "keys must have shape (batch, src_len, "
                f"key_dim={self.key_dim}), got {tuple(keys.shape)}"
            )
        return self.key_proj(keys)

    def _check_score_args(
        self, keys: Tensor, projected_keys: Tensor | None = None
    ) -> None:
        if projected_keys is not None:
            _check_projected_keys(
                projected_keys, (*keys.shape[:2], self.attn_dim), keys
            )

    def _score(
        self,
        query: Tensor,
        keys: Tensor,
        projected_keys: Tensor | None = None,
    ) -> Tensor:
        if projected_keys is None:
            # (batch, src_len, attn_dim)
            projected_keys = self.key_proj(keys)
        # (batch, tgt_len, attn_dim)
        projected_query = self.query_proj(query)
        hidden = torch.tanh(
            projected_query.unsqueeze(2) + projected_keys.unsqueeze(1)
        )  # (b, tgt, src, attn)
        return self.v(hidden).squeeze(-1)  # (batch, tgt_len, src_len)

    def load_w1_w2_v_state_dict(
        self, w1_w2_v_state_dict: dict[str, Tensor]
    ) -> None:
        """Load weights named ``W1``, ``W2`` and ``v``:
        ``W1 -> query_proj``, ``W2 -> key_proj``, ``v -> v``.

        Args:
            w1_w2_v_state_dict: the ``state_dict()`` of a module with
                bias-free ``W1`` (query projection,
                ``(attn_dim, query_dim)``), ``W2`` (key projection,
                ``(attn_dim, key_dim)``) and ``v`` (``(1, attn_dim)``).

        Raises:
            KeyError: a weight is missing. ValueError:
                a weight has the wrong shape.

        >>> attn = BahdanauAttention(query_dim=6, key_dim=8, attn_dim=4)
        >>> state = {
        ...     "W1.weight": torch.ones(4, 6),
        ...     "W2.weight": torch.ones(4, 8),
        ...     "v.weight": torch.ones(1, 4),
        ... }
        >>> attn.load_w1_w2_v_state_dict(state)
        >>> attn.query_proj.weight.sum().item()
        24.0
        """
        own = self.state_dict()
        renamed = {}
        for their_name, own_name in _W1_W2_V_TO_BAHDANAU:
            if their_name not in w1_w2_v_state_dict:
                raise KeyError(
                    f"the state dict has no {their_name!r}; it has "
                    f"{sorted(w1_w2_v_state_dict)}"
                )
            weight = w1_w2_v_state_dict[their_name]
            if weight.shape != own[own_name].shape:
                raise ValueError(
                    f"{their_name} must have shape "
                    f"{tuple(own[own_name].shape)} to load into "
                    f"{own_name}, "
                    f"got {tuple(weight.shape)}"
                )
            renamed[own_name] = weight
        self.load_state_dict(renamed)

    @classmethod
    def from_w1_w2_v_state_dict(
        cls, w1_w2_v_state_dict: dict[str, Tensor]
    ) -> BahdanauAttention:
        """Build a module of the right sizes from weights named ``W1``,
        ``W2``, ``v`` and load them.

        The sizes are read from the weights, so the constructor's argument
        order cannot be mixed up.

        >>> state = {
        ...     "W1.weight": torch.ones(4, 6),
        ...     "W2.weight": torch.ones(4, 8),
        ...     "v.weight": torch.ones(1, 4),
        ... }
        >>> BahdanauAttention.from_w1_w2_v_state_dict(state)
        BahdanauAttention(
          (query_proj): Linear(in_features=6, out_features=4, bias=False)
          (key_proj): Linear(in_features=8, out_features=4, bias=False)
          (v): Linear(in_features=4, out_features=1, bias=False)
        )
        """
        attn_dim, query_dim = w1_w2_v_state_dict["W1.weight"].shape
        key_dim = w1_w2_v_state_dict["W2.weight"].shape[1]
        attn = cls(query_dim, key_dim, attn_dim)
        attn.load_w1_w2_v_state_dict(w1_w2_v_state_dict)
        return attn
