r"""The package's command line, ``attnbook`` (or ``python -m attnbook``):
one module per command, and this one building the parser and running the
command asked for.

- ``train`` (:mod:`attnbook.cli.train`): train a model on the toy grammar
  or, with ``--corpus``, on real pairs, and print its held-out scores;
- ``evaluate`` and ``translate`` (:mod:`attnbook.cli.evaluate`,
  :mod:`attnbook.cli.translate`): use a saved model;
- ``bottleneck`` (:mod:`attnbook.cli.bottleneck`): chapter 6's models
  trained until they stop, over several seeds;
- ``subwords`` (:mod:`attnbook.cli.subwords`): words against subword
  pieces on real sentences;
- ``compare-real`` (:mod:`attnbook.cli.compare`): the GRU beside the
  Transformer on real sentences;
- ``bench`` (:mod:`attnbook.benchmark.bench`): the cost of attention.

Every command runs on one CPU thread unless ``--threads`` says otherwise,
checks its output paths before it starts, shows progress on standard
error, and with ``--json`` prints JSON only on standard output.

Examples::

    attnbook train --attention none --json
    attnbook translate "I am hungry."
    attnbook translate --input sentences.txt | head -1
    attnbook bench --quick --json
"""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import sys
from collections.abc import Sequence

from attnbook.cli.bench import add_bench_command
from attnbook.cli.bottleneck import add_bottleneck_command
from attnbook.cli.common import fail, torch_threads
from attnbook.cli.compare import add_compare_command
from attnbook.cli.evaluate import add_evaluate_command
from attnbook.cli.options import Parser
from attnbook.cli.subwords import add_subwords_command
from attnbook.cli.train import add_train_command
from attnbook.cli.translate import add_translate_command
from attnbook.core.runtime import get_device

PROGRAM = "attnbook"
"""The command's name in its help (``python -m attnbook`` runs the
same)."""

SIGPIPE_STATUS = 141
"""The exit status of a command whose reader went away (``| head``):
128 + SIGPIPE, as a shell reports a program that signal ended."""


def version() -> str:
    """The installed package's version, from its metadata."""
    try:
        return importlib.metadata.version("attnbook")
    except importlib.metadata.PackageNotFoundError:
        return "(version unknown: the package is not installed)"


def build_parser() -> argparse.ArgumentParser:
    """The argument parser, one subcommand per task."""
    parser = Parser(
        prog=PROGRAM,
        description="The code behind 'Attention, executed': train, "
        "evaluate and use its translation models, and measure attention. "
        "'attnbook COMMAND --help' describes each command.",
    )
    parser.add_argument(
        "--version", action="version", version=f"%(prog)s {version()}"
    )
    commands = parser.add_subparsers(
        dest="command",
        required=True,
        metavar="COMMAND",
        parser_class=Parser,
    )
    add_train_command(commands)
    add_bottleneck_command(commands)
    add_bench_command(commands)
    add_evaluate_command(commands)
    add_translate_command(commands)
    add_compare_command(commands)
    add_subwords_command(commands)
    return parser


def _device_error(asked: str) -> str:
    return (
        f"--device {asked}: this machine has no {asked.upper()} device "
        "that torch can use; use --device cpu, or auto to pick what there "
        "is"
    )


def _quiet_stdout() -> None:
    """Send what is left for standard output to the null device, so that
    Python's flush at exit raises no second ``BrokenPipeError``."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):
        return  # not a real file (a test's capture)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)


def main(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv`` (default: the process's arguments) and run the
    chosen command; return its exit status (2 for bad input)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    args = build_parser().parse_args(argv)
    args.argv = argv  # what a record says made it
    # every command takes --device; resolve it once, so a missing GPU is
    # one clear error
    try:
        args.device = get_device(args.device)
    except RuntimeError:
        return fail(RuntimeError(_device_error(args.device)))
    try:
        with torch_threads(args):
            return args.handler(args)
    except BrokenPipeError:
        # the reader of standard output went away (``| head -1``)
        _quiet_stdout()
        return SIGPIPE_STATUS


if __name__ == "__main__":
    sys.exit(main())
