"""Attention scored against a true word alignment, beyond the argmax.

Two measures, both pure functions of attention weights and true links:

- the **alignment error rate** (AER) of Och and Ney (2003).
  An alignment is a set of ``(i, j)`` links (target position ``i``
  translates source position ``j``). Given *sure* links :math:`S`,
  *possible* links :math:`P \\supseteq S`, and a predicted
  alignment :math:`A`,

  .. math::

     \\mathrm{AER} = 1 - \\frac{|A \\cap S| + |A \\cap P|}{|A| + |S|}.

  AER is 0 when the predicted links contain every sure link and no link
  outside :math:`P`, 1 when they share no link with :math:`P`;
  when every link is sure (:math:`S = P`) it is one minus the F1 score of
  the predicted links. The predicted alignment of attention weights links
  each target word to its most attended source word (:func:`argmax_links`).
  Over several sentences the counts are summed before the ratio is taken (a
  corpus-level AER, as Och and Ney compute it), so a long sentence weighs
  more than a short one.
- the **attention mass on the true links**:
  for a target word with true links :math:`L_i`, the weight :math:`\\sum_{j
  \\in L_i} \\alpha_{ij}` that falls on them, averaged over the target
  words. Unlike the argmax it sees a row that hesitates (0.5 on the right
  word) and a row that is confidently wrong.

Weights come as one matrix ``(tgt_len, src_len)``, a padded batch
``(batch, tgt_len, src_len)`` or a list of matrices of different sizes.
``tgt_lengths`` says how many rows of each matrix are real target words:
rows beyond it (padding, or the ``<eos>`` row a decoder adds)
are not scored. Masked source positions carry zero weight, and a row with
zero weight everywhere (a fully masked row) predicts no link.

The argmax gives at most one link per target word, so a word with ``k``
sure links leaves ``k - 1`` of them unmatched.
Possible links are what lets one link per word be right:
French *ne* and *pas* both translate English *does not*, and the toy
grammar (:mod:`attnbook.nmt.grammar`) links each surely to *not* and
possibly to *does*, the auxiliary French lacks.
Every French word of the grammar has one sure link, so the true alignment's
own argmax scores AER 0. The mass counts all of a word's links,
sure and possible, and is 1 for weights that put everything on them.
With a translator's teacher-forced weights (one ``(T + 1, S + 1)``
matrix per pair, the ``<eos>`` row and column included)::

    scores = alignment_scores(
        weights,
        [pair.sure_links() for pair in pairs],
        [pair.categories for pair in pairs],
        possible_links=[pair.links() for pair in pairs],
        tgt_lengths=[len(pair.target) for pair in pairs],
    )

>>> weights = torch.tensor([[0.9, 0.1], [0.6, 0.4]])
>>> links = [(0, 0), (1, 1)]
>>> alignment_error_rate(
...     weights, links
... )  # predicted {(0, 0), (1, 0)}: one of two links right
0.5
>>> round(mass_on_links(weights, links), 6)  # (0.9 + 0.4) / 2
0.65
>>> alignment_error_rate(
...     weights, [(0, 0)], [(1, 0), (1, 1)]
... )  # row 1 has only possible links: either will do
0.0
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import torch  # noqa: F401 (the examples in the docstrings use it)
from torch import Tensor

Link = tuple[int, int]
"""One alignment link ``(target_position, source_position)``, 0-based."""


def _as_matrices(
    weights: Tensor | Sequence[Tensor],
) -> tuple[list[Tensor], bool]:
    """``weights`` as a list of ``(tgt_len, src_len)`` matrices,
    and whether it was one matrix."""
    if isinstance(weights, Tensor):
        if not weights.is_floating_point() or weights.dim() not in (2, 3):
            raise ValueError(
                "weights must be a floating tensor of shape (tgt_len, "
                "src_len) or (batch, tgt_len, src_len), "
                f"got {weights.dtype} {tuple(weights.shape)}"
            )
        return (
            [weights] if weights.dim() == 2 else list(weights.unbind(0))
        ), weights.dim() == 2
    matrices = list(weights)
    for index, matrix in enumerate(matrices):
        if (
            not isinstance(matrix, Tensor)
            or not matrix.is_floating_point()
            or matrix.dim() != 2
        ):
            got = (
                f"{matrix.dtype} {tuple(matrix.shape)}"
                if isinstance(matrix, Tensor)
                else type(matrix).__name__
            )
            raise ValueError(
                f"weights[{index}] must be a floating tensor of shape "
                f"(tgt_len, src_len), got {got}"
            )
    return matrices, False


def _per_sentence(
    name: str, value: object, single: bool, count: int
) -> list[Any]:
    """Wrap one sentence's links (or categories) in a list, and check there
    is one entry per matrix."""
    items = (
        [value] if single else list(value)  # type: ignore[call-overload]
    )
    if len(items) != count:
        raise ValueError(
            f"{name} must have one entry per weight matrix ({count}), got "
            f"{len(items)}"
        )
    return items


def _scored_rows(
    matrices: list[Tensor], tgt_lengths: Sequence[int] | Tensor | None
) -> list[int]:
    if tgt_lengths is None:
        return [matrix.shape[0] for matrix in matrices]
    lengths = (
        tgt_lengths.tolist()
        if isinstance(tgt_lengths, Tensor)
        else list(tgt_lengths)
    )
    if len(lengths) != len(matrices):
        raise ValueError(
            "tgt_lengths must have one entry per weight matrix "
            f"({len(matrices)}), got {len(lengths)}"
        )
    for index, (length, matrix) in enumerate(
        zip(lengths, matrices, strict=True)
    ):
        if not 0 <= length <= matrix.shape[0]:
            raise ValueError(
                f"tgt_lengths[{index}] must be between 0 and the matrix's "
                f"tgt_len={matrix.shape[0]}, got {length}"
            )
    return [int(length) for length in lengths]


def _link_set(
    name: str, links: Iterable[Link], rows: int, cols: int
) -> set[Link]:
    result = set()
    for link in links:
        i, j = link
        if not (0 <= i < rows and 0 <= j < cols):
            raise ValueError(
                f"{name} link {(i, j)} is outside the {rows} x {cols} "
                "grid of scored target rows x source "
                "positions; pass tgt_lengths that cover it"
            )
        result.add((int(i), int(j)))
    return result


def argmax_links(
    weights: Tensor, tgt_len: int | None = None
) -> list[Link]:
    """The hard alignment of one weight matrix:
    each target word linked to its most attended source word.

    Ties go to the first (leftmost) position, as in :func:`torch.argmax`.
    A row whose weights are all zero (a fully masked row) predicts no link.

    Args:
        weights: ``(tgt_len, src_len)`` attention weights, rows for
            target words.
        tgt_len: score only the first ``tgt_len`` rows (the rest are
            padding or ``<eos>``); ``None``: all.

    Returns:
        ``[(i, j), ...]``, at most one link per scored row, in row order.

    >>> argmax_links(torch.tensor([[0.2, 0.8], [0.0, 0.0], [0.7, 0.3]]))
    [(0, 1), (2, 0)]
    """
    matrices, single = _as_matrices(weights)
    if not single:
        raise ValueError(
            "weights must have shape (tgt_len, src_len), got "
            f"{tuple(weights.shape)}"
        )
    rows = _scored_rows(matrices, None if tgt_len is None else [tgt_len])[
        0
    ]
    scored = weights[:rows]
    best = scored.argmax(dim=-1).tolist() if rows else []
    has_weight = (scored != 0).any(dim=-1).tolist() if rows else []
    return [
        (i, j)
        for i, (j, nonzero) in enumerate(
            zip(best, has_weight, strict=True)
        )
        if nonzero
    ]


def _aer_counts(
    predicted: set[Link], sure: set[Link], possible: set[Link]
) -> tuple[int, int, int, int]:
    return (
        len(predicted & sure),
        len(predicted & possible),
        len(predicted),
        len(sure),
    )


def _aer(counts: Sequence[int]) -> float:
    hit_sure, hit_possible, n_predicted, n_sure = counts
    if n_predicted + n_sure == 0:
        raise ValueError(
            "nothing to score: no predicted and no true links (AER is "
            "undefined)"
        )
    return 1.0 - (hit_sure + hit_possible) / (n_predicted + n_sure)


def alignment_error_rate(
    weights: Tensor | Sequence[Tensor],
    sure_links: Iterable[Link] | Sequence[Iterable[Link]],
    possible_links: Iterable[Link]
    | Sequence[Iterable[Link]]
    | None = None,
    *,
    tgt_lengths: Sequence[int] | Tensor | None = None,
) -> float:
    """The alignment error rate (Och and Ney, 2003) of the attention's
    argmax links.

    Args:
        weights: one matrix ``(tgt_len, src_len)``, a padded batch
            ``(batch, tgt_len, src_len)`` or a list of matrices.
        sure_links: the sure ``(i, j)`` links (:math:`S`):
            one list for one matrix, one list per matrix otherwise.
        possible_links: the possible links (:math:`P`), in the same layout;
            ``None`` means ``possible = sure``.
            Sure links are always counted as possible, so passing all the
            true links (``pair.links()``) or only those that are not sure
            gives the same AER.
        tgt_lengths: the number of real target rows of each matrix;
            rows beyond are not scored. ``None`` scores every row.

    Returns:
        The corpus-level AER in ``[0, 1]``: 0 when the argmax links are
        exactly the true links.

    Raises:
        ValueError: bad shapes, a link outside the scored grid,
            or no link at all on either side.

    >>> alignment_error_rate(torch.eye(3), [(0, 0), (1, 1), (2, 2)])
    0.0
    """
    matrices, single = _as_matrices(weights)
    rows = _scored_rows(matrices, tgt_lengths)
    sure = _per_sentence("sure_links", sure_links, single, len(matrices))
    possible = (
        [()] * len(matrices)
        if possible_links is None
        else _per_sentence(
            "possible_links", possible_links, single, len(matrices)
        )
    )
    totals = [0, 0, 0, 0]
    for matrix, n_rows, sure_one, possible_one in zip(
        matrices, rows, sure, possible, strict=True
    ):
        sure_set = _link_set(
            "sure_links", sure_one, n_rows, matrix.shape[1]
        )
        possible_set = (
            _link_set(
                "possible_links", possible_one, n_rows, matrix.shape[1]
            )
            | sure_set
        )
        counts = _aer_counts(
            set(argmax_links(matrix, n_rows)), sure_set, possible_set
        )
        totals = [
            total + count
            for total, count in zip(totals, counts, strict=True)
        ]
    return _aer(totals)


def mass_on_links(
    weights: Tensor | Sequence[Tensor],
    links: Iterable[Link] | Sequence[Iterable[Link]],
    *,
    tgt_lengths: Sequence[int] | Tensor | None = None,
) -> float:
    """The mean attention weight that a target word puts on the source
    words it truly translates.

    Only target rows with at least one true link are averaged (a word with
    no link has nothing to hit).

    Args:
        weights: one matrix ``(tgt_len, src_len)``, a padded batch
            ``(batch, tgt_len, src_len)`` or a list of matrices.
        links: the true ``(i, j)`` links: one list for one matrix,
            one list per matrix otherwise.
        tgt_lengths: the number of real target rows of each matrix;
            ``None`` scores every row.

    Returns:
        A number in ``[0, 1]`` for row-stochastic weights:
        1 when every linked row puts all its weight on its links.

    Raises:
        ValueError: bad shapes, a link outside the scored grid,
            or no linked row at all.
    """
    return alignment_scores(weights, links, tgt_lengths=tgt_lengths).mass


@dataclass(frozen=True)
class AlignmentScores:
    """AER and attention mass on the true links, overall and by the target
    word's category.

    Attributes:
        aer: the corpus-level alignment error rate of the argmax links
            against the sure and possible links.
        mass: the mean weight a linked target word puts on its true links
            (sure and possible).
        aer_by_category: AER over the target words of each category (their
            predicted and true links).
        mass_by_category: the mean mass on the true links over the linked
            target words of each category.
        counts: the number of scored target words of each category.
    """

    aer: float
    mass: float
    aer_by_category: dict[str, float]
    mass_by_category: dict[str, float]
    counts: dict[str, int]

    def to_dict(self) -> dict[str, object]:
        """The scores as a plain dict (for JSON)."""
        return asdict(self)


def alignment_scores(
    weights: Tensor | Sequence[Tensor],
    links: Iterable[Link] | Sequence[Iterable[Link]],
    categories: Sequence[str] | Sequence[Sequence[str]] | None = None,
    *,
    possible_links: Iterable[Link]
    | Sequence[Iterable[Link]]
    | None = None,
    tgt_lengths: Sequence[int] | Tensor | None = None,
) -> AlignmentScores:
    """AER against sure and possible links, and the mass on the true links,
    overall and by word category.

    Args:
        weights: one matrix ``(tgt_len, src_len)``, a padded batch
            ``(batch, tgt_len, src_len)`` or a list of matrices.
        links: the sure ``(i, j)`` links: one list for one matrix,
            one list per matrix otherwise.
        categories: each scored target word's category (one sequence per
            matrix, as long as its scored rows);
            ``None`` puts every word in the category ``"all"``.
        possible_links: the possible links, in the layout of ``links``
            (sure links count as possible); ``None``:
            every link is sure. The mass is taken over the sure and the
            possible links.
        tgt_lengths: the number of real target rows of each matrix;
            ``None`` scores every row.

    Returns:
        An :class:`AlignmentScores`.

    Raises:
        ValueError: bad shapes, a link outside the scored grid,
            categories of the wrong length, or nothing to score.

    >>> weights = torch.tensor([[0.75, 0.25], [0.625, 0.375]])
    >>> scores = alignment_scores(
    ...     weights, [(0, 0), (1, 1)], ["noun", "verb"]
    ... )
    >>> scores.aer_by_category, scores.mass_by_category
    ({'noun': 0.0, 'verb': 1.0}, {'noun': 0.75, 'verb': 0.375})
    >>> alignment_scores(
    ...     weights,
    ...     [(0, 0)],
    ...     ["noun", "verb"],
    ...     possible_links=[(1, 0), (1, 1)],
    ... ).aer
    0.0
    """
    matrices, single = _as_matrices(weights)
    rows = _scored_rows(matrices, tgt_lengths)
    link_lists = _per_sentence("links", links, single, len(matrices))
    possible_lists = (
        [()] * len(matrices)
        if possible_links is None
        else _per_sentence(
            "possible_links", possible_links, single, len(matrices)
        )
    )
    if categories is None:
        category_lists = [["all"] * n for n in rows]
    else:
        category_lists = [
            list(c)
            for c in _per_sentence(
                "categories", categories, single, len(matrices)
            )
        ]
    aer_counts: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    masses: dict[str, list[float]] = defaultdict(list)
    counts: dict[str, int] = defaultdict(int)
    for index, (
        matrix,
        n_rows,
        link_list,
        possible_list,
        row_categories,
    ) in enumerate(
        zip(
            matrices,
            rows,
            link_lists,
            possible_lists,
            category_lists,
            strict=True,
        )
    ):
        if len(row_categories) != n_rows:
            raise ValueError(
                f"categories[{index}] must have one entry per scored "
                f"target row ({n_rows}), got {len(row_categories)}"
            )
        sure_links = _link_set("links", link_list, n_rows, matrix.shape[1])
        true_links = (
            _link_set(
                "possible_links", possible_list, n_rows, matrix.shape[1]
            )
            | sure_links
        )
        predicted = set(argmax_links(matrix, n_rows))
        for i, category in enumerate(row_categories):
            counts[category] += 1
            row_sure = {link for link in sure_links if link[0] == i}
            row_true = {link for link in true_links if link[0] == i}
            row_counts = _aer_counts(
                {link for link in predicted if link[0] == i},
                row_sure,
                row_true,
            )
            aer_counts[category] = [
                a + b
                for a, b in zip(
                    aer_counts[category], row_counts, strict=True
                )
            ]
            if row_true:
                masses[category].append(
                    sum(matrix[i, j].item() for _, j in sorted(row_true))
                )
    total_counts = [
        sum(c[k] for c in aer_counts.values()) for k in range(4)
    ]
    all_masses = [
        m for category_masses in masses.values() for m in category_masses
    ]
    if not all_masses:
        raise ValueError(
            "nothing to score: no scored target row has a true link"
        )
    return AlignmentScores(
        aer=_aer(total_counts),
        mass=sum(all_masses) / len(all_masses),
        aer_by_category={
            c: _aer(v) for c, v in aer_counts.items() if sum(v)
        },
        mass_by_category={c: sum(m) / len(m) for c, m in masses.items()},
        counts=dict(counts),
    )
