"""Showing the package's own code inside a chapter, so that nothing the
book runs is hidden."""

from __future__ import annotations

import inspect
import textwrap
from dataclasses import dataclass

FOLD_AFTER = 60
"""Listings longer than this many lines open folded, with the lines that
matter shown above the fold."""


@dataclass(frozen=True)
class SourceListing:
    """The source of one object, rendered as a highlighted Python block in
    Jupyter and the book.

    A long listing (over :data:`FOLD_AFTER` lines) shows its excerpt,
    or else its signature and the first line of its docstring,
    and folds the whole source under a ``<details>`` toggle that opens with
    a click in the book and in Colab.

    Attributes:
        name: the object's qualified name, e.g.
            ``attnbook.book.plotting.attention_heatmap``.
        source: its source text, dedented.
        path: the file it lives in, relative to the package
            (``attnbook/book/plotting.py``).
        first_line: the line number of its first line in that file.
        excerpt: the lines shown above the fold, as a ``(start, stop)``
            slice of ``source``'s lines, or None to show the whole listing
            (or, when it is long, its head).

    >>> from attnbook.core.alignment import attention_entropy
    >>> listing = show_source(attention_entropy)
    >>> listing.name, listing.path
    ('attnbook.core.alignment.attention_entropy',
    'attnbook/core/alignment.py')
    >>> print(listing.source.splitlines()[0])
    def attention_entropy(
    """

    name: str
    source: str
    path: str
    first_line: int
    excerpt: tuple[int, int] | None = None

    @property
    def folded(self) -> bool:
        """Whether the listing opens folded: it was given an excerpt,
        or it is long."""
        return (
            self.excerpt is not None
            or len(self.source.splitlines()) > FOLD_AFTER
        )

    def shown_lines(self) -> tuple[int, int]:
        """The ``(start, stop)`` slice of the source's lines shown above
        the fold."""
        lines = self.source.splitlines()
        if self.excerpt is not None:
            return self.excerpt
        if not self.folded:
            return 0, len(lines)
        return 0, _head_length(lines)

    def _repr_markdown_(self) -> str:
        fence = "````" if "```" in self.source else "```"
        where = f"*Source: `{self.path}`, line {self.first_line}.*"
        code = self.source.rstrip()
        if not self.folded:
            return f"{fence}python\n{code}\n{fence}\n\n{where}"
        lines = self.source.splitlines()
        start, stop = self.shown_lines()
        shown = "\n".join(lines[start:stop]).rstrip()
        if start > 0:
            shown = f"...  # {start} lines above\n{shown}"
        if stop < len(lines):
            shown = f"{shown}\n...  # {len(lines) - stop} lines below"
        first, last = self.first_line + start, self.first_line + stop - 1
        span = (
            f"Line {first}" if first == last else f"Lines {first}-{last}"
        )
        return (
            f"{fence}python\n{shown}\n{fence}\n\n"
            f"*{span} of `{self.path}`; the whole of "
            f"`{self.name.rsplit('.', 1)[-1]}` is folded "
            "below.*\n\n"
            "<details>\n<summary>The whole listing "
            f"({len(lines)} lines)</summary>\n\n"
            f"{fence}python\n{code}\n{fence}\n\n</details>\n\n{where}"
        )

    def __str__(self) -> str:
        return self.source


def _head_length(lines: list[str]) -> int:
    """How many lines make the signature and the first line of the
    docstring (at least the first line)."""
    for k, line in enumerate(lines):
        if line.rstrip().endswith(":") and not line.lstrip().startswith(
            ("@", "#")
        ):
            following = lines[k + 1].strip() if k + 1 < len(lines) else ""
            return (
                k + 2
                if following.lstrip("rR").startswith('"""')
                else k + 1
            )
    return 1


def _excerpt(
    source: str, focus: tuple[str, str], name: str
) -> tuple[int, int]:
    """The lines from the first that contains ``focus[0]`` to the next that
    contains ``focus[1]``."""
    lines = source.splitlines()
    first, last = focus
    start = next(
        (k for k, line in enumerate(lines) if first in line), None
    )
    if start is None:
        raise ValueError(
            f"show_source: no line of {name} contains {first!r}"
        )
    stop = next(
        (k for k in range(start, len(lines)) if last in lines[k]), None
    )
    if stop is None:
        raise ValueError(
            f"show_source: no line of {name} from {first!r} on contains "
            f"{last!r}"
        )
    return start, stop + 1


