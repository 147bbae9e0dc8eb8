"""An encoder-decoder for translation: a bidirectional GRU encoder and
three decoders (their modules: :mod:`attnbook.nmt.encoder`,
:mod:`attnbook.nmt.decoders`), its configuration, and the model.

- :class:`~attnbook.nmt.encoder.Encoder` reads the source both ways and
  returns one state per source position, :math:`h_j =
  [\\overrightarrow{h}_j; \\overleftarrow{h}_j]`, and a summary of the
  whole sentence.
- :class:`~attnbook.nmt.decoders.BahdanauDecoder` attends with the
  *previous* state :math:`s_{i-1}` as the query and feeds the context into
  the GRU and into the output layer, so its steps must run one after
  another.
- :class:`~attnbook.nmt.decoders.LuongDecoder` runs its GRU first and
  attends with the *current* state :math:`s_i`, then forms the
  attentional state :math:`\\tilde s_i = \\tanh(W_c [c_i; s_i])`.
  Without input feeding nothing flows from step ``i``'s attention into
  step ``i + 1``, so under teacher forcing the GRU runs over all steps in
  one call and attention covers all steps at once.
  Built with ``input_feeding=True`` it feeds :math:`\\tilde s_{i-1}` into
  step ``i`` (and must step); with ``local_window`` it attends locally
  (:class:`~attnbook.layers.local.LocalPAttention`).
- :class:`~attnbook.nmt.decoders.PlainDecoder` is the no-attention
  baseline: every step sees the same fixed-length summary :math:`c` of
  the source, the bottleneck attention removes.

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

from dataclasses import asdict, dataclass, field, fields
from typing import ClassVar

import torch
from torch import Tensor, nn

from attnbook.core.config import check_fields
from attnbook.nmt.decoders import (
    BahdanauDecoder,
    LuongDecoder,
    PlainDecoder,
    _Decoder,
)
from attnbook.nmt.encoder import Encoder, EncoderMemory
from attnbook.nmt.model import kept

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
            (parts of Luong's decoder, see
            :class:`~attnbook.nmt.decoders.LuongDecoder`)
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
        dropout: the probability of zeroing a feature while training (0:
            no dropout; inactive in evaluation mode): in the GRU
            encoder-decoder, of the embeddings (source and target), the
            encoder's states and what the output layer reads; in the
            Transformer, of the embeddings and every sublayer's output.

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
    dropout: float = field(
        default=0.0, metadata={"minimum": 0.0, "below": 1}
    )

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
            config.src_vocab_size,
            config.emb_dim,
            config.hidden_dim,
            dropout=config.dropout,
        )
        sizes = (
            config.tgt_vocab_size,
            config.emb_dim,
            config.hidden_dim,
            enc_dim,
        )
        if config.attention == "bahdanau":
            self.decoder: _Decoder = BahdanauDecoder(
                *sizes, attn_dim=config.attn_dim, dropout=config.dropout
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
                dropout=config.dropout,
            )
        else:
            self.decoder = PlainDecoder(*sizes, dropout=config.dropout)

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
        keep: Tensor | None = None,
    ) -> tuple[Tensor, Tensor | None]:
        """Teacher-forced logits and attention weights.
        ``parallel=False`` makes Luong's decoder step; ``keep`` selects
        positions' logits (:class:`~attnbook.nmt.model.TranslationModel`),
        after the output layer has run over every position."""
        logits, weights = self.decoder(
            tgt_in, self.encode(src, src_mask), parallel=parallel
        )
        return kept(logits, keep), weights
