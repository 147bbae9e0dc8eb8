"""The book's display: package listings in the page, computed prose,
figures and interactive widgets."""

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
    "bleu_scale_figure",
    "checkpoint_slider",
    "curve_slider",
    "decoder_stepper",
    "glue",
    "record_badge",
    "set_book_style",
    "show_source",
    "translator_widget",
    "weights_slider",
]
