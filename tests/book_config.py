"""What the book's own guards read: the configuration, the table of contents and the chapters."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

REPO_ROOT = Path(__file__).resolve().parents[1]
NUMBERED_CHAPTERS = sorted((REPO_ROOT / "chapters").glob("[0-9][0-9]_*.ipynb"))
APPENDICES = sorted((REPO_ROOT / "chapters").glob("appendix_*.ipynb"))
CHAPTERS = NUMBERED_CHAPTERS + APPENDICES
"""Every chapter notebook: ``NN_name.ipynb`` is the book's chapter NN; ``appendix_name.ipynb`` an appendix."""


def book_config() -> dict:
    return yaml.safe_load((REPO_ROOT / "_config.yml").read_text())


def install_url() -> str:
    """The pip requirement that every chapter's Colab cell must install, built from _config.yml."""
    repository = book_config()["repository"]
    return f"attnbook @ git+{repository['url']}@{repository['branch']}#subdirectory=code"


def toc_files() -> list[str]:
    """Every file named in _toc.yml, in order, without its extension."""
    toc = yaml.safe_load((REPO_ROOT / "_toc.yml").read_text())
    files = [toc["root"]]
    for part in toc.get("parts", []):
        files += [entry["file"] for entry in part.get("chapters", [])]
    return files


def chapter_pages() -> list[str]:
    """The chapters among the table of contents' files, in order: ``chapters/01_intuition``, ..."""
    return [page for page in toc_files() if page.startswith("chapters/")]


def load_cells(notebook: Path) -> list[dict]:
    return json.loads(notebook.read_text())["cells"]


def source(cell: dict) -> str:
    text = cell["source"]
    return text if isinstance(text, str) else "".join(text)
