"""How the translators the book ships in its pages were trained,
so that anyone can train them again.

- :func:`train_grammar_translator`: chapter 6's attention model of the toy
  grammar, trained exactly as the chapter trains it on a CPU
  (:data:`GRAMMAR_CONFIG`, one thread): the model the chapter's box runs.
- :func:`write_grammar_translator`: trains it as the chapter does, keeping
  the running example's attention at every validation, and writes its
  checkpoint, its run's record (:class:`GrammarTranslatorRun`) and, from
  the same weights, the page's int8 weights
  (:func:`~attnbook.nmt.export.export_translator`). Chapter 7 and
  appendix B read the checkpoint and the record
  (:func:`packaged_grammar_translator`) instead of training the model
  again. The files the package ships were written by::

      python -c "from attnbook.studies import write_grammar_translator as w
      w('code/src/attnbook/data')"

- :func:`write_grammar_baseline`: chapter 6's baseline without attention,
  trained as the chapter trains it on a CPU, written as a checkpoint with
  its run's record. A CPU cannot afford to train both models within the
  chapter's time, so the chapter trains the attention model and loads this
  baseline (:func:`packaged_grammar_baseline`), after training its first
  steps again (:meth:`GrammarBaselineRun.recorded_start`,
  :func:`~attnbook.studies.replay.replay`) and comparing their losses with
  the record.
- :class:`ShippedRun`: the losses of the run that made the shipped Tatoeba
  GRU translator (``python -m attnbook train --corpus tatoeba --model
  seq2seq``), so that its
  first steps can be trained again on the CPU, with the same split, first
  weights, batch order and learning rates, and compared with them.
- :func:`write_tatoeba_translator`: trains that run and writes both files,
  the page's int8 weights and the run's record, comparing the weights with
  the ones shipped before::

      python -c "from attnbook.studies import write_tatoeba_translator as w
      w('code/src/attnbook/data')"

- :func:`write_tatoeba_transformer`: trains chapter 9's Transformer on the
  same pairs with the small-data recipe (``python -m attnbook train
  --corpus tatoeba``, one thread) and writes the page's int8 weights and
  the run's record (:class:`TransformerRun`), with the held-out scores of
  the weights the page reads at a beam of 1 and of 4::

      python -c "from attnbook.studies.shipped import (
          write_tatoeba_transformer as w); w('code/src/attnbook/data')"
"""

from __future__ import annotations

import platform
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from functools import cache
from pathlib import Path
from typing import Any

import torch

from attnbook.core.records import (
    Environment,
    Record,
    environment,
    package_path,
)
from attnbook.core.runtime import one_thread
from attnbook.nmt.attention_analysis import AttentionSnapshots
from attnbook.nmt.corpus import load_tatoeba, shipped_path
from attnbook.nmt.data import SentencePair
from attnbook.nmt.evaluation import evaluate
from attnbook.nmt.export import (
    GRAMMAR_TRANSLATOR,
    SHIPPED_TRANSFORMER,
    SHIPPED_TRANSLATOR,
    export_translator,
    read_export,
    shipped_export,
)
from attnbook.nmt.heldout import RealEvaluation, evaluate_real
from attnbook.nmt.metrics import score_texts, scored_text
from attnbook.nmt.split import (
    EnglishSplit,
    group_references,
    lowered_source,
    split_by_english,
)
from attnbook.nmt.text import Tokenizer, detokenize_french, learn_casing
from attnbook.nmt.training import (
    TrainConfig,
    TrainResult,
    train,
    validation_loss,
)
from attnbook.nmt.translator import Translator
from attnbook.studies.experiment import ExperimentConfig
from attnbook.studies.realdata import (
    RealConfig,
    cased_split,
    run_real_experiment,
    small_data_config,
)
from attnbook.studies.recipe import (
    RecordedStart,
    new_translator,
    run_once,
    words_data,
)
from attnbook.studies.running_example import RUNNING_PAIR

GRAMMAR_CONFIG = ExperimentConfig(train=TrainConfig(max_epochs=4))
"""Chapter 6's run on a CPU: the grammar's default splits and model,
four epochs."""

