"""A loader for the Tatoeba English-French sentence pairs, in the
tab-separated format of ManyThings.org and of the PyTorch "translation with
a sequence to sequence network" tutorial.

Each line is ``English<TAB>French`` optionally followed by
``<TAB>attribution``::

    Go.	Va !	CC-BY 2.0 (France) Attribution: tatoeba.org #2877272 ...

The loader normalises each side (Unicode NFC, lower case unless
``cased=True``, typographic apostrophes and non-breaking spaces made
plain), splits it into word and punctuation tokens (French elisions such as
``j'ai`` become ``j'`` ``ai``), and validates every line:
a malformed one is reported with its line number, never silently dropped;
a file that is not UTF-8 is refused with the byte offset of the first bad
byte. The package ships 18,065 real pairs (:func:`shipped_path`; Tatoeba
Project, CC-BY 2.0 France, as distributed by ManyThings.org);
:func:`download_tatoeba` fetches the full file where a network is available
(e.g. in Colab).
"""

from __future__ import annotations

import http.client
import io
import os
import re
import unicodedata
import urllib.request
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from attnbook.nmt.data import SentencePair

TATOEBA_ATTRIBUTION = (
    "Sentence pairs from the Tatoeba Project (tatoeba.org), CC-BY 2.0 "
    "France, as distributed by ManyThings.org"
)
"""The attribution the licence of the shipped pairs asks for (also in
``data/TATOEBA-LICENSE.md``)."""

TATOEBA_URL = "https://download.pytorch.org/tutorial/data.zip"
"""The archive the PyTorch tutorial uses; it holds ``data/eng-fra.txt``
(English<TAB>French lines)."""

TUTORIAL_PREFIXES = (
    "i am ",
    "i m ",
    "he is ",
    "he s ",
    "she is ",
    "she s ",
    "you are ",
    "you re ",
    "we are ",
    "we re ",
    "they are ",
    "they re ",
)
"""The English openings the PyTorch tutorial keeps (``english_prefixes=``),
after apostrophes become spaces."""

_APOSTROPHES = str.maketrans(
    {"\u2019": "'", "\u2018": "'", "\u02bc": "'", "`": "'"}
)
_SPACES = re.compile(r"[\s\u00a0\u202f\u2009]+")
# keeps "don't" and "i'm" whole
_ENGLISH_TOKEN = re.compile(r"\w+(?:'\w+)*|[^\w\s]")
# "j'ai" -> "j'" "ai"
_FRENCH_TOKEN = re.compile(r"aujourd'hui|\w+'|\w+|[^\w\s]", re.IGNORECASE)


def normalize(text: str, *, cased: bool = False) -> str:
    """Make the Unicode, apostrophes and spaces of ``text`` uniform and
    lower-case it (accents are kept).

    With ``cased=True`` the case is kept: ``normalize("Tom’s",
    cased=True)`` is ``"Tom's"``.
    """
    text = unicodedata.normalize("NFC", text).translate(_APOSTROPHES)
    return _SPACES.sub(" ", text if cased else text.lower()).strip()


def tokenize_english(text: str, *, cased: bool = False) -> list[str]:
    """Split normalised English into words and punctuation:
    ``"i'm here."`` -> ``["i'm", "here", "."]``.

    ``cased=True`` keeps the case; the words are the same, lower-cased
    or not.
    """
    return _ENGLISH_TOKEN.findall(normalize(text, cased=cased))


def tokenize_french(text: str, *, cased: bool = False) -> list[str]:
    """Split normalised French into words, elided articles and punctuation.

    ``"j'ai faim !"`` -> ``["j'", "ai", "faim", "!"]``;
    ``cased=True`` keeps the case (``"J'ai"`` -> ``["J'", "ai"]``).
    """
    return _FRENCH_TOKEN.findall(normalize(text, cased=cased))


@dataclass(frozen=True)
class MalformedLine:
    """A line the loader rejected: its 1-based number, why,
    and its text (shortened)."""

    line_number: int
    reason: str
    text: str

    def __str__(self) -> str:
        return f"line {self.line_number}: {self.reason}: {self.text!r}"


class CorpusEncodingError(ValueError):
    """A corpus file is not UTF-8; the message names the file,
    the byte offset and the line."""

    def __init__(
        self, path: str, error: UnicodeDecodeError, line_number: int
    ) -> None:
        self.path, self.offset, self.line_number = (
            path,
            error.start,
            line_number,
        )
        bad = error.object[error.start : error.start + 4]
        super().__init__(
            f"{path} is not UTF-8 text: byte {bad[:1].hex()} at byte "
            f"offset {error.start} (line {line_number}) "
            f"cannot be decoded ({error.reason}); save the file as UTF-8"
        )


