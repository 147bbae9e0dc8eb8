"""A pytest plugin that lets one execution of a chapter serve both nbval and the book build.

`make test` loads it (`-p nbval_cache`, with tools/ on PYTHONPATH) into the run that checks every chapter
under nbval. For each chapter it:

- starts nbval's kernel in a new temporary folder, as the book build does (`run_in_temp`, and as Colab
  runs from /content), with text progress bars (ATTNBOOK_TEXT_PROGRESS, as the build sets it);
- collects the outputs nbval read from the kernel, cell by cell;
- when every cell of the chapter passed (none failed, none skipped), stores the executed chapter in the
  book's cache of executed chapters (_build/.jupyter_cache, keyed by jupyter-cache on the chapter's
  code cells), so that the build that follows takes it from there instead of executing it again.

Before the workers start, the cache is cleared if it was filled under another fingerprint of the package,
the requirements and the installed versions (tools/book_cache.py); a chapter is stored only if that
fingerprint is still the same when it finishes. A chapter that fails is never stored: nbval reports its
traceback, and the build would execute it again and fail with it too.
"""

from __future__ import annotations

import copy
import os
import tempfile
import time
from pathlib import Path

import book_cache
import pytest

try:
    from nbval import plugin as nbval_plugin
    from nbval.kernel import RunningKernel
except ImportError:  # without nbval there is nothing to serve
    nbval_plugin = None


if nbval_plugin is not None:

    class KernelInTemporaryFolder(RunningKernel):
        """nbval's kernel, started in a temporary folder, that also reads the kernel's language_info."""

        def __init__(self, kernel_name, cwd=None, startup_timeout=60):
            self.folder = tempfile.TemporaryDirectory(prefix="chapter-")
            super().__init__(kernel_name, cwd=self.folder.name, startup_timeout=startup_timeout)
            self.language_info = self._language_info()

        def _language_info(self) -> dict | None:
            msg_id = self.kc.kernel_info()
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                msg = self.get_message(stream="shell", timeout=30)
                if msg["parent_header"].get("msg_id") == msg_id:
                    return msg["content"].get("language_info")
            return None

        def stop(self):
            try:
                super().stop()
            finally:
                self.folder.cleanup()


def pytest_configure(config):
    if nbval_plugin is None or not (config.option.nbval or config.option.nbval_lax):
        return
    os.environ["ATTNBOOK_TEXT_PROGRESS"] = "1"  # inherited by every kernel, as in the build
    nbval_plugin.RunningKernel = KernelInTemporaryFolder
    if not hasattr(config, "workerinput"):  # the controller (or a run without workers): before any chapter
        book_cache.sync_cache(book_cache.fingerprint())
    config.pluginmanager.register(ChapterRecorder(), "nbval_cache_recorder")


class ChapterRecorder:
    def __init__(self):
        self.fingerprint = book_cache.fingerprint()
        self.chapters: dict[str, dict] = {}

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        outcome = yield
        if not isinstance(item, nbval_plugin.IPyNbCell):
            return
        report = outcome.get_result()
        chapter = self.chapters.setdefault(item.parent.nodeid, {"outputs": {}, "ok": True, "seconds": 0.0})
        chapter["seconds"] += report.duration
        if report.failed or report.skipped:
            chapter["ok"] = False
        elif report.when == "call":
            chapter["outputs"][item.cell_num] = list(getattr(item, "test_outputs", []))

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item, nextitem):
        # Read before the protocol runs: the last cell's teardown stops the kernel.
        kernel = getattr(item.parent, "kernel", None)
        language_info = getattr(kernel, "language_info", None)
        yield
        if not isinstance(item, nbval_plugin.IPyNbCell):
            return
        if nextitem is not None and nextitem.parent is item.parent:
            return
        chapter = self.chapters.pop(item.parent.nodeid, None)
        if chapter and chapter["ok"]:
            self.store(item.parent, chapter, language_info)

    def store(self, notebook_item, chapter: dict, language_info: dict | None) -> None:
        nb = copy.deepcopy(notebook_item.nb)
        code_cells = [cell for cell in nb.cells if cell.cell_type == "code"]
        if len(chapter["outputs"]) != len(code_cells):
            return  # a cell did not run: nothing complete to store
        for number, cell in enumerate(code_cells):
            cell.outputs = chapter["outputs"][number]
            cell.execution_count = number + 1
        if language_info:
            nb.metadata["language_info"] = language_info
        if book_cache.fingerprint() != self.fingerprint or book_cache.fingerprint() != book_cache._read(
            book_cache.CACHE_STAMP
        ):
            return  # the package or the environment changed while the chapters ran
        book_cache.store_executed(nb, Path(str(notebook_item.fspath)), chapter["seconds"], "nbval")