def show_source(
    obj: object, focus: tuple[str, str] | None = None
) -> SourceListing:
    """Return the source of a class, function or method of the package
    for display.

    In a notebook the returned object renders as a highlighted code block
    with the file and line it came from; ``print()`` gives the plain text.
    A long listing folds (see :class:`SourceListing`).

    Args:
        obj: a class, function, method or module.
        focus: show only the lines from the first that contains
            ``focus[0]`` through the next that contains ``focus[1]`` above
            the fold, with the whole listing folded below them.

    Returns:
        A :class:`SourceListing`.

    Raises:
        TypeError: ``obj`` has no retrievable source (a built-in,
            an instance, a lambda made at the prompt).
        ValueError: a ``focus`` string that no line contains.

    >>> from attnbook.core.runtime import get_device
    >>> print(show_source(get_device).source.splitlines()[0])
    def get_device(prefer: str = "auto") -> torch.device:
    >>> from attnbook.nmt.training import train
    >>> listing = show_source(
    ...     train, focus=("for step, batch in", "optimizer.step()")
    ... )
    >>> (
    ...     listing.folded,
    ...     listing.source.splitlines()[listing.excerpt[0]].strip()[:18],
    ... )
    (True, 'for step, batch in')
    >>> from attnbook.nmt.search import (
    ...     beam_search,
    ... )  # decorated with torch.no_grad()
    >>> show_source(beam_search).path
    'attnbook/nmt/search.py'
    """
    target = obj.fget if isinstance(obj, property) else obj
    try:
        lines, first_line = inspect.getsourcelines(target)
        # a decorator's file is not it
        path = inspect.getsourcefile(inspect.unwrap(target)) or "<unknown>"
    except (TypeError, OSError) as exc:
        raise TypeError(
            "show_source needs a class, function, method or module "
            f"defined in a file; got {type(obj).__name__} "
            f"{obj!r:.60}"
        ) from exc
    name = getattr(
        target, "__qualname__", getattr(target, "__name__", repr(target))
    )
    module = getattr(target, "__module__", None) or getattr(
        target, "__name__", ""
    )
    qualified = f"{module}.{name}" if module and module != name else name
    marker = "/attnbook/"
    short_path = (
        "attnbook/" + path.split(marker, 1)[1]
        if marker in path
        else path.rsplit("/", 1)[-1]
    )
    source = textwrap.dedent("".join(lines))
    return SourceListing(
        name=qualified,
        source=source,
        path=short_path,
        first_line=max(first_line, 1),
        excerpt=None
        if focus is None
        else _excerpt(source, focus, qualified),
    )


def record_badge(date: str, replayed: str | None = None) -> str:
    """The mark that every number and figure read from a record carries,
    in a caption, a title or a printed line ("How to read the
    measurements" in the book's introduction says what it promises).

    Args:
        date: when the record was made (an ISO date or timestamp; the day
            is kept).
        replayed: what this build trained again and compared, e.g. ``"to
            the first validation"``; ``None`` when nothing was replayed.

    >>> record_badge("2026-12-02T10:31:00", "to the first validation")
    'recorded 2026-12-02 · replayed to the first validation'
    >>> record_badge("2026-12-02")
    'recorded 2026-12-02'
    """
    badge = f"recorded {date[:10]}"
    return badge if replayed is None else f"{badge} · replayed {replayed}"


def glue(name: str, value: object, display: bool = False) -> None:
    """Store ``value`` under ``name`` for the book's
    ``{glue:text}`name``` roles.

    Inside the book build this is :func:`myst_nb.glue`, which lets the
    prose quote a computed number. Where myst-nb is not installed (Colab, a
    plain Jupyter), the prose is not rendered from the notebook,
    so there is nothing to store: the call does nothing, or shows the value
    if ``display``.

    Args:
        name: the key the prose refers to.
        value: the number or object to store.
        display: also show the value in the cell's output.

    >>> glue(
    ...     "heads", 8
    ... )  # shows nothing; the prose can now say {glue:text}`heads`
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
