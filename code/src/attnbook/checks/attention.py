"""Exercise checkers: run a reader's function against the package on random inputs and say what differs.

Each checker takes the reader's function, calls it on several random cases (a fixed seed, several shapes,
padding masks where masks matter), compares the output with the package's own implementation, and returns
a :class:`CheckResult`. Nothing is printed: the result's text is what a notebook shows, and
``assert result`` (or ``result.passed``) makes a notebook cell fail when the check does.

.. code-block:: python

    from attnbook.checks import check_masked_softmax


    def my_masked_softmax(scores, mask):
        return torch.softmax(scores.masked_fill(~mask, float("-inf")), dim=-1)


    check_masked_softmax(my_masked_softmax)  # shows which case fails (a fully masked row gives NaN)
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor

from attnbook.checks.runner import ATOL, RTOL, Case, CheckResult, compare, run_cases
from attnbook.core.alignment import alignment_matrix
from attnbook.layers.attention import (
    BahdanauAttention,
    LuongAttention,
    ScaledDotProductAttention,
    masked_softmax,
)


def _padding_mask(lengths: list[int], src_len: int) -> Tensor:
    return torch.arange(src_len) < torch.tensor(lengths).unsqueeze(1)  # (batch, src_len), True = real token


def _package_additive_scores(query: Tensor, keys: Tensor, W: Tensor, U: Tensor, v: Tensor) -> Tensor:
    """The package's additive scores, in float64, with the given weights."""
    # Building the module draws initial weights from the global generator: fork it to spare the reader's.
    with torch.random.fork_rng(devices=[]):
        attn = BahdanauAttention(W.shape[1], U.shape[1], W.shape[0]).double()
    with torch.no_grad():
        attn.query_proj.weight.copy_(W)
        attn.key_proj.weight.copy_(U)
        attn.v.weight.copy_(v.unsqueeze(0))
        return attn.scores(query.double(), keys.double())


def check_additive_score(fn: Callable[..., Tensor], seed: int = 0) -> CheckResult:
    r"""Check a reader's additive (Bahdanau) score :math:`e_j = v^\top \tanh(W q + U k_j)`.

    Expected signature: ``fn(query, keys, W, U, v) -> scores``, with float32 tensors

    - ``query``: ``(batch, query_dim)``; ``keys``: ``(batch, src_len, key_dim)``;
    - ``W``: ``(attn_dim, query_dim)`` and ``U``: ``(attn_dim, key_dim)``, laid out like an
      ``nn.Linear`` weight, so :math:`W q` is ``query @ W.T``; ``v``: ``(attn_dim,)``;
    - ``scores``: ``(batch, src_len)``, raw scores before any softmax.

    Compared with :meth:`attnbook.BahdanauAttention.scores` on cases with unequal dims (so a missing
    transpose shows). Returns a :class:`CheckResult`.

    >>> def my_additive_score(query, keys, W, U, v):
    ...     return torch.tanh((query @ W.T).unsqueeze(1) + keys @ U.T) @ v
    >>> check_additive_score(my_additive_score).passed
    True
    """
    generator = torch.Generator().manual_seed(seed)
    cases = []
    for batch, src_len, query_dim, key_dim, attn_dim in [
        (1, 1, 3, 3, 2),
        (2, 5, 4, 6, 3),
        (3, 7, 8, 5, 4),
        (4, 3, 2, 7, 8),
    ]:
        query = torch.randn(batch, query_dim, generator=generator)
        keys = torch.randn(batch, src_len, key_dim, generator=generator)
        W = torch.randn(attn_dim, query_dim, generator=generator)
        U = torch.randn(attn_dim, key_dim, generator=generator)
        v = torch.randn(attn_dim, generator=generator)
        inputs = (("query", query), ("keys", keys), ("W", W), ("U", U), ("v", v))
        cases.append(Case(inputs, (("scores", _package_additive_scores(query, keys, W, U, v)),)))
    return run_cases(fn, cases, "attnbook.BahdanauAttention.scores")


