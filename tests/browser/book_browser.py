"""The browser test's machinery: one headless Chromium with no network, and one visit per page of
the built book whose findings (PageVisit) every test in test_pages.py reads. Fixtures: conftest.py."""

from __future__ import annotations

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

from book_config import REPO_ROOT

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


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format, *args):
        pass


class Book:
    """The built book in one headless Chromium; `visit(page)` opens a page once and caches what it saw."""

    def __init__(self, browser, base_url: str):
        self.browser = browser
        self.base_url = base_url
        self.visits: dict[str, PageVisit | BaseException] = {}

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

    def _visit(self, page: str) -> PageVisit:
        # A fresh context per page: each page is a reader's first visit (no storage, no cache).
        visit = PageVisit(page=page, url=self.url(page))
        context = self.browser.new_context(viewport=VIEWPORT, service_workers="block")
        context.set_default_timeout(TIMEOUT_MS)

        def route(route):
            url = route.request.url
            if is_local(url):
                route.continue_()
            else:
                visit.external_requests.append(url)
                route.abort("internetdisconnected")

        def on_console(message):
            if message.type != "error":
                return
            source = (message.location or {}).get("url", "")
            if not is_local(source) or "net::ERR_INTERNET_DISCONNECTED" in message.text:
                return  # a blocked external request: counted in external_requests instead
            visit.console_errors.append(f"{message.text} ({source})")

        def on_response(response):
            if response.status >= 400 and is_local(response.url):
                visit.broken_resources.append(f"{response.status} {response.url}")

        def on_request_failed(request):
            if is_local(request.url):
                visit.broken_resources.append(f"{request.failure} {request.url}")

        context.route("**/*", route)
        start = time.perf_counter()
        try:
            tab = context.new_page()
            tab.on("console", on_console)
            tab.on("pageerror", lambda error: visit.console_errors.append(f"uncaught: {error}"))
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
                shot = SCREENSHOT_DIR / f"{page.replace('/', '__')}.png"
                tab.screenshot(path=str(shot), full_page=True)
                visit.screenshot = str(shot.relative_to(REPO_ROOT))
        finally:
            context.close()
        return visit
