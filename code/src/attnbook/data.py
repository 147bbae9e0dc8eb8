"""A toy English-to-French grammar with known word alignments, vocabularies, and padded batches.

The grammar is small enough to learn in a minute on a laptop CPU and rich enough to need attention:
French adjectives mostly follow the noun (``the black cat`` -> ``le chat noir``) while a few precede it
(``petit``, ``grand``, ...); articles and adjectives agree with the noun's gender and number; verbs agree
with their subject, sometimes across a relative clause; ``does not`` becomes the split ``ne ... pas``;
``because`` becomes ``parce que``; and conjunctions chain clauses into sentences of up to about 25
words. Every generated pair carries, for each French word, the English positions it translates and the
word's category, so a model's attention can be scored against the truth.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

import torch

CATEGORIES = (
    "article",
    "noun",
    "adjective_before",
    "adjective_after",
    "verb",
    "negation",
    "conjunction",
    "relative",
)
"""The word categories of the grammar's French words (``adjective_before``: before the noun)."""

PAD, SOS, EOS, UNK = "<pad>", "<sos>", "<eos>", "<unk>"
SPECIALS = (PAD, SOS, EOS, UNK)

# ---------------------------------------------------------------------------------------------------
# The lexicon. French nouns all start with a consonant, so articles never elide (no "l'").


@dataclass(frozen=True)
class _Noun:
    en: str
    en_plural: str
    fr: str
    fr_plural: str
    feminine: bool
    animate: bool
    human: bool = False


@dataclass(frozen=True)
class _Adjective:
    en: str
    forms: tuple[
        str, str, str, str
    ]  # masculine singular, feminine singular, masculine plural, feminine plural
    animate_only: bool = False


@dataclass(frozen=True)
class _Verb:
    en: tuple[str, ...]  # third person singular, e.g. ("looks", "at")
    en_base: tuple[str, ...]  # base form, also the plural: ("look", "at")
    fr: str  # third person singular
    fr_plural: str


_NOUNS = (
    _Noun("cat", "cats", "chat", "chats", feminine=False, animate=True),
    _Noun("dog", "dogs", "chien", "chiens", feminine=False, animate=True),
    _Noun("horse", "horses", "cheval", "chevaux", feminine=False, animate=True),
    _Noun("duck", "ducks", "canard", "canards", feminine=False, animate=True),
    _Noun("boy", "boys", "garçon", "garçons", feminine=False, animate=True, human=True),
    _Noun("girl", "girls", "fille", "filles", feminine=True, animate=True, human=True),
    _Noun("woman", "women", "femme", "femmes", feminine=True, animate=True, human=True),
    _Noun("mouse", "mice", "souris", "souris", feminine=True, animate=True),
    _Noun("cow", "cows", "vache", "vaches", feminine=True, animate=True),
    _Noun("book", "books", "livre", "livres", feminine=False, animate=False),
    _Noun("cake", "cakes", "gâteau", "gâteaux", feminine=False, animate=False),
    _Noun("garden", "gardens", "jardin", "jardins", feminine=False, animate=False),
    _Noun("car", "cars", "voiture", "voitures", feminine=True, animate=False),
    _Noun("house", "houses", "maison", "maisons", feminine=True, animate=False),
    _Noun("ball", "balls", "balle", "balles", feminine=True, animate=False),
    _Noun("letter", "letters", "lettre", "lettres", feminine=True, animate=False),
)

_ADJECTIVES_BEFORE = (  # the few French adjectives that precede the noun
    _Adjective("small", ("petit", "petite", "petits", "petites")),
    _Adjective("big", ("grand", "grande", "grands", "grandes")),
    _Adjective("young", ("jeune", "jeune", "jeunes", "jeunes"), animate_only=True),
    _Adjective("old", ("vieux", "vieille", "vieux", "vieilles")),
    _Adjective("good", ("bon", "bonne", "bons", "bonnes")),
    _Adjective("pretty", ("joli", "jolie", "jolis", "jolies")),
)

