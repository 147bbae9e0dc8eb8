"""Code that fits the page: no listing of the package and no code cell of a chapter scrolls sideways.

Every page of the built book is measured at the end of its one visit (book_browser.Book: opened offline
in headless Chromium at the browser tests' window size, typeset, checked by test_pages.py,
test_contrast.py and test_accessibility.py, then back in its own mode), with every fold open (a long
listing's ``<details>``, a hidden cell's toggle), as a reader who unfolds them sees it. For each code
block of the article it reads whether the block scrolls sideways (``scrollWidth > clientWidth``) and how
many characters its column shows (the block's inner width over the width of one character of its font).
A package listing (``show_source``'s output) or a chapter's code cell that scrolls, or has a line longer
than its column holds, fails the test, which names the page, the listing and the first line too long.
Code inside a fold (an exercise's solution, a long listing's whole source) counts as much as code in the
open, though its column is narrower than the 77 characters of the page's (the fold's margins and
paddings). Every column must also hold the line length that ruff keeps the package and the chapters to
(``code/ruff.toml``, ``chapters/ruff.toml``), so that a change of theme or font that narrows it fails
here before a listing scrolls. Printed outputs are measured too and reported, not failed: they show
data, and a reader expects a table to scroll.

The measurements go to ``_build/screenshots/listings.json``, each page's as soon as it is measured,
whichever worker of pytest-xdist visited it; the test's message gives the column's width in
characters. The two tests over every page run after every page's own tests (conftest.py's LAST), and
read the pages that another worker visited from that file.

These tests carry the marker ``listings_fit_page``: ``pytest tests/browser -m "not listings_fit_page"``
runs the other browser tests alone.
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path

import pytest
from book_browser import SCREENSHOT_DIR, add_to_report
from book_config import toc_files

PAGES = toc_files()
FAILING_KINDS = ("listing", "code cell")  # printed outputs are reported, not failed
REPORT = SCREENSHOT_DIR / "listings.json"
ROOT = Path(__file__).resolve().parents[2]


def _line_length(config: str) -> int:
    """The line length ruff keeps the code under ``config`` to (its top-level ``line-length``)."""
    found = re.search(r"^line-length\s*=\s*(\d+)", (ROOT / config).read_text(), re.MULTILINE)
    assert found, f"{config} sets no line-length"
    return int(found.group(1))


# The widest line a listing of the package or a chapter's code cell can have.
LINE_LENGTH = max(_line_length("code/ruff.toml"), _line_length("chapters/ruff.toml"))

# Opens every fold of the article, then measures each <pre>: its kind (a chapter's code cell, a package
# listing shown by show_source, a printed output, or a code block of the prose), whether it scrolls, how
# many characters of its font its inner width holds, and its lines. A listing is named by the file and
# line its caption gives ("Source: `attnbook/...py`, line N", or "Lines N-M of `attnbook/...py`").
MEASURE_JS = r"""
() => {
  const article = document.querySelector("article.bd-article");
  if (!article) return null;
  article.querySelectorAll("details").forEach((fold) => { fold.open = true; });
  article.querySelectorAll(".toggle-hidden").forEach((hidden) => hidden.classList.remove("toggle-hidden"));
  const canvas = document.createElement("canvas").getContext("2d");
  const cells = [...article.querySelectorAll("div.cell")];
  const kindOf = (pre) => {
    if (pre.closest(".cell_input")) return "code cell";
    if (pre.closest(".cell_output")) return pre.closest(".highlight-python") ? "listing" : "output";
    return "prose";
  };
  const labelOf = (pre, kind) => {
    const cell = pre.closest("div.cell");
    const where = cell ? `cell ${cells.indexOf(cell) + 1}` : "the prose";
    if (kind !== "listing") return where;
    const caption = pre.closest(".cell_output").textContent;
    const source = caption.match(/(attnbook\/[\w\/]+\.py)`?, lines? (\d+)/) ||
      caption.match(/Lines? (\d+)[-\u2013\d]* of `?(attnbook\/[\w\/]+\.py)/);
    if (!source) return where;
    return source[1].startsWith("attnbook") ? `${source[1]}:${source[2]}` : `${source[2]}:${source[1]}`;
  };
  const blocks = [...article.querySelectorAll("pre")].map((pre) => {
    const style = getComputedStyle(pre);
    canvas.font = `${style.fontStyle} ${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
    const charWidth = canvas.measureText("0".repeat(100)).width / 100;
    const inner = pre.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    const lines = pre.textContent.replace(/\n$/, "").split("\n");
    const columns = Math.floor(inner / charWidth + 1e-6);
    const kind = kindOf(pre);
    return {
      kind,
      label: labelOf(pre, kind),
      folded: Boolean(pre.closest("details, .toggle-details, .dropdown, .toggle, .solution")),
      rendered: pre.clientWidth > 0,
      scrolls: pre.scrollWidth > pre.clientWidth,
      columns,
      charWidth,
      longest: Math.max(...lines.map((line) => line.length)),
      firstTooLong: lines.find((line) => line.length > columns) || "",
      firstLine: lines[0],
    };
  });
  return {blocks};
}
"""


def measure_listings(tab, page: str) -> list[dict]:
    """Every fold of the page open in ``tab`` opened, and its code blocks measured (its visit, step 3);
    also written to REPORT."""
    found = tab.evaluate(MEASURE_JS)
    assert found is not None, f"{page}: no article.bd-article (did the theme change?)"
    add_to_report(REPORT, page, found["blocks"], ensure_ascii=True)
    return found["blocks"]


@pytest.fixture(scope="module")
def listings(book):
    """``listings(page)``: the code blocks of ``page`` its visit measured (kept for the run, per worker)."""
    return functools.partial(book.read, part="listings")


@pytest.fixture(scope="module")
def measured(book):
    """Every page's code blocks: those its visit on this worker measured, and the others from REPORT,
    where every worker writes its pages (these tests run last: conftest.py); a page found in neither is
    visited here."""
    reported = json.loads(REPORT.read_text()) if REPORT.is_file() else {}
    return {
        page: book.read(page, "listings") if page in book.visits or page not in reported else reported[page]
        for page in PAGES
    }


def _columns(blocks: list[dict], kinds: tuple[str, ...]) -> int | None:
    widths = [block["columns"] for block in blocks if block["rendered"] and block["kind"] in kinds]
    return min(widths) if widths else None


@pytest.mark.listings_fit_page
def test_code_is_measured_on_every_chapter(measured):
    """The measurement sees the code: every chapter has rendered code cells with a column of some width."""
    for page in (page for page in PAGES if page.startswith("chapters/")):
        cells = [block for block in measured[page] if block["kind"] == "code cell"]
        assert cells, f"{page}: no code cell found (did the theme's classes change?)"
        assert all(block["rendered"] and block["columns"] > 40 for block in cells), (
            f"{page}: code cells not rendered, or a column under 40 characters: "
            f"{[(block['label'], block['columns']) for block in cells][:5]}"
        )


@pytest.mark.listings_fit_page
def test_code_inside_folds_is_measured(measured):
    """The measurement opens the folds: the solutions' code cells and the long listings' whole
    sources are measured, with the column they have there."""
    folded = [
        (page, block["label"])
        for page, blocks in measured.items()
        for block in blocks
        if block["kind"] in FAILING_KINDS and block["folded"]
    ]
    assert folded, "no code block inside a fold was measured (did the folds' classes change?)"
    assert all(
        block["rendered"]
        for blocks in measured.values()
        for block in blocks
        if block["kind"] in FAILING_KINDS and block["folded"]
    ), "a code block inside a fold stayed hidden with every fold open"


@pytest.mark.listings_fit_page
@pytest.mark.parametrize("page", PAGES)
def test_code_column_holds_the_line_length(listings, page):
    """Every code cell and listing shows at least the line length ruff enforces, folded or not."""
    narrow = [
        f"{block['kind']} {block['label']}{' (folded)' if block['folded'] else ''}: {block['columns']}"
        for block in listings(page)
        if block["kind"] in FAILING_KINDS and block["rendered"] and block["columns"] < LINE_LENGTH
    ]
    assert not narrow, (
        f"{page}: code columns narrower than the {LINE_LENGTH} characters ruff allows a line: {narrow}"
    )


@pytest.mark.listings_fit_page
@pytest.mark.parametrize("page", PAGES)
def test_no_listing_or_code_cell_scrolls_sideways(listings, page):
    blocks = listings(page)
    hidden = [block["label"] for block in blocks if block["kind"] in FAILING_KINDS and not block["rendered"]]
    assert not hidden, f"{page}: code blocks that stay hidden with every fold open: {hidden}"
    scrolling = [
        block
        for block in blocks
        if block["kind"] in FAILING_KINDS and (block["scrolls"] or block["longest"] > block["columns"])
    ]
    if scrolling:
        pytest.fail(
            f"{page}: the code column shows {_columns(blocks, FAILING_KINDS)} characters; "
            f"{len(scrolling)} blocks scroll sideways:\n"
            + "\n".join(
                f"  {block['kind']} {block['label']}{' (folded)' if block['folded'] else ''}: "
                f"{block['longest']} characters in a column of {block['columns']}, first too long: "
                f"{block['firstTooLong'].strip()[:100]!r}"
                for block in scrolling
            ),
            pytrace=False,
        )
