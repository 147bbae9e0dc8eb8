"""The Transformer beside the GRU with attention on real sentences,
at the same training budget, over seeds.

Training both models for the command line's default five epochs,
three seeds each, takes several CPU minutes, more than a chapter can spend,
so the comparison is run once from the command line and its result ships
with the package, like appendix B's bottleneck study:
:func:`run_comparison` trains and scores the models,
:class:`RealComparison` holds the result and its JSON
(``RealComparison.packaged()`` is the recorded run), and
:meth:`RealComparison.recorded_start` gives what training a recorded
run's first steps again needs, so that a chapter can check the record
against a live run (:func:`~attnbook.studies.replay.replay`).
Record it again with::

    python -m attnbook compare-real \
        --save code/src/attnbook/data/realcompare_cpu.json

Both models read the same split
(:func:`~attnbook.nmt.split.split_by_english`), the same
vocabularies and the same batches, with the same learning-rate schedule
(:class:`~attnbook.studies.realdata.RealConfig`'s defaults);
each seed changes the first weights and the batch order.
Each run's CPU seconds are measured with :func:`time.process_time` (the
process's own CPU time, which a busy neighbour does not inflate the way it
inflates wall-clock time).

:func:`head_agreement` compares where the two models look:
while both read the same reference translation (teacher forcing),
the share of target words for which a Transformer cross-attention head's
largest weight falls on the same English position as the GRU's attention.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

import torch
from torch import Tensor

from attnbook.core.records import (
    Environment,
    Record,
    SeededRuns,
    environment,
    mean_sd,
    merged_runs,
)
from attnbook.nmt.attention_analysis import teacher_forced_attention
from attnbook.nmt.data import SentencePair
from attnbook.nmt.model import evaluating
from attnbook.nmt.seq2seq import ModelConfig
from attnbook.nmt.split import EnglishSplit
from attnbook.nmt.transformer import TransformerSizes
from attnbook.nmt.translator import ModelSpec, Translator
from attnbook.studies.realdata import (
    RealConfig,
    held_out_scores,
    prepare_real_data,
)
from attnbook.studies.recipe import RecordedStart, run_once

COMPARED_MODELS = ("bahdanau", "transformer")
"""The models compared: the GRU encoder-decoder with Bahdanau attention,
and the Transformer."""

COMPARED_LABELS = {
    "bahdanau": "GRU + Bahdanau attention",
    "transformer": "Transformer",
}


# -------------------------------------------------------------------------
# One run, and the whole comparison


@dataclass(frozen=True)
class ComparisonRun:
    """One trained model of the comparison and what it measured.

    Attributes:
        model: ``"bahdanau"`` or ``"transformer"``; seed:
            its seed; parameters: its number of weights.
        steps: optimiser steps; seconds: wall-clock training time;
            cpu_seconds: the process's CPU time while training
            (:func:`time.process_time`).
        bleu, bleu_single, chrf, exact_match:
            held-out scores (beam search, every reference; the first
            reference only for ``bleu_single``).
        bleu_signature: ``sacrebleu``'s signature of ``bleu``;
            cased: whether the scores tell case.
        val_steps, val_losses: the validation curve; train_losses:
            the training loss every ``log_every`` steps (what a replay
            of the run's start checks).
        head_agreement: for the Transformer, ``(num_layers, num_heads)``
            agreements with the GRU of the same seed
            (:func:`head_agreement`); empty for the GRU.
    """

    model: str
    seed: int
    parameters: int
    steps: int
    seconds: float
    cpu_seconds: float
    bleu: float
    bleu_single: float
    chrf: float
    exact_match: float
    bleu_signature: str
    cased: bool
    val_steps: tuple[int, ...]
    val_losses: tuple[float, ...]
    train_losses: tuple[float, ...]
    head_agreement: tuple[tuple[float, ...], ...] = ()


@dataclass(frozen=True)
class RealComparison(SeededRuns[ComparisonRun], Record):
    """A run of :func:`run_comparison`.

    Attributes:
        environment: the machine, the versions and the threads.
        command: the command line that made it.
        config: the shared settings (split, training, beam) and each
            model's sizes, as plain values.
        runs: one per model and seed.
        n_agreement_sentences: the held-out sentences
            :func:`head_agreement` read.
        seconds: how long the whole comparison took.
    """

    PACKAGED = "realcompare_cpu.json"
    WHAT = "a recorded comparison of the GRU and the Transformer"
    BY = "model"

    environment: Environment
    command: str
    config: dict[str, Any]
    runs: tuple[ComparisonRun, ...]
    n_agreement_sentences: int
    seconds: float

    def recorded_start(self, run: ComparisonRun) -> RecordedStart:
        """``run``'s configuration and its logged training losses, to
        train its first steps again.

        The split, the first weights, the batch order and the
        learning-rate schedule (planned over the whole run) are those of
        the recorded run, so the training losses logged in those steps
        should match the record's ``train_losses`` (up to the rounding of
        another CPU or thread count).
        """
        config = comparison_model_config(
            comparison_config(self),
            run.model,
            run.seed,
            comparison_transformer(self),
        )
        return RecordedStart(config, run.train_losses)


def compared_specs(
    gru: ModelConfig, transformer: TransformerSizes
) -> dict[str, ModelSpec]:
    """The model of each name in :data:`COMPARED_MODELS`: the GRU's sizes
    with Bahdanau's attention, and the Transformer's sizes."""
    return {
        "bahdanau": replace(gru, attention="bahdanau"),
        "transformer": transformer,
    }


def comparison_model_config(
    base: RealConfig,
    model: str,
    seed: int,
    transformer: TransformerSizes | None = None,
) -> RealConfig:
    """``base`` with the model ``model`` names (the GRU of ``base`` with
    Bahdanau attention, or the Transformer of ``transformer``'s sizes,
    default :class:`~attnbook.nmt.transformer.TransformerSizes`'), seeded
    ``seed``.

    Raises:
        ValueError: ``model`` is not one of :data:`COMPARED_MODELS`, or
            ``base`` holds no recurrent model.
    """
    if model not in COMPARED_MODELS:
        raise ValueError(
            f"model must be one of {COMPARED_MODELS}, got {model!r}"
        )
    if not isinstance(base.model, ModelConfig):
        raise ValueError(
            "the comparison's base configuration holds the GRU's sizes, "
            f"got a {base.model.kind} model"
        )
    specs = compared_specs(base.model, transformer or TransformerSizes())
    return replace(
        base, model=specs[model], train=replace(base.train, seed=seed)
    )


def _first_references(split: EnglishSplit) -> list[SentencePair]:
    """One pair per held-out English sentence (its first translation),
    in first-seen order."""
    first: dict[tuple[str, ...], SentencePair] = {}
    for pair in split.test:
        first.setdefault(pair.source, pair)
    return list(first.values())


def head_agreement(
    transformer: Translator,
    recurrent: Translator,
    pairs: Sequence[SentencePair],
) -> Tensor:
    """How often each Transformer cross-attention head looks where the
    GRU's attention looks.

    Both models read each pair's reference translation (teacher forcing);
    for every target word (not the final ``<eos>`` row) the English
    position with the largest weight is taken from the GRU's attention and
    from each head. Both models must share the source vocabulary.

    Args:
        transformer: a :class:`~attnbook.nmt.transformer.Transformer` with
            its vocabularies.
        recurrent: a model with one attention per step (the GRU
            with attention).
        pairs: the sentences both models read.

    Returns:
        ``(num_layers, num_heads)``: the share of target words on which
        each head agrees with the GRU.
    """
    gru_weights = teacher_forced_attention(recurrent, pairs)
    model = transformer.model
    hits = torch.zeros(model.config.num_layers, model.config.num_heads)
    count = 0
    with evaluating(model):
        for start in range(0, len(pairs), 256):
            chunk = pairs[start : start + 256]
            batch = transformer.batch(chunk)
            _, cross = model.cross_attention(
                batch.src, batch.src_mask, batch.tgt_in
            )
            # (batch, layers, heads, tgt_len)
            argmax = cross.argmax(dim=-1).cpu()
            for row, pair in enumerate(chunk):
                words = len(pair.target)
                # (words,)
                gru = gru_weights[start + row][:words].argmax(dim=-1)
                hits += (
                    (argmax[row, :, :, :words] == gru).float().sum(dim=-1)
                )
                count += words
    return hits / max(count, 1)


def run_comparison(
    pairs: Sequence[SentencePair],
    base: RealConfig | None = None,
    *,
    models: Sequence[str] = COMPARED_MODELS,
    seeds: Sequence[int] = (0, 1, 2),
    transformer: TransformerSizes | None = None,
    command: str = "",
    progress: bool = False,
) -> RealComparison:
    """Train every model with every seed on the same split, on the CPU;
    score each on the held-out split.

    Args:
        pairs: the corpus (e.g. ``load_tatoeba(shipped_path()).pairs``).
        base: the shared settings (default:
            :class:`~attnbook.studies.realdata.RealConfig`'s).
        models: what to train (from :data:`COMPARED_MODELS`).
        seeds: one run of each model per seed.
        transformer: the Transformer's sizes (default:
            :class:`~attnbook.nmt.transformer.TransformerSizes`').
        command: the command line to record.
        progress: show the training progress bars.

    Raises:
        ValueError: no model or no seed, or a model not in
            :data:`COMPARED_MODELS`.
    """
    base = base or RealConfig()
    transformer = transformer or TransformerSizes()
    if not models or not seeds:
        raise ValueError(
            "the comparison needs at least one model and one seed"
        )
    for model in models:
        # refuses an unknown model before anything trains
        comparison_model_config(base, model, 0, transformer)
    start = time.perf_counter()
    data = prepare_real_data(pairs, base.data)
    agreement_pairs = _first_references(data.split)
    runs: list[ComparisonRun] = []
    for seed in seeds:
        trained: dict[str, Translator] = {}
        for model in models:
            config = comparison_model_config(
                base, model, seed, transformer
            )
            run = run_once(
                config,
                data,
                held_out_scores(config.beam_size),
                progress=progress,
            )
            assert run.evaluation is not None  # evaluated above
            result, score = run.training, run.evaluation.score
            trained[model] = run.translator
            runs.append(
                ComparisonRun(
                    model=model,
                    seed=seed,
                    parameters=sum(
                        p.numel()
                        for p in run.translator.model.parameters()
                    ),
                    steps=result.steps,
                    seconds=result.seconds,
                    cpu_seconds=run.cpu_seconds,
                    bleu=score.bleu,
                    bleu_single=score.bleu_single,
                    chrf=score.chrf,
                    exact_match=score.exact_match,
                    bleu_signature=score.bleu_signature,
                    cased=score.cased,
                    val_steps=tuple(r.step for r in result.val_history),
                    val_losses=tuple(r.loss for r in result.val_history),
                    train_losses=tuple(r.loss for r in result.history),
                )
            )
        if "transformer" in trained and "bahdanau" in trained:
            agreement = head_agreement(
                trained["transformer"],
                trained["bahdanau"],
                agreement_pairs,
            )
            index = next(
                i
                for i, r in enumerate(runs)
                if r.model == "transformer" and r.seed == seed
            )
            runs[index] = replace(
                runs[index],
                head_agreement=tuple(
                    tuple(row) for row in agreement.tolist()
                ),
            )
    config = {
        "data": asdict(base.data),
        "train": base.train.to_dict(),
        "beam_size": base.beam_size,
        "seq2seq": asdict(base.model),
        "transformer": asdict(transformer),
    }
    return RealComparison(
        environment(torch.device("cpu"), torch.get_num_threads()),
        command,
        config,
        tuple(runs),
        len(agreement_pairs),
        time.perf_counter() - start,
    )


def merge_comparisons(parts: Sequence[RealComparison]) -> RealComparison:
    """One comparison from several made with the same settings (e.g. one
    process per seed, run at once).

    The environment is the first part's;
    the commands are joined with `` ; ``;
    the seconds are the longest part's (the parts ran side by side).

    Raises:
        ValueError: no parts, parts with other settings, or a model and
            seed in two parts.
    """
    runs = merged_runs(parts, key=lambda run: (run.model, run.seed))
    return replace(
        parts[0],
        command=" ; ".join(part.command for part in parts),
        runs=runs,
        seconds=max(part.seconds for part in parts),
    )


def comparison_config(comparison: RealComparison) -> RealConfig:
    """The :class:`~attnbook.studies.realdata.RealConfig` a comparison's
    runs were derived from."""
    return RealConfig.from_dict(comparison.config, model_key="seq2seq")


def comparison_transformer(comparison: RealComparison) -> TransformerSizes:
    """The Transformer's sizes a comparison's runs were trained with."""
    return TransformerSizes(**comparison.config["transformer"])


def format_comparison(comparison: RealComparison) -> str:
    """A plain-text table: one row per model and seed, then mean ± standard
    deviation over the seeds."""
    header = (
        f"{'model':<26}{'seed':>5}{'weights':>10}{'steps':>7}"
        f"{'CPU s':>8}{'wall s':>8}"
        f"{'BLEU':>10}{'BLEU 1 ref':>12}{'chrF':>10}"
    )
    lines = [header]
    for model in dict.fromkeys(run.model for run in comparison.runs):
        runs = comparison.runs_of(model)
        label = COMPARED_LABELS.get(model, model)
        for run in runs:
            lines.append(
                f"{label:<26}{run.seed:>5}{run.parameters:>10,}"
                f"{run.steps:>7}{run.cpu_seconds:>8.0f}{run.seconds:>8.0f}"
                f"{run.bleu:>10.1f}{run.bleu_single:>12.1f}{run.chrf:>10.1f}"
            )
        cells = [
            mean_sd([getattr(r, name) for r in runs])
            for name in ("bleu", "bleu_single", "chrf")
        ]
        cpu_mean = mean_sd([r.cpu_seconds for r in runs])[0]
        lines.append(
            f"{'  mean ± sd':<26}{'':>22}{cpu_mean:>8.0f}{'':>8}"
            + "".join(
                f"{f'{m:.1f}±{s:.1f}':>{w}}"
                for (m, s), w in zip(cells, (10, 12, 10), strict=True)
            )
        )
    where = comparison.environment
    lines.append(
        f"{len(comparison.seeds)} seeds; {where.device} "
        f"({where.device_name}), {where.threads} thread(s), "
        f"torch {where.torch}, {where.date[:10]}; signature "
        f"{comparison.runs[0].bleu_signature}"
    )
    return "\n".join(lines)
