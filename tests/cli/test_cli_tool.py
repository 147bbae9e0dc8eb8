"""The command line behaves like a tool, tried as a user types it: output paths checked before any work,
a directory given as a file called a directory, progress on stderr, help and errors that name flags and not
the package's code, defaults shown for each corpus, one CPU thread unless --threads says otherwise,
``--version``, and an ``attnbook`` command beside ``python -m attnbook``."""

import importlib.metadata
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import torch

import attnbook
from attnbook.benchmark import bench as bench_module
from attnbook.cli import main
from attnbook.cli import train as train_command
from attnbook.cli import translate as translate_command
from attnbook.cli.main import build_parser
from attnbook.nmt.corpus import shipped_path
from attnbook.studies import bottleneck, realcompare
from attnbook.studies.experiment import ExperimentConfig
from attnbook.studies.realdata import real_defaults

ATTNBOOK = Path(sys.executable).parent / "attnbook"  # the console command the package installs
TINY = ["--n-train", "120", "--n-val", "20", "--n-test", "30", "--epochs", "1", "--hidden-dim", "8"]
COMMANDS = ["train", "evaluate", "translate", "bottleneck", "subwords", "bench", "compare-real"]


@pytest.fixture(autouse=True)
def _restore_threads():
    threads = torch.get_num_threads()
    yield
    torch.set_num_threads(threads)


@pytest.fixture
def no_work(monkeypatch):
    """Every command's work replaced by a failure: a refusal must come before it."""

    def started(*args, **kwargs):
        pytest.fail("the work started before the bad path was refused")

    for module, name in [
        (train_command, "run_experiment"),
        (train_command, "run_real_experiment"),
        (translate_command, "read_model"),
        (bottleneck, "run_study"),
        (bench_module, "run_benchmark"),
        (realcompare, "run_comparison"),
    ]:
        monkeypatch.setattr(module, name, started)
    monkeypatch.setattr("attnbook.cli.subwords.compare_units", started)


@pytest.fixture(scope="module")
def tiny_corpus() -> Path:
    """A corpus file: the shipped pairs (read only where a test gets past its refusal)."""
    return shipped_path()


def unwritable(tmp_path: Path) -> Path:
    folder = tmp_path / "read-only"
    folder.mkdir()
    folder.chmod(0o500)
    if os.access(folder, os.W_OK):  # root writes anywhere it has a writable disk; /sys refuses even root
        return Path("/sys/attnbook-model.pt")
    return folder / "model.pt"


def clean_error(captured) -> str:
    assert "Traceback" not in captured.err
    (line,) = [line for line in captured.err.splitlines() if line.startswith("error:")]
    return line


OUTPUTS = [
    (["train", "--save", "{dir}"], "--save {dir}: is a directory"),
    (["train", "--save", "{dir}/missing/model.pt"], "no directory {dir}/missing"),
    (["train", "--save", "{unwritable}"], "cannot write there"),
    (["train", "--corpus-file", "{corpus}", "--record", "{dir}"], "--record {dir}: is a directory"),
    (["train", "--corpus", "tatoeba", "--save", "{dir}/missing/m.pt"], "no directory"),
    (["translate", "Go.", "--plot", "{dir}/missing/heat.png"], "--plot {dir}/missing/heat.png: no directory"),
    (["translate", "Go.", "--plot", "{dir}/heat.xyz"], "ending in one of"),
    (["translate", "Go.", "--plot", "{dir}"], "ending in one of"),
    (["bench", "--save", "{dir}"], "is a directory"),
    (["bottleneck", "--save", "{dir}"], "is a directory"),
    (["subwords", "--save", "{dir}/missing/s.json"], "no directory"),
    (["compare-real", "--save", "{dir}"], "is a directory"),
]


@pytest.mark.parametrize(
    ("argv", "fragment"), OUTPUTS, ids=lambda x: " ".join(x) if isinstance(x, list) else ""
)
def test_every_output_path_is_checked_before_the_work_starts(
    argv, fragment, tmp_path, tiny_corpus, no_work, capsys
):
    names = {"dir": str(tmp_path), "corpus": str(tiny_corpus), "unwritable": str(unwritable(tmp_path))}
    argv = [part.format(**names) for part in argv]
    assert main([*argv, "--device", "cpu"]) == 2
    assert fragment.format(**names) in clean_error(capsys.readouterr())


