"""attnbook: the tested code behind the book *Attention, executed*.

Every chapter imports this package; it never redefines what lives here. The modules are small
enough to read in one sitting:

- :mod:`attnbook.runtime`: choosing a device and seeding every random generator.
- :mod:`attnbook.display`: showing the package's own source inside a chapter; ``glue`` for computed prose.
- :mod:`attnbook.shapes`: ``ShapeChecker``, named shapes asserted in the chapters' walk-throughs.
- :mod:`attnbook.plotting`: the book's figure style and token-labelled attention heatmaps (matplotlib and
  seaborn load when a figure is first styled or drawn, not on ``import attnbook``).
- :mod:`attnbook.attention`: the masked softmax and the Bahdanau, Luong and scaled dot-product modules.
- :mod:`attnbook.multihead`: ``MultiHeadAttention`` (checked against PyTorch's) and ``causal_mask``.
- :mod:`attnbook.transformer`: a small Transformer encoder-decoder that trains with :mod:`attnbook.training`.
- :mod:`attnbook.checks`: the exercise checkers that test a reader's function against the package.
- :mod:`attnbook.data`: sentence pairs, vocabularies, padded batches with masks.
- :mod:`attnbook.grammar`: the toy English-French grammar with true alignments, and its splits.
- :mod:`attnbook.running_example`: the book's running sentence pair, and a small trained model's states on it.
- :mod:`attnbook.corpus`: the Tatoeba English-French loader and the real pairs shipped with the package.
- :mod:`attnbook.realdata`: real sentences: the split by English sentence, multi-reference BLEU and chrF,
  unknown-word replacement through attention; :mod:`attnbook.realcli`: ``train --corpus``, ``evaluate``
  and ``translate`` on the command line.
- :mod:`attnbook.seq2seq`: the bidirectional encoder and the Bahdanau, Luong and no-attention decoders.
- :mod:`attnbook.luong`: Luong's input feeding and local-p attention, the decoder that uses them.
- :mod:`attnbook.search`: greedy and beam search.
- :mod:`attnbook.translator`: ``Translator``, a model with its vocabularies: translate, save, load.
- :mod:`attnbook.training`: the loss and the training loop.
- :mod:`attnbook.metrics`, :mod:`attnbook.attention_analysis`, :mod:`attnbook.evaluation`: exact match,
  BLEU and chrF; attention against the true alignment, and interventions; both on held-out pairs.
- :mod:`attnbook.experiment`: chapter 6's run, config to metrics (``python -m attnbook train``; its flags
  come from the config through :mod:`attnbook.flags`).
- :mod:`attnbook.bench` (with ``attention_cost``, ``timing``, ``bench_grids``, ``bench_results``,
  ``bench_report``): the cost of attention, measured (``python -m attnbook bench``).
- :mod:`attnbook.alignment_metrics`: attention scored against true links: alignment error rate, mass on links.
- :mod:`attnbook.bottleneck`: chapter 6's study of the bottleneck, every model trained until it stops
  (``python -m attnbook bottleneck``; the recorded run ships with the package).
- :mod:`attnbook.capacity`: chapter 1's bottleneck experiment: copying random symbols through a fixed-size
  summary or through attention.
- :mod:`attnbook.progress`: progress bars that draw as text where a widget cannot be drawn.
- :mod:`attnbook.widgets`: interactive attention figures as self-contained HTML (hover, steppers, sliders).
"""

from attnbook.attention import BahdanauAttention, LuongAttention, ScaledDotProductAttention, masked_softmax
from attnbook.checks import (
    CheckResult,
    check_additive_score,
    check_alignment_matrix,
    check_dot_product_attention,
    check_local_attention,
    check_masked_softmax,
    check_softmax_jacobian,
)
from attnbook.data import SentencePair, Vocab
from attnbook.display import SourceListing, glue, show_source
from attnbook.grammar import ToyGrammar
from attnbook.multihead import MultiHeadAttention, causal_mask
from attnbook.plotting import attention_heatmap, set_book_style
from attnbook.runtime import get_device, set_seed
from attnbook.seq2seq import BahdanauDecoder, Encoder, LuongDecoder, PlainDecoder, Seq2Seq, Seq2SeqConfig
from attnbook.shapes import ShapeChecker
from attnbook.translator import Translator
from attnbook.widgets import attention_widget, decoder_stepper

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
