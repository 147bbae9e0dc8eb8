"""The checker of the split-by-English exercise accepts the package's split and refuses the usual mistakes."""

import random

from attnbook.checks.real import check_split_by_english
from attnbook.nmt import split_by_english


def package_split(pairs, test_fraction, seed):
    split = split_by_english(pairs, test_fraction=test_fraction, val_fraction=0.0, seed=seed)
    return split.train, split.test


def split_by_pair(pairs, test_fraction, seed):
    pairs = list(pairs)
    random.Random(seed).shuffle(pairs)
    cut = round(len(pairs) * (1 - test_fraction))
    return pairs[:cut], pairs[cut:]


def test_the_package_split_passes():
    result = check_split_by_english(package_split)
    assert result.passed, result.message
    assert result.message.startswith("✓ passed: 3 cases agree with a split by English sentence")


def test_a_split_by_pair_fails_naming_a_sentence_on_both_sides():
    result = check_split_by_english(split_by_pair)
    assert not result.passed and result.message.startswith("✗ failed on case 1 of 3 (")
    assert "on both sides" in result.message and "a split by pair leaks an English sentence" in result.message


def test_an_exception_in_the_readers_split_is_a_failed_line_not_a_traceback():
    def crashes(pairs, test_fraction, seed):
        return pairs[: round(test_fraction * len(pairs))], pairs[None]

    result = check_split_by_english(crashes)
    assert not result.passed
    assert result.message.startswith("✗ failed on case 1 of 3 (")
    assert "your function raised TypeError: list indices must be integers" in result.message


def test_a_split_that_returns_one_list_is_told_to_return_a_pair():
    result = check_split_by_english(lambda pairs, f, s: pairs)
    assert not result.passed and "expected a (train_pairs, test_pairs) pair, got list" in result.message


def test_a_split_that_loses_pairs_fails():
    result = check_split_by_english(lambda pairs, f, s: package_split(pairs[1:], f, s))
    assert not result.passed and "exactly one side" in result.message


def test_a_fraction_of_pairs_instead_of_sentences_fails():
    def by_pair_count(pairs, test_fraction, seed):
        sentences = list(dict.fromkeys(p.source for p in pairs))
        test, count = set(), 0
        for sentence in sentences:  # takes sentences until test_fraction of the *pairs* is reached
            if count >= test_fraction * len(pairs):
                break
            test.add(sentence)
            count += sum(p.source == sentence for p in pairs)
        return [p for p in pairs if p.source not in test], [p for p in pairs if p.source in test]

    result = check_split_by_english(by_pair_count)
    assert not result.passed and "distinct English sentences" in result.message
    assert "the fraction counts English sentences, not pairs" in result.message
