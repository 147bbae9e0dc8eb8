r"""``attnbook train``: train a model, on the toy grammar or on real
sentence pairs (``--corpus``), and print its held-out scores.

Examples::

    # Bahdanau attention on the toy grammar, the chapter's configuration
    attnbook train
    # the no-attention baseline; standard output holds JSON only
    attnbook train --attention none --json
    attnbook train --attention luong --luong-score general \
        --input-feeding --local-p
    # chapter 9's Transformer
    attnbook train --model transformer --save tf.pt
    # the shipped Tatoeba pairs (the Transformer's small-data recipe);
    # any file of 2 or 3 columns
    attnbook train --corpus tatoeba --save model.pt --json
    # chapter 8's GRU encoder-decoder with its own defaults
    attnbook train --corpus tatoeba --model seq2seq --save gru.pt
    attnbook train --corpus-file eng-fra.txt --save model.pt
    # over 2,000 pieces per language
    attnbook train --corpus tatoeba --subwords 2000 --save pieces.pt \
        --json

Every output path is checked before training starts; bad input ends with
one ``error:`` line on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import math
import sys
from dataclasses import replace
from pathlib import Path
from typing import TextIO

from attnbook.cli.common import (
    InputError,
    case,
    check_output_paths,
    command_line,
    fail,
    print_json,
    text_out,
)
from attnbook.cli.flags import (
    add_config_arguments,
    config_from_given,
    flags_in_message,
    given_fields,
)
from attnbook.cli.inputs import read_corpus
from attnbook.cli.options import SubCommands, add_run_options, positive_int
from attnbook.nmt.corpus import shipped_path
from attnbook.nmt.evaluation import EvalResult
from attnbook.nmt.text import Tokenizer
from attnbook.studies.experiment import (
    ExperimentConfig,
    attention_name,
    run_experiment,
)
from attnbook.studies.pieces import PiecesExperiment, run_pieces_experiment
from attnbook.studies.realdata import (
    REAL_DEFAULT_KIND,
    RealConfig,
    real_defaults,
    run_real_experiment,
    training_casing,
)
from attnbook.studies.recorded import record_run

GRAMMAR = "grammar"
"""The ``--corpus`` of the toy grammar, the default."""

CORPORA = {"tatoeba": shipped_path}
"""The real corpora ``--corpus`` names: each maps to a function returning
the file's path."""

LABELS = (
    "on the toy grammar",
    "with --corpus",
    "with --corpus --model seq2seq",
)
"""How the help names the three runs whose defaults it shows: the toy
grammar's, and on real pairs the Transformer's recipe (the default) and
the GRU encoder-decoder's."""

HELP = {
    "model": "which model to train: seq2seq, the GRU encoder-decoder of "
    "chapter 6, or transformer, chapter 9's; each has defaults of its own "
    "on real pairs",
    "hidden_dim": "the GRU size, per direction in the encoder (whose "
    "states are so twice as long) and of the decoder state",
    "seed": "seeds the initial weights and the batch order",
    "lr_decay": "lower the learning rate linearly from --lr to zero over "
    "the planned epochs; on the toy grammar, left out, it is on for "
    "Luong's decoder and the Transformer and off for the others",
    "test_fraction": "the share of distinct English sentences held out "
    "for testing (all translations of a sentence land in one share)",
    "val_fraction": "the share of distinct English sentences held out for "
    "validation",
    "split_seed": "the seed of the shuffle that splits the English "
    "sentences",
    "subwords": "0 for a vocabulary of whole words; else the number of "
    "subword pieces learnt for each language, on the cased training "
    "sentences",
}
"""Help for the fields whose docstrings name code rather than
what a user sets."""


def add_train_command(commands: SubCommands) -> None:
    """Register ``train``: one flag per field of the toy grammar's run
    (:class:`~attnbook.studies.experiment.ExperimentConfig`) and of the run
    on real pairs (:class:`~attnbook.studies.realdata.RealConfig`)."""
    train = commands.add_parser(
        "train",
        help="train a model (chapter 6's seq2seq, or chapter 9's "
        "Transformer) and print its held-out scores",
        description="Train chapter 6's seq2seq model (--model "
        "transformer: chapter 9's Transformer) on the toy English-French "
        "grammar, or on real sentence pairs (--corpus tatoeba, "
        "--corpus-file), showing progress on standard error; then print "
        "its scores on the held-out test split: exact match, token "
        "accuracy, BLEU, chrF and alignment accuracy on the grammar; "
        "BLEU, chrF and exact match on real pairs. Where the two runs' "
        "defaults differ, the help shows both.",
    )
    add_config_arguments(
        train,
        ExperimentConfig,
        real_defaults(),
        real_defaults("seq2seq"),
        labels=LABELS,
        help_texts=HELP,
    )
    add_run_options(train)
    train.add_argument(
        "--save",
        metavar="PATH",
        default=None,
        help="save a checkpoint of the trained model there",
    )
    source = train.add_mutually_exclusive_group()
    source.add_argument(
        "--corpus",
        choices=[GRAMMAR, *sorted(CORPORA)],
        default=None,
        help="what to train on: grammar, the toy grammar of chapter 6, "
        "or tatoeba, the real pairs shipped with the package "
        "(default: grammar)",
    )
    source.add_argument(
        "--corpus-file",
        metavar="PATH",
        default=None,
        help="train on a UTF-8 file of "
        "English<TAB>French[<TAB>attribution] lines",
    )
    train.add_argument(
        "--steps",
        type=positive_int,
        metavar="N",
        default=None,
        help="with --corpus: train for at least this many "
        "steps, in whole epochs "
        "(default: 5 epochs, 605 steps on the shipped pairs, the learning "
        "rate falling to zero)",
    )
    train.add_argument(
        "--record",
        metavar="PATH",
        default=None,
        help="with --corpus: write the run's record there "
        "(its configuration, losses and held-out translations, as JSON)",
    )
    train.set_defaults(handler=run_train)


