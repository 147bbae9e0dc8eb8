import itertools
import math

import pytest
import torch

from attnbook.core.alignment import alignment_matrix, attention_entropy


def test_links_become_row_stochastic_with_shared_weight_for_one_to_many():
    matrix = alignment_matrix([(0, 0), (1, 1), (1, 2)], tgt_len=3, src_len=3)
    expected = torch.tensor([[1.0, 0.0, 0.0], [0.0, 0.5, 0.5], [0.0, 0.0, 0.0]])
    torch.testing.assert_close(matrix, expected)


def test_repeated_links_count_once():
    torch.testing.assert_close(alignment_matrix([(0, 1), (0, 1)], 1, 2), torch.tensor([[0.0, 1.0]]))


@pytest.mark.parametrize("link", [(2, 0), (0, 3), (-1, 0)])
def test_links_outside_the_grid_are_rejected(link):
    with pytest.raises(ValueError, match="outside the 2 x 3 grid"):
        alignment_matrix([link], tgt_len=2, src_len=3)


def test_non_positive_lengths_are_rejected():
    with pytest.raises(ValueError, match="must be positive"):
        alignment_matrix([], tgt_len=0, src_len=3)


def test_entropy_is_log_s_for_uniform_and_zero_for_one_hot():
    weights = torch.tensor([[0.25, 0.25, 0.25, 0.25], [0.0, 1.0, 0.0, 0.0]])
    entropy = attention_entropy(weights)
    torch.testing.assert_close(entropy, torch.tensor([math.log(4), 0.0]))
    assert not torch.signbit(entropy[1]), "a one-hot row must give +0.0, not -0.0"


def test_entropy_matches_the_definition_on_random_rows():
    weights = torch.softmax(torch.randn(5, 7, dtype=torch.float64), dim=-1)
    expected = -(weights * weights.log()).sum(dim=-1)
    torch.testing.assert_close(attention_entropy(weights), expected)


def test_entropy_ignores_zero_weights_of_masked_positions():
    weights = torch.tensor([0.5, 0.5, 0.0])
    torch.testing.assert_close(attention_entropy(weights), torch.tensor(math.log(2)))


def test_row_distance_and_argmax_moves_against_loops():
    from attnbook.core.alignment import argmax_moves, row_distance

    generator = torch.Generator().manual_seed(3)
    weights = torch.softmax(torch.randn(6, 5, generator=generator) * 3, dim=-1)
    pairs = [(i, k) for i in range(6) for k in range(i + 1, 6)]
    oracle = sum(0.5 * sum(abs(weights[i, j] - weights[k, j]) for j in range(5)) for i, k in pairs) / len(
        pairs
    )
    torch.testing.assert_close(row_distance(weights), torch.as_tensor(float(oracle)))
    argmax = [max(range(5), key=lambda j, i=i: weights[i, j]) for i in range(6)]
    moves = sum(a != b for a, b in itertools.pairwise(argmax)) / 5
    assert argmax_moves(weights).item() == pytest.approx(moves)
    same = weights[:1].expand(4, -1)
    assert row_distance(same).item() == 0.0 and argmax_moves(same).item() == 0.0
    assert row_distance(torch.eye(3)).item() == 1.0 and argmax_moves(torch.eye(3)).item() == 1.0
    with pytest.raises(ValueError, match="got shape"):
        row_distance(weights[None])
