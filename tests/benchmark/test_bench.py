"""The benchmark: its grid, its JSON, its oracles and its timings (behaviour only, never speed)."""

import json
import statistics
import subprocess
import sys

import pytest
import torch

from attnbook import ScaledDotProductAttention
from attnbook.benchmark.attention_cost import (
    attention_flops,
    attention_weight_bytes,
    fit_loglog_slope,
    naive_attention,
    precompute_multiply_adds,
    predicted_precompute_speedup,
    sdpa_context,
)
from attnbook.benchmark.bench import run_benchmark, time_key_precompute
from attnbook.benchmark.bench_grids import GRIDS, VARIANTS, default_grid
from attnbook.benchmark.bench_report import format_report, packaged_result
from attnbook.benchmark.bench_results import BenchmarkResult
from attnbook.benchmark.timing import time_interleaved
from attnbook.checks import check_attention_flops
from attnbook.cli import main

CPU = torch.device("cpu")


@pytest.fixture(autouse=True)
def _restore_threads():
    threads = torch.get_num_threads()
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def tiny_run():
    return run_benchmark("tiny", device="cpu", threads=1)


@pytest.fixture(scope="module")
def tiny_result(tiny_run):
    """The run as the JSON that ``bench --json`` prints: the tests below pin its keys."""
    return json.loads(json.dumps(tiny_run.to_dict()))


def test_naive_loop_equals_the_package_within_tolerance():
    generator = torch.Generator().manual_seed(0)
    query = torch.randn(3, 5, 8, generator=generator)
    keys = torch.randn(3, 7, 8, generator=generator)
    values = torch.randn(3, 7, 4, generator=generator)  # a value size unlike the key size
    context, weights = naive_attention(query, keys, values)
    expected_context, expected_weights = ScaledDotProductAttention()(query, keys, values)
    assert context.shape == (3, 5, 4) and weights.shape == (3, 5, 7)
    torch.testing.assert_close(weights, expected_weights)
    torch.testing.assert_close(context, expected_context)


def test_naive_loop_uses_the_keys_as_values_by_default():
    query, keys = torch.randn(2, 3, 6), torch.randn(2, 4, 6)
    torch.testing.assert_close(naive_attention(query, keys)[0], naive_attention(query, keys, keys)[0])


def test_sdpa_context_equals_the_package_context_with_and_without_a_head_axis():
    query, keys, values = torch.randn(2, 6, 16), torch.randn(2, 9, 16), torch.randn(2, 9, 5)
    expected = ScaledDotProductAttention()(query, keys, values)[0]
    torch.testing.assert_close(sdpa_context(query, keys, values), expected)
    torch.testing.assert_close(sdpa_context(query, keys, values, head_axis=False), expected)


def test_sdpa_with_a_head_axis_can_run_a_fused_kernel():
    attention = pytest.importorskip("torch.nn.attention")  # torch >= 2.3
    SDPBackend, sdpa_kernel = attention.SDPBackend, attention.sdpa_kernel
    query = torch.randn(2, 6, 16)
    with sdpa_kernel([SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION]):
        assert sdpa_context(query, query).shape == (2, 6, 16)  # raises if no fused kernel can run


def test_grid_holds_one_point_per_length_pair_in_order(tiny_result):
    grid = GRIDS["tiny"]
    pairs = [(point["tgt_len"], point["src_len"]) for point in tiny_result["grid"]]
    assert pairs == [(tgt_len, src_len) for tgt_len in grid.tgt_lens for src_len in grid.src_lens]
    assert tiny_result["grid_config"]["tgt_lens"] == list(grid.tgt_lens)
    for point in tiny_result["grid"]:
        assert point["batch"] == grid.batch and point["dim"] == grid.dim
        assert point["weights_bytes"] == attention_weight_bytes(
            grid.batch, point["tgt_len"], point["src_len"]
        )
        assert point["peak_bytes"] is None  # measured on CUDA only
        assert point["max_abs_diff_sdpa"] < 1e-5 and point["max_abs_diff_naive"] < 1e-5


def test_timings_are_positive_and_medians_of_their_repeats(tiny_result):
    grid = GRIDS["tiny"]
    for point in tiny_result["grid"]:
        for name in VARIANTS:
            times = point[f"{name}_times_s"]
            assert len(times) == grid.repeats and all(t > 0 for t in times)
            assert point[f"{name}_s"] == statistics.median(times)
            assert point[f"{name}_page_faults"] is None or point[f"{name}_page_faults"] >= 0
        assert "sdpa_3d_s" not in point  # timed at the headline point only
        assert point["package_over_sdpa"] == pytest.approx(point["package_s"] / point["sdpa_s"])
    precompute = tiny_result["precompute"]
    assert len(precompute["once_times_s"]) == grid.precompute_repeats
    assert precompute["once_s"] == statistics.median(precompute["once_times_s"])
    assert precompute["every_step_s"] == statistics.median(precompute["every_step_times_s"])


