"""attnbook.studies.luong_decoders: the five decoders differ only in their attention, a comparison records
every decoder and seed and reads back, a recorded run's first steps train again to its losses, and the
packaged comparison is the chapter's."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from attnbook.core.records import package_file
from attnbook.studies.experiment import DataConfig, ExperimentConfig
from attnbook.studies.luong_decoders import (
    DECODER_SIZES,
    DECODERS,
    DECODERS_DATA,
    DECODERS_TRAIN,
    SCORES,
    DecoderComparison,
    run_decoder_comparison,
)
from attnbook.studies.replay import replay

pytestmark = pytest.mark.usefixtures("one_thread")

TINY_DECODERS = {
    name: replace(DECODERS[name], emb_dim=8, hidden_dim=8, attn_dim=8)
    for name in ("Bahdanau", "general + feeding")
}
TINY_DATA = DataConfig(n_train=64, n_val=16, n_test=16, max_src_len=6)
TINY_TRAIN = replace(DECODERS_TRAIN, max_epochs=1, batch_size=16, log_every=1)


@pytest.fixture(scope="module")
def tiny_comparison() -> DecoderComparison:
    return run_decoder_comparison(TINY_DECODERS, (0, 1), TINY_DATA, TINY_TRAIN)


def test_the_five_decoders_share_their_sizes_and_differ_in_their_attention():
    assert list(DECODERS) == ["Bahdanau", "general", "concat", "general + feeding", "general + local-p"]
    for model in DECODERS.values():
        assert {key: getattr(model, key) for key in DECODER_SIZES} == DECODER_SIZES
    luong = {name: model for name, model in DECODERS.items() if model.attention == "luong"}
    assert set(luong) == set(DECODERS) - {"Bahdanau"}
    assert luong["concat"].luong_score == "concat"
    assert luong["general + feeding"].input_feeding and not luong["general"].input_feeding
    assert luong["general + local-p"].local_p and not luong["general"].local_p


def test_a_comparison_records_every_decoder_and_seed_and_reads_back(tiny_comparison, tmp_path):
    study = tiny_comparison
    assert [(run.decoder, run.seed) for run in study.runs] == [
        ("Bahdanau", 0),
        ("Bahdanau", 1),
        ("general + feeding", 0),
        ("general + feeding", 1),
    ]
    assert study.seeds == [0, 1] and [run.seed for run in study.runs_of("general + feeding")] == [0, 1]
    assert all(run.steps == 4 and len(run.train_losses) == 4 and run.cpu_seconds > 0 for run in study.runs)
    assert all(getattr(run, key) >= 0 for run in study.runs for key in SCORES)
    feeding = study.runs_of("general + feeding")[1]
    assert study.config(feeding) == ExperimentConfig(
        TINY_DATA, TINY_DECODERS["general + feeding"], replace(TINY_TRAIN, seed=1)
    )
    back = DecoderComparison.load(study.save(tmp_path / "comparison.json"))
    assert back == study


def test_a_recorded_run_trains_again_to_its_logged_losses(tiny_comparison):
    run = tiny_comparison.runs_of("general + feeding")[1]
    again = replay(tiny_comparison.recorded_start(run), 3)
    assert again.steps == (1, 2, 3)
    assert again.recorded == run.train_losses[:3]
    assert again.largest_relative_gap < 1e-6


def test_the_packaged_comparison_is_the_chapters_and_reads_back_as_its_file():
    study = DecoderComparison.packaged()
    raw = json.loads(package_file(DecoderComparison.PACKAGED).read_text(encoding="utf-8"))
    assert study.to_dict() == raw
    assert study.decoders == DECODERS and study.data == DECODERS_DATA and study.train == DECODERS_TRAIN
    assert study.seeds == [0, 1, 2] and study.environment.threads == 1
    assert [run.decoder for run in study.runs] == [name for name in DECODERS for _ in range(3)]
    assert {run.steps for run in study.runs} == {315}
