r"""``attnbook translate``: English sentences into French with a saved
model (by default the one the book ships), one sentence with its attention,
or a file of them, one a line.

Examples::

    # the Transformer the book ships, as in chapter 9's page
    attnbook translate "I am hungry."
    # the GRU encoder-decoder the book ships, as in chapter 8's page
    attnbook translate --model seq2seq "I am hungry."
    attnbook translate --checkpoint model.pt --beam 1 "I am hungry." \
        --plot heat.png
    # a file, one sentence a line; "-" reads standard input
    attnbook translate --input sentences.txt > french.txt
    echo "Go." | attnbook translate --input - --json

With ``--input``, the model is loaded once and each line's translation is
printed on its own line (``--json``: one JSON object a line, JSON Lines),
an empty line for an empty one.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import torch

from attnbook.cli.common import (
    InputError,
    check_input_file,
    check_output_path,
    fail,
    print_json,
    text_out,
)
from attnbook.cli.inputs import SHIPPED_MODELS, read_model
from attnbook.cli.options import (
    SubCommands,
    add_run_options,
    non_negative_float,
    positive_int,
)
from attnbook.core.progress import tqdm
from attnbook.nmt.data import UNK, SentencePair
from attnbook.nmt.text import (
    UNKNOWN_CHOICES,
    UNKNOWN_DEFAULT,
    casing_note,
    check_unknown,
    replace_unknown,
)
from attnbook.nmt.translator import Translator

STDIN = "-"
"""The ``--input`` that reads standard input."""

LONG_INPUT = 50
"""The fewest lines of ``--input`` that get a progress bar."""

BATCH = 256
"""Lines of ``--input`` translated together, in one padded batch."""

DEFAULT_BEAM = 4
"""The beam ``translate`` and ``evaluate`` decode with unless told: the
beam the book's held-out scores use, so that a reader's translation is
the one those scores measured (greedy search is ``--beam 1``)."""


def add_model_options(
    parser: argparse.ArgumentParser, *, progress: bool = True
) -> None:
    """The options ``evaluate`` and ``translate`` share:
    the checkpoint, the beam, the device, the threads, JSON (and
    ``--progress`` where ``progress``)."""
    parser.add_argument(
        "--checkpoint",
        metavar="CKPT",
        default=None,
        help="a file written by train --save (default: the model the book "
        "ships, the default train --corpus tatoeba run with int8 weights: "
        "the Transformer the Transformer chapter runs in the page)",
    )
    parser.add_argument(
        "--model",
        choices=SHIPPED_MODELS,
        default=None,
        help="without --checkpoint, which model the book ships: "
        "transformer, the Transformer chapter's (train --corpus tatoeba, "
        "int8 weights), or seq2seq, the GRU encoder-decoder of the "
        "real-sentences chapter (train --corpus tatoeba --model seq2seq); "
        "with --checkpoint, the kind it must hold "
        "(default: transformer, or the checkpoint's)",
    )
    parser.add_argument(
        "--beam",
        type=positive_int,
        metavar="N",
        default=DEFAULT_BEAM,
        help="beam size (default: %(default)s, the beam the book's "
        "held-out scores use; 1 is greedy search)",
    )
    parser.add_argument(
        "--coverage-penalty",
        type=non_negative_float,
        metavar="B",
        default=0.0,
        help="the weight of beam search's coverage penalty (Wu et al., "
        "2016), which ranks lower a translation that leaves English words "
        "unread (default: %(default)s, none; greedy search has none)",
    )
    add_run_options(parser, progress=progress)


def add_translate_command(commands: SubCommands) -> None:
    """Register ``translate``: a sentence, its translation and the
    attention behind it; or a file of sentences, one a line."""
    parser = commands.add_parser(
        "translate",
        help="translate English sentences with a saved model: one, with "
        "its attention, or a file of them",
        description="Translate one English sentence with a checkpoint "
        "written by train --save (by default the model the book ships), "
        "and print the attention weights as a table (rows: the French "
        "words written; columns: the English words read, <unk> for words "
        "the model does not know). With --input, translate a file (or "
        "standard input) of one sentence a line, loading the model once, "
        "and print one translation a line.",
    )
    parser.add_argument(
        "sentence",
        nargs="*",
        help='the English sentence, quoted: "I am hungry." (words given '
        "unquoted are read as one sentence)",
    )
    parser.add_argument(
        "--input",
        metavar="FILE",
        default=None,
        help="translate every line of FILE (- for standard input), "
        "one sentence a line",
    )
    add_model_options(parser)
    parser.add_argument(
        "--unknown",
        choices=UNKNOWN_CHOICES,
        default=UNKNOWN_DEFAULT,
        help="where the model writes <unk>: copy the most attended "
        "English word where it is a name or a number the model could not "
        "read, and leave the <unk> out elsewhere, as the book's pages do; "
        "or keep <unk> (default: %(default)s)",
    )
    parser.add_argument(
        "--plot",
        metavar="FILE.png",
        default=None,
        help="save the attention heatmap of the sentence there "
        "(one sentence only)",
    )
    parser.set_defaults(handler=run_translate)


def attention_table(
    weights: torch.Tensor, source: list[str], target: list[str]
) -> str:
    """A compact text table of attention weights:
    one row per target token, one column per source token.

    Each cell is the weight in hundredths (``.``` for less than 0.05),
    the row's largest marked with ``*``.

    Shape:
        - weights: ``(len(target), len(source))``.
    """
    if tuple(weights.shape) != (len(target), len(source)):
        raise ValueError(
            "weights must have shape (len(target), len(source)) = "
            f"({len(target)}, {len(source)}), "
            f"got {tuple(weights.shape)}"
        )
    width = max(5, *(len(s) for s in source))
    label = max(len(t) for t in target)
    lines = [" " * label + " " + " ".join(s.rjust(width) for s in source)]
    for row, token in zip(weights.tolist(), target, strict=True):
        best = max(range(len(row)), key=row.__getitem__)
        cells = [
            (f"{round(w * 100):d}" if w >= 0.05 else ".")
            + ("*" if j == best else " ")
            for j, w in enumerate(row)
        ]
        lines.append(
            token.ljust(label)
            + " "
            + " ".join(c.rjust(width) for c in cells)
        )
    return "\n".join(lines)


def _check_plot(path: str) -> None:
    """Refuse a ``--plot`` path matplotlib cannot write, before the
    model loads."""
    from matplotlib.figure import Figure

    formats = Figure().canvas.get_supported_filetypes()
    suffix = Path(path).suffix.lstrip(".").lower()
    if suffix not in formats:
        raise InputError(
            f"--plot {path}: give a file name ending in one of "
            f"{', '.join('.' + f for f in sorted(formats))}"
        )
    check_output_path(path, "--plot")


def read_sentences(source: str) -> list[str]:
    """The lines of the file ``source`` (``-``: standard input), as text.

    Raises:
        InputError: the file is missing, a folder, unreadable, or not
            UTF-8.
    """
    where = "standard input" if source == STDIN else source
    try:
        if source == STDIN:
            text = sys.stdin.buffer.read().decode("utf-8")
        else:
            text = check_input_file(source, "--input").read_text(
                encoding="utf-8"
            )
    except UnicodeDecodeError as error:
        raise InputError(
            f"{where}: not UTF-8 text (byte offset {error.start})"
        ) from None
    except OSError as error:
        raise InputError(
            f"{where}: cannot read it ({error.strerror})"
        ) from None
    return text.splitlines()


def _tokens(
    translator: Translator, sentence: str, where: str
) -> list[str]:
    """What the model reads for ``sentence`` (words, or pieces)."""
    max_src_len = translator.model.config.max_src_len
    tokens = translator.tokenizer.source(sentence)
    if len(tokens) > max_src_len:
        raise InputError(
            f"{where} has {len(tokens)} tokens, more than the "
            f"{max_src_len} this model accepts (its longest source); "
            "shorten the sentence or train a model that takes longer ones"
        )
    return tokens


def translate_tokens(
    translator: Translator,
    tokens: list[str],
    *,
    beam: int = DEFAULT_BEAM,
    coverage_penalty: float = 0.0,
    unknown: str = UNKNOWN_DEFAULT,
) -> dict[str, Any]:
    """Translate ``tokens``: the JSON object ``translate --json`` prints
    (``source``, ``read_as``, ``translation``, ``tokens``, ``n_unknown``,
    ``attention``), with the attention ``table`` as a tensor beside it.

    ``tokens`` holds what the model wrote, ``<unk>`` included;
    ``translation`` is its text, where ``unknown="copy"`` with each
    ``<unk>`` replaced or left out by
    :func:`~attnbook.nmt.text.replace_unknown`'s rule."""
    if not tokens:
        return _record(translator, tokens, [], None, unknown=unknown)
    result = translator.translation(
        tokens,
        beam_size=beam,
        coverage_penalty=coverage_penalty,
        unknown="keep",
    )
    return _record(
        translator, tokens, result.target, result.weights, unknown=unknown
    )


def _record(
    translator: Translator,
    tokens: list[str],
    target: list[str],
    weights: torch.Tensor | None,
    *,
    unknown: str,
) -> dict[str, Any]:
    check_unknown(unknown)
    read_as = [
        UNK if t not in translator.src_vocab or t == UNK else t
        for t in tokens
    ]
    target = list(target)
    shown = (
        replace_unknown(target, tokens, weights, translator.src_vocab)
        if unknown == "copy"
        else target
    )
    table = None
    if weights is not None and tokens:
        rows = [*target, "<eos>"][: weights.size(0)]
        # the source's words and its <eos>; a batch's padding left out
        table = weights[: len(rows), : len(read_as) + 1]
    return {
        "source": tokens,
        "read_as": read_as,
        "translation": translator.tokenizer.text(shown) if target else "",
        "tokens": target,
        "n_unknown": read_as.count(UNK),
        "attention": None
        if table is None
        else [[round(w, 4) for w in r] for r in table.tolist()],
        "table": table,
    }


def translate_many(
    translator: Translator,
    sentences: list[list[str]],
    *,
    beam: int = DEFAULT_BEAM,
    coverage_penalty: float = 0.0,
    unknown: str = UNKNOWN_DEFAULT,
) -> list[dict[str, Any]]:
    """Translate ``sentences`` (token lists) in batches, as
    :func:`translate_tokens` translates each.

    Each batch holds sentences of one length, so each gets the length
    limit it gets alone; the encoder reads each sentence packed to its
    own length either way.
    """
    by_length: dict[int, list[int]] = {}
    for i, tokens in enumerate(sentences):
        if tokens:
            by_length.setdefault(len(tokens), []).append(i)
    found: dict[int, Any] = {}
    for group in by_length.values():
        # decode_pairs reads the sources only; a pair needs a target
        pairs = [SentencePair(tuple(sentences[i]), (UNK,)) for i in group]
        hypotheses = translator.decode_pairs(
            pairs,
            beam_size=beam,
            batch_size=len(pairs),
            coverage_penalty=coverage_penalty,
        )
        found.update(zip(group, hypotheses, strict=True))
    records = []
    for i, tokens in enumerate(sentences):
        hypothesis = found.get(i)
        records.append(
            _record(
                translator,
                tokens,
                []
                if hypothesis is None
                else translator.tgt_vocab.decode(hypothesis.ids),
                None if hypothesis is None else hypothesis.weights,
                unknown=unknown,
            )
        )
    return records


def run_translate(args: argparse.Namespace) -> int:
    """Translate the sentence (with its table) or every line of
    ``--input`` (one line each)."""
    try:
        if args.input is not None and args.sentence:
            raise InputError(
                "give either a sentence or --input FILE, not both"
            )
        if args.input is None and not args.sentence:
            raise InputError(
                'give a sentence to translate, quoted: "I am hungry.", '
                "or --input FILE (- for standard input)"
            )
        if args.plot:
            if args.input is not None:
                raise InputError(
                    "--plot draws one sentence's attention; leave it out "
                    "with --input"
                )
            _check_plot(args.plot)
        lines = None if args.input is None else read_sentences(args.input)
        translator = read_model(args.checkpoint, args.device, args.model)
        if lines is not None:
            return _translate_lines(translator, lines, args)
        return _translate_sentence(translator, args)
    except (InputError, ValueError) as error:
        return fail(error)


def _translate_lines(
    translator: Translator, lines: list[str], args: argparse.Namespace
) -> int:
    where = "standard input" if args.input == STDIN else args.input
    # every line checked before the first is translated
    sentences = [
        _tokens(translator, line, f"{where}, line {number},")
        for number, line in enumerate(lines, start=1)
    ]
    longest = _trained_longest(args)
    if longest is not None:
        n_longer = sum(len(tokens) > longest for tokens in sentences)
        if n_longer:
            print(
                f"note: {n_longer} of {len(sentences)} lines have more "
                f"tokens than the {longest} of the longest English "
                "sentence the model was trained on",
                file=sys.stderr,
            )
    bar = tqdm(
        total=len(sentences),
        desc="translating",
        unit=" lines",
        file=sys.stderr,
        disable=not args.progress or len(sentences) < LONG_INPUT,
    )
    with bar:
        for start in range(0, len(sentences), BATCH):
            chunk = sentences[start : start + BATCH]
            records = translate_many(
                translator,
                chunk,
                beam=args.beam,
                coverage_penalty=args.coverage_penalty,
                unknown=args.unknown,
            )
            for record in records:
                if args.json:
                    record.pop("table")
                    print_json(record)
                else:
                    print(record["translation"], flush=True)
            bar.update(len(chunk))
    return 0


def _trained_longest(args: argparse.Namespace) -> int | None:
    """The most tokens of a sentence the shipped model was trained on;
    ``None`` for a checkpoint, which does not say."""
    if args.checkpoint is not None:
        return None
    from attnbook.studies import shipped_longest_source

    return shipped_longest_source()


def _translate_sentence(
    translator: Translator, args: argparse.Namespace
) -> int:
    sentence = " ".join(args.sentence)
    if len(args.sentence) > 1:
        print(
            f"note: {len(args.sentence)} arguments read as one sentence, "
            f'"{sentence}"; quote a sentence to give it as one argument, '
            "or translate many, one a line, with --input FILE",
            file=sys.stderr,
        )
    tokens = _tokens(translator, sentence, "the sentence")
    if not tokens:
        raise InputError("the sentence has no words to translate")
    record = translate_tokens(
        translator,
        tokens,
        beam=args.beam,
        coverage_penalty=args.coverage_penalty,
        unknown=args.unknown,
    )
    out = text_out(args)
    print(record["translation"], file=out)
    unknown = [t for t in tokens if t not in translator.src_vocab]
    if unknown:
        print(
            f"unknown to the model (read as {UNK}): {' '.join(unknown)}",
            file=out,
        )
        print(
            f"note: the model knows the {len(translator.src_vocab):,} "
            "English tokens of its training sentences; where it writes "
            f"{UNK}, a name or a number it could not read is copied and "
            "anything else left out",
            file=out,
        )
    if not translator.tokenizer.cased:
        print(f"note: {casing_note(translator.tokenizer)}", file=out)
    longest = _trained_longest(args)
    if longest is not None and len(tokens) > longest:
        print(
            f"note: this sentence has {len(tokens)} tokens; the longest "
            f"English sentence the model was trained on has {longest}, so "
            "it has never met one this long",
            file=out,
        )
    table = record.pop("table")
    if table is None:
        print(
            "this model has no attention (the no-attention baseline): "
            "there is no table to show",
            file=out,
        )
    else:
        rows = [*record["tokens"], "<eos>"][: table.size(0)]
        columns = [*record["read_as"], "<eos>"]
        print(attention_table(table, columns, rows), file=out)
        if args.plot:
            import matplotlib.pyplot as plt

            from attnbook.book.plotting import attention_heatmap

            attention_heatmap(table, columns, rows, title=sentence)
            plt.savefig(args.plot, bbox_inches="tight", dpi=120)
            plt.close("all")
            print(f"heatmap saved to {args.plot}", file=out)
    if args.json:
        print_json(record)
    return 0
