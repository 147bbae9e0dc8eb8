"""A Sphinx extension for the PDF edition: the chapters carry the book's numbers, and a reference to an
exercise resolves.

Chapter numbers. The LaTeX builder makes one document of the whole book, in which every section of the
first page (intro.md) would be a numbered chapter, so that chapter 1 of the web book would be chapter 6 of
the PDF. Following the parts of _toc.yml, this turns numbering off for the first page, back on (from 1)
at the first chapter of the numbered part, switches to appendix numbering (A, B, ...) at a part whose
caption starts with "Appendix", and turns it off again for any other unnumbered part (the Reference
pages). Figures and equations are numbered within their chapter, as in the web book.

Exercise references. sphinx-exercise (1.2) labels an exercise in LaTeX as ``exercise:<label>``, while Sphinx's LaTeX writer
links a ``{ref}`` from another page to ``<docname>:<label>``, which nothing defines: the PDF shows "??"
and the link goes nowhere. For the LaTeX builders only, this writes the second label in front of every
labelled exercise, with the exercise's own number as the text ``\\ref`` prints ("1.2", not the number
of the section it sits in). In the HTML book it does nothing, and without sphinx-exercise neither.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml
from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx


def _exercise_labels(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    if app.builder.format != "latex":
        return
    try:
        from sphinx_exercise.nodes import exercise_enumerable_node, exercise_node
        from sphinx_exercise.utils import get_node_number
    except ImportError:
        return
    registry = getattr(app.env, "sphinx_exercise_registry", {})
    for node in list(doctree.findall(lambda n: isinstance(n, (exercise_node, exercise_enumerable_node)))):
        label = node.get("label")
        if not label or label not in registry or node.parent is None:
            continue
        page = registry[label].get("docname", docname)
        number = ""
        if isinstance(node, exercise_enumerable_node):
            try:
                number = str(get_node_number(app, node, "exercise"))
            except (KeyError, AttributeError, TypeError):
                number = ""
        text = f"\\expandafter\\def\\csname @currentlabel\\endcsname{{{number}}}" if number else ""
        raw = f"\\phantomsection{text}\\label{{\\detokenize{{{page}:{label}}}}}\n"
        node.parent.insert(node.parent.index(node), nodes.raw("", raw, format="latex"))


def _part_starts(srcdir: Path) -> dict[str, str]:
    """The LaTeX that starts each part of _toc.yml, keyed by the part's first page."""
    toc = yaml.safe_load((srcdir / "_toc.yml").read_text(encoding="utf-8"))
    starts: dict[str, str] = {}
    for part in toc.get("parts", []):
        entries = part.get("chapters") or []
        if not entries or "file" not in entries[0]:
            continue
        first = re.sub(r"\.(md|ipynb|rst)$", "", str(entries[0]["file"]))
        if part.get("numbered"):
            starts[first] = "\\setcounter{secnumdepth}{\\value{editionsecnumdepth}}\\setcounter{chapter}{0}"
        elif str(part.get("caption", "")).lower().startswith("appendix"):
            # Sphinx numbers figures, tables, code blocks and equations \arabic{chapter}.n, which
            # would print the appendix's as 1.1 where the web book (tools/appendix_numbers.py) says A.1.
            starts[first] = "\\setcounter{secnumdepth}{\\value{editionsecnumdepth}}\\appendix" + "".join(
                f"\\renewcommand{{\\the{counter}}}{{\\thechapter.\\arabic{{{counter}}}}}"
                for counter in ("figure", "table", "literalblock", "equation")
            )
        else:
            starts[first] = "\\setcounter{secnumdepth}{-2}"
    return starts


def _chapter_numbers(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    if app.builder.format != "latex" or docname != app.config.root_doc:
        return
    if not (Path(app.srcdir) / "_toc.yml").is_file():
        return
    starts = _part_starts(Path(app.srcdir))
    # The first page: no chapter numbers (the class's depth is kept, to be restored below).
    front = "\\newcounter{editionsecnumdepth}\\setcounter{editionsecnumdepth}{\\value{secnumdepth}}"
    doctree.insert(0, nodes.raw("", front + "\\setcounter{secnumdepth}{-2}\n", format="latex"))
    for node in list(doctree.findall(addnodes.start_of_file)):
        latex = starts.get(node.get("docname", ""))
        if latex and node.parent is not None:
            node.parent.insert(node.parent.index(node), nodes.raw("", latex + "\n", format="latex"))


def setup(app: Sphinx) -> dict:
    # After sphinx-exercise's own handlers (priority 500), on the resolved doctree the writer reads.
    app.connect("doctree-resolved", _exercise_labels, priority=600)
    app.connect("doctree-resolved", _chapter_numbers, priority=610)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
