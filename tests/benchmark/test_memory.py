"""peak_tensor_memory counts the bytes of live tensors: checked on computations whose peak is known by
hand, and on naive attention, whose (tgt_len, src_len) tables it must see."""

from __future__ import annotations

import torch

from attnbook.benchmark import peak_tensor_memory
from attnbook.layers import tiled_attention


def test_one_tensor_is_its_bytes():
    assert peak_tensor_memory(lambda: torch.empty(1000, dtype=torch.float64)) == 8000


def test_a_freed_temporary_does_not_add_to_the_next():
    def sequential():
        first = torch.ones(1000)
        del first
        return torch.ones(500)

    def together():
        first = torch.ones(1000)
        second = torch.ones(500)
        return first, second

    assert peak_tensor_memory(sequential) == 4000
    assert peak_tensor_memory(together) == 6000


def test_views_share_their_storage():
    def views():
        base = torch.ones(100)
        return base.view(10, 10).t(), base[:50]

    assert peak_tensor_memory(views) == 400


def test_inputs_made_before_the_call_are_not_counted():
    made_before = torch.ones(10_000)
    assert peak_tensor_memory(lambda: made_before.sum()) == 4


def test_naive_attention_holds_its_score_table_and_tiled_attention_does_not():
    length, dim = 512, 16
    query, keys, values = (torch.randn(1, length, dim) for _ in range(3))
    table = length * length * 4
    with torch.no_grad():
        naive = peak_tensor_memory(lambda: torch.softmax(query @ keys.transpose(1, 2), dim=-1) @ values)
        tiled = peak_tensor_memory(lambda: tiled_attention(query, keys, values, block=64))
    assert naive >= 2 * table  # the scores and the weights at once
    assert tiled < table / 4
