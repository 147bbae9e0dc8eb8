r"""A small Transformer encoder-decoder (Vaswani et al., 2017)
built from :class:`MultiHeadAttention`.

It offers the interface :class:`~attnbook.nmt.model.TranslationModel`,
as :class:`~attnbook.nmt.seq2seq.Seq2Seq` does, so the package's
:func:`~attnbook.nmt.training.train`,
:class:`~attnbook.nmt.translator.Translator`,
:func:`~attnbook.nmt.evaluation.evaluate`,
:func:`~attnbook.nmt.search.greedy_decode` and
:func:`~attnbook.nmt.search.beam_search` serve it unchanged:

- ``model(src, src_mask, tgt_in)`` returns the logits and one attention
  matrix per target step;
- ``model.encode(src, src_mask)`` returns the memory the decoder reads;
- ``model.decoder.init_state(memory)`` and
  ``model.decoder.step(prev_tokens, state, memory)`` decode one token at a
  time. A Transformer decoder has no recurrent state:
  its "state" is a cache of every layer's input at the positions decoded so
  far, which the new position attends over.

The layers are pre-norm by default (``x + sublayer(LayerNorm(x))``,
Xiong et al., 2020), which trains without a learning-rate warm-up;
``norm_first=False`` gives the original post-norm layers
(``LayerNorm(x + sublayer(x))``, Vaswani et al., 2017).
Dropout (off by default) falls on the embeddings and on every sublayer's
output before it joins the residual stream, as in the original.
Positions enter as sinusoids added to the embeddings.
Masks are boolean with **True = may attend**.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field, fields
from typing import ClassVar, cast

import torch
from torch import Tensor, nn

from attnbook.core.config import check_fields
from attnbook.layers.attention import optional_dropout
from attnbook.layers.multihead import MultiHeadAttention, causal_mask
from attnbook.nmt.data import Vocab
from attnbook.nmt.model import decode_stepwise, kept


def sinusoidal_positions(
    length: int, dim: int, *, device: torch.device | str | None = None
) -> Tensor:
    r"""The sinusoidal position codes :math:`P_{t, 2l} = \sin(t /
    10000^{2l/d})`, :math:`P_{t, 2l+1} = \cos(\cdot)`.

    Each pair of features turns at its own frequency, so every position
    gets a distinct code and a fixed offset is a rotation of each pair,
    the same at every position.

    Args:
        length: the number of positions ``0 ... length - 1``.
        dim: the feature size ``d`` (even).

    Shape:
        - output: ``(length, dim)``, float32.

    >>> sinusoidal_positions(4, 6).shape
    torch.Size([4, 6])
    """
    if dim % 2 != 0 or dim < 2:
        raise ValueError(f"dim must be a positive even number, got {dim}")
    position = torch.arange(
        length, dtype=torch.float32, device=device
    ).unsqueeze(1)  # (length, 1)
    frequency = torch.exp(
        -math.log(10000.0) * torch.arange(0, dim, 2, device=device) / dim
    )  # (dim / 2,)
    codes = torch.zeros(length, dim, device=device)
    codes[:, 0::2] = torch.sin(position * frequency)
    codes[:, 1::2] = torch.cos(position * frequency)
    return codes


@dataclass(frozen=True, kw_only=True)
class TransformerSizes:
    """The sizes of a :class:`Transformer`, without what the data decides
    (the command line's flags).

    Attributes:
        d_model: the size of every token's state (embeddings, attention,
            residual stream).
        num_heads: attention heads per attention module;
            d_model must be divisible by it.
        num_layers: encoder layers and decoder layers (as many of each).
        ff_dim: the hidden size of each layer's feed-forward network.
        norm_first: pre-norm layers, x + sublayer(norm(x)), with a final
            layer norm after the last layer; off, the original post-norm
            layers, norm(x + sublayer(x)), with none.
        dropout: the probability of zeroing a feature of the embeddings
            and of every sublayer's output before the residual sum, while
            training (0: no dropout; inactive in evaluation mode).
        attention_dropout: the probability of zeroing an attention
            weight while training, in every attention module, before the
            weights mix the values (0: none; the weights a heatmap shows
            are always those before it).
        causal: the decoder's self-attention hides later target
            positions. Off, every target position sees the whole reference
            in training: only to show what the mask prevents (chapter 9);
            search still decodes one token at a time, and so never sees
            the future.
        tie_embeddings: the output layer's weight matrix is the target
            embedding matrix, one parameter for both (Press and Wolf,
            2017; Vaswani et al., 2017): a word's logit is the final
            state's dot product with that word's embedding (plus the
            output bias). The shapes always match, one row of d_model
            features per French word; the source embedding stays apart,
            as the vocabularies differ.

    Raises:
        ValueError: a size below 1, a ``d_model`` that is odd or not
            divisible by ``num_heads``, or a dropout outside [0, 1).
    """

    d_model: int = field(default=64, metadata={"minimum": 2})
    num_heads: int = field(default=4, metadata={"minimum": 1})
    num_layers: int = field(default=2, metadata={"minimum": 1})
    ff_dim: int = field(default=128, metadata={"minimum": 1})
    norm_first: bool = True
    dropout: float = field(
        default=0.0, metadata={"minimum": 0.0, "below": 1}
    )
    attention_dropout: float = field(
        default=0.0, metadata={"minimum": 0.0, "below": 1}
    )
    causal: bool = True
    tie_embeddings: bool = False

    kind: ClassVar[str] = "transformer"
    """The kind of model these sizes build, as checkpoints, records and
    ``--model`` name it."""
    attention_name: ClassVar[str] = "multi-head"
    """The attention the model uses, as a run's summary names it."""
    falling_lr: ClassVar[bool] = True
    """The Transformer trains with a learning rate that falls to zero
    when the run leaves it open (chapter 9)."""

    def __post_init__(self) -> None:
        check_fields(self)
        if self.d_model % self.num_heads != 0 or self.d_model % 2 != 0:
            raise ValueError(
                "d_model must be even and divisible by num_heads, got "
                f"d_model={self.d_model} and "
                f"num_heads={self.num_heads}"
            )

    def sized(
        self, src_vocab_size: int, tgt_vocab_size: int, *, max_src_len: int
    ) -> TransformerConfig:
        """The full configuration of a model of these sizes for
        these vocabularies."""
        sizes = {
            item.name: getattr(self, item.name)
            for item in fields(TransformerSizes)
        }
        return TransformerConfig(
            src_vocab_size,
            tgt_vocab_size,
            max_src_len=max_src_len,
            **sizes,
        )

    def build(
        self, src_vocab_size: int, tgt_vocab_size: int, *, max_src_len: int
    ) -> Transformer:
        """A fresh :class:`Transformer` of these sizes for these
        vocabularies (its weights drawn from torch's generator)."""
        return Transformer(
            self.sized(
                src_vocab_size, tgt_vocab_size, max_src_len=max_src_len
            )
        )


