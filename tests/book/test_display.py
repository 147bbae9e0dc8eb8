import pytest

from attnbook import show_source
from attnbook.book.display import SourceListing
from attnbook.core.alignment import alignment_matrix


def test_show_source_returns_the_function_text_and_where_it_lives():
    listing = show_source(alignment_matrix)
    assert isinstance(listing, SourceListing)
    assert listing.source.startswith("def alignment_matrix(")
    assert listing.name == "attnbook.core.alignment.alignment_matrix"
    assert listing.path == "attnbook/core/alignment.py"
    assert listing.first_line > 1


def test_listing_renders_as_a_python_code_block_in_notebooks():
    markdown = show_source(alignment_matrix)._repr_markdown_()
    assert markdown.startswith("```python\ndef alignment_matrix(")
    assert "```\n\n*Source: `attnbook/core/alignment.py`, line" in markdown


def test_print_gives_plain_source():
    assert str(show_source(alignment_matrix)).startswith("def alignment_matrix(")


def test_methods_are_dedented():
    listing = show_source(SourceListing._repr_markdown_)
    assert listing.source.startswith("def _repr_markdown_(self)")


def test_classes_are_shown_whole():
    listing = show_source(SourceListing)
    assert "class SourceListing" in listing.source and "def __str__" in listing.source


def test_objects_without_source_are_a_clear_type_error():
    with pytest.raises(TypeError, match="show_source needs a class, function, method or module"):
        show_source(len)
    with pytest.raises(TypeError, match="show_source needs"):
        show_source(3)


def test_a_short_listing_is_shown_whole_and_not_folded():
    listing = show_source(alignment_matrix)
    assert not listing.folded and "<details>" not in listing._repr_markdown_()


def test_a_long_listing_folds_under_its_signature():
    from attnbook.layers.bahdanau import BahdanauAttention

    markdown = show_source(BahdanauAttention)._repr_markdown_()
    shown, folded = markdown.split("<details>")
    assert shown.startswith("```python\nclass BahdanauAttention(_Attention):\n")
    assert "def _score" not in shown and "def _score" in folded
    assert "lines below" in shown and folded.rstrip().endswith("*")


def test_focus_shows_the_lines_that_matter_above_the_whole_listing():
    from attnbook.nmt.training import train

    listing = show_source(train, focus=("model.train()", "return log.result"))
    markdown = listing._repr_markdown_()
    shown, folded = markdown.split("<details>")
    assert "optimizer.step()" in shown and "def train(" not in shown
    assert "def train(" in folded and "</details>" in folded
    start, stop = listing.excerpt
    assert (
        f"Lines {listing.first_line + start}-{listing.first_line + stop - 1} of `attnbook/nmt/training.py`"
        in shown
    )
    assert str(listing) == listing.source  # print() still gives the whole source


def test_a_focus_that_matches_nothing_is_a_clear_value_error():
    with pytest.raises(
        ValueError, match=r"no line of attnbook\.core\.alignment\.alignment_matrix contains .nowhere."
    ):
        show_source(alignment_matrix, focus=("nowhere", "return"))
    with pytest.raises(ValueError, match="from 'def alignment_matrix' on contains 'nowhere'"):
        show_source(alignment_matrix, focus=("def alignment_matrix", "nowhere"))
