"""Every page of the built book, opened in headless Chromium with no network, as a reader sees it.

For every page: it loads, MathJax (served by the book itself) has typeset every equation, every figure
has loaded, the console shows no error, no request left 127.0.0.1, and no text (prose, code or output)
shows a path of the build machine or a Python warning. For every chapter also: the
Colab link opens that chapter's notebook in the configured repository and branch, the left-hand table
of contents lists every chapter, and a full-page screenshot is saved under _build/screenshots/. For
the index page: every link of the chapter map resolves.
"""

from __future__ import annotations

import posixpath
import urllib.request
from urllib.parse import urldefrag, urlsplit

import pytest
from book_browser import is_local
from book_config import REPO_ROOT, book_config, toc_files

PAGES = toc_files()
ROOT_PAGE = PAGES[0]
CHAPTERS = [page for page in PAGES if page.startswith("chapters/")]
IN_SIDEBAR = PAGES[1:]  # every entry under a part of _toc.yml; the root page is the sidebar's home link


def expected_colab_url(chapter: str) -> str:
    repository = book_config()["repository"]
    org_repo = urlsplit(repository["url"]).path.strip("/").removesuffix(".git")
    path = posixpath.join((repository.get("path_to_book") or "").strip("/"), f"{chapter}.ipynb")
    return f"https://colab.research.google.com/github/{org_repo}/blob/{repository['branch']}/{path}"


def page_of(url: str, base_url: str) -> str:
    """The book page a link leads to ('chapters/01_intuition'), or the link itself if it leaves the book."""
    url = urldefrag(url).url
    if not url.startswith(base_url + "/"):
        return url
    return url[len(base_url) + 1 :].removesuffix(".html")


def test_toc_has_chapters():
    assert CHAPTERS, "_toc.yml lists no chapters/… page"


@pytest.mark.parametrize("page", PAGES)
def test_page_loads(book, page):
    visit = book.visit(page)
    assert visit.status == 200, f"{visit.url} answered {visit.status}"
    assert visit.has_article, f"{page}: no article.bd-article (did the theme change?)"


@pytest.mark.parametrize("page", PAGES)
def test_math_is_typeset(book, page):
    visit = book.visit(page)
    if visit.equations:
        assert visit.mathjax_loaded, f"{page}: {visit.equations} equations but MathJax did not load"
    assert not visit.untypeset, f"{page}: {len(visit.untypeset)} equations not typeset: {visit.untypeset[:5]}"
    assert not visit.math_errors, f"{page}: MathJax could not parse: {visit.math_errors[:5]}"
    assert not visit.raw_tex, f"{page}: raw TeX in the text a reader sees: {visit.raw_tex[:5]}"


@pytest.mark.parametrize("page", PAGES)
def test_figures_load(book, page):
    visit = book.visit(page)
    broken = [image["src"] for image in visit.images if not (image["complete"] and image["naturalWidth"] > 0)]
    assert not broken, f"{page}: figures that did not load: {broken}"


@pytest.mark.parametrize("page", PAGES)
def test_no_console_errors(book, page):
    visit = book.visit(page)
    assert not visit.console_errors, f"{page}: console errors: {visit.console_errors}"
    assert not visit.broken_resources, f"{page}: resources that failed to load: {visit.broken_resources}"


@pytest.mark.parametrize("page", PAGES)
def test_reads_offline(book, page):
    """No page asks for more than the book itself (fonts, scripts, analytics): offline, that would fail."""
    visit = book.visit(page)
    assert not visit.external_requests, f"{page} tried to reach the network: {visit.external_requests}"


@pytest.mark.parametrize("page", PAGES)
def test_no_machine_paths_or_warnings(book, page):
    """Outputs show what a reader would see anywhere: no path of the build machine, no Python warning."""
    visit = book.visit(page)
    assert not visit.machine_text, f"{page} shows the build machine: {visit.machine_text[:5]}"


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_colab_link_opens_this_chapter(book, chapter):
    assert (REPO_ROOT / f"{chapter}.ipynb").is_file(), f"{chapter} is not a notebook: no Colab link is drawn"
    links = set(book.visit(chapter).colab_links)
    assert links == {expected_colab_url(chapter)}, f"{chapter}: Colab links {sorted(links)}"


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_sidebar_lists_every_chapter(book, chapter):
    visit = book.visit(chapter)
    listed = [page_of(url, book.base_url) for url in visit.toc_links]
    missing = [page for page in IN_SIDEBAR if page not in listed]
    assert not missing, f"{chapter}: the table of contents lacks {missing}; it lists {listed}"
    order = [page for page in listed if page in IN_SIDEBAR]
    assert order == sorted(set(order), key=IN_SIDEBAR.index), f"{chapter}: out of _toc.yml's order: {order}"


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_screenshot_saved(book, chapter):
    visit = book.visit(chapter)
    shot = REPO_ROOT / visit.screenshot
    assert shot.is_file() and shot.stat().st_size > 10_000, f"{chapter}: no screenshot at {shot}"


def test_index_chapter_map_links_resolve(book):
    visit = book.visit("index")
    assert page_of(visit.final_url, book.base_url) == ROOT_PAGE, f"index.html led to {visit.final_url}"
    links = visit.chapter_map_links
    assert links, "the index page has no chapter map (a table under the heading 'Chapter map')"
    failures = []
    for link in links:
        if not is_local(link):
            failures.append(f"{link} leaves the book")
            continue
        try:
            with urllib.request.urlopen(urldefrag(link).url, timeout=10) as response:
                if response.status != 200:
                    failures.append(f"{link}: {response.status}")
        except OSError as error:
            failures.append(f"{link}: {error}")
    assert not failures, f"chapter map links that do not resolve: {failures}"
