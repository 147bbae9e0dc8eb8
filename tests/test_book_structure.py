"""Guards of the book itself: how chapters are stored, that each can be opened in Colab, and that the
table of contents and the configuration keep the promises the README makes."""

from __future__ import annotations

import re

import pytest
from book_config import CHAPTERS, REPO_ROOT, book_config, install_url, load_cells, source, toc_files

chapter_ids = [path.name for path in CHAPTERS]


def test_there_are_chapters():
    assert CHAPTERS, "no chapters/NN_*.ipynb found"


def test_chapters_are_numbered_consecutively_from_one():
    numbers = [int(path.name[:2]) for path in CHAPTERS]
    assert numbers == list(range(1, len(numbers) + 1))


@pytest.mark.parametrize("notebook", CHAPTERS, ids=chapter_ids)
def test_chapter_is_committed_without_outputs(notebook):
    dirty = [
        index
        for index, cell in enumerate(load_cells(notebook))
        if cell["cell_type"] == "code" and (cell.get("outputs") or cell.get("execution_count"))
    ]
    assert not dirty, f"{notebook.name}: cells {dirty} hold outputs; clear them (the build executes chapters)"


@pytest.mark.parametrize("notebook", CHAPTERS, ids=chapter_ids)
def test_chapter_opens_with_a_title_then_the_colab_cell(notebook):
    cells = load_cells(notebook)
    assert cells[0]["cell_type"] == "markdown" and source(cells[0]).startswith("# "), (
        "first cell: an H1 title"
    )
    first_code = next(cell for cell in cells if cell["cell_type"] == "code")
    text = source(first_code)
    assert 'if "google.colab" in sys.modules:' in text, "the install must run only inside Colab"
    assert f'%pip install --quiet "{install_url()}"' in text, (
        f"{notebook.name}: the Colab cell must install {install_url()!r}, the repository of _config.yml"
    )
    assert "remove-cell" in first_code.get("metadata", {}).get("tags", []), "hide the Colab cell in the HTML"


@pytest.mark.parametrize("notebook", CHAPTERS, ids=chapter_ids)
def test_chapter_is_in_the_table_of_contents(notebook):
    assert f"chapters/{notebook.stem}" in toc_files()


def test_every_file_in_the_table_of_contents_exists():
    for name in toc_files():
        candidates = [REPO_ROOT / f"{name}{suffix}" for suffix in (".md", ".ipynb")]
        assert any(path.exists() for path in candidates), f"_toc.yml names {name}, which does not exist"


@pytest.mark.parametrize("notebook", CHAPTERS, ids=chapter_ids)
def test_chapter_has_exercises_with_collapsed_solutions(notebook):
    solutions = [
        cell
        for cell in load_cells(notebook)
        if cell["cell_type"] == "code" and source(cell).startswith("# @title Solution")
    ]
    assert solutions, f"{notebook.name}: no solution cells ('# @title Solution ...')"
    for cell in solutions:
        assert 'display-mode: "form"' in source(cell).splitlines()[0], "collapse the solution in Colab"
        tags = set(cell.get("metadata", {}).get("tags", []))
        assert tags & {"hide-input", "hide-cell"}, "collapse the solution in the HTML"


@pytest.mark.parametrize("notebook", CHAPTERS, ids=chapter_ids)
def test_chapter_imports_the_package_and_redefines_none_of_its_classes(notebook):
    import attnbook

    package_classes = {name for name in dir(attnbook) if isinstance(getattr(attnbook, name), type)}
    code = "\n".join(source(cell) for cell in load_cells(notebook) if cell["cell_type"] == "code")
    assert re.search(r"^from attnbook|^import attnbook", code, re.MULTILINE)
    redefined = set(re.findall(r"^class (\w+)", code, re.MULTILINE)) & package_classes
    assert not redefined, f"{notebook.name} redefines package classes {sorted(redefined)}"


def test_book_executes_every_chapter_from_a_temporary_folder_and_fails_on_errors():
    execute = book_config()["execute"]
    assert execute["execute_notebooks"] == "force"
    assert execute["run_in_temp"] is True, (
        "chapters must not depend on their own folder (Colab runs in /content)"
    )
    assert execute["allow_errors"] is False


def test_repository_settings_point_colab_at_main():
    config = book_config()
    assert config["repository"]["branch"] == "main"
    assert config["repository"]["url"].startswith("https://github.com/")
    assert config["launch_buttons"]["colab_url"] == "https://colab.research.google.com"
    assert config["html"]["use_repository_button"] and config["html"]["use_issues_button"]


def test_requirements_pin_jupyter_book_1_and_leave_torch_to_the_user():
    requirements = (REPO_ROOT / "requirements.txt").read_text()
    assert "jupyter-book>=1.0.4.post1,<2" in requirements
    package = (REPO_ROOT / "code" / "pyproject.toml").read_text()
    assert re.search(r'"torch(>=[\d.]+)?"', package), "the package must not pin torch to one version"
