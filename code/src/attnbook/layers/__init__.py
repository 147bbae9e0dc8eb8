"""Attention modules: the masked softmax, Bahdanau, Luong (global and
local-p) and scaled dot-product attention, multi-head attention."""

from attnbook.layers.attention import (
    ScaledDotProductAttention,
    masked_softmax,
    softmax_and_sum,
)
from attnbook.layers.bahdanau import BahdanauAttention
from attnbook.layers.local import LocalPAttention
from attnbook.layers.luong import LuongAttention
from attnbook.layers.multihead import (
    MultiHeadAttention,
    causal_mask,
)

__all__ = [
    "BahdanauAttention",
    "LocalPAttention",
    "LuongAttention",
    "MultiHeadAttention",
    "ScaledDotProductAttention",
    "causal_mask",
    "masked_softmax",
    "softmax_and_sum",
]
