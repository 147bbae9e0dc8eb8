"""Reading a trained model's attention: where it looks, against the truth,
and what it needs.

- :func:`teacher_forced_attention`: the weights while the model reads the
  reference translations.
- :func:`alignment_accuracy`: how often the attention's largest weight
  falls on a source word that the target word truly translates (the toy
  grammar of :mod:`attnbook.nmt.grammar` knows), overall and by word
  category; an :class:`AlignmentResult`.
- :func:`head_alignment_accuracy`: the same for every layer and head of a
  :class:`~attnbook.nmt.transformer.Transformer`'s cross-attention.
- :class:`AttentionSnapshots`: a hook for
  :func:`~attnbook.nmt.training.train` that keeps one pair's attention at
  every validation, to watch an alignment emerge as the model trains.
- :func:`accuracy_with_forced_attention`: an intervention.
  Override the attention of one category of words and measure the accuracy
  on them.

>>> import torch
>>> from attnbook.nmt.attention_analysis import alignment_accuracy
>>> from attnbook.nmt.data import Vocab
>>> from attnbook.nmt.grammar import make_splits
>>> from attnbook.nmt.seq2seq import Seq2Seq, Seq2SeqConfig
>>> from attnbook.nmt.translator import Translator
>>> pairs = make_splits(20, 0, 0, seed=0, max_src_len=6).train
>>> src_vocab, tgt_vocab = (
...     Vocab.build(p.source for p in pairs),
...     Vocab.build(p.target for p in pairs),
... )
>>> _ = torch.manual_seed(0)
>>> model = Seq2Seq(
...     Seq2SeqConfig(
...         len(src_vocab),
...         len(tgt_vocab),
...         emb_dim=4,
...         hidden_dim=6,
...         attn_dim=5,
...     )
... )
>>> result = alignment_accuracy(
...     Translator(model, src_vocab, tgt_vocab), pairs
... )
>>> (
...     0.0 <= result.accuracy <= 1.0,
...     sum(result.counts.values()) == sum(len(p.target) for p in pairs),
... )
(True, True)
"""

from __future__ import annotations

import inspect
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

import torch
import torch.nn.functional as F
from torch import Tensor

from attnbook.nmt.data import SentencePair
from attnbook.nmt.grammar import CATEGORIES
from attnbook.nmt.model import evaluating
from attnbook.nmt.seq2seq import Seq2Seq
from attnbook.nmt.transformer import Transformer

if TYPE_CHECKING:
    from attnbook.nmt.training import LossRecord
    from attnbook.nmt.translator import Translator


@dataclass(frozen=True)
class AlignmentResult:
    """How often the attention's argmax falls on a source word the target
    word truly translates.

    Attributes:
        accuracy: over all scored target tokens.
        by_category: the accuracy for each word category present.
        counts: the number of scored tokens per category.
        argmax: for each pair, the source position each target token
            attends to most.
    """

    accuracy: float
    by_category: dict[str, float]
    counts: dict[str, int]
    argmax: list[list[int]]

    def to_dict(self) -> dict[str, Any]:
        """The result as plain values, for JSON."""
        return asdict(self)


def _require_attention(translator: Translator, what: str) -> None:
    if not translator.model.decoder.uses_attention:
        raise ValueError(
            f"this model has no attention (attention='none'): {what}"
        )


@torch.no_grad()
def teacher_forced_attention(
    translator: Translator,
    pairs: Sequence[SentencePair],
    batch_size: int = 256,
) -> list[Tensor]:
    """The model's attention weights while it reads the reference
    translations (teacher forcing).

    Returns:
        For each pair, ``(len(target) + 1, len(source) + 1)`` weights on
        the CPU: rows for the target tokens and ``<eos>``, columns for the
        source tokens and ``<eos>``.

    Raises:
        ValueError: the model has no attention.
    """
    _require_attention(translator, "there are no weights to return")
    weights: list[Tensor] = []
    with evaluating(translator.model):
        for start in range(0, len(pairs), batch_size):
            chunk = pairs[start : start + batch_size]
            batch = translator.batch(chunk)
            _, batch_weights = translator.model(
                batch.src, batch.src_mask, batch.tgt_in
            )
            # not None: _require_attention checked it
            assert batch_weights is not None
            batch_weights = batch_weights.float().cpu()
            for row, pair in enumerate(chunk):
                weights.append(
                    batch_weights[
                        row, : len(pair.target) + 1, : len(pair.source) + 1
                    ].clone()
                )
    return weights


