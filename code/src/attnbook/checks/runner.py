"""The one runner behind every exercise checker:
cases in, a :class:`CheckResult` out.

A checker builds a list of :class:`Case` (the inputs, the expected outputs,
what the case exercises, the classic slips it can recognise)
and hands it to :func:`run_cases`, which calls the reader's function on
each case, compares what comes back with the case's comparison
(:func:`compare` for tensors; a checker gives its own for counts,
masks or splits), and stops at the first case that differs.
Every message has one style: ``✓ passed: ...`` or ``✗ failed on case k of n
(...): ...``. An exception raised by the reader's function is a ✗ line
naming the case and the exception, never a traceback.
When the reader's output is the output of one of the case's :class:`Slip`
(the package's answer with a classic mistake made on purpose),
on that case and on every later one, the ✗ line names that mistake and
where to look instead of listing the entries.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch
from torch import Tensor

ATOL = 1e-5
RTOL = 1e-4
"""The tolerance of every checker: ``|got - expected| <= ATOL + RTOL *
|expected|`` entry by entry."""

Comparison = Callable[[str, object, object], "str | None"]
"""``comparison(name, got, expected)``: why ``got`` differs from
``expected``, or None when it agrees."""


@dataclass(frozen=True, repr=False)
class CheckResult:
    """The outcome of a checker: whether it passed and a message that
    says why.

    In a notebook the result displays as its message;
    ``bool(result)`` is ``result.passed``.

    Attributes:
        passed: True when every case agreed with the package.
        message: "✓ passed: ..." or the first failure:
            the case (its shapes), then either the classic slip the output
            shows and where to look, or the entries that differ,
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
class Slip:
    """A classic mistake a case recognises: what a function making it
    returns, and the words that name it.

    Attributes:
        message: what the slip is and where to look;
            the same words in every case, so that the runner can follow one
            slip from case to case.
        outputs: the outputs of the package's answer with the slip made,
            in return order. NaN entries of a tensor are the parts the slip
            does not determine (they depend on how the rest was written,
            e.g. a row with nothing to attend to) and match anything.
    """

    message: str
    outputs: tuple[object, ...]


def format_number(value: float) -> str:
    return f"{value:.6g}"


def compare(name: str, got: object, expected: object) -> str | None:
    """Return why the tensor ``got`` differs from ``expected``,
    or None when it agrees.

    Entries agree within :data:`ATOL` and :data:`RTOL`;
    a NaN in ``expected`` accepts any value (a :class:`Slip` marks with NaN
    the entries it does not determine; the package's answers have none).
    """
    assert isinstance(expected, Tensor)
    if not isinstance(got, Tensor):
        return (
            f"{name} should be a torch.Tensor of shape "
            f"{tuple(expected.shape)}, got {type(got).__name__}"
        )
    if got.shape != expected.shape:
        return (
            f"{name} should have shape {tuple(expected.shape)}, got "
            f"{tuple(got.shape)}"
        )
    if got.dtype == torch.bool or expected.dtype == torch.bool:
        return _compare_booleans(name, got, expected)
    got = got.detach().to("cpu", torch.float64)
    expected = expected.to(torch.float64)
    close = (
        torch.isclose(got, expected, rtol=RTOL, atol=ATOL)
        | expected.isnan()
    )
    if bool(close.all()):
        return None
    wrong = (~close).nonzero().tolist()
    examples = "; ".join(
        f"[{', '.join(map(str, index))}]: expected "
        f"{format_number(expected[tuple(index)].item())}, "
        f"got {format_number(got[tuple(index)].item())}"
        for index in wrong[:3]
    )
    max_diff = (
        (got - expected)[~close]
        .abs()
        .nan_to_num(nan=math.inf)
        .max()
        .item()
    )
    max_text = "inf or nan" if max_diff == math.inf else f"{max_diff:.3g}"
    return (
        f"{name} differs at {len(wrong)} of {expected.numel()} entries, "
        f"e.g. {examples}. "
        f"Max abs difference: {max_text} (tolerance: atol={ATOL:g}, "
        f"rtol={RTOL:g})"
    )


def _compare_booleans(
    name: str, got: Tensor, expected: Tensor
) -> str | None:
    if got.dtype != expected.dtype:
        want = (
            "a boolean tensor (True = may attend)"
            if expected.dtype == torch.bool
            else expected.dtype
        )
        return f"{name} should be {want}, got dtype {got.dtype}"
    wrong = (got.cpu() != expected).nonzero().tolist()
    if not wrong:
        return None
    examples = "; ".join(
        f"[{', '.join(map(str, index))}]: expected "
        f"{bool(expected[tuple(index)])}, got "
        f"{bool(got[tuple(index)])}"
        for index in wrong[:3]
    )
    return (
        f"{name} differs at {len(wrong)} of {expected.numel()} entries, "
        f"e.g. {examples}"
    )


