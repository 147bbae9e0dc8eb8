"""Every matplotlib figure of the book has alternative text that says what it shows.

A code cell that shows a figure (``plt.show()``, its output not removed) gives the picture's ``alt`` in its
metadata, ``mystnb: image: {alt: ...}``, which myst-nb writes into the page's ``<img>``; a figure glued
into the text (``{glue:figure}``) gives it as the directive's ``:alt:`` option. A step diagram
(``show_diagram(...)``, attnbook.book.diagrams) writes its own ``<img>`` tags, one per theme, with the
alternative text it is given or, by default, the first paragraph of its function's docstring. Without any of
these, the page's ``<img>`` says only its file name. The built pages are checked too
(tests/browser/test_accessibility.py).
"""

from __future__ import annotations

import ast
import re

import pytest
from book_config import CHAPTERS, load_cells, source

from attnbook.book import diagrams

GLUE_FIGURE = re.compile(r"^`{3,}\{glue:figure\} (\S+)\n((?::[\w-]+:.*\n)*)", re.MULTILINE)
MIN_WORDS = 8  # a sentence that names the kind of chart and what its axes or panels show


def shown_figures(notebook) -> list[dict]:
    return [
        cell
        for cell in load_cells(notebook)
        if cell["cell_type"] == "code"
        and "plt.show()" in source(cell)
        and "remove-output" not in cell["metadata"].get("tags", [])
    ]


def diagram_cells(notebook) -> list[dict]:
    """The code cells that show a step diagram (a call of ``show_diagram``)."""
    return [
        cell
        for cell in load_cells(notebook)
        if cell["cell_type"] == "code" and re.search(r"^show_diagram\(", source(cell), re.MULTILINE)
    ]


def diagram_alt(cell: dict) -> str:
    """The alternative text the cell's ``show_diagram(draw, alt=...)`` call gives its pictures."""
    (call,) = [
        node
        for node in ast.walk(ast.parse(source(cell)))
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "show_diagram"
    ]
    for keyword in call.keywords:
        if keyword.arg == "alt":
            return ast.literal_eval(keyword.value)
    if len(call.args) > 1:
        return ast.literal_eval(call.args[1])
    return diagrams.alt_text(getattr(diagrams, call.args[0].id))


def glued_figures(notebook) -> list[tuple[str, str]]:
    """(name, alt) of every {glue:figure} directive of the chapter's Markdown cells ('' for no alt)."""
    found = []
    for cell in load_cells(notebook):
        if cell["cell_type"] != "markdown":
            continue
        for match in GLUE_FIGURE.finditer(source(cell)):
            options = dict(re.findall(r"^:([\w-]+):\s*(.*)$", match.group(2), re.MULTILINE))
            found.append((match.group(1), options.get("alt", "")))
    return found


def check_alt(alt: str, where: str) -> None:
    assert alt.strip(), f"{where}: no alt text"
    assert not re.search(r"\.(png|jpe?g|svg)\b", alt, re.I), f"{where}: the alt text is a file name: {alt!r}"
    assert len(alt.split()) >= MIN_WORDS, f"{where}: alt text of under {MIN_WORDS} words: {alt!r}"


def test_the_book_has_figures_to_check():
    assert sum(len(shown_figures(nb)) for nb in CHAPTERS) > 10
    assert sum(len(glued_figures(nb)) for nb in CHAPTERS) > 3
    assert sum(len(diagram_cells(nb)) for nb in CHAPTERS) >= 5


@pytest.mark.parametrize("notebook", CHAPTERS, ids=lambda path: path.stem)
def test_every_figure_cell_gives_alt_text(notebook):
    for cell in shown_figures(notebook):
        alt = cell["metadata"].get("mystnb", {}).get("image", {}).get("alt", "")
        check_alt(alt, f"{notebook.stem}, cell {cell.get('id')} (metadata mystnb.image.alt)")


@pytest.mark.parametrize("notebook", CHAPTERS, ids=lambda path: path.stem)
def test_every_glued_figure_gives_alt_text(notebook):
    for name, alt in glued_figures(notebook):
        check_alt(alt, f"{notebook.stem}, {{glue:figure}} {name} (its :alt: option)")


@pytest.mark.parametrize("notebook", CHAPTERS, ids=lambda path: path.stem)
def test_every_diagram_gives_alt_text_and_is_a_named_figure(notebook):
    for cell in diagram_cells(notebook):
        where = f"{notebook.stem}, cell {cell.get('id')}"
        check_alt(diagram_alt(cell), f"{where} (show_diagram's alt, or its diagram's docstring)")
        figure = cell["metadata"].get("mystnb", {}).get("figure", {})
        assert re.fullmatch(r"fig-[a-z0-9]+(-[a-z0-9]+)*", figure.get("name", "")), (
            f"{where}: a diagram cell needs metadata mystnb.figure.name 'fig-<chapter>-<what>'"
        )
        assert len(figure.get("caption", "").split()) >= 8, f"{where}: a diagram needs a caption"
