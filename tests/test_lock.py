"""constraints.txt locks the whole stack: every package of the book's environment but torch's family and
the book's own package, at the version installed (tools/lock_stack.py writes it; the set-up reads it)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from book_config import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "tools"))

import lock_stack


def test_constraints_cover_every_installed_package_at_its_installed_version():
    pins, now = lock_stack.read_constraints(), lock_stack.installed()
    assert now, "no package found in this environment"
    missing = sorted(set(now) - set(pins))
    assert not missing, f"installed but not in constraints.txt (run tools/lock_stack.py write): {missing}"
    moved = {name: (pins[name], version) for name, version in now.items() if pins[name] != version}
    assert not moved, f"constraints.txt and the environment disagree (locked, installed): {moved}"


def test_constraints_leave_torch_and_its_cuda_packages_to_the_reader():
    pins = lock_stack.read_constraints()
    assert not [name for name in pins if lock_stack.UNLOCKED.match(name)]
    for name in ("torch", "triton", "nvidia-cublas-cu12", "cuda-bindings", "attnbook"):
        assert lock_stack.UNLOCKED.match(name)
    for name in ("sphinx", "jupyter-book", "nbval", "playwright", "numpy", "myst-nb"):
        assert name in pins and pins[name].count(".") >= 1, name


def test_every_line_of_constraints_is_one_exact_pin():
    for line in (REPO_ROOT / "constraints.txt").read_text().splitlines():
        if line and not line.startswith("#"):
            name, sep, version = line.partition("==")
            assert sep and name == lock_stack.canonical(name) and version and " " not in line, line


def test_the_diff_names_each_package_that_moved_appeared_or_went():
    rows = lock_stack.diff_table({"a": "1.0", "b": "2.0", "c": "3"}, {"a": "1.0", "b": "2.1", "d": "4"})
    assert rows[0] == "3 package(s) differ from constraints.txt:"
    assert rows[-3:] == ["| b | 2.0 | 2.1 |", "| c | 3 | (not installed) |", "| d | (not locked) | 4 |"]
    assert lock_stack.diff_table({"a": "1"}, {"a": "1"}) == [
        "Every package is at the version constraints.txt locks."
    ]


@pytest.mark.slow
def test_installing_with_the_constraints_keeps_the_installed_torch():
    """pip with -c constraints.txt would change nothing here: torch (not locked) is kept as installed."""
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--dry-run",
            "--no-index",
            "--no-build-isolation",
            "-c",
            "constraints.txt",
            "-r",
            "requirements.txt",
            "-r",
            "requirements-test.txt",
        ],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    would = [line for line in result.stdout.splitlines() if line.startswith("Would install")]
    assert all("torch" not in line for line in would), would
