import random

import numpy as np
import pytest
import torch

from attnbook import get_device, set_seed


def test_auto_device_prefers_cuda_then_mps_then_cpu(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert get_device().type == "cuda"
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: True)
    assert get_device().type == "mps"
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: False)
    assert get_device() == torch.device("cpu")


def test_explicit_cpu_is_always_available():
    assert get_device("cpu") == torch.device("cpu")


def test_asking_for_a_missing_accelerator_raises(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(RuntimeError, match="cuda"):
        get_device("cuda")


def test_unknown_device_name_is_a_value_error():
    with pytest.raises(ValueError, match="prefer must be one of"):
        get_device("tpu")


def test_same_seed_gives_same_draws_from_every_generator():
    def draw():
        return random.random(), np.random.rand(), torch.rand(3)  # noqa: NPY002

    set_seed(123)
    first = draw()
    set_seed(123)
    second = draw()
    assert first[0] == second[0] and first[1] == second[1]
    torch.testing.assert_close(first[2], second[2], rtol=0, atol=0)


def test_different_seeds_give_different_draws():
    set_seed(1)
    a = torch.rand(5)
    set_seed(2)
    assert not torch.equal(a, torch.rand(5))


def test_returned_generator_is_seeded():
    gen_a = set_seed(7)
    gen_b = set_seed(7)
    torch.testing.assert_close(torch.rand(4, generator=gen_a), torch.rand(4, generator=gen_b))


@pytest.mark.parametrize("bad", [1.5, "3", None, True])
def test_seed_must_be_an_int(bad):
    with pytest.raises(TypeError, match="seed must be an int"):
        set_seed(bad)


def test_seed_must_be_non_negative():
    with pytest.raises(ValueError, match="non-negative"):
        set_seed(-1)
