"""Tests of attnbook.checks: each checker passes a correct solution and pinpoints several broken ones."""

from __future__ import annotations

import math

import pytest
import torch

from attnbook import (
    CheckResult,
    check_additive_score,
    check_alignment_matrix,
    check_dot_product_attention,
    check_local_attention,
    check_masked_softmax,
    check_softmax_jacobian,
)

# --- readers' solutions, right and wrong -----------------------------------------------------------------


def additive_score(query, keys, W, U, v):
    return torch.tanh((query @ W.T).unsqueeze(1) + keys @ U.T) @ v


def additive_score_without_tanh(query, keys, W, U, v):
    return ((query @ W.T).unsqueeze(1) + keys @ U.T) @ v


def additive_score_keeping_last_axis(query, keys, W, U, v):
    return (torch.tanh((query @ W.T).unsqueeze(1) + keys @ U.T) @ v).unsqueeze(-1)


def additive_score_with_untransposed_W(query, keys, W, U, v):
    return torch.tanh((query @ W).unsqueeze(1) + keys @ U.T) @ v


def masked_softmax_by_hand(scores, mask):
    masked_scores = scores.masked_fill(~mask, -math.inf)
    row_max = masked_scores.amax(-1, keepdim=True).nan_to_num(neginf=0.0)  # 0 in a fully masked row
    exps = torch.exp(masked_scores - row_max)  # exp(-inf) = 0 at masked positions
    return exps / exps.sum(-1, keepdim=True).clamp_min(1e-30)


def masked_softmax_masking_after_exp(scores, mask):
    row_max = scores.masked_fill(~mask, -math.inf).amax(-1, keepdim=True).nan_to_num(neginf=0.0)
    exps = torch.exp(scores - row_max) * mask  # a masked score far above the row max overflows: inf * 0
    return exps / exps.sum(-1, keepdim=True).clamp_min(1e-30)


def masked_softmax_in_place(scores, mask):
    scores.masked_fill_(~mask, torch.finfo(scores.dtype).min)  # changes the caller's tensor
    return torch.softmax(scores, dim=-1) * mask


def masked_softmax_with_minus_inf(scores, mask):
    return torch.softmax(scores.masked_fill(~mask, -math.inf), dim=-1)


def masked_softmax_without_max_shift(scores, mask):
    exps = torch.exp(scores) * mask
    return exps / exps.sum(-1, keepdim=True).clamp_min(1e-30)


def masked_softmax_ignoring_mask(scores, mask):
    return torch.softmax(scores, dim=-1)


def masked_softmax_with_inverted_mask(scores, mask):
    exps = torch.exp(scores - scores.amax(-1, keepdim=True)) * ~mask
    return exps / exps.sum(-1, keepdim=True).clamp_min(1e-30)


def attend(scores, values, mask):
    allowed = mask.unsqueeze(1)  # (batch, 1, src_len)
    scores = scores.masked_fill(~allowed, torch.finfo(scores.dtype).min)
    weights = torch.softmax(scores, dim=-1).masked_fill(~allowed, 0.0)  # a fully masked row: all 0
    return weights @ values, weights


def dot_product_with_minus_inf(query, keys, values, mask):
    scores = query @ keys.transpose(1, 2) / math.sqrt(keys.shape[-1])
    weights = torch.softmax(scores.masked_fill(~mask.unsqueeze(1), -math.inf), dim=-1)  # NaN when all masked
    return weights @ values, weights


def scaled_dot_product(query, keys, values, mask):
    return attend(query @ keys.transpose(1, 2) / math.sqrt(keys.shape[-1]), values, mask)


def unscaled_dot_product(query, keys, values, mask):
    return attend(query @ keys.transpose(1, 2), values, mask)


def dot_product_returning_weights_first(query, keys, values, mask):
    context, weights = scaled_dot_product(query, keys, values, mask)
    return weights, context


def dot_product_returning_context_only(query, keys, values, mask):
    return scaled_dot_product(query, keys, values, mask)[0]


def softmax_jacobian(attn_weights):
    return torch.diag(attn_weights) - torch.outer(attn_weights, attn_weights)


def softmax_jacobian_without_outer(attn_weights):
    return torch.diag(attn_weights) - attn_weights**2


def softmax_jacobian_diagonal_only(attn_weights):
    return torch.diag(attn_weights * (1 - attn_weights))


def raises_runtime_error(*args):
    raise RuntimeError("mat1 and mat2 shapes cannot be multiplied (2x4 and 3x4)")