@dataclass(frozen=True)
class TransformerConfig(TransformerSizes):
    """The sizes of a :class:`Transformer`: those of
    :class:`TransformerSizes` (keyword-only), and:

    Attributes:
        src_vocab_size, tgt_vocab_size: the vocabulary sizes.
        max_src_len: the longest source sentence, in tokens,
            the model accepts.
    """

    src_vocab_size: int = field(metadata={"minimum": 1})
    tgt_vocab_size: int = field(metadata={"minimum": 1})
    max_src_len: int = field(
        default=25, kw_only=True, metadata={"minimum": 1}
    )

    def to_dict(self) -> dict[str, int | float | bool]:
        return asdict(self)


def _feed_forward(d_model: int, ff_dim: int) -> nn.Sequential:
    return nn.Sequential(
        nn.Linear(d_model, ff_dim), nn.ReLU(), nn.Linear(ff_dim, d_model)
    )


class _ResidualLayer(nn.Module):
    """What the encoder's and the decoder's layers share: how a sublayer
    sits in its residual branch with its LayerNorm ``norm``.

    Pre-norm: ``x + dropout(sublayer(norm(x)))``;
    post-norm: ``norm(x + dropout(sublayer(x)))``.
    """

    norm_first: bool
    dropout: nn.Module
    norm_ff: nn.Module
    feed_forward: nn.Module

    def sublayer_input(self, norm: nn.Module, states: Tensor) -> Tensor:
        """What a sublayer reads: the normed states (pre-norm) or the
        states themselves (post-norm)."""
        return norm(states) if self.norm_first else states

    def join(
        self, norm: nn.Module, states: Tensor, sublayer_output: Tensor
    ) -> Tensor:
        """Add a sublayer's output to the residual stream ``states``."""
        joined = states + self.dropout(sublayer_output)
        return joined if self.norm_first else norm(joined)

    def feed_forward_branch(self, states: Tensor) -> Tensor:
        read = self.sublayer_input(self.norm_ff, states)
        return self.join(self.norm_ff, states, self.feed_forward(read))


