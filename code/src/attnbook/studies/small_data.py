"""What a small corpus needs: the Transformer's small-data recipe on real
sentences with each of its choices taken out, and with each of three more
added, over seeds and over splits of the corpus.

The recipe (:func:`study_recipe`: the default of ``python -m attnbook
train --corpus tatoeba`` at chapter 9's own width and 20 epochs) adds three
choices to the Transformer's plain run: dropout, label smoothing and the
mean of the last epochs' weights, and trains four times as long. One
seed moves BLEU by about as much as some single choices, and another
split of the corpus can move it more, so each variant is trained with
three seeds on each of two splits (:data:`SEEDS`, :data:`SPLIT_SEEDS`).
Three more vocabularies are trained the same way, and two models of the
same size (:data:`SAME_SIZE`), the Transformer widened (the command
line's default is that width, trained for 16 epochs:
:data:`SIXTEEN_EPOCHS`) and the GRU encoder-decoder, whose steps
:func:`step_costs` times side by side.
That is longer than a chapter can spend, so the study is run once and its
record ships with the package: :func:`run_small_data` trains and scores
the runs, :class:`SmallDataStudy` holds them
(``SmallDataStudy.packaged()`` is the recorded study), and
:meth:`SmallDataStudy.recorded_start` lets a chapter train a recorded
run's first steps again (:func:`~attnbook.studies.replay.replay`).

The variant without averaging costs no training of its own: it is the
recipe's run scored with the weights of its last step, before the mean.
Record it again, one process per split, side by side, then merged (a
part of some variants only, ``write_part(..., variants=...)``, merges
with a record of the others)::

    python -c "from attnbook.studies.small_data import write_part as w;
    w('part0.json', split_seed=0)"
    python -c "from attnbook.studies.small_data import write_part as w;
    w('part1.json', split_seed=1)"
    python -c "from attnbook.studies.small_data import merge_parts as m;
    m(['part0.json', 'part1.json'], 'code/src/attnbook/data')"
"""

from __future__ import annotations

import copy
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any

import torch

from attnbook.benchmark.timing import time_interleaved
from attnbook.core.records import (
    Environment,
    Record,
    SeededRuns,
    environment,
    mean_sd,
    merged_runs,
    seed_verdict,
)
from attnbook.core.runtime import one_thread
from attnbook.nmt.corpus import load_tatoeba, shipped_path
from attnbook.nmt.coverage import repeated_words
from attnbook.nmt.data import SPECIALS, SentencePair, iterate_batches
from attnbook.nmt.heldout import evaluate_real
from attnbook.nmt.seq2seq import ModelConfig
from attnbook.nmt.split import (
    EnglishSplit,
    group_references,
    lowered_source,
)
from attnbook.nmt.subwords import Subwords
from attnbook.nmt.training import LossRecord, train
from attnbook.nmt.transformer import TransformerSizes
from attnbook.nmt.translator import Translator
from attnbook.studies.pieces import evaluate_pieces, prepare_pieces
from attnbook.studies.realdata import (
    RealConfig,
    RealDataConfig,
    prepare_real_data,
    small_data_config,
)
from attnbook.studies.recipe import (
    RecordedStart,
    RunData,
    new_translator,
    run_once,
)

SEEDS = (0, 1, 2)
"""The seeds of each variant on each split."""

SPLIT_SEEDS = (0, 1)
"""The two splits of the corpus (``split_by_english``'s seed): 0 is the
split every other page uses."""


def _widened(config: RealConfig) -> RealConfig:
    """``config`` with the Transformer's states widened to 104 features
    (the variants of the widened model start from it)."""
    return replace(config, model=replace(config.model, d_model=104))


