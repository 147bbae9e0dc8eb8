"""The cost of attention, measured: time and memory against sequence length, side by side.

``python -m attnbook bench`` runs three measurements in one process and reports medians of interleaved
repeats (every variant runs once per repeat, in alternating order, so a burst of load on a shared machine
hits all of them alike):

1. **A grid of target and source lengths.** At each ``(tgt_len, src_len)`` the package's
   :class:`~attnbook.ScaledDotProductAttention` (which returns the weights), PyTorch's
   :func:`torch.nn.functional.scaled_dot_product_attention` ("SDPA", which returns only the context; called
   with a head axis so that its fused kernels can run, see :func:`sdpa_context`) and a naive loop over
   target positions (:func:`naive_attention`) run on the same inputs. On CUDA the peak
   memory of each is measured with :func:`torch.cuda.max_memory_allocated`; everywhere the size of the
   weight tensor is computed (:func:`attention_weight_bytes`).
2. **The headline ratio** ``sdpa_ratio``: package time / SDPA time at ``B=32, T=S=128, d=64`` (SDPA
   without a head axis, ``sdpa_3d``, is timed there too).
3. **Projecting the keys once** ``precompute_speedup``: a Bahdanau decoder of ``T=30`` steps over ``S=100``
   source positions, calling :class:`~attnbook.BahdanauAttention` without ``projected_keys`` (the keys are
   re-projected at every step, as the outline's module does) against :meth:`~attnbook.BahdanauAttention.
   project_keys` once and ``projected_keys=`` at every step.

Everything here returns data; :func:`format_report` turns a result into text, and only the command line
(``python -m attnbook bench``, in :mod:`attnbook.__main__`) prints.

.. code-block:: python

    from attnbook.bench import run_benchmark, format_report

    result = run_benchmark("quick", device="cpu", threads=1)
    result["sdpa_ratio"], result["precompute_speedup"]
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import torch
import torch.nn.functional as F
from torch import Tensor

from attnbook.attention import BahdanauAttention, ScaledDotProductAttention
from attnbook.checks import CheckResult
from attnbook.runtime import get_device

try:
    import resource  # Unix only: counts page faults
except ImportError:  # pragma: no cover (Windows)
    resource = None

VARIANTS = ("package", "sdpa", "naive")
"""The three implementations timed on the grid, in the order they are reported."""

SDPA_RATIO_TARGET = 1.3
"""The issue's target: the package at most this many times slower than SDPA at B=32, T=S=128, d=64."""

PRECOMPUTE_SPEEDUP_TARGET = 2.0
"""The issue's target: projecting the keys once at least this many times faster over T=30 steps."""


@dataclass(frozen=True)
class BenchGrid:
    """What to measure and how often.

    Attributes:
        name: the preset's name, recorded in the result.
        batch: batch size ``B`` on the length grid.
        dim: key, query and value size ``d`` on the length grid.
        tgt_lens: target lengths ``T`` of the grid.
        src_lens: source lengths ``S`` of the grid; every ``(T, S)`` pair is measured.
        repeats: timed repeats per grid point (the median is reported).
        warmup: untimed calls per variant before the repeats.
        ratio_repeats: repeats of the ``sdpa_ratio`` measurement.
        ratio_warmup: untimed calls per variant before them.
        precompute_repeats: repeats of the ``precompute_speedup`` measurement.
        naive_max_tgt_len: skip the naive loop (report ``None``) above this target length.
    """

    name: str
    batch: int
    dim: int
    tgt_lens: tuple[int, ...]
    src_lens: tuple[int, ...]
    repeats: int
    warmup: int = 1
    ratio_repeats: int = 15
    ratio_warmup: int = 3
    precompute_repeats: int = 7
    naive_max_tgt_len: int | None = None


