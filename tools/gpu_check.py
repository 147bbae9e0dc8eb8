"""Run every chapter as a plain Python script on the device at hand, with every assertion active, and
print a table of per-chapter times and the device. Needs torch and the package's dependencies; no
Jupyter kernel, no Jupyter Book. This is how the chapters are verified on a GPU machine.

    make gpu-check                                   # with .venv's Python if there is one
    make gpu-check GPU_PYTHON=python3                # with another Python (torch + `pip install ./code`)
    python tools/gpu_check.py [CHAPTER_NAME_PART ...] # only the chapters whose name contains one of them
    python tools/gpu_check.py --jobs 3 --logs DIR     # three chapters at a time; each one's output to DIR

Each chapter runs in its own process from an empty temporary folder (as the build and Colab run it),
with the package from code/src when it is not installed. A chapter that fails is reported with its
name and the end of its output (the traceback); the exit status is then 1. With ``--jobs`` above 1 the
chapters share the device, so their times are those of a shared device, and the table says so.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from chapters_as_scripts import ROOT, chapter_to_script, chapters

DEVICE = """
import platform, torch, attnbook
device = attnbook.get_device()
name = torch.cuda.get_device_name(device) if device.type == "cuda" else (platform.processor() or platform.machine())
print(f"{device} ({name}), torch {torch.__version__}, {torch.get_num_threads()} threads")
"""
TIMEOUT_S = 1800


def environment() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONOPTIMIZE", None)  # assertions stay on
    env["MPLBACKEND"] = "Agg"
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "code" / "src"), env.get("PYTHONPATH")]))
    env["PYTHONUNBUFFERED"] = "1"
    return env


def run_chapter(path: Path, env: dict[str, str], logs: Path | None) -> tuple[str, float, str, str]:
    """Run one chapter as a script; return its name, seconds, status and output."""
    with tempfile.TemporaryDirectory(prefix="gpu-check-") as folder:
        script = Path(folder) / (path.stem + ".py")
        script.write_text(chapter_to_script(path))
        start = time.perf_counter()
        try:
            result = subprocess.run(
                [sys.executable, script.name],
                cwd=folder,
                env=env,
                capture_output=True,
                text=True,
                timeout=TIMEOUT_S,
                check=False,
            )
            status = "ok" if result.returncode == 0 else f"FAILED (exit {result.returncode})"
            output = result.stdout + result.stderr
        except subprocess.TimeoutExpired as timeout:
            status = f"FAILED (over {TIMEOUT_S} s)"
            output = str(timeout.stdout or "") + str(timeout.stderr or "")
        seconds = time.perf_counter() - start
    if logs is not None:
        (logs / f"{path.stem}.log").write_text(output)
    print(f"   {path.stem:36} {seconds:8.1f} s  {status}", flush=True)
    return path.stem, seconds, status, output


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "parts", nargs="*", help="run only the chapters whose file name contains one of these"
    )
    parser.add_argument("--jobs", type=int, default=1, help="chapters run at the same time (default 1)")
    parser.add_argument("--logs", type=Path, help="write each chapter's output to LOGS/<chapter>.log")
    args = parser.parse_args(argv)
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    if args.logs is not None:
        args.logs.mkdir(parents=True, exist_ok=True)
    selected = [
        path for path in chapters() if not args.parts or any(part in path.name for part in args.parts)
    ]
    env = environment()
    device = subprocess.run(
        [sys.executable, "-c", DEVICE], env=env, capture_output=True, text=True, timeout=300, check=False
    )
    if device.returncode != 0:
        print(device.stdout + device.stderr, file=sys.stderr)
        print("== gpu-check: torch or the package cannot be imported with", sys.executable, file=sys.stderr)
        return 1
    device_line = device.stdout.strip()
    sharing = f", {args.jobs} at a time on one device" if args.jobs > 1 else ""
    print(f"== gpu-check: {len(selected)} chapters as scripts on {device_line}{sharing}", flush=True)
    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        rows = list(pool.map(lambda path: run_chapter(path, env, args.logs), selected))
    wall = time.perf_counter() - started
    for name, _, status, output in rows:
        if status != "ok":
            tail = "\n".join(output.splitlines()[-40:])
            print(f"=== {name} failed as a script; the end of its output:\n{tail}\n", flush=True)
    print()
    print(f"{'chapter':36} {'seconds':>8}  status      device: {device_line}{sharing}")
    for name, seconds, status, _ in rows:
        print(f"{name:36} {seconds:8.1f}  {status}")
    failed = [name for name, _, status, _ in rows if status != "ok"]
    print(
        f"== {len(rows) - len(failed)} of {len(rows)} chapters passed; {sum(r[1] for r in rows):.1f} s of "
        f"chapter time in {wall:.1f} s of wall time"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
