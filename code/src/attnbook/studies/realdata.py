"""Training and scoring on real sentence pairs, where one English sentence
has several correct translations.

A real corpus differs from the toy grammar in three ways that change how a
model must be evaluated, each handled by the library
(:mod:`attnbook.nmt`):

- **The same English sentence comes back with other French translations**
  (*I'm cold.* is *J'ai froid.* and *Je suis gelé.*).
  A split by pair would put one translation in training and another in the
  test, so the test would reward memorising the English.
  :func:`~attnbook.nmt.split.split_by_english` splits by English sentence.
- **Every translation of a held-out sentence is a correct answer.**
  :func:`~attnbook.nmt.metrics.score_against_references` scores with all
  of them as references (``sacrebleu``'s multi-reference BLEU and chrF),
  on detokenised text (:func:`~attnbook.nmt.text.detokenize_french`)
  with ``sacrebleu``'s default ``13a`` tokenisation.
- **Some words are rare or unknown.** A vocabulary of the words seen at
  least twice maps the rest to ``<unk>``, so the model learns to write
  ``<unk>`` where it meets one; :func:`~attnbook.nmt.text.replace_unknown`
  then copies the source word the attention points at (after Luong et al.,
  2015, and Jean et al., 2015).

:func:`run_real_experiment` runs the whole pipeline (split, vocabularies,
model, training, scoring); the command line's ``train --corpus`` uses it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import torch

from attnbook.core.config import check_fields
from attnbook.core.runtime import get_device
from attnbook.nmt.data import SentencePair
from attnbook.nmt.heldout import RealEvaluation, evaluate_real
from attnbook.nmt.seq2seq import ModelConfig
from attnbook.nmt.split import (
    EnglishSplit,
    lowered_source,
    split_by_english,
)
from attnbook.nmt.text import learn_casing
from attnbook.nmt.training import TrainConfig, TrainResult
from attnbook.nmt.transformer import TransformerSizes
from attnbook.nmt.translator import MODEL_SPECS, ModelSpec, Translator
from attnbook.studies.experiment import attention_name, run_settings
from attnbook.studies.recipe import RunData, run_once, words_data


@dataclass(frozen=True)
class RealDataConfig:
    """The data of a run on real pairs: how the corpus is split and which
    words the model knows.

    Attributes:
        min_count: words seen fewer times than this in the training pairs
            become <unk> (2 leaves the model <unk> tokens to learn from,
            which unknown-word replacement needs).
        source_min_count: the same for the English words alone, where it
            differs (1 keeps every English word while the French still
            holds <unk> tokens to learn); 0: min_count.
        test_fraction, val_fraction, split_seed:
            see :func:`split_by_english`.
        max_src_len: the longest English sentence, in tokens, the model
            accepts (raised to the corpus's longest if that is longer).
        subwords: 0 for a vocabulary of whole words;
            else the number of subword units learnt for each language,
            on the cased training sentences
            (:func:`~attnbook.studies.pieces.run_pieces_experiment`).
    """

    min_count: int = field(default=2, metadata={"minimum": 1})
    source_min_count: int = field(default=0, metadata={"minimum": 0})
    test_fraction: float = field(default=0.1, metadata={"minimum": 0.0})
    val_fraction: float = field(default=0.05, metadata={"minimum": 0.0})
    split_seed: int = 0
    max_src_len: int = field(default=25, metadata={"minimum": 1})
    subwords: int = field(default=0, metadata={"minimum": 0})

    def __post_init__(self) -> None:
        check_fields(self)


def prepare_real_data(
    pairs: Sequence[SentencePair], data: RealDataConfig
) -> RunData[EnglishSplit]:
    """Split ``pairs`` by English sentence and build both vocabularies
    from the training split alone, as every run on real pairs does.

    The model must read the longest English sentence of ``pairs``:
    ``max_src_len`` is raised to it if it is longer.

    >>> pairs = [
    ...     SentencePair(("hi", "."), ("salut", ".")),
    ...     SentencePair(("go", "."), ("va", ".")),
    ... ] * 10 + [SentencePair(("run", "."), ("cours", "."))]
    >>> prepared = prepare_real_data(pairs, RealDataConfig(split_seed=1))
    >>> len(prepared.split.train) + len(prepared.split.val) + len(
    ...     prepared.split.test
    ... ) == len(pairs)
    True
    >>> prepared.max_src_len
    25
    """
    split = split_by_english(
        pairs,
        test_fraction=data.test_fraction,
        val_fraction=data.val_fraction,
        seed=data.split_seed,
    )
    longest = max(data.max_src_len, *(len(p.source) for p in pairs))
    return words_data(
        split,
        min_count=data.min_count,
        source_min_count=data.source_min_count,
        max_src_len=longest,
    )


def training_casing(
    cased_pairs: Sequence[SentencePair], data: RealDataConfig
) -> dict[str, str]:
    """How the French of a run's training pairs spells its names and
    acronyms (:func:`~attnbook.nmt.text.learn_casing`), for a translator
    over lower-cased words to put their capitals back.

    ``cased_pairs`` is the run's corpus as written (``load_tatoeba(path,
    cased=True)``); it is split where the run splits the lower-cased
    corpus (by the lower-cased English), so the table is learnt on the
    run's training pairs alone.

    >>> pairs = [
    ...     SentencePair(("See", "Tom", f"{k}"), ("Vois", "Tom", f"{k}"))
    ...     for k in range(20)
    ... ]
    >>> training_casing(pairs, RealDataConfig())
    {'tom': 'Tom'}
    """
    return learn_casing(
        pair.target for pair in cased_split(cased_pairs, data).train
    )


def cased_split(
    cased_pairs: Sequence[SentencePair], data: RealDataConfig
) -> EnglishSplit:
    """A corpus as written (``load_tatoeba(path, cased=True)``) split
    where a run with ``data`` splits it lower-cased: by the lower-cased
    English, so each part holds the same pairs."""
    return split_by_english(
        cased_pairs,
        test_fraction=data.test_fraction,
        val_fraction=data.val_fraction,
        seed=data.split_seed,
        key=lowered_source,
    )


def _real_training() -> TrainConfig:
    return TrainConfig(
        max_epochs=5,
        batch_size=128,
        lr=5e-3,
        lr_decay=True,
        eval_every=100,
        patience=10,
        keep_best=False,
    )


@dataclass(frozen=True)
class RealConfig:
    """The configuration of a run on real pairs (``python -m attnbook train
    --corpus tatoeba``).

    It nests the same model configuration as every run
    (:class:`~attnbook.nmt.seq2seq.ModelConfig`, or the Transformer's
    :class:`~attnbook.nmt.transformer.TransformerSizes`), with defaults of
    its own.

    Attributes:
        data: the split and the vocabularies.
        model: the recurrent model's choices and sizes (embeddings of
            96 here), or the Transformer's sizes; its type says the kind.
        train: the training settings; training is sized in epochs (steps),
            never in seconds. The default trains 5 epochs (605 steps on the
            shipped pairs) while the learning rate falls linearly from lr
            to zero, and keeps the weights of the end of that schedule:
            a patience of 10 validations (1,000 steps) is longer than the
            run, so early stopping does not cut the schedule short.
        beam_size: the beam used to translate the held-out sentences (1:
            greedy search).

    Raises:
        TypeError: ``model`` is neither kind.
    """

    data: RealDataConfig = field(default_factory=RealDataConfig)
    model: ModelSpec = field(
        default_factory=lambda: ModelConfig(emb_dim=96),
        metadata={"kinds": MODEL_SPECS, "flag": "--model"},
    )
    train: TrainConfig = field(default_factory=_real_training)
    beam_size: int = field(
        default=4, metadata={"minimum": 1, "flag": "--beam"}
    )

    def __post_init__(self) -> None:
        check_fields(self)

    def to_dict(self) -> dict[str, Any]:
        """The configuration as plain values, for JSON
        (:meth:`from_dict` reads them back): the model's fields under
        ``model`` and its kind under ``model_kind``."""
        return {**asdict(self), "model_kind": self.model.kind}

    @classmethod
    def from_dict(
        cls, values: dict[str, Any], model_key: str = "model"
    ) -> RealConfig:
        """A configuration read back from plain values.

        Args:
            values: :meth:`to_dict`'s values, or a record's.
            model_key: the key of the model's fields (a comparison of
                models keeps the recurrent model's under ``"seq2seq"``).
                Values without ``model_kind`` hold a recurrent model.

        >>> from attnbook.nmt.transformer import TransformerSizes
        >>> config = RealConfig(beam_size=1, model=TransformerSizes())
        >>> RealConfig.from_dict(config.to_dict()) == config
        True
        """
        spec = MODEL_SPECS[values.get("model_kind", ModelConfig.kind)]
        return cls(
            data=RealDataConfig(**values["data"]),
            model=spec(**values[model_key]),
            train=TrainConfig(**values["train"]),
            beam_size=values["beam_size"],
        )


def _small_data_training() -> TrainConfig:
    # the GRU's run, four times as long, smoothed and averaged
    return replace(
        _real_training(),
        max_epochs=20,
        eval_every=121,
        patience=100,
        label_smoothing=0.1,
        average_last=5,
    )


def small_data_config() -> RealConfig:
    """The Transformer's recipe for a small corpus, the default of
    ``python -m attnbook train --corpus tatoeba``: chapter 9's layers and
    heads with states of 104 features instead of its 64, dropout of 0.2,
    16 epochs in batches of 128 with the rate falling linearly from 0.005
    to zero, label smoothing of 0.1, a validation every 121 steps (once an
    epoch on the shipped pairs), and the mean of the last 5 validations'
    weights (checkpoint averaging) as the model kept.

    The width is the one the small-data study found better than 64 on
    both of its splits and with every seed; 16 epochs, not the study
    recipe's 20, take a fifth fewer steps at a BLEU the study's seeds
    cannot tell from 20's (:mod:`attnbook.studies.small_data`, whose own
    recipe is this one at 64 and 20 epochs).
    """
    return RealConfig(
        model=TransformerSizes(d_model=104, dropout=0.2),
        train=replace(_small_data_training(), max_epochs=16),
    )


REAL_DEFAULT_KIND = TransformerSizes.kind
"""The model ``train --corpus`` trains when ``--model`` is left out."""


def real_defaults(kind: str = REAL_DEFAULT_KIND) -> RealConfig:
    """The defaults of ``python -m attnbook train --corpus`` for each
    ``--model``: the Transformer's small-data recipe
    (:func:`small_data_config`, the default), or the GRU encoder-decoder's
    run of chapter 8 (:class:`RealConfig`'s own defaults, ``--model
    seq2seq``).

    >>> real_defaults("seq2seq") == RealConfig()
    True
    >>> real_defaults().train.max_epochs
    16
    """
    if kind not in MODEL_SPECS:
        raise ValueError(
            f"no model kind {kind!r}; expected one of "
            f"{', '.join(MODEL_SPECS)}"
        )
    return (
        small_data_config() if kind == REAL_DEFAULT_KIND else RealConfig()
    )


@dataclass(frozen=True, eq=False)
class RealExperiment:
    """Everything :func:`run_real_experiment` built and measured
    (``cpu_seconds``: the process's CPU time while training, which a busy
    neighbour inflates far less than the wall-clock
    ``training.seconds``)."""

    config: RealConfig
    split: EnglishSplit
    translator: Translator
    training: TrainResult
    evaluation: RealEvaluation
    device: torch.device
    cpu_seconds: float

    def to_dict(self) -> dict[str, Any]:
        """The headline numbers as plain values (the command
        line's JSON)."""
        return {
            "attention": attention_name(self.config),
            "device": str(self.device),
            **self.evaluation.to_dict(),
            "train_seconds": self.training.seconds,
            "train_steps": self.training.steps,
            "best_step": self.training.best_step,
            "n_train": len(self.split.train),
            "n_val": len(self.split.val),
            "n_test": len(self.split.test),
            "config": {
                **run_settings(self.config),
                "beam_size": self.config.beam_size,
            },
            "train_config": self.config.train.to_dict(),
        }


def held_out_scores(
    beam_size: int,
) -> Callable[[Translator, RunData[EnglishSplit]], RealEvaluation]:
    """How every run on real pairs is scored: its test split translated
    with a beam of ``beam_size`` (greedy for 1), against every reference
    (:func:`~attnbook.nmt.heldout.evaluate_real`)."""

    def scores(
        translator: Translator, data: RunData[EnglishSplit]
    ) -> RealEvaluation:
        return evaluate_real(
            translator, data.split.test, beam_size=beam_size
        )

    return scores


def run_real_experiment(
    pairs: Sequence[SentencePair],
    config: RealConfig | None = None,
    *,
    device: torch.device | str | None = None,
    progress: bool = False,
) -> RealExperiment:
    """Split ``pairs`` by English sentence, build the vocabularies and the
    model, train, score the test split.

    It runs :func:`~attnbook.studies.recipe.run_once`, as every run does.
    The test sentences are translated with a beam of ``config.beam_size``
    (greedy for 1).

    Args:
        pairs: the corpus (e.g. ``load_tatoeba(shipped_path()).pairs``).
        config: the run; ``None`` uses :class:`RealConfig`'s defaults.
        device: where to train; ``None`` uses
            :func:`~attnbook.core.runtime.get_device`.
        progress: show the training progress bar.

    Raises:
        ValueError: ``pairs`` is empty or has too few distinct English
            sentences to split.
    """
    config = config or RealConfig()
    if config.data.subwords:
        raise ValueError(
            f"config.data.subwords is {config.data.subwords}: a run over "
            "pieces is "
            "attnbook.studies.run_pieces_experiment, on cased pairs"
        )
    if not pairs:
        raise ValueError(
            "the corpus has no sentence pairs: nothing to train on"
        )
    device = torch.device(device) if device is not None else get_device()
    data = prepare_real_data(pairs, config.data)
    run = run_once(
        config,
        data,
        held_out_scores(config.beam_size),
        device=device,
        progress=progress,
    )
    assert run.evaluation is not None  # evaluated above
    return RealExperiment(
        config,
        data.split,
        run.translator,
        run.training,
        run.evaluation,
        device,
        run.cpu_seconds,
    )
