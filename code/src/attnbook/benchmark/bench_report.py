"""Saving, loading and printing benchmark results
(:class:`~attnbook.benchmark.bench_results.BenchmarkResult`).

A result is saved as the JSON of
:meth:`~attnbook.benchmark.bench_results.BenchmarkResult.to_dict` and
loaded back into a
:class:`~attnbook.benchmark.bench_results.BenchmarkResult` (its ``save``
and ``load``);
a run recorded on a CUDA GPU ships with the package
(:func:`packaged_result`), so a reader without a GPU still sees one.

>>> from attnbook.benchmark.bench_report import (
...     format_report,
...     packaged_result,
... )
>>> recorded = packaged_result()  # None if no GPU run is recorded
>>> recorded is None or recorded.environment.device == "cuda"
True
"""

from __future__ import annotations

from attnbook.benchmark.bench_grids import VARIANTS
from attnbook.benchmark.bench_results import BenchmarkResult
from attnbook.core.records import package_file


def packaged_result(
    name: str = BenchmarkResult.PACKAGED,
) -> BenchmarkResult | None:
    """Load a result shipped in ``attnbook/data`` (e.g. a recorded CUDA
    run), or ``None`` if there is none.

    Record one on a GPU with ``python -m attnbook bench --device cuda
    --json --save code/src/attnbook/data/bench_cuda.json``.
    """
    if not package_file(name).is_file():
        return None
    return BenchmarkResult.packaged(name)


def _ms(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds * 1e3:.3f}"


def _mib(size: int | None) -> str:
    return "-" if size is None else f"{size / 2**20:.1f}"


def format_report(result: BenchmarkResult) -> str:
    """A readable, plain-text table of a result.

    >>> from attnbook.benchmark.bench import run_benchmark
    >>> report = format_report(run_benchmark("tiny", device="cpu"))
    >>> (
    ...     report.splitlines()[-1].startswith("finished in"),
    ...     "sdpa_ratio" in report,
    ... )
    (True, True)
    """
    where, ratio, pre, grid = (
        result.environment,
        result.ratio_point,
        result.precompute,
        result.grid_config,
    )
    lines = [
        f"attention cost on {where.device} ({where.device_name}), "
        f"{where.threads} "
        f"thread{'s' if where.threads != 1 else ''}, torch {where.torch}, "
        f"{where.date}, "
        f"load average {where.load_average}",
        "",
        f"package vs. SDPA at B={ratio.batch}, T={ratio.tgt_len}, "
        f"S={ratio.src_len}, d={ratio.dim} "
        f"(medians of {len(ratio.timings['package'].times)}): "
        f"{_ms(ratio.seconds('package'))} ms vs. "
        f"{_ms(ratio.seconds('sdpa'))} ms, sdpa_ratio "
        f"{result.sdpa_ratio:.2f}; naive loop "
        f"{_ms(ratio.seconds('naive'))} ms; SDPA without a head axis "
        f"(unfused) {_ms(ratio.seconds('sdpa_3d'))} ms",
        f"Bahdanau decoding, B={pre.batch}, S={pre.src_len}, "
        f"T={pre.tgt_len} steps "
        f"(d_s={pre.query_dim}, d_h={pre.key_dim}, d_a={pre.attn_dim}): "
        "keys projected every step "
        f"{_ms(pre.every_step.seconds)} ms, once {_ms(pre.once.seconds)} "
        "ms, precompute_speedup "
        f"{result.precompute_speedup:.2f} (multiply-adds predict "
        f"{pre.predicted_speedup:.1f})",
        "",
        f"grid '{grid.name}': B={grid.batch}, d={grid.dim}, medians of "
        f"{grid.repeats}, "
        "times in ms; weights = B*T*S*4 bytes; peak = "
        "torch.cuda.max_memory_allocated (CUDA only)",
        f"{'T':>6} {'S':>6} {'package':>10} {'SDPA':>10} {'naive':>10} "
        f"{'pkg/SDPA':>9} "
        f"{'weights MiB':>12} {'peak MiB pkg/SDPA/naive':>24}",
    ]
    for point in result.grid:
        peaks = point.peak_bytes
        peak_text = (
            "-"
            if peaks is None
            else "/".join(_mib(peaks.get(name)) for name in VARIANTS)
        )
        lines.append(
            f"{point.tgt_len:>6} {point.src_len:>6} "
            f"{_ms(point.seconds('package')):>10} "
            f"{_ms(point.seconds('sdpa')):>10} "
            f"{_ms(point.seconds('naive')):>10} "
            f"{point.package_over_sdpa:>9.2f} "
            f"{_mib(point.weights_bytes):>12} {peak_text:>24}"
        )
    lines.append("")
    lines.append(f"finished in {result.seconds:.1f} s")
    return "\n".join(lines)
