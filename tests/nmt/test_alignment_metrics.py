"""AER and attention mass on the true links, against hand-computed examples and a precision/recall oracle."""

import pytest
import torch

from attnbook.core.alignment import alignment_matrix
from attnbook.nmt.alignment_metrics import (
    AlignmentScores,
    alignment_error_rate,
    alignment_scores,
    argmax_links,
    mass_on_links,
)
from attnbook.nmt.grammar import generate_pairs

# Row argmaxes: 0, 2, 1.
WEIGHTS = torch.tensor([[0.7, 0.2, 0.1], [0.1, 0.3, 0.6], [0.2, 0.5, 0.3]])
SURE = [(0, 0), (1, 1), (2, 1)]


def test_argmax_links_one_per_row_ties_to_the_left_and_skips_zero_rows():
    weights = torch.tensor([[0.5, 0.5], [0.0, 0.0], [0.1, 0.9]])
    assert argmax_links(weights) == [(0, 0), (2, 1)]
    assert argmax_links(weights, tgt_len=1) == [(0, 0)]
    assert argmax_links(weights, tgt_len=0) == []


def test_aer_by_hand_with_sure_links_only():
    # A = {(0,0), (1,2), (2,1)}, S = P = {(0,0), (1,1), (2,1)}: |A∩S| = 2, so AER = 1 - 4/6.
    assert alignment_error_rate(WEIGHTS, SURE) == pytest.approx(1 / 3)


def test_aer_by_hand_with_possible_links():
    # S = {(0,0)}, P = S ∪ {(1,2)}: |A∩S| = 1, |A∩P| = 2, |A| = 3, |S| = 1, so AER = 1 - 3/4.
    assert alignment_error_rate(WEIGHTS, [(0, 0)], [(1, 2)]) == pytest.approx(0.25)


def test_aer_is_zero_for_a_perfect_argmax_and_one_when_no_link_is_right():
    assert alignment_error_rate(torch.eye(4), [(i, i) for i in range(4)]) == 0.0
    assert alignment_error_rate(torch.eye(4), [(i, 3 - i) for i in range(4) if i != 3 - i]) == 1.0


def test_aer_with_sure_equal_possible_is_one_minus_f1_on_random_weights():
    generator = torch.Generator().manual_seed(0)
    for _ in range(20):
        weights = torch.rand(6, 5, generator=generator).softmax(dim=-1)
        true = {(i, j) for i in range(6) for j in range(5) if torch.rand(1, generator=generator) < 0.3}
        if not true:
            continue
        predicted = {(i, int(weights[i].argmax())) for i in range(6)}
        precision = len(predicted & true) / len(predicted)
        recall = len(predicted & true) / len(true)
        f1 = 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)
        assert alignment_error_rate(weights, sorted(true)) == pytest.approx(1 - f1)


def test_aer_over_sentences_sums_counts_instead_of_averaging_rates():
    # Sentence 1: one row, right (AER 0). Sentence 2: three rows, all wrong (AER 1).
    # Corpus: |A∩S| = 1, |A| = 4, |S| = 4, so AER = 1 - 2/8 = 0.75, not the mean 0.5.
    weights = [torch.tensor([[1.0, 0.0]]), torch.eye(3)]
    links = [[(0, 0)], [(0, 1), (1, 2), (2, 0)]]
    assert alignment_error_rate(weights, links) == pytest.approx(0.75)


def test_padded_rows_beyond_tgt_lengths_are_not_scored():
    first = torch.tensor([[0.9, 0.1, 0.0], [0.2, 0.8, 0.0]])
    second = torch.tensor([[0.1, 0.2, 0.7]])
    batch = torch.zeros(2, 2, 3)
    batch[0] = first
    batch[1, :1] = second
    batch[1, 1] = torch.tensor([1.0, 0.0, 0.0])  # a padded row that would add a wrong link
    links = [[(0, 0), (1, 1)], [(0, 2)]]
    unpadded = alignment_error_rate([first, second], links)
    assert unpadded == 0.0
    assert alignment_error_rate(batch, links, tgt_lengths=torch.tensor([2, 1])) == unpadded
    assert alignment_error_rate(batch, links) > 0.0  # scoring the padded row counts its link as wrong


def test_the_eos_row_is_left_out_with_tgt_lengths():
    weights = torch.tensor([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])  # last row and column: <eos>
    assert alignment_error_rate(weights, [(0, 0), (1, 1)], tgt_lengths=[2]) == 0.0


def test_a_fully_masked_row_predicts_no_link():
    weights = torch.tensor([[1.0, 0.0], [0.0, 0.0]])
    # A = {(0,0)}, S = {(0,0), (1,1)}: AER = 1 - 2/3.
    assert alignment_error_rate(weights, [(0, 0), (1, 1)]) == pytest.approx(1 / 3)


def test_a_sentence_with_no_true_link_counts_its_predictions_as_wrong():
    weights = [torch.eye(2), torch.eye(2)]
    assert alignment_error_rate(weights, [[(0, 0), (1, 1)], []]) == pytest.approx(1 - 4 / 6)


