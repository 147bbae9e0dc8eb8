"""Local attention with predicted alignment, "local-p" (Luong et al.,
2015, section 3.2).

The decoder state predicts where to look, a centre :math:`p_t`;
only the source positions within :math:`D` of it are scored,
and a Gaussian centred on :math:`p_t` then favours the positions nearest to
it. :class:`LocalPAttention` is called like every attention module of
:mod:`attnbook.layers.attention`::

    context, weights = attn(query, keys, values=None, mask=None)

with a boolean mask, **True = may attend** (any other dtype is a
``TypeError``). Luong's decoder uses it when built with ``local_window``
(:class:`~attnbook.nmt.decoders.LuongDecoder`).

>>> import torch
>>> attention = LocalPAttention(
...     query_dim=4, key_dim=6, score="general", window=1
... )
>>> mask = torch.tensor(
...     [[True, True, True, True, True], [True, True, False, False, False]]
... )
>>> context, weights = attention(
...     torch.randn(2, 4), torch.randn(2, 5, 6), mask=mask
... )
>>> tuple(context.shape), tuple(weights.shape)
((2, 6), (2, 5))
>>> (
...     bool((weights[1, 2:] == 0).all()),
...     bool((weights.sum(-1) <= 1).all()),
... )  # padding gets nothing
(True, True)
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

from attnbook.layers.attention import _Attention, _masked_softmax
from attnbook.layers.luong import LuongAttention


class LocalPAttention(_Attention):
    """Local attention with predicted alignment, "local-p" (Luong et al.,
    2015, section 3.2).

    For a decoder state :math:`h_t` and a source of :math:`S` attendable
    positions (the real tokens and ``<eos>``, numbered :math:`0 \\dots
    S-1`), the model predicts a centre and weighs a window around it:

    .. math::

        p_t = (S - 1)\\,\\sigma(v_p^\\top \\tanh(W_p h_t)),\\qquad a_t(s)
        = \\mathrm{softmax}_{|s' - p_t| \\le D}\\big(\\mathrm{score}(h_t,
        \\bar h_{s'})\\big)_s
                 \\exp\\Big(-\\frac{(s - p_t)^2}{2\\sigma_D^2}\\Big),\\quad
                 \\sigma_D = D / 2.

    Luong et al. write :math:`p_t = S\\,\\sigma(\\cdot)` with positions
    numbered from 1; numbering from 0 with :math:`S - 1` keeps :math:`p_t`
    on the sentence. The softmax runs over the positions inside the window
    that the mask allows, so positions outside it, and padding,
    get exactly 0. As the position nearest to :math:`p_t` is within
    :math:`1/2 \\le D` of it, every row with a real token has a non-empty
    window (no NaN, however short the sentence).
    Because of the Gaussian, a row's weights sum to at most 1 (less, unless
    all the window's weight sits exactly on :math:`p_t`), and the context
    :math:`c_t = \\sum_s a_t(s) \\bar h_s` is not renormalised,
    as in the paper. :math:`p_t` is differentiable through the Gaussian,
    so the centre is learned; the window's edges are not.

    Args:
        query_dim: the decoder state's size.
        key_dim: the encoder states' size.
        score: the :class:`~attnbook.layers.luong.LuongAttention` score
            inside the window.
        window: the half-width :math:`D`, in positions (at least 1).
        max_src_len: the longest source (``<eos>`` included);
            needed by the ``location`` score only.

    Shape:
        - query: ``(batch, query_dim)`` or ``(batch, tgt_len, query_dim)``.
        - keys: ``(batch, src_len, key_dim)``;
          values ``(batch, src_len, value_dim)``, default ``keys``.
        - mask: ``(batch, src_len)`` bool, **True = may attend**,
          the attendable positions first (padding at the end);
          ``None`` attends everywhere.
        - outputs: context ``(batch, [tgt_len,] value_dim)``, weights
          ``(batch, [tgt_len,] src_len)``.

    Raises:
        ValueError: ``window`` below 1, or inputs of the wrong shape.
        TypeError: a mask that is not boolean, or inputs that are not
            floating tensors.
    """

    def __init__(
        self,
        query_dim: int,
        key_dim: int,
        score: str = "general",
        window: int = 4,
        max_src_len: int | None = None,
    ) -> None:
        super().__init__()
        if window < 1:
            raise ValueError(
                "window (the half-width D) must be at least 1, got "
                f"{window}"
            )
        self.query_dim, self.key_dim = query_dim, key_dim
        self.scorer = LuongAttention(
            query_dim, key_dim, score=score, max_src_len=max_src_len
        )
        # W_p
        self.position_proj = nn.Linear(query_dim, query_dim, bias=False)
        self.position_v = nn.Linear(query_dim, 1, bias=False)  # v_p
        self.window = window
        self.sigma = window / 2

    def _score(self, query: Tensor, keys: Tensor) -> Tensor:
        # the score inside the window, before the window
        return self.scorer.scores(query, keys)

    def centre(self, query: Tensor, mask: Tensor) -> Tensor:
        """The predicted centres :math:`p_t`, ``(batch, tgt_len)``,
        for queries ``(batch, tgt_len, query_dim)``."""
        # S - 1, (batch,)
        last = (mask.sum(dim=-1) - 1).clamp_min(0).to(query.dtype)
        fraction = torch.sigmoid(
            self.position_v(torch.tanh(self.position_proj(query)))
        ).squeeze(-1)
        return last.unsqueeze(-1) * fraction

    def forward(
        self,
        query: Tensor,
        keys: Tensor,
        values: Tensor | None = None,
        mask: Tensor | None = None,
    ) -> tuple[Tensor, Tensor]:
        """Attend from ``query`` to the window around its predicted centre:
        ``(context, weights)``."""
        steps, values, one_step = self._check_inputs(
            query, keys, values, mask
        )  # (batch, tgt_len, query_dim)
        batch, src_len = keys.shape[0], keys.shape[1]
        if mask is None:
            mask = torch.ones(
                batch, src_len, dtype=torch.bool, device=keys.device
            )
        scores = self._score(steps, keys)  # (batch, tgt_len, src_len)
        # (batch, tgt_len, 1)
        centre = self.centre(steps, mask).unsqueeze(-1)
        positions = torch.arange(
            src_len, device=keys.device, dtype=centre.dtype
        )
        distance = positions - centre  # s - p_t, (batch, tgt_len, src_len)
        in_window = (distance.abs() <= self.window) & mask.unsqueeze(1)
        gaussian = torch.exp(-(distance**2) / (2 * self.sigma**2))
        # exactly 0 outside the window
        weights = _masked_softmax(scores, in_window) * gaussian
        context = weights @ values
        if one_step:
            return context.squeeze(1), weights.squeeze(1)
        return context, weights

    def extra_repr(self) -> str:
        return f"window={self.window}, sigma={self.sigma}"
