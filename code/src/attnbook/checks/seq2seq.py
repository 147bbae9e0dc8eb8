"""Exercise checkers for chapter 6 (attention inside seq2seq),
in the style of :mod:`attnbook.checks`.

.. code-block:: python

    from attnbook.checks.seq2seq import check_masked_cross_entropy


    def my_loss(logits, tgt_out, pad_id):
        return torch.nn.functional.cross_entropy(
            logits.flatten(0, 1), tgt_out.flatten()
        )


    # fails: the padded positions count in the mean
    check_masked_cross_entropy(my_loss)
"""

from __future__ import annotations

from collections.abc import Callable

import torch
import torch.nn.functional as F
from torch import Tensor

from attnbook.checks.runner import (
    Case,
    CheckResult,
    Slip,
    compare,
    run_cases,
)
from attnbook.nmt.training import sequence_loss

_LOSS = "loss"
_GRADIENT = "gradient at the padded positions"


def _with_padding_gradient(
    fn: Callable[[Tensor, Tensor, int], Tensor],
) -> Callable[[Tensor, Tensor, int], tuple[object, Tensor | None]]:
    """``fn`` returning, besides its loss, the loss's gradient at the
    padded positions' logits."""

    def call(
        logits: Tensor, tgt_out: Tensor, pad_id: int
    ) -> tuple[object, Tensor | None]:
        leaf = logits.detach().clone().requires_grad_(True)
        loss = fn(leaf, tgt_out, pad_id)
        if (
            not isinstance(loss, Tensor)
            or loss.numel() != 1
            or not loss.requires_grad
        ):
            return loss, None
        (gradient,) = torch.autograd.grad(
            loss.sum(), leaf, allow_unused=True
        )
        padded = tgt_out == pad_id
        if gradient is None:  # the loss does not depend on the logits
            return loss, torch.zeros_like(leaf[padded])
        return loss, gradient[padded]

    return call


def _compare_loss(name: str, got: object, expected: object) -> str | None:
    if name == _LOSS:
        if not isinstance(got, Tensor) or got.numel() != 1:
            return f"expected a single-number tensor, got {got!r:.80}"
        return compare(name, got.reshape(()), expected)
    assert isinstance(expected, Tensor)
    if got is None:
        return (
            "your loss carries no gradient (requires_grad is False), so "
            "it cannot train a model: "
            "was it detached, or computed from .item() values?"
        )
    assert isinstance(got, Tensor)
    if bool(expected.any()):  # a slip's gradient
        return compare(name, got, expected)
    if bool((got != 0).any()):
        largest = got.abs().max().item()
        return (
            "the gradient reaches the padded positions (largest "
            f"|gradient| there: {largest:.3g}); it must "
            "be exactly zero: leave the padded positions out of the sum"
        )
    return None


def _loss_slips(
    logits: Tensor, tgt_out: Tensor, pad_id: int
) -> tuple[Slip, ...]:
    real = tgt_out != pad_id  # (batch, tgt_len)

    # (batch, tgt_len), padding included
    def token_losses(leaf: Tensor) -> Tensor:
        return F.cross_entropy(
            leaf.flatten(0, 1), tgt_out.flatten(), reduction="none"
        ).view_as(tgt_out)

    slips = (
        (
            "the padded positions counted in the loss: your mean includes "
            "the positions where "
            "tgt_out == pad_id; leave them out of the sum and of the "
            "count",
            lambda leaf: token_losses(leaf).mean(),
        ),
        (
            "your sum leaves the padding out, but your mean divides by "
            "every position, padding "
            "included; divide by the number of real tokens, (tgt_out != "
            "pad_id).sum()",
            lambda leaf: (token_losses(leaf) * real).sum() / real.numel(),
        ),
        (
            "you leave out the id 0, not pad_id: this case pads with "
            "another id; use the pad_id argument",
            lambda leaf: sequence_loss(leaf, tgt_out, pad_id=0)[0],
        ),
        (
            "your loss is the sum over the real tokens, not their mean; "
            "divide by their number",
            lambda leaf: (token_losses(leaf) * real).sum(),
        ),
        (
            "you averaged each sentence's mean loss: the loss is the mean "
            "over all the real tokens, so "
            "a long sentence weighs more than a short one; divide the "
            "whole sum by the number of real tokens",
            lambda leaf: (
                (token_losses(leaf) * real).sum(dim=1)
                / real.sum(dim=1).clamp_min(1)
            ).mean(),
        ),
    )
    return tuple(
        Slip(
            message,
            _with_padding_gradient(
                lambda leaf, _tgt_out, _pad_id, loss=loss: loss(leaf)
            )(logits, tgt_out, pad_id),
        )
        for message, loss in slips
    )


