"""The command line, ``python -m attnbook``:
``train``, ``evaluate``, ``translate``, ``bottleneck``,
``subwords``, ``bench``."""

from attnbook.cli.main import (
    build_parser,
    main,
)

__all__ = [
    "build_parser",
    "main",
]
