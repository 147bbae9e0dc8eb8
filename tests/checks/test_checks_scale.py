"""The sliding-window checker passes the package's own mask and names each classic slip."""

from __future__ import annotations

import torch

from attnbook.checks import check_sliding_window_mask
from attnbook.layers import causal_mask, sliding_window_mask


def positions(length):
    return torch.arange(length)[:, None], torch.arange(length)[None, :]


def test_the_package_mask_and_a_hand_written_one_pass():
    assert check_sliding_window_mask(sliding_window_mask).passed

    def by_hand(length, window):
        i, j = positions(length)
        return (j <= i) & (i - j < window)

    assert check_sliding_window_mask(by_hand).passed


def test_each_slip_is_named():
    def off_by_one(length, window):
        i, j = positions(length)
        return (j <= i) & (i - j <= window)

    def two_sided(length, window):
        i, j = positions(length)
        return (i - j).abs() < window

    slips = {
        "off-by-one": off_by_one,
        "both ways": two_sided,
        "inverted": lambda length, window: ~sliding_window_mask(length, window),
        "plain causal": lambda length, window: causal_mask(length),
    }
    for words, fn in slips.items():
        result = check_sliding_window_mask(fn)
        assert not result.passed and words in result.message, (words, result.message)
