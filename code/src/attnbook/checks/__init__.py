"""The exercise checkers: each runs a reader's function against the package
through one case runner (:mod:`attnbook.checks.runner`) and returns a
``CheckResult`` that says what differs, naming the classic slip (softmax
over the wrong axis, a mask ignored or inverted, an unscaled dot product,
...) when the output shows one."""

from attnbook.checks.alignment import (
    check_alignment_matrix,
    check_local_attention,
)
from attnbook.checks.attention import (
    check_additive_score,
    check_dot_product_attention,
    check_masked_softmax,
)
from attnbook.checks.cost import check_attention_flops
from attnbook.checks.gradients import check_softmax_jacobian
from attnbook.checks.real import check_split_by_english
from attnbook.checks.runner import CheckResult
from attnbook.checks.scale import check_sliding_window_mask
from attnbook.checks.seq2seq import check_masked_cross_entropy
from attnbook.checks.transformer import (
    check_decoder_mask,
    check_multihead_attention,
)

__all__ = [
    "CheckResult",
    "check_additive_score",
    "check_alignment_matrix",
    "check_attention_flops",
    "check_decoder_mask",
    "check_dot_product_attention",
    "check_local_attention",
    "check_masked_cross_entropy",
    "check_masked_softmax",
    "check_multihead_attention",
    "check_sliding_window_mask",
    "check_softmax_jacobian",
    "check_split_by_english",
]
