"""BLEU scores others published for English-French and other pairs, so
that a page can place the book's models among them (and say how each was
measured).

>>> [(p.system, p.bleu_low, p.bleu_high) for p in PUBLISHED_BLEU][:1]
[('OPUS-MT / Tatoeba-MT Transformers', 50.4, 51.7)]
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PublishedScore:
    """A BLEU reported by others, with what it was measured on (so that a
    reader can see how it differs).

    Attributes:
        system: the model.
        bleu_low, bleu_high: the reported BLEU, or its range over the
            reported variants and test sets.
        pair: the language pair, source first.
        test_set: the test sentences.
        cased: whether the text was scored with its case (``None`` where
            the source does not say).
        train_pairs: how many sentence pairs the model trained on,
            in words.
        train_count: the same as a number, or ``None`` where the source
            gives no count.
        cite: the keys of the sources in the book's ``references.bib``,
            separated by commas.

    Every figure is against one reference translation per test sentence.
    """

    system: str
    bleu_low: float
    bleu_high: float
    pair: str
    test_set: str
    cased: bool | None
    train_pairs: str
    train_count: int | None
    cite: str


PUBLISHED_BLEU = (
    PublishedScore(
        "OPUS-MT / Tatoeba-MT Transformers",
        50.4,
        51.7,
        "eng-fra",
        "Tatoeba Challenge test v2020-07-28 (10,000 pairs)",
        None,
        "181 to 739 million",
        180_923_857,
        "tiedemann2020opusmt,tiedemann2020tatoeba,opusmt2024leaderboard",
    ),
    PublishedScore(
        "NLLB-200 (600M to 1.3B weights)",
        47.8,
        50.0,
        "eng-fra",
        "Tatoeba Challenge test v2020-07-28 (10,000 pairs)",
        None,
        "billions, in 200 languages",
        None,
        "nllb2022,opusmt2024leaderboard",
    ),
    PublishedScore(
        "GRU + Bahdanau (Trevett's pytorch-seq2seq tutorials)",
        28.3,
        28.3,
        "deu-eng",
        "Multi30k test (1,000 pairs)",
        False,
        "29,000",
        29_000,
        "trevett2020seq2seq",
    ),
    PublishedScore(
        "Annotated Encoder-Decoder (GRU + Bahdanau)",
        23.5,
        23.5,
        "deu-eng",
        "IWSLT 2016 tst2013, sentences of up to 25 words (690 pairs)",
        False,
        "about 143,000",
        143_116,
        "bastings2018annotated",
    ),
    PublishedScore(
        "CS224n assignment (LSTM + attention)",
        21.0,
        21.0,
        "spa-eng",
        "the assignment's test set (its pass mark)",
        None,
        "not stated",
        None,
        "cs224n2020",
    ),
)
"""Published BLEU scores on other test sets, for scale (see each entry's
test set and references)."""
