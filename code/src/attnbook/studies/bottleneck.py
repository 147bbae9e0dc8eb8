r"""The bottleneck, trained until early stopping ends it:
chapter 6's attention model beside the no-attention baseline at several
sizes and with its source reversed, over several seeds.

A chapter cannot afford to train a dozen models until they stop on a CPU,
so the study is run once from the command line and its result ships with
the package: :func:`run_study` trains and evaluates the models,
:class:`BottleneckStudy` holds the result and its JSON
(``BottleneckStudy.packaged()`` is the recorded run that appendix B shows),
and :func:`format_study` prints a table of it. Record it again with::

    python -m attnbook bottleneck \
        --save code/src/attnbook/data/bottleneck_cpu.json

Every model trains under the same rule, :data:`STUDY_TRAIN`:
validate every 50 steps; when the validation loss has not fallen by
``min_delta`` for ``patience`` validations, halve the learning rate,
twice, and stop at the third time; keep the weights of the lowest
validation loss. The data are the chapter's
(:class:`~attnbook.studies.experiment.DataConfig`);
each seed changes the first weights and the batch order.

>>> [
...     (m.label, m.hidden_dim)
...     for m in study_models(
...         hidden_sizes=(64, 128), reversed_sizes=(128,)
...     )
... ]
[('attention', 128), ('no attention', 64), ('no attention', 128), ('no
attention, reversed', 128)]
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

import torch

from attnbook.core.records import (
    Environment,
    Record,
    SeededRuns,
    environment,
    mean_sd,
)
from attnbook.nmt.evaluation import evaluate
from attnbook.nmt.metrics import TranslationMetrics
from attnbook.nmt.side_by_side import TrainingRun, train_side_by_side
from attnbook.nmt.training import TrainConfig
from attnbook.studies.experiment import (
    DataConfig,
    ExperimentConfig,
    ModelConfig,
)
from attnbook.studies.recipe import (
    RecordedStart,
    new_translator,
    words_data,
)

STUDY_TRAIN = TrainConfig(
    max_epochs=32, patience=4, min_delta=1e-3, lr_drops=2
)
"""How every model of the study trains: at most 32 epochs, early stopping
with two halvings of the rate."""


@dataclass(frozen=True)
class StudyModel:
    """One model of the study: which decoder, what size, and whether the
    English is read backwards."""

    label: str
    attention: str
    hidden_dim: int
    reverse_source: bool = False

    def config(
        self, base: ExperimentConfig, seed: int
    ) -> ExperimentConfig:
        """``base`` with this model's decoder, size and source order,
        trained from ``seed``."""
        return replace(
            base,
            data=replace(base.data, reverse_source=self.reverse_source),
            model=replace(
                base.model,
                attention=self.attention,
                hidden_dim=self.hidden_dim,
            ),
            train=replace(base.train, seed=seed),
        )


def study_models(
    hidden_sizes: Sequence[int] = (64, 128, 256),
    reversed_sizes: Sequence[int] = (128,),
    attention_size: int = ModelConfig.hidden_dim,
) -> tuple[StudyModel, ...]:
    """The attention model, the baseline at each of ``hidden_sizes`` and,
    reversed, at ``reversed_sizes``."""
    return (
        StudyModel("attention", "bahdanau", attention_size),
        *(
            StudyModel("no attention", "none", size)
            for size in hidden_sizes
        ),
        *(
            StudyModel(
                "no attention, reversed", "none", size, reverse_source=True
            )
            for size in reversed_sizes
        ),
    )


@dataclass(frozen=True)
class StudyRun:
    """One trained model of the study and what it measured.

    Attributes:
        model: what was trained; seed: its seed; parameters:
            its number of weights.
        steps, best_step, stopped_early, lr_drop_steps, seconds:
            as in :class:`~attnbook.nmt.training.TrainResult` (seconds
            while sharing the machine with other runs).
        val_steps, val_losses: the validation curve.
        metrics: the held-out test split, translated greedily with the
            weights of the lowest validation loss.
    """

    model: StudyModel
    seed: int
    parameters: int
    steps: int
    best_step: int
    stopped_early: bool
    lr_drop_steps: tuple[int, ...]
    seconds: float
    val_steps: tuple[int, ...]
    val_losses: tuple[float, ...]
    metrics: TranslationMetrics

    @property
    def best_loss(self) -> float:
        """The lowest validation loss, in nats per token."""
        return min(self.val_losses)


@dataclass(frozen=True)
class BottleneckStudy(SeededRuns[StudyRun], Record):
    """A run of :func:`run_study`.

    Attributes:
        environment: the machine, the versions and the threads.
        config: the experiment every model was derived from (data, model,
            training), as plain values.
        runs: one per model and seed.
        seconds: how long the whole study took.
    """

    PACKAGED = "bottleneck_cpu.json"
    WHAT = "a recorded bottleneck study"
    BY = "model"

    environment: Environment
    config: dict[str, Any]
    runs: tuple[StudyRun, ...]
    seconds: float

    @property
    def models(self) -> list[StudyModel]:
        """The models, in the order they were given, each once."""
        return list(dict.fromkeys(run.model for run in self.runs))

    def recorded_start(self, run: StudyRun) -> RecordedStart:
        """``run``'s configuration and its validation losses, to train
        its first steps again.

        The first weights, the batch order and the learning rate are those
        of the recorded run, so the validation losses should match the
        record's at the same steps (up to the rounding of another CPU),
        as long as the run neither halved its rate nor stopped in those
        steps.
        """
        return RecordedStart(
            run.model.config(study_config(self), run.seed),
            val_losses=dict(
                zip(run.val_steps, run.val_losses, strict=True)
            ),
        )


def default_base() -> ExperimentConfig:
    """The chapter's data and model, trained by :data:`STUDY_TRAIN`."""
    return ExperimentConfig(train=STUDY_TRAIN)