# --- correct solutions pass ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("checker", "solution"),
    [
        (check_additive_score, additive_score),
        (check_masked_softmax, masked_softmax_by_hand),
        (check_masked_softmax, masked_softmax_in_place),
        (check_dot_product_attention, scaled_dot_product),
        (check_softmax_jacobian, softmax_jacobian),
    ],
    ids=lambda value: getattr(value, "__name__", ""),
)
def test_correct_solution_passes_with_a_count_of_cases(checker, solution):
    result = checker(solution)
    assert isinstance(result, CheckResult)
    assert result.passed and bool(result)
    assert result.message.startswith("✓ passed: ")
    assert "random cases" in result.message


def test_unscaled_dot_product_passes_only_the_unscaled_check():
    assert check_dot_product_attention(unscaled_dot_product, scaled=False).passed
    assert not check_dot_product_attention(unscaled_dot_product).passed
    assert not check_dot_product_attention(scaled_dot_product, scaled=False).passed


@pytest.mark.parametrize("seed", [1, 2])
def test_other_seeds_give_other_cases_that_a_correct_solution_also_passes(seed):
    assert check_masked_softmax(masked_softmax_by_hand, seed=seed).passed
    assert check_additive_score(additive_score, seed=seed).passed


# --- broken solutions fail with a specific message ---------------------------------------------------


@pytest.mark.parametrize(
    ("checker", "broken", "expected_fragments"),
    [
        (check_additive_score, additive_score_without_tanh, ["case 1 of 4", "scores differs at", "expected"]),
        (
            check_additive_score,
            additive_score_with_untransposed_W,
            ["raised RuntimeError", "case 1 of 4 (query (1, 3), keys (1, 1, 3)"],
        ),
        (
            check_additive_score,
            additive_score_keeping_last_axis,
            ["case 1 of 4", "scores should have shape (1, 1), got (1, 1, 1)"],
        ),
        (
            check_masked_softmax,
            masked_softmax_with_minus_inf,
            ["case 4 of 5", "a fully masked row", "expected 0, got nan", "Max abs difference: inf or nan"],
        ),
        (
            check_masked_softmax,
            masked_softmax_without_max_shift,
            ["case 5 of 5", "scores of size 1e4", "got nan", "unless the row maximum is subtracted"],
        ),
        (
            check_masked_softmax,
            masked_softmax_ignoring_mask,
            ["case 3 of 5", "padding", "attn_weights differs"],
        ),
        (check_masked_softmax, masked_softmax_with_inverted_mask, ["case 1 of 5", "expected 1, got 0"]),
        (check_dot_product_attention, unscaled_dot_product, ["case 1 of 5", "context differs at"]),
        (
            check_dot_product_attention,
            dot_product_with_minus_inf,
            ["case 5 of 5", "a fully masked row", "got nan", "must be 0, not NaN"],
        ),
        (
            check_dot_product_attention,
            dot_product_returning_weights_first,
            ["case 1 of 5", "context should have shape (1, 1, 4), got (1, 1, 3)"],
        ),
        (
            check_dot_product_attention,
            dot_product_returning_context_only,
            ["expected a (context, attn_weights) pair, got Tensor"],
        ),
        (
            check_softmax_jacobian,
            softmax_jacobian_without_outer,
            ["case 2 of 4", "attn_weights (3,)", "jacobian differs"],
        ),
        (check_softmax_jacobian, softmax_jacobian_diagonal_only, ["case 2 of 4", "jacobian differs"]),
        (
            check_softmax_jacobian,
            raises_runtime_error,
            ["raised RuntimeError", "mat1 and mat2 shapes cannot be"],
        ),
    ],
    ids=lambda value: getattr(value, "__name__", ""),
)
def test_broken_solution_fails_naming_the_case_and_the_difference(checker, broken, expected_fragments):
    result = checker(broken)
    assert not result.passed and not bool(result)
    assert result.message.startswith("✗ failed")
    for fragment in expected_fragments:
        assert fragment in result.message, f"{fragment!r} missing from: {result.message}"


def test_value_mismatch_reports_entries_expected_got_and_max_difference():
    message = check_softmax_jacobian(softmax_jacobian_without_outer).message
    assert "differs at 6 of 9 entries" in message
    assert "e.g. [0, 1]: expected " in message
    assert "Max abs difference: " in message and "(tolerance: atol=1e-05, rtol=0.0001)" in message


def test_non_tensor_output_is_reported_as_such():
    result = check_masked_softmax(lambda scores, mask: scores.tolist())
    assert not result.passed
    assert "attn_weights should be a torch.Tensor of shape (1, 1), got list" in result.message


