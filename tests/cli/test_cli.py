"""The command line: ``python -m attnbook train`` prints metrics, and with ``--json`` ends with one JSON line."""

import json
import subprocess
import sys

import pytest
import torch

from attnbook.cli import main
from attnbook.cli.main import build_parser

TINY = [
    "--n-train",
    "120",
    "--n-val",
    "20",
    "--n-test",
    "30",
    "--epochs",
    "1",
    "--hidden-dim",
    "8",
    "--threads",
    "1",
]


@pytest.fixture(autouse=True)
def _restore_threads():
    threads = torch.get_num_threads()
    yield
    torch.set_num_threads(threads)


@pytest.mark.parametrize("attention", ["bahdanau", "luong", "none"])
def test_train_json_ends_with_one_object_holding_every_metric(attention, capsys, summary_keys):
    assert main(["train", "--attention", attention, "--device", "cpu", "--json", *TINY]) == 0
    captured = capsys.readouterr()
    (line,) = captured.out.strip().splitlines()  # standard output holds the JSON only
    summary = json.loads(line)
    assert set(summary) == summary_keys
    assert summary["attention"] == attention and summary["device"] == "cpu"
    assert sum(summary["count_by_length"].values()) == 30
    assert set(summary["exact_match_by_length"]) == set(summary["count_by_length"])
    if attention == "none":
        assert summary["alignment_accuracy"] is None and summary["alignment_by_category"] == {}
    else:
        assert 0.0 <= summary["alignment_accuracy"] <= 1.0
        assert set(summary["alignment_by_category"]) >= {"article", "noun", "verb"}
    assert any(line.startswith("exact match ") for line in captured.err.splitlines())  # the text: on stderr


def test_train_without_json_prints_text_only(capsys):
    assert main(["train", "--attention", "none", "--device", "cpu", *TINY]) == 0
    out = capsys.readouterr().out
    assert "exact match" in out and "{" not in out


def test_train_saves_a_checkpoint_that_loads(tmp_path, capsys):
    from attnbook.nmt.translator import Translator

    path = tmp_path / "model.pt"
    assert main(["train", "--device", "cpu", "--save", str(path), "--luong-score", "concat", *TINY]) == 0
    translator = Translator.load(path, device="cpu")
    assert translator.model.config.hidden_dim == 8 and len(translator.src_vocab) > 4


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["train", "--attention", "dot"], "invalid choice"),
        (["train", "--epochs", "0"], "must be at least 1, got 0"),
        (["train", "--batch-size", "-3"], "must be at least 1, got -3"),
        (["train", "--luong-score", "cosine"], "invalid choice"),
        (["bench", "--device", "tpu"], "invalid choice"),
        (["bench", "--threads", "0"], "must be a positive integer, got 0"),
        (["bottleneck", "--sizes", "0"], "must be a positive integer, got 0"),
        (["bottleneck", "--device", "tpu"], "invalid choice"),
    ],
)
def test_bad_arguments_are_refused_by_the_parser(arguments, message, capsys):
    with pytest.raises(SystemExit):
        build_parser().parse_args(arguments)
    assert message in capsys.readouterr().err


@pytest.mark.skipif(torch.cuda.is_available(), reason="CUDA is available here")
@pytest.mark.parametrize("command", [["train", *TINY], ["bench", "--grid", "tiny"]])
def test_asking_for_cuda_without_it_is_a_clear_error(command, capsys):
    assert main([*command, "--device", "cuda"]) == 2
    assert "cuda" in capsys.readouterr().err.lower()


def test_an_impossible_combination_of_flags_is_one_clear_error(capsys):
    assert main(["train", "--attention", "luong", "--luong-score", "dot", "--device", "cpu", *TINY]) == 2
    error = capsys.readouterr().err
    assert "--luong-score dot" in error and "--luong-score general" in error and "_" not in error


def test_module_runs_as_a_program():
    result = subprocess.run(
        [sys.executable, "-m", "attnbook", "train", "--help"],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert result.returncode == 0
    for flag in (
        "--attention",
        "--json",
        "--lr",
        "--batch-size",
        "--luong-score",
        "--hidden-dim",
        "--epochs",
        "--seed",
    ):
        assert flag in result.stdout


@pytest.mark.parametrize(
    "argv",
    [
        ["train"],
        ["train", "--corpus", "tatoeba"],
        ["bottleneck"],
        ["subwords"],
        ["bench"],
        ["evaluate", "--checkpoint", "m.pt", "--corpus-file", "pairs.txt"],
        ["translate", "--checkpoint", "m.pt", "Go."],
    ],
    ids=lambda argv: " ".join(argv[:3]),
)
def test_every_command_takes_every_device_through_one_set_of_run_options(argv):
    for device in ("auto", "cpu", "cuda", "mps"):
        args = build_parser().parse_args([*argv, "--device", device, "--json"])
        assert (args.device, args.json) == (device, True)
