"""Export a trained translator for the browser:
one script file holding its weights and vocabularies.

:func:`export_translator` writes a
:class:`~attnbook.nmt.translator.Translator` (Bahdanau's seq2seq, or
chapter 9's Transformer) as a JavaScript file of one statement,
``attnbookTranslatorWeights(header, data);``:
``header`` is JSON (the format, the model's kind and configuration, both
vocabularies, the French casing where the translator has one, and where
each tensor lies in ``data``) and ``data`` is the
weights as base64 bytes. The page runs a ``"seq2seq"`` export with
``seq2seq.js`` and a ``"transformer"`` one with ``transformer.js``.
A web page loads it with a ``<script>`` element
(which, unlike ``fetch``, also works for a page opened from the disk);
:func:`read_export` reads it back in Python.

The weights are stored as float32, or (the default) as int8 with one
float32 scale per row of each matrix: ``w = scale[row] * q``,
``q`` in ``-127..127``, ``scale[row] = max |w[row]| / 127``.
That is a quarter of the bytes; vectors (biases) and small matrices
stay float32.

>>> import tempfile
>>> from pathlib import Path
>>> from attnbook.nmt import Seq2Seq, Seq2SeqConfig, Translator, Vocab
>>> _ = torch.manual_seed(0)
>>> src_vocab, tgt_vocab = Vocab(["the", "cat"]), Vocab(["le", "chat"])
>>> model = Seq2Seq(
...     Seq2SeqConfig(
...         len(src_vocab),
...         len(tgt_vocab),
...         emb_dim=4,
...         hidden_dim=4,
...         attn_dim=3,
...     )
... )
>>> path = export_translator(
...     Translator(model, src_vocab, tgt_vocab),
...     Path(tempfile.mkdtemp()) / "m.js",
... )
>>> exported = read_export(path)
>>> exported.tgt_vocab == list(tgt_vocab.tokens), exported.quantization
(True, 'int8')
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from attnbook.core.records import package_path
from attnbook.nmt.data import Vocab
from attnbook.nmt.seq2seq import Seq2Seq
from attnbook.nmt.text import Tokenizer
from attnbook.nmt.transformer import Transformer
from attnbook.nmt.translator import MODEL_KINDS, Translator

EXPORT_FORMAT = "attnbook-translator-weights-1"
"""The ``format`` entry of an export's header."""

CALLBACK = "attnbookTranslatorWeights"
"""The function an export file calls with its header and data (the page's
script defines it)."""

QUANTIZATIONS = ("int8", "float32")
"""How the matrices may be stored."""

SMALL = 4096
"""Matrices with fewer entries than this stay float32 even when the export
is int8."""

SHIPPED_TRANSLATOR = "translator-tatoeba.js"
"""The file name, in the package's ``data`` folder, of the GRU
encoder-decoder the book ships: the GRU's run on the Tatoeba pairs
(``python -m attnbook train --corpus tatoeba --model seq2seq``), exported
as int8."""

SHIPPED_TRANSFORMER = "translator-tatoeba-transformer.js"
"""The file name, in the package's ``data`` folder, of the Transformer
the book ships: the command line's default run on the Tatoeba pairs
(``python -m attnbook train --corpus tatoeba``), exported as int8
(``attnbook.studies.shipped.write_tatoeba_transformer``)."""

KINDS = (Seq2Seq.kind, Transformer.kind)
"""The model kinds an export may hold, as its header's ``kind`` names
them."""

GRAMMAR_TRANSLATOR = "translator-grammar.js"
"""The file name, in the package's ``data`` folder, of the toy grammar's
translator the book ships: chapter 6's attention model, trained as the
chapter trains it (``attnbook.studies.write_grammar_translator``)."""


@dataclass(frozen=True)
class TranslatorExport:
    """An export read back: the model's configuration, vocabularies and
    (dequantised) weights.

    Attributes:
        name: the model's name, as the page shows it.
        kind: ``"seq2seq"`` or ``"transformer"`` (:data:`KINDS`).
        config: the model's configuration's entries
            (:class:`~attnbook.nmt.seq2seq.Seq2SeqConfig` or
            :class:`~attnbook.nmt.transformer.TransformerConfig`).
        src_vocab, tgt_vocab: the vocabularies' tokens, in id order
            (specials first).
        quantization: ``"int8"`` or ``"float32"``.
        state_dict: the model's weights as float32 tensors (int8 ones
            multiplied back by their scales).
        size: the file's size in bytes.
        info: what the exporter was told about the model (its training,
            its scores), as given.
        casing: how the training French spells its names and acronyms
            (:attr:`~attnbook.nmt.text.Tokenizer.casing`), or ``None``
            where the file has none: the translation stays lower-cased.
    """

    name: str
    config: dict[str, Any]
    src_vocab: list[str]
    tgt_vocab: list[str]
    quantization: str
    state_dict: dict[str, torch.Tensor]
    size: int
    info: dict[str, Any]
    kind: str = Seq2Seq.kind
    casing: dict[str, str] | None = None

    def to_translator(
        self, device: torch.device | str = "cpu"
    ) -> Translator:
        """A PyTorch translator with exactly these weights (the ones the
        page computes with)."""
        model_class = MODEL_KINDS[self.kind]
        model = model_class(model_class.config_class(**self.config))
        model.load_state_dict(self.state_dict)
        model.to(device).eval()
        return Translator(
            model,
            Vocab(self.src_vocab),
            Vocab(self.tgt_vocab),
            Tokenizer(casing=self.casing),
        )


