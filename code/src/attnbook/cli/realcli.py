r"""The command line on real sentences: ``train --corpus``, ``evaluate``
and ``translate``.

Examples::

    # the shipped Tatoeba pairs
    python -m attnbook train --corpus tatoeba --save model.pt --json
    # any file, 2 or 3 columns
    python -m attnbook train --corpus-file eng-fra.txt --save model.pt
    # chapter 8's Transformer
    python -m attnbook train --corpus tatoeba --model transformer \
        --save tf.pt
    # over 2,000 pieces per language
    python -m attnbook train --corpus tatoeba --subwords 2000 \
        --save pieces.pt --json
    # words vs pieces, three seeds
    python -m attnbook subwords --subwords 2000 --save record.json
    python -m attnbook evaluate --checkpoint model.pt \
        --corpus-file held-out.txt --json
    python -m attnbook translate --checkpoint model.pt --beam 4 \
        "I am cold."
    # the model the book ships, as in the page
    python -m attnbook translate "I am cold."
    # the GRU beside the Transformer, three seeds
    python -m attnbook compare-real --save compare.json

Bad input (a file that is not UTF-8, a corpus with no usable pair,
a file that is not a checkpoint, a sentence longer than the model accepts)
ends with one ``error:`` line on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
import warnings
from collections.abc import Sequence
from dataclasses import fields, replace
from pathlib import Path

import torch

from attnbook.cli.flags import (
    SubCommands,
    add_run_options,
    config_from_given,
    flag_name,
    given_fields,
    positive_int,
)
from attnbook.nmt.corpus import Corpus, load_tatoeba, shipped_path
from attnbook.nmt.data import UNK
from attnbook.nmt.export import shipped_export
from attnbook.nmt.heldout import evaluate_real
from attnbook.nmt.seq2seq import ModelConfig
from attnbook.nmt.text import UNKNOWN_CHOICES, UNKNOWN_DEFAULT
from attnbook.nmt.transformer import TransformerSizes
from attnbook.nmt.translator import Translator
from attnbook.studies import realcompare
from attnbook.studies.experiment import ExperimentConfig
from attnbook.studies.pieces import (
    PiecesExperiment,
    compare_units,
    format_units_comparison,
    load_units_comparison,
    merge_units_comparisons,
    run_pieces_experiment,
    save_units_comparison,
)
from attnbook.studies.realdata import RealConfig, run_real_experiment
from attnbook.studies.recorded import record_run, save_recorded_run

CORPORA = {"tatoeba": shipped_path}
"""The corpora ``--corpus`` names: each maps to a function returning the
file's path."""


class InputError(Exception):
    """Bad input the command line reports in one line (exit status 2)
    instead of a traceback."""


def _case(summary: dict[str, object]) -> str:
    """Whether a summary's scores tell case: the signature says
    ``case:mixed`` for lower-cased text too."""
    return (
        "cased text"
        if summary["cased"]
        else "lower-cased text: the scores ignore case"
    )


def _fail(error: Exception) -> int:
    print(f"error: {error}", file=sys.stderr)
    return 2


# -------------------------------------------------------------------------
# Reading corpora and checkpoints, with errors a person can act on


def read_corpus(
    path: str | Path, *, max_len: int | None = None, cased: bool = False
) -> Corpus:
    """Load a corpus file in either layout (lower-cased, or with
    ``cased=True`` as written); refuse one with no usable pair.

    Raises:
        InputError: the file is missing, is not UTF-8 (the message gives
            the byte offset), or has no pair left after the malformed lines
            and the length filter are set aside.
    """
    path = Path(path)
    if not path.is_file():
        raise InputError(f"{path}: no such file")
    try:
        corpus = load_tatoeba(path, max_len=max_len, cased=cased)
    except (
        ValueError
    ) as error:  # CorpusEncodingError names the file and the byte offset
        raise InputError(str(error)) from None
    if not corpus.pairs:
        raise InputError(
            f"{path}: no usable sentence pair in {corpus.n_lines} line(s) "
            f"({len(corpus.malformed)} malformed, {corpus.n_too_long} too "
            "long); "
            "expected lines of English<TAB>French[<TAB>attribution]"
        )
    if corpus.malformed:
        print(
            f"warning: {path}: {len(corpus.malformed)} malformed line(s) "
            "left out, the first: "
            f"{corpus.malformed[0]}",
            file=sys.stderr,
        )
    return corpus