GRIDS: dict[str, BenchGrid] = {
    "tiny": BenchGrid("tiny", 2, 8, (4, 8), (4, 8, 16), repeats=3, ratio_repeats=3, precompute_repeats=3),
    "quick": BenchGrid(
        "quick",
        4,
        64,
        (64, 128, 256, 512, 1024),
        (64, 128, 256, 512, 1024),
        repeats=5,
        ratio_repeats=25,
        precompute_repeats=9,
    ),
    "full": BenchGrid(
        "full",
        8,
        64,
        (64, 128, 256, 512, 1024, 2048),
        (64, 128, 256, 512, 1024, 2048),
        repeats=7,
        ratio_repeats=31,
        precompute_repeats=11,
    ),
    "cuda": BenchGrid(
        "cuda",
        8,
        64,
        (128, 512, 2048, 8192),
        (128, 256, 512, 1024, 2048, 4096, 8192),
        repeats=11,
        ratio_repeats=51,
        precompute_repeats=15,
        naive_max_tgt_len=2048,
    ),
}
"""Presets: ``tiny`` for tests, ``quick`` for CI (under a minute on two CPU cores), ``full`` for a CPU,
``cuda`` for a GPU."""


def default_grid(quick: bool, device: torch.device) -> BenchGrid:
    """``quick`` when asked; otherwise ``cuda`` on a GPU and ``full`` elsewhere."""
    if quick:
        return GRIDS["quick"]
    return GRIDS["cuda"] if device.type == "cuda" else GRIDS["full"]


# --- the three implementations --------------------------------------------------------------------------


def naive_attention(query: Tensor, keys: Tensor, values: Tensor | None = None) -> tuple[Tensor, Tensor]:
    r"""Scaled dot-product attention one target position at a time: the oracle with a Python loop.

    For each target step ``i`` it scores every key, :math:`e_{ij} = q_i^\top k_j / \sqrt{d}`, takes the
    softmax over ``j`` and averages the values. No mask.

    Args:
        query: ``(batch, tgt_len, d)``.
        keys: ``(batch, src_len, d)``.
        values: ``(batch, src_len, value_dim)``; ``None`` uses ``keys``.

    Returns:
        ``context`` ``(batch, tgt_len, value_dim)`` and ``attn_weights`` ``(batch, tgt_len, src_len)``.
    """
    values = keys if values is None else values
    scale = 1.0 / math.sqrt(keys.shape[-1])
    contexts, weight_rows = [], []
    for step in range(query.shape[1]):
        scores = torch.bmm(keys, query[:, step].unsqueeze(-1)).squeeze(-1) * scale  # (batch, src_len)
        weights = torch.softmax(scores, dim=-1)
        contexts.append(torch.bmm(weights.unsqueeze(1), values).squeeze(1))  # (batch, value_dim)
        weight_rows.append(weights)
    return torch.stack(contexts, dim=1), torch.stack(weight_rows, dim=1)


def sdpa_context(query: Tensor, keys: Tensor, values: Tensor | None = None, head_axis: bool = True) -> Tensor:
    """PyTorch's :func:`~torch.nn.functional.scaled_dot_product_attention` (SDPA): the context only.

    PyTorch's fused kernels (FlashAttention, memory-efficient attention, and FlashAttention for the CPU)
    take only 4-D ``(batch, heads, length, dim)`` inputs; given 3-D tensors, SDPA runs its unfused "math"
    path. With ``head_axis=True`` (the default) the inputs get a head axis of size one, so a fused kernel
    can run; ``head_axis=False`` passes them as they are.

    Args:
        query: ``(batch, tgt_len, d)``.
        keys: ``(batch, src_len, d)``.
        values: ``(batch, src_len, value_dim)``; ``None`` uses ``keys``.
        head_axis: add a head axis of size one (a view, no copy) before calling SDPA.

    Returns:
        ``context``, ``(batch, tgt_len, value_dim)``. The weights are never returned and, in the fused
        kernels, never stored whole.
    """
    values = keys if values is None else values
    if not head_axis:
        return F.scaled_dot_product_attention(query, keys, values)
    context = F.scaled_dot_product_attention(query.unsqueeze(1), keys.unsqueeze(1), values.unsqueeze(1))
    return context.squeeze(1)


# --- counting --------------------------------------------------------------------------------------------


