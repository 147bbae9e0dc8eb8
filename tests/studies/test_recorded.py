"""A run recorded with its held-out translations: ``train --record`` writes it, it reads back unchanged,
its first steps train again to the recorded losses, and the shipped baseline is the real-sentences
chapter's."""

from dataclasses import replace

import pytest
import torch

from attnbook.cli import main
from attnbook.nmt import score_against_references
from attnbook.nmt.corpus import load_tatoeba, shipped_path
from attnbook.studies.realdata import RealConfig, run_real_experiment
from attnbook.studies.recorded import ATTENTION, RecordedTranslations, record_run, recorded_config
from attnbook.studies.replay import replay
from attnbook.studies.units import UnitsComparison

pytestmark = pytest.mark.usefixtures("one_thread")


@pytest.fixture(scope="module")
def tiny_corpus(tmp_path_factory):
    lines = shipped_path().read_text(encoding="utf-8").splitlines()[::40]
    path = tmp_path_factory.mktemp("corpus") / "tiny.txt"
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return path


def test_train_record_writes_the_run_and_it_trains_again_to_its_losses(tiny_corpus, tmp_path, capsys):
    path = tmp_path / "run.json"
    args = ["--model", "seq2seq", "--hidden-dim", "8", "--epochs", "2", "--beam", "1", "--attention", "none"]
    args += ["--threads", "1"]
    assert main(["train", "--corpus-file", str(tiny_corpus), "--record", str(path), *args]) == 0
    assert f"recorded in {path}" in capsys.readouterr().out
    record = RecordedTranslations.load(path)
    config = recorded_config(record)
    assert config.model.attention == "none" and config.model.hidden_dim == 8 and config.beam_size == 1
    assert record.command.startswith("python -m attnbook train") and "--record" in record.command
    assert len(record.sources) == len(record.hypotheses) > 0
    assert len(record.train_losses) == record.train_steps // config.train.log_every
    pairs = load_tatoeba(tiny_corpus).pairs
    # a run this short logs no training loss: the replay compares its validation losses
    assert record.train_losses == ()
    again = replay(record.recorded_start(), steps=record.train_steps, pairs=pairs)
    assert again.steps == record.val_steps and again.recorded == record.val_losses
    torch.testing.assert_close(torch.tensor(again.live), torch.tensor(again.recorded), rtol=1e-5, atol=0.0)
    with pytest.raises(ValueError, match="at least 1"):
        replay(record.recorded_start(), steps=0, pairs=pairs)


def test_a_record_round_trips_and_a_bad_file_is_named(tiny_corpus, tmp_path):
    config = RealConfig()
    config = replace(
        config,
        model=replace(config.model, hidden_dim=8),
        beam_size=1,
        train=replace(config.train, max_epochs=1),
    )
    experiment = run_real_experiment(load_tatoeba(tiny_corpus).pairs, config, device="cpu")
    record = record_run(experiment, "python -m attnbook train")
    assert recorded_config(record) == config
    assert RecordedTranslations.load(record.save(tmp_path / "r.json")) == record
    (tmp_path / "bad.json").write_text('{"command": "x"}', encoding="utf-8")
    with pytest.raises(ValueError, match=r"bad\.json: not a recorded run"):
        RecordedTranslations.load(tmp_path / "bad.json")


def test_the_shipped_baseline_is_the_chapters_and_scores_below_the_attention_model():
    record = RecordedTranslations.packaged()
    config = recorded_config(record)
    default = RealConfig()
    chapter = replace(
        default,
        model=replace(default.model, attention="none"),
        beam_size=1,
        train=replace(default.train, max_epochs=2),
    )
    assert config == chapter
    pairs = load_tatoeba(shipped_path()).pairs
    from attnbook.nmt import group_references, split_by_english

    split = split_by_english(pairs, test_fraction=0.1, val_fraction=0.05, seed=0)
    sources, references = group_references(split.test)
    assert list(record.sources) == sources
    score = score_against_references([list(h) for h in record.hypotheses], references)
    # the recorded word-level run of the same settings with attention (seed 0, the chapter's) scores higher
    attention = UnitsComparison.packaged().runs_of("words")[0]
    assert 0 < score.bleu < attention.scores["bleu"] and score.chrf < attention.scores["chrf"]


def test_the_shipped_attention_run_is_the_baselines_with_attention_and_the_subword_studys_first_seed():
    baseline, attention = RecordedTranslations.packaged(), RecordedTranslations.packaged(ATTENTION)
    assert recorded_config(attention) == replace(
        recorded_config(baseline), model=replace(recorded_config(baseline).model, attention="bahdanau")
    )
    assert attention.sources == baseline.sources and attention.train_steps == baseline.train_steps
    pairs = load_tatoeba(shipped_path()).pairs
    from attnbook.nmt import group_references, split_by_english

    _, references = group_references(
        split_by_english(pairs, test_fraction=0.1, val_fraction=0.05, seed=0).test
    )
    scores = [
        score_against_references([list(h) for h in r.hypotheses], references) for r in (baseline, attention)
    ]
    assert scores[0].bleu < scores[1].bleu and scores[0].chrf < scores[1].chrf
    # the subword study's word-level run of seed 0 trained the same model on the same batches
    words = UnitsComparison.packaged().runs_of("words")[0]
    assert words.seed == recorded_config(attention).train.seed
    assert abs(scores[1].bleu - words.scores["bleu"]) < 0.5
