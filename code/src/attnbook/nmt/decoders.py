"""The three decoders of the recurrent translator, each over the
:class:`~attnbook.nmt.encoder.EncoderMemory` of a sentence.

- :class:`BahdanauDecoder` attends with the *previous* state
  :math:`s_{i-1}` as the query;
- :class:`LuongDecoder` attends with the *current* state :math:`s_i`
  and forms the attentional state (with input feeding, or local-p, as
  built);
- :class:`PlainDecoder` is the no-attention baseline.

:mod:`attnbook.nmt.seq2seq` says how they differ and builds them into one
model.
"""

from __future__ import annotations

from dataclasses import replace

import torch
from torch import Tensor, nn

from attnbook.layers.attention import optional_dropout
from attnbook.layers.bahdanau import BahdanauAttention
from attnbook.layers.local import LocalPAttention
from attnbook.layers.luong import LuongAttention
from attnbook.nmt.data import Vocab
from attnbook.nmt.encoder import EncoderMemory
from attnbook.nmt.model import decode_stepwise


class _Decoder(nn.Module):
    """What the three decoders share: the embedding, the initial state,
    the dropout and the step-by-step loop.

    ``dropout`` (keyword-only in every decoder) zeroes features of the
    target embeddings and of what the output layer reads, while training
    (0: none; :func:`~attnbook.layers.attention.optional_dropout`)."""

    uses_attention = True
    out: nn.Linear  # the output layer, each decoder's own

    def __init__(
        self,
        vocab_size: int,
        emb_dim: int,
        hidden_dim: int,
        enc_dim: int,
        *,
        dropout: float = 0.0,
    ) -> None:
        super().__init__()
        self.embedding = nn.Embedding(
            vocab_size, emb_dim, padding_idx=Vocab.pad_id
        )
        self.bridge = nn.Linear(enc_dim, hidden_dim)  # s_0 = tanh(W_s c)
        self.dropout = optional_dropout(dropout)

    def embed(self, tokens: Tensor) -> Tensor:
        """The target tokens' embeddings (dropped out while training)."""
        return self.dropout(self.embedding(tokens))

    def logits(self, features: Tensor) -> Tensor:
        """The output layer over ``features`` (dropped out while
        training)."""
        return self.out(self.dropout(features))

    def prepare(self, memory: EncoderMemory) -> EncoderMemory:
        """Precompute what every step reuses (Bahdanau: the key
        projection). Default: nothing."""
        return memory

    def init_state(self, memory: EncoderMemory) -> Tensor:
        """The first decoder state :math:`s_0 = \\tanh(W_s c)`,
        ``(batch, dec_dim)``."""
        return torch.tanh(self.bridge(memory.final))

    def step(
        self, prev_tokens: Tensor, state: Tensor, memory: EncoderMemory
    ) -> tuple[Tensor, Tensor, Tensor | None]:
        """One decoding step: ``(logits (batch, vocab), new state (batch,
        dec_dim), weights or None)``."""
        raise NotImplementedError

    def forward_stepwise(
        self, tgt_in: Tensor, memory: EncoderMemory
    ) -> tuple[Tensor, Tensor | None]:
        """Teacher forcing one step at a time: ``logits (batch, tgt_len,
        vocab)``, weights or ``None``."""
        return decode_stepwise(self, tgt_in, memory)


