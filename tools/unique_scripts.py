"""A Sphinx extension (listed in _config.yml's sphinx.local_extensions) that writes each inline
<script> of a page once.

Sphinx 7 writes a script that an extension adds with `app.add_js_file(None, body=...)` after the
HTML builder has started twice (once as `None`, once as `''`; fixed upstream only in Sphinx 8.2,
sphinx-doc/sphinx#13402, and Jupyter Book 1 needs Sphinx 7). sphinx-thebe adds
`const THEBE_JS_URL = ...` that way, so every page of the book raised "Identifier 'THEBE_JS_URL'
has already been declared" in the reader's browser console (found by tests/browser).
"""

from __future__ import annotations


def _key(script) -> tuple:
    filename = getattr(script, "filename", script) or ""
    attributes = getattr(script, "attributes", {}) or {}
    return (str(filename), tuple(sorted((name, str(value)) for name, value in attributes.items())))


def drop_duplicate_scripts(app, pagename, templatename, context, doctree) -> None:
    scripts = context.get("script_files")
    if not scripts:
        return
    seen: set[tuple] = set()
    unique = []
    for script in scripts:
        key = _key(script)
        if key not in seen:
            seen.add(key)
            unique.append(script)
    context["script_files"] = unique


def setup(app):
    # Last among the handlers, after those that add a page's own scripts (MathJax's among them).
    app.connect("html-page-context", drop_duplicate_scripts, priority=999)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