TRAINED: dict[str, Callable[[RealConfig], RealConfig]] = {
    "recipe": lambda c: c,
    "no dropout": lambda c: replace(
        c, model=replace(c.model, dropout=0.0)
    ),
    "no label smoothing": lambda c: replace(
        c, train=replace(c.train, label_smoothing=0.0)
    ),
    "plain, 5 epochs": lambda c: RealConfig(
        data=c.data, model=TransformerSizes()
    ),
    "+ tied embeddings": lambda c: replace(
        c, model=replace(c.model, tie_embeddings=True)
    ),
    "+ word dropout 0.1": lambda c: replace(
        c, train=replace(c.train, word_dropout=0.1)
    ),
    "+ attention dropout 0.1": lambda c: replace(
        c, model=replace(c.model, attention_dropout=0.1)
    ),
    "min count 1": lambda c: replace(c, data=replace(c.data, min_count=1)),
    "min count 3": lambda c: replace(c, data=replace(c.data, min_count=3)),
    "1,000 pieces": lambda c: replace(
        c, data=replace(c.data, subwords=1000)
    ),
    "Transformer, d_model 104": _widened,
    "d_model 104, every word": lambda c: replace(
        _widened(c), data=replace(c.data, min_count=1)
    ),
    "d_model 104, by French length": lambda c: replace(
        _widened(c), train=replace(c.train, batch_by_target=True)
    ),
    "d_model 104, 16 epochs": lambda c: replace(
        _widened(c), train=replace(c.train, max_epochs=16)
    ),
    "d_model 104, every English word": lambda c: replace(
        _widened(c), data=replace(c.data, source_min_count=1)
    ),
    "GRU, same weights": lambda c: replace(
        c,
        model=ModelConfig(
            emb_dim=64, hidden_dim=64, dropout=c.model.dropout
        ),
    ),
}
"""The variants that train a model of their own, each from the recipe:
the recipe itself, without dropout, without label smoothing, the
Transformer's plain run (the GRU's settings: five epochs, none of the
three choices), and the recipe with one more choice that the literature
on small corpora recommends: tied target embeddings, word dropout on the
source, dropout on the attention weights; three more vocabularies, every
word of the training pairs (a minimum count of 1, not 2), the words
seen at least 3 times, and 1,000 subword pieces for each language
learnt on the cased training sentences (scored, as the word-level runs
are, on lower-cased text); and two models of the same size, about 1.2
million weights, with the recipe's training: the Transformer widened to
``d_model`` 104 and chapter 8's GRU encoder-decoder with Bahdanau's
attention at embeddings and states of 64, where their weights on the
shipped pairs come within 1% of each other; and the widened Transformer
keeping every word, the two changes that gain BLEU on their own taken
together, and with its batches made of pairs of similar French length
rather than similar English length (``TrainConfig.batch_by_target``),
which leaves less of each step's work to padding; trained for 16
epochs instead of 20, which takes a fifth fewer steps; and keeping every
English word while the French keeps the words seen twice, so that the
model still learns to write ``<unk>`` for the unknown-word replacement to
fill."""


def study_recipe() -> RealConfig:
    """The recipe the study takes choices out of and adds them to: the
    command line's default
    (:func:`~attnbook.studies.realdata.small_data_config`) at chapter 9's
    own width, states of 64 features, trained for 20 epochs. The variant
    ``"d_model 104, 16 epochs"`` is the default itself: the study chose
    that width, and the shorter training that its seeds cannot tell from
    the longer one.

    >>> from attnbook.studies.realdata import small_data_config
    >>> TRAINED[SIXTEEN_EPOCHS](study_recipe()) == small_data_config()
    True
    """
    default = small_data_config()
    return replace(
        default,
        model=replace(default.model, d_model=TransformerSizes().d_model),
        train=replace(default.train, max_epochs=20),
    )


NO_AVERAGING = "no averaging"
"""The variant scored from the recipe's run: its last step's weights,
not the mean of its last epochs'."""

VARIANTS = ("recipe", NO_AVERAGING, *list(TRAINED)[1:])
"""Every variant, in the order a table shows them."""


