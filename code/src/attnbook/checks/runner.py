"""The one runner behind every exercise checker: cases in, a :class:`CheckResult` out.

A checker builds a list of :class:`Case` (the inputs, the expected outputs, what the case exercises) and
hands it to :func:`run_cases`, which calls the reader's function on each case, compares what comes back
with :func:`compare`, and stops at the first case that differs. Every message has one style: ``✓ passed:
...`` or ``✗ failed on case k of n (...): ...``; an exception raised by the reader's function is a ✗ line
naming the case, never a traceback.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch import Tensor

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

    >>> from attnbook import check_masked_softmax, masked_softmax
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
class Case:
    inputs: tuple[tuple[str, Tensor], ...]  # (argument name, value), in call order
    expected: tuple[tuple[str, Tensor], ...]  # (output name, value), in return order
    note: str = ""  # what the case exercises, e.g. "padding"
    hint: str = ""  # shown only when the case fails

    def describe(self) -> str:
        shapes = ", ".join(f"{name} {tuple(value.shape)}" for name, value in self.inputs)
        return "; ".join(part for part in (shapes, self.note, self.hint) if part)


def format_number(value: float) -> str:
    return f"{value:.6g}"


def compare(name: str, got: object, expected: Tensor) -> str | None:
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
        f"[{', '.join(map(str, index))}]: expected {format_number(expected[tuple(index)].item())}, "
        f"got {format_number(got[tuple(index)].item())}"
        for index in wrong[:3]
    )
    max_diff = (got - expected).abs().nan_to_num(nan=float("inf")).max().item()
    max_text = "inf or nan" if max_diff == float("inf") else f"{max_diff:.3g}"
    return (
        f"{name} differs at {len(wrong)} of {expected.numel()} entries, e.g. {examples}. "
        f"Max abs difference: {max_text} (tolerance: atol={ATOL:g}, rtol={RTOL:g})"
    )


def run_cases(fn: Callable[..., object], cases: list[Case], reference: str) -> CheckResult:
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
            problem = compare(name, got, expected)
            if problem is not None:
                return CheckResult(False, f"✗ failed on {where}: {problem}")
    notes = list(dict.fromkeys(case.note for case in cases if case.note))
    including = f", including {', '.join(notes)}" if notes else ""
    tolerance = f"atol={ATOL:g}, rtol={RTOL:g}"
    return CheckResult(
        True, f"✓ passed: {len(cases)} random cases agree with {reference} ({tolerance}){including}."
    )
