"""Rehearse every chapter as Colab runs it: a bare environment, the chapter's own first cell installing the
package, an empty working folder.

    make colab-check                              # every chapter, the commit at HEAD
    python tools/colab_check.py 01 06             # only the chapters whose file name contains one of these
    python tools/colab_check.py --commit v1.0     # another commit
    python tools/colab_check.py --env DIR         # build (or reuse) the environment in DIR

What it builds (``tests/test_colab_rehearsal.py`` keeps the quick rehearsal of chapter 1 in ``make test``;
this runs all of them, from a clone, in an environment built from nothing):

1. **What Colab has.** A new virtual environment with torch, Jupyter's kernel and what Colab preinstalls
   that the chapters import without installing (``COLAB_PREINSTALLED``), and nothing of the book: not the
   package, not its other dependencies (pip must fetch those from the chapter's first cell), not Sphinx,
   not nbval. A ``.pth`` file imports a stand-in ``google.colab`` module at interpreter start, as Colab's
   kernel has the real one.
2. **The commit under test.** A clone of this repository at that commit; the first cell's
   ``git+https://github.com/<owner>/<repo>@main#subdirectory=code`` is pointed at
   ``git+file://<clone>@<commit>#subdirectory=code``. Nothing else in the chapter changes.
3. **Each chapter as shipped**, executed by nbclient in that environment's kernel from a new empty folder
   (Colab runs from ``/content``), after uninstalling the package that the previous chapter installed, so
   that every chapter's first cell installs it again, as in a new Colab runtime.

It prints each chapter's result and time, then every time claim the chapters asserted (the measured value
beside its bound, attnbook.benchmark.record_claim), closest to its bound first, and exits with 1 if any
chapter failed. The torch installed is the one
``COLAB_TORCH`` names, as pip arguments (default ``torch``; e.g. ``torch==2.13.0`` or
``torch --index-url https://download.pytorch.org/whl/cpu``); pip's own configuration says where it comes from.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from claims_log import CLAIMS_LOG, claims_table, closest_summary, read_claims

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = sorted((ROOT / "chapters").glob("*.ipynb"))
# Preinstalled in Colab and imported by the chapters or needed to run them, so never installed by them.
COLAB_PREINSTALLED = (
    "ipykernel",
    "nbclient",
    "nbformat",
    "numpy",
    "matplotlib",
    "seaborn",
    "tqdm",
    "pandas",
    "scipy",
)
STANDIN = 'import sys, types; sys.modules.setdefault("google.colab", types.ModuleType("google.colab"))\n'
INSTALL_URL = re.compile(r"git\+https://github\.com/[\w.-]+/[\w.-]+@main(#subdirectory=code)")
CELL_TIMEOUT_S = 900


def run(command: list[str], **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([str(part) for part in command], check=True, **kwargs)


def build_environment(env: Path) -> Path:
    """A venv with torch, the kernel and Colab's preinstalled packages; returns its Python."""
    python = env / "bin" / "python"
    if python.exists():
        print(f"reusing the environment in {env}", flush=True)
        return python
    start = time.perf_counter()
    run([sys.executable, "-m", "venv", env])
    # Colab's pip is recent; the pip that venv bundles may be too old to read `name @ git+file://...`.
    run([python, "-m", "pip", "install", "--quiet", "--upgrade", "pip"])
    torch_requirement = shlex.split(os.environ.get("COLAB_TORCH") or "torch")
    run([python, "-m", "pip", "install", "--quiet", *torch_requirement])  # its own call: its own index
    run([python, "-m", "pip", "install", "--quiet", *COLAB_PREINSTALLED])
    purelib = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    (Path(purelib) / "google_colab_standin.pth").write_text(STANDIN)
    print(f"environment built in {time.perf_counter() - start:.0f} s: {env}", flush=True)
    return python


def clone_commit(commit: str, into: Path) -> tuple[Path, str]:
    """A clone of this repository at ``commit``; returns its path and the full commit hash."""
    sha = run(["git", "-C", ROOT, "rev-parse", f"{commit}^{{commit}}"], capture_output=True, text=True)
    sha = sha.stdout.strip()
    clone = into / "repository"
    run(["git", "clone", "--quiet", "--no-checkout", ROOT, clone])
    run(["git", "-C", clone, "checkout", "--quiet", sha])
    return clone, sha


def kernel_spec(python: Path, into: Path) -> Path:
    """A kernel spec folder whose one kernel, ``colab-check``, runs in the rehearsal environment."""
    kernels = into / "kernels" / "colab-check"
    kernels.mkdir(parents=True)
    argv = [str(python), "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    (kernels / "kernel.json").write_text(
        json.dumps({"argv": argv, "display_name": "Colab", "language": "python"})
    )
    return kernels.parent


