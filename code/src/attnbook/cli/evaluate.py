"""``attnbook evaluate``: score a saved model on a corpus file, every
French translation of a sentence a reference.

Example::

    attnbook evaluate --checkpoint model.pt --corpus-file held-out.txt \
        --json
"""

from __future__ import annotations

import argparse

from attnbook.cli.common import (
    InputError,
    case,
    check_input_file,
    fail,
    print_json,
    text_out,
)
from attnbook.cli.inputs import read_corpus, read_model
from attnbook.cli.options import SubCommands
from attnbook.cli.translate import add_model_options
from attnbook.nmt.heldout import evaluate_real


def add_evaluate_command(commands: SubCommands) -> None:
    """Register ``evaluate``: score a saved model on a corpus file,
    every translation a reference."""
    parser = commands.add_parser(
        "evaluate",
        help="score a saved model on a corpus file (BLEU, chrF, exact "
        "match)",
        description="Translate every distinct English sentence of the "
        "file once and score it against all "
        "its French translations in the file (sacrebleu BLEU and chrF on "
        "detokenised lower-cased text, "
        "13a tokenisation; BLEU with every translation a reference, and "
        "with the first only; the BLEU "
        "signature). Use sentences the model was not trained on.",
    )
    parser.add_argument(
        "--corpus-file",
        required=True,
        metavar="PATH",
        help="English<TAB>French lines",
    )
    add_model_options(parser, progress=False)
    parser.set_defaults(handler=run_evaluate)


def run_evaluate(args: argparse.Namespace) -> int:
    """Load the checkpoint and the file, translate, score, print
    (``--json``: the scores as JSON on standard output)."""
    try:
        # the file's path checked before the model loads, its text after,
        # since a model over pieces reads it cased
        check_input_file(args.corpus_file, "--corpus-file")
        translator = read_model(args.checkpoint, args.device, args.model)
        corpus = read_corpus(
            args.corpus_file,
            cased=translator.tokenizer.cased,
            flag="--corpus-file",
        )
        max_src_len = translator.model.config.max_src_len
        pairs = [
            p
            for p in corpus.pairs
            if len(translator.tokenizer.source(p.source)) <= max_src_len
        ]
        if not pairs:
            raise InputError(
                f"{args.corpus_file}: every English sentence is longer "
                "than the "
                f"{max_src_len} tokens this model accepts"
            )
        evaluation = evaluate_real(
            translator,
            pairs,
            beam_size=args.beam,
            coverage_penalty=args.coverage_penalty,
        )
    except InputError as error:
        return fail(error)
    summary = {
        **evaluation.to_dict(),
        "n_pairs": len(pairs),
        "n_too_long": len(corpus.pairs) - len(pairs),
        "beam": args.beam,
        "coverage_penalty": args.coverage_penalty,
    }
    out = text_out(args)
    print(
        f"{summary['n_sentences']} English sentences ({len(pairs)} pairs; "
        f"{summary['n_too_long']} longer than "
        f"the model accepts left out); {summary['n_unknown']} source "
        "words unknown to the model",
        file=out,
    )
    print(
        f"BLEU {summary['bleu']:.1f} (every translation a reference), "
        f"{summary['bleu_single']:.1f} (the first "
        f"only)  chrF {summary['chrf']:.1f}  exact match "
        f"{summary['exact_match']:.3f}",
        file=out,
    )
    print(
        f"BLEU signature {summary['bleu_signature']} ({case(summary)})",
        file=out,
    )
    print(
        "with <unk> replaced through attention: BLEU "
        f"{summary['bleu_unk_replaced']:.1f}",
        file=out,
    )
    print(
        f"translations that repeat a word by mistake: "
        f"{summary['n_repeating']} of {summary['n_sentences']}",
        file=out,
    )
    if args.json:
        print_json(summary)
    return 0
