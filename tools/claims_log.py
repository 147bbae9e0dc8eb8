"""The time claims that chapters logged (attnbook.benchmark.record_claim, with ATTNBOOK_CLAIMS_LOG set),
read back and printed closest to its bound first: tools/stress.py and tools/colab_check.py each give every
chapter its own log file and end with this table."""

from __future__ import annotations

import json
from pathlib import Path

CLAIMS_LOG = "ATTNBOOK_CLAIMS_LOG"  # the variable attnbook.benchmark.record_claim reads


def read_claims(path: Path, **context: str) -> list[dict]:
    """The claims one chapter logged, each with ``context`` (e.g. round and chapter) added; none when
    the chapter wrote no file (it has no time claim, or it stopped before its first)."""
    if not path.is_file():
        return []
    lines = path.read_text().splitlines()
    return [context | json.loads(line) for line in lines if line.strip()]


def claims_table(claims: list[dict], context: tuple[str, ...] = ("chapter",)) -> list[str]:
    """Every claim, the closest to its bound (the smallest margin) first: value, bound, and margin (how many
    times over its bound it held; below 1 it failed)."""
    if not claims:
        return ["no time claim was logged"]
    widths = {name: max(len(name), *(len(str(c.get(name, ""))) for c in claims)) for name in context}
    claim_width = max(len("claim"), *(len(c["claim"]) for c in claims))
    header = " ".join(f"{name:{widths[name]}}" for name in context)
    lines = [f"{header} {'claim':{claim_width}} {'value':>10}   {'bound':>10} {'margin':>7}  holds"]
    for c in sorted(claims, key=lambda c: c["margin"]):
        where = " ".join(f"{c.get(name, '')!s:{widths[name]}}" for name in context)
        lines.append(
            f"{where} {c['claim']:{claim_width}} {c['value']:10.4g} {c['kind']} {c['bound']:10.4g} "
            f"{c['margin']:7.2f}  {'yes' if c['holds'] else 'NO'}"
        )
    return lines


def closest_summary(claims: list[dict], n: int = 3) -> str:
    """One line: the ``n`` claims closest to their bounds, with their margins."""
    if not claims:
        return "no time claim was logged"
    closest = sorted(claims, key=lambda c: c["margin"])[:n]
    failed = sum(1 for c in claims if not c["holds"])
    names = "; ".join(f"{c['claim']} {c['margin']:.2f}x" for c in closest)
    return f"{len(claims)} time claims, {failed} failed; closest to their bounds: {names}"
