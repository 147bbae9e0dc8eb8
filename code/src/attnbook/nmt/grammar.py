"""A toy English-to-French grammar with known word alignments,
and the disjoint splits drawn from it.

The grammar is small enough to learn in a minute on a laptop CPU and
rich enough to need attention: French adjectives mostly follow the noun
(``the black cat`` -> ``le chat noir``) while a few precede it
(``petit``, ``grand``, ...); articles and adjectives agree with the
noun's gender and number; verbs agree with their subject, sometimes
across a relative clause; ``does not`` becomes the split ``ne ... pas``;
``because`` becomes ``parce que``; *ne* and *que* elide before a vowel
(``n'aime``, ``qu'un chat``), each as a token of its own;
and conjunctions chain clauses into sentences of up to about 25 words.
Every generated pair carries, for each French word, the English
positions it translates, which of those links are *sure* and which only
*possible*, and the word's category, so a model's attention can be
scored against the truth.

Sure and possible links follow Och and Ney (2000, 2003), whose annotators
marked a link sure (S) when it is unambiguous and possible (P)
when it is not, the latter above all inside idiomatic expressions,
in free translations and for function words that the other language lacks.
The grammar has no idiom and no free translation;
it has two kinds of missing function word, and their links are its only
possible ones:

- English *do*-support: French has no auxiliary in ``does not see`` ->
  ``ne voit pas``. *ne* and *pas* together render the negation,
  so each is surely linked to *not* and possibly to *does* (or *do*).
- the particle of a phrasal verb whose French verb takes its object
  directly: ``looks at`` -> ``regarde``, ``waits for`` -> ``attend``.
  The verb is surely linked to *looks* and possibly to *at*.

Every other link is sure: one English word rendered by one French word,
or by two that only together translate it (``because`` -> ``parce que``:
each French word's only source is *because*).
So every French word has exactly one sure link, and one link per French
word, what the argmax of an attention row draws, can match the sure links
exactly: the true alignment scores an alignment error rate of 0.

>>> from attnbook.nmt.grammar import (
...     ToyGrammar,
...     generate_pairs,
...     make_splits,
... )
>>> splits = make_splits(3, 1, 1, seed=0, max_src_len=8)
>>> len(splits.train), len(splits.val), len(splits.test)
(3, 1, 1)
>>> pair = splits.train[0]
>>> len(pair.alignment) == len(pair.target) == len(pair.categories) == len(
...     pair.sure
... )
True
>>> pair = generate_pairs(
...     1,
...     seed=0,
...     grammar=ToyGrammar(p_negation=1.0, clause_weights=(1, 0, 0)),
... )[0]
>>> pas = pair.target.index("pas")
>>> (
...     [pair.source[j] for j in pair.alignment[pas]],
...     [pair.source[j] for j in pair.sure[pas]],
... )
(['do', 'not'], ['not'])
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from attnbook.nmt.data import SentencePair
from attnbook.nmt.lexicon import (
    ADJECTIVES_AFTER,
    ADJECTIVES_BEFORE,
    CONJUNCTION_FR,
    CONJUNCTIONS,
    ELISIONS,
    INTRANSITIVE,
    NOUNS,
    TRANSITIVE,
    VOWELS,
    Noun,
)

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
"""The word categories of the grammar's French words (``adjective_before``:
before the noun)."""


class _SentenceBuilder:
    """Collects English and French tokens and links each French token to
    the English ones it renders."""

    def __init__(self) -> None:
        self.source: list[str] = []
        self.target: list[str] = []
        self.alignment: list[tuple[int, ...]] = []
        self.sure: list[tuple[int, ...]] = []
        self.categories: list[str] = []

    def en(self, *tokens: str) -> tuple[int, ...]:
        start = len(self.source)
        self.source.extend(tokens)
        return tuple(range(start, len(self.source)))

    def fr(
        self,
        token: str,
        aligned: tuple[int, ...],
        category: str,
        sure: tuple[int, ...] | None = None,
    ) -> None:
        """Add a French token linked to the English positions ``aligned``,
        of which ``sure`` are sure links (``None``: all of them)
        and the rest only possible."""
        if (
            self.target
            and self.target[-1] in ELISIONS
            and token.startswith(VOWELS)
        ):
            # "que un" -> "qu' un": same links, same category
            self.target[-1] = ELISIONS[self.target[-1]]
        self.target.append(token)
        self.alignment.append(aligned)
        self.sure.append(aligned if sure is None else sure)
        self.categories.append(category)

    def pair(self) -> SentencePair:
        return SentencePair(
            tuple(self.source),
            tuple(self.target),
            tuple(self.alignment),
            tuple(self.categories),
            tuple(self.sure),
        )


@dataclass(frozen=True)
class ToyGrammar:
    """Samples English-French sentence pairs with their true
    word alignments.

    A sentence is one to three clauses joined by
    ``and``/``but``/``because``/``while``. A clause is a subject noun
    phrase and a verb phrase; a noun phrase is an article, up to two
    adjectives, a noun and, for people and animals, sometimes a relative
    clause (``the cats that sleep``). Verbs agree with their subject and
    may be negated (``does not`` -> ``ne ... pas``).

    Args:
        p_adjective_before: probability that a noun phrase has an adjective
            that French puts first.
        p_adjective_after: probability that it has one that French puts
            after the noun.
        p_relative: probability that an animate noun phrase has a
            relative clause.
        p_negation: probability that a verb is negated.
        p_transitive: probability that a verb takes an object.
        clause_weights: relative frequencies of sentences with one,
            two and three clauses.

    >>> import random
    >>> pair = ToyGrammar(
    ...     p_negation=1.0, clause_weights=(1.0, 0.0, 0.0)
    ... ).sample(random.Random(0))
    >>> (
    ...     "ne" in pair.target or "n'" in pair.target,
    ...     "pas" in pair.target,
    ... )  # every verb negated
    (True, True)
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
                conjunction = rng.choice(CONJUNCTIONS)
                positions = builder.en(*conjunction)
                for word in CONJUNCTION_FR[conjunction[0]]:
                    builder.fr(word, positions, "conjunction")
            self._clause(builder, rng)
        return builder.pair()

    def _clause(
        self, builder: _SentenceBuilder, rng: random.Random
    ) -> None:
        noun = rng.choice([n for n in NOUNS if n.animate])
        plural = rng.random() < 0.4
        self._noun_phrase(
            builder,
            rng,
            noun,
            plural,
            definite_only=False,
            allow_relative=True,
        )
        self._verb_phrase(builder, rng, plural, allow_relative=True)

    def _noun_phrase(
        self,
        builder: _SentenceBuilder,
        rng: random.Random,
        noun: Noun,
        plural: bool,
        *,
        definite_only: bool,
        allow_relative: bool,
    ) -> None:
        before = after = None
        if rng.random() < self.p_adjective_before:
            before = rng.choice(
                [
                    a
                    for a in ADJECTIVES_BEFORE
                    if noun.animate or not a.animate_only
                ]
            )
        if rng.random() < self.p_adjective_after:
            after = rng.choice(
                [
                    a
                    for a in ADJECTIVES_AFTER
                    if noun.animate or not a.animate_only
                ]
            )
        definite = definite_only or rng.random() < 0.6
        if not definite and plural and before is not None:
            # French writes "de petits chats", not "des petits chats":
            # avoid that case
            definite = True
        # English: article, adjectives (size before colour), noun.
        # French: article, [adj.], noun, [adj.].
        if definite:
            en_article, fr_article = (
                "the",
                ("les" if plural else "la" if noun.feminine else "le"),
            )
        else:
            en_article, fr_article = (
                ("some", "des")
                if plural
                else ("a", "une" if noun.feminine else "un")
            )
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
        if (
            allow_relative
            and noun.animate
            and rng.random() < self.p_relative
        ):
            builder.fr(
                "qui",
                builder.en("who" if noun.human else "that"),
                "relative",
            )
            self._verb_phrase(builder, rng, plural, allow_relative=False)

    def _verb_phrase(
        self,
        builder: _SentenceBuilder,
        rng: random.Random,
        plural: bool,
        *,
        allow_relative: bool,
    ) -> None:
        transitive = rng.random() < self.p_transitive
        verb = rng.choice(TRANSITIVE if transitive else INTRANSITIVE)
        fr_verb = verb.fr_plural if plural else verb.fr
        # Sure links: "not" for ne and pas, the verb itself for the French
        # verb; "does"/"do" and a particle ("at", "for") are function words
        # French lacks, linked as possible (module docstring).
        if rng.random() < self.p_negation:
            negation_pos = builder.en("do" if plural else "does", "not")
            verb_pos = builder.en(*verb.en_base)
            # "n'" before a vowel
            builder.fr("ne", negation_pos, "negation", negation_pos[1:])
            builder.fr(fr_verb, verb_pos, "verb", verb_pos[:1])
            builder.fr("pas", negation_pos, "negation", negation_pos[1:])
            # after a negation French turns "un"/"des" into "de":
            # avoid that case
            definite_only = True
        else:
            verb_pos = builder.en(*(verb.en_base if plural else verb.en))
            builder.fr(fr_verb, verb_pos, "verb", verb_pos[:1])
            definite_only = False
        if transitive:
            obj = rng.choice(NOUNS)
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
    """Draw ``n`` sentence pairs from the toy grammar, deterministically
    for a given ``seed``.

    Args:
        n: how many pairs.
        seed: the seed of the private random generator (the global
            generators are not touched).
        min_src_len: the fewest English tokens a pair may have.
        max_src_len: the most English tokens a pair may have;
            longer draws are discarded.
        grammar: the grammar's settings; ``None`` uses
            :class:`ToyGrammar`'s defaults.
        unique: no two pairs share an English sentence.

    Returns:
        A list of ``n`` :class:`SentencePair`.

    Raises:
        ValueError: ``n`` is negative, the length bounds are inconsistent,
            or the grammar cannot produce ``n`` distinct sentences within
            the bounds.

    >>> pairs = generate_pairs(50, seed=1, max_src_len=10)
    >>> (
    ...     len({p.source for p in pairs}),
    ...     max(len(p.source) for p in pairs) <= 10,
    ... )
    (50, True)
    """
    if n < 0:
        raise ValueError(f"n must be non-negative, got {n}")
    if not 1 <= min_src_len <= max_src_len:
        raise ValueError(
            f"need 1 <= min_src_len <= max_src_len, got {min_src_len} and "
            f"{max_src_len}"
        )
    grammar = grammar or ToyGrammar()
    rng = random.Random(seed)
    pairs: list[SentencePair] = []
    seen: set[tuple[str, ...]] = set()
    attempts = 0
    while len(pairs) < n:
        attempts += 1
        if attempts > 50 * n + 1000:
            raise ValueError(
                f"could only draw {len(pairs)} distinct pairs of "
                f"{min_src_len}-{max_src_len} tokens"
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
    """Train, validation and test pairs with no English sentence in more
    than one split."""

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
    """Draw distinct pairs from the grammar and split them into disjoint
    train/validation/test sets.

    Args:
        n_train, n_val, n_test: the sizes of the three splits.
        seed: the seed of the draw.
        max_src_len: the longest English sentence.
        grammar: the grammar's settings; ``None`` uses the defaults.

    Returns:
        A :class:`DataSplits`; an English sentence appears in at most
        one split.
    """
    pairs = generate_pairs(
        n_train + n_val + n_test,
        seed=seed,
        max_src_len=max_src_len,
        grammar=grammar,
    )
    return DataSplits(
        train=pairs[:n_train],
        val=pairs[n_train : n_train + n_val],
        test=pairs[n_train + n_val :],
    )
