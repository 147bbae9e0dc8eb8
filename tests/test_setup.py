"""The two README commands set themselves up; with too old a Python they stop at once and say why.
The cache of executed chapters is keyed on what the chapters import; every chapter runs as a script."""

from __future__ import annotations

import importlib.metadata
import json
import subprocess
import sys

import pytest
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


# The cache of executed chapters (tools/book_cache.py) and the chapters as scripts (make gpu-check).
TOOLS = REPO_ROOT / "tools"
sys.path.insert(0, str(TOOLS))
import book_cache  # noqa: E402
import chapters_as_scripts  # noqa: E402


def _book_tree(root):
    (root / "code" / "src" / "attnbook" / "data").mkdir(parents=True)
    (root / "code" / "src" / "attnbook" / "attention.py").write_text("SCALE = 1\n")
    (root / "code" / "src" / "attnbook" / "data" / "pairs.tsv").write_text("a\tb\n")
    (root / "code" / "pyproject.toml").write_text("[project]\n")
    (root / "requirements.txt").write_text("torch\n")
    (root / "_config.yml").write_text("title: t\nexecute:\n  timeout: 600\nparse:\n  x: 1\n")
    return root


@pytest.mark.parametrize(
    ("path", "edit"),
    [
        ("code/src/attnbook/attention.py", "SCALE = 2\n"),
        ("code/src/attnbook/layers/attention.py", "SCALE = 3\n"),
        ("code/src/attnbook/data/pairs.tsv", "a\tc\n"),
        ("code/src/attnbook/new_module.py", "X = 1\n"),
        ("requirements.txt", "torch\nnumpy\n"),
        ("_config.yml", "title: t\nexecute:\n  timeout: 30\nparse:\n  x: 1\n"),
    ],
)
def test_the_fingerprint_changes_with_what_the_chapters_import(tmp_path, path, edit):
    root = _book_tree(tmp_path)
    before = book_cache.fingerprint(root)
    assert book_cache.fingerprint(root) == before, "the fingerprint must be stable"
    (root / path).parent.mkdir(parents=True, exist_ok=True)  # a module in a subpackage counts too
    (root / path).write_text(edit)
    assert book_cache.fingerprint(root) != before, f"editing {path} left the fingerprint unchanged"


def test_the_fingerprint_ignores_what_the_chapters_do_not_read(tmp_path):
    root = _book_tree(tmp_path)
    before = book_cache.fingerprint(root)
    (root / "_config.yml").write_text("title: another\nexecute:\n  timeout: 600\nparse:\n  x: 2\n")
    (root / "code" / "src" / "attnbook" / "__pycache__").mkdir()
    (root / "code" / "src" / "attnbook" / "__pycache__" / "attention.cpython-311.pyc").write_bytes(b"\0")
    assert book_cache.fingerprint(root) == before


def test_the_fingerprint_names_the_installed_torch():
    inputs = book_cache.fingerprint_inputs()
    assert inputs["torch"] == importlib.metadata.version("torch")
    assert {"requirements.txt", "requirements-test.txt", "code/src/attnbook/layers/attention.py"} <= set(
        inputs
    )


def test_the_cache_is_cleared_only_when_the_fingerprint_changes(tmp_path):
    cache = tmp_path / ".jupyter_cache"
    assert book_cache.sync_cache("first", cache) is False  # nothing to clear yet
    (cache / "global.db").write_text("records")
    assert book_cache.sync_cache("first", cache) is False
    assert (cache / "global.db").is_file()
    assert book_cache.sync_cache("second", cache) is True
    assert not (cache / "global.db").exists()
    assert (cache / "attnbook-fingerprint").read_text().strip() == "second"


