import pytest
import torch
from oracles import assert_message_names

from attnbook import ShapeChecker


def test_a_call_describes_a_tensor_of_the_named_shape():
    shapes = ShapeChecker(batch=2, src_len=5, key_dim=8)
    line = shapes(torch.zeros(2, 5, 8), "batch src_len key_dim", name="keys")
    assert line.split() == ["keys", "(2,", "5,", "8)", "(batch,", "src_len,", "key_dim)"]


def test_a_new_name_is_bound_on_first_use_and_checked_afterwards():
    shapes = ShapeChecker()
    shapes(torch.zeros(2, 5, 8), "batch src_len key_dim", name="keys")
    assert shapes.sizes == {"batch": 2, "src_len": 5, "key_dim": 8}
    shapes(torch.zeros(2, 5), "batch src_len", name="weights")
    with pytest.raises(ValueError) as error:
        shapes(torch.zeros(2, 8), "batch src_len", name="weights")
    assert_message_names(error, "weights", "src_len", "5", "8", "(2, 8)")


def test_a_failed_call_binds_nothing():
    shapes = ShapeChecker(batch=2)
    with pytest.raises(ValueError):
        shapes(torch.zeros(2, 7, 3), "tgt_len tgt_len batch", name="x")
    assert shapes.sizes == {"batch": 2}


def test_one_name_twice_in_a_call_must_have_one_size():
    shapes = ShapeChecker()
    assert shapes(torch.zeros(4, 4), "d d", name="square").startswith("square ")
    with pytest.raises(ValueError) as error:
        shapes(torch.zeros(4, 3), "n n", name="rect")
    assert_message_names(error, "rect", "dimension n", "4", "3")


def test_wrong_size_names_the_tensor_the_dimension_and_both_sizes():
    shapes = ShapeChecker(batch=2, src_len=5, key_dim=8)
    with pytest.raises(ValueError) as error:
        shapes(torch.zeros(2, 8, 5), "batch src_len key_dim", name="keys")
    assert_message_names(error, "keys", "src_len", "5", "8", "(2, 8, 5)")


def test_wrong_rank_is_rejected_naming_the_dimensions():
    shapes = ShapeChecker(batch=2, src_len=5)
    with pytest.raises(ValueError) as error:
        shapes(torch.zeros(2), "batch src_len", name="weights")
    assert_message_names(error, "weights", "2 dimensions", "batch, src_len", "(2,)")


def test_update_rebinds_a_name():
    shapes = ShapeChecker(batch=2)
    shapes.update(batch=3, tgt_len=4)
    assert shapes(torch.zeros(3, 4), "batch tgt_len", name="w").startswith("w ")
    with pytest.raises(ValueError):
        shapes(torch.zeros(2, 4), "batch tgt_len")


def test_check_is_the_call_with_the_name_first():
    shapes = ShapeChecker()
    assert shapes.check("keys", torch.zeros(2, 3), "a b") == shapes(torch.zeros(2, 3), "a b", name="keys")


@pytest.mark.parametrize("bad", [-1, 2.0, True, "3"])
def test_sizes_must_be_non_negative_ints(bad):
    with pytest.raises(ValueError) as error:
        ShapeChecker(batch=bad)
    assert_message_names(error, "batch", repr(bad))
