import pytest

from attnbook.studies.grammar_notes import listing, share_phrase


def test_a_share_of_one_reads_every_time():
    assert share_phrase(1.0) == "every time"


def test_a_share_just_below_one_is_not_rounded_to_every_time():
    # 0.99996 prints as 100.0%, yet it is not every time
    assert share_phrase(0.99996) == "at least 100.0% of the time"


def test_a_share_outside_zero_to_one_is_refused_with_its_value():
    with pytest.raises(ValueError, match=r"1\.5"):
        share_phrase(1.5)


def test_listing_joins_two_items_with_and_and_more_with_commas():
    assert listing(["a", "b"]) == "a and b"
    assert listing(["a", "b", "c", "d"]) == "a, b, c and d"


def test_an_empty_listing_is_refused():
    with pytest.raises(ValueError, match="none"):
        listing([])
