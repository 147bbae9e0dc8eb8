"""Several independent :func:`~attnbook.nmt.training.train` runs at
once, one thread each, so that a machine with several cores trains several
small models in the time of the slowest.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from attnbook.core.progress import tqdm
from attnbook.nmt.data import SentencePair
from attnbook.nmt.training import (
    TrainConfig,
    TrainResult,
    ValidationHook,
    train,
)

if TYPE_CHECKING:
    from attnbook.nmt.translator import Translator


@dataclass(frozen=True, eq=False)
class TrainingRun:
    """One model to train with :func:`train_side_by_side`:
    the arguments of one :func:`train` call."""

    translator: Translator
    train_pairs: Sequence[SentencePair]
    val_pairs: Sequence[SentencePair]
    config: TrainConfig = field(default_factory=TrainConfig)
    on_validation: ValidationHook | None = None


def train_side_by_side(
    runs: Sequence[TrainingRun],
    *,
    workers: int | None = None,
    progress: bool = False,
) -> list[TrainResult]:
    """Train independent models at the same time, one thread each;
    return their results in order.

    Each run is exactly the :func:`train` call it describes:
    the models share no tensor, each batch order comes from its own
    config's seed, no global random generator is drawn while training,
    and PyTorch's gradient mode is per thread.
    So the weights and results are bit for bit those of the runs made one
    after the other (a test checks this); only the time differs.
    PyTorch's operations release Python's global lock, so on a CPU where
    each model uses one thread (``torch.set_num_threads(1)``)
    two runs keep two cores busy. A run that raises re-raises here,
    after every run has ended. ``TrainResult.seconds`` is each run's
    wall-clock time while it shared the machine.

    Args:
        runs: the models to train.
        workers: how many train at once (default: all of them);
            the next starts when one ends.
        progress: show a bar that counts the finished runs.

    >>> train_side_by_side([])
    []
    """
    if not runs:
        return []
    with (
        ThreadPoolExecutor(
            max_workers=workers or len(runs), thread_name_prefix="train"
        ) as pool,
        tqdm(
            total=len(runs),
            disable=not progress,
            desc="models trained",
            unit="model",
        ) as bar,
    ):
        futures = [
            pool.submit(
                train,
                *(
                    run.translator,
                    run.train_pairs,
                    run.val_pairs,
                    run.config,
                ),
                progress=False,
                on_validation=run.on_validation,
            )
            for run in runs
        ]
        for future in futures:
            future.add_done_callback(lambda _: bar.update(1))
        return [future.result() for future in futures]
