"""``attnbook bench``: the cost of attention, measured (see
:mod:`attnbook.benchmark.bench` and appendix A).

Example::

    attnbook bench --quick --json
"""

from __future__ import annotations

import argparse

from attnbook.benchmark import bench
from attnbook.benchmark.bench_grids import GRIDS, default_grid
from attnbook.benchmark.bench_report import format_report
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
)


def add_bench_command(commands: SubCommands) -> None:
    """Register ``bench``."""
    parser = commands.add_parser(
        "bench",
        help="measure the time and memory of attention against sequence "
        "length",
        description="Time the package's scaled dot-product attention "
        "against PyTorch's fused "
        "scaled_dot_product_attention and a naive loop over a grid of "
        "lengths, and Bahdanau decoding with "
        "the keys projected once against every step. Medians of "
        "interleaved repeats.",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="the small grid (under a minute on 2 CPU cores)",
    )
    add_run_options(parser, threads_default=1)
    add_study_options(parser, seeds=False)
    parser.add_argument(
        "--grid",
        choices=sorted(GRIDS),
        default=None,
        help=argparse.SUPPRESS,
    )
    parser.set_defaults(handler=run_bench_command)


def run_bench_command(args: argparse.Namespace) -> int:
    """Run the benchmark, print the table (``--json``: the result as JSON
    on standard output); save with ``--save``."""
    try:
        check_output_paths(args, "--save")
    except InputError as error:
        return fail(error)
    device = args.device  # resolved by main()
    grid = (
        GRIDS[args.grid] if args.grid else default_grid(args.quick, device)
    )
    result = bench.run_benchmark(
        grid, device=device, threads=args.threads, progress=args.progress
    )
    saved = result.save(args.save) if args.save else None
    return report(args, format_report(result), result.to_dict(), saved)
