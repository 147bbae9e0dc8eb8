"""The cost of attention, measured: time and memory against sequence
length, side by side.

``python -m attnbook bench`` runs three measurements in one process and
reports medians of interleaved repeats (every variant runs once per repeat,
in alternating order, so a burst of load on a shared machine hits all of
them alike):

1. **A grid of target and source lengths.** At each ``(tgt_len, src_len)``
   the package's :class:`~attnbook.ScaledDotProductAttention` (which
   returns the weights), PyTorch's
   :func:`torch.nn.functional.scaled_dot_product_attention` ("SDPA", which
   returns only the context; called with a head axis so that its fused
   kernels can run, see :func:`sdpa_context`) and a naive loop over target
   positions (:func:`naive_attention`) run on the same inputs.
   On CUDA the peak memory of each is measured with
   :func:`torch.cuda.max_memory_allocated`;
   everywhere the size of the weight tensor is computed
   (:func:`attention_weight_bytes`).
2. **The headline ratio** ``sdpa_ratio``: package time / SDPA time at
   ``B=32, T=S=128, d=64`` (SDPA without a head axis, ``sdpa_3d``,
   is timed there too).
3. **Projecting the keys once** ``precompute_speedup``:
   a Bahdanau decoder of ``T=30`` steps over ``S=100`` source positions,
   calling :class:`~attnbook.BahdanauAttention` without ``projected_keys``
   (so the keys are re-projected at every step) against
   :meth:`~attnbook.BahdanauAttention. project_keys` once and
   ``projected_keys=`` at every step.

Everything here returns data, a :class:`BenchmarkResult`;
:func:`~attnbook.benchmark.bench_report.format_report` turns one into text,
and only the command line (``python -m attnbook bench``) prints.
The implementations and the operation counts are in
:mod:`attnbook.benchmark.attention_cost`, the timing harness in
:mod:`attnbook.benchmark.timing`, the grids in
:mod:`attnbook.benchmark.bench_grids`.

>>> from attnbook.benchmark.bench import run_benchmark
>>> result = run_benchmark("tiny", device="cpu", threads=1)
>>> (
...     result.sdpa_ratio == result.ratio_point.package_over_sdpa,
...     len(result.grid),
... )
(True, 6)
>>> sorted(result.to_dict())[:4]
['cpu_count', 'cuda', 'date', 'device']
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any

import torch
from torch import Tensor

from attnbook.benchmark.attention_cost import (
    attention_weight_bytes,
    naive_attention,
    predicted_precompute_speedup,
    sdpa_context,
)
from attnbook.benchmark.bench_grids import GRIDS, BenchGrid
from attnbook.benchmark.bench_results import (
    AttentionPoint,
    BenchmarkResult,
    PrecomputeTiming,
    VariantTiming,
)
from attnbook.benchmark.timing import peak_cuda_bytes, time_interleaved
from attnbook.core.progress import tqdm
from attnbook.core.records import environment, load_average
from attnbook.core.runtime import get_device
from attnbook.layers.attention import ScaledDotProductAttention
from attnbook.layers.bahdanau import BahdanauAttention

# --- measuring -----------------------------------------------------------


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
) -> AttentionPoint:
    """Time the package, SDPA and the naive loop at one shape;
    check they agree; measure memory.

    Args:
        batch, tgt_len, src_len, dim: the shape;
            keys, queries and values are standard normal.
        device: where to run.
        repeats, warmup: see :func:`time_interleaved`.
        include_naive: also time :func:`naive_attention` (slow for
            long targets).
        generator: the source of the random inputs.
        include_sdpa_3d: also time SDPA called without a head axis
            (``sdpa_3d``: its unfused math path).

    Returns:
        An :class:`AttentionPoint`.
    """
    query = torch.randn(batch, tgt_len, dim, generator=generator).to(
        device
    )
    keys = torch.randn(batch, src_len, dim, generator=generator).to(device)
    values = torch.randn(batch, src_len, dim, generator=generator).to(
        device
    )
    attention = ScaledDotProductAttention()
    fns: dict[str, Callable[[], object]] = {
        "package": lambda: attention(query, keys, values),
        "sdpa": lambda: sdpa_context(query, keys, values),
    }
    if include_naive:
        fns["naive"] = lambda: naive_attention(query, keys, values)
    if include_sdpa_3d:
        fns["sdpa_3d"] = lambda: sdpa_context(
            query, keys, values, head_axis=False
        )
    with torch.inference_mode():
        context, weights = attention(query, keys, values)
        diff_sdpa = _max_abs_diff(
            sdpa_context(query, keys, values), context
        )
        diff_naive = None
        if include_naive:
            naive_context, naive_weights = naive_attention(
                query, keys, values
            )
            diff_naive = max(
                _max_abs_diff(naive_context, context),
                _max_abs_diff(naive_weights, weights),
            )
        del context, weights
        peaks = None
        if device.type == "cuda":
            peaks = {
                name: peak_cuda_bytes(fn, device)
                for name, fn in fns.items()
            }
        timings = time_interleaved(fns, device, repeats, warmup)
    return AttentionPoint(
        batch,
        tgt_len,
        src_len,
        dim,
        timings={
            name: VariantTiming.from_timing(timing)
            for name, timing in timings.items()
        },
        weights_bytes=attention_weight_bytes(
            batch, tgt_len, src_len, query.element_size()
        ),
        peak_bytes=peaks,
        max_abs_diff_sdpa=diff_sdpa,
        max_abs_diff_naive=diff_naive,
    )


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
) -> PrecomputeTiming:
    """Time ``tgt_len`` Bahdanau steps, re-projecting the keys every step
    vs. projecting them once.

    Both use one :class:`~attnbook.BahdanauAttention`;
    the first calls it without ``projected_keys`` (so the keys are
    re-projected at every step), the second calls
    :meth:`~attnbook.BahdanauAttention.project_keys` once and passes the
    result to every step. The default sizes are chapter 6's model
    (``d_s = 128``, a bidirectional encoder with ``d_h = 256``,
    ``d_a = 64``). The decoder states are random:
    only the attention is timed.

    Returns:
        A :class:`PrecomputeTiming`.
    """
    if generator is None:
        generator = torch.Generator().manual_seed(0)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(
            int(torch.randint(2**31 - 1, (1,), generator=generator))
        )
        attention = BahdanauAttention(
            query_dim=query_dim, key_dim=key_dim, attn_dim=attn_dim
        ).to(device)
    encoder_states = torch.randn(
        batch, src_len, key_dim, generator=generator
    ).to(device)
    decoder_states = torch.randn(
        tgt_len, batch, query_dim, generator=generator
    ).to(device)  # s_{i-1}

    def every_step() -> list[Tensor]:
        return [
            attention(state, encoder_states)[0] for state in decoder_states
        ]

    def once() -> list[Tensor]:
        # U h_j, once per batch
        projected = attention.project_keys(encoder_states)
        return [
            attention(state, encoder_states, projected_keys=projected)[0]
            for state in decoder_states
        ]

    with torch.inference_mode():
        max_diff = max(
            _max_abs_diff(a, b)
            for a, b in zip(every_step(), once(), strict=True)
        )
        timings = time_interleaved(
            {"every_step": every_step, "once": once},
            device,
            repeats,
            warmup,
        )
    sizes = (src_len, tgt_len, query_dim, key_dim, attn_dim)
    return PrecomputeTiming(
        batch,
        src_len,
        tgt_len,
        query_dim,
        key_dim,
        attn_dim,
        every_step=VariantTiming.from_timing(timings["every_step"]),
        once=VariantTiming.from_timing(timings["once"]),
        predicted_speedup=predicted_precompute_speedup(*sizes),
        max_abs_diff=max_diff,
    )


# --- the whole run -------------------------------------------------------


def _progress_bar(total: int, enabled: bool) -> Any:
    return tqdm(
        total=total, desc="bench", disable=not enabled, file=sys.stderr
    )


def run_benchmark(
    grid: str | BenchGrid = "quick",
    device: str | torch.device | None = None,
    threads: int | None = 1,
    progress: bool = False,
    seed: int = 0,
) -> BenchmarkResult:
    """Run the three measurements and return one result (``to_dict()``
    for JSON).

    Args:
        grid: a :class:`BenchGrid` or the name of one of :data:`GRIDS`.
        device: ``"auto"``, ``"cpu"``, ``"cuda"``, a :class:`torch.device`,
            or ``None`` (``"auto"``).
        threads: ``torch.set_num_threads`` for the run (restored
            afterwards); ``None`` keeps torch's.
            One thread keeps timings comparable on a shared machine.
        progress: show a progress bar (``tqdm.auto``, on stderr).
        seed: seeds the random inputs.

    Returns:
        A :class:`BenchmarkResult`.
    """
    if isinstance(grid, str):
        if grid not in GRIDS:
            raise ValueError(
                f"grid must be one of {sorted(GRIDS)}, got {grid!r}"
            )
        grid = GRIDS[grid]
    if not isinstance(device, torch.device):
        device = get_device(device or "auto")
    previous_threads = torch.get_num_threads()
    if threads is not None:
        if threads < 1:
            raise ValueError(
                f"threads must be a positive integer, got {threads}"
            )
        torch.set_num_threads(threads)
    started = time.perf_counter()
    try:
        where = environment(device, torch.get_num_threads())
        generator = torch.Generator().manual_seed(seed)
        shapes = [
            (tgt_len, src_len)
            for tgt_len in grid.tgt_lens
            for src_len in grid.src_lens
        ]
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
                device,
                grid.precompute_repeats,
                warmup=grid.warmup,
                generator=generator,
            )
            bar.update()
            points = []
            for tgt_len, src_len in shapes:
                bar.set_postfix_str(f"T={tgt_len}, S={src_len}")
                include_naive = (
                    grid.naive_max_tgt_len is None
                    or tgt_len <= grid.naive_max_tgt_len
                )
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
    return BenchmarkResult(
        environment=where,
        ratio_point=ratio_point,
        precompute=precompute,
        grid_config=grid,
        grid=tuple(points),
        load_average_end=load_average(),
        seconds=time.perf_counter() - started,
    )
