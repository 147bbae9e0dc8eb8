"""Timing code honestly on a shared machine:
warm-up, interleaved repeats, medians, CUDA synchronisation.

>>> from attnbook.benchmark.timing import time_interleaved
>>> import torch
>>> timings = time_interleaved(
...     {"sum": lambda: sum(range(100)), "max": lambda: max(range(100))},
...     torch.device("cpu"),
...     repeats=3,
... )
>>> sorted(timings), len(timings["sum"].times)
(['max', 'sum'], 3)
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import torch

try:
    import resource  # Unix only: counts page faults
except ImportError:  # pragma: no cover (Windows)
    resource = None


@dataclass(frozen=True)
class Timing:
    """The timed repeats of one variant: wall-clock seconds and minor page
    faults, one entry per repeat.

    ``page_faults`` counts the process's minor page faults during each call
    (memory the operating system had to map in, e.g. a freed buffer that
    the allocator returned and the next call asked for again);
    ``None`` where :mod:`resource` is unavailable.
    """

    times: tuple[float, ...]
    page_faults: tuple[int, ...] | None = None

    @property
    def median(self) -> float:
        return statistics.median(self.times)

    @property
    def median_page_faults(self) -> float | None:
        return (
            None
            if self.page_faults is None
            else statistics.median(self.page_faults)
        )


def _minor_page_faults() -> int | None:
    if resource is None:
        return None
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def _synchronize(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def time_interleaved(
    fns: Mapping[str, Callable[[], object]],
    device: torch.device,
    repeats: int,
    warmup: int = 1,
) -> dict[str, Timing]:
    """Time several variants side by side: ``warmup`` untimed calls each,
    then ``repeats`` rounds.

    In each round every variant runs once;
    the order alternates (forward, then backward) so that none always
    runs first. On CUDA the device is synchronised around each call.
    The minor page faults of each call are counted too (outside the
    timed interval).

    Returns:
        One :class:`Timing` per name of ``fns``.
    """
    if repeats < 1:
        raise ValueError(f"repeats must be at least 1, got {repeats}")
    names = list(fns)
    for _ in range(warmup):
        for name in names:
            fns[name]()
    times: dict[str, list[float]] = {name: [] for name in names}
    faults: dict[str, list[int]] = {name: [] for name in names}
    for round_number in range(repeats):
        for name in names if round_number % 2 == 0 else reversed(names):
            _synchronize(device)
            faults_before = _minor_page_faults()
            start = time.perf_counter()
            fns[name]()
            _synchronize(device)
            times[name].append(time.perf_counter() - start)
            faults_after = _minor_page_faults()
            if faults_before is not None and faults_after is not None:
                faults[name].append(faults_after - faults_before)
    return {
        name: Timing(
            tuple(times[name]),
            tuple(faults[name]) if faults[name] else None,
        )
        for name in names
    }


def peak_cuda_bytes(
    fn: Callable[[], object], device: torch.device
) -> int | None:
    """Peak CUDA memory allocated by one call of ``fn`` beyond what was
    allocated before it; None off CUDA."""
    if device.type != "cuda":
        return None
    _synchronize(device)
    torch.cuda.reset_peak_memory_stats(device)
    before = torch.cuda.memory_allocated(device)
    output = fn()
    _synchronize(device)
    peak = torch.cuda.max_memory_allocated(device) - before
    del output
    return int(peak)
