"""The widgets (attnbook.book.widgets) on a page of their own, opened from the disk in headless Chromium.

Unlike test_widgets.py this needs no built book: the test renders one widget of each kind from the
package (so from its script and style files, widgets.js and widgets.css), writes them into one HTML file
and uses each as a reader would, with the same checks as the book's pages. No network: any request off
the machine fails the test.
"""

from __future__ import annotations

import numpy as np
import pytest
from book_browser import HTML_DIR
from test_widgets import USE, WidgetPage

from attnbook.book import (
    DecoderRun,
    attention_widget,
    checkpoint_slider,
    curve_slider,
    decoder_stepper,
    weights_slider,
)

PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>widgets</title></head>
<body>{body}</body></html>
"""


def harness_widgets() -> list:
    rng = np.random.default_rng(0)

    def rows(t: int, s: int) -> np.ndarray:
        logits = rng.normal(size=(t, s)) * 2
        return np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)

    src, tgt = ["the", "cat", "sat", "<eos>"], ["le", "chat", "était", "assis", "<eos>"]
    scores = rng.normal(size=(5, 4))
    scores[0, 3] = -np.inf
    grid = np.linspace(0.0, 1.0, 41)
    curves = np.stack([np.sin(6 * grid) * scale for scale in (0.5, 0.8, 1.1, 1.2, 1.5)])
    runs = {
        "untrained": DecoderRun(rows(5, 4), tgt, scores=scores, queries=rng.normal(size=(5, 6))),
        "trained": DecoderRun(rows(3, 4), tgt[:3]),
    }
    return [
        attention_widget(rows(5, 4), src, tgt, scores=scores, name="harness matrix"),
        attention_widget(rows(2, 1), ["<eos>"], ["a", "b"], name="harness one column"),
        decoder_stepper(src, runs, name="harness stepper"),
        decoder_stepper(src, DecoderRun(rows(4, 4), tgt[:4]), name="harness single run"),
        weights_slider(rows(6, 4), src, [0.1, 0.3, 1.5, 3.5, 10.5, 30.5], name="harness slider"),
        curve_slider(
            grid,
            curves,
            [0.5, 0.8, 1.1, 1.2, 1.5],
            points=(grid[::4], np.sin(6 * grid[::4])),
            reference=np.sin(6 * grid),
            name="harness curve",
        ),
        checkpoint_slider(
            np.stack([rows(5, 4) for _ in range(3)]),
            src,
            tgt,
            [0, 50, 100],
            measures=[
                {"validation loss": f"{loss:.3f}", "AER": f"{aer:.3f}"}
                for loss, aer in ((4.1, 0.8), (1.2, 0.4), (0.1, 0.2))
            ],
            links=[(0, 0), (1, 1), (2, 2), (3, 2)],
            name="harness checkpoints",
        ),
    ]


class FileBook:
    """What WidgetPage needs of the book fixture: a browser and a URL per page, here a file."""

    def __init__(self, browser, directory):
        self.browser, self.directory = browser, directory

    def url(self, page: str) -> str:
        return (self.directory / f"{page}.html").as_uri()


def built_chapter(browser, chapter: str) -> WidgetPage:
    """A chapter of the built book opened from the disk, as a reader opens a downloaded copy."""
    if not (HTML_DIR / "chapters" / f"{chapter}.html").exists():
        pytest.fail("no built book: run make book first")
    return WidgetPage(FileBook(browser, HTML_DIR / "chapters"), chapter)


@pytest.fixture(scope="module")
def browser(chromium):
    """The run's one Chromium (conftest.py); these pages need no built book."""
    return chromium


def test_every_widget_kind_from_the_package_files_shows_its_numbers_and_responds(browser, tmp_path):
    widgets = harness_widgets()
    (tmp_path / "harness.html").write_text(PAGE.format(body="\n".join(w.html for w in widgets)))
    page = WidgetPage(FileBook(browser, tmp_path), "harness")
    try:
        roots = page.widgets()
        assert [root.get_attribute("id") for root in roots] == [w.name for w in widgets]
        for root in roots:
            assert root.get_attribute("data-ready") == "1", (
                f"{root.get_attribute('id')}: its script did not run"
            )
            USE[root.get_attribute("data-kind")](page, root)
        assert not page.errors, f"console errors: {page.errors}"
        assert not page.external, f"requests off the machine: {page.external}"
    finally:
        page.close()
