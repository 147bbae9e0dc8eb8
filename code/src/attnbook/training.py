"""Training, evaluation and checkpoints for the seq2seq models of :mod:`attnbook.seq2seq`.

- :func:`train`: teacher forcing, Adam, gradient clipping, early stopping on a validation split, a
  silenceable ``tqdm`` progress bar; the best weights (lowest validation loss) are restored at the end.
- :func:`evaluate`: exact match, token accuracy, BLEU (``sacrebleu``) and exact match by source length on
  held-out pairs, decoded greedily or with beam search; with the toy grammar's true alignments also
  :func:`alignment_accuracy`, overall and by word category.
- :func:`save_checkpoint` / :func:`load_checkpoint`: the weights, the configuration and both vocabularies,
  loaded with ``torch.load(weights_only=True)``; a checkpoint made with another vocabulary is refused.
- :func:`run_experiment`: the chapter's whole pipeline (data, model, training, evaluation) in one call,
  also used by ``python -m attnbook train``.
"""

from __future__ import annotations

import copy
import math
import random
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import sacrebleu
import torch
import torch.nn.functional as F
from torch import Tensor

from attnbook.data import (
    CATEGORIES,
    DataSplits,
    SentencePair,
    Vocab,
    iterate_batches,
    length_bucket,
    make_batch,
    make_splits,
)
from attnbook.progress import tqdm
from attnbook.runtime import get_device, set_seed
from attnbook.seq2seq import Hypothesis, Seq2Seq, Seq2SeqConfig, beam_search, greedy_decode

# ---------------------------------------------------------------------------------------------------
# Loss and training


def sequence_loss(logits: Tensor, tgt_out: Tensor) -> tuple[Tensor, Tensor, Tensor]:
    """Cross-entropy over the real target tokens only; padding adds nothing to the loss or the counts.

    Args:
        logits: ``(batch, tgt_len, vocab)``.
        tgt_out: ``(batch, tgt_len)`` target ids, ``<pad>`` where there is no token.

    Returns:
        The mean loss per real token, the number of correctly predicted real tokens, and the number of
        real tokens (both as 0-dim tensors).
    """
    real = tgt_out != Vocab.pad_id
    loss = F.cross_entropy(
        logits.reshape(-1, logits.size(-1)), tgt_out.reshape(-1), ignore_index=Vocab.pad_id
    )
    correct = ((logits.argmax(dim=-1) == tgt_out) & real).sum()
    return loss, correct, real.sum()


@dataclass
class TrainConfig:
    """How to train.

    Attributes:
        max_epochs: passes over the training pairs at most.
        batch_size: pairs per batch.
        lr: Adam's learning rate.
        clip_norm: the largest gradient norm (Pascanu et al., 2013); larger gradients are rescaled.
        eval_every: validate every this many steps (and at the end of every epoch).
        patience: stop after this many validations without a lower validation loss.
        log_every: record the training loss and accuracy every this many steps.
        seed: seeds the initial weights (through :func:`~attnbook.runtime.set_seed`) and the batch order.
        parallel_decoder: let a decoder that can (Luong's) run all target steps in one call.
        keep_best: end with the weights of the lowest validation loss; ``False`` keeps the last ones.
    """

    max_epochs: int = 4
    batch_size: int = 128
    lr: float = 3e-3
    clip_norm: float = 1.0
    eval_every: int = 50
    patience: int = 4
    log_every: int = 10
    seed: int = 0
    parallel_decoder: bool = True
    keep_best: bool = True


@dataclass
class TrainResult:
    """What :func:`train` measured.

    Attributes:
        history: one record per ``log_every`` steps: ``step``, ``loss``, ``token_accuracy`` (training
            batches, teacher forced).
        val_history: one record per validation: ``step``, ``loss``, ``token_accuracy``.
        best_step: the step of the lowest validation loss (whose weights are kept if ``keep_best``).
        steps: the optimiser steps taken.
        seconds: the wall-clock time of the training loop.
        stopped_early: whether early stopping ended training before ``max_epochs``.
    """

    history: list[dict[str, float]] = field(default_factory=list)
    val_history: list[dict[str, float]] = field(default_factory=list)
    best_step: int = 0
    steps: int = 0
    seconds: float = 0.0
    stopped_early: bool = False


