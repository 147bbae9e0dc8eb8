"""What every command shares: one-line errors, one CPU thread by default,
files checked before any work starts, and text kept off standard output
when ``--json`` asks for JSON there.

>>> def refusal(path):
...     try:
...         check_output_path(path, "--save")
...     except InputError as error:
...         return str(error)
>>> refusal(".")
'--save .: is a directory; give the name of a file to write'
>>> refusal("no/such/dir/model.pt")
'--save no/such/dir/model.pt: no directory no/such/dir; create it first'
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, TextIO


class InputError(Exception):
    """Bad input the command line reports in one line (exit status 2)
    instead of a traceback."""


def fail(error: Exception) -> int:
    """Print ``error`` as one ``error:`` line on stderr; return the exit
    status of bad input, 2."""
    print(f"error: {error}", file=sys.stderr)
    return 2


def check_input_file(path: str | Path, flag: str = "") -> Path:
    """``path`` as a :class:`~pathlib.Path`, once it is known to be a file
    that can be read.

    Raises:
        InputError: it is missing, a folder, or unreadable; the message
            names ``flag`` (e.g. ``"--checkpoint"``) and the path.
    """
    path = Path(path)
    where = f"{flag} {path}" if flag else str(path)
    if path.is_dir():
        raise InputError(f"{where}: is a directory, not a file")
    if not path.exists():
        raise InputError(f"{where}: no such file")
    if not os.access(path, os.R_OK):
        raise InputError(f"{where}: cannot read it (Permission denied)")
    return path


def check_output_path(path: str | Path, flag: str) -> Path:
    """``path`` as a :class:`~pathlib.Path`, once a file can be written
    there: called before training, so a bad path ends the command at once
    instead of after the whole run.

    Writing is tried (a file that was not there is created and removed
    again), so a folder without permission or a read-only disk is caught
    too.

    Raises:
        InputError: the path is a folder, its folder is missing or is a
            file, or the file cannot be written.
    """
    path = Path(path)
    where = f"{flag} {path}"
    if path.is_dir():
        raise InputError(
            f"{where}: is a directory; give the name of a file to write"
        )
    folder = path.parent
    if not folder.exists():
        raise InputError(
            f"{where}: no directory {folder}; create it first"
        )
    if not folder.is_dir():
        raise InputError(f"{where}: {folder} is a file, not a directory")
    existed = path.exists()
    try:
        # append nothing to a file that is there; create and remove one
        # that is not
        with path.open("ab" if existed else "xb"):
            pass
    except OSError as error:
        raise InputError(
            f"{where}: cannot write there ({error.strerror})"
        ) from None
    if not existed:
        path.unlink()
    return path


def check_output_paths(args: argparse.Namespace, *flags: str) -> None:
    """Check every output path among ``flags`` (e.g. ``"--save"``) that the
    command line gave (see :func:`check_output_path`).

    Raises:
        InputError: the first that cannot be written.
    """
    for flag in flags:
        path = getattr(args, flag.lstrip("-").replace("-", "_"), None)
        if path:
            check_output_path(path, flag)


@contextlib.contextmanager
def torch_threads(args: argparse.Namespace) -> Iterator[None]:
    """Run a command on ``--threads`` CPU threads, by default one on the
    CPU (as every chapter does), and restore torch's count afterwards.

    The book's models are small: each step is many small operations,
    which a second thread hardly speeds up, and which wait for a
    descheduled thread whenever other work shares the machine. Beside a
    GPU, with no ``--threads``, torch keeps its own choice.
    """
    import torch

    threads = getattr(args, "threads", None)
    device = getattr(args, "device", None)
    if threads is None and getattr(device, "type", "cpu") == "cpu":
        threads = 1
    before = torch.get_num_threads()
    if threads is not None:
        torch.set_num_threads(threads)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def text_out(args: argparse.Namespace) -> TextIO:
    """Where a command prints its text report: standard output, or with
    ``--json`` standard error, so that standard output holds JSON only."""
    return sys.stderr if getattr(args, "json", False) else sys.stdout


def print_json(value: Any) -> None:
    """Print ``value`` as one line of JSON on standard output."""
    print(json.dumps(value), flush=True)


def command_line(
    args: argparse.Namespace, commands: Sequence[str] = ()
) -> str:
    """The command lines that made a record, ``;``-separated: ``commands``,
    then this one (``args.argv``, what :func:`~attnbook.cli.main.main`
    parsed), with the folders of the JSON files left out (they name the
    machine it ran on, not how to run it)."""
    this = getattr(args, "argv", sys.argv[1:])
    lines = [*commands, " ".join(["python -m attnbook", *this])]
    return re.sub(r"\S*/([^/\s]+\.json)", r"\1", " ; ".join(lines))


def case(summary: dict[str, object]) -> str:
    """Whether a summary's scores tell case: the signature says
    ``case:mixed`` for lower-cased text too."""
    return (
        "cased text"
        if summary["cased"]
        else "lower-cased text: the scores ignore case"
    )


def report(
    args: argparse.Namespace,
    text: str,
    value: dict[str, Any],
    saved: Path | None = None,
) -> int:
    """Print a command's ``text`` report (and where it ``saved`` its
    result), then, with ``--json``, ``value`` as JSON; return 0."""
    out = text_out(args)
    print(text, file=out)
    if saved is not None:
        print(f"saved to {saved}", file=out)
    if args.json:
        print_json(value)
    return 0