@dataclass(frozen=True)
class SmallDataRun:
    """One scored model of the study.

    Attributes:
        variant: one of :data:`VARIANTS`; split_seed, seed: its split of
            the corpus and its seed.
        steps: optimiser steps; cpu_seconds: the process's CPU time
            while training (:func:`time.process_time`; the same run for
            the recipe and the variant without averaging).
        bleu, bleu_single, chrf: held-out scores at the recipe's beam
            (every reference; the first only for ``bleu_single``).
        n_repeating: held-out translations with a word repeated by
            mistake.
        val_losses, train_losses: the validation loss at each epoch, and
            the training loss every ``log_every`` steps (what a replay of
            the run's start checks).
    """

    variant: str
    split_seed: int
    seed: int
    steps: int
    cpu_seconds: float
    bleu: float
    bleu_single: float
    chrf: float
    n_repeating: int
    val_losses: tuple[float, ...]
    train_losses: tuple[float, ...]


@dataclass(frozen=True)
class SmallDataStudy(SeededRuns[SmallDataRun], Record):
    """A run of :func:`run_small_data`.

    Attributes:
        environment: the machine, the versions and the threads.
        config: the recipe (:meth:`RealConfig.to_dict`), without its
            split seed, which each run gives.
        n_sentences: the held-out English sentences each run translated.
        runs: one per variant, split and seed.
        seconds: how long the study took.
    """

    PACKAGED = "small_data_cpu.json"
    WHAT = "a recorded study of what small data needs"
    BY = "variant"

    environment: Environment
    config: dict[str, Any]
    n_sentences: int
    runs: tuple[SmallDataRun, ...]
    seconds: float

    def of(self, variant: str, split_seed: int) -> list[SmallDataRun]:
        """One variant's runs on one split, in seed order."""
        return [
            r for r in self.runs_of(variant) if r.split_seed == split_seed
        ]

    def run_config(self, run: SmallDataRun) -> RealConfig:
        """The configuration ``run`` trained with."""
        variant = "recipe" if run.variant == NO_AVERAGING else run.variant
        return variant_config(
            RealConfig.from_dict(self.config),
            variant,
            split_seed=run.split_seed,
            seed=run.seed,
        )

    def recorded_start(self, run: SmallDataRun) -> RecordedStart:
        """``run``'s configuration and its logged training losses, to
        train its first steps again."""
        return RecordedStart(self.run_config(run), run.train_losses)


def variant_config(
    recipe: RealConfig, variant: str, *, split_seed: int, seed: int
) -> RealConfig:
    """The configuration of one trained variant (:data:`TRAINED`) of
    ``recipe`` on one split with one seed."""
    config = TRAINED[variant](recipe)
    return replace(
        config,
        data=replace(config.data, split_seed=split_seed),
        train=replace(config.train, seed=seed),
    )


SAME_SIZE = ("Transformer, d_model 104", "GRU, same weights")
"""The two models of about the same number of weights, trained alike."""

BY_FRENCH = "d_model 104, by French length"
"""The widened Transformer with its batches made by French length."""

EVERY_WORD = "d_model 104, every word"
"""The widened Transformer keeping every word of the training pairs."""

SIXTEEN_EPOCHS = "d_model 104, 16 epochs"
"""The widened Transformer trained for 16 epochs, not 20."""

EVERY_ENGLISH_WORD = "d_model 104, every English word"
"""The widened Transformer keeping every English word of the training
pairs, and the French words seen at least twice."""


VOCABULARIES = ("min count 1", "recipe", "min count 3")
"""The variants that differ only in the words they keep, from the most."""


def vocabulary_sizes(
    study: SmallDataStudy,
    pairs: Sequence[SentencePair],
    variants: Sequence[str] = VOCABULARIES,
) -> dict[str, tuple[int, int]]:
    """The English and the French words each variant's model knows on
    split 0 of ``pairs`` (``<unk>`` and the other specials left out)."""
    sizes = {}
    for variant in variants:
        run = study.of(variant, 0)[0]
        data = prepare_real_data(pairs, study.run_config(run).data)
        sizes[variant] = (
            len(data.src_vocab) - len(SPECIALS),
            len(data.tgt_vocab) - len(SPECIALS),
        )
    return sizes