class BahdanauDecoder(_Decoder):
    """A GRU decoder with additive attention (Bahdanau et al., 2015).

    At step ``i`` the previous state :math:`s_{i-1}` is the query;
    the context :math:`c_i` joins the embedded previous token :math:`E
    y_{i-1}` as the GRU's input, and :math:`[s_i; c_i;
    E y_{i-1}]` feeds the output layer:

    .. math::

        \\alpha_i = \\mathrm{softmax}_j(v_a^\\top \\tanh(W_a s_{i-1} + U_a
        h_j)),\\quad c_i = \\sum_j \\alpha_{ij} h_j,\\quad s_i =
        \\mathrm{GRU}([E y_{i-1}; c_i], s_{i-1}).

    Because :math:`c_i` enters the GRU, step ``i + 1`` needs step ``i``'s
    attention: the steps run in order.

    Shape:
        - prev_tokens: ``(batch,)``; state: ``(batch, dec_dim)``.
        - step returns logits ``(batch, vocab)``, the new state and weights
          ``(batch, src_len)``.
    """

    def __init__(
        self,
        vocab_size: int,
        emb_dim: int,
        hidden_dim: int,
        enc_dim: int,
        attn_dim: int,
        *,
        dropout: float = 0.0,
    ) -> None:
        super().__init__(
            vocab_size, emb_dim, hidden_dim, enc_dim, dropout=dropout
        )
        self.attention = BahdanauAttention(
            query_dim=hidden_dim, key_dim=enc_dim, attn_dim=attn_dim
        )
        self.rnn = nn.GRUCell(emb_dim + enc_dim, hidden_dim)
        self.out = nn.Linear(hidden_dim + enc_dim + emb_dim, vocab_size)

    def prepare(self, memory: EncoderMemory) -> EncoderMemory:
        return replace(
            memory,
            projected_keys=self.attention.project_keys(memory.states),
        )

    def step(
        self, prev_tokens: Tensor, state: Tensor, memory: EncoderMemory
    ) -> tuple[Tensor, Tensor, Tensor]:
        embedded = self.embed(prev_tokens)  # (batch, emb_dim)
        context, weights = (
            self.attention(  # query: the previous state s_{i-1}
                state,
                memory.states,
                mask=memory.mask,
                projected_keys=memory.projected_keys,
            )
        )
        # s_i
        state = self.rnn(torch.cat([embedded, context], dim=-1), state)
        logits = self.logits(torch.cat([state, context, embedded], dim=-1))
        return logits, state, weights

    def forward(
        self, tgt_in: Tensor, memory: EncoderMemory, parallel: bool = True
    ) -> tuple[Tensor, Tensor]:
        """Teacher forcing over ``tgt_in`` ``(batch, tgt_len)``:
        logits and weights ``(batch, tgt_len, src_len)``.

        The recurrence runs step by step, whatever ``parallel`` asks;
        the embedding and the output layer, which do not feed back,
        run once over all steps.
        """
        embedded = self.embed(tgt_in)  # (batch, tgt_len, emb_dim)
        state = self.init_state(memory)
        states, contexts, weights = [], [], []
        # unbind, not slicing: a cheaper backward
        for step_embedded in embedded.unbind(dim=1):
            context, step_weights = self.attention(
                state,
                memory.states,
                mask=memory.mask,
                projected_keys=memory.projected_keys,
            )
            state = self.rnn(
                torch.cat([step_embedded, context], dim=-1), state
            )
            states.append(state)
            contexts.append(context)
            weights.append(step_weights)
        features = torch.cat(
            [torch.stack(states, 1), torch.stack(contexts, 1), embedded],
            dim=-1,
        )
        return self.logits(features), torch.stack(weights, dim=1)