def test_a_directory_given_to_save_ends_the_process_at_once_with_status_2(tmp_path):
    done = subprocess.run(
        [str(ATTNBOOK), "train", "--save", str(tmp_path)], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == f"error: --save {tmp_path}: is a directory; give the name of a file to write\n"


@pytest.mark.parametrize(
    ("argv", "flag"),
    [
        (["train", "--corpus-file", "{dir}"], "--corpus-file"),
        (["evaluate", "--corpus-file", "{dir}"], "--corpus-file"),
        (["evaluate", "--corpus-file", "{corpus}", "--checkpoint", "{dir}"], "--checkpoint"),
        (["translate", "--checkpoint", "{dir}", "Go."], "--checkpoint"),
        (["translate", "--input", "{dir}"], "--input"),
        (["subwords", "--merge", "{dir}"], "--merge"),
    ],
    ids=lambda x: " ".join(x[:2]) if isinstance(x, list) else x,
)
def test_a_directory_given_as_a_file_is_called_a_directory(argv, flag, tmp_path, tiny_corpus, capsys):
    argv = [part.format(dir=tmp_path, corpus=tiny_corpus) for part in argv]
    assert main([*argv, "--device", "cpu"]) == 2
    assert f"{flag} {tmp_path}: is a directory, not a file" in clean_error(capsys.readouterr())


def test_train_shows_its_progress_on_stderr_and_no_progress_silences_it(capsys):
    assert main(["train", "--attention", "none", "--device", "cpu", *TINY]) == 0
    captured = capsys.readouterr()
    assert re.search(r"training: 100%\|.*\| 1/1 ", captured.err) and "training" not in captured.out
    assert main(["train", "--attention", "none", "--device", "cpu", "--no-progress", *TINY]) == 0
    assert "training:" not in capsys.readouterr().err


def all_help() -> str:
    parser = build_parser()
    (commands,) = [a for a in parser._actions if a.dest == "command"]  # argparse's own subparsers action
    assert set(commands.choices) == set(COMMANDS)
    return parser.format_help() + "".join(p.format_help() for p in commands.choices.values())


# what a user never types: Python identifiers, class names, Python literals, a function's keyword
LEAKS = r"\b[a-z]+_[a-z0-9_]+\b|\b[A-Z][a-z]+[A-Z]\w*\b|\bNone\b|\bTrue\b|\bFalse\b|\w+=\S"
ALLOWED = {"scaled_dot_product_attention", "PyTorch"}  # PyTorch's public function, named as PyTorch names it


def leaks(text: str) -> set[str]:
    return {m.group(0) for m in re.finditer(LEAKS, text)} - ALLOWED


def test_the_help_names_flags_and_never_the_packages_code():
    text = all_help()
    assert not leaks(text), leaks(text)
    assert "positive_int" not in text and "ExperimentConfig" not in text


BAD = [
    ["train", "--threads", "0"],
    ["train", "--threads", "two"],
    ["train", "--epochs", "x"],
    ["train", "--lr", "fast"],
    ["train", "--clip-norm", "-"],
    ["train", "--attention", "luong", "--luong-score", "dot", *TINY],
    ["train", "--attention", "bahdanau", "--input-feeding", *TINY],
    ["train", "--attention", "bahdanau", "--local-p", *TINY],
    ["train", "--model", "transformer", "--d-model", "30", *TINY],
    ["train", "--steps", "3"],
    ["train", "--record", "r.json"],
    ["train", "--min-count", "3"],
    ["translate", "--beam", "0", "Go."],
]


@pytest.mark.parametrize("argv", BAD, ids=lambda argv: " ".join(argv[:4]))
def test_errors_name_flags_and_never_the_packages_code(argv, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)  # a relative output path is tried there
    try:
        status = main([*argv, "--device", "cpu"])
    except SystemExit as exit:  # the parser's refusal
        status = exit.code
    assert status == 2
    err = capsys.readouterr().err
    message = next(line for line in err.splitlines() if "error:" in line)
    assert "Traceback" not in err and not leaks(message), message


def test_too_few_english_sentences_is_said_without_the_packages_code(tmp_path, capsys):
    path = tmp_path / "two.txt"
    path.write_text("Go.\tVa !\nRun!\tCours !\n", encoding="utf-8")
    assert main(["train", "--corpus-file", str(path), "--device", "cpu"]) == 2
    message = clean_error(capsys.readouterr())
    assert "too few" in message and not leaks(message), message


def test_a_missing_gpu_is_said_with_the_flag(monkeypatch, capsys):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert main(["train", "--device", "cuda"]) == 2
    message = clean_error(capsys.readouterr())
    assert message.startswith("error: --device cuda: this machine has no CUDA device") and not leaks(message)


def test_the_help_shows_each_runs_default_where_they_differ():
    grammar, real, gru = ExperimentConfig(), real_defaults(), real_defaults("seq2seq")
    assert grammar.train.max_epochs != real.train.max_epochs  # else there is nothing to show
    text = " ".join(all_help().split())
    epochs = (
        f"(default: {grammar.train.max_epochs} on the toy grammar, {real.train.max_epochs} with --corpus, "
        f"{gru.train.max_epochs} with --corpus --model seq2seq)"
    )
    assert f"--epochs N passes over the training pairs at most {epochs}" in text
    assert f"(default: {real.beam_size}; with --corpus only)" in text  # --beam
    assert f"(default: {grammar.data.n_train}; on the toy grammar only)" in text  # --n-train
    assert "(default: grammar)" in text  # --corpus


@pytest.mark.parametrize(
    ("argv", "expected"),
    [([], 1), (["--threads", "2"], 2)],
    ids=["default", "--threads 2"],
)
@pytest.mark.parametrize("command", ["train", "translate"])
def test_a_command_runs_on_one_cpu_thread_unless_told_and_restores_the_count(
    command, argv, expected, monkeypatch, capsys
):
    seen = []

    def stop(*args, **kwargs):
        seen.append(torch.get_num_threads())
        raise ValueError("stopped here")

    monkeypatch.setattr(train_command, "run_experiment", stop)
    monkeypatch.setattr(translate_command, "read_model", stop)
    torch.set_num_threads(3)
    line = ["train", *TINY] if command == "train" else ["translate", "Go."]
    assert main([*line, "--device", "cpu", *argv]) == 2
    assert seen == [expected] and torch.get_num_threads() == 3


def test_version_comes_from_the_package_metadata(capsys):
    with pytest.raises(SystemExit) as exit:
        main(["--version"])
    assert exit.value.code == 0
    assert capsys.readouterr().out == f"attnbook {importlib.metadata.version('attnbook')}\n"
    assert importlib.metadata.version("attnbook") == attnbook.__version__


def test_the_attnbook_command_is_installed_beside_python_m_attnbook():
    for program in ([str(ATTNBOOK)], [sys.executable, "-m", "attnbook"]):
        done = subprocess.run([*program, "--version"], capture_output=True, text=True, timeout=300)
        assert (done.returncode, done.stdout) == (0, f"attnbook {attnbook.__version__}\n")