_ADJECTIVES_AFTER = (  # most French adjectives follow the noun
    _Adjective("black", ("noir", "noire", "noirs", "noires")),
    _Adjective("white", ("blanc", "blanche", "blancs", "blanches")),
    _Adjective("red", ("rouge", "rouge", "rouges", "rouges")),
    _Adjective("green", ("vert", "verte", "verts", "vertes")),
    _Adjective("heavy", ("lourd", "lourde", "lourds", "lourdes")),
    _Adjective("happy", ("heureux", "heureuse", "heureux", "heureuses"), animate_only=True),
    _Adjective("tired", ("fatigué", "fatiguée", "fatigués", "fatiguées"), animate_only=True),
    _Adjective("clever", ("intelligent", "intelligente", "intelligents", "intelligentes"), animate_only=True),
)

_TRANSITIVE = (
    _Verb(("sees",), ("see",), "voit", "voient"),
    _Verb(("likes",), ("like",), "aime", "aiment"),
    _Verb(("finds",), ("find",), "trouve", "trouvent"),
    _Verb(("follows",), ("follow",), "suit", "suivent"),
    _Verb(("wants",), ("want",), "veut", "veulent"),
    _Verb(("carries",), ("carry",), "porte", "portent"),
    _Verb(("looks", "at"), ("look", "at"), "regarde", "regardent"),
    _Verb(("waits", "for"), ("wait", "for"), "attend", "attendent"),
)

_INTRANSITIVE = (
    _Verb(("sleeps",), ("sleep",), "dort", "dorment"),
    _Verb(("runs",), ("run",), "court", "courent"),
    _Verb(("sings",), ("sing",), "chante", "chantent"),
    _Verb(("laughs",), ("laugh",), "rit", "rient"),
    _Verb(("dances",), ("dance",), "danse", "dansent"),
    _Verb(("waits",), ("wait",), "attend", "attendent"),
)

_CONJUNCTIONS = (("and",), ("but",), ("because",), ("while",))
_CONJUNCTION_FR = {"and": ("et",), "but": ("mais",), "because": ("parce", "que"), "while": ("pendant", "que")}

_VOWELS = tuple("aeiouhéèêâàîôû")


@dataclass(frozen=True)
class SentencePair:
    """One English sentence, its French translation and, for the toy grammar, the true alignment.

    Attributes:
        source: the English tokens ``x_1 ... x_S`` (no ``<eos>``).
        target: the French tokens ``y_1 ... y_T`` (no ``<sos>``/``<eos>``).
        alignment: for each target token, the source positions (0-based) it translates; ``()`` when
            unknown (a real corpus). French ``ne`` and ``pas`` both align to English ``does not``;
            ``regarde`` aligns to ``looks at``.
        categories: for each target token, its word category (one of :data:`CATEGORIES`); ``()`` when
            unknown.
    """

    source: tuple[str, ...]
    target: tuple[str, ...]
    alignment: tuple[tuple[int, ...], ...] = ()
    categories: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.alignment and len(self.alignment) != len(self.target):
            raise ValueError(
                f"alignment has {len(self.alignment)} entries but target has {len(self.target)} tokens"
            )
        if self.categories and len(self.categories) != len(self.target):
            raise ValueError(
                f"categories has {len(self.categories)} entries but target has {len(self.target)} tokens"
            )

    @property
    def has_alignment(self) -> bool:
        """Whether the pair carries a true alignment (the toy grammar's pairs do; a corpus's do not)."""
        return bool(self.alignment)

    def links(self) -> list[tuple[int, int]]:
        """The alignment as ``(target_position, source_position)`` links, e.g. for a heatmap's outline."""
        return [(i, j) for i, sources in enumerate(self.alignment) for j in sources]

    def noun_of(self, i: int) -> int:
        """The target position of the noun that the article or adjective at target position ``i`` agrees with.

        French articles and adjectives take their gender and number from the noun: ``la`` in
        ``la petite souris`` is decided by ``souris``. Needs the pair's word categories.

        Raises:
            ValueError: the word at ``i`` is not an article or an adjective, or the pair has no categories.
        """
        if not self.categories:
            raise ValueError("this pair has no word categories (only the toy grammar's pairs do)")
        category = self.categories[i]
        if category in ("article", "adjective_before"):
            return next(k for k in range(i + 1, len(self.target)) if self.categories[k] == "noun")
        if category == "adjective_after":
            return max(k for k in range(i) if self.categories[k] == "noun")
        raise ValueError(f"target word {i} ({self.target[i]!r}) is a {category}, not an article or adjective")

    def __str__(self) -> str:
        return f"{' '.join(self.source)}  ->  {' '.join(self.target)}"