@torch.no_grad()
def validation_loss(
    model: Seq2Seq, pairs: Sequence[SentencePair], src_vocab: Vocab, tgt_vocab: Vocab, batch_size: int = 256
) -> dict[str, float]:
    """Teacher-forced loss and token accuracy over ``pairs`` (cheap: one forward pass per batch)."""
    was_training = model.training
    model.eval()
    total_loss, correct, count = 0.0, 0, 0
    for batch in iterate_batches(pairs, src_vocab, tgt_vocab, batch_size, shuffle=False):
        batch = batch.to(model.device)
        logits, _ = model(batch.src, batch.src_mask, batch.tgt_in)
        loss, batch_correct, batch_count = sequence_loss(logits, batch.tgt_out)
        total_loss += loss.item() * batch_count.item()
        correct += batch_correct.item()
        count += batch_count.item()
    model.train(was_training)
    return {"loss": total_loss / count, "token_accuracy": correct / count}


def train(
    model: Seq2Seq,
    train_pairs: Sequence[SentencePair],
    val_pairs: Sequence[SentencePair],
    src_vocab: Vocab,
    tgt_vocab: Vocab,
    config: TrainConfig | None = None,
    *,
    progress: bool = True,
) -> TrainResult:
    """Train ``model`` with teacher forcing and early stopping; keep the weights of the best validation.

    The model stays on its device; batches are moved there. The batch order is drawn from a generator
    seeded with ``config.seed`` (the global generators are not used for it).

    Args:
        model: the model to train, in place.
        train_pairs, val_pairs: disjoint training and validation pairs.
        src_vocab, tgt_vocab: the vocabularies the model was built for.
        config: how to train; ``None`` uses :class:`TrainConfig`'s defaults.
        progress: show a ``tqdm`` progress bar.

    Returns:
        A :class:`TrainResult`.
    """
    config = config or TrainConfig()
    if not train_pairs or not val_pairs:
        raise ValueError(f"need training and validation pairs, got {len(train_pairs)} and {len(val_pairs)}")
    device = model.device
    order = random.Random(config.seed)
    optimizer = torch.optim.Adam(model.parameters(), lr=config.lr)
    steps_per_epoch = math.ceil(len(train_pairs) / config.batch_size)
    planned = config.max_epochs * steps_per_epoch
    result = TrainResult()
    best_loss, best_state, bad_checks = float("inf"), copy.deepcopy(model.state_dict()), 0
    window = torch.zeros(3, device=device)  # loss sum, correct tokens, tokens: read only when logged
    start = time.perf_counter()
    bar = tqdm(total=planned, disable=not progress, desc="training", unit="step")

    def validate() -> bool:
        """Record a validation; return True when training should stop."""
        nonlocal best_loss, best_state, bad_checks
        record = {"step": result.steps, **validation_loss(model, val_pairs, src_vocab, tgt_vocab)}
        result.val_history.append(record)
        if record["loss"] < best_loss:
            best_loss, best_state, bad_checks = record["loss"], copy.deepcopy(model.state_dict()), 0
            result.best_step = result.steps
        else:
            bad_checks += 1
        bar.set_postfix(val_loss=f"{record['loss']:.3f}", val_acc=f"{record['token_accuracy']:.3f}")
        return bad_checks >= config.patience

    model.train()
    stop = False
    for _ in range(config.max_epochs):
        for batch in iterate_batches(train_pairs, src_vocab, tgt_vocab, config.batch_size, generator=order):
            batch = batch.to(device)
            logits, _ = model(batch.src, batch.src_mask, batch.tgt_in, parallel=config.parallel_decoder)
            loss, correct, count = sequence_loss(logits, batch.tgt_out)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), config.clip_norm)
            optimizer.step()
            result.steps += 1
            bar.update(1)
            window += torch.stack([loss.detach() * count, correct.float(), count.float()])
            if result.steps % config.log_every == 0:
                loss_sum, right, tokens = window.tolist()
                result.history.append(
                    {"step": result.steps, "loss": loss_sum / tokens, "token_accuracy": right / tokens}
                )
                window.zero_()
            if result.steps % config.eval_every == 0 and validate():
                stop = True
                break
        if not stop and result.steps % config.eval_every != 0:
            stop = validate()  # every epoch ends with a validation
        if stop:
            result.stopped_early = result.steps < planned
            break
    bar.close()
    if config.keep_best:
        model.load_state_dict(best_state)
    model.eval()
    result.seconds = time.perf_counter() - start
    return result