def test_nothing_to_score_raises():
    with pytest.raises(ValueError, match="nothing to score"):
        alignment_error_rate(torch.eye(2), [], tgt_lengths=[0])
    with pytest.raises(ValueError, match="no scored target row has a true link"):
        mass_on_links(torch.eye(2), [])


def test_mass_on_links_by_hand_including_a_row_with_two_links():
    weights = torch.tensor([[0.7, 0.2, 0.1], [0.25, 0.25, 0.5], [0.2, 0.5, 0.3]])
    links = [(0, 0), (1, 0), (1, 1)]  # row 1 translates two source words; row 2 has no link
    assert mass_on_links(weights, links) == pytest.approx((0.7 + 0.5) / 2)


def test_scores_by_category_by_hand():
    scores = alignment_scores(WEIGHTS, SURE, ["article", "noun", "noun"])
    assert isinstance(scores, AlignmentScores)
    assert scores.counts == {"article": 1, "noun": 2}
    assert scores.aer == pytest.approx(1 / 3)
    assert scores.aer_by_category == pytest.approx({"article": 0.0, "noun": 0.5})
    assert scores.mass_by_category == pytest.approx({"article": 0.7, "noun": (0.3 + 0.5) / 2})
    assert scores.mass == pytest.approx((0.7 + 0.3 + 0.5) / 3)
    assert scores.to_dict()["counts"] == {"article": 1, "noun": 2}


def test_the_true_alignment_scores_full_mass_and_aer_0_with_possible_links():
    pairs = generate_pairs(50, seed=0)
    matrices = [alignment_matrix(p.links(), len(p.target), len(p.source)) for p in pairs]
    links = [p.links() for p in pairs]
    sure = [p.sure_links() for p in pairs]
    scores = alignment_scores(matrices, links, [p.categories for p in pairs])
    assert scores.mass == pytest.approx(1.0)
    # With every link sure, the argmax (one link per target word) misses k - 1 of a word's k links.
    n_rows = sum(len(p.target) for p in pairs)
    n_links = sum(len(p.links()) for p in pairs)
    assert n_links > n_rows and scores.aer == pytest.approx(1 - 2 * n_rows / (n_rows + n_links))
    # Each word has one sure link: weights on the sure links score 0, with full mass on the true links.
    on_sure = [alignment_matrix(s, len(p.target), len(p.source)) for s, p in zip(sure, pairs, strict=True)]
    with_possible = alignment_scores(on_sure, sure, [p.categories for p in pairs], possible_links=links)
    assert with_possible.aer == 0.0 and set(with_possible.aer_by_category.values()) == {0.0}
    assert with_possible.mass == pytest.approx(1.0)


def test_possible_links_by_hand_in_scores_and_by_category():
    # row 0: sure (0, 0); row 1: sure (1, 2), possible (1, 1); row 2: sure (2, 1). Argmaxes 0, 2, 1.
    scores = alignment_scores(WEIGHTS, [(0, 0), (1, 2), (2, 1)], ["a", "b", "b"], possible_links=[(1, 1)])
    assert scores.aer == 0.0 and scores.mass == pytest.approx((0.7 + 0.9 + 0.5) / 3)
    # argmax of row 1 on its possible link only: recall 2 of 3 sure, precision 3 of 3 possible
    moved = alignment_scores(WEIGHTS, [(0, 0), (1, 0), (2, 1)], possible_links=[(1, 2)])
    assert moved.aer == pytest.approx(1 - (2 + 3) / (3 + 3))
    assert moved.aer == alignment_error_rate(WEIGHTS, [(0, 0), (1, 0), (2, 1)], [(1, 2)])


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: alignment_error_rate(torch.eye(2).long(), [(0, 0)]), "floating tensor"),
        (lambda: alignment_error_rate(torch.zeros(2), [(0, 0)]), "floating tensor"),
        (lambda: alignment_error_rate(torch.eye(2), [(0, 2)]), r"link \(0, 2\) is outside"),
        (lambda: alignment_error_rate(torch.eye(2), [(1, 1)], tgt_lengths=[1]), r"link \(1, 1\) is outside"),
        (lambda: alignment_error_rate(torch.eye(2), [(0, 0)], tgt_lengths=[3]), "between 0 and"),
        (
            lambda: alignment_error_rate(torch.eye(2).expand(2, 2, 2), [[(0, 0)]]),
            "one entry per weight matrix",
        ),
        (lambda: alignment_error_rate([torch.eye(2), "x"], [[], []]), r"weights\[1\]"),
        (lambda: alignment_scores(torch.eye(2), [(0, 0)], ["noun"]), "one entry per scored target row"),
        (lambda: argmax_links(torch.eye(2).expand(2, 2, 2)), r"\(tgt_len, src_len\)"),
    ],
)
def test_bad_input_raises_a_clear_error(call, message):
    with pytest.raises(ValueError, match=message):
        call()