class _SentenceBuilder:
    """Collects English and French tokens and links each French token to the English ones it renders."""

    def __init__(self) -> None:
        self.source: list[str] = []
        self.target: list[str] = []
        self.alignment: list[tuple[int, ...]] = []
        self.categories: list[str] = []

    def en(self, *tokens: str) -> tuple[int, ...]:
        start = len(self.source)
        self.source.extend(tokens)
        return tuple(range(start, len(self.source)))

    def fr(self, token: str, aligned: tuple[int, ...], category: str) -> None:
        self.target.append(token)
        self.alignment.append(aligned)
        self.categories.append(category)

    def pair(self) -> SentencePair:
        return SentencePair(
            tuple(self.source), tuple(self.target), tuple(self.alignment), tuple(self.categories)
        )


@dataclass(frozen=True)
class ToyGrammar:
    """Samples English-French sentence pairs with their true word alignments.

    A sentence is one to three clauses joined by ``and``/``but``/``because``/``while``. A clause is a
    subject noun phrase and a verb phrase; a noun phrase is an article, up to two adjectives, a noun and,
    for people and animals, sometimes a relative clause (``the cats that sleep``). Verbs agree with their
    subject and may be negated (``does not`` -> ``ne ... pas``).

    Args:
        p_adjective_before: probability that a noun phrase has an adjective that French puts first.
        p_adjective_after: probability that it has one that French puts after the noun.
        p_relative: probability that an animate noun phrase has a relative clause.
        p_negation: probability that a verb is negated.
        p_transitive: probability that a verb takes an object.
        clause_weights: relative frequencies of sentences with one, two and three clauses.
    """

    p_adjective_before: float = 0.3
    p_adjective_after: float = 0.4
    p_relative: float = 0.25
    p_negation: float = 0.25
    p_transitive: float = 0.6
    clause_weights: tuple[float, float, float] = (0.35, 0.4, 0.25)

    def sample(self, rng: random.Random) -> SentencePair:
        """Draw one sentence pair using the random generator ``rng``."""
        builder = _SentenceBuilder()
        n_clauses = rng.choices((1, 2, 3), weights=self.clause_weights)[0]
        for clause in range(n_clauses):
            if clause > 0:
                conjunction = rng.choice(_CONJUNCTIONS)
                positions = builder.en(*conjunction)
                for word in _CONJUNCTION_FR[conjunction[0]]:
                    builder.fr(word, positions, "conjunction")
            self._clause(builder, rng)
        return builder.pair()

    def _clause(self, builder: _SentenceBuilder, rng: random.Random) -> None:
        noun = rng.choice([n for n in _NOUNS if n.animate])
        plural = rng.random() < 0.4
        self._noun_phrase(builder, rng, noun, plural, definite_only=False, allow_relative=True)
        self._verb_phrase(builder, rng, plural, allow_relative=True)

    def _noun_phrase(
        self,
        builder: _SentenceBuilder,
        rng: random.Random,
        noun: _Noun,
        plural: bool,
        *,
        definite_only: bool,
        allow_relative: bool,
    ) -> None:
        before = after = None
        if rng.random() < self.p_adjective_before:
            before = rng.choice([a for a in _ADJECTIVES_BEFORE if noun.animate or not a.animate_only])
        if rng.random() < self.p_adjective_after:
            after = rng.choice([a for a in _ADJECTIVES_AFTER if noun.animate or not a.animate_only])
        definite = definite_only or rng.random() < 0.6
        if not definite and plural and before is not None:
            definite = True  # French writes "de petits chats", not "des petits chats": avoid that case
        # English: article, adjectives (size before colour), noun. French: article, [adj.], noun, [adj.].
        if definite:
            en_article, fr_article = "the", ("les" if plural else "la" if noun.feminine else "le")
        else:
            en_article, fr_article = ("some", "des") if plural else ("a", "une" if noun.feminine else "un")
        article_pos = builder.en(en_article)
        before_pos = builder.en(before.en) if before else ()
        after_pos = builder.en(after.en) if after else ()
        noun_pos = builder.en(noun.en_plural if plural else noun.en)
        form = 2 * plural + noun.feminine
        builder.fr(fr_article, article_pos, "article")
        if before:
            builder.fr(before.forms[form], before_pos, "adjective_before")
        builder.fr(noun.fr_plural if plural else noun.fr, noun_pos, "noun")
        if after:
            builder.fr(after.forms[form], after_pos, "adjective_after")
        if allow_relative and noun.animate and rng.random() < self.p_relative:
            builder.fr("qui", builder.en("who" if noun.human else "that"), "relative")
            self._verb_phrase(builder, rng, plural, allow_relative=False)

    def _verb_phrase(
        self, builder: _SentenceBuilder, rng: random.Random, plural: bool, *, allow_relative: bool
    ) -> None:
        transitive = rng.random() < self.p_transitive
        verb = rng.choice(_TRANSITIVE if transitive else _INTRANSITIVE)
        fr_verb = verb.fr_plural if plural else verb.fr
        if rng.random() < self.p_negation:
            negation_pos = builder.en("do" if plural else "does", "not")
            verb_pos = builder.en(*verb.en_base)
            builder.fr("n'" if fr_verb.startswith(_VOWELS) else "ne", negation_pos, "negation")
            builder.fr(fr_verb, verb_pos, "verb")
            builder.fr("pas", negation_pos, "negation")
            definite_only = True  # after a negation French turns "un"/"des" into "de": avoid that case
        else:
            builder.fr(fr_verb, builder.en(*(verb.en_base if plural else verb.en)), "verb")
            definite_only = False
        if transitive:
            obj = rng.choice(_NOUNS)
            self._noun_phrase(
                builder,
                rng,
                obj,
                rng.random() < 0.4,
                definite_only=definite_only,
                allow_relative=allow_relative,
            )


