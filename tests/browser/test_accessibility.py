"""Every page of the built book audited by axe-core in the theme's light and dark modes, and what a
screen reader needs of its figures.

Each page is audited in its one visit (book_browser.Book: opened offline in headless Chromium, its
equations typeset and its figures loaded, checked as a reader first sees it by test_pages.py), with
its transitions stopped and a cell of each matrix widget hovered, shown in one mode (the theme's own
switch, ``<html data-theme="light|dark">``), then audited with axe-core (tests/browser/axe.py: every
rule axe runs by default, WCAG 2.x A and AA and its best practices). A critical or serious violation
fails the test, which names the rule, the page and the elements. Every violation found, of any impact,
goes to _build/screenshots/axe/<page>__<mode>.json. The focus rings and the reduced motion are checked
in pages opened afresh, one per test, since each test changes its page.

Every picture has a text alternative that says what it shows: each <img> an ``alt`` that is not empty
and not a file name; each widget (attnbook.book.widgets) a role and an accessible name.
"""

from __future__ import annotations

import json
import re

import pytest
from axe import THEME_EXCLUDES, audit, axe_version, describe, failing
from book_browser import SCREENSHOT_DIR, SET_THEME_JS, SETTLE_JS, TIMEOUT_MS, VIEWPORT, is_local
from book_config import toc_files
from test_contrast import STILL_CSS, measure_mode

PAGES = toc_files()
THEMES = ("light", "dark")
AXE_DIR = SCREENSHOT_DIR / "axe"
# An alt text that is only a file name, a path or a format: what myst-nb writes when a cell gives none.
FILE_NAME = re.compile(r"(^|/)[\w.-]*\.(png|jpe?g|svg|gif|webp)$|^(png|jpe?g|svg|image|figure|img)$", re.I)

READ_FIGURES_JS = """
() => {
  const images = [...document.querySelectorAll("img")].map((img) => ({
    src: img.getAttribute("src"), alt: img.getAttribute("alt"),
    hidden: img.getAttribute("aria-hidden") === "true" || img.getAttribute("role") === "presentation",
  }));
  const nameOf = (e) => {
    const ids = (e.getAttribute("aria-labelledby") || "").split(/\\s+/).filter(Boolean);
    const byIds = ids.map((id) => (document.getElementById(id) || {}).textContent || "").join(" ").trim();
    return byIds || (e.getAttribute("aria-label") || "").trim();
  };
  const widgets = [...document.querySelectorAll(".attention-widget, .attn-translator")].map((w) => ({
    id: w.id || w.className, role: w.getAttribute("role"), name: nameOf(w),
  }));
  return { images, widgets };
}
"""


def open_page(book, page: str):
    """A fresh offline context with ``page`` open and settled; the caller closes the context."""
    context = book.browser.new_context(viewport=VIEWPORT, service_workers="block")
    context.set_default_timeout(TIMEOUT_MS)
    context.route("**/*", lambda route: route.continue_() if is_local(route.request.url) else route.abort())
    tab = context.new_page()
    tab.goto(book.url(page), wait_until="load")
    if page == "index":
        tab.wait_for_url(lambda url: not url.endswith("/index.html"))
        tab.wait_for_load_state("load")
    tab.evaluate(SETTLE_JS)
    tab.wait_for_function("() => window.__bookSettled !== false")
    return context, tab


def read_figures(tab) -> dict:
    """The images' alt text and the widgets' roles and names, on the page open in ``tab`` (its visit)."""
    return tab.evaluate(READ_FIGURES_JS)


def audit_mode(tab, page: str, theme: str) -> list[dict]:
    """axe's violations on the page open in ``tab``, in the mode it shows (its visit, step 2), also
    written to AXE_DIR/<page>__<mode>.json."""
    violations = audit(tab, THEME_EXCLUDES)
    AXE_DIR.mkdir(parents=True, exist_ok=True)
    report = {"page": page, "theme": theme, "axe": axe_version(), "violations": violations}
    (AXE_DIR / f"{page.replace('/', '__')}__{theme}.json").write_text(json.dumps(report, indent=1) + "\n")
    return violations


