"""tools/appendix_numbers.py: an appendix's figures and equations are numbered A.1, A.2, ... in the HTML."""

import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]

CONF = """
import sys
sys.path.insert(0, {tools!r})
extensions = ["appendix_numbers"]
numfig = True
math_numfig = True
math_eqref_format = "({{number}})"
"""

INDEX = """Book
====

.. toctree::
   :numbered:

   chapters/01_first

.. toctree::

   intro_notes
   chapters/appendix_cost
"""

PAGE = """{title}
==========

.. figure:: {image}
   :name: {name}-figure

   A caption.

.. math::
   :label: {name}-equation

   a = b

See :numref:`{name}-figure` and :eq:`{name}-equation`.
"""


def test_appendix_figures_and_equations_are_lettered_while_chapters_keep_their_numbers(tmp_path):
    source = tmp_path / "source"
    (source / "chapters").mkdir(parents=True)
    (source / "conf.py").write_text(CONF.format(tools=str(REPO_ROOT / "tools")))
    (source / "index.rst").write_text(INDEX)
    pixel = bytes.fromhex(
        "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
        "1f15c4890000000d49444154789c6360000002000100ff5fa7c10000000049454e44ae426082"
    )
    for folder in (source, source / "chapters"):
        (folder / "pixel.png").write_bytes(pixel)
    (source / "chapters" / "01_first.rst").write_text(
        PAGE.format(title="First", image="pixel.png", name="one")
    )
    # an unnumbered page before the appendix, with a figure of its own: Sphinx's shared counter
    (source / "intro_notes.rst").write_text(PAGE.format(title="Notes", image="pixel.png", name="notes"))
    (source / "chapters" / "appendix_cost.rst").write_text(
        PAGE.format(title="Cost", image="pixel.png", name="cost")
    )
    out = tmp_path / "html"
    result = subprocess.run(
        [sys.executable, "-m", "sphinx", "-q", "-W", "-b", "html", str(source), str(out)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    appendix = (out / "chapters" / "appendix_cost.html").read_text()
    assert "Fig. A.1" in appendix and "(A.1)" in appendix
    chapter = (out / "chapters" / "01_first.html").read_text()
    assert "Fig. 1.1" in chapter and "(1.1)" in chapter
    notes = (out / "intro_notes.html").read_text()
    assert "Fig. 1" in notes and "Fig. A" not in notes  # other unnumbered pages keep Sphinx's numbers
