"""Guards of the book itself: how chapters are stored, that each can be opened in Colab, and that the
table of contents and the configuration keep the promises the README makes."""

from __future__ import annotations

import re

import pytest
import yaml
from book_config import (
    APPENDICES,
    CHAPTERS,
    NUMBERED_CHAPTERS,
    REPO_ROOT,
    book_config,
    install_url,
    load_cells,
    source,
    toc_files,
)

chapter_ids = [path.name for path in CHAPTERS]


def test_there_are_chapters():
    assert CHAPTERS, "no chapters/NN_*.ipynb found"


def test_chapters_are_numbered_consecutively_from_one():
    numbers = [int(path.name[:2]) for path in NUMBERED_CHAPTERS]
    assert numbers == list(range(1, len(numbers) + 1))
    assert set(CHAPTERS) == set((REPO_ROOT / "chapters").glob("*.ipynb")), (
        "a chapter is NN_name or appendix_name"
    )


def test_a_file_number_is_the_chapter_number_the_book_gives_it():
    """The numbered part of the table of contents lists 01, 02, ... in order, so that chapter k of the
    book (and its Colab link) is the file that starts with k; the appendices stand in a part of their own."""
    toc = yaml.safe_load((REPO_ROOT / "_toc.yml").read_text())
    numbered = [part for part in toc["parts"] if part.get("numbered")]
    assert len(numbered) == 1
    files = [entry["file"] for entry in numbered[0]["chapters"]]
    assert files == [f"chapters/{path.stem}" for path in NUMBERED_CHAPTERS]
    appendix_part = next(part for part in toc["parts"] if part["caption"].startswith("Appendi"))
    assert [entry["file"] for entry in appendix_part["chapters"]] == [
        f"chapters/{path.stem}" for path in APPENDICES
    ]


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
def test_chapter_has_exercises_with_solutions_folded_once(notebook):
    """A solution is folded once, by its dropdown: no cell tag folds it again, and no Colab form marker
    hides its code (a reader of the notebook sees what the page shows when unfolded)."""
    solutions = [
        cell
        for cell in load_cells(notebook)
        if cell["cell_type"] == "code" and source(cell).startswith("# Solution to exercise ")
    ]
    assert solutions, f"{notebook.name}: no solution cells ('# Solution to exercise N.M')"
    for cell in solutions:
        assert "display-mode" not in source(cell), f"{notebook.name}: no Colab form marker in a solution"
        tags = cell.get("metadata", {}).get("tags", [])
        assert not {"hide-cell", "hide-input", "hide-output"} & set(tags), (
            f"{notebook.name}: a solution is folded by its dropdown alone"
        )


# Chapters whose exercises are numbered sphinx-exercise blocks; the others still list theirs in Markdown.


def exercise_label(text: str) -> str | None:
    match = re.match(r"```\{exercise\}[^\n]*\n:label: (\S+)\n", text)
    return match.group(1) if match else None


@pytest.mark.parametrize("notebook", CHAPTERS, ids=lambda path: path.name)
def test_every_exercise_is_a_labelled_block_followed_by_its_folded_solution(notebook):
    """Each exercise is an `exercise` block labelled ex-<chapter>-<n>, numbered from 1 in order; right after
    it comes its solution, a gated `solution-start` ... `solution-end` block folded as a dropdown whose code
    cells come first with '# Solution to exercise N.M' (so that they execute in the build); then, for an
    auto-checked exercise, the visible cell that runs the package's checker on the solution's function. Its
    title ends with its difficulty."""
    cells = load_cells(notebook)
    # appendix_a_cost_of_attention: a; 06_seq2seq: 6
    chapter = notebook.name.split("_")[1] if notebook.name.startswith("appendix") else int(notebook.name[:2])
    texts = [source(cell) for cell in cells]
    starts = [index for index, text in enumerate(texts) if text.startswith("```{exercise}")]
    assert starts, f"{notebook.name}: no exercise blocks"
    labels = [exercise_label(texts[index]) for index in starts]
    assert labels == [f"ex-{chapter}-{n}" for n in range(1, len(starts) + 1)], labels
    solution_cells = set()
    for index, label in zip(starts, labels, strict=True):
        assert texts[index].rstrip().endswith("```"), f"{label}: the exercise block is not closed in its cell"
        assert texts[index + 1].strip() == f"```{{solution-start}} {label}\n:class: dropdown\n```", (
            f"{label}: the next cell must open its folded solution"
        )
        end = next(i for i in range(index + 2, len(cells)) if texts[i].startswith("```{solution-end}"))
        inside = cells[index + 2 : end]
        assert inside and all(cell["cell_type"] == "code" for cell in inside), f"{label}: code cells only"
        number = f"{str(chapter).upper()}.{label.rsplit('-', 1)[1]}"
        assert texts[index + 2].startswith(f"# Solution to exercise {number}\n"), (
            f"{label}: its solution cell comes first and says which exercise it solves"
        )
        title = texts[index].splitlines()[0]
        assert re.search(r"\((easy|medium|hard)(, auto-checked)?\)$", title), (
            f"{label}: the title ends with its difficulty, (easy), (medium) or (hard)"
        )
        solution_cells.update(range(index + 2, end))
        checked = texts[index].splitlines()[0].endswith(", auto-checked)")
        after = texts[end + 1] if end + 1 < len(cells) else ""
        assert checked == bool(re.search(r"result = check_\w+\(", after)), (
            f"{label}: an auto-checked exercise, and only one, has its checker cell right after the solution"
        )
        if checked:
            assert "assert result.passed" in after, f"{label}: the checker's verdict must fail the chapter"
    unplaced = [
        index
        for index, text in enumerate(texts)
        if text.startswith("# Solution to exercise") and index not in solution_cells
    ]
    assert not unplaced, f"{notebook.name}: solution cells {unplaced} stand outside a solution block"


