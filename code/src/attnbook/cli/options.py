"""What every command's parser shares: the help layout, the options of
every command that runs a model (``--device``, ``--threads``, ``--json``,
``--progress``) or records a study (``--seeds``, ``--save``), and the type
of a count given by hand.
"""

from __future__ import annotations

import argparse
from typing import Any, Protocol

DEVICES = ("auto", "cpu", "cuda", "mps")
"""The ``--device`` choices of every command (``auto``: a GPU when there
is one)."""


class HelpFormatter(argparse.HelpFormatter):
    """argparse's help layout, never breaking a line inside a flag
    (``--min-`` / ``delta``)."""

    def _split_lines(self, text: str, width: int) -> list[str]:
        import textwrap

        return textwrap.wrap(
            " ".join(text.split()), width, break_on_hyphens=False
        )

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        import textwrap

        return textwrap.fill(
            " ".join(text.split()),
            width,
            initial_indent=indent,
            subsequent_indent=indent,
            break_on_hyphens=False,
        )


class Parser(argparse.ArgumentParser):
    """An argument parser with :class:`HelpFormatter`, for the program and
    each of its commands."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)


class SubCommands(Protocol):
    """What a command's ``add_*_command`` function needs:
    the parser's ``add_subparsers()`` object."""

    def add_parser(
        self, name: str, **kwargs: Any
    ) -> argparse.ArgumentParser: ...


def add_run_options(
    parser: argparse.ArgumentParser,
    *,
    device: str = "auto",
    threads: bool = True,
    threads_default: int | None = None,
    progress: bool = True,
) -> None:
    """Add the options every command that runs a model shares:
    ``--device``, ``--threads``, ``--json``, ``--progress`` (``threads``
    and ``progress`` false leave those out).

    ``--threads`` left out means one thread on the CPU
    (:func:`~attnbook.cli.common.torch_threads`), or ``threads_default``.
    """
    parser.add_argument(
        "--device",
        choices=DEVICES,
        default=device,
        help="where to run: auto picks a GPU when there is one "
        "(default: %(default)s)",
    )
    if threads:
        shown = (
            "1 on the CPU, torch's own choice beside a GPU"
            if threads_default is None
            else "%(default)s"
        )
        parser.add_argument(
            "--threads",
            type=positive_int,
            metavar="N",
            default=threads_default,
            help=f"CPU threads for torch (default: {shown})",
        )
    parser.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object on standard output, and the text "
        "report on standard error",
    )
    if progress:
        parser.add_argument(
            "--progress",
            action=argparse.BooleanOptionalAction,
            default=True,
            help="show progress on standard error (default: on)",
        )


def positive_int(text: str) -> int:
    """An argparse type for counts given by hand (``--threads``,
    ``--beam``, ``--steps``): an int of at least 1."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(
            f"must be a positive integer, got {value}"
        )
    return value


# argparse names the type in its "invalid ... value" message
positive_int.__name__ = "positive integer"


def non_negative_float(text: str) -> float:
    """An argparse type for a weight given by hand
    (``--coverage-penalty``): a finite float of at least 0."""
    value = float(text)
    if not 0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(
            f"must be a number of at least 0, got {text}"
        )
    return value


non_negative_float.__name__ = "non-negative number"


def add_study_options(
    parser: argparse.ArgumentParser, *, seeds: bool = True
) -> None:
    """Add what every command that records a study takes: ``--seeds``
    (with ``seeds``) and ``--save``."""
    if seeds:
        parser.add_argument(
            "--seeds",
            type=int,
            nargs="+",
            metavar="SEED",
            default=[0, 1, 2],
            help="one run of each model per seed (default: 0 1 2)",
        )
    parser.add_argument(
        "--save",
        metavar="PATH",
        default=None,
        help="also write the result as JSON to PATH",
    )
