"""The loss and the training loop of the seq2seq models of
:mod:`attnbook.nmt.seq2seq`.

- :func:`sequence_loss`: cross-entropy over the real target tokens only.
- :class:`Schedule`: the learning rate of every step, and after each
  validation whether to keep the weights, halve the rate or stop (patience,
  ``min_delta``, ``lr_drops``, the optional decay to zero).
- :func:`train`: teacher forcing, Adam, gradient clipping, validations that
  a :class:`Schedule` judges, a silenceable ``tqdm`` progress bar and an
  optional :data:`ValidationHook` called after each validation (to take
  snapshots as the model trains); the best weights (lowest validation loss)
  are restored at the end, or the mean of the last validations' weights
  (:func:`average_weights`). Word dropout (:func:`drop_source_words`)
  may hide source words while it trains. It returns a
  :class:`TrainResult`.

Several independent :func:`train` runs at once, one thread each, are
:func:`~attnbook.nmt.side_by_side.train_side_by_side`'s.

>>> from attnbook.nmt.data import Vocab
>>> from attnbook.nmt.grammar import make_splits
>>> from attnbook.nmt.seq2seq import Seq2Seq, Seq2SeqConfig
>>> from attnbook.nmt.training import TrainConfig, train
>>> from attnbook.nmt.translator import Translator
>>> splits = make_splits(32, 8, 0, seed=0, max_src_len=6)
>>> src_vocab = Vocab.build(p.source for p in splits.train)
>>> tgt_vocab = Vocab.build(p.target for p in splits.train)
>>> model = Seq2Seq(
...     Seq2SeqConfig(
...         len(src_vocab),
...         len(tgt_vocab),
...         emb_dim=8,
...         hidden_dim=8,
...         attn_dim=8,
...     )
... )
>>> result = train(
...     Translator(model, src_vocab, tgt_vocab),
...     splits.train,
...     splits.val,
...     TrainConfig(max_epochs=2, batch_size=16, log_every=1),
...     progress=False,
... )
>>> result.steps, [record.step for record in result.val_history]
(4, [2, 4])
"""

from __future__ import annotations

import collections
import copy
import itertools
import math
import random
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

import torch
import torch.nn.functional as F
from torch import Tensor

from attnbook.core.config import check_fields
from attnbook.core.progress import tqdm
from attnbook.nmt.data import SPECIALS, Batch, SentencePair, Vocab
from attnbook.nmt.model import evaluating

if TYPE_CHECKING:
    from attnbook.nmt.translator import Translator


def sequence_loss(
    logits: Tensor,
    tgt_out: Tensor,
    *,
    pad_id: int = Vocab.pad_id,
    label_smoothing: float = 0.0,
) -> tuple[Tensor, Tensor, Tensor]:
    r"""Cross-entropy over the real target tokens only;
    padding adds nothing to the loss or the counts.

    With label smoothing :math:`\varepsilon` (Szegedy et al., 2016)
    the target of each token is :math:`1 - \varepsilon` on the reference
    word plus :math:`\varepsilon / V` on every one of the :math:`V`
    words, so the loss of a token is
    :math:`(1 - \varepsilon)(-\log p_y) + \varepsilon \cdot \frac{1}{V}
    \sum_k (-\log p_k)`.

    Args:
        logits: ``(batch, tgt_len, vocab)``, or ``(n, vocab)`` for ``n``
            tokens (the real ones alone, as training asks the model for).
        tgt_out: ``(batch, tgt_len)`` target ids, ``pad_id`` where there is
            no token; or ``(n,)``.
        pad_id: the id of the padding (the book's vocabularies use
            ``Vocab.pad_id``, 0).
        label_smoothing: :math:`\varepsilon`, in [0, 1); 0 is the plain
            cross-entropy.

    Returns:
        The mean loss per real token, the number of correctly predicted
        real tokens, and the number of real tokens (both as 0-dim tensors).
    """
    real = tgt_out != pad_id
    loss = F.cross_entropy(
        logits.reshape(-1, logits.size(-1)),
        tgt_out.reshape(-1),
        ignore_index=pad_id,
        label_smoothing=label_smoothing,
    )
    correct = ((logits.argmax(dim=-1) == tgt_out) & real).sum()
    return loss, correct, real.sum()


