"""Tests of attnbook.checks: each checker passes a correct solution and pinpoints several broken ones."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F

from attnbook import (
    CheckResult,
    check_additive_score,
    check_alignment_matrix,
    check_dot_product_attention,
    check_local_attention,
    check_masked_softmax,
    check_softmax_jacobian,
)
from attnbook.checks import (
    check_attention_flops,
    check_decoder_mask,
    check_masked_cross_entropy,
    check_multihead_attention,
    check_split_by_english,
)
from attnbook.checks.runner import Case, Slip, run_cases
from attnbook.layers import causal_mask

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


def softmax_jacobian_off_by_identity(attn_weights):
    return softmax_jacobian(attn_weights) + 0.5


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
        (
            check_additive_score,
            additive_score_with_untransposed_W,
            ["case 1 of 4 (query (1, 3), keys (1, 1, 3)", "your function raised RuntimeError"],
        ),
        (
            check_additive_score,
            additive_score_keeping_last_axis,
            ["case 1 of 4", "scores should have shape (1, 1), got (1, 1, 1)"],
        ),
        (
            check_masked_softmax,
            masked_softmax_without_max_shift,
            ["case 5 of 5", "scores of size 1e4", "got nan", "unless the row maximum is subtracted"],
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
        (check_softmax_jacobian, softmax_jacobian_off_by_identity, ["case 1 of 4", "jacobian differs"]),
        (
            check_softmax_jacobian,
            raises_runtime_error,
            ["case 1 of 4 (attn_weights (1,))", "raised RuntimeError: mat1 and mat2 shapes cannot be"],
        ),
    ],
    ids=lambda value: getattr(value, "__name__", ""),
)
def test_broken_solution_fails_naming_the_case_and_the_difference(checker, broken, expected_fragments):
    result = checker(broken)
    assert not result.passed and not bool(result)
    assert result.message.startswith("✗ failed on case ")
    for fragment in expected_fragments:
        assert fragment in result.message, f"{fragment!r} missing from: {result.message}"


def test_value_mismatch_reports_entries_expected_got_and_max_difference():
    message = check_softmax_jacobian(softmax_jacobian_off_by_identity).message
    assert "case 1 of 4" in message and "differs at 1 of 1 entries" in message
    assert "e.g. [0, 0]: expected 0, got 0.5" in message
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


def test_every_checker_prints_nothing_and_leaves_the_global_random_state_alone(capsys):
    rng_state = torch.get_rng_state()
    for checker, solution in [
        (check_additive_score, additive_score_without_tanh),
        (check_masked_softmax, masked_softmax_by_hand),
        (check_dot_product_attention, scaled_dot_product),
        (check_softmax_jacobian, raises_runtime_error),
        (check_local_attention, local_weights),
        (check_alignment_matrix, _reader_alignment_matrix),
        (check_attention_flops, flops),
        (check_split_by_english, raises_runtime_error),
        (check_masked_cross_entropy, masked_cross_entropy),
        (check_decoder_mask, decoder_mask),
        (check_multihead_attention, multihead),
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
    assert result.passed and result.message.startswith("✓ passed: 4 cases agree")


# --- local attention ---------------------------------------------------------------------------------


def local_weights(
    scores, mask, centre, half_width, renormalise=False, minus_inf=False, sigma=None, strict=False, gauss=True
):
    positions = torch.arange(scores.shape[-1], dtype=scores.dtype)
    distance = positions - centre.unsqueeze(-1)  # (batch, src_len)
    in_window = mask & ((distance.abs() < half_width) if strict else (distance.abs() <= half_width))
    if minus_inf:
        weights = torch.softmax(scores.masked_fill(~in_window, -math.inf), dim=-1)
    else:
        weights = masked_softmax_by_hand(scores, in_window)
    sigma = half_width / 2 if sigma is None else sigma
    if gauss:
        weights = weights * torch.exp(-(distance**2) / (2 * sigma**2))
    return weights / weights.sum(-1, keepdim=True).clamp_min(1e-30) if renormalise else weights


def test_local_attention_checker_passes_the_definition():
    result = check_local_attention(local_weights)
    assert result.passed, result.message
    assert "a window that holds only padding" in result.message


@pytest.mark.parametrize(
    ("broken", "fragments"),
    [
        (lambda s, m, c, d: local_weights(s, m, c, d + 1), ["case 1 of 5", "attn_weights differs"]),
        (lambda s, m, c, d: masked_softmax_by_hand(s, m), ["case 1 of 5", "attn_weights differs"]),
    ],
    ids=["window-too-wide", "no-window"],
)
def test_local_attention_checker_names_the_failing_case(broken, fragments):
    result = check_local_attention(broken)
    assert not result.passed
    for fragment in fragments:
        assert fragment in result.message, result.message


# --- the other checkers' readers, right ------------------------------------------------------------------


def flops(batch, tgt_len, src_len, key_dim, value_dim):
    return 2 * batch * tgt_len * src_len * (key_dim + value_dim)


def masked_cross_entropy(logits, tgt_out, pad_id):
    real = tgt_out != pad_id
    log_probs = torch.log_softmax(logits, dim=-1).gather(-1, tgt_out.unsqueeze(-1)).squeeze(-1)
    return -(log_probs * real).sum() / real.sum()


def decoder_mask(tgt_mask):
    return tgt_mask[:, None, :] & causal_mask(tgt_mask.shape[1])


def multihead(
    mha,
    query,
    keys,
    values,
    mask,
    scale=None,
    dim=-1,
    use_mask=True,
    interleave=False,
    project=True,
    mean=False,
):
    """Multi-head attention head by head, with the slips the checker names as options."""
    heads, head_dim = mha.num_heads, mha.head_dim
    q, k, v = mha.query_proj(query), mha.key_proj(keys), mha.value_proj(values)
    contexts, weights = [], []
    for head in range(heads):
        part = slice(head, None, heads) if interleave else slice(head * head_dim, (head + 1) * head_dim)
        scores = q[..., part] @ k[..., part].transpose(1, 2) / (scale or math.sqrt(head_dim))
        if use_mask:
            scores = scores.masked_fill(~mask[:, None, :], torch.finfo(scores.dtype).min)
        head_weights = torch.softmax(scores, dim=dim)
        if use_mask:
            head_weights = head_weights.masked_fill(~mask[:, None, :], 0.0)
        contexts.append(head_weights @ v[..., part])
        weights.append(head_weights)
    # interleaved: feature f of head h goes back to f * heads + h
    joined = torch.stack(contexts, dim=-1).flatten(2) if interleave else torch.cat(contexts, dim=-1)
    stacked = torch.stack(weights, dim=1)
    return (mha.out_proj(joined) if project else joined), (stacked.mean(dim=1) if mean else stacked)


@pytest.mark.parametrize(
    ("checker", "solution"),
    [
        (check_local_attention, local_weights),
        (check_alignment_matrix, _reader_alignment_matrix),
        (check_attention_flops, flops),
        (check_masked_cross_entropy, masked_cross_entropy),
        (check_decoder_mask, decoder_mask),
        (check_multihead_attention, multihead),
    ],
    ids=lambda value: getattr(value, "__name__", ""),
)
def test_every_other_checker_passes_a_right_answer_in_the_one_message_style(checker, solution):
    result = checker(solution)
    assert result.passed, result.message
    assert result.message.startswith("✓ passed: ") and " cases agree with " in result.message


def test_an_exception_in_the_readers_function_is_a_failed_line_naming_the_case_for_every_checker():
    def crashes(*args):
        raise NotImplementedError("write me")

    for checker in [
        check_additive_score,
        check_masked_softmax,
        check_dot_product_attention,
        check_softmax_jacobian,
        check_local_attention,
        check_alignment_matrix,
        check_attention_flops,
        check_split_by_english,
        check_masked_cross_entropy,
        check_decoder_mask,
        check_multihead_attention,
    ]:
        message = checker(crashes).message
        assert message.startswith("✗ failed on case 1 of "), message
        assert message.endswith("your function raised NotImplementedError: write me"), message


# --- classic slips are named -----------------------------------------------------------------------------


def _ones_per_link(links, tgt_len, src_len):
    matrix = torch.zeros(tgt_len, src_len)
    for i, j in links:
        matrix[i, j] = 1.0
    return matrix


def _wrong_loss(kind):
    def loss(logits, tgt_out, pad_id):
        if kind == "padding counted":
            return F.cross_entropy(logits.flatten(0, 1), tgt_out.flatten())
        if kind == "pad id 0":
            return F.cross_entropy(logits.flatten(0, 1), tgt_out.flatten(), ignore_index=0)
        real = tgt_out != pad_id
        log_probs = torch.log_softmax(logits, dim=-1).gather(-1, tgt_out.unsqueeze(-1)).squeeze(-1)
        total = -(log_probs * real).sum()
        if kind == "every position":
            return total / real.numel()
        if kind == "sum":
            return total
        if kind == "sentence means":
            return (-(log_probs * real).sum(dim=1) / real.sum(dim=1)).mean()
        if kind == "detached":
            return (total / real.sum()).detach()
        assert kind == "gradient at padding"
        return total / real.sum() + 1e-12 * logits[~real].sum()  # the same value, a gradient at padding

    return loss


def _dot_product(scale=True, divide_by_d=False, dim=-1, use_mask=True, invert=False):
    def attention(query, keys, values, mask):
        d = keys.shape[-1]
        scores = query @ keys.transpose(1, 2)
        if divide_by_d:
            scores = scores / d
        elif scale:
            scores = scores / math.sqrt(d)
        allowed = (~mask if invert else mask)[:, None, :]
        if not use_mask:
            allowed = torch.ones_like(allowed)
        weights = torch.softmax(scores.masked_fill(~allowed, torch.finfo(scores.dtype).min), dim=dim)
        weights = weights.masked_fill(~allowed, 0.0)
        return weights @ values, weights

    return attention


def _masked_softmax_over_batch(scores, mask):
    return torch.softmax(scores.masked_fill(~mask, torch.finfo(scores.dtype).min), dim=0) * mask


SLIPS = [
    # (checker, the reader's function with the slip, a fragment of the slip's name, the case it fails on)
    (check_additive_score, additive_score_without_tanh, "no non-linearity", 1),
    (
        check_additive_score,
        lambda q, k, W, U, v: torch.relu((q @ W.T).unsqueeze(1) + k @ U.T) @ v,
        "relu where the additive score uses tanh",
        1,
    ),
    (
        check_additive_score,
        lambda q, k, W, U, v: torch.sigmoid((q @ W.T).unsqueeze(1) + k @ U.T) @ v,
        "a sigmoid where",
        1,
    ),
    (
        check_additive_score,
        lambda q, k, W, U, v: torch.tanh(((q @ W.T).unsqueeze(1) + k @ U.T) @ v),
        "your tanh comes after v",
        1,
    ),
    (
        check_additive_score,
        lambda q, k, W, U, v: torch.softmax(additive_score(q, k, W, U, v), dim=-1),
        "you returned the softmax of the scores",
        1,
    ),
    (check_masked_softmax, masked_softmax_ignoring_mask, "the mask is ignored", 3),
    (check_masked_softmax, masked_softmax_with_inverted_mask, "the mask is inverted", 1),
    (check_masked_softmax, _masked_softmax_over_batch, "softmax over dim=0 instead of dim=-1", 2),
    (check_masked_softmax, masked_softmax_with_minus_inf, "a softmax over a row of -inf is 0/0 = NaN", 4),
    (check_dot_product_attention, unscaled_dot_product, "your scores are not divided by sqrt(d)", 1),
    (check_dot_product_attention, _dot_product(divide_by_d=True), "divided by d, not by sqrt(d)", 1),
    (
        check_dot_product_attention,
        _dot_product(dim=1),
        "your weights sum to one over the target axis, not the source axis (softmax over dim=1 instead "
        "of dim=-1); look at the axis of your softmax",
        1,
    ),
    (check_dot_product_attention, _dot_product(use_mask=False), "the mask is ignored", 3),
    (check_dot_product_attention, _dot_product(invert=True), "the mask is inverted", 1),
    (check_dot_product_attention, dot_product_with_minus_inf, "0/0 = NaN", 5),
    (
        lambda fn: check_dot_product_attention(fn, scaled=False),
        scaled_dot_product,
        "Luong's dot score is the plain q·k",
        1,
    ),
    (
        check_softmax_jacobian,
        softmax_jacobian_diagonal_only,
        "the off-diagonal entries -a_i a_j are missing",
        2,
    ),
    (check_softmax_jacobian, lambda a: torch.outer(a, a) - torch.diag(a), "the wrong sign", 2),
    (check_softmax_jacobian, torch.diag, "the normalisation's term -a a^T is missing", 1),
    (check_softmax_jacobian, softmax_jacobian_without_outer, "where the outer product a a^T belongs", 2),
    (
        check_local_attention,
        lambda s, m, c, d: local_weights(s, m, c, d, gauss=False),
        "without the Gaussian",
        1,
    ),
    (
        check_local_attention,
        lambda s, m, c, d: local_weights(s, m, c, d, renormalise=True),
        "you renormalised after the Gaussian",
        1,
    ),
    (
        check_local_attention,
        lambda s, m, c, d: local_weights(s, m, c, d, sigma=d),
        "sigma = D where Luong et al. take sigma = D / 2",
        1,
    ),
    (
        check_local_attention,
        lambda s, m, c, d: (
            local_weights(s, m, c, 10**6)
            * local_weights(s, m, c, d, gauss=False).gt(0)
            * torch.exp(-((torch.arange(s.shape[-1]) - c.unsqueeze(-1)) ** 2) / (2 * (d / 2) ** 2))
            / torch.exp(-((torch.arange(s.shape[-1]) - c.unsqueeze(-1)) ** 2) / (2 * (10**6 / 2) ** 2))
        ),
        "your softmax runs over the whole sentence, not the window",
        1,
    ),
    (
        check_local_attention,
        lambda s, m, c, d: local_weights(s, m, c, d, strict=True),
        "your window leaves out its edges",
        1,
    ),
    (
        check_local_attention,
        lambda s, m, c, d: local_weights(s, torch.ones_like(m), c, d),
        "the mask is ignored",
        3,
    ),
    (
        check_local_attention,
        lambda s, m, c, d: local_weights(s, m, c, d, minus_inf=True),
        "0/0 = NaN",
        5,
    ),
    (check_alignment_matrix, _ones_per_link, "puts 1 on each", 3),
    (
        check_alignment_matrix,
        lambda links, t, s: _ones_per_link(links, t, s) / _ones_per_link(links, t, s).sum(0).clamp_min(1),
        "your columns sum to one",
        3,
    ),
    (
        check_alignment_matrix,
        lambda links, t, s: _reader_alignment_matrix(links, t, s).T,
        "your matrix is (src_len, tgt_len), the transpose",
        3,
    ),
    (
        check_alignment_matrix,
        lambda links, t, s: _ones_per_link(links, t, s) / _ones_per_link(links, t, s).sum(1, keepdim=True),
        "the row of a target word with no link must be all zeros",
        4,
    ),
    (check_attention_flops, lambda b, t, s, dk, dv: b * t * s * (dk + dv), "you counted multiply-adds", 1),
    (check_attention_flops, lambda b, t, s, dk, dv: 2 * b * t * s * dk, "only the scores' product", 1),
    (check_attention_flops, lambda b, t, s, dk, dv: 2 * b * t * s * dv, "only the context's product", 1),
    (check_attention_flops, lambda b, t, s, dk, dv: 4 * b * t * s * dk, "key_dim for both products", 2),
    (check_attention_flops, lambda b, t, s, dk, dv: 2 * t * s * (dk + dv), "does not grow with the batch", 2),
    (check_attention_flops, lambda b, t, s, dk, dv: 2 * b * t * t * (dk + dv), "you used tgt_len twice", 2),
    (check_attention_flops, lambda b, t, s, dk, dv: 2 * b * s * s * (dk + dv), "you used src_len twice", 2),
    (
        check_masked_cross_entropy,
        _wrong_loss("padding counted"),
        "the padded positions counted in the loss",
        2,
    ),
    (check_masked_cross_entropy, _wrong_loss("every position"), "divides by every position", 2),
    (check_masked_cross_entropy, _wrong_loss("pad id 0"), "you leave out the id 0, not pad_id", 3),
    (check_masked_cross_entropy, _wrong_loss("sum"), "the sum over the real tokens, not their mean", 1),
    (check_masked_cross_entropy, _wrong_loss("sentence means"), "you averaged each sentence's mean", 2),
    (check_masked_cross_entropy, _wrong_loss("detached"), "your loss carries no gradient", 1),
    (
        check_masked_cross_entropy,
        _wrong_loss("gradient at padding"),
        "the gradient reaches the padded positions",
        2,
    ),
    (check_decoder_mask, lambda m: ~decoder_mask(m), "your mask is inverted", 1),
    (
        check_decoder_mask,
        lambda m: m[:, None, :] & torch.ones(m.shape[1], m.shape[1], dtype=torch.bool).triu(),
        "position i may attend to the future (j >= i) and not to the past",
        1,
    ),
    (
        check_decoder_mask,
        lambda m: m[:, None, :].expand(-1, m.shape[1], -1),
        "including j > i; combine it with the causal mask",
        1,
    ),
    (
        check_decoder_mask,
        lambda m: m[:, None, :] & torch.ones(m.shape[1], m.shape[1], dtype=torch.bool).tril(-1),
        "position i may not attend to itself",
        1,
    ),
    (
        check_decoder_mask,
        lambda m: causal_mask(m.shape[1]).expand(len(m), -1, -1),
        "the padding is ignored",
        2,
    ),
    (
        check_decoder_mask,
        lambda m: m[:, :, None] & causal_mask(m.shape[1]),
        "your mask empties the padded positions' rows",
        2,
    ),
    (
        check_decoder_mask,
        lambda m: m[:, :, None] & decoder_mask(m),  # the same mask: a real query sees no padded key anyway
        "your mask empties the padded positions' rows",
        2,
    ),
    (
        check_multihead_attention,
        lambda *args: multihead(*args, scale=1.0),
        "your scores are not divided by sqrt(head_dim)",
        1,
    ),
    (
        check_multihead_attention,
        lambda mha, *args: multihead(mha, *args, scale=math.sqrt(mha.embed_dim)),
        "you divide the scores by sqrt(embed_dim)",
        2,
    ),
    (
        check_multihead_attention,
        lambda *args: multihead(*args, dim=-2),
        "softmax over dim=-2 instead of dim=-1",
        1,
    ),
    (check_multihead_attention, lambda *args: multihead(*args, use_mask=False), "the mask is ignored", 2),
    (check_multihead_attention, lambda *args: multihead(*args, interleave=True), "interleaved features", 2),
    (check_multihead_attention, lambda *args: multihead(*args, project=False), "not passed through", 1),
    (check_multihead_attention, lambda *args: multihead(*args, mean=True), "the heads' average", 1),
]


@pytest.mark.parametrize(("checker", "slipped", "named", "case"), SLIPS)
def test_a_classic_slip_is_named_on_the_case_that_shows_it(checker, slipped, named, case):
    result = checker(slipped)
    assert not result.passed
    assert result.message.startswith(f"✗ failed on case {case} of "), result.message
    assert named in result.message, result.message
    assert "; or " not in result.message  # one slip named, not a list of guesses


# --- the runner --------------------------------------------------------------------------------------------


def _doubling_cases(slips_per_case):
    """Cases of x -> 2 x, on x = 1, 2, 3, with the given slips (message -> output) on each."""
    return [
        Case(
            (("x", torch.tensor([float(x)])),),
            (("y", torch.tensor([2.0 * x])),),
            slips=tuple(Slip(message, (torch.tensor([value]),)) for message, value in slips.items()),
        )
        for x, slips in zip([1, 2, 3], slips_per_case, strict=True)
    ]


def test_the_runner_narrows_slips_that_tie_on_the_failing_case_with_the_cases_after_it():
    cases = _doubling_cases(
        [{"added 1": 2.0, "squared": 1.0}, {"added 1": 3.0, "squared": 4.0}, {"added 1": 4.0, "squared": 9.0}]
    )
    assert run_cases(lambda x: x + 1, cases, "2 x").message == "✗ failed on case 2 of 3 (x (1,)): added 1"
    assert run_cases(lambda x: x * x, cases, "2 x").message == "✗ failed on case 1 of 3 (x (1,)): squared"


def test_the_runner_names_every_slip_that_no_case_tells_apart():
    cases = _doubling_cases([{"a": 0.0, "b": 0.0}, {"a": 0.0, "b": 0.0}, {"a": 0.0, "b": 0.0}])
    assert run_cases(lambda x: 0 * x, cases, "2 x").message.endswith(": a; or b")


def test_the_runner_names_no_slip_where_the_output_matches_none_and_lists_the_difference():
    cases = _doubling_cases([{"added 1": 3.0}, {"added 1": 4.0}, {"added 1": 5.0}])
    message = run_cases(lambda x: 3 * x, cases, "2 x").message
    assert message.startswith("✗ failed on case 1 of 3 (x (1,)): y differs at 1 of 1 entries")


def test_a_slips_nan_entries_match_anything_but_a_slip_that_is_only_nan_is_never_named_alone():
    nan = float("nan")
    open_then_shown = _doubling_cases([{"open": nan}, {"open": 5.0}, {"open": 7.0}])
    assert run_cases(lambda x: 2 * x + 1, open_then_shown, "2 x").message.endswith(": open")
    never_shown = _doubling_cases([{"open": nan}, {"open": nan}, {"open": nan}])
    assert "y differs at" in run_cases(lambda x: 2 * x + 1, never_shown, "2 x").message


def test_the_runner_copies_the_inputs_so_a_function_that_writes_into_them_cannot_change_a_case():
    cases = _doubling_cases([{}, {}, {}])
    assert run_cases(lambda x: x.mul_(2), cases, "2 x").passed
    assert [case.inputs[0][1].item() for case in cases] == [1.0, 2.0, 3.0]
