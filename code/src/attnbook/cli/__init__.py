"""The command line, ``attnbook`` or ``python -m attnbook``: one module
per command (``train``, ``evaluate``, ``translate``, ``bottleneck``,
``subwords``, ``compare-real``, ``bench``), the flags made from the
configurations, and what every command shares."""

from attnbook.cli.main import main

__all__ = [
    "main",
]
