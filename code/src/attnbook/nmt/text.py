"""Text in and out of a translator: French tokens joined back into text,
unknown words replaced through attention, and the tokeniser a
:class:`~attnbook.nmt.translator.Translator` owns.

A model reads and writes tokens; a reader types and reads text.
:class:`Tokenizer` is the translator's half of that bargain: it cuts
English text into what the model reads (whole lower-cased words, or
SentencePiece pieces of the cased words) and joins what the model writes
back into French text (:func:`detokenize_french`). Where the model
writes ``<unk>``, :func:`replace_unknown` copies the source word its
attention weighs most where that word is a name or a number the model
could not read (the *copy* form of unknown-word replacement;
Luong et al., 2015, and Jean et al., 2015), and leaves the ``<unk>`` out
elsewhere. A model over lower-cased words writes lower case;
:func:`restore_case` puts back the capitals of each sentence's first word
and of the names its training French spells with one
(:func:`learn_casing`).

The same rules run in the book's pages (``detok.js`` and ``seq2seq.js``
of :mod:`attnbook.book`), and one table of cases checks both.

>>> detokenize_french(["sais", "-", "tu", "lire", "?"])
'sais-tu lire ?'
>>> Tokenizer().source("I'm cold.")
["i'm", 'cold', '.']
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Container, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import torch
from torch import Tensor

from attnbook.nmt.corpus import tokenize_english
from attnbook.nmt.data import UNK
from attnbook.nmt.subwords import Subwords

UNKNOWN_CHOICES = ("copy", "keep")
"""What a translator does where its model writes ``<unk>``: copy the
source token the attention weighs most (:func:`replace_unknown`),
or keep ``<unk>``."""

UNKNOWN_DEFAULT = "copy"
"""The choice the command line and the book's pages both make.
Copying is the default because the words a vocabulary leaves out are
mostly names and numbers, which translate as themselves, while ``<unk>``
matches no word of any reference; the copy is made only where it can be
such a word (:func:`replace_unknown`), and the real-sentences chapter
measures what the rule gains on held-out sentences. Nothing is hidden: the
command line shows ``<unk>`` in its attention table and the page says which
word was copied from where; ``"keep"`` prints the model's own ``<unk>``."""

# -------------------------------------------------------------------------
# French tokens back into text

_GLUE_BEFORE = frozenset({".", ",", ")", "-"})
"""Tokens written without a space before them."""
_GLUE_AFTER = frozenset({"(", "-"})
"""Tokens written without a space after them (besides elided words)."""
_DIGITS = frozenset("0123456789")


def detokenize_french(tokens: Sequence[str]) -> str:
    """Join the loader's French tokens back into text:
    ``["j'", "ai", "froid", "."]`` -> ``"j'ai froid."``.

    The inverse of :func:`~attnbook.nmt.corpus.tokenize_french`
    on the text it produces:

    - an elided word (``j'``, ``qu'``, ``l'``) is glued to the next word;
    - ``.``, ``,`` and ``)`` are glued to the previous token, ``(`` to the
      next, and a hyphen to both of its neighbours (the loader splits
      *allons-nous* and *a-t-il* at every ``-``; the shipped French has no
      dash between spaces, so every ``-`` token was inside a word);
    - a comma between two numbers is a decimal comma (``3,5``);
    - a straight double quote opens, then closes (``dit "au revoir".``);
    - ``!``, ``?``, ``:``, ``;`` and ``»`` keep the space French
      typography puts before them, ``«`` the space after it.

    Case is kept as the tokens have it (lower-cased words stay
    lower-cased). A comma between two numbers is read as a decimal comma,
    so the tokens of *en 1960, 5 personnes* lose the space after the
    comma: they are the tokens of *3,5* too.

    >>> detokenize_french(["j'", "ai", "froid", "."])
    "j'ai froid."
    >>> detokenize_french(["allons", "-", "nous", "y", "?"])
    'allons-nous y ?'
    >>> detokenize_french(["Qu'", "a", "-", "t", "-", "il", "dit", "?"])
    "Qu'a-t-il dit ?"
    >>> detokenize_french(["3", ",", "5", "%"])
    '3,5 %'
    """
    pieces: list[str] = []
    quote_open = False
    for k, token in enumerate(tokens):
        previous = tokens[k - 1] if k else ""
        glued = (
            k == 0
            or token in _GLUE_BEFORE
            or previous in _GLUE_AFTER
            or (previous.endswith("'") and len(previous) > 1)
            or (
                previous == ","
                and k >= 2
                and tokens[k - 2][-1:] in _DIGITS
                and token[:1] in _DIGITS
            )
            or (token == '"' and quote_open)
            or (previous == '"' and quote_open)
        )
        if token == '"':
            quote_open = not quote_open
        pieces.append(token if glued else " " + token)
    return "".join(pieces)


