"""A Sphinx extension (listed in _config.yml's sphinx.local_extensions) that keeps the build machine's
paths out of the chapters' outputs.

A traceback that a chapter shows on purpose (a cell tagged raises-exception) names the file of every
frame: `File /home/<user>/<clone>/code/src/attnbook/layers/attention.py:410`, or a site-packages path where the
package is installed; a message may name a file the chapter wrote in a temporary folder. In the page
these become what they are relative to: `attnbook/layers/attention.py` (the package's own path, the same on
every machine), the name inside the temporary folder, `~` for the home folder. Only the text of cell
outputs is rewritten; tracebacks of failing chapters (the build's reports) keep their full paths.
"""

from __future__ import annotations

import re
import site
import sys
import sysconfig
import tempfile
from pathlib import Path

from docutils import nodes

ROOT = Path(__file__).resolve().parents[1]


def machine_prefixes() -> list[tuple[str, str]]:
    """(absolute prefix, replacement), longest first, so that the most specific prefix wins."""
    prefixes = {str(ROOT / "code" / "src"): ""}
    for folder in [*site.getsitepackages(), site.getusersitepackages(), sysconfig.get_paths()["purelib"]]:
        prefixes[folder] = ""
    prefixes[sysconfig.get_paths()["stdlib"]] = "python"
    prefixes[str(ROOT)] = ""
    prefixes[sys.prefix] = ""
    prefixes[str(Path.home())] = "~"
    pairs = {p.rstrip("/") + "/": (r + "/" if r else "") for p, r in prefixes.items() if p.strip("/")}
    return sorted(pairs.items(), key=lambda pair: -len(pair[0]))


_PREFIXES = machine_prefixes()
# A temporary folder and the folder made in it (the chapter's working folder, a TemporaryDirectory).
_TEMPORARY = re.compile(re.escape(tempfile.gettempdir().rstrip("/")) + r"/(?:[^/\s'\"]+/)?")
_MACHINE = re.compile("|".join(re.escape(prefix) for prefix, _ in _PREFIXES))
_REPLACEMENT = dict(_PREFIXES)


def clean(text: str) -> str:
    text = _MACHINE.sub(lambda match: _REPLACEMENT[match.group(0)], text)
    return _TEMPORARY.sub("", text)


def _clean_outputs(app, doctree) -> None:
    for output in doctree.findall(nodes.container):
        if "cell_output" not in output.get("classes", []):
            continue
        for node in list(output.findall(nodes.Text)):
            cleaned = clean(str(node))
            if cleaned != str(node):
                node.parent.replace(node, nodes.Text(cleaned))
        for node in output.findall(nodes.Element):  # Sphinx highlights a literal block's rawsource
            if getattr(node, "rawsource", None):
                node.rawsource = clean(node.rawsource)


def setup(app):
    app.connect("doctree-read", _clean_outputs)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
