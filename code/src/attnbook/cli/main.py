r"""The package's command line: ``train`` trains chapter 6's model (or,
with ``--corpus``, a model of real sentences) and prints its metrics;
``evaluate`` and ``translate`` use a saved model (see
:mod:`attnbook.cli.realcli`); ``bottleneck`` trains chapter 6's models
until they stop, over several seeds (see
:mod:`attnbook.studies.bottleneck`); ``subwords`` compares words and
subword pieces on real sentences (see :mod:`attnbook.studies.pieces`);
``bench`` measures the cost of attention (the appendix).

Examples::

    # Bahdanau attention, the chapter's configuration
    python -m attnbook train
    # the no-attention baseline; the last line printed is JSON
    python -m attnbook train --attention none --json
    python -m attnbook train --lr 1e-3 --batch-size 64 \
        --attention luong --luong-score concat
    python -m attnbook train --attention luong --luong-score general \
        --input-feeding --local-p
    # chapter 8's Transformer
    python -m attnbook train --model transformer --save tf.pt
    # attention against one baseline, until they stop
    python -m attnbook bottleneck --seeds 0 --sizes 128
    # the cost of attention (see attnbook.benchmark.bench)
    python -m attnbook bench --quick --json
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from attnbook.benchmark import bench
from attnbook.benchmark.bench_grids import GRIDS, default_grid
from attnbook.benchmark.bench_report import format_report
from attnbook.cli import realcli
from attnbook.cli.flags import (
    SubCommands,
    add_config_arguments,
    add_run_options,
    config_from_given,
    positive_int,
)
from attnbook.core.records import save_result
from attnbook.core.runtime import get_device
from attnbook.studies import bottleneck
from attnbook.studies.experiment import (
    ExperimentConfig,
    attention_name,
    run_experiment,
)
from attnbook.studies.realdata import RealConfig


def build_parser() -> argparse.ArgumentParser:
    """The argument parser, one subcommand per task (``train``, ``bench``;
    more may be added beside them)."""
    parser = argparse.ArgumentParser(
        prog="python -m attnbook",
        description="The code behind 'Attention, executed'.",
    )
    commands = parser.add_subparsers(
        dest="command", required=True, metavar="COMMAND"
    )
    add_train_command(commands)
    add_bottleneck_command(commands)
    add_bench_command(commands)
    realcli.add_evaluate_command(commands)
    realcli.add_translate_command(commands)
    realcli.add_compare_command(commands)
    realcli.add_subwords_command(commands)
    return parser


def add_train_command(commands: SubCommands) -> None:
    """Register ``train``: chapter 6's experiment;
    one flag per field of :class:`ExperimentConfig`."""
    train = commands.add_parser(
        "train",
        help="train chapter 6's seq2seq model (or chapter 8's "
        "Transformer) and print held-out metrics",
        description="Train chapter 6's seq2seq model (--model "
        "transformer: chapter 8's Transformer) on the "
        "toy English-French grammar (--corpus: on real pairs), then print "
        "exact match, token accuracy, BLEU, chrF, alignment accuracy and "
        "exact match by source length "
        "on the held-out test split.",
    )
    # one flag per field of either run
    add_config_arguments(train, ExperimentConfig, RealConfig)
    add_run_options(train)
    train.add_argument(
        "--save",
        metavar="PATH",
        default=None,
        help="save a checkpoint of the trained model there",
    )
    realcli.add_corpus_options(train)
    train.set_defaults(handler=run_train)


def run_train(args: argparse.Namespace) -> int:
    """Train, evaluate, print the metrics (as text, and as JSON on the last
    line with ``--json``)."""
    import torch

    if realcli.wants_corpus(args):
        return realcli.run_train_corpus(args)

    try:
        config = config_from_given(
            ExperimentConfig,
            args,
            what="a run on the toy grammar (without --corpus)",
        )
        realcli.refuse_unused_model_flags(config, args)
    except ValueError as error:  # an impossible combination of flags
        print(f"error: {error}", file=sys.stderr)
        return 2
    if args.threads is not None:
        torch.set_num_threads(args.threads)
    experiment = run_experiment(
        config, device=args.device, progress=args.progress
    )  # device: see main()
    if args.save:
        experiment.translator.save(args.save)
    training, evaluation = experiment.training, experiment.evaluation
    print(
        f"attention {attention_name(config)} on {experiment.device}: "
        f"trained {training.steps} steps "
        f"in {training.seconds:.1f} s"
    )
    if evaluation is not None:
        metrics = evaluation.metrics
        print(f"exact match     {metrics.exact_match:.3f}")
        print(f"token accuracy  {metrics.token_accuracy:.3f}")
        print(f"BLEU            {metrics.bleu:.1f}")
        print(f"chrF            {metrics.chrf:.1f}")
        for bucket, value in metrics.exact_match_by_length.items():
            print(f"exact match, source length {bucket:>6}: {value:.3f}")
        if evaluation.alignment is not None:
            print(
                f"alignment accuracy {evaluation.alignment.accuracy:.3f}"
            )
            for (
                category,
                value,
            ) in evaluation.alignment.by_category.items():
                print(f"  {category:<17} {value:.3f}")
        if evaluation.scores is not None:
            print(
                f"AER of the argmax  {evaluation.scores.aer:.3f} (sure "
                "and possible links)"
            )
            print(
                "attention mass on the true links "
                f"{evaluation.scores.mass:.3f}"
            )
            print(
                f"mean attention entropy {evaluation.mean_entropy:.3f} "
                "nats"
            )
    if args.json:
        print(json.dumps(experiment.to_dict()))
    return 0


def add_bottleneck_command(commands: SubCommands) -> None:
    """Register ``bottleneck``: chapter 6's study of the bottleneck (see
    :mod:`attnbook.studies.bottleneck`)."""
    parser = commands.add_parser(
        "bottleneck",
        help="train the attention model and the no-attention baselines "
        "until early stopping ends them",
        description="Train chapter 6's attention model and its "
        "no-attention baseline at several sizes and "
        "with the source reversed, each until early stopping ends it "
        "(halving the learning rate twice "
        "first), once per seed; print a table of their held-out scores. "
        "The default study takes about "
        "half an hour on 2 CPU cores.",
    )
    parser.add_argument(
        "--seeds",
        type=int,
        nargs="+",
        default=[0, 1, 2],
        help="default: %(default)s",
    )
    parser.add_argument(
        "--sizes",
        type=positive_int,
        nargs="+",
        default=[64, 128, 256],
        help="the baselines' hidden sizes",
    )
    parser.add_argument(
        "--reversed-sizes",
        type=positive_int,
        nargs="*",
        default=[128],
        help="the hidden sizes of the baselines that read the source "
        "backwards (default: %(default)s)",
    )
    # one CPU thread per model, set by the study
    add_run_options(parser, device="cpu", threads=False)
    parser.add_argument(
        "--workers",
        type=positive_int,
        default=2,
        help="models trained at once (default: %(default)s)",
    )
    parser.add_argument(
        "--save",
        metavar="PATH",
        default=None,
        help="also write the result as JSON to PATH",
    )
    parser.set_defaults(handler=run_bottleneck_command)


def run_bottleneck_command(args: argparse.Namespace) -> int:
    """Run the study (one CPU thread per model), print its table;
    save with ``--save``."""
    import torch

    if args.device.type == "cpu":
        torch.set_num_threads(1)
    models = bottleneck.study_models(args.sizes, args.reversed_sizes)
    study = bottleneck.run_study(
        models=models,
        seeds=args.seeds,
        device=args.device,
        workers=args.workers,
        progress=args.progress,
    )
    print(bottleneck.format_study(study))
    if args.save:
        print(f"saved to {bottleneck.save_study(study, args.save)}")
    if args.json:
        print(json.dumps(study.to_dict()))
    return 0


def add_bench_command(commands: SubCommands) -> None:
    """Register ``bench``: the cost of attention (see
    :mod:`attnbook.benchmark.bench` and the appendix)."""
    parser = commands.add_parser(
        "bench",
        help="measure the time and memory of attention against sequence "
        "length",
        description="Time the package's scaled dot-product attention "
        "against PyTorch's fused "
        "scaled_dot_product_attention and a naive loop over a grid of "
        "lengths, and Bahdanau decoding with "
        "the keys projected once against every step. Medians of "
        "interleaved repeats.",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="the small grid (under a minute on 2 CPU cores)",
    )
    add_run_options(parser, threads_default=1)
    parser.add_argument(
        "--save",
        metavar="PATH",
        default=None,
        help="also write the result as JSON to PATH",
    )
    parser.add_argument(
        "--grid",
        choices=sorted(GRIDS),
        default=None,
        help=argparse.SUPPRESS,
    )
    parser.set_defaults(handler=run_bench_command)


def run_bench_command(args: argparse.Namespace) -> int:
    """Run the benchmark, print the table (and the JSON line with
    ``--json``); save with ``--save``."""
    device = args.device  # resolved by main()
    grid = (
        GRIDS[args.grid] if args.grid else default_grid(args.quick, device)
    )
    result = bench.run_benchmark(
        grid, device=device, threads=args.threads, progress=args.progress
    )
    print(format_report(result))
    if args.save:
        print(f"saved to {save_result(result, args.save)}")
    if args.json:
        print(json.dumps(result.to_dict()))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv`` (default: the process's arguments) and run the
    chosen command."""
    argv = list(sys.argv[1:] if argv is None else argv)
    args = build_parser().parse_args(argv)
    args.argv = argv  # what a record says made it
    # every command takes --device; resolve it once, so a missing GPU is
    # one clear error
    try:
        args.device = get_device(args.device)
    except RuntimeError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return args.handler(args)


if __name__ == "__main__":
    sys.exit(main())