def test_every_chapter_becomes_a_script_that_stops_when_assertions_are_off():
    for chapter in chapters_as_scripts.chapters():
        script = chapters_as_scripts.chapter_to_script(chapter)  # compiles it, too
        assert script.startswith(chapters_as_scripts.ASSERTIONS_ON), chapter.name
        assert "%pip" not in script, f"{chapter.name}: a magic was left in the script"
    result = subprocess.run(
        [sys.executable, "-O", "-c", chapters_as_scripts.ASSERTIONS_ON],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode != 0
    assert "assertions are off" in result.stderr


def test_a_cell_that_must_raise_fails_the_script_when_it_does_not(tmp_path):
    chapter = tmp_path / "01_x.ipynb"
    cell = {
        "cell_type": "code",
        "metadata": {"tags": ["raises-exception"]},
        "source": "x = 1\n",
        "outputs": [],
    }
    chapter.write_text(json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    script = tmp_path / "x.py"
    script.write_text(chapters_as_scripts.chapter_to_script(chapter))
    result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60)
    assert result.returncode != 0
    assert "expected to raise" in result.stderr


# The chapters executed several at a time before the build (tools/execute_chapters.py).
import execute_chapters  # noqa: E402


def _notebook(path, *sources: str):
    import nbformat

    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in sources])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(notebook, path)
    return path


def test_a_chapter_executed_ahead_is_what_the_build_then_finds_in_the_cache(tmp_path):
    import nbformat
    from jupyter_cache import get_cache

    chapter = _notebook(tmp_path / "01_ok.ipynb", "import os\nprint(os.environ['OMP_NUM_THREADS'])", "6 * 7")
    ran, executed, seconds, error = execute_chapters.execute(chapter, timeout=60, threads=1)
    assert (ran, error) == (chapter, "") and seconds > 0
    assert executed.cells[0].outputs[0]["text"] == "1\n"  # the kernel ran on the thread it was given
    assert executed.cells[1].outputs[0]["data"]["text/plain"] == "42"
    cache = tmp_path / ".jupyter_cache"
    book_cache.store_executed(executed, chapter, seconds, "a test", cache=cache)
    # the build looks the chapter up by its code cells, as committed: without outputs
    record = get_cache(str(cache)).match_cache_notebook(nbformat.read(chapter, as_version=4))
    assert record.data["executed_by"] == "a test"


def test_a_chapter_that_fails_ahead_is_left_to_the_build_with_its_error(tmp_path):
    chapter = _notebook(tmp_path / "02_bad.ipynb", "assert 1 + 1 == 3, 'arithmetic'")
    _, executed, _, error = execute_chapters.execute(chapter, timeout=60, threads=1)
    assert executed is None
    assert "AssertionError: arithmetic" in error


def test_the_longest_chapters_start_first(tmp_path):
    (tmp_path / "chapters").mkdir()
    short, long, untimed = (
        _notebook(tmp_path / "chapters" / f"{name}.ipynb", "1") for name in ("01_short", "02_long", "03_new")
    )
    report = tmp_path / "execution-report.json"
    rows = [
        {"chapter": "chapters/01_short", "seconds": 5.0},
        {"chapter": "chapters/02_long", "seconds": 90.0},
    ]
    report.write_text(json.dumps({"chapters": rows}))
    assert execute_chapters.longest_first([short, long, untimed], report) == [untimed, long, short]
    assert execute_chapters.cell_timeout() == 600  # _config.yml's execute: timeout


def test_a_chapter_past_the_timeout_is_left_to_the_build_with_its_error(tmp_path):
    chapter = _notebook(tmp_path / "03_slow.ipynb", "import time\ntime.sleep(30)")
    _, executed, seconds, error = execute_chapters.execute(chapter, timeout=1, threads=1)
    assert executed is None and seconds < 30
    assert "Timeout" in error, error


def test_the_steps_table_gives_each_steps_seconds_and_cpu_seconds_and_stops_at_a_failure():
    busy = f"{sys.executable} -c 'import time; t = time.process_time(); exec(\"while time.process_time() - t < 1.2: pass\")'"
    result = subprocess.run(
        [
            str(REPO_ROOT / "tools" / "steps.sh"),
            "busy",
            busy,
            "waits",
            "sleep 1",
            "fails",
            "exit 3",
            "never",
            "true",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 3
    rows = {line.split()[0]: line.split() for line in result.stdout.splitlines() if line.split()}
    assert rows["step"] == ["step", "seconds", "CPU", "seconds", "cores"]
    # the machine's busy time while the step ran: at least its own process's (other processes count too)
    assert int(rows["busy"][2]) >= 1
    assert int(rows["waits"][1]) >= 1
    assert "(FAILED," in result.stdout and "never" not in rows
    assert int(rows["total"][2]) >= int(rows["busy"][2])
