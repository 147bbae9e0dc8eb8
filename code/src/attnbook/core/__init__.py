"""The bottom layer: devices and seeds, progress bars, named shapes,
alignment matrices and recorded runs."""

from attnbook.core.alignment import (
    alignment_matrix,
    argmax_moves,
    attention_entropy,
    row_distance,
)
from attnbook.core.records import seed_verdict
from attnbook.core.runtime import (
    get_device,
    set_seed,
)
from attnbook.core.shapes import ShapeChecker

__all__ = [
    "ShapeChecker",
    "alignment_matrix",
    "argmax_moves",
    "attention_entropy",
    "get_device",
    "row_distance",
    "seed_verdict",
    "set_seed",
]
