"""The book's display: package listings in the page, computed prose,
figures and interactive widgets."""

from attnbook.book.display import (
    FOLD_AFTER,
    SourceListing,
    glue,
    show_source,
)
from attnbook.book.plotting import (
    BOOK_CMAP,
    ScaleEntry,
    attention_heatmap,
    bleu_scale_figure,
    set_book_style,
)
from attnbook.book.widgets import (
    DECIMALS,
    MAX_BYTES,
    DecoderRun,
    TranslationExample,
    Widget,
    attention_widget,
    checkpoint_slider,
    curve_slider,
    decoder_stepper,
    translator_widget,
    weights_slider,
)

__all__ = [
    "BOOK_CMAP",
    "DECIMALS",
    "FOLD_AFTER",
    "MAX_BYTES",
    "DecoderRun",
    "ScaleEntry",
    "SourceListing",
    "TranslationExample",
    "Widget",
    "attention_heatmap",
    "attention_widget",
    "bleu_scale_figure",
    "checkpoint_slider",
    "curve_slider",
    "decoder_stepper",
    "glue",
    "set_book_style",
    "show_source",
    "translator_widget",
    "weights_slider",
]
