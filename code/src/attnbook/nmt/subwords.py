"""Subword units: words cut into frequent pieces, so that a model can read
and write any word.

A vocabulary of whole words leaves every rare word unknown.
A vocabulary of *pieces* (Sennrich et al., 2016; Kudo, 2018)
keeps frequent words whole and spells a rare word with shorter pieces,
down to single characters, so almost no word is unknown.
:func:`learn_subwords` learns ``vocab_size`` pieces from sentences (the
training sentences only, never the held-out ones) with SentencePiece's
unigram model; :class:`Subwords` cuts a sentence into pieces and joins
pieces back into the sentence. A piece that starts a word carries a leading
``▁`` (U+2581), so joining needs no other information::

    "Tom est fatigué ."
    -> ["▁Tom", "▁est", "▁fati", "gué", "▁."]
    -> "Tom est fatigué ."

The pieces are learnt on *tokenised* text (the corpus loader's words joined
by spaces, case kept), so a piece never spans two words and
:meth:`Subwords.word_index` maps each piece to the word it belongs to
(which is how attention over pieces is summed back to words).

Why SentencePiece (``sentencepiece`` on PyPI) rather than Hugging Face
``tokenizers``: both are well kept and have wheels for Python 3.11 on
Linux, macOS and Windows, and both are preinstalled in Colab.
SentencePiece's wheel is about 1.4 MB and depends on nothing;
``tokenizers`` is about 3.3 MB and pulls in ``huggingface_hub`` (and its
own dependencies). SentencePiece learns from an iterator of sentences in
memory and returns the model as bytes, so nothing is written to disk;
with one thread and every sentence used (no sampling) it learns the same
model from the same sentences every time, which the tests pin.
On the 15,400 training pairs of the shipped corpus it learns 2,000 pieces
per language in a few seconds, so learning them is part of every run rather
than a file to ship.

>>> subwords = learn_subwords(
...     ["the cat sat", "the cats sat", "a cat"] * 20, vocab_size=10
... )
>>> pieces = subwords.encode("the cats sat")
>>> subwords.decode(pieces)
'the cats sat'
>>> subwords.word_index(pieces)[
...     -1
... ]  # the last piece belongs to the third word
2
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import sentencepiece as spm
import torch
from torch import Tensor

WORD_START = "\u2581"
"""The mark (``▁``, U+2581) SentencePiece puts at the start of a piece that
begins a word."""

SUBWORD_UNK = "<unk>"
"""The piece SentencePiece writes for a character it never saw
while learning."""


@dataclass(frozen=True, eq=False)
class Subwords:
    """A learnt set of pieces: cut tokenised text into pieces,
    and join pieces back into text.

    Attributes:
        model: the SentencePiece model, serialised (what a checkpoint or a
            record would keep).
        pieces: every piece, in id order, SentencePiece's own
            ``<unk>`` first.
    """

    model: bytes
    pieces: tuple[str, ...] = field(init=False)
    _processor: spm.SentencePieceProcessor = field(init=False, repr=False)

    def __post_init__(self) -> None:
        processor = spm.SentencePieceProcessor(model_proto=self.model)
        object.__setattr__(self, "_processor", processor)
        pieces = tuple(
            processor.id_to_piece(i)
            for i in range(processor.get_piece_size())
        )
        object.__setattr__(self, "pieces", pieces)

    def __len__(self) -> int:
        return len(self.pieces)

    def encode(self, text: str | Sequence[str]) -> list[str]:
        """Cut ``text`` (a string of space-separated words, or the words as
        a list) into pieces.

        A character never seen while learning becomes the piece
        :data:`SUBWORD_UNK`.
        """
        if not isinstance(text, str):
            text = " ".join(text)
        ids = self._processor.encode(text, out_type=int)
        return [
            SUBWORD_UNK
            if i == self._processor.unk_id()
            else self.pieces[i]
            for i in ids
        ]

    def decode(self, pieces: Sequence[str]) -> str:
        """Join pieces back into text: each ``▁`` becomes a space
        between words.

        >>> Subwords.join(["▁Tom", "▁est", "▁fati", "gué", "▁."])
        'Tom est fatigué .'
        """
        return self.join(pieces)

    @staticmethod
    def join(pieces: Sequence[str]) -> str:
        """Join pieces into text (the same as :meth:`decode`; it needs
        no model)."""
        return "".join(pieces).replace(WORD_START, " ").strip()

    @staticmethod
    def word_index(pieces: Sequence[str]) -> list[int]:
        """For each piece, the 0-based index of the word it belongs to (a
        new word starts at each ``▁``).

        >>> Subwords.word_index(["▁Tom", "▁est", "▁fati", "gué", "▁."])
        [0, 1, 2, 2, 3]
        """
        index, word = [], -1
        for k, piece in enumerate(pieces):
            if piece.startswith(WORD_START) or k == 0:
                word += 1
            index.append(word)
        return index

    def unknown(self, text: str | Sequence[str]) -> int:
        """How many pieces of ``text`` are :data:`SUBWORD_UNK` (characters
        never seen while learning)."""
        return self.encode(text).count(SUBWORD_UNK)


def attention_to_words(
    weights: Tensor,
    source_pieces: Sequence[str],
    target_pieces: Sequence[str],
) -> Tensor:
    """Attention over pieces summed back to words:
    ``(tgt_pieces, src_pieces)`` -> ``(tgt_words, src_words)``.

    A source word's column is the sum of its pieces' columns (each row
    stays a distribution over the source); a target word's row is the mean
    of its pieces' rows (the attention of the steps that wrote it,
    so it too sums to one).

    Args:
        weights: the attention, one row per target piece and one column per
            source piece.
        source_pieces, target_pieces: the pieces of each side
            (:meth:`Subwords.word_index` groups them).

    Shape:
        - weights: ``(len(target_pieces), len(source_pieces))``.
        - returns: ``(target words, source words)``.

    Raises:
        ValueError: ``weights`` does not have that shape.

    >>> import torch
    >>> pooled = attention_to_words(
    ...     torch.eye(3), ["▁fati", "gué", "▁."], ["▁ti", "red", "▁."]
    ... )
    >>> pooled.tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    if tuple(weights.shape) != (len(target_pieces), len(source_pieces)):
        raise ValueError(
            "weights must have shape (len(target_pieces), "
            "len(source_pieces)) = "
            f"({len(target_pieces)}, {len(source_pieces)}), got "
            f"{tuple(weights.shape)}"
        )
    source_words = torch.tensor(
        Subwords.word_index(source_pieces), device=weights.device
    )
    target_words = torch.tensor(
        Subwords.word_index(target_pieces), device=weights.device
    )
    n_source, n_target = (
        int(source_words.max()) + 1,
        int(target_words.max()) + 1,
    )
    one_hot = torch.nn.functional.one_hot
    # (src_pieces, src_words) and (tgt_pieces, tgt_words)
    to_source = one_hot(source_words, n_source).to(weights.dtype)
    to_target = one_hot(target_words, n_target).to(weights.dtype)
    # (tgt_words, src_words): sums over both sides' pieces
    summed = to_target.T @ weights @ to_source
    # a target word's rows averaged
    return summed / to_target.sum(dim=0).unsqueeze(-1)


