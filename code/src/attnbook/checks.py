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
from dataclasses import dataclass

import torch
from torch import Tensor

from attnbook.alignment import alignment_matrix
from attnbook.attention import BahdanauAttention, LuongAttention, ScaledDotProductAttention, masked_softmax

ATOL = 1e-5
RTOL = 1e-4
"""The tolerance of every checker: ``|got - expected| <= ATOL + RTOL * |expected|`` entry by entry."""


@dataclass(frozen=True, repr=False)
class CheckResult:
    """The outcome of a checker: whether it passed and a message that says why.

    In a notebook the result displays as its message; ``bool(result)`` is ``result.passed``.

    Attributes:
        passed: True when every case agreed with the package.
        message: "✓ passed: ..." or the first failure: the case (its shapes), the entries that differ,
            expected vs. got, and the largest absolute difference.

    >>> result = check_masked_softmax(masked_softmax)
    >>> bool(result), result.passed
    (True, True)
    >>> print(result)  # doctest: +ELLIPSIS
    ✓ passed: 5 random cases agree with attnbook.masked_softmax ...
    """

    passed: bool
    message: str

    def __str__(self) -> str:
        return self.message

    def __repr__(self) -> str:
        return self.message

    def __bool__(self) -> bool:
        return self.passed


@dataclass(frozen=True)
class _Case:
    inputs: tuple[tuple[str, Tensor], ...]  # (argument name, value), in call order
    expected: tuple[tuple[str, Tensor], ...]  # (output name, value), in return order
    note: str = ""  # what the case exercises, e.g. "padding"
    hint: str = ""  # shown only when the case fails

    def describe(self) -> str:
        shapes = ", ".join(f"{name} {tuple(value.shape)}" for name, value in self.inputs)
        return "; ".join(part for part in (shapes, self.note, self.hint) if part)


def _format_number(value: float) -> str:
    return f"{value:.6g}"


def _compare(name: str, got: object, expected: Tensor) -> str | None:
    """Return why ``got`` differs from ``expected``, or None when it agrees."""
    if not isinstance(got, Tensor):
        return f"{name} should be a torch.Tensor of shape {tuple(expected.shape)}, got {type(got).__name__}"
    if got.shape != expected.shape:
        return f"{name} should have shape {tuple(expected.shape)}, got {tuple(got.shape)}"
    got = got.detach().to("cpu", torch.float64)
    close = torch.isclose(got, expected, rtol=RTOL, atol=ATOL)
    if bool(close.all()):
        return None
    wrong = (~close).nonzero().tolist()
    examples = "; ".join(
        f"[{', '.join(map(str, index))}]: expected {_format_number(expected[tuple(index)].item())}, "
        f"got {_format_number(got[tuple(index)].item())}"
        for index in wrong[:3]
    )
    max_diff = (got - expected).abs().nan_to_num(nan=float("inf")).max().item()
    max_text = "inf or nan" if max_diff == float("inf") else f"{max_diff:.3g}"
    return (
        f"{name} differs at {len(wrong)} of {expected.numel()} entries, e.g. {examples}. "
        f"Max abs difference: {max_text} (tolerance: atol={ATOL:g}, rtol={RTOL:g})"
    )