def read_model(
    path: str | Path | None, device: torch.device
) -> Translator:
    """The checkpoint at ``path`` (:func:`read_checkpoint`), or with no
    path the translator the book ships
    (:func:`~attnbook.nmt.shipped_export`), on ``device``."""
    if path is None:
        try:
            return shipped_export().to_translator(device)
        except FileNotFoundError:
            raise InputError(
                "this install has no trained model of its own: give "
                "--checkpoint"
            ) from None
    return read_checkpoint(path, device)


def read_checkpoint(path: str | Path, device: torch.device) -> Translator:
    """Load a checkpoint written by ``train --save`` (through
    :meth:`~attnbook.nmt.translator.Translator.load`).

    Raises:
        InputError: the file is missing, or it is not such a checkpoint
            (garbage, cut short, or another program's file).
            The file is read with ``torch.load(weights_only=True)``,
            which refuses to run code stored in it; that stays so.
    """
    path = Path(path)
    if not path.is_file():
        raise InputError(f"{path}: no such file")
    try:
        with (
            warnings.catch_warnings()
        ):  # torch warns about some foreign files before refusing them
            warnings.simplefilter("ignore")
            return Translator.load(path, device=device)
    # ValueError for a file that is not a checkpoint;
    # others for one of another shape
    except Exception:
        raise InputError(
            f"{path} is not a checkpoint written by 'python -m attnbook "
            "train --save' "
            "(unreadable, cut short, or another program's file); train "
            "one with --save"
        ) from None


# -------------------------------------------------------------------------
# train --corpus / --corpus-file


def add_corpus_options(train: argparse.ArgumentParser) -> None:
    """Add ``--corpus``, ``--corpus-file`` and ``--steps`` to the ``train``
    command (the run's own settings, ``--beam`` and ``--min-count`` among
    them, are flags made from
    :class:`~attnbook.studies.realdata.RealConfig`)."""
    source = train.add_mutually_exclusive_group()
    source.add_argument(
        "--corpus",
        choices=sorted(CORPORA),
        default=None,
        help="train on real pairs shipped with the package instead of the "
        "toy grammar",
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
        default=None,
        help="with --corpus/--corpus-file: train for at least this many "
        "steps, in whole epochs "
        "(default: 5 epochs, 605 steps on the shipped pairs, the learning "
        "rate falling to zero)",
    )
    train.add_argument(
        "--record",
        metavar="PATH",
        default=None,
        help="with --corpus/--corpus-file: write the run's record there "
        "(its configuration, losses and held-out translations, as JSON)",
    )


def wants_corpus(args: argparse.Namespace) -> bool:
    """Whether ``train`` was asked to train on a real corpus."""
    return bool(
        getattr(args, "corpus", None) or getattr(args, "corpus_file", None)
    )


def real_config_from_args(
    args: argparse.Namespace, n_pairs: int
) -> RealConfig:
    """The :class:`~attnbook.studies.realdata.RealConfig` that ``train``'s
    options ask for, for a corpus of ``n_pairs``.

    ``train``'s flags are made from the fields of both runs'
    configurations. A flag left out takes the real-data default;
    a flag given (even with the toy grammar's default value) is used,
    and one the real-data run has no field for (the grammar's data
    settings) is refused with a :class:`ValueError`.
    ``--steps`` asks for at least that many steps, in whole epochs.
    """
    config = config_from_given(
        RealConfig, args, what="a corpus run (--corpus/--corpus-file)"
    )
    refuse_unused_model_flags(config, args)
    if (
        args.steps is not None
    ):  # whole epochs of the (approximate) training share of the pairs
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


def refuse_unused_model_flags(
    config: RealConfig | ExperimentConfig, args: argparse.Namespace
) -> None:
    """Refuse a flag of the model the run does not train (``--attention``
    with ``--model transformer``).

    Raises:
        ValueError: naming the flag and the model.
    """
    unused = (
        ModelConfig
        if config.model_kind == "transformer"
        else TransformerSizes
    )
    for item in fields(unused):
        if item.name in given_fields(args):
            raise ValueError(
                f"{flag_name(item)} has no effect on --model "
                f"{config.model_kind}; leave it out"
            )