GRAMMAR_NAME = "Toy grammar English-French (Bahdanau attention)"
"""The name the grammar's exported translator carries."""


def train_grammar_translator(
    config: ExperimentConfig = GRAMMAR_CONFIG,
    stop_after: int | None = None,
) -> tuple[Translator, TrainResult]:
    """Train chapter 6's attention model as the chapter does on a CPU:
    same splits, seed and steps.

    Training runs on one thread (as in the chapter), which is
    restored afterwards.

    Args:
        config: the run (the baseline's is
            :func:`grammar_baseline_config`).
        stop_after: stop after this many optimiser steps (``None``: the
            whole run).

    Returns:
        The trained translator (on the CPU) and what
        :func:`~attnbook.nmt.training.train` measured.
    """
    data = words_data(config.data.splits())
    with one_thread():
        run = run_once(config, data, stop_after=stop_after)
    return run.translator, run.training


GRAMMAR_BASELINE = "grammar-baseline.pt"
"""Chapter 6's baseline without attention, trained as the chapter trains
it beside the attention model on a CPU (:func:`grammar_baseline_config`):
its checkpoint (:meth:`~attnbook.nmt.translator.Translator.save`)."""


@dataclass(frozen=True)
class GrammarBaselineRun(Record):
    """How the shipped baseline trained (the package's
    ``grammar-baseline.json``).

    Attributes:
        trained_by: the function that trained it.
        environment: where and when (the
            :class:`~attnbook.core.records.Environment`'s fields).
        train: what its training measured.
    """

    PACKAGED = "grammar-baseline.json"
    WHAT = "the record of the grammar's baseline"

    trained_by: str
    environment: dict[str, Any]
    train: TrainResult

    def recorded_start(self) -> RecordedStart:
        """The baseline's configuration and its logged losses, to train
        its first steps again."""
        return RecordedStart.of_training(
            grammar_baseline_config(), self.train
        )


def grammar_baseline_config(
    config: ExperimentConfig = GRAMMAR_CONFIG,
) -> ExperimentConfig:
    """``config`` with the decoder that has no attention: chapter 6's
    baseline."""
    return replace(config, model=replace(config.model, attention="none"))


def write_grammar_baseline(folder: str | Path) -> tuple[Path, Path]:
    """Train chapter 6's baseline (:func:`grammar_baseline_config`, one
    thread) and write its checkpoint and its run's record into ``folder``,
    named :data:`GRAMMAR_BASELINE` and ``GrammarBaselineRun.PACKAGED``.

    The files the package ships were written by::

        python -c "from attnbook.studies import write_grammar_baseline as w
        w('code/src/attnbook/data')"

    Returns:
        The two paths written.
    """
    translator, result = train_grammar_translator(
        grammar_baseline_config()
    )
    folder = Path(folder)
    weights = translator.save(folder / GRAMMAR_BASELINE)
    record = GrammarBaselineRun(
        trained_by="attnbook.studies.write_grammar_baseline",
        environment=asdict(environment(torch.device("cpu"), threads=1)),
        train=result,
    )
    return weights, record.save(folder / GrammarBaselineRun.PACKAGED)


def packaged_grammar_baseline(
    device: torch.device | str | None = None,
) -> tuple[Translator, TrainResult, dict[str, Any]]:
    """The baseline the package ships: the translator (on ``device``),
    what its training measured, and where it ran (the
    :class:`~attnbook.core.records.Environment`'s fields).

    Its vocabularies are those of the grammar's default training
    split."""
    with package_path(GRAMMAR_BASELINE) as path:
        translator = Translator.load(path, device=device)
    record = GrammarBaselineRun.packaged()
    return translator, record.train, record.environment


GRAMMAR_CHECKPOINT = "grammar-translator.pt"
"""Chapter 6's attention model, trained as the chapter trains it on a CPU
(:data:`GRAMMAR_CONFIG`, one thread): its checkpoint
(:meth:`~attnbook.nmt.translator.Translator.save`), the model that
chapter 7 and appendix B read and the page's box runs."""


