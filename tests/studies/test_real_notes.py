import pytest

from attnbook.studies.real_notes import p_value_text, seed_sentence


def test_p_value_at_the_resampling_limit_is_an_upper_bound():
    assert p_value_text(1 / 1001, 1000) == "p ≤ 0.001"
    assert p_value_text(1 / 101, 100) == "p ≤ 0.01"


def test_p_value_above_the_limit_is_given_to_three_decimals():
    assert p_value_text(0.0312, 1000) == "p = 0.031"


def test_p_value_outside_its_range_is_refused():
    with pytest.raises(ValueError, match="p_value"):
        p_value_text(0.0, 1000)
    with pytest.raises(ValueError, match="n_samples"):
        p_value_text(0.5, 0)


def test_seed_sentence_names_the_setting_ahead_in_every_pair():
    text = seed_sentence("BLEU", "A", [3.0, 2.0, 4.0], "B", [1.0, 0.5, 2.0])
    assert text.startswith("on BLEU A is ahead of B in every paired seed")
    mirrored = seed_sentence("BLEU", "B", [1.0, 0.5, 2.0], "A", [3.0, 2.0, 4.0])
    assert mirrored.startswith("on BLEU A is ahead of B")


def test_seed_sentence_says_why_two_settings_tie():
    within = seed_sentence("chrF", "A", [1.0, 2.0, 3.0], "B", [1.5, 2.5, 2.0])
    assert "within what the seeds move" in within
    # a large mean gap, yet one pair the other way round
    crossed = seed_sentence("chrF", "A", [10.0, 10.0, 0.0], "B", [0.0, 0.0, 0.1])
    assert crossed == ("on chrF the two tie: not every paired seed puts the same one ahead")
