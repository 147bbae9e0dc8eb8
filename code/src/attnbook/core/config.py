"""The rule every configuration dataclass is validated by when it is built.

A field's ``metadata`` may carry ``minimum`` and ``choices``, and a field
that holds one of several configuration classes ``kinds`` (a dict from a
kind's name to its class); :func:`check_fields`, called from a
configuration's ``__post_init__``, refuses a value outside them with a
message that names the field.
The command line (:mod:`attnbook.cli.flags`) reads the same metadata to
build its flags, so a rule is written once, beside the field it constrains.

>>> from dataclasses import dataclass, field
>>> @dataclass(frozen=True)
... class Demo:
...     batch_size: int = field(default=8, metadata={"minimum": 1})
...
...     def __post_init__(self) -> None:
...         check_fields(self)
>>> Demo(batch_size=0)
Traceback (most recent call last):
ValueError: batch_size must be at least 1, got 0
"""

from __future__ import annotations

import dataclasses
from typing import Any


def check_fields(config: Any) -> None:
    """Check every field of a config dataclass against the ``minimum``,
    ``below`` (a bound it must stay under: a probability that may not
    be 1), ``choices`` and ``kinds`` of its metadata.

    Raises:
        ValueError: a field is below its minimum, not below its ``below``
            or not one of its choices; the message names the field.
        TypeError: a field is an instance of none of its ``kinds``.
    """
    for item in dataclasses.fields(config):
        minimum, choices, kinds = (
            item.metadata.get("minimum"),
            item.metadata.get("choices"),
            item.metadata.get("kinds"),
        )
        value = getattr(config, item.name)
        if kinds is not None and not isinstance(
            value, tuple(kinds.values())
        ):
            names = " or ".join(c.__name__ for c in kinds.values())
            raise TypeError(
                f"{item.name} must be a {names}, got "
                f"{type(value).__name__}"
            )
        if minimum is not None and value is not None and value < minimum:
            raise ValueError(
                f"{item.name} must be at least {minimum}, got {value!r}"
            )
        below = item.metadata.get("below")
        if below is not None and value is not None and not value < below:
            raise ValueError(
                f"{item.name} must be below {below}, got {value!r}"
            )
        if choices is not None and value not in choices:
            raise ValueError(
                f"{item.name} must be one of {tuple(choices)}, got "
                f"{value!r}"
            )
