"""The package's command line: ``train`` trains chapter 6's model (or, with ``--corpus``, a model of real
sentences) and prints its metrics; ``evaluate`` and ``translate`` use a saved model (see
:mod:`attnbook.realcli`); ``bench`` measures the cost of attention (the appendix).

Examples::

    python -m attnbook train                          # Bahdanau attention, the chapter's configuration
    python -m attnbook train --attention none --json  # the no-attention baseline; last line is JSON
    python -m attnbook bench --quick --json           # the cost of attention (see attnbook.bench)
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import replace

from attnbook import bench, realcli
from attnbook.runtime import get_device
from attnbook.seq2seq import ATTENTION_KINDS
from attnbook.training import ExperimentConfig, TrainConfig, run_experiment, save_checkpoint


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {value}")
    return value


def build_parser() -> argparse.ArgumentParser:
    """The argument parser, one subcommand per task (``train``; more may be added beside it)."""
    parser = argparse.ArgumentParser(
        prog="python -m attnbook", description="The code behind 'Attention, executed'."
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    add_train_command(commands)
    add_bench_command(commands)
    realcli.add_evaluate_command(commands)
    realcli.add_translate_command(commands)
    return parser


def add_train_command(commands: argparse._SubParsersAction) -> None:
    """Register ``train``: chapter 6's experiment on the toy English-French grammar."""
    defaults, train_defaults = ExperimentConfig(), TrainConfig()
    train = commands.add_parser(
        "train",
        help="train chapter 6's seq2seq model on the toy grammar and print held-out metrics",
        description="Train chapter 6's seq2seq model on the toy English-French grammar, then print "
        "exact match, token accuracy, BLEU, alignment accuracy and exact match by source length "
        "on the held-out test split.",
    )
    train.add_argument(
        "--attention", choices=ATTENTION_KINDS, default="bahdanau", help="the decoder (default: %(default)s)"
    )
    train.add_argument(
        "--device", choices=("auto", "cpu", "cuda", "mps"), default="auto", help="default: %(default)s"
    )
    train.add_argument("--json", action="store_true", help="make the last line of output one JSON object")
    train.add_argument(
        "--seed", type=int, default=train_defaults.seed, help="the training seed (default: %(default)s)"
    )
    train.add_argument(
        "--epochs", type=_positive_int, default=train_defaults.max_epochs, help="default: %(default)s"
    )
    train.add_argument("--n-train", type=_positive_int, default=defaults.n_train, help="default: %(default)s")
    train.add_argument("--n-val", type=_positive_int, default=defaults.n_val, help="default: %(default)s")
    train.add_argument("--n-test", type=_positive_int, default=defaults.n_test, help="default: %(default)s")
    train.add_argument(
        "--hidden-dim", type=_positive_int, default=defaults.hidden_dim, help="default: %(default)s"
    )
    train.add_argument(
        "--threads", type=_positive_int, default=None, help="CPU threads for torch (default: torch's)"
    )
    train.add_argument(
        "--save", metavar="PATH", default=None, help="save a checkpoint of the trained model there"
    )
    train.add_argument("--progress", action="store_true", help="show a progress bar on stderr")
    realcli.add_corpus_options(train)
    train.set_defaults(handler=run_train)


def run_train(args: argparse.Namespace) -> int:
    """Train, evaluate, print the metrics (as text, and as JSON on the last line with ``--json``)."""
    import torch

    if realcli.wants_corpus(args):
        return realcli.run_train_corpus(args)

    if args.threads is not None:
        torch.set_num_threads(args.threads)
    device = args.device  # resolved by main()
    defaults = ExperimentConfig()
    config = replace(
        defaults,
        attention=args.attention,
        n_train=args.n_train,
        n_val=args.n_val,
        n_test=args.n_test,
        hidden_dim=args.hidden_dim,
        train=replace(defaults.train, seed=args.seed, max_epochs=args.epochs),
    )
    experiment = run_experiment(config, device=device, progress=args.progress)
    summary = experiment.summary()
    if args.save:
        save_checkpoint(args.save, experiment.model, experiment.src_vocab, experiment.tgt_vocab)
    print(
        f"attention {summary['attention']} on {summary['device']}: trained {summary['train_steps']} steps "
        f"in {summary['train_seconds']:.1f} s"
    )
    print(f"exact match     {summary['exact_match']:.3f}")
    print(f"token accuracy  {summary['token_accuracy']:.3f}")
    print(f"BLEU            {summary['bleu']:.1f}")
    for bucket, value in summary["exact_match_by_length"].items():
        print(f"exact match, source length {bucket:>6}: {value:.3f}")
    if summary["alignment_accuracy"] is not None:
        print(f"alignment accuracy {summary['alignment_accuracy']:.3f}")
        for category, value in summary["alignment_by_category"].items():
            print(f"  {category:<17} {value:.3f}")
    if args.json:
        print(json.dumps(summary))
    return 0


def add_bench_command(commands: argparse._SubParsersAction) -> None:
    """Register ``bench``: the cost of attention (see :mod:`attnbook.bench` and the appendix)."""
    parser = commands.add_parser(
        "bench",
        help="measure the time and memory of attention against sequence length",
        description="Time the package's scaled dot-product attention against PyTorch's fused "
        "scaled_dot_product_attention and a naive loop over a grid of lengths, and Bahdanau decoding with "
        "the keys projected once against every step. Medians of interleaved repeats.",
    )
    parser.add_argument("--quick", action="store_true", help="the small grid (under a minute on 2 CPU cores)")
    parser.add_argument(
        "--device", choices=("auto", "cpu", "cuda"), default="auto", help="default: %(default)s"
    )
    parser.add_argument("--json", action="store_true", help="make the last line of output one JSON object")
    parser.add_argument("--save", metavar="PATH", default=None, help="also write the result as JSON to PATH")
    parser.add_argument(
        "--threads", type=_positive_int, default=1, help="torch CPU threads (default: %(default)s)"
    )
    parser.add_argument("--progress", action="store_true", help="show a progress bar on stderr")
    parser.add_argument("--grid", choices=sorted(bench.GRIDS), default=None, help=argparse.SUPPRESS)
    parser.set_defaults(handler=run_bench_command)


def run_bench_command(args: argparse.Namespace) -> int:
    """Run the benchmark, print the table (and the JSON line with ``--json``); save with ``--save``."""
    device = args.device  # resolved by main()
    grid = bench.GRIDS[args.grid] if args.grid else bench.default_grid(args.quick, device)
    result = bench.run_benchmark(grid, device=device, threads=args.threads, progress=args.progress)
    print(bench.format_report(result))
    if args.save:
        print(f"saved to {bench.save_result(result, args.save)}")
    if args.json:
        print(json.dumps(result))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv`` (default: the process's arguments) and run the chosen command."""
    args = build_parser().parse_args(argv)
    try:  # every command takes --device; resolve it once, so a missing GPU is one clear error
        args.device = get_device(args.device)
    except RuntimeError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return args.handler(args)


if __name__ == "__main__":
    sys.exit(main())
