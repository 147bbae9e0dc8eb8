"""Subword units: learnt the same way every time, text -> pieces -> text unchanged, attention summed back
to words; the cased loader; the run over pieces scored on the same held-out sentences as the word run."""

from dataclasses import replace

import pytest
import torch

from attnbook.nmt.corpus import load_tatoeba, shipped_path
from attnbook.nmt.data import SentencePair
from attnbook.nmt.seq2seq import ModelConfig
from attnbook.nmt.split import lowered_source, split_by_english
from attnbook.nmt.subwords import SUBWORD_UNK, Subwords, attention_to_words, learn_subwords
from attnbook.studies.pieces import (
    PiecesEvaluation,
    PiecesHeatmap,
    pick_heatmap,
    run_pieces_experiment,
    score_report,
    words_in_several_pieces,
)
from attnbook.studies.realdata import RealConfig
from attnbook.studies.replay import replay
from attnbook.studies.units import (
    UnitsComparison,
    UnitsRun,
    chapter_units_run,
    merge_units_comparisons,
    real_config,
)


@pytest.fixture(scope="module")
def cased():
    return load_tatoeba(shipped_path(), cased=True).pairs


@pytest.fixture(scope="module")
def lowered():
    return load_tatoeba(shipped_path()).pairs


@pytest.fixture(scope="module")
def french_units(cased):
    return learn_subwords([p.target for p in cased[:3000]], 500)


def test_cased_loader_keeps_the_same_pairs_and_only_adds_case(cased, lowered):
    assert len(cased) == len(lowered) == 18065
    assert all(
        tuple(t.lower() for t in c.source) == w.source and tuple(t.lower() for t in c.target) == w.target
        for c, w in zip(cased, lowered, strict=True)
    )
    assert any(t[0].isupper() for p in cased[:100] for t in p.source)
    assert not any(t != t.lower() for p in lowered for t in p.source)


def test_cased_french_splits_capitalised_elisions():
    from attnbook.nmt.corpus import tokenize_french

    assert tokenize_french("J'ai froid. Aujourd'hui !", cased=True) == [
        "J'",
        "ai",
        "froid",
        ".",
        "Aujourd'hui",
        "!",
    ]


def test_learning_twice_gives_the_same_pieces(cased):
    sentences = [p.target for p in cased[:3000]]
    assert learn_subwords(sentences, 500).model == learn_subwords(sentences, 500).model


def test_round_trip_text_to_pieces_to_text(cased, french_units):
    for pair in cased[5000:5200]:  # sentences not learnt from
        text = " ".join(pair.target)
        pieces = french_units.encode(text)
        if SUBWORD_UNK not in pieces:
            assert french_units.decode(pieces) == text


def test_unseen_character_becomes_unknown_piece(french_units):
    pieces = french_units.encode("le 猫 .")
    assert SUBWORD_UNK in pieces and french_units.unknown("le 猫 .") == 1
    assert french_units.unknown("le chat .") == 0


def test_vocab_size_too_large_is_a_clear_value_error():
    with pytest.raises(ValueError, match="cannot learn 500 pieces"):
        learn_subwords(["a b c"] * 10, 500)
    with pytest.raises(ValueError, match="vocab_size must be at least 4"):
        learn_subwords(["a b c"], 3)
    with pytest.raises(ValueError, match="model_type"):
        learn_subwords(["a b c"], 10, model_type="wordpiece")
    with pytest.raises(TypeError, match="vocab_size must be an int"):
        learn_subwords(["a b c"], 10.0)


def test_word_index_starts_a_word_at_each_mark():
    assert Subwords.word_index(["▁J'", "▁ai", "▁fr", "oid", "▁."]) == [0, 1, 2, 2, 3]


def test_attention_to_words_sums_source_pieces_and_averages_target_pieces():
    weights = torch.tensor([[0.2, 0.3, 0.5], [0.6, 0.2, 0.2]])
    pooled = attention_to_words(weights, ["▁a", "b", "▁c"], ["▁x", "y"])
    assert torch.allclose(pooled, torch.tensor([[(0.5 + 0.8) / 2, (0.5 + 0.2) / 2]]))
    assert torch.allclose(pooled.sum(-1), torch.ones(1))
    with pytest.raises(ValueError, match="weights must have shape"):
        attention_to_words(weights, ["▁a"], ["▁x", "y"])


def test_score_report_states_case_and_references():
    hypotheses = ["Il a froid."]
    references = [["il a froid.", "Il est gelé."]]
    cased = score_report(hypotheses, references, cased=True)
    lower = score_report(hypotheses, references, cased=False)
    assert lower["bleu"] == pytest.approx(100.0) and cased["bleu"] < 100.0
    assert lower["bleu_single"] == pytest.approx(100.0) and cased["bleu_single"] < 100.0
    assert "case:lc" in lower["bleu_signature"] and "case:mixed" in cased["bleu_signature"]
    assert "nrefs:2" in cased["bleu_signature"]
    with pytest.raises(ValueError, match="every sentence needs"):
        score_report(["x"], [[]], cased=True)


