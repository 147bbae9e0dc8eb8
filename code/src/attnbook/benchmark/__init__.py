"""The cost of attention, measured: implementations compared,
the timing harness, grids, results and reports."""

from attnbook.benchmark.attention_cost import (
    attention_flops,
    attention_weight_bytes,
    fit_loglog_slope,
    naive_attention,
    precompute_multiply_adds,
    predicted_precompute_speedup,
    sdpa_context,
)
from attnbook.benchmark.bench import (
    run_benchmark,
    time_attention_point,
    time_key_precompute,
)
from attnbook.benchmark.bench_grids import (
    GRIDS,
    VARIANTS,
    BenchGrid,
    default_grid,
)
from attnbook.benchmark.bench_report import (
    PACKAGED_CUDA_RESULT,
    format_report,
    load_result,
    packaged_result,
)
from attnbook.benchmark.bench_results import (
    PRECOMPUTE_SPEEDUP_REFERENCE,
    SDPA_RATIO_REFERENCE,
    AttentionPoint,
    BenchmarkResult,
    PrecomputeTiming,
    VariantTiming,
)
from attnbook.benchmark.claims import (
    CLAIMS_LOG,
    claim_margin,
    record_claim,
)
from attnbook.benchmark.timing import (
    Timing,
    peak_cuda_bytes,
    time_interleaved,
)

__all__ = [
    "CLAIMS_LOG",
    "GRIDS",
    "PACKAGED_CUDA_RESULT",
    "PRECOMPUTE_SPEEDUP_REFERENCE",
    "SDPA_RATIO_REFERENCE",
    "VARIANTS",
    "AttentionPoint",
    "BenchGrid",
    "BenchmarkResult",
    "PrecomputeTiming",
    "Timing",
    "VariantTiming",
    "attention_flops",
    "attention_weight_bytes",
    "claim_margin",
    "default_grid",
    "fit_loglog_slope",
    "format_report",
    "load_result",
    "naive_attention",
    "packaged_result",
    "peak_cuda_bytes",
    "precompute_multiply_adds",
    "predicted_precompute_speedup",
    "record_claim",
    "run_benchmark",
    "sdpa_context",
    "time_attention_point",
    "time_interleaved",
    "time_key_precompute",
]