def french_padding(
    data: RunData[EnglishSplit], config: RealConfig
) -> float:
    """The French positions of one epoch's training batches, as
    ``config.train`` makes them (by English or by French length), over
    the French tokens they hold (``<eos>`` included): 1 is no padding.
    """
    batches = iterate_batches(
        data.train,
        data.src_vocab,
        data.tgt_vocab,
        config.train.batch_size,
        by_target=config.train.batch_by_target,
    )
    sizes = [(b.tgt_mask.numel(), int(b.tgt_mask.sum())) for b in batches]
    return sum(n for n, _ in sizes) / sum(real for _, real in sizes)


@dataclass(frozen=True)
class StepCost:
    """What one variant's model weighs and what a training step of it
    costs, measured beside the others' (:func:`step_costs`).

    Attributes:
        weights: the model's trainable numbers.
        seconds: each timed round's seconds per training step.
    """

    weights: int
    seconds: tuple[float, ...]

    @property
    def median(self) -> float:
        """The median round's seconds per step."""
        return statistics.median(self.seconds)


def step_costs(
    study: SmallDataStudy,
    pairs: Sequence[SentencePair],
    variants: Sequence[str] = SAME_SIZE,
    *,
    steps: int = 3,
    repeats: int = 5,
) -> dict[str, StepCost]:
    """Each variant's weights, and the seconds of a step of its training
    (its recorded run's configuration, split 0, seed 0), timed in turns in
    this process on the CPU with one thread, so that a busy neighbour
    slows every variant alike
    (:func:`~attnbook.benchmark.timing.time_interleaved`).

    Each round calls :func:`~attnbook.nmt.training.train` for ``steps``
    steps of each variant, the optimiser's set-up included; a round's
    time divided by ``steps`` is one of the ``repeats`` values of
    :attr:`StepCost.seconds`.

    Raises:
        ValueError: a variant the study did not train.
    """
    runs = {}
    for variant in variants:
        found = [r for r in study.of(variant, 0) if r.seed == 0]
        if not found:
            raise ValueError(
                f"the study has no run of {variant!r} on split 0, seed 0"
            )
        runs[variant] = found[0]
    costs = {}
    with one_thread():
        turns: dict[str, Callable[[], object]] = {}
        weights = {}
        # models of the same vocabulary share their data, made once
        prepared: dict[RealDataConfig, RunData[EnglishSplit]] = {}
        for variant, run in runs.items():
            config = study.run_config(run)
            if config.data not in prepared:
                prepared[config.data] = prepare_real_data(
                    pairs, config.data
                )
            data = prepared[config.data]
            translator = new_translator(config, data, "cpu")
            weights[variant] = sum(
                p.numel() for p in translator.model.parameters()
            )
            turns[variant] = partial(
                train,
                translator,
                data.train,
                data.val,
                config.train,
                progress=False,
                stop_after=steps,
            )
        timings = time_interleaved(
            turns, torch.device("cpu"), repeats=repeats
        )
        for variant, timing in timings.items():
            costs[variant] = StepCost(
                weights[variant], tuple(t / steps for t in timing.times)
            )
    return costs


def _scored(
    variant: str,
    config: RealConfig,
    translator: Translator,
    data: RunData[EnglishSplit],
    steps: int,
    cpu_seconds: float,
    val_history: Sequence[LossRecord],
    train_history: Sequence[LossRecord],
) -> SmallDataRun:
    if data.units is None:
        evaluation = evaluate_real(
            translator, data.split.test, beam_size=config.beam_size
        )
        bleu, bleu_single, chrf = (
            evaluation.score.bleu,
            evaluation.score.bleu_single,
            evaluation.score.chrf,
        )
        n_repeating = sum(1 for r in evaluation.repeats() if r)
    else:
        in_pieces = evaluate_pieces(
            translator,
            data.split.test,
            *data.units,
            beam_size=config.beam_size,
        )
        # lower-cased, as the word-level runs write and are scored
        scores = in_pieces.lowercased
        bleu, bleu_single, chrf = (
            scores["bleu"],
            scores["bleu_single"],
            scores["chrf"],
        )
        _, references = group_references(
            data.split.test, key=lowered_source
        )
        n_repeating = sum(
            1
            for pieces, refs in zip(
                in_pieces.pieces, references, strict=True
            )
            if repeated_words(
                Subwords.join(pieces).lower().split(),
                [tuple(w.lower() for w in r) for r in refs],
            )
        )
    return SmallDataRun(
        variant=variant,
        split_seed=config.data.split_seed,
        seed=config.train.seed,
        steps=steps,
        cpu_seconds=cpu_seconds,
        bleu=bleu,
        bleu_single=bleu_single,
        chrf=chrf,
        n_repeating=n_repeating,
        val_losses=tuple(r.loss for r in val_history),
        train_losses=tuple(r.loss for r in train_history),
    )


