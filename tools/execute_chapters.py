"""Executes the chapters the cache of executed chapters lacks, several at a time, before the book build.

Jupyter Book executes the chapters it needs one after another, each kernel free to use every core; but
most of a chapter's time is spent on small tensors that one thread runs as fast as two, so on a machine
with two cores the build waits twice as long as it needs to. `tools/build_book.sh` calls this first: it
finds the chapters with no executed copy under the current fingerprint (tools/book_cache.py), executes
them in as many processes as the machine has cores (at most one per chapter, the longest first), each
kernel on its share of the threads, as the build would (a fresh kernel in a temporary folder, the
`execute:` timeout of _config.yml), and stores each chapter that ran to the end in the cache, where the
build then takes it from. A chapter that fails is not stored: the build executes it again and shows
its traceback with the page it belongs to. With one chapter or one core there is nothing to share out,
and the build executes as before.

    python tools/execute_chapters.py            # the stale chapters, on every core
    python tools/execute_chapters.py --jobs 1   # nothing: the build executes them one by one
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

import book_cache

ROOT = book_cache.ROOT
ANSI = re.compile(r"\x1b\[[0-9;]*m")  # the colours of IPython's tracebacks


def cell_timeout(root: Path = ROOT) -> int:
    """The `execute: timeout:` of _config.yml, in seconds per cell (myst-nb's default, 30, if unset)."""
    found = re.search(r"^\s+timeout:\s*(\d+)", book_cache._execute_settings(root), re.MULTILINE)
    return int(found.group(1)) if found else 30


def longest_first(chapters: list[Path], report: Path = book_cache.REPORT) -> list[Path]:
    """The chapters in the order to start them: the longest last time first (the last build's execution
    report), then those it did not time, the largest notebook first."""
    seconds: dict[str, float] = {}
    if report.is_file():
        for row in json.loads(report.read_text())["chapters"]:
            seconds[row["chapter"]] = row["seconds"] or 0.0

    def key(chapter: Path) -> tuple[float, int]:
        name = chapter.relative_to(chapter.parents[1]).with_suffix("").as_posix()
        return (-seconds.get(name, float("inf")), -chapter.stat().st_size)

    return sorted(chapters, key=key)


def execute(chapter: Path, timeout: int, threads: int) -> tuple[Path, dict | None, float, str]:
    """Run one chapter in a fresh kernel from a temporary folder, its torch and BLAS on ``threads``
    threads: the executed notebook (None if a cell failed), the seconds, and the error's last line."""
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    os.environ["OMP_NUM_THREADS"] = str(threads)  # the kernel inherits this process's environment
    notebook = nbformat.read(chapter, as_version=4)
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="chapter-") as folder:
        client = NotebookClient(
            notebook,
            timeout=timeout,
            kernel_name="python3",
            record_timing=False,
            resources={"metadata": {"path": folder}},
        )
        try:
            client.execute()
        except Exception as error:  # a failing cell, a cell past the timeout, a kernel that died
            text = ANSI.sub("", str(error)).strip()
            last = text.splitlines()[-1] if isinstance(error, CellExecutionError) and text else None
            return chapter, None, time.perf_counter() - start, last or f"{type(error).__name__}: {text}"
    return chapter, notebook, time.perf_counter() - start, ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--jobs", type=int, default=os.cpu_count() or 1, help="processes (default: the cores)"
    )
    args = parser.parse_args(argv)
    stale = book_cache.stale_chapters()
    jobs = min(args.jobs, len(stale))
    if jobs < 2:
        return 0  # one chapter at a time is what the build does by itself
    fingerprint = book_cache.fingerprint()
    threads = max(1, (os.cpu_count() or 1) // jobs)
    order = longest_first(stale)
    print(f"== executing {len(order)} chapters, {jobs} at a time, each on {threads} thread(s)", flush=True)
    start = time.perf_counter()
    failed = []
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(execute, chapter, cell_timeout(), threads) for chapter in order]
        for future in as_completed(futures):
            chapter, notebook, seconds, error = future.result()
            name = chapter.relative_to(ROOT).as_posix()
            if notebook is None:
                failed.append(name)
                print(f"   {name:46} {seconds:6.1f} s  FAILED: {error} (the build shows its traceback)")
            elif fingerprint != book_cache.fingerprint() or fingerprint != book_cache._read(
                book_cache.CACHE_STAMP
            ):
                print(f"   {name:46} {seconds:6.1f} s  not stored: the package changed while it ran")
            else:
                book_cache.store_executed(notebook, chapter, seconds, "make book's parallel run")
                print(f"   {name:46} {seconds:6.1f} s", flush=True)
    print(
        f"== {len(order) - len(failed)} of {len(order)} chapters executed in {time.perf_counter() - start:.0f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
