"""The benchmark's grids: which lengths to measure, and how often (see
:mod:`attnbook.benchmark.bench`).

>>> from attnbook.benchmark.bench_grids import GRIDS
>>> GRIDS["quick"].tgt_lens
(64, 128, 256, 512, 1024)
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import torch

VARIANTS = ("package", "sdpa", "naive")
"""The three implementations timed on the grid, in the order they
are reported."""


@dataclass(frozen=True)
class BenchGrid:
    """What to measure and how often.

    Attributes:
        name: the preset's name, recorded in the result.
        batch: batch size ``B`` on the length grid.
        dim: key, query and value size ``d`` on the length grid.
        tgt_lens: target lengths ``T`` of the grid.
        src_lens: source lengths ``S`` of the grid;
            every ``(T, S)`` pair is measured.
        repeats: timed repeats per grid point (the median is reported).
        warmup: untimed calls per variant before the repeats.
        ratio_repeats: repeats of the ``sdpa_ratio`` measurement.
        ratio_warmup: untimed calls per variant before them.
        precompute_repeats: repeats of the
            ``precompute_speedup`` measurement.
        naive_max_tgt_len: skip the naive loop (report ``None``)
            above this target length.
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

    def to_dict(self) -> dict[str, Any]:
        """The grid as plain values (the ``grid_config`` of a
        result's JSON)."""
        return {
            **asdict(self),
            "tgt_lens": list(self.tgt_lens),
            "src_lens": list(self.src_lens),
        }

    @classmethod
    def from_dict(cls, values: dict[str, Any]) -> BenchGrid:
        """The grid of a result's JSON ``grid_config``."""
        return cls(
            **{
                **values,
                "tgt_lens": tuple(values["tgt_lens"]),
                "src_lens": tuple(values["src_lens"]),
            }
        )


GRIDS: dict[str, BenchGrid] = {
    "tiny": BenchGrid(
        "tiny",
        2,
        8,
        (4, 8),
        (4, 8, 16),
        repeats=3,
        ratio_repeats=3,
        precompute_repeats=3,
    ),
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
"""Presets: ``tiny`` for tests, ``quick`` for CI (under a minute on two CPU
cores), ``full`` for a CPU, ``cuda`` for a GPU."""


def default_grid(quick: bool, device: torch.device) -> BenchGrid:
    """``quick`` when asked; otherwise ``cuda`` on a GPU and
    ``full`` elsewhere."""
    if quick:
        return GRIDS["quick"]
    return GRIDS["cuda"] if device.type == "cuda" else GRIDS["full"]
