"""Write every chapter as a plain Python script, for a machine with a GPU but no Jupyter.

    python tools/chapters_as_scripts.py OUT_DIR
    PYTHONPATH=code/src MPLBACKEND=Agg python OUT_DIR/06_seq2seq.py

Magics (the Colab cell's %pip) become `pass`; cells tagged raises-exception must raise; IPython's
Markdown falls back to str. This is how the chapters were run on CUDA where no kernel was installed.
"""

import json
import pathlib
import re
import sys
import textwrap

out_dir = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "_build/scripts")
out_dir.mkdir(parents=True, exist_ok=True)
for path in sorted(pathlib.Path("chapters").glob("0*.ipynb")):
    nb = json.loads(path.read_text())
    parts = []
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
    out = out_dir / (path.stem + ".py")
    out.write_text("\n\n".join(parts) + "\n")
    compile(out.read_text(), str(out), "exec")
    print("wrote", out)