def generate_pairs(
    n: int,
    *,
    seed: int = 0,
    min_src_len: int = 3,
    max_src_len: int = 25,
    grammar: ToyGrammar | None = None,
    unique: bool = True,
) -> list[SentencePair]:
    """Draw ``n`` sentence pairs from the toy grammar, deterministically for a given ``seed``.

    Args:
        n: how many pairs.
        seed: the seed of the private random generator (the global generators are not touched).
        min_src_len: the fewest English tokens a pair may have.
        max_src_len: the most English tokens a pair may have; longer draws are discarded.
        grammar: the grammar's settings; ``None`` uses :class:`ToyGrammar`'s defaults.
        unique: no two pairs share an English sentence.

    Returns:
        A list of ``n`` :class:`SentencePair`.

    Raises:
        ValueError: ``n`` is negative, the length bounds are inconsistent, or the grammar cannot produce
            ``n`` distinct sentences within the bounds.
    """
    if n < 0:
        raise ValueError(f"n must be non-negative, got {n}")
    if not 1 <= min_src_len <= max_src_len:
        raise ValueError(f"need 1 <= min_src_len <= max_src_len, got {min_src_len} and {max_src_len}")
    grammar = grammar or ToyGrammar()
    rng = random.Random(seed)
    pairs: list[SentencePair] = []
    seen: set[tuple[str, ...]] = set()
    attempts = 0
    while len(pairs) < n:
        attempts += 1
        if attempts > 50 * n + 1000:
            raise ValueError(
                f"could only draw {len(pairs)} distinct pairs of {min_src_len}-{max_src_len} tokens"
            )
        pair = grammar.sample(rng)
        if not min_src_len <= len(pair.source) <= max_src_len:
            continue
        if unique:
            if pair.source in seen:
                continue
            seen.add(pair.source)
        pairs.append(pair)
    return pairs


@dataclass(frozen=True)
class DataSplits:
    """Train, validation and test pairs with no English sentence in more than one split."""

    train: list[SentencePair]
    val: list[SentencePair]
    test: list[SentencePair]


