"""The browser test's machinery: one headless Chromium with no network, and one visit per page of
the built book, in one tab, that reads everything the page-by-page tests check:

1. the page as a reader first sees it (PageVisit, read by test_pages.py): it loads, MathJax typesets,
   the figures load, and a screenshot (FULL_PAGE_SHOT);
2. its transitions stopped, the figures' alt text and the widgets' roles (test_accessibility.py), a
   cell of each matrix widget hovered, then in each of the theme's modes the contrast of every text
   (test_contrast.py) and axe's audit (test_accessibility.py), and in dark mode a screenshot;
3. back in the page's own mode, with every fold open, its code blocks (test_listings.py).

A step never changes what a later step reads; the scripts and reports of steps 2 and 3 belong to their
test modules. A page is typeset once per run instead of once per module. Fixtures: conftest.py."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import site
import sys
import tempfile
import time
from dataclasses import dataclass, field
from http.server import SimpleHTTPRequestHandler
from pathlib import Path
from urllib.parse import urlsplit

from book_config import REPO_ROOT, toc_files

HTML_DIR = REPO_ROOT / "_build" / "html"
SCREENSHOT_DIR = REPO_ROOT / "_build" / "screenshots"
CHROMIUM = Path(os.environ.get("BOOK_CHROMIUM", "/usr/bin/chromium"))
LOCAL_HOSTS = {"127.0.0.1", "localhost"}
CHROMIUM_ARGS = [
    "--no-sandbox",  # the tests run as root on CI machines
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    "--no-first-run",
    "--no-default-browser-check",
    # No host name but localhost resolves, so a request that escaped the route below still fails.
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1",
]
VIEWPORT = {"width": 1280, "height": 900}
# A page's screenshot for a reader of the run to look at: the first screen, what a reader meets on
# arriving, or with BOOK_FULL_PAGE_SHOTS=1 the whole page (some 38,000 pixels tall for a chapter: 2.7 to
# 3.6 s of Chromium's time on chapter 3, against 0.1 s for the first screen, twice a page). A JPEG, which
# Chromium writes in two thirds of a PNG's time.
FULL_PAGE_SHOT = {"full_page": os.environ.get("BOOK_FULL_PAGE_SHOTS") == "1", "type": "jpeg", "quality": 85}
TIMEOUT_MS = 30_000

# What a visit reads off a page, in the browser. Math: Sphinx writes every equation as div.math
# (display) or span.math (inline); MathJax puts an mjx-container inside each one it typesets. Raw TeX
# is looked for in the article's text with code, typeset math and scripts removed, so that code which
# prints a backslash is not mistaken for it.
READ_PAGE_JS = r"""
() => {
  const article = document.querySelector("article.bd-article");
  const maths = [...document.querySelectorAll("div.math, span.math")];
  const untypeset = maths.filter((m) => !m.querySelector("mjx-container"))
    .map((m) => m.textContent.trim().slice(0, 120));
  // TeX that MathJax could not read: an merror (a syntax error), or an undefined macro, which MathJax
  // draws as its own name in red. Read off the MathML of every equation MathJax typeset.
  const startup = window.MathJax && window.MathJax.startup;
  const items = startup && startup.document ? Array.from(startup.document.math) : [];
  const mathErrors = items.filter((item) => /<merror|<mtext[^>]*mathcolor="red"[^>]*>\\/
    .test(startup.toMML(item.root))).map((item) => String(item.math).slice(0, 120));
  let text = "";
  const fullText = article ? article.textContent : "";  // prose, code and every output
  if (article) {
    const clone = article.cloneNode(true);
    clone.querySelectorAll("mjx-container, script, style, pre, code, .highlight, .cell_input")
      .forEach((e) => e.remove());
    text = clone.textContent;
  }
  const images = article ? [...article.querySelectorAll("img")].map((img) => ({
    src: img.currentSrc || img.src, complete: img.complete, naturalWidth: img.naturalWidth,
  })) : [];
  const links = (selector) => [...document.querySelectorAll(selector)].map((a) => a.href);
  return {
    hasArticle: !!article,
    fullText,
    mathjax: !!(window.MathJax && window.MathJax.startup),
    equations: maths.length,
    typeset: maths.length - untypeset.length,
    untypeset, mathErrors, text, images,
    colabLinks: links('a[href^="https://colab.research.google.com/"]'),
    tocLinks: links("nav.bd-links a[href]"),
    chapterMapLinks: links("section#chapter-map table a[href]"),
  };
}
"""

# Starts waiting for the page to settle: MathJax's startup promise (it resolves once every equation is
# typeset), then every image of the article, then the fonts (MathJax's among them). The visit polls
# window.__bookSettled, so that a page which never settles fails after TIMEOUT_MS instead of hanging.
SETTLE_JS = """
() => {
  window.__bookSettled = false;
  const typeset = window.MathJax && window.MathJax.startup ? window.MathJax.startup.promise : Promise.resolve();
  const images = () => [...document.querySelectorAll("article.bd-article img")].map((img) => img.complete ? null
    : new Promise((done) => { img.addEventListener("load", done); img.addEventListener("error", done); }));
  typeset.then(() => Promise.all([...images(), document.fonts.ready]))
    .then(() => { window.__bookSettled = true; }, (error) => { window.__bookSettled = String(error); });
}
"""

# The theme's mode (``<html data-theme="light|dark">``, the theme's own switch) set to its argument, or
# back to none; then two animation frames, time for the browser to apply it before its colours are read.
SET_THEME_JS = """
(theme) => {
  if (theme === null) delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = theme;
  return new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
}
"""

RAW_TEX = re.compile(r"\$\$|\\\[|\\\]|\\\(|\\\)|\\begin\{|\\end\{|\$[^$\n]{0,80}?\\[A-Za-z]+[^$\n]{0,80}?\$")


@dataclass
class PageVisit:
    """What one page showed a reader: the findings every browser test reads."""

    page: str
    url: str = ""
    final_url: str = ""
    status: int | None = None
    seconds: float = 0.0
    has_article: bool = False
    mathjax_loaded: bool = False
    equations: int = 0
    typeset: int = 0
    untypeset: list[str] = field(default_factory=list)
    math_errors: list[str] = field(default_factory=list)
    raw_tex: list[str] = field(default_factory=list)
    machine_text: list[str] = field(default_factory=list)
    images: list[dict] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)
    broken_resources: list[str] = field(default_factory=list)
    external_requests: list[str] = field(default_factory=list)
    colab_links: list[str] = field(default_factory=list)
    toc_links: list[str] = field(default_factory=list)
    chapter_map_links: list[str] = field(default_factory=list)
    screenshot: str = ""

    @property
    def figures_loaded(self) -> int:
        return sum(1 for image in self.images if image["complete"] and image["naturalWidth"] > 0)


def is_local(url: str) -> bool:
    parts = urlsplit(url)
    return parts.scheme not in ("http", "https", "ws", "wss") or parts.hostname in LOCAL_HOSTS


def raw_tex_snippets(text: str) -> list[str]:
    return [text[max(0, m.start() - 40) : m.end() + 40].strip() for m in RAW_TEX.finditer(text)]


def _machine_paths() -> list[str]:
    """The absolute paths of this machine that a page must never show: the repository, the home
    folder, the virtual environment, the interpreter's prefixes and the temporary folder."""
    paths = {str(REPO_ROOT), str(Path.home()), sys.prefix, sys.base_prefix, tempfile.gettempdir()}
    paths |= set(site.getsitepackages())
    return sorted((p.rstrip("/") + "/" for p in paths if len(p.strip("/")) > 1), key=len, reverse=True)


