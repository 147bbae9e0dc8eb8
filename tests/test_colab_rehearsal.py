"""A rehearsal of opening a chapter in Google Colab.

Colab starts a kernel in which `google.colab` is imported and the book's package is not installed; the
chapter's first cell then installs the package from the repository with pip, non-editable, and the rest of
the chapter must run. This test builds that situation here:

- a fresh virtual environment that sees the packages of the book's .venv (by symbolic links, so that
  little is downloaded) except attnbook itself and what Colab does not preinstall (myst-nb, Sphinx,
  sacrebleu, ...): the chapter must not need the book's build tools, and pip must fetch what it lacks;
- a stand-in `google.colab` module, imported at interpreter start as Colab does;
- the install URL of the chapter's first cell pointed at a local git repository (`git+file://`) holding the
  working tree's `code/` folder on a branch `main`;
- the kernel started in an empty folder, as Colab runs from /content.

It then checks that attnbook was not importable before, that the first cell installed it (into the new
environment, not as an editable link to the checkout), and that the whole chapter ran.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import nbformat
import pytest
from book_config import CHAPTERS, REPO_ROOT, book_config
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import KernelManager
from nbclient import NotebookClient

# The book's quickest chapter (about 10 s under nbval, against chapter 1's 40 s): what this test rehearses
# is the first cell's install, the same in every chapter, and a whole chapter run after it; `make
# colab-check` (tools/colab_check.py) runs every chapter this way.
REHEARSED_CHAPTER = next(chapter for chapter in CHAPTERS if chapter.name.startswith("04_"))
# Not in the new environment: the package itself, and what Colab does not preinstall (the book's build
# and test tools, and the package's dependencies that Colab lacks, which pip must then install).
HIDDEN = (
    "attnbook",
    "__editable__",
    "__pycache__",
    "myst_nb",
    "myst_parser",
    "jupyter_book",
    "jupyter_cache",
    "sphinx",
    "nbval",
    "hypothesis",
    "playwright",
    "sacrebleu",
)
STANDIN = 'import sys, types; sys.modules.setdefault("google.colab", types.ModuleType("google.colab"))\n'


def make_colab_like_env(root: Path) -> Path:
    """A venv that shares the book's packages, except attnbook, and imports a stand-in google.colab."""
    env = root / "env"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env)], check=True)
    env_python = env / "bin" / "python"
    target = Path(
        subprocess.run(
            [env_python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
    )
    source = Path(sysconfig.get_paths()["purelib"])
    for entry in source.iterdir():
        if not entry.name.startswith(HIDDEN):
            (target / entry.name).symlink_to(entry)
    (target / "google_colab_standin.pth").write_text(STANDIN)
    return env_python


def make_local_repository(root: Path) -> Path:
    """A git repository on branch main holding the working tree's package, as GitHub would serve it."""
    repo = root / "repo"
    shutil.copytree(
        REPO_ROOT / "code", repo / "code", ignore=shutil.ignore_patterns("*.egg-info", "__pycache__", "build")
    )
    git = ["git", "-c", "user.name=rehearsal", "-c", "user.email=rehearsal@example.invalid"]
    subprocess.run([*git, "init", "--quiet", "-b", "main", str(repo)], check=True)
    subprocess.run([*git, "-C", str(repo), "add", "."], check=True)
    subprocess.run([*git, "-C", str(repo), "commit", "--quiet", "-m", "package"], check=True)
    return repo


def imports_attnbook(python: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            python,
            "-c",
            "import sys, attnbook; assert 'google.colab' in sys.modules; print(attnbook.__file__)",
        ],
        capture_output=True,
        text=True,
        cwd="/",
    )


@pytest.mark.slow
def test_first_cell_installs_the_package_in_colab_and_the_chapter_runs(tmp_path):
    env_python = make_colab_like_env(tmp_path)
    before = imports_attnbook(env_python)
    assert before.returncode != 0 and "No module named 'attnbook'" in before.stderr, before.stderr

    repo = make_local_repository(tmp_path)
    notebook = nbformat.read(REHEARSED_CHAPTER, as_version=4)
    first_code = next(cell for cell in notebook.cells if cell.cell_type == "code")
    github_url = book_config()["repository"]["url"]
    assert github_url in first_code.source
    first_code.source = first_code.source.replace(github_url, f"file://{repo}")

    kernels = tmp_path / "kernels" / "colab-rehearsal"
    kernels.mkdir(parents=True)
    kernel_argv = [str(env_python), "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    (kernels / "kernel.json").write_text(
        json.dumps({"argv": kernel_argv, "display_name": "Colab rehearsal", "language": "python"})
    )
    manager = KernelManager(
        kernel_name="colab-rehearsal",
        kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(kernels.parent)]),
    )
    content = tmp_path / "content"  # Colab's working directory is /content, not the notebook's folder
    content.mkdir()
    client = NotebookClient(notebook, km=manager, timeout=600, resources={"metadata": {"path": str(content)}})
    client.execute()  # raises CellExecutionError, naming the cell, if any cell fails

    after = imports_attnbook(env_python)
    assert after.returncode == 0, after.stderr
    installed_at = Path(after.stdout.strip())
    assert installed_at.is_relative_to(tmp_path / "env"), (
        f"attnbook came from {installed_at}, not the new env"
    )
    assert not any(path.is_symlink() for path in installed_at.parents if path.is_relative_to(tmp_path))
    install_output = "".join(
        output.get("text", "") for output in first_code.get("outputs", []) if output.get("name") == "stdout"
    )
    assert "error" not in install_output.lower(), install_output