def _quantize_rows(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """int8 values and one float32 scale per row:
    ``matrix ~= scales[:, None] * values``."""
    top = np.abs(matrix).max(axis=1)
    scales = np.where(top > 0, top / 127.0, 1.0).astype(np.float32)
    values = np.clip(np.rint(matrix / scales[:, None]), -127, 127).astype(
        np.int8
    )
    return values, scales


def export_translator(
    translator: Translator,
    path: str | Path,
    *,
    name: str = "translator",
    quantization: str = "int8",
    info: dict[str, Any] | None = None,
) -> Path:
    """Write ``translator`` (Bahdanau's seq2seq or a Transformer) as one
    script file for the page's translator.

    Args:
        translator: the trained model and its vocabularies: a
            :class:`~attnbook.nmt.transformer.Transformer`, or a seq2seq
            whose decoder is Bahdanau's.
        path: where to write (``.js``); its folder is created.
        name: the model's name, stored in the header.
        quantization: ``"int8"`` (per-row scales, a quarter of the bytes)
            or ``"float32"`` (exact).
        info: plain JSON values stored in the header as they are (e.g. how
            the model was trained).

    Returns:
        The path written.

    Raises:
        ValueError: the model is neither a Bahdanau seq2seq nor a
            pre-norm, causal Transformer over whole words, or
            ``quantization`` is not
            one of :data:`QUANTIZATIONS`.
    """
    if translator.tokenizer.pieces:
        raise ValueError(
            "translator: the page reads whole words; a model over "
            "SentencePiece pieces cannot be exported for it"
        )
    model = translator.model
    if not isinstance(model, Seq2Seq | Transformer):
        raise ValueError(
            "translator: only a recurrent seq2seq with Bahdanau's "
            "attention or a Transformer can be exported for the page, got "
            f"a {type(model).__name__}"
        )
    if isinstance(model, Seq2Seq) and model.config.attention != "bahdanau":
        raise ValueError(
            "translator: only Bahdanau's seq2seq can be exported for the "
            f"page, got attention={model.config.attention!r}"
        )
    if isinstance(model, Transformer) and not (
        model.config.norm_first and model.config.causal
    ):
        raise ValueError(
            "translator: the page runs pre-norm Transformers with a "
            "causal decoder (norm_first=True, causal=True, the defaults), "
            f"got norm_first={model.config.norm_first}, "
            f"causal={model.config.causal}"
        )
    config = model.config
    if quantization not in QUANTIZATIONS:
        raise ValueError(
            f"quantization must be one of {QUANTIZATIONS}, got "
            f"{quantization!r}"
        )
    chunks: list[bytes] = []
    offset = 0
    tensors = []

    def add(array: np.ndarray) -> int:
        nonlocal offset
        raw = array.tobytes()
        # every block starts on 4 bytes: a Float32Array may view it
        raw += b"\0" * (-len(raw) % 4)
        chunks.append(raw)
        start, offset = offset, offset + len(raw)
        return start

    for key, tensor in translator.model.state_dict().items():
        array = tensor.detach().to("cpu", torch.float32).numpy()
        entry: dict[str, Any] = {"name": key, "shape": list(array.shape)}
        if (
            quantization == "int8"
            and array.ndim == 2
            and array.size >= SMALL
        ):
            values, scales = _quantize_rows(array)
            entry |= {
                "dtype": "int8",
                "offset": add(values),
                "scales": add(scales.astype("<f4")),
            }
        else:
            entry |= {
                "dtype": "float32",
                "offset": add(array.astype("<f4")),
            }
        tensors.append(entry)
    header = {
        "format": EXPORT_FORMAT,
        "name": name,
        "kind": model.kind,
        "config": config.to_dict(),
        "src_vocab": list(translator.src_vocab.tokens),
        "tgt_vocab": list(translator.tgt_vocab.tokens),
        "quantization": quantization,
        "tensors": tensors,
        "info": info or {},
    }
    if translator.tokenizer.casing is not None:
        header["casing"] = dict(translator.tokenizer.casing)
    data = base64.b64encode(b"".join(chunks)).decode("ascii")
    text = (
        "// The weights and vocabularies of the attnbook translator "
        f"{name!r} ({quantization}),\n"
        "// written by attnbook.nmt.export_translator; a page loads them "
        "with a <script> element.\n"
        f"{CALLBACK}("
        f"{json.dumps(header, ensure_ascii=True, separators=(',', ':'))}"
        f',"{data}");\n'
    )
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="ascii")
    return path


