"""Guards of the glossary: every term a chapter links exists, every entry says where the book treats it,
and both reference pages stay in the table of contents. (The book build checks the links too, but only
after executing every chapter; these checks take a second.)"""

from __future__ import annotations

import re

from book_config import CHAPTERS, REPO_ROOT, load_cells, source, toc_files

GLOSSARY = REPO_ROOT / "glossary.md"


def glossary_entries() -> dict[str, str]:
    """Each term of the ```{glossary} block, lower-cased, with its definition."""
    block = re.search(r"^```\{glossary\}\n(.*?)^```", GLOSSARY.read_text(), re.MULTILINE | re.DOTALL)
    assert block, "glossary.md: no ```{glossary} block"
    entries: dict[str, str] = {}
    group: list[str] = []  # the terms that share the definition being read
    in_definition = False
    for line in block.group(1).splitlines():
        if line and not line[0].isspace():  # a term line
            if in_definition:
                group, in_definition = [], False
            group.append(line.strip().lower())
            entries[group[-1]] = ""
        elif line.strip():  # an indented definition line
            in_definition = True
            for term in group:
                entries[term] += line.strip() + " "
    return entries


def terms_linked_from_chapters() -> dict[str, set[str]]:
    """The target of every {term} role in the chapters' Markdown, with the chapters that link it."""
    linked: dict[str, set[str]] = {}
    for notebook in CHAPTERS:
        for cell in load_cells(notebook):
            if cell["cell_type"] != "markdown":
                continue
            for text in re.findall(r"\{term\}`([^`]+)`", source(cell)):
                explicit = re.fullmatch(r"(.*?)\s*<([^>]+)>", text, re.DOTALL)
                target = (explicit.group(2) if explicit else text).strip().lower()
                linked.setdefault(target, set()).add(notebook.name)
    return linked


def test_glossary_and_notation_are_in_the_table_of_contents():
    assert "glossary" in toc_files() and "notation" in toc_files()


def test_every_term_a_chapter_links_is_defined_in_the_glossary():
    entries = glossary_entries()
    missing = {
        term: sorted(pages) for term, pages in terms_linked_from_chapters().items() if term not in entries
    }
    assert not missing, f"{{term}} roles with no glossary entry: {missing}"


def test_every_glossary_entry_links_to_the_section_that_treats_it():
    unlinked = [term for term, text in glossary_entries().items() if not re.search(r"\{(ref|doc)\}`", text)]
    assert not unlinked, f"glossary entries without a {{ref}} or {{doc}} link: {unlinked}"


def test_glossary_has_the_terms_the_book_relies_on():
    required = {
        "alignment",
        "attention weight",
        "beam search",
        "bleu",
        "context vector",
        "exposure bias",
        "key",
        "query",
        "teacher forcing",
        "value",
    }
    assert required <= set(glossary_entries()), sorted(required - set(glossary_entries()))