def _prepared(
    config: RealConfig,
    pairs: Sequence[SentencePair],
    cased_pairs: Sequence[SentencePair] | None,
) -> RunData[EnglishSplit]:
    """A run's data: the words of ``pairs``, or the pieces of
    ``cased_pairs`` (split where ``pairs`` is)."""
    if not config.data.subwords:
        return prepare_real_data(pairs, config.data)
    assert cased_pairs is not None  # run_small_data checked
    return prepare_pieces(cased_pairs, config)


def run_small_data(
    pairs: Sequence[SentencePair],
    *,
    split_seeds: Sequence[int] = SPLIT_SEEDS,
    seeds: Sequence[int] = SEEDS,
    recipe: RealConfig | None = None,
    variants: Sequence[str] = tuple(TRAINED),
    cased_pairs: Sequence[SentencePair] | None = None,
    progress: bool = False,
) -> SmallDataStudy:
    """Train every variant of :data:`TRAINED` with every seed on every
    split, on the CPU with one thread, and score each on its split's
    held-out sentences; score the recipe's last weights too
    (:data:`NO_AVERAGING`).

    Args:
        pairs: the corpus (e.g. ``load_tatoeba(shipped_path()).pairs``).
        recipe: the recipe (default: :func:`study_recipe`).
        variants: the variants to train (default: all of
            :data:`TRAINED`), to add some to a record with
            :func:`merge_parts`.
        cased_pairs: the same corpus, cased
            (``load_tatoeba(shipped_path(), cased=True).pairs``), which a
            variant over pieces needs.
        progress: show the training progress bars.

    Raises:
        ValueError: no seed, no split or no variant, a variant not in
            :data:`TRAINED`, or one over pieces without ``cased_pairs``.
    """
    recipe = recipe or study_recipe()
    if not seeds or not split_seeds or not variants:
        raise ValueError(
            "the study needs at least one seed, one split and one variant"
        )
    unknown = [v for v in variants if v not in TRAINED]
    if unknown:
        raise ValueError(
            f"no variant {unknown[0]!r}; expected some of "
            f"{', '.join(map(repr, TRAINED))}"
        )
    if cased_pairs is None and any(
        TRAINED[v](recipe).data.subwords for v in variants
    ):
        raise ValueError(
            "a variant over pieces learns them on the cased sentences: "
            "give cased_pairs (load_tatoeba(path, cased=True).pairs)"
        )
    start = time.perf_counter()
    runs: list[SmallDataRun] = []
    n_sentences = 0
    with one_thread():
        for split_seed in split_seeds:
            # one split, held out the same way whatever words a variant
            # keeps: its data is made once for each vocabulary
            prepared: dict[RealDataConfig, RunData[EnglishSplit]] = {}
            for seed in seeds:
                for variant in variants:
                    config = variant_config(
                        recipe, variant, split_seed=split_seed, seed=seed
                    )
                    if config.data not in prepared:
                        prepared[config.data] = _prepared(
                            config, pairs, cased_pairs
                        )
                    data = prepared[config.data]
                    # cased pieces or lower-cased words, the same sentences
                    n_sentences = len(
                        {lowered_source(p) for p in data.split.test}
                    )
                    translator = new_translator(config, data, "cpu")
                    # the recipe's last weights are scored too
                    keeps_last = (
                        variant == "recipe"
                        and config.train.average_last > 0
                    )
                    last: dict[str, Any] = {}

                    def keep_last(
                        step: int,
                        record: LossRecord,
                        model: torch.nn.Module = translator.model,
                        kept: dict[str, Any] = last,
                    ) -> None:
                        # the weights of the latest validation: the last
                        # step's when training ends
                        kept["state"] = copy.deepcopy(model.state_dict())

                    run = run_once(
                        config,
                        data,
                        progress=progress,
                        on_validation=keep_last if keeps_last else None,
                        translator=translator,
                    )
                    training, cpu_seconds = run.training, run.cpu_seconds
                    scored = [(variant, translator)]
                    if keeps_last:
                        at_last = copy.deepcopy(translator)
                        at_last.model.load_state_dict(last["state"])
                        scored.append((NO_AVERAGING, at_last))
                    for name, translator in scored:
                        runs.append(
                            _scored(
                                name,
                                config,
                                translator,
                                data,
                                training.steps,
                                cpu_seconds,
                                training.val_history,
                                training.history,
                            )
                        )
    return SmallDataStudy(
        environment(torch.device("cpu"), 1),
        _recipe_values(recipe),
        n_sentences,
        tuple(runs),
        time.perf_counter() - start,
    )


