"""The "Exercises" page (exercises.md) and its generator, tools/exercise_list.py.

The committed page must be exactly what the generator prints from the chapters, so that an exercise
added, removed or reworded in a chapter shows up in the list (run `python tools/exercise_list.py --write`).
The generator must find exercises in each form a chapter writes them: a sphinx-exercise directive with a
label (backtick or colon fence, the gated exercise-start form), an "Exercise N:" heading, or a numbered
list under an "Exercises" heading.
"""

from __future__ import annotations

import sys

import pytest
from book_config import REPO_ROOT, chapter_pages, toc_files

sys.path.insert(0, str(REPO_ROOT / "tools"))
import exercise_list

PAGE = "chapters/09_example"


def test_the_committed_page_is_what_the_generator_writes():
    expected = exercise_list.render(exercise_list.chapters())
    committed = (REPO_ROOT / "exercises.md").read_text(encoding="utf-8")
    assert committed == expected, "exercises.md is out of date: run python tools/exercise_list.py --write"


def test_the_page_is_in_the_reference_part_of_the_table_of_contents():
    assert "exercises" in toc_files()
    assert toc_files().index("exercises") > toc_files().index(chapter_pages()[-1])


def test_every_chapter_has_exercises_and_each_is_listed_once():
    found = exercise_list.chapters()
    assert [chapter.page for chapter in found] == chapter_pages()
    for chapter in found:
        assert len(chapter.exercises) >= 2, f"{chapter.page}: {len(chapter.exercises)} exercises found"
        for exercise in chapter.exercises:
            assert exercise.text, f"{chapter.page}: an exercise without text ({exercise.title!r})"
    page = (REPO_ROOT / "exercises.md").read_text(encoding="utf-8")
    assert page.count("\n- ") == sum(len(chapter.exercises) for chapter in found)


def test_a_labelled_exercise_directive_is_linked_by_its_label():
    cells = [
        "## Exercises\n\n```{exercise} The score by hand\n:label: ex-2-1\n\nWrite `f(x)` that returns "
        "$e_j = v^\\top \\tanh(W q)$. Check it.\n```",
        ":::{exercise}\n:label: ex-2-2\n:class: dropdown\n\nShow that the bias does nothing. Why?\n:::",
    ]
    found = exercise_list.find_exercises(PAGE, cells)
    assert found == [
        exercise_list.Exercise(
            PAGE,
            "ex-2-1",
            "The score by hand",
            "Write `f(x)` that returns $e_j = v^\\top \\tanh(W q)$. Check it.",
            directive=True,
        ),
        exercise_list.Exercise(PAGE, "ex-2-2", "", "Show that the bias does nothing. Why?", directive=True),
    ]
    chapter = exercise_list.Chapter(PAGE, "Chapter 9", "Example", None, found)
    # numbered as the chapter numbers it, the whole question quoted beneath
    assert exercise_list.exercise_line(chapter, 1, found[0]) == (
        "- {ref}`Exercise 9.1 <ex-2-1>`: **The score by hand.**\n\n  > Write `f(x)` that returns "
        "$e_j = v^\\top \\tanh(W q)$. Check it.\n"
    )
    assert exercise_list.exercise_line(chapter, 2, found[1]) == (
        "- {ref}`Exercise 9.2 <ex-2-2>`\n\n  > Show that the bias does nothing. Why?\n"
    )


def test_the_gated_form_reads_the_text_up_to_exercise_end():
    cells = [
        "```{exercise-start} Local attention\n:label: ex-a-1\n```\n\nCompute the weights. Then more.",
        "```{exercise-end}\n```",
        "Not part of it.",
    ]
    (exercise,) = exercise_list.find_exercises(PAGE, cells)
    assert (exercise.label, exercise.title, exercise.text) == (
        "ex-a-1",
        "Local attention",
        "Compute the weights. Then more.",
    )


def test_a_code_block_inside_an_exercise_does_not_end_it():
    cells = [
        "````{exercise}\n:label: ex-1-3\n\nRun this. It prints.\n\n```python\nprint(1)\n```\n\nThen this.\n````"
    ]
    (exercise,) = exercise_list.find_exercises(PAGE, cells)
    assert exercise.label == "ex-1-3" and exercise.text == "Run this. It prints."


def test_headings_and_numbered_lists_are_found_without_labels():
    headings = [
        "(my-exercises)=\n## Exercises\n\n### Exercise 1: a kernel (auto-checked)\n\nUse it.",
        "### Exercise 2: more\n\nAgain.",
    ]
    found = exercise_list.find_exercises(PAGE, headings)
    assert [(e.label, e.title, e.text) for e in found] == [
        (None, "a kernel (auto-checked)", "Use it."),
        (None, "more", "Again."),
    ]
    assert exercise_list.exercises_label(headings) == "my-exercises"

    listed = [
        "## Summary\n\n1. Not an exercise.\n\n## Exercises\n\n1. **Your own.** Write the\n   links. More.\n2. **Why?** Say.\n\n## References\n\n1. Not one either."
    ]
    found = exercise_list.find_exercises(PAGE, listed)
    assert [(e.title, e.text) for e in found] == [("Your own.", "Write the links. More."), ("Why?", "Say.")]
    chapter = exercise_list.Chapter(PAGE, "Chapter 9", "Example", None, found)
    assert (
        exercise_list.exercise_line(chapter, 2, found[1])
        == "- {doc}`Exercise 9.2 </chapters/09_example>`: **Why?**\n\n  > Say.\n"
    )


def test_relative_links_are_made_to_work_from_the_root():
    text = "See {doc}`02_bahdanau`, {doc}`the list <../bibliography>`, [x](03_luong.ipynb) and {glue:text}`k:.1f`."
    assert exercise_list.relink(text, "chapters/05_b") == (
        "See {doc}`/chapters/02_bahdanau`, {doc}`the list </bibliography>`, [x](chapters/03_luong.ipynb) and "
        "{glue:text}`chapters/05_b.ipynb::k:.1f`."
    )


def test_a_label_used_twice_is_refused(monkeypatch):
    twice = [
        exercise_list.Exercise(PAGE, "ex-1-1", "", "A."),
        exercise_list.Exercise(PAGE, "ex-1-1", "", "B."),
    ]
    monkeypatch.setattr(exercise_list, "toc_chapters", lambda: [(PAGE, "Chapter 9")])
    monkeypatch.setattr(exercise_list, "markdown_cells", lambda notebook: [])
    monkeypatch.setattr(exercise_list, "find_exercises", lambda page, cells: twice)
    with pytest.raises(ValueError, match="ex-1-1"):
        exercise_list.chapters()


def test_headings_and_lists_beside_exercise_directives_are_not_counted_twice():
    cells = [
        "## Exercises\n\n### Exercise 1: the score\n\n```{exercise} The score\n:label: ex-2-1\n\nWrite it.\n```",
        "Hints:\n\n1. Use the softmax.\n2. Mind the mask.",
    ]
    found = exercise_list.find_exercises(PAGE, cells)
    assert [(e.label, e.title) for e in found] == [("ex-2-1", "The score")]