def read_export(path: str | Path) -> TranslatorExport:
    """Read a file written by :func:`export_translator`, its int8 weights
    multiplied back to float32.

    Raises:
        FileNotFoundError: there is no such file.
        ValueError: the file is not such an export (the message names the
            file and what is wrong).
    """
    path = Path(path)
    raw = path.read_bytes()
    what = (
        f"{path} is not a translator export written by export_translator"
    )
    try:
        text = raw.decode("ascii")
    except UnicodeDecodeError as error:
        raise ValueError(
            f"{what}: it is not ASCII text (byte {error.start})"
        ) from None
    call = f"\n{CALLBACK}("
    start = text.find(call)
    if start < 0:
        raise ValueError(
            f"{what}: it has no line starting with {CALLBACK}("
        )
    try:
        header, end = json.JSONDecoder().raw_decode(
            text, start + len(call)
        )
    except json.JSONDecodeError as error:
        raise ValueError(
            f"{what}: its header is not JSON ({error.msg})"
        ) from None
    if (
        not isinstance(header, dict)
        or header.get("format") != EXPORT_FORMAT
    ):
        raise ValueError(
            f"{what}: its header has no format {EXPORT_FORMAT!r}"
        )
    rest = text[end:].strip()
    if not (rest.startswith(',"') and rest.endswith('");')):
        raise ValueError(
            f'{what}: the header is not followed by ,"<base64 data>");'
        )
    try:
        data = base64.b64decode(rest[2:-3], validate=True)
    except ValueError as error:
        raise ValueError(
            f"{what}: its data is not base64 ({error})"
        ) from None
    # an export written before the Transformer's has no kind: a seq2seq
    kind = header.get("kind", Seq2Seq.kind)
    if kind not in KINDS:
        raise ValueError(
            f"{what}: its header names a model of kind {kind!r}, not one "
            f"of {KINDS}"
        )
    state_dict = {}
    for entry in header["tensors"]:
        shape = tuple(entry["shape"])
        count = int(np.prod(shape))
        if entry["dtype"] == "int8":
            values = np.frombuffer(
                data, np.int8, count, entry["offset"]
            ).reshape(shape)
            scales = np.frombuffer(data, "<f4", shape[0], entry["scales"])
            array = values.astype(np.float32) * scales[:, None]
        else:
            array = np.frombuffer(
                data, "<f4", count, entry["offset"]
            ).reshape(shape)
        state_dict[entry["name"]] = torch.from_numpy(
            array.astype(np.float32)
        )
    return TranslatorExport(
        name=header["name"],
        config=header["config"],
        src_vocab=header["src_vocab"],
        tgt_vocab=header["tgt_vocab"],
        quantization=header["quantization"],
        state_dict=state_dict,
        size=len(raw),
        info=header.get("info", {}),
        kind=kind,
        casing=header.get("casing"),
    )


SHIPPED_EXPORTS = (
    SHIPPED_TRANSLATOR,
    SHIPPED_TRANSFORMER,
    GRAMMAR_TRANSLATOR,
)
"""The translators the book ships, by file name."""


def shipped_export(name: str = SHIPPED_TRANSLATOR) -> TranslatorExport:
    """A translator the book ships (:data:`SHIPPED_TRANSLATOR`, by
    default, :data:`SHIPPED_TRANSFORMER` or :data:`GRAMMAR_TRANSLATOR`),
    read back from the package's data folder.

    The default is the model the real-sentences chapter's box runs in the
    page and ``python -m attnbook translate --model seq2seq``'s;
    :data:`SHIPPED_TRANSFORMER` is chapter 9's box's and the one
    ``translate`` uses without ``--checkpoint`` or ``--model``. Page and
    command line compute with the same int8 weights, so both give the same
    translation.
    Its ``info`` says how it was trained and where,
    and its held-out scores.
    """
    if name not in SHIPPED_EXPORTS:
        raise ValueError(
            f"name must be one of {SHIPPED_EXPORTS}, got {name!r}"
        )
    with package_path(name) as path:
        return read_export(path)
