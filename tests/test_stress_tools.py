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

import claims_log  # noqa: E402
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


def test_claims_logged_by_a_chapter_are_read_back_and_tabled_closest_first(tmp_path, monkeypatch):
    from attnbook.benchmark import record_claim

    log = tmp_path / "02.claims.jsonl"
    monkeypatch.setenv(claims_log.CLAIMS_LOG, str(log))
    record_claim("faster", 1.2, 1.0, ">")
    record_claim("below the count", 2.0, 8.0, "<")
    with pytest.raises(AssertionError, match=r"slower: 0\.9 is not > 1"):
        record_claim("slower", 0.9, 1.0, ">")
    claims = claims_log.read_claims(log, round="busy", chapter="02")
    assert [c["claim"] for c in claims] == ["faster", "below the count", "slower"]  # the failed one too
    assert claims[0]["round"] == "busy" and claims[1]["margin"] == pytest.approx(4.0)
    table = claims_log.claims_table(claims, ("round", "chapter"))
    assert table[0].split() == ["round", "chapter", "claim", "value", "bound", "margin", "holds"]
    rows = [line.split() for line in table[1:]]
    # closest to its bound first: the failure (0.9 of its bound), then 1.2 times, then 4 times
    assert [row[-2:] for row in rows] == [["0.90", "NO"], ["1.20", "yes"], ["4.00", "yes"]]
    assert rows[0][:2] == ["busy", "02"] and rows[2][-5:-2] == ["2", "<", "8"]
    summary = claims_log.closest_summary(claims, n=2)
    assert summary == "3 time claims, 1 failed; closest to their bounds: slower 0.90x; faster 1.20x"
    assert claims_log.read_claims(tmp_path / "none.jsonl") == []
    assert claims_log.claims_table([]) == ["no time claim was logged"]


def test_without_the_variable_a_claim_is_asserted_and_nothing_is_written(tmp_path, monkeypatch):
    from attnbook.benchmark import record_claim
    from attnbook.benchmark.claims import CLAIMS_LOG

    assert CLAIMS_LOG == claims_log.CLAIMS_LOG
    monkeypatch.delenv(CLAIMS_LOG, raising=False)
    monkeypatch.chdir(tmp_path)
    assert record_claim("faster", 3.0, 1.0) == 3.0
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(AssertionError):
        record_claim("under", 3.0, 1.0, "<")
    with pytest.raises(ValueError, match="'<' or '>'"):
        record_claim("odd", 3.0, 1.0, ">=")


def test_stress_and_colab_check_give_each_chapter_its_claims_log():
    for tool in (stress, colab_check):
        source = Path(tool.__file__).read_text()
        assert "CLAIMS_LOG" in source and "claims_table(" in source and "closest_summary(" in source