def run_train_corpus(args: argparse.Namespace) -> int:
    """``train --corpus NAME`` or ``train --corpus-file PATH``:
    train, score the held-out English sentences."""
    try:
        path = (
            CORPORA[args.corpus]()
            if args.corpus
            else Path(args.corpus_file)
        )
        corpus = read_corpus(path)
        if args.threads is not None:
            torch.set_num_threads(args.threads)
        config = real_config_from_args(args, len(corpus.pairs))
        if config.data.subwords:
            if args.record:
                raise InputError(
                    "--record keeps word-level runs only; leave it out "
                    "with --subwords"
                )
            cased = read_corpus(path, cased=True)
            pieces = run_pieces_experiment(
                cased.pairs,
                config,
                device=args.device,
                progress=args.progress,
            )
            return report_pieces(pieces, args)
        experiment = run_real_experiment(
            corpus.pairs,
            config,
            device=args.device,
            progress=args.progress,
        )
    except (
        InputError,
        ValueError,
    ) as error:  # ValueError: too few English sentences to split
        return _fail(error)
    summary = experiment.to_dict()
    summary["corpus"] = args.corpus or str(path)
    if args.save:
        experiment.translator.save(args.save)
    if args.record:
        save_recorded_run(
            record_run(experiment, _command_line(args)), args.record
        )
    print(
        f"attention {summary['attention']} on {summary['device']}: "
        f"{summary['n_train']} training pairs, "
        f"{summary['train_steps']} steps in "
        f"{summary['train_seconds']:.1f} s"
    )
    print(
        f"held out: {summary['n_sentences']} English sentences "
        f"({summary['n_test']} pairs), never trained on"
    )
    search = (
        "greedy search"
        if experiment.config.beam_size == 1
        else f"beam {experiment.config.beam_size}"
    )
    print(
        f"BLEU            {summary['bleu']:.1f}   ({search}; every French "
        "translation a reference)"
    )
    print(
        f"BLEU, 1 ref.    {summary['bleu_single']:.1f}   (the first "
        "French translation the only reference)"
    )
    print(f"chrF            {summary['chrf']:.1f}")
    print(
        f"BLEU signature  {summary['bleu_signature']} ({_case(summary)})"
    )
    print(f"exact match     {summary['exact_match']:.3f}")
    print(
        "BLEU, <unk> replaced through attention  "
        f"{summary['bleu_unk_replaced']:.1f}"
    )
    if args.save:
        print(f"saved to {args.save}")
    if args.record:
        print(f"recorded in {args.record}")
    if args.json:
        print(json.dumps(summary))
    return 0


def report_pieces(
    experiment: PiecesExperiment, args: argparse.Namespace
) -> int:
    """Print a pieces run's summary: the scores on cased text
    and on lower-cased text, each with its signature (JSON last
    with ``--json``)."""
    summary = experiment.to_dict()
    summary["corpus"] = args.corpus or str(args.corpus_file)
    if args.save:
        experiment.translator.save(args.save)
    evaluation = experiment.evaluation
    print(
        f"{summary['subwords']:,} pieces per language, attention "
        f"{experiment.config.model.attention} on "
        f"{summary['device']}: {summary['n_train']} training pairs, "
        f"{summary['train_steps']} steps in "
        f"{summary['train_seconds']:.1f} s"
    )
    print(
        f"held out: {summary['n_sentences']} English sentences "
        f"({summary['n_test']} pairs), never trained on; "
        f"{summary['n_sentences_unknown']} of them with an unknown piece"
    )
    for name, report in (
        ("cased", evaluation.cased),
        ("lower-cased", evaluation.lowercased),
    ):
        print(
            f"{name:<12} BLEU {report['bleu']:.1f} (every reference), "
            f"{report['bleu_single']:.1f} (first "
            f"reference only), chrF {report['chrf']:.1f}   "
            f"{report['bleu_signature']}"
        )
    if args.save:
        print(f"saved to {args.save}")
    if args.json:
        print(json.dumps(summary))
    return 0


# -------------------------------------------------------------------------
# subwords: the recorded comparison of words and pieces


