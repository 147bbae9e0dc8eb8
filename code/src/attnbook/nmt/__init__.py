"""Translation: sentence pairs and vocabularies, the toy grammar and the
Tatoeba corpus and its split by English sentence, the seq2seq and
Transformer models, search, the translator and its text (tokeniser,
detokeniser, unknown words), training, and the metrics that score
translations and attention."""

from attnbook.nmt.alignment_metrics import (
    alignment_error_rate,
    mass_on_links,
)
from attnbook.nmt.attention_analysis import (
    AttentionSnapshots,
    accuracy_with_forced_attention,
    alignment_accuracy,
    head_alignment_accuracy,
    teacher_forced_attention,
)
from attnbook.nmt.corpus import (
    TATOEBA_ATTRIBUTION,
    TUTORIAL_PREFIXES,
    download_tatoeba,
    load_tatoeba,
    parse_tatoeba_lines,
    shipped_path,
)
from attnbook.nmt.data import (
    UNK,
    SentencePair,
    Vocab,
    length_bucket,
    make_batch,
)
from attnbook.nmt.decoders import (
    BahdanauDecoder,
    LuongDecoder,
    PlainDecoder,
)
from attnbook.nmt.encoder import Encoder
from attnbook.nmt.evaluation import (
    error_by_position,
    evaluate,
)
from attnbook.nmt.export import (
    GRAMMAR_TRANSLATOR,
    export_translator,
    shipped_export,
)
from attnbook.nmt.grammar import ToyGrammar, generate_pairs
from attnbook.nmt.heldout import evaluate_real
from attnbook.nmt.lexicon import grammar_lexicon
from attnbook.nmt.metrics import (
    paired_bootstrap,
    score_against_references,
    score_translations,
)
from attnbook.nmt.model import evaluating
from attnbook.nmt.search import beam_search
from attnbook.nmt.seq2seq import Seq2Seq, Seq2SeqConfig
from attnbook.nmt.split import (
    group_references,
    lowered_source,
    split_by_english,
)
from attnbook.nmt.subwords import (
    Subwords,
    attention_to_words,
    learn_subwords,
)
from attnbook.nmt.text import (
    copyable,
    detokenize_french,
    replace_unknown,
)
from attnbook.nmt.training import (
    TrainConfig,
    sequence_loss,
    train,
)
from attnbook.nmt.transformer import (
    DecoderLayer,
    Transformer,
    TransformerConfig,
    sinusoidal_positions,
    train_neighbour_copier,
)
from attnbook.nmt.translator import Translator

__all__ = [
    "GRAMMAR_TRANSLATOR",
    "TATOEBA_ATTRIBUTION",
    "TUTORIAL_PREFIXES",
    "UNK",
    "AttentionSnapshots",
    "BahdanauDecoder",
    "DecoderLayer",
    "Encoder",
    "LuongDecoder",
    "PlainDecoder",
    "SentencePair",
    "Seq2Seq",
    "Seq2SeqConfig",
    "Subwords",
    "ToyGrammar",
    "TrainConfig",
    "Transformer",
    "TransformerConfig",
    "Translator",
    "Vocab",
    "accuracy_with_forced_attention",
    "alignment_accuracy",
    "alignment_error_rate",
    "attention_to_words",
    "beam_search",
    "copyable",
    "detokenize_french",
    "download_tatoeba",
    "error_by_position",
    "evaluate",
    "evaluate_real",
    "evaluating",
    "export_translator",
    "generate_pairs",
    "grammar_lexicon",
    "group_references",
    "head_alignment_accuracy",
    "learn_subwords",
    "length_bucket",
    "load_tatoeba",
    "lowered_source",
    "make_batch",
    "mass_on_links",
    "paired_bootstrap",
    "parse_tatoeba_lines",
    "replace_unknown",
    "score_against_references",
    "score_translations",
    "sequence_loss",
    "shipped_export",
    "shipped_path",
    "sinusoidal_positions",
    "split_by_english",
    "teacher_forced_attention",
    "train",
    "train_neighbour_copier",
]