def test_cased_split_by_lowered_source_matches_the_word_split(cased, lowered):
    words = split_by_english(lowered, seed=0)
    pieces = split_by_english(cased, seed=0, key=lowered_source)
    assert [lowered_source(p) for p in pieces.test] == [p.source for p in words.test]
    assert len(pieces.train) == len(words.train)


def test_pieces_run_scores_the_word_runs_held_out_sentences(cased):
    small = cased[:1500]
    config = real_config(300, 0, RealConfig(model=ModelConfig(emb_dim=16, hidden_dim=16)))
    config = replace(config, beam_size=1, train=replace(config.train, max_epochs=1))
    run = run_pieces_experiment(small, config, device="cpu")
    evaluation = run.evaluation
    words_test = {lowered_source(p) for p in run.split.test}
    assert len(evaluation.sources) == len(words_test)
    assert all(isinstance(t, str) and "▁" not in t for t in evaluation.translations)
    summary = run.to_dict()
    assert {"bleu", "bleu_single", "chrf", "bleu_signature", "bleu_lowercased"} <= set(summary)
    assert "case:lc" in summary["bleu_signature_lowercased"] and "case:mixed" in summary["bleu_signature"]
    assert summary["n_sentences_unknown"] <= summary["n_unknown"]
    chapter = chapter_units_run(run)
    assert chapter.train_losses == tuple(r.loss for r in run.training.history)
    assert chapter.examples == tuple(
        (" ".join(s), t) for s, t in zip(evaluation.sources[:3], evaluation.translations[:3], strict=True)
    )
    assert chapter.heatmap == pick_heatmap(evaluation)


def test_the_heatmap_is_the_first_fitting_translation_a_correct_one_first():
    def evaluation(translations):
        # three sentences of 4 pieces each way, with one word in two pieces on each side, every French
        # word's pieces reading one English word
        source, target = ["▁I", "▁sne", "eze", "."], ["▁J'", "▁ét", "ern", "ue"]
        weights = torch.zeros(5, 5)
        weights[[0, 1, 2, 3], [0, 1, 1, 1]] = 1.0
        return PiecesEvaluation(
            cased={},
            lowercased={},
            sources=[("I", "sneeze.")] * 3,
            source_pieces=[source] * 3,
            pieces=[target] * 3,
            translations=translations,
            references=[["good"]] * 3,
            weights=[weights] * 3,
            n_sentences_unknown=0,
            n_unknown=0,
        )

    assert pick_heatmap(evaluation(["bad", "good", "good"])).translation == "good"
    first = pick_heatmap(evaluation(["bad", "worse", "bad"]))
    assert first.translation == "bad" and not first.correct
    assert first.weights[1] == (0.0, 1.0, 0.0, 0.0)  # <eos>'s column and row cut off
    assert words_in_several_pieces(first.target_pieces) == 1
    short = replace(evaluation(["good"] * 3), source_pieces=[["▁I", "."]] * 3)
    assert pick_heatmap(short) is None


def test_the_recorded_chapter_run_trains_again_to_its_losses(cased):
    record = UnitsComparison.packaged()
    run = record.chapter_run
    assert len(run.examples) == 3 and len(run.train_losses) >= 3
    heatmap = run.heatmap
    assert isinstance(heatmap, PiecesHeatmap) and len(heatmap.weights) == len(heatmap.target_pieces)
    assert all(len(row) == len(heatmap.source_pieces) and sum(row) <= 1 + 1e-6 for row in heatmap.weights)
    again = replay(record.recorded_start(), steps=10, pairs=cased)
    assert again.recorded == run.train_losses[:1]
    torch.testing.assert_close(torch.tensor(again.live), torch.tensor(again.recorded), rtol=1e-3, atol=0.0)
    with pytest.raises(ValueError, match="at least 1"):
        replay(record.recorded_start(), steps=0, pairs=cased)


def test_run_real_experiment_refuses_pieces(lowered):
    with pytest.raises(ValueError, match="run_pieces_experiment"):
        from attnbook.studies.realdata import run_real_experiment

        run_real_experiment(lowered[:100], real_config(300, 0))


def test_recorded_comparison_round_trips(tmp_path):
    recorded = UnitsComparison.packaged()
    assert isinstance(recorded, UnitsComparison)
    assert {r.units for r in recorded.runs} == {"words", "pieces"}
    assert [r.seed for r in recorded.runs_of("pieces")] == [r.seed for r in recorded.runs_of("words")]
    path = recorded.save(tmp_path / "again.json")
    assert UnitsComparison.load(path) == recorded
    (tmp_path / "bad.json").write_text("{}", encoding="utf-8")
    with pytest.raises(ValueError, match="not a recorded comparison"):
        UnitsComparison.load(tmp_path / "bad.json")


def test_sentence_pair_of_pieces_is_a_plain_pair(french_units):
    pair = SentencePair(("▁a",), tuple(french_units.encode("le chat .")))
    assert pair.alignment == ()