def check_masked_softmax(fn: Callable[[Tensor, Tensor], Tensor], seed: int = 0) -> CheckResult:
    """Check a reader's masked softmax over the last axis.

    Expected signature: ``fn(scores, mask) -> attn_weights``, with

    - ``scores``: float32 ``(batch, src_len)``;
    - ``mask``: boolean ``(batch, src_len)``, **True = may attend** (the opposite of
      ``nn.MultiheadAttention``'s ``key_padding_mask``);
    - ``attn_weights``: ``(batch, src_len)``, summing to one over each row's unmasked positions, exactly 0
      at masked positions, and all 0 (not NaN) in a row with no unmasked position.

    The cases include padding, a fully masked row and scores of size 1e4. Compared with
    :func:`attnbook.masked_softmax`. Returns a :class:`CheckResult`.

    A softmax over scores filled with ``-inf`` fails on the fully masked row:

    >>> def my_masked_softmax(scores, mask):
    ...     return torch.softmax(scores.masked_fill(~mask, float("-inf")), dim=-1)
    >>> print(check_masked_softmax(my_masked_softmax))  # doctest: +ELLIPSIS
    ✗ failed on case 4 of 5 (...; a fully masked row; ...): attn_weights differs ... expected 0, got nan; ...
    """
    generator = torch.Generator().manual_seed(seed)
    specs = [  # (lengths of the unpadded rows, src_len, score scale, note)
        ([1], 1, 1.0, ""),
        ([4, 4], 4, 1.0, "no padding"),
        ([5, 2, 3], 5, 3.0, "padding"),
        ([6, 0, 4], 6, 1.0, "a fully masked row"),
        ([7, 3], 7, 1e4, "scores of size 1e4"),
    ]
    hints = {
        "a fully masked row": "row 1 has no position to attend to, so its weights must all be 0, not NaN",
        "scores of size 1e4": "exp overflows unless the row maximum is subtracted first",
    }
    cases = []
    for lengths, src_len, scale, note in specs:
        scores = scale * torch.randn(len(lengths), src_len, generator=generator)
        mask = _padding_mask(lengths, src_len)
        expected = masked_softmax(scores.double(), mask)
        inputs = (("scores", scores), ("mask", mask))
        cases.append(Case(inputs, (("attn_weights", expected),), note, hints.get(note, "")))
    return run_cases(fn, cases, "attnbook.masked_softmax")


def check_dot_product_attention(
    fn: Callable[[Tensor, Tensor, Tensor, Tensor], tuple[Tensor, Tensor]], scaled: bool = True, seed: int = 0
) -> CheckResult:
    r"""Check a reader's (scaled) dot-product attention, weights and context.

    Expected signature: ``fn(query, keys, values, mask) -> (context, attn_weights)``, with float32

    - ``query``: ``(batch, tgt_len, d)``; ``keys``: ``(batch, src_len, d)``;
      ``values``: ``(batch, src_len, value_dim)``;
    - ``mask``: boolean ``(batch, src_len)``, **True = may attend**; a row may have no attendable
      position at all (an empty sentence), and then its weights and its context are all 0, not NaN;
    - ``context``: ``(batch, tgt_len, value_dim)``; ``attn_weights``: ``(batch, tgt_len, src_len)``.

    Args:
        fn: the reader's function.
        scaled: True checks :math:`q^\top k / \sqrt{d}` (:class:`attnbook.ScaledDotProductAttention`),
            False the unscaled Luong dot score :math:`q^\top k` (:class:`attnbook.LuongAttention`).
        seed: the seed of the random cases.

    Returns:
        A :class:`CheckResult`.

    >>> def my_attention(query, keys, values, mask):
    ...     allowed = mask.unsqueeze(1)  # (batch, 1, src_len)
    ...     scores = query @ keys.transpose(1, 2) / keys.shape[-1] ** 0.5
    ...     scores = scores.masked_fill(~allowed, torch.finfo(scores.dtype).min)
    ...     weights = torch.softmax(scores, dim=-1).masked_fill(~allowed, 0.0)
    ...     return weights @ values, weights
    >>> check_dot_product_attention(my_attention).passed
    True
    >>> check_dot_product_attention(my_attention, scaled=False).passed  # Luong's dot is not scaled
    False

    Filling with ``-inf`` instead gives NaN on the fully masked row, and fails:

    >>> def my_attention_with_minus_inf(query, keys, values, mask):
    ...     scores = query @ keys.transpose(1, 2) / keys.shape[-1] ** 0.5
    ...     weights = torch.softmax(scores.masked_fill(~mask.unsqueeze(1), float("-inf")), dim=-1)
    ...     return weights @ values, weights
    >>> print(check_dot_product_attention(my_attention_with_minus_inf))  # doctest: +ELLIPSIS
    ✗ failed on case 5 of 5 (...; a fully masked row; ...): context differs ... got nan...
    """
    generator = torch.Generator().manual_seed(seed)
    specs = [  # (batch, tgt_len, d, value_dim, lengths)
        (1, 1, 4, 4, [3]),
        (2, 3, 8, 5, [6, 6]),
        (3, 2, 16, 3, [5, 2, 4]),
        (2, 4, 6, 7, [1, 4]),
        (3, 2, 5, 4, [5, 0, 3]),
    ]
    fully_masked_hint = "row 1 has no position to attend to: its weights and context must be 0, not NaN"
    cases = []
    for batch, tgt_len, d, value_dim, lengths in specs:
        src_len = max(lengths)
        query = torch.randn(batch, tgt_len, d, generator=generator)
        keys = torch.randn(batch, src_len, d, generator=generator)
        values = torch.randn(batch, src_len, value_dim, generator=generator)
        mask = _padding_mask(lengths, src_len)
        attn = ScaledDotProductAttention() if scaled else LuongAttention(d, d, score="dot")
        context, weights = attn(query.double(), keys.double(), values.double(), mask)
        note = "a fully masked row" if min(lengths) == 0 else "padding" if min(lengths) < src_len else ""
        hint = fully_masked_hint if min(lengths) == 0 else ""
        inputs = (("query", query), ("keys", keys), ("values", values), ("mask", mask))
        cases.append(Case(inputs, (("context", context), ("attn_weights", weights)), note, hint))
    reference = "attnbook.ScaledDotProductAttention" if scaled else "attnbook.LuongAttention(score='dot')"
    return run_cases(fn, cases, reference)


