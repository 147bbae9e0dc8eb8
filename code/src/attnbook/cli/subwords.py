"""``attnbook subwords``: the recorded comparison of words and subword
pieces on the shipped pairs, once per seed (see
:mod:`attnbook.studies.units`).

Example::

    attnbook subwords --subwords 2000 --save record.json
"""

from __future__ import annotations

import argparse
from dataclasses import replace

from attnbook.cli.common import (
    InputError,
    check_input_file,
    check_output_paths,
    command_line,
    fail,
    report,
)
from attnbook.cli.inputs import read_corpus
from attnbook.cli.options import (
    SubCommands,
    add_run_options,
    add_study_options,
    positive_int,
)
from attnbook.nmt.corpus import shipped_path
from attnbook.studies.realdata import RealConfig
from attnbook.studies.units import (
    UnitsComparison,
    compare_units,
    format_units_comparison,
    merge_units_comparisons,
)


def add_subwords_command(commands: SubCommands) -> None:
    """Register ``subwords``: the word-level model and the pieces model,
    once per seed (the record the real-sentences chapter shows)."""
    parser = commands.add_parser(
        "subwords",
        help="train the GRU's real-sentence run over words and over "
        "pieces, once per seed",
        description="Train the GRU's 'train --corpus tatoeba --model "
        "seq2seq' run over whole words and over subword "
        "pieces, once per seed, one after the other, and print their "
        "held-out BLEU (every reference and "
        "the first one), chrF and training seconds. Three seeds take "
        "about 15 minutes on 2 CPU cores.",
    )
    parser.add_argument(
        "--subwords",
        type=positive_int,
        metavar="N",
        default=2000,
        help="pieces per language (default: %(default)s)",
    )
    parser.add_argument(
        "--epochs",
        type=positive_int,
        metavar="N",
        default=None,
        help="epochs of every run (default: the default run's 5)",
    )
    parser.add_argument(
        "--beam",
        type=positive_int,
        metavar="N",
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
    add_study_options(parser)
    parser.set_defaults(handler=run_subwords_command)


def run_subwords_command(args: argparse.Namespace) -> int:
    """Run the comparison, print its table; save it with ``--save``."""
    base = RealConfig()
    if args.epochs is not None:
        base = replace(
            base, train=replace(base.train, max_epochs=args.epochs)
        )
    if args.beam is not None:
        base = replace(base, beam_size=args.beam)
    try:
        check_output_paths(args, "--save")
        if args.merge:
            parts = [
                UnitsComparison.load(check_input_file(path, "--merge"))
                for path in args.merge
            ]
            comparison = merge_units_comparisons(
                parts, command_line(args, [p.command for p in parts])
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
            comparison = replace(comparison, command=command_line(args))
    except (InputError, ValueError, OSError) as error:
        return fail(error)
    saved = comparison.save(args.save) if args.save else None
    return report(
        args,
        format_units_comparison(comparison),
        comparison.to_dict(),
        saved,
    )
