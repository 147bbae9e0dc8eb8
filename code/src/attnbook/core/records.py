"""Recorded runs: where and when a run happened, their JSON, and the
files the package ships.

A recorded run (a study of trained models, a benchmark result) is a
dataclass that derives from :class:`Record`: its JSON is read from and
written to its fields (:meth:`Record.to_dict`, :meth:`Record.from_dict`),
nested dataclasses, tuples, dictionaries and optional fields included,
and it saves, loads and finds its shipped file in one way
(:meth:`Record.save`, :meth:`Record.load`, :meth:`Record.packaged`).
:func:`package_file` is the one way the package reads its own data files
(the Tatoeba pairs, the recorded runs), and it works from a zipped
install too.

>>> env = environment(torch.device("cpu"), threads=1)
>>> env.device, env.threads
('cpu', 1)
>>> package_file("tatoeba-eng-fra-short.txt").is_file()
True
>>> @dataclass(frozen=True)
... class Curve(Record):
...     steps: tuple[int, ...]
...     losses: dict[str, float]
...     where: Environment | None = None
>>> Curve.from_dict({"steps": [10, 20], "losses": {"val": 0.5}})
Curve(steps=(10, 20), losses={'val': 0.5}, where=None)
>>> Curve((10,), {}).to_dict()
{'steps': [10], 'losses': {}, 'where': None}
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as _dt
import json
import os
import platform
import statistics
import types
import typing
from collections.abc import Callable, Hashable, Iterator, Sequence
from dataclasses import dataclass
from importlib import resources
from importlib.abc import Traversable
from pathlib import Path
from typing import Any, ClassVar, Protocol, TypeVar

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


R = TypeVar("R", bound="Record")


class SeededRun(Protocol):
    """A run of a study: what it compared (a model, a choice), and its
    seed."""

    @property
    def seed(self) -> int: ...


Run = TypeVar("Run", bound=SeededRun)


class SeededRuns(typing.Generic[Run]):
    """What a study's record offers that ran each compared thing (a
    model, a choice) once per seed: its seeds, and one thing's runs.

    A subclass is a :class:`Record` with a field ``runs``; it names the
    field of its runs that says which thing each ran (``BY``).
    """

    BY: ClassVar[str]
    runs: tuple[Run, ...]

    @property
    def seeds(self) -> list[int]:
        """The seeds of the runs, in order, each once."""
        return sorted({run.seed for run in self.runs})

    def runs_of(self, thing: Hashable) -> list[Run]:
        """The runs of ``thing`` (their ``BY`` field), in seed order."""
        return sorted(
            (run for run in self.runs if getattr(run, self.BY) == thing),
            key=lambda run: run.seed,
        )


def to_plain(value: Any) -> Any:
    """``value`` as JSON's values: a record as its :meth:`Record.to_dict`,
    another dataclass as a dictionary of its fields, a tuple as a list;
    numbers, strings and ``None`` as they are."""
    if isinstance(value, Record):
        return value.to_dict()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {
            field.name: to_plain(getattr(value, field.name))
            for field in dataclasses.fields(value)
        }
    if isinstance(value, tuple | list):
        return [to_plain(item) for item in value]
    if isinstance(value, dict):
        return {key: to_plain(item) for key, item in value.items()}
    return value


def from_plain(kind: Any, value: Any) -> Any:
    """JSON's ``value`` read back as the type ``kind`` says: a dataclass
    from its fields (a record by its :meth:`Record.from_dict`), a tuple
    from a list, ``X | None`` as ``None`` or an ``X``.

    Raises:
        TypeError: ``value`` is not of that type, or ``kind`` is a union
            of two types that its values cannot tell apart.
    """
    origin, arguments = typing.get_origin(kind), typing.get_args(kind)
    if kind is Any:
        return value
    if origin in (types.UnionType, typing.Union):
        others = [a for a in arguments if a is not type(None)]
        if value is None and len(others) < len(arguments):
            return None
        if len(others) != 1:
            raise TypeError(f"cannot tell which of {kind} {value!r} is")
        return from_plain(others[0], value)
    if isinstance(kind, type) and issubclass(kind, Record):
        return kind.from_dict(value)
    if dataclasses.is_dataclass(kind):
        return _from_fields(kind, value)
    if origin is tuple:
        _expect(value, list, kind)
        if len(arguments) == 2 and arguments[1] is Ellipsis:
            return tuple(from_plain(arguments[0], v) for v in value)
        if len(arguments) != len(value):
            raise TypeError(f"{value!r} is not a {kind}")
        return tuple(
            from_plain(a, v) for a, v in zip(arguments, value, strict=True)
        )
    if origin is list:
        _expect(value, list, kind)
        return [from_plain(arguments[0], v) for v in value]
    if origin is dict:
        _expect(value, dict, kind)
        return {k: from_plain(arguments[1], v) for k, v in value.items()}
    # a float may be written as 1 (JSON has one kind of number)
    _expect(value, (int, float) if kind is float else kind, kind)
    return value


def _expect(value: Any, allowed: Any, kind: Any) -> None:
    if not isinstance(value, allowed):
        raise TypeError(f"{value!r} is not a {kind}")


def _from_fields(cls: Any, values: Any) -> Any:
    """A dataclass ``cls`` from a dictionary of its fields; a field the
    dictionary lacks takes its default."""
    _expect(values, dict, cls)
    hints = typing.get_type_hints(cls)
    given = {}
    for field in dataclasses.fields(cls):
        if field.name in values:
            try:
                given[field.name] = from_plain(
                    hints[field.name], values[field.name]
                )
            except TypeError as error:
                raise TypeError(f"{field.name}: {error}") from error
        elif field.default is dataclasses.MISSING and (
            field.default_factory is dataclasses.MISSING
        ):
            raise KeyError(field.name)
    return cls(**given)


class Record:
    """A recorded run: a dataclass whose JSON is its fields'.

    A subclass is a dataclass; it names the file the package ships of it
    (``PACKAGED``, in the ``data`` folder) and what a file of it holds
    (``WHAT``, for the message that refuses another file). A subclass
    whose JSON computes or renames a value writes its own
    :meth:`to_dict` and :meth:`from_dict`, and says why.
    """

    PACKAGED: ClassVar[str] = ""
    WHAT: ClassVar[str] = "a recorded run"

    def to_dict(self) -> dict[str, Any]:
        """The record as JSON's values, field by field."""
        return {
            field.name: to_plain(getattr(self, field.name))
            for field in dataclasses.fields(self)  # type: ignore[arg-type]
        }

    @classmethod
    def from_dict(cls: type[R], values: dict[str, Any]) -> R:
        """A record read back from :meth:`to_dict`'s values (a field they
        lack takes its default).

        Raises:
            KeyError: a field without a default is missing.
            TypeError: a value is not of its field's type.
        """
        record: R = _from_fields(cls, values)
        return record

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the record as indented JSON (creating the folder);
        return the path."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            json.dumps(self.to_dict(), indent=1) + "\n", encoding="utf-8"
        )
        return path

    @classmethod
    def load(cls: type[R], path: str | os.PathLike[str]) -> R:
        """Read a record written by :meth:`save`.

        Raises:
            ValueError: the file is not JSON, or not a record of this kind;
                the message names the file and what it should hold.
        """
        try:
            values = json.loads(Path(path).read_text(encoding="utf-8"))
            return cls.from_dict(values)
        except (ValueError, KeyError, TypeError, AttributeError) as error:
            raise ValueError(
                f"{path}: not {cls.WHAT} ({error})"
            ) from error

    @classmethod
    def packaged(cls: type[R], name: str | None = None) -> R:
        """The record the package ships (``PACKAGED``, or the file
        ``name`` of its ``data`` folder)."""
        with package_path(name or cls.PACKAGED) as path:
            return cls.load(path)


