"""Exercise checkers for chapter 6 (attention inside seq2seq), in the style of :mod:`attnbook.checks`.

.. code-block:: python

    from attnbook.checks.seq2seq import check_masked_cross_entropy


    def my_loss(logits, tgt_out, pad_id):
        return torch.nn.functional.cross_entropy(logits.flatten(0, 1), tgt_out.flatten())


    check_masked_cross_entropy(my_loss)  # fails: the padded positions count in the mean
"""

from __future__ import annotations

from collections.abc import Callable

import torch
import torch.nn.functional as F
from torch import Tensor

from attnbook.checks.runner import CheckResult
from attnbook.nmt.training import sequence_loss

_TOLERANCE = 1e-5


def _reference_loss(logits: Tensor, tgt_out: Tensor, pad_id: int) -> Tensor:
    """The package's loss for ``pad_id=0`` (the book's vocabularies); PyTorch's ``ignore_index`` otherwise."""
    if pad_id == 0:
        return sequence_loss(logits, tgt_out)[0]
    return F.cross_entropy(logits.flatten(0, 1), tgt_out.flatten(), ignore_index=pad_id)


def check_masked_cross_entropy(fn: Callable[[Tensor, Tensor, int], Tensor], seed: int = 0) -> CheckResult:
    """Check ``fn(logits, tgt_out, pad_id)``: the mean cross-entropy over the target tokens that are not padding.

    Cases: a batch without padding, sentences of different lengths padded with ``pad_id=0``, a pad id
    other than 0, and padded positions whose logits are huge (they must change nothing). The gradient
    at every padded position must be exactly zero.

    Args:
        fn: the reader's function. ``logits``: ``(batch, tgt_len, vocab)``; ``tgt_out``: ``(batch, tgt_len)``
            ids; returns a 0-dim tensor.
        seed: the seed of the random cases.

    Returns:
        A :class:`~attnbook.checks.CheckResult`.
    """
    generator = torch.Generator().manual_seed(seed)
    cases = []
    for lengths, pad_id, note in [
        ([4, 4], 0, "no padding"),
        ([5, 2, 3], 0, "sentences of different lengths, pad_id=0"),
        ([3, 1, 4], 2, "pad_id=2"),
    ]:
        tgt_len, vocab = max(lengths), 7
        logits = torch.randn(len(lengths), tgt_len, vocab, generator=generator, dtype=torch.float64)
        choices = [t for t in range(vocab) if t != pad_id]
        tgt_out = torch.tensor(choices)[
            torch.randint(len(choices), (len(lengths), tgt_len), generator=generator)
        ]
        for row, length in enumerate(lengths):
            tgt_out[row, length:] = pad_id
        cases.append((logits, tgt_out, pad_id, note))
    logits, tgt_out, pad_id, _ = cases[1]
    loud = logits.clone()
    loud[tgt_out == pad_id] = 1e4 * torch.randn(
        int((tgt_out == pad_id).sum()), loud.size(-1), generator=generator, dtype=loud.dtype
    )
    cases.append((loud, tgt_out, pad_id, "huge logits at the padded positions"))

    for logits, tgt_out, pad_id, note in cases:
        expected = _reference_loss(logits, tgt_out, pad_id)
        leaf = logits.clone().requires_grad_(True)
        try:
            got = fn(leaf, tgt_out.clone(), pad_id)
        except Exception as error:  # the reader's code may fail in any way: report it as a failed case
            return CheckResult(False, f"✗ {note}: your function raised {type(error).__name__}: {error}")
        if not isinstance(got, Tensor) or got.numel() != 1:
            return CheckResult(False, f"✗ {note}: expected a single-number tensor, got {got!r:.80}")
        value, reference = float(got.detach()), float(expected)
        if abs(value - reference) > _TOLERANCE * max(1.0, abs(reference)):
            hint = " (are the padded positions counted in the mean?)" if note != "no padding" else ""
            return CheckResult(False, f"✗ {note}: expected loss {reference:.6f}, got {value:.6f}{hint}")
        if got.requires_grad:
            got.backward()
            padded = tgt_out == pad_id
            if leaf.grad is not None and padded.any() and leaf.grad[padded].abs().max() > 0:
                return CheckResult(
                    False, f"✗ {note}: the gradient reaches padded positions; it must be exactly zero"
                )
    return CheckResult(True, f"✓ passed: {len(cases)} cases agree with attnbook.nmt.training.sequence_loss")
