"""One run, from its data to its scores: prepare, build, train,
evaluate.

Every study trains its models in the same four steps:

1. **prepare** the data (:class:`RunData`): the splits, the pairs the
   model reads (words, or pieces), and the vocabularies of the training
   split (:func:`words_data` for words);
2. **build** a fresh model of the run's kind and sizes, its first weights
   drawn from the run's seed (:func:`build_translator`);
3. **train** it (:func:`~attnbook.nmt.training.train`);
4. **evaluate** it on the test split, as the study scores it.

:func:`run_once` is those steps, in that order; every run of the package
goes through it, so that the same configuration trains the same model.
:class:`RecordedStart` is what a recorded run keeps of its training, so
that its first steps can be trained again and compared with the record
(:func:`~attnbook.studies.replay.replay`).

>>> from attnbook.nmt.grammar import make_splits
>>> from attnbook.nmt.training import TrainConfig
>>> from attnbook.studies.experiment import ExperimentConfig, ModelConfig
>>> config = ExperimentConfig(
...     model=ModelConfig(emb_dim=8, hidden_dim=8, attn_dim=8),
...     train=TrainConfig(max_epochs=1, batch_size=20),
... )
>>> data = words_data(make_splits(40, 8, 8, seed=0, max_src_len=6))
>>> run = run_once(config, data, lambda model, data: len(data.split.test))
>>> run.training.steps, run.evaluation
(2, 8)
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Generic, Protocol, TypeVar

import torch

from attnbook.core.runtime import set_seed
from attnbook.nmt.data import SentencePair, Vocab
from attnbook.nmt.subwords import Subwords
from attnbook.nmt.text import Tokenizer
from attnbook.nmt.training import (
    TrainConfig,
    TrainResult,
    ValidationHook,
    train,
)
from attnbook.nmt.translator import ModelSpec, Translator

E = TypeVar("E")
S = TypeVar("S", bound="Splits")


class RunConfig(Protocol):
    """What :func:`build_translator` reads from a run's configuration
    (:class:`~attnbook.studies.experiment.ExperimentConfig`, and
    :class:`~attnbook.studies.realdata.RealConfig`)."""

    model: ModelSpec
    train: TrainConfig


def build_translator(
    config: RunConfig,
    src_vocab: Vocab,
    tgt_vocab: Vocab,
    *,
    device: str | torch.device | None = None,
    seed: int | None = None,
    max_src_len: int | None = None,
) -> Translator:
    """A fresh model of the run's kind and sizes for these vocabularies,
    on ``device``.

    Its first weights are drawn right after
    :func:`~attnbook.core.runtime.set_seed` with ``seed`` (default:
    ``config.train.seed``), so the same call builds the same weights,
    and two models built with the same seed start alike.
    ``max_src_len`` (default: ``config.data.max_src_len``) is the longest
    source the model accepts.

    >>> from dataclasses import replace
    >>> from attnbook.studies.experiment import (
    ...     ExperimentConfig,
    ...     ModelConfig,
    ... )
    >>> config = ExperimentConfig(
    ...     model=ModelConfig(attention="luong", hidden_dim=8, emb_dim=4)
    ... )
    >>> translator = build_translator(
    ...     config, Vocab(["the", "cat"]), Vocab(["le", "chat"])
    ... )
    >>> (
    ...     translator.model.config.luong_score,
    ...     translator.model.config.max_src_len,
    ... )
    ('general', 25)
    >>> twin = build_translator(
    ...     config, Vocab(["the", "cat"]), Vocab(["le", "chat"])
    ... )
    >>> all(
    ...     torch.equal(a, b)
    ...     for a, b in zip(
    ...         translator.model.parameters(), twin.model.parameters()
    ...     )
    ... )
    True
    >>> from attnbook.nmt.transformer import TransformerSizes
    >>> transformer = replace(config, model=TransformerSizes(d_model=8))
    >>> build_translator(
    ...     transformer, Vocab(["the", "cat"]), Vocab(["le", "chat"])
    ... ).model.kind
    'transformer'
    """
    longest = (
        config.data.max_src_len if max_src_len is None else max_src_len
    )  # type: ignore[attr-defined]
    set_seed(config.train.seed if seed is None else seed)
    model = config.model.build(
        len(src_vocab), len(tgt_vocab), max_src_len=longest
    )
    if device is not None:
        model.to(device)
    return Translator(model, src_vocab, tgt_vocab)


class Splits(Protocol):
    """Training, validation and test pairs, as words
    (:class:`~attnbook.nmt.grammar.DataSplits`,
    :class:`~attnbook.nmt.split.EnglishSplit`)."""

    @property
    def train(self) -> Sequence[SentencePair]: ...

    @property
    def val(self) -> Sequence[SentencePair]: ...

    @property
    def test(self) -> Sequence[SentencePair]: ...


@dataclass(frozen=True, eq=False)
class RunData(Generic[S]):
    """A run's data, ready for its model.

    Attributes:
        split: the training, validation and test pairs, as words (the
            study's evaluation reads the test pairs).
        train, val: the pairs the model trains and validates on: the
            split's, or the same cut into pieces.
        src_vocab, tgt_vocab: what the model reads and writes, from the
            training split alone.
        max_src_len: the longest source, in the model's tokens, it must
            accept (``None``: the configuration's ``max_src_len``).
        units: the English and French pieces of a run over pieces
            (``None``: whole words); the model's translator carries them.
    """

    split: S
    train: Sequence[SentencePair]
    val: Sequence[SentencePair]
    src_vocab: Vocab
    tgt_vocab: Vocab
    max_src_len: int | None = None
    units: tuple[Subwords, Subwords] | None = None


def words_data(
    split: S,
    *,
    min_count: int = 1,
    source_min_count: int = 0,
    max_src_len: int | None = None,
) -> RunData[S]:
    """The data of a run over whole words: ``split`` as it is, and the
    vocabularies of the words its training pairs use at least
    ``min_count`` times (``source_min_count`` times on the source side,
    where it is not 0)."""
    source_min_count = source_min_count or min_count
    return RunData(
        split,
        split.train,
        split.val,
        Vocab.build(
            (p.source for p in split.train), min_count=source_min_count
        ),
        Vocab.build((p.target for p in split.train), min_count=min_count),
        max_src_len,
    )


def new_translator(
    config: RunConfig, data: RunData[Any], device: str | torch.device
) -> Translator:
    """The untrained model of a run on its data (its first weights from
    the run's seed), with the pieces' tokeniser where it reads pieces."""
    translator = build_translator(
        config,
        data.src_vocab,
        data.tgt_vocab,
        device=device,
        max_src_len=data.max_src_len,
    )
    if data.units is None:
        return translator
    return replace(translator, tokenizer=Tokenizer(*data.units))


@dataclass(frozen=True, eq=False)
class TrainedRun(Generic[E]):
    """What :func:`run_once` built and measured.

    Attributes:
        translator: the trained model and its vocabularies.
        training: what :func:`~attnbook.nmt.training.train` measured.
        cpu_seconds: the process's CPU time while training
            (:func:`time.process_time`, which a busy neighbour does not
            inflate the way it inflates wall-clock time).
        evaluation: the study's evaluation (``None`` without one).
    """

    translator: Translator
    training: TrainResult
    cpu_seconds: float
    evaluation: E | None


def run_once(
    config: RunConfig,
    data: RunData[S],
    evaluate: Callable[[Translator, RunData[S]], E] | None = None,
    *,
    device: str | torch.device = "cpu",
    progress: bool = False,
    stop_after: int | None = None,
    on_validation: ValidationHook | None = None,
    translator: Translator | None = None,
) -> TrainedRun[E]:
    """Build the run's model on ``device``, train it on ``data`` and
    evaluate it.

    Args:
        config: the run (its ``model`` and ``train``).
        data: the prepared data.
        evaluate: the study's scoring of the trained model
            (``None``: none).
        device: where to train.
        progress: show the training progress bar.
        stop_after, on_validation: as in
            :func:`~attnbook.nmt.training.train`.
        translator: the run's untrained model, built already by
            :func:`new_translator` (so that ``on_validation`` can read
            it); ``None`` builds it.
    """
    if translator is None:
        translator = new_translator(config, data, device)
    cpu_start = time.process_time()
    training = train(
        translator,
        data.train,
        data.val,
        config.train,
        progress=progress,
        stop_after=stop_after,
        on_validation=on_validation,
    )
    cpu_seconds = time.process_time() - cpu_start
    evaluation = evaluate(translator, data) if evaluate else None
    return TrainedRun(translator, training, cpu_seconds, evaluation)


@dataclass(frozen=True)
class RecordedStart:
    """A recorded run, as much of it as training its first steps again
    needs: its configuration and the losses it logged.

    Attributes:
        config: the run (a chapter 6 or a real-pairs configuration).
        train_losses: the training loss every ``log_every`` steps, from
            the first (empty where the record kept none).
        val_losses: the validation loss at each step it validated.
    """

    config: Any
    train_losses: tuple[float, ...] = ()
    val_losses: dict[int, float] = field(default_factory=dict)

    @classmethod
    def of_training(
        cls, config: Any, result: TrainResult
    ) -> RecordedStart:
        """The start of a run whose whole
        :class:`~attnbook.nmt.training.TrainResult` was recorded."""
        return cls(
            config,
            tuple(r.loss for r in result.history),
            {r.step: r.loss for r in result.val_history},
        )
