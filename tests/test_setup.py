"""The two README commands set themselves up; with too old a Python they stop at once and say why."""

from __future__ import annotations

import subprocess

from book_config import REPO_ROOT

OLD_PYTHON = """#!/bin/sh
# stands in for Python 3.8: answers the set-up script's version checks as 3.8 would
case "$*" in
  *"sys.version_info < (3, 10)"*) exit 1 ;;
  *platform.python_version*) echo 3.8.18 ;;
  *) echo "this stand-in only answers version checks" >&2; exit 3 ;;
esac
"""


def test_make_with_too_old_a_python_stops_at_once_naming_the_version_needed(tmp_path):
    old_python = tmp_path / "python3.8"
    old_python.write_text(OLD_PYTHON)
    old_python.chmod(0o755)
    for target in ("book", "test"):
        result = subprocess.run(
            ["make", "--no-print-directory", target, f"PYTHON={old_python}"],
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert result.returncode != 0
        assert "the book needs Python 3.10 or newer" in result.stderr
        assert "is 3.8.18" in result.stderr


def test_a_missing_interpreter_is_named():
    result = subprocess.run(
        ["tools/setup_env.sh", "book"],
        cwd=REPO_ROOT,
        env={"PATH": "/usr/bin:/bin", "PYTHON": "no-such-python3"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1
    assert "'no-such-python3' was not found" in result.stderr