def wants_corpus(args: argparse.Namespace) -> bool:
    """Whether ``train`` was asked to train on real pairs."""
    corpus = getattr(args, "corpus", None)
    return bool(
        (corpus and corpus != GRAMMAR)
        or getattr(args, "corpus_file", None)
    )


def run_train(args: argparse.Namespace) -> int:
    """Check the output paths, train on the corpus asked for, print the
    scores (``--json``: as one JSON object on standard output, the text
    on standard error)."""
    try:
        check_output_paths(args, "--save", "--record")
        if wants_corpus(args):
            return _train_on_pairs(args)
        for flag in ("--steps", "--record"):
            if getattr(args, flag[2:]) is not None:
                raise InputError(
                    f"{flag} belongs to a run on real pairs; give "
                    "--corpus tatoeba or --corpus-file, or leave it out"
                )
        return _train_on_grammar(args)
    # ValueError: an impossible configuration, or too few English
    # sentences to split
    except (InputError, ValueError) as error:
        return fail(
            InputError(
                flags_in_message(str(error), ExperimentConfig, RealConfig)
            )
        )


def _train_on_grammar(args: argparse.Namespace) -> int:
    config = config_from_given(
        ExperimentConfig,
        args,
        what="a run on the toy grammar (without --corpus)",
    )
    experiment = run_experiment(
        config, device=args.device, progress=args.progress
    )
    if args.save:
        experiment.translator.save(args.save)
    out = text_out(args)
    training, evaluation = experiment.training, experiment.evaluation
    print(
        f"attention {attention_name(config)} on {experiment.device}: "
        f"trained {training.steps} steps "
        f"in {training.seconds:.1f} s",
        file=out,
    )
    if evaluation is not None:
        _print_grammar_scores(evaluation, out)
    if args.save:
        print(f"saved to {args.save}", file=out)
    if args.json:
        print_json(experiment.to_dict())
    return 0


def _print_grammar_scores(evaluation: EvalResult, out: TextIO) -> None:
    metrics = evaluation.metrics
    print(f"exact match     {metrics.exact_match:.3f}", file=out)
    print(f"token accuracy  {metrics.token_accuracy:.3f}", file=out)
    print(f"BLEU            {metrics.bleu:.1f}", file=out)
    print(f"chrF            {metrics.chrf:.1f}", file=out)
    for bucket, value in metrics.exact_match_by_length.items():
        print(
            f"exact match, source length {bucket:>6}: {value:.3f}",
            file=out,
        )
    alignment = evaluation.alignment
    if alignment is not None:
        print(f"alignment accuracy {alignment.accuracy:.3f}", file=out)
        for category, value in alignment.by_category.items():
            print(f"  {category:<17} {value:.3f}", file=out)
    scores = evaluation.scores
    if scores is not None:
        print(
            f"AER of the argmax  {scores.aer:.3f} (sure and possible "
            "links)",
            file=out,
        )
        print(
            f"attention mass on the true links {scores.mass:.3f}", file=out
        )
        print(
            f"mean attention entropy {evaluation.mean_entropy:.3f} nats",
            file=out,
        )


def real_config_from_args(
    args: argparse.Namespace, n_pairs: int
) -> RealConfig:
    """The :class:`~attnbook.studies.realdata.RealConfig` that ``train``'s
    options ask for, for a corpus of ``n_pairs``.

    ``train``'s flags are made from the fields of both runs'
    configurations. A flag left out takes the real-data default of the
    model asked for (:func:`~attnbook.studies.realdata.real_defaults`:
    without ``--model``, the Transformer's small-data recipe);
    a flag given (even with the toy grammar's default value) is used,
    and one the real-data run has no field for (the grammar's data
    settings) is refused with a :class:`ValueError`.
    ``--steps`` asks for at least that many steps, in whole epochs.
    """
    kind = args.model if "model" in given_fields(args) else None
    what = "a corpus run (--corpus/--corpus-file)"
    if kind is None:
        what += f" with --model {REAL_DEFAULT_KIND}, its default"
    config = config_from_given(
        RealConfig,
        args,
        what=what,
        default=real_defaults(kind or REAL_DEFAULT_KIND),
    )
    if args.steps is not None:
        # whole epochs of the (approximate) training share of the pairs
        n_train_pairs = n_pairs * (
            1 - config.data.test_fraction - config.data.val_fraction
        )
        per_epoch = max(
            1, math.ceil(n_train_pairs / config.train.batch_size)
        )
        config = replace(
            config,
            train=replace(
                config.train, max_epochs=math.ceil(args.steps / per_epoch)
            ),
        )
    return config


