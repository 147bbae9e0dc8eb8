"""attnbook.layers.multihead against torch.nn.MultiheadAttention (the oracle), gradcheck, properties, bad input."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import nn

from attnbook import MultiHeadAttention, causal_mask

SETTINGS = settings(max_examples=30, deadline=None, derandomize=True)
TOLERANCE = {torch.float32: {"rtol": 1e-5, "atol": 1e-6}, torch.float64: {"rtol": 1e-12, "atol": 1e-13}}


def torch_pair(embed_dim=12, num_heads=3, kdim=None, vdim=None, bias=True, dtype=torch.float64, seed=0):
    """A random nn.MultiheadAttention (batch_first, eval mode) and the package's copy of it."""
    torch.manual_seed(seed)
    reference = nn.MultiheadAttention(
        embed_dim, num_heads, bias=bias, kdim=kdim, vdim=vdim, batch_first=True, dtype=dtype
    ).eval()
    with torch.no_grad():  # non-zero biases, so that copying them is tested too
        for parameter in reference.parameters():
            parameter.add_(0.1 * torch.randn_like(parameter))
    return reference, MultiHeadAttention.from_torch(reference)


def inputs(batch=3, tgt_len=4, src_len=6, embed_dim=12, kdim=12, vdim=12, dtype=torch.float64, seed=1):
    generator = torch.Generator().manual_seed(seed)
    return (
        torch.randn(batch, tgt_len, embed_dim, generator=generator, dtype=dtype),
        torch.randn(batch, src_len, kdim, generator=generator, dtype=dtype),
        torch.randn(batch, src_len, vdim, generator=generator, dtype=dtype),
    )


PADDING = torch.tensor([[True] * 6, [True] * 4 + [False] * 2, [True] + [False] * 5])  # (3, 6)


def largest_difference_from_torch(dtype: torch.dtype) -> float:
    """The largest difference from nn.MultiheadAttention over padding, causal and kdim/vdim cases."""
    worst = 0.0
    for kdim, vdim in ((None, None), (5, 7)):
        reference, mha = torch_pair(kdim=kdim, vdim=vdim, dtype=dtype)
        query, keys, values = inputs(kdim=kdim or 12, vdim=vdim or 12, dtype=dtype)
        for mask in (PADDING, PADDING[:, None, :] & causal_mask(6)[None, :4]):
            context, weights = mha(query, keys, values, mask=mask)
            if mask.dim() == 2:  # polarity: True = may attend here, True = ignore there
                expected = reference(query, keys, values, key_padding_mask=~mask, average_attn_weights=False)
            else:  # a per-sentence (batch, tgt_len, src_len) mask: nn.MultiheadAttention wants one per head
                per_head = (~mask).repeat_interleave(mha.num_heads, dim=0)  # (batch * heads, tgt, src)
                expected = reference(query, keys, values, attn_mask=per_head, average_attn_weights=False)
            worst = max(
                worst, (context - expected[0]).abs().max().item(), (weights - expected[1]).abs().max().item()
            )
    return worst


@pytest.mark.parametrize("kdim, vdim", [(None, None), (5, 7)])
@pytest.mark.parametrize("bias", [True, False])
def test_equals_torch_multihead_attention_with_padding_mask(kdim, vdim, bias):
    reference, mha = torch_pair(kdim=kdim, vdim=vdim, bias=bias)
    query, keys, values = inputs(kdim=kdim or 12, vdim=vdim or 12)
    context, weights = mha(query, keys, values, mask=PADDING)
    expected_context, expected_weights = reference(
        query, keys, values, key_padding_mask=~PADDING, average_attn_weights=False
    )
    torch.testing.assert_close(context, expected_context, **TOLERANCE[torch.float64])
    torch.testing.assert_close(weights, expected_weights, **TOLERANCE[torch.float64])
    _, averaged = reference(query, keys, values, key_padding_mask=~PADDING)  # the default averages heads
    torch.testing.assert_close(weights.mean(dim=1), averaged, **TOLERANCE[torch.float64])


def test_equals_torch_multihead_attention_with_causal_mask():
    reference, mha = torch_pair()
    (states, _, _) = inputs(tgt_len=5)
    context, weights = mha(states, states, mask=causal_mask(5)[None])
    expected = reference(states, states, states, attn_mask=~causal_mask(5), average_attn_weights=False)
    torch.testing.assert_close(context, expected[0], **TOLERANCE[torch.float64])
    torch.testing.assert_close(weights, expected[1], **TOLERANCE[torch.float64])
    assert bool(weights.triu(diagonal=1).eq(0).all())  # nothing above the diagonal: no future


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_largest_difference_from_torch_is_at_rounding_level(dtype):
    assert largest_difference_from_torch(dtype) <= {torch.float32: 1e-5, torch.float64: 1e-13}[dtype]


def test_from_torch_refuses_what_it_cannot_copy():
    with pytest.raises(ValueError, match="add_bias_kv"):
        MultiHeadAttention.from_torch(nn.MultiheadAttention(8, 2, add_bias_kv=True, batch_first=True))
    with pytest.raises(TypeError, match=r"nn\.MultiheadAttention"):
        MultiHeadAttention.from_torch(nn.Linear(8, 8))


