"""The running example: the grammar makes its pair, and the small model's states are the model's own."""

import random

import pytest
import torch

from attnbook.nmt.attention_analysis import teacher_forced_attention
from attnbook.nmt.grammar import ToyGrammar
from attnbook.studies.running_example import (
    RUNNING_PAIR,
    RunningExampleConfig,
    _trained,
    running_example,
)

pytestmark = pytest.mark.usefixtures("one_thread")

TINY = RunningExampleConfig(n_train=60, n_val=4, emb_dim=4, hidden_dim=4, attn_dim=4, epochs=1)


class ScriptedRandom(random.Random):
    """A generator that makes the grammar take the branches and words of a script, in order."""

    def __init__(self, draws: list[float], words: list[str]) -> None:
        super().__init__(0)
        self.draws, self.words = list(draws), list(words)

    def random(self) -> float:
        return self.draws.pop(0)

    def choice(self, seq):
        wanted = self.words.pop(0)
        return next(item for item in seq if item.en in (wanted, (wanted,)))  # nouns, adjectives, verbs

    def choices(self, population, weights=None, *, cum_weights=None, k=1):
        return [population[0]]  # one clause


def test_the_toy_grammar_makes_the_running_pair_with_its_alignment():
    draws = [
        0.9,  # subject singular
        0.9,  # no adjective before the noun
        0.0,  # an adjective after it
        0.0,  # definite article
        0.9,  # no relative clause
        0.0,  # a transitive verb
        0.0,  # negated
        0.9,  # object singular
        0.0,  # an adjective before the noun
        0.9,  # none after it
        0.9,  # no relative clause
    ]
    rng = ScriptedRandom(draws, ["cat", "black", "sees", "mouse", "small"])
    pair = ToyGrammar().sample(rng)
    assert not rng.draws and not rng.words  # the script was used up: no draw was skipped
    assert pair == RUNNING_PAIR


def test_running_pair_links_cross_for_the_adjective_after_the_noun_and_share_does_not():
    links = set(RUNNING_PAIR.links())
    assert {(1, 2), (2, 1)} <= links  # chat <- cat, noir <- black
    assert {(3, 3), (3, 4), (5, 3), (5, 4)} <= links  # ne, pas <- does, not
    assert (7, 7) in links and RUNNING_PAIR.target[7] == "petite"  # agrees with souris
    sure = set(RUNNING_PAIR.sure_links())
    assert links - sure == {(3, 3), (5, 3)}  # ne, pas <- does: possible only; every other link sure


def test_running_example_states_are_the_models_own_and_the_sentence_is_held_out():
    example = running_example(TINY)
    S, T = len(RUNNING_PAIR.source), len(RUNNING_PAIR.target)
    assert example.annotations.shape == (S + 1, 2 * TINY.hidden_dim)
    assert example.decoder_states.shape == (T + 2, TINY.hidden_dim)
    assert example.summary.shape == (2 * TINY.hidden_dim,)
    assert example.source_tokens == [*RUNNING_PAIR.source, "<eos>"]
    assert example.target_tokens == [*RUNNING_PAIR.target, "<eos>"]
    torch.testing.assert_close(example.weights.sum(dim=-1), torch.ones(T + 1))
    # an independent path: the analysis module's teacher-forced attention, through Seq2Seq.forward
    (oracle,) = teacher_forced_attention(example.translator, [RUNNING_PAIR])
    torch.testing.assert_close(example.weights, oracle)
    # one decoder step by hand from the returned states reproduces a row of weights
    step = 2
    _, step_weights = example.attention(example.decoder_states[step - 1 : step], example.annotations[None])
    torch.testing.assert_close(step_weights[0], example.weights[step - 1])
    assert not example.in_training_data
    assert example.training.steps == TINY.epochs * -(-TINY.n_train // TINY.batch_size)


def test_running_example_is_deterministic_and_returns_fresh_tensors():
    first = running_example(TINY)
    first_weights, first_states = first.weights.clone(), first.decoder_states.clone()
    first.annotations.zero_()  # a caller's change must not reach the next call
    assert running_example(TINY).annotations.abs().sum() > 0
    _trained.cache_clear()  # train again from scratch
    second = running_example(TINY)
    torch.testing.assert_close(second.weights, first_weights, rtol=0, atol=0)
    torch.testing.assert_close(second.decoder_states, first_states, rtol=0, atol=0)
    assert second.translation == first.translation


def test_running_example_config_refuses_a_length_limit_below_the_sentence():
    with pytest.raises(ValueError, match="max_src_len must be at least 9"):
        RunningExampleConfig(max_src_len=5)
