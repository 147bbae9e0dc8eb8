"""The interface every translation model of the package offers,
and the decoding loop they share.

:class:`TranslationModel` is what
:class:`~attnbook.nmt.translator.Translator`, the searches of
:mod:`attnbook.nmt.search`, :func:`~attnbook.nmt.training.train` and
:func:`~attnbook.nmt.evaluation.evaluate` ask of a model;
the recurrent :class:`~attnbook.nmt.seq2seq.Seq2Seq` (with any of its
decoders) and the :class:`~attnbook.nmt.transformer.Transformer` both
offer it:

- ``model(src, src_mask, tgt_in, parallel=True)`` returns teacher-forced
  logits and attention weights; with ``keep=`` a mask of the target
  positions, the logits of those positions only, one row each
  (:func:`kept`): training asks for the real target tokens' and skips the
  padding;
- ``model.encode(src, src_mask)`` returns the memory the decoder reads (a
  :class:`Memory`);
- ``model.decoder.init_state(memory)`` and
  ``model.decoder.step(prev_tokens, state, memory)`` decode one token at a
  time (a :class:`StepDecoder`), which is how search translates;
- ``model.config`` holds the sizes the model was built from,
  and ``model.kind`` names the model in a checkpoint.

These are :class:`typing.Protocol` classes:
a model offers them by having the attributes, not by inheriting.
Masks are boolean with **True = may attend**.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any, ClassVar, Protocol

import torch
from torch import Tensor, nn


class ModelSizes(Protocol):
    """What every model configuration holds: the vocabulary sizes and the
    longest source accepted."""

    # read-only: the configurations are frozen dataclasses
    @property
    def src_vocab_size(self) -> int: ...

    @property
    def tgt_vocab_size(self) -> int: ...

    @property
    def max_src_len(self) -> int | None: ...

    def to_dict(self) -> dict[str, Any]: ...


class Memory(Protocol):
    """What the decoder reads from the encoder, per sentence."""

    states: Tensor  # (batch, src_len, enc_dim)
    mask: Tensor  # (batch, src_len), True = may attend

    def index_select(self, index: Tensor) -> Memory: ...


class StepDecoder(Protocol):
    """A decoder that search can run one token at a time.

    ``uses_attention`` is false for a decoder without attention weights
    (the fixed-length baseline): its ``step`` returns ``None`` for them.
    """

    uses_attention: bool

    def init_state(self, memory: Any) -> Tensor: ...

    def step(
        self, prev_tokens: Tensor, state: Tensor, memory: Any
    ) -> tuple[Tensor, Tensor, Tensor | None]: ...


class TranslationModel(Protocol):
    """A model that translates: what the translator, the searches,
    training and evaluation use.

    Shape:
        - src, src_mask: ``(batch, src_len)``; tgt_in:
          ``(batch, tgt_len)`` (``<sos> y_1 ... y_T``).
        - ``__call__`` returns logits ``(batch, tgt_len, tgt_vocab)``
          and attention weights ``(batch, tgt_len, src_len)`` (``None`` for
          a model without attention); with ``keep``, a boolean ``(batch,
          tgt_len)`` mask, the logits are ``(n, tgt_vocab)``, one row for
          each True of ``keep`` in reading order (the weights keep their
          shape). A model may then run its output layer over those
          positions only (the Transformer does).
    """

    kind: ClassVar[str]
    training: bool

    # read-only, so that a model may hold a narrower type of each
    @property
    def config(self) -> ModelSizes: ...

    @property
    def decoder(self) -> StepDecoder: ...

    @property
    def device(self) -> torch.device: ...

    def encode(self, src: Tensor, src_mask: Tensor) -> Any: ...

    def __call__(
        self,
        src: Tensor,
        src_mask: Tensor,
        tgt_in: Tensor,
        *,
        parallel: bool = True,
        keep: Tensor | None = None,
    ) -> tuple[Tensor, Tensor | None]: ...

    # the parts of nn.Module that the translator and training use
    def parameters(
        self, recurse: bool = True
    ) -> Iterator[nn.Parameter]: ...

    def state_dict(self, *args: Any, **kwargs: Any) -> dict[str, Any]: ...

    def load_state_dict(
        self,
        state_dict: Mapping[str, Any],
        strict: bool = True,
        assign: bool = False,
    ) -> Any: ...

    def train(self, mode: bool = True) -> Any: ...

    def eval(self) -> Any: ...

    def to(self, *args: Any, **kwargs: Any) -> Any: ...


def kept(values: Tensor, keep: Tensor | None) -> Tensor:
    """``values`` ``(batch, tgt_len, ...)`` at the positions ``keep``
    marks, ``(n, ...)`` in reading order; all of them, as they are, for
    ``None``.

    >>> values = torch.arange(6).view(2, 3)
    >>> kept(values, values % 2 == 0).tolist()
    [0, 2, 4]
    >>> kept(values, None).shape
    torch.Size([2, 3])
    """
    return values if keep is None else values[keep]


def decode_stepwise(
    decoder: StepDecoder, tgt_in: Tensor, memory: Any
) -> tuple[Tensor, Tensor | None]:
    """Teacher forcing one step at a time, through ``decoder.step``,
    as search decodes.

    Returns:
        logits ``(batch, tgt_len, vocab)`` and weights
        ``(batch, tgt_len, src_len)`` (``None`` for a decoder
        without attention).
    """
    state = decoder.init_state(memory)
    logits: list[Tensor] = []
    weights: list[Tensor] = []
    for prev_tokens in tgt_in.unbind(dim=1):
        step_logits, state, step_weights = decoder.step(
            prev_tokens, state, memory
        )
        logits.append(step_logits)
        if step_weights is not None:
            weights.append(step_weights)
    stacked = (
        torch.stack(weights, dim=1) if decoder.uses_attention else None
    )
    return torch.stack(logits, dim=1), stacked


@contextmanager
def evaluating(model: nn.Module | TranslationModel) -> Iterator[Any]:
    """Put ``model`` in eval mode for a ``with`` block, then back in the
    mode it was in.

    >>> from torch import nn
    >>> layer = nn.Dropout()
    >>> with evaluating(layer):
    ...     layer.training
    False
    >>> layer.training
    True
    """
    was_training = model.training
    model.eval()
    try:
        yield model
    finally:
        model.train(was_training)