class CorpusFormatError(ValueError):
    """A corpus file has malformed lines; the message names each one's
    line number."""

    def __init__(self, path: str, malformed: list[MalformedLine]) -> None:
        self.malformed = malformed
        shown = "\n  ".join(str(m) for m in malformed[:10])
        more = (
            f"\n  ... and {len(malformed) - 10} more"
            if len(malformed) > 10
            else ""
        )
        super().__init__(
            f"{path}: {len(malformed)} malformed line(s):\n  {shown}{more}"
        )


@dataclass
class Corpus:
    """Sentence pairs read from a corpus file, with what was left out
    and why.

    Attributes:
        pairs: the tokenised pairs (no alignments: a real corpus has none).
        malformed: the lines that do not follow the format, with their
            line numbers.
        n_lines: the lines read (blank lines included).
        n_too_long: well-formed pairs left out because a side exceeds
            ``max_len`` tokens.
        n_filtered: well-formed pairs left out by the
            English-prefix filter.
    """

    pairs: list[SentencePair] = field(default_factory=list)
    malformed: list[MalformedLine] = field(default_factory=list)
    n_lines: int = 0
    n_too_long: int = 0
    n_filtered: int = 0


def parse_tatoeba_lines(
    lines: Iterable[str],
    *,
    max_len: int | None = None,
    english_prefixes: tuple[str, ...] | None = None,
    cased: bool = False,
) -> Corpus:
    """Parse and validate Tatoeba lines
    (``English<TAB>French[<TAB>attribution]``).

    A line is malformed when it has fewer than two or more than three
    tab-separated fields, or when either sentence is empty or has no word.
    Blank lines are skipped without complaint.

    Args:
        lines: the lines of the file, in order (line numbers count from 1).
        max_len: leave out pairs with more tokens than this on either side
            (counted in ``n_too_long``); ``None`` keeps all.
        english_prefixes: keep only pairs whose normalised English starts
            with one of these (the PyTorch tutorial keeps ``"i am"``,
            ``"he is"``, ...); ``None`` keeps all.
        cased: keep the case of the text (for subword units, which can
            learn it). The pairs kept, their order and their tokens
            lower-cased are the same as without it.

    Returns:
        A :class:`Corpus`.
    """
    corpus = Corpus()
    for number, raw in enumerate(lines, start=1):
        corpus.n_lines = number
        line = raw.rstrip("\r\n")
        if not line.strip():
            continue
        fields = line.split("\t")
        shown = line if len(line) <= 80 else line[:77] + "..."
        if len(fields) < 2:
            corpus.malformed.append(
                MalformedLine(
                    number,
                    "expected English<TAB>French, found no tab",
                    shown,
                )
            )
            continue
        if len(fields) > 3:
            corpus.malformed.append(
                MalformedLine(
                    number,
                    "expected 2 or 3 tab-separated fields, found "
                    f"{len(fields)}",
                    shown,
                )
            )
            continue
        english = tokenize_english(fields[0], cased=cased)
        french = tokenize_french(fields[1], cased=cased)
        if not any(t[0].isalnum() for t in english):
            corpus.malformed.append(
                MalformedLine(
                    number, "the English sentence is empty", shown
                )
            )
            continue
        if not any(t[0].isalnum() for t in french):
            corpus.malformed.append(
                MalformedLine(
                    number, "the French sentence is empty", shown
                )
            )
            continue
        normalized = normalize(fields[0]).replace("'", " ")
        if english_prefixes is not None and not normalized.startswith(
            english_prefixes
        ):
            corpus.n_filtered += 1
            continue
        if (
            max_len is not None
            and max(len(english), len(french)) > max_len
        ):
            corpus.n_too_long += 1
            continue
        corpus.pairs.append(SentencePair(tuple(english), tuple(french)))
    return corpus


def load_tatoeba(
    path: str | Path,
    *,
    max_len: int | None = None,
    english_prefixes: tuple[str, ...] | None = None,
    strict: bool = False,
    cased: bool = False,
) -> Corpus:
    """Read a Tatoeba English-French file (UTF-8) into tokenised
    sentence pairs.

    Args:
        path: the ``.tsv``/``.txt`` file.
        max_len: see :func:`parse_tatoeba_lines`.
        english_prefixes: see :func:`parse_tatoeba_lines`.
        strict: raise on the first file with malformed lines instead of
            reporting them in :attr:`Corpus.malformed`.
        cased: keep the case (see :func:`parse_tatoeba_lines`).

    Raises:
        FileNotFoundError: there is no file at ``path``.
        CorpusEncodingError: the file is not UTF-8 (the message gives the
            byte offset).
        CorpusFormatError: ``strict`` and some lines are malformed (the
            message lists their numbers).
    """
    path = Path(path)
    payload = path.read_bytes()
    try:
        text = payload.decode("utf-8")
    except UnicodeDecodeError as error:
        raise CorpusEncodingError(
            str(path), error, payload.count(b"\n", 0, error.start) + 1
        ) from None
    # a byte-order mark some editors write
    text = text.removeprefix("\ufeff")
    # universal newlines, as reading a text file does
    lines = io.StringIO(text, newline=None)
    corpus = parse_tatoeba_lines(
        lines,
        max_len=max_len,
        english_prefixes=english_prefixes,
        cased=cased,
    )
    if strict and corpus.malformed:
        raise CorpusFormatError(str(path), corpus.malformed)
    return corpus


