"""Every interactive widget of the book is a numbered figure with a caption, in the web book and in the PDF.

A widget (attnbook.book.widgets) is the displayed value of a code cell: the web page shows its HTML, the
PDF its static picture drawn from the same numbers. The cell's metadata ``mystnb: figure: {name, caption}``
makes myst-nb wrap that output in a figure, so that Sphinx numbers it in both editions alike (Fig. 2.3 in
the web page is Figure 2.3 in the PDF), writes the caption under it and lets the text refer to it by name.
"""

from __future__ import annotations

import ast
import re

import pytest
from book_config import CHAPTERS, load_cells, source

WIDGET_FUNCTIONS = {
    "attention_widget",
    "decoder_stepper",
    "weights_slider",
    "curve_slider",
    "translator_widget",
}
WIDGET_CALL = re.compile(rf"^({'|'.join(sorted(WIDGET_FUNCTIONS))})\(", re.MULTILINE)


def widget_cells(notebook) -> list[dict]:
    """The code cells of a chapter that display a widget (a line that starts with a call to one)."""
    return [
        cell
        for cell in load_cells(notebook)
        if cell["cell_type"] == "code" and WIDGET_CALL.search(source(cell))
    ]


def figure_options(cell: dict) -> dict:
    return cell["metadata"].get("mystnb", {}).get("figure", {})


def figure_names() -> list[str]:
    """The name of every figure of every chapter given by cell metadata, widget or not."""
    return [
        figure_options(cell)["name"]
        for notebook in CHAPTERS
        for cell in load_cells(notebook)
        if figure_options(cell).get("name")
    ]


def test_the_chapters_display_widgets():
    assert sum(len(widget_cells(notebook)) for notebook in CHAPTERS) >= 10


@pytest.mark.parametrize("notebook", CHAPTERS, ids=[path.name for path in CHAPTERS])
def test_every_widget_cell_is_a_named_figure_with_a_caption(notebook):
    for cell in widget_cells(notebook):
        options = figure_options(cell)
        where = f"{notebook.name}, cell {cell['id']}"
        assert re.fullmatch(r"fig-[a-z0-9]+(-[a-z0-9]+)*-widget", options.get("name", "")), (
            f"{where}: a widget cell needs metadata mystnb.figure.name 'fig-<chapter>-<what>-widget', "
            f"got {options.get('name')!r}"
        )
        caption = options.get("caption", "")
        assert len(caption.split()) >= 8 and caption.rstrip().endswith("."), (
            f"{where}: mystnb.figure.caption must say in a sentence what the figure shows, got {caption!r}"
        )


@pytest.mark.parametrize("notebook", CHAPTERS, ids=[path.name for path in CHAPTERS])
def test_a_widget_is_the_one_displayed_value_of_its_cell(notebook):
    # myst-nb wraps each displayed output of a figure cell in a figure of the same name: one widget, one
    # display, or the name would be defined twice (stdout stays outside the figure).
    for cell in widget_cells(notebook):
        statements = ast.parse(source(cell)).body
        last = statements[-1]
        assert (
            isinstance(last, ast.Expr)
            and isinstance(last.value, ast.Call)
            and getattr(last.value.func, "id", None) in WIDGET_FUNCTIONS
        ), f"{notebook.name}, cell {cell['id']}: the widget call must be the cell's last statement"
        calls = [
            node
            for node in ast.walk(ast.Module(body=statements, type_ignores=[]))
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) in WIDGET_FUNCTIONS | {"display"}
        ]
        assert len(calls) == 1, (
            f"{notebook.name}, cell {cell['id']}: {len(calls)} widgets or displays in one cell"
        )


def test_figure_names_are_unique_across_the_book():
    names = figure_names()
    repeated = sorted({name for name in names if names.count(name) > 1})
    assert not repeated, f"figure names used twice: {repeated}"