def check_softmax_jacobian(fn: Callable[[Tensor], Tensor], seed: int = 0) -> CheckResult:
    r"""Check a reader's softmax Jacobian :math:`\partial a_i / \partial e_j = \mathrm{diag}(a) - a a^\top`.

    Expected signature: ``fn(attn_weights) -> jacobian``, with

    - ``attn_weights``: float32 ``(src_len,)``, the softmax ``a`` of some scores ``e``;
    - ``jacobian``: ``(src_len, src_len)``, entry ``[i, j]`` is :math:`\partial a_i / \partial e_j`.

    Compared with autograd's Jacobian of :func:`torch.softmax` (``torch.autograd.functional.jacobian``),
    including a peaked (nearly one-hot) case. Returns a :class:`CheckResult`.

    >>> check_softmax_jacobian(lambda a: torch.diag(a) - torch.outer(a, a)).passed
    True
    """
    generator = torch.Generator().manual_seed(seed)
    cases = []
    for src_len, scale, note in [(1, 1.0, ""), (3, 1.0, ""), (5, 1.0, ""), (8, 6.0, "a peaked softmax")]:
        scores = scale * torch.randn(src_len, generator=generator, dtype=torch.float64)
        expected = torch.autograd.functional.jacobian(lambda s: torch.softmax(s, dim=-1), scores)
        weights = torch.softmax(scores, dim=-1).float()
        cases.append(Case((("attn_weights", weights),), (("jacobian", expected),), note))
    return run_cases(fn, cases, "autograd's Jacobian of torch.softmax")


def check_local_attention(fn: Callable[[Tensor, Tensor, Tensor, int], Tensor], seed: int = 0) -> CheckResult:
    r"""Check a reader's weights of Luong's *local* attention around a predicted centre.

    Luong et al. (2015) score only a window of the source around a centre :math:`p_i`: the weights are a
    softmax over the positions :math:`j` with :math:`|j - p_i| \le D` that may be attended, multiplied by
    a Gaussian :math:`\exp(-(j - p_i)^2 / (2\sigma^2))` with :math:`\sigma = D / 2`. They do not sum to
    one. Positions outside the window or masked get 0, and a row whose window holds no attendable
    position gets all 0, not NaN.

    Expected signature: ``fn(scores, mask, centre, half_width) -> attn_weights``, with

    - ``scores``: float32 ``(batch, src_len)``, the raw scores of every position;
    - ``mask``: boolean ``(batch, src_len)``, **True = may attend**;
    - ``centre``: float32 ``(batch,)``, :math:`p_i`, a real number in ``[0, src_len - 1]``;
    - ``half_width``: the int :math:`D`;
    - ``attn_weights``: ``(batch, src_len)``.

    The cases include a centre between two positions, a window cut by the sentence's end, padding, and a
    window that holds only padding. Returns a :class:`CheckResult`.

    >>> def my_local_weights(scores, mask, centre, half_width):
    ...     positions = torch.arange(scores.shape[-1], dtype=scores.dtype)
    ...     distance = positions - centre.unsqueeze(-1)  # (batch, src_len)
    ...     in_window = mask & (distance.abs() <= half_width)
    ...     gaussian = torch.exp(-(distance**2) / (2 * (half_width / 2) ** 2))
    ...     return masked_softmax(scores, in_window) * gaussian
    >>> check_local_attention(my_local_weights).passed
    True
    """
    generator = torch.Generator().manual_seed(seed)
    specs = [  # (lengths, src_len, centres, D, note)
        ([5], 5, [2.0], 1, ""),
        ([9, 9], 9, [4.5, 1.25], 2, "a centre between two positions"),
        ([8, 5], 8, [7.0, 4.0], 3, "a window cut by the sentence's end"),
        ([10, 4, 7], 10, [3.0, 2.5, 6.0], 2, "padding"),
        ([9, 2], 9, [4.0, 7.0], 1, "a window that holds only padding"),
    ]
    hints = {"a window that holds only padding": "row 1's window has no real position: its weights must be 0"}
    cases = []
    for lengths, src_len, centres, half_width, note in specs:
        scores = torch.randn(len(lengths), src_len, generator=generator)
        mask = _padding_mask(lengths, src_len)
        centre = torch.tensor(centres)
        expected = torch.zeros(len(lengths), src_len, dtype=torch.float64)
        sigma = half_width / 2
        for row in range(len(lengths)):  # one row and one position at a time: an oracle by the definition
            window = [j for j in range(src_len) if mask[row, j] and abs(j - centres[row]) <= half_width]
            if not window:
                continue
            exps = {j: torch.exp(scores[row, j].double()) for j in window}
            total = sum(exps.values())
            for j in window:
                gaussian = torch.exp(
                    torch.tensor(-((j - centres[row]) ** 2) / (2 * sigma**2), dtype=torch.float64)
                )
                expected[row, j] = exps[j] / total * gaussian
        inputs = (("scores", scores), ("mask", mask), ("centre", centre))
        case = Case(inputs, (("attn_weights", expected),), note, hints.get(note, ""))
        cases.append((case, half_width))
    return _run_with_width(fn, cases)


