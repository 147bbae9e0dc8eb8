"""Recorded runs: where and when a run happened, saving it as JSON,
and the files the package ships.

A benchmark result and a study (:mod:`attnbook.benchmark`,
:mod:`attnbook.studies.bottleneck`) are both recorded runs:
each carries an :class:`Environment` and writes itself with ``to_dict()``,
which :func:`save_result` stores as JSON. :func:`package_file` is the one
way the package reads its own data files (the Tatoeba pairs,
the recorded runs), and it works from a zipped install too.

>>> env = environment(torch.device("cpu"), threads=1)
>>> env.device, env.threads
('cpu', 1)
>>> package_file("tatoeba-eng-fra-short.txt").is_file()
True
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
import os
import platform
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from importlib import resources
from importlib.abc import Traversable
from pathlib import Path
from typing import Any, Protocol, TypeVar

import torch


@dataclass(frozen=True)
class Environment:
    """Where and when a run happened."""

    date: str
    device: str
    device_name: str
    threads: int
    cpu_count: int | None
    load_average: list[float] | None
    torch: str
    cuda: str | None
    python: str
    platform: str
    dtype: str = "float32"


def _device_name(device: torch.device) -> str:
    if device.type == "cuda":
        return torch.cuda.get_device_name(device)
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
            for line in cpuinfo:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


def load_average() -> list[float] | None:
    """The machine's 1, 5 and 15 minute load averages, rounded,
    or None where the system has none."""
    try:
        return [round(value, 2) for value in os.getloadavg()]
    except (AttributeError, OSError):
        return None


def environment(device: torch.device, threads: int) -> Environment:
    """Where and when a run happens: date, device, versions, threads,
    CPU count and load."""
    return Environment(
        date=_dt.datetime.now(_dt.timezone.utc).isoformat(
            timespec="seconds"
        ),
        device=device.type,
        device_name=_device_name(device),
        threads=threads,
        cpu_count=os.cpu_count(),
        load_average=load_average(),
        torch=torch.__version__,
        cuda=torch.version.cuda,
        python=platform.python_version(),
        platform=platform.platform(),
    )


T = TypeVar("T")


class RecordedRun(Protocol):
    """A run that can be recorded: a benchmark result, or a study of
    trained models."""

    def to_dict(self) -> dict[str, Any]: ...


def save_result(result: RecordedRun, path: str | os.PathLike[str]) -> Path:
    """Write a recorded run's ``to_dict()`` as indented JSON (creating the
    folder); return the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        json.dumps(result.to_dict(), indent=1) + "\n", encoding="utf-8"
    )
    return path


def load_result(
    from_dict: Callable[[dict[str, Any]], T],
    path: str | os.PathLike[str],
    what: str,
) -> T:
    """Read a run written by :func:`save_result` back with its class's
    ``from_dict``.

    Raises:
        ValueError: the file is not JSON, or not a record of this kind;
            the message names the file and ``what`` it should hold.
    """
    try:
        return from_dict(
            json.loads(Path(path).read_text(encoding="utf-8"))
        )
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        raise ValueError(f"{path}: not {what} ({error})") from error


def package_file(name: str) -> Traversable:
    """A file in the package's ``data`` folder (it may not exist: check
    ``.is_file()``)."""
    return resources.files("attnbook") / "data" / name


@contextlib.contextmanager
def package_path(name: str) -> Iterator[Path]:
    """A real path to a file of the package's ``data`` folder while the
    ``with`` block runs.

    From a zipped install the file is copied out for the block's duration;
    from a folder it is the file.
    """
    with resources.as_file(package_file(name)) as path:
        yield path
