"""The command line on real sentences: ``train --corpus-file``, ``evaluate``, ``translate``, and every bad
input ending in one clear ``error:`` line with exit status 2 (never a traceback)."""

import json
import pickle
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
import torch

from attnbook.cli import main
from attnbook.cli import train as train_command
from attnbook.cli.main import build_parser
from attnbook.cli.translate import attention_table
from attnbook.nmt.corpus import shipped_path
from attnbook.nmt.data import Vocab
from attnbook.nmt.transformer import TransformerSizes
from attnbook.nmt.translator import Translator
from attnbook.studies.realdata import RealConfig, real_defaults, small_data_config

pytestmark = pytest.mark.usefixtures("one_thread")

TINY = ["--model", "seq2seq", "--hidden-dim", "8", "--steps", "1", "--threads", "1", "--device", "cpu"]


@pytest.fixture(scope="module")
def tiny_corpus(tmp_path_factory) -> Path:
    """Every 40th shipped pair, in the three-column layout (about 450 pairs)."""
    lines = shipped_path().read_text(encoding="utf-8").splitlines()[::40]
    path = tmp_path_factory.mktemp("corpus") / "tiny.txt"
    path.write_text("".join(f"{line}\tCC-BY 2.0 (France)\n" for line in lines), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def checkpoint(tiny_corpus, tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("model") / "model.pt"
    torch.set_num_threads(1)
    assert main(["train", "--corpus-file", str(tiny_corpus), "--save", str(path), *TINY]) == 0
    return path


def last_json(out: str) -> dict:
    return json.loads(out.strip().splitlines()[-1])


def test_train_on_a_corpus_file_reports_held_out_scores_as_json(tiny_corpus, tmp_path, capsys):
    path = tmp_path / "m.pt"
    assert main(["train", "--corpus-file", str(tiny_corpus), "--save", str(path), "--json", *TINY]) == 0
    summary = last_json(capsys.readouterr().out)
    assert {"bleu", "chrf", "train_seconds", "n_train", "n_test"} <= set(summary)
    assert 0 <= summary["bleu"] <= 100 and 0 <= summary["chrf"] <= 100
    assert 0 <= summary["bleu_single"] <= summary["bleu"] + 1e-9  # one reference never credits more
    assert summary["bleu_signature"].startswith("nrefs:") and "|tok:13a|" in summary["bleu_signature"]
    assert summary["cased"] is False  # the loader lower-cases the text
    assert summary["n_train"] + summary["n_val"] + summary["n_test"] == len(
        tiny_corpus.read_text().splitlines()
    )
    assert summary["train_steps"] >= 1 and summary["corpus"] == str(tiny_corpus)
    saved = Translator.load(path, device="cpu")
    assert saved.model.config.hidden_dim == 8
    # its French gets back the capitals of the names its training French spells with one
    assert saved.tokenizer.casing is not None and saved.tokenizer.casing.get("tom") == "Tom"


def test_train_corpus_tatoeba_names_the_shipped_file(monkeypatch, capsys):
    seen = {}

    def fake_experiment(pairs, config, **kwargs):  # stop before training: only the choice of file is tested
        seen["n"] = len(pairs)
        raise ValueError("stopped here")

    monkeypatch.setattr(train_command, "run_real_experiment", fake_experiment)
    assert main(["train", "--corpus", "tatoeba", *TINY]) == 2
    assert seen["n"] == 18065


def test_corpus_and_corpus_file_exclude_each_other(capsys):
    with pytest.raises(SystemExit):
        build_parser().parse_args(["train", "--corpus", "tatoeba", "--corpus-file", "x.txt"])
    assert "not allowed with" in capsys.readouterr().err


def test_evaluate_scores_a_checkpoint_on_a_file(checkpoint, tiny_corpus, capsys):
    assert (
        main(["evaluate", "--checkpoint", str(checkpoint), "--corpus-file", str(tiny_corpus), "--json"]) == 0
    )
    captured = capsys.readouterr()
    (line,) = captured.out.splitlines()  # standard output: the JSON only; the text on stderr
    summary = json.loads(line)
    assert {"bleu", "chrf", "exact_match", "n_sentences", "n_unknown"} <= set(summary)
    assert {"bleu_single", "bleu_signature", "cased"} <= set(summary)
    assert (
        "BLEU signature nrefs:" in captured.err and "lower-cased text: the scores ignore case" in captured.err
    )
    english = {line.split("\t")[0] for line in tiny_corpus.read_text(encoding="utf-8").splitlines()}
    assert summary["n_sentences"] == len(english)  # translations grouped by English sentence


def test_translate_prints_the_translation_an_attention_table_and_a_heatmap(checkpoint, tmp_path, capsys):
    plot = tmp_path / "attention.png"
    arguments = ["translate", "--checkpoint", str(checkpoint), "--beam", "2", "--plot", str(plot), "--json"]
    assert main([*arguments, "I am cold, Zorblax."]) == 0
    captured = capsys.readouterr()
    (line,) = captured.out.splitlines()  # standard output: the JSON only; the text on stderr
    result = json.loads(line)
    out = captured.err.splitlines()
    assert result["source"] == ["i", "am", "cold", ",", "zorblax", "."]
    assert "zorblax" not in result["read_as"] and "<unk>" in result["read_as"]
    assert any("unknown to the model" in line and "zorblax" in line for line in out)
    table_header = next(line for line in out if "<eos>" in line and "<unk>" in line)
    assert table_header.split()[-1] == "<eos>"
    assert len(result["attention"]) >= 1
    for row in result["attention"]:
        assert len(row) == len(result["source"]) + 1 and sum(row) == pytest.approx(1, abs=1e-3)
    assert plot.stat().st_size > 1000 and plot.read_bytes()[:4] == b"\x89PNG"


def test_attention_table_marks_each_row_maximum():
    table = attention_table(torch.tensor([[0.7, 0.3], [0.02, 0.98]]), ["tom", "<eos>"], ["tom", "<eos>"])
    rows = table.splitlines()
    assert rows[1].split()[1:] == ["70*", "30"] and rows[2].split()[1:] == [".", "98*"]


# ---------------------------------------------------------------------------------------------------
# Bad input: one error line, exit status 2, no traceback


def assert_clean_error(capsys, *fragments: str) -> str:
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    (line,) = [line for line in captured.err.splitlines() if line.startswith("error:")]
    for fragment in fragments:
        assert fragment in line
    return line


def test_a_corpus_that_is_not_utf8_names_the_file_and_the_byte_offset(tmp_path, capsys):
    path = tmp_path / "latin1.txt"
    payload = "Go.\tVa !\nCoffee.\tUn café.\n".encode("latin-1")
    path.write_bytes(payload)
    assert main(["train", "--corpus-file", str(path), *TINY]) == 2
    offset = payload.index("é".encode("latin-1"))
    assert_clean_error(capsys, str(path), f"byte offset {offset}")


@pytest.mark.parametrize(
    "content",
    ["", "\n\n", "no tab here\nnor here\n", "\tVa !\n"],
    ids=["empty", "blank", "no-tabs", "no-english"],
)
def test_an_empty_corpus_is_refused_before_any_training(content, tmp_path, capsys, monkeypatch):
    path = tmp_path / "empty.txt"
    path.write_text(content, encoding="utf-8")
    monkeypatch.setattr(train_command, "run_real_experiment", lambda *a, **k: pytest.fail("training started"))
    assert main(["train", "--corpus-file", str(path), *TINY]) == 2
    assert_clean_error(capsys, str(path), "no usable sentence pair")


def test_a_missing_corpus_file_is_a_clear_error(tmp_path, capsys):
    assert main(["train", "--corpus-file", str(tmp_path / "nope.txt"), *TINY]) == 2
    assert_clean_error(capsys, "no such file")


def test_a_corpus_too_small_to_split_is_refused(tmp_path, capsys):
    path = tmp_path / "two.txt"
    path.write_text("Go.\tVa !\nRun!\tCours !\n", encoding="utf-8")
    assert main(["train", "--corpus-file", str(path), *TINY]) == 2
    assert_clean_error(capsys, "too few")


def test_evaluate_refuses_a_file_whose_sentences_are_all_too_long(checkpoint, tmp_path, capsys):
    path = tmp_path / "long.txt"
    path.write_text(" ".join(["word"] * 40) + ".\tMot.\n", encoding="utf-8")
    assert main(["evaluate", "--checkpoint", str(checkpoint), "--corpus-file", str(path)]) == 2
    assert_clean_error(capsys, "longer than")


class NotAttnbook:
    pass


def foreign_files(tmp_path: Path, checkpoint: Path) -> dict[str, Path]:
    files = {
        "garbage": b"this is not a checkpoint at all\n" * 10,
        "truncated": checkpoint.read_bytes()[: checkpoint.stat().st_size // 2],
        "empty": b"",
    }
    paths = {}
    for name, payload in files.items():
        paths[name] = tmp_path / f"{name}.pt"
        paths[name].write_bytes(payload)
    paths["another-programs-tensors"] = tmp_path / "other.pt"
    torch.save({"weights": torch.zeros(3)}, paths["another-programs-tensors"])
    paths["a-pickled-object"] = tmp_path / "object.pt"
    with paths["a-pickled-object"].open("wb") as handle:
        pickle.dump(NotAttnbook(), handle)
    return paths


@pytest.mark.parametrize(
    "kind", ["garbage", "truncated", "empty", "another-programs-tensors", "a-pickled-object"]
)
@pytest.mark.parametrize("command", ["translate", "evaluate"])
def test_a_file_that_is_not_a_checkpoint_is_refused_without_unsafe_advice(
    kind, command, checkpoint, tiny_corpus, tmp_path, capsys
):
    path = foreign_files(tmp_path, checkpoint)[kind]
    arguments = ["Go."] if command == "translate" else ["--corpus-file", str(tiny_corpus)]
    assert main([command, "--checkpoint", str(path), *arguments]) == 2
    line = assert_clean_error(capsys, str(path), "not a checkpoint")
    assert "weights_only" not in line


def test_a_sentence_longer_than_a_location_model_allows_is_refused(tmp_path, capsys, tiny_translator):
    vocab = Vocab(["i", "am", "cold", "."])
    translator = tiny_translator("luong", vocabs=(vocab, vocab), luong_score="location", max_src_len=4)
    path = translator.save(tmp_path / "location.pt")
    assert main(["translate", "--checkpoint", str(path), "--device", "cpu", "I am cold."]) == 0
    capsys.readouterr()
    assert main(["translate", "--checkpoint", str(path), "--device", "cpu", "I am very cold today."]) == 2
    assert_clean_error(capsys, "6 tokens", "4")


def test_the_process_exits_with_status_2_and_no_traceback(tmp_path):
    path = tmp_path / "garbage.pt"
    path.write_bytes(b"\x00\x01garbage")
    done = subprocess.run(
        [sys.executable, "-m", "attnbook", "translate", "--checkpoint", str(path), "Go."],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and done.stderr.startswith("error:")


def test_steps_are_rounded_up_to_whole_epochs_of_the_training_share():
    args = build_parser().parse_args(["train", "--corpus", "tatoeba", "--steps", "1000", "--seed", "3"])
    config = train_command.real_config_from_args(args, 18065)
    per_epoch = -(
        -round(18065 * (1 - config.data.test_fraction - config.data.val_fraction)) // config.train.batch_size
    )
    assert config.train.max_epochs == -(-1000 // per_epoch) and config.train.seed == 3
    args = build_parser().parse_args(["train", "--corpus", "tatoeba", "--steps", "1"])
    assert train_command.real_config_from_args(args, 18065).train.max_epochs == 1


def test_training_flags_set_on_a_corpus_run_are_used_and_the_defaults_are_the_real_data_ones():
    parse = build_parser().parse_args
    # without --model, the Transformer's small-data recipe
    config = train_command.real_config_from_args(parse(["train", "--corpus", "tatoeba"]), 18065)
    assert config == small_data_config() == real_defaults()
    assert config.model == TransformerSizes(d_model=104, dropout=0.2) and config.train.average_last == 5
    # --model seq2seq: the GRU's own defaults, not the recipe's
    config = train_command.real_config_from_args(
        parse(["train", "--corpus", "tatoeba", "--model", "seq2seq"]), 18065
    )
    assert config == RealConfig() == real_defaults("seq2seq")
    argv = ["train", "--corpus", "tatoeba", "--model", "seq2seq", "--lr", "0.001", "--batch-size", "32"]
    config = train_command.real_config_from_args(parse([*argv, "--hidden-dim", "64"]), 18065)
    assert (config.train.lr, config.train.batch_size, config.model.hidden_dim) == (0.001, 32, 64)
    config = train_command.real_config_from_args(
        parse(["train", "--corpus", "tatoeba", "--epochs", "3"]), 18065
    )
    assert config == replace(small_data_config(), train=replace(small_data_config().train, max_epochs=3))


def test_a_flag_of_the_gru_without_model_seq2seq_says_how_to_ask_for_it(capsys):
    assert main(["train", "--corpus", "tatoeba", "--attention", "none"]) == 2
    err = capsys.readouterr().err
    assert "--attention has no effect on --model transformer" in err and "give --model seq2seq" in err
    assert "Traceback" not in err


def test_the_help_gives_each_runs_default_where_they_differ(capsys):
    with pytest.raises(SystemExit):
        main(["train", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "(default: 4 on the toy grammar, 16 with --corpus, 5 with --corpus --model seq2seq)" in text
    # a field of one model only: the runs that train it; a field of one class only: "only"
    assert "(default: 64 on the toy grammar, 96 with --corpus --model seq2seq)" in text
    assert "(default: 0; with --corpus only)" in text and "(default: 20000; on the toy grammar only)" in text
    assert "(default: seq2seq on the toy grammar, transformer with --corpus)" in text


def test_a_flag_given_with_the_toy_grammars_default_value_still_counts_on_a_corpus_run():
    parse = build_parser().parse_args
    defaults = real_defaults()
    # the toy grammar's defaults are 4 epochs, no learning-rate decay, the best weights kept: the
    # real-data defaults differ, so each flag below is only honoured if "given" is told from "default"
    assert (defaults.train.max_epochs, defaults.train.lr_decay, defaults.train.keep_best) != (4, False, True)
    argv = ["train", "--corpus", "tatoeba", "--epochs", "4", "--no-lr-decay", "--keep-best", "--beam", "1"]
    config = train_command.real_config_from_args(parse(argv), 18065)
    assert (config.train.max_epochs, config.train.lr_decay, config.train.keep_best) == (4, False, True)
    assert config.beam_size == 1 and defaults.beam_size > 1
    assert train_command.real_config_from_args(parse(["train", "--corpus", "tatoeba"]), 18065) == defaults


def test_a_flag_a_corpus_run_cannot_use_is_refused_with_status_2(capsys):
    # refused when given at all, even with the toy grammar's default value
    assert main(["train", "--corpus", "tatoeba", "--n-train", "20000"]) == 2
    err = capsys.readouterr().err
    assert "--n-train has no effect on a corpus run" in err and "Traceback" not in err
    assert main(["train", "--min-count", "3"]) == 2  # and a corpus run's setting without a corpus
    assert "--min-count has no effect on a run on the toy grammar" in capsys.readouterr().err
    assert main(["train", "--model", "transformer", "--attention", "luong"]) == 2
    err = capsys.readouterr().err
    # --model given: no other model to suggest
    assert "--attention has no effect on --model transformer; leave it out\n" in err
    # --model left at its default: the flag's own model is suggested
    assert main(["train", "--d-model", "32"]) == 2
    assert "--d-model has no effect on --model seq2seq; leave it out, or give --model transformer" in (
        capsys.readouterr().err
    )


def test_a_corpus_run_takes_every_option_of_the_model_the_toy_run_takes():
    # the real-data run nests the same model configuration: Luong's options, or the Transformer's sizes
    argv = ["train", "--corpus", "tatoeba", "--model", "seq2seq", "--attention", "luong", "--input-feeding"]
    config = train_command.real_config_from_args(
        build_parser().parse_args([*argv, "--hidden-dim", "32"]), 18065
    )
    assert config.model == replace(RealConfig().model, attention="luong", input_feeding=True, hidden_dim=32)
    argv = ["train", "--corpus", "tatoeba", "--model", "transformer", "--d-model", "32"]
    config = train_command.real_config_from_args(build_parser().parse_args(argv), 18065)
    assert config.model == replace(small_data_config().model, d_model=32)


def test_train_on_real_pairs_trains_the_transformer_and_says_which_bleu_it_prints(tiny_corpus, capsys):
    tiny = ["--d-model", "8", "--num-heads", "2", "--num-layers", "1", "--ff-dim", "16"]
    argv = ["train", "--corpus-file", str(tiny_corpus), "--model", "transformer", "--json", *tiny]
    assert main([*argv, "--steps", "1", "--threads", "1", "--device", "cpu"]) == 0
    captured = capsys.readouterr()
    summary, out = last_json(captured.out), captured.err
    assert summary["attention"] == "multi-head" and summary["config"]["model_kind"] == "transformer"
    assert 0 <= summary["bleu_single"] <= summary["bleu"] + 1e-9 <= 100
    assert "BLEU, 1 ref." in out and f"BLEU signature  {summary['bleu_signature']}" in out
