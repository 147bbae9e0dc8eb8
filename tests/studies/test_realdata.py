"""Real sentences: the shipped pairs, both file layouts, the split by English sentence, multi-reference
scoring and unknown-word replacement through attention."""

import hashlib
import urllib.request
import zipfile
from dataclasses import replace

import pytest
import sacrebleu
import torch

from attnbook.nmt import (
    detokenize_french,
    evaluate_real,
    group_references,
    paired_bootstrap,
    replace_unknown,
    score_against_references,
    split_by_english,
)
from attnbook.nmt.corpus import (
    TATOEBA_ATTRIBUTION,
    CorpusEncodingError,
    download_tatoeba,
    load_tatoeba,
    shipped_path,
)
from attnbook.nmt.data import SentencePair
from attnbook.nmt.metrics import score_texts
from attnbook.nmt.seq2seq import ModelConfig
from attnbook.nmt.text import copyable
from attnbook.studies.realdata import RealConfig, run_real_experiment

SHIPPED_SHA256 = "c52ae3c5a2f6b3c96d985aad8e2f1aab814c6701cfa9face467989069624bcaa"


@pytest.fixture(scope="module")
def shipped():
    return load_tatoeba(shipped_path(), strict=True)


def test_the_shipped_file_is_the_documented_one_with_its_attribution_beside_it():
    assert hashlib.sha256(shipped_path().read_bytes()).hexdigest() == SHIPPED_SHA256
    licence = (shipped_path().parent / "TATOEBA-LICENSE.md").read_text(encoding="utf-8")
    assert TATOEBA_ATTRIBUTION in licence
    assert "CC-BY 2.0 France" in licence


