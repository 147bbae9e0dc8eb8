"""The cost of attention, measured: implementations compared,
the timing harness, grids, results and reports."""

from attnbook.benchmark.attention_cost import (
    attention_flops,
    attention_weight_bytes,
    fit_loglog_slope,
    naive_attention,
    predicted_precompute_speedup,
    sdpa_context,
)
from attnbook.benchmark.bench import run_benchmark
from attnbook.benchmark.bench_report import (
    format_report,
    packaged_result,
)
from attnbook.benchmark.bench_results import (
    PRECOMPUTE_SPEEDUP_REFERENCE,
    SDPA_RATIO_REFERENCE,
)
from attnbook.benchmark.claims import record_claim
from attnbook.benchmark.memory import peak_tensor_memory
from attnbook.benchmark.timing import time_interleaved

__all__ = [
    "PRECOMPUTE_SPEEDUP_REFERENCE",
    "SDPA_RATIO_REFERENCE",
    "attention_flops",
    "attention_weight_bytes",
    "fit_loglog_slope",
    "format_report",
    "naive_attention",
    "packaged_result",
    "peak_tensor_memory",
    "predicted_precompute_speedup",
    "record_claim",
    "run_benchmark",
    "sdpa_context",
    "time_interleaved",
]