# ---------------------------------------------------------------------------------------------------
# Evaluation


@dataclass
class AlignmentResult:
    """How often the attention's argmax falls on a source word the target word truly translates.

    Attributes:
        accuracy: over all scored target tokens.
        by_category: the accuracy for each word category present.
        counts: the number of scored tokens per category.
        argmax: for each pair, the source position each target token attends to most.
    """

    accuracy: float
    by_category: dict[str, float]
    counts: dict[str, int]
    argmax: list[list[int]]


@torch.no_grad()
def teacher_forced_attention(
    model: Seq2Seq, pairs: Sequence[SentencePair], src_vocab: Vocab, tgt_vocab: Vocab, batch_size: int = 256
) -> list[Tensor]:
    """The model's attention weights while it reads the reference translations (teacher forcing).

    Returns:
        For each pair, ``(len(target) + 1, len(source) + 1)`` weights on the CPU: rows for the target
        tokens and ``<eos>``, columns for the source tokens and ``<eos>``.

    Raises:
        ValueError: the model has no attention.
    """
    if not model.decoder.uses_attention:
        raise ValueError("this model has no attention (attention='none'): there are no weights to return")
    was_training = model.training
    model.eval()
    weights: list[Tensor | None] = [None] * len(pairs)
    for start in range(0, len(pairs), batch_size):
        chunk = list(range(start, min(start + batch_size, len(pairs))))
        batch = make_batch([pairs[i] for i in chunk], src_vocab, tgt_vocab, indices=chunk).to(model.device)
        _, batch_weights = model(batch.src, batch.src_mask, batch.tgt_in)
        batch_weights = batch_weights.float().cpu()
        for row, i in enumerate(chunk):
            weights[i] = batch_weights[row, : len(pairs[i].target) + 1, : len(pairs[i].source) + 1].clone()
    model.train(was_training)
    return weights  # type: ignore[return-value]


def alignment_accuracy(
    model: Seq2Seq, pairs: Sequence[SentencePair], src_vocab: Vocab, tgt_vocab: Vocab
) -> AlignmentResult:
    """Score the attention's argmax against the grammar's true alignment, overall and by word category.

    The model reads each reference translation under teacher forcing, so every target word is scored
    in its correct context even where the model's own translation differs. A target word counts as
    aligned when its largest attention weight falls on one of the source positions the grammar links it
    to (``<eos>`` rows are not scored).

    Raises:
        ValueError: a pair has no true alignment, or the model has no attention.
    """
    if not all(p.has_alignment for p in pairs):
        raise ValueError("alignment accuracy needs pairs with true alignments (the toy grammar's)")
    hits: dict[str, int] = defaultdict(int)
    counts: dict[str, int] = defaultdict(int)
    argmaxes = []
    for pair, weights in zip(
        pairs, teacher_forced_attention(model, pairs, src_vocab, tgt_vocab), strict=True
    ):
        argmax = weights[: len(pair.target)].argmax(dim=-1).tolist()
        argmaxes.append(argmax)
        for position, truth, category in zip(argmax, pair.alignment, pair.categories, strict=True):
            counts[category] += 1
            hits[category] += position in truth
    by_category = {c: hits[c] / counts[c] for c in CATEGORIES if counts[c]}
    accuracy = sum(hits.values()) / max(sum(counts.values()), 1)
    return AlignmentResult(accuracy, by_category, {c: counts[c] for c in by_category}, argmaxes)