@dataclass(frozen=True)
class GrammarTranslatorRun(Record):
    """How the shipped grammar translator trained (the package's
    ``grammar-translator.json``), with the running example's attention at
    every validation.

    Attributes:
        trained_by: the function that trained it.
        environment: where and when (the
            :class:`~attnbook.core.records.Environment`'s fields).
        train: what its training measured.
        snapshot_steps, snapshot_losses: the step and the validation loss
            of each snapshot of the running example's attention (step 0:
            before training).
        snapshot_weights: each snapshot's teacher-forced weights, one row
            per French token and ``<eos>``
            (:class:`~attnbook.nmt.attention_analysis.AttentionSnapshots`).
        snapshot_seconds: the time the snapshots took.
        held_out: the test split's size, greedy exact match and BLEU.
    """

    PACKAGED = "grammar-translator.json"
    WHAT = "the record of the grammar's translator"

    trained_by: str
    environment: dict[str, Any]
    train: TrainResult
    snapshot_steps: list[int]
    snapshot_losses: list[float]
    snapshot_weights: list[list[list[float]]]
    snapshot_seconds: float
    held_out: dict[str, float]

    def recorded_start(self) -> RecordedStart:
        """The run's configuration and its logged losses, to train its
        first steps again."""
        return RecordedStart.of_training(GRAMMAR_CONFIG, self.train)

    def snapshots(self) -> RecordedSnapshots:
        """The running example's recorded attention, with tensors for
        weights."""
        return RecordedSnapshots(
            steps=list(self.snapshot_steps),
            val_losses=list(self.snapshot_losses),
            weights=[torch.tensor(w) for w in self.snapshot_weights],
            seconds=self.snapshot_seconds,
        )


@dataclass(frozen=True)
class RecordedSnapshots:
    """What
    :class:`~attnbook.nmt.attention_analysis.AttentionSnapshots`
    kept during a recorded run, read back: the same attributes, ``steps``,
    ``val_losses``, ``weights`` (tensors on the CPU) and ``seconds``."""

    steps: list[int]
    val_losses: list[float]
    weights: list[torch.Tensor]
    seconds: float


def write_grammar_translator(
    folder: str | Path, config: ExperimentConfig = GRAMMAR_CONFIG
) -> tuple[Path, Path, Path]:
    """Train the grammar's translator as chapter 6 does on a CPU (one
    thread), keeping the running example's attention at every validation,
    and write, from the same weights, its checkpoint
    (:data:`GRAMMAR_CHECKPOINT`), its run's record
    (``GrammarTranslatorRun.PACKAGED``) and the page's int8 weights
    (:data:`~attnbook.nmt.export.GRAMMAR_TRANSLATOR`), whose ``info`` says
    how and where it was trained.

    Returns:
        The three paths written.
    """
    data = words_data(config.data.splits())
    with one_thread():
        translator = new_translator(config, data, "cpu")
        snapshots = AttentionSnapshots(translator, RUNNING_PAIR)
        snapshots(0, validation_loss(translator, data.val))
        result = train(
            translator,
            data.train,
            data.val,
            config.train,
            progress=False,
            on_validation=snapshots,
        )
    test = config.data.splits().test
    metrics = evaluate(translator, test, with_alignment=False).metrics
    held_out = {
        "sentences": len(test),
        "exact_match": metrics.exact_match,
        "bleu": metrics.bleu,
    }
    where = environment(torch.device("cpu"), threads=1)
    folder = Path(folder)
    checkpoint = translator.save(folder / GRAMMAR_CHECKPOINT)
    record = GrammarTranslatorRun(
        trained_by="attnbook.studies.write_grammar_translator",
        environment=asdict(where),
        train=result,
        snapshot_steps=list(snapshots.steps),
        snapshot_losses=list(snapshots.val_losses),
        snapshot_weights=[w.tolist() for w in snapshots.weights],
        snapshot_seconds=snapshots.seconds,
        held_out=held_out,
    )
    info: dict[str, Any] = {
        "trained_by": "attnbook.studies.write_grammar_translator",
        "recorded": where.date[:10],
        "torch": where.torch,
        "python": platform.python_version(),
        "machine": f"{where.cpu_count} CPU cores, {platform.machine()}",
        "threads": 1,
        "epochs": config.train.max_epochs,
        "steps": result.steps,
        "best_step": result.best_step,
        "train": asdict(config.train),
        "held_out": held_out,
    }
    page = export_translator(
        translator,
        folder / GRAMMAR_TRANSLATOR,
        name=GRAMMAR_NAME,
        info=info,
    )
    saved = record.save(folder / GrammarTranslatorRun.PACKAGED)
    return checkpoint, saved, page