# Runs inside the rehearsal environment (it has nbclient): executes one chapter, prints its result as JSON.
EXECUTE = """
import json, sys, time
import nbformat
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import KernelManager
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

notebook_path, kernel_dirs, folder, timeout = sys.argv[1:5]
notebook = nbformat.read(notebook_path, as_version=4)
manager = KernelManager(kernel_name="colab-check", kernel_spec_manager=KernelSpecManager(kernel_dirs=[kernel_dirs]))
client = NotebookClient(notebook, km=manager, timeout=int(timeout), resources={"metadata": {"path": folder}})
start = time.perf_counter()
error = None
try:
    client.execute()
except CellExecutionError as failure:
    error = str(failure)[-3000:]
seconds = time.perf_counter() - start
first_code = next(cell for cell in notebook.cells if cell.cell_type == "code")
install = "".join(output.get("text", "") for output in first_code.get("outputs", []) if "text" in output)
print(json.dumps({"seconds": seconds, "error": error, "install_output": install[-2000:]}))
"""


def check_chapter(path: Path, python: Path, kernels: Path, url: str, scratch: Path) -> dict:
    """Execute one chapter, its install line pointed at ``url``; returns seconds, error and status."""
    notebook = json.loads(path.read_text())
    first_code = next(cell for cell in notebook["cells"] if cell["cell_type"] == "code")
    source = "".join(first_code["source"])
    if not INSTALL_URL.search(source):
        return {"seconds": 0.0, "error": "its first code cell has no git+https://github.com/... install line"}
    first_code["source"] = INSTALL_URL.sub(lambda match: url + match.group(1), source)
    copy = scratch / path.name
    copy.write_text(json.dumps(notebook))
    content = scratch / f"content-{path.stem}"  # an empty folder, as Colab's /content
    content.mkdir()
    run([python, "-m", "pip", "uninstall", "--quiet", "--yes", "attnbook"], capture_output=True)
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_NUM_THREADS", "PYTHONPATH", "VIRTUAL_ENV")}
    env["MPLBACKEND"] = "Agg"
    env[CLAIMS_LOG] = str(scratch / f"{path.stem}.claims.jsonl")
    result = subprocess.run(
        [python, "-c", EXECUTE, copy, kernels, content, str(CELL_TIMEOUT_S)],
        capture_output=True,
        text=True,
        env=env,
        cwd=content,
        check=False,
    )
    if result.returncode != 0:
        return {"seconds": 0.0, "error": (result.stdout + result.stderr)[-3000:]}
    report = json.loads(result.stdout.strip().splitlines()[-1])
    if report["error"] is not None and report["install_output"]:
        report["error"] = f"{report['error']}\nthe first cell printed:\n{report['install_output']}"
    elif report["error"] is None and "error" in report["install_output"].lower():
        report["error"] = "the first cell's install printed an error:\n" + report["install_output"]
    return report


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("parts", nargs="*", help="only the chapters whose file name contains one of these")
    parser.add_argument("--commit", default="HEAD", help="the commit whose package and chapters are run")
    parser.add_argument(
        "--env", type=Path, help="build (or reuse) the environment here, not in a temporary folder"
    )
    args = parser.parse_args(argv)
    chapters = [p for p in CHAPTERS if not args.parts or any(part in p.name for part in args.parts)]
    if not chapters:
        parser.error(f"no chapter matches {args.parts}")

    with tempfile.TemporaryDirectory(prefix="colab-check-") as folder:
        scratch = Path(folder)
        python = build_environment(args.env or scratch / "env")
        clone, sha = clone_commit(args.commit, scratch)
        url = f"git+file://{clone}@{sha}"
        kernels = kernel_spec(python, scratch)
        print(f"commit {sha[:12]}: {len(chapters)} chapter(s), each installing {url}", flush=True)
        results, claims = [], []
        for chapter in chapters:
            report = check_chapter(clone / "chapters" / chapter.name, python, kernels, url, scratch)
            status = "ok" if report["error"] is None else "FAILED"
            results.append((chapter.stem, report["seconds"], status))
            claims += read_claims(scratch / f"{chapter.stem}.claims.jsonl", chapter=chapter.stem)
            print(f"   {chapter.stem:36} {report['seconds']:8.1f} s  {status}", flush=True)
            if report["error"] is not None:
                print("\n".join(f"      {line}" for line in report["error"].splitlines()[-25:]), flush=True)
    print("\ntime claims, closest to their bounds first (margin: times over the bound)")
    print("\n".join(claims_table(claims)))
    print(closest_summary(claims))
    failed = [r for r in results if r[2] != "ok"]
    total = sum(seconds for _, seconds, _ in results)
    print(f"\n{len(results) - len(failed)} of {len(results)} chapters ran as in Colab ({total / 60:.1f} min)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
