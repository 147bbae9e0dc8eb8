"""The widgets' script and style files (``widgets.js``, ``widgets.css``
and the translator's), read from the package and compacted for
embedding in a widget's HTML."""

from __future__ import annotations

import functools
import re
from importlib import resources


def _compact_css(text: str) -> str:
    """The style sheet without its comments and line breaks (the file
    itself is the readable form)."""
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.DOTALL)
    return " ".join(
        line.strip() for line in text.splitlines() if line.strip()
    )


def _compact_js(text: str) -> str:
    """The script without its comment lines and indentation, non-ASCII
    characters as ``\\u`` escapes.

    Every comment in the file sits on a line of its own and no string spans
    lines, so dropping those lines and the leading spaces keeps the program
    as it is (the line breaks stay). Non-ASCII characters occur only inside
    string literals, where ``\\uXXXX`` means the same character.
    """
    lines = (line.strip() for line in text.splitlines())
    text = "\n".join(
        line for line in lines if line and not line.startswith("//")
    )
    return re.sub(
        r"[^\x00-\x7f]", lambda m: f"\\u{ord(m.group()):04x}", text
    )


@functools.cache
def asset(name: str) -> str:
    """A widget file of :mod:`attnbook.book` (``widgets.js``,
    ``widgets.css``, ...), compacted for embedding."""
    text = (
        resources.files("attnbook.book")
        .joinpath(name)
        .read_text(encoding="utf-8")
    )
    return (
        _compact_js(text) if name.endswith(".js") else _compact_css(text)
    )
