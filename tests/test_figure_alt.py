"""Every matplotlib figure of the book has alternative text that says what it shows.

A code cell that shows a figure (``plt.show()``, its output not removed) gives the picture's ``alt`` in its
metadata, ``mystnb: image: {alt: ...}``, which myst-nb writes into the page's ``<img>``; a figure glued
into the text (``{glue:figure}``) gives it as the directive's ``:alt:`` option. Without either, the page's
``<img>`` says only its file name. The built pages are checked too (tests/browser/test_accessibility.py).
"""

from __future__ import annotations

import re

import pytest
from book_config import CHAPTERS, load_cells, source

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


@pytest.mark.parametrize("notebook", CHAPTERS, ids=lambda path: path.stem)
def test_every_figure_cell_gives_alt_text(notebook):
    for cell in shown_figures(notebook):
        alt = cell["metadata"].get("mystnb", {}).get("image", {}).get("alt", "")
        check_alt(alt, f"{notebook.stem}, cell {cell.get('id')} (metadata mystnb.image.alt)")


@pytest.mark.parametrize("notebook", CHAPTERS, ids=lambda path: path.stem)
def test_every_glued_figure_gives_alt_text(notebook):
    for name, alt in glued_figures(notebook):
        check_alt(alt, f"{notebook.stem}, {{glue:figure}} {name} (its :alt: option)")
