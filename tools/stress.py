"""Run every chapter under nbval on a busy machine, so that no claim holds only on a quiet one.

    make stress                                   # rounds memory and threads, every chapter
    python tools/stress.py 03 appendix            # only the chapters whose file name contains one of these
    python tools/stress.py --rounds busy,threads  # other rounds (see ROUNDS)
    python tools/stress.py --minutes 60           # stop everything after an hour (the default: 120)

Each round (by default ``memory`` then ``threads``) starts its neighbours, then runs the chapters one after another, each under nbval in a fresh
kernel from its own temporary folder, and prints a table of each chapter's time and result, and at the end
a table of every time claim the chapters asserted (attnbook.benchmark.record_claim): its measured value,
its bound and the margin, the closest to its bound first (each chapter's claims in LOGS/ROUND/*.claims.jsonl):

- ``busy``: one busy process on every core (a loop that never sleeps), one thread per chapter
  (``OMP_NUM_THREADS=1``, as ``make test`` runs them);
- ``memory``: the same, plus a process that copies a 256 MiB array back and forth, so that the chapters
  compete for memory bandwidth and caches as well as for the cores;
- ``threads``: ``OMP_NUM_THREADS`` unset, so that torch uses every core, as on a reader's machine, and its
  sums run in another order: a threshold over a trained model must hold with any thread count. This round
  has no busy neighbours: with a busy process on every core, each of torch's parallel regions waits for a
  thread the system has put aside, so the many small operations of the book's models slow down a
  thousandfold (chapter 1, with every thread beside two busy processes, had not finished in 20 minutes what
  it finishes in 2 with one thread); that is a setting no reader runs, and the busy rounds measure load.

The neighbours stop by themselves: each ends when its round ends, when the time allowed to the whole run
(``--minutes``) is over, or when this script is gone (each checks every tenth of a second that its parent
is still alive), so an interrupted run leaves nothing behind. Each chapter also has a time limit; a chapter
that runs past it counts as failed. The exit status is 1 when any chapter failed.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from claims_log import CLAIMS_LOG, claims_table, closest_summary, read_claims

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = sorted((ROOT / "chapters").glob("*.ipynb"))

# A neighbour that keeps one core busy. It ends at its deadline, or as soon as its parent is gone.
CPU_HOG = """
import os, sys, time
parent, deadline = int(sys.argv[1]), float(sys.argv[2])
while time.time() < deadline and os.getppid() == parent:
    end = time.perf_counter() + 0.1
    while time.perf_counter() < end:
        pass
"""

# A neighbour that moves memory: two 256 MiB arrays copied into each other, far beyond any cache.
MEMORY_HOG = """
import os, sys, time
import numpy as np
parent, deadline = int(sys.argv[1]), float(sys.argv[2])
source, target = np.ones(2**25), np.zeros(2**25)  # 2**25 float64 numbers: 256 MiB each
chunk = 2**21  # 16 MiB at a time, checking between chunks that it should go on
while True:
    for start in range(0, source.size, chunk):
        if time.time() >= deadline or os.getppid() != parent:
            sys.exit()
        np.copyto(target[start : start + chunk], source[start : start + chunk])
    source, target = target, source
