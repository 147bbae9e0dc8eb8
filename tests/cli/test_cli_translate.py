"""``attnbook translate`` over many sentences: a file or standard input, one sentence a line, one model load,
one translation (or one JSON object) a line; and the errors a file can cause, each one clear line."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from attnbook.cli import main
from attnbook.cli import translate as translate_command
from attnbook.cli.inputs import read_model
from attnbook.nmt import shipped_export
from attnbook.nmt.corpus import shipped_path, tokenize_english
from attnbook.nmt.export import SHIPPED_TRANSFORMER
from attnbook.studies import shipped_longest_source

pytestmark = pytest.mark.usefixtures("one_thread")

ATTNBOOK = Path(sys.executable).parent / "attnbook"  # the console command the package installs


@pytest.fixture(scope="module")
def thousand(tmp_path_factory) -> Path:
    """1,000 distinct English sentences of the shipped pairs, one a line."""
    english = dict.fromkeys(
        line.split("\t")[0] for line in shipped_path().read_text(encoding="utf-8").splitlines()
    )
    lines = list(english)[::5][:1000]
    assert len(lines) == 1000
    path = tmp_path_factory.mktemp("input") / "english.txt"
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def shipped():
    return read_model(None, "cpu")


def count_loads(monkeypatch) -> list[int]:
    loads = []

    def counted(*args, **kwargs):
        loads.append(1)
        return read_model(*args, **kwargs)

    monkeypatch.setattr(translate_command, "read_model", counted)
    return loads


def clean_error(captured) -> str:
    assert "Traceback" not in captured.err
    (line,) = [line for line in captured.err.splitlines() if line.startswith("error:")]
    return line


def test_a_thousand_line_file_takes_one_model_load_and_gives_a_thousand_json_objects(
    thousand, shipped, monkeypatch, capsys
):
    loads = count_loads(monkeypatch)
    # greedy search keeps the thousand lines quick; the default beam is tested below
    assert main(["translate", "--input", str(thousand), "--json", "--device", "cpu", "--beam", "1"]) == 0
    captured = capsys.readouterr()
    records = [json.loads(line) for line in captured.out.splitlines()]  # JSON Lines: every line one object
    english = thousand.read_text(encoding="utf-8").splitlines()
    assert len(loads) == 1 and len(records) == 1000
    assert [r["source"] for r in records] == [tokenize_english(line) for line in english]
    assert "translating" in captured.err and "1000/1000" in captured.err  # progress, on stderr only
    # translated together, each line reads as the same sentence translated on its own
    for number in range(0, 1000, 50):
        alone = translate_command.translate_tokens(shipped, tokenize_english(english[number]), beam=1)
        assert records[number]["translation"] == alone["translation"] and records[number]["translation"]
        assert records[number]["tokens"] == alone["tokens"]
        torch.testing.assert_close(
            torch.tensor(records[number]["attention"]), torch.tensor(alone["attention"]), rtol=0, atol=2e-4
        )


def test_plain_output_is_one_translation_a_line_an_empty_line_for_an_empty_one(tmp_path, shipped, capsys):
    path = tmp_path / "three.txt"
    path.write_text("I am cold.\n\nGo.\n", encoding="utf-8")
    assert main(["translate", "--input", str(path), "--device", "cpu", "--beam", "2"]) == 0
    captured = capsys.readouterr()
    lines = captured.out.split("\n")
    assert lines[3:] == [""] and lines[1] == ""  # three lines, the second empty
    for line, english in ((lines[0], "I am cold."), (lines[2], "Go.")):
        assert (
            line
            == translate_command.translate_tokens(shipped, tokenize_english(english), beam=2)["translation"]
        )
    assert "translating" not in captured.err  # three lines: no progress bar


def test_translate_decodes_with_the_beam_its_scores_use_unless_told(capsys):
    """The shipped model's held-out scores are measured at its record's beam: a reader's ``translate`` decodes
    with that beam by default, and ``--beam 1`` gives greedy search."""
    assert translate_command.DEFAULT_BEAM == shipped_export().info["beam_size"] == 4
    assert shipped_export(SHIPPED_TRANSFORMER).info["beam_size"] == 4
    # the GRU (chapter 8's box), where the two searches part on this sentence
    gru = ["translate", "--model", "seq2seq", "--device", "cpu", "--json"]
    assert main([*gru, "I am cold."]) == 0
    default = json.loads(capsys.readouterr().out)
    assert main([*gru, "--beam", "4", "I am cold."]) == 0
    assert json.loads(capsys.readouterr().out)["tokens"] == default["tokens"]
    assert main([*gru, "--beam", "1", "I am cold."]) == 0
    greedy = json.loads(capsys.readouterr().out)
    # greedy search says the wrong thing
    assert (default["translation"], greedy["translation"]) == ("j'ai froid.", "je suis froid.")


def test_a_sentence_longer_than_any_the_model_was_trained_on_gets_a_note(tmp_path, capsys):
    longest = shipped_longest_source()
    long_sentence = " ".join(["Tom"] * longest) + "."  # longest + 1 tokens
    assert main(["translate", "--device", "cpu", long_sentence]) == 0
    out = capsys.readouterr().out
    assert f"the longest English sentence the model was trained on has {longest}" in out
    # the shipped Transformer's file carries the casing of its training French
    assert "reads and writes lower-cased words; capitals are put back" in out
    assert main(["translate", "--device", "cpu", "Go."]) == 0
    assert "trained on has" not in capsys.readouterr().out
    path = tmp_path / "lines.txt"
    path.write_text(f"Go.\n{long_sentence}\n", encoding="utf-8")
    assert main(["translate", "--device", "cpu", "--input", str(path)]) == 0
    captured = capsys.readouterr()
    assert len(captured.out.splitlines()) == 2  # the notes go to standard error
    assert f"1 of 2 lines have more tokens than the {longest}" in captured.err


def test_words_given_unquoted_are_translated_as_one_sentence_with_a_note(capsys):
    assert main(["translate", "--device", "cpu", "I am cold."]) == 0
    quoted = capsys.readouterr()
    assert main(["translate", "--device", "cpu", "I", "am", "cold."]) == 0
    unquoted = capsys.readouterr()
    assert unquoted.out == quoted.out and "note:" not in quoted.err
    assert 'note: 3 arguments read as one sentence, "I am cold."' in unquoted.err and "quote" in unquoted.err


def test_standard_input_and_an_early_closed_pipe_as_a_user_types_them(thousand, tmp_path):
    # "-" reads standard input
    done = subprocess.run(
        [str(ATTNBOOK), "translate", "--input", "-", "--json"],
        input="I am cold.\nGo.\n",
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert [json.loads(line)["source"][0] for line in done.stdout.splitlines()] == ["i", "go"]
    # `| head -1`: the reader goes away after one line, and the command ends quietly
    done = subprocess.run(
        ["bash", "-c", f'set -o pipefail; "{ATTNBOOK}" translate --input "{thousand}" | head -1'],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert len(done.stdout.splitlines()) == 1
    assert "Traceback" not in done.stderr and "BrokenPipeError" not in done.stderr
    assert done.returncode == 141  # 128 + SIGPIPE, as a program ended by the signal reports


def test_help_shows_reading_a_file(capsys):
    with pytest.raises(SystemExit):
        main(["translate", "--help"])
    out = capsys.readouterr().out
    assert "--input FILE" in out and "standard input" in out


def not_utf8(tmp_path: Path) -> Path:
    path = tmp_path / "latin1.txt"
    path.write_bytes("Go.\nCafé.\n".encode("latin-1"))
    return path


@pytest.mark.parametrize(
    ("make", "fragment"),
    [
        (lambda tmp: tmp / "missing.txt", "no such file"),
        (lambda tmp: tmp, "is a directory"),
        (not_utf8, "not UTF-8 text (byte offset 7)"),
    ],
    ids=["missing", "directory", "not-utf8"],
)
def test_a_bad_input_file_is_one_clear_error_before_the_model_loads(
    make, fragment, tmp_path, monkeypatch, capsys
):
    loads = count_loads(monkeypatch)
    path = make(tmp_path)
    assert main(["translate", "--input", str(path), "--device", "cpu"]) == 2
    line = clean_error(capsys.readouterr())
    assert fragment in line and str(path) in line and not loads


def test_an_unreadable_input_file_is_one_clear_error(tmp_path, monkeypatch, capsys):
    path = tmp_path / "locked.txt"
    path.write_text("Go.\n", encoding="utf-8")
    path.chmod(0)
    if os.access(path, os.R_OK):  # root reads any file: make the read fail as it fails for anyone else
        read_text = Path.read_text

        def refuse(self, *args, **kwargs):  # this file only: the package's metadata is read as text too
            if self == path:
                raise PermissionError(13, "Permission denied", str(self))
            return read_text(self, *args, **kwargs)

        monkeypatch.setattr(Path, "read_text", refuse)
    assert main(["translate", "--input", str(path), "--device", "cpu"]) == 2
    line = clean_error(capsys.readouterr())
    assert f"{path}: cannot read it (Permission denied)" in line


@pytest.mark.parametrize(
    ("extra", "fragment"),
    [
        (["Go."], "either a sentence or --input"),
        (["--plot", "heat.png"], "--plot draws one sentence"),
    ],
)
def test_input_refuses_what_only_one_sentence_can_do(extra, fragment, tmp_path, capsys):
    path = tmp_path / "one.txt"
    path.write_text("Go.\n", encoding="utf-8")
    assert main(["translate", "--input", str(path), "--device", "cpu", *extra]) == 2
    assert fragment in clean_error(capsys.readouterr())


def test_a_line_too_long_is_named_before_anything_is_printed(tmp_path, capsys):
    path = tmp_path / "long.txt"
    path.write_text("Go.\n" + " ".join(["word"] * 80) + ".\n", encoding="utf-8")
    assert main(["translate", "--input", str(path), "--device", "cpu"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "line 2, has 81 tokens" in clean_error(captured)


def test_no_sentence_and_no_file_says_how_to_give_one(capsys):
    assert main(["translate", "--device", "cpu"]) == 2
    line = clean_error(capsys.readouterr())
    assert '"I am hungry."' in line and "--input FILE" in line


def test_model_transformer_translates_with_the_shipped_transformer_and_no_checkpoint(capsys):
    """``--model transformer`` without a checkpoint is chapter 9's box's model: the shipped int8
    Transformer, at the beam of its record's scores, with the attention table of its search."""
    from attnbook.nmt.export import SHIPPED_TRANSFORMER
    from attnbook.nmt.transformer import Transformer

    exported = shipped_export(SHIPPED_TRANSFORMER)
    assert exported.kind == "transformer" and exported.info["beam_size"] == translate_command.DEFAULT_BEAM
    translator = exported.to_translator()
    assert isinstance(translator.model, Transformer)
    for sentence in ("I am hungry.", "Tom is reading a book."):
        assert main(["translate", "--device", "cpu", "--model", "transformer", "--json", sentence]) == 0
        record = json.loads(capsys.readouterr().out)
        assert record["translation"] == translator.translate(sentence, beam_size=4)
        assert record["tokens"] != [] and "<unk>" not in record["tokens"]
        # the model writes lower case; the text has its capitals back
        assert record["translation"][0].isupper() and record["tokens"][0][0].islower()
    assert record["translation"].startswith("Tom ")
    assert main(["translate", "--device", "cpu", "--model", "seq2seq", "I am cold."]) == 0
    assert capsys.readouterr().out.splitlines()[0] == shipped_export().to_translator().translate(
        "I am cold.", beam_size=4
    )


def test_model_must_match_the_checkpoints_kind(tiny_translator, tmp_path, capsys):
    path = tiny_translator().save(tmp_path / "gru.pt")
    assert main(["translate", "--checkpoint", str(path), "--model", "transformer", "the cat"]) == 2
    assert "holds a seq2seq model, not a transformer one" in clean_error(capsys.readouterr())
