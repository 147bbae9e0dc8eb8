"""A Sphinx extension (listed in _config.yml's sphinx.local_extensions) that numbers an appendix's
figures, tables, code blocks and equations A.1, A.2, ... instead of 1, 2, ...

The chapters sit in a numbered part of the table of contents, so Sphinx numbers their figures and
equations by chapter (Fig. 1.2, eq. (6.3)). The appendix sits in a part of its own, unnumbered, and Sphinx
then numbers its figures and equations 1, 2, 3 with one counter shared by every unnumbered page: "Fig. 1"
and "(3)" in the appendix, next to chapter 1's "Fig. 1.1" and "(1.3)". After Sphinx has assigned the
numbers, this gives each appendix page (a page whose name starts with ``chapters/appendix_``, in the
order of their names) a letter, A, B, ..., and renumbers its figures, tables, code blocks and equations
from 1 after that letter, in the order Sphinx numbered them. The HTML builder, ``{numref}`` and ``{eq}``
all read these numbers, so the page and every reference to it agree.
"""

from __future__ import annotations

APPENDIX_PREFIX = "chapters/appendix_"


def letter_appendix_numbers(app, env) -> list[str]:
    appendices = sorted(name for name in env.toc_fignumbers if name.startswith(APPENDIX_PREFIX))
    for index, docname in enumerate(appendices):
        letter = chr(ord("A") + index)
        for numbers in env.toc_fignumbers[docname].values():  # one dict per kind: figure, displaymath, ...
            in_order = sorted(numbers, key=numbers.get)
            numbers.update({node_id: (letter, position) for position, node_id in enumerate(in_order, 1)})
    return []  # nothing more to rewrite: the pages are written after this


def setup(app):
    # After Sphinx's own numbering (the toctree collector's handler of the same event, priority 500).
    app.connect("env-get-updated", letter_appendix_numbers, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
