"""Measure what BahdanauAttention's input checks cost, relative to one decoder step.

One decoder step as chapter 6's decoder calls it (batch 32, src_len 20, query, key and attention sizes
128, keys projected once, a padding mask, float32, one CPU thread), timed two ways side by side: the
module's call with its checks, and the same arithmetic (the module's ``_score`` and the shared softmax and
sum) without them, and the checks alone. Prints the medians and the overhead, the number quoted in
``attnbook.layers.attention``. On the CPU it times the thread's CPU time, so that a busy machine's other
processes do not count; memory and cache contention still do.

    .venv/bin/python tools/attention_check_overhead.py [--runs 200] [--steps 20]
"""

from __future__ import annotations

import argparse
import statistics
import time

import torch

from attnbook.layers.attention import softmax_and_sum
from attnbook.layers.bahdanau import BahdanauAttention


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=200, help="timed runs of each way, interleaved")
    parser.add_argument("--steps", type=int, default=20, help="decoder steps per run")
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(0)
    batch, src_len, size = 32, 20, 128
    device = torch.device(args.device)
    attn = BahdanauAttention(size, size, size).to(device)
    keys = torch.randn(batch, src_len, size, device=device)
    query = torch.randn(batch, size, device=device)
    mask = torch.arange(src_len, device=device) < torch.randint(1, src_len + 1, (batch, 1), device=device)

    def checked() -> tuple[torch.Tensor, torch.Tensor]:
        return attn(query, keys, mask=mask, projected_keys=projected)

    def bare() -> tuple[torch.Tensor, torch.Tensor]:
        return softmax_and_sum(attn._score(query.unsqueeze(1), keys, projected), keys, mask, True)

    def checks_alone() -> tuple[torch.Tensor, torch.Tensor, bool]:
        return attn._check_inputs(query, keys, None, mask, {"projected_keys": projected})

    # On the CPU, the thread's CPU time: what other processes on a busy machine take is not counted.
    clock = time.perf_counter if device.type == "cuda" else time.thread_time
    with torch.inference_mode():
        projected = attn.project_keys(keys)
        for got, expected in zip(checked(), bare(), strict=True):
            torch.testing.assert_close(got, expected, rtol=0, atol=0)
        ways = {"checked": checked, "bare": bare, "checks alone": checks_alone}
        seconds: dict[str, list[float]] = {name: [] for name in ways}
        for _ in range(args.runs):
            for name, step in ways.items():
                if device.type == "cuda":
                    torch.cuda.synchronize()
                start = clock()
                for _ in range(args.steps):
                    step()
                if device.type == "cuda":
                    torch.cuda.synchronize()
                seconds[name].append((clock() - start) / args.steps)
    medians = {name: statistics.median(values) for name, values in seconds.items()}
    per_step = ", ".join(f"{name} {value * 1e6:.1f} us" for name, value in medians.items())
    print(f"{device.type}, per step (medians of {args.runs} runs of {args.steps} steps): {per_step}")
    print(
        f"checked / bare - 1: {medians['checked'] / medians['bare'] - 1:.1%}; "
        f"checks alone / bare: {medians['checks alone'] / medians['bare']:.1%}"
    )


if __name__ == "__main__":
    main()
