"""The bottleneck study: a tiny run end to end, its JSON, its command, and the recorded run in the package."""

import json
import math

import pytest
import torch

from attnbook.cli import main
from attnbook.nmt.training import TrainConfig
from attnbook.studies import bottleneck
from attnbook.studies.experiment import DataConfig, ExperimentConfig, ModelConfig
from attnbook.studies.replay import replay

pytestmark = pytest.mark.usefixtures("one_thread")

TINY = ExperimentConfig(
    DataConfig(n_train=160, n_val=20, n_test=20, max_src_len=8),
    ModelConfig(emb_dim=8, hidden_dim=8, attn_dim=8),
    TrainConfig(max_epochs=3, batch_size=32, eval_every=2, patience=1, lr_drops=1),
)


@pytest.fixture(scope="module")
def tiny_study():
    torch.set_num_threads(1)
    models = bottleneck.study_models(hidden_sizes=(4, 8), reversed_sizes=(8,), attention_size=8)
    return bottleneck.run_study(TINY, models=models, seeds=(0, 1))


def test_a_study_trains_every_model_once_per_seed_under_one_rule(tiny_study):
    assert len(tiny_study.runs) == 4 * 2 and tiny_study.seeds == [0, 1]
    assert [(m.label, m.hidden_dim) for m in tiny_study.models] == [
        ("attention", 8),
        ("no attention", 4),
        ("no attention", 8),
        ("no attention, reversed", 8),
    ]
    for run in tiny_study.runs:
        assert run.steps <= 3 * 5 and run.val_steps[-1] == run.steps
        assert run.best_loss == min(run.val_losses) and run.best_step in run.val_steps
        assert len(run.lr_drop_steps) <= 1 and 0 <= run.metrics.exact_match <= 1
    wider, narrower = (tiny_study.runs_of(m)[0] for m in reversed(tiny_study.models[1:3]))
    assert wider.parameters > narrower.parameters
    assert bottleneck.study_config(tiny_study) == TINY


def test_the_same_seed_gives_the_same_run_and_another_seed_another(tiny_study):
    attention = tiny_study.models[0]
    again = bottleneck.run_study(TINY, models=[attention], seeds=(0,))
    assert again.runs[0].val_losses == tiny_study.runs_of(attention)[0].val_losses
    assert tiny_study.runs_of(attention)[1].val_losses != again.runs[0].val_losses


def test_a_study_survives_its_json_and_prints_one_row_per_model(tiny_study, tmp_path):
    path = tiny_study.save(tmp_path / "study.json")
    assert bottleneck.BottleneckStudy.load(path) == tiny_study
    table = bottleneck.format_study(tiny_study).splitlines()
    assert len(table) == 1 + 4 + 1 and table[2].startswith("no attention") and "2 seeds" in table[-1]


def test_a_file_that_is_not_a_study_is_refused_with_its_name(tmp_path):
    path = tmp_path / "other.json"
    path.write_text(json.dumps({"runs": []}), encoding="utf-8")
    with pytest.raises(ValueError, match=r"other\.json"):
        bottleneck.BottleneckStudy.load(path)
    with pytest.raises(ValueError, match="at least one model"):
        bottleneck.run_study(TINY, models=[], seeds=(0,))


def test_retraining_the_start_of_a_run_gives_its_recorded_curve(tiny_study):
    run = tiny_study.runs_of(tiny_study.models[-1])[1]  # reversed, seed 1
    epoch = math.ceil(TINY.data.n_train / TINY.train.batch_size)
    again = replay(tiny_study.recorded_start(run), steps=epoch)
    recorded = dict(zip(run.val_steps, run.val_losses, strict=True))
    assert again.steps == tuple(step for step in run.val_steps if step <= epoch)
    assert again.live == again.recorded == tuple(recorded[step] for step in again.steps)


def test_the_command_prints_the_table_saves_it_and_ends_with_json(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(bottleneck, "default_base", lambda: TINY)
    saved = tmp_path / "study.json"
    arguments = [
        "bottleneck",
        "--seeds",
        "3",
        "--sizes",
        "8",
        "--reversed-sizes",
        "--save",
        str(saved),
        "--no-progress",
    ]
    assert main([*arguments, "--json"]) == 0
    captured = capsys.readouterr()
    (line,) = captured.out.strip().splitlines()  # the JSON only; the table on stderr
    study = bottleneck.BottleneckStudy.from_dict(json.loads(line))
    assert [m.label for m in study.models] == ["attention", "no attention"] and study.seeds == [3]
    assert bottleneck.BottleneckStudy.load(saved) == study and captured.err.startswith("model")


def test_the_recorded_study_was_made_by_this_package_with_the_chapters_settings():
    study = bottleneck.BottleneckStudy.packaged()
    assert bottleneck.study_config(study) == bottleneck.default_base()
    assert study.models == list(bottleneck.study_models())
    assert study.seeds == [0, 1, 2] and study.environment.device == "cpu"