def _train_on_pairs(args: argparse.Namespace) -> int:
    """``train --corpus NAME`` or ``train --corpus-file PATH``:
    train, score the held-out English sentences."""
    if args.corpus_file:
        path, flag = Path(args.corpus_file), "--corpus-file"
    else:
        path, flag = CORPORA[args.corpus](), "--corpus"
    corpus = read_corpus(path, flag=flag)
    config = real_config_from_args(args, len(corpus.pairs))
    if config.data.subwords:
        if args.record:
            raise InputError(
                "--record keeps word-level runs only; leave it out "
                "with --subwords"
            )
        cased = read_corpus(path, cased=True)
        pieces = run_pieces_experiment(
            cased.pairs, config, device=args.device, progress=args.progress
        )
        return report_pieces(pieces, args)
    if args.progress:
        print(
            f"training on {len(corpus.pairs):,} pairs of {path.name}, "
            "then translating the held-out sentences",
            file=sys.stderr,
        )
    experiment = run_real_experiment(
        corpus.pairs, config, device=args.device, progress=args.progress
    )
    summary = experiment.to_dict()
    summary["corpus"] = args.corpus or str(path)
    if args.save:
        # the checkpoint writes French with the capitals its training
        # pairs give names and each sentence's first word
        casing = training_casing(
            read_corpus(path, cased=True).pairs, config.data
        )
        replace(
            experiment.translator, tokenizer=Tokenizer(casing=casing)
        ).save(args.save)
    if args.record:
        record_run(experiment, command_line(args)).save(args.record)
    search = (
        "greedy search"
        if experiment.config.beam_size == 1
        else f"beam {experiment.config.beam_size}"
    )
    lines = [
        f"attention {summary['attention']} on {summary['device']}: "
        f"{summary['n_train']} training pairs, "
        f"{summary['train_steps']} steps in "
        f"{summary['train_seconds']:.1f} s",
        f"held out: {summary['n_sentences']} English sentences "
        f"({summary['n_test']} pairs), never trained on",
        f"BLEU            {summary['bleu']:.1f}   ({search}; every French "
        "translation a reference)",
        f"BLEU, 1 ref.    {summary['bleu_single']:.1f}   (the first "
        "French translation the only reference)",
        f"chrF            {summary['chrf']:.1f}",
        f"BLEU signature  {summary['bleu_signature']} ({case(summary)})",
        f"exact match     {summary['exact_match']:.3f}",
        "BLEU, <unk> replaced through attention  "
        f"{summary['bleu_unk_replaced']:.1f}",
    ]
    if args.save:
        lines.append(f"saved to {args.save}")
    if args.record:
        lines.append(f"recorded in {args.record}")
    print("\n".join(lines), file=text_out(args))
    if args.json:
        print_json(summary)
    return 0


def report_pieces(
    experiment: PiecesExperiment, args: argparse.Namespace
) -> int:
    """Print a pieces run's summary: the scores on cased text
    and on lower-cased text, each with its signature (``--json``: the
    summary as JSON on standard output)."""
    summary = experiment.to_dict()
    summary["corpus"] = args.corpus or str(args.corpus_file)
    if args.save:
        experiment.translator.save(args.save)
    evaluation = experiment.evaluation
    out = text_out(args)
    print(
        f"{summary['subwords']:,} pieces per language, attention "
        f"{experiment.config.model.attention_name} on "
        f"{summary['device']}: {summary['n_train']} training pairs, "
        f"{summary['train_steps']} steps in "
        f"{summary['train_seconds']:.1f} s",
        file=out,
    )
    print(
        f"held out: {summary['n_sentences']} English sentences "
        f"({summary['n_test']} pairs), never trained on; "
        f"{summary['n_sentences_unknown']} of them with an unknown piece",
        file=out,
    )
    for name, report in (
        ("cased", evaluation.cased),
        ("lower-cased", evaluation.lowercased),
    ):
        print(
            f"{name:<12} BLEU {report['bleu']:.1f} (every reference), "
            f"{report['bleu_single']:.1f} (first "
            f"reference only), chrF {report['chrf']:.1f}   "
            f"{report['bleu_signature']}",
            file=out,
        )
    if args.save:
        print(f"saved to {args.save}", file=out)
    if args.json:
        print_json(summary)
    return 0
