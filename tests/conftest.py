"""Shared test set-up: a non-interactive matplotlib backend, the repository's root, and a one-thread
fixture for tests that train tiny models."""

from pathlib import Path

import matplotlib
import pytest
import torch

matplotlib.use("Agg")

REPO_ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def repo_root() -> Path:
    return REPO_ROOT


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    import matplotlib.pyplot as plt

    plt.close("all")


@pytest.fixture(scope="module")
def one_thread():
    """Tiny models run fastest on one thread, and a second pool of threads only competes with other jobs;
    the thread count is restored afterwards. Use with ``pytestmark = pytest.mark.usefixtures("one_thread")``."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)
