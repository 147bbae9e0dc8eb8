"""The bottom layer: devices and seeds, progress bars, named shapes,
alignment matrices and recorded runs."""

from attnbook.core.alignment import (
    alignment_matrix,
    argmax_moves,
    attention_entropy,
    row_distance,
)
from attnbook.core.config import check_fields
from attnbook.core.progress import (
    tqdm,
)
from attnbook.core.records import (
    Environment,
    RecordedRun,
    environment,
    load_average,
    load_result,
    package_file,
    package_path,
    save_result,
)
from attnbook.core.runtime import (
    get_device,
    one_thread,
    set_seed,
)
from attnbook.core.shapes import (
    ShapeChecker,
)

__all__ = [
    "Environment",
    "RecordedRun",
    "ShapeChecker",
    "alignment_matrix",
    "argmax_moves",
    "attention_entropy",
    "check_fields",
    "environment",
    "get_device",
    "load_average",
    "load_result",
    "one_thread",
    "package_file",
    "package_path",
    "row_distance",
    "save_result",
    "set_seed",
    "tqdm",
]