@torch.no_grad()
def accuracy_with_forced_attention(
    model: Seq2Seq,
    pairs: Sequence[SentencePair],
    src_vocab: Vocab,
    tgt_vocab: Vocab,
    *,
    category: str,
    position: Callable[[SentencePair, int], int] | None,
    batch_size: int = 256,
) -> float:
    """Teacher-forced accuracy on the target words of one category, with their attention overridden.

    An intervention in the spirit of Jain and Wallace (2019): for every target word of ``category`` the
    attention distribution is replaced by a one-hot distribution on source position
    ``position(pair, i)`` (so the context is exactly that position's encoder state), and the model
    predicts the word from there. Other words keep the model's own attention. ``position=None`` changes
    nothing and gives the model's own accuracy on those words.

    Args:
        model: a model with attention.
        pairs: pairs with word categories (the toy grammar's).
        src_vocab, tgt_vocab: the model's vocabularies.
        category: the word category to intervene on, e.g. ``"article"``.
        position: maps ``(pair, target_index)`` to the source position to attend to (``len(pair.source)``
            is the source ``<eos>``); ``None`` for no intervention.

    Returns:
        The fraction of the category's words predicted correctly.

    Raises:
        ValueError: the model has no attention, or no pair has a word of ``category``.
    """
    if not model.decoder.uses_attention:
        raise ValueError("this model has no attention (attention='none'): there is nothing to override")
    forced: dict[str, Tensor | int] = {}

    def override(module: torch.nn.Module, args: tuple, kwargs: dict, output: tuple[Tensor, Tensor]):
        weights = output[1]
        values = (
            kwargs.get("values")
            if kwargs.get("values") is not None
            else (args[2] if len(args) > 2 else args[1])
        )
        targets = forced["positions"]
        if weights.dim() == 2:  # one decoder step: (batch, src_len)
            targets = targets[:, forced["step"]]
            forced["step"] += 1
        chosen = targets >= 0
        if not bool(chosen.any()):
            return output
        one_hot = F.one_hot(targets.clamp_min(0), weights.size(-1)).to(weights.dtype)
        new_weights = torch.where(chosen.unsqueeze(-1), one_hot, weights)
        if weights.dim() == 2:
            return torch.bmm(new_weights.unsqueeze(1), values).squeeze(1), new_weights
        return torch.bmm(new_weights, values), new_weights

    was_training = model.training
    model.eval()
    handle = model.decoder.attention.register_forward_hook(override, with_kwargs=True)
    correct = total = 0
    try:
        for start in range(0, len(pairs), batch_size):
            chunk = pairs[start : start + batch_size]
            batch = make_batch(chunk, src_vocab, tgt_vocab).to(model.device)
            positions = torch.full(batch.tgt_out.shape, -1, dtype=torch.long)
            selected = torch.zeros(batch.tgt_out.shape, dtype=torch.bool)
            for row, pair in enumerate(chunk):
                for i, word_category in enumerate(pair.categories):
                    if word_category == category:
                        selected[row, i] = True
                        if position is not None:
                            positions[row, i] = position(pair, i)
            forced["positions"], forced["step"] = positions.to(model.device), 0
            logits, _ = model(batch.src, batch.src_mask, batch.tgt_in)
            hits = (logits.argmax(dim=-1) == batch.tgt_out).cpu() & selected
            correct += int(hits.sum())
            total += int(selected.sum())
    finally:
        handle.remove()
        model.train(was_training)
    if total == 0:
        raise ValueError(f"no target word of category {category!r} in the pairs")
    return correct / total