def make_splits(
    n_train: int,
    n_val: int,
    n_test: int,
    *,
    seed: int = 0,
    max_src_len: int = 25,
    grammar: ToyGrammar | None = None,
) -> DataSplits:
    """Draw distinct pairs from the grammar and split them into disjoint train/validation/test sets.

    Args:
        n_train, n_val, n_test: the sizes of the three splits.
        seed: the seed of the draw.
        max_src_len: the longest English sentence.
        grammar: the grammar's settings; ``None`` uses the defaults.

    Returns:
        A :class:`DataSplits`; an English sentence appears in at most one split.
    """
    pairs = generate_pairs(n_train + n_val + n_test, seed=seed, max_src_len=max_src_len, grammar=grammar)
    return DataSplits(
        train=pairs[:n_train], val=pairs[n_train : n_train + n_val], test=pairs[n_train + n_val :]
    )


LENGTH_BUCKETS = ((1, 8), (9, 13), (14, 18), (19, 25))
"""Source-length buckets (inclusive token counts) for reporting accuracy against sentence length."""


def length_bucket(src_len: int, buckets: Sequence[tuple[int, int]] = LENGTH_BUCKETS) -> str:
    """Name the bucket of a sentence of ``src_len`` source tokens, e.g. ``"9-13"``.

    A length beyond the last bucket gets ``"26+"`` style names (one past the last upper bound).

    Raises:
        ValueError: ``src_len`` is below the first bucket.
    """
    for lower, upper in buckets:
        if lower <= src_len <= upper:
            return f"{lower}-{upper}"
    if src_len > buckets[-1][1]:
        return f"{buckets[-1][1] + 1}+"
    raise ValueError(f"src_len={src_len} is below the first bucket {buckets[0]}")


# ---------------------------------------------------------------------------------------------------
# Vocabularies and batches


