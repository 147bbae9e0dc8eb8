"""The book's display: package listings in the page, computed prose,
figures, step diagrams and interactive widgets."""

from attnbook.book.diagrams import (
    bahdanau_step,
    dictionary_lookup,
    encoder_decoder_attention,
    local_window,
    luong_step,
    show_diagram,
)
from attnbook.book.display import (
    SourceListing,
    glue,
    record_badge,
    show_source,
)
from attnbook.book.plotting import (
    ScaleEntry,
    attention_heatmap,
    bleu_scale_figure,
    set_book_style,
)
from attnbook.book.widgets import (
    DecoderRun,
    TranslationExample,
    attention_widget,
    checkpoint_slider,
    curve_slider,
    decoder_stepper,
    translator_widget,
    weights_slider,
)

__all__ = [
    "DecoderRun",
    "ScaleEntry",
    "SourceListing",
    "TranslationExample",
    "attention_heatmap",
    "attention_widget",
    "bahdanau_step",
    "bleu_scale_figure",
    "checkpoint_slider",
    "curve_slider",
    "decoder_stepper",
    "dictionary_lookup",
    "encoder_decoder_attention",
    "glue",
    "local_window",
    "luong_step",
    "record_badge",
    "set_book_style",
    "show_diagram",
    "show_source",
    "translator_widget",
    "weights_slider",
]
