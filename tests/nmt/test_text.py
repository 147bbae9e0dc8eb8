"""Text in and out of a translator (attnbook.nmt.text): one table of detokeniser cases that the Python
detokeniser, the page's (book/detok.js, under Node) and the browser test all read; the tokeniser a
translator owns and saves in its checkpoint; one default for unknown words in Python and in the page."""

from __future__ import annotations

import json
import subprocess
from importlib import resources
from pathlib import Path

import pytest
import torch

from attnbook.nmt import (
    Seq2Seq,
    Seq2SeqConfig,
    Translator,
    Vocab,
    detokenize_french,
    learn_subwords,
    load_tatoeba,
    shipped_path,
)
from attnbook.nmt.corpus import normalize, tokenize_french
from attnbook.nmt.split import lowered_source, split_by_english
from attnbook.nmt.text import UNKNOWN_DEFAULT, Tokenizer, learn_casing, restore_case

pytestmark = pytest.mark.usefixtures("one_thread")

TESTS = Path(__file__).resolve().parents[1]
CASES = json.loads((TESTS / "data" / "detok_cases.json").read_text(encoding="utf-8"))["cases"]
RECASE = json.loads((TESTS / "data" / "recase_cases.json").read_text(encoding="utf-8"))["cases"]


@pytest.mark.parametrize("case", CASES, ids=lambda case: case["text"])
def test_the_detokeniser_joins_every_case_of_the_shared_table(case):
    assert detokenize_french(case["tokens"]) == case["text"]
    if case.get("tokenizer", True):  # the tokens are the tokeniser's own, so the two are inverses here
        assert tokenize_french(case["text"], cased=True) == case["tokens"]


def test_the_table_covers_every_kind_of_case():
    kinds = {case["what"] for case in CASES}
    assert {"hyphenated inversions", "elision", "guillemets", "numbers", "capitals"} <= kinds
    texts = {case["text"] for case in CASES}
    assert {"sais-tu lire ?", "allons-nous y ?", "Peut-être.", "J'ai froid.", "aujourd'hui"} <= texts


def test_the_detokeniser_gives_back_nearly_every_shipped_french_sentence():
    lines = shipped_path().read_text(encoding="utf-8").splitlines()
    french = [normalize(line.split("\t")[1], cased=True) for line in lines if "\t" in line]
    again = [detokenize_french(tokenize_french(text, cased=True)) for text in french]
    differ = [(text, back) for text, back in zip(french, again, strict=True) if text != back]
    # what differs is the corpus's own spacing: "bord!" for "bord !", "R&B", "ravi(e)", "$100", "n' y"
    assert len(differ) <= 45, differ[:10]
    assert all(back.replace(" ", "") == text.replace(" ", "") for text, back in differ)