class Vocab:
    """A token <-> id table whose first four ids are ``<pad>``, ``<sos>``, ``<eos>`` and ``<unk>``.

    Args:
        tokens: the ordinary tokens, in the order their ids should follow the specials; duplicates and
            specials are ignored.
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
    def build(cls, sentences: Iterable[Sequence[str]], min_count: int = 1) -> Vocab:
        """Make a vocabulary of the tokens seen at least ``min_count`` times, most frequent first."""
        counts = Counter(token for sentence in sentences for token in sentence)
        kept = sorted((t for t, c in counts.items() if c >= min_count), key=lambda t: (-counts[t], t))
        return cls(kept)

    @property
    def tokens(self) -> tuple[str, ...]:
        """All tokens, specials first, in id order (what a checkpoint stores)."""
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
        return f"Vocab({len(self)} tokens: {', '.join(self._tokens[4:10])}, ...)"

    def id(self, token: str) -> int:
        """The id of ``token``; ``<unk>``'s id for a token the vocabulary does not know."""
        return self._ids.get(token, self.unk_id)

    def unknown(self, tokens: Iterable[str]) -> list[str]:
        """The tokens of ``tokens`` that this vocabulary does not know (they would become ``<unk>``)."""
        return [t for t in tokens if t not in self._ids]

    def encode(
        self,
        tokens: Sequence[str],
        *,
        add_sos: bool = False,
        add_eos: bool = True,
        max_len: int | None = None,
    ) -> list[int]:
        """Turn tokens into ids; unknown tokens become ``<unk>`` (count them with :meth:`unknown`).

        Args:
            tokens: the tokens of one sentence.
            add_sos: put ``<sos>`` first.
            add_eos: put ``<eos>`` last.
            max_len: the most tokens allowed (not counting ``<sos>``/``<eos>``); ``None`` for no limit.

        Raises:
            TypeError: ``tokens`` is a string rather than a sequence of tokens.
            ValueError: the sentence is empty or longer than ``max_len``.
        """
        if isinstance(tokens, str):
            raise TypeError("tokens must be a sequence of tokens, not a str: split the sentence first")
        if len(tokens) == 0:
            raise ValueError("cannot encode an empty sentence: it has no tokens")
        if max_len is not None and len(tokens) > max_len:
            raise ValueError(f"sentence has {len(tokens)} tokens, more than the limit max_len={max_len}")
        ids = [self._ids.get(t, self.unk_id) for t in tokens]
        return [self.sos_id] * add_sos + ids + [self.eos_id] * add_eos

    def decode(self, ids: Iterable[int], *, stop_at_eos: bool = True) -> list[str]:
        """Turn ids back into tokens, dropping ``<pad>`` and ``<sos>`` and stopping at ``<eos>``."""
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
    """Padded source and target ids with their masks (``True`` = a real token, may be attended to).

    Attributes:
        src: ``(batch, src_len)`` source ids ``x_1 ... x_S <eos>``, right-padded with ``<pad>``.
        src_mask: ``(batch, src_len)`` bool, ``True`` where ``src`` is not padding.
        tgt_in: ``(batch, tgt_len)`` decoder inputs ``<sos> y_1 ... y_T``.
        tgt_out: ``(batch, tgt_len)`` the tokens to predict, ``y_1 ... y_T <eos>``.
        tgt_mask: ``(batch, tgt_len)`` bool, ``True`` where ``tgt_out`` is not padding.
        indices: the positions of the batch's pairs in the list they came from.
        n_unknown: how many source and target tokens the vocabularies mapped to ``<unk>``.
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
        src_vocab, tgt_vocab: the vocabularies; unknown tokens become ``<unk>`` and are counted.
        indices: the pairs' positions in their dataset (stored in the batch); ``None`` numbers them.
        max_src_len: reject sources longer than this many tokens.

    Raises:
        ValueError: ``pairs`` is empty, or a sentence is empty or too long.
    """
    if len(pairs) == 0:
        raise ValueError("cannot make a batch from no pairs")
    src = [src_vocab.encode(p.source, max_len=max_src_len) for p in pairs]
    tgt = [tgt_vocab.encode(p.target) for p in pairs]
    src_ids, tgt_ids = _pad(src, Vocab.pad_id), _pad(tgt, Vocab.pad_id)
    tgt_in = torch.cat([torch.full((len(pairs), 1), Vocab.sos_id), tgt_ids[:, :-1]], dim=1)
    tgt_in = tgt_in.masked_fill(tgt_in == Vocab.eos_id, Vocab.pad_id)
    n_unknown = sum(len(src_vocab.unknown(p.source)) + len(tgt_vocab.unknown(p.target)) for p in pairs)
    return Batch(
        src=src_ids,
        src_mask=src_ids != Vocab.pad_id,
        tgt_in=tgt_in,
        tgt_out=tgt_ids,
        tgt_mask=tgt_ids != Vocab.pad_id,
        indices=tuple(indices) if indices is not None else tuple(range(len(pairs))),
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
) -> Iterator[Batch]:
    """Yield padded batches covering every pair once (one epoch).

    Args:
        pairs: the dataset.
        src_vocab, tgt_vocab: the vocabularies.
        batch_size: pairs per batch (the last batch may be smaller).
        shuffle: visit the pairs (and the batches) in a random order.
        generator: the random generator for the shuffle; ``None`` makes one seeded with 0.
        group_by_length: put pairs of similar source length in the same batch, so little of each
            batch is padding; the order of the batches is still shuffled.
    """
    if batch_size < 1:
        raise ValueError(f"batch_size must be at least 1, got {batch_size}")
    rng = generator or random.Random(0)
    order = list(range(len(pairs)))
    if shuffle:
        rng.shuffle(order)
    if group_by_length:
        # sort within windows of 50 batches: similar lengths together, and still a random mix of batches
        window = 50 * batch_size
        order = [
            i
            for start in range(0, len(order), window)
            for i in sorted(order[start : start + window], key=lambda k: len(pairs[k].source))
        ]
    chunks = [order[start : start + batch_size] for start in range(0, len(order), batch_size)]
    if shuffle:
        rng.shuffle(chunks)
    for chunk in chunks:
        yield make_batch([pairs[i] for i in chunk], src_vocab, tgt_vocab, indices=chunk)