def _part(seed: int, chapter: bool = True) -> UnitsComparison:
    def run(units: str) -> UnitsRun:
        keys = ("bleu", "bleu_single", "chrf", "bleu_lowercased", "bleu_single_lowercased", "chrf_lowercased")
        scores = {**dict.fromkeys(keys, float(seed)), "n_sentences_unknown": 3}
        return UnitsRun(units, seed, scores, 1.0, 10, (5,), (2.0,))

    return UnitsComparison(
        f"python -m attnbook subwords --seeds {seed}",
        {"date": "x"},
        {"data": {"subwords": 300}},
        (run("words"), run("pieces")),
        10.0 + seed,
        run("pieces") if chapter else None,
    )


def test_merge_puts_seeds_in_order_and_keeps_the_lowest_seeds_chapter_run():
    merged = merge_units_comparisons([_part(2), _part(0), _part(1, chapter=False)], "merged")
    assert [(r.units, r.seed) for r in merged.runs] == [
        ("words", 0),
        ("pieces", 0),
        ("words", 1),
        ("pieces", 1),
        ("words", 2),
        ("pieces", 2),
    ]
    assert merged.chapter_run.seed == 0 and merged.seconds == 12.0 and merged.command == "merged"


def test_merge_refuses_a_seed_twice_and_other_configurations():
    with pytest.raises(ValueError, match="recorded in two parts"):
        merge_units_comparisons([_part(0), _part(0)], "x")
    other = replace(_part(1), config={"data": {"subwords": 500}})
    with pytest.raises(ValueError, match="different configurations"):
        merge_units_comparisons([_part(0), other], "x")
    with pytest.raises(ValueError, match="nothing to merge"):
        merge_units_comparisons([], "x")


def test_cli_subwords_merge_writes_one_record(tmp_path, capsys):
    from attnbook.cli import main

    paths = [_part(s).save(tmp_path / f"part{s}.json") for s in (0, 1)]
    assert main(["subwords", "--merge", *map(str, paths), "--save", str(tmp_path / "all.json")]) == 0
    merged = UnitsComparison.load(tmp_path / "all.json")
    assert [r.seed for r in merged.runs_of("pieces")] == [0, 1]


def test_cli_train_subwords_refuses_record_and_the_toy_grammar(capsys):
    from attnbook.cli import main

    assert main(["train", "--subwords", "300"]) == 2
    assert "--subwords has no effect on a run on the toy grammar" in capsys.readouterr().err
    assert main(["train", "--corpus", "tatoeba", "--subwords", "300", "--record", "x.json"]) == 2
    assert "--record keeps word-level runs only" in capsys.readouterr().err


def test_cli_saves_a_model_over_pieces_and_evaluate_and_translate_read_it_back(tmp_path, capsys):
    """train --subwords --save, then evaluate --checkpoint on the run's own held-out sentences: the same
    BLEU over the same sentences as the run printed before saving; translate --checkpoint prints what the
    loaded Translator writes."""
    import json

    from attnbook.cli import main
    from attnbook.nmt import Translator

    lines = shipped_path().read_text(encoding="utf-8").splitlines()[::8]
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(lines) + "\n", encoding="utf-8")
    model = tmp_path / "pieces.pt"
    tiny = [
        "--model",
        "seq2seq",
        "--emb-dim",
        "16",
        "--hidden-dim",
        "16",
        "--steps",
        "1",
        "--beam",
        "1",
        "--threads",
        "1",
    ]
    args = ["train", "--corpus-file", str(corpus), "--subwords", "300", *tiny, "--device", "cpu"]
    assert main([*args, "--save", str(model), "--json"]) == 0
    trained = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert trained["subwords"] == 300 and trained["src_vocab"] == 300 + 3  # <pad>, <sos>, <eos>

    # the run's held-out sentences, as the lines of the file they came from
    pairs = load_tatoeba(corpus, cased=True, strict=True).pairs
    assert len(pairs) == len(lines)
    data = RealConfig().data
    held = split_by_english(
        pairs,
        test_fraction=data.test_fraction,
        val_fraction=data.val_fraction,
        seed=data.split_seed,
        key=lowered_source,
    ).test
    chosen = {id(pair) for pair in held}
    held_out = tmp_path / "held-out.txt"
    held_out.write_text("".join(f"{line}\n" for line, p in zip(lines, pairs, strict=True) if id(p) in chosen))
    assert main(["evaluate", "--checkpoint", str(model), "--corpus-file", str(held_out), "--beam", "1",
                 "--device", "cpu", "--json"]) == 0  # fmt: skip
    evaluated = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert (evaluated["n_sentences"], evaluated["n_too_long"]) == (trained["n_sentences"], 0)
    assert evaluated["bleu"] == pytest.approx(trained["bleu"], abs=1e-9)
    assert evaluated["chrf"] == pytest.approx(trained["chrf"], abs=1e-9)
    assert evaluated["cased"] is True  # pieces read and write case

    loaded = Translator.load(model, device="cpu")
    assert loaded.tokenizer.pieces
    for sentence in ("I am cold.", " ".join(held[0].source)):
        assert main(["translate", "--checkpoint", str(model), "--device", "cpu", "--json", sentence]) == 0
        printed = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
        assert printed["translation"] == loaded.translate(sentence)
