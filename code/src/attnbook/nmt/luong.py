"""Luong et al.'s (2015) two refinements of global attention: local-p attention and input feeding.

- :class:`LocalPAttention` (their section 3.2): the decoder state predicts where to look, a centre
  :math:`p_t`, and only the source positions within :math:`D` of it are scored; a Gaussian centred on
  :math:`p_t` then favours the positions nearest to it.
- :class:`LuongVariantDecoder` (their section 3.3, and the above): the Luong decoder of
  :mod:`attnbook.nmt.seq2seq` with **input feeding**, the attentional state :math:`\\tilde s_{i-1}` of step
  ``i - 1`` joined to the input of step ``i``, and/or local-p attention.

:class:`~attnbook.nmt.seq2seq.Seq2Seq` builds a :class:`LuongVariantDecoder` when its configuration asks
for ``input_feeding`` or ``local_p`` (``python -m attnbook train --attention luong --input-feeding
--local-p``). Masks are boolean with **True = may attend**.

>>> import torch
>>> attention = LocalPAttention(query_dim=4, key_dim=6, score="general", window=1)
>>> mask = torch.tensor([[True, True, True, True, True], [True, True, False, False, False]])
>>> context, weights = attention(torch.randn(2, 4), torch.randn(2, 5, 6), mask=mask)
>>> tuple(context.shape), tuple(weights.shape)
((2, 6), (2, 5))
>>> bool((weights[1, 2:] == 0).all()), bool((weights.sum(-1) <= 1).all())  # padding gets nothing
(True, True)
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

from attnbook.layers.attention import LuongAttention, masked_softmax
from attnbook.nmt.seq2seq import EncoderMemory, LuongDecoder


class LocalPAttention(nn.Module):
    """Local attention with predicted alignment, "local-p" (Luong et al., 2015, section 3.2).

    For a decoder state :math:`h_t` and a source of :math:`S` attendable positions (the real tokens and
    ``<eos>``, numbered :math:`0 \\dots S-1`), the model predicts a centre and weighs a window around it:

    .. math::

        p_t = (S - 1)\\,\\sigma(v_p^\\top \\tanh(W_p h_t)),\\qquad
        a_t(s) = \\mathrm{softmax}_{|s' - p_t| \\le D}\\big(\\mathrm{score}(h_t, \\bar h_{s'})\\big)_s
                 \\exp\\Big(-\\frac{(s - p_t)^2}{2\\sigma_D^2}\\Big),\\quad \\sigma_D = D / 2.

    Luong et al. write :math:`p_t = S\\,\\sigma(\\cdot)` with positions numbered from 1; numbering from 0
    with :math:`S - 1` keeps :math:`p_t` on the sentence. The softmax runs over the positions inside the
    window that the mask allows, so positions outside it, and padding, get exactly 0. As the position
    nearest to :math:`p_t` is within :math:`1/2 \\le D` of it, every row with a real token has a non-empty
    window (no NaN, however short the sentence). Because of the Gaussian, a row's weights sum to at most
    1 (less, unless all the window's weight sits exactly on :math:`p_t`), and the context
    :math:`c_t = \\sum_s a_t(s) \\bar h_s` is not renormalised, as in the paper. :math:`p_t` is
    differentiable through the Gaussian, so the centre is learned; the window's edges are not.

    Args:
        query_dim: the decoder state's size.
        key_dim: the encoder states' size.
        score: the :class:`~attnbook.layers.attention.LuongAttention` score inside the window.
        window: the half-width :math:`D`, in positions (at least 1).
        max_src_len: the longest source (``<eos>`` included); needed by the ``location`` score only.

    Shape:
        - query: ``(batch, query_dim)`` or ``(batch, tgt_len, query_dim)``.
        - keys: ``(batch, src_len, key_dim)``; values ``(batch, src_len, value_dim)``, default ``keys``.
        - mask: ``(batch, src_len)`` bool, **True = may attend**, the attendable positions first (padding
          at the end); ``None`` attends everywhere.
        - outputs: context ``(batch, [tgt_len,] value_dim)``, weights ``(batch, [tgt_len,] src_len)``.

    Raises:
        ValueError: ``window`` below 1, or a mask of the wrong shape or dtype.
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
            raise ValueError(f"window (the half-width D) must be at least 1, got {window}")
        self.scorer = LuongAttention(query_dim, key_dim, score=score, max_src_len=max_src_len)
        self.position_proj = nn.Linear(query_dim, query_dim, bias=False)  # W_p
        self.position_v = nn.Linear(query_dim, 1, bias=False)  # v_p
        self.window = window
        self.sigma = window / 2

    def centre(self, query: Tensor, mask: Tensor) -> Tensor:
        """The predicted centres :math:`p_t`, ``(batch, tgt_len)``, for queries ``(batch, tgt_len, query_dim)``."""
        last = (mask.sum(dim=-1) - 1).clamp_min(0).to(query.dtype)  # S - 1, (batch,)
        fraction = torch.sigmoid(self.position_v(torch.tanh(self.position_proj(query)))).squeeze(-1)
        return last.unsqueeze(-1) * fraction

    def forward(
        self, query: Tensor, keys: Tensor, values: Tensor | None = None, mask: Tensor | None = None
    ) -> tuple[Tensor, Tensor]:
        """Attend from ``query`` to the window around its predicted centre: ``(context, weights)``."""
        batch, src_len = keys.shape[0], keys.shape[1]
        if mask is None:
            mask = torch.ones(batch, src_len, dtype=torch.bool, device=keys.device)
        if mask.dtype != torch.bool or tuple(mask.shape) != (batch, src_len):
            raise ValueError(
                f"mask must be a bool tensor of shape (batch, src_len) = {(batch, src_len)}, "
                f"got {mask.dtype} {tuple(mask.shape)}"
            )
        values = keys if values is None else values
        one_step = query.dim() == 2
        steps = query.unsqueeze(1) if one_step else query  # (batch, tgt_len, query_dim)
        scores = self.scorer.scores(steps, keys)  # (batch, tgt_len, src_len); checks the shapes
        centre = self.centre(steps, mask).unsqueeze(-1)  # (batch, tgt_len, 1)
        positions = torch.arange(src_len, device=keys.device, dtype=centre.dtype)
        distance = positions - centre  # s - p_t, (batch, tgt_len, src_len)
        in_window = (distance.abs() <= self.window) & mask.unsqueeze(1)
        gaussian = torch.exp(-(distance**2) / (2 * self.sigma**2))
        weights = masked_softmax(scores, in_window) * gaussian  # exactly 0 outside the window
        context = weights @ values
        if one_step:
            return context.squeeze(1), weights.squeeze(1)
        return context, weights

    def extra_repr(self) -> str:
        return f"window={self.window}, sigma={self.sigma}"


class LuongVariantDecoder(LuongDecoder):
    """The Luong decoder with input feeding and/or local-p attention (Luong et al., 2015, 3.2 and 3.3).

    With **input feeding** the attentional state of the previous step joins the GRU's input, so the
    decoder knows where it has already looked:

    .. math::

        s_i = \\mathrm{GRU}([E y_{i-1}; \\tilde s_{i-1}], s_{i-1}),\\quad
        \\tilde s_i = \\tanh(W_c [c_i; s_i]),\\quad \\tilde s_0 = 0.

    Step ``i + 1`` now needs step ``i``'s attention, so the steps must run one after another, as in
    Bahdanau's decoder: :meth:`forward` cannot run the GRU over all steps in one call, and ignores
    ``parallel``. The state carried between steps (by :meth:`step` and by search) is the pair
    :math:`[s_i; \\tilde s_i]`, ``(batch, 2 * dec_dim)``. Without input feeding (local-p alone) the
    decoder is :class:`~attnbook.nmt.seq2seq.LuongDecoder` with :class:`LocalPAttention`, and all steps
    still run at once.

    Args:
        vocab_size, emb_dim, hidden_dim, enc_dim, score, max_src_len: as for
            :class:`~attnbook.nmt.seq2seq.LuongDecoder`.
        input_feeding: feed :math:`\\tilde s_{i-1}` into step ``i``.
        local_window: the half-width :math:`D` of local-p attention; ``None`` attends globally.

    Shape:
        - prev_tokens: ``(batch,)``; state: ``(batch, 2 * dec_dim)`` with input feeding, else
          ``(batch, dec_dim)``.
        - forward: tgt_in ``(batch, tgt_len)`` -> logits ``(batch, tgt_len, vocab)``, weights
          ``(batch, tgt_len, src_len)``.

    >>> import torch
    >>> from attnbook.nmt.seq2seq import Seq2Seq, Seq2SeqConfig
    >>> config = Seq2SeqConfig(10, 12, attention="luong", emb_dim=4, hidden_dim=6, input_feeding=True)
    >>> model = Seq2Seq(config)
    >>> type(model.decoder).__name__, model.decoder.rnn.input_size  # emb_dim + dec_dim
    ('LuongVariantDecoder', 10)
    >>> src = torch.tensor([[4, 5, 2]])
    >>> logits, weights = model(src, src != 0, tgt_in=torch.tensor([[1, 7]]))
    >>> tuple(logits.shape), tuple(weights.shape)
    ((1, 2, 12), (1, 2, 3))
    """

    def __init__(
        self,
        vocab_size: int,
        emb_dim: int,
        hidden_dim: int,
        enc_dim: int,
        score: str = "general",
        max_src_len: int | None = None,
        *,
        input_feeding: bool = False,
        local_window: int | None = None,
    ) -> None:
        super().__init__(vocab_size, emb_dim, hidden_dim, enc_dim, score=score, max_src_len=max_src_len)
        self.input_feeding = input_feeding
        if local_window is not None:
            self.attention = LocalPAttention(
                hidden_dim,
                enc_dim,
                score=score,
                window=local_window,
                max_src_len=None if max_src_len is None else max_src_len + 1,  # + 1: the source <eos>
            )
        if input_feeding:
            self.rnn = nn.GRUCell(emb_dim + hidden_dim, hidden_dim)  # input: [E y_{i-1}; s~_{i-1}]

    def init_state(self, memory: EncoderMemory) -> Tensor:
        """:math:`s_0`, and with input feeding :math:`[s_0; \\tilde s_0 = 0]`."""
        first = super().init_state(memory)
        return torch.cat([first, torch.zeros_like(first)], dim=-1) if self.input_feeding else first

    def _feed_step(self, embedded: Tensor, state: Tensor, memory: EncoderMemory) -> tuple[Tensor, ...]:
        """One input-fed step: ``(attentional state, new [s_i; s~_i], weights)``."""
        previous, fed = state.chunk(2, dim=-1)  # s_{i-1}, s~_{i-1}
        current = self.rnn(torch.cat([embedded, fed], dim=-1), previous)  # s_i
        context, weights = self.attend(current, memory)
        attentional = torch.tanh(self.combine(torch.cat([context, current], dim=-1)))  # s~_i
        return attentional, torch.cat([current, attentional], dim=-1), weights

    def step(
        self, prev_tokens: Tensor, state: Tensor, memory: EncoderMemory
    ) -> tuple[Tensor, Tensor, Tensor]:
        if not self.input_feeding:
            return super().step(prev_tokens, state, memory)
        attentional, state, weights = self._feed_step(self.embedding(prev_tokens), state, memory)
        return self.out(attentional), state, weights

    def forward(self, tgt_in: Tensor, memory: EncoderMemory, parallel: bool = True) -> tuple[Tensor, Tensor]:
        """Teacher forcing; with input feeding always step by step (``parallel`` is then ignored)."""
        if not self.input_feeding:
            return super().forward(tgt_in, memory, parallel=parallel)
        embedded = self.embedding(tgt_in)  # (batch, tgt_len, emb_dim), once for all steps
        state = self.init_state(memory)
        attentional_states, weights = [], []
        for step_embedded in embedded.unbind(dim=1):
            attentional, state, step_weights = self._feed_step(step_embedded, state, memory)
            attentional_states.append(attentional)
            weights.append(step_weights)
        return self.out(torch.stack(attentional_states, dim=1)), torch.stack(weights, dim=1)