@dataclass
class AttentionSnapshots:
    """One pair's teacher-forced attention at every validation of a
    training run: a hook for ``train``.

    Pass it as ``train(..., on_validation=snapshots)`` (or
    ``TrainingRun(..., on_validation=snapshots)``);
    after each validation it stores the step, the validation loss and
    :func:`teacher_forced_attention` of ``pair``.
    Call it once before training, ``snapshots(0,
    validation_loss(translator, val_pairs))``, to keep the untrained
    model's weights as the first snapshot. Reading the weights draws no
    random number and changes no weight, so the run trains exactly as it
    would without it.

    Attributes:
        translator: the model being trained and its vocabularies.
        pair: the sentence pair whose attention is kept.
        steps, val_losses: the step and the validation loss of
            each snapshot.
        weights: each snapshot's ``(len(target) + 1, len(source)
            + 1)`` weights, on the CPU.
        seconds: the time spent taking the snapshots.

    >>> from attnbook.nmt import (
    ...     Seq2Seq,
    ...     Seq2SeqConfig,
    ...     TrainConfig,
    ...     Translator,
    ...     Vocab,
    ...     train,
    ... )
    >>> from attnbook.nmt.grammar import make_splits
    >>> splits = make_splits(32, 8, 0, seed=0, max_src_len=6)
    >>> src, tgt = (
    ...     Vocab.build(p.source for p in splits.train),
    ...     Vocab.build(p.target for p in splits.train),
    ... )
    >>> model = Seq2Seq(
    ...     Seq2SeqConfig(
    ...         len(src), len(tgt), emb_dim=8, hidden_dim=8, attn_dim=8
    ...     )
    ... )
    >>> snapshots = AttentionSnapshots(
    ...     Translator(model, src, tgt), splits.val[0]
    ... )
    >>> config = TrainConfig(max_epochs=2, batch_size=16, eval_every=1)
    >>> _ = train(
    ...     snapshots.translator,
    ...     splits.train,
    ...     splits.val,
    ...     config,
    ...     progress=False,
    ...     on_validation=snapshots,
    ... )
    >>> (
    ...     snapshots.steps,
    ...     tuple(snapshots.weights[0].shape)
    ...     == (
    ...         len(splits.val[0].target) + 1,
    ...         len(splits.val[0].source) + 1,
    ...     ),
    ... )
    ([1, 2, 3, 4], True)
    """

    translator: Translator
    pair: SentencePair
    steps: list[int] = field(default_factory=list, init=False)
    val_losses: list[float] = field(default_factory=list, init=False)
    weights: list[Tensor] = field(default_factory=list, init=False)
    seconds: float = field(default=0.0, init=False)

    def __call__(self, step: int, record: LossRecord) -> None:
        start = time.perf_counter()
        with torch.no_grad():
            (weights,) = teacher_forced_attention(
                self.translator, [self.pair]
            )
        self.steps.append(step)
        self.val_losses.append(record.loss)
        self.weights.append(weights)
        self.seconds += time.perf_counter() - start


def alignment_accuracy(
    translator: Translator, pairs: Sequence[SentencePair]
) -> AlignmentResult:
    """Score the attention's argmax against the grammar's true alignment,
    overall and by word category.

    The model reads each reference translation under teacher forcing,
    so every target word is scored in its correct context even where the
    model's own translation differs. A target word counts as aligned when
    its largest attention weight falls on one of the source positions the
    grammar links it to (``<eos>`` rows are not scored).

    Raises:
        ValueError: a pair has no true alignment, or the model has
            no attention.
    """
    if not all(p.has_alignment for p in pairs):
        raise ValueError(
            "alignment accuracy needs pairs with true alignments (the toy "
            "grammar's)"
        )
    hits: dict[str, int] = defaultdict(int)
    counts: dict[str, int] = defaultdict(int)
    argmaxes = []
    for pair, weights in zip(
        pairs, teacher_forced_attention(translator, pairs), strict=True
    ):
        argmax = weights[: len(pair.target)].argmax(dim=-1).tolist()
        argmaxes.append(argmax)
        for position, truth, category in zip(
            argmax, pair.alignment, pair.categories, strict=True
        ):
            counts[category] += 1
            hits[category] += position in truth
    by_category = {c: hits[c] / counts[c] for c in CATEGORIES if counts[c]}
    accuracy = sum(hits.values()) / max(sum(counts.values()), 1)
    return AlignmentResult(
        accuracy,
        by_category,
        {c: counts[c] for c in by_category},
        argmaxes,
    )


def _forced_positions(
    pairs: Sequence[SentencePair],
    shape: torch.Size,
    category: str,
    position: Callable[[SentencePair, int], int] | None,
) -> tuple[Tensor, Tensor]:
    """``(positions, selected)``: the source position to force for each
    target word (-1: none) and which target words are of ``category``."""
    positions = torch.full(shape, -1, dtype=torch.long)
    selected = torch.zeros(shape, dtype=torch.bool)
    for row, pair in enumerate(pairs):
        for i, word_category in enumerate(pair.categories):
            if word_category == category:
                selected[row, i] = True
                if position is not None:
                    positions[row, i] = position(pair, i)
    return positions, selected


