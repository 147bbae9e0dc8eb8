"""Property-based tests of attnbook.layers.attention: random shapes, masks and dtypes, checked by hypothesis."""

from __future__ import annotations

from dataclasses import dataclass

import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles import MODULE_KINDS, make_attention, naive_attention

from attnbook import masked_softmax

SETTINGS = settings(max_examples=40, deadline=None, derandomize=True)
TOLERANCE = {torch.float32: {"rtol": 1e-4, "atol": 1e-5}, torch.float64: {"rtol": 1e-10, "atol": 1e-12}}


@dataclass
class Example:
    kind: str
    query: torch.Tensor  # (batch, query_dim) or (batch, tgt_len, query_dim)
    keys: torch.Tensor  # (batch, src_len, key_dim)
    values: torch.Tensor  # (batch, src_len, value_dim)
    mask: torch.Tensor | None  # (batch, src_len), True = may attend
    attn: torch.nn.Module

    @property
    def step_mask(self) -> torch.Tensor:
        """The mask broadcast to the weights' shape, all True when there is no mask."""
        batch, src_len = self.keys.shape[:2]
        mask = torch.ones(batch, src_len, dtype=torch.bool) if self.mask is None else self.mask
        return mask if self.query.dim() == 2 else mask.unsqueeze(1).expand(-1, self.query.shape[1], -1)


@st.composite
def examples(draw) -> Example:
    kind = draw(st.sampled_from(MODULE_KINDS))
    dtype = draw(st.sampled_from([torch.float32, torch.float64]))
    batch = draw(st.integers(1, 4))
    src_len = draw(st.integers(1, 9))
    tgt_len = draw(st.none() | st.integers(1, 4))
    query_dim = draw(st.integers(1, 16))
    key_dim = query_dim if kind in ("luong-dot", "scaled-dot") else draw(st.integers(1, 16))
    value_dim = draw(st.integers(1, 16))
    attn_dim = draw(st.integers(1, 16))
    mask_cells = st.lists(st.booleans(), min_size=batch * src_len, max_size=batch * src_len)
    mask_values = draw(st.none() | mask_cells)
    generator = torch.Generator().manual_seed(draw(st.integers(0, 2**32 - 1)))
    attn = make_attention(kind, query_dim, key_dim, attn_dim).to(dtype)
    with torch.no_grad():  # weights drawn from the example's own generator, not the global one
        for parameter in attn.parameters():
            parameter.copy_(torch.randn(parameter.shape, generator=generator) / parameter.shape[-1] ** 0.5)
    query_shape = (batch, query_dim) if tgt_len is None else (batch, tgt_len, query_dim)
    return Example(
        kind=kind,
        query=torch.randn(query_shape, generator=generator, dtype=dtype),
        keys=torch.randn(batch, src_len, key_dim, generator=generator, dtype=dtype),
        values=torch.randn(batch, src_len, value_dim, generator=generator, dtype=dtype),
        mask=None if mask_values is None else torch.tensor(mask_values).view(batch, src_len),
        attn=attn,
    )


def run(example: Example) -> tuple[torch.Tensor, torch.Tensor]:
    with torch.no_grad():
        return example.attn(example.query, example.keys, example.values, example.mask)


@SETTINGS
@given(examples())
def test_outputs_have_the_documented_shapes(example):
    context, weights = run(example)
    leading = tuple(example.query.shape[:-1])  # (batch,) or (batch, tgt_len)
    assert tuple(context.shape) == (*leading, example.values.shape[-1])
    assert tuple(weights.shape) == (*leading, example.keys.shape[1])
    assert context.dtype == weights.dtype == example.query.dtype


@SETTINGS
@given(examples())
def test_weights_sum_to_one_over_unmasked_positions_and_are_zero_elsewhere(example):
    _, weights = run(example)
    step_mask = example.step_mask
    assert (weights >= 0).all()
    assert (weights[~step_mask] == 0).all()
    row_has_position = step_mask.any(-1)
    expected_sums = row_has_position.to(weights.dtype)
    torch.testing.assert_close(weights.sum(-1), expected_sums, **TOLERANCE[weights.dtype])


@SETTINGS
@given(examples())
def test_matches_the_naive_loop(example):
    context, weights = run(example)
    expected_context, expected_weights = naive_attention(
        example.attn, example.query, example.keys, example.values, example.mask
    )
    tolerance = TOLERANCE[weights.dtype]
    torch.testing.assert_close(weights.double(), expected_weights, **tolerance)
    torch.testing.assert_close(context.double(), expected_context, **tolerance)


@SETTINGS
@given(
    shape=st.lists(st.integers(1, 6), min_size=1, max_size=3),
    seed=st.integers(0, 2**32 - 1),
    scale=st.sampled_from([1.0, 100.0, 1e4]),
    dtype=st.sampled_from([torch.float16, torch.bfloat16, torch.float32, torch.float64]),
    data=st.data(),
)
def test_masked_softmax_is_finite_and_normalised_for_any_shape_scale_and_dtype(
    shape, seed, scale, dtype, data
):
    generator = torch.Generator().manual_seed(seed)
    scores = (scale * torch.randn(shape, generator=generator)).to(dtype)
    mask_cells = data.draw(st.lists(st.booleans(), min_size=scores.numel(), max_size=scores.numel()))
    mask = torch.tensor(mask_cells).view(shape)
    weights = masked_softmax(scores, mask)
    assert weights.dtype == dtype and torch.isfinite(weights).all()
    assert (weights[~mask] == 0).all() and (weights >= 0).all()
    expected_sums = mask.any(-1).float()
    torch.testing.assert_close(weights.float().sum(-1), expected_sums, atol=1e-2, rtol=0)
