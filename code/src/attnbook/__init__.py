"""attnbook: the tested code behind the book *Attention, executed*.

Every chapter imports this package; it never redefines what lives here.
The modules are small enough to read in one sitting, grouped one level deep
by layer; imports only point down the list (a test checks it):

- :mod:`attnbook.core`: devices and seeds, progress bars, named shapes,
  alignment matrices, recorded runs.
- :mod:`attnbook.layers`: the masked softmax and the Bahdanau,
  Luong, scaled dot-product and multi-head attention modules,
  all called as ``context, weights = attn(query, keys,
  values=None, mask=None)``.
- :mod:`attnbook.book`: the book's display, beside the layers:
  package listings in the page, computed prose, figures and interactive
  widgets (matplotlib and seaborn load on first use).
- :mod:`attnbook.nmt`: translation: pairs and vocabularies, the toy grammar
  and the Tatoeba corpus, the seq2seq and Transformer models,
  search, ``Translator``, training, and the metrics.
- :mod:`attnbook.benchmark`: the cost of attention, measured (``python -m
  attnbook bench``).
- :mod:`attnbook.checks`: the exercise checkers, one case runner behind
  them all.
- :mod:`attnbook.studies`: the chapters' experiments:
  chapter 6's run, appendix B's bottleneck study, chapter 1's capacity
  experiment,
  the running example, the run on real sentences.
- :mod:`attnbook.cli`: the command line, ``python -m attnbook`` (``train``,
  ``evaluate``, ``translate``, ``bottleneck``, ``bench``).
"""

from attnbook.book.display import SourceListing, glue, show_source
from attnbook.book.plotting import attention_heatmap, set_book_style
from attnbook.book.widgets import attention_widget, decoder_stepper
from attnbook.checks import (
    CheckResult,
    check_additive_score,
    check_alignment_matrix,
    check_dot_product_attention,
    check_local_attention,
    check_masked_softmax,
    check_softmax_jacobian,
)
from attnbook.core.runtime import get_device, set_seed
from attnbook.core.shapes import ShapeChecker
from attnbook.layers.attention import (
    ScaledDotProductAttention,
    masked_softmax,
)
from attnbook.layers.bahdanau import BahdanauAttention
from attnbook.layers.luong import LuongAttention
from attnbook.layers.multihead import MultiHeadAttention, causal_mask
from attnbook.nmt.data import SentencePair, Vocab
from attnbook.nmt.decoders import (
    BahdanauDecoder,
    LuongDecoder,
    PlainDecoder,
)
from attnbook.nmt.encoder import Encoder
from attnbook.nmt.grammar import ToyGrammar
from attnbook.nmt.seq2seq import Seq2Seq, Seq2SeqConfig
from attnbook.nmt.translator import Translator

__all__ = [
    "BahdanauAttention",
    "BahdanauDecoder",
    "CheckResult",
    "Encoder",
    "LuongAttention",
    "LuongDecoder",
    "MultiHeadAttention",
    "PlainDecoder",
    "ScaledDotProductAttention",
    "SentencePair",
    "Seq2Seq",
    "Seq2SeqConfig",
    "ShapeChecker",
    "SourceListing",
    "ToyGrammar",
    "Translator",
    "Vocab",
    "attention_heatmap",
    "attention_widget",
    "causal_mask",
    "check_additive_score",
    "check_alignment_matrix",
    "check_dot_product_attention",
    "check_local_attention",
    "check_masked_softmax",
    "check_softmax_jacobian",
    "decoder_stepper",
    "get_device",
    "glue",
    "masked_softmax",
    "set_book_style",
    "set_seed",
    "show_source",
]

__version__ = "0.1.0"