class EncoderLayer(_ResidualLayer):
    """Self-attention over the source, then a feed-forward network;
    each in a residual branch with a LayerNorm (pre-norm by default).

    Args:
        d_model, num_heads, ff_dim: the sizes.
        norm_first: pre-norm (true) or post-norm (false) residuals.
        dropout: the dropout on each sublayer's output (0: none).
        attention_dropout: the dropout on the attention weights (0: none).

    Shape:
        - states: ``(batch, src_len, d_model)``; src_mask: ``(batch,
          src_len)`` bool, True = may attend; returns ``(batch, src_len,
          d_model)``.
    """

    def __init__(
        self,
        d_model: int,
        num_heads: int,
        ff_dim: int,
        *,
        norm_first: bool = True,
        dropout: float = 0.0,
        attention_dropout: float = 0.0,
    ) -> None:
        super().__init__()
        self.self_attn = MultiHeadAttention(
            d_model, num_heads, dropout=attention_dropout
        )
        self.norm_attn, self.norm_ff = (
            nn.LayerNorm(d_model),
            nn.LayerNorm(d_model),
        )
        self.feed_forward = _feed_forward(d_model, ff_dim)
        self.norm_first = norm_first
        self.dropout = optional_dropout(dropout)

    def forward(self, states: Tensor, src_mask: Tensor) -> Tensor:
        read = self.sublayer_input(self.norm_attn, states)
        attended = self.self_attn(read, read, mask=src_mask)[0]
        states = self.join(self.norm_attn, states, attended)
        return self.feed_forward_branch(states)