def add_subwords_command(commands: SubCommands) -> None:
    """Register ``subwords``: the word-level model and the pieces model,
    once per seed (the record the real-sentences chapter shows)."""
    parser = commands.add_parser(
        "subwords",
        help="train the default real-sentence run over words and over "
        "pieces, once per seed",
        description="Train the default 'train --corpus tatoeba' run over "
        "whole words and over subword "
        "pieces, once per seed, one after the other, and print their "
        "held-out BLEU (every reference and "
        "the first one), chrF and training seconds. Three seeds take "
        "about 15 minutes on 2 CPU cores.",
    )
    parser.add_argument(
        "--subwords",
        type=positive_int,
        default=2000,
        help="pieces per language (default: %(default)s)",
    )
    parser.add_argument(
        "--seeds",
        type=int,
        nargs="+",
        default=[0, 1, 2],
        help="default: %(default)s",
    )
    parser.add_argument(
        "--epochs",
        type=positive_int,
        default=None,
        help="epochs of every run (default: the default run's 5)",
    )
    parser.add_argument(
        "--beam",
        type=positive_int,
        default=None,
        help="beam of every run (default: the default run's 4)",
    )
    parser.add_argument(
        "--merge",
        metavar="PART",
        nargs="+",
        default=None,
        help="train nothing: merge comparisons recorded with other seeds "
        "(side by side) into one",
    )
    add_run_options(parser, device="cpu")
    parser.add_argument(
        "--save",
        metavar="PATH",
        default=None,
        help="also write the result as JSON to PATH",
    )
    parser.set_defaults(handler=run_subwords_command)


def run_subwords_command(args: argparse.Namespace) -> int:
    """Run the comparison, print its table; save it with ``--save``."""
    if args.threads is not None:
        torch.set_num_threads(args.threads)
    base = RealConfig()
    if args.epochs is not None:
        base = replace(
            base, train=replace(base.train, max_epochs=args.epochs)
        )
    if args.beam is not None:
        base = replace(base, beam_size=args.beam)
    try:
        if args.merge:
            parts = [load_units_comparison(path) for path in args.merge]
            comparison = merge_units_comparisons(
                parts, _command_line(args, [p.command for p in parts])
            )
        else:
            words = read_corpus(shipped_path())
            cased = read_corpus(shipped_path(), cased=True)
            comparison = compare_units(
                words.pairs,
                cased.pairs,
                args.subwords,
                seeds=args.seeds,
                base=base,
                device=args.device,
                progress=args.progress,
            )
            comparison = replace(comparison, command=_command_line(args))
    except (InputError, ValueError, OSError) as error:
        return _fail(error)
    print(format_units_comparison(comparison))
    if args.save:
        print(f"saved to {save_units_comparison(comparison, args.save)}")
    if args.json:
        print(json.dumps(comparison.to_dict()))
    return 0


def _command_line(
    args: argparse.Namespace, commands: Sequence[str] = ()
) -> str:
    """The command lines that made a record, ``;``-separated: ``commands``,
    then this one (``args.argv``, what :func:`~attnbook.cli.main.main`
    parsed), with the folders of the JSON files left out (they name the
    machine it ran on, not how to run it)."""
    this = getattr(args, "argv", sys.argv[1:])
    lines = [*commands, " ".join(["python -m attnbook", *this])]
    return re.sub(r"\S*/([^/\s]+\.json)", r"\1", " ; ".join(lines))


# -------------------------------------------------------------------------
# evaluate


def _add_model_options(parser: argparse.ArgumentParser) -> None:
    """The options ``evaluate`` and ``translate`` share:
    the checkpoint, the beam, the device, JSON."""
    parser.add_argument(
        "--checkpoint",
        metavar="CKPT",
        default=None,
        help="a file written by train --save (default: the model the book "
        "ships, the default "
        "train --corpus tatoeba run, int8 weights: the one the "
        "real-sentences chapter runs in the page)",
    )
    parser.add_argument(
        "--beam",
        type=positive_int,
        default=1,
        help="beam size (default: greedy)",
    )
    add_run_options(parser, threads=False, progress=False)


def add_evaluate_command(commands: SubCommands) -> None:
    """Register ``evaluate``: score a saved model on a corpus file,
    every translation a reference."""
    parser = commands.add_parser(
        "evaluate",
        help="score a saved model on a corpus file (BLEU, chrF, exact "
        "match)",
        description="Translate every distinct English sentence of the "
        "file once and score it against all "
        "its French translations in the file (sacrebleu BLEU and chrF on "
        "detokenised lower-cased text, "
        "13a tokenisation; BLEU with every translation a reference, and "
        "with the first only; the BLEU "
        "signature). Use sentences the model was not trained on.",
    )
    parser.add_argument(
        "--corpus-file",
        required=True,
        metavar="PATH",
        help="English<TAB>French lines",
    )
    _add_model_options(parser)
    parser.set_defaults(handler=run_evaluate)


