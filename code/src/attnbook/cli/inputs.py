"""Reading corpora and checkpoints for the command line, with errors a
person can act on (:class:`~attnbook.cli.common.InputError`)."""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import torch

from attnbook.cli.common import InputError, check_input_file
from attnbook.nmt.corpus import Corpus, load_tatoeba
from attnbook.nmt.export import (
    SHIPPED_TRANSFORMER,
    SHIPPED_TRANSLATOR,
    shipped_export,
)
from attnbook.nmt.seq2seq import Seq2Seq
from attnbook.nmt.transformer import Transformer
from attnbook.nmt.translator import Translator

SHIPPED_MODELS = {
    Seq2Seq.kind: SHIPPED_TRANSLATOR,
    Transformer.kind: SHIPPED_TRANSFORMER,
}
"""The models the book ships, by the kind ``--model`` names: the file of
each in the package's ``data`` folder."""


def read_corpus(
    path: str | Path,
    *,
    max_len: int | None = None,
    cased: bool = False,
    flag: str = "",
) -> Corpus:
    """Load a corpus file in either layout (lower-cased, or with
    ``cased=True`` as written); refuse one with no usable pair.

    Raises:
        InputError: the file is missing or a folder, is not UTF-8 (the
            message gives the byte offset), or has no pair left after the
            malformed lines and the length filter are set aside.
    """
    path = check_input_file(path, flag)
    try:
        corpus = load_tatoeba(path, max_len=max_len, cased=cased)
    # CorpusEncodingError names the file and the byte offset
    except ValueError as error:
        raise InputError(str(error)) from None
    if not corpus.pairs:
        raise InputError(
            f"{path}: no usable sentence pair in {corpus.n_lines} line(s) "
            f"({len(corpus.malformed)} malformed, {corpus.n_too_long} too "
            "long); "
            "expected lines of English<TAB>French[<TAB>attribution]"
        )
    if corpus.malformed:
        print(
            f"warning: {path}: {len(corpus.malformed)} malformed line(s) "
            "left out, the first: "
            f"{corpus.malformed[0]}",
            file=sys.stderr,
        )
    return corpus


def read_model(
    path: str | Path | None,
    device: torch.device,
    kind: str | None = None,
) -> Translator:
    """The checkpoint at ``path`` (:func:`read_checkpoint`), or with no
    path the translator of kind ``kind`` the book ships
    (:data:`SHIPPED_MODELS`, :func:`~attnbook.nmt.shipped_export`;
    ``None``: the Transformer), on ``device``.

    Raises:
        InputError: the checkpoint holds a model of another kind than
            ``kind``, or the shipped model is missing.
    """
    if path is None:
        try:
            return shipped_export(
                SHIPPED_MODELS[kind or Transformer.kind]
            ).to_translator(device)
        except FileNotFoundError:
            raise InputError(
                "this install has no trained model of its own: give "
                "--checkpoint"
            ) from None
    translator = read_checkpoint(path, device)
    if kind is not None and translator.model.kind != kind:
        raise InputError(
            f"{path} holds a {translator.model.kind} model, not a {kind} "
            f"one: leave out --model {kind}, or give a checkpoint of a "
            f"{kind} model"
        )
    return translator


def read_checkpoint(path: str | Path, device: torch.device) -> Translator:
    """Load a checkpoint written by ``train --save`` (through
    :meth:`~attnbook.nmt.translator.Translator.load`).

    Raises:
        InputError: the file is missing or a folder, or it is not such a
            checkpoint (garbage, cut short, or another program's file).
            The file is read with ``torch.load(weights_only=True)``,
            which refuses to run code stored in it; that stays so.
    """
    path = check_input_file(path, "--checkpoint")
    try:
        # torch warns about some foreign files before refusing them
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return Translator.load(path, device=device)
    # ValueError for a file that is not a checkpoint;
    # others for one of another shape
    except Exception:
        raise InputError(
            f"{path} is not a checkpoint written by 'attnbook train "
            "--save' (unreadable, cut short, or another program's file); "
            "train one with --save"
        ) from None
