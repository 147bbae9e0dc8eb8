"""A Sphinx extension (listed in _config.yml's sphinx.local_extensions) that mends what Sphinx's own
HTML gives screen readers wrong.

docutils writes the bibliography as ``<div role="list">`` holding one ``<div role="doc-biblioentry">`` per
reference. DPUB-ARIA 1.1 deprecated the role ``doc-biblioentry``, so a list of them is a list without
items: axe-core reports it as a critical violation (aria-required-children; tests/browser/
test_accessibility.py) and screen readers announce a list of no entries. Each entry becomes a
``listitem``, which is what the deprecated role meant.
"""

from __future__ import annotations

DEPRECATED_ROLES = {'role="doc-biblioentry"': 'role="listitem"'}


def mend_roles(app, pagename, templatename, context, doctree) -> None:
    body = context.get("body")
    if not body:
        return
    for old, new in DEPRECATED_ROLES.items():
        body = body.replace(old, new)
    context["body"] = body


def setup(app):
    app.connect("html-page-context", mend_roles)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
