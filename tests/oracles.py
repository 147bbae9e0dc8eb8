"""What the attention tests share: one module of each kind, a naive-loop oracle, inputs and masks.

``naive_attention`` is the one independent oracle of attnbook.layers.attention's modules: it applies each score's
equation to one (query, key) pair at a time, with 1-D operations, and a max-shifted softmax in Python.
This is a helper module, not a test module: test modules import it, never each other.
"""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from attnbook import BahdanauAttention, LuongAttention, ScaledDotProductAttention

MODULE_KINDS = ["bahdanau", "luong-dot", "luong-general", "luong-concat", "luong-location", "scaled-dot"]
MAX_SRC_LEN = 12


def make_attention(kind: str, query_dim: int = 6, key_dim: int = 6, attn_dim: int = 5) -> nn.Module:
    """Build one module of each kind; dot and scaled-dot need query_dim == key_dim."""
    if kind == "bahdanau":
        return BahdanauAttention(query_dim, key_dim, attn_dim)
    if kind == "scaled-dot":
        return ScaledDotProductAttention()
    score = kind.removeprefix("luong-")
    return LuongAttention(query_dim, key_dim, score=score, attn_dim=attn_dim, max_src_len=MAX_SRC_LEN)


def naive_score(attn: nn.Module, query_vec: torch.Tensor, key_vec: torch.Tensor, position: int) -> float:
    """One score for one (query, key) pair, written from the equations with 1-D operations."""
    if isinstance(attn, BahdanauAttention):
        W, U, v = attn.query_proj.weight, attn.key_proj.weight, attn.v.weight[0]
        return torch.dot(v, torch.tanh(W @ query_vec + U @ key_vec)).item()
    if isinstance(attn, ScaledDotProductAttention):
        return torch.dot(query_vec, key_vec).item() / math.sqrt(key_vec.numel())
    if attn.score == "dot":
        return torch.dot(query_vec, key_vec).item()
    if attn.score == "general":
        return torch.dot(query_vec, attn.key_proj.weight @ key_vec).item()
    if attn.score == "concat":
        hidden = torch.tanh(attn.concat_proj.weight @ torch.cat([query_vec, key_vec]))
        return torch.dot(attn.v.weight[0], hidden).item()
    return (attn.location_proj.weight @ query_vec)[position].item()


@torch.no_grad()
def naive_attention(attn, query, keys, values=None, mask=None):
    """Per example, per target step, per source position: scores, a max-shifted softmax, the weighted sum."""
    values = keys if values is None else values
    one_step = query.dim() == 2
    query_steps = query.unsqueeze(1) if one_step else query
    batch, tgt_len, _ = query_steps.shape
    src_len = keys.shape[1]
    context = torch.zeros(batch, tgt_len, values.shape[-1], dtype=torch.float64)
    weights = torch.zeros(batch, tgt_len, src_len, dtype=torch.float64)
    for b in range(batch):
        allowed = [j for j in range(src_len) if mask is None or bool(mask[b, j])]
        for t in range(tgt_len):
            if not allowed:
                continue
            scores = {j: naive_score(attn, query_steps[b, t], keys[b, j], j) for j in allowed}
            top = max(scores.values())
            exps = {j: math.exp(score - top) for j, score in scores.items()}
            total = sum(exps.values())
            for j in allowed:
                weights[b, t, j] = exps[j] / total
                context[b, t] += weights[b, t, j] * values[b, j].double()
    if one_step:
        return context.squeeze(1), weights.squeeze(1)
    return context, weights


def padding_mask(lengths: list[int], src_len: int) -> torch.Tensor:
    return torch.arange(src_len) < torch.tensor(lengths).unsqueeze(1)


def random_inputs(batch=3, tgt_len=None, src_len=5, query_dim=6, key_dim=6, value_dim=4, dtype=torch.float64):
    query_shape = (batch, query_dim) if tgt_len is None else (batch, tgt_len, query_dim)
    query = torch.randn(query_shape, dtype=dtype)
    keys = torch.randn(batch, src_len, key_dim, dtype=dtype)
    values = torch.randn(batch, src_len, value_dim, dtype=dtype)
    return query, keys, values


class W1W2VBahdanau(nn.Module):
    """Additive attention as often written elsewhere, the oracle for the W1/W2/v loaders: ``W1`` projects
    the decoder state, ``W2`` the encoder states, and the constructor takes the encoder size first."""

    def __init__(self, enc_dim, dec_dim, attn_dim):
        super().__init__()
        self.W1 = nn.Linear(dec_dim, attn_dim, bias=False)
        self.W2 = nn.Linear(enc_dim, attn_dim, bias=False)
        self.v = nn.Linear(attn_dim, 1, bias=False)

    def forward(self, decoder_state, encoder_outputs):
        scores = self.v(torch.tanh(self.W1(decoder_state).unsqueeze(1) + self.W2(encoder_outputs))).squeeze(
            -1
        )
        weights = F.softmax(scores, dim=-1)
        return torch.bmm(weights.unsqueeze(1), encoder_outputs).squeeze(1), weights


def assert_message_names(error: pytest.ExceptionInfo, *facts: str) -> None:
    """Assert that an error's message contains each key fact (an argument's name, the expected and the
    received shape), without pinning the sentence around them."""
    message = str(error.value)
    missing = [fact for fact in facts if fact not in message]
    assert not missing, f"the message {message!r} does not name {missing}"
