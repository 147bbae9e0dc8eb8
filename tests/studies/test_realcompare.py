"""The GRU with attention beside the Transformer on real sentences: the comparison, its record, its re-check,
where the heads look, and the published scores the chapter places the book's models among."""

from dataclasses import replace

import pytest
import torch

from attnbook.book import ScaleEntry, bleu_scale_figure
from attnbook.nmt.corpus import load_tatoeba, shipped_path
from attnbook.nmt.seq2seq import ModelConfig
from attnbook.nmt.training import TrainConfig
from attnbook.nmt.transformer import TransformerSizes
from attnbook.studies import realcompare
from attnbook.studies.published import PUBLISHED_BLEU
from attnbook.studies.realdata import RealConfig
from attnbook.studies.replay import replay

pytestmark = pytest.mark.usefixtures("one_thread")

TINY = RealConfig(
    model=ModelConfig(emb_dim=8, hidden_dim=8),
    train=TrainConfig(
        max_epochs=1, batch_size=64, lr=5e-3, lr_decay=True, eval_every=3, log_every=2, keep_best=False
    ),
    beam_size=1,
)
TINY_TRANSFORMER = TransformerSizes(d_model=8, num_heads=2, num_layers=1, ff_dim=16)


@pytest.fixture(scope="module")
def tiny_pairs():
    return load_tatoeba(shipped_path()).pairs[::40]


@pytest.fixture(scope="module")
def tiny_comparison(tiny_pairs):
    torch.set_num_threads(1)
    return realcompare.run_comparison(
        tiny_pairs, TINY, seeds=(0, 1), transformer=TINY_TRANSFORMER, command="test"
    )


def test_every_model_trains_once_per_seed_and_is_scored_with_its_signature(tiny_comparison):
    runs = tiny_comparison.runs
    assert [(r.model, r.seed) for r in runs] == [
        ("bahdanau", 0),
        ("transformer", 0),
        ("bahdanau", 1),
        ("transformer", 1),
    ]
    steps = {r.steps for r in runs}
    assert len(steps) == 1  # the same batches for both models: the same steps
    for run in runs:
        assert 0 <= run.bleu_single <= run.bleu + 1e-9 <= 100
        assert run.bleu_signature.startswith("nrefs:") and run.cased is False
        assert run.cpu_seconds > 0 and run.seconds > 0
        assert len(run.train_losses) == run.steps // TINY.train.log_every


def test_each_transformer_run_records_how_often_each_head_agrees_with_the_gru(tiny_comparison):
    for run in tiny_comparison.runs_of("transformer"):
        assert len(run.head_agreement) == 1 and len(run.head_agreement[0]) == 2  # layers x heads
        assert all(0.0 <= share <= 1.0 for row in run.head_agreement for share in row)
    assert all(run.head_agreement == () for run in tiny_comparison.runs_of("bahdanau"))
    assert tiny_comparison.n_agreement_sentences > 0


def test_a_comparison_survives_its_json_and_merges_with_another_seed(tiny_comparison, tmp_path):
    path = tiny_comparison.save(tmp_path / "c.json")
    again = realcompare.RealComparison.load(path)
    assert again == tiny_comparison
    assert realcompare.comparison_config(again) == TINY
    assert realcompare.comparison_transformer(again) == TINY_TRANSFORMER
    first = replace(again, runs=tuple(r for r in again.runs if r.seed == 0), command="a")
    second = replace(again, runs=tuple(r for r in again.runs if r.seed == 1), command="b")
    merged = realcompare.merge_comparisons([first, second])
    assert merged.runs == again.runs and merged.command == "a ; b"
    with pytest.raises(ValueError, match="two parts"):
        realcompare.merge_comparisons([first, first])
    table = realcompare.format_comparison(again)
    assert "Transformer" in table and "GRU + Bahdanau attention" in table and "signature nrefs:" in table


def test_a_file_that_is_not_a_comparison_is_refused_with_its_name(tmp_path):
    path = tmp_path / "other.json"
    path.write_text('{"runs": []}', encoding="utf-8")
    with pytest.raises(ValueError, match=r"other\.json: not a recorded comparison"):
        realcompare.RealComparison.load(path)


def test_retraining_the_start_of_a_run_gives_its_recorded_losses(tiny_comparison, tiny_pairs):
    run = tiny_comparison.runs_of("transformer")[1]
    again = replay(tiny_comparison.recorded_start(run), steps=2 * TINY.train.log_every, pairs=tiny_pairs)
    assert again.training.steps == 2 * TINY.train.log_every and again.recorded == run.train_losses[:2]
    assert again.live == pytest.approx(again.recorded, rel=1e-4)


def test_an_unknown_model_is_refused_before_anything_trains(tiny_pairs):
    with pytest.raises(ValueError, match="model must be one of"):
        realcompare.run_comparison(tiny_pairs, TINY, models=("luong",))


def test_the_published_scores_cite_the_bibliography_and_the_figure_places_them():
    bib = (shipped_path().parents[4] / "references.bib").read_text(encoding="utf-8")
    for score in PUBLISHED_BLEU:
        for key in score.cite.split(","):
            assert f"{{{key}," in bib, key
        assert 0 < score.bleu_low <= score.bleu_high < 100
    entries = [ScaleEntry(s.system, s.bleu_low, s.bleu_high, "published") for s in PUBLISHED_BLEU]
    ax = bleu_scale_figure([*entries, ScaleEntry("ours", 37.0, 37.0)])
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels[0] == "OPUS-MT / Tatoeba-MT Transformers" and "ours" in labels
    with pytest.raises(ValueError, match="low <= high"):
        ScaleEntry("bad", 40.0, 30.0)