def packaged_grammar_translator(
    device: torch.device | str | None = None,
) -> tuple[Translator, GrammarTranslatorRun]:
    """The grammar translator the package ships (on ``device``) and the
    record of its run.

    Its vocabularies are those of the grammar's default training split;
    the page's int8 weights were written from the same weights."""
    with package_path(GRAMMAR_CHECKPOINT) as path:
        translator = Translator.load(path, device=device)
    return translator, GrammarTranslatorRun.packaged()


@dataclass(frozen=True)
class ShippedRun(Record):
    """The record of the run that made the shipped Tatoeba translator
    (the package's ``translator-tatoeba-run.json``): that run trained
    again from this package's code, which gave the shipped weights
    exactly.

    Attributes:
        what: what the record holds, in words.
        environment: where it ran.
        reproduces_shipped_file: how the weights it gave compare with the
            shipped ones.
        train_seconds, train_steps: its training's wall-clock time and
            optimiser steps.
        train_loss, val_loss: ``(step, loss)``: its training loss every
            ``log_every`` steps, and its validation losses.
    """

    PACKAGED = "translator-tatoeba-run.json"
    WHAT = "the record of the shipped translator's run"

    what: str
    environment: dict[str, Any]
    reproduces_shipped_file: dict[str, Any]
    train_seconds: float
    train_steps: int
    train_loss: tuple[tuple[int, float], ...]
    val_loss: tuple[tuple[int, float], ...]

    def recorded_start(self) -> RecordedStart:
        """The command line's default run on the shipped pairs
        (:class:`~attnbook.studies.realdata.RealConfig`'s defaults) and
        its logged losses, to train its first steps again."""
        return RecordedStart(
            RealConfig(),
            tuple(loss for _, loss in self.train_loss),
            dict(self.val_loss),
        )


def shipped_split() -> EnglishSplit:
    """The shipped pairs split as the command line's default run splits
    them (:class:`~attnbook.studies.realdata.RealConfig`'s data): the
    split the shipped Tatoeba translators were trained and scored on."""
    data = RealConfig().data
    return split_by_english(
        load_tatoeba(shipped_path()).pairs,
        test_fraction=data.test_fraction,
        val_fraction=data.val_fraction,
        seed=data.split_seed,
    )


@cache
def shipped_longest_source() -> int:
    """The most tokens of an English sentence the shipped Tatoeba
    translators were trained on: a longer sentence is one they never met,
    and the command line and the page say so."""
    return max(len(pair.source) for pair in shipped_split().train)


def _run_info(
    trained_by: str, where: Environment, config: RealConfig, steps: int
) -> dict[str, Any]:
    """What a shipped Tatoeba translator's weights file says of the run
    that trained it: its writer, date, torch, Python, machine, one thread,
    epochs and steps."""
    return {
        "trained_by": trained_by,
        "recorded": where.date[:10],
        "torch": where.torch,
        "python": platform.python_version(),
        "machine": f"{where.cpu_count} CPU cores, {platform.machine()}",
        "threads": 1,
        "epochs": config.train.max_epochs,
        "steps": steps,
    }


SHIPPED_NAME = "Tatoeba English-French (Bahdanau attention)"
"""The shipped Tatoeba translator's name, as its page shows it."""