class DecoderLayer(_ResidualLayer):
    """Causal self-attention, cross-attention over the encoder's states,
    a feed-forward network; each in a residual branch with a LayerNorm
    (pre-norm by default).

    The cross-attention is the seq2seq attention of the recurrent models:
    the decoder's states are the queries, the encoder's states the keys and
    values, the source padding mask its mask.

    Args:
        d_model, num_heads, ff_dim: the sizes.
        norm_first: pre-norm (true) or post-norm (false) residuals.
        dropout: the dropout on each sublayer's output (0: none).
        attention_dropout: the dropout on the attention weights (0: none).
        causal: hide later positions from the self-attention (true).
    """

    def __init__(
        self,
        d_model: int,
        num_heads: int,
        ff_dim: int,
        *,
        norm_first: bool = True,
        dropout: float = 0.0,
        attention_dropout: float = 0.0,
        causal: bool = True,
    ) -> None:
        super().__init__()
        self.self_attn = MultiHeadAttention(
            d_model, num_heads, dropout=attention_dropout
        )
        self.cross_attn = MultiHeadAttention(
            d_model, num_heads, dropout=attention_dropout
        )
        self.norm_self, self.norm_cross, self.norm_ff = (
            nn.LayerNorm(d_model) for _ in range(3)
        )
        self.feed_forward = _feed_forward(d_model, ff_dim)
        self.norm_first = norm_first
        self.dropout = optional_dropout(dropout)
        self.causal = causal

    def _cross_and_feed_forward(
        self, states: Tensor, memory: TransformerMemory
    ) -> tuple[Tensor, Tensor]:
        context, cross_weights = self.cross_attn(
            self.sublayer_input(self.norm_cross, states),
            memory.states,
            mask=memory.mask,
        )
        states = self.join(self.norm_cross, states, context)
        return self.feed_forward_branch(states), cross_weights

    def forward(
        self, states: Tensor, memory: TransformerMemory
    ) -> tuple[Tensor, Tensor]:
        """Return the new states and the cross-attention weights ``(batch,
        num_heads, tgt_len, src_len)``."""
        read = self.sublayer_input(self.norm_self, states)
        # (1, tgt_len, tgt_len); None: every position sees every position
        no_future = (
            causal_mask(states.size(1), device=states.device)[None]
            if self.causal
            else None
        )
        attended = self.self_attn(read, read, mask=no_future)[0]
        states = self.join(self.norm_self, states, attended)
        return self._cross_and_feed_forward(states, memory)

    def step(
        self, new_state: Tensor, prefix: Tensor, memory: TransformerMemory
    ) -> tuple[Tensor, Tensor]:
        """One new position: ``new_state`` ``(batch, 1, d_model)``
        attends over ``prefix`` ``(batch, t + 1, d_model)``.

        ``prefix`` holds this layer's inputs at every position so far,
        the new one last; no mask is needed, since the new position may see
        all of them. Returns the new output state and the cross-attention
        weights ``(batch, num_heads, 1, src_len)``.
        """
        read = self.sublayer_input(self.norm_self, prefix)
        attended = self.self_attn(read[:, -1:], read)[0]
        states = self.join(self.norm_self, new_state, attended)
        return self._cross_and_feed_forward(states, memory)


@dataclass
class TransformerMemory:
    """What the decoder reads from the encoder.

    Attributes:
        states: ``(batch, src_len, d_model)`` the encoder's output states.
        mask: ``(batch, src_len)`` bool, **True = may attend** (a real
            source token or ``<eos>``).
    """

    states: Tensor
    mask: Tensor

    def index_select(self, index: Tensor) -> TransformerMemory:
        """The memory of the sentences ``index`` (repeats allowed: beam
        search copies each sentence)."""
        return TransformerMemory(
            self.states.index_select(0, index),
            self.mask.index_select(0, index),
        )


class _Embed(nn.Module):
    """Token embeddings of size about 1 per feature (the positions' size)
    plus sinusoidal positions."""

    def __init__(
        self, vocab_size: int, d_model: int, dropout: float = 0.0
    ) -> None:
        super().__init__()
        self.embedding = nn.Embedding(
            vocab_size, d_model, padding_idx=Vocab.pad_id
        )
        # scaled up to unit size: as large as
        nn.init.normal_(self.embedding.weight, std=d_model**-0.5)
        # the position codes, not 8 times larger
        nn.init.zeros_(self.embedding.weight[Vocab.pad_id])
        self.scale = math.sqrt(d_model)
        self.dropout = optional_dropout(dropout)

    def forward(self, tokens: Tensor, start: int = 0) -> Tensor:
        """Embed ``tokens`` ``(batch, len)`` standing at positions
        ``start ... start + len - 1``."""
        # (batch, len, d_model)
        embedded = self.embedding(tokens) * self.scale
        length = start + tokens.size(1)
        positions = sinusoidal_positions(
            length, embedded.size(-1), device=tokens.device
        )[start:]
        return self.dropout(embedded + positions.to(embedded.dtype))


