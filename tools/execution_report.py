"""A Sphinx extension (listed in _config.yml's sphinx.local_extensions) that records how each chapter
got its outputs in this build: executed now (and how long it took), taken from the cache of executed
chapters (and who executed it, how long ago), or not read again because nothing it depends on changed.

It writes _build/execution-report.json at the end of the build, failed or not; tools/book_cache.py
prints it as a table after the build.
"""

from __future__ import annotations

import json
import time
from pathlib import Path


def _cache_records(app) -> dict[float, dict]:
    """created timestamp -> data of every record in the cache of executed chapters."""
    try:
        from jupyter_cache import get_cache

        path = (
            app.config.nb_execution_cache_path or Path(app.outdir).parent / ".jupyter_cache"
        )  # myst-nb's default
        records = get_cache(str(path)).list_cache_records()
        return {record.created.timestamp(): dict(record.data or {}) for record in records}
    except Exception:  # the table is a report: a cache it cannot read leaves "who" blank
        return {}


def _note_start(app) -> None:
    app.attnbook_build_start = time.time()
    app.attnbook_read_now = set()


def _note_read(app, env, docnames) -> None:
    app.attnbook_read_now = set(docnames)


def _rows(app) -> list[dict]:
    from myst_nb.sphinx_ import NbMetadataCollector

    env = app.env
    start = getattr(app, "attnbook_build_start", 0.0)
    read_now = getattr(app, "attnbook_read_now", set())
    records = None
    rows = []
    for docname, data in sorted(NbMetadataCollector.get_doc_data(env).items()):
        exec_data = data.get("exec_data")
        if not exec_data or docname not in env.found_docs:
            continue
        seconds = exec_data.get("runtime")
        if docname not in read_now:
            how = "unchanged: not read again"
        elif not exec_data.get("succeeded"):
            how = f"executed now: FAILED ({exec_data.get('error')})"
        elif (exec_data.get("mtime") or 0) >= start:
            how = "executed now"
        else:
            if records is None:
                records = _cache_records(app)
            record = records.get(exec_data.get("mtime"), {})
            by = record.get("executed_by", "an earlier book build")
            minutes = (time.time() - exec_data["mtime"]) / 60
            how = f"from the cache (executed by {by}, {minutes:.0f} min ago)"
        rows.append({"chapter": docname, "seconds": seconds, "how": how})
    return rows


def _write_report(app, exception) -> None:
    report = Path(app.outdir).parent / "execution-report.json"
    report.write_text(json.dumps({"chapters": _rows(app)}, indent=1) + "\n")


def setup(app):
    app.connect("builder-inited", _note_start)
    app.connect("env-before-read-docs", _note_read)
    app.connect("build-finished", _write_report)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