class Audits:
    """What each page's visit (kept for the run, per worker under xdist) found: its figures as a screen
    reader meets them, then axe's violations in each mode, its stylesheet's transitions stopped (mid-way
    through a switch of mode, the search button's text was half-way to its dark colours)."""

    def __init__(self, book):
        self.book = book

    def of(self, page: str) -> dict:
        return self.book.read(page, "accessibility")


@pytest.fixture(scope="module")
def audits(book):
    return Audits(book)


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("page", PAGES)
def test_axe_finds_no_serious_violation(audits, page, theme):
    bad = failing(audits.of(page)[theme])
    assert not bad, f"axe {axe_version()}, {theme} mode:\n" + describe(bad, page)


@pytest.mark.parametrize("page", PAGES)
def test_every_figure_has_a_text_alternative(audits, page):
    found = audits.of(page)["figures"]
    images = [image for image in found["images"] if not image["hidden"]]
    unnamed = [image["src"] for image in images if not (image["alt"] or "").strip()]
    assert not unnamed, f"{page}: images without alt text: {unnamed}"
    file_names = [
        f"{image['src']}: {image['alt']!r}" for image in images if FILE_NAME.search(image["alt"].strip())
    ]
    assert not file_names, f"{page}: images whose alt text is a file name: {file_names}"
    short = [f"{image['src']}: {image['alt']!r}" for image in images if len(image["alt"].split()) < 2]
    assert not short, f"{page}: images whose alt text is one word: {short}"
    for widget in found["widgets"]:
        assert widget["role"] in ("figure", "group", "region"), (
            f"{page}: {widget['id']} has role {widget['role']}"
        )
        assert len(widget["name"].split()) >= 3, (
            f"{page}: {widget['id']} has no accessible name: {widget['name']!r}"
        )


# The focused element's focus ring: its outline, and the background colours of its ancestors from its
# parent up to the first opaque one (an outline is drawn around the element, over what is behind it).
FOCUS_RING_JS = r"""
() => {
  const e = document.activeElement;
  const layers = [];
  for (let x = e.parentElement; x; x = x.parentElement) {
    const colour = getComputedStyle(x).backgroundColor;
    layers.push(colour);
    if (/^rgb\(/.test(colour)) break;  // opaque: rgb(), not rgba()
  }
  const style = getComputedStyle(e);
  const widget = e.closest(".attention-widget[id], .attn-translator[id]");
  return {
    what: e.tagName.toLowerCase() + (e.getAttribute("role") ? "[role=" + e.getAttribute("role") + "]" : ""),
    widget: widget ? widget.id : null,
    focusVisible: e.matches(":focus-visible"),
    style: style.outlineStyle,
    width: parseFloat(style.outlineWidth),
    colour: style.outlineColor,
    layers,
  };
}
"""


def rgba(text: str) -> tuple[float, float, float, float]:
    parts = [float(p) for p in re.findall(r"[\d.]+", text)]
    return (parts[0], parts[1], parts[2], parts[3] if len(parts) > 3 else 1.0)


def over(top, bottom):
    r, g, b = (t * top[3] + u * (1 - top[3]) for t, u in zip(top[:3], bottom[:3], strict=True))
    return (r, g, b, 1.0)


def relative_luminance(colour) -> float:
    linear = [
        c / 255 / 12.92 if c / 255 <= 0.03928 else ((c / 255 + 0.055) / 1.055) ** 2.4 for c in colour[:3]
    ]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def ring_contrast(found: dict) -> float:
    """WCAG's contrast ratio of the focus ring's colour with the background behind it."""
    background = (255.0, 255.0, 255.0, 1.0)  # the canvas where nothing is painted
    for layer in reversed(found["layers"]):
        background = over(rgba(layer), background)
    ring = over(rgba(found["colour"]), background)
    high, low = sorted((relative_luminance(ring), relative_luminance(background)), reverse=True)
    return round((high + 0.05) / (low + 0.05), 2)