# -------------------------------------------------------------------------
# Capitals put back into lower-cased French

_SENTENCE_ENDS = frozenset({".", "!", "?", "…"})
"""Tokens after which a new sentence starts."""


def learn_casing(sentences: Iterable[Sequence[str]]) -> dict[str, str]:
    """How a corpus spells its words inside a sentence: for each word
    whose most frequent spelling past a sentence's first token is not
    all lower case, that spelling (``tom -> Tom``, ``dvd -> DVD``).

    The first token is left out because a sentence's first word has a
    capital whatever it is; a tie between spellings goes to the lower
    case. Learnt on the training sentences only, the table holds the names
    and acronyms the model can write.

    Args:
        sentences: the cased French sentences, as tokens.

    >>> learn_casing([["Tom", "dort", "."], ["Je", "vois", "Tom", "."]])
    {'tom': 'Tom'}
    """
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for tokens in sentences:
        for token in tokens[1:]:
            counts[token.lower()][token] += 1
    table = {}
    for word, spellings in counts.items():
        best = max(
            spellings.items(), key=lambda kv: (kv[1], kv[0] == word)
        )[0]
        if best != word:
            table[word] = best
    return table


def restore_case(
    tokens: Sequence[str], casing: Mapping[str, str]
) -> list[str]:
    """Lower-cased French tokens spelt as a reader expects: each word the
    ``casing`` table holds (:func:`learn_casing`) spelt as it says, and
    the first word of each sentence with a capital (a sentence that
    starts with a number keeps it; punctuation before the word, such as
    an opening guillemet, is passed over).

    >>> restore_case(["j'", "ai", "vu", "tom", "."], {"tom": "Tom"})
    ["J'", 'ai', 'vu', 'Tom', '.']
    >>> restore_case(["ça", "va", "?", "oui", "."], {})
    ['Ça', 'va', '?', 'Oui', '.']
    """
    cased, starting = [], True
    for token in tokens:
        token = casing.get(token, token)
        if starting and any(c.isalnum() for c in token):
            if token[:1].isalpha():
                token = token[:1].upper() + token[1:]
            starting = False
        if token in _SENTENCE_ENDS:
            starting = True
        cased.append(token)
    return cased


LOWER_CASED = "the model reads and writes lower-cased words"
"""What the command line and the page say of a model over lower-cased
words."""

RECASED = (
    f"{LOWER_CASED}; capitals are put back after it, on each sentence's "
    "first word and on the names its training French spells with one"
)
"""The same, for a model whose tokeniser has a casing."""


def casing_note(tokenizer: Tokenizer) -> str:
    """What a reader is told of the case of the French of a translator
    over lower-cased words (pieces keep the case they read, and need no
    note)."""
    return LOWER_CASED if tokenizer.casing is None else RECASED


# -------------------------------------------------------------------------
# <unk> replaced through attention


COPYABLE_MARKS = "'-\u2581"
"""The characters besides letters and digits a copied token may hold."""