def learn_subwords(
    sentences: Iterable[str | Sequence[str]],
    vocab_size: int,
    *,
    model_type: str = "unigram",
) -> Subwords:
    """Learn ``vocab_size`` pieces from ``sentences`` with SentencePiece
    (one thread: the same pieces every time).

    Every character of the sentences gets a piece of its own
    (``character_coverage=1.0``), so only a character never seen here is
    unknown later. The text is taken as it is:
    no Unicode normalisation by SentencePiece (the corpus loader has done
    it) and case is kept.

    Args:
        sentences: the training sentences, each a string of space-separated
            words or a list of words.
        vocab_size: the number of pieces, ``<unk>`` included.
        model_type: ``"unigram"`` (Kudo, 2018; SentencePiece's default)
            or ``"bpe"`` (Sennrich et al., 2016).

    Raises:
        ValueError: ``vocab_size`` is below 4, ``model_type`` is neither,
            there are no sentences, or the sentences have too few distinct
            pieces for ``vocab_size`` (the message says the largest size
            they allow).
    """
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, int):
        raise TypeError(
            f"vocab_size must be an int, got {type(vocab_size).__name__}"
        )
    if vocab_size < 4:
        raise ValueError(
            f"vocab_size must be at least 4, got {vocab_size}"
        )
    if model_type not in ("unigram", "bpe"):
        raise ValueError(
            f"model_type must be 'unigram' or 'bpe', got {model_type!r}"
        )
    texts = [s if isinstance(s, str) else " ".join(s) for s in sentences]
    texts = [t for t in texts if t.strip()]
    if not texts:
        raise ValueError(
            "sentences is empty: nothing to learn pieces from"
        )
    written = _Sink()
    try:
        spm.SentencePieceTrainer.train(
            sentence_iterator=iter(texts),
            model_writer=written,
            vocab_size=vocab_size,
            model_type=model_type,
            character_coverage=1.0,
            normalization_rule_name="identity",
            add_dummy_prefix=True,
            remove_extra_whitespaces=True,
            split_by_whitespace=True,
            bos_id=-1,
            eos_id=-1,
            pad_id=-1,
            unk_id=0,
            num_threads=1,
            input_sentence_size=0,
            shuffle_input_sentence=False,
            hard_vocab_limit=True,
            minloglevel=2,
        )
    # e.g. "Vocabulary size too high (8000).
    # Please set it to a value <= 5432."
    except RuntimeError as error:
        raise ValueError(
            f"cannot learn {vocab_size} pieces from these sentences: "
            f"{error}"
        ) from None
    return Subwords(written.data)


class _Sink:
    """Receives the serialised model from SentencePiece (which
    calls ``write``)."""

    def __init__(self) -> None:
        self.data = b""

    def write(self, data: bytes) -> None:
        self.data += data
