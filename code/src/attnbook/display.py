"""Showing the package's own code inside a chapter, so that nothing the book runs is hidden."""

from __future__ import annotations

import inspect
import textwrap
from dataclasses import dataclass


@dataclass(frozen=True)
class SourceListing:
    """The source of one object, rendered as a highlighted Python block in Jupyter and the book.

    Attributes:
        name: the object's qualified name, e.g. ``attnbook.plotting.attention_heatmap``.
        source: its source text, dedented.
        path: the file it lives in, relative to the package (``attnbook/plotting.py``).
        first_line: the line number of its first line in that file.

    >>> from attnbook.alignment import attention_entropy
    >>> listing = show_source(attention_entropy)
    >>> listing.name, listing.path
    ('attnbook.alignment.attention_entropy', 'attnbook/alignment.py')
    >>> print(listing.source.splitlines()[0])
    def attention_entropy(weights: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """

    name: str
    source: str
    path: str
    first_line: int

    def _repr_markdown_(self) -> str:
        fence = "````" if "```" in self.source else "```"
        return f"{fence}python\n{self.source.rstrip()}\n{fence}\n\n*Source: `{self.path}`, line {self.first_line}.*"

    def __str__(self) -> str:
        return self.source


def show_source(obj: object) -> SourceListing:
    """Return the source of a class, function or method of the package for display.

    In a notebook the returned object renders as a highlighted code block with the file and line it
    came from; ``print()`` gives the plain text.

    Args:
        obj: a class, function, method or module.

    Returns:
        A :class:`SourceListing`.

    Raises:
        TypeError: ``obj`` has no retrievable source (a built-in, an instance, a lambda made at the
            prompt).

    >>> from attnbook.runtime import get_device
    >>> print(show_source(get_device).source.splitlines()[0])
    def get_device(prefer: str = "auto") -> torch.device:
    """
    target = obj.fget if isinstance(obj, property) else obj
    try:
        lines, first_line = inspect.getsourcelines(target)
        path = inspect.getsourcefile(target) or "<unknown>"
    except (TypeError, OSError) as exc:
        raise TypeError(
            f"show_source needs a class, function, method or module defined in a file; got {type(obj).__name__} "
            f"{obj!r:.60}"
        ) from exc
    name = getattr(target, "__qualname__", getattr(target, "__name__", repr(target)))
    module = getattr(target, "__module__", None) or getattr(target, "__name__", "")
    qualified = f"{module}.{name}" if module and module != name else name
    marker = "/attnbook/"
    short_path = "attnbook/" + path.split(marker, 1)[1] if marker in path else path.rsplit("/", 1)[-1]
    return SourceListing(
        name=qualified,
        source=textwrap.dedent("".join(lines)),
        path=short_path,
        first_line=max(first_line, 1),
    )


def glue(name: str, value: object, display: bool = False) -> None:
    """Store ``value`` under ``name`` for the book's ``{glue:text}`name``` roles.

    Inside the book build this is :func:`myst_nb.glue`, which lets the prose quote a computed number.
    Where myst-nb is not installed (Colab, a plain Jupyter), the prose is not rendered from the
    notebook, so there is nothing to store: the call does nothing, or shows the value if ``display``.

    Args:
        name: the key the prose refers to.
        value: the number or object to store.
        display: also show the value in the cell's output.

    >>> glue("heads", 8)  # shows nothing; the prose can now say {glue:text}`heads`
    >>> glue("best_bleu", 0.25, display=True)
    0.25
    """
    try:
        from myst_nb import glue as myst_glue
    except ImportError:
        if display:
            from IPython.display import display as ipython_display

            ipython_display(value)
        return
    myst_glue(name, value, display=display)