@dataclass(frozen=True)
class TrainConfig:
    """How to train.

    Attributes:
        max_epochs: passes over the training pairs at most.
        batch_size: pairs per batch.
        lr: Adam's learning rate.
        clip_norm: the largest gradient norm (Pascanu et al., 2013);
            larger gradients are rescaled.
        eval_every: validate every this many steps (and at the end of
            every epoch).
        patience: stop after this many validations without a lower
            validation loss.
        min_delta: the fall, in nats per token, that counts as lower for
            ``patience``: a validation loss must be more than ``min_delta``
            below the last loss that counted (0: any fall counts).
            The weights of the lowest loss are kept either way.
        lr_drops: when ``patience`` runs out, halve the learning rate and
            go on, up to this many times; training stops when patience runs
            out with no halving left. Halving lets a model whose validation
            loss only wanders at the current rate settle into a lower one.
        log_every: record the training loss and accuracy every this
            many steps.
        seed: seeds the initial weights (through
            :func:`~attnbook.core.runtime.set_seed`) and the batch order.
        parallel_decoder: let a decoder that can (Luong's) run all target
            steps in one call.
        keep_best: end with the weights of the lowest validation loss;
            false keeps the last ones (``average_last`` overrides both).
        lr_decay: lower the learning rate linearly from ``lr`` to zero over
            the ``max_epochs`` planned; left unset (``None``),
            :class:`~attnbook.studies.experiment.ExperimentConfig` chooses
            by the decoder (on for Luong's), and :func:`train` given
            ``None`` keeps the rate constant.
        warmup_steps: raise the learning rate linearly from ``lr /
            warmup_steps`` at the first step to ``lr`` at step
            ``warmup_steps``, then follow the schedule (0: no warm-up).
        label_smoothing: the share of each target token's probability
            spread evenly over the vocabulary in the training loss;
            validation losses stay unsmoothed,
            so runs with and without it compare (0: none).
        word_dropout: the probability that a source word of a training
            batch is replaced by ``<unk>`` (word dropout, Sennrich and
            Zhang, 2019, after Gal and Ghahramani, 2016): padding,
            ``<eos>`` and the other special tokens stay. Drawn from a
            generator of its own, seeded by the run's seed and made only
            when above 0; validation reads the sentences whole
            (0: none).
        average_last: end with the mean of the weights of the last this
            many validations (checkpoint averaging, Vaswani et al.,
            2017); it replaces ``keep_best``'s choice, and a run with
            fewer validations averages those it has (0: none).
        batch_by_target: make each batch of pairs of similar target
            length (then similar source length) instead of similar source
            length: the decoder works once per target position, padding
            included, so less of its work is spent on padding.

    Raises:
        ValueError: a count below 1, a negative learning rate or
            clipping norm, a label smoothing outside [0, 1), or a
            word dropout above 1.
    """

    max_epochs: int = field(
        default=4, metadata={"minimum": 1, "flag": "--epochs"}
    )
    batch_size: int = field(default=128, metadata={"minimum": 1})
    lr: float = field(default=3e-3, metadata={"minimum": 0.0})
    clip_norm: float = field(default=1.0, metadata={"minimum": 0.0})
    eval_every: int = field(default=50, metadata={"minimum": 1})
    patience: int = field(default=4, metadata={"minimum": 1})
    min_delta: float = field(default=0.0, metadata={"minimum": 0.0})
    lr_drops: int = field(default=0, metadata={"minimum": 0})
    log_every: int = field(default=10, metadata={"minimum": 1})
    seed: int = 0
    parallel_decoder: bool = True
    keep_best: bool = True
    lr_decay: bool | None = None
    warmup_steps: int = field(default=0, metadata={"minimum": 0})
    label_smoothing: float = field(
        default=0.0, metadata={"minimum": 0.0, "below": 1}
    )
    word_dropout: float = field(default=0.0, metadata={"minimum": 0.0})
    average_last: int = field(default=0, metadata={"minimum": 0})
    batch_by_target: bool = False

    def __post_init__(self) -> None:
        check_fields(self)
        if not self.word_dropout <= 1.0:
            raise ValueError(
                "word_dropout must be at most 1, got "
                f"{self.word_dropout!r}"
            )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class LossRecord:
    """The loss and the token accuracy (teacher forced) at one step
    of training."""

    step: int
    loss: float
    token_accuracy: float