@dataclass
class EvalResult:
    """Held-out metrics of a model.

    Attributes:
        exact_match: the fraction of sentences translated exactly right.
        token_accuracy: the fraction of positions where the translation has the reference token, over
            the longer of the two (so a missing or extra word counts against it).
        bleu: corpus BLEU from ``sacrebleu`` (0-100).
        exact_match_by_length: exact match per source-length bucket (see
            :func:`~attnbook.data.length_bucket`).
        count_by_length: the number of sentences in each bucket.
        alignment: the alignment scores, or ``None`` (no attention, or no true alignments).
        hypotheses: the decoded sentences, in order.
        n_unknown: how many source and target tokens the vocabularies did not know.
    """

    exact_match: float
    token_accuracy: float
    bleu: float
    exact_match_by_length: dict[str, float]
    count_by_length: dict[str, int]
    alignment: AlignmentResult | None
    hypotheses: list[list[str]]
    n_unknown: int

    def summary(self) -> dict[str, object]:
        """The metrics as plain numbers and dictionaries (what the command line prints as JSON)."""
        return {
            "exact_match": self.exact_match,
            "token_accuracy": self.token_accuracy,
            "bleu": self.bleu,
            "alignment_accuracy": None if self.alignment is None else self.alignment.accuracy,
            "alignment_by_category": {} if self.alignment is None else self.alignment.by_category,
            "exact_match_by_length": self.exact_match_by_length,
            "count_by_length": self.count_by_length,
            "n_unknown": self.n_unknown,
        }


@torch.no_grad()
def decode_pairs(
    model: Seq2Seq,
    pairs: Sequence[SentencePair],
    src_vocab: Vocab,
    tgt_vocab: Vocab,
    *,
    beam_size: int = 1,
    batch_size: int = 256,
) -> list[Hypothesis]:
    """Translate the sources of ``pairs`` (greedy for ``beam_size=1``, else beam search), in order."""
    was_training = model.training
    model.eval()
    hypotheses: list[Hypothesis] = []
    for start in range(0, len(pairs), batch_size):
        chunk = pairs[start : start + batch_size]
        batch = make_batch(chunk, src_vocab, tgt_vocab).to(model.device)
        if beam_size == 1:
            hypotheses += greedy_decode(model, batch.src, batch.src_mask)
        else:
            hypotheses += beam_search(model, batch.src, batch.src_mask, beam_size=beam_size)
    model.train(was_training)
    return hypotheses


def score_translations(hypotheses: Sequence[Sequence[str]], pairs: Sequence[SentencePair]) -> dict[str, Any]:
    """Score translations against the pairs' references.

    Returns:
        ``exact_match`` (fraction of sentences exactly right), ``token_accuracy`` (tokens equal to the
        reference at the same position, over the longer of the two sentences, so a missing or an extra
        word counts against it), ``bleu`` (``sacrebleu``'s corpus BLEU, 0-100), and
        ``exact_match_by_length`` and ``count_by_length`` per source-length bucket.
    """
    if len(hypotheses) != len(pairs):
        raise ValueError(f"got {len(hypotheses)} hypotheses for {len(pairs)} pairs")
    references = [list(p.target) for p in pairs]
    exact = [list(h) == r for h, r in zip(hypotheses, references, strict=True)]
    right = sum(
        sum(a == b for a, b in zip(h, r, strict=False)) for h, r in zip(hypotheses, references, strict=True)
    )
    positions = sum(max(len(h), len(r)) for h, r in zip(hypotheses, references, strict=True))
    bleu = sacrebleu.corpus_bleu([" ".join(h) for h in hypotheses], [[" ".join(r) for r in references]]).score
    by_length: dict[str, list[bool]] = defaultdict(list)
    for pair, ok in zip(pairs, exact, strict=True):
        by_length[length_bucket(len(pair.source))].append(ok)
    buckets = sorted(by_length, key=lambda name: int(name.split("-")[0].rstrip("+")))
    return {
        "exact_match": sum(exact) / len(exact),
        "token_accuracy": right / max(positions, 1),
        "bleu": bleu,
        "exact_match_by_length": {b: sum(by_length[b]) / len(by_length[b]) for b in buckets},
        "count_by_length": {b: len(by_length[b]) for b in buckets},
    }


