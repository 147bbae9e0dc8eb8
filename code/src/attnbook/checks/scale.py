"""Exercise checkers for the chapter on attention at scale, in the style of
:mod:`attnbook.checks`.

.. code-block:: python

    from attnbook.checks.scale import check_sliding_window_mask


    def my_sliding_window_mask(length, window):
        i = torch.arange(length)[:, None]
        j = torch.arange(length)[None, :]
        return (j <= i) & (i - j <= window)  # wrong: window + 1 positions


    check_sliding_window_mask(my_sliding_window_mask)  # names the slip
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor

from attnbook.checks.runner import Case, CheckResult, Slip, run_cases
from attnbook.layers.multihead import causal_mask
from attnbook.layers.scale import sliding_window_mask


def _window_slips(length: int, window: int) -> tuple[Slip, ...]:
    expected = sliding_window_mask(length, window)
    offsets = (
        torch.arange(length)[:, None] - torch.arange(length)[None, :]
    )  # i - j
    return (
        Slip(
            "your mask is inverted: True must mean may attend (the book's "
            "convention), not may not; look at where you negate",
            (~expected,),
        ),
        Slip(
            "each position sees window + 1 positions: the last `window` "
            "positions are i - window + 1 ... i, so i - j < window "
            "(an off-by-one)",
            (sliding_window_mask(length, window + 1),),
        ),
        Slip(
            "your window looks both ways: a decoder's window must be "
            "causal as well, j <= i (Luong's local attention looks both "
            "ways, over source positions)",
            (offsets.abs() < window,),
        ),
        Slip(
            "your window ignores the window: it is the plain causal mask",
            (causal_mask(length),),
        ),
    )


def check_sliding_window_mask(
    fn: Callable[[int, int], Tensor],
) -> CheckResult:
    """Check a reader's sliding-window mask.

    Expected signature: ``fn(length, window) -> mask``, ``mask`` boolean
    ``(length, length)``, **True = may attend**: query ``i`` may attend to
    key ``j`` when ``i - window < j <= i``, as
    :func:`~attnbook.layers.scale.sliding_window_mask` gives.

    Returns:
        A :class:`~attnbook.checks.CheckResult`.
    """
    cases = [
        Case(
            (("length", length), ("window", window)),
            (("mask", sliding_window_mask(length, window)),),
            slips=_window_slips(length, window),
            label=f"length {length}, window {window}",
        )
        for length, window in ((6, 3), (8, 2), (5, 1), (4, 4), (7, 10))
    ]
    return run_cases(
        fn,
        cases,
        "attnbook.layers.sliding_window_mask",
        random_cases=False,
    )
