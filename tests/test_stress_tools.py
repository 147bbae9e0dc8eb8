"""The tools that run the chapters away from a quiet machine: `tools/stress.py` (busy neighbours) and
`tools/colab_check.py` (Colab's environment). Their long runs are `make stress` and `make colab-check`;
these tests pin the parts that must hold for those runs to mean anything."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

TOOLS = Path(__file__).resolve().parents[1] / "tools"
sys.path.insert(0, str(TOOLS))

import colab_check  # noqa: E402
import stress  # noqa: E402

PARENT = f"""
import sys, time
sys.path.insert(0, {str(TOOLS)!r})
import stress
neighbours = stress.start_neighbours(stress.ROUNDS["busy"], time.time() + 600)
print(" ".join(str(n.pid) for n in neighbours), flush=True)
"""


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    state = Path(f"/proc/{pid}/stat")
    return not (state.exists() and state.read_text().split()[2] == "Z")


@pytest.mark.skipif(not Path("/proc").exists(), reason="reads process states from /proc")
def test_busy_neighbours_stop_by_themselves_when_the_stress_run_is_gone():
    parent = subprocess.run([sys.executable, "-c", PARENT], capture_output=True, text=True, check=True)
    pids = [int(pid) for pid in parent.stdout.split()]
    assert len(pids) == (os.cpu_count() or 1)  # one per core, and the parent has already exited
    deadline = time.monotonic() + 20
    while any(alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not any(alive(pid) for pid in pids), "a busy neighbour outlived the run that started it"


def test_stress_rounds_cover_a_memory_hog_and_every_thread():
    assert any(round_.memory_hog for round_ in stress.ROUNDS.values())
    threads = stress.chapter_environment(stress.ROUNDS["threads"])
    assert "OMP_NUM_THREADS" not in threads and "MKL_NUM_THREADS" not in threads
    assert stress.chapter_environment(stress.ROUNDS["memory"])["OMP_NUM_THREADS"] == "1"
    # load in the one-thread rounds; every thread on a machine left to the chapter
    assert stress.ROUNDS["memory"].cpu_hogs and not stress.ROUNDS["threads"].cpu_hogs


@pytest.mark.parametrize("chapter", colab_check.CHAPTERS, ids=lambda path: path.stem)
def test_colab_check_points_each_chapters_install_line_at_the_commit_under_test(chapter):
    notebook = json.loads(chapter.read_text())
    first_code = next(cell for cell in notebook["cells"] if cell["cell_type"] == "code")
    source = "".join(first_code["source"])
    url = "git+file:///clone@0123abcd"
    rewritten = colab_check.INSTALL_URL.sub(lambda match: url + match.group(1), source)
    assert f'"attnbook @ {url}#subdirectory=code"' in rewritten
    assert "github.com" not in rewritten