def test_result_holds_the_headline_ratios_and_the_environment(tiny_result):
    ratio_point, precompute = tiny_result["ratio_point"], tiny_result["precompute"]
    assert (ratio_point["batch"], ratio_point["tgt_len"], ratio_point["src_len"], ratio_point["dim"]) == (
        32,
        128,
        128,
        64,
    )
    assert tiny_result["sdpa_ratio"] == pytest.approx(ratio_point["package_s"] / ratio_point["sdpa_s"])
    assert len(ratio_point["sdpa_3d_times_s"]) == GRIDS["tiny"].ratio_repeats  # SDPA without a head axis
    assert (precompute["src_len"], precompute["tgt_len"]) == (100, 30)
    assert tiny_result["precompute_speedup"] == pytest.approx(
        precompute["every_step_s"] / precompute["once_s"]
    )
    assert precompute["max_abs_diff"] < 1e-5  # both ways give the same contexts
    assert tiny_result["threads"] == 1 and tiny_result["device"] == "cpu"
    for key in ("date", "device_name", "torch", "python", "load_average", "seconds"):
        assert key in tiny_result
    json.loads(json.dumps(tiny_result))  # serialisable as it is


def test_run_restores_the_thread_count():
    torch.set_num_threads(2)
    run_benchmark("tiny", device="cpu", threads=1)
    assert torch.get_num_threads() == 2


def test_unknown_grid_and_bad_threads_are_value_errors():
    with pytest.raises(ValueError, match="grid"):
        run_benchmark("huge", device="cpu")
    with pytest.raises(ValueError, match="threads"):
        run_benchmark("tiny", device="cpu", threads=0)


def test_default_grid_is_quick_when_asked_and_larger_on_cuda():
    assert default_grid(True, torch.device("cuda")).name == "quick"
    assert default_grid(False, CPU).name == "full"
    assert default_grid(False, torch.device("cuda")).name == "cuda"


def test_time_interleaved_alternates_the_order_and_counts_calls():
    calls = []
    fns = {name: (lambda name=name: calls.append(name)) for name in "abc"}
    timings = time_interleaved(fns, CPU, repeats=3, warmup=1)
    assert calls == list("abc" + "abc" + "cba" + "abc")
    assert {name: len(timing.times) for name, timing in timings.items()} == {"a": 3, "b": 3, "c": 3}
    for timing in timings.values():
        assert timing.median == statistics.median(timing.times)
        assert timing.page_faults is None or len(timing.page_faults) == 3
    with pytest.raises(ValueError, match="repeats"):
        time_interleaved(fns, CPU, repeats=0)


def test_precompute_measurement_compares_like_with_like():
    result = time_key_precompute(
        CPU, repeats=1, batch=2, src_len=5, tgt_len=3, query_dim=4, key_dim=6, attn_dim=3
    )
    assert result.max_abs_diff == 0.0
    assert result.speedup == result.every_step.seconds / result.once.seconds
    assert result.predicted_speedup == pytest.approx(
        precompute_multiply_adds(5, 3, 4, 6, 3, once=False)
        / precompute_multiply_adds(5, 3, 4, 6, 3, once=True)
    )


def test_multiply_add_count_of_projecting_once_saves_all_but_one_projection():
    every = precompute_multiply_adds(100, 30, 128, 256, 64, once=False)
    once = precompute_multiply_adds(100, 30, 128, 256, 64, once=True)
    assert every - once == 29 * 100 * 64 * 256


def test_predicted_precompute_speedup_is_amortised_over_the_decoder_steps():
    src_len, query_dim, key_dim, attn_dim = 40, 256, 512, 128
    projection = src_len * attn_dim * key_dim  # P = S d_a d_h
    rest = attn_dim * query_dim + src_len * attn_dim + src_len * key_dim  # r, the rest of one step
    for tgt_len in (1, 2, 10, 1000):
        expected = tgt_len * (projection + rest) / (projection + tgt_len * rest)
        got = predicted_precompute_speedup(src_len, tgt_len, query_dim, key_dim, attn_dim)
        assert got == pytest.approx(expected, rel=1e-12)
    assert predicted_precompute_speedup(src_len, 1, query_dim, key_dim, attn_dim) == 1.0
    one_step_ratio = (projection + rest) / rest  # the limit as T grows, never reached
    assert predicted_precompute_speedup(src_len, 10, query_dim, key_dim, attn_dim) < one_step_ratio / 5
    with pytest.raises(ValueError, match="at least 1"):
        predicted_precompute_speedup(src_len, 0, query_dim, key_dim, attn_dim)


def test_flop_and_memory_formulas():
    assert attention_flops(32, 128, 128, 64) == 2 * 32 * 128 * 128 * 128
    assert attention_flops(1, 2, 3, 4, value_dim=5) == 2 * 6 * 9
    assert attention_weight_bytes(2, 3, 5) == 120 and attention_weight_bytes(2, 3, 5, element_size=2) == 60