def run_evaluate(args: argparse.Namespace) -> int:
    """Load the checkpoint and the file, translate, score, print (JSON last
    with ``--json``)."""
    try:
        translator = read_model(args.checkpoint, args.device)
        max_src_len = translator.model.config.max_src_len
        corpus = read_corpus(
            args.corpus_file, cased=translator.tokenizer.cased
        )
        pairs = [
            p
            for p in corpus.pairs
            if len(translator.tokenizer.source(p.source)) <= max_src_len
        ]
        if not pairs:
            raise InputError(
                f"{args.corpus_file}: every English sentence is longer "
                "than the "
                f"{max_src_len} tokens this model accepts"
            )
        evaluation = evaluate_real(translator, pairs, beam_size=args.beam)
    except InputError as error:
        return _fail(error)
    summary = {
        **evaluation.to_dict(),
        "n_pairs": len(pairs),
        "n_too_long": len(corpus.pairs) - len(pairs),
        "beam": args.beam,
    }
    print(
        f"{summary['n_sentences']} English sentences ({len(pairs)} pairs; "
        f"{summary['n_too_long']} longer than "
        f"the model accepts left out); {summary['n_unknown']} source "
        "words unknown to the model"
    )
    print(
        f"BLEU {summary['bleu']:.1f} (every translation a reference), "
        f"{summary['bleu_single']:.1f} (the first "
        f"only)  chrF {summary['chrf']:.1f}  exact match "
        f"{summary['exact_match']:.3f}"
    )
    print(f"BLEU signature {summary['bleu_signature']} ({_case(summary)})")
    print(
        "with <unk> replaced through attention: BLEU "
        f"{summary['bleu_unk_replaced']:.1f}"
    )
    if args.json:
        print(json.dumps(summary))
    return 0


# -------------------------------------------------------------------------
# translate


def add_translate_command(commands: SubCommands) -> None:
    """Register ``translate``: one sentence, its translation and the
    attention behind it."""
    parser = commands.add_parser(
        "translate",
        help="translate a sentence with a saved model and show its "
        "attention",
        description="Translate one English sentence with a checkpoint "
        "written by train --save, and print "
        "the attention weights as a table (rows: the French words "
        "written; columns: the English words "
        "read, <unk> for words the model does not know).",
    )
    parser.add_argument(
        "sentence", help='the English sentence, e.g. "I am cold."'
    )
    _add_model_options(parser)
    parser.add_argument(
        "--unknown",
        choices=UNKNOWN_CHOICES,
        default=UNKNOWN_DEFAULT,
        help="where the model writes <unk>: copy the most attended "
        "English token, as the book's pages do, or keep <unk> "
        "(default: %(default)s)",
    )
    parser.add_argument(
        "--plot",
        metavar="FILE.png",
        default=None,
        help="save the attention heatmap there",
    )
    parser.set_defaults(handler=run_translate)


def attention_table(
    weights: torch.Tensor, source: list[str], target: list[str]
) -> str:
    """A compact text table of attention weights:
    one row per target token, one column per source token.

    Each cell is the weight in hundredths (``.``` for less than 0.05),
    the row's largest marked with ``*``.

    Shape:
        - weights: ``(len(target), len(source))``.
    """
    if tuple(weights.shape) != (len(target), len(source)):
        raise ValueError(
            "weights must have shape (len(target), len(source)) = "
            f"({len(target)}, {len(source)}), "
            f"got {tuple(weights.shape)}"
        )
    width = max(5, *(len(s) for s in source))
    label = max(len(t) for t in target)
    lines = [" " * label + " " + " ".join(s.rjust(width) for s in source)]
    for row, token in zip(weights.tolist(), target, strict=True):
        best = max(range(len(row)), key=row.__getitem__)
        cells = [
            (f"{round(w * 100):d}" if w >= 0.05 else ".")
            + ("*" if j == best else " ")
            for j, w in enumerate(row)
        ]
        lines.append(
            token.ljust(label)
            + " "
            + " ".join(c.rjust(width) for c in cells)
        )
    return "\n".join(lines)


