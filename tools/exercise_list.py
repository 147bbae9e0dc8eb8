"""The book's "Exercises" page (exercises.md), generated from the chapters' Markdown cells.

Every exercise of every chapter, by chapter, in the order of ``_toc.yml``, with its number (6.1, A.2),
a link to it, its title and its whole text quoted. An exercise is found in any of these forms:

- a sphinx-exercise directive, fenced with backticks or colons, its label in a ``:label:`` option::

      ```{exercise} The score by hand
      :label: ex-2-1

      Write `my_additive_score(...)` ...
      ```

- the gated form, ``{exercise-start}`` (with its options) then the text up to ``{exercise-end}``;
- a heading ``### Exercise 2: a different kernel`` followed by its text;
- an item ``1. **The score by hand.** Write ...`` of a numbered list under an ``## Exercises`` heading.

An exercise with a label is linked with ``{ref}``; one without is linked to its chapter's exercises
(the label written just above the ``Exercises`` heading, if there is one) or to the chapter.

    python tools/exercise_list.py           # print the page
    python tools/exercise_list.py --write   # write exercises.md
    python tools/exercise_list.py --check   # exit 1 (and say so) when exercises.md is not what it prints

``tests/test_exercise_list.py`` checks that the committed page is exactly what this prints.
"""

from __future__ import annotations

import argparse
import json
import posixpath
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import yaml

REPO_ROOT = Path(__file__).resolve().parent.parent
PAGE = REPO_ROOT / "exercises.md"

HEADER = """\
(exercises)=
# Exercises

Every exercise of the book, chapter by chapter, numbered as in its chapter, with the whole question.
Each link opens the exercise in its chapter, where its solution follows it, folded. Each title ends with
a mark of difficulty: *easy* (a few lines, minutes), *medium* (a short program, an hour) or *hard* (a
variant of a model to build and train).
"""

# The opening line of a directive: a fence of three or more backticks or colons, then {name}, then
# the argument (the exercise's title, if any).
OPENING = re.compile(r"^(?P<fence>`{3,}|:{3,})\s*\{(?P<name>[\w:-]+)\}[ \t]*(?P<argument>.*?)[ \t]*$")
OPTION = re.compile(r"^:(?P<key>[\w-]+):[ \t]*(?P<value>.*?)[ \t]*$")
HEADING = re.compile(r"^(?P<hashes>#{1,6})[ \t]+(?P<text>.+?)[ \t]*#*[ \t]*$")
TARGET = re.compile(r"^\((?P<label>[^()\s]+)\)=[ \t]*$")
EXERCISE_HEADING = re.compile(r"^Exercise\s+(?P<number>[\w.]+)\s*[:.\-\u2013\u2014]?\s*(?P<title>.*)$", re.I)
LIST_ITEM = re.compile(r"^(?P<number>\d+)[.)][ \t]+(?P<text>.*)$")
BOLD_TITLE = re.compile(r"^\*\*(?P<title>.+?)\*\*[ \t]*")


@dataclass(frozen=True)
class Exercise:
    """One exercise: its chapter's page (``chapters/02_bahdanau``), label (or None), title and text."""

    page: str
    label: str | None
    title: str
    text: str
    directive: bool = False  # written as a sphinx-exercise directive (not a heading or a list item)


@dataclass(frozen=True)
class Chapter:
    page: str
    heading: str
    title: str
    exercises_label: str | None
    exercises: list[Exercise]


def cell_source(cell: dict) -> str:
    text = cell.get("source", "")
    return text if isinstance(text, str) else "".join(text)


def markdown_cells(notebook: Path) -> list[str]:
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    return [cell_source(cell) for cell in cells if cell.get("cell_type") == "markdown"]


def _closes(line: str, fence: str) -> bool:
    """Whether ``line`` closes a directive opened with ``fence`` (the same character, at least as many)."""
    stripped = line.strip()
    return len(stripped) >= len(fence) and set(stripped) == {fence[0]}


def _directive(lines: list[str], start: int) -> tuple[dict[str, str], list[str], int]:
    """Read the directive opened at ``lines[start]``: its options, its body lines, and the index of the
    line after it. Nested fences (a code block inside an exercise) are skipped over whole."""
    fence = OPENING.match(lines[start]).group("fence")
    index = start + 1
    options: dict[str, str] = {}
    if index < len(lines) and lines[index].strip() == "---":  # options as a YAML block
        end = next((k for k in range(index + 1, len(lines)) if lines[k].strip() == "---"), None)
        if end is not None:
            block = yaml.safe_load("\n".join(lines[index + 1 : end])) or {}
            options = (
                {str(key): str(value) for key, value in block.items()} if isinstance(block, dict) else {}
            )
            index = end + 1
    while index < len(lines) and (match := OPTION.match(lines[index].strip())):
        options[match.group("key")] = match.group("value")
        index += 1
    body: list[str] = []
    inner: str | None = None
    while index < len(lines):
        line = lines[index]
        if inner is None and _closes(line, fence):
            return options, body, index + 1
        opened = re.match(r"^\s*(`{3,}|:{3,}|~{3,})", line)
        if inner is None and opened:
            inner = opened.group(1)
        elif inner is not None and _closes(line, inner):
            inner = None
        body.append(line)
        index += 1
    return options, body, index


