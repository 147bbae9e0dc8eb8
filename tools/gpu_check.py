"""Run every chapter as a plain Python script on the device at hand, with every assertion active, and
print a table of per-chapter times and the device. Needs torch and the package's dependencies; no
Jupyter kernel, no Jupyter Book. This is how the chapters are verified on a GPU machine.

    make gpu-check                                   # with .venv's Python if there is one
    make gpu-check GPU_PYTHON=python3                # with another Python (torch + `pip install ./code`)
    python tools/gpu_check.py [CHAPTER_NAME_PART ...] # only the chapters whose name contains one of them

Each chapter runs in its own process from an empty temporary folder (as the build and Colab run it),
with the package from code/src when it is not installed. A chapter that fails is reported with its
name and the end of its output (the traceback); the exit status is then 1.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
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


def main(argv: list[str]) -> int:
    selected = [path for path in chapters() if not argv or any(part in path.name for part in argv)]
    env = environment()
    device = subprocess.run(
        [sys.executable, "-c", DEVICE], env=env, capture_output=True, text=True, timeout=300, check=False
    )
    if device.returncode != 0:
        print(device.stdout + device.stderr, file=sys.stderr)
        print("== gpu-check: torch or the package cannot be imported with", sys.executable, file=sys.stderr)
        return 1
    device_line = device.stdout.strip()
    print(f"== gpu-check: {len(selected)} chapters as scripts on {device_line}", flush=True)
    rows = []
    for path in selected:
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
                status, output = (
                    f"FAILED (over {TIMEOUT_S} s)",
                    str(timeout.stdout or "") + str(timeout.stderr or ""),
                )
            seconds = time.perf_counter() - start
        rows.append((path.stem, seconds, status))
        print(f"   {path.stem:36} {seconds:8.1f} s  {status}", flush=True)
        if status != "ok":
            tail = "\n".join(output.splitlines()[-40:])
            print(f"=== {path.name} failed as a script; the end of its output:\n{tail}\n", flush=True)
    print()
    print(f"{'chapter':36} {'seconds':>8}  status      device: {device_line}")
    for name, seconds, status in rows:
        print(f"{name:36} {seconds:8.1f}  {status}")
    failed = [name for name, _, status in rows if status != "ok"]
    print(f"== {len(rows) - len(failed)} of {len(rows)} chapters passed in {sum(r[1] for r in rows):.1f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