def run_study(
    base: ExperimentConfig | None = None,
    *,
    models: Sequence[StudyModel] | None = None,
    seeds: Sequence[int] = (0, 1, 2),
    device: str | torch.device = "cpu",
    workers: int = 2,
    progress: bool = False,
) -> BottleneckStudy:
    """Train every model with every seed until early stopping ends it;
    evaluate each on the test split.

    Args:
        base: the data, the model sizes and the training rule (default:
            :func:`default_base`).
        models: what to train (default: :func:`study_models`).
        seeds: one run of each model per seed.
        device: where to train.
        workers: how many models train at once (on a CPU, one thread each:
            set ``torch.set_num_threads(1)`` first).
        progress: show a bar that counts the trained models.
    """
    base = base or default_base()
    models = (
        tuple(models)
        if models is not None
        else study_models(attention_size=base.model.hidden_dim)
    )
    if not models or not seeds:
        raise ValueError("the study needs at least one model and one seed")
    device = torch.device(device)
    start = time.perf_counter()
    # the same sentences in both orders, so the same vocabularies
    data = {
        flag: words_data(replace(base.data, reverse_source=flag).splits())
        for flag in dict.fromkeys(m.reverse_source for m in models)
    }
    planned = [(model, seed) for seed in seeds for model in models]
    readers, runs = [], []
    for model, seed in planned:
        config = model.config(base, seed)
        reader = new_translator(config, data[model.reverse_source], device)
        words = data[model.reverse_source]
        readers.append(reader)
        runs.append(
            TrainingRun(reader, words.train, words.val, config.train)
        )
    results = train_side_by_side(runs, workers=workers, progress=progress)
    study_runs = []
    for (model, seed), reader, result in zip(
        planned, readers, results, strict=True
    ):
        metrics = evaluate(
            reader,
            data[model.reverse_source].split.test,
            with_alignment=False,
        ).metrics
        study_runs.append(
            StudyRun(
                model=model,
                seed=seed,
                parameters=sum(
                    p.numel() for p in reader.model.parameters()
                ),
                steps=result.steps,
                best_step=result.best_step,
                stopped_early=result.stopped_early,
                lr_drop_steps=result.lr_drop_steps,
                seconds=result.seconds,
                val_steps=tuple(r.step for r in result.val_history),
                val_losses=tuple(r.loss for r in result.val_history),
                metrics=metrics,
            )
        )
    config = {
        "data": asdict(base.data),
        "model": asdict(base.model),
        "train": base.train.to_dict(),
    }
    return BottleneckStudy(
        environment(device, torch.get_num_threads()),
        config,
        tuple(study_runs),
        time.perf_counter() - start,
    )


def study_config(study: BottleneckStudy) -> ExperimentConfig:
    """The :class:`~attnbook.studies.experiment.ExperimentConfig` a study's
    models were derived from."""
    values = study.config
    return ExperimentConfig(
        DataConfig(**values["data"]),
        ModelConfig(**values["model"]),
        TrainConfig(**values["train"]),
    )


def _mean_sd(values: Sequence[float]) -> str:
    return "{:.3f} ± {:.3f}".format(*mean_sd(values))


def format_study(study: BottleneckStudy) -> str:
    """A plain-text table: one row per model, mean ± standard deviation
    over the seeds."""
    longest = list(study.runs[0].metrics.token_accuracy_by_length)[-1]
    header = (
        f"{'model':<24}{'d_h':>5}{'weights':>10}"
        f"{'steps':>8}{'stopped':>9}  "
        f"{'best val. loss':<16}{'exact match':<16}{'BLEU':<14}"
        f"{f'token acc., {longest} words':<16}"
    )
    lines = [header]
    for model in study.models:
        runs = study.runs_of(model)
        steps = mean_sd([r.steps for r in runs])[0]
        stopped = sum(r.stopped_early for r in runs)
        loss = _mean_sd([r.best_loss for r in runs])
        exact = _mean_sd([r.metrics.exact_match for r in runs])
        bleu = mean_sd([r.metrics.bleu for r in runs])[0]
        accuracy = _mean_sd(
            [r.metrics.token_accuracy_by_length[longest] for r in runs]
        )
        lines.append(
            f"{model.label:<24}{model.hidden_dim:>5}"
            f"{runs[0].parameters:>10,}"
            f"{steps:>8.0f}{stopped:>6}/{len(runs)}  "
            f"{loss:<16}{exact:<16}{bleu:<14.1f}{accuracy:<16}"
        )
    where = study.environment
    lines.append(
        f"{len(study.seeds)} seeds; {where.device} ({where.device_name}), "
        f"torch {where.torch}, "
        f"{where.date[:10]}; {study.seconds / 60:.0f} min"
    )
    return "\n".join(lines)
