"""The cache of executed chapters: what it is keyed on, when it is cleared, and the timing table.

The book's build runs Jupyter Book with `execute_notebooks: cache`: jupyter-cache (in
_build/.jupyter_cache) keeps each chapter's executed copy under a hash of the chapter's code cells
(their source and metadata, tags included) and reuses it while they are unchanged. That hash does not
see what the code imports, so this tool adds the rest of the key, one fingerprint of:

- every file of the package's source (code/src/attnbook/**) and code/pyproject.toml,
- requirements.txt and requirements-test.txt (and tools/nbval_cache.py, which fills the cache too),
- the Python version and the version of every installed distribution (torch's among them),
- the `execute:` block of _config.yml.

When the fingerprint differs from the one the cache was filled under, the whole cache is cleared, so
every chapter is executed again. Sphinx keeps its own record of the pages it has read
(_build/.doctrees); when the fingerprint (with tools/clean_outputs.py) differs from the one the pages
were last built under, or the last build failed, the build re-reads every page (`--all`), taking
unchanged chapters from the cache.

    python tools/book_cache.py prepare        # before the build; prints the build's extra flags
    python tools/book_cache.py finish STATUS  # after it: records a passing build, prints the table
    python tools/book_cache.py fingerprint    # the fingerprint and what it covers
    python tools/book_cache.py stale          # the chapters the cache has no passing run of (make quick)
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import platform
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUILD = ROOT / "_build"
CACHE = BUILD / ".jupyter_cache"  # Jupyter Book's default place for it
CACHE_STAMP = CACHE / "attnbook-fingerprint"
DOCTREES = BUILD / ".doctrees"
PAGES_STAMP = DOCTREES / "attnbook-fingerprint"
PENDING_STAMP = DOCTREES / "attnbook-fingerprint.pending"
REPORT = BUILD / "execution-report.json"  # written by tools/execution_report.py during the build
INPUT_FILES = ["code/pyproject.toml", "requirements.txt", "requirements-test.txt", "tools/nbval_cache.py"]


def _execute_settings(root: Path) -> str:
    """The `execute:` block of _config.yml, as written (read without a YAML parser)."""
    lines, inside = [], False
    for line in (root / "_config.yml").read_text().splitlines():
        if line.startswith("execute:"):
            inside = True
        elif inside and line and not line[0].isspace():
            break
        if inside:
            lines.append(line)
    return "\n".join(lines)


def fingerprint_inputs(root: Path = ROOT) -> dict[str, str]:
    """Everything the executed chapters depend on besides their own code, as name -> content digest."""
    inputs: dict[str, str] = {}
    package = root / "code" / "src" / "attnbook"
    files = [p for p in sorted(package.rglob("*")) if p.is_file() and "__pycache__" not in p.parts]
    files += [root / name for name in INPUT_FILES if (root / name).is_file()]
    for path in files:
        inputs[path.relative_to(root).as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    inputs["python"] = platform.python_version()
    # A set: an editable install is found twice (its dist-info and code/src/attnbook.egg-info, which
    # pip writes and rewrites), and the package itself is keyed above by its source.
    versions = sorted(
        {
            f"{dist.metadata['Name']}=={dist.version}".lower()
            for dist in importlib.metadata.distributions()
            if dist.metadata["Name"] and dist.metadata["Name"].lower() != "attnbook"
        }
    )
    inputs["installed distributions"] = hashlib.sha256("\n".join(versions).encode()).hexdigest()
    try:
        inputs["torch"] = importlib.metadata.version("torch")
    except importlib.metadata.PackageNotFoundError:
        inputs["torch"] = "not installed"
    inputs["_config.yml execute"] = hashlib.sha256(_execute_settings(root).encode()).hexdigest()
    return inputs


def fingerprint(root: Path = ROOT) -> str:
    return hashlib.sha256(json.dumps(fingerprint_inputs(root), sort_keys=True).encode()).hexdigest()[:16]


def pages_fingerprint(root: Path = ROOT) -> str:
    """The fingerprint, plus the extension that rewrites the outputs in the pages (not their execution)."""
    extension = hashlib.sha256((root / "tools" / "clean_outputs.py").read_bytes()).hexdigest()
    return hashlib.sha256((fingerprint(root) + extension).encode()).hexdigest()[:16]


def _read(path: Path) -> str | None:
    return path.read_text().strip() if path.is_file() else None


def sync_cache(current: str, cache: Path = CACHE) -> bool:
    """Clear the cache of executed chapters if it was filled under another fingerprint; True if cleared."""
    stamp = cache / CACHE_STAMP.name
    if _read(stamp) == current:
        return False
    cleared = cache.exists()
    if cleared:
        shutil.rmtree(cache)
    cache.mkdir(parents=True)
    stamp.write_text(current + "\n")
    return cleared


def prepare() -> None:
    current = fingerprint()
    if sync_cache(current):
        print(
            "== the package, the requirements or the installed versions changed: cache of executed chapters cleared",
            file=sys.stderr,
        )
    REPORT.unlink(missing_ok=True)
    pages = pages_fingerprint()
    if DOCTREES.is_dir() and _read(PAGES_STAMP) != pages:
        print(
            "== every page is read again (the last build failed, or what the chapters import changed)",
            file=sys.stderr,
        )
        print("--all")
    PAGES_STAMP.unlink(missing_ok=True)  # written back only by a build that passes
    DOCTREES.mkdir(parents=True, exist_ok=True)
    PENDING_STAMP.write_text(pages + "\n")


def finish(status: int) -> None:
    if status == 0 and PENDING_STAMP.is_file():
        PENDING_STAMP.replace(PAGES_STAMP)
    else:
        PENDING_STAMP.unlink(missing_ok=True)
    print_table()


def print_table() -> None:
    if not REPORT.is_file():
        print("== no execution report: the build stopped before it read the chapters")
        return
    report = json.loads(REPORT.read_text())
    rows = report["chapters"]
    print()
    print(f"{'chapter':40} {'seconds':>8}  how")
    for row in rows:
        seconds = "" if row["seconds"] is None else f"{row['seconds']:8.1f}"
        print(f"{row['chapter']:40} {seconds:>8}  {row['how']}")
    executed = [row for row in rows if row["how"].startswith("executed")]
    total = sum(row["seconds"] or 0 for row in executed)
    print(
        f"== {len(executed)} of {len(rows)} chapters executed by this build ({total:.1f} s); "
        f"the others were taken from the cache or were unchanged"
    )


def store_executed(notebook, chapter: Path, seconds: float, executed_by: str, cache: Path = CACHE) -> None:
    """Keep ``notebook``, ``chapter`` executed to its end, as that chapter's executed copy in the cache,
    with how long it took and who executed it (the build's execution report shows both). Retries while
    another process holds the cache's database."""
    from jupyter_cache import get_cache
    from jupyter_cache.base import CacheBundleIn

    bundle = CacheBundleIn(
        notebook,
        str(Path(chapter).resolve()),
        data={"execution_seconds": round(seconds, 2), "executed_by": executed_by},
    )
    for attempt in range(5):
        try:
            get_cache(str(cache)).cache_notebook_bundle(bundle, check_validity=False, overwrite=True)
            return
        except Exception as error:  # sqlite's "database is locked" arrives wrapped by SQLAlchemy
            if attempt == 4 or "locked" not in str(error):
                raise
            time.sleep(0.5 + attempt)


def stale_chapters(root: Path = ROOT, cache: Path = CACHE) -> list[Path]:
    """The chapters whose code, with the package and environment of now, has no executed copy in the
    cache: every chapter when the cache was filled under another fingerprint, else those that changed
    since they last passed (under nbval or in the build)."""
    chapters = sorted((root / "chapters").glob("*.ipynb"))
    if _read(cache / CACHE_STAMP.name) != fingerprint(root):
        return chapters
    import nbformat
    from jupyter_cache import get_cache

    executed = get_cache(str(cache))
    stale = []
    for chapter in chapters:
        try:
            executed.match_cache_notebook(nbformat.read(chapter, as_version=4))
        except KeyError:
            stale.append(chapter)
    return stale


def main(argv: list[str]) -> int:
    command = argv[1] if len(argv) > 1 else "fingerprint"
    if command == "prepare":
        prepare()
    elif command == "finish":
        finish(int(argv[2]))
    elif command == "table":
        print_table()
    elif command == "stale":
        for chapter in stale_chapters():
            print(chapter.relative_to(ROOT))
    elif command == "fingerprint":
        for name, value in fingerprint_inputs().items():
            print(f"{value[:16]:16}  {name}")
        print(f"fingerprint {fingerprint()}; cache filled under {_read(CACHE_STAMP)}")
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
