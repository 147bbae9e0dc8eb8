"""Exercise checkers: run a reader's function against the package on random
inputs and say what differs.

Each checker takes the reader's function, calls it on several random cases
(a fixed seed, several shapes, padding masks where masks matter),
compares the output with the package's own implementation, and returns a
:class:`CheckResult`; when the output is the package's answer with a
classic slip made (softmax over the wrong axis, a mask ignored or inverted,
no tanh, an unscaled dot product, ...), the message names the slip and
where to look. Nothing is printed: the result's text is what a notebook
shows, and ``assert result`` (or ``result.passed``) makes a notebook cell
fail when the check does.

.. code-block:: python

    from attnbook.checks import check_masked_softmax


    def my_masked_softmax(scores, mask):
        return torch.softmax(
            scores.masked_fill(~mask, float("-inf")), dim=-1
        )


    # shows which case fails (a fully masked row gives NaN)
    check_masked_softmax(my_masked_softmax)
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
from torch import Tensor

from attnbook.checks.runner import Case, CheckResult, Slip, run_cases
from attnbook.layers.attention import (
    ScaledDotProductAttention,
    masked_softmax,
)
from attnbook.layers.bahdanau import BahdanauAttention
from attnbook.layers.luong import LuongAttention


def _padding_mask(lengths: list[int], src_len: int) -> Tensor:
    # (batch, src_len), True = real token
    return torch.arange(src_len) < torch.tensor(lengths).unsqueeze(1)


def _softmax_where(
    scores: Tensor, allowed: Tensor | None = None, dim: int = -1
) -> Tensor:
    """A slip's weights: the masked softmax of ``scores`` over ``dim``,
    NaN (undetermined) where a slice along ``dim`` has no allowed position,
    since what a reader's code gives there (0, NaN or uniform weights)
    depends on how it masks, not on the slip."""
    scores = scores.double()
    allowed = (
        torch.ones_like(scores, dtype=torch.bool)
        if allowed is None
        else allowed.expand_as(scores)
    )
    weights = masked_softmax(scores, allowed, dim=dim)
    return weights.masked_fill(
        ~allowed.any(dim=dim, keepdim=True), math.nan
    )


def _attend_where(weights: Tensor, values: Tensor) -> Tensor:
    """A slip's context ``weights @ values``, NaN (undetermined)
    in the rows whose weights are."""
    context = weights.nan_to_num(0.0) @ values.double()
    return context.masked_fill(
        weights.isnan().any(dim=-1, keepdim=True), math.nan
    )


def _undetermined_rows(expected: Tensor, rows: Tensor) -> Tensor:
    """``expected`` with the rows (a boolean over its leading axes)
    undetermined: NaN."""
    return expected.masked_fill(rows.unsqueeze(-1), math.nan)


_SOFTMAX_TAIL = (
    "fill the masked scores with torch.finfo(scores.dtype).min and set "
    "the masked weights to 0 after"
)


def _package_additive_scores(
    query: Tensor, keys: Tensor, W: Tensor, U: Tensor, v: Tensor
) -> Tensor:
    """The package's additive scores, in float64, with the
    given weights."""
    # Building the module draws initial weights from the global generator:
    # fork it to spare the reader's.
    with torch.random.fork_rng(devices=[]):
        attn = BahdanauAttention(
            W.shape[1], U.shape[1], W.shape[0]
        ).double()
    with torch.no_grad():
        attn.query_proj.weight.copy_(W)
        attn.key_proj.weight.copy_(U)
        attn.v.weight.copy_(v.unsqueeze(0))
        return attn.scores(query.double(), keys.double())


def check_additive_score(
    fn: Callable[..., Tensor], seed: int = 0
) -> CheckResult:
    r"""Check a reader's additive (Bahdanau) score :math:`e_j = v^\top
    \tanh(W q + U k_j)`.

    Expected signature: ``fn(query, keys, W, U, v) -> scores``,
    with float32 tensors

    - ``query``: ``(batch, query_dim)``; ``keys``:
      ``(batch, src_len, key_dim)``;
    - ``W``: ``(attn_dim, query_dim)`` and ``U``:
      ``(attn_dim, key_dim)``, laid out like an ``nn.Linear`` weight,
      so :math:`W q` is ``query @ W.T``; ``v``: ``(attn_dim,)``;
    - ``scores``: ``(batch, src_len)``, raw scores before any softmax.

    Compared with :meth:`attnbook.BahdanauAttention.scores` on cases with
    unequal dims (so a missing transpose shows).
    Returns a :class:`CheckResult`.

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
        inputs = (
            ("query", query),
            ("keys", keys),
            ("W", W),
            ("U", U),
            ("v", v),
        )
        expected = _package_additive_scores(query, keys, W, U, v)
        cases.append(
            Case(
                inputs,
                (("scores", expected),),
                slips=_additive_slips(query, keys, W, U, v),
            )
        )
    return run_cases(fn, cases, "attnbook.BahdanauAttention.scores")


def _additive_slips(
    query: Tensor, keys: Tensor, W: Tensor, U: Tensor, v: Tensor
) -> tuple[Slip, ...]:
    projected_query = (query.double() @ W.double().T).unsqueeze(1)
    hidden = projected_query + keys.double() @ U.double().T  # W q + U k_j
    v = v.double()
    where = "look at the hidden layer: e_j = v^T tanh(W q + U k_j)"
    return (
        Slip(
            "your score has no non-linearity: v^T (W q + U k_j) without "
            "the tanh, a linear function of "
            f"the query and the key; {where}",
            (hidden @ v,),
        ),
        Slip(
            "your hidden layer uses relu where the additive score uses "
            f"tanh; {where}",
            (hidden.relu() @ v,),
        ),
        Slip(
            "your hidden layer uses a sigmoid where the additive score "
            f"uses tanh; {where}",
            (hidden.sigmoid() @ v,),
        ),
        Slip(
            "your tanh comes after v, tanh(v^T (W q + U k_j)), instead "
            f"of inside; {where}",
            ((hidden @ v).tanh(),),
        ),
        Slip(
            "your scores sum to one over the source: you returned the "
            "softmax of the scores (the weights); "
            "the exercise asks for the raw scores e_j, before any softmax",
            (torch.softmax(hidden.tanh() @ v, dim=-1),),
        ),
    )


def check_masked_softmax(
    fn: Callable[[Tensor, Tensor], Tensor], seed: int = 0
) -> CheckResult:
    """Check a reader's masked softmax over the last axis.

    Expected signature: ``fn(scores, mask) -> attn_weights``, with

    - ``scores``: float32 ``(batch, src_len)``;
    - ``mask``: boolean ``(batch, src_len)``, **True = may attend** (the
      opposite of ``nn.MultiheadAttention``'s ``key_padding_mask``);
    - ``attn_weights``: ``(batch, src_len)``, summing to one over each
      row's unmasked positions, exactly 0 at masked positions,
      and all 0 (not NaN) in a row with no unmasked position.

    The cases include padding, a fully masked row and scores of size 1e4.
    Compared with :func:`attnbook.masked_softmax`.
    Returns a :class:`CheckResult`.

    A softmax over scores filled with ``-inf`` fails on the fully
    masked row:

    >>> def my_masked_softmax(scores, mask):
    ...     return torch.softmax(
    ...         scores.masked_fill(~mask, float("-inf")), dim=-1
    ...     )
    >>> print(
    ...     check_masked_softmax(my_masked_softmax)
    ... )  # doctest: +ELLIPSIS
    ✗ failed on case 4 of 5 (...; a fully masked row; ...): your weights in
    a row with no position to attend to are not all 0: a softmax over a row
    of -inf is 0/0 = NaN ...
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
        "a fully masked row": "row 1 has no position to attend to, so its "
        "weights must all be 0, not NaN",
        "scores of size 1e4": "exp overflows unless the row maximum is "
        "subtracted first",
    }
    cases = []
    for lengths, src_len, scale, note in specs:
        scores = scale * torch.randn(
            len(lengths), src_len, generator=generator
        )
        mask = _padding_mask(lengths, src_len)
        expected = masked_softmax(scores.double(), mask)
        inputs = (("scores", scores), ("mask", mask))
        slips = _masked_softmax_slips(scores, mask, expected)
        cases.append(
            Case(
                inputs,
                (("attn_weights", expected),),
                note,
                hints.get(note, ""),
                slips,
            )
        )
    return run_cases(fn, cases, "attnbook.masked_softmax")


def _mask_slips(
    outputs_for: Callable[[Tensor | None], tuple[Tensor, ...]],
    mask: Tensor,
) -> tuple[Slip, ...]:
    """The two mask slips of any masked softmax:
    the mask ignored, the mask inverted."""
    return (
        Slip(
            "your weights are not 0 at the masked positions: the mask is "
            "ignored; "
            f"{_SOFTMAX_TAIL} the softmax",
            outputs_for(None),
        ),
        Slip(
            "your weights are 0 where the mask is True and positive where "
            "it is False: the mask is inverted "
            "(True = may attend here, the opposite of "
            "nn.MultiheadAttention's key_padding_mask); look at "
            "where you fill: masked_fill(~mask, ...)",
            outputs_for(~mask),
        ),
    )


def _fully_masked_slip(what: str, outputs: tuple[Tensor, ...]) -> Slip:
    return Slip(
        f"your {what} in a row with no position to attend to are not all "
        "0: a softmax over a row of -inf "
        "is 0/0 = NaN (and over a row of the most negative float, "
        f"uniform); {_SOFTMAX_TAIL} the softmax",
        outputs,
    )


def _masked_softmax_slips(
    scores: Tensor, mask: Tensor, expected: Tensor
) -> tuple[Slip, ...]:
    return (
        *_mask_slips(
            lambda allowed: (_softmax_where(scores, allowed),), mask
        ),
        Slip(
            "your weights sum to one down each column, over the batch "
            "axis, not along each row over the "
            "source positions (softmax over dim=0 instead of dim=-1); "
            "look at the axis of your softmax",
            (_softmax_where(scores, mask, dim=0),),
        ),
        _fully_masked_slip(
            "weights", (_undetermined_rows(expected, ~mask.any(dim=-1)),)
        ),
    )


def check_dot_product_attention(
    fn: Callable[[Tensor, Tensor, Tensor, Tensor], tuple[Tensor, Tensor]],
    scaled: bool = True,
    seed: int = 0,
) -> CheckResult:
    r"""Check a reader's (scaled) dot-product attention,
    weights and context.

    Expected signature: ``fn(query, keys, values, mask) -> (context,
    attn_weights)``, with float32

    - ``query``: ``(batch, tgt_len, d)``; ``keys``:
      ``(batch, src_len, d)``; ``values``: ``(batch, src_len, value_dim)``;
    - ``mask``: boolean ``(batch, src_len)``, **True = may attend**;
      a row may have no attendable position at all (an empty sentence),
      and then its weights and its context are all 0, not NaN;
    - ``context``: ``(batch, tgt_len, value_dim)``;
      ``attn_weights``: ``(batch, tgt_len, src_len)``.

    Args:
        fn: the reader's function.
        scaled: True checks :math:`q^\top k / \sqrt{d}`
            (:class:`attnbook.ScaledDotProductAttention`), False the
            unscaled Luong dot score :math:`q^\top k`
            (:class:`attnbook.LuongAttention`).
        seed: the seed of the random cases.

    Returns:
        A :class:`CheckResult`.

    >>> def my_attention(query, keys, values, mask):
    ...     allowed = mask.unsqueeze(1)  # (batch, 1, src_len)
    ...     scores = query @ keys.transpose(1, 2) / keys.shape[-1] ** 0.5
    ...     scores = scores.masked_fill(
    ...         ~allowed, torch.finfo(scores.dtype).min
    ...     )
    ...     weights = torch.softmax(scores, dim=-1).masked_fill(
    ...         ~allowed, 0.0
    ...     )
    ...     return weights @ values, weights
    >>> check_dot_product_attention(my_attention).passed
    True
    >>> check_dot_product_attention(
    ...     my_attention, scaled=False
    ... ).passed  # Luong's dot is not scaled
    False

    Filling with ``-inf`` instead gives NaN on the fully masked row,
    and fails:

    >>> def my_attention_with_minus_inf(query, keys, values, mask):
    ...     scores = query @ keys.transpose(1, 2) / keys.shape[-1] ** 0.5
    ...     weights = torch.softmax(
    ...         scores.masked_fill(~mask.unsqueeze(1), float("-inf")),
    ...         dim=-1,
    ...     )
    ...     return weights @ values, weights
    >>> print(
    ...     check_dot_product_attention(my_attention_with_minus_inf)
    ... )  # doctest: +ELLIPSIS
    ✗ failed on case 5 of 5 (...; a fully masked row; ...): your weights
    and context in a row with no position to attend to are not all 0: a
    softmax over a row of -inf is 0/0 = NaN ...
    """
    generator = torch.Generator().manual_seed(seed)
    specs = [  # (batch, tgt_len, d, value_dim, lengths)
        (1, 1, 4, 4, [3]),
        (2, 3, 8, 5, [6, 6]),
        (3, 2, 16, 3, [5, 2, 4]),
        (2, 4, 6, 7, [1, 4]),
        (3, 2, 5, 4, [5, 0, 3]),
    ]
    fully_masked_hint = (
        "row 1 has no position to attend to: its weights and context must "
        "be 0, not NaN"
    )
    cases = []
    for batch, tgt_len, d, value_dim, lengths in specs:
        src_len = max(lengths)
        query = torch.randn(batch, tgt_len, d, generator=generator)
        keys = torch.randn(batch, src_len, d, generator=generator)
        values = torch.randn(
            batch, src_len, value_dim, generator=generator
        )
        mask = _padding_mask(lengths, src_len)
        attn = (
            ScaledDotProductAttention()
            if scaled
            else LuongAttention(d, d, score="dot")
        )
        context, weights = attn(
            query.double(), keys.double(), values.double(), mask
        )
        note = (
            "a fully masked row"
            if min(lengths) == 0
            else "padding"
            if min(lengths) < src_len
            else ""
        )
        hint = fully_masked_hint if min(lengths) == 0 else ""
        inputs = (
            ("query", query),
            ("keys", keys),
            ("values", values),
            ("mask", mask),
        )
        slips = _dot_product_slips(
            query, keys, values, mask, (context, weights), scaled
        )
        cases.append(
            Case(
                inputs,
                (("context", context), ("attn_weights", weights)),
                note,
                hint,
                slips,
            )
        )
    reference = (
        "attnbook.ScaledDotProductAttention"
        if scaled
        else "attnbook.LuongAttention(score='dot')"
    )
    return run_cases(fn, cases, reference)


def _dot_product_slips(
    query: Tensor,
    keys: Tensor,
    values: Tensor,
    mask: Tensor,
    expected: tuple[Tensor, Tensor],
    scaled: bool,
) -> tuple[Slip, ...]:
    # (batch, tgt_len, src_len)
    dot = query.double() @ keys.double().transpose(1, 2)
    d = keys.shape[-1]
    scores = dot / math.sqrt(d) if scaled else dot
    allowed = mask.unsqueeze(1)  # (batch, 1, src_len)

    def outputs(weights: Tensor) -> tuple[Tensor, Tensor]:
        return _attend_where(weights, values), weights

    if scaled:
        scale_slips = [
            Slip(
                "your scores are not divided by sqrt(d): an unscaled dot "
                "product q·k (Luong's dot score); "
                "scaled dot-product attention divides by the square root "
                "of keys.shape[-1]; look at the "
                "scale of your scores",
                outputs(_softmax_where(dot, allowed)),
            ),
            Slip(
                "your scores are divided by d, not by sqrt(d); look at "
                "the scale of your scores",
                outputs(_softmax_where(dot / d, allowed)),
            ),
        ]
    else:
        scale_slips = [
            Slip(
                "your scores are divided by sqrt(d): that is scaled "
                "dot-product attention; Luong's dot score "
                "is the plain q·k",
                outputs(_softmax_where(dot / math.sqrt(d), allowed)),
            )
        ]
    attendable = mask.any(dim=-1, keepdim=True)  # (batch, 1)
    fully_masked = ~attendable.expand(
        -1, query.shape[1]
    )  # (batch, tgt_len)
    return (
        *scale_slips,
        Slip(
            "your weights sum to one over the target axis, not the source "
            "axis (softmax over dim=1 "
            "instead of dim=-1); look at the axis of your softmax",
            outputs(_softmax_where(scores, allowed, dim=1)),
        ),
        *_mask_slips(
            lambda keep: outputs(
                _softmax_where(
                    scores, None if keep is None else keep.unsqueeze(1)
                )
            ),
            mask,
        ),
        _fully_masked_slip(
            "weights and context",
            tuple(
                _undetermined_rows(value, fully_masked)
                for value in expected
            ),
        ),
    )