def attention_flops(
    batch: int, tgt_len: int, src_len: int, key_dim: int, value_dim: int | None = None
) -> int:
    r"""Floating-point operations of the two matrix products of scaled dot-product attention.

    The scores :math:`QK^\top` take ``B T S d_k`` multiply-adds and the context :math:`AV` takes
    ``B T S d_v``; one multiply-add counts as two operations. The softmax and the scaling (``O(B T S)``)
    are left out.
    """
    value_dim = key_dim if value_dim is None else value_dim
    return 2 * batch * tgt_len * src_len * (key_dim + value_dim)


def attention_weight_bytes(batch: int, tgt_len: int, src_len: int, element_size: int = 4) -> int:
    """Bytes of the weight tensor ``(batch, tgt_len, src_len)``: ``B T S`` times the element size."""
    return batch * tgt_len * src_len * element_size


def precompute_multiply_adds(
    src_len: int, tgt_len: int, query_dim: int, key_dim: int, attn_dim: int, once: bool
) -> int:
    """Multiply-adds of ``tgt_len`` Bahdanau steps for one sentence, projecting the keys once or every step.

    Per step: ``d_a d_s`` (the query), ``S d_a`` (``v_a^T tanh``), ``S d_h`` (the context), and the key
    projection ``S d_a d_h`` either at every step or once in all.
    """
    per_step = attn_dim * query_dim + src_len * attn_dim + src_len * key_dim
    projection = src_len * attn_dim * key_dim
    return tgt_len * per_step + (projection if once else tgt_len * projection)


def check_attention_flops(fn: Callable[[int, int, int, int, int], int]) -> CheckResult:
    """Check a reader's count of the floating-point operations of scaled dot-product attention.

    Expected signature: ``fn(batch, tgt_len, src_len, key_dim, value_dim) -> int``, the operations of the
    two matrix products (scores and context), a multiply-add counting as two. Compared with
    :func:`attention_flops` on cases where every size differs, so a swapped or missing factor shows.
    """
    cases = [(1, 1, 1, 1, 1), (2, 3, 5, 7, 11), (4, 128, 64, 32, 16), (32, 128, 128, 64, 64), (1, 7, 3, 2, 9)]
    for number, (batch, tgt_len, src_len, key_dim, value_dim) in enumerate(cases, start=1):
        sizes = (
            f"batch={batch}, tgt_len={tgt_len}, src_len={src_len}, key_dim={key_dim}, value_dim={value_dim}"
        )
        where = f"case {number} of {len(cases)} ({sizes})"
        try:
            got = fn(batch, tgt_len, src_len, key_dim, value_dim)
        except Exception as exc:
            return CheckResult(
                False, f"✗ failed: your function raised {type(exc).__name__} on {where}: {exc}"
            )
        expected = attention_flops(batch, tgt_len, src_len, key_dim, value_dim)
        if got != expected:
            return CheckResult(False, f"✗ failed on {where}: expected {expected:,} operations, got {got!r}")
    return CheckResult(True, f"✓ passed: {len(cases)} cases agree with attnbook.bench.attention_flops.")


def fit_loglog_slope(xs: Sequence[float], ys: Sequence[float]) -> float:
    """Least-squares slope of ``log y`` against ``log x``: the exponent ``p`` in ``y ~ x^p``."""
    if len(xs) != len(ys) or len(xs) < 2:
        raise ValueError(f"need at least two (x, y) pairs of equal length, got {len(xs)} and {len(ys)}")
    log_x = [math.log(x) for x in xs]
    log_y = [math.log(y) for y in ys]
    mean_x, mean_y = statistics.fmean(log_x), statistics.fmean(log_y)
    spread = sum((x - mean_x) ** 2 for x in log_x)
    if spread == 0:
        raise ValueError("need at least two different x values")
    return sum((x - mean_x) * (y - mean_y) for x, y in zip(log_x, log_y, strict=True)) / spread


# --- timing ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Timing:
    """The timed repeats of one variant: wall-clock seconds and minor page faults, one entry per repeat.

    ``page_faults`` counts the process's minor page faults during each call (memory the operating system
    had to map in, e.g. a freed buffer that the allocator returned and the next call asked for again);
    ``None`` where :mod:`resource` is unavailable.
    """

    times: tuple[float, ...]
    page_faults: tuple[int, ...] | None = None

    @property
    def median(self) -> float:
        return statistics.median(self.times)

    @property
    def median_page_faults(self) -> float | None:
        return None if self.page_faults is None else statistics.median(self.page_faults)


