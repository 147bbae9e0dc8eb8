"""The encoder of the recurrent translator: a bidirectional GRU over the
source, and the memory it hands every decoder.

:class:`Encoder` reads the source both ways and returns one state per
source position, :math:`h_j = [\\overrightarrow{h}_j;
\\overleftarrow{h}_j]`, and a summary of the whole sentence;
:class:`EncoderMemory` holds them with the source mask.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor, nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from attnbook.layers.attention import optional_dropout
from attnbook.nmt.data import Vocab


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
        dropout: the probability of zeroing a feature of the embeddings
            and of the states, while training (0: none;
            :func:`~attnbook.layers.attention.optional_dropout`).

    Shape:
        - src: ``(batch, src_len)`` token ids;
          src_mask: ``(batch, src_len)`` bool, True = real token.
        - returns states ``(batch, src_len, 2 * hidden_dim)`` (zero at
          padding) and the summary ``(batch, 2 * hidden_dim)``.
    """

    def __init__(
        self,
        vocab_size: int,
        emb_dim: int,
        hidden_dim: int,
        *,
        dropout: float = 0.0,
    ) -> None:
        super().__init__()
        self.embedding = nn.Embedding(
            vocab_size, emb_dim, padding_idx=Vocab.pad_id
        )
        self.rnn = nn.GRU(
            emb_dim, hidden_dim, batch_first=True, bidirectional=True
        )
        self.dropout = optional_dropout(dropout)

    def forward(
        self, src: Tensor, src_mask: Tensor
    ) -> tuple[Tensor, Tensor]:
        lengths = src_mask.sum(dim=1)
        if bool((lengths == 0).any()):
            raise ValueError(
                "every source sentence needs at least one token: a row of "
                "src_mask is all False"
            )
        # (batch, src_len, emb_dim)
        embedded = self.dropout(self.embedding(src))
        packed = pack_padded_sequence(
            embedded, lengths.cpu(), batch_first=True, enforce_sorted=False
        )
        # last: (2, batch, hidden_dim), forward then backward
        packed_states, last = self.rnn(packed)
        states, _ = pad_packed_sequence(
            packed_states, batch_first=True, total_length=src.size(1)
        )
        summary = torch.cat([last[0], last[1]], dim=-1)  # (batch, enc_dim)
        return self.dropout(states), summary
