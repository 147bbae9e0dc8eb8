"""The browser test's set-up: the built book served on 127.0.0.1, one headless Chromium with no
network, and one visit per page whose findings every test reads.

Run after the build (`make browser`, which `make test` calls last):
    .venv/bin/python -m pytest tests/browser -n 3
With pytest-xdist each worker is its own process with its own Chromium, HTTP server and pages. A group
of tests stays on one worker (pytest_xdist_make_scheduler below): a test module is one group, so that
its module fixtures and caches are made once, except the modules that check every page one page at a
time (PER_PAGE), whose tests of one page, from all of them, form one group: each page is visited once
in the run, and the pages spread over the workers instead of queueing on one. Each worker writes the
pages it visited to _build/screenshots/visits/, and the run's summary reads them all.
The main run (`pytest tests chapters`) does not collect this folder (pytest.ini's norecursedirs).

Chromium is Debian's /usr/bin/chromium (tools/install_browser.sh installs it), driven by
Playwright's Python package; no browser is ever downloaded. Set BOOK_CHROMIUM to use another binary.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import threading
import time
from dataclasses import asdict
from http.server import ThreadingHTTPServer
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch
from book_browser import (
    CHROMIUM,
    CHROMIUM_ARGS,
    HTML_DIR,
    PARTS,
    SCREENSHOT_DIR,
    Book,
    PageVisit,
    QuietHandler,
)
from book_config import REPO_ROOT

_START = time.perf_counter()  # for the summary at the end

# PyTorch on one thread in every worker: its searches here run on tiny matrices, and beside Chromium and
# the other workers a second thread spent most of its time waiting for a core (a beam search over 50
# sentences took 49 s with two threads on a busy machine, and 7.5 s with one).
torch.set_num_threads(1)


@pytest.fixture(scope="session")
def html_dir() -> Path:
    if not (HTML_DIR / "index.html").is_file():
        pytest.fail(f"{HTML_DIR.relative_to(REPO_ROOT)}/index.html is missing: build the book first")
    return HTML_DIR


@pytest.fixture(scope="session")
def base_url(html_dir):
    """_build/html served by a thread on 127.0.0.1, on a free port."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(QuietHandler, directory=str(html_dir)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="session")
