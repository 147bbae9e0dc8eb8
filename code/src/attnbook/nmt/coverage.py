"""Coverage: how much attention each source word has received, and the two
errors an attention model is known for, repeating a word and dropping one.

A decoder that reads its source through attention keeps no count of what
it has already translated. Two errors follow (Tu et al., 2016): it can
attend to the same words twice and write their French twice
(*sais-tu lire lire ?*), or never attend to a word and leave it out.
The *coverage* of source position ``j`` after ``i`` steps is the sum of
the weights it received, :math:`\\beta_j = \\sum_{i'} \\alpha_{i'j}`; a
word translated once has a coverage near 1.

- :func:`coverage`: the coverage of every source position.
- :func:`coverage_penalty`: the GNMT penalty (Wu et al., 2016) that beam
  search adds to a finished translation's score,
  :math:`\\beta \\sum_j \\log \\min(\\beta_j, 1)`, which ranks lower a
  translation that leaves source words unread.
- :func:`fertility`: coverage's true counterpart where an alignment is
  known (the toy grammar): how many target words each source word
  translates.
- :func:`repeated_words` and :func:`unattended_words`: the two errors,
  counted in one translation, so that a search or a model can be measured
  on held-out sentences.

>>> import torch
>>> weights = torch.tensor([[0.9, 0.1, 0.0], [0.8, 0.1, 0.1]])
>>> coverage(weights).tolist()  # the first word read twice, the second not
[1.7000000476837158, 0.20000000298023224, 0.10000000149011612]
>>> repeated_words(["lire", "lire", "?"], [("lire", "?")])
[1]
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

import torch
from torch import Tensor

from attnbook.nmt.data import SentencePair
from attnbook.nmt.text import copyable

FUNCTION_WORDS = frozenset(
    "a an the of to in on at by for with from and or but not no is am are "
    "was were be been do does did have has had will would can could shall "
    "should may might must i you he she it we they me him her us them my "
    "your his its our their this that these those there here what who how "
    "why when where which 's 're 'm 've 'll 'd n't".split()
)
"""English words that carry grammar rather than content: often written as
no French word of their own (*I am cold.*, *j'ai froid.*), so leaving one
unread is no error."""

FLOOR = 1e-6
"""The smallest coverage :func:`coverage_penalty` takes the logarithm of,
so that a word never attended to costs much but not infinitely much."""


def coverage(weights: Tensor, steps: Tensor | None = None) -> Tensor:
    """The attention each source position received over a translation.

    Args:
        weights: ``(..., T, S)`` attention weights, one row per target
            step.
        steps: ``(...)`` the number of rows that count (a finished beam's
            later rows are padding); ``None`` counts every row.

    Returns:
        ``(..., S)``: the sum of each column over the steps that count.
    """
    if steps is None:
        return weights.sum(dim=-2)
    counted = torch.arange(weights.size(-2), device=weights.device) < (
        steps.unsqueeze(-1)
    )
    return (weights * counted.unsqueeze(-1)).sum(dim=-2)


def coverage_penalty(
    weights: Tensor,
    src_mask: Tensor,
    beta: float,
    steps: Tensor | None = None,
) -> Tensor:
    """The GNMT coverage penalty, ``beta * sum_j log(min(coverage_j, 1))``
    over the source positions of ``src_mask``: zero when every position
    received a total weight of at least 1, negative otherwise.

    Args:
        weights: ``(..., T, S)`` attention weights.
        src_mask: ``(..., S)``, true at the source's tokens and ``<eos>``.
        beta: the penalty's weight (``0`` turns it off).
        steps: as in :func:`coverage`.

    Returns:
        ``(...)``, in ``float64``: the penalty to add to each
        log-probability.

    >>> weights = torch.tensor(
    ...     [[[0.5, 0.5], [0.5, 0.5]], [[1.0, 0.0], [1.0, 0.0]]]
    ... )
    >>> coverage_penalty(weights, torch.ones(2, 2, dtype=torch.bool), 1.0)
    tensor([  0.0000, -13.8155], dtype=torch.float64)
    """
    covered = coverage(weights.double(), steps).clamp(FLOOR, 1.0)
    return beta * (covered.log() * src_mask).sum(dim=-1)


def repeated_words(
    tokens: Sequence[str], references: Sequence[Sequence[str]]
) -> list[int]:
    """The positions where a translation repeats the word before it, as
    *lire lire*, and no reference has the same word twice in a row (so
    *nous nous* in *nous nous sommes vus* is no mistake).

    Args:
        tokens: the translation's words.
        references: the reference translations' words.

    Returns:
        The index of each repeat's second word; punctuation is not counted.
    """
    allowed = {
        word
        for reference in references
        for word, after in pairwise(reference)
        if word == after
    }
    return [
        k
        for k in range(1, len(tokens))
        if tokens[k] == tokens[k - 1]
        and copyable(tokens[k])
        and tokens[k] not in allowed
    ]


def unattended_words(source: Sequence[str], weights: Tensor) -> list[int]:
    """The source content words no target step attended to most: the
    words a translation may have dropped.

    A content word is a word (:func:`~attnbook.nmt.text.copyable`) not in
    :data:`FUNCTION_WORDS`; it is unattended when it holds the largest
    weight of no row of ``weights``.

    Args:
        source: the source tokens.
        weights: ``(T, >= len(source))`` attention weights.

    Returns:
        The positions of the unattended content words.

    >>> unattended_words(
    ...     ["i", "like", "cats"], torch.tensor([[0.2, 0.7, 0.1, 0.0]])
    ... )
    [2]
    """
    read = set(weights[:, : len(source)].argmax(dim=-1).tolist())
    return [
        j
        for j, word in enumerate(source)
        if copyable(word) and word not in FUNCTION_WORDS and j not in read
    ]


def fertility(pair: SentencePair) -> list[float]:
    """Each source word's true fertility: the number of target words it
    translates, by the pair's alignment, each target word's unit shared
    equally among the source words it is linked to (*ne* and *pas*, each
    linked to *does not*, give *does* and *not* half each). It is what
    the coverage of a model that attends exactly as the alignment links
    would be.

    Raises:
        ValueError: the pair has no alignment.

    >>> fertility(
    ...     SentencePair(
    ...         ("the", "cat", "does", "not", "sleep"),
    ...         ("le", "chat", "ne", "dort", "pas"),
    ...         alignment=((0,), (1,), (2, 3), (4,), (2, 3)),
    ...     )
    ... )
    [1.0, 1.0, 1.0, 1.0, 1.0]
    """
    if not pair.alignment:
        raise ValueError("fertility needs a pair with its alignment")
    counts = [0.0] * len(pair.source)
    for links in pair.alignment:
        for j in links:
            counts[j] += 1 / len(links)
    return counts
