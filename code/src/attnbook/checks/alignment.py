"""Exercise checkers for where attention looks: a reader's local-p
attention (chapter 3) and a reader's alignment matrix (chapter 1), in the
style of :mod:`attnbook.checks.attention`.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
from torch import Tensor

from attnbook.checks.attention import (
    _fully_masked_slip,
    _padding_mask,
    _softmax_where,
    _undetermined_rows,
)
from attnbook.checks.runner import Case, CheckResult, Slip, run_cases
from attnbook.core.alignment import alignment_matrix


def check_local_attention(
    fn: Callable[[Tensor, Tensor, Tensor, int], Tensor], seed: int = 0
) -> CheckResult:
    r"""Check a reader's weights of Luong's *local* attention around a
    predicted centre.

    Luong et al. (2015) score only a window of the source around a centre
    :math:`p_i`: the weights are a softmax over the positions :math:`j`
    with :math:`|j - p_i| \le D` that may be attended, multiplied by a
    Gaussian :math:`\exp(-(j - p_i)^2 / (2\sigma^2))` with :math:`\sigma =
    D / 2`. They do not sum to one. Positions outside the window or masked
    get 0, and a row whose window holds no attendable position gets all 0,
    not NaN.

    Expected signature: ``fn(scores, mask, centre, half_width)
    -> attn_weights``, with

    - ``scores``: float32 ``(batch, src_len)``, the raw scores of
      every position;
    - ``mask``: boolean ``(batch, src_len)``, **True = may attend**;
    - ``centre``: float32 ``(batch,)``, :math:`p_i`, a real number in
      ``[0, src_len - 1]``;
    - ``half_width``: the int :math:`D`;
    - ``attn_weights``: ``(batch, src_len)``.

    The cases include a centre between two positions, a window cut by the
    sentence's end, padding, and a window that holds only padding.
    Returns a :class:`CheckResult`.

    >>> from attnbook.layers import masked_softmax
    >>> def my_local_weights(scores, mask, centre, half_width):
    ...     positions = torch.arange(scores.shape[-1], dtype=scores.dtype)
    ...     distance = positions - centre.unsqueeze(-1)  # (batch, src_len)
    ...     in_window = mask & (distance.abs() <= half_width)
    ...     gaussian = torch.exp(
    ...         -(distance**2) / (2 * (half_width / 2) ** 2)
    ...     )
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
    hints = {
        "a window that holds only padding": "row 1's window has no real "
        "position: its weights must "
        "be 0"
    }
    cases = []
    for lengths, src_len, centres, half_width, note in specs:
        scores = torch.randn(len(lengths), src_len, generator=generator)
        mask = _padding_mask(lengths, src_len)
        centre = torch.tensor(centres)
        expected = torch.zeros(len(lengths), src_len, dtype=torch.float64)
        sigma = half_width / 2
        for row in range(
            len(lengths)
            # one row and one position at a time:
            # an oracle by the definition
        ):
            window = [
                j
                for j in range(src_len)
                if mask[row, j] and abs(j - centres[row]) <= half_width
            ]
            if not window:
                continue
            exps = {j: torch.exp(scores[row, j].double()) for j in window}
            total = sum(exps.values())
            for j in window:
                gaussian = torch.exp(
                    torch.tensor(
                        -((j - centres[row]) ** 2) / (2 * sigma**2),
                        dtype=torch.float64,
                    )
                )
                expected[row, j] = exps[j] / total * gaussian
        inputs = (
            ("scores", scores),
            ("mask", mask),
            ("centre", centre),
            ("half_width", half_width),
        )
        slips = _local_slips(scores, mask, centre, half_width, expected)
        cases.append(
            Case(
                inputs,
                (("attn_weights", expected),),
                note,
                hints.get(note, ""),
                slips,
            )
        )
    return run_cases(
        fn, cases, "Luong's local attention, computed position by position"
    )


def _local_weights(
    scores: Tensor,
    mask: Tensor | None,
    centre: Tensor,
    half_width: int,
    *,
    edges: bool = True,
    softmax_over_window: bool = True,
    sigma: float | None = None,
    gaussian: bool = True,
    renormalise: bool = False,
) -> Tensor:
    """Local-p weights with one step changed (the keywords), NaN in rows
    with nothing to attend to."""
    positions = torch.arange(scores.shape[-1], dtype=torch.float64)
    # (batch, src_len)
    distance = positions - centre.double().unsqueeze(-1)
    window = (
        distance.abs() <= half_width
        if edges
        else distance.abs() < half_width
    )
    allowed = window if mask is None else window & mask
    weights = _softmax_where(
        scores, allowed if softmax_over_window else mask
    )
    weights = weights.masked_fill(~allowed & ~weights.isnan(), 0.0)
    weights = weights.masked_fill(
        ~allowed.any(dim=-1, keepdim=True), math.nan
    )
    if gaussian:
        sigma = half_width / 2 if sigma is None else sigma
        weights = weights * torch.exp(-(distance**2) / (2 * sigma**2))
    if renormalise:
        weights = weights / weights.sum(dim=-1, keepdim=True)
    return weights