def copyable(token: str) -> bool:
    """Whether ``token`` may be copied into a French translation: a word
    or a number (letters, digits, apostrophes, hyphens and a piece's
    ``\u2581``), never punctuation or an emoji.

    >>> [copyable(t) for t in ["Gandalf", "42", "l'an", "?", "\U0001f600"]]
    [True, True, True, False, False]
    """
    return any(c.isalnum() for c in token) and all(
        c.isalnum() or c in COPYABLE_MARKS for c in token
    )


def replace_unknown(
    target: Sequence[str],
    source: Sequence[str],
    weights: Tensor | None,
    known: Container[str] = (),
) -> list[str]:
    """Replace each ``<unk>`` of a translation by the source word its
    attention weighs most, when that word is one to copy; drop the
    ``<unk>`` otherwise.

    The *copy* form of unknown-word replacement (Luong et al.,
    2015; Jean et al., 2015): where the model writes ``<unk>``,
    look at the row of attention weights that produced it and take the
    source token with the largest weight (the first of equal ones; the
    source ``<eos>`` column is never taken). Copying helps where that
    token translates as itself, a name or a number the model could not
    read, and nowhere else: a word the model knew (in ``known``) and
    still could not translate is an English word in a French sentence
    (``j'aime le of.``), and punctuation or an emoji is no word. So the
    token is copied only where it is :func:`copyable` and not in
    ``known``; elsewhere the ``<unk>`` is left out.

    Args:
        target: the translation's tokens.
        source: the source tokens as given (unknown words as the user wrote
            them, not ``<unk>``).
        weights: ``(>= len(target), len(source) + 1)`` attention weights,
            one row per target token; ``None`` (a model without attention)
            leaves the translation unchanged.
        known: the source tokens the model reads (its source vocabulary);
            empty, every copyable token is copied.

    Shape:
        - weights: rows for the target tokens, columns for the source
          tokens and ``<eos>``.

    Raises:
        ValueError: ``weights`` has fewer rows or columns than the pair
            needs.

    >>> replace_unknown(
    ...     ["<unk>", "dort", "<unk>", "."],
    ...     ["gandalf", "sleeps", "!", "."],
    ...     torch.eye(5)[[0, 1, 2, 3]],
    ...     known={"sleeps", "!", "."},
    ... )
    ['gandalf', 'dort', '.']
    """
    if weights is None or UNK not in target:
        return list(target)
    if weights.size(0) < len(target) or weights.size(1) < len(source):
        raise ValueError(
            f"weights must have at least ({len(target)}, {len(source)}) "
            "entries for this pair, "
            f"got {tuple(weights.shape)}"
        )
    read = weights[: len(target), : len(source)].argmax(dim=-1).tolist()
    replaced = []
    for i, token in enumerate(target):
        if token != UNK:
            replaced.append(token)
        elif copyable(word := source[read[i]]) and word not in known:
            replaced.append(word)
    return replaced


def check_unknown(unknown: str) -> str:
    """``unknown`` if it is one of :data:`UNKNOWN_CHOICES`.

    Raises:
        ValueError: it is not.
    """
    if unknown not in UNKNOWN_CHOICES:
        raise ValueError(
            f"unknown must be one of {UNKNOWN_CHOICES}, got {unknown!r}"
        )
    return unknown


# -------------------------------------------------------------------------
# The tokeniser a translator owns