def test_gradcheck_through_every_input_and_the_mask():
    _, mha = torch_pair(kdim=5, vdim=7)
    query, keys, values = (t.requires_grad_() for t in inputs(batch=2, tgt_len=3, src_len=4, kdim=5, vdim=7))
    mask = torch.tensor([[True, True, False, True], [True, False, False, False]])
    assert torch.autograd.gradcheck(lambda q, k, v: mha(q, k, v, mask=mask), (query, keys, values))


def test_causal_mask_is_true_on_and_below_the_diagonal():
    mask = causal_mask(4)
    assert mask.dtype == torch.bool and mask.shape == (4, 4)
    assert torch.equal(mask, torch.tensor([[i >= j for j in range(4)] for i in range(4)]))
    with pytest.raises(ValueError, match="length"):
        causal_mask(0)


def test_fully_masked_row_gives_zero_weights_not_nan():
    _, mha = torch_pair()
    query, keys, values = inputs()
    mask = PADDING.clone()
    mask[2] = False
    context, weights = mha(query, keys, values, mask=mask)
    assert torch.isfinite(context).all() and bool(weights[2].eq(0).all())
    torch.testing.assert_close(context[2], mha.out_proj.bias.expand(4, -1))  # a zero context, then W^O's bias


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_half_precision_stays_finite_with_large_inputs_and_a_masked_row(dtype):
    mha = MultiHeadAttention(12, 3).to(dtype)
    query, keys, values = (100 * t for t in inputs(dtype=dtype))
    mask = PADDING.clone()
    mask[1] = False
    context, weights = mha(query, keys, values, mask=mask)
    assert torch.isfinite(context).all() and torch.isfinite(weights).all()


def test_bad_input_names_the_argument():
    with pytest.raises(ValueError, match="embed_dim must be divisible by num_heads"):
        MultiHeadAttention(10, 3)
    mha = MultiHeadAttention(12, 3, kdim=5)
    query, keys, _ = inputs(kdim=5, vdim=5, dtype=torch.float32)
    with pytest.raises(TypeError, match="mask must be a boolean tensor"):
        mha(query, keys, mask=PADDING.float())
    with pytest.raises(ValueError, match=r"mask must have shape \(batch=3, src_len=6\)"):
        mha(query, keys, mask=PADDING[:, :5])
    with pytest.raises(ValueError, match=r"keys must have shape \(batch, src_len, kdim=5\)"):
        mha(query, query)
    with pytest.raises(ValueError, match="query must have shape"):
        mha(query[0], keys)
    with pytest.raises(ValueError, match="batch size"):
        mha(query[:2], keys)
    with pytest.raises(TypeError, match="query must have the module's dtype"):
        mha(query.double(), keys)


@st.composite
def self_attention_cases(draw):
    num_heads = draw(st.sampled_from([1, 2, 4]))
    embed_dim = num_heads * draw(st.integers(1, 4))
    length = draw(st.integers(2, 7))
    seed = draw(st.integers(0, 2**16))
    permutation = torch.randperm(length, generator=torch.Generator().manual_seed(seed))
    return num_heads, embed_dim, length, seed, permutation


@SETTINGS
@given(self_attention_cases())
def test_self_attention_without_positions_is_permutation_equivariant(case):
    num_heads, embed_dim, length, seed, permutation = case
    torch.manual_seed(seed)
    mha = MultiHeadAttention(embed_dim, num_heads).double()
    states = torch.randn(2, length, embed_dim, dtype=torch.float64)
    context, weights = mha(states, states)
    shuffled_context, shuffled_weights = mha(states[:, permutation], states[:, permutation])
    torch.testing.assert_close(shuffled_context, context[:, permutation], **TOLERANCE[torch.float64])
    torch.testing.assert_close(
        shuffled_weights, weights[:, :, permutation][..., permutation], **TOLERANCE[torch.float64]
    )


@SETTINGS
@given(
    st.integers(1, 6),
    st.integers(1, 5),
    st.integers(1, 4),
    st.integers(0, 2**16),
    st.sampled_from([torch.float32, torch.float64]),
)
def test_padded_keys_do_not_change_the_result(src_len, n_pad, tgt_len, seed, dtype):
    torch.manual_seed(seed)
    mha = MultiHeadAttention(8, 2, kdim=6).to(dtype)
    query = torch.randn(2, tgt_len, 8, dtype=dtype)
    keys = torch.randn(2, src_len, 6, dtype=dtype)
    padded = torch.cat([keys, 1e3 * torch.randn(2, n_pad, 6, dtype=dtype)], dim=1)  # junk where masked
    mask = torch.arange(src_len + n_pad).expand(2, -1) < src_len
    context, weights = mha(query, keys)
    padded_context, padded_weights = mha(query, padded, mask=mask)
    torch.testing.assert_close(padded_context, context, **TOLERANCE[dtype])
    torch.testing.assert_close(padded_weights[..., :src_len], weights, **TOLERANCE[dtype])
    assert bool(padded_weights[..., src_len:].eq(0).all())