def check_masked_cross_entropy(
    fn: Callable[[Tensor, Tensor, int], Tensor], seed: int = 0
) -> CheckResult:
    """Check ``fn(logits, tgt_out, pad_id)``:
    the mean cross-entropy over the target tokens that are not padding.

    Cases: a batch without padding, sentences of different lengths padded
    with ``pad_id=0``, a pad id other than 0, and padded positions whose
    logits are huge (they must change nothing).
    The loss must carry a gradient, and the gradient at every padded
    position must be exactly zero. Compared with
    :func:`attnbook.nmt.training.sequence_loss`.

    Args:
        fn: the reader's function. ``logits``:
            ``(batch, tgt_len, vocab)``; ``tgt_out``:
            ``(batch, tgt_len)`` ids; returns a 0-dim tensor.
        seed: the seed of the random cases.

    Returns:
        A :class:`~attnbook.checks.CheckResult`.

    >>> print(
    ...     check_masked_cross_entropy(
    ...         lambda logits, tgt_out, pad_id: sequence_loss(
    ...             logits, tgt_out, pad_id=pad_id
    ...         )[0]
    ...     )
    ... )  # doctest: +ELLIPSIS
    ✓ passed: 4 random cases agree with
    attnbook.nmt.training.sequence_loss, including no padding, ...
    """
    generator = torch.Generator().manual_seed(seed)
    specs = []
    for lengths, pad_id, note in [
        ([4, 4], 0, "no padding"),
        ([5, 2, 3], 0, "sentences of different lengths padded with 0"),
        ([3, 1, 4], 2, "padding with another id, 2"),
    ]:
        tgt_len, vocab = max(lengths), 7
        logits = torch.randn(
            len(lengths),
            tgt_len,
            vocab,
            generator=generator,
            dtype=torch.float64,
        )
        choices = [t for t in range(vocab) if t != pad_id]
        tgt_out = torch.tensor(choices)[
            torch.randint(
                len(choices), (len(lengths), tgt_len), generator=generator
            )
        ]
        for row, length in enumerate(lengths):
            tgt_out[row, length:] = pad_id
        specs.append((logits, tgt_out, pad_id, note, ""))
    logits, tgt_out, pad_id, _, _ = specs[1]
    loud = logits.clone()
    loud[tgt_out == pad_id] = 1e4 * torch.randn(
        int((tgt_out == pad_id).sum()),
        loud.size(-1),
        generator=generator,
        dtype=loud.dtype,
    )
    loud_hint = (
        "they must change nothing: an overflow there times a mask of 0 is "
        "NaN, not 0"
    )
    specs.append(
        (
            loud,
            tgt_out,
            pad_id,
            "huge logits at the padded positions",
            loud_hint,
        )
    )

    cases = []
    for logits, tgt_out, pad_id, note, hint in specs:
        expected = sequence_loss(logits, tgt_out, pad_id=pad_id)[0]
        padded_gradient = torch.zeros(
            int((tgt_out == pad_id).sum()),
            logits.size(-1),
            dtype=torch.float64,
        )
        inputs = (
            ("logits", logits),
            ("tgt_out", tgt_out),
            ("pad_id", pad_id),
        )
        outputs = ((_LOSS, expected), (_GRADIENT, padded_gradient))
        slips = _loss_slips(logits, tgt_out, pad_id)
        cases.append(
            Case(inputs, outputs, note, hint, slips, compare=_compare_loss)
        )
    return run_cases(
        _with_padding_gradient(fn),
        cases,
        "attnbook.nmt.training.sequence_loss",
    )