def write_tatoeba_translator(
    folder: str | Path,
    config: RealConfig | None = None,
    pairs: Sequence[SentencePair] | None = None,
    *,
    progress: bool = False,
) -> tuple[Path, Path]:
    """Train the command line's default run on real pairs and write the
    shipped Tatoeba translator's two files into ``folder``: the page's
    weights (int8, ``translator-tatoeba.js``) and the run's record
    (``translator-tatoeba-run.json``, a :class:`ShippedRun`).

    The run is ``python -m attnbook train --corpus tatoeba --model
    seq2seq``'s
    (:class:`~attnbook.studies.realdata.RealConfig`'s defaults, on the
    shipped pairs, one CPU thread); the record compares the weights it
    gives with those the package shipped until now.

    Args:
        config: the run (default: ``RealConfig()``).
        pairs: the corpus (default: the shipped pairs).

    Returns:
        The two paths written.
    """
    config = config or RealConfig()
    if pairs is None:
        pairs = load_tatoeba(shipped_path()).pairs
    folder = Path(folder)
    with one_thread():
        experiment = run_real_experiment(
            pairs, config, device="cpu", progress=progress
        )
    where = environment(torch.device("cpu"), threads=1)
    scores = experiment.evaluation.to_dict()
    info: dict[str, Any] = {
        **_run_info(
            "attnbook.studies.write_tatoeba_translator",
            where,
            config,
            experiment.training.steps,
        ),
        "held_out": {
            key: scores[key] for key in ("bleu", "chrf", "exact_match")
        },
        "beam_size": config.beam_size,
    }
    translator = experiment.translator
    before = shipped_export().to_translator()
    weights = export_translator(
        translator,
        folder / SHIPPED_TRANSLATOR,
        name=SHIPPED_NAME,
        info=info,
    )
    run = ShippedRun(
        what=(
            "The training losses of the run that made the shipped "
            "Tatoeba translator (translator-tatoeba.js), written with it "
            "by attnbook.studies.write_tatoeba_translator: python -m "
            "attnbook train --corpus tatoeba --model seq2seq "
            "(RealConfig's defaults), one CPU thread"
        ),
        environment=asdict(where),
        reproduces_shipped_file=_compared_weights(
            read_export(weights).to_translator(), before
        ),
        train_seconds=experiment.training.seconds,
        train_steps=experiment.training.steps,
        train_loss=tuple(
            (r.step, r.loss) for r in experiment.training.history
        ),
        val_loss=tuple(
            (r.step, r.loss) for r in experiment.training.val_history
        ),
    )
    return weights, run.save(folder / ShippedRun.PACKAGED)


def _compared_weights(
    trained: Translator, shipped: Translator
) -> dict[str, Any]:
    """How the weights of ``trained`` (as the page reads them) compare
    with the shipped translator's: the largest difference of any weight
    (``None`` where the two models differ in shape)."""
    ours, theirs = trained.model.state_dict(), shipped.model.state_dict()
    if ours.keys() != theirs.keys() or any(
        ours[k].shape != theirs[k].shape for k in ours
    ):
        return {"max_weight_difference": None}
    return {
        "max_weight_difference": max(
            float((ours[k].float() - theirs[k].float()).abs().max())
            for k in ours
        )
    }


TRANSFORMER_NAME = "Tatoeba English-French (Transformer)"
"""The shipped Transformer's name, as its page shows it."""

TRANSFORMER_WRITER = "attnbook.studies.shipped.write_tatoeba_transformer"
"""The function that writes the shipped Transformer, as its files name
it."""

TRANSFORMER_BEAMS = (1, 4)
"""The searches the shipped Transformer's record scores: greedy search and
the beam of the book's held-out scores."""


def transformer_config() -> RealConfig:
    """``python -m attnbook train --corpus tatoeba``'s run: the
    Transformer's small-data recipe
    (:func:`~attnbook.studies.realdata.small_data_config`)."""
    return small_data_config()