def test_flop_checker_passes_the_right_count_and_explains_a_wrong_one():
    assert check_attention_flops(lambda b, t, s, dk, dv: 2 * b * t * s * (dk + dv)).passed
    wrong = check_attention_flops(lambda b, t, s, dk, dv: b * t * s * (dk + dv))  # multiply-adds, not FLOPs
    assert not wrong.passed and wrong.message.startswith("✗ failed on case 1 of 5")
    assert "you counted multiply-adds: each counts as two operations" in wrong.message
    off_by_one = check_attention_flops(lambda b, t, s, dk, dv: 2 * b * t * s * (dk + dv) + 1)
    assert "expected 4 operations, got 5" in off_by_one.message
    raising = check_attention_flops(lambda *sizes: 1 / 0)
    assert not raising.passed and "your function raised ZeroDivisionError" in raising.message


def test_loglog_slope_recovers_the_exponent():
    lengths = [64, 128, 256, 512]
    assert fit_loglog_slope(lengths, [3.0 * n**2 for n in lengths]) == pytest.approx(2.0)
    assert fit_loglog_slope(lengths, [0.1 * n for n in lengths]) == pytest.approx(1.0)
    with pytest.raises(ValueError):
        fit_loglog_slope([1.0], [1.0])
    with pytest.raises(ValueError):
        fit_loglog_slope([2.0, 2.0], [1.0, 3.0])


def test_saved_result_loads_back_unchanged(tiny_run, tiny_result, tmp_path):
    path = tiny_run.save(tmp_path / "nested" / "bench_cpu.json")
    loaded = BenchmarkResult.load(path)
    assert isinstance(loaded, BenchmarkResult) and loaded.to_dict() == tiny_result
    assert loaded.point(8, 16).seconds("package") == tiny_run.point(8, 16).seconds("package")
    not_a_result = tmp_path / "other.json"
    not_a_result.write_text('{"hello": 1}')
    with pytest.raises(ValueError, match=r"other\.json: not a benchmark result \(it lacks") as caught:
        BenchmarkResult.load(not_a_result)
    assert "sdpa_ratio" not in str(caught.value) and "grid" in str(caught.value)


def test_the_typed_result_reads_like_its_json(tiny_run, tiny_result):
    assert tiny_run.sdpa_ratio == tiny_result["sdpa_ratio"]
    assert tiny_run.environment.threads == tiny_result["threads"] == 1
    for point, values in zip(tiny_run.grid, tiny_result["grid"], strict=True):
        assert (
            point.seconds("naive") == values["naive_s"]
            and point.package_over_sdpa == values["package_over_sdpa"]
        )
    with pytest.raises(KeyError, match="tgt_len=3"):
        tiny_run.point(3, 3)


def test_the_shipped_cuda_result_loads_and_writes_back_the_same_json():
    from importlib import resources

    shipped = json.loads(
        (resources.files("attnbook") / "data" / "bench_cuda.json").read_text(encoding="utf-8")
    )
    assert BenchmarkResult.from_dict(shipped).to_dict() == shipped


def test_packaged_result_is_none_when_absent_and_a_cuda_run_when_present():
    assert packaged_result("no_such_file.json") is None
    recorded = packaged_result()
    if recorded is not None:
        assert recorded.environment.device == "cuda" and recorded.grid


def test_report_quotes_both_ratios_and_every_grid_point(tiny_run, tiny_result):
    report = format_report(tiny_run)
    assert f"sdpa_ratio {tiny_result['sdpa_ratio']:.2f}" in report
    assert f"precompute_speedup {tiny_result['precompute_speedup']:.2f}" in report
    assert len([line for line in report.splitlines() if line.strip()[:1].isdigit()]) == len(
        tiny_result["grid"]
    )


def test_bench_command_json_is_all_of_stdout_and_save_writes_the_same(tmp_path, capsys):
    path = tmp_path / "bench.json"
    assert main(["bench", "--quick", "--grid", "tiny", "--device", "cpu", "--json", "--save", str(path)]) == 0
    captured = capsys.readouterr()
    (line,) = captured.out.strip().splitlines()
    summary = json.loads(line)
    assert {"sdpa_ratio", "precompute_speedup", "grid", "threads", "device_name"} <= set(summary)
    assert summary["grid_config"]["name"] == "tiny"
    assert BenchmarkResult.load(path).to_dict() == summary
    assert any("sdpa_ratio" in line for line in captured.err.splitlines())  # the readable table: on stderr


def test_module_runs_bench_as_a_program():
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "attnbook",
            "bench",
            "--quick",
            "--json",
            "--grid",
            "tiny",
            "--device",
            "cpu",
            "--no-progress",
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout.strip().splitlines()[-1])
    assert summary["sdpa_ratio"] > 0 and summary["precompute_speedup"] > 0
    assert "bench:" not in result.stderr  # no progress bar when --no-progress asks for none