def _minor_page_faults() -> int | None:
    if resource is None:
        return None
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def _synchronize(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def time_interleaved(
    fns: Mapping[str, Callable[[], object]], device: torch.device, repeats: int, warmup: int = 1
) -> dict[str, Timing]:
    """Time several variants side by side: ``warmup`` untimed calls each, then ``repeats`` rounds.

    In each round every variant runs once; the order alternates (forward, then backward) so that none
    always runs first. On CUDA the device is synchronised around each call. The minor page faults of each
    call are counted too (outside the timed interval).

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
    return {name: Timing(tuple(times[name]), tuple(faults[name]) if faults[name] else None) for name in names}


def peak_cuda_bytes(fn: Callable[[], object], device: torch.device) -> int | None:
    """Peak CUDA memory allocated by one call of ``fn`` beyond what was allocated before it; None off CUDA."""
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


def _max_abs_diff(got: Tensor, expected: Tensor) -> float:
    return float((got.float() - expected.float()).abs().max())


def time_attention_point(
    batch: int,
    tgt_len: int,
    src_len: int,
    dim: int,
    device: torch.device,
    repeats: int,
    warmup: int = 1,
    include_naive: bool = True,
    generator: torch.Generator | None = None,
    include_sdpa_3d: bool = False,
) -> dict[str, Any]:
    """Time the package, SDPA and the naive loop at one shape; check they agree; measure memory.

    Args:
        batch, tgt_len, src_len, dim: the shape; keys, queries and values are standard normal.
        device: where to run.
        repeats, warmup: see :func:`time_interleaved`.
        include_naive: also time :func:`naive_attention` (slow for long targets).
        generator: the source of the random inputs.
        include_sdpa_3d: also time SDPA called without a head axis (``sdpa_3d``: its unfused math path).

    Returns:
        A dict with the shape, ``<variant>_s`` medians and ``<variant>_times_s`` repeats for the variants
        of :data:`VARIANTS` (``None`` for a skipped naive loop) and ``sdpa_3d`` if asked,
        ``package_over_sdpa``, ``weights_bytes`` (analytic), ``peak_bytes`` (CUDA: per variant; else
        ``None``), and ``max_abs_diff_sdpa`` / ``max_abs_diff_naive``: the largest difference of the
        context (and, for the naive loop, the weights) from the package's.
    """
    query = torch.randn(batch, tgt_len, dim, generator=generator).to(device)
    keys = torch.randn(batch, src_len, dim, generator=generator).to(device)
    values = torch.randn(batch, src_len, dim, generator=generator).to(device)
    attention = ScaledDotProductAttention()
    fns: dict[str, Callable[[], object]] = {
        "package": lambda: attention(query, keys, values),
        "sdpa": lambda: sdpa_context(query, keys, values),
    }
    if include_naive:
        fns["naive"] = lambda: naive_attention(query, keys, values)
    if include_sdpa_3d:
        fns["sdpa_3d"] = lambda: sdpa_context(query, keys, values, head_axis=False)
    with torch.inference_mode():
        context, weights = attention(query, keys, values)
        diff_sdpa = _max_abs_diff(sdpa_context(query, keys, values), context)
        diff_naive = None
        if include_naive:
            naive_context, naive_weights = naive_attention(query, keys, values)
            diff_naive = max(_max_abs_diff(naive_context, context), _max_abs_diff(naive_weights, weights))
        del context, weights
        peaks = None
        if device.type == "cuda":
            peaks = {name: peak_cuda_bytes(fn, device) for name, fn in fns.items()}
        timings = time_interleaved(fns, device, repeats, warmup)
    point: dict[str, Any] = {"batch": batch, "tgt_len": tgt_len, "src_len": src_len, "dim": dim}
    for name in (*VARIANTS, "sdpa_3d") if include_sdpa_3d else VARIANTS:
        timing = timings.get(name)
        point[f"{name}_s"] = None if timing is None else timing.median
        point[f"{name}_times_s"] = None if timing is None else list(timing.times)
        point[f"{name}_page_faults"] = None if timing is None else timing.median_page_faults
    point["package_over_sdpa"] = point["package_s"] / point["sdpa_s"]
    point["weights_bytes"] = attention_weight_bytes(batch, tgt_len, src_len, query.element_size())
    point["peak_bytes"] = peaks
    point["max_abs_diff_sdpa"] = diff_sdpa
    point["max_abs_diff_naive"] = diff_naive
    return point


def time_key_precompute(
    device: torch.device,
    repeats: int,
    batch: int = 32,
    src_len: int = 100,
    tgt_len: int = 30,
    query_dim: int = 128,
    key_dim: int = 256,
    attn_dim: int = 64,
    warmup: int = 1,
    generator: torch.Generator | None = None,
) -> dict[str, Any]:
    """Time ``tgt_len`` Bahdanau steps, re-projecting the keys every step vs. projecting them once.

    Both use one :class:`~attnbook.BahdanauAttention`; the first calls it without ``projected_keys`` (as
    the outline's module does), the second calls :meth:`~attnbook.BahdanauAttention.project_keys` once and
    passes the result to every step. The default sizes are chapter 6's model (``d_s = 128``, a
    bidirectional encoder with ``d_h = 256``, ``d_a = 64``). The decoder states are random: only the
    attention is timed.

    Returns:
        A dict with the sizes, ``every_step_s`` / ``once_s`` medians and their repeats, ``speedup``
        (every / once), ``predicted_speedup`` (by multiply-adds, :func:`precompute_multiply_adds`) and
        ``max_abs_diff`` between the two ways' contexts.
    """
    if generator is None:
        generator = torch.Generator().manual_seed(0)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(int(torch.randint(2**31 - 1, (1,), generator=generator)))
        attention = BahdanauAttention(query_dim=query_dim, key_dim=key_dim, attn_dim=attn_dim).to(device)
    encoder_states = torch.randn(batch, src_len, key_dim, generator=generator).to(device)
    decoder_states = torch.randn(tgt_len, batch, query_dim, generator=generator).to(device)  # s_{i-1}

    def every_step() -> list[Tensor]:
        return [attention(state, encoder_states)[0] for state in decoder_states]

    def once() -> list[Tensor]:
        projected = attention.project_keys(encoder_states)  # U h_j, once per batch
        return [attention(state, encoder_states, projected_keys=projected)[0] for state in decoder_states]

    with torch.inference_mode():
        max_diff = max(_max_abs_diff(a, b) for a, b in zip(every_step(), once(), strict=True))
        timings = time_interleaved({"every_step": every_step, "once": once}, device, repeats, warmup)
    every, once_timing = timings["every_step"], timings["once"]
    sizes = (src_len, tgt_len, query_dim, key_dim, attn_dim)
    return {
        "batch": batch,
        "src_len": src_len,
        "tgt_len": tgt_len,
        "query_dim": query_dim,
        "key_dim": key_dim,
        "attn_dim": attn_dim,
        "every_step_s": every.median,
        "every_step_times_s": list(every.times),
        "every_step_page_faults": every.median_page_faults,
        "once_s": once_timing.median,
        "once_times_s": list(once_timing.times),
        "once_page_faults": once_timing.median_page_faults,
        "speedup": every.median / once_timing.median,
        "predicted_speedup": precompute_multiply_adds(*sizes, once=False)
        / precompute_multiply_adds(*sizes, once=True),
        "max_abs_diff": max_diff,
    }


# --- the whole run ---------------------------------------------------------------------------------------


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


def _load_average() -> list[float] | None:
    try:
        return [round(value, 2) for value in os.getloadavg()]
    except (AttributeError, OSError):
        return None


def _progress_bar(total: int, enabled: bool) -> Any:
    # tqdm.auto is imported only when a bar is wanted: in a notebook without ipywidgets its import
    # alone writes a warning to stderr.
    if enabled:
        from attnbook.progress import tqdm
    else:
        from tqdm import tqdm
    return tqdm(total=total, desc="bench", disable=not enabled, file=sys.stderr)


def environment(device: torch.device, threads: int) -> dict[str, Any]:
    """Where and when a run happens: date, device, versions, threads, CPU count and load."""
    info: dict[str, Any] = {
        "date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "device": device.type,
        "device_name": _device_name(device),
        "threads": threads,
        "cpu_count": os.cpu_count(),
        "load_average": _load_average(),
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "dtype": "float32",
    }
    return info


def run_benchmark(
    grid: str | BenchGrid = "quick",
    device: str | torch.device | None = None,
    threads: int | None = 1,
    progress: bool = False,
    seed: int = 0,
) -> dict[str, Any]:
    """Run the three measurements and return one JSON-serialisable result.

    Args:
        grid: a :class:`BenchGrid` or the name of one of :data:`GRIDS`.
        device: ``"auto"``, ``"cpu"``, ``"cuda"``, a :class:`torch.device`, or ``None`` (``"auto"``).
        threads: ``torch.set_num_threads`` for the run (restored afterwards); ``None`` keeps torch's. One
            thread keeps timings comparable on a shared machine.
        progress: show a progress bar (``tqdm.auto``, on stderr).
        seed: seeds the random inputs.

    Returns:
        A dict with ``sdpa_ratio``, ``precompute_speedup``, ``ratio_point`` (the full measurement behind
        ``sdpa_ratio``), ``precompute``, ``grid`` (one dict per ``(tgt_len, src_len)``, see
        :func:`time_attention_point`), ``grid_config``, the :func:`environment` keys, and ``seconds``.
    """
    if isinstance(grid, str):
        if grid not in GRIDS:
            raise ValueError(f"grid must be one of {sorted(GRIDS)}, got {grid!r}")
        grid = GRIDS[grid]
    if not isinstance(device, torch.device):
        device = get_device(device or "auto")
    previous_threads = torch.get_num_threads()
    if threads is not None:
        if threads < 1:
            raise ValueError(f"threads must be a positive integer, got {threads}")
        torch.set_num_threads(threads)
    started = time.perf_counter()
    try:
        result = environment(device, torch.get_num_threads())
        generator = torch.Generator().manual_seed(seed)
        shapes = [(tgt_len, src_len) for tgt_len in grid.tgt_lens for src_len in grid.src_lens]
        with _progress_bar(len(shapes) + 2, progress) as bar:
            bar.set_postfix_str("sdpa_ratio")
            ratio_point = time_attention_point(
                32,
                128,
                128,
                64,
                device,
                grid.ratio_repeats,
                grid.ratio_warmup,
                True,
                generator,
                include_sdpa_3d=True,
            )
            bar.update()
            bar.set_postfix_str("precompute")
            precompute = time_key_precompute(
                device, grid.precompute_repeats, warmup=grid.warmup, generator=generator
            )
            bar.update()
            points = []
            for tgt_len, src_len in shapes:
                bar.set_postfix_str(f"T={tgt_len}, S={src_len}")
                include_naive = grid.naive_max_tgt_len is None or tgt_len <= grid.naive_max_tgt_len
                points.append(
                    time_attention_point(
                        grid.batch,
                        tgt_len,
                        src_len,
                        grid.dim,
                        device,
                        grid.repeats,
                        grid.warmup,
                        include_naive,
                        generator,
                    )
                )
                bar.update()
    finally:
        torch.set_num_threads(previous_threads)
    result.update(
        sdpa_ratio=ratio_point["package_over_sdpa"],
        precompute_speedup=precompute["speedup"],
        sdpa_ratio_target=SDPA_RATIO_TARGET,
        precompute_speedup_target=PRECOMPUTE_SPEEDUP_TARGET,
        ratio_point=ratio_point,
        precompute=precompute,
        grid_config={**asdict(grid), "tgt_lens": list(grid.tgt_lens), "src_lens": list(grid.src_lens)},
        grid=points,
        load_average_end=_load_average(),
        seconds=time.perf_counter() - started,
    )
    return result


# --- saving, loading, reporting --------------------------------------------------------------------------


def save_result(result: Mapping[str, Any], path: str | os.PathLike[str]) -> Path:
    """Write a result as indented JSON (creating the folder); return the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return path


def load_result(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Read a result written by :func:`save_result` (or ``python -m attnbook bench --save``)."""
    result = json.loads(Path(path).read_text(encoding="utf-8"))
    missing = {"sdpa_ratio", "precompute_speedup", "grid", "device"} - set(result)
    if missing:
        raise ValueError(f"{path} is not a benchmark result: it lacks {sorted(missing)}")
    return result


PACKAGED_CUDA_RESULT = "bench_cuda.json"
"""The file name, in the package's ``data`` folder, of a benchmark run recorded on a CUDA GPU."""


def packaged_result(name: str = PACKAGED_CUDA_RESULT) -> dict[str, Any] | None:
    """Load a result shipped in ``attnbook/data`` (e.g. a recorded CUDA run), or ``None`` if there is none.

    Record one on a GPU with ``python -m attnbook bench --device cuda --json --save
    code/src/attnbook/data/bench_cuda.json``.
    """
    resource = resources.files("attnbook") / "data" / name
    if not resource.is_file():
        return None
    with resources.as_file(resource) as path:
        return load_result(path)


def _ms(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds * 1e3:.3f}"


def _mib(size: int | None) -> str:
    return "-" if size is None else f"{size / 2**20:.1f}"


def format_report(result: Mapping[str, Any]) -> str:
    """A readable, plain-text table of a result."""
    ratio, pre, config = result["ratio_point"], result["precompute"], result["grid_config"]
    threads = result["threads"]
    lines = [
        f"attention cost on {result['device']} ({result['device_name']}), {threads} "
        f"thread{'s' if threads != 1 else ''}, torch {result['torch']}, {result['date']}, "
        f"load average {result['load_average']}",
        "",
        f"package vs. SDPA at B={ratio['batch']}, T={ratio['tgt_len']}, S={ratio['src_len']}, "
        f"d={ratio['dim']} (medians of {len(ratio['package_times_s'])}): {_ms(ratio['package_s'])} ms vs. "
        f"{_ms(ratio['sdpa_s'])} ms, sdpa_ratio {result['sdpa_ratio']:.2f} "
        f"(target <= {result['sdpa_ratio_target']}); naive loop {_ms(ratio['naive_s'])} ms; SDPA without a "
        f"head axis (unfused) {_ms(ratio['sdpa_3d_s'])} ms",
        f"Bahdanau decoding, B={pre['batch']}, S={pre['src_len']}, T={pre['tgt_len']} steps "
        f"(d_s={pre['query_dim']}, d_h={pre['key_dim']}, d_a={pre['attn_dim']}): keys projected every step "
        f"{_ms(pre['every_step_s'])} ms, once {_ms(pre['once_s'])} ms, precompute_speedup "
        f"{result['precompute_speedup']:.2f} (target >= {result['precompute_speedup_target']}; "
        f"multiply-adds predict {pre['predicted_speedup']:.1f})",
        "",
        f"grid '{config['name']}': B={config['batch']}, d={config['dim']}, medians of {config['repeats']}, "
        "times in ms; weights = B*T*S*4 bytes; peak = torch.cuda.max_memory_allocated (CUDA only)",
        f"{'T':>6} {'S':>6} {'package':>10} {'SDPA':>10} {'naive':>10} {'pkg/SDPA':>9} "
        f"{'weights MiB':>12} {'peak MiB pkg/SDPA/naive':>24}",
    ]
    for point in result["grid"]:
        peaks = point["peak_bytes"]
        peak_text = "-" if peaks is None else "/".join(_mib(peaks.get(name)) for name in VARIANTS)
        lines.append(
            f"{point['tgt_len']:>6} {point['src_len']:>6} {_ms(point['package_s']):>10} "
            f"{_ms(point['sdpa_s']):>10} {_ms(point['naive_s']):>10} {point['package_over_sdpa']:>9.2f} "
            f"{_mib(point['weights_bytes']):>12} {peak_text:>24}"
        )
    lines.append("")
    lines.append(f"finished in {result['seconds']:.1f} s")
    return "\n".join(lines)
