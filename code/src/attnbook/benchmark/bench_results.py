"""The benchmark's results as typed records, and their JSON (see
:mod:`attnbook.benchmark.bench`).

A :class:`BenchmarkResult` holds an :class:`Environment`, the
:class:`AttentionPoint` behind ``sdpa_ratio``, the
:class:`PrecomputeTiming` behind ``precompute_speedup`` and one
:class:`AttentionPoint` per grid shape. ``to_dict()`` gives the JSON that
``python -m attnbook bench --json`` prints; ``from_dict()`` reads it back.

>>> from attnbook.benchmark.bench_results import VariantTiming
>>> timing = VariantTiming(
...     seconds=0.002, times=(0.003, 0.002, 0.001), page_faults=None
... )
>>> timing.to_dict("package")
{'package_s': 0.002, 'package_times_s': [0.003, 0.002, 0.001],
'package_page_faults': None}
>>> VariantTiming.from_dict(timing.to_dict("package"), "package") == timing
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from attnbook.benchmark.bench_grids import VARIANTS, BenchGrid
from attnbook.benchmark.timing import Timing
from attnbook.core.records import Environment, Record

SDPA_RATIO_REFERENCE = 1.3
"""A reference for ``sdpa_ratio``: the package within this factor of SDPA
(kept in the JSON)."""

PRECOMPUTE_SPEEDUP_REFERENCE = 2.0
"""A reference for ``precompute_speedup``: at least this factor (kept in
the JSON)."""


@dataclass(frozen=True)
class VariantTiming:
    """The timed repeats of one implementation at one shape.

    Attributes:
        seconds: the median time of a call.
        times: every repeat's time, in seconds.
        page_faults: the median number of minor page faults per call
            (``None`` where not counted).
    """

    seconds: float
    times: tuple[float, ...]
    page_faults: float | None

    @classmethod
    def from_timing(cls, timing: Timing) -> VariantTiming:
        return cls(timing.median, timing.times, timing.median_page_faults)

    def to_dict(self, name: str) -> dict[str, Any]:
        """The JSON keys ``<name>_s``, ``<name>_times_s`` and
        ``<name>_page_faults``."""
        return {
            f"{name}_s": self.seconds,
            f"{name}_times_s": list(self.times),
            f"{name}_page_faults": self.page_faults,
        }

    @classmethod
    def from_dict(
        cls, values: dict[str, Any], name: str
    ) -> VariantTiming | None:
        """The timing stored under ``name`` in a result's JSON;
        ``None`` when it was skipped."""
        if values.get(f"{name}_s") is None:
            return None
        return cls(
            values[f"{name}_s"],
            tuple(values[f"{name}_times_s"]),
            values[f"{name}_page_faults"],
        )


@dataclass(frozen=True)
class AttentionPoint:
    """The package, SDPA and the naive loop timed at one shape ``(batch,
    tgt_len, src_len, dim)``.

    Attributes:
        batch, tgt_len, src_len, dim: the shape.
        timings: one :class:`VariantTiming` per implementation timed
            (``package``, ``sdpa``, ``naive`` unless skipped, and
            ``sdpa_3d``, SDPA without a head axis, where asked).
        weights_bytes: the size of the weight tensor, computed.
        peak_bytes: on CUDA, the peak memory of one call of each
            implementation; else ``None``.
        max_abs_diff_sdpa: the largest difference of SDPA's context from
            the package's.
        max_abs_diff_naive: the same for the naive loop's context and
            weights (``None`` if skipped).
    """

    batch: int
    tgt_len: int
    src_len: int
    dim: int
    timings: dict[str, VariantTiming]
    weights_bytes: int
    peak_bytes: dict[str, int | None] | None
    max_abs_diff_sdpa: float
    max_abs_diff_naive: float | None

    def seconds(self, variant: str) -> float | None:
        """The median time of ``variant`` (``None`` if it was not
        timed here)."""
        timing = self.timings.get(variant)
        return None if timing is None else timing.seconds

    @property
    def package_over_sdpa(self) -> float:
        """The package's median time over SDPA's:
        above 1, SDPA is faster."""
        return (
            self.timings["package"].seconds / self.timings["sdpa"].seconds
        )

    def to_dict(self) -> dict[str, Any]:
        """The point as plain values, for JSON (a skipped naive loop as
        ``None`` values)."""
        values: dict[str, Any] = {
            "batch": self.batch,
            "tgt_len": self.tgt_len,
            "src_len": self.src_len,
            "dim": self.dim,
        }
        names = (
            (*VARIANTS, "sdpa_3d")
            if "sdpa_3d" in self.timings
            else VARIANTS
        )
        for name in names:
            timing = self.timings.get(name)
            if timing is None:
                values.update(
                    {
                        f"{name}_s": None,
                        f"{name}_times_s": None,
                        f"{name}_page_faults": None,
                    }
                )
            else:
                values.update(timing.to_dict(name))
        values.update(
            package_over_sdpa=self.package_over_sdpa,
            weights_bytes=self.weights_bytes,
            peak_bytes=self.peak_bytes,
            max_abs_diff_sdpa=self.max_abs_diff_sdpa,
            max_abs_diff_naive=self.max_abs_diff_naive,
        )
        return values

    @classmethod
    def from_dict(cls, values: dict[str, Any]) -> AttentionPoint:
        timings = {
            name: VariantTiming.from_dict(values, name)
            for name in (*VARIANTS, "sdpa_3d")
        }
        return cls(
            *(
                values[key]
                for key in ("batch", "tgt_len", "src_len", "dim")
            ),
            timings={
                name: timing
                for name, timing in timings.items()
                if timing is not None
            },
            weights_bytes=values["weights_bytes"],
            peak_bytes=values["peak_bytes"],
            max_abs_diff_sdpa=values["max_abs_diff_sdpa"],
            max_abs_diff_naive=values["max_abs_diff_naive"],
        )


@dataclass(frozen=True)
class PrecomputeTiming:
    """Bahdanau decoding timed with the keys projected at every step
    and once.

    Attributes:
        batch, src_len, tgt_len, query_dim, key_dim, attn_dim: the sizes.
        every_step: the keys re-projected at every step.
        once: :meth:`~attnbook.BahdanauAttention.project_keys` once,
            ``projected_keys=`` at every step.
        predicted_speedup: the ratio of the two ways' multiply-adds
            (:func:`predicted_precompute_speedup`).
        max_abs_diff: the largest difference between the two
            ways' contexts.
    """

    batch: int
    src_len: int
    tgt_len: int
    query_dim: int
    key_dim: int
    attn_dim: int
    every_step: VariantTiming
    once: VariantTiming
    predicted_speedup: float
    max_abs_diff: float

    @property
    def speedup(self) -> float:
        """Every step's median time over once's."""
        return self.every_step.seconds / self.once.seconds

    def to_dict(self) -> dict[str, Any]:
        sizes = (
            "batch",
            "src_len",
            "tgt_len",
            "query_dim",
            "key_dim",
            "attn_dim",
        )
        return {
            **{name: getattr(self, name) for name in sizes},
            **self.every_step.to_dict("every_step"),
            **self.once.to_dict("once"),
            "speedup": self.speedup,
            "predicted_speedup": self.predicted_speedup,
            "max_abs_diff": self.max_abs_diff,
        }

    @classmethod
    def from_dict(cls, values: dict[str, Any]) -> PrecomputeTiming:
        sizes = (
            "batch",
            "src_len",
            "tgt_len",
            "query_dim",
            "key_dim",
            "attn_dim",
        )
        return cls(
            *(values[name] for name in sizes),
            every_step=VariantTiming.from_dict(  # type: ignore[arg-type]
                values,
                "every_step",
            ),
            once=VariantTiming.from_dict(  # type: ignore[arg-type]
                values,
                "once",
            ),
            predicted_speedup=values["predicted_speedup"],
            max_abs_diff=values["max_abs_diff"],
        )


@dataclass(frozen=True)
class BenchmarkResult(Record):
    """One run of :func:`run_benchmark`.

    Attributes:
        environment: the machine, the versions, the threads and the load.
        ratio_point: the measurement behind ``sdpa_ratio``
            (``B=32, T=S=128, d=64``, with ``sdpa_3d``).
        precompute: the measurement behind ``precompute_speedup``.
        grid_config: the grid measured.
        grid: one point per ``(tgt_len, src_len)`` of the grid.
        load_average_end: the load average when the run ended.
        seconds: how long the run took.
    """

    PACKAGED = "bench_cuda.json"
    WHAT = "a benchmark result"

    environment: Environment
    ratio_point: AttentionPoint
    precompute: PrecomputeTiming
    grid_config: BenchGrid
    grid: tuple[AttentionPoint, ...]
    load_average_end: list[float] | None
    seconds: float

    @property
    def sdpa_ratio(self) -> float:
        """The package's time over SDPA's at ``B=32, T=S=128, d=64``."""
        return self.ratio_point.package_over_sdpa

    @property
    def precompute_speedup(self) -> float:
        """How many times faster Bahdanau decoding is with the keys
        projected once."""
        return self.precompute.speedup

    def point(self, tgt_len: int, src_len: int) -> AttentionPoint:
        """The grid's point at ``(tgt_len, src_len)``.

        Raises:
            KeyError: the grid has no such point.
        """
        for point in self.grid:
            if (point.tgt_len, point.src_len) == (tgt_len, src_len):
                return point
        raise KeyError(
            f"the grid has no point with tgt_len={tgt_len}, "
            f"src_len={src_len}"
        )

    def to_dict(self) -> dict[str, Any]:
        """The result as the JSON that ``python -m attnbook bench --json``
        prints and ``--save`` writes: the environment's fields at the top
        level and the headline ratios beside their targets, so that the
        JSON reads without the classes."""
        return {
            **vars(self.environment),
            "sdpa_ratio": self.sdpa_ratio,
            "precompute_speedup": self.precompute_speedup,
            "sdpa_ratio_target": SDPA_RATIO_REFERENCE,
            "precompute_speedup_target": PRECOMPUTE_SPEEDUP_REFERENCE,
            "ratio_point": self.ratio_point.to_dict(),
            "precompute": self.precompute.to_dict(),
            "grid_config": self.grid_config.to_dict(),
            "grid": [point.to_dict() for point in self.grid],
            "load_average_end": self.load_average_end,
            "seconds": self.seconds,
        }

    @classmethod
    def from_dict(cls, values: dict[str, Any]) -> BenchmarkResult:
        """A result from its JSON (as :meth:`to_dict` writes it).

        Raises:
            ValueError: a key is missing; the message names the
                missing keys.
        """
        environment_keys = [
            name
            for name in Environment.__dataclass_fields__
            if name != "dtype"
        ]
        required = {
            *environment_keys,
            "ratio_point",
            "precompute",
            "grid_config",
            "grid",
            "seconds",
        }
        missing = sorted(required - set(values))
        if missing:
            raise ValueError(f"it lacks {missing}")
        environment = Environment(
            **{name: values[name] for name in environment_keys},
            dtype=values.get("dtype", "float32"),
        )
        return cls(
            environment=environment,
            ratio_point=AttentionPoint.from_dict(values["ratio_point"]),
            precompute=PrecomputeTiming.from_dict(values["precompute"]),
            grid_config=BenchGrid.from_dict(values["grid_config"]),
            grid=tuple(
                AttentionPoint.from_dict(point) for point in values["grid"]
            ),
            load_average_end=values.get("load_average_end"),
            seconds=values["seconds"],
        )