RING_CONTRAST = 3.0  # WCAG 2.1, 1.4.11 (AA): the parts of a control that show its state
# Pages with every kind of widget between them: matrices and a stepper, a slider and a curve, the
# checkpoints and the translator.
FOCUS_PAGES = [page for page in PAGES if page.split("/")[-1][:3] in ("02_", "04_", "07_")]


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("page", FOCUS_PAGES)
def test_every_widget_shows_a_focus_ring_that_stands_out(book, page, theme):
    """Tab from the element before each widget, then on through the widget: each focus stop shows an
    outline at least 2 px wide whose colour has a contrast of 3:1 or more with the background behind it."""
    context, tab = open_page(book, page)
    try:
        tab.add_style_tag(content=STILL_CSS)
        tab.evaluate(SET_THEME_JS, theme)
        roots = tab.evaluate(
            "() => [...document.querySelectorAll('.attention-widget[id], .attn-translator[id]')]"
            ".filter((w) => !w.parentElement.closest('.attention-widget, .attn-translator')).map((w) => w.id)"
        )
        stops = []
        for root in roots:
            tab.evaluate(
                """(id) => { const b = document.createElement("button"); b.textContent = "before";
                document.getElementById(id).before(b); b.focus(); }""",
                root,
            )
            for _ in range(12):  # a widget has at most a few stops before its matrix's one cell
                tab.keyboard.press("Tab")
                found = tab.evaluate(FOCUS_RING_JS)
                if found["widget"] != root:
                    break
                stops.append(found | {"ratio": ring_contrast(found)})
    finally:
        context.close()
    assert roots and stops, f"{page}: no widget to focus"
    reached = {stop["widget"] for stop in stops}
    assert reached == set(roots), f"{page}: Tab reaches no part of {sorted(set(roots) - reached)}"
    bad = [s for s in stops if not (s["focusVisible"] and s["style"] != "none" and s["width"] >= 2)]
    assert not bad, f"{page}, {theme} mode: focus stops without a visible ring: {bad[:5]}"
    faint = [
        (s["widget"], s["what"], s["colour"], s["layers"][-1], s["ratio"])
        for s in stops
        if s["ratio"] < RING_CONTRAST
    ]
    assert not faint, f"{page}, {theme} mode: focus rings under {RING_CONTRAST}:1: {faint[:5]}"


MOTION_JS = """
() => [...document.querySelectorAll("*")].filter((e) => {
  const style = getComputedStyle(e);
  const moves = (value) => value.split(",").some((d) => parseFloat(d) > 0);
  return moves(style.transitionDuration) || (style.animationName !== "none" && moves(style.animationDuration));
}).map((e) => e.tagName.toLowerCase() + [...e.classList].slice(0, 2).map((c) => "." + c).join(""))
"""


@pytest.mark.parametrize("page", [PAGES[0], *FOCUS_PAGES[:1]])
def test_reduced_motion_stills_the_page(book, page):
    """With prefers-reduced-motion: reduce, no element of the page has a transition or an animation
    (_static/reduced-motion.css, and the widgets' own style sheet); without it the theme has some."""
    found = {}
    for motion in ("reduce", "no-preference"):
        context = book.browser.new_context(viewport=VIEWPORT, service_workers="block", reduced_motion=motion)
        context.route(
            "**/*", lambda route: route.continue_() if is_local(route.request.url) else route.abort()
        )
        try:
            tab = context.new_page()
            tab.goto(book.url(page), wait_until="load")
            found[motion] = tab.evaluate(MOTION_JS)
        finally:
            context.close()
    assert not found["reduce"], f"{page}: {len(found['reduce'])} elements move: {found['reduce'][:8]}"
    assert found["no-preference"], (
        f"{page}: nothing moves even without the preference (the check sees nothing)"
    )


def test_axe_leaves_contrast_to_the_contrast_test_which_finds_the_faint_text_axe_would_have(chromium):
    """One run of axe audits every rule but color-contrast; test_contrast.py's measure of the same page
    finds the faint prose axe's rule found, and the faint code token too."""
    tab = chromium.new_page()
    try:
        tab.set_content(
            '<!doctype html><html lang="en"><head><title>code</title></head><body><main><h1>Code</h1>'
            '<p style="color: #bbb">faint prose</p><div class="highlight"><pre><span style="color: #ccc">'
            'faint_token</span></pre></div><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw="></main>'
            "</body></html>"
        )
        found = {v["rule"]: [n["html"] for n in v["nodes"]] for v in audit(tab)}
        measured = measure_mode(tab, "light")
    finally:
        tab.close()
    assert "color-contrast" not in found
    assert "image-alt" in found  # the other rules ran on the same page
    assert {t["text"] for t in measured["failing"]} == {"faint prose", "faint_token"}