def _run_with_width(fn: Callable[..., Tensor], cases: list[tuple[Case, int]]) -> CheckResult:
    # Each case has its own half-width D, an int passed after the tensors.
    results = []
    for number, (case, half_width) in enumerate(cases, start=1):
        result = run_cases(lambda *tensors, width=half_width: fn(*tensors, width), [case], "")
        if not result.passed:
            where = f"case {number} of {len(cases)} (D = {half_width}; "
            return CheckResult(False, result.message.replace("case 1 of 1 (", where, 1))
        results.append(result)
    notes = list(dict.fromkeys(case.note for case, _ in cases if case.note))
    return CheckResult(
        True,
        f"✓ passed: {len(cases)} random cases agree with Luong's local attention, computed position by "
        f"position (atol={ATOL:g}, rtol={RTOL:g}), including {', '.join(notes)}.",
    )


def check_alignment_matrix(fn: Callable[[list[tuple[int, int]], int, int], Tensor]) -> CheckResult:
    """Check a reader's version of :func:`attnbook.core.alignment.alignment_matrix`.

    Expected signature: ``fn(links, tgt_len, src_len) -> matrix``, with

    - ``links``: a list of ``(i, j)`` pairs, target position ``i`` aligned to source position ``j``;
    - ``matrix``: ``(tgt_len, src_len)``; each linked row shares one unit of weight evenly among its
      links, an unlinked row is all zeros.

    The cases include a one-to-one diagonal, a crossing (adjective-noun reordering), a target word with two
    links, a source word used twice and a target word with no link. Returns a :class:`CheckResult`.

    >>> print(check_alignment_matrix(alignment_matrix))
    ✓ passed: 4 cases agree with attnbook.core.alignment.alignment_matrix.
    """
    cases = [
        ([(0, 0), (1, 1), (2, 2)], 3, 3, "one-to-one"),
        ([(0, 0), (1, 2), (2, 1)], 3, 3, "a crossing"),
        ([(0, 0), (1, 1), (1, 2), (2, 2)], 3, 4, "one target word with two links, a source word used twice"),
        ([(0, 1), (2, 0)], 3, 2, "a target word with no link"),
    ]
    for number, (links, tgt_len, src_len, note) in enumerate(cases, start=1):
        where = f"case {number} of {len(cases)} (links {links}, tgt_len {tgt_len}, src_len {src_len}; {note})"
        try:
            got = fn(list(links), tgt_len, src_len)
        except Exception as exc:
            return CheckResult(
                False, f"✗ failed: your function raised {type(exc).__name__} on {where}: {exc}"
            )
        expected = alignment_matrix(links, tgt_len, src_len, dtype=torch.float64)
        problem = compare("matrix", got, expected)
        if problem is not None:
            return CheckResult(False, f"✗ failed on {where}: {problem}")
    return CheckResult(
        True, f"✓ passed: {len(cases)} cases agree with attnbook.core.alignment.alignment_matrix."
    )
