"""The exercise checker of the backpropagation chapter: a reader's
Jacobian of the softmax, in the style of :mod:`attnbook.checks.attention`.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor

from attnbook.checks.runner import Case, CheckResult, Slip, run_cases


def check_softmax_jacobian(
    fn: Callable[[Tensor], Tensor], seed: int = 0
) -> CheckResult:
    r"""Check a reader's softmax Jacobian :math:`\partial a_i / \partial
    e_j = \mathrm{diag}(a) - a a^\top`.

    Expected signature: ``fn(attn_weights) -> jacobian``, with

    - ``attn_weights``: float32 ``(src_len,)``, the softmax ``a`` of some
      scores ``e``;
    - ``jacobian``: ``(src_len, src_len)``, entry ``[i, j]`` is
      :math:`\partial a_i / \partial e_j`.

    Compared with autograd's Jacobian of :func:`torch.softmax`
    (``torch.autograd.functional.jacobian``), including a peaked (nearly
    one-hot) case. Returns a :class:`CheckResult`.

    >>> check_softmax_jacobian(
    ...     lambda a: torch.diag(a) - torch.outer(a, a)
    ... ).passed
    True
    """
    generator = torch.Generator().manual_seed(seed)
    cases = []
    for src_len, scale, note in [
        (1, 1.0, ""),
        (3, 1.0, ""),
        (5, 1.0, ""),
        (8, 6.0, "a peaked softmax"),
    ]:
        scores = scale * torch.randn(
            src_len, generator=generator, dtype=torch.float64
        )
        expected = torch.autograd.functional.jacobian(
            lambda s: torch.softmax(s, dim=-1), scores
        )
        weights = torch.softmax(scores, dim=-1).float()
        cases.append(
            Case(
                (("attn_weights", weights),),
                (("jacobian", expected),),
                note,
                slips=_jacobian_slips(weights),
            )
        )
    return run_cases(fn, cases, "autograd's Jacobian of torch.softmax")


def _jacobian_slips(weights: Tensor) -> tuple[Slip, ...]:
    a = weights.double()
    where = "look at J = diag(a) - a a^T"
    return (
        Slip(
            "your Jacobian has only its diagonal a_i (1 - a_i): the "
            f"off-diagonal entries -a_i a_j are missing; {where}",
            (torch.diag(a * (1 - a)),),
        ),
        Slip(
            "your Jacobian has the wrong sign: a a^T - diag(a) is its "
            f"negative; {where}",
            (torch.outer(a, a) - torch.diag(a),),
        ),
        Slip(
            "your Jacobian is diag(a), the derivative of exp(e_i) / (a "
            "constant): the normalisation's "
            f"term -a a^T is missing; {where}",
            (torch.diag(a),),
        ),
        Slip(
            "you subtract a_j^2 in every row (a**2, broadcast) where the "
            "outer product a a^T belongs: "
            f"use torch.outer(a, a); {where}",
            (torch.diag(a) - a**2,),
        ),
    )
