"""The package's layout: layers whose imports point only down, no import cycle, faces that export only
the names chapters, tools and other layers import from them, chapters that import only public names from ``attnbook`` or a subpackage and redefine none
of the package's classes, and a README inventory that matches the modules."""

from __future__ import annotations

import ast
import doctest
import functools
import importlib
import json
import re
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
PACKAGE = REPO_ROOT / "code" / "src" / "attnbook"
sys.path.insert(0, str(REPO_ROOT / "tools"))
import module_inventory  # noqa: E402

# What each subpackage may import, besides itself: the layers, from the bottom up.
ALLOWED = {
    "core": set(),
    "layers": {"core"},
    "book": {"core"},
    "nmt": {"core", "layers"},
    "benchmark": {"core", "layers"},
    "checks": {"core", "layers", "nmt", "benchmark"},
    "studies": {"core", "layers", "nmt", "book", "benchmark"},
    "cli": {"core", "layers", "book", "nmt", "benchmark", "checks", "studies"},
}

# The names readers' saved notebooks import from the top level: they stay.
TOP_LEVEL_NAMES = {
    "BahdanauAttention", "BahdanauDecoder", "CheckResult", "Encoder", "LuongAttention", "LuongDecoder",
    "MultiHeadAttention", "PlainDecoder", "ScaledDotProductAttention", "SentencePair", "Seq2Seq",
    "Seq2SeqConfig", "ShapeChecker", "SourceListing", "ToyGrammar", "Translator", "Vocab",
    "attention_heatmap", "attention_widget", "causal_mask", "check_additive_score", "check_alignment_matrix",
    "check_dot_product_attention", "check_local_attention", "check_masked_softmax", "check_softmax_jacobian",
    "decoder_stepper", "get_device", "glue", "masked_softmax", "set_book_style", "set_seed", "show_source",
}  # fmt: skip


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def package_modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def imported_modules(path: Path) -> set[str]:
    """Every ``attnbook`` module a file imports, at the top or inside a function."""
    found = set()
    modules = package_modules()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name.startswith("attnbook")}
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("attnbook"):
            for alias in node.names:  # `from attnbook.nmt import seq2seq` imports a module
                candidate = f"{node.module}.{alias.name}"
                found.add(candidate if candidate in modules else node.module)
    return found


def is_module(subpackage: str, name: str) -> bool:
    """Whether ``attnbook.<subpackage>.<name>`` names a module (a file, or a package of modules such as
    ``attnbook.book.widgets``) rather than a name the subpackage's face exports."""
    folder = PACKAGE / subpackage
    return (folder / f"{name}.py").exists() or (folder / name / "__init__.py").exists()


