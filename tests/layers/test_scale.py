"""Attention at scale (attnbook.layers.scale), each piece against an independent oracle: PyTorch's
scaled_dot_product_attention, the package's MultiHeadAttention, full recomputation, a hand count."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from attnbook.layers import (
    GroupedQueryAttention,
    MultiHeadAttention,
    causal_mask,
    decode_by_recomputing,
    decode_with_cache,
    kv_cache_bytes,
    linear_attention,
    linear_attention_weights,
    sliding_window_mask,
    tiled_attention,
)


def test_grouped_query_attention_with_as_many_kv_heads_as_heads_is_multihead_attention():
    torch.manual_seed(0)
    mha = MultiHeadAttention(12, 4).double()
    gqa = GroupedQueryAttention.from_multihead(mha)
    assert gqa.num_kv_heads == 4 and gqa.group_size == 1
    query, keys = torch.randn(2, 5, 12, dtype=torch.float64), torch.randn(2, 7, 12, dtype=torch.float64)
    mask = torch.arange(7) < torch.tensor([7, 3])[:, None]
    expected = mha(query, keys, mask=mask)
    got = gqa(query, keys, mask=mask)
    for ours, theirs in zip(got, expected, strict=True):
        torch.testing.assert_close(ours, theirs, rtol=0, atol=1e-12)


def test_multi_query_heads_all_read_one_key_head():
    torch.manual_seed(0)
    gqa = GroupedQueryAttention(8, 4, 1).double()
    assert gqa.key_proj.out_features == gqa.value_proj.out_features == 2
    states = torch.randn(1, 6, 8, dtype=torch.float64)
    _, weights = gqa(states, states)
    # oracle: SDPA on the shared key head, broadcast over the query heads
    q = gqa.query_proj(states).view(1, 6, 4, 2).transpose(1, 2)
    k = gqa.key_proj(states).view(1, 6, 1, 2).transpose(1, 2)
    expected = torch.softmax(q @ k.transpose(-2, -1) / 2**0.5, dim=-1)
    torch.testing.assert_close(weights, expected)


def test_grouped_query_attention_matches_sdpa_with_repeated_kv_heads():
    torch.manual_seed(1)
    gqa = GroupedQueryAttention(16, 4, 2).double()
    states = torch.randn(2, 5, 16, dtype=torch.float64)
    context, _ = gqa(states, states, mask=causal_mask(5)[None])
    q = gqa.query_proj(states).view(2, 5, 4, 4).transpose(1, 2)
    k = gqa.key_proj(states).view(2, 5, 2, 4).transpose(1, 2).repeat_interleave(2, dim=1)
    v = gqa.value_proj(states).view(2, 5, 2, 4).transpose(1, 2).repeat_interleave(2, dim=1)
    heads = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    expected = gqa.out_proj(heads.transpose(1, 2).reshape(2, 5, 16))
    torch.testing.assert_close(context, expected)


def test_num_kv_heads_must_divide_num_heads():
    with pytest.raises(ValueError, match="num_kv_heads"):
        GroupedQueryAttention(12, 4, 3)


@pytest.mark.parametrize("num_kv_heads", [4, 2, 1])
def test_decoding_with_the_cache_equals_recomputing_under_the_causal_mask(num_kv_heads):
    torch.manual_seed(2)
    gqa = GroupedQueryAttention(8, 4, num_kv_heads).double()
    states = torch.randn(3, 9, 8, dtype=torch.float64)
    with torch.no_grad():
        cached, cache = decode_with_cache(gqa, states)
        recomputed = decode_by_recomputing(gqa, states)
        parallel, _ = gqa(states, states, mask=causal_mask(9)[None])
    torch.testing.assert_close(cached, recomputed)
    torch.testing.assert_close(cached, parallel)
    assert cache.positions == 9
    assert cache.nbytes == kv_cache_bytes(1, 9, num_kv_heads, 2, 8, batch=3)


def test_kv_cache_bytes_is_the_hand_count():
    # 2 (key and value) x 32 layers x 4096 positions x 8 heads x 128 numbers x 2 bytes
    assert kv_cache_bytes(32, 4096, 8, 128, 2) == 2 * 32 * 4096 * 8 * 128 * 2 == 536_870_912
    assert kv_cache_bytes(1, 1, 1, 1, 1) == 2
    assert kv_cache_bytes(2, 3, 4, 5, 4, batch=6) == 2 * 2 * 3 * 4 * 5 * 4 * 6
    with pytest.raises(ValueError, match="positions"):
        kv_cache_bytes(1, 0, 1, 1, 1)


@pytest.mark.parametrize("window", [1, 2, 5, 12])
def test_sliding_window_attention_equals_sdpa_with_the_same_mask(window):
    torch.manual_seed(3)
    query, keys, values = (torch.randn(2, 3, 10, 4, dtype=torch.float64) for _ in range(3))
    mask = sliding_window_mask(10, window)
    # oracle mask, built independently: j <= i and i - j < window
    i, j = torch.arange(10)[:, None], torch.arange(10)[None, :]
    assert torch.equal(mask, (j <= i) & (i - j < window))
    scores = query @ keys.transpose(-2, -1) / 2.0
    weights = torch.softmax(scores.masked_fill(~mask, float("-inf")), dim=-1)
    expected = F.scaled_dot_product_attention(query, keys, values, attn_mask=mask)
    torch.testing.assert_close(weights @ values, expected)
    assert mask.sum(dim=1).tolist() == [min(row + 1, window) for row in range(10)]


def test_a_window_as_long_as_the_sequence_is_the_causal_mask():
    assert torch.equal(sliding_window_mask(6, 6), causal_mask(6))
    assert torch.equal(sliding_window_mask(6, 1), torch.eye(6, dtype=torch.bool))


@pytest.mark.parametrize(("dtype", "tolerance"), [(torch.float32, 1e-5), (torch.float64, 1e-12)])
@pytest.mark.parametrize(("tgt_len", "src_len", "block"), [(7, 13, 4), (64, 200, 32), (5, 5, 128)])
def test_tiled_attention_equals_sdpa(dtype, tolerance, tgt_len, src_len, block):
    torch.manual_seed(4)
    query = torch.randn(2, tgt_len, 16, dtype=dtype)
    keys = torch.randn(2, src_len, 16, dtype=dtype)
    values = torch.randn(2, src_len, 8, dtype=dtype)
    expected = F.scaled_dot_product_attention(query, keys, values)
    got = tiled_attention(query, keys, values, block=block)
    torch.testing.assert_close(got, expected, rtol=tolerance, atol=tolerance)


def test_tiled_attention_survives_scores_that_overflow_a_plain_exponential():
    query = torch.full((1, 3, 4), 30.0)
    keys = torch.randn(1, 9, 4) * 30
    values = torch.randn(1, 9, 2)
    got = tiled_attention(query, keys, values, block=2)
    assert torch.isfinite(got).all()
    torch.testing.assert_close(got, F.scaled_dot_product_attention(query, keys, values))


def test_linear_attention_equals_its_quadratic_form():
    torch.manual_seed(5)
    query = torch.randn(2, 6, 4, dtype=torch.float64)
    keys = torch.randn(2, 9, 4, dtype=torch.float64)
    values = torch.randn(2, 9, 3, dtype=torch.float64)
    weights = linear_attention_weights(query, keys)
    torch.testing.assert_close(weights.sum(dim=-1), torch.ones(2, 6, dtype=torch.float64))
    assert (weights > 0).all()
    # oracle: the table written out entry by entry
    phi = lambda x: F.elu(x) + 1  # noqa: E731
    table = torch.einsum("btd,bsd->bts", phi(query), phi(keys))
    torch.testing.assert_close(weights, table / table.sum(-1, keepdim=True))
    torch.testing.assert_close(linear_attention(query, keys, values), weights @ values)


def test_linear_attention_stays_flatter_than_softmax_on_a_matching_key():
    torch.manual_seed(6)
    keys = torch.randn(1, 16, 8)
    query = keys[:, 3:4] * 16  # points at key 3, strongly
    softmax_weight = torch.softmax(query @ keys.transpose(-2, -1) / 8**0.5, dim=-1)[0, 0, 3]
    linear_weight = linear_attention_weights(query, keys)[0, 0, 3]
    assert softmax_weight > 0.99 and linear_weight < 0.2