def _local_slips(
    scores: Tensor,
    mask: Tensor,
    centre: Tensor,
    half_width: int,
    expected: Tensor,
) -> tuple[Slip, ...]:
    def local(**change: object) -> tuple[Tensor]:
        return (
            _local_weights(scores, mask, centre, half_width, **change),
        )  # type: ignore[arg-type]

    empty_window = (
        _local_weights(scores, mask, centre, half_width)
        .isnan()
        .all(dim=-1)
    )  # (batch,)
    return (
        Slip(
            "your weights are the window's softmax without the Gaussian "
            "exp(-(j - p)^2 / (2 sigma^2)); "
            "multiply the softmax by it",
            local(gaussian=False),
        ),
        Slip(
            "your weights sum to one: you renormalised after the "
            "Gaussian; local attention's weights are "
            "the window's softmax times the Gaussian, and do not sum to "
            "one",
            local(renormalise=True),
        ),
        Slip(
            "your Gaussian is too wide: sigma = D where Luong et al. take "
            "sigma = D / 2; look at sigma",
            local(sigma=float(half_width)),
        ),
        Slip(
            "your softmax runs over the whole sentence, not the window: "
            "leave the positions outside "
            "|j - p| <= D out before the softmax, not after it",
            local(softmax_over_window=False),
        ),
        Slip(
            "your window leaves out its edges (|j - p| < D): the window "
            "is |j - p| <= D; look at the "
            "comparison that builds the window",
            local(edges=False),
        ),
        Slip(
            "your weights are not 0 at the padded positions inside the "
            "window: the mask is ignored; a "
            "position must be both in the window and allowed by the mask",
            (_local_weights(scores, None, centre, half_width),),
        ),
        _fully_masked_slip(
            "weights", (_undetermined_rows(expected, empty_window),)
        ),
    )


def check_alignment_matrix(
    fn: Callable[[list[tuple[int, int]], int, int], Tensor],
) -> CheckResult:
    """Check a reader's version of
    :func:`attnbook.core.alignment.alignment_matrix`.

    Expected signature: ``fn(links, tgt_len, src_len) -> matrix``, with

    - ``links``: a list of ``(i, j)`` pairs, target position ``i`` aligned
      to source position ``j``;
    - ``matrix``: ``(tgt_len, src_len)``; each linked row shares one unit
      of weight evenly among its links, an unlinked row is all zeros.

    The cases include a one-to-one diagonal, a crossing (adjective-noun
    reordering), a target word with two links, a source word used twice and
    a target word with no link. Returns a :class:`CheckResult`.

    >>> print(
    ...     check_alignment_matrix(alignment_matrix)
    ... )  # doctest: +ELLIPSIS
    ✓ passed: 4 cases agree with attnbook.core.alignment.alignment_matrix
    (atol=1e-05, rtol=0.0001), ...

    Forgetting to share a row's unit among its links is a slip the
    checker names:

    >>> def my_alignment_matrix(links, tgt_len, src_len):
    ...     matrix = torch.zeros(tgt_len, src_len)
    ...     for i, j in links:
    ...         matrix[i, j] = 1.0
    ...     return matrix
    >>> print(
    ...     check_alignment_matrix(my_alignment_matrix)
    ... )  # doctest: +ELLIPSIS
    ✗ failed on case 3 of 4 (...): a target word with several links puts 1
    on each: ...
    """
    cases = []
    for links, tgt_len, src_len, note in [
        ([(0, 0), (1, 1), (2, 2)], 3, 3, "one-to-one"),
        ([(0, 0), (1, 2), (2, 1)], 3, 3, "a crossing"),
        (
            [(0, 0), (1, 1), (1, 2), (2, 2)],
            3,
            4,
            "one target word with two links, a source word used twice",
        ),
        ([(0, 1), (2, 0)], 3, 2, "a target word with no link"),
    ]:
        expected = alignment_matrix(
            links, tgt_len, src_len, dtype=torch.float64
        )
        inputs = (
            ("links", links),
            ("tgt_len", tgt_len),
            ("src_len", src_len),
        )
        cases.append(
            Case(
                inputs,
                (("matrix", expected),),
                note,
                slips=_alignment_slips(links, expected),
            )
        )
    return run_cases(
        fn,
        cases,
        "attnbook.core.alignment.alignment_matrix",
        random_cases=False,
    )


def _alignment_slips(
    links: list[tuple[int, int]], expected: Tensor
) -> tuple[Slip, ...]:
    ones = torch.zeros_like(expected)
    for i, j in links:
        ones[i, j] = 1.0
    unlinked = ones.sum(dim=1) == 0
    return (
        Slip(
            "a target word with several links puts 1 on each: each linked "
            "row shares one unit of weight "
            "among its links; divide each row by its number of links",
            (ones,),
        ),
        Slip(
            "your columns sum to one (each source word shares its weight "
            "among the target words), not "
            "your rows; divide each row by its own sum, matrix.sum(dim=1, "
            "keepdim=True)",
            (ones / ones.sum(dim=0, keepdim=True).clamp_min(1.0),),
        ),
        Slip(
            "your matrix is (src_len, tgt_len), the transpose: row i is "
            "target position i and column j "
            "source position j; look at matrix[i, j]",
            (expected.T,),
        ),
        Slip(
            "the row of a target word with no link must be all zeros "
            "(dividing by its sum, 0, gives NaN): "
            "clamp the row sums to at least 1 before dividing",
            (_undetermined_rows(expected, unlinked),),
        ),
    )
