"""Word alignments: the (target, source) links a translator draws,
as a matrix a heatmap can show."""

from __future__ import annotations

from collections.abc import Iterable

import torch


def alignment_matrix(
    links: Iterable[tuple[int, int]],
    tgt_len: int,
    src_len: int,
    *,
    dtype: torch.dtype = torch.float32,
) -> torch.Tensor:
    """Turn hard alignment links into a row-stochastic matrix.

    Each target word spreads one unit of weight evenly over the source
    words it is linked to, so a target word linked to two source words
    (French "ne" to English "does" and "not") gets 0.5 on each.
    A target word with no link gets a row of zeros.

    Args:
        links: ``(i, j)`` pairs: target position ``i`` is aligned to source
            position ``j`` (0-based).
        tgt_len: the number of target words ``T``.
        src_len: the number of source words ``S``.
        dtype: the floating dtype of the result.

    Returns:
        ``(tgt_len, src_len)`` tensor whose linked rows sum to 1.

    Raises:
        ValueError: a length is not positive, or a link falls outside the
            ``tgt_len x src_len`` grid.

    >>> # "he does not sleep" -> "il ne dort pas":
    >>> # "ne" and "pas" both link to "does" and "not"
    >>> alignment_matrix(
    ...     [(0, 0), (1, 1), (1, 2), (2, 3), (3, 1), (3, 2)],
    ...     tgt_len=4,
    ...     src_len=4,
    ... )
    tensor([[1.0000, 0.0000, 0.0000, 0.0000],
            [0.0000, 0.5000, 0.5000, 0.0000],
            [0.0000, 0.0000, 0.0000, 1.0000],
            [0.0000, 0.5000, 0.5000, 0.0000]])
    """
    if tgt_len <= 0 or src_len <= 0:
        raise ValueError(
            "tgt_len and src_len must be positive, got "
            f"tgt_len={tgt_len}, src_len={src_len}"
        )
    matrix = torch.zeros(tgt_len, src_len, dtype=dtype)
    for i, j in links:
        if not (0 <= i < tgt_len and 0 <= j < src_len):
            raise ValueError(
                f"link {(i, j)} is outside the {tgt_len} x {src_len} grid "
                "(target x source)"
            )
        matrix[i, j] = 1.0
    row_sums = matrix.sum(dim=1, keepdim=True)
    return torch.where(
        row_sums > 0, matrix / row_sums.clamp_min(1.0), matrix
    )


def attention_entropy(
    weights: torch.Tensor, dim: int = -1
) -> torch.Tensor:
    """Entropy ``H(alpha) = -sum_j alpha_j log alpha_j`` in nats of each
    attention distribution.

    Zero weights (masked or padded positions) contribute nothing
    (``0 log 0 = 0``). Uniform weights over ``S`` positions give ``log S``;
    one-hot weights give 0.

    Args:
        weights: attention weights, non-negative and summing to 1 along
            ``dim``, e.g. ``(batch, tgt_len, src_len)``.
        dim: the dimension holding the distribution.

    Returns:
        The entropies, with ``dim`` removed, e.g. ``(batch, tgt_len)``.

    >>> attention_entropy(
    ...     torch.tensor([[0.25, 0.25, 0.25, 0.25], [1.0, 0.0, 0.0, 0.0]])
    ... )  # log 4, 0
    tensor([1.3863, 0.0000])
    """
    # 0.0 - x: no negative zero for one-hot rows
    return 0.0 - torch.xlogy(weights, weights).sum(dim=dim)


def row_distance(weights: torch.Tensor) -> torch.Tensor:
    """The mean total-variation distance between the rows of one attention
    matrix (all pairs of rows).

    ``TV(alpha_i, alpha_k) = 1/2 sum_j |alpha_ij - alpha_kj|`` is 0 for two
    identical rows and 1 for two rows with no position in common.
    A decoder that looks at the same place at every step scores near 0,
    one that moves along the sentence near 1.

    Args:
        weights: one attention matrix, ``(tgt_len, src_len)``,
            each row a distribution.

    Returns:
        A 0-dim tensor; 0 when there is a single row.

    Raises:
        ValueError: ``weights`` is not 2-D.

    >>> row_distance(
    ...     torch.tensor([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]])
    ... )  # (1 + 0.5 + 0.5) / 3
    tensor(0.6667)
    """
    if weights.dim() != 2:
        raise ValueError(
            "weights must be one (tgt_len, src_len) matrix, got shape "
            f"{tuple(weights.shape)}"
        )
    n = weights.size(0)
    if n < 2:
        return weights.new_zeros(())
    distances = 0.5 * (
        weights[:, None, :] - weights[None, :, :]
    ).abs().sum(dim=-1)  # (tgt_len, tgt_len)
    return distances.triu(diagonal=1).sum() / (n * (n - 1) / 2)


def argmax_moves(weights: torch.Tensor) -> torch.Tensor:
    """The fraction of decoder steps whose most-attended position differs
    from the previous step's.

    Args:
        weights: one attention matrix, ``(tgt_len, src_len)``.

    Returns:
        A 0-dim tensor in [0, 1]; 0 when there is a single row.

    Raises:
        ValueError: ``weights`` is not 2-D.

    >>> argmax_moves(
    ...     torch.tensor([[0.9, 0.1], [0.8, 0.2], [0.3, 0.7]])
    ... )  # one move in two steps
    tensor(0.5000)
    """
    if weights.dim() != 2:
        raise ValueError(
            "weights must be one (tgt_len, src_len) matrix, got shape "
            f"{tuple(weights.shape)}"
        )
    if weights.size(0) < 2:
        return weights.new_zeros(())
    argmax = weights.argmax(dim=-1)
    return (argmax[1:] != argmax[:-1]).float().mean()
