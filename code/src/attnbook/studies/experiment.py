"""Chapter 6's experiment in one call: configuration -> data -> model ->
training -> evaluation.

:class:`ExperimentConfig` nests the three parts of a run,
:class:`DataConfig`, the model (a
:class:`~attnbook.nmt.seq2seq.ModelConfig`, or the
:class:`~attnbook.nmt.transformer.TransformerSizes`: the type says the
kind) and :class:`~attnbook.nmt.training.TrainConfig`;
each refuses an impossible value when it is built, with a message that
names the fix. :func:`run_experiment` runs it (``python -m attnbook train``
too, with one command-line flag per field: see :mod:`attnbook.cli.flags`).

>>> from attnbook.studies.experiment import (
...     DataConfig,
...     ExperimentConfig,
...     ModelConfig,
...     run_experiment,
... )
>>> from attnbook.nmt.training import TrainConfig
>>> ExperimentConfig(
...     model=ModelConfig(attention="luong", luong_score="dot")
... )
Traceback (most recent call last):
...
ValueError: luong_score='dot' needs decoder states (hidden_dim=128) and
encoder states (2 * hidden_dim=256) of one size, but the encoder is
bidirectional: use luong_score='general' or 'concat'
>>> tiny = ExperimentConfig(
...     DataConfig(n_train=40, n_val=8, n_test=8, max_src_len=6),
...     ModelConfig(emb_dim=8, hidden_dim=8, attn_dim=8),
...     TrainConfig(max_epochs=1, batch_size=20),
... )
>>> experiment = run_experiment(tiny, device="cpu", progress=False)
>>> experiment.training.steps, sorted(experiment.to_dict())[:3]
(2, ['aer', 'alignment_accuracy', 'alignment_by_category'])
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from typing import Any

import torch

from attnbook.core.config import check_fields
from attnbook.core.runtime import get_device
from attnbook.nmt.evaluation import EvalResult, evaluate
from attnbook.nmt.grammar import DataSplits, make_splits
from attnbook.nmt.seq2seq import ModelConfig
from attnbook.nmt.training import TrainConfig, TrainResult
from attnbook.nmt.translator import MODEL_SPECS, ModelSpec, Translator
from attnbook.studies.recipe import RunConfig, run_once, words_data


@dataclass(frozen=True)
class DataConfig:
    """The data: disjoint splits drawn from the toy grammar of
    :mod:`attnbook.nmt.grammar`.

    Attributes:
        n_train: training pairs.
        n_val: validation pairs (early stopping).
        n_test: held-out test pairs.
        max_src_len: the longest English sentence, in words.
        data_seed: the seed of the draw.
        reverse_source: feed the English words in reverse order (Sutskever
            et al., 2014), with the alignments moved with them.
    """

    n_train: int = field(default=20000, metadata={"minimum": 1})
    n_val: int = field(default=500, metadata={"minimum": 1})
    n_test: int = field(default=1000, metadata={"minimum": 1})
    max_src_len: int = field(default=25, metadata={"minimum": 3})
    data_seed: int = 0
    reverse_source: bool = False

    def __post_init__(self) -> None:
        check_fields(self)

    def splits(self) -> DataSplits:
        """Draw the three splits (the same sentences whether or not the
        source is reversed)."""
        splits = make_splits(
            self.n_train,
            self.n_val,
            self.n_test,
            seed=self.data_seed,
            max_src_len=self.max_src_len,
        )
        if not self.reverse_source:
            return splits
        train, val, test = (
            [p.with_source_reversed() for p in part]
            for part in (splits.train, splits.val, splits.test)
        )
        return DataSplits(train, val, test)


def default_lr_decay(model: ModelSpec) -> bool:
    """Whether ``model`` trains with a learning rate that falls to zero,
    when the configuration leaves it open (its ``falling_lr``).

    Luong's decoder does, as in Luong et al. (2015, section 4.1),
    who halve their learning rate every epoch after the fifth;
    here the rate falls linearly to zero over the planned epochs
    (:class:`~attnbook.nmt.training.TrainConfig`'s ``lr_decay``),
    so the last updates are small. Bahdanau's decoder and the baseline keep
    a constant rate, the setting of chapter 6; the Transformer's rate
    falls (chapter 9).

    >>> from attnbook.nmt.transformer import TransformerSizes
    >>> (
    ...     default_lr_decay(ModelConfig(attention="luong")),
    ...     default_lr_decay(ModelConfig(attention="bahdanau")),
    ...     default_lr_decay(TransformerSizes()),
    ... )
    (True, False, True)
    """
    return model.falling_lr


MODEL_KIND_NAMES = tuple(MODEL_SPECS)
"""The kinds of model a run can train (``--model``): ``seq2seq`` (the
recurrent model, :class:`ModelConfig`) or ``transformer``
(:class:`~attnbook.nmt.transformer.TransformerSizes`)."""


@dataclass(frozen=True)
class ExperimentConfig:
    """Chapter 6's configuration (``python -m attnbook train``):
    the data, the model and the training.

    Attributes:
        data: what to draw.
        model: what to build: the recurrent model's choices
            (:class:`ModelConfig`) or the Transformer's sizes
            (:class:`~attnbook.nmt.transformer.TransformerSizes`); its type
            says the kind.
        train: how to train; a ``lr_decay`` left at ``None`` is set when
            the configuration is built, by :func:`default_lr_decay` for the
            model (so ``replace`` keeps the value chosen then).

    Raises:
        TypeError: ``model`` is neither kind.

    >>> (
    ...     ExperimentConfig().train.lr_decay,
    ...     ExperimentConfig(
    ...         model=ModelConfig(attention="luong")
    ...     ).train.lr_decay,
    ... )
    (False, True)
    >>> ExperimentConfig(
    ...     model=ModelConfig(attention="luong"),
    ...     train=TrainConfig(lr_decay=False),
    ... ).train.lr_decay
    False
    """

    data: DataConfig = field(default_factory=DataConfig)
    model: ModelSpec = field(
        default_factory=ModelConfig,
        metadata={"kinds": MODEL_SPECS, "flag": "--model"},
    )
    train: TrainConfig = field(default_factory=TrainConfig)

    def __post_init__(self) -> None:
        check_fields(self)
        if self.train.lr_decay is None:
            decay = default_lr_decay(self.model)
            object.__setattr__(
                self, "train", replace(self.train, lr_decay=decay)
            )


def attention_name(config: RunConfig) -> str:
    """The attention a run's model uses, as its summary names it:
    the decoder's, or ``multi-head``."""
    return config.model.attention_name


def run_settings(config: RunConfig) -> dict[str, Any]:
    """The data and model settings of a run as one flat dict (the
    summary's ``config``)."""
    # every run's configuration has its data
    data = asdict(config.data)  # type: ignore[attr-defined]
    return {
        **data,
        "model_kind": config.model.kind,
        **asdict(config.model),
    }


@dataclass(frozen=True, eq=False)
class Experiment:
    """Everything :func:`run_experiment` built and measured."""

    config: ExperimentConfig
    splits: DataSplits
    translator: Translator
    training: TrainResult
    evaluation: EvalResult | None
    device: torch.device

    def to_dict(self) -> dict[str, Any]:
        """The headline numbers as plain values (the command
        line's JSON)."""
        metrics = (
            self.evaluation.to_dict()
            if self.evaluation is not None
            else {}
        )
        return {
            "attention": attention_name(self.config),
            "device": str(self.device),
            **metrics,
            "train_seconds": self.training.seconds,
            "train_steps": self.training.steps,
            "best_step": self.training.best_step,
            "stopped_early": self.training.stopped_early,
            "config": run_settings(self.config),
            "train_config": self.config.train.to_dict(),
        }


def run_experiment(
    config: ExperimentConfig | None = None,
    *,
    device: torch.device | str | None = None,
    progress: bool = True,
    evaluate_test: bool = True,
) -> Experiment:
    """Draw the data, build the vocabularies and the model, train it,
    and evaluate it on the test split.

    Args:
        config: the experiment; ``None`` uses :class:`ExperimentConfig`'s
            defaults (the chapter's).
        device: where to train; ``None`` uses
            :func:`~attnbook.core.runtime.get_device`.
        progress: show the training progress bar.
        evaluate_test: evaluate on the test split (greedy search)
            after training.
    """
    config = config or ExperimentConfig()
    device = torch.device(device) if device is not None else get_device()
    splits = config.data.splits()
    run = run_once(
        config,
        words_data(splits),
        (lambda translator, data: evaluate(translator, data.split.test))
        if evaluate_test
        else None,
        device=device,
        progress=progress,
    )
    return Experiment(
        config,
        splits,
        run.translator,
        run.training,
        run.evaluation,
        device,
    )