@dataclass(frozen=True)
class TransformerRun(Record):
    """The record of the run that made the shipped Transformer (the
    package's ``translator-tatoeba-transformer-run.json``).

    Attributes:
        trained_by: the function that trained it.
        environment: where and when (the
            :class:`~attnbook.core.records.Environment`'s fields).
        config: the run's configuration
            (:meth:`~attnbook.studies.realdata.RealConfig.to_dict`).
        parameters: the model's number of weights.
        file_bytes: the size of the page's weights file.
        train_seconds, train_steps: its training's wall-clock time and
            optimiser steps.
        train_cpu_seconds: its training's CPU time, one thread (``None``
            in a record written before it was kept).
        train_loss, val_loss: ``(step, loss)``: its training loss every
            ``log_every`` steps, and its validation losses.
        held_out: by beam (``"1"``, ``"4"``), the scores of the weights
            the page reads (int8) on the held-out English sentences
            (:func:`~attnbook.nmt.heldout.evaluate_real`): BLEU (against
            every reference, and the first only), chrF and exact match,
            raw and after unknown-word replacement, the translations with
            a mistaken repeat and those leaving an English content word
            unread by the attention, and the number of sentences.
    """

    PACKAGED = "translator-tatoeba-transformer-run.json"
    WHAT = "the record of the shipped Transformer's run"

    trained_by: str
    environment: dict[str, Any]
    config: dict[str, Any]
    parameters: int
    file_bytes: int
    train_seconds: float
    train_steps: int
    train_loss: tuple[tuple[int, float], ...]
    val_loss: tuple[tuple[int, float], ...]
    held_out: dict[str, dict[str, float]]
    train_cpu_seconds: float | None = None


def cased_scores(
    evaluation: RealEvaluation,
    cased_test: Sequence[SentencePair],
    tokenizer: Tokenizer,
) -> dict[str, float]:
    """BLEU and chrF that tell upper from lower case, of a lower-cased
    model's held-out translations (after unknown-word replacement) as it
    writes them (``*_cased_lower``) and as ``tokenizer`` shows them, its
    capitals put back (``*_cased``), against the held-out French as
    written.

    Args:
        evaluation: :func:`~attnbook.nmt.heldout.evaluate_real` on the
            lower-cased held-out pairs.
        cased_test: the same held-out pairs as written
            (:func:`~attnbook.studies.realdata.cased_split`).
        tokenizer: the translator's, with its casing.

    Raises:
        ValueError: ``cased_test`` holds other English sentences than
            ``evaluation``.
    """
    sources, references = group_references(cased_test, key=lowered_source)
    if [lowered_source(SentencePair(s, ())) for s in sources] != [
        tuple(s) for s in evaluation.sources
    ]:
        raise ValueError(
            "cased_test must hold the evaluation's held-out English "
            "sentences, in its order"
        )
    as_written = [
        [detokenize_french(reference) for reference in group]
        for group in references
    ]
    lower = score_texts(
        [scored_text(words) for words in evaluation.replaced], as_written
    )
    recased = score_texts(
        [tokenizer.text(words) for words in evaluation.replaced],
        as_written,
    )
    return {
        "bleu_cased_lower": lower["bleu"],
        "chrf_cased_lower": lower["chrf"],
        "bleu_cased": recased["bleu"],
        "chrf_cased": recased["chrf"],
    }


