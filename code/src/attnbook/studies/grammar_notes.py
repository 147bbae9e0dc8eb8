"""Phrases that state a measurement of the toy-grammar chapters plainly,
chosen by the measured number, so that a share of 1 reads "every time"
and a list of categories reads as English.

>>> share_phrase(1.0)
'every time'
>>> share_phrase(0.9734)
'at least 97.3% of the time'
>>> listing(["articles (0.428)"])
'articles (0.428)'
>>> listing(["nouns", "verbs", "articles"])
'nouns, verbs and articles'
"""

from __future__ import annotations

from collections.abc import Sequence


def share_phrase(share: float) -> str:
    """The lowest of several shares, as a phrase that follows "right":
    ``"every time"`` when it is exactly 1, otherwise ``"at least X% of the
    time"`` (X to one decimal).

    Raises:
        ValueError: ``share`` is not in [0, 1].
    """
    if not 0.0 <= share <= 1.0:
        raise ValueError(f"share must be in [0, 1], got {share}")
    if share == 1.0:
        return "every time"
    return f"at least {share:.1%} of the time"


def listing(items: Sequence[str]) -> str:
    """``items`` joined as English: ``"a"``, ``"a and b"``, ``"a, b and
    c"``.

    Raises:
        ValueError: ``items`` is empty.
    """
    if not items:
        raise ValueError("listing needs at least one item, got none")
    if len(items) == 1:
        return items[0]
    return ", ".join(items[:-1]) + " and " + items[-1]
