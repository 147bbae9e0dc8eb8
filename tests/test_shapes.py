import pytest
import torch

from attnbook import ShapeChecker


def test_check_describes_a_tensor_of_the_named_shape():
    shapes = ShapeChecker(batch=2, src_len=5, key_dim=8)
    line = shapes.check("keys", torch.zeros(2, 5, 8), "batch src_len key_dim")
    assert line.split() == ["keys", "(2,", "5,", "8)", "(batch,", "src_len,", "key_dim)"]


def test_wrong_shape_names_the_tensor_the_sizes_and_the_shape_it_got():
    shapes = ShapeChecker(batch=2, src_len=5, key_dim=8)
    with pytest.raises(
        ValueError, match=r"keys must have shape \(batch=2, src_len=5, key_dim=8\), got \(2, 8, 5\)"
    ):
        shapes.check("keys", torch.zeros(2, 8, 5), "batch src_len key_dim")


def test_wrong_rank_is_rejected():
    shapes = ShapeChecker(batch=2, src_len=5)
    with pytest.raises(ValueError, match=r"got \(2,\)"):
        shapes.check("weights", torch.zeros(2), "batch src_len")


def test_unknown_dimension_is_a_key_error_naming_it():
    with pytest.raises(KeyError, match="no size for \\['tgt_len'\\]"):
        ShapeChecker(batch=2).check("weights", torch.zeros(2, 3), "batch tgt_len")


def test_update_adds_and_changes_sizes():
    shapes = ShapeChecker(batch=2)
    shapes.update(batch=3, tgt_len=4)
    assert shapes.check("w", torch.zeros(3, 4), "batch tgt_len").startswith("w ")


@pytest.mark.parametrize("bad", [-1, 2.0, True, "3"])
def test_sizes_must_be_non_negative_ints(bad):
    with pytest.raises(ValueError, match="must be a non-negative int"):
        ShapeChecker(batch=bad)
