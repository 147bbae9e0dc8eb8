"""Named shapes, asserted as the data flows through a walk-through (after the TensorFlow NMT tutorial's
``ShapeChecker`` and d2l's ``check_shape``)."""

from __future__ import annotations

import torch


class ShapeChecker:
    """Checks tensors against named sizes and describes them in one line each.

    .. code-block:: python

        shapes = ShapeChecker(batch=2, src_len=5, key_dim=8)
        print(
            shapes.check("keys", keys, "batch src_len key_dim")
        )  # keys   (2, 5, 8)   (batch, src_len, key_dim)

    Args:
        **sizes: each named dimension's size, e.g. ``batch=2, src_len=5``.
    """

    def __init__(self, **sizes: int) -> None:
        self.sizes: dict[str, int] = {}
        self.update(**sizes)

    def update(self, **sizes: int) -> None:
        """Add named sizes or change existing ones."""
        for dim, size in sizes.items():
            if isinstance(size, bool) or not isinstance(size, int) or size < 0:
                raise ValueError(f"size of {dim!r} must be a non-negative int, got {size!r}")
        self.sizes.update(sizes)

    def check(self, name: str, tensor: torch.Tensor, dims: str) -> str:
        """Assert that ``tensor`` has the shape that ``dims`` names, and describe it.

        Args:
            name: what the tensor is, for the description and the error.
            tensor: the tensor to check.
            dims: its dimensions' names separated by spaces, e.g. ``"batch src_len key_dim"``.

        Returns:
            One line: the name, the shape and the dimensions' names, for the notebook to print.

        Raises:
            KeyError: ``dims`` names a dimension with no size.
            ValueError: the tensor's shape differs from the named sizes.
        """
        names = dims.split()
        unknown = [dim for dim in names if dim not in self.sizes]
        if unknown:
            raise KeyError(f"{name}: no size for {unknown}; known sizes: {self.sizes}")
        expected = tuple(self.sizes[dim] for dim in names)
        shape = tuple(tensor.shape)
        if shape != expected:
            wanted = ", ".join(f"{dim}={size}" for dim, size in zip(names, expected, strict=True))
            raise ValueError(f"{name} must have shape ({wanted}), got {shape}")
        return f"{name:<18} {shape!s:<14} ({', '.join(names)})"