def test_wrong_length_tuple_is_reported_as_such():
    result = check_dot_product_attention(lambda query, keys, values, mask: (query, keys, values))
    assert "expected a (context, attn_weights) pair, got a tuple of length 3" in result.message


# --- the result object and side effects ----------------------------------------------------------------


def test_result_displays_as_its_message_in_a_notebook():
    result = check_softmax_jacobian(softmax_jacobian)
    assert repr(result) == str(result) == result.message


def test_checkers_print_nothing_and_leave_the_global_random_state_alone(capsys):
    rng_state = torch.get_rng_state()
    for checker, solution in [
        (check_additive_score, additive_score_without_tanh),
        (check_masked_softmax, masked_softmax_by_hand),
        (check_dot_product_attention, scaled_dot_product),
        (check_softmax_jacobian, raises_runtime_error),
    ]:
        checker(solution)
    assert capsys.readouterr() == ("", "")
    assert torch.equal(torch.get_rng_state(), rng_state)


def test_checkers_are_deterministic():
    assert check_additive_score(additive_score_without_tanh) == check_additive_score(
        additive_score_without_tanh
    )


def _reader_alignment_matrix(links, tgt_len, src_len):
    matrix = torch.zeros(tgt_len, src_len)
    for i, j in links:
        matrix[i, j] = 1.0
    return matrix / matrix.sum(dim=1, keepdim=True).clamp_min(1.0)


def test_alignment_checker_passes_a_correct_reader_function():
    result = check_alignment_matrix(_reader_alignment_matrix)
    assert result.passed and result.message.startswith("✓ passed: 4 cases")


def test_alignment_checker_reports_unnormalised_rows():
    def unnormalised(links, tgt_len, src_len):
        matrix = torch.zeros(tgt_len, src_len)
        for i, j in links:
            matrix[i, j] = 1.0
        return matrix

    result = check_alignment_matrix(unnormalised)
    assert not result.passed
    assert "case 3 of 4" in result.message and "expected 0.5, got 1" in result.message


def test_alignment_checker_reports_nan_for_unlinked_rows():
    def divides_by_zero(links, tgt_len, src_len):
        matrix = torch.zeros(tgt_len, src_len)
        for i, j in links:
            matrix[i, j] = 1.0
        return matrix / matrix.sum(dim=1, keepdim=True)

    result = check_alignment_matrix(divides_by_zero)
    assert not result.passed and "case 4 of 4" in result.message and "inf or nan" in result.message


def test_alignment_checker_reports_transposed_output_and_exceptions():
    transposed = check_alignment_matrix(lambda links, t, s: _reader_alignment_matrix(links, t, s).T)
    assert not transposed.passed and "should have shape (3, 4), got (4, 3)" in transposed.message
    raising = check_alignment_matrix(lambda links, t, s: 1 / 0)
    assert not raising.passed and "raised ZeroDivisionError on case 1" in raising.message


# --- local attention ---------------------------------------------------------------------------------


def local_weights(scores, mask, centre, half_width, renormalise=False, minus_inf=False):
    positions = torch.arange(scores.shape[-1], dtype=scores.dtype)
    distance = positions - centre.unsqueeze(-1)  # (batch, src_len)
    in_window = mask & (distance.abs() <= half_width)
    if minus_inf:
        weights = torch.softmax(scores.masked_fill(~in_window, -math.inf), dim=-1)
    else:
        weights = masked_softmax_by_hand(scores, in_window)
    weights = weights * torch.exp(-(distance**2) / (2 * (half_width / 2) ** 2))
    return weights / weights.sum(-1, keepdim=True).clamp_min(1e-30) if renormalise else weights


def test_local_attention_checker_passes_the_definition():
    result = check_local_attention(local_weights)
    assert result.passed, result.message
    assert "a window that holds only padding" in result.message


@pytest.mark.parametrize(
    ("broken", "fragments"),
    [
        (lambda s, m, c, d: local_weights(s, m, c, d, minus_inf=True), ["case 5 of 5", "D = 1", "got nan"]),
        (
            lambda s, m, c, d: local_weights(s, m, c, d, renormalise=True),
            ["case 1 of 5", "attn_weights differs"],
        ),
        (lambda s, m, c, d: local_weights(s, m, c, d + 1), ["case 1 of 5", "attn_weights differs"]),
        (lambda s, m, c, d: masked_softmax_by_hand(s, m), ["case 1 of 5", "attn_weights differs"]),
    ],
    ids=["minus-inf", "renormalised", "window-too-wide", "no-window"],
)
def test_local_attention_checker_names_the_failing_case(broken, fragments):
    result = check_local_attention(broken)
    assert not result.passed
    for fragment in fragments:
        assert fragment in result.message, result.message