def evaluate(
    model: Seq2Seq,
    pairs: Sequence[SentencePair],
    src_vocab: Vocab,
    tgt_vocab: Vocab,
    *,
    beam_size: int = 1,
    with_alignment: bool = True,
) -> EvalResult:
    """Translate held-out ``pairs`` and score the translations (and, if possible, the attention).

    Args:
        model: the trained model.
        pairs: held-out pairs, disjoint from the training pairs.
        src_vocab, tgt_vocab: the model's vocabularies (unknown tokens become ``<unk>`` and are counted).
        beam_size: 1 for greedy search, more for beam search.
        with_alignment: also compute :func:`alignment_accuracy` when the model attends and the pairs
            carry true alignments.
    """
    if not pairs:
        raise ValueError("cannot evaluate on no pairs")
    hypotheses = [
        tgt_vocab.decode(h.ids) for h in decode_pairs(model, pairs, src_vocab, tgt_vocab, beam_size=beam_size)
    ]
    scores = score_translations(hypotheses, pairs)
    alignment = None
    if with_alignment and model.decoder.uses_attention and all(p.has_alignment for p in pairs):
        alignment = alignment_accuracy(model, pairs, src_vocab, tgt_vocab)
    n_unknown = sum(len(src_vocab.unknown(p.source)) + len(tgt_vocab.unknown(p.target)) for p in pairs)
    return EvalResult(
        exact_match=scores["exact_match"],
        token_accuracy=scores["token_accuracy"],
        bleu=scores["bleu"],
        exact_match_by_length=scores["exact_match_by_length"],
        count_by_length=scores["count_by_length"],
        alignment=alignment,
        hypotheses=hypotheses,
        n_unknown=n_unknown,
    )


# ---------------------------------------------------------------------------------------------------
# Checkpoints


