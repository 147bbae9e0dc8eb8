"""Where code runs and how it is made repeatable:
one device helper, one seed helper, one thread helper."""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import torch

_DEVICE_CHOICES = ("auto", "cuda", "mps", "cpu")


def get_device(prefer: str = "auto") -> torch.device:
    """Return the device the book's code should run on.

    Args:
        prefer: ``"auto"`` picks CUDA when present, then Apple's MPS,
            then the CPU. ``"cuda"``, ``"mps"`` or ``"cpu"`` ask for that
            device and raise if it is not available.

    Returns:
        A :class:`torch.device`.

    Raises:
        ValueError: ``prefer`` is not one of ``auto``, ``cuda``,
            ``mps``, ``cpu``.
        RuntimeError: the requested accelerator is not available on
            this machine.

    >>> get_device("cpu")
    device(type='cpu')
    >>> get_device().type in ("cuda", "mps", "cpu")
    True
    """
    if prefer not in _DEVICE_CHOICES:
        raise ValueError(
            f"prefer must be one of {_DEVICE_CHOICES}, got {prefer!r}"
        )
    cuda_ok = torch.cuda.is_available()
    mps_ok = (
        getattr(torch.backends, "mps", None) is not None
        and torch.backends.mps.is_available()
    )
    if prefer == "auto":
        if cuda_ok:
            return torch.device("cuda")
        if mps_ok:
            return torch.device("mps")
        return torch.device("cpu")
    if prefer == "cuda" and not cuda_ok:
        raise RuntimeError(
            "prefer='cuda' but torch.cuda.is_available() is False on this "
            "machine"
        )
    if prefer == "mps" and not mps_ok:
        raise RuntimeError(
            "prefer='mps' but torch.backends.mps.is_available() is False "
            "on this machine"
        )
    return torch.device(prefer)


def set_seed(seed: int) -> torch.Generator:
    """Seed Python's, NumPy's and torch's generators (CPU and every GPU)
    with ``seed``.

    Args:
        seed: a non-negative integer.

    Returns:
        A fresh CPU :class:`torch.Generator` seeded with ``seed``,
        for code that prefers an explicit generator to the global one.

    Raises:
        TypeError: ``seed`` is not an integer.
        ValueError: ``seed`` is negative.

    >>> _ = set_seed(0)
    >>> first = torch.rand(2)
    >>> _ = set_seed(0)
    >>> torch.equal(torch.rand(2), first)
    True
    """
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed must be an int, got {type(seed).__name__}")
    if seed < 0:
        raise ValueError(f"seed must be non-negative, got {seed}")
    seed = int(seed)
    random.seed(seed)
    # seeding the legacy global generator is the point
    np.random.seed(seed % 2**32)  # noqa: NPY002
    torch.manual_seed(seed)  # also seeds every CUDA device
    return torch.Generator().manual_seed(seed)


@contextmanager
def one_thread() -> Iterator[None]:
    """Run torch's CPU operations on one thread inside the ``with`` block,
    then restore the thread count that was set.

    The book's small models gain nothing from a second thread, and on a
    busy machine each of their many small operations would wait for a
    thread the system has put aside; one thread also makes their sums, and
    so their results, the same whatever the machine's core count.

    >>> before = torch.get_num_threads()
    >>> with one_thread():
    ...     torch.get_num_threads()
    1
    >>> torch.get_num_threads() == before
    True
    """
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)
