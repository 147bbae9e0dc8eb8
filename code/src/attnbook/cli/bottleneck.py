"""``attnbook bottleneck``: appendix B's study of the bottleneck, the
attention model beside the no-attention baselines, each trained until
early stopping ends it (see :mod:`attnbook.studies.bottleneck`).

Example::

    attnbook bottleneck --seeds 0 --sizes 128 --save study.json
"""

from __future__ import annotations

import argparse

from attnbook.cli.common import (
    InputError,
    check_output_paths,
    fail,
    report,
)
from attnbook.cli.options import (
    SubCommands,
    add_run_options,
    add_study_options,
    positive_int,
)
from attnbook.studies import bottleneck


def add_bottleneck_command(commands: SubCommands) -> None:
    """Register ``bottleneck``."""
    parser = commands.add_parser(
        "bottleneck",
        help="train the attention model and the no-attention baselines "
        "until early stopping ends them",
        description="Train chapter 6's attention model and its "
        "no-attention baseline at several sizes and "
        "with the source reversed, each until early stopping ends it "
        "(halving the learning rate twice "
        "first), once per seed, each model on one CPU thread; print a "
        "table of their held-out scores. The default study takes about "
        "half an hour on 2 CPU cores.",
    )
    parser.add_argument(
        "--sizes",
        type=positive_int,
        nargs="+",
        metavar="N",
        default=[64, 128, 256],
        help="the baselines' hidden sizes (default: 64 128 256)",
    )
    parser.add_argument(
        "--reversed-sizes",
        type=positive_int,
        nargs="*",
        metavar="N",
        default=[128],
        help="the hidden sizes of the baselines that read the source "
        "backwards (default: 128)",
    )
    # one CPU thread per model, set by the study
    add_run_options(parser, device="cpu", threads=False)
    parser.add_argument(
        "--workers",
        type=positive_int,
        metavar="N",
        default=2,
        help="models trained at once (default: %(default)s)",
    )
    add_study_options(parser)
    parser.set_defaults(handler=run_bottleneck_command)


def run_bottleneck_command(args: argparse.Namespace) -> int:
    """Run the study (one CPU thread per model), print its table;
    save with ``--save``."""
    try:
        check_output_paths(args, "--save")
    except InputError as error:
        return fail(error)
    models = bottleneck.study_models(args.sizes, args.reversed_sizes)
    study = bottleneck.run_study(
        models=models,
        seeds=args.seeds,
        device=args.device,
        workers=args.workers,
        progress=args.progress,
    )
    saved = study.save(args.save) if args.save else None
    return report(
        args, bottleneck.format_study(study), study.to_dict(), saved
    )
