"""Chapter 6's experiment: the nested, validated configuration, its flags, and the whole run."""

import argparse
import dataclasses

import pytest

from attnbook.cli.flags import add_config_arguments, config_from_arguments
from attnbook.nmt.training import TrainConfig
from attnbook.nmt.transformer import TransformerSizes
from attnbook.studies.experiment import DataConfig, ExperimentConfig, ModelConfig, run_experiment

pytestmark = pytest.mark.usefixtures("one_thread")


def test_run_experiment_end_to_end_on_a_tiny_configuration(summary_keys):
    config = ExperimentConfig(
        DataConfig(n_train=200, n_val=30, n_test=30, max_src_len=8),
        ModelConfig(attention="luong", emb_dim=8, hidden_dim=16, attn_dim=8),
        TrainConfig(max_epochs=1, batch_size=50, eval_every=2),
    )
    experiment = run_experiment(config, device="cpu", progress=False)
    summary = experiment.to_dict()
    assert set(summary) == summary_keys
    assert summary["device"] == "cpu" and summary["attention"] == "luong"
    assert summary["config"]["luong_score"] == "general" and summary["train_config"]["batch_size"] == 50
    assert experiment.training.steps == 4
    train_sources = {p.source for p in experiment.splits.train}
    assert not train_sources & {p.source for p in experiment.splits.test}


@pytest.mark.parametrize(
    ("build", "facts"),
    [
        (
            lambda: ExperimentConfig(model=ModelConfig(attention="luong", luong_score="dot")),
            ["dot", "general"],
        ),
        (lambda: ModelConfig(attention="luong", luong_score="cosine"), ["luong_score", "cosine"]),
        (lambda: DataConfig(n_train=0), ["n_train", "at least 1", "0"]),
        (lambda: ModelConfig(hidden_dim=0), ["hidden_dim", "0"]),
    ],
)
def test_impossible_configurations_are_refused_when_built(build, facts):
    with pytest.raises(ValueError) as caught:
        build()
    assert all(fact in str(caught.value) for fact in facts)


def test_the_luong_score_can_be_chosen_and_reaches_the_model(toy_vocabs):
    from attnbook.studies.recipe import build_translator

    config = ExperimentConfig(model=ModelConfig(attention="luong", luong_score="location", hidden_dim=8))
    translator = build_translator(config, *toy_vocabs)
    assert translator.model.config.luong_score == "location"
    assert translator.model.decoder.attention.max_src_len == config.data.max_src_len + 1  # and <eos>


def parse(*flags: str) -> ExperimentConfig:
    parser = argparse.ArgumentParser()
    add_config_arguments(parser, ExperimentConfig)
    return config_from_arguments(ExperimentConfig, parser.parse_args(list(flags)))


def test_every_config_field_has_a_flag_derived_from_it():
    assert parse() == ExperimentConfig()
    config = parse(
        *("--lr", "0.01", "--batch-size", "64", "--luong-score", "concat", "--attention", "luong"),
        *("--hidden-dim", "32", "--epochs", "2", "--seed", "7", "--n-train", "100", "--no-keep-best"),
        "--reverse-source",
    )
    assert config.train == TrainConfig(
        lr=0.01,
        batch_size=64,
        max_epochs=2,
        seed=7,
        keep_best=False,
        lr_decay=True,  # Luong's default
    )
    assert config.model == ModelConfig(attention="luong", luong_score="concat", hidden_dim=32)
    assert config.data == DataConfig(n_train=100, reverse_source=True)
    parser = argparse.ArgumentParser()
    add_config_arguments(parser, ExperimentConfig)
    destinations = {action.dest for action in parser._actions} - {"help"}
    fields = {
        item.name
        for config in (DataConfig, ModelConfig, TrainConfig, TransformerSizes)
        for item in dataclasses.fields(config)
    } | {"model"}
    assert destinations == fields


def test_luong_decoders_get_a_decaying_learning_rate_unless_told_otherwise_and_bahdanau_keeps_its_own():
    assert parse().train.lr_decay is False  # chapter 6's Bahdanau model: a constant rate
    assert parse("--attention", "none").train.lr_decay is False
    for flags in (("--input-feeding",), ("--luong-score", "concat"), ()):
        assert parse("--attention", "luong", *flags).train.lr_decay is True
    assert parse("--attention", "luong", "--no-lr-decay").train.lr_decay is False
    assert parse("--lr-decay").train.lr_decay is True
    luong = ModelConfig(attention="luong", input_feeding=True)
    assert ExperimentConfig(model=luong).train == TrainConfig(lr_decay=True)
    assert ExperimentConfig(model=luong, train=TrainConfig(seed=3)).train == TrainConfig(
        seed=3, lr_decay=True
    )
    assert ExperimentConfig(model=luong, train=TrainConfig(lr_decay=False)).train.lr_decay is False


@pytest.mark.parametrize(
    ("flags", "facts"),
    [
        (["--batch-size", "0"], ["--batch-size", "at least 1", "0"]),
        (["--luong-score", "cosine"], ["--luong-score", "cosine"]),
        (["--lr", "fast"], ["--lr", "fast"]),
    ],
)
def test_a_bad_flag_is_refused_by_the_parser_naming_it(flags, facts, capsys):
    with pytest.raises(SystemExit):
        parse(*flags)
    error = capsys.readouterr().err
    assert all(fact in error for fact in facts)


def test_reverse_source_reverses_the_same_sentences_and_moves_their_links():
    plain = DataConfig(n_train=30, n_val=5, n_test=5, max_src_len=12).splits()
    reversed_ = DataConfig(n_train=30, n_val=5, n_test=5, max_src_len=12, reverse_source=True).splits()
    for part, reversed_part in ((plain.train, reversed_.train), (plain.test, reversed_.test)):
        for pair, other in zip(part, reversed_part, strict=True):
            assert other.source == tuple(reversed(pair.source)) and other.target == pair.target
            for sources, moved in zip(pair.alignment, other.alignment, strict=True):
                # each link follows its English word to its new position
                assert sorted(other.source[j] for j in moved) == sorted(pair.source[j] for j in sources)
                assert moved == tuple(sorted(len(pair.source) - 1 - j for j in sources))