class LuongDecoder(_Decoder):
    """A GRU decoder with Luong attention (Luong et al., 2015),
    with or without input feeding and local-p.

    The GRU runs first; its *current* state :math:`s_i` is the query;
    the attentional state :math:`\\tilde s_i = \\tanh(W_c [c_i; s_i])`
    feeds the output layer:

    .. math::

        s_i = \\mathrm{GRU}(E y_{i-1}, s_{i-1}),\\quad
        \\alpha_i = \\mathrm{softmax}_j(\\mathrm{score}(s_i, h_j)),\\quad
        \\tilde s_i = \\tanh(W_c [c_i; s_i]).

    Without input feeding nothing from step ``i``'s attention reaches step
    ``i + 1``, so :meth:`forward` runs the GRU over all target steps in one
    call and attends with all queries at once (``parallel=False`` runs the
    same computation one step at a time, for comparison).

    With **input feeding** (their section 3.3) the attentional state of the
    previous step joins the GRU's input, so the decoder knows where it has
    already looked:

    .. math::

        s_i = \\mathrm{GRU}([E y_{i-1}; \\tilde s_{i-1}], s_{i-1}),\\quad
        \\tilde s_0 = 0.

    Step ``i + 1`` then needs step ``i``'s attention, so the steps run one
    after another, as in Bahdanau's decoder (``parallel`` is ignored),
    and the state carried between steps (by :meth:`step` and by search)
    is the pair :math:`[s_i; \\tilde s_i]`, ``(batch, 2 * dec_dim)``.
    With ``local_window`` the attention is
    :class:`~attnbook.layers.local.LocalPAttention` (their section 3.2)
    instead of global.

    Args:
        score: a :class:`~attnbook.layers.luong.LuongAttention` score;
            ``"general"`` (default) allows ``dec_dim != enc_dim``.
        max_src_len: the longest source sentence (without ``<eos>``);
            needed by the ``location`` score.
        input_feeding: feed :math:`\\tilde s_{i-1}` into step ``i``.
        local_window: the half-width :math:`D` of local-p attention;
            ``None`` attends globally.

    Shape:
        - prev_tokens: ``(batch,)``; state: ``(batch, 2 * dec_dim)``
          with input feeding, else ``(batch, dec_dim)``.
        - forward: tgt_in ``(batch, tgt_len)`` -> logits
          ``(batch, tgt_len, vocab)``, weights
          ``(batch, tgt_len, src_len)``.

    >>> decoder = LuongDecoder(
    ...     12, emb_dim=4, hidden_dim=6, enc_dim=12, input_feeding=True
    ... )
    >>> # emb_dim + dec_dim: the previous attentional state joins the input
    >>> decoder.rnn.input_size
    10
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
        dropout: float = 0.0,
    ) -> None:
        super().__init__(
            vocab_size, emb_dim, hidden_dim, enc_dim, dropout=dropout
        )
        # + 1: the source <eos>
        longest = None if max_src_len is None else max_src_len + 1
        if local_window is None:
            self.attention: LuongAttention | LocalPAttention = (
                LuongAttention(
                    query_dim=hidden_dim,
                    key_dim=enc_dim,
                    score=score,
                    max_src_len=longest,
                )
            )
        else:
            self.attention = LocalPAttention(
                hidden_dim,
                enc_dim,
                score=score,
                window=local_window,
                max_src_len=longest,
            )
        # the keys' projection W_a h_j is computed once per sentence by the
        # global general score only
        self.projects_keys = local_window is None and score == "general"
        self.input_feeding = input_feeding
        if input_feeding:
            self.rnn: nn.GRU | nn.GRUCell = nn.GRUCell(
                emb_dim + hidden_dim, hidden_dim
            )  # [E y; s~_{i-1}]
        else:
            self.rnn = nn.GRU(emb_dim, hidden_dim, batch_first=True)
        self.combine = nn.Linear(
            enc_dim + hidden_dim, hidden_dim, bias=False
        )  # W_c
        self.out = nn.Linear(hidden_dim, vocab_size)

    def prepare(self, memory: EncoderMemory) -> EncoderMemory:
        """The general score's :math:`W_a h_j`, once per sentence (search
        and input feeding step)."""
        # only the global general score (a LuongAttention) projects keys
        attention = self.attention
        if self.projects_keys and isinstance(attention, LuongAttention):
            keys = attention.project_keys(memory.states)
            return replace(memory, projected_keys=keys)
        return memory

    def init_state(self, memory: EncoderMemory) -> Tensor:
        """:math:`s_0`, and with input feeding :math:`[s_0;
        \\tilde s_0 = 0]`."""
        first = super().init_state(memory)
        return (
            torch.cat([first, torch.zeros_like(first)], dim=-1)
            if self.input_feeding
            else first
        )

    def attend(
        self, query: Tensor, memory: EncoderMemory
    ) -> tuple[Tensor, Tensor]:
        """Attend from the current state(s) over the source, with the keys'
        projection where prepared."""
        if memory.projected_keys is None:
            return self.attention(query, memory.states, mask=memory.mask)
        return self.attention(
            query,
            memory.states,
            mask=memory.mask,
            projected_keys=memory.projected_keys,
        )

    def attentional_step(
        self, embedded: Tensor, state: Tensor, memory: EncoderMemory
    ) -> tuple[Tensor, ...]:
        """One step from the embedded previous token:
        ``(attentional state s~_i, new state, weights)``."""
        if self.input_feeding:
            previous, fed = state.chunk(2, dim=-1)  # s_{i-1}, s~_{i-1}
            # s_i
            current = self.rnn(
                torch.cat([embedded, fed], dim=-1), previous
            )
        else:
            # s_i: the GRU's last state
            _, last = self.rnn(embedded.unsqueeze(1), state.unsqueeze(0))
            current = last.squeeze(0)
        # query: the current state
        context, weights = self.attend(current, memory)
        attentional = torch.tanh(
            self.combine(torch.cat([context, current], dim=-1))
        )  # s~_i
        new_state = (
            torch.cat([current, attentional], dim=-1)
            if self.input_feeding
            else current
        )
        return attentional, new_state, weights

    def step(
        self, prev_tokens: Tensor, state: Tensor, memory: EncoderMemory
    ) -> tuple[Tensor, Tensor, Tensor]:
        attentional, state, weights = self.attentional_step(
            self.embed(prev_tokens), state, memory
        )
        return self.logits(attentional), state, weights

    def forward(
        self, tgt_in: Tensor, memory: EncoderMemory, parallel: bool = True
    ) -> tuple[Tensor, Tensor]:
        """Teacher forcing: logits ``(batch, tgt_len, vocab)`` and weights
        ``(batch, tgt_len, src_len)``."""
        if not parallel and not self.input_feeding:
            # the weights are never None
            return self.forward_stepwise(  # type: ignore[return-value]
                tgt_in,
                memory,
            )
        # (batch, tgt_len, emb_dim), once for all steps
        embedded = self.embed(tgt_in)
        # with input feeding each step needs the last one's attention:
        # step by step
        if self.input_feeding:
            state = self.init_state(memory)
            attentional_states, step_weights = [], []
            for step_embedded in embedded.unbind(dim=1):
                attentional, state, weights = self.attentional_step(
                    step_embedded, state, memory
                )
                attentional_states.append(attentional)
                step_weights.append(weights)
            return self.logits(
                torch.stack(attentional_states, dim=1)
            ), torch.stack(step_weights, dim=1)
        states, _ = self.rnn(
            embedded, self.init_state(memory).unsqueeze(0)
        )  # s_1 ... s_T in one call
        # every step at once
        context, weights = self.attend(states, memory)
        attentional = torch.tanh(
            self.combine(torch.cat([context, states], dim=-1))
        )
        return self.logits(attentional), weights


class PlainDecoder(_Decoder):
    """The no-attention baseline (Cho et al., 2014):
    every step sees the same summary :math:`c`.

    :math:`c` is the encoder's summary (the two directions' final states).
    It initialises the state, joins the GRU's input at every step and feeds
    the output layer, so the decoder is as strong as a fixed-length summary
    allows; there are no attention weights.
    """

    uses_attention = False

    def __init__(
        self,
        vocab_size: int,
        emb_dim: int,
        hidden_dim: int,
        enc_dim: int,
        *,
        dropout: float = 0.0,
    ) -> None:
        super().__init__(
            vocab_size, emb_dim, hidden_dim, enc_dim, dropout=dropout
        )
        self.rnn = nn.GRU(emb_dim + enc_dim, hidden_dim, batch_first=True)
        self.out = nn.Linear(hidden_dim + enc_dim + emb_dim, vocab_size)

    def step(
        self, prev_tokens: Tensor, state: Tensor, memory: EncoderMemory
    ) -> tuple[Tensor, Tensor, None]:
        embedded = self.embed(prev_tokens)
        rnn_input = torch.cat([embedded, memory.final], dim=-1).unsqueeze(
            1
        )
        _, state = self.rnn(rnn_input, state.unsqueeze(0))
        state = state.squeeze(0)
        features = torch.cat([state, memory.final, embedded], dim=-1)
        return self.logits(features), state, None

    def forward(
        self, tgt_in: Tensor, memory: EncoderMemory, parallel: bool = True
    ) -> tuple[Tensor, None]:
        """Teacher forcing in one GRU call (the summary is the same at
        every step; ``parallel`` changes nothing)."""
        embedded = self.embed(tgt_in)
        summary = memory.final.unsqueeze(1).expand(-1, tgt_in.size(1), -1)
        states, _ = self.rnn(
            torch.cat([embedded, summary], dim=-1),
            self.init_state(memory).unsqueeze(0),
        )
        return self.logits(
            torch.cat([states, summary, embedded], dim=-1)
        ), None
