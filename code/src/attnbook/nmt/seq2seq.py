"""An encoder-decoder for translation: a bidirectional GRU encoder and
three decoders.

- :class:`Encoder` reads the source both ways and returns one state per
  source position, :math:`h_j = [\\overrightarrow{h}_j;
  \\overleftarrow{h}_j]`, and a summary of the whole sentence.
- :class:`BahdanauDecoder` attends with the *previous* state
  :math:`s_{i-1}` as the query and feeds the context into the GRU and into
  the output layer, so its steps must run one after another.
- :class:`LuongDecoder` runs its GRU first and attends with the *current*
  state :math:`s_i`, then forms the attentional state :math:`\\tilde s_i =
  \\tanh(W_c [c_i; s_i])`. Without input feeding nothing flows from step
  ``i``'s attention into step ``i + 1``, so under teacher forcing the GRU
  runs over all steps in one call and attention covers all steps at once.
  Built with ``input_feeding=True`` it feeds :math:`\\tilde s_{i-1}` into
  step ``i`` (and must step); with ``local_window`` it attends locally
  (:class:`~attnbook.layers.local.LocalPAttention`).
- :class:`PlainDecoder` is the no-attention baseline:
  every step sees the same fixed-length summary :math:`c` of the source,
  the bottleneck attention removes.

Every decoder offers ``step`` (one token, used by search) and ``forward``
(all steps under teacher forcing); :class:`Seq2Seq` offers the interface
:class:`~attnbook.nmt.model.TranslationModel`.
Masks are boolean with **True = a real token that may be attended to**.
Decoding (greedy and beam search) lives in :mod:`attnbook.nmt.search`.

>>> import torch
>>> from attnbook.nmt.seq2seq import Seq2Seq, Seq2SeqConfig
>>> model = Seq2Seq(
...     Seq2SeqConfig(
...         src_vocab_size=10,
...         tgt_vocab_size=12,
...         emb_dim=4,
...         hidden_dim=6,
...         attn_dim=5,
...     )
... )
>>> src = torch.tensor([[4, 5, 2]])  # x_1 x_2 <eos>
>>> logits, weights = model(
...     src, src != 0, tgt_in=torch.tensor([[1, 7]])
... )  # <sos> y_1
>>> (
...     tuple(logits.shape),
...     tuple(weights.shape),
... )  # (batch, tgt_len, tgt_vocab), (batch, tgt_len, src_len)
((1, 2, 12), (1, 2, 3))
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields, replace
from typing import ClassVar

import torch
from torch import Tensor, nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from attnbook.core.config import check_fields
from attnbook.layers.bahdanau import BahdanauAttention
from attnbook.layers.local import LocalPAttention
from attnbook.layers.luong import LuongAttention
from attnbook.nmt.data import Vocab

# evaluating: also imported from here
from attnbook.nmt.model import decode_stepwise, evaluating  # noqa: F401

ATTENTION_KINDS = ("bahdanau", "luong", "none")
LUONG_SCORES = ("dot", "general", "concat", "location")


def check_model_choices(
    attention: str,
    luong_score: str,
    hidden_dim: int,
    *,
    input_feeding: bool = False,
    local_p: bool = False,
) -> None:
    """Refuse a combination of choices that could only fail later,
    inside a forward pass.

    The encoder is bidirectional, so its states have ``2 * hidden_dim``
    features while the decoder's state has ``hidden_dim``:
    Luong's ``dot`` score, which needs equal sizes, can never apply.
    (:class:`Seq2SeqConfig` also refuses the ``location`` score without
    ``max_src_len``.)

    Raises:
        ValueError: an unknown attention or score, ``dot`` with the
            bidirectional encoder, or input feeding or local-p attention
            (parts of Luong's decoder, see :class:`LuongDecoder`)
            with another decoder; the message names the fix.

    >>> check_model_choices("luong", "dot", hidden_dim=128)
    Traceback (most recent call last):
    ...
    ValueError: luong_score='dot' needs decoder states (hidden_dim=128) and
    encoder states (2 * hidden_dim=256) of one size, but the encoder is
    bidirectional: use luong_score='general' or 'concat'
    """
    if attention not in ATTENTION_KINDS:
        raise ValueError(
            f"attention must be one of {ATTENTION_KINDS}, got "
            f"{attention!r}"
        )
    if luong_score not in LUONG_SCORES:
        raise ValueError(
            f"luong_score must be one of {LUONG_SCORES}, got "
            f"{luong_score!r}"
        )
    for name, wanted in (
        ("input_feeding", input_feeding),
        ("local_p", local_p),
    ):
        if wanted and attention != "luong":
            raise ValueError(
                f"{name}=True belongs to Luong's decoder, but "
                f"attention={attention!r}: use attention='luong' "
                f"(--attention luong) or drop {name}"
            )
    if attention == "luong" and luong_score == "dot":
        raise ValueError(
            "luong_score='dot' needs decoder states "
            f"(hidden_dim={hidden_dim}) and encoder states "
            f"(2 * hidden_dim={2 * hidden_dim}) of one size, but the "
            "encoder is bidirectional: "
            "use luong_score='general' or 'concat'"
        )


@dataclass(frozen=True, kw_only=True)
class ModelConfig:
    """The choices and sizes of a :class:`Seq2Seq` model, without what the
    data decides.

    The one place the model's options are declared:
    :class:`Seq2SeqConfig` adds the vocabulary sizes and the longest
    source, the experiments nest it (chapter 6's run, the run on real
    sentences), and the command line's flags are made from its fields.

    Attributes:
        attention: the decoder: ``bahdanau``, ``luong`` or ``none``
            (no attention).
        emb_dim: the size of the token embeddings.
        hidden_dim: the GRU size, per direction in the encoder
            (so ``enc_dim = 2 * hidden_dim``) and of the decoder
            state ``dec_dim``.
        attn_dim: the hidden size of Bahdanau's additive score.
        luong_score: the score of the Luong decoder (``general``
            compares states of different sizes; ``dot`` cannot,
            as the encoder is bidirectional).
        input_feeding: Luong's input feeding, the previous attentional
            state fed to the next step.
        local_p: Luong's local-p attention: a predicted centre and a
            Gaussian window.
        local_window: the half-width D of the local-p window,
            in source positions.

    Raises:
        ValueError: a size below 1, or an impossible combination (see
            :func:`check_model_choices`).

    >>> ModelConfig(attention="luong", luong_score="concat").sized(
    ...     10, 12, max_src_len=8
    ... ).luong_score
    'concat'
    """

    attention: str = field(
        default="bahdanau", metadata={"choices": ATTENTION_KINDS}
    )
    emb_dim: int = field(default=64, metadata={"minimum": 1})
    hidden_dim: int = field(default=128, metadata={"minimum": 1})
    attn_dim: int = field(default=64, metadata={"minimum": 1})
    luong_score: str = field(
        default="general", metadata={"choices": LUONG_SCORES}
    )
    input_feeding: bool = False
    local_p: bool = False
    local_window: int = field(default=4, metadata={"minimum": 1})

    kind: ClassVar[str] = "seq2seq"
    """The kind of model these choices build, as checkpoints, records and
    ``--model`` name it."""

    def __post_init__(self) -> None:
        check_fields(self)
        check_model_choices(
            self.attention,
            self.luong_score,
            self.hidden_dim,
            input_feeding=self.input_feeding,
            local_p=self.local_p,
        )

    def sized(
        self,
        src_vocab_size: int,
        tgt_vocab_size: int,
        *,
        max_src_len: int | None,
    ) -> Seq2SeqConfig:
        """The full configuration of a model of these choices for
        these vocabularies."""
        choices = {
            item.name: getattr(self, item.name)
            for item in fields(ModelConfig)
        }
        return Seq2SeqConfig(
            src_vocab_size,
            tgt_vocab_size,
            max_src_len=max_src_len,
            **choices,
        )

    def build(
        self,
        src_vocab_size: int,
        tgt_vocab_size: int,
        *,
        max_src_len: int | None,
    ) -> Seq2Seq:
        """A fresh :class:`Seq2Seq` of these choices for these
        vocabularies (its weights drawn from torch's generator)."""
        return Seq2Seq(
            self.sized(
                src_vocab_size, tgt_vocab_size, max_src_len=max_src_len
            )
        )

    @property
    def attention_name(self) -> str:
        """The attention the model uses, as a run's summary names it."""
        return self.attention

    @property
    def falling_lr(self) -> bool:
        """Whether the model trains with a learning rate that falls to
        zero when the run leaves it open: Luong's decoder does, as in Luong
        et al. (2015, section 4.1), who halve their rate every epoch after
        the fifth; Bahdanau's decoder and the baseline keep a constant
        rate, the setting of chapter 6."""
        return self.attention == "luong"


@dataclass(frozen=True)
class Seq2SeqConfig(ModelConfig):
    """The sizes and choices that define a :class:`Seq2Seq` model (stored
    in its checkpoints).

    The fields of :class:`ModelConfig` (keyword-only), and:

    Attributes:
        src_vocab_size, tgt_vocab_size: the vocabulary sizes.
        max_src_len: the longest source sentence, in tokens,
            the model accepts (``None``: no limit, not allowed with the
            ``location`` score).

    Raises:
        ValueError: a size below 1, or an impossible combination (see
            :func:`check_model_choices`).
    """

    src_vocab_size: int = field(metadata={"minimum": 1})
    tgt_vocab_size: int = field(metadata={"minimum": 1})
    max_src_len: int | None = field(
        default=25, kw_only=True, metadata={"minimum": 1}
    )

    def __post_init__(self) -> None:
        super().__post_init__()
        if (
            self.attention == "luong"
            and self.luong_score == "location"
            and self.max_src_len is None
        ):
            raise ValueError(
                "luong_score='location' scores source positions, so it "
                "needs max_src_len: set max_src_len "
                "to the longest source sentence"
            )

    def to_dict(self) -> dict[str, int | str]:
        return asdict(self)


@dataclass
class EncoderMemory:
    """What the decoder needs from the encoder, per sentence.

    Attributes:
        states: ``(batch, src_len, enc_dim)`` encoder states :math:`h_j`;
            zero at padding.
        mask: ``(batch, src_len)`` bool, **True = may attend** (a real
            source token or ``<eos>``).
        final: ``(batch, enc_dim)`` the sentence summary:
            the forward GRU's last state and the backward GRU's state after
            reading the first word.
        projected_keys: the keys' projection, computed once per sentence
            for the steps that reuse it: Bahdanau's :math:`U h_j`,
            ``(batch, src_len, attn_dim)``, or the Luong general score's
            :math:`W_a h_j`, ``(batch, src_len, dec_dim)``;
            ``None`` for the other decoders.
    """

    states: Tensor
    mask: Tensor
    final: Tensor
    projected_keys: Tensor | None = None

    def index_select(self, index: Tensor) -> EncoderMemory:
        """The memory of the sentences ``index`` (repeats allowed: beam
        search copies each sentence)."""
        keys = (
            None
            if self.projected_keys is None
            else self.projected_keys.index_select(0, index)
        )
        return EncoderMemory(
            self.states.index_select(0, index),
            self.mask.index_select(0, index),
            self.final.index_select(0, index),
            keys,
        )


class Encoder(nn.Module):
    """A bidirectional GRU over the source (Schuster and Paliwal, 1997).

    Padding never reaches the GRU: the batch is packed by length,
    so the backward direction starts at each sentence's own last token
    rather than at the padding after it.

    Args:
        vocab_size: the source vocabulary size.
        emb_dim: the embedding size.
        hidden_dim: the GRU size per direction;
            the states have ``enc_dim = 2 * hidden_dim`` features.

    Shape:
        - src: ``(batch, src_len)`` token ids;
          src_mask: ``(batch, src_len)`` bool, True = real token.
        - returns states ``(batch, src_len, 2 * hidden_dim)`` (zero at
          padding) and the summary ``(batch, 2 * hidden_dim)``.
    """

    def __init__(
        self, vocab_size: int, emb_dim: int, hidden_dim: int
    ) -> None:
        super().__init__()
        self.embedding = nn.Embedding(
            vocab_size, emb_dim, padding_idx=Vocab.pad_id
        )
        self.rnn = nn.GRU(
            emb_dim, hidden_dim, batch_first=True, bidirectional=True
        )

    def forward(
        self, src: Tensor, src_mask: Tensor
    ) -> tuple[Tensor, Tensor]:
        lengths = src_mask.sum(dim=1)
        if bool((lengths == 0).any()):
            raise ValueError(
                "every source sentence needs at least one token: a row of "
                "src_mask is all False"
            )
        embedded = self.embedding(src)  # (batch, src_len, emb_dim)
        packed = pack_padded_sequence(
            embedded, lengths.cpu(), batch_first=True, enforce_sorted=False
        )
        # last: (2, batch, hidden_dim), forward then backward
        packed_states, last = self.rnn(packed)
        states, _ = pad_packed_sequence(
            packed_states, batch_first=True, total_length=src.size(1)
        )
        summary = torch.cat([last[0], last[1]], dim=-1)  # (batch, enc_dim)
        return states, summary


class _Decoder(nn.Module):
    """What the three decoders share: the embedding, the initial state and
    the step-by-step loop."""

    uses_attention = True

    def __init__(
        self, vocab_size: int, emb_dim: int, hidden_dim: int, enc_dim: int
    ) -> None:
        super().__init__()
        self.embedding = nn.Embedding(
            vocab_size, emb_dim, padding_idx=Vocab.pad_id
        )
        self.bridge = nn.Linear(enc_dim, hidden_dim)  # s_0 = tanh(W_s c)

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
    ) -> None:
        super().__init__(vocab_size, emb_dim, hidden_dim, enc_dim)
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
        embedded = self.embedding(prev_tokens)  # (batch, emb_dim)
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
        logits = self.out(torch.cat([state, context, embedded], dim=-1))
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
        embedded = self.embedding(tgt_in)  # (batch, tgt_len, emb_dim)
        state = self.init_state(memory)
        states, contexts, weights = [], [], []
        for step_embedded in embedded.unbind(
            dim=1
        ):  # unbind, not slicing: a cheaper backward
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
        return self.out(features), torch.stack(weights, dim=1)


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
    ) -> None:
        super().__init__(vocab_size, emb_dim, hidden_dim, enc_dim)
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
            current = self.rnn(
                torch.cat([embedded, fed], dim=-1), previous
            )  # s_i
        else:
            current = self.rnn(embedded.unsqueeze(1), state.unsqueeze(0))[
                1
            ].squeeze(0)  # s_i
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
            self.embedding(prev_tokens), state, memory
        )
        return self.out(attentional), state, weights

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
        embedded = self.embedding(tgt_in)
        if (
            self.input_feeding
        ):  # each step needs the last one's attention: step by step
            state = self.init_state(memory)
            attentional_states, step_weights = [], []
            for step_embedded in embedded.unbind(dim=1):
                attentional, state, weights = self.attentional_step(
                    step_embedded, state, memory
                )
                attentional_states.append(attentional)
                step_weights.append(weights)
            return self.out(
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
        return self.out(attentional), weights


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
        self, vocab_size: int, emb_dim: int, hidden_dim: int, enc_dim: int
    ) -> None:
        super().__init__(vocab_size, emb_dim, hidden_dim, enc_dim)
        self.rnn = nn.GRU(emb_dim + enc_dim, hidden_dim, batch_first=True)
        self.out = nn.Linear(hidden_dim + enc_dim + emb_dim, vocab_size)

    def step(
        self, prev_tokens: Tensor, state: Tensor, memory: EncoderMemory
    ) -> tuple[Tensor, Tensor, None]:
        embedded = self.embedding(prev_tokens)
        rnn_input = torch.cat([embedded, memory.final], dim=-1).unsqueeze(
            1
        )
        _, state = self.rnn(rnn_input, state.unsqueeze(0))
        state = state.squeeze(0)
        return (
            self.out(torch.cat([state, memory.final, embedded], dim=-1)),
            state,
            None,
        )

    def forward(
        self, tgt_in: Tensor, memory: EncoderMemory, parallel: bool = True
    ) -> tuple[Tensor, None]:
        """Teacher forcing in one GRU call (the summary is the same at
        every step; ``parallel`` changes nothing)."""
        embedded = self.embedding(tgt_in)
        summary = memory.final.unsqueeze(1).expand(-1, tgt_in.size(1), -1)
        states, _ = self.rnn(
            torch.cat([embedded, summary], dim=-1),
            self.init_state(memory).unsqueeze(0),
        )
        return self.out(
            torch.cat([states, summary, embedded], dim=-1)
        ), None