def test_the_pages_detokeniser_passes_the_same_table_under_node(node):
    result = subprocess.run(
        [node, "--test", str(TESTS / "js")], capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert f"# pass {len(CASES) + len(RECASE) + 2}" in result.stdout and "# fail 0" in result.stdout


def test_the_page_and_python_make_the_same_choice_for_unknown_words(node):
    script = resources.files("attnbook.book").joinpath("seq2seq.js")
    printed = subprocess.run(
        [node, "-e", f"process.stdout.write(require({json.dumps(str(script))}).UNKNOWN_DEFAULT)"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout
    assert printed == UNKNOWN_DEFAULT == "copy"


# --- capitals put back ------------------------------------------------------------------------------


@pytest.mark.parametrize("case", RECASE, ids=lambda case: case["what"])
def test_restore_case_spells_every_case_of_the_shared_table(case):
    assert restore_case(case["tokens"], case["casing"]) == case["cased"]


def test_the_casing_learnt_from_the_shipped_training_french_holds_names_and_no_common_word():
    cased = load_tatoeba(shipped_path(), cased=True).pairs
    train = split_by_english(cased, test_fraction=0.1, val_fraction=0.05, seed=0, key=lowered_source).train
    casing = learn_casing(p.target for p in train)
    assert {"tom": "Tom", "mary": "Mary", "paris": "Paris"}.items() <= casing.items()
    assert not {"je", "le", "la", "est", "il", "tu", "vous"} & casing.keys()
    assert all(spelling.lower() == word != spelling for word, spelling in casing.items())


def test_restoring_case_brings_lower_cased_french_back_to_most_of_its_cased_spelling():
    """On held-out French: the lower-cased sentences, recased with the training split's table, against
    the sentences as written."""
    cased = load_tatoeba(shipped_path(), cased=True).pairs
    split = split_by_english(cased, test_fraction=0.1, val_fraction=0.05, seed=0, key=lowered_source)
    casing = learn_casing(p.target for p in split.train)
    written = [list(p.target) for p in split.test]
    lowered = [[t.lower() for t in tokens] for tokens in written]

    def share_right(sentences):
        return sum(s == w for s, w in zip(sentences, written, strict=True)) / len(written)

    recased = [restore_case(tokens, casing) for tokens in lowered]
    assert share_right(lowered) < 0.05 and share_right(recased) > 0.9


def test_a_word_tokeniser_with_a_casing_writes_capitals_and_keeps_them_in_its_checkpoint(tmp_path):
    tokenizer = Tokenizer(casing={"tom": "Tom"})
    assert not tokenizer.cased  # it still reads and writes lower-cased words
    assert tokenizer.text(["tom", "est", "là", "."]) == "Tom est là."
    assert Tokenizer.from_state(tokenizer.to_state()).casing == {"tom": "Tom"}
    translator = tiny(Vocab(["tom"]), Vocab(["tom", "dort"]), tokenizer)
    loaded = Translator.load(translator.save(tmp_path / "cased.pt"), device="cpu")
    assert loaded.tokenizer.casing == {"tom": "Tom"}
    # whatever the untrained model writes, the text it shows is its words recased
    found = loaded.translation("Tom.", unknown="keep")
    assert found.text == detokenize_french(restore_case(found.target, {"tom": "Tom"}))


def test_pieces_take_no_casing(units):
    with pytest.raises(ValueError, match="pieces keep their case"):
        Tokenizer(*units, casing={"tom": "Tom"})


# --- the tokeniser a translator owns --------------------------------------------------------------------


@pytest.fixture(scope="module")
def units():
    cased = load_tatoeba(shipped_path(), cased=True).pairs[:2000]
    return learn_subwords([p.source for p in cased], 300), learn_subwords([p.target for p in cased], 300)


def tiny(src_vocab: Vocab, tgt_vocab: Vocab, tokenizer: Tokenizer) -> Translator:
    torch.manual_seed(0)
    model = Seq2Seq(Seq2SeqConfig(len(src_vocab), len(tgt_vocab), emb_dim=8, hidden_dim=8, attn_dim=8))
    return Translator(model.eval(), src_vocab, tgt_vocab, tokenizer)


def test_a_word_tokeniser_reads_lower_cased_words_and_writes_french_text():
    tokenizer = Tokenizer()
    assert not tokenizer.pieces and not tokenizer.cased
    assert tokenizer.source("I'm cold, Tom.") == ["i'm", "cold", ",", "tom", "."]
    assert tokenizer.text(["j'", "ai", "froid", "."]) == "j'ai froid."
    assert Tokenizer.from_state(tokenizer.to_state()).pieces is False
    assert Tokenizer.from_state(None).pieces is False  # a checkpoint of an earlier format: whole words


def test_a_piece_tokeniser_reads_cased_pieces_and_joins_written_pieces_into_text(units):
    tokenizer = Tokenizer(*units)
    assert tokenizer.pieces and tokenizer.cased
    pieces = tokenizer.source("Tom is here.")
    assert "".join(pieces).replace("\u2581", " ").split() == ["Tom", "is", "here", "."]
    written = tokenizer.target(["Sais", "-", "tu", "lire", "?"])
    assert tokenizer.text(written) == "Sais-tu lire ?"
    again = Tokenizer.from_state(tokenizer.to_state())
    assert (again.source_units.model, again.target_units.model) == (units[0].model, units[1].model)
    with pytest.raises(ValueError, match="both source_units and target_units"):
        Tokenizer(units[0], None)
    with pytest.raises(ValueError, match="kind 'bytes'"):
        Tokenizer.from_state({"kind": "bytes"})


def test_a_translator_over_pieces_saves_its_pieces_and_translates_the_same_text_after_loading(
    units, tmp_path
):
    source_units, target_units = units
    translator = tiny(Vocab(source_units.pieces), Vocab(target_units.pieces), Tokenizer(*units))
    sentences = ["I am cold.", "Tom is here.", "Where is Mary?"]
    before = [translator.translate(s, beam_size=b) for s in sentences for b in (1, 3)]
    assert all(isinstance(text, str) for text in before)
    loaded = Translator.load(translator.save(tmp_path / "pieces.pt"), device="cpu")
    assert loaded.tokenizer.pieces and loaded.tokenizer.source_units.model == source_units.model
    assert [loaded.translate(s, beam_size=b) for s in sentences for b in (1, 3)] == before


def test_unknown_words_are_copied_by_default_or_kept(tmp_path):
    src_vocab, tgt_vocab = Vocab(["tom", "sleeps", "."]), Vocab(["dort", "."])
    translator = tiny(src_vocab, tgt_vocab, Tokenizer())
    with torch.no_grad():  # make the model write <unk> first, whatever it reads
        translator.model.decoder.out.bias.zero_()
        translator.model.decoder.out.bias[tgt_vocab.encode(["<unk>"])[0]] = 50.0
    kept = translator.translation("Zorblax sleeps.", unknown="keep", max_len=1)
    copied = translator.translation("Zorblax sleeps.", max_len=1)
    assert kept.target == copied.target == ["<unk>"] and kept.text == "<unk>"
    best = ["zorblax", "sleeps", "."][int(copied.weights[0, :3].argmax())]
    # only a word the model could not read is copied; a known one is left out
    assert copied.text == (best if best == "zorblax" else "")
    assert translator.translate("Zorblax sleeps.") == translator.translation("Zorblax sleeps.").text
    with pytest.raises(ValueError, match="unknown must be one of"):
        translator.translate("tom sleeps", unknown="drop")