def write_tatoeba_transformer(
    folder: str | Path,
    config: RealConfig | None = None,
    pairs: Sequence[SentencePair] | None = None,
    *,
    cased_pairs: Sequence[SentencePair] | None = None,
    progress: bool = False,
) -> tuple[Path, Path]:
    """Train chapter 9's Transformer on real pairs and write the shipped
    Transformer's two files into ``folder``: the page's weights (int8,
    :data:`~attnbook.nmt.export.SHIPPED_TRANSFORMER`) and the run's record
    (``TransformerRun.PACKAGED``).

    The run is ``python -m attnbook train --corpus tatoeba``'s
    (:func:`transformer_config`, on the shipped pairs, one CPU thread).
    The record scores the exported (int8) weights, the ones the page and
    ``translate`` compute with, on the held-out split at each beam of
    :data:`TRANSFORMER_BEAMS`; the weights file's ``info`` holds them too
    (``held_out``: at the page's first beam, ``held_out_by_beam``), with
    the model's number of weights and its training's seconds, so that a
    page needs only the weights file.

    The weights file also carries the casing of the training French
    (:func:`~attnbook.nmt.text.learn_casing` on the training split of the
    corpus as written, as ``train --save`` does), so that page and
    command line put the capitals back into what the model writes.

    Args:
        config: the run (default: :func:`transformer_config`).
        pairs: the corpus (default: the shipped pairs).
        cased_pairs: the same corpus as written, which the casing is
            learnt from (default: the shipped pairs as written, when
            ``pairs`` is left out too; else no casing).

    Returns:
        The two paths written.
    """
    config = config or transformer_config()
    if pairs is None:
        pairs = load_tatoeba(shipped_path()).pairs
        if cased_pairs is None:
            cased_pairs = load_tatoeba(shipped_path(), cased=True).pairs
    folder = Path(folder)
    with one_thread():
        experiment = run_real_experiment(
            pairs, config, device="cpu", progress=progress
        )
        where = environment(torch.device("cpu"), threads=1)
        info: dict[str, Any] = {
            **_run_info(
                TRANSFORMER_WRITER,
                where,
                config,
                experiment.training.steps,
            ),
            "train": asdict(config.train),
            "beam_size": config.beam_size,
        }
        translator, cased_test = experiment.translator, None
        if cased_pairs is not None:
            # one split of the corpus as written: its training French
            # gives the casing, its held-out French the cased scores
            cased = cased_split(cased_pairs, config.data)
            translator = replace(
                translator,
                tokenizer=Tokenizer(
                    casing=learn_casing(p.target for p in cased.train)
                ),
            )
            cased_test = cased.test
        weights = export_translator(
            translator,
            folder / SHIPPED_TRANSFORMER,
            name=TRANSFORMER_NAME,
            info=info,
        )
        page = read_export(weights).to_translator()
        held_out = {}
        for beam in TRANSFORMER_BEAMS:
            evaluation = evaluate_real(
                page, experiment.split.test, beam_size=beam
            )
            scores = evaluation.to_dict()
            held_out[str(beam)] = {
                "sentences": scores["n_sentences"],
                **{
                    key: scores[key]
                    for key in (
                        "bleu",
                        "bleu_single",
                        "chrf",
                        "exact_match",
                        "bleu_unk_replaced",
                        "chrf_unk_replaced",
                        "n_repeating",
                    )
                },
                # translations leaving an English content word unread
                "n_unattended": sum(
                    1 for count in evaluation.unattended() if count
                ),
            }
            if cased_test is not None:
                held_out[str(beam)] |= cased_scores(
                    evaluation, cased_test, page.tokenizer
                )
    parameters = sum(
        p.numel() for p in experiment.translator.model.parameters()
    )
    # the page's info quotes the scores of the beam it searches with, as
    # the recurrent translator's does, then the record's other numbers
    info |= {
        "held_out": held_out[str(config.beam_size)],
        "held_out_by_beam": held_out,
        "parameters": parameters,
        "train_seconds": experiment.training.seconds,
        "train_cpu_seconds": experiment.cpu_seconds,
    }
    weights = export_translator(
        translator,
        folder / SHIPPED_TRANSFORMER,
        name=TRANSFORMER_NAME,
        info=info,
    )
    run = TransformerRun(
        trained_by=TRANSFORMER_WRITER,
        environment=asdict(where),
        config=config.to_dict(),
        parameters=parameters,
        file_bytes=weights.stat().st_size,
        train_seconds=experiment.training.seconds,
        train_steps=experiment.training.steps,
        train_loss=tuple(
            (r.step, r.loss) for r in experiment.training.history
        ),
        val_loss=tuple(
            (r.step, r.loss) for r in experiment.training.val_history
        ),
        held_out=held_out,
        train_cpu_seconds=experiment.cpu_seconds,
    )
    return weights, run.save(folder / TransformerRun.PACKAGED)
