"""The book's running example: one sentence pair, and a small attention
model's real states on it.

Chapter 1 aligns *the black cat does not see the small mouse* with *le chat
noir ne voit pas la petite souris* by hand.
The toy grammar of :mod:`attnbook.nmt.grammar` makes this pair,
with the same alignment: the adjective after the noun (*chat noir*),
*does not* split around the verb (*ne ... pas*), an adjective that stays
before its noun (*petite*) and agrees with it (*la petite souris*).

:func:`running_example` trains a small Bahdanau encoder-decoder
(:mod:`attnbook.nmt.seq2seq`) on the toy grammar, on the CPU with one
thread, seeded and sized in steps, without the running sentence,
and returns the model's encoder annotations :math:`h_j`, decoder states
:math:`s_i` and attention weights on it, so that later chapters illustrate
one step on real states rather than random ones.

>>> pair = RUNNING_PAIR
>>> " ".join(pair.source)
'the black cat does not see the small mouse'
>>> [(pair.target[i], pair.source[j]) for i, j in pair.links()][:4]
[('le', 'the'), ('chat', 'cat'), ('noir', 'black'), ('ne', 'does')]
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass, field

import torch
from torch import Tensor

from attnbook.core.config import check_fields
from attnbook.core.runtime import one_thread, set_seed
from attnbook.layers.bahdanau import BahdanauAttention
from attnbook.nmt.data import EOS, SentencePair, Vocab
from attnbook.nmt.encoder import EncoderMemory
from attnbook.nmt.grammar import make_splits
from attnbook.nmt.model import evaluating
from attnbook.nmt.seq2seq import Seq2Seq, Seq2SeqConfig
from attnbook.nmt.training import TrainConfig, TrainResult, train
from attnbook.nmt.translator import Translator

RUNNING_PAIR = SentencePair(
    source=(
        "the",
        "black",
        "cat",
        "does",
        "not",
        "see",
        "the",
        "small",
        "mouse",
    ),
    target=(
        "le",
        "chat",
        "noir",
        "ne",
        "voit",
        "pas",
        "la",
        "petite",
        "souris",
    ),
    alignment=((0,), (2,), (1,), (3, 4), (5,), (3, 4), (6,), (7,), (8,)),
    categories=(
        "article",
        "noun",
        "adjective_after",
        "negation",
        "verb",
        "negation",
        "article",
        "adjective_before",
        "noun",
    ),
    sure=(
        (0,),
        (2,),
        (1,),
        (4,),
        (5,),
        (4,),
        (6,),
        (7,),
        (8,),
    ),  # ne, pas: sure on not, possible on does
)
"""The running sentence pair with its true alignment, as the toy grammar
makes it (a test checks that)."""


@dataclass(frozen=True)
class RunningExampleConfig:
    """The data, the model and the training of the running example's model
    (the defaults: the book's).

    Attributes:
        n_train: training pairs drawn from the toy grammar (the running
            sentence is left out).
        n_val: validation pairs (:func:`~attnbook.nmt.training.train`
            validates at each epoch's end).
        max_src_len: the longest English sentence drawn, in words.
        data_seed: the seed of the draw.
        emb_dim, hidden_dim, attn_dim: the model's sizes
            (:class:`~attnbook.nmt.seq2seq.Seq2SeqConfig`).
        batch_size: pairs per step.
        epochs: passes over the training pairs;
            the steps are ``epochs * ceil(n_train / batch_size)``.
        lr: Adam's learning rate.
        seed: the seed of the initial weights and of the batch order.
    """

    n_train: int = field(default=3000, metadata={"minimum": 1})
    n_val: int = field(default=200, metadata={"minimum": 1})
    max_src_len: int = field(
        default=12, metadata={"minimum": len(RUNNING_PAIR.source)}
    )
    data_seed: int = 0
    emb_dim: int = field(default=16, metadata={"minimum": 1})
    hidden_dim: int = field(default=32, metadata={"minimum": 1})
    attn_dim: int = field(default=16, metadata={"minimum": 1})
    batch_size: int = field(default=32, metadata={"minimum": 1})
    epochs: int = field(default=6, metadata={"minimum": 1})
    lr: float = field(default=1e-2, metadata={"minimum": 0.0})
    seed: int = 0

    def __post_init__(self) -> None:
        check_fields(self)


@dataclass(frozen=True, eq=False)
class RunningExample:
    """The running pair and what a small trained Bahdanau model computes on
    it (CPU tensors).

    Teacher forcing feeds the model the reference French, so row ``i`` of
    every tensor below belongs to the same French word whatever the model
    would have written itself.

    Attributes:
        pair: the sentence pair (:data:`RUNNING_PAIR`).
        translator: the trained model with its vocabularies (in evaluation
            mode, on the CPU).
        source_tokens: the English words and ``<eos>``, the ``S + 1``
            positions the model attends to.
        target_tokens: the French words and ``<eos>``, the ``T + 1`` words
            the model writes.
        annotations: ``(S + 1, enc_dim)`` the encoder annotations
            :math:`h_j` (``enc_dim = 2 * hidden_dim``).
        summary: ``(enc_dim,)`` the encoder's summary of the sentence (the
            two directions' final states), from which the decoder's first
            state is made.
        decoder_states: ``(T + 2, dec_dim)`` the decoder states :math:`s_0,
            s_1, \\dots, s_{T+1}`; row ``i`` is :math:`s_i`, so
            ``decoder_states[:-1]`` are the queries :math:`s_{i-1}` of
            Bahdanau's steps and ``decoder_states[1:]``
            the states :math:`s_i` that write the words.
        weights: ``(T + 1, S + 1)`` the model's attention weights
            :math:`\\alpha_{ij}`; each row sums to one.
        translation: the model's own greedy translation of the
            English sentence.
        training: what training measured (steps, seconds).
        train_cpu_seconds: the process CPU time the training took.
        in_training_data: whether the running sentence was among the
            training pairs (it is left out).
    """

    pair: SentencePair
    translator: Translator
    source_tokens: list[str]
    target_tokens: list[str]
    annotations: Tensor
    summary: Tensor
    decoder_states: Tensor
    weights: Tensor
    translation: list[str]
    training: TrainResult
    train_cpu_seconds: float
    in_training_data: bool

    @property
    def attention(self) -> BahdanauAttention:
        """The trained model's attention: ``query_proj``, ``key_proj`` and
        ``v`` hold :math:`W_a`, :math:`U_a`, :math:`v_a`."""
        return self.translator.model.decoder.attention


def _splits(
    config: RunningExampleConfig,
) -> tuple[list[SentencePair], list[SentencePair]]:
    """The training and validation pairs of the running example's model
    (the running sentence left out)."""
    # one pair more, in case the draw holds the running sentence
    splits = make_splits(
        config.n_train + 1,
        config.n_val,
        0,
        seed=config.data_seed,
        max_src_len=config.max_src_len,
    )
    return [
        pair for pair in splits.train if pair.source != RUNNING_PAIR.source
    ][: config.n_train], splits.val


@functools.lru_cache(maxsize=4)
def _trained(
    config: RunningExampleConfig,
) -> tuple[Translator, TrainResult, float, bool]:
    """Train the running example's model (kept in memory: one training per
    configuration and process)."""
    train_pairs, val_pairs = _splits(config)
    in_training = RUNNING_PAIR.source in {
        pair.source for pair in train_pairs
    }
    src_vocab = Vocab.build(
        [*(p.source for p in train_pairs), RUNNING_PAIR.source]
    )
    tgt_vocab = Vocab.build(
        [*(p.target for p in train_pairs), RUNNING_PAIR.target]
    )
    start = time.process_time()
    with (
        one_thread(),
        torch.enable_grad(),
    ):  # a caller's no_grad() must not stop training
        set_seed(config.seed)
        model = Seq2Seq(
            Seq2SeqConfig(
                len(src_vocab),
                len(tgt_vocab),
                attention="bahdanau",
                emb_dim=config.emb_dim,
                hidden_dim=config.hidden_dim,
                attn_dim=config.attn_dim,
                max_src_len=config.max_src_len,
            )
        )
        translator = Translator(model, src_vocab, tgt_vocab)
        schedule = TrainConfig(
            max_epochs=config.epochs,
            batch_size=config.batch_size,
            lr=config.lr,
            eval_every=10**9,  # validate only at the end of each epoch
            log_every=10,
            seed=config.seed,
            # the steps decide the weights, not early stopping
            keep_best=False,
        )
        result = train(
            translator, train_pairs, val_pairs, schedule, progress=False
        )
    return translator, result, time.process_time() - start, in_training


def running_example(
    config: RunningExampleConfig | None = None,
) -> RunningExample:
    """Train (once per process and configuration) the running example's
    model and read its states.

    The model is a :class:`~attnbook.nmt.seq2seq.Seq2Seq` with Bahdanau
    attention, trained on the CPU with one thread (deterministic for a
    given seed on a given machine), so that its numbers do not depend on
    the device a chapter runs on. With the defaults it takes 564 steps,
    a few seconds of CPU time.

    Args:
        config: the data, sizes and training;
            ``None`` uses :class:`RunningExampleConfig`'s defaults.

    Returns:
        A :class:`RunningExample` with fresh tensors (changing them changes
        no later call's result); its ``translator`` is the one trained
        model, shared by every call with the same configuration.

    >>> tiny = RunningExampleConfig(
    ...     n_train=40,
    ...     n_val=4,
    ...     emb_dim=4,
    ...     hidden_dim=4,
    ...     attn_dim=4,
    ...     epochs=1,
    ... )
    >>> example = running_example(tiny)
    >>> (
    ...     example.annotations.shape,
    ...     example.decoder_states.shape,
    ...     example.weights.shape,
    ... )
    (torch.Size([10, 8]), torch.Size([11, 4]), torch.Size([10, 10]))
    >>> (
    ...     example.source_tokens[-1],
    ...     example.in_training_data,
    ...     example.training.steps,
    ... )
    ('<eos>', False, 2)
    """
    config = config or RunningExampleConfig()
    translator, result, cpu_seconds, in_training = _trained(config)
    model = translator.model
    with evaluating(model), one_thread(), torch.no_grad():
        batch = translator.batch([RUNNING_PAIR])
        memory: EncoderMemory = model.encode(batch.src, batch.src_mask)
        state = model.decoder.init_state(memory)  # s_0
        states, weights = [state], []
        # teacher forcing: <sos>, y_1, ..., y_T
        for prev_tokens in batch.tgt_in.unbind(dim=1):
            _, state, step_weights = model.decoder.step(
                prev_tokens, state, memory
            )  # s_i, alpha_i
            states.append(state)
            weights.append(step_weights)
        translation = translator.translation(
            list(RUNNING_PAIR.source)
        ).target
    stacked_weights = torch.cat(weights, dim=0)
    return RunningExample(
        pair=RUNNING_PAIR,
        translator=translator,
        source_tokens=[*RUNNING_PAIR.source, EOS],
        target_tokens=[*RUNNING_PAIR.target, EOS],
        annotations=memory.states[0].clone(),
        summary=memory.final[0].clone(),
        decoder_states=torch.cat(states, dim=0).clone(),
        weights=stacked_weights.clone(),
        translation=list(translation),
        training=result,
        train_cpu_seconds=cpu_seconds,
        in_training_data=in_training,
    )
