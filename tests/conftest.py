"""Shared test set-up: a non-interactive matplotlib backend, the repository's root, Node.js and Biome for
the tests that run or read the page's scripts, a one-thread fixture for tests that train tiny models, and
the one tiny-model fixture (``tiny_translator``) with its data.

The package's tests mirror it, one folder per layer (``tests/nmt/test_translator.py`` tests
``attnbook.nmt.translator``); the tests of the book itself, and the helpers every test may import
(``book_config``, ``oracles``), stay in this folder, which is put on the import path here."""

import shutil
import sys
from pathlib import Path

import matplotlib
import pytest
import torch

matplotlib.use("Agg")

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))


@pytest.fixture
def repo_root() -> Path:
    return REPO_ROOT


@pytest.fixture(scope="session")
def node() -> str:
    """The ``node`` command, which runs the page's scripts under test. The test set-up installs it, so
    a test that needs it fails without it, and says so, rather than skip."""
    path = shutil.which("node")
    if path is None:
        pytest.fail(
            "Node.js is not installed: run tools/setup_env.sh test (make test and make quick run it), "
            "which installs it, or install Node.js and npm yourself",
            pytrace=False,
        )
    return path


@pytest.fixture(scope="session")
def biome(node) -> Path:
    """Biome, the JavaScript and CSS linter and formatter, which the test set-up installs with npm ci."""
    path = REPO_ROOT / "node_modules" / ".bin" / "biome"
    if not path.exists():
        pytest.fail(
            f"{path.relative_to(REPO_ROOT)} is missing: run tools/setup_env.sh test, which installs it",
            pytrace=False,
        )
    return path


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


@pytest.fixture(scope="session")
def toy_splits():
    """Small disjoint splits of the toy grammar (short sentences: tiny models learn them in seconds)."""
    from attnbook.nmt.grammar import make_splits

    return make_splits(240, 40, 40, seed=5, max_src_len=8)


@pytest.fixture(scope="session")
def toy_vocabs(toy_splits):
    """The source and target vocabularies of ``toy_splits``' training pairs."""
    from attnbook.nmt.data import Vocab

    train = toy_splits.train
    return Vocab.build(p.source for p in train), Vocab.build(p.target for p in train)


@pytest.fixture
def tiny_translator(toy_vocabs):
    """The tests' one builder of tiny models: ``tiny_translator(attention="bahdanau", seed=0, *,
    vocabs=None, **sizes)`` makes an untrained :class:`~attnbook.nmt.translator.Translator`, seeded, on
    the CPU, over ``vocabs`` (a ``(source, target)`` pair; default ``toy_vocabs``). ``attention`` is a
    seq2seq decoder's (``"bahdanau"``, ``"luong"``, ``"none"``) or ``"transformer"``; ``sizes`` and any
    other option go to the model's configuration, over small defaults."""
    from attnbook.nmt.seq2seq import Seq2Seq, Seq2SeqConfig
    from attnbook.nmt.transformer import Transformer, TransformerConfig
    from attnbook.nmt.translator import Translator

    def make(attention: str = "bahdanau", seed: int = 0, *, vocabs=None, **sizes) -> Translator:
        torch.manual_seed(seed)
        src_vocab, tgt_vocab = vocabs or toy_vocabs
        if attention == "transformer":
            config = TransformerConfig(
                len(src_vocab), len(tgt_vocab), **{"d_model": 16, "num_heads": 2, **sizes}
            )
            return Translator(Transformer(config), src_vocab, tgt_vocab)
        sizes = {"emb_dim": 16, "hidden_dim": 24, "attn_dim": 16, **sizes}
        config = Seq2SeqConfig(len(src_vocab), len(tgt_vocab), attention=attention, **sizes)
        return Translator(Seq2Seq(config), src_vocab, tgt_vocab)

    return make


SUMMARY_KEYS = frozenset(
    {
        "exact_match",
        "token_accuracy",
        "bleu",
        "chrf",
        "alignment_accuracy",
        "alignment_by_category",
        "exact_match_by_length",
        "count_by_length",
        "n_unknown",
        "aer",
        "attention_mass",
        "mean_entropy",
        "train_seconds",
        "train_steps",
        "best_step",
        "stopped_early",
        "config",
        "train_config",
        "device",
        "attention",
    }
)


@pytest.fixture
def summary_keys():
    """The keys of ``python -m attnbook train --json`` (a public interface: scripts read them)."""
    return SUMMARY_KEYS
