"""attnbook: the tested code behind the book *Attention, executed*.

Every chapter imports this package; it never redefines what lives here. The modules are small
enough to read in one sitting:

- :mod:`attnbook.runtime`: choosing a device and seeding every random generator.
- :mod:`attnbook.display`: showing the package's own source inside a chapter; ``glue`` for computed prose.
- :mod:`attnbook.shapes`: ``ShapeChecker``, named shapes asserted in the chapters' walk-throughs.
- :mod:`attnbook.plotting`: the book's figure style and token-labelled attention heatmaps.
- :mod:`attnbook.attention`: the masked softmax and the Bahdanau, Luong and scaled dot-product modules.
- :mod:`attnbook.checks`: the exercise checkers that test a reader's function against the package.
- :mod:`attnbook.data`: the toy English-French grammar with true alignments, vocabularies, padded batches.
- :mod:`attnbook.corpus`: the Tatoeba English-French loader and the real pairs shipped with the package.
- :mod:`attnbook.realdata`: real sentences: the split by English sentence, multi-reference BLEU and chrF,
  unknown-word replacement through attention; :mod:`attnbook.realcli`: ``train --corpus``, ``evaluate``
  and ``translate`` on the command line.
- :mod:`attnbook.seq2seq`: the bidirectional encoder, the Bahdanau, Luong and no-attention decoders, search.
- :mod:`attnbook.training`: training, evaluation (BLEU, alignment accuracy), checkpoints, chapter 6's run;
  ``python -m attnbook train`` runs it from a terminal.
"""

from attnbook.attention import BahdanauAttention, LuongAttention, ScaledDotProductAttention, masked_softmax
from attnbook.checks import (
    CheckResult,
    check_additive_score,
    check_alignment_matrix,
    check_dot_product_attention,
    check_masked_softmax,
    check_softmax_jacobian,
)
from attnbook.data import SentencePair, ToyGrammar, Vocab
from attnbook.display import SourceListing, glue, show_source
from attnbook.plotting import attention_heatmap, set_book_style
from attnbook.runtime import get_device, set_seed
from attnbook.seq2seq import BahdanauDecoder, Encoder, LuongDecoder, PlainDecoder, Seq2Seq, Seq2SeqConfig
from attnbook.shapes import ShapeChecker

__all__ = [
    "BahdanauAttention",
    "BahdanauDecoder",
    "CheckResult",
    "Encoder",
    "LuongAttention",
    "LuongDecoder",
    "PlainDecoder",
    "ScaledDotProductAttention",
    "SentencePair",
    "Seq2Seq",
    "Seq2SeqConfig",
    "ShapeChecker",
    "SourceListing",
    "ToyGrammar",
    "Vocab",
    "attention_heatmap",
    "check_additive_score",
    "check_alignment_matrix",
    "check_dot_product_attention",
    "check_masked_softmax",
    "check_softmax_jacobian",
    "get_device",
    "glue",
    "masked_softmax",
    "set_book_style",
    "set_seed",
    "show_source",
]

__version__ = "0.1.0"