@dataclass(frozen=True)
class Case:
    """One call of the reader's function, what it must return,
    and the slips it recognises.

    Attributes:
        inputs: ``(argument name, value)`` in call order;
            tensors and lists are copied before each call, so a function
            that writes into its arguments cannot change the case.
        expected: ``(output name, value)`` in return order.
        note: what the case exercises, e.g. "padding";
            listed in the passing message.
        hint: shown only when the case fails.
        slips: the classic mistakes this case recognises, tried in order.
        compare: how an output is compared with its expected value (and
            with a slip's).
        label: how the case's inputs are described;
            by default each tensor's shape and every other value
            as written.
    """

    inputs: tuple[tuple[str, object], ...]
    expected: tuple[tuple[str, object], ...]
    note: str = ""
    hint: str = ""
    slips: tuple[Slip, ...] = ()
    compare: Comparison = compare
    label: str = ""

    def describe(self) -> str:
        shapes = self.label or ", ".join(
            f"{name} {tuple(value.shape)}"
            if isinstance(value, Tensor)
            else f"{name} {value!r}"
            for name, value in self.inputs
        )
        return "; ".join(
            part for part in (shapes, self.note, self.hint) if part
        )

    def call(self, fn: Callable[..., object]) -> object:
        return fn(*(_copy(value) for _, value in self.inputs))

    def problems(
        self, output: object, wanted: Sequence[object]
    ) -> list[str]:
        """Why ``output`` is not ``wanted`` (the expected outputs or a
        slip's), one line per output."""
        names = [name for name, _ in self.expected]
        if len(names) == 1:
            outputs = [output]
        elif isinstance(output, (tuple, list)) and len(output) == len(
            names
        ):
            outputs = list(output)
        else:
            got = type(output).__name__
            if isinstance(output, (tuple, list)):
                got = f"a {got} of length {len(output)}"
            kind = "pair" if len(names) == 2 else "tuple"
            return [f"expected a ({', '.join(names)}) {kind}, got {got}"]
        found = []
        for name, got, want in zip(names, outputs, wanted, strict=True):
            problem = self.compare(name, got, want)
            if problem is not None:
                found.append(problem)
        return found


def _copy(value: object) -> object:
    if isinstance(value, Tensor):
        return value.clone()
    if isinstance(value, list):
        return list(value)
    return value


def _call(fn: Callable[..., object], case: Case) -> tuple[bool, object]:
    try:
        return True, case.call(fn)
    # the reader's code may fail in any way: the ✗ line names it
    except Exception as exc:
        return False, exc


def _determines(slip: Slip) -> bool:
    """Whether the slip says anything about the outputs (they are not
    all NaN)."""
    return any(
        not (
            isinstance(output, Tensor)
            and output.is_floating_point()
            and bool(output.isnan().all())
        )
        for output in slip.outputs
    )


def _slips_shown(
    fn: Callable[..., object],
    cases: list[Case],
    failed: int,
    output: object,
) -> list[str]:
    """The messages of the slips the output of case ``failed`` shows.

    The candidates are the slips whose output the reader's matches on the
    failing case. The cases after it confirm them:
    a slip whose output the reader's does not match there is dropped (a
    match on one case may be a coincidence; the same slip gives the same
    output on every case). A slip is named only if it matched somewhere it
    determined the output (not only NaN).
    """
    case = cases[failed]
    candidates = {
        slip.message: _determines(slip)
        for slip in case.slips
        if not case.problems(output, slip.outputs)
    }
    for later_case in cases[failed + 1 :]:
        if not candidates:
            break
        ran, later = _call(fn, later_case)
        if not ran:
            break
        slips = {slip.message: slip for slip in later_case.slips}
        for message in list(candidates):
            slip = slips.get(message)
            if slip is None:
                continue
            if later_case.problems(later, slip.outputs):
                del candidates[message]
            else:
                candidates[message] = candidates[message] or _determines(
                    slip
                )
    return [
        message for message, determined in candidates.items() if determined
    ]


def run_cases(
    fn: Callable[..., object],
    cases: list[Case],
    agree_with: str,
    *,
    random_cases: bool = True,
) -> CheckResult:
    """Run the reader's ``fn`` on every case and say whether it agrees
    with ``agree_with``.

    Args:
        fn: the reader's function, called with each case's inputs.
        cases: the cases, in the order they are tried;
            the first that fails ends the check.
        agree_with: what the expected outputs are, for the passing message
            ("attnbook.masked_softmax").
        random_cases: whether the cases were drawn at random (said in the
            passing message).

    Returns:
        A :class:`CheckResult`: ``✓ passed: n [random] cases agree with
        ...`` or ``✗ failed on case k of
        n (the case): ...``, naming the exception the function raised,
        the slip its output shows, or the entries that differ.
    """
    for index, case in enumerate(cases):
        where = f"case {index + 1} of {len(cases)} ({case.describe()})"
        ran, output = _call(fn, case)
        if not ran:
            return CheckResult(
                False,
                f"✗ failed on {where}: your function raised "
                f"{type(output).__name__}: {output}",
            )
        problems = case.problems(
            output, [value for _, value in case.expected]
        )
        if not problems:
            continue
        slips = _slips_shown(fn, cases, index, output)
        if slips:
            named = "; or ".join(slips)
            return CheckResult(False, f"✗ failed on {where}: {named}")
        return CheckResult(False, f"✗ failed on {where}: {problems[0]}")
    notes = list(dict.fromkeys(case.note for case in cases if case.note))
    including = f", including {', '.join(notes)}" if notes else ""
    within_tolerance = all(
        case.compare is compare
        and all(value.is_floating_point() for _, value in case.expected)
        for case in cases
    )
    tolerance = (
        f" (atol={ATOL:g}, rtol={RTOL:g})" if within_tolerance else ""
    )
    drawn = "random cases" if random_cases else "cases"
    return CheckResult(
        True,
        f"✓ passed: {len(cases)} {drawn} agree with "
        f"{agree_with}{tolerance}{including}.",
    )
