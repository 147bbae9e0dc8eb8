"""Every page of the built book, widgets included, readable in the theme's light and dark modes.

Each page is measured in its one visit (book_browser.Book: opened offline in headless Chromium, its
equations typeset and its figures loaded, checked as a reader first sees it by test_pages.py), then
shown in each mode (the theme's own switch: ``<html data-theme="light|dark">``). In each mode every
piece of text a reader can see (prose, code, outputs, the navigation, the widgets' labels, numbers,
readouts and buttons, the text of their SVG figures) must stand out from what is behind it by a contrast
ratio of at least 4.5:1, WCAG 2's level AA for body text. The ratio is computed from the computed
styles: the text's colour (its ``fill`` in SVG), made translucent by its own alpha and its ancestors'
opacity, over the effective background, which is every ancestor's background colour composited from the
page's canvas up (and in SVG the shape drawn under the text's centre). Each matrix widget shows a
hovered cell first, so that its highlighted labels and its readout are measured too. The measurements
of every page go to _build/screenshots/contrast.json (every worker's pages in one file), a screenshot of
each page in dark mode to _build/screenshots/dark/ (book_browser.FULL_PAGE_SHOT).
"""

from __future__ import annotations

import pytest
from book_browser import FULL_PAGE_SHOT, SCREENSHOT_DIR, add_to_report
from book_config import toc_files
from test_widgets import CHAPTERS, widget_count_in_notebook

PAGES = toc_files()
WIDGET_PAGES = [chapter for chapter in CHAPTERS if widget_count_in_notebook(chapter)]
THEMES = ("light", "dark")
MINIMUM = 4.5  # WCAG 2.1, success criterion 1.4.3 (AA), for text of any size
REPORT = SCREENSHOT_DIR / "contrast.json"

# No transitions, so that the colours read right after the switch are the final ones.
STILL_CSS = "*, *::before, *::after { transition: none !important; animation: none !important; }"

# Hover the middle cell of every matrix widget: its row and column labels take the accent colour and
# its readout shows the cell's numbers, as a reader sees them.
HOVER_JS = """
() => {
  document.querySelectorAll(".attention-widget .aw-grid").forEach((grid) => {
    const cells = grid.querySelectorAll(".aw-cell");
    const cell = cells[Math.floor(cells.length / 2)];
    if (cell) cell.dispatchEvent(new MouseEvent("mouseover", { bubbles: true }));
  });
}
"""

CONTRAST_JS = r"""
() => {
  const parse = (text) => {
    const m = /rgba?\(([^)]*)\)/.exec(text || "");
    if (!m) return null;
    const p = m[1].split(/[\s,\/]+/).filter(Boolean).map(Number);
    return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
  };
  const over = (top, bottom) => [0, 1, 2].map((k) => top[k] * top[3] + bottom[k] * (1 - top[3])).concat([1]);
  const luminance = (c) => {
    const [r, g, b] = c.slice(0, 3).map((v) => {
      const s = v / 255;
      return s <= 0.03928 ? s / 12.92 : Math.pow((s + 0.055) / 1.055, 2.4);
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const ratio = (a, b) => {
    const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
    return (hi + 0.05) / (lo + 0.05);
  };
  const hex = (c) => "#" + c.slice(0, 3).map((v) => Math.round(v).toString(16).padStart(2, "0")).join("");
  const name = (e) => {
    const parts = [];
    for (let x = e; x && x !== document.body && parts.length < 4; x = x.parentElement) {
      const classes = [...x.classList].slice(0, 2).map((c) => "." + c).join("");
      parts.unshift(x.tagName.toLowerCase() + (x.id ? "#" + x.id : "") + classes);
    }
    return parts.join(" > ");
  };
  // The background behind an element: its own and its ancestors' colours, composited over the canvas.
  const backgroundOf = (element) => {
    const layers = [];
    for (let e = element; e; e = e.parentElement) {
      const style = getComputedStyle(e);
      if (style.backgroundImage && style.backgroundImage !== "none") return null;  // a gradient or picture
      const colour = parse(style.backgroundColor);
      if (colour && colour[3] > 0) {
        layers.push(colour);
        if (colour[3] >= 1) break;
      }
    }
    let colour = [255, 255, 255, 1];  // the browser's canvas where nothing is painted
    for (const layer of layers.reverse()) colour = over(layer, colour);
    return colour;
  };
  // In SVG, the filled shape drawn under the text's centre, if any.
  const svgBackground = (element) => {
    element.scrollIntoView({ block: "center" });
    const box = element.getBoundingClientRect();
    const stack = document.elementsFromPoint(box.left + box.width / 2, box.top + box.height / 2);
    for (const e of stack) {
      if (e === element || !(e instanceof SVGGeometryElement)) continue;
      const style = getComputedStyle(e);
      const fill = parse(style.fill);
      if (fill && fill[3] > 0 && Number(style.fillOpacity) > 0) {
        fill[3] *= Number(style.fillOpacity) * Number(style.opacity);
        const below = backgroundOf(e.ownerSVGElement);
        return below && over(fill, below);
      }
    }
    return backgroundOf(element.ownerSVGElement || element);
  };
  const hidden = (element) => {
    for (let e = element; e; e = e.parentElement) {
      const style = getComputedStyle(e);
      if (style.visibility !== "visible" || style.display === "none" || Number(style.opacity) === 0) return true;
      const box = e.getBoundingClientRect();
      if (box.width <= 1 || box.height <= 1) {
        if (style.overflow !== "visible" || style.clip !== "auto" || style.clipPath !== "none") return true;
      }
    }
    return false;
  };
  const opacityOf = (element) => {
    let opacity = 1;
    for (let e = element; e; e = e.parentElement) opacity *= Number(getComputedStyle(e).opacity);
    return opacity;
  };
  const skip = "script, style, noscript, template, mjx-assistive-mml, title, input, textarea, select, [disabled], [aria-hidden=true]";
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const found = [];
  const seen = new Set();
  let unknown = 0;
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const element = node.parentElement;
    if (!element || !node.textContent.trim() || seen.has(element) || element.closest(skip)) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    const rect = range.getBoundingClientRect();
    if (rect.width <= 1 || rect.height <= 1 || hidden(element)) continue;
    seen.add(element);
    const style = getComputedStyle(element);
    const inSvg = element instanceof SVGElement;
    const fg = parse(inSvg ? style.fill : style.color);
    const bg = inSvg ? svgBackground(element) : backgroundOf(element);
    if (!fg || !bg) {
      unknown += 1;
      continue;
    }
    fg[3] *= opacityOf(element) * (inSvg ? Number(style.fillOpacity) : 1);
    const shown = over(fg, bg);
    found.push({
      text: node.textContent.trim().slice(0, 40),
      where: name(element),
      widget: !!element.closest(".attention-widget"),
      fg: hex(shown),
      bg: hex(bg),
      ratio: Math.round(ratio(shown, bg) * 100) / 100,
    });
  }
  return { texts: found, unknown };
}
"""


