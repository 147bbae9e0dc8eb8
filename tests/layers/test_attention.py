"""Tests of attnbook.layers.attention against independent oracles: a naive loop, PyTorch's SDPA, gradcheck."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
import torch
import torch.nn.functional as F
from oracles import (
    MODULE_KINDS,
    W1W2VBahdanau,
    assert_message_names,
    make_attention,
    naive_attention,
    naive_score,
    padding_mask,
    random_inputs,
)

from attnbook import BahdanauAttention, LuongAttention, ScaledDotProductAttention, masked_softmax


@pytest.fixture(autouse=True)
def _seed():
    torch.manual_seed(0)


# --- agreement with independent oracles ---------------------------------------------------------------


@pytest.mark.parametrize("tgt_len", [None, 3])
@pytest.mark.parametrize("kind", MODULE_KINDS)
def test_matches_naive_loop_for_every_score(kind, tgt_len):
    equal_dims = kind in ("luong-dot", "scaled-dot")
    query_dim, key_dim = (6, 6) if equal_dims else (6, 7)
    attn = make_attention(kind, query_dim, key_dim).double()
    query, keys, values = random_inputs(tgt_len=tgt_len, query_dim=query_dim, key_dim=key_dim)
    mask = padding_mask([5, 2, 4], 5)
    context, weights = attn(query, keys, values, mask)
    expected_context, expected_weights = naive_attention(attn, query, keys, values, mask)
    torch.testing.assert_close(weights, expected_weights, rtol=1e-10, atol=1e-12)
    torch.testing.assert_close(context, expected_context, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("kind", MODULE_KINDS)
def test_scores_method_gives_the_unmasked_raw_scores(kind):
    attn = make_attention(kind).double()
    query, keys, _ = random_inputs(tgt_len=2)
    raw_scores = attn.scores(query, keys)
    assert raw_scores.shape == (3, 2, 5)
    expected = torch.tensor(
        [
            [[naive_score(attn, query[b, t], keys[b, j], j) for j in range(5)] for t in range(2)]
            for b in range(3)
        ],
        dtype=torch.float64,
    )
    torch.testing.assert_close(raw_scores, expected)
    torch.testing.assert_close(attn(query, keys)[1], torch.softmax(raw_scores, dim=-1))


def test_scaled_dot_product_matches_torch_sdpa_on_rows_with_an_attendable_position():
    attn = ScaledDotProductAttention()
    query, keys, values = random_inputs(batch=4, tgt_len=3, src_len=6, query_dim=8, key_dim=8, value_dim=5)
    mask = padding_mask([6, 3, 0, 1], 6)
    context, _ = attn(query, keys, values, mask)
    reference = F.scaled_dot_product_attention(query, keys, values, attn_mask=mask.unsqueeze(1))
    has_position = mask.any(dim=-1)
    assert not has_position.all(), "the test needs one fully masked row"
    torch.testing.assert_close(context[has_position], reference[has_position])
    assert torch.equal(context[~has_position], torch.zeros_like(context[~has_position]))


# --- properties of the weights -------------------------------------------------------------------------


@pytest.mark.parametrize("kind", MODULE_KINDS)
def test_weights_are_nonnegative_sum_to_one_and_are_exactly_zero_when_masked(kind):
    attn = make_attention(kind).double()
    query, keys, values = random_inputs(tgt_len=4)
    mask = padding_mask([5, 1, 3], 5)
    _, weights = attn(query, keys, values, mask)
    assert (weights >= 0).all()
    torch.testing.assert_close(weights.sum(-1), torch.ones(3, 4, dtype=torch.float64))
    masked_weights = weights.masked_select(~mask.unsqueeze(1))
    assert masked_weights.numel() > 0
    assert (masked_weights == 0).all()


@pytest.mark.parametrize("kind", MODULE_KINDS)
def test_padded_example_gives_same_context_as_unpadded(kind):
    attn = make_attention(kind).double()
    query, keys, values = random_inputs(batch=1, tgt_len=2, src_len=3)
    context, weights = attn(query, keys, values)
    padded_keys = torch.cat([keys, 100 * torch.randn(1, 4, 6, dtype=torch.float64)], dim=1)
    padded_values = torch.cat([values, 100 * torch.randn(1, 4, 4, dtype=torch.float64)], dim=1)
    padded_context, padded_weights = attn(query, padded_keys, padded_values, padding_mask([3], 7))
    torch.testing.assert_close(padded_context, context)
    torch.testing.assert_close(padded_weights[..., :3], weights)


@pytest.mark.parametrize("kind", [kind for kind in MODULE_KINDS if kind != "luong-location"])
def test_permuting_keys_and_values_permutes_weights_and_keeps_context(kind):
    # The location score depends on positions, not on the keys, so it is deliberately excluded.
    attn = make_attention(kind).double()
    query, keys, values = random_inputs(tgt_len=2, src_len=6)
    mask = padding_mask([6, 4, 2], 6)
    permutation = torch.tensor([3, 0, 5, 1, 4, 2])
    context, weights = attn(query, keys, values, mask)
    permuted_context, permuted_weights = attn(
        query, keys[:, permutation], values[:, permutation], mask[:, permutation]
    )
    torch.testing.assert_close(permuted_weights, weights[..., permutation])
    torch.testing.assert_close(permuted_context, context)


@pytest.mark.parametrize("kind", MODULE_KINDS)
def test_one_step_query_matches_the_same_step_of_an_all_steps_query(kind):
    attn = make_attention(kind).double()
    query, keys, values = random_inputs(tgt_len=3)
    mask = padding_mask([5, 2, 4], 5)
    all_context, all_weights = attn(query, keys, values, mask)
    for step in range(3):
        context, weights = attn(query[:, step], keys, values, mask)
        assert context.shape == (3, 4) and weights.shape == (3, 5)
        torch.testing.assert_close(context, all_context[:, step])
        torch.testing.assert_close(weights, all_weights[:, step])


@pytest.mark.parametrize("kind", MODULE_KINDS)
def test_values_default_to_keys(kind):
    attn = make_attention(kind).double()
    query, keys, _ = random_inputs()
    context, _ = attn(query, keys)
    torch.testing.assert_close(context, attn(query, keys, keys)[0])
    assert context.shape == (3, 6)


# --- gradients ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("masked", [False, True], ids=["no-mask", "mask"])
@pytest.mark.parametrize("kind", MODULE_KINDS)
def test_gradcheck_in_float64_for_inputs_and_parameters(kind, masked):
    attn = make_attention(kind, 3, 3, 2).double()
    query, keys, values = random_inputs(batch=2, tgt_len=2, src_len=3, query_dim=3, key_dim=3, value_dim=2)
    mask = padding_mask([3, 2], 3) if masked else None
    names = [name for name, _ in attn.named_parameters()]
    parameters = [parameter.detach().clone() for _, parameter in attn.named_parameters()]

    def attend(query, keys, values, *parameter_values):
        state = dict(zip(names, parameter_values, strict=True))
        return torch.func.functional_call(attn, state, (query, keys, values, mask))

    inputs = tuple(tensor.requires_grad_() for tensor in (query, keys, values, *parameters))
    assert torch.autograd.gradcheck(attend, inputs)


@pytest.mark.parametrize("kind", MODULE_KINDS)
def test_fully_masked_row_gives_zero_context_not_nan(kind):
    attn = make_attention(kind).double()
    query, keys, values = random_inputs(tgt_len=2)
    query.requires_grad_()
    mask = padding_mask([5, 0, 3], 5)
    context, weights = attn(query, keys, values, mask)
    assert torch.isfinite(context).all() and torch.isfinite(weights).all()
    assert torch.equal(context[1], torch.zeros_like(context[1]))
    assert torch.equal(weights[1], torch.zeros_like(weights[1]))
    context.sum().backward()
    assert torch.isfinite(query.grad).all()


def test_scores_of_size_1e4_give_finite_weights():
    scores = torch.tensor([[1e4, -1e4, 5e3, 0.0], [-1e4, -1e4, -1e4, -1e4]])
    weights = masked_softmax(scores, padding_mask([4, 3], 4))
    assert torch.isfinite(weights).all()
    torch.testing.assert_close(weights[0], torch.tensor([1.0, 0.0, 0.0, 0.0]))
    torch.testing.assert_close(weights[1], torch.tensor([1 / 3, 1 / 3, 1 / 3, 0.0]))


def test_dot_scores_of_size_1e4_through_a_module_give_finite_weights():
    attn = LuongAttention(4, 4, score="dot")
    query = torch.full((1, 4), 50.0)
    keys = torch.tensor([[[50.0, 50.0, 50.0, 50.0], [-50.0, -50.0, -50.0, -50.0]]])
    assert attn.scores(query, keys).abs().max() == 1e4
    context, weights = attn(query, keys)
    assert torch.isfinite(context).all()
    torch.testing.assert_close(weights, torch.tensor([[1.0, 0.0]]))


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("kind", MODULE_KINDS)
def test_low_precision_inputs_give_finite_results_close_to_float32(kind, dtype):
    attn = make_attention(kind)
    query, keys, values = random_inputs(tgt_len=2, dtype=torch.float32)
    mask = padding_mask([5, 0, 2], 5)
    context32, weights32 = attn(query, keys, values, mask)
    low = attn.to(dtype)
    context, weights = low(query.to(dtype), keys.to(dtype), values.to(dtype), mask)
    assert context.dtype == dtype and weights.dtype == dtype
    assert torch.isfinite(context).all() and torch.isfinite(weights).all()
    assert (weights.masked_select(~mask.unsqueeze(1)) == 0).all()
    torch.testing.assert_close(weights.float(), weights32, atol=0.05, rtol=0.05)
    torch.testing.assert_close(context.float(), context32, atol=0.1, rtol=0.1)


# --- masked_softmax ----------------------------------------------------------------------------------------


def test_masked_softmax_without_mask_equals_softmax():
    scores = torch.randn(3, 4, 5)
    torch.testing.assert_close(masked_softmax(scores), torch.softmax(scores, dim=-1))
    torch.testing.assert_close(masked_softmax(scores, dim=1), torch.softmax(scores, dim=1))


def test_masked_softmax_equals_softmax_over_the_unmasked_positions_only():
    scores = torch.randn(6, dtype=torch.float64)
    keep = torch.tensor([True, False, True, True, False, True])
    weights = masked_softmax(scores, keep)
    torch.testing.assert_close(weights[keep], torch.softmax(scores[keep], dim=0))
    assert (weights[~keep] == 0).all()


def test_masked_softmax_broadcasts_the_mask_and_honours_dim():
    scores = torch.randn(2, 3, 4)
    mask = padding_mask([4, 2], 4).unsqueeze(1)  # (batch, 1, src_len)
    weights = masked_softmax(scores, mask)
    assert (weights[1, :, 2:] == 0).all()
    torch.testing.assert_close(weights.sum(-1), torch.ones(2, 3))
    column_mask = torch.tensor([True, True, False]).view(1, 3, 1)
    torch.testing.assert_close(masked_softmax(scores, column_mask, dim=1).sum(1), torch.ones(2, 4))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_masked_softmax_handles_real_scores_below_any_fixed_fill_value(dtype):
    # A fill of -1e9 would outweigh these real scores, and the row would sum to 0 after zeroing.
    scores = torch.tensor([[-1e12, -1e12 + 2**20, 0.0]], dtype=dtype)
    weights = masked_softmax(scores, torch.tensor([[True, True, False]]))
    torch.testing.assert_close(weights, torch.tensor([[0.0, 1.0, 0.0]], dtype=dtype))


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32, torch.float64])
def test_masked_softmax_fill_value_is_valid_for_the_dtype(dtype):
    scores = torch.tensor([[-60000.0, 3.0, 1.0], [2.0, 1.0, 0.0]]).to(dtype)
    mask = torch.tensor([[True, False, True], [False, False, False]])
    weights = masked_softmax(scores, mask)
    assert weights.dtype == dtype
    assert torch.isfinite(weights).all()
    assert weights[0, 2] == 1 and weights[0, 1] == 0 and (weights[1] == 0).all()


# --- Bahdanau: weights named W1, W2, v and precomputed keys ------------------------------------------


def test_bahdanau_has_exactly_three_bias_free_parameters():
    attn = BahdanauAttention(query_dim=7, key_dim=9, attn_dim=4)
    shapes = {name: tuple(parameter.shape) for name, parameter in attn.named_parameters()}
    assert shapes == {"query_proj.weight": (4, 7), "key_proj.weight": (4, 9), "v.weight": (1, 4)}


def test_w1_w2_v_weights_load_and_give_identical_outputs():
    reference = W1W2VBahdanau(enc_dim=9, dec_dim=7, attn_dim=4)
    decoder_state, encoder_outputs = torch.randn(3, 7), torch.randn(3, 5, 9)
    expected_context, expected_weights = reference(decoder_state, encoder_outputs)
    attn = BahdanauAttention(query_dim=7, key_dim=9, attn_dim=4)
    attn.load_w1_w2_v_state_dict(reference.state_dict())
    for loaded in (attn, BahdanauAttention.from_w1_w2_v_state_dict(reference.state_dict())):
        context, weights = loaded(decoder_state, encoder_outputs)
        torch.testing.assert_close(context, expected_context, rtol=0, atol=0)
        torch.testing.assert_close(weights, expected_weights, rtol=0, atol=0)


def test_w1_w2_v_state_dict_with_a_missing_or_misshapen_weight_is_rejected():
    attn = BahdanauAttention(query_dim=7, key_dim=9, attn_dim=4)
    state = W1W2VBahdanau(enc_dim=9, dec_dim=7, attn_dim=4).state_dict()
    with pytest.raises(KeyError, match=re.escape("'W2.weight'")):
        attn.load_w1_w2_v_state_dict({"W1.weight": state["W1.weight"], "v.weight": state["v.weight"]})
    swapped = W1W2VBahdanau(enc_dim=7, dec_dim=9, attn_dim=4).state_dict()
    with pytest.raises(ValueError) as error:
        attn.load_w1_w2_v_state_dict(swapped)
    assert_message_names(error, "W1.weight", "(4, 7)", "(4, 9)")


@pytest.mark.parametrize("tgt_len", [None, 2])
def test_bahdanau_projected_keys_computed_once_give_the_same_result_at_every_step(tgt_len):
    attn = BahdanauAttention(query_dim=6, key_dim=7, attn_dim=5)
    query, keys, values = random_inputs(tgt_len=tgt_len, query_dim=6, key_dim=7, dtype=torch.float32)
    mask = padding_mask([5, 3, 1], 5)
    projected = attn.project_keys(keys)
    assert projected.shape == (3, 5, 5)
    expected = attn(query, keys, values, mask)
    reused = attn(query, keys, values, mask, projected_keys=projected)
    for got, want in zip(reused, expected, strict=True):
        torch.testing.assert_close(got, want, rtol=0, atol=0)
    torch.testing.assert_close(attn.scores(query, keys, projected_keys=projected), attn.scores(query, keys))


def test_bahdanau_projected_keys_of_the_wrong_shape_are_rejected():
    attn = BahdanauAttention(query_dim=6, key_dim=7, attn_dim=5)
    query, keys, _ = random_inputs(query_dim=6, key_dim=7, dtype=torch.float32)
    with pytest.raises(ValueError) as error:
        attn(query, keys, projected_keys=torch.randn(3, 4, 5))
    assert_message_names(error, "projected_keys", "batch=3, src_len=5, attn_dim=5", "(3, 4, 5)")
    with pytest.raises(ValueError) as error:
        attn.project_keys(keys[:, :, 0])
    assert_message_names(error, "keys", "key_dim=7", "(3, 5)")


@pytest.mark.parametrize("tgt_len", [None, 2])
def test_luong_general_projected_keys_computed_once_give_the_same_result_bit_for_bit(tgt_len):
    attn = LuongAttention(query_dim=6, key_dim=7, score="general")
    query, keys, values = random_inputs(tgt_len=tgt_len, query_dim=6, key_dim=7, dtype=torch.float32)
    mask = padding_mask([5, 3, 1], 5)
    projected = attn.project_keys(keys)
    assert projected.shape == (3, 5, 6)  # (batch, src_len, query_dim): W_a h_s
    expected = attn(query, keys, values, mask)
    reused = attn(query, keys, values, mask, projected_keys=projected)
    for got, want in zip(reused, expected, strict=True):
        torch.testing.assert_close(got, want, rtol=0, atol=0)


def test_luong_projected_keys_of_the_wrong_shape_or_for_another_score_are_rejected():
    attn = LuongAttention(query_dim=6, key_dim=7, score="general")
    query, keys, _ = random_inputs(query_dim=6, key_dim=7, dtype=torch.float32)
    with pytest.raises(ValueError) as error:
        attn(query, keys, projected_keys=keys)  # (3, 5, 7): the keys themselves, not W_a h_s
    assert_message_names(error, "projected_keys", "batch=3, src_len=5, query_dim=6", "(3, 5, 7)")
    concat = LuongAttention(query_dim=6, key_dim=7, score="concat")
    with pytest.raises(ValueError) as error:
        concat.project_keys(keys)
    assert_message_names(error, "project_keys", "general", "'concat'")


def test_bahdanau_projected_keys_of_another_dtype_are_a_clear_type_error():
    attn = BahdanauAttention(query_dim=6, key_dim=7, attn_dim=5)
    query, keys, _ = random_inputs(query_dim=6, key_dim=7, dtype=torch.float32)
    projected = attn.project_keys(keys).double()
    with pytest.raises(TypeError) as error:
        attn(query, keys, projected_keys=projected)
    assert_message_names(error, "projected_keys", "torch.float32", "torch.float64")


# --- Luong's four scores -----------------------------------------------------------------------------------


def test_luong_dot_with_unequal_dims_is_rejected_at_construction_naming_both_dims():
    with pytest.raises(ValueError, match=re.escape("query_dim=8 and key_dim=16")):
        LuongAttention(8, 16, score="dot")


def test_luong_unknown_score_is_rejected():
    with pytest.raises(ValueError) as error:
        LuongAttention(8, 8, score="additive")
    assert_message_names(error, "score", "'dot', 'general', 'concat', 'location'", "'additive'")


def test_luong_general_and_concat_have_the_documented_parameters():
    general = LuongAttention(8, 16, score="general")
    assert {name: tuple(p.shape) for name, p in general.named_parameters()} == {"key_proj.weight": (8, 16)}
    concat = LuongAttention(8, 16, score="concat")
    assert concat.attn_dim == 16  # defaults to key_dim
    shapes = {name: tuple(p.shape) for name, p in concat.named_parameters()}
    assert shapes == {"concat_proj.weight": (16, 24), "v.weight": (1, 16)}
    assert list(LuongAttention(8, 8, score="dot").parameters()) == []


def test_luong_location_needs_max_src_len():
    with pytest.raises(ValueError, match="max_src_len"):
        LuongAttention(8, 8, score="location")


def test_luong_location_cuts_scores_to_src_len_and_rejects_longer_sources():
    attn = LuongAttention(6, 4, score="location", max_src_len=7).double()
    query = torch.randn(2, 6, dtype=torch.float64)
    keys = torch.randn(2, 3, 4, dtype=torch.float64)
    torch.testing.assert_close(attn.scores(query, keys), query @ attn.location_proj.weight[:3].T)
    _, weights = attn(query, keys)
    assert weights.shape == (2, 3)
    with pytest.raises(ValueError) as error:
        attn(query, torch.randn(2, 8, 4, dtype=torch.float64))
    assert_message_names(error, "src_len=8", "max_src_len=7")


# --- clear errors for bad input ----------------------------------------------------------------------------


def bad(name, kind, query_shape, keys_shape, values_shape, mask_shape, *facts):
    return pytest.param(kind, query_shape, keys_shape, values_shape, mask_shape, facts, id=name)


# Each bad call, with the key facts its message must name: the argument, what was expected, what came.
BAD_SHAPES = [
    bad("batch mismatch", "bahdanau", (2, 6), (3, 5, 7), None, None, "query", "keys", "batch=2", "batch=3"),
    bad("query rank 4", "bahdanau", (3, 2, 1, 6), (3, 5, 7), None, None, "query", "query_dim=6", "(3, 2, 1, 6)"),
    bad("query feature size", "luong-general", (3, 8), (3, 5, 7), None, None, "query", "query_dim=6", "(3, 8)"),
    bad("keys rank 2", "luong-concat", (3, 6), (3, 7), None, None, "keys", "key_dim=7", "(3, 7)"),
    bad("keys feature size", "bahdanau", (3, 6), (3, 5, 16), None, None, "keys", "key_dim=7", "(3, 5, 16)"),
    bad("scaled-dot unequal sizes", "scaled-dot", (3, 6), (3, 5, 7), None, None,
        "query", "query_dim=7", "query_dim == key_dim", "(3, 6)"),
    bad("values src_len", "luong-location", (3, 6), (3, 5, 7), (3, 4, 2), None,
        "values", "batch=3, src_len=5", "(3, 4, 2)"),
    bad("values batch", "bahdanau", (3, 6), (3, 5, 7), (2, 5, 2), None, "values", "batch=3, src_len=5", "(2, 5, 2)"),
    bad("mask shape", "bahdanau", (3, 6), (3, 5, 7), None, (3, 4), "mask", "batch=3, src_len=5", "(3, 4)"),
    bad("mask rank", "luong-dot", (3, 7), (3, 5, 7), None, (3, 1, 5), "mask", "batch=3, src_len=5", "(3, 1, 5)"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("kind", "query_shape", "keys_shape", "values_shape", "mask_shape", "facts"), BAD_SHAPES
)
def test_bad_shapes_raise_an_error_naming_the_argument_and_both_shapes(
    kind, query_shape, keys_shape, values_shape, mask_shape, facts
):
    query_dim, key_dim = (7, 7) if kind in ("luong-dot", "scaled-dot") else (6, 7)
    attn = make_attention(kind, query_dim, key_dim)
    values = None if values_shape is None else torch.randn(values_shape)
    mask = None if mask_shape is None else torch.ones(mask_shape, dtype=torch.bool)
    with pytest.raises(ValueError) as error:
        attn(torch.randn(query_shape), torch.randn(keys_shape), values, mask)
    assert_message_names(error, *facts)


@pytest.mark.parametrize("kind", MODULE_KINDS)
def test_float_mask_is_rejected_with_its_dtype_and_the_polarity(kind):
    attn = make_attention(kind)
    query, keys, _ = random_inputs(dtype=torch.float32)
    with pytest.raises(TypeError) as error:
        attn(query, keys, mask=torch.ones(3, 5))
    assert_message_names(error, "mask", "boolean", "True = may attend", "torch.float32")
    with pytest.raises(TypeError) as error:
        attn(query, keys, mask=[[True] * 5] * 3)
    assert_message_names(error, "mask", "boolean", "list")


def test_masked_softmax_rejects_a_non_boolean_or_non_broadcastable_mask():
    scores = torch.randn(2, 5)
    with pytest.raises(TypeError) as error:
        masked_softmax(scores, torch.ones(2, 5, dtype=torch.long))
    assert_message_names(error, "mask", "boolean", "torch.int64")
    for bad_shape in [(2, 4), (3, 2, 5), (5, 2)]:
        with pytest.raises(ValueError) as error:
            masked_softmax(scores, torch.ones(bad_shape, dtype=torch.bool))
        assert_message_names(error, "mask", "broadcastable", "(2, 5)", str(bad_shape))
    with pytest.raises(TypeError) as error:
        masked_softmax(torch.ones(2, 5, dtype=torch.long))
    assert_message_names(error, "scores", "floating", "torch.int64")


def test_masked_softmax_accepts_every_mask_that_broadcasts_to_the_scores():
    scores = torch.randn(2, 3, 4)
    for shape in [(4,), (1, 4), (3, 4), (2, 1, 4), (2, 3, 1), (1, 1, 1), (2, 3, 4)]:
        assert masked_softmax(scores, torch.ones(shape, dtype=torch.bool)).shape == (2, 3, 4)


def test_non_tensor_integer_and_mismatched_dtype_inputs_are_rejected():
    attn = BahdanauAttention(6, 7, 5)
    query, keys, _ = random_inputs(query_dim=6, key_dim=7, dtype=torch.float32)
    with pytest.raises(TypeError) as error:
        attn(query.tolist(), keys)
    assert_message_names(error, "query", "torch.Tensor", "list")
    with pytest.raises(TypeError) as error:
        attn(query, keys.long())
    assert_message_names(error, "keys", "floating", "torch.int64")
    with pytest.raises(TypeError) as error:
        attn(query.double(), keys.double())
    assert_message_names(error, "query", "torch.float32", "module's parameters", "torch.float64")
    with pytest.raises(TypeError) as error:
        ScaledDotProductAttention()(query[:, :5], keys[..., :5], keys.double())
    assert_message_names(error, "values", "torch.float32", "query", "torch.float64")


def test_a_module_converted_after_a_call_checks_against_its_new_dtype():
    attn = BahdanauAttention(6, 7, 5)
    query, keys, _ = random_inputs(query_dim=6, key_dim=7, dtype=torch.float32)
    attn(query, keys)
    attn.double()
    assert attn(query.double(), keys.double())[0].dtype == torch.float64
    with pytest.raises(TypeError) as error:
        attn(query, keys)
    assert_message_names(error, "query", "torch.float64", "torch.float32")


@pytest.mark.parametrize("kind", [kind for kind in MODULE_KINDS if kind not in ("bahdanau", "luong-general")])
def test_a_score_argument_the_module_does_not_take_is_a_type_error_naming_it(kind):
    attn = make_attention(kind)
    query, keys, _ = random_inputs(dtype=torch.float32)
    with pytest.raises(TypeError) as error:
        attn(query, keys, projected_keys=keys)
    assert_message_names(error, "projected_keys")


def test_the_check_overhead_measurement_reports_medians_and_ratios_that_agree(repo_root):
    """The script checks that the checked and the bare call give identical results (it fails otherwise),
    then prints three medians and two ratios; the ratios must be those of the medians it printed."""
    script = repo_root / "tools" / "attention_check_overhead.py"
    result = subprocess.run(
        [sys.executable, str(script), "--runs", "3", "--steps", "2"],
        capture_output=True,
        text=True,
        check=True,
    )
    times, ratios = result.stdout.strip().splitlines()
    header, _, medians = times.partition(": ")
    assert header == "cpu, per step (medians of 3 runs of 2 steps)"
    micros = {}
    for part in medians.split(", "):
        name, value, unit = part.rsplit(" ", 2)
        micros[name] = float(value)
        assert unit == "us" and micros[name] > 0, part
    assert list(micros) == ["checked", "bare", "checks alone"]
    found = re.fullmatch(r"checked / bare - 1: (-?[\d.]+)%; checks alone / bare: ([\d.]+)%", ratios)
    assert found, ratios
    checked, bare, alone = micros["checked"], micros["bare"], micros["checks alone"]
    # the times are printed to 0.05 us, the ratios to 0.05 percentage points
    slack = 100 * 0.05 / bare * (1 + max(checked, alone) / bare) + 0.05
    assert float(found[1]) == pytest.approx(100 * (checked / bare - 1), abs=slack)
    assert float(found[2]) == pytest.approx(100 * alone / bare, abs=slack)