def save_checkpoint(path: str | Path, model: Seq2Seq, src_vocab: Vocab, tgt_vocab: Vocab) -> Path:
    """Save the weights, the model's configuration and both vocabularies to ``path``.

    The file holds only tensors, strings and numbers, so :func:`load_checkpoint` can read it with
    ``torch.load(weights_only=True)``, which refuses to run code stored in a file.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.save(
        {
            "format": "attnbook-seq2seq-1",
            "config": model.config.to_dict(),
            "src_vocab": list(src_vocab.tokens),
            "tgt_vocab": list(tgt_vocab.tokens),
            "state_dict": {k: v.detach().cpu() for k, v in model.state_dict().items()},
        },
        path,
    )
    return path


def _vocab_difference(name: str, stored: Sequence[str], given: Vocab) -> str | None:
    if tuple(stored) == given.tokens:
        return None
    if len(stored) != len(given):
        return f"its {name} vocabulary has {len(stored)} tokens, the one given has {len(given)}"
    first = next(i for i, (a, b) in enumerate(zip(stored, given.tokens, strict=True)) if a != b)
    return f"its {name} vocabulary has {stored[first]!r} at id {first}, the one given has {given.tokens[first]!r}"


def load_checkpoint(
    path: str | Path,
    src_vocab: Vocab | None = None,
    tgt_vocab: Vocab | None = None,
    *,
    device: torch.device | str | None = None,
) -> tuple[Seq2Seq, Vocab, Vocab]:
    """Load a checkpoint made by :func:`save_checkpoint` (with ``torch.load(weights_only=True)``).

    Args:
        path: the file.
        src_vocab, tgt_vocab: the vocabularies you will feed the model; when given, they must be the
            ones it was trained with, or the token ids would mean different words.
        device: where to put the model; ``None`` uses :func:`~attnbook.runtime.get_device`.

    Returns:
        The model (in eval mode) and its source and target vocabularies.

    Raises:
        ValueError: the file is not such a checkpoint, or it was trained with another vocabulary.
    """
    stored = torch.load(Path(path), map_location="cpu", weights_only=True)
    if not isinstance(stored, dict) or stored.get("format") != "attnbook-seq2seq-1":
        raise ValueError(f"{path} is not an attnbook seq2seq checkpoint")
    for name, key, given in (("source", "src_vocab", src_vocab), ("target", "tgt_vocab", tgt_vocab)):
        if given is None:
            continue
        difference = _vocab_difference(name, stored[key], given)
        if difference:
            raise ValueError(
                f"checkpoint {path} was trained with another vocabulary: {difference}; "
                "use the vocabularies saved with it (load without passing them)"
            )
    model = Seq2Seq(Seq2SeqConfig(**stored["config"]))
    model.load_state_dict(stored["state_dict"])
    model.to(device if device is not None else get_device()).eval()
    return model, Vocab(stored["src_vocab"]), Vocab(stored["tgt_vocab"])


# ---------------------------------------------------------------------------------------------------
# The chapter's experiment


@dataclass
class ExperimentConfig:
    """The chapter's configuration: the data, the model and the training (``python -m attnbook train``).

    Attributes:
        attention: ``"bahdanau"``, ``"luong"`` or ``"none"``.
        n_train, n_val, n_test: the sizes of the disjoint splits drawn from the toy grammar.
        max_src_len: the longest English sentence.
        data_seed: the seed of the data draw.
        emb_dim, hidden_dim, attn_dim: the model's sizes (see :class:`~attnbook.seq2seq.Seq2SeqConfig`).
        train: the training settings.
    """

    attention: str = "bahdanau"
    n_train: int = 20000
    n_val: int = 500
    n_test: int = 1000
    max_src_len: int = 25
    data_seed: int = 0
    emb_dim: int = 64
    hidden_dim: int = 128
    attn_dim: int = 64
    train: TrainConfig = field(default_factory=TrainConfig)


@dataclass
class Experiment:
    """Everything :func:`run_experiment` built and measured."""

    config: ExperimentConfig
    splits: DataSplits
    src_vocab: Vocab
    tgt_vocab: Vocab
    model: Seq2Seq
    training: TrainResult
    evaluation: EvalResult | None
    device: torch.device

    def summary(self) -> dict[str, object]:
        """The headline numbers as plain values (the command line's JSON)."""
        metrics = self.evaluation.summary() if self.evaluation is not None else {}
        return {
            "attention": self.config.attention,
            "device": str(self.device),
            **metrics,
            "train_seconds": self.training.seconds,
            "train_steps": self.training.steps,
            "best_step": self.training.best_step,
            "stopped_early": self.training.stopped_early,
            "config": {k: v for k, v in asdict(self.config).items() if k != "train"},
            "train_config": asdict(self.config.train),
        }


def build_model(config: ExperimentConfig, src_vocab: Vocab, tgt_vocab: Vocab) -> Seq2Seq:
    """A fresh model of the experiment's sizes for these vocabularies (seed first for repeatable weights)."""
    return Seq2Seq(
        Seq2SeqConfig(
            src_vocab_size=len(src_vocab),
            tgt_vocab_size=len(tgt_vocab),
            attention=config.attention,
            emb_dim=config.emb_dim,
            hidden_dim=config.hidden_dim,
            attn_dim=config.attn_dim,
            max_src_len=config.max_src_len,
        )
    )


def run_experiment(
    config: ExperimentConfig | None = None,
    *,
    device: torch.device | str | None = None,
    progress: bool = True,
    evaluate_test: bool = True,
) -> Experiment:
    """Draw the data, build the vocabularies and the model, train it, and evaluate it on the test split.

    Args:
        config: the experiment; ``None`` uses :class:`ExperimentConfig`'s defaults (the chapter's).
        device: where to train; ``None`` uses :func:`~attnbook.runtime.get_device`.
        progress: show the training progress bar.
        evaluate_test: evaluate on the test split (greedy search) after training.
    """
    config = config or ExperimentConfig()
    device = torch.device(device) if device is not None else get_device()
    splits = make_splits(
        config.n_train, config.n_val, config.n_test, seed=config.data_seed, max_src_len=config.max_src_len
    )
    src_vocab = Vocab.build(p.source for p in splits.train)
    tgt_vocab = Vocab.build(p.target for p in splits.train)
    set_seed(config.train.seed)
    model = build_model(config, src_vocab, tgt_vocab).to(device)
    training = train(model, splits.train, splits.val, src_vocab, tgt_vocab, config.train, progress=progress)
    evaluation = evaluate(model, splits.test, src_vocab, tgt_vocab) if evaluate_test else None
    return Experiment(config, splits, src_vocab, tgt_vocab, model, training, evaluation, device)