def write_part(
    path: str | Path,
    *,
    split_seed: int,
    variants: Sequence[str] = tuple(TRAINED),
    progress: bool = False,
) -> Path:
    """Run the study on one split of the shipped pairs (every seed, the
    ``variants`` asked for) and save it at ``path``: one process per
    split, side by side, then :func:`merge_parts`."""
    pairs = load_tatoeba(shipped_path()).pairs
    study = run_small_data(
        pairs,
        split_seeds=(split_seed,),
        variants=variants,
        cased_pairs=load_tatoeba(shipped_path(), cased=True).pairs,
        progress=progress,
    )
    return study.save(path)


def merge_parts(paths: Sequence[str | Path], folder: str | Path) -> Path:
    """Merge the parts :func:`write_part` saved into the packaged record,
    ``SmallDataStudy.PACKAGED`` in ``folder``.

    The environment is the first part's; the seconds are the longest
    part's (the parts ran side by side).

    Raises:
        ValueError: parts made with other settings, or a run in two.
    """
    # a part recorded before a field of the configuration existed holds
    # that field at its default: read back, its configuration is the same
    parts = [
        replace(
            part, config=_recipe_values(RealConfig.from_dict(part.config))
        )
        for part in map(SmallDataStudy.load, paths)
    ]
    runs = merged_runs(
        parts, key=lambda r: (r.variant, r.split_seed, r.seed)
    )
    merged = replace(
        parts[0], runs=runs, seconds=max(p.seconds for p in parts)
    )
    return merged.save(Path(folder) / SmallDataStudy.PACKAGED)


def _recipe_values(recipe: RealConfig) -> dict[str, Any]:
    """The recipe as a record keeps it: without its split seed, which
    each run gives."""
    values = recipe.to_dict()
    del values["data"]["split_seed"]
    return values


def verdicts(study: SmallDataStudy) -> dict[str, dict[int, str]]:
    """Where the recipe stands against each other variant on each split,
    by BLEU over the paired seeds
    (:func:`~attnbook.core.records.seed_verdict`: ``"ahead"``,
    ``"behind"`` or ``"tie"``: :func:`verdicts_between`)."""
    return {
        variant: verdicts_between(study, "recipe", variant)
        for variant in VARIANTS
        if variant != "recipe" and study.runs_of(variant)
    }