def test_the_book_loads_the_exercise_and_proof_extensions():
    extensions = book_config()["sphinx"]["extra_extensions"]
    assert {"sphinx_exercise", "sphinx_proof"} <= set(extensions)
    requirements = (REPO_ROOT / "requirements.txt").read_text()
    assert "sphinx-exercise" in requirements and "sphinx-proof" in requirements


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
    assert execute["execute_notebooks"] == "cache", "tools/book_cache.py keys that cache; see README"
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


# What each BibTeX entry type needs to be printed in full (BibTeX's required fields; for @misc, which
# requires none, a title, a year and where to find the work).
REQUIRED_FIELDS = {
    "article": {"author", "title", "journal", "year"},
    "inproceedings": {"author", "title", "booktitle", "year"},
    "incollection": {"author", "title", "booktitle", "publisher", "year"},
    "book": {"title", "publisher", "year"},
    "misc": {"title", "year"},
}


def bibliography_entries() -> dict:
    from pybtex.database import parse_file

    return dict(parse_file(str(REPO_ROOT / "references.bib"), bib_format="bibtex").entries)


def cited_keys() -> set[str]:
    """Every key cited with {cite}, {cite:p}, {cite:t}... in the pages of the table of contents."""
    keys: set[str] = set()
    for name in toc_files():
        page = REPO_ROOT / f"{name}.md"
        if page.exists():
            texts = [page.read_text()]
        else:
            notebook = REPO_ROOT / f"{name}.ipynb"
            texts = [source(cell) for cell in load_cells(notebook) if cell["cell_type"] == "markdown"]
        for text in texts:
            for group in re.findall(r"\{cite(?::\w+)?\}`([^`]+)`", text):
                keys.update(key.strip() for key in group.split(","))
    return keys


def test_every_bibliography_entry_is_cited_and_every_citation_exists():
    entries = set(bibliography_entries())
    cited = cited_keys()
    assert cited - entries == set(), f"cited but not in references.bib: {sorted(cited - entries)}"
    assert entries - cited == set(), (
        f"in references.bib but cited on no page: {sorted(entries - cited)}; cite them where they "
        "belong (bibliography.md lists further reading in prose) or remove them"
    )


def test_bibliography_entries_have_the_fields_their_type_needs():
    problems = []
    for key, entry in bibliography_entries().items():
        fields = {name.lower() for name in entry.fields} | {role.lower() for role in entry.persons}
        if entry.type == "book" and not fields & {"author", "editor"}:
            problems.append(f"{key}: a book needs an author or an editor")
        missing = REQUIRED_FIELDS.get(entry.type, set()) - fields
        if entry.type not in REQUIRED_FIELDS:
            problems.append(f"{key}: unexpected entry type @{entry.type}")
        elif missing:
            problems.append(f"{key} (@{entry.type}) lacks {sorted(missing)}")
        if entry.type == "misc" and not fields & {"url", "eprint", "howpublished"}:
            problems.append(f"{key}: say where to find it (url, eprint or howpublished)")
        if "arxiv" in entry.fields.get("journal", "").lower():
            problems.append(f"{key}: an arXiv preprint is @misc with eprint, not an @article in a 'journal'")
    assert not problems, "\n".join(problems)