# What only the build machine could have written into a page: one of its own paths, any path through an
# installed package or a usual home or temporary folder, or a Python warning (`UserWarning: ...`,
# `TqdmWarning: IProgress not found`), which carries the path of the file that raised it.
MACHINE_TEXT = re.compile(
    "|".join(
        [re.escape(path) for path in _machine_paths()]
        + [
            r"site-packages",
            r"dist-packages",
            r"/home/\w",
            r"/root/",
            r"/tmp/",
            r"/Users/\w",
            r"[A-Za-z]:\\Users",
        ]
        + [r"\b[A-Z]\w*Warning: "]
    )
)


def machine_text_snippets(text: str) -> list[str]:
    return [text[max(0, m.start() - 60) : m.end() + 60].strip() for m in MACHINE_TEXT.finditer(text)]


def add_to_report(path: Path, page: str, found, ensure_ascii: bool = False) -> None:
    """Write what was found on ``page`` into the JSON report at ``path`` (a dict by page, in the order
    of the table of contents), beside what other pages, in this process or another worker, put there."""
    path.parent.mkdir(parents=True, exist_ok=True)
    order = {name: index for index, name in enumerate(["index", *toc_files()])}
    folder = os.open(path.parent, os.O_RDONLY)
    try:
        fcntl.flock(folder, fcntl.LOCK_EX)  # the workers of pytest-xdist write the same report
        report = json.loads(path.read_text()) if path.is_file() else {}
        report[page] = found
        report = dict(sorted(report.items(), key=lambda item: order.get(item[0], len(order))))
        path.write_text(json.dumps(report, indent=1, ensure_ascii=ensure_ascii) + "\n")
    finally:
        os.close(folder)  # and with it the lock


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format, *args):
        pass

    def copyfile(self, source, outputfile):
        # A tab closed while a file was still on its way (a font MathJax asked for, say) is a reader
        # leaving the page, not an error of the book: the rest of the file has no one to go to.
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            super().copyfile(source, outputfile)


