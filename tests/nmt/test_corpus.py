"""The Tatoeba loader: normalising, tokenising, validating every line, the shipped pairs, the download."""

import zipfile
from pathlib import Path

import pytest

from attnbook.nmt.corpus import (
    CorpusFormatError,
    download_tatoeba,
    load_tatoeba,
    parse_tatoeba_lines,
    sample_path,
    tokenize_english,
    tokenize_french,
)

MALFORMED = Path(__file__).resolve().parents[1] / "data" / "tatoeba_malformed.tsv"


def test_tokenizers_split_words_punctuation_and_french_elisions():
    assert tokenize_english("I'm here, Tom!") == ["i'm", "here", ",", "tom", "!"]
    assert tokenize_english("I don't know.") == ["i", "don't", "know", "."]
    assert tokenize_french("J’ai faim\u202f!") == ["j'", "ai", "faim", "!"]
    assert tokenize_french("Je n'aime pas l'eau.") == ["je", "n'", "aime", "pas", "l'", "eau", "."]
    assert tokenize_french("Aujourd'hui, c'est lundi.") == ["aujourd'hui", ",", "c'", "est", "lundi", "."]
    assert tokenize_french("Élève  ÉTÉ") == ["élève", "été"]  # accents kept, case folded


def test_shipped_pairs_load_from_any_working_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    corpus = load_tatoeba(sample_path(), strict=True)
    assert len(corpus.pairs) >= 60
    assert corpus.malformed == []
    assert all(not p.has_alignment for p in corpus.pairs)
    assert corpus.pairs[0].source == ("go", ".")


def test_malformed_lines_are_reported_with_their_line_numbers():
    corpus = load_tatoeba(MALFORMED)
    assert [p.source for p in corpus.pairs] == [
        ("i", "am", "cold", "."),
        ("he", "runs", "."),
        ("they", "wait", "."),
    ]
    reported = {m.line_number: m.reason for m in corpus.malformed}
    assert sorted(reported) == [2, 5, 6, 7]
    assert "no tab" in reported[2]
    assert "French sentence is empty" in reported[5]
    assert "found 4" in reported[6]
    assert "English sentence is empty" in reported[7]
    assert corpus.n_lines == 8


def test_strict_loading_raises_naming_the_line_numbers():
    with pytest.raises(CorpusFormatError, match="4 malformed") as info:
        load_tatoeba(MALFORMED, strict=True)
    message = str(info.value)
    for number in (2, 5, 6, 7):
        assert f"line {number}:" in message
    assert "line 3:" not in message


def test_length_and_prefix_filters_are_counted_not_reported_as_malformed():
    lines = [
        "I am cold.\tJ'ai froid.",
        "He is a very very very tall man.\tC'est un homme très grand.",
        "Go.\tVa !",
    ]
    corpus = parse_tatoeba_lines(lines, max_len=6)
    assert corpus.n_too_long == 1 and len(corpus.pairs) == 2 and not corpus.malformed
    corpus = parse_tatoeba_lines(lines, english_prefixes=("i am ", "he is "))
    assert corpus.n_filtered == 1 and len(corpus.pairs) == 2


def test_download_unpacks_the_tutorial_archive_and_reuses_the_file(tmp_path):
    archive = tmp_path / "data.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("data/eng-fra.txt", "Go.\tVa !\nRun!\tCours\u202f!\n")
    path = download_tatoeba(tmp_path / "cache", url=archive.as_uri())
    assert [p.target for p in load_tatoeba(path).pairs] == [("va", "!"), ("cours", "!")]
    archive.unlink()  # a second call must not fetch again
    assert download_tatoeba(tmp_path / "cache", url=archive.as_uri()) == path


def test_download_rejects_an_archive_without_the_file(tmp_path):
    archive = tmp_path / "other.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("readme.txt", "nothing here")
    with pytest.raises(ValueError, match=r"no eng-fra\.txt"):
        download_tatoeba(tmp_path / "cache", url=archive.as_uri())


def test_the_shipped_pairs_are_declared_as_package_data(repo_root):
    tomllib = pytest.importorskip("tomllib")
    config = tomllib.loads((repo_root / "code" / "pyproject.toml").read_text())
    patterns = config["tool"]["setuptools"]["package-data"]["attnbook"]
    assert "data/*.txt" in patterns and "data/*.md" in patterns  # the pairs and their licence note
    assert sample_path().is_file()