def format_small_data(study: SmallDataStudy) -> str:
    """A plain-text table: one row per variant and split, each score as
    its mean ± standard deviation over the seeds, and where the recipe
    stands against the variant on BLEU (:func:`verdicts`)."""
    found = verdicts(study)
    width = max(map(len, VARIANTS)) + 1
    lines = [
        f"{'variant':<{width}}{'split':>6}{'BLEU':>11}{'BLEU 1 ref':>12}"
        f"{'chrF':>11}{'repeats':>9}{'CPU s':>7}  recipe is"
    ]
    for variant in VARIANTS:
        for split in sorted({r.split_seed for r in study.runs}):
            runs = study.of(variant, split)
            if not runs:
                continue
            cells = [
                mean_sd([getattr(r, name) for r in runs])
                for name in ("bleu", "bleu_single", "chrf")
            ]
            repeats = mean_sd([r.n_repeating for r in runs])[0]
            cpu = mean_sd([r.cpu_seconds for r in runs])[0]
            lines.append(
                f"{variant:<{width}}{split:>6}"
                + "".join(
                    f"{f'{m:.1f}±{s:.1f}':>{w}}"
                    for (m, s), w in zip(cells, (11, 12, 11), strict=True)
                )
                + f"{repeats:>9.1f}{cpu:>7.0f}  "
                + found.get(variant, {}).get(split, "")
            )
    where = study.environment
    lines.append(
        f"{len(study.seeds)} seeds per split, {study.n_sentences:,} "
        "held-out sentences per split; "
        f"{where.device} ({where.device_name}), "
        f"{where.threads} thread, torch {where.torch}, {where.date[:10]}"
    )
    return "\n".join(lines)


CHANGED = {
    NO_AVERAGING: "Taking out the averaging",
    "no dropout": "Taking out dropout",
    "no label smoothing": "Taking out label smoothing",
    "plain, 5 epochs": "Taking out all three choices and three quarters "
    "of the epochs",
    "+ tied embeddings": "Tying the output layer to the target embeddings",
    "+ word dropout 0.1": "Adding word dropout of 0.1",
    "+ attention dropout 0.1": "Adding attention dropout of 0.1",
    "min count 1": "Keeping every word of the training pairs",
    "min count 3": "Keeping only the words seen at least 3 times",
    "1,000 pieces": "Reading and writing 1,000 subword pieces for each "
    "language instead of words",
    "Transformer, d_model 104": "Widening the Transformer to d_model 104",
    EVERY_WORD: "Widening the Transformer to d_model 104 and keeping "
    "every word of the training pairs",
    BY_FRENCH: "Widening the Transformer to d_model 104 and batching its "
    "pairs by French length",
    SIXTEEN_EPOCHS: "Widening the Transformer to d_model 104 and "
    "training it for 16 epochs instead of 20",
    EVERY_ENGLISH_WORD: "Widening the Transformer to d_model 104 and "
    "keeping every English word of the training pairs",
    "GRU, same weights": "Putting the GRU encoder-decoder of the same "
    "size in the Transformer's place",
}
"""What each variant changes in the recipe, as a sentence says it."""


def findings(study: SmallDataStudy) -> list[str]:
    """One sentence per variant: what taking its choice out of the recipe,
    or adding one, does to BLEU on each split, by :func:`verdicts` (a
    change larger than the seeds move BLEU and the same way for every
    seed, or none the seeds can tell), with the recipe's mean lead on each
    split."""
    splits = sorted({run.split_seed for run in study.runs})
    does = {
        "ahead": "costs BLEU",
        "behind": "gains BLEU",
        "tie": "makes no difference the seeds can tell",
    }
    sentences = []
    for variant in verdicts(study):
        # rounded first, so that a lead of -0.04 reads +0.0, not -0.0
        leads = " and ".join(
            f"{round(_lead(study, variant, s), 1) + 0.0:+.1f}"
            for s in splits
        )
        verdict = _verdict_between(study, "recipe", variant, does)
        sentences.append(
            f"{CHANGED[variant]} {verdict} "
            f"(the recipe's lead: {leads} BLEU)."
        )
    return sentences


def _lead(study: SmallDataStudy, variant: str, split: int) -> float:
    """The recipe's mean BLEU less ``variant``'s, on one split."""
    recipe = mean_sd([r.bleu for r in study.of("recipe", split)])[0]
    return recipe - mean_sd([r.bleu for r in study.of(variant, split)])[0]