def _paragraphs(lines: list[str]) -> str:
    """The first paragraph of ``lines`` that is prose (not a fence, a heading, a target or a directive)."""
    paragraph: list[str] = []
    fence: str | None = None
    for line in lines:
        stripped = line.strip()
        if fence is not None:
            if _closes(stripped, fence):
                fence = None
            continue
        opened = re.match(r"^(`{3,}|:{3,}|~{3,})", stripped)
        if opened:
            if paragraph:
                break
            fence = opened.group(1)
            continue
        if not stripped:
            if paragraph:
                break
            continue
        if HEADING.match(stripped) or TARGET.match(stripped) or OPTION.match(stripped):
            if paragraph:
                break
            continue
        paragraph.append(stripped)
    return " ".join(paragraph)


def find_exercises(page: str, cells: list[str]) -> list[Exercise]:
    """Every exercise in the Markdown cells of one chapter, in order, in whichever form it is written."""
    exercises: list[Exercise] = []
    in_exercises = False  # under an "Exercises" heading, where a numbered list is the exercises
    gated: dict | None = None  # an {exercise-start} whose text runs until {exercise-end}
    for source in cells:
        lines = source.splitlines()
        index = 0
        while index < len(lines):
            line = lines[index]
            opening = OPENING.match(line.strip())
            if opening and opening.group("name") in ("exercise", "exercise-start", "exercise-end"):
                options, body, index = _directive(lines, index)
                name = opening.group("name")
                if gated is not None:  # an exercise-start with no exercise-end before this directive
                    exercises.append(_gated(page, gated))
                    gated = None
                if name == "exercise":
                    text = _paragraphs(body)
                    exercises.append(
                        Exercise(page, options.get("label"), opening.group("argument"), text, True)
                    )
                elif name == "exercise-start":
                    gated = {"options": options, "title": opening.group("argument"), "lines": []}
                continue
            if gated is not None:
                gated["lines"].append(line)
                index += 1
                continue
            heading = HEADING.match(line.strip())
            if heading:
                text = heading.group("text").strip()
                if re.fullmatch(r"Exercises?", text, re.I):
                    in_exercises = True
                elif numbered := EXERCISE_HEADING.match(text):
                    body, index = _until_heading(lines, index + 1)
                    exercises.append(Exercise(page, None, numbered.group("title").strip(), _paragraphs(body)))
                    in_exercises = True
                    continue
                else:
                    in_exercises = False
                index += 1
                continue
            item = LIST_ITEM.match(line) if in_exercises else None
            if item:
                body = [item.group("text")]
                index += 1
                while index < len(lines) and (lines[index].startswith((" ", "\t")) and lines[index].strip()):
                    body.append(lines[index])
                    index += 1
                text = " ".join(part.strip() for part in body)
                bold = BOLD_TITLE.match(text)
                title = bold.group("title").strip() if bold else ""
                exercises.append(Exercise(page, None, title, text[bold.end() :] if bold else text))
                continue
            index += 1
        if gated is not None:
            gated["lines"].append("")  # a cell ends a paragraph
    if gated is not None:
        exercises.append(_gated(page, gated))
    # Once a chapter has exercise directives, they are its exercises: a heading or a numbered list
    # beside them (a heading above each block, a list of hints) is not another exercise.
    directives = [exercise for exercise in exercises if exercise.directive]
    return directives or exercises


def _gated(page: str, gated: dict) -> Exercise:
    return Exercise(page, gated["options"].get("label"), gated["title"], _paragraphs(gated["lines"]), True)


def _until_heading(lines: list[str], index: int) -> tuple[list[str], int]:
    body: list[str] = []
    while index < len(lines) and not HEADING.match(lines[index].strip()):
        if OPENING.match(lines[index].strip()):
            break
        body.append(lines[index])
        index += 1
    return body, index


def exercises_label(cells: list[str]) -> str | None:
    """The label written just above a chapter's ``Exercises`` heading, e.g. ``(lookup-exercises)=``."""
    for source in cells:
        lines = [line.strip() for line in source.splitlines()]
        for index, line in enumerate(lines):
            heading = HEADING.match(line)
            if heading and re.fullmatch(r"Exercises?", heading.group("text").strip(), re.I):
                previous = [text for text in lines[:index] if text]
                target = TARGET.match(previous[-1]) if previous else None
                if target:
                    return target.group("label")
    return None


def chapter_title(cells: list[str], page: str) -> str:
    for source in cells:
        for line in source.splitlines():
            heading = HEADING.match(line.strip())
            if heading and len(heading.group("hashes")) == 1:
                return heading.group("text").strip()
    return page.rsplit("/", 1)[-1]