class RecordOfRuns(Protocol):
    """A record of several runs made with one configuration (a study's
    models and seeds)."""

    @property
    def config(self) -> Any: ...

    @property
    def runs(self) -> tuple[Any, ...]: ...


def merged_runs(
    parts: Sequence[RecordOfRuns], key: Callable[[Any], Hashable]
) -> tuple[Any, ...]:
    """The runs of several records made with the same configuration (one
    process per seed, say, side by side), in the parts' order.

    Args:
        parts: the records.
        key: what tells two runs apart (their model and seed, say).

    Raises:
        ValueError: no parts, parts of different configurations, or one
            run in two parts.
    """
    if not parts:
        raise ValueError("parts is empty: nothing to merge")
    if any(part.config != parts[0].config for part in parts):
        raise ValueError(
            "the parts were recorded with different configurations"
        )
    runs = tuple(run for part in parts for run in part.runs)
    keys = [key(run) for run in runs]
    twice = [k for k in dict.fromkeys(keys) if keys.count(k) > 1]
    if twice:
        raise ValueError(f"the run {twice[0]} is recorded in two parts")
    return runs


def mean_sd(values: Sequence[float]) -> tuple[float, float]:
    """The mean of ``values`` and their sample standard deviation (0 for
    one value): how a record's table sums up its seeds.

    >>> mean_sd([1.0, 2.0, 3.0])
    (2.0, 1.0)
    """
    spread = statistics.stdev(values) if len(values) > 1 else 0.0
    return statistics.mean(values), spread


def seed_verdict(
    a: Sequence[float], b: Sequence[float], paired: bool = True
) -> str:
    """The book's one rule for comparing two settings measured over seeds
    ("How to read the measurements" in the book's introduction).

    ``a`` is ahead of ``b`` when its mean is higher by more than the larger
    of the two standard deviations over seeds and, for paired seeds (the
    same seeds, splits and batch orders on both sides), it is higher in
    every pair; behind in the mirror case; otherwise the two tie. Unpaired,
    every value of one must beat every value of the other.

    Returns:
        ``"ahead"``, ``"behind"`` or ``"tie"``: where ``a`` stands.

    >>> seed_verdict([36.1, 36.4, 35.9], [34.0, 34.6, 34.2])
    'ahead'
    >>> seed_verdict([36.1, 36.4, 35.9], [35.8, 36.6, 35.7])
    'tie'
    """
    if len(a) != len(b) and paired:
        raise ValueError(
            f"paired seeds need as many values on each side, not "
            f"{len(a)} and {len(b)}"
        )
    if not a or not b:
        raise ValueError("no seeds to compare")
    (mean_a, sd_a), (mean_b, sd_b) = mean_sd(a), mean_sd(b)
    if paired:
        wins = [x > y for x, y in zip(a, b, strict=True)]
        losses = [x < y for x, y in zip(a, b, strict=True)]
    else:
        wins = [min(a) > max(b)]
        losses = [max(a) < min(b)]
    spread = max(sd_a, sd_b)
    if mean_a - mean_b > spread and all(wins):
        return "ahead"
    if mean_b - mean_a > spread and all(losses):
        return "behind"
    return "tie"


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