def _bleu_by_split(study: SmallDataStudy, variant: str) -> list[str]:
    """``variant``'s BLEU on each split, mean ± sd over the seeds."""
    return [
        "{:.1f} ± {:.1f}".format(
            *mean_sd([r.bleu for r in study.of(variant, split)])
        )
        for split in sorted({run.split_seed for run in study.runs})
    ]


def verdicts_between(
    study: SmallDataStudy, first: str, second: str
) -> dict[int, str]:
    """Where variant ``first`` stands against variant ``second`` on BLEU
    on each split: :func:`~attnbook.core.records.seed_verdict` over the
    paired seeds (``"ahead"``, ``"behind"`` or ``"tie"``)."""
    return {
        split: seed_verdict(
            [r.bleu for r in study.of(first, split)],
            [r.bleu for r in study.of(second, split)],
        )
        for split in sorted({run.split_seed for run in study.runs})
    }


def _verdict_between(
    study: SmallDataStudy, first: str, second: str, says: dict[str, str]
) -> str:
    """:func:`verdicts_between` as ``says`` words each verdict: one phrase
    for every split, or one per split."""
    found = verdicts_between(study, first, second)
    splits = sorted(found)
    if len(set(found.values())) == 1:
        verdict = found[splits[0]]
        where = "on any split" if verdict == "tie" else "on every split"
        return f"{says[verdict]} {where}"
    return ", and ".join(
        f"{says[found[split]]} on split {split}" for split in splits
    )


def same_size_finding(study: SmallDataStudy) -> str:
    """One sentence: the BLEU of the two models of :data:`SAME_SIZE` on
    each split, mean ± standard deviation over the seeds, and which is
    ahead by :func:`~attnbook.core.records.seed_verdict` (paired seeds:
    the same seeds, splits and batch orders)."""
    transformer, gru = SAME_SIZE
    verdict = _verdict_between(
        study,
        transformer,
        gru,
        {
            "ahead": "the Transformer is ahead",
            "behind": "the GRU is ahead",
            "tie": "the seeds cannot tell the two apart",
        },
    )
    on_splits = " and ".join(
        f"{score} on split {split}"
        for score, split in zip(
            _bleu_by_split(study, transformer),
            sorted({run.split_seed for run in study.runs}),
            strict=True,
        )
    )
    return (
        f"the Transformer scores a held-out BLEU of {on_splits}, the GRU "
        f"{' and '.join(_bleu_by_split(study, gru))}: {verdict}."
    )


WIDENED_CHANGES = {
    EVERY_WORD: (
        "Keeping every word as well",
        "with the recipe's words",
        "keeping every word",
    ),
    BY_FRENCH: (
        "Batched by French length",
        "batched by English length",
        "batching by French length",
    ),
    SIXTEEN_EPOCHS: (
        "Trained for 16 epochs",
        "trained for 20",
        "stopping at 16 epochs",
    ),
    EVERY_ENGLISH_WORD: (
        "Keeping every English word as well",
        "with the recipe's words",
        "keeping every English word",
    ),
}
"""The variants that change one more thing in the widened Transformer
(``"Transformer, d_model 104"``): how a sentence names the change, the
widened run without it, and the change as the subject of a verdict."""


def widened_finding(study: SmallDataStudy, variant: str) -> str:
    """One sentence: a variant of :data:`WIDENED_CHANGES` against the
    widened Transformer, their BLEU on each split (mean ± sd over the
    seeds) and which is ahead by
    :func:`~attnbook.core.records.seed_verdict` over the paired seeds."""
    wide = SAME_SIZE[0]
    changed, without, change = WIDENED_CHANGES[variant]
    verdict = _verdict_between(
        study,
        variant,
        wide,
        {
            "ahead": f"{change} gains BLEU",
            "behind": f"{change} costs BLEU",
            "tie": "the seeds cannot tell the two apart",
        },
    )
    return (
        f"{changed}, the widened Transformer scores "
        f"{' and '.join(_bleu_by_split(study, variant))} on the two "
        f"splits, against {' and '.join(_bleu_by_split(study, wide))} "
        f"{without}: {verdict}."
    )