"""


@dataclass(frozen=True)
class Round:
    name: str
    cpu_hogs: bool
    memory_hog: bool
    all_threads: bool
    what: str


ROUNDS = {
    "busy": Round("busy", True, False, False, "a busy process on every core, one thread"),
    "memory": Round("memory", True, True, False, "a busy process on every core and a memory hog, one thread"),
    "threads": Round("threads", False, False, True, "OMP_NUM_THREADS unset, no neighbours"),
}


def start_neighbours(round_: Round, deadline: float) -> list[subprocess.Popen]:
    """One busy process per core and the memory hog, those the round has; each ends at ``deadline``."""
    argv = [str(os.getpid()), repr(deadline)]
    cpu_hogs = [CPU_HOG] * (os.cpu_count() or 1) if round_.cpu_hogs else []
    hogs = cpu_hogs + ([MEMORY_HOG] if round_.memory_hog else [])
    return [
        subprocess.Popen(
            [sys.executable, "-c", code, *argv], stdout=subprocess.DEVNULL, start_new_session=True
        )
        for code in hogs
    ]


def stop(processes: list[subprocess.Popen]) -> None:
    for process in processes:
        if process.poll() is None:
            process.terminate()
    for process in processes:
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()


def chapter_environment(round_: Round) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONOPTIMIZE", None)  # assertions stay on
    env["ATTNBOOK_TEXT_PROGRESS"] = "1"  # as in the build
    env["MPLBACKEND"] = "Agg"
    for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        env.pop(name, None)
    if not round_.all_threads:
        env["OMP_NUM_THREADS"] = "1"
    return env


def _own_group_ended_with_us() -> None:
    """In the chapter's process, before pytest starts: its own process group, and on Linux a SIGTERM when
    this script dies, however it dies (the kernel nbval starts ends when pytest does)."""
    os.setsid()
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None).prctl(1, signal.SIGTERM)  # 1 = PR_SET_PDEATHSIG


def run_chapter(path: Path, env: dict[str, str], timeout_s: float, logs: Path) -> tuple[float, str]:
    """The chapter under nbval (--nbval-lax), copied alone into a new folder, in its own process group."""
    with tempfile.TemporaryDirectory(prefix="stress-") as folder:
        copy = Path(folder) / path.name
        shutil.copyfile(path, copy)
        command = [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-c",
            str(ROOT / "pytest.ini"),
            "--rootdir",
            folder,
            "--nbval-lax",
            str(copy),
        ]
        env = env | {CLAIMS_LOG: str(logs / f"{path.stem}.claims.jsonl")}
        (logs / f"{path.stem}.claims.jsonl").unlink(missing_ok=True)
        start = time.perf_counter()
        with open(logs / f"{path.stem}.log", "w") as log:
            process = subprocess.Popen(
                command,
                cwd=folder,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                preexec_fn=_own_group_ended_with_us,
            )
            try:
                code = process.wait(timeout=max(timeout_s, 1))
                status = "ok" if code == 0 else f"FAILED (exit {code})"
            except subprocess.TimeoutExpired:
                status = f"FAILED (over {timeout_s:.0f} s)"
            finally:  # over time, or this script interrupted: end pytest and its kernel too
                if process.poll() is None:
                    os.killpg(process.pid, signal.SIGKILL)
                    process.wait()
        return time.perf_counter() - start, status


def failure_summary(log: Path) -> str:
    """The lines of a failed chapter's log that name the failing cell and the error."""
    lines = log.read_text(errors="replace").splitlines()
    keep = [line for line in lines if line.startswith(("FAILED", "E ")) or "Error" in line[:40]]
    return "\n".join(f"      {line}" for line in keep[-12:])


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("parts", nargs="*", help="only the chapters whose file name contains one of these")
    parser.add_argument("--rounds", default="memory,threads", help=f"comma-separated, of {sorted(ROUNDS)}")
    parser.add_argument("--minutes", type=float, default=120.0, help="time allowed to the whole run")
    parser.add_argument("--chapter-minutes", type=float, default=20.0, help="time allowed to one chapter")
    parser.add_argument("--logs", type=Path, default=ROOT / "_build" / "stress", help="each chapter's output")
    args = parser.parse_args(argv)
    # Ctrl-C and a plain kill end the run through the `finally` clauses below, which stop the neighbours
    # and the chapter (a SIGINT ignored by a background shell is taken back, too).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, lambda number, frame: sys.exit(f"stress: ended by signal {number}"))
    names = [name for name in args.rounds.split(",") if name]
    unknown = sorted(set(names) - set(ROUNDS))
    if unknown:
        parser.error(f"--rounds: unknown round(s) {unknown}; choose from {sorted(ROUNDS)}")
    chapters = [p for p in CHAPTERS if not args.parts or any(part in p.name for part in args.parts)]
    if not chapters:
        parser.error(f"no chapter matches {args.parts}")

    deadline = time.time() + 60 * args.minutes
    print(f"stress: {len(chapters)} chapter(s), rounds {names}, {os.cpu_count()} cores", flush=True)
    results: list[tuple[str, str, float, str]] = []
    claims: list[dict] = []
    started = time.perf_counter()
    for name in names:
        round_ = ROUNDS[name]
        logs = args.logs / name
        logs.mkdir(parents=True, exist_ok=True)
        print(f"\nround {name}: {round_.what}", flush=True)
        neighbours = start_neighbours(round_, deadline)
        try:
            env = chapter_environment(round_)
            for path in chapters:
                left = deadline - time.time()
                if left <= 0:
                    results.append((name, path.stem, 0.0, "NOT RUN (time allowed is over)"))
                    print(f"   {path.stem:36} not run: the time allowed is over", flush=True)
                    continue
                seconds, status = run_chapter(path, env, min(left, 60 * args.chapter_minutes), logs)
                results.append((name, path.stem, seconds, status))
                claims += read_claims(logs / f"{path.stem}.claims.jsonl", round=name, chapter=path.stem)
                print(f"   {path.stem:36} {seconds:8.1f} s  {status}", flush=True)
                if status != "ok":
                    print(failure_summary(logs / f"{path.stem}.log"), flush=True)
        finally:
            stop(neighbours)

    failed = [r for r in results if r[3] != "ok"]
    print(f"\n{'round':8} {'chapter':36} {'seconds':>8}  result")
    for round_name, chapter, seconds, status in results:
        print(f"{round_name:8} {chapter:36} {seconds:8.1f}  {status}")
    print("\ntime claims, closest to their bounds first (margin: times over the bound)")
    print("\n".join(claims_table(claims, ("round", "chapter"))))
    print(closest_summary(claims))
    total = time.perf_counter() - started
    print(
        f"\n{len(results) - len(failed)} of {len(results)} passed in {total / 60:.1f} min; logs in {args.logs}"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