def measure_mode(tab, theme: str) -> dict:
    """Every visible text of the page open in ``tab``, in the mode it shows, measured (its visit, step 2)."""
    found = tab.evaluate(CONTRAST_JS)
    texts = sorted(found["texts"], key=lambda text: text["ratio"])
    return {
        "texts": len(texts),
        "unknown_background": found["unknown"],
        "minimum": texts[0]["ratio"] if texts else None,
        "widget_minimum": min((t["ratio"] for t in texts if t["widget"]), default=None),
        "widget_texts": sum(1 for t in texts if t["widget"]),
        "lowest": texts[:5],
        "failing": [text for text in texts if text["ratio"] < MINIMUM],
    }


def shoot_dark(tab, page: str) -> None:
    """A screenshot (FULL_PAGE_SHOT), from the top, of the page open in ``tab`` in dark mode."""
    shots = SCREENSHOT_DIR / "dark"
    shots.mkdir(parents=True, exist_ok=True)
    tab.evaluate("() => window.scrollTo(0, 0)")
    tab.screenshot(path=str(shots / f"{page.replace('/', '__')}.jpg"), **FULL_PAGE_SHOT)


def report_contrast(page: str, measured: dict) -> None:
    add_to_report(REPORT, page, measured)


def measure(book, page: str) -> dict:
    """Every visible text of ``page`` measured in each mode by the page's visit (kept for the run, per
    worker under xdist), which also saves a screenshot in dark mode."""
    return book.read(page, "contrast")


def describe(failing: list[dict]) -> str:
    return "; ".join(
        f"{t['ratio']}:1 {t['fg']} on {t['bg']} {t['text']!r} ({t['where']})" for t in failing[:8]
    ) + (f"; and {len(failing) - 8} more" if len(failing) > 8 else "")


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("page", PAGES)
def test_every_text_stands_out_from_its_background(book, page, theme):
    measured = measure(book, page)[theme]
    assert measured["texts"] > 0, f"{page}: no visible text measured in {theme} mode"
    assert not measured["failing"], (
        f"{page}, {theme} mode: {len(measured['failing'])} texts below {MINIMUM}:1: {describe(measured['failing'])}"
    )


@pytest.mark.parametrize("page", WIDGET_PAGES)
def test_the_contrast_of_every_widget_is_measured_in_both_modes(book, page):
    """A page with widgets has their texts measured in each mode, as many in one as in the other (none
    was skipped as hidden)."""
    measured = measure(book, page)
    assert measured["light"]["widget_texts"] > 0, f"{page}: no widget text found"
    assert measured["light"]["widget_texts"] == measured["dark"]["widget_texts"], (
        f"{page}: the widgets show {measured['light']['widget_texts']} texts in light mode but "
        f"{measured['dark']['widget_texts']} in dark mode"
    )
