"""attnbook.studies.training_choices: each choice changes only its own fields, a run records its curves and
reads back, and a recorded run's first steps train again to its losses."""

from __future__ import annotations

from dataclasses import replace

import pytest

from attnbook.nmt.transformer import TransformerSizes
from attnbook.studies.experiment import DataConfig
from attnbook.studies.replay import replay
from attnbook.studies.training_choices import (
    CHOICES,
    CHOICES_BASE,
    TrainingChoices,
    choice_config,
    run_training_choices,
)

pytestmark = pytest.mark.usefixtures("one_thread")

TINY = replace(
    CHOICES_BASE,
    data=DataConfig(n_train=64, n_val=16, n_test=16, max_src_len=6),
    model=TransformerSizes(d_model=8, num_heads=2, num_layers=1, ff_dim=8),
    train=replace(CHOICES_BASE.train, max_epochs=1, batch_size=16, eval_every=2, log_every=1),
)


def test_each_choice_changes_only_its_own_fields_and_the_plain_run_is_the_base():
    assert choice_config("plain", 0) == replace(CHOICES_BASE, train=replace(CHOICES_BASE.train, seed=0))
    smoothed = choice_config("label smoothing", 1)
    assert smoothed.train.label_smoothing == 0.1 and smoothed.model == CHOICES_BASE.model
    assert choice_config("dropout", 0).model.dropout == 0.1
    post = choice_config("post-norm + warm-up", 0)
    assert not post.model.norm_first and post.train.warmup_steps == 100
    with pytest.raises(ValueError, match="choice"):
        choice_config("batch norm", 0)


def test_a_study_records_every_choice_and_seed_and_reads_back(tmp_path):
    study = run_training_choices(choices=("plain", "dropout"), seeds=(0, 1), base=TINY)
    assert [(run.choice, run.seed) for run in study.runs] == [
        ("plain", 0),
        ("plain", 1),
        ("dropout", 0),
        ("dropout", 1),
    ]
    assert all(run.val_steps == (2, 4) and len(run.train_losses) == 4 for run in study.runs)
    assert study.runs_of("dropout")[1].seed == 1 and set(study.choices) == {"plain", "dropout"}
    back = TrainingChoices.load(study.save(tmp_path / "study.json"))
    assert back == study


def test_the_packaged_study_has_every_choice_and_three_seeds_and_replays():
    study = TrainingChoices.packaged()
    assert list(study.choices) == list(CHOICES) and study.seeds == [0, 1, 2]
    assert all(run.steps == 626 for run in study.runs)
    again = replay(study.recorded_start(study.runs_of("warm-up")[0]), 10)
    assert again.largest_relative_gap < 1e-3
