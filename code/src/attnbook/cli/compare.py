"""``attnbook compare-real``: the GRU with attention beside the
Transformer on the shipped pairs, over seeds (see
:mod:`attnbook.studies.realcompare`).

Example::

    attnbook compare-real --seeds 0 --save compare.json
"""

from __future__ import annotations

import argparse

from attnbook.cli.common import (
    InputError,
    check_output_paths,
    fail,
    report,
)
from attnbook.cli.inputs import read_corpus
from attnbook.cli.options import (
    SubCommands,
    add_run_options,
    add_study_options,
)
from attnbook.nmt.corpus import shipped_path
from attnbook.studies import realcompare


def add_compare_command(commands: SubCommands) -> None:
    """Register ``compare-real``."""
    parser = commands.add_parser(
        "compare-real",
        help="train the GRU with attention and the Transformer on the "
        "shipped pairs, over seeds",
        description="Train the GRU encoder-decoder with Bahdanau "
        "attention and the Transformer on the "
        "shipped Tatoeba pairs with the defaults of train --corpus "
        "tatoeba --model seq2seq (the same split, epochs, "
        "batches and learning-rate schedule), once per seed, on the CPU "
        "with one thread; print each run's "
        "held-out BLEU (every reference, and the first only), chrF and "
        "CPU seconds, and how often each "
        "Transformer head looks where the GRU looks.",
    )
    parser.add_argument(
        "--models",
        nargs="+",
        choices=realcompare.COMPARED_MODELS,
        default=list(realcompare.COMPARED_MODELS),
        help="default: both",
    )
    add_study_options(parser)
    # one CPU thread, set by the command
    add_run_options(parser, device="cpu", threads=False)
    parser.set_defaults(handler=run_compare)


def run_compare(args: argparse.Namespace) -> int:
    """Train and score every model and seed (one CPU thread), print the
    table; save with ``--save``."""
    try:
        if args.device.type != "cpu":
            raise InputError(
                "compare-real measures CPU seconds: it runs on the CPU "
                "only (--device cpu)"
            )
        check_output_paths(args, "--save")
    except InputError as error:
        return fail(error)
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
    saved = comparison.save(args.save) if args.save else None
    return report(
        args,
        realcompare.format_comparison(comparison),
        comparison.to_dict(),
        saved,
    )
