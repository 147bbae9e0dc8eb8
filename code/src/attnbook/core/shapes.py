"""Named shapes, asserted as the data flows through a walk-through
(after the TensorFlow NMT tutorial's ``ShapeChecker`` and d2l's
``check_shape``)."""

from __future__ import annotations

import torch


class ShapeChecker:
    """Checks tensors against named dimensions, binding each name to a size
    on its first use.

    Call it with a tensor and its dimensions' names.
    A name seen for the first time is bound to the tensor's size along
    that axis; a name seen before must have the size it was bound to.
    The call returns one line describing the tensor, for the notebook
    to print:

    >>> shapes = ShapeChecker()
    >>> print(
    ...     shapes(
    ...         torch.zeros(2, 5, 8), "batch src_len key_dim", name="keys"
    ...     )
    ... )
    keys               (2, 5, 8)      (batch, src_len, key_dim)
    >>> shapes.sizes
    {'batch': 2, 'src_len': 5, 'key_dim': 8}
    >>> shapes(torch.zeros(2, 8), "batch src_len", name="weights")
    Traceback (most recent call last):
        ...
    ValueError: weights: dimension src_len must be 5, got 8; weights has
    shape (2, 8), expected (batch=2, src_len=5)

    Args:
        **sizes: sizes to bind before the first call, e.g.
            ``batch=2, src_len=5``: the sizes a walk-through promises,
            checked from its first tensor on.
    """

    def __init__(self, **sizes: int) -> None:
        self.sizes: dict[str, int] = {}
        self.update(**sizes)

    def update(self, **sizes: int) -> None:
        """Bind names to sizes, or rebind them (e.g. ``batch`` for a
        new batch)."""
        for dim, size in sizes.items():
            if (
                isinstance(size, bool)
                or not isinstance(size, int)
                or size < 0
            ):
                raise ValueError(
                    f"size of {dim!r} must be a non-negative int, got "
                    f"{size!r}"
                )
        self.sizes.update(sizes)

    def __call__(
        self, tensor: torch.Tensor, dims: str, name: str = "tensor"
    ) -> str:
        """Assert that ``tensor`` has the shape that ``dims`` names,
        binding new names, and describe it.

        Args:
            tensor: the tensor to check.
            dims: its dimensions' names separated by spaces, e.g.
                ``"batch src_len key_dim"``.
            name: what the tensor is, for the description and the error.

        Returns:
            One line: the name, the shape and the dimensions' names,
            for the notebook to print.

        Raises:
            ValueError: the tensor has another number of dimensions than
                ``dims`` names, or a size differs from the one its name was
                bound to (the message names the tensor, the dimension,
                and the expected and received sizes).
                Nothing is bound then.
        """
        names = dims.split()
        shape = tuple(tensor.shape)
        if len(shape) != len(names):
            raise ValueError(
                f"{name} must have {len(names)} dimensions "
                f"({', '.join(names)}), got shape {shape}"
            )
        bound = dict(self.sizes)
        for dim, size in zip(names, shape, strict=True):
            expected = bound.setdefault(dim, size)
            if size != expected:
                wanted = ", ".join(
                    f"{d}={bound[d]}" if d in bound else d for d in names
                )
                raise ValueError(
                    f"{name}: dimension {dim} must be {expected}, got "
                    f"{size}; "
                    f"{name} has shape {shape}, expected ({wanted})"
                )
        self.sizes = bound
        return f"{name:<18} {shape!s:<14} ({', '.join(names)})"

    def check(self, name: str, tensor: torch.Tensor, dims: str) -> str:
        """The same as ``shapes(tensor, dims, name=name)``, with the
        name first."""
        return self(tensor, dims, name=name)