@dataclass(frozen=True, eq=False)
class Tokenizer:
    """How a translator cuts English text into what its model reads, and
    joins what the model writes into French text.

    Without units it reads lower-cased whole words
    (:func:`~attnbook.nmt.corpus.tokenize_english`); with both units it
    reads the cased words cut into SentencePiece pieces
    (:class:`~attnbook.nmt.subwords.Subwords`) and writes pieces, which
    are joined into words before the words are joined into text.

    Attributes:
        source_units, target_units: the English and French pieces, or
            ``None`` for whole words.
        casing: for lower-cased words, how the training French spells
            its names and acronyms (:func:`learn_casing`): :meth:`text`
            puts their capitals back, and each sentence's first
            (:func:`restore_case`); ``None`` leaves the text lower-cased.

    Raises:
        ValueError: one of the two units is given without the other, or
            a casing is given for pieces, which keep their case.
    """

    source_units: Subwords | None = None
    target_units: Subwords | None = None
    casing: Mapping[str, str] | None = None

    def __post_init__(self) -> None:
        if (self.source_units is None) != (self.target_units is None):
            raise ValueError(
                "give both source_units and target_units (pieces) or "
                "neither (whole words)"
            )
        if self.casing is not None and self.pieces:
            raise ValueError(
                "pieces keep their case: a casing is for lower-cased "
                "words only"
            )

    @property
    def pieces(self) -> bool:
        """Whether the model reads and writes pieces."""
        return self.source_units is not None

    @property
    def cased(self) -> bool:
        """Whether the corpus it reads keeps its case (pieces do;
        whole words are lower-cased)."""
        return self.pieces

    def words(self, text: str) -> list[str]:
        """The English words and punctuation of ``text`` (cased when the
        model reads pieces)."""
        return tokenize_english(text, cased=self.cased)

    def source(self, text: str | Sequence[str]) -> list[str]:
        """What the model reads for ``text`` (a string, or its words as
        :meth:`words` gives them)."""
        words = self.words(text) if isinstance(text, str) else list(text)
        if self.source_units is None:
            return words
        return self.source_units.encode(words)

    def target(self, words: Sequence[str]) -> list[str]:
        """What the model writes for the French ``words`` (the corpus
        loader's tokens)."""
        if self.target_units is None:
            return list(words)
        return self.target_units.encode(words)

    def target_words(self, tokens: Sequence[str]) -> list[str]:
        """The French words of what the model wrote (pieces joined)."""
        if self.target_units is None:
            return list(tokens)
        return Subwords.join(tokens).split()

    def text(self, tokens: Sequence[str]) -> str:
        """What the model wrote, as French text.

        >>> Tokenizer().text(["sais", "-", "tu", "lire", "?"])
        'sais-tu lire ?'
        >>> Tokenizer(casing={"tom": "Tom"}).text(["tom", "lit", "."])
        'Tom lit.'
        """
        words = self.target_words(tokens)
        if self.casing is not None:
            words = restore_case(words, self.casing)
        return detokenize_french(words)

    def to_state(self) -> dict[str, Any]:
        """The tokeniser as a checkpoint entry: the kind, and the two
        SentencePiece models' bytes as ``uint8`` tensors (which
        ``torch.load(weights_only=True)`` reads), or the words' casing
        where there is one."""
        if self.source_units is None or self.target_units is None:
            if self.casing is None:
                return {"kind": "words"}
            return {"kind": "words", "casing": dict(self.casing)}
        return {
            "kind": "pieces",
            "source_units": _bytes_tensor(self.source_units.model),
            "target_units": _bytes_tensor(self.target_units.model),
        }

    @classmethod
    def from_state(cls, state: dict[str, Any] | None) -> Tokenizer:
        """A tokeniser read back from :meth:`to_state` (``None``: a
        checkpoint written before translators kept one, whole words).

        Raises:
            ValueError: the entry names another kind.
        """
        if state is None or state.get("kind") == "words":
            casing = (state or {}).get("casing")
            return cls(casing=None if casing is None else dict(casing))
        if state.get("kind") != "pieces":
            raise ValueError(
                f"the tokeniser is of kind {state.get('kind')!r}; this "
                "version knows 'words' and 'pieces'"
            )
        return cls(
            Subwords(bytes(state["source_units"].tolist())),
            Subwords(bytes(state["target_units"].tolist())),
        )


def _bytes_tensor(data: bytes) -> Tensor:
    return torch.frombuffer(bytearray(data), dtype=torch.uint8).clone()
