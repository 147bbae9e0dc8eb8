"""The data folder's manifest: every file the package ships under ``attnbook/data`` is named in
``MANIFEST.json`` with the commands that remake it (or where it comes from), no other file is, and every
command is one the package has: a subcommand of the command line, or a function it names."""

import ast
import importlib
import json
import shlex
from pathlib import Path

import pytest

import attnbook
from attnbook.cli.main import build_parser

DATA = Path(attnbook.__file__).parent / "data"
MANIFEST = json.loads((DATA / "MANIFEST.json").read_text(encoding="utf-8"))
COMMANDS = [
    (name, command) for name, entry in MANIFEST["files"].items() for command in entry.get("commands", [])
]


def test_the_manifest_names_every_file_of_the_data_folder_and_no_other():
    shipped = {path.name for path in DATA.iterdir() if path.is_file()} - {"MANIFEST.json"}
    listed = set(MANIFEST["files"])
    assert not shipped - listed, f"files missing from MANIFEST.json: {sorted(shipped - listed)}"
    assert not listed - shipped, f"MANIFEST.json names files that do not exist: {sorted(listed - shipped)}"


def test_every_file_says_how_it_was_made():
    for name, entry in MANIFEST["files"].items():
        assert entry.get("commands") or entry.get("source"), name


@pytest.mark.parametrize(("name", "command"), COMMANDS, ids=[f"{n}: {c[:40]}" for n, c in COMMANDS])
def test_each_command_is_one_the_package_has(name, command):
    words = shlex.split(command)
    assert words[0] == "python", command
    if words[1:3] == ["-m", "attnbook"]:
        try:
            build_parser().parse_args(words[3:])
        except SystemExit:
            pytest.fail(f"{name}: `attnbook {' '.join(words[3:])}` is not a command the parser accepts")
    else:
        assert words[1] == "-c", command
        imports = [node for node in ast.walk(ast.parse(words[2])) if isinstance(node, ast.ImportFrom)]
        assert imports, f"{name}: the code imports nothing from the package"
        for node in imports:
            module = importlib.import_module(node.module)
            for alias in node.names:
                assert callable(getattr(module, alias.name, None)), (
                    f"{name}: {node.module} has no {alias.name}"
                )
    # a command that writes into the data folder writes this file, or the folder itself
    for word in words:
        if word.startswith("code/src/attnbook/data"):
            assert word.rstrip("/").split("/")[-1] in {name, "data"}, command
