"""The toy grammar's words: English nouns, adjectives, verbs and
conjunctions with their French forms (gender, number, agreement), and the
French elisions.

:class:`~attnbook.nmt.grammar.ToyGrammar` builds its sentences from them;
:func:`grammar_lexicon` gives them as plain JSON values to the page's
parser (``grammar.js``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

# French nouns all start with a consonant, so articles never
# elide (no "l'").


@dataclass(frozen=True)
class Noun:
    en: str
    en_plural: str
    fr: str
    fr_plural: str
    feminine: bool
    animate: bool
    human: bool = False


@dataclass(frozen=True)
class Adjective:
    en: str
    forms: tuple[
        str, str, str, str
        # masculine singular, feminine singular, masculine plural,
        # feminine plural
    ]
    animate_only: bool = False


@dataclass(frozen=True)
class Verb:
    en: tuple[str, ...]  # third person singular, e.g. ("looks", "at")
    en_base: tuple[str, ...]  # base form, also the plural: ("look", "at")
    fr: str  # third person singular
    fr_plural: str


NOUNS = (
    Noun("cat", "cats", "chat", "chats", feminine=False, animate=True),
    Noun("dog", "dogs", "chien", "chiens", feminine=False, animate=True),
    Noun(
        "horse",
        "horses",
        "cheval",
        "chevaux",
        feminine=False,
        animate=True,
    ),
    Noun(
        "duck", "ducks", "canard", "canards", feminine=False, animate=True
    ),
    Noun(
        "boy",
        "boys",
        "garçon",
        "garçons",
        feminine=False,
        animate=True,
        human=True,
    ),
    Noun(
        "girl",
        "girls",
        "fille",
        "filles",
        feminine=True,
        animate=True,
        human=True,
    ),
    Noun(
        "woman",
        "women",
        "femme",
        "femmes",
        feminine=True,
        animate=True,
        human=True,
    ),
    Noun("mouse", "mice", "souris", "souris", feminine=True, animate=True),
    Noun("cow", "cows", "vache", "vaches", feminine=True, animate=True),
    Noun(
        "book", "books", "livre", "livres", feminine=False, animate=False
    ),
    Noun(
        "cake", "cakes", "gâteau", "gâteaux", feminine=False, animate=False
    ),
    Noun(
        "garden",
        "gardens",
        "jardin",
        "jardins",
        feminine=False,
        animate=False,
    ),
    Noun(
        "car", "cars", "voiture", "voitures", feminine=True, animate=False
    ),
    Noun(
        "house",
        "houses",
        "maison",
        "maisons",
        feminine=True,
        animate=False,
    ),
    Noun("ball", "balls", "balle", "balles", feminine=True, animate=False),
    Noun(
        "letter",
        "letters",
        "lettre",
        "lettres",
        feminine=True,
        animate=False,
    ),
)

ADJECTIVES_BEFORE = (  # the few French adjectives that precede the noun
    Adjective("small", ("petit", "petite", "petits", "petites")),
    Adjective("big", ("grand", "grande", "grands", "grandes")),
    Adjective(
        "young", ("jeune", "jeune", "jeunes", "jeunes"), animate_only=True
    ),
    Adjective("old", ("vieux", "vieille", "vieux", "vieilles")),
    Adjective("good", ("bon", "bonne", "bons", "bonnes")),
    Adjective("pretty", ("joli", "jolie", "jolis", "jolies")),
)

ADJECTIVES_AFTER = (  # most French adjectives follow the noun
    Adjective("black", ("noir", "noire", "noirs", "noires")),
    Adjective("white", ("blanc", "blanche", "blancs", "blanches")),
    Adjective("red", ("rouge", "rouge", "rouges", "rouges")),
    Adjective("green", ("vert", "verte", "verts", "vertes")),
    Adjective("heavy", ("lourd", "lourde", "lourds", "lourdes")),
    Adjective(
        "happy",
        ("heureux", "heureuse", "heureux", "heureuses"),
        animate_only=True,
    ),
    Adjective(
        "tired",
        ("fatigué", "fatiguée", "fatigués", "fatiguées"),
        animate_only=True,
    ),
    Adjective(
        "clever",
        ("intelligent", "intelligente", "intelligents", "intelligentes"),
        animate_only=True,
    ),
)

TRANSITIVE = (
    Verb(("sees",), ("see",), "voit", "voient"),
    Verb(("likes",), ("like",), "aime", "aiment"),
    Verb(("finds",), ("find",), "trouve", "trouvent"),
    Verb(("follows",), ("follow",), "suit", "suivent"),
    Verb(("wants",), ("want",), "veut", "veulent"),
    Verb(("carries",), ("carry",), "porte", "portent"),
    Verb(("looks", "at"), ("look", "at"), "regarde", "regardent"),
    Verb(("waits", "for"), ("wait", "for"), "attend", "attendent"),
)

INTRANSITIVE = (
    Verb(("sleeps",), ("sleep",), "dort", "dorment"),
    Verb(("runs",), ("run",), "court", "courent"),
    Verb(("sings",), ("sing",), "chante", "chantent"),
    Verb(("laughs",), ("laugh",), "rit", "rient"),
    Verb(("dances",), ("dance",), "danse", "dansent"),
    Verb(("waits",), ("wait",), "attend", "attendent"),
)

CONJUNCTIONS = (("and",), ("but",), ("because",), ("while",))
CONJUNCTION_FR = {
    "and": ("et",),
    "but": ("mais",),
    "because": ("parce", "que"),
    "while": ("pendant", "que"),
}

VOWELS = tuple("aeiouhéèêâàîôû")
ELISIONS = {
    "ne": "n'",
    "que": "qu'",
}  # French drops the vowel before a word that starts with one


def grammar_lexicon() -> dict[str, Any]:
    """The grammar's words and their French forms as plain JSON values,
    for a parser outside Python.

    The page's translator (``grammar.js`` of :mod:`attnbook.book`)
    reads a typed English sentence with these words and the rules of
    :class:`ToyGrammar` to find the French the grammar would write and its
    true alignment. Adjective forms are in the order masculine singular,
    feminine singular, masculine plural, feminine plural.

    >>> lexicon = grammar_lexicon()
    >>> lexicon["nouns"][0]["en"], lexicon["conjunctions"]["because"]
    ('cat', ['parce', 'que'])
    """
    return {
        "nouns": [asdict(noun) for noun in NOUNS],
        "adjectives_before": [
            asdict(adjective) for adjective in ADJECTIVES_BEFORE
        ],
        "adjectives_after": [
            asdict(adjective) for adjective in ADJECTIVES_AFTER
        ],
        "transitive": [asdict(verb) for verb in TRANSITIVE],
        "intransitive": [asdict(verb) for verb in INTRANSITIVE],
        "conjunctions": {
            words[0]: list(CONJUNCTION_FR[words[0]])
            for words in CONJUNCTIONS
        },
        "vowels": "".join(VOWELS),
        "elisions": dict(ELISIONS),
    }
