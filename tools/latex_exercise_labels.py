"""A Sphinx extension for the PDF edition: a reference to an exercise resolves in LaTeX too.

sphinx-exercise (1.2) labels an exercise in LaTeX as ``exercise:<label>``, while Sphinx's LaTeX writer
links a ``{ref}`` from another page to ``<docname>:<label>``, which nothing defines: the PDF shows "??"
and the link goes nowhere. For the LaTeX builders only, this writes the second label in front of every
labelled exercise, with the exercise's own number as the text ``\\ref`` prints ("1.2", not the number
of the section it sits in). In the HTML book it does nothing, and without sphinx-exercise neither.
"""

from __future__ import annotations

from docutils import nodes
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


def setup(app: Sphinx) -> dict:
    # After sphinx-exercise's own handlers (priority 500), on the resolved doctree the writer reads.
    app.connect("doctree-resolved", _exercise_labels, priority=600)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
