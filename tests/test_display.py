import pytest

from attnbook import show_source
from attnbook.alignment import alignment_matrix
from attnbook.display import SourceListing


def test_show_source_returns_the_function_text_and_where_it_lives():
    listing = show_source(alignment_matrix)
    assert isinstance(listing, SourceListing)
    assert listing.source.startswith("def alignment_matrix(")
    assert listing.name == "attnbook.alignment.alignment_matrix"
    assert listing.path == "attnbook/alignment.py"
    assert listing.first_line > 1


def test_listing_renders_as_a_python_code_block_in_notebooks():
    markdown = show_source(alignment_matrix)._repr_markdown_()
    assert markdown.startswith("```python\ndef alignment_matrix(")
    assert "```\n\n*Source: `attnbook/alignment.py`, line" in markdown


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