def _run(fn: Callable[..., object], cases: list[_Case], reference: str) -> CheckResult:
    for number, case in enumerate(cases, start=1):
        where = f"case {number} of {len(cases)} ({case.describe()})"
        try:
            output = fn(*(value.clone() for _, value in case.inputs))
        except Exception as exc:
            return CheckResult(
                False, f"✗ failed: your function raised {type(exc).__name__} on {where}: {exc}"
            )
        names = [name for name, _ in case.expected]
        if len(names) == 1:
            outputs = [output]
        elif isinstance(output, (tuple, list)) and len(output) == len(names):
            outputs = list(output)
        else:
            got = type(output).__name__
            if isinstance(output, (tuple, list)):
                got = f"a {got} of length {len(output)}"
            return CheckResult(False, f"✗ failed on {where}: expected a ({', '.join(names)}) pair, got {got}")
        for got, (name, expected) in zip(outputs, case.expected, strict=True):
            problem = _compare(name, got, expected)
            if problem is not None:
                return CheckResult(False, f"✗ failed on {where}: {problem}")
    notes = list(dict.fromkeys(case.note for case in cases if case.note))
    including = f", including {', '.join(notes)}" if notes else ""
    tolerance = f"atol={ATOL:g}, rtol={RTOL:g}"
    return CheckResult(
        True, f"✓ passed: {len(cases)} random cases agree with {reference} ({tolerance}){including}."
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
        cases.append(_Case(inputs, (("scores", _package_additive_scores(query, keys, W, U, v)),)))
    return _run(fn, cases, "attnbook.BahdanauAttention.scores")


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
        cases.append(_Case(inputs, (("attn_weights", expected),), note, hints.get(note, "")))
    return _run(fn, cases, "attnbook.masked_softmax")


def check_dot_product_attention(
    fn: Callable[[Tensor, Tensor, Tensor, Tensor], tuple[Tensor, Tensor]], scaled: bool = True, seed: int = 0
) -> CheckResult:
    r"""Check a reader's (scaled) dot-product attention, weights and context.

    Expected signature: ``fn(query, keys, values, mask) -> (context, attn_weights)``, with float32

    - ``query``: ``(batch, tgt_len, d)``; ``keys``: ``(batch, src_len, d)``;
      ``values``: ``(batch, src_len, value_dim)``;
    - ``mask``: boolean ``(batch, src_len)``, **True = may attend**; every row has at least one
      attendable position;
    - ``context``: ``(batch, tgt_len, value_dim)``; ``attn_weights``: ``(batch, tgt_len, src_len)``.

    Args:
        fn: the reader's function.
        scaled: True checks :math:`q^\top k / \sqrt{d}` (:class:`attnbook.ScaledDotProductAttention`),
            False the unscaled Luong dot score :math:`q^\top k` (:class:`attnbook.LuongAttention`).
        seed: the seed of the random cases.

    Returns:
        A :class:`CheckResult`.

    >>> def my_attention(query, keys, values, mask):
    ...     scores = query @ keys.transpose(1, 2) / keys.shape[-1] ** 0.5
    ...     weights = torch.softmax(scores.masked_fill(~mask.unsqueeze(1), float("-inf")), dim=-1)
    ...     return weights @ values, weights
    >>> check_dot_product_attention(my_attention).passed
    True
    >>> check_dot_product_attention(my_attention, scaled=False).passed  # Luong's dot is not scaled
    False
    """
    generator = torch.Generator().manual_seed(seed)
    specs = [  # (batch, tgt_len, d, value_dim, lengths)
        (1, 1, 4, 4, [3]),
        (2, 3, 8, 5, [6, 6]),
        (3, 2, 16, 3, [5, 2, 4]),
        (2, 4, 6, 7, [1, 4]),
    ]
    cases = []
    for batch, tgt_len, d, value_dim, lengths in specs:
        src_len = max(lengths)
        query = torch.randn(batch, tgt_len, d, generator=generator)
        keys = torch.randn(batch, src_len, d, generator=generator)
        values = torch.randn(batch, src_len, value_dim, generator=generator)
        mask = _padding_mask(lengths, src_len)
        attn = ScaledDotProductAttention() if scaled else LuongAttention(d, d, score="dot")
        context, weights = attn(query.double(), keys.double(), values.double(), mask)
        note = "padding" if min(lengths) < src_len else ""
        inputs = (("query", query), ("keys", keys), ("values", values), ("mask", mask))
        cases.append(_Case(inputs, (("context", context), ("attn_weights", weights)), note))
    reference = "attnbook.ScaledDotProductAttention" if scaled else "attnbook.LuongAttention(score='dot')"
    return _run(fn, cases, reference)


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
        cases.append(_Case((("attn_weights", weights),), (("jacobian", expected),), note))
    return _run(fn, cases, "autograd's Jacobian of torch.softmax")


def check_alignment_matrix(fn: Callable[[list[tuple[int, int]], int, int], Tensor]) -> CheckResult:
    """Check a reader's version of :func:`attnbook.alignment.alignment_matrix`.

    Expected signature: ``fn(links, tgt_len, src_len) -> matrix``, with

    - ``links``: a list of ``(i, j)`` pairs, target position ``i`` aligned to source position ``j``;
    - ``matrix``: ``(tgt_len, src_len)``; each linked row shares one unit of weight evenly among its
      links, an unlinked row is all zeros.

    The cases include a one-to-one diagonal, a crossing (adjective-noun reordering), a target word with two
    links, a source word used twice and a target word with no link. Returns a :class:`CheckResult`.

    >>> print(check_alignment_matrix(alignment_matrix))
    ✓ passed: 4 cases agree with attnbook.alignment.alignment_matrix.
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
        problem = _compare("matrix", got, expected)
        if problem is not None:
            return CheckResult(False, f"✗ failed on {where}: {problem}")
    return CheckResult(True, f"✓ passed: {len(cases)} cases agree with attnbook.alignment.alignment_matrix.")