@torch.no_grad()
def accuracy_with_forced_attention(
    translator: Translator,
    pairs: Sequence[SentencePair],
    *,
    category: str,
    position: Callable[[SentencePair, int], int] | None,
    batch_size: int = 256,
) -> float:
    """Teacher-forced accuracy on the target words of one category,
    with their attention overridden.

    An intervention in the spirit of Jain and Wallace (2019):
    for every target word of ``category`` the attention distribution is
    replaced by a one-hot distribution on source position
    ``position(pair, i)`` (so the context is exactly that position's
    encoder state), and the model predicts the word from there.
    Other words keep the model's own attention.
    ``position=None`` changes nothing and gives the model's own accuracy on
    those words.

    Args:
        translator: a model with attention, and its vocabularies.
        pairs: pairs with word categories (the toy grammar's).
        category: the word category to intervene on, e.g. ``"article"``.
        position: maps ``(pair, target_index)`` to the source position to
            attend to (``len(pair.source)`` is the source ``<eos>``);
            ``None`` for no intervention.

    Returns:
        The fraction of the category's words predicted correctly.

    Raises:
        ValueError: the model has no attention, or no pair has a word
            of ``category``.
    """
    _require_attention(translator, "there is nothing to override")
    model = translator.model
    if not isinstance(model, Seq2Seq):
        raise ValueError(
            "intervening on the attention needs a recurrent seq2seq, got "
            f"a {model.kind} model"
        )
    attention = model.decoder.get_submodule("attention")
    signature = inspect.signature(attention.forward)
    forced: dict[str, Any] = {}

    def override(
        module: torch.nn.Module,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        output: tuple[Tensor, Tensor],
    ) -> tuple[Tensor, Tensor]:
        """Replace the weights (and so the context) of the selected target
        words by a one-hot choice."""
        # the call's arguments, by name
        called = signature.bind(*args, **kwargs).arguments
        values = (
            called["keys"]
            if called.get("values") is None
            else called["values"]
        )
        weights, targets = output[1], forced["positions"]
        if weights.dim() == 2:  # one decoder step: (batch, src_len)
            targets = targets[:, forced["step"]]
            forced["step"] += 1
        chosen = targets >= 0
        if not bool(chosen.any()):
            return output
        one_hot = F.one_hot(targets.clamp_min(0), weights.size(-1)).to(
            weights.dtype
        )
        new_weights = torch.where(chosen.unsqueeze(-1), one_hot, weights)
        if weights.dim() == 2:
            context = torch.bmm(new_weights.unsqueeze(1), values)
            return context.squeeze(1), new_weights
        return torch.bmm(new_weights, values), new_weights

    correct = total = 0
    handle = attention.register_forward_hook(override, with_kwargs=True)
    try:
        with evaluating(translator.model):
            for start in range(0, len(pairs), batch_size):
                chunk = pairs[start : start + batch_size]
                batch = translator.batch(chunk)
                positions, selected = _forced_positions(
                    chunk, batch.tgt_out.shape, category, position
                )
                forced["positions"], forced["step"] = (
                    positions.to(translator.device),
                    0,
                )
                logits, _ = translator.model(
                    batch.src, batch.src_mask, batch.tgt_in
                )
                hits = (
                    logits.argmax(dim=-1) == batch.tgt_out
                ).cpu() & selected
                correct += int(hits.sum())
                total += int(selected.sum())
    finally:
        handle.remove()
    if total == 0:
        raise ValueError(
            f"no target word of category {category!r} in the pairs"
        )
    return correct / total


@torch.no_grad()
def head_alignment_accuracy(
    translator: Translator,
    pairs: Sequence[SentencePair],
    batch_size: int = 256,
) -> Tensor:
    """Alignment accuracy of every layer's and head's cross-attention
    against the grammar's true links.

    As :func:`~attnbook.nmt.attention_analysis.alignment_accuracy` does for
    one attention: the model reads each reference translation (teacher
    forcing), and a target word counts as aligned when the head's largest
    weight falls on a source position the grammar links it to (``<eos>``
    rows are not scored).

    Args:
        translator: a :class:`~attnbook.nmt.transformer.Transformer` with
            its vocabularies.
        pairs: pairs with true alignments (the toy grammar's).

    Returns:
        ``(num_layers, num_heads)`` accuracies.

    Raises:
        ValueError: a pair has no true alignment.
    """
    if not all(p.has_alignment for p in pairs):
        raise ValueError(
            "alignment accuracy needs pairs with true alignments (the toy "
            "grammar's)"
        )
    model = translator.model
    if not isinstance(model, Transformer):
        raise ValueError(
            f"head alignment needs a Transformer, got a {model.kind} model"
        )
    hits = torch.zeros(model.config.num_layers, model.config.num_heads)
    count = 0
    with evaluating(model):
        for start in range(0, len(pairs), batch_size):
            chunk = pairs[start : start + batch_size]
            batch = translator.batch(chunk)
            _, cross_weights = model.cross_attention(
                batch.src, batch.src_mask, batch.tgt_in
            )
            # (batch, layers, heads, tgt_len)
            argmax = cross_weights.argmax(dim=-1).cpu()
            for row, pair in enumerate(chunk):
                for i, truth in enumerate(pair.alignment):
                    hits += torch.isin(
                        argmax[row, :, :, i], torch.tensor(truth)
                    ).float()
                    count += 1
    return hits / max(count, 1)