class Seq2Seq(nn.Module):
    """An encoder and one of the three decoders, built from a
    :class:`Seq2SeqConfig`.

    It offers the interface :class:`~attnbook.nmt.model.TranslationModel`.

    Shape:
        - src, src_mask: ``(batch, src_len)``; tgt_in:
          ``(batch, tgt_len)`` (``<sos> y_1 ... y_T``).
        - forward returns logits ``(batch, tgt_len, tgt_vocab)``
          and attention weights ``(batch, tgt_len, src_len)`` (``None`` for
          the baseline).
    """

    kind: ClassVar[str] = ModelConfig.kind
    config_class: ClassVar[type] = Seq2SeqConfig

    def __init__(self, config: Seq2SeqConfig) -> None:
        super().__init__()
        self.config = config
        enc_dim = 2 * config.hidden_dim
        self.encoder = Encoder(
            config.src_vocab_size, config.emb_dim, config.hidden_dim
        )
        sizes = (
            config.tgt_vocab_size,
            config.emb_dim,
            config.hidden_dim,
            enc_dim,
        )
        if config.attention == "bahdanau":
            self.decoder: _Decoder = BahdanauDecoder(
                *sizes, attn_dim=config.attn_dim
            )
        elif config.attention == "luong":
            self.decoder = LuongDecoder(
                *sizes,
                score=config.luong_score,
                max_src_len=config.max_src_len,
                input_feeding=config.input_feeding,
                local_window=config.local_window
                if config.local_p
                else None,
            )
        else:
            self.decoder = PlainDecoder(*sizes)

    @property
    def device(self) -> torch.device:
        return next(self.parameters()).device

    def encode(self, src: Tensor, src_mask: Tensor) -> EncoderMemory:
        """Run the encoder and prepare what every decoder step reuses."""
        states, summary = self.encoder(src, src_mask)
        return self.decoder.prepare(
            EncoderMemory(states, src_mask, summary)
        )

    def forward(
        self,
        src: Tensor,
        src_mask: Tensor,
        tgt_in: Tensor,
        *,
        parallel: bool = True,
    ) -> tuple[Tensor, Tensor | None]:
        """Teacher-forced logits and attention weights.
        ``parallel=False`` makes Luong's decoder step."""
        return self.decoder(
            tgt_in, self.encode(src, src_mask), parallel=parallel
        )