def layer(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in ALLOWED else None


def test_every_module_lives_in_one_of_the_layers():
    loose = [name for name in package_modules() if name.count(".") == 1 and layer(name) is None]
    assert sorted(loose) == ["attnbook.__main__"], f"modules outside a subpackage: {loose}"
    assert {
        path.name for path in PACKAGE.iterdir() if path.is_dir() and (path / "__init__.py").exists()
    } == set(ALLOWED)


def test_imports_point_only_down_the_layers():
    wrong = []
    for name, path in package_modules().items():
        here = layer(name)
        if here is None:
            continue
        for target in imported_modules(path):
            there = layer(target)
            if target == "attnbook" or (there is not None and there != here and there not in ALLOWED[here]):
                wrong.append(f"{name} imports {target}")
    assert not wrong, "imports that point up or sideways:\n" + "\n".join(sorted(wrong))


def test_the_package_has_no_import_cycle():
    modules = package_modules()
    graph = {
        name: {target for target in imported_modules(path) if target in modules and target != name}
        for name, path in modules.items()
        if not name.endswith("__init__") and path.name != "__init__.py"
    }
    state: dict[str, str] = {}

    def visit(node: str, trail: list[str]) -> None:
        state[node] = "open"
        for target in graph.get(node, ()):
            if state.get(target) == "open":
                raise AssertionError("import cycle: " + " -> ".join([*trail, node, target]))
            if target not in state:
                visit(target, [*trail, node])
        state[node] = "done"

    for node in graph:
        if node not in state:
            visit(node, [])


# The most names the subpackages' faces may export, all together: a face shows what is used, not
# everything a module defines (a name the chapters never import is reached through its module).
MOST_EXPORTED = 170


def face_imports(path: Path, text: str | None = None) -> set[tuple[str, str]]:
    """The ``(subpackage, name)`` pairs a file imports from a subpackage's face (``from attnbook.nmt
    import Vocab``), at the top or inside a function; a notebook's magics are read as ``pass``."""
    text = path.read_text(encoding="utf-8") if text is None else text
    text = "\n".join(re.sub(r"^(\s*)[%!].*", r"\1pass", line) for line in text.splitlines())
    found = set()
    for node in ast.walk(ast.parse(text)):
        if (
            isinstance(node, ast.ImportFrom)
            and node.module
            and layer(node.module)
            and node.module.count(".") == 1
        ):
            found |= {(layer(node.module), alias.name) for alias in node.names}
    return found


def doctest_face_imports(text: str) -> set[tuple[str, str]]:
    """The ``(subpackage, name)`` pairs the doctests of a module's docstrings import from a face."""
    parser = doctest.DocTestParser()
    found = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            docstring = ast.get_docstring(node)
            if docstring and ">>>" in docstring:
                source = "\n".join(example.source for example in parser.get_examples(docstring))
                found |= face_imports(Path("doctest"), source)
    return found


@functools.cache  # ten tests read it; the files do not change during a run
def face_users() -> dict[tuple[str, str], set[str]]:
    """Who imports each name from a face: the chapters, the tools, the top level, and every module of
    another subpackage (the CLI among them). Tests do not count: they import from the modules."""
    users: dict[tuple[str, str], set[str]] = {}
    sources = [(path, None, path.stem) for path in sorted((REPO_ROOT / "tools").glob("*.py"))]
    sources += [(path, chapter_code(path), path.stem) for path in CHAPTERS]
    sources += [(path, None, name) for name, path in package_modules().items()]
    for path, text, who in sources:
        for subpackage, name in face_imports(path, text):
            if layer(who) != subpackage:
                users.setdefault((subpackage, name), set()).add(who)
    import attnbook

    for subpackage in ALLOWED:
        package = importlib.import_module(f"attnbook.{subpackage}")
        for name in set(attnbook.__all__) & set(package.__all__):
            users.setdefault((subpackage, name), set()).add("attnbook")
    # names the package's text shows a reader through a face: a doctest's import, a docstring's command
    # that remakes a file under data/ (``from attnbook.studies import ...``), or a written file's header
    # naming its writer
    for path in package_modules().values():
        text = path.read_text(encoding="utf-8")
        named = re.findall(r"\b(attnbook\.\w+)\.(\w+)", text)
        for module, names in re.findall(r"from (attnbook\.\w+) import ([\w, ]+)", text):
            named += [(module, name) for name in re.findall(r"\w+", names.split(" as ")[0])]
        for subpackage, name in doctest_face_imports(text):
            named.append((f"attnbook.{subpackage}", name))
        for module, name in named:
            if layer(module) and not is_module(layer(module), name):
                users.setdefault((layer(module), name), set()).add(module_name(path))
    return users


@pytest.mark.parametrize("subpackage", sorted(ALLOWED))
def test_each_subpackage_exports_only_names_that_are_used(subpackage):
    package = importlib.import_module(f"attnbook.{subpackage}")
    users = face_users()
    unused = sorted(name for name in package.__all__ if (subpackage, name) not in users)
    assert not unused, (
        f"attnbook.{subpackage}.__all__ exports {unused}, which no chapter, tool, other subpackage or the "
        "top level imports from it: import them from their module instead"
    )
    assert all(hasattr(package, name) for name in package.__all__)
    assert sorted(package.__all__) == sorted(set(package.__all__)), "a name exported twice"


def test_every_name_taken_from_a_face_is_exported():
    missing = sorted(
        f"attnbook.{subpackage}.{name}"
        for subpackage, name in face_users()
        if name not in importlib.import_module(f"attnbook.{subpackage}").__all__
        and not is_module(subpackage, name)  # a module, e.g. attnbook.studies.bottleneck
    )
    assert not missing, f"imported from a subpackage that does not export them: {missing}"


def test_the_faces_export_at_most_a_budget_of_names():
    total = sum(len(importlib.import_module(f"attnbook.{subpackage}").__all__) for subpackage in ALLOWED)
    assert total <= MOST_EXPORTED, f"the subpackages export {total} names, more than {MOST_EXPORTED}"


def test_the_top_level_keeps_the_names_readers_import():
    import attnbook

    assert set(attnbook.__all__) >= TOP_LEVEL_NAMES
    assert all(hasattr(attnbook, name) for name in attnbook.__all__)


def chapter_code(notebook: Path) -> str:
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    return "\n".join("".join(cell["source"]) for cell in cells if cell["cell_type"] == "code")


CHAPTERS = sorted((REPO_ROOT / "chapters").glob("*.ipynb"))


@pytest.mark.parametrize("notebook", CHAPTERS, ids=lambda path: path.stem)
def test_chapters_import_public_names_from_the_package_or_a_subpackage(notebook):
    lines = chapter_code(notebook).splitlines()
    magics_as_pass = (re.sub(r"^(\s*)[%!].*", r"\1pass", line) for line in lines)  # %pip install ...
    tree = ast.parse("\n".join(magics_as_pass))
    wrong = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("attnbook"):
            if node.module.count(".") > 1 or (node.module.count(".") == 1 and layer(node.module) is None):
                wrong.append(f"from {node.module} import ...: import from attnbook or a subpackage")
            wrong += [
                f"{node.module}.{alias.name} is private" for alias in node.names if alias.name.startswith("_")
            ]
        elif isinstance(node, ast.Import):
            deep = [
                alias.name
                for alias in node.names
                if alias.name.startswith("attnbook.") and alias.name.count(".") > 1
            ]
            wrong += [f"import {name}" for name in deep]
    assert not wrong, f"{notebook.name}: " + "; ".join(wrong)


def package_class_names() -> set[str]:
    names = set()
    for path in package_modules().values():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                names.add(node.name)
    return names


@pytest.mark.parametrize("notebook", CHAPTERS, ids=lambda path: path.stem)
def test_no_chapter_redefines_a_class_the_package_defines(notebook):
    defined = set(re.findall(r"^\s*class (\w+)", chapter_code(notebook), re.MULTILINE))
    redefined = defined & package_class_names()
    assert not redefined, f"{notebook.name} redefines package classes {sorted(redefined)}"


def test_the_package_defines_many_classes_so_the_redefinition_guard_sees_them_all():
    assert {"LuongAttention", "EncoderMemory", "TrainConfig", "DecoderRun", "Case"} <= package_class_names()


def test_the_readme_inventory_lists_every_module_as_the_package_describes_it():
    readme = module_inventory.readme_inventory((REPO_ROOT / "README.md").read_text(encoding="utf-8"))
    assert readme == module_inventory.inventory(), "run: python tools/module_inventory.py --write"
    listed = set(re.findall(r"^\| `(attnbook(?:\.\w+){2,})`", readme, re.MULTILINE))
    expected = {name for name in package_modules() if name.count(".") >= 2}
    assert listed == expected