def relink(text: str, page: str) -> str:
    """Make a chapter's relative links work from the book's root, where exercises.md lives: ``{doc}``
    targets and Markdown links are resolved against the chapter's folder, and a ``{glue}`` key names the
    chapter that glued it."""
    folder = posixpath.dirname(page)

    def resolve(target: str) -> str:
        if target.startswith(("/", "#")) or re.match(r"^[a-z]+:", target):
            return target
        return posixpath.normpath(posixpath.join(folder, target))

    def doc(match: re.Match) -> str:
        inside = match.group(1)
        explicit = re.fullmatch(r"(.*?)\s*<([^<>]+)>", inside)
        if explicit:
            return f"{{doc}}`{explicit.group(1)} </{resolve(explicit.group(2)).lstrip('/')}>`"
        return f"{{doc}}`/{resolve(inside).lstrip('/')}`"

    def glue(match: re.Match) -> str:
        role, key = match.group(1), match.group(2)
        if "::" in key:
            return match.group(0)
        return f"{{{role}}}`{page}.ipynb::{key}`"

    text = re.sub(r"\{doc\}`([^`]+)`", doc, text)
    text = re.sub(r"\{(glue(?::\w+)?)\}`([^`]+)`", glue, text)
    return re.sub(r"\]\(([^)\s]+)\)", lambda m: f"]({resolve(m.group(1))})", text)


def toc_chapters() -> list[tuple[str, str]]:
    """Every chapter page of ``_toc.yml`` with its heading prefix: "Chapter 1", ..., "Appendix A", ..."""
    toc = yaml.safe_load((REPO_ROOT / "_toc.yml").read_text(encoding="utf-8"))
    pages: list[tuple[str, str]] = []
    for part in toc.get("parts", []):
        numbered = bool(part.get("numbered"))
        number = 0
        letter = "A"
        for entry in part.get("chapters", []):
            page = entry.get("file", "")
            if not page.startswith("chapters/"):
                continue
            if numbered:
                number += 1
                pages.append((page, f"Chapter {number}"))
            else:  # an appendix, lettered in the order of the table of contents
                pages.append((page, f"Appendix {letter}"))
                letter = chr(ord(letter) + 1)
    return pages


def chapters() -> list[Chapter]:
    found = []
    for page, heading in toc_chapters():
        notebook = REPO_ROOT / f"{page}.ipynb"
        cells = markdown_cells(notebook)
        found.append(
            Chapter(
                page, heading, chapter_title(cells, page), exercises_label(cells), find_exercises(page, cells)
            )
        )
    labels = [exercise.label for chapter in found for exercise in chapter.exercises if exercise.label]
    duplicates = sorted({label for label in labels if labels.count(label) > 1})
    if duplicates:
        raise ValueError(f"exercise labels used twice: {', '.join(duplicates)}")
    return found


def link_text(text: str) -> str:
    """A title as the plain text of a link: no Markdown emphasis, code marks or math dollars."""
    return re.sub(r"[*_`$<>]", "", text).strip().rstrip(".:").strip()


def exercise_line(chapter: Chapter, number: int, exercise: Exercise) -> str:
    """One exercise as a list item: its number as the chapter numbers it (6.1, A.2), a link to it, its
    title, and the whole question quoted beneath."""
    name = f"Exercise {chapter.heading.split()[-1]}.{number}"
    if exercise.label:
        link = f"{{ref}}`{name} <{exercise.label}>`"
    elif chapter.exercises_label:
        link = f"{{ref}}`{name} <{chapter.exercises_label}>`"
    else:
        link = f"{{doc}}`{name} </{chapter.page}>`"
    title = link_text(exercise.title)
    if title:
        title = title[0].upper() + title[1:]
        title += "" if title.endswith(("?", "!", ")")) else "."
    line = f"- {link}: **{title}**" if title else f"- {link}"
    question = relink(exercise.text, chapter.page).strip()
    if not question:
        return line
    quoted = "\n".join(f"  > {text}".rstrip() for text in question.splitlines())
    return f"{line}\n\n{quoted}\n"


def render(found: list[Chapter]) -> str:
    out = [HEADER]
    for chapter in found:
        if not chapter.exercises:
            continue
        out.append(f"\n## {chapter.heading}: {{doc}}`{chapter.title} </{chapter.page}>`\n\n")
        out.extend(
            exercise_line(chapter, number, exercise) + "\n"
            for number, exercise in enumerate(chapter.exercises, start=1)
        )
    return "".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    action = parser.add_mutually_exclusive_group()
    action.add_argument("--write", action="store_true", help="write exercises.md")
    action.add_argument("--check", action="store_true", help="exit 1 when exercises.md differs")
    args = parser.parse_args(argv)
    page = render(chapters())
    if args.write:
        PAGE.write_text(page, encoding="utf-8")
        count = page.count("\n- ")
        print(f"wrote {PAGE.relative_to(REPO_ROOT)}: {count} exercises")
    elif args.check:
        current = PAGE.read_text(encoding="utf-8") if PAGE.is_file() else ""
        if current != page:
            print("exercises.md is out of date: run python tools/exercise_list.py --write", file=sys.stderr)
            return 1
    else:
        sys.stdout.write(page)
    return 0


if __name__ == "__main__":
    sys.exit(main())