def shipped_path() -> Path:
    """The path of the 18,065 Tatoeba pairs shipped inside the package
    (works from any directory).

    English sentences of 1 to 5 words with all their French translations,
    two-column layout; see :data:`TATOEBA_ATTRIBUTION` and
    ``data/TATOEBA-LICENSE.md`` for the source and the licence.
    """
    return Path(
        str(
            resources.files("attnbook")
            / "data"
            / "tatoeba-eng-fra-short.txt"
        )
    )


def sample_path() -> Path:
    """The Tatoeba file shipped inside the package;
    the same as :func:`shipped_path`."""
    return shipped_path()


def download_tatoeba(
    directory: str | Path, *, url: str = TATOEBA_URL
) -> Path:
    """Download the full English-French file (about 135,000 pairs)
    into ``directory``, once.

    Needs a network (Colab has one; the book's CI does not and uses
    :func:`shipped_path`). A zip archive is unpacked to its ``eng-fra.txt``
    member; a plain text file is saved as it is.
    The file is written under a temporary name, checked (UTF-8,
    tab-separated lines) and only then renamed, so a download interrupted
    half-way never leaves a truncated ``eng-fra.txt`` that a later call
    would reuse.

    Args:
        directory: where to keep ``eng-fra.txt``;
            a file already there is reused.
        url: where to fetch it from (any URL ``urllib`` opens,
            ``file://`` included).

    Returns:
        The path of ``eng-fra.txt``.

    Raises:
        ValueError: the download stopped short, the archive does not open
            or holds no ``eng-fra.txt``, or what arrived is not a UTF-8
            file of ``English<TAB>French`` lines (nothing is kept then).
        OSError: the host cannot be reached (``urllib.error.URLError``)
            or the connection broke.
    """
    directory = Path(directory)
    target = directory / "eng-fra.txt"
    if target.exists():
        return target
    directory.mkdir(parents=True, exist_ok=True)
    try:
        with urllib.request.urlopen(url) as response:
            payload = response.read()
    except (
        http.client.IncompleteRead
    ) as error:  # the server promised more bytes than it sent
        raise ValueError(
            f"the download from {url} stopped after "
            f"{len(error.partial):,} bytes (cut short); nothing saved"
        ) from None
    if (
        payload[:2] == b"PK"
        # an archive's members carry checksums:
        # a cut-short one fails to open
    ):
        try:
            with zipfile.ZipFile(io.BytesIO(payload)) as archive:
                members = [
                    name
                    for name in archive.namelist()
                    if name.endswith("eng-fra.txt")
                ]
                if not members:
                    raise ValueError(
                        f"the archive at {url} holds no eng-fra.txt (it "
                        f"has {archive.namelist()[:5]})"
                    )
                payload = archive.read(members[0])
        except zipfile.BadZipFile as error:
            raise ValueError(
                f"the archive from {url} does not open ({error}; cut "
                "short?); nothing saved"
            ) from None
    # lines, the last one cut
    elif b"\t" in payload.split(b"\n", 1)[0] and not payload.endswith(
        b"\n"
    ):
        raise ValueError(
            f"the file from {url} does not end with a whole line (cut "
            "short?); nothing saved"
        )
    _check_download(payload, url)
    partial = directory / f".eng-fra.txt.{os.getpid()}.part"
    try:
        partial.write_bytes(payload)
        # atomic: target is either absent or whole
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
    return target


def _check_download(payload: bytes, url: str) -> None:
    """Refuse a payload that is not a UTF-8 file of tab-separated lines."""
    try:
        text = payload.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ValueError(
            f"the file from {url} is not UTF-8 (byte offset "
            f"{error.start}); nothing saved"
        ) from None
    lines = text.splitlines()
    if not lines or "\t" not in lines[0] or "\t" not in lines[-1]:
        raise ValueError(
            f"the file from {url} is not English<TAB>French lines; "
            "nothing saved"
        )
