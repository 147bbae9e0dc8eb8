"""Progress bars that choose, quietly, between a notebook widget and text.

``tqdm.auto`` draws a widget bar inside a notebook when ipywidgets is
installed (Colab has it) and otherwise falls back to a text bar,
but only after writing ``TqdmWarning: IProgress not found`` to stderr,
which then shows in the cell's output. :func:`tqdm` makes the same choice
without the warning, and always chooses text when
``ATTNBOOK_TEXT_PROGRESS`` is set: the book's build sets it,
because a widget needs JavaScript from a CDN to be drawn in an HTML page,
and a text bar needs nothing.
"""

from __future__ import annotations

import importlib.util
import os
from typing import Any


def tqdm(*args: Any, **kwargs: Any) -> Any:
    """A progress bar: ``tqdm.auto.tqdm`` where ipywidgets can draw it,
    else the text ``tqdm.std.tqdm``.

    Args:
        *args: passed to tqdm (usually the iterable).
        **kwargs: passed to tqdm, e.g. ``total``, ``desc``, and
            ``disable=True`` to silence the bar.

    Returns:
        the tqdm bar, used as tqdm's own (iterate over it, or call
        ``update`` and ``close``).
    """
    if (
        os.environ.get("ATTNBOOK_TEXT_PROGRESS")
        or importlib.util.find_spec("ipywidgets") is None
    ):
        from tqdm.std import tqdm as bar
    else:
        from tqdm.auto import tqdm as bar
    return bar(*args, **kwargs)