def _final_norm(config: TransformerConfig) -> nn.Module:
    # pre-norm layers leave the residual stream un-normed
    if config.norm_first:
        return nn.LayerNorm(config.d_model)
    return nn.Identity()


class TransformerEncoder(nn.Module):
    """Embeddings with positions, ``num_layers`` :class:`EncoderLayer`,
    a final LayerNorm (pre-norm layers only: a post-norm layer ends with
    its own)."""

    def __init__(self, config: TransformerConfig) -> None:
        super().__init__()
        self.embed = _Embed(
            config.src_vocab_size, config.d_model, config.dropout
        )
        self.layers = nn.ModuleList(
            EncoderLayer(
                config.d_model,
                config.num_heads,
                config.ff_dim,
                norm_first=config.norm_first,
                dropout=config.dropout,
                attention_dropout=config.attention_dropout,
            )
            for _ in range(config.num_layers)
        )
        self.norm = _final_norm(config)

    def forward(self, src: Tensor, src_mask: Tensor) -> Tensor:
        if bool((src_mask.sum(dim=1) == 0).any()):
            raise ValueError(
                "every source sentence needs at least one token: a row of "
                "src_mask is all False"
            )
        states = self.embed(src)
        for layer in self.layers:
            states = layer(states, src_mask)
        return self.norm(states)


class TransformerDecoder(nn.Module):
    """Embeddings with positions, ``num_layers`` :class:`DecoderLayer`,
    a final LayerNorm, the output layer.

    ``forward`` reads a whole target prefix at once;
    ``step`` extends a prefix by one token, for search.
    """

    uses_attention = True

    def __init__(self, config: TransformerConfig) -> None:
        super().__init__()
        self.embed = _Embed(
            config.tgt_vocab_size, config.d_model, config.dropout
        )
        self.layers = nn.ModuleList(
            DecoderLayer(
                config.d_model,
                config.num_heads,
                config.ff_dim,
                norm_first=config.norm_first,
                dropout=config.dropout,
                attention_dropout=config.attention_dropout,
                causal=config.causal,
            )
            for _ in range(config.num_layers)
        )
        self.norm = _final_norm(config)
        self.out = nn.Linear(config.d_model, config.tgt_vocab_size)
        if config.tie_embeddings:
            # one parameter: its gradient sums both uses
            self.out.weight = self.embed.embedding.weight

    def forward(
        self,
        tgt_in: Tensor,
        memory: TransformerMemory,
        keep: Tensor | None = None,
    ) -> tuple[Tensor, Tensor]:
        """Logits ``(batch, tgt_len, vocab)`` and every
        cross-attention matrix.

        Returns:
            ``logits`` and ``cross_weights`` of shape ``(batch, num_layers,
            num_heads, tgt_len, src_len)``. With ``keep``, the output layer
            runs over the positions it marks only: logits ``(n, vocab)``.
        """
        states = self.embed(tgt_in)
        cross_weights = []
        for layer in self.layers:
            states, layer_weights = layer(states, memory)
            cross_weights.append(layer_weights)
        # the output layer is the widest matrix: padding skips it
        return self.out(self.norm(kept(states, keep))), torch.stack(
            cross_weights, dim=1
        )

    def init_state(self, memory: TransformerMemory) -> Tensor:
        """The empty cache: ``(batch, num_layers, 0, d_model)``."""
        batch, _, d_model = memory.states.shape
        return memory.states.new_zeros(batch, len(self.layers), 0, d_model)

    def step(
        self, prev_tokens: Tensor, state: Tensor, memory: TransformerMemory
    ) -> tuple[Tensor, Tensor, Tensor]:
        """Read one more token ``prev_tokens`` ``(batch,)`` and predict the
        next one.

        ``state`` caches each layer's input at every earlier position,
        ``(batch, num_layers, t, d_model)``. Under the causal mask those
        never change when a token is appended, so a step computes only the
        new position, attending over the cache:
        the same result as :meth:`forward` on the whole prefix,
        at a cost that grows with ``t`` instead of ``t ** 2``.

        Returns:
            logits ``(batch, vocab)``, the cache grown to ``t + 1``
            positions, and the last layer's cross-attention of the new
            position averaged over the heads, ``(batch, src_len)``.
        """
        # (batch, 1, d_model)
        states = self.embed(prev_tokens.unsqueeze(1), start=state.size(2))
        layer_inputs = []
        layers = cast("Iterable[DecoderLayer]", self.layers)
        for index, layer in enumerate(layers):
            layer_inputs.append(states)
            # (batch, t + 1, d_model)
            prefix = torch.cat([state[:, index], states], dim=1)
            states, cross_weights = layer.step(states, prefix, memory)
        new_state = torch.cat(
            [state, torch.stack(layer_inputs, dim=1)], dim=2
        )
        logits = self.out(self.norm(states)).squeeze(1)
        return logits, new_state, cross_weights[:, :, 0].mean(dim=1)