def test_the_shipped_pairs_load_from_any_directory_with_repeated_english(shipped, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert len(shipped.pairs) == 18065 and not shipped.malformed
    distinct = {p.source for p in shipped.pairs}
    assert 10900 <= len(distinct) <= 11000  # many English sentences have several translations
    assert shipped.pairs[0].source == ("go", ".") and shipped.pairs[0].target == ("va", "!")


def test_the_two_and_three_column_layouts_give_the_same_pairs(tmp_path):
    rows = [("Go.", "Va !"), ("I'm cold.", "J’ai froid."), ("Tom won.", "Tom a gagné.")]
    two = tmp_path / "two.txt"
    three = tmp_path / "three.txt"
    two.write_text("".join(f"{en}\t{fr}\n" for en, fr in rows), encoding="utf-8")
    three.write_text(
        "".join(
            f"{en}\t{fr}\tCC-BY 2.0 (France) Attribution: tatoeba.org #{i}\n"
            for i, (en, fr) in enumerate(rows)
        ),
        encoding="utf-8",
    )
    assert load_tatoeba(two, strict=True).pairs == load_tatoeba(three, strict=True).pairs
    assert load_tatoeba(two).pairs[1].target == ("j'", "ai", "froid", ".")


def test_a_file_that_is_not_utf8_is_refused_naming_the_byte_offset(tmp_path):
    path = tmp_path / "latin1.txt"
    path.write_bytes(
        "Go.\tVa !\nI'm cold.\tJ'ai froid.\nHe's a café owner.\tIl tient un café.\n".encode("latin-1")
    )
    with pytest.raises(CorpusEncodingError) as info:
        load_tatoeba(path)
    offset = path.read_bytes().index(b"\xe9")
    assert info.value.offset == offset and info.value.line_number == 3
    assert f"byte offset {offset}" in str(info.value) and str(path) in str(info.value)


def test_split_by_english_puts_every_translation_of_a_sentence_on_one_side(shipped):
    split = split_by_english(shipped.pairs, test_fraction=0.1, val_fraction=0.05, seed=3)
    train, val, test = split.sources("train"), split.sources("val"), split.sources("test")
    assert not train & test and not train & val and not val & test
    assert len(split.train) + len(split.val) + len(split.test) == len(shipped.pairs)
    distinct = len(train | val | test)
    assert abs(len(test) - 0.1 * distinct) <= 1 and abs(len(val) - 0.05 * distinct) <= 1
    # an English sentence with several translations brings all of them along
    counts = {}
    for pair in shipped.pairs:
        counts[pair.source] = counts.get(pair.source, 0) + 1
    repeated = next(s for s in test if counts[s] > 1)
    assert sum(p.source == repeated for p in split.test) == counts[repeated]


def test_source_min_count_sets_the_english_vocabulary_alone(shipped):
    from attnbook.studies.realdata import RealDataConfig, prepare_real_data

    every, twice, english = (
        prepare_real_data(shipped.pairs, RealDataConfig(**counts))
        for counts in ({"min_count": 1}, {"min_count": 2}, {"min_count": 2, "source_min_count": 1})
    )
    assert english.src_vocab == every.src_vocab
    assert english.tgt_vocab == twice.tgt_vocab
    assert len(every.src_vocab) > len(twice.src_vocab)


def test_split_by_english_is_repeatable_and_refuses_too_few_sentences():
    pairs = [SentencePair((f"w{i}",), ("x",)) for i in range(50)]
    assert split_by_english(pairs, seed=1) == split_by_english(pairs, seed=1)
    assert split_by_english(pairs, seed=1).test != split_by_english(pairs, seed=2).test
    with pytest.raises(ValueError, match="too few"):
        split_by_english(pairs[:2])
    with pytest.raises(ValueError, match="test_fraction"):
        split_by_english(pairs, test_fraction=1.5)


def test_group_references_keeps_every_distinct_translation_in_order():
    pairs = [
        SentencePair(("hi",), ("salut",)),
        SentencePair(("go",), ("va",)),
        SentencePair(("hi",), ("bonjour",)),
        SentencePair(("hi",), ("salut",)),
    ]
    assert group_references(pairs) == ([("hi",), ("go",)], [[("salut",), ("bonjour",)], [("va",)]])


def test_detokenize_french_undoes_the_loader_tokens():
    assert detokenize_french(["j'", "ai", "froid", "."]) == "j'ai froid."
    assert detokenize_french(["va", "!"]) == "va !"
    assert detokenize_french(["oui", ",", "c'", "est", "tom", "."]) == "oui, c'est tom."


def test_detokenize_french_rejoins_every_hyphenated_word_of_the_shipped_pairs():
    pairs = load_tatoeba(shipped_path(), strict=True).pairs
    hyphenated = [p.target for p in pairs if "-" in p.target]
    assert len(hyphenated) == 2846  # est-ce, allons-nous, a-t-il, ...
    texts = [detokenize_french(target) for target in hyphenated]
    assert not any(" -" in text or "- " in text for text in texts)
    assert detokenize_french(["lève", "-", "toi", "!"]) == "lève-toi !"


def test_multi_reference_scores_match_sacrebleu_and_credit_any_reference():
    hypotheses = [["j'", "ai", "froid", "."], ["il", "est", "là", "."]]
    references = [[("je", "suis", "gelé", "."), ("j'", "ai", "froid", ".")], [("il", "est", "ici", ".")]]
    score = score_against_references(hypotheses, references)
    oracle = sacrebleu.corpus_bleu(
        ["j'ai froid.", "il est là."], [["je suis gelé.", "il est ici."], ["j'ai froid.", None]]
    )
    assert score.bleu == pytest.approx(oracle.score)
    assert score.exact_match == 0.5 and score.n_sentences == 2
    single = score_against_references(hypotheses, [[r[0]] for r in references])
    assert score.bleu > single.bleu and score.chrf > single.chrf  # the second reference gives credit
    with pytest.raises(ValueError, match="2 hypotheses for 1"):
        score_against_references(hypotheses, references[:1])


def test_scoring_emits_no_sacrebleu_warning(recwarn, caplog):
    score_against_references([["va", "!"]], [[("va", "!"), ("allez", "!")]])
    assert not recwarn.list
    assert not [r for r in caplog.records if r.levelname == "WARNING"]


def test_replace_unknown_copies_the_most_attended_source_word():
    source = ["tom", "likes", "zorblax", "."]
    weights = torch.tensor(
        [
            [0.9, 0.05, 0.03, 0.01, 0.01],  # tom <- tom
            [0.1, 0.8, 0.05, 0.04, 0.01],  # aime <- likes
            [0.05, 0.05, 0.8, 0.05, 0.05],  # <unk> <- zorblax
            [0.0, 0.0, 0.1, 0.8, 0.1],
        ]
    )
    assert replace_unknown(["<unk>", "aime", "<unk>", "."], source, weights) == [
        "tom",
        "aime",
        "zorblax",
        ".",
    ]
    assert replace_unknown(["tom", "."], source, None) == ["tom", "."]
    with pytest.raises(ValueError, match="weights must have at least"):
        replace_unknown(["<unk>"] * 6, source, weights)


def test_replace_unknown_never_copies_the_source_eos():
    weights = torch.tensor([[0.1, 0.2, 0.7]])  # the largest weight is on <eos>
    assert replace_unknown(["<unk>"], ["hello", "tom"], weights) == ["tom"]


def test_replace_unknown_copies_only_a_word_the_model_could_not_read():
    """A name the model never saw is copied; a word it knew (an English function word), punctuation and an
    emoji are not: their <unk> is left out of the French."""
    source = ["i", "like", "gandalf", "of", "\U0001f600", "!", "."]
    rows = torch.eye(len(source) + 1)[[0, 1, 2, 3, 4, 5, 6]]
    target = ["j'aime", "<unk>", "<unk>", "<unk>", "<unk>", "<unk>", "."]
    weights = rows[[0, 2, 2, 3, 4, 5, 6]]  # each <unk>'s row reads one source token
    known = {"i", "like", "of", "!", "."}
    assert replace_unknown(target, source, weights, known) == ["j'aime", "gandalf", "gandalf", "."]
    # with no vocabulary given, every word-like token is copied, never punctuation or an emoji
    assert replace_unknown(target, source, weights) == ["j'aime", "gandalf", "gandalf", "of", "."]


@pytest.mark.parametrize(
    ("token", "expected"),
    [
        ("Gandalf", True),
        ("42", True),
        ("l'an", True),
        ("\u2581Tom", True),
        ("abc-def", True),
        ("?", False),
        ("...", False),
        ("\U0001f600", False),
        ("tom\U0001f600", False),
        ("", False),
        ("-", False),
    ],
)
def test_copyable_is_a_word_or_a_number(token, expected):
    assert copyable(token) is expected


def test_an_interrupted_download_leaves_no_file_a_later_run_would_trust(tmp_path, monkeypatch):
    whole = b"Go.\tVa !\nRun!\tCours !\n"

    class CutShort:
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def read(self):
            raise ConnectionResetError("connection lost half-way")

    monkeypatch.setattr(urllib.request, "urlopen", lambda url: CutShort())
    with pytest.raises(ConnectionResetError):
        download_tatoeba(tmp_path / "cache", url="https://example.invalid/eng-fra.txt")
    assert list((tmp_path / "cache").iterdir()) == []
    monkeypatch.undo()
    source = tmp_path / "eng-fra.txt"
    source.write_bytes(whole[:15])  # a file cut in the middle of its second line
    with pytest.raises(ValueError, match="cut short"):
        download_tatoeba(tmp_path / "cache", url=source.as_uri())
    assert list((tmp_path / "cache").iterdir()) == []
    source.write_bytes(whole)
    path = download_tatoeba(tmp_path / "cache", url=source.as_uri())
    assert path.read_bytes() == whole and [p.name for p in (tmp_path / "cache").iterdir()] == ["eng-fra.txt"]


def test_a_download_that_is_not_utf8_is_not_kept(tmp_path):
    archive = tmp_path / "data.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("data/eng-fra.txt", "Caf\xe9.\tCaf\xe9.\n".encode("latin-1"))
    with pytest.raises(ValueError, match="not UTF-8"):
        download_tatoeba(tmp_path / "cache", url=archive.as_uri())
    assert not (tmp_path / "cache" / "eng-fra.txt").exists()


def test_real_config_refuses_a_beam_below_one():
    with pytest.raises(ValueError, match="beam_size"):
        RealConfig(beam_size=0)


def test_run_real_experiment_translates_the_test_split_with_the_configured_beam(shipped, monkeypatch):
    import attnbook.studies.realdata as realdata

    beams = []

    def spy(translator, pairs, *, beam_size=1):
        beams.append(beam_size)
        return evaluate_real(translator, pairs, beam_size=beam_size)

    monkeypatch.setattr(realdata, "evaluate_real", spy)
    torch.set_num_threads(1)
    small = RealConfig(model=ModelConfig(emb_dim=8, hidden_dim=8, attn_dim=8), beam_size=3)
    config = replace(small, train=replace(small.train, max_epochs=1, batch_size=64))
    experiment = run_real_experiment(shipped.pairs[::40], config, device="cpu")
    assert beams == [3] and experiment.to_dict()["config"]["beam_size"] == 3


def test_paired_bootstrap_separates_a_broken_system_but_not_one_slip_in_forty_sentences():
    references = [
        [("il", "dort", "dans", "le", "jardin", "."), ("il", "sommeille", "au", "jardin", ".")],
        [("elle", "mange", "une", "pomme", "rouge", ".")],
    ] * 20
    perfect = [refs[0] for refs in references]
    broken = [("le", "chat", "noir") for _ in references]
    apart = paired_bootstrap(broken, perfect, references, n_samples=200)
    assert apart["BLEU"].system == pytest.approx(100.0) and apart["BLEU"].baseline < 10.0
    assert apart["BLEU"].p_value < 0.01 and apart["chrF"].p_value < 0.01
    one_slip = [*perfect[:-1], ("elle", "mange", "une", "pomme", "verte", ".")]
    close = paired_bootstrap(one_slip, perfect, references, n_samples=200)
    assert close["BLEU"].baseline < close["BLEU"].system and close["BLEU"].p_value > 0.05


def test_paired_bootstrap_refuses_lists_of_different_lengths():
    with pytest.raises(ValueError, match="1 baseline and 2 system"):
        paired_bootstrap([("a",)], [("a",), ("b",)], [[("a",)], [("b",)]])


def test_score_texts_gives_multi_and_single_reference_bleu_with_their_signatures():
    hypotheses = ["J'ai froid.", "Il est là."]
    references = [["Je suis gelé.", "J'ai froid."], ["Il est ici."]]
    scores = score_texts(hypotheses, references)
    multi = sacrebleu.corpus_bleu(hypotheses, [["Je suis gelé.", "Il est ici."], ["J'ai froid.", None]])
    single = sacrebleu.corpus_bleu(hypotheses, [["Je suis gelé.", "Il est ici."]])
    assert scores["bleu"] == pytest.approx(multi.score)
    assert scores["bleu_single"] == pytest.approx(single.score)
    assert scores["bleu"] > scores["bleu_single"]  # the second reference of the first sentence matches
    assert scores["bleu_signature"].startswith("nrefs:var|case:mixed|eff:no|tok:13a|smooth:exp|version:")
    assert scores["bleu_single_signature"].startswith("nrefs:1|case:mixed|")
    assert scores["cased"] is True and scores["n_references"] == 2 and scores["n_sentences"] == 2


def test_score_texts_says_lower_cased_text_is_uncased_whatever_the_signature():
    scores = score_texts(["j'ai froid."], [["j'ai froid."]])
    assert scores["cased"] is False and scores["bleu_signature"].startswith("nrefs:1|case:mixed|")
    shouted, written = ["J'AI TRÈS FROID CE SOIR."], [["j'ai très froid ce soir."]]
    lowered = score_texts(shouted, written, lowercase=True)
    assert lowered["bleu"] == pytest.approx(100.0) and lowered["cased"] is False
    assert "|case:lc|" in lowered["bleu_signature"]
    assert score_texts(shouted, written)["bleu"] < 100.0  # not lower-cased: the case counts


def test_score_texts_refuses_mismatched_or_empty_input():
    with pytest.raises(ValueError, match="2 hypotheses for 1 sentences"):
        score_texts(["a", "b"], [["a"]])
    with pytest.raises(ValueError, match="no sentences"):
        score_texts([], [])
    with pytest.raises(ValueError, match="at least one reference"):
        score_texts(["a"], [[]])


def test_multi_reference_score_names_its_kind_and_signature():
    tokens = ("j'", "ai", "très", "froid", "ce", "soir", ".")
    score = score_against_references([list(tokens)], [[tokens]])
    assert score.bleu_single == pytest.approx(100.0) and score.cased is False
    text = score.describe()
    assert text.startswith("BLEU 100.0 (multi-reference, uncased; nrefs:1|case:mixed|eff:no|tok:13a|")
    assert "BLEU 100.0 (first reference only)" in text