@dataclass(frozen=True)
class TrainResult:
    """What :func:`train` measured.

    Attributes:
        history: one record per ``log_every`` steps, over the training
            batches of those steps.
        val_history: one record per validation, over the validation pairs.
        best_step: the step of the lowest validation loss (whose weights
            are kept if ``keep_best``).
        steps: the optimiser steps taken.
        seconds: the wall-clock time of the training loop.
        stopped_early: whether early stopping ended training
            before ``max_epochs``.
        lr_drop_steps: the steps after which the learning rate was halved
            (``TrainConfig.lr_drops``).
    """

    history: tuple[LossRecord, ...]
    val_history: tuple[LossRecord, ...]
    best_step: int
    steps: int
    seconds: float
    stopped_early: bool
    lr_drop_steps: tuple[int, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """The result as plain values, for JSON."""
        return asdict(self)

    @classmethod
    def from_dict(cls, values: dict[str, Any]) -> TrainResult:
        """A result read back from :meth:`to_dict`'s values."""
        return cls(
            history=tuple(LossRecord(**r) for r in values["history"]),
            val_history=tuple(
                LossRecord(**r) for r in values["val_history"]
            ),
            best_step=values["best_step"],
            steps=values["steps"],
            seconds=values["seconds"],
            stopped_early=values["stopped_early"],
            lr_drop_steps=tuple(values.get("lr_drop_steps", ())),
        )


@torch.no_grad()
def validation_loss(
    translator: Translator,
    pairs: Sequence[SentencePair],
    batch_size: int = 256,
) -> LossRecord:
    """Teacher-forced loss and token accuracy over ``pairs`` (cheap: one
    forward pass per batch).

    Returns:
        A :class:`LossRecord` with ``step=0``.
    """
    model = translator.model
    total_loss, correct, count = 0.0, 0, 0
    with evaluating(model):
        for batch in translator.batches(pairs, batch_size):
            logits, _ = model(batch.src, batch.src_mask, batch.tgt_in)
            loss, batch_correct, batch_count = sequence_loss(
                logits, batch.tgt_out
            )
            total_loss += loss.item() * int(batch_count)
            correct += int(batch_correct)
            count += int(batch_count)
    return LossRecord(0, total_loss / count, correct / count)


@dataclass(frozen=True)
class ScheduleDecision:
    """What a :class:`Schedule` decided after one validation.

    Attributes:
        best: the loss is the lowest so far: keep these weights.
        halve: patience ran out with a halving left:
            the rate halves from the next step on.
        stop: patience ran out with no halving left: stop training.
    """

    best: bool
    halve: bool
    stop: bool


@dataclass
class Schedule:
    """The learning rate of every step, and early stopping:
    what :func:`train` does after a validation.

    The rate starts at ``lr``, falls linearly to zero over
    ``planned_steps`` if ``decay``, and is halved once for each entry of
    ``lr_drop_steps``; with ``warmup_steps``, step ``t`` of the first
    ``warmup_steps`` takes ``t / warmup_steps`` of that rate.
    A validation loss counts as lower for patience when
    it is more than ``min_delta`` below the last one that counted.
    After ``patience`` validations in a row that do not count,
    the rate is halved and counting starts again, up to ``lr_drops`` times;
    when patience runs out with no halving left, training stops.

    Attributes:
        best_loss, best_step: the lowest validation loss so far and the
            step it was measured after.
        lr_drop_steps: the steps after which the rate was halved.
        counted_loss, bad_checks: the last loss that counted as lower,
            and the validations since then.

    >>> schedule = Schedule(
    ...     lr=0.1, planned_steps=100, patience=2, lr_drops=1
    ... )
    >>> [
    ...     schedule.observe(step, loss).stop
    ...     for step, loss in [(10, 2.0), (20, 2.5), (30, 2.1), (40, 2.2)]
    ... ]
    [False, False, False, False]
    >>> schedule.lr_drop_steps, schedule.rate(31), schedule.best_step
    ([30], 0.05, 10)
    >>> schedule.observe(50, 2.3)
    ScheduleDecision(best=False, halve=False, stop=True)
    """

    lr: float
    planned_steps: int
    patience: int
    min_delta: float = 0.0
    lr_drops: int = 0
    decay: bool = False
    warmup_steps: int = 0
    best_loss: float = field(default=math.inf, init=False)
    best_step: int = field(default=0, init=False)
    lr_drop_steps: list[int] = field(default_factory=list, init=False)
    counted_loss: float = field(default=math.inf, init=False)
    bad_checks: int = field(default=0, init=False)

    @classmethod
    def from_config(
        cls, config: TrainConfig, planned_steps: int
    ) -> Schedule:
        """The schedule that ``config`` asks for, over ``planned_steps``
        optimiser steps."""
        options = (
            config.patience,
            config.min_delta,
            config.lr_drops,
            bool(config.lr_decay),
            config.warmup_steps,
        )
        return cls(config.lr, planned_steps, *options)

    def rate(self, step: int) -> float:
        """The learning rate of optimiser step ``step`` (the first is step
        1), after the halvings so far."""
        decay = (
            max(1.0 - (step - 1) / self.planned_steps, 0.0)
            if self.decay
            else 1.0
        )
        warmup = (
            min(step / self.warmup_steps, 1.0)
            if self.warmup_steps
            else 1.0
        )
        return self.lr * (warmup * decay * 0.5 ** len(self.lr_drop_steps))

    def observe(self, step: int, val_loss: float) -> ScheduleDecision:
        """Take the validation loss measured after ``step`` steps;
        decide what training does next."""
        best = val_loss < self.best_loss
        if best:
            self.best_loss, self.best_step = val_loss, step
        if val_loss < self.counted_loss - self.min_delta:
            self.counted_loss, self.bad_checks = val_loss, 0
        else:
            self.bad_checks += 1
        out_of_patience = self.bad_checks >= self.patience
        halve = out_of_patience and len(self.lr_drop_steps) < self.lr_drops
        if halve:
            self.lr_drop_steps.append(step)
            self.bad_checks = 0
        return ScheduleDecision(
            best, halve, stop=out_of_patience and not halve
        )


ValidationHook = Callable[[int, LossRecord], "bool | None"]
"""Called by :func:`train` after each validation with the step and
its :class:`LossRecord`, while the model holds the weights of that
step (in training mode; wrap any measurement in
:func:`~attnbook.nmt.model.evaluating`).
It must not change the model or draw from a global generator.
A true return value ends training after this step (as early
stopping would)."""


class _Log:
    """What :func:`train` records as it goes:
    the training loss and accuracy summed over ``log_every`` steps,
    every validation's record, the progress bar and the clock."""

    def __init__(
        self,
        config: TrainConfig,
        planned_steps: int,
        device: torch.device,
        progress: bool,
    ) -> None:
        self.log_every, self.start = config.log_every, time.perf_counter()
        # loss sum, correct tokens, tokens: read when logged
        self.window = torch.zeros(3, device=device)
        self.history: list[LossRecord] = []
        self.val_history: list[LossRecord] = []
        self.bar = tqdm(
            total=planned_steps,
            disable=not progress,
            desc="training",
            unit="step",
        )

    def add(
        self, step: int, loss: Tensor, correct: Tensor, count: Tensor
    ) -> None:
        self.window += torch.stack(
            [loss.detach() * count, correct.float(), count.float()]
        )
        if step % self.log_every == 0:
            loss_sum, right, tokens = self.window.tolist()
            self.history.append(
                LossRecord(step, loss_sum / tokens, right / tokens)
            )
            self.window.zero_()
        self.bar.update(1)

    def validate(
        self,
        translator: Translator,
        val_pairs: Sequence[SentencePair],
        step: int,
    ) -> LossRecord:
        measured = validation_loss(translator, val_pairs)
        self.val_history.append(
            LossRecord(step, measured.loss, measured.token_accuracy)
        )
        self.bar.set_postfix(
            val_loss=f"{measured.loss:.3f}",
            val_acc=f"{measured.token_accuracy:.3f}",
        )
        return self.val_history[-1]

    def result(self, schedule: Schedule, steps: int) -> TrainResult:
        self.bar.close()
        # a run that did not stop took every planned step
        stopped_early = steps < schedule.planned_steps
        return TrainResult(
            *(
                tuple(self.history),
                tuple(self.val_history),
                schedule.best_step,
                steps,
            ),
            *(
                time.perf_counter() - self.start,
                stopped_early,
                tuple(schedule.lr_drop_steps),
            ),
        )


def _epochs(
    translator: Translator,
    pairs: Sequence[SentencePair],
    config: TrainConfig,
) -> Iterator[Batch]:
    """``config.max_epochs`` shuffled passes over ``pairs``, the order
    drawn from ``config.seed`` alone."""
    order = random.Random(config.seed)
    batches = (
        translator.batches(
            pairs,
            config.batch_size,
            shuffle=True,
            generator=order,
            by_target=config.batch_by_target,
        )
        for _ in range(config.max_epochs)
    )
    return itertools.chain.from_iterable(batches)


def drop_source_words(
    src: Tensor, probability: float, generator: torch.Generator
) -> Tensor:
    """Word dropout (Sennrich and Zhang, 2019): each source word becomes
    ``<unk>`` with ``probability``; padding, ``<eos>`` and the other
    special tokens stay.

    Args:
        src: ``(batch, src_len)`` source ids.
        probability: the chance of each word to be dropped, in [0, 1].
        generator: a CPU generator the draws come from (one number per
            position of ``src``).

    Returns:
        ``(batch, src_len)``: a copy of ``src`` with the dropped words'
        ids ``Vocab.unk_id``.

    >>> src = torch.tensor([[7, 8, 2, 0]])
    >>> drop_source_words(src, 1.0, torch.Generator().manual_seed(0))
    tensor([[3, 3, 2, 0]])
    """
    draws = torch.rand(src.shape, generator=generator).to(src.device)
    dropped = (draws < probability) & (src >= len(SPECIALS))
    return src.masked_fill(dropped, Vocab.unk_id)


def _word_dropout(config: TrainConfig) -> Callable[[Tensor], Tensor]:
    """What :func:`train` does to each training batch's source:
    :func:`drop_source_words` at ``config.word_dropout`` from a
    generator seeded by ``config.seed``; with none, nothing (no generator
    is made, so such a run draws exactly what it drew before word
    dropout existed)."""
    if config.word_dropout == 0:
        return lambda src: src
    draws = torch.Generator().manual_seed(config.seed)
    return lambda src: drop_source_words(src, config.word_dropout, draws)


def average_weights(
    states: Sequence[dict[str, Tensor]],
) -> dict[str, Tensor]:
    """The mean of several ``state_dict``s of one model, entry by entry
    (checkpoint averaging); an entry that is not floating point (a count)
    is the last one's."""
    return {
        name: (
            torch.stack([state[name] for state in states]).mean(dim=0)
            if last.is_floating_point()
            else last
        )
        for name, last in states[-1].items()
    }


def train(
    translator: Translator,
    train_pairs: Sequence[SentencePair],
    val_pairs: Sequence[SentencePair],
    config: TrainConfig | None = None,
    *,
    progress: bool = True,
    stop_after: int | None = None,
    on_validation: ValidationHook | None = None,
) -> TrainResult:
    """Train a translator's model with teacher forcing and early stopping;
    keep the best weights (or, with ``config.average_last``, the mean of
    the last validations' weights).

    Args:
        translator: the model to train, in place (batches go to its
            device), and its vocabularies.
        train_pairs, val_pairs: disjoint training and validation pairs.
        config: how to train (the batch order is drawn from its seed alone,
            a :class:`Schedule` made from it sets the rates and stops);
            ``None`` uses :class:`TrainConfig`'s defaults.
        progress: show a ``tqdm`` progress bar.
        on_validation: a :data:`ValidationHook`, e.g. to take snapshots of
            the attention as it trains.
        stop_after: end after this many steps, the learning rate still
            planned over ``max_epochs`` (a recorded run's first steps,
            trained again to check them); ``None`` trains the whole run.
    """
    config = config or TrainConfig()
    if stop_after is not None and stop_after < 1:
        raise ValueError(
            "stop_after must be a positive number of steps, got "
            f"{stop_after}"
        )
    if not train_pairs or not val_pairs:
        raise ValueError(
            f"need training and validation pairs, got {len(train_pairs)} "
            f"and {len(val_pairs)}"
        )
    model, per_epoch = (
        translator.model,
        math.ceil(len(train_pairs) / config.batch_size),
    )
    schedule = Schedule.from_config(
        config, planned_steps=config.max_epochs * per_epoch
    )
    log = _Log(config, schedule.planned_steps, model.device, progress)
    optimizer = torch.optim.Adam(model.parameters(), lr=config.lr)
    best_state = copy.deepcopy(model.state_dict())
    # the last average_last validations' weights
    recent: collections.deque[dict[str, Tensor]] = collections.deque(
        maxlen=config.average_last
    )
    drop_words = _word_dropout(config)
    model.train()
    for step, batch in enumerate(
        _epochs(translator, train_pairs, config), start=1
    ):
        optimizer.param_groups[0]["lr"] = schedule.rate(step)
        real = batch.tgt_out != Vocab.pad_id
        # the logits of the real target tokens only, (n, vocab)
        logits, _ = model(
            drop_words(batch.src),
            batch.src_mask,
            batch.tgt_in,
            parallel=config.parallel_decoder,
            keep=real,
        )
        loss, correct, count = sequence_loss(
            logits,
            batch.tgt_out[real],
            label_smoothing=config.label_smoothing,
        )
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(
            model.parameters(), config.clip_norm
        )
        optimizer.step()
        log.add(step, loss, correct, count)
        if (
            step % config.eval_every == 0 or step % per_epoch == 0
        ):  # every epoch ends with a validation
            record = log.validate(translator, val_pairs, step)
            halt = (
                on_validation(step, record)
                if on_validation is not None
                else False
            )
            decision = schedule.observe(step, record.loss)
            if decision.best:
                best_state = copy.deepcopy(model.state_dict())
            if config.average_last:
                recent.append(copy.deepcopy(model.state_dict()))
            if decision.stop or halt:
                break
        if step == stop_after:
            break
    if recent:
        model.load_state_dict(average_weights(recent))
    elif config.keep_best:
        model.load_state_dict(best_state)
    model.eval()
    return log.result(schedule, step)