class Transformer(nn.Module):
    """An encoder-decoder Transformer; it offers the interface
    :class:`~attnbook.nmt.model.TranslationModel`.

    Args:
        config: the sizes.

    Shape:
        - src, src_mask: ``(batch, src_len)``; tgt_in:
          ``(batch, tgt_len)`` (``<sos> y_1 ... y_T``).
        - forward returns logits ``(batch, tgt_len, tgt_vocab)``
          and the last layer's cross-attention averaged over the heads,
          ``(batch, tgt_len, src_len)``; :meth:`cross_attention` returns
          every layer's and head's, ``(batch, num_layers, num_heads,
          tgt_len, src_len)``.

    >>> model = Transformer(
    ...     TransformerConfig(
    ...         src_vocab_size=10,
    ...         tgt_vocab_size=12,
    ...         d_model=16,
    ...         num_heads=2,
    ...     )
    ... )
    >>> model.kind  # how a checkpoint names it
    'transformer'
    >>> src, tgt_in = torch.tensor([[5, 6, 2]]), torch.tensor([[1, 7]])
    >>> logits, weights = model(src, src != 0, tgt_in)
    >>> tuple(logits.shape), tuple(weights.shape)
    ((1, 2, 12), (1, 2, 3))
    """

    kind: ClassVar[str] = TransformerSizes.kind
    config_class: ClassVar[type] = TransformerConfig

    def __init__(self, config: TransformerConfig) -> None:
        super().__init__()
        self.config = config
        self.encoder = TransformerEncoder(config)
        self.decoder = TransformerDecoder(config)

    @property
    def device(self) -> torch.device:
        return next(self.parameters()).device

    def encode(self, src: Tensor, src_mask: Tensor) -> TransformerMemory:
        """Run the encoder once per source sentence."""
        return TransformerMemory(self.encoder(src, src_mask), src_mask)

    def cross_attention(
        self, src: Tensor, src_mask: Tensor, tgt_in: Tensor
    ) -> tuple[Tensor, Tensor]:
        """Teacher-forced logits and every layer's and head's
        cross-attention (see the class's Shape)."""
        return self.decoder(tgt_in, self.encode(src, src_mask))

    def forward(
        self,
        src: Tensor,
        src_mask: Tensor,
        tgt_in: Tensor,
        *,
        parallel: bool = True,
        keep: Tensor | None = None,
    ) -> tuple[Tensor, Tensor]:
        """Teacher-forced logits and attention weights (see the
        class's Shape).

        ``parallel=False`` decodes the reference one token at a time with
        :meth:`TransformerDecoder.step`, as search does;
        the causal mask makes both give the same result. ``keep`` selects
        positions' logits
        (:class:`~attnbook.nmt.model.TranslationModel`).
        """
        memory = self.encode(src, src_mask)
        if not parallel:
            logits, weights = decode_stepwise(self.decoder, tgt_in, memory)
            # the weights are never None
            return kept(logits, keep), weights  # type: ignore[return-value]
        logits, cross_weights = self.decoder(tgt_in, memory, keep)
        return logits, cross_weights[:, -1].mean(dim=1)


