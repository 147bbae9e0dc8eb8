"""The peak memory of a computation's tensors, counted on any device by
watching every operation PyTorch dispatches.

:func:`peak_tensor_memory` runs a function under a
:class:`~torch.utils._python_dispatch.TorchDispatchMode` that sees the
output of every ATen operation. A new storage adds its bytes to a running
total; when the last tensor that holds it dies, its bytes are taken off.
The peak of that total is the most memory the function's tensors held at
once, beyond its inputs. It counts tensors, not the allocator: memory an
operation uses inside its kernel and frees before returning, and the
allocator's caching and rounding, are not seen.

>>> import torch
>>> def two_temporaries():
...     first = torch.ones(1000)  # 4,000 bytes, freed before the next
...     del first
...     second = torch.ones(2000)  # 8,000 bytes
...     return second.sum()
>>> peak_tensor_memory(two_temporaries)
8004
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten


class _LiveTensorBytes(TorchDispatchMode):
    """Counts the bytes of the storages the dispatched operations create,
    while any tensor that uses them is alive."""

    def __init__(self) -> None:
        super().__init__()  # type: ignore[no-untyped-call]
        self.current = 0
        self.peak = 0
        # storage address -> [bytes, live tensors that use it]
        self._live: dict[int, list[int]] = {}

    def __torch_dispatch__(
        self,
        func: Any,
        types: Any,
        args: Any = (),
        kwargs: Any = None,
    ) -> Any:
        output = func(*args, **(kwargs or {}))
        for tensor in tree_flatten(output)[0]:
            if isinstance(tensor, torch.Tensor):
                self._track(tensor)
        return output

    def _track(self, tensor: torch.Tensor) -> None:
        storage = tensor.untyped_storage()
        address, size = storage.data_ptr(), storage.nbytes()
        if address == 0 or size == 0:
            return
        if address not in self._live:
            self._live[address] = [size, 0]
            self.current += size
            self.peak = max(self.peak, self.current)
        self._live[address][1] += 1
        weakref.finalize(tensor, self._release, address)

    def _release(self, address: int) -> None:
        entry = self._live.get(address)
        if entry is None:
            return
        entry[1] -= 1
        if entry[1] == 0:
            self.current -= entry[0]
            del self._live[address]


def peak_tensor_memory(fn: Callable[[], object]) -> int:
    """The largest number of bytes that the tensors ``fn`` creates hold at
    one time during one call of ``fn()`` (its inputs, created before the
    call, are not counted; its result is, while it is alive).

    Run it under ``torch.no_grad()`` to leave out what autograd would
    save for the backward pass (or inside, to count it).
    """
    counter = _LiveTensorBytes()
    with counter:
        result = fn()
    del result
    return counter.peak
