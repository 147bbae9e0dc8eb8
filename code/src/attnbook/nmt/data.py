"""Sentence pairs, vocabularies, and padded batches with masks:
what every model of the book reads.

A :class:`SentencePair` holds one source and one target sentence as tokens
(and, for the toy grammar of :mod:`attnbook.nmt.grammar`, the true word
alignment). A :class:`Vocab` maps tokens to ids;
:func:`make_batch` and :func:`iterate_batches` pad pairs into tensors with
masks (**True = a real token, may be attended to**).

>>> from attnbook.nmt.data import SentencePair, Vocab, make_batch
>>> pair = SentencePair(("the", "cat", "sleeps"), ("le", "chat", "dort"))
>>> src_vocab, tgt_vocab = Vocab(pair.source), Vocab(pair.target)
>>> src_vocab.encode(
...     ["the", "zebra"]
... )  # <unk> for what it does not know, <eos> last
[4, 3, 2]
>>> batch = make_batch([pair], src_vocab, tgt_vocab)
>>> batch.src.tolist(), batch.tgt_in.tolist(), batch.tgt_out.tolist()
([[4, 5, 6, 2]], [[1, 4, 5, 6]], [[4, 5, 6, 2]])
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

import torch

PAD, SOS, EOS, UNK = "<pad>", "<sos>", "<eos>", "<unk>"
SPECIALS = (PAD, SOS, EOS, UNK)


@dataclass(frozen=True)
class SentencePair:
    """One English sentence, its French translation and, for the toy
    grammar, the true alignment.

    Attributes:
        source: the English tokens ``x_1 ... x_S`` (no ``<eos>``).
        target: the French tokens ``y_1 ... y_T`` (no ``<sos>``/``<eos>``).
        alignment: for each target token, the source positions (0-based)
            it translates, sure or only possible (Och and Ney's :math:`P`);
            ``()`` when unknown (a real corpus).
            French ``ne`` and ``pas`` both align to English ``does not``;
            ``regarde`` aligns to ``looks at``.
        categories: for each target token, its word category (one of
            :data:`attnbook.nmt.grammar.CATEGORIES`); ``()`` when unknown.
        sure: for each target token, the positions of its ``alignment``
            that are *sure* links (Och and Ney's :math:`S`);
            the others are only *possible* (``ne`` and ``pas``: sure on
            ``not``, possible on ``does``). ``()`` for the whole pair:
            every link is sure.
    """

    source: tuple[str, ...]
    target: tuple[str, ...]
    alignment: tuple[tuple[int, ...], ...] = ()
    categories: tuple[str, ...] = ()
    sure: tuple[tuple[int, ...], ...] = ()

    def __post_init__(self) -> None:
        if self.alignment and len(self.alignment) != len(self.target):
            raise ValueError(
                f"alignment has {len(self.alignment)} entries but target "
                f"has {len(self.target)} tokens"
            )
        if self.categories and len(self.categories) != len(self.target):
            raise ValueError(
                f"categories has {len(self.categories)} entries but "
                f"target has {len(self.target)} tokens"
            )
        if self.sure:
            if len(self.sure) != len(self.alignment):
                raise ValueError(
                    f"sure has {len(self.sure)} entries but alignment has "
                    f"{len(self.alignment)}"
                )
            for i, (sure, sources) in enumerate(
                zip(self.sure, self.alignment, strict=True)
            ):
                if not set(sure) <= set(sources):
                    raise ValueError(
                        f"sure[{i}]={sure} must be a subset of "
                        f"alignment[{i}]={sources} (a sure link is a link)"
                    )

    @property
    def has_alignment(self) -> bool:
        """Whether the pair carries a true alignment (the toy grammar's
        pairs do; a corpus's do not)."""
        return bool(self.alignment)

    def links(self) -> list[tuple[int, int]]:
        """The alignment as ``(target_position, source_position)``
        links, sure and possible (Och and Ney's :math:`P`), e.g. for a
        heatmap's outline."""
        return [
            (i, j)
            for i, sources in enumerate(self.alignment)
            for j in sources
        ]

    def sure_links(self) -> list[tuple[int, int]]:
        """The sure links (Och and Ney's :math:`S \\subseteq P`),
        as ``(target_position, source_position)``.

        The alignment error rate wants every sure link found and accepts a
        possible one::

            alignment_error_rate(weights, pair.sure_links(), pair.links())

        >>> pair = SentencePair(
        ...     ("not",), ("ne", "pas"), ((0,), (0,))
        ... )  # no sure field: every link is sure
        >>> pair.sure_links() == pair.links()
        True
        """
        if not self.sure:
            return self.links()
        return [
            (i, j) for i, sources in enumerate(self.sure) for j in sources
        ]

    def noun_of(self, i: int) -> int:
        """The target position of the noun that the article or adjective at
        target position ``i`` agrees with.

        French articles and adjectives take their gender and number from
        the noun: ``la`` in ``la petite souris`` is decided by ``souris``.
        Needs the pair's word categories.

        Raises:
            ValueError: the word at ``i`` is not an article or an
                adjective, or the pair has no categories.
        """
        if not self.categories:
            raise ValueError(
                "this pair has no word categories (only the toy grammar's "
                "pairs do)"
            )
        category = self.categories[i]
        if category in ("article", "adjective_before"):
            return next(
                k
                for k in range(i + 1, len(self.target))
                if self.categories[k] == "noun"
            )
        if category == "adjective_after":
            return max(k for k in range(i) if self.categories[k] == "noun")
        raise ValueError(
            f"target word {i} ({self.target[i]!r}) is a {category}, not "
            "an article or adjective"
        )

    def with_source_reversed(self) -> SentencePair:
        """The pair with its English words in reverse order and its links
        moved with them.

        Sutskever et al. (2014) fed the source reversed to an
        encoder-decoder without attention: the first words of the two
        sentences, which the decoder needs first, then lie close together.

        >>> pair = SentencePair(
        ...     ("the", "cat", "sleeps"),
        ...     ("le", "chat", "dort"),
        ...     ((0,), (1,), (2,)),
        ... )
        >>> reversed_pair = pair.with_source_reversed()
        >>> reversed_pair.source, reversed_pair.alignment
        (('sleeps', 'cat', 'the'), ((2,), (1,), (0,)))
        """
        last = len(self.source) - 1

        def moved(
            per_token: tuple[tuple[int, ...], ...],
        ) -> tuple[tuple[int, ...], ...]:
            return tuple(
                tuple(sorted(last - j for j in sources))
                for sources in per_token
            )

        return SentencePair(
            self.source[::-1],
            self.target,
            moved(self.alignment),
            self.categories,
            moved(self.sure),
        )

    def __str__(self) -> str:
        return f"{' '.join(self.source)}  ->  {' '.join(self.target)}"


LENGTH_BUCKETS = ((1, 8), (9, 13), (14, 18), (19, 25))
"""Source-length buckets (inclusive token counts) for reporting accuracy
against sentence length."""


def length_bucket(
    src_len: int, buckets: Sequence[tuple[int, int]] = LENGTH_BUCKETS
) -> str:
    """Name the bucket of a sentence of ``src_len`` source tokens,
    e.g. ``"9-13"``.

    A length beyond the last bucket gets ``"26+"`` style names (one past
    the last upper bound).

    Raises:
        ValueError: ``src_len`` is below the first bucket.

    >>> length_bucket(3), length_bucket(13), length_bucket(30)
    ('1-8', '9-13', '26+')
    """
    for lower, upper in buckets:
        if lower <= src_len <= upper:
            return f"{lower}-{upper}"
    if src_len > buckets[-1][1]:
        return f"{buckets[-1][1] + 1}+"
    raise ValueError(
        f"src_len={src_len} is below the first bucket {buckets[0]}"
    )


# -------------------------------------------------------------------------
# Vocabularies and batches


class Vocab:
    """A token <-> id table whose first four ids are ``<pad>``,
    ``<sos>``, ``<eos>`` and ``<unk>``.

    Args:
        tokens: the ordinary tokens, in the order their ids should follow
            the specials; duplicates and specials are ignored.

    >>> vocab = Vocab.build(
    ...     [["le", "chat"], ["le", "chien"]]
    ... )  # most frequent first
    >>> vocab.tokens
    ('<pad>', '<sos>', '<eos>', '<unk>', 'le', 'chat', 'chien')
    >>> vocab.decode(vocab.encode(["le", "zèbre"], add_sos=True))
    ['le', '<unk>']
    """

    pad_id, sos_id, eos_id, unk_id = 0, 1, 2, 3

    def __init__(self, tokens: Iterable[str]) -> None:
        ordered = list(SPECIALS)
        seen = set(ordered)
        for token in tokens:
            if token not in seen:
                seen.add(token)
                ordered.append(token)
        self._tokens = tuple(ordered)
        self._ids = {token: i for i, token in enumerate(self._tokens)}

    @classmethod
    def build(
        cls, sentences: Iterable[Sequence[str]], min_count: int = 1
    ) -> Vocab:
        """Make a vocabulary of the tokens seen at least ``min_count``
        times, most frequent first."""
        counts = Counter(
            token for sentence in sentences for token in sentence
        )
        kept = sorted(
            (t for t, c in counts.items() if c >= min_count),
            key=lambda t: (-counts[t], t),
        )
        return cls(kept)

    @property
    def tokens(self) -> tuple[str, ...]:
        """All tokens, specials first, in id order (what a
        checkpoint stores)."""
        return self._tokens

    def __len__(self) -> int:
        return len(self._tokens)

    def __contains__(self, token: object) -> bool:
        return token in self._ids

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Vocab) and self._tokens == other._tokens

    def __hash__(self) -> int:
        return hash(self._tokens)

    def __repr__(self) -> str:
        return (
            f"Vocab({len(self)} tokens: {', '.join(self._tokens[4:10])}, "
            "...)"
        )

    def id(self, token: str) -> int:
        """The id of ``token``; ``<unk>``'s id for a token the vocabulary
        does not know."""
        return self._ids.get(token, self.unk_id)

    def unknown(self, tokens: Iterable[str]) -> list[str]:
        """The tokens of ``tokens`` that this vocabulary does not know
        (they would become ``<unk>``)."""
        return [t for t in tokens if t not in self._ids]

    def encode(
        self,
        tokens: Sequence[str],
        *,
        add_sos: bool = False,
        add_eos: bool = True,
        max_len: int | None = None,
    ) -> list[int]:
        """Turn tokens into ids; unknown tokens become ``<unk>`` (count
        them with :meth:`unknown`).

        Args:
            tokens: the tokens of one sentence.
            add_sos: put ``<sos>`` first.
            add_eos: put ``<eos>`` last.
            max_len: the most tokens allowed (not counting
                ``<sos>``/``<eos>``); ``None`` for no limit.

        Raises:
            TypeError: ``tokens`` is a string rather than a sequence
                of tokens.
            ValueError: the sentence is empty or longer than ``max_len``.
        """
        if isinstance(tokens, str):
            raise TypeError(
                "tokens must be a sequence of tokens, not a str: split "
                "the sentence first"
            )
        if len(tokens) == 0:
            raise ValueError(
                "cannot encode an empty sentence: it has no tokens"
            )
        if max_len is not None and len(tokens) > max_len:
            raise ValueError(
                f"sentence has {len(tokens)} tokens, more than the limit "
                f"max_len={max_len}"
            )
        ids = [self._ids.get(t, self.unk_id) for t in tokens]
        return [self.sos_id] * add_sos + ids + [self.eos_id] * add_eos

    def decode(
        self, ids: Iterable[int], *, stop_at_eos: bool = True
    ) -> list[str]:
        """Turn ids back into tokens, dropping ``<pad>`` and ``<sos>`` and
        stopping at ``<eos>``."""
        tokens = []
        for i in ids:
            i = int(i)
            if i == self.eos_id and stop_at_eos:
                break
            if i in (self.pad_id, self.sos_id):
                continue
            tokens.append(self._tokens[i])
        return tokens


@dataclass
class Batch:
    """Padded source and target ids with their masks (``True`` = a real
    token, may be attended to).

    Attributes:
        src: ``(batch, src_len)`` source ids ``x_1 ... x_S <eos>``,
            right-padded with ``<pad>``.
        src_mask: ``(batch, src_len)`` bool, ``True`` where ``src`` is
            not padding.
        tgt_in: ``(batch, tgt_len)`` decoder inputs ``<sos> y_1 ... y_T``.
        tgt_out: ``(batch, tgt_len)`` the tokens to predict,
            ``y_1 ... y_T <eos>``.
        tgt_mask: ``(batch, tgt_len)`` bool, ``True`` where ``tgt_out`` is
            not padding.
        indices: the positions of the batch's pairs in the list they
            came from.
        n_unknown: how many source and target tokens the vocabularies
            mapped to ``<unk>``.
    """

    src: torch.Tensor
    src_mask: torch.Tensor
    tgt_in: torch.Tensor
    tgt_out: torch.Tensor
    tgt_mask: torch.Tensor
    indices: tuple[int, ...]
    n_unknown: int = 0

    def to(self, device: torch.device | str) -> Batch:
        """The same batch with every tensor on ``device``."""
        return Batch(
            self.src.to(device),
            self.src_mask.to(device),
            self.tgt_in.to(device),
            self.tgt_out.to(device),
            self.tgt_mask.to(device),
            self.indices,
            self.n_unknown,
        )

    def __len__(self) -> int:
        return self.src.size(0)


def _pad(sequences: Sequence[Sequence[int]], pad_id: int) -> torch.Tensor:
    longest = max(len(s) for s in sequences)
    out = torch.full((len(sequences), longest), pad_id, dtype=torch.long)
    for row, seq in enumerate(sequences):
        out[row, : len(seq)] = torch.tensor(seq, dtype=torch.long)
    return out


def make_batch(
    pairs: Sequence[SentencePair],
    src_vocab: Vocab,
    tgt_vocab: Vocab,
    *,
    indices: Sequence[int] | None = None,
    max_src_len: int | None = None,
) -> Batch:
    """Encode and pad sentence pairs into one :class:`Batch`.

    Args:
        pairs: the pairs.
        src_vocab, tgt_vocab: the vocabularies;
            unknown tokens become ``<unk>`` and are counted.
        indices: the pairs' positions in their dataset (stored in the
            batch); ``None`` numbers them.
        max_src_len: reject sources longer than this many tokens.

    Raises:
        ValueError: ``pairs`` is empty, or a sentence is empty or too long.

    >>> pairs = [
    ...     SentencePair(("a", "b", "c"), ("x",)),
    ...     SentencePair(("a",), ("x", "y")),
    ... ]
    >>> batch = make_batch(
    ...     pairs, Vocab(["a", "b", "c"]), Vocab(["x", "y"])
    ... )
    >>> # True = a real token (<eos> included), may be attended to
    >>> batch.src_mask.tolist()
    [[True, True, True, True], [True, True, False, False]]
    """
    if len(pairs) == 0:
        raise ValueError("cannot make a batch from no pairs")
    src = [src_vocab.encode(p.source, max_len=max_src_len) for p in pairs]
    tgt = [tgt_vocab.encode(p.target) for p in pairs]
    src_ids, tgt_ids = _pad(src, Vocab.pad_id), _pad(tgt, Vocab.pad_id)
    tgt_in = torch.cat(
        [torch.full((len(pairs), 1), Vocab.sos_id), tgt_ids[:, :-1]], dim=1
    )
    tgt_in = tgt_in.masked_fill(tgt_in == Vocab.eos_id, Vocab.pad_id)
    n_unknown = sum(
        len(src_vocab.unknown(p.source)) + len(tgt_vocab.unknown(p.target))
        for p in pairs
    )
    return Batch(
        src=src_ids,
        src_mask=src_ids != Vocab.pad_id,
        tgt_in=tgt_in,
        tgt_out=tgt_ids,
        tgt_mask=tgt_ids != Vocab.pad_id,
        indices=tuple(indices)
        if indices is not None
        else tuple(range(len(pairs))),
        n_unknown=n_unknown,
    )


def iterate_batches(
    pairs: Sequence[SentencePair],
    src_vocab: Vocab,
    tgt_vocab: Vocab,
    batch_size: int,
    *,
    shuffle: bool = True,
    generator: random.Random | None = None,
    group_by_length: bool = True,
    by_target: bool = False,
) -> Iterator[Batch]:
    """Yield padded batches covering every pair once (one epoch).

    Args:
        pairs: the dataset.
        src_vocab, tgt_vocab: the vocabularies.
        batch_size: pairs per batch (the last batch may be smaller).
        shuffle: visit the pairs (and the batches) in a random order.
        generator: the random generator for the shuffle;
            ``None`` makes one seeded with 0.
        group_by_length: put pairs of similar source length in the same
            batch, so little of each batch is padding;
            the order of the batches is still shuffled.
        by_target: group by target length first, then source length
            (with ``group_by_length``): the decoder works once per target
            position, padding included, so this leaves less of its work to
            padding than grouping by source length alone.

    >>> pairs = [SentencePair(("a",) * n, ("x",)) for n in (1, 2, 3, 4, 5)]
    >>> vocab = Vocab(["a", "x"])
    >>> sorted(
    ...     len(batch)
    ...     for batch in iterate_batches(pairs, vocab, vocab, batch_size=2)
    ... )
    [1, 2, 2]
    """
    if batch_size < 1:
        raise ValueError(
            f"batch_size must be at least 1, got {batch_size}"
        )
    rng = generator or random.Random(0)
    order = list(range(len(pairs)))
    if shuffle:
        rng.shuffle(order)
    if group_by_length:
        # sort within windows of 50 batches: similar lengths together,
        # and still a random mix of batches
        window = 50 * batch_size

        def length(k: int) -> int | tuple[int, int]:
            pair = pairs[k]
            if by_target:
                return len(pair.target), len(pair.source)
            return len(pair.source)

        order = [
            i
            for start in range(0, len(order), window)
            for i in sorted(order[start : start + window], key=length)
        ]
    chunks = [
        order[start : start + batch_size]
        for start in range(0, len(order), batch_size)
    ]
    if shuffle:
        rng.shuffle(chunks)
    for chunk in chunks:
        yield make_batch(
            [pairs[i] for i in chunk], src_vocab, tgt_vocab, indices=chunk
        )
