"""Coverage, its penalty, and the two errors it is about: a word repeated by mistake and a word never read."""

import math

import pytest
import torch

from attnbook.nmt.coverage import (
    FLOOR,
    coverage,
    coverage_penalty,
    repeated_words,
    unattended_words,
)


def test_coverage_sums_each_column_over_the_steps_that_count():
    weights = torch.tensor([[[0.5, 0.5, 0.0], [0.2, 0.7, 0.1], [0.0, 0.0, 1.0]]])
    torch.testing.assert_close(coverage(weights), torch.tensor([[0.7, 1.2, 1.1]]))
    # a finished beam's rows after its <eos> are padding: steps=2 leaves the last row out
    torch.testing.assert_close(coverage(weights, torch.tensor([2])), torch.tensor([[0.7, 1.2, 0.1]]))


def test_the_penalty_is_zero_when_every_word_is_read_once_and_ignores_padding():
    full = torch.tensor([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    mask = torch.tensor([True, True, False])  # the third column is padding, never read
    assert coverage_penalty(full, mask, 2.0).item() == 0.0
    half = torch.tensor([[0.5, 0.5, 0.0], [0.5, 0.0, 0.5]])  # the second word gets half its due
    assert math.isclose(coverage_penalty(half, mask, 2.0).item(), 2.0 * math.log(0.5))
    # a word never read costs log(FLOOR), much but not infinitely much
    never = torch.tensor([[1.0, 0.0, 0.0]])
    assert math.isclose(coverage_penalty(never, mask, 1.0).item(), math.log(FLOOR))
    assert coverage_penalty(never, mask, 0.0).item() == 0.0


@pytest.mark.parametrize(
    ("tokens", "references", "expected"),
    [
        (["sais", "-", "tu", "lire", "lire", "?"], [("sais", "-", "tu", "lire", "?")], [4]),
        (["nous", "nous", "sommes", "vus", "."], [("nous", "nous", "sommes", "vus", ".")], []),
        (["non", "!", "!"], [("non", "!")], []),  # punctuation is not a word
        (
            ["très", "très", "très", "bien"],
            [
                (
                    "très",
                    "bien",
                )
            ],
            [1, 2],
        ),
    ],
)
def test_a_repeat_is_a_mistake_only_where_no_reference_has_it(tokens, references, expected):
    assert repeated_words(tokens, references) == expected


def test_unattended_words_are_content_words_no_step_read_most():
    source = ["i", "like", "green", "tea", "."]
    weights = torch.tensor(
        [
            [0.1, 0.8, 0.05, 0.05, 0.0, 0.0],  # j'aime <- like
            [0.0, 0.1, 0.1, 0.8, 0.0, 0.0],  # le thé <- tea
            [0.0, 0.0, 0.0, 0.1, 0.9, 0.0],  # . <- .
        ]
    )
    # "green" is never read most; "i" neither, but it is a function word
    assert unattended_words(source, weights) == [2]


def test_fertility_shares_each_target_word_among_its_links_and_needs_an_alignment():
    from attnbook.nmt import SentencePair, fertility

    pair = SentencePair(("a", "b", "c"), ("x", "y"), alignment=((0, 1), (1,)))
    assert fertility(pair) == [0.5, 1.5, 0.0]  # c translates no target word
    assert sum(fertility(pair)) == len(pair.target)
    with pytest.raises(ValueError, match="alignment"):
        fertility(SentencePair(("a",), ("x",)))
