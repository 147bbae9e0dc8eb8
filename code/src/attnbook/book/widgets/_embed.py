"""The widgets' script and style files (``widgets.js``, ``widgets.css``
and the translator's), read from the package and made ready to embed in
a widget's HTML: without the comments and the indentation, in ASCII.

Every widget carries its own copy of the files, so a page with a dozen
widgets holds a dozen copies. Dropping what only a reader of the file
needs keeps each widget small (``MAX_BYTES``); the files in the package
stay the readable form. Each step is exact, and it checks the condition
it is exact under rather than assume it, refusing a file that breaks it:

- A style sheet loses its comments, found as CSS finds them (never
  inside a string), and its line breaks and indentation, which CSS reads
  as white space. That needs white space beside each comment (``a/**/b``
  is two names, ``ab`` one), no string continued on the next line (a line
  that ends in a backslash), and a file in ASCII.
- A script loses its comment lines (a line that begins with ``//``),
  its blank lines and its indentation; its line breaks stay. That is
  exact where every line begins in code, not inside a string, a template
  literal or a comment: then a line that begins with ``//`` is a comment
  and leading spaces are white space. So the script may have a backtick
  or a ``/*`` only on a comment line (a template literal or a block
  comment may span lines, and a string may not), and no line that ends in
  a backslash (a string continued on the next line).
- A script's characters outside ASCII become ``\\uXXXX`` escapes, which
  mean the same character in a string, a regular expression and a name,
  and change nothing in a comment after code. Elsewhere in code the only
  characters outside ASCII JavaScript accepts are spaces and line breaks,
  such as U+00A0, which an escape would turn into an error: the script
  may not have them, nor a character above U+FFFF, for which no escape
  means the same in a string, a regular expression and a name alike.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from importlib import resources

# Where CSS begins a comment, a string or an escape; its line breaks and
# its white space.
_CSS_SPECIAL = re.compile(r"/\*|[\"'\\]")
_CSS_STRING = {
    quote: re.compile(rf"{quote}(?:\\.|[^\\{quote}\n])*{quote}")
    for quote in "\"'"
}
_CSS_NEWLINE = re.compile(r"\r\n|[\n\r\f]")
_CSS_SPACE = " \t\n"


def compact_css(text: str, name: str = "the style sheet") -> str:
    """The style sheet on one line, without its comments."""
    lines = _CSS_NEWLINE.split(text)
    for number, line in enumerate(lines, start=1):
        if line.endswith("\\"):
            raise ValueError(
                f"{name}, line {number}: a line that ends in a backslash "
                "(a string continued on the next line)"
            )
        if not line.isascii():
            raise ValueError(
                f"{name}, line {number}: a character outside ASCII; write "
                "it as a CSS escape such as \\2192"
            )
    lines = _without_css_comments("\n".join(lines), name).split("\n")
    return " ".join(
        line.strip(_CSS_SPACE) for line in lines if line.strip(_CSS_SPACE)
    )


def _without_css_comments(text: str, name: str) -> str:
    """The style sheet with each comment dropped; strings and escapes,
    where ``/*`` begins no comment, are kept as they are."""
    kept = []
    position = 0
    while found := _CSS_SPECIAL.search(text, position):
        start = found.start()
        kept.append(text[position:start])
        token = found.group()
        if token == "/*":
            end = text.find("*/", start + 2) + 2
            if end < 2:
                raise ValueError(f"{name}: a comment that never ends")
            spaced = (
                start == 0
                or end == len(text)
                or text[start - 1] in _CSS_SPACE
                or text[end] in _CSS_SPACE
            )
            if not spaced:
                raise ValueError(
                    f"{name}: {text[start:end]!r} has no white space "
                    "beside it, so dropping it could join two names"
                )
            position = end
        elif token == "\\":
            position = start + 2
            kept.append(text[start:position])
        else:
            string = _CSS_STRING[token].match(text, start)
            if string is None:
                raise ValueError(
                    f"{name}: a string that does not end on its line"
                )
            kept.append(string.group())
            position = string.end()
    kept.append(text[position:])
    return "".join(kept)


# On a line of a script's code, what could begin a template literal or a
# comment over several lines.
_MULTILINE_START = re.compile(r"`|/\*")


def compact_js(text: str, name: str = "the script") -> str:
    """The script without its comment lines, blank lines and indentation,
    its characters outside ASCII as ``\\u`` escapes."""
    kept = []
    for number, line in enumerate(text.split("\n"), start=1):
        code = line.strip(" \t\r")
        if not code or code.startswith("//"):
            continue
        where = f"{name}, line {number}"
        if _MULTILINE_START.search(code):
            raise ValueError(
                f"{where}: a backtick or a /* outside a comment line, "
                "which could begin a template literal or a comment over "
                "several lines; join strings with + and comment with //"
            )
        if code.endswith("\\"):
            raise ValueError(
                f"{where}: a line that ends in a backslash (a string "
                "continued on the next line)"
            )
        kept.append(
            "".join(_ascii_js(character, where) for character in code)
        )
    return "\n".join(kept)


def _ascii_js(character: str, where: str) -> str:
    """A character of a script's code as ASCII: itself, or its ``\\u``
    escape."""
    if character.isascii():
        return character
    code_point = ord(character)
    if code_point > 0xFFFF:
        raise ValueError(
            f"{where}: {character!r} is above U+FFFF; write it as an "
            "escape where it stands"
        )
    space = unicodedata.category(character) in {"Zs", "Zl", "Zp"}
    if space or character == "\ufeff":
        raise ValueError(
            f"{where}: U+{code_point:04X} is a space or a line break "
            f"outside ASCII; write \\u{code_point:04x} inside a string"
        )
    return f"\\u{code_point:04x}"


@functools.cache
def asset(name: str) -> str:
    """A widget file of :mod:`attnbook.book` (``widgets.js``,
    ``widgets.css``, ...), compacted for embedding."""
    text = (
        resources.files("attnbook.book")
        .joinpath(name)
        .read_text(encoding="utf-8")
    )
    if name.endswith(".js"):
        return compact_js(text, name)
    return compact_css(text, name)


WIDGET_SCRIPTS = ("widgets-curve.js", "widgets.js")
"""The scripts every widget embeds, in order: the kinds drawn by a
script of their own (the curve), then the one that draws every widget."""


def widget_script() -> str:
    """The script every widget embeds: :data:`WIDGET_SCRIPTS`,
    compacted, one after the other (``__AW_ID__`` left for the widget's
    element id)."""
    return "\n".join(asset(name) for name in WIDGET_SCRIPTS)
