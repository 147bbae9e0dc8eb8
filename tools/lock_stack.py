"""The lock of the book's stack: constraints.txt, every package the book's environment installs at an
exact version, except torch and its CUDA builds' own packages (the reader's or Colab's own) and the book's
package itself.

    python tools/lock_stack.py write   # constraints.txt from the packages of this environment
    python tools/lock_stack.py diff    # what this environment has that differs from constraints.txt

``diff`` prints a Markdown table (the upgrade workflow writes it into its job summary) and exits 0.
"""

from __future__ import annotations

import re
import sys
from importlib.metadata import distributions
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CONSTRAINTS = ROOT / "constraints.txt"
HEADER = """\
# The book's whole stack at exact versions (build, test and browser tools), locked on Python 3.11 and
# read off the environment that `tools/setup_env.sh test` made: tools/setup_env.sh and the workflows
# install with `-c constraints.txt` (pip for uv, uv for the rest, torch's dependencies too). torch is not
# here: it stays the reader's or Colab's own.
# To upgrade: the upgrade-check workflow installs the newest versions the requirements allow and lists
# what changed; `python tools/lock_stack.py write` in such an environment rewrites this file.
"""
# torch and the packages only its CUDA builds bring, and the book's own package (installed editable).
UNLOCKED = re.compile(r"^(torch|triton|nvidia-.*|cuda-.*|attnbook)$")


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def installed() -> dict[str, str]:
    """Every distribution of this environment that the lock covers, by canonical name."""
    found = {canonical(d.metadata["Name"]): d.version for d in distributions() if d.metadata["Name"]}
    return {name: version for name, version in sorted(found.items()) if not UNLOCKED.match(name)}


def read_constraints(path: Path = CONSTRAINTS) -> dict[str, str]:
    pins = {}
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, _, version = line.partition("==")
            pins[canonical(name)] = version.strip()
    return pins


def diff_table(pins: dict[str, str], now: dict[str, str]) -> list[str]:
    """Markdown rows: each package whose version differs, or that only one side has."""
    rows = []
    for name in sorted(pins.keys() | now.keys()):
        locked, newest = pins.get(name, "(not locked)"), now.get(name, "(not installed)")
        if locked != newest:
            rows.append(f"| {name} | {locked} | {newest} |")
    if not rows:
        return ["Every package is at the version constraints.txt locks."]
    return [
        f"{len(rows)} package(s) differ from constraints.txt:",
        "",
        "| package | constraints.txt | newest allowed |",
        "| --- | --- | --- |",
        *rows,
    ]


def main(argv: list[str]) -> int:
    if argv not in (["write"], ["diff"]):
        print(__doc__, file=sys.stderr)
        return 2
    if argv == ["write"]:
        lines = [f"{name}=={version}" for name, version in installed().items()]
        CONSTRAINTS.write_text(HEADER + "\n".join(lines) + "\n")
        print(f"constraints.txt: {len(lines)} packages")
    else:
        print("\n".join(diff_table(read_constraints(), installed())))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