# What the steps after the first read, by part, and the test module that reads it.
PARTS = {"contrast": "test_contrast", "accessibility": "test_accessibility", "listings": "test_listings"}


class Book:
    """The built book in one headless Chromium; `visit(page)` opens a page once and caches what it saw:
    its PageVisit, and what the later steps read of the PARTS in ``wanted`` (`read(page, part)`; a run
    of one test module reads its own part only)."""

    def __init__(self, browser, base_url: str, wanted=tuple(PARTS)):
        self.browser = browser
        self.base_url = base_url
        self.wanted = set(wanted)
        self.visits: dict[str, PageVisit | BaseException] = {}
        self.parts: dict[str, dict[str, object]] = {}  # by page and part: what it read, or its error

    def url(self, page: str) -> str:
        return f"{self.base_url}/{page}.html"

    def visit(self, page: str) -> PageVisit:
        if page not in self.visits:
            try:
                self.visits[page] = self._visit(page)
            except Exception as error:  # every test of this page reports it, not only the first
                self.visits[page] = error
        result = self.visits[page]
        if isinstance(result, BaseException):
            raise result
        return result

    def read(self, page: str, part: str):
        """What the visit of ``page`` read in ``part``; the error of that part, or of the visit, raised."""
        self.visit(page)
        found = self.parts.get(page, {}).get(part, LookupError(f"the visit of {page} reads no {part}"))
        if isinstance(found, BaseException):
            raise found
        return found

    def _visit(self, page: str) -> PageVisit:
        # A fresh context per page: each page is a reader's first visit (no storage, no cache).
        visit = PageVisit(page=page, url=self.url(page))
        context = self.browser.new_context(viewport=VIEWPORT, service_workers="block")
        context.set_default_timeout(TIMEOUT_MS)
        reading = [True]  # the PageVisit's findings are the page's as a reader first sees it: until step 2

        def route(route):
            url = route.request.url
            if is_local(url):
                route.continue_()
            else:
                if reading[0]:
                    visit.external_requests.append(url)
                route.abort("internetdisconnected")

        def on_console(message):
            if message.type != "error" or not reading[0]:
                return
            source = (message.location or {}).get("url", "")
            if not is_local(source) or "net::ERR_INTERNET_DISCONNECTED" in message.text:
                return  # a blocked external request: counted in external_requests instead
            visit.console_errors.append(f"{message.text} ({source})")

        def on_response(response):
            if reading[0] and response.status >= 400 and is_local(response.url):
                visit.broken_resources.append(f"{response.status} {response.url}")

        def on_request_failed(request):
            if reading[0] and is_local(request.url):
                visit.broken_resources.append(f"{request.failure} {request.url}")

        def on_page_error(error):
            if reading[0]:
                visit.console_errors.append(f"uncaught: {error}")

        context.route("**/*", route)
        start = time.perf_counter()
        try:
            tab = context.new_page()
            tab.on("console", on_console)
            tab.on("pageerror", on_page_error)
            tab.on("response", on_response)
            tab.on("requestfailed", on_request_failed)
            response = tab.goto(visit.url, wait_until="load")
            visit.status = response.status if response else None
            if page == "index":  # Jupyter Book writes index.html as a redirect to the root page
                tab.wait_for_url(lambda url: not url.endswith("/index.html"))
                tab.wait_for_load_state("load")
            visit.final_url = tab.url
            tab.evaluate(SETTLE_JS)
            settled = tab.wait_for_function("() => window.__bookSettled !== false").json_value()
            if settled is not True:
                visit.console_errors.append(f"while typesetting: {settled}")
            found = tab.evaluate(READ_PAGE_JS)
            visit.seconds = round(time.perf_counter() - start, 2)
            visit.has_article = found["hasArticle"]
            visit.mathjax_loaded = found["mathjax"]
            for name in ("equations", "typeset", "untypeset", "images"):
                setattr(visit, name, found[name])
            visit.math_errors = found["mathErrors"]
            visit.raw_tex = raw_tex_snippets(found["text"])
            visit.machine_text = machine_text_snippets(found["fullText"])
            visit.colab_links = found["colabLinks"]
            visit.toc_links = found["tocLinks"]
            visit.chapter_map_links = found["chapterMapLinks"]
            if page != "index":  # the same page as the root page it redirects to
                SCREENSHOT_DIR.mkdir(parents=True, exist_ok=True)
                shot = SCREENSHOT_DIR / f"{page.replace('/', '__')}.jpg"
                tab.screenshot(path=str(shot), **FULL_PAGE_SHOT)
                visit.screenshot = str(shot.relative_to(REPO_ROOT))
            reading[0] = False
            if page != "index":  # the root page's own visit reads the rest
                self.parts[page] = self._read_on(tab, page)
        finally:
            context.close()  # what a page read is kept; its tab is not
        return visit

    def _read_on(self, tab, page: str) -> dict[str, object]:
        """Steps 2 and 3 of a visit (the module's docstring) on the page open and settled in ``tab``, by
        part. A part that fails keeps its error and is not read further; the others go on."""
        from test_accessibility import audit_mode, read_figures
        from test_contrast import HOVER_JS, STILL_CSS, THEMES, measure_mode, report_contrast, shoot_dark
        from test_listings import measure_listings

        parts: dict[str, object] = {part: {} for part in ("contrast", "accessibility") if part in self.wanted}

        def run(part: str, key: str | None, step, *args) -> None:
            """``step(*args)``, kept in ``part`` under ``key``; an error ends the part."""
            if part not in parts or isinstance(parts[part], BaseException):
                return
            try:
                found = step(*args)
            except Exception as error:
                parts[part] = error
            else:
                if key is not None:
                    parts[part][key] = found

        try:
            own_theme = tab.evaluate("() => document.documentElement.dataset.theme ?? null")
            if parts:
                tab.add_style_tag(content=STILL_CSS)  # no transition: the colours read are each mode's own
                run("accessibility", "figures", read_figures, tab)
                tab.evaluate(HOVER_JS)
                for theme in THEMES:
                    tab.evaluate(SET_THEME_JS, theme)
                    run("contrast", theme, measure_mode, tab, theme)
                    tab.evaluate("() => window.scrollTo(0, 0)")  # where axe found the page on its own
                    run("accessibility", theme, audit_mode, tab, page, theme)
                    if theme == "dark":
                        run("contrast", None, shoot_dark, tab, page)
                run("contrast", None, report_contrast, page, parts.get("contrast"))
                tab.evaluate(SET_THEME_JS, own_theme)
        except Exception as error:  # the page itself failed: every part reports it
            return dict.fromkeys(PARTS, error)
        if "listings" in self.wanted:
            try:
                parts["listings"] = measure_listings(tab, page)
            except Exception as error:
                parts["listings"] = error
        return parts
