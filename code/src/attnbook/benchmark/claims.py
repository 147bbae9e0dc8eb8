"""Claims about time, asserted and logged with their values.

A chapter that asserts a ratio of two timings calls :func:`record_claim`
instead of a bare ``assert``: it asserts the same, and when the
environment variable ``ATTNBOOK_CLAIMS_LOG`` names a file it appends one
JSON line there with the value, the bound and the margin, so that a run
of many chapters (``make stress``, ``make colab-check``) can say how close
each claim came to its bound. Without the variable nothing is written.

>>> record_claim("faster", 1.8, 1.0, ">")
1.8
>>> (
...     round(claim_margin(1.8, 1.0, ">"), 2),
...     round(claim_margin(2.0, 3.0, "<"), 2),
... )
(1.8, 1.5)
"""

from __future__ import annotations

import json
import os
from pathlib import Path

CLAIMS_LOG = "ATTNBOOK_CLAIMS_LOG"
KINDS = ("<", ">")


def claim_margin(value: float, bound: float, kind: str) -> float:
    """How many times over its bound a claim holds: above 1 it holds,
    at 1 it touches the bound, below 1 it fails. For ``value > bound``
    it is ``value / bound``, for ``value < bound`` it is ``bound / value``
    (bounds and values of timings are positive)."""
    if kind not in KINDS:
        raise ValueError(f"kind must be '<' or '>', not {kind!r}")
    if value <= 0 or bound <= 0:
        raise ValueError(
            f"a claim about time compares positive numbers, not {value!r} "
            f"and {bound!r}"
        )
    return value / bound if kind == ">" else bound / value


def record_claim(
    name: str, value: float, bound: float, kind: str = ">"
) -> float:
    """Assert ``value kind bound`` (``kind`` is ``"<"`` or ``">"``), after
    appending the claim to the file ``ATTNBOOK_CLAIMS_LOG`` names, if any.
    Returns ``value``."""
    value, bound = float(value), float(bound)
    margin = claim_margin(value, bound, kind)
    log = os.environ.get(CLAIMS_LOG)
    if log:
        line = {
            "claim": name,
            "value": value,
            "kind": kind,
            "bound": bound,
            "margin": margin,
            "holds": margin > 1,
        }
        with Path(log).open("a") as file:
            file.write(json.dumps(line) + "\n")
    assert margin > 1, f"{name}: {value:.4g} is not {kind} {bound:.4g}"
    return value