def run_translate(args: argparse.Namespace) -> int:
    """Translate the sentence, print it and its attention table (JSON last
    with ``--json``)."""
    try:
        translator = read_model(args.checkpoint, args.device)
        max_src_len = translator.model.config.max_src_len
        tokens = translator.tokenizer.source(args.sentence)
        if not tokens:
            raise InputError("the sentence has no words to translate")
        if len(tokens) > max_src_len:
            raise InputError(
                f"the sentence has {len(tokens)} tokens, more than the "
                f"{max_src_len} this model "
                "accepts (its max_src_len); shorten the sentence or train "
                "a model with a larger one"
            )
        result = translator.translation(
            tokens, beam_size=args.beam, unknown=args.unknown
        )
    except (InputError, ValueError) as error:
        return _fail(error)
    read_as = [
        UNK if t not in translator.src_vocab or t == UNK else t
        for t in tokens
    ]
    target = list(result.target)
    print(result.text)
    unknown = [t for t in tokens if t not in translator.src_vocab]
    if unknown:
        print(f"unknown to the model (read as {UNK}): {' '.join(unknown)}")
    table = None
    if result.weights is not None:
        rows = [*target, "<eos>"][: result.weights.size(0)]
        columns = [*read_as, "<eos>"]
        table = result.weights[: len(rows), : len(columns)]
        print(attention_table(table, columns, rows))
        if args.plot:
            import matplotlib.pyplot as plt

            from attnbook.book.plotting import attention_heatmap

            attention_heatmap(table, columns, rows, title=args.sentence)
            plt.savefig(args.plot, bbox_inches="tight", dpi=120)
            plt.close("all")
            print(f"heatmap saved to {args.plot}")
    else:
        print(
            "this model has no attention (the no-attention baseline): "
            "there is no table to show"
        )
    if args.json:
        print(
            json.dumps(
                {
                    "source": tokens,
                    "read_as": read_as,
                    "translation": result.text,
                    "tokens": target,
                    "n_unknown": len(unknown),
                    "attention": None
                    if table is None
                    else [
                        [round(w, 4) for w in r] for r in table.tolist()
                    ],
                }
            )
        )
    return 0


# -------------------------------------------------------------------------
# compare-real


def add_compare_command(commands: SubCommands) -> None:
    """Register ``compare-real``: the GRU with attention beside the
    Transformer on the shipped pairs."""
    parser = commands.add_parser(
        "compare-real",
        help="train the GRU with attention and the Transformer on the "
        "shipped pairs, over seeds",
        description="Train the GRU encoder-decoder with Bahdanau "
        "attention and the Transformer on the "
        "shipped Tatoeba pairs with the defaults of train --corpus "
        "tatoeba (the same split, epochs, "
        "batches and learning-rate schedule), once per seed, on the CPU "
        "with one thread; print each run's "
        "held-out BLEU (every reference, and the first only), chrF and "
        "CPU seconds, and how often each "
        "Transformer head looks where the GRU looks.",
    )
    parser.add_argument(
        "--seeds",
        type=int,
        nargs="+",
        default=[0, 1, 2],
        help="default: %(default)s",
    )
    parser.add_argument(
        "--models",
        nargs="+",
        choices=realcompare.COMPARED_MODELS,
        default=list(realcompare.COMPARED_MODELS),
        help="default: both",
    )
    parser.add_argument(
        "--save",
        metavar="PATH",
        default=None,
        help="also write the result as JSON to PATH",
    )
    # one CPU thread, set by the command
    add_run_options(parser, device="cpu", threads=False)
    parser.set_defaults(handler=run_compare)


def run_compare(args: argparse.Namespace) -> int:
    """Train and score every model and seed (one CPU thread), print the
    table; save with ``--save``."""
    if args.device.type != "cpu":
        return _fail(
            ValueError(
                "compare-real measures CPU seconds: it runs on the CPU "
                "only (--device cpu)"
            )
        )
    torch.set_num_threads(1)
    pairs = read_corpus(shipped_path()).pairs
    command = "python -m attnbook compare-real " + " ".join(
        [
            f"--seeds {' '.join(map(str, args.seeds))}",
            f"--models {' '.join(args.models)}",
        ]
    )
    comparison = realcompare.run_comparison(
        pairs,
        models=args.models,
        seeds=args.seeds,
        command=command,
        progress=args.progress,
    )
    print(realcompare.format_comparison(comparison))
    if args.save:
        print(
            "saved to "
            f"{realcompare.save_comparison(comparison, args.save)}"
        )
    if args.json:
        print(json.dumps(comparison.to_dict()))
    return 0