def chromium():
    """One headless Chromium for the whole run: Playwright's sync API allows one driver per process."""
    if not os.access(CHROMIUM, os.X_OK):
        pytest.fail(f"{CHROMIUM} not found: run tools/install_browser.sh (or set BOOK_CHROMIUM)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail("Playwright's Python package is missing: tools/setup_env.sh test installs it")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


# The modules whose tests check the book one page at a time (their first parameter, ``page`` or
# ``chapter``, a page of the book). The tests of one page from all of them form one group, named by the
# page: the page is visited once in the run (book_browser.Book), on one worker, and the pages spread
# over the workers.
PER_PAGE = {
    "test_accessibility",
    "test_contrast",
    "test_listings",
    "test_pages",
    "test_pdf_link",
    "test_widgets",
}

# The modules whose tests take one thing of their own each (test_transformer_translator: the harness or
# the chapter, with no state shared between them): a group per module and thing.
PER_PARAMETER = {"test_transformer_translator"}

# The modules whose tests with no page read every page's visit (test_listings'): their group is sent to
# a worker only once every other group has run, so that they read what the other workers measured
# (_build/screenshots/listings.json) instead of visiting every page again. Without xdist they run last.
LAST = {"test_listings"}

# The order the groups go out in: the longest (each translates 50 sentences) first, so that no worker
# starts one of them while the others are finishing; then the other modules' groups; then the pages, in
# the order of the table of contents (the chapters, the longest to visit, first), whose many small groups
# even out the workers' ends; LAST's groups at the very end. In a page's group its link to the PDF is
# checked last: a worker holds its last test until it is sent more or told to stop, so that test waits.
LONGEST_FIRST = ["test_transformer_translator", "test_shipped_translator", "test_translator"]
LAST_OF_A_PAGE = "test_pdf_link"


def pytest_collection_modifyitems(config, items):
    def rank(item) -> tuple[int, int]:
        module, group = item.path.stem, group_of(item.nodeid)
        if runs_last(group):
            return (3, 0)
        if module in LONGEST_FIRST:
            return (0, LONGEST_FIRST.index(module))
        if group.endswith(".py") or "::" in group:  # a module's group, not a page's
            return (1, 0)
        return (2, int(module == LAST_OF_A_PAGE))

    items.sort(key=rank)  # stable: a module's tests keep their order


def group_of(nodeid: str) -> str:
    """The group a test is scheduled in: its file; in a PER_PAGE file its page if it has one (the first
    part of its parameters' id, which no page name splits: ``chapters/03_luong-dark``); in a
    PER_PARAMETER file its file and its first parameter.

    >>> group_of("tests/browser/test_contrast.py::test_x[chapters/03_luong-dark]")
    'chapters/03_luong'
    >>> group_of("tests/browser/test_listings.py::test_y[intro]")
    'intro'
    >>> group_of("tests/browser/test_listings.py::test_over_every_page")
    'tests/browser/test_listings.py'
    >>> group_of("tests/browser/test_transformer_translator.py::test_z[harness-4]")
    'tests/browser/test_transformer_translator.py::harness'
    """
    file, _, test = nodeid.partition("::")
    if not (test.endswith("]") and "[" in test):
        return file
    first = test[test.index("[") + 1 : -1].split("-")[0]
    if Path(file).stem in PER_PAGE:
        return first
    if Path(file).stem in PER_PARAMETER:
        return f"{file}::{first}"
    return file


def runs_last(group: str) -> bool:
    """Whether ``group`` (group_of's) holds tests that read every page's visit: a LAST file's."""
    return group.endswith(".py") and Path(group).stem in LAST


@pytest.hookimpl(optionalhook=True)  # a run without pytest-xdist has no such hook
def pytest_xdist_make_scheduler(config, log):
    """pytest-xdist's loadscope with group_of's groups: a group stays on one worker. (Its own
    ``--dist loadgroup`` cannot be used: it marks a test's group by renaming the test, which pytest 9
    no longer lets a plugin do.) The groups go out in the order they are collected (see
    pytest_collection_modifyitems), not loadscope's largest first, and LAST's groups once no other
    group is left to run."""
    from xdist.scheduler import LoadScopeScheduling

    config.option.loadscopereorder = False

    class ByGroup(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return group_of(nodeid)

        def _assign_work_unit(self, node) -> None:
            for group in [group for group in self.workqueue if runs_last(group)]:
                self.workqueue.move_to_end(group)
            if runs_last(next(iter(self.workqueue))) and any(
                self._pending_of(work) > 1 for work in self.assigned_work.values()
            ):
                # other groups still run (a worker keeps its last test until it is sent more or told to
                # stop, so one test pending is a worker done); the last test that ends sends it out
                return
            super()._assign_work_unit(node)

    return ByGroup(config, log)


VISITS_DIR = SCREENSHOT_DIR / "visits"  # one file per process: the pages it visited


def _worker(config) -> str | None:
    """This process's pytest-xdist worker id, or None in the process that reports (with or without xdist)."""
    return getattr(config, "workerinput", {}).get("workerid")


def pytest_configure(config):
    if _worker(config) is None and SCREENSHOT_DIR.is_dir():
        shutil.rmtree(SCREENSHOT_DIR)  # no screenshot of a page that is gone survives


@pytest.fixture(scope="session")
def book(base_url, chromium, request):
    """The book, whose visits read the parts that the run's test modules read."""
    modules = {item.path.stem for item in request.session.items}
    book = Book(chromium, base_url, wanted=[part for part, module in PARTS.items() if module in modules])
    yield book
    visits = [
        asdict(v) | {"figures_loaded": v.figures_loaded}
        for v in book.visits.values()
        if isinstance(v, PageVisit)
    ]
    VISITS_DIR.mkdir(parents=True, exist_ok=True)
    (VISITS_DIR / f"{_worker(request.config) or 'main'}.json").write_text(json.dumps(visits, indent=1) + "\n")


def pytest_terminal_summary(terminalreporter, config):
    if _worker(config) is not None or not VISITS_DIR.is_dir():
        return
    found = {v["page"]: v for path in sorted(VISITS_DIR.glob("*.json")) for v in json.loads(path.read_text())}
    visits = [SimpleNamespace(**found[page]) for page in sorted(found)]
    report = [vars(v) for v in visits]
    (SCREENSHOT_DIR / "report.json").write_text(json.dumps(report, indent=1) + "\n")
    write = terminalreporter.write_line
    terminalreporter.section("the book in Chromium, offline")
    header = ("page", "equations", "typeset", "figures", "loaded", "errors", "external", "seconds")
    write(f"{header[0]:32} " + " ".join(f"{name:>9}" for name in header[1:]))
    for v in visits:
        errors = len(v.console_errors) + len(v.broken_resources)
        counts = (v.equations, v.typeset, len(v.images), v.figures_loaded, errors, len(v.external_requests))
        write(f"{v.page:32} " + " ".join(f"{count:9}" for count in counts) + f" {v.seconds:9.2f}")
    write(
        f"{len(visits)} pages: {sum(v.typeset for v in visits)}/{sum(v.equations for v in visits)} equations "
        f"typeset, {sum(v.figures_loaded for v in visits)}/{sum(len(v.images) for v in visits)} figures "
        f"loaded, {sum(len(v.external_requests) for v in visits)} external requests blocked; "
        f"browser test {time.perf_counter() - _START:.1f} s; "
        f"screenshots in {SCREENSHOT_DIR.relative_to(REPO_ROOT)}/"
    )
    for v in visits:
        for url in v.external_requests:
            write(f"  {v.page} tried (blocked): {url}")