# -------------------------------------------------------------------------
# A task that one head cannot do and two heads can


def neighbour_batch(
    generator: torch.Generator,
    batch: int,
    length: int = 8,
    vocab_size: int = 16,
    offsets: tuple[int, ...] = (-1, 1),
) -> tuple[Tensor, Tensor]:
    """Random token sequences and, for every position ``i``, the tokens at
    ``i + offset`` (cyclically).

    Returns:
        ``tokens`` ``(batch, length)`` and ``targets`` ``(batch, length,
        len(offsets))``: with the default offsets, each position's left and
        right neighbour.
    """
    tokens = torch.randint(
        vocab_size, (batch, length), generator=generator
    )
    targets = torch.stack(
        [tokens.roll(-offset, dims=1) for offset in offsets], dim=-1
    )
    return tokens, targets


class NeighbourCopier(nn.Module):
    """One self-attention layer between an embedding with learned positions
    and a *linear* read-out.

    Each position must output the tokens at several offsets at once.
    A head's context is one weighted average of value vectors,
    and a linear read-out of an average of two tokens cannot name both in
    order; with a head per offset each context holds one token.
    ``num_heads`` changes only how the ``d_model`` features are split,
    not the number of parameters.

    Shape:
        - tokens: ``(batch, length)``; returns logits ``(batch, length,
          n_outputs, vocab_size)`` and the attention weights ``(batch,
          num_heads, length, length)``.
    """

    def __init__(
        self,
        num_heads: int,
        d_model: int = 32,
        length: int = 8,
        vocab_size: int = 16,
        n_outputs: int = 2,
    ):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, d_model)
        self.positions = nn.Parameter(0.5 * torch.randn(length, d_model))
        self.attention = MultiHeadAttention(d_model, num_heads)
        self.readout = nn.Linear(d_model, n_outputs * vocab_size)
        self.n_outputs, self.vocab_size = n_outputs, vocab_size

    def forward(self, tokens: Tensor) -> tuple[Tensor, Tensor]:
        states = self.embedding(tokens) + self.positions
        context, weights = self.attention(states, states)
        logits = self.readout(context).view(
            *tokens.shape, self.n_outputs, self.vocab_size
        )
        return logits, weights


def train_neighbour_copier(
    num_heads: int,
    *,
    offsets: tuple[int, ...] = (-1, 1),
    d_model: int = 32,
    steps: int = 400,
    seed: int = 0,
    n_test: int = 1000,
) -> tuple[NeighbourCopier, Tensor]:
    """Train a :class:`NeighbourCopier` with Adam and measure it on
    fresh sequences.

    Returns:
        The model and its test accuracy for each offset,
        ``(len(offsets),)``.
    """
    torch.manual_seed(seed)
    generator = torch.Generator().manual_seed(seed)
    model = NeighbourCopier(num_heads, d_model, n_outputs=len(offsets))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    for _ in range(steps):
        tokens, targets = neighbour_batch(generator, 128, offsets=offsets)
        logits, _ = model(tokens)
        loss = nn.functional.cross_entropy(
            logits.reshape(-1, model.vocab_size), targets.reshape(-1)
        )
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
    tokens, targets = neighbour_batch(
        torch.Generator().manual_seed(seed + 10_000),
        n_test,
        offsets=offsets,
    )
    with torch.no_grad():
        logits, _ = model(tokens)
    return model.eval(), (logits.argmax(dim=-1) == targets).float().mean(
        dim=(0, 1)
    )
