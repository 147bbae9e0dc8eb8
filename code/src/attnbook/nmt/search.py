"""Decoding: turn a trained model's scores into translations (any
:class:`~attnbook.nmt.model.TranslationModel`).

- :func:`greedy_decode` takes the most probable token at every step.
- :func:`beam_search` keeps the ``beam_size`` most probable partial
  translations of each sentence.

Both take a batch of source ids with its mask and return one
:class:`Hypothesis` per sentence: the target ids, whether ``<eos>`` ended
it, the attention weights of every generated token and the score.
:class:`~attnbook.nmt.translator.Translator` wraps them with the
vocabularies, so that words go in and out.

>>> import torch
>>> from attnbook.nmt.search import beam_search, greedy_decode
>>> from attnbook.nmt.seq2seq import Seq2Seq, Seq2SeqConfig
>>> _ = torch.manual_seed(0)
>>> model = Seq2Seq(
...     Seq2SeqConfig(10, 12, emb_dim=4, hidden_dim=6, attn_dim=5)
... ).eval()
>>> src = torch.tensor([[4, 5, 2]])
>>> (greedy,) = greedy_decode(model, src, src != 0, max_len=4)
>>> (beam,) = beam_search(model, src, src != 0, beam_size=1, max_len=4)
>>> greedy.ids == beam.ids  # a beam of one is greedy search
True
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor

from attnbook.nmt.coverage import coverage_penalty as penalty_for_coverage
from attnbook.nmt.data import Vocab
from attnbook.nmt.model import TranslationModel


@dataclass
class Hypothesis:
    """One decoded sentence.

    Attributes:
        ids: the target ids, without ``<sos>`` and ``<eos>``.
        finished: whether the search ended it with ``<eos>`` (rather than
            at the length limit).
        weights: ``(len(ids) + finished, src_len)`` attention weights,
            one row per generated token (``<eos>`` included when finished),
            columns for the source tokens and the source ``<eos>``;
            ``None`` for the baseline.
        score: the sum of the tokens' log-probabilities.
    """

    ids: list[int]
    finished: bool
    weights: Tensor | None
    score: float


def _default_max_len(src_mask: Tensor) -> int:
    return int(src_mask.sum(dim=1).max().item()) * 2 + 5


@torch.no_grad()
def greedy_decode(
    model: TranslationModel,
    src: Tensor,
    src_mask: Tensor,
    max_len: int | None = None,
) -> list[Hypothesis]:
    """Translate a batch by choosing the most probable token at every step.

    Args:
        model: the model (put in eval mode by the caller).
        src: ``(batch, src_len)`` source ids ending in ``<eos>``;
            src_mask: ``(batch, src_len)``, True = real.
        max_len: the most tokens to generate per sentence;
            ``None`` allows ``2 * src_len + 5``.

    Returns:
        One :class:`Hypothesis` per sentence, in order.
    """
    max_len = max_len or _default_max_len(src_mask)
    memory = model.encode(src, src_mask)
    state = model.decoder.init_state(memory)
    batch = src.size(0)
    tokens = torch.full(
        (batch,), Vocab.sos_id, dtype=torch.long, device=src.device
    )
    finished = torch.zeros(batch, dtype=torch.bool, device=src.device)
    scores = torch.zeros(batch, dtype=torch.float64, device=src.device)
    outputs: list[Tensor] = []
    weights: list[Tensor] = []
    for _ in range(max_len):
        logits, state, step_weights = model.decoder.step(
            tokens, state, memory
        )
        log_probs = torch.log_softmax(logits.double(), dim=-1)
        best, tokens = log_probs.max(dim=-1)
        scores += best.masked_fill(finished, 0.0)
        tokens = tokens.masked_fill(finished, Vocab.pad_id)
        outputs.append(tokens)
        if step_weights is not None:
            weights.append(step_weights)
        finished = finished | (tokens == Vocab.eos_id)
        if bool(finished.all()):
            break
    out_ids = torch.stack(outputs, dim=1).cpu()
    out_weights = (
        torch.stack(weights, dim=1).cpu()
        if model.decoder.uses_attention
        else None
    )
    return _hypotheses(out_ids, out_weights, scores.cpu(), src_mask.cpu())


def _hypotheses(
    ids: Tensor, weights: Tensor | None, scores: Tensor, src_mask: Tensor
) -> list[Hypothesis]:
    results = []
    for row in range(ids.size(0)):
        seq = ids[row].tolist()
        finished = Vocab.eos_id in seq
        length = seq.index(Vocab.eos_id) if finished else len(seq)
        src_len = int(src_mask[row].sum())
        row_weights = (
            None
            if weights is None
            else weights[row, : length + finished, :src_len].clone()
        )
        results.append(
            Hypothesis(
                seq[:length], finished, row_weights, float(scores[row])
            )
        )
    return results


@torch.no_grad()
def beam_search(
    model: TranslationModel,
    src: Tensor,
    src_mask: Tensor,
    beam_size: int = 4,
    max_len: int | None = None,
    length_penalty: float = 0.0,
    coverage_penalty: float = 0.0,
) -> list[Hypothesis]:
    """Translate a batch keeping the ``beam_size`` most probable partial
    translations of each sentence.

    All sentences and beams run as one batch of ``batch * beam_size`` rows.
    A beam that has produced ``<eos>`` is kept with its score frozen.
    At the end each sentence's best beam is chosen by ``score / length **
    length_penalty`` (``0`` ranks by the raw log-probability,
    which favours short translations; Freitag and Al-Onaizan,
    2017, discuss such choices), plus ``coverage_penalty`` times the GNMT
    coverage penalty (Wu et al., 2016;
    :func:`~attnbook.nmt.coverage.coverage_penalty`), which ranks lower a
    beam that left source words unread. ``beam_size=1`` is greedy search.

    Args:
        model: the model (in eval mode).
        src, src_mask: ``(batch, src_len)``.
        beam_size: the number of beams per sentence.
        max_len: the most tokens per sentence;
            ``None`` allows ``2 * src_len + 5``.
        length_penalty: the exponent of the length normalisation.
        coverage_penalty: the weight of the coverage penalty (``0``, none;
            a model without attention has none).

    Returns:
        One :class:`Hypothesis` per sentence, with the attention weights of
        its best beam.
    """
    if beam_size < 1:
        raise ValueError(f"beam_size must be at least 1, got {beam_size}")
    max_len = max_len or _default_max_len(src_mask)
    batch, device = src.size(0), src.device
    # sentence of each row
    rows = torch.arange(batch, device=device).repeat_interleave(beam_size)
    memory = model.encode(src, src_mask).index_select(rows)
    state = model.decoder.init_state(memory)
    scores = torch.full(
        (batch, beam_size),
        float("-inf"),
        dtype=torch.float64,
        device=device,
    )
    scores[:, 0] = (
        # at first every beam holds the same <sos>: expand only one of them
        0.0
    )
    scores = scores.view(-1)
    tokens = torch.full(
        (batch * beam_size,), Vocab.sos_id, dtype=torch.long, device=device
    )
    finished = torch.zeros(
        batch * beam_size, dtype=torch.bool, device=device
    )
    history = torch.empty(
        batch * beam_size, 0, dtype=torch.long, device=device
    )
    weight_history: Tensor | None = None
    # (batch, 1)
    offsets = (torch.arange(batch, device=device) * beam_size).unsqueeze(1)
    for _ in range(max_len):
        logits, state, step_weights = model.decoder.step(
            tokens, state, memory
        )
        # (rows, vocab), scores summed in float64
        log_probs = torch.log_softmax(logits.double(), dim=-1)
        # a finished beam may only continue with <pad>, at no cost,
        # so its score stays frozen
        log_probs[finished] = float("-inf")
        log_probs[finished, Vocab.pad_id] = 0.0
        vocab = log_probs.size(-1)
        candidates = (scores.unsqueeze(1) + log_probs).view(
            batch, beam_size * vocab
        )
        # (batch, beam)
        top_scores, top = candidates.topk(beam_size, dim=1)
        # the row each new beam extends
        parent = (offsets + top // vocab).view(-1)
        tokens = (top % vocab).view(-1)
        scores = top_scores.view(-1)
        state = state.index_select(0, parent)
        history = torch.cat(
            [history.index_select(0, parent), tokens.unsqueeze(1)], dim=1
        )
        if step_weights is not None:
            step_weights = step_weights.index_select(0, parent).unsqueeze(
                1
            )
            weight_history = (
                step_weights
                if weight_history is None
                else torch.cat(
                    [weight_history.index_select(0, parent), step_weights],
                    dim=1,
                )
            )
        finished = finished.index_select(0, parent) | (
            tokens == Vocab.eos_id
        )
        if bool(finished.all()):
            break
    lengths = torch.where(
        (history == Vocab.eos_id).any(dim=1),
        (history == Vocab.eos_id).float().argmax(dim=1) + 1,
        torch.full_like(scores, history.size(1), dtype=torch.long),
    ).float()
    normalised = scores / lengths.pow(length_penalty)
    if coverage_penalty and weight_history is not None:
        normalised = normalised + penalty_for_coverage(
            weight_history,
            src_mask.index_select(0, rows),
            coverage_penalty,
            lengths.long(),
        )
    normalised = normalised.view(batch, beam_size)
    best = offsets.squeeze(1) + normalised.argmax(dim=1)  # (batch,)
    best_weights = (
        None
        if weight_history is None
        else weight_history.index_select(0, best).cpu()
    )
    return _hypotheses(
        history.index_select(0, best).cpu(),
        best_weights,
        scores[best].cpu(),
        src_mask.cpu(),
    )
