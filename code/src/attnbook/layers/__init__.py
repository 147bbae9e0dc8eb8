"""Attention modules: the masked softmax, Bahdanau, Luong (global and
local-p) and scaled dot-product attention, multi-head attention, and
attention at scale (grouped-query attention with a key-value cache,
sliding windows, tiled and linear attention)."""

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
from attnbook.layers.scale import (
    GroupedQueryAttention,
    decode_by_recomputing,
    decode_with_cache,
    kv_cache_bytes,
    linear_attention,
    linear_attention_weights,
    sliding_window_mask,
    tiled_attention,
)

__all__ = [
    "BahdanauAttention",
    "GroupedQueryAttention",
    "LocalPAttention",
    "LuongAttention",
    "MultiHeadAttention",
    "ScaledDotProductAttention",
    "causal_mask",
    "decode_by_recomputing",
    "decode_with_cache",
    "kv_cache_bytes",
    "linear_attention",
    "linear_attention_weights",
    "masked_softmax",
    "sliding_window_mask",
    "softmax_and_sum",
    "tiled_attention",
]
