"""Write every chapter as a plain Python script, for a machine with a GPU but no Jupyter.

    python tools/chapters_as_scripts.py OUT_DIR      # writes OUT_DIR/NN_name.py for every chapter
    make gpu-check                                   # writes them and runs them all (tools/gpu_check.py)

Magics (the Colab cell's %pip) become `pass`; cells tagged raises-exception must raise; IPython's
Markdown falls back to str. A script stops at once if assertions are off (python -O): the chapters'
checks are assertions.
"""

from __future__ import annotations

import json
import pathlib
import re
import sys
import textwrap

ROOT = pathlib.Path(__file__).resolve().parents[1]
ASSERTIONS_ON = 'if not __debug__:\n    raise SystemExit("assertions are off (python -O): the chapter\'s checks would not run")\n'


def chapters() -> list[pathlib.Path]:
    folder = ROOT / "chapters"
    return sorted(folder.glob("[0-9][0-9]_*.ipynb")) + sorted(folder.glob("appendix_*.ipynb"))


def chapter_to_script(path: pathlib.Path) -> str:
    """The chapter's code cells as one script that prints each cell's number before running it."""
    nb = json.loads(path.read_text())
    parts = [ASSERTIONS_ON]
    for n, c in enumerate(nb["cells"]):
        if c["cell_type"] != "code":
            continue
        src = "".join(c["source"])
        src = re.sub(r"^(\s*)[%!].*$", r"\1pass", src, flags=re.M)
        src = src.replace(
            "from IPython.display import Markdown\n",
            "try:\n    from IPython.display import Markdown\nexcept ImportError:\n    Markdown = str\n",
        )
        if "raises-exception" in c.get("metadata", {}).get("tags", []):
            src = (
                "try:\n"
                + textwrap.indent(src, "    ")
                + "\nexcept Exception as exc:\n    print('expected error:', type(exc).__name__, exc)\nelse:\n    raise SystemExit('cell %d was expected to raise' % "
                + str(n)
                + ")"
            )
        parts.append(f"# ---- cell {n}\nprint('== cell {n}', flush=True)\n" + src)
    script = "\n\n".join(parts) + "\n"
    compile(script, str(path), "exec")
    return script


def write_scripts(out_dir: pathlib.Path) -> list[pathlib.Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for path in chapters():
        out = out_dir / (path.stem + ".py")
        out.write_text(chapter_to_script(path))
        written.append(out)
    return written


if __name__ == "__main__":
    for out in write_scripts(pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "_build/scripts")):
        print("wrote", out)
