"""A :class:`Translator`: a model with the two vocabularies it was built
for and its tokeniser, so text goes in and text comes out.

A model reads ids; which word an id stands for is fixed by the vocabularies
it was trained with, and which tokens a sentence is cut into by the
tokeniser (:class:`~attnbook.nmt.text.Tokenizer`: whole words, or
SentencePiece pieces). The four travel together, and are saved and loaded
together: a checkpoint holds the model's kind (a key of
:data:`MODEL_KINDS`), its configuration, the weights, both vocabularies
and the tokeniser (the SentencePiece models' bytes for a model over
pieces), and is read with ``torch.load(weights_only=True)``, which refuses
to run code stored in a file. The model is any
:class:`~attnbook.nmt.model.TranslationModel`:
the recurrent seq2seq model or the Transformer.

>>> import torch
>>> from attnbook.nmt.data import Vocab
>>> from attnbook.nmt.seq2seq import Seq2Seq, Seq2SeqConfig
>>> from attnbook.nmt.translator import Translator
>>> src_vocab, tgt_vocab = (
...     Vocab(["the", "cat", "sleeps"]),
...     Vocab(["le", "chat", "dort"]),
... )
>>> _ = torch.manual_seed(0)
>>> model = Seq2Seq(
...     Seq2SeqConfig(
...         len(src_vocab),
...         len(tgt_vocab),
...         emb_dim=4,
...         hidden_dim=6,
...         attn_dim=5,
...     )
... )
>>> translator = Translator(model, src_vocab, tgt_vocab)
>>> text = translator.translate("The cat sleeps.")  # untrained: any French
>>> isinstance(text, str)
True
>>> result = translator.translation(
...     "the cat sleeps", max_len=3
... )  # the tokens, and the attention behind them
>>> len(result.target) <= 3 and all(
...     word in tgt_vocab for word in result.target
... )
True
>>> tuple(
...     result.weights.shape[1:]
... )  # one column per source word, and <eos>
(4,)
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
from torch import Tensor

from attnbook.core.runtime import get_device
from attnbook.nmt.data import (
    Batch,
    SentencePair,
    Vocab,
    iterate_batches,
    make_batch,
)
from attnbook.nmt.model import TranslationModel, evaluating
from attnbook.nmt.search import Hypothesis, beam_search, greedy_decode
from attnbook.nmt.seq2seq import ModelConfig, Seq2Seq
from attnbook.nmt.text import (
    UNKNOWN_DEFAULT,
    Tokenizer,
    check_unknown,
    replace_unknown,
)
from attnbook.nmt.transformer import Transformer, TransformerSizes

CHECKPOINT_FORMAT = "attnbook-translator-3"
"""The ``format`` entry of a checkpoint written by
:meth:`Translator.save`."""

# the earlier formats: no tokeniser (whole words); the first also no kind
# entry, always a Seq2Seq
_WORDS_ONLY_FORMAT = "attnbook-translator-2"
_SEQ2SEQ_ONLY_FORMAT = "attnbook-seq2seq-1"

MODEL_KINDS: dict[str, type[Seq2Seq] | type[Transformer]] = {
    Seq2Seq.kind: Seq2Seq,
    Transformer.kind: Transformer,
}
"""The model classes a checkpoint can hold, by the ``kind`` it names;
each is built from its ``config_class``."""

ModelSpec = ModelConfig | TransformerSizes
"""A run's model, whose type says its kind: the recurrent model's choices
and sizes, or the Transformer's sizes. Each builds its model
(``spec.build(...)``) and names its kind (``spec.kind``)."""

MODEL_SPECS: dict[str, type[ModelConfig] | type[TransformerSizes]] = {
    ModelConfig.kind: ModelConfig,
    TransformerSizes.kind: TransformerSizes,
}
"""The classes of :data:`ModelSpec`, by the kind a record or ``--model``
names."""


@dataclass(frozen=True, eq=False)
class Translation:
    """A translated sentence with its attention weights.

    Attributes:
        source: the tokens the model read (unknown ones as given).
        target: the tokens it wrote (``<unk>`` where it wrote one).
        weights: ``(len(target) + 1, len(source) + 1)`` weights (rows and
            columns include ``<eos>``; one row fewer when the search
            stopped at its length limit) or ``None`` for the baseline.
        n_unknown: how many source tokens the vocabulary did not know (they
            were read as ``<unk>``).
        text: the translation as French text, each ``<unk>`` replaced as
            the translator was asked (see
            :data:`~attnbook.nmt.text.UNKNOWN_DEFAULT`).
    """

    source: list[str]
    target: list[str]
    weights: Tensor | None
    n_unknown: int
    text: str

    def to_dict(self) -> dict[str, Any]:
        """The translation as plain values (weights as nested lists),
        for JSON."""
        weights = None if self.weights is None else self.weights.tolist()
        return {
            "source": self.source,
            "target": self.target,
            "weights": weights,
            "n_unknown": self.n_unknown,
            "text": self.text,
        }


def _vocab_difference(
    name: str, stored: Sequence[str], given: Vocab
) -> str | None:
    if tuple(stored) == given.tokens:
        return None
    if len(stored) != len(given):
        return (
            f"its {name} vocabulary has {len(stored)} tokens, the one "
            f"given has {len(given)}"
        )
    first = next(
        i
        for i, (a, b) in enumerate(zip(stored, given.tokens, strict=True))
        if a != b
    )
    return (
        f"its {name} vocabulary has {stored[first]!r} at id {first}, the "
        f"one given has {given.tokens[first]!r}"
    )


@dataclass(frozen=True, eq=False)
class Translator:
    """A translation model (:class:`~attnbook.nmt.model.TranslationModel`),
    its two vocabularies and its tokeniser.

    Attributes:
        model: the model; it stays on its device, and inputs are
            moved there.
        src_vocab: the vocabulary of the sentences it reads.
        tgt_vocab: the vocabulary of the sentences it writes.
        tokenizer: how English text becomes the tokens the model reads,
            and the tokens it writes French text (whole words unless
            given).

    Raises:
        ValueError: a vocabulary's size differs from the one the model was
            built for.
    """

    model: TranslationModel
    src_vocab: Vocab
    tgt_vocab: Vocab
    tokenizer: Tokenizer = field(default_factory=Tokenizer)

    def __post_init__(self) -> None:
        config = self.model.config
        for name, vocab, size in (
            ("src_vocab", self.src_vocab, config.src_vocab_size),
            ("tgt_vocab", self.tgt_vocab, config.tgt_vocab_size),
        ):
            if len(vocab) != size:
                raise ValueError(
                    f"{name} has {len(vocab)} tokens but the model was "
                    f"built for {size}"
                )

    @property
    def device(self) -> torch.device:
        return self.model.device

    # --- batches ---------------------------------------------------------

    def batch(
        self,
        pairs: Sequence[SentencePair],
        indices: Sequence[int] | None = None,
    ) -> Batch:
        """Pairs encoded with the two vocabularies and padded into one
        batch on the model's device."""
        return make_batch(
            pairs, self.src_vocab, self.tgt_vocab, indices=indices
        ).to(self.device)

    def batches(
        self,
        pairs: Sequence[SentencePair],
        batch_size: int,
        *,
        shuffle: bool = False,
        generator: random.Random | None = None,
        by_target: bool = False,
    ) -> Iterator[Batch]:
        """One epoch of padded batches on the model's device (see
        :func:`~attnbook.nmt.data.iterate_batches`)."""
        for batch in iterate_batches(
            pairs,
            self.src_vocab,
            self.tgt_vocab,
            batch_size,
            shuffle=shuffle,
            generator=generator,
            by_target=by_target,
        ):
            yield batch.to(self.device)

    def n_unknown(self, pairs: Sequence[SentencePair]) -> int:
        """How many source and target tokens of ``pairs`` the vocabularies
        do not know."""
        return sum(
            len(self.src_vocab.unknown(p.source))
            + len(self.tgt_vocab.unknown(p.target))
            for p in pairs
        )

    # --- translating -----------------------------------------------------

    def translate(
        self,
        text: str,
        *,
        beam_size: int = 1,
        unknown: str = UNKNOWN_DEFAULT,
    ) -> str:
        """Translate English text into French text.

        The text is cut by the translator's tokeniser, translated (greedy
        search, or a beam), and what the model wrote is joined into text;
        where it wrote ``<unk>``, ``unknown="copy"`` (the default, as in
        the book's pages) copies the source token its attention weighs most
        and ``"keep"`` keeps ``<unk>``.

        Raises:
            ValueError: the sentence is empty, longer than the model's
                ``max_src_len``, or ``unknown`` is neither choice.
        """
        return self.translation(
            text, beam_size=beam_size, unknown=unknown
        ).text

    def translation(
        self,
        sentence: str | Sequence[str],
        *,
        beam_size: int = 1,
        max_len: int | None = None,
        coverage_penalty: float = 0.0,
        unknown: str = UNKNOWN_DEFAULT,
    ) -> Translation:
        """Translate one sentence and keep everything: the tokens read and
        written, the attention, the text.

        Args:
            sentence: English text, cut by the tokeniser; or the tokens
                the model reads, as a list.
            beam_size: 1 for greedy search, more for :meth:`beam_search`.
            max_len: the most target tokens; ``None`` allows
                ``2 * len(source) + 5``.
            coverage_penalty: the weight of beam search's coverage
                penalty (:func:`~attnbook.nmt.search.beam_search`); greedy
                search has none.
            unknown: ``"copy"`` or ``"keep"`` (see :meth:`translate`).

        Raises:
            ValueError: the sentence is empty, longer than the model's
                ``max_src_len``, or ``unknown`` is neither choice.
        """
        if beam_size != 1:
            return self.beam_search(
                sentence,
                beam_size=beam_size,
                max_len=max_len,
                coverage_penalty=coverage_penalty,
                unknown=unknown,
            )
        return self._translate_one(
            sentence,
            lambda src, mask: greedy_decode(
                self.model, src, mask, max_len
            ),
            unknown,
        )

    def beam_search(
        self,
        sentence: str | Sequence[str],
        *,
        beam_size: int = 4,
        max_len: int | None = None,
        length_penalty: float = 0.0,
        coverage_penalty: float = 0.0,
        unknown: str = UNKNOWN_DEFAULT,
    ) -> Translation:
        """Translate one sentence with
        :func:`~attnbook.nmt.search.beam_search` (arguments as there
        and in :meth:`translation`)."""
        return self._translate_one(
            sentence,
            lambda src, mask: beam_search(
                self.model,
                src,
                mask,
                beam_size,
                max_len,
                length_penalty,
                coverage_penalty,
            ),
            unknown,
        )

    def _translate_one(
        self, sentence: str | Sequence[str], search: Any, unknown: str
    ) -> Translation:
        check_unknown(unknown)
        tokens = (
            self.tokenizer.source(sentence)
            if isinstance(sentence, str)
            else list(sentence)
        )
        ids = self.src_vocab.encode(
            tokens, max_len=self.model.config.max_src_len
        )
        src = torch.tensor([ids], device=self.device)
        with evaluating(self.model), torch.no_grad():
            (hypothesis,) = search(
                src, torch.ones_like(src, dtype=torch.bool)
            )
        target = self.tgt_vocab.decode(hypothesis.ids)
        shown = (
            replace_unknown(
                target, tokens, hypothesis.weights, self.src_vocab
            )
            if unknown == "copy"
            else target
        )
        return Translation(
            tokens,
            target,
            hypothesis.weights,
            len(self.src_vocab.unknown(tokens)),
            self.tokenizer.text(shown),
        )

    @torch.no_grad()
    def decode_pairs(
        self,
        pairs: Sequence[SentencePair],
        *,
        beam_size: int = 1,
        batch_size: int = 256,
        max_len: int | None = None,
        length_penalty: float = 0.0,
        coverage_penalty: float = 0.0,
    ) -> list[Hypothesis]:
        """Translate the sources of ``pairs`` in batches (greedy for
        ``beam_size=1``), in order.

        ``max_len``, ``length_penalty`` and ``coverage_penalty`` are as in
        :func:`~attnbook.nmt.search.beam_search`.
        """
        hypotheses: list[Hypothesis] = []
        with evaluating(self.model):
            for start in range(0, len(pairs), batch_size):
                batch = self.batch(pairs[start : start + batch_size])
                if beam_size == 1:
                    hypotheses += greedy_decode(
                        self.model, batch.src, batch.src_mask, max_len
                    )
                else:
                    hypotheses += beam_search(
                        self.model,
                        batch.src,
                        batch.src_mask,
                        beam_size,
                        max_len,
                        length_penalty,
                        coverage_penalty,
                    )
        return hypotheses

    def translate_pairs(
        self, pairs: Sequence[SentencePair], **options: Any
    ) -> list[list[str]]:
        """The translations of the sources of ``pairs``, as tokens (options
        as :meth:`decode_pairs`)."""
        return [
            self.tgt_vocab.decode(h.ids)
            for h in self.decode_pairs(pairs, **options)
        ]

    # --- checkpoints -----------------------------------------------------

    def save(self, path: str | Path) -> Path:
        """Save the model's kind and configuration, its weights, both
        vocabularies and the tokeniser to ``path``; return it.

        The file holds only tensors, strings and numbers, so :meth:`load`
        can read it with ``torch.load(weights_only=True)``.
        """
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        torch.save(
            {
                "format": CHECKPOINT_FORMAT,
                "kind": self.model.kind,
                "config": self.model.config.to_dict(),
                "src_vocab": list(self.src_vocab.tokens),
                "tgt_vocab": list(self.tgt_vocab.tokens),
                "tokenizer": self.tokenizer.to_state(),
                "state_dict": {
                    k: v.detach().cpu()
                    for k, v in self.model.state_dict().items()
                },
            },
            path,
        )
        return path

    @classmethod
    def load(
        cls,
        path: str | Path,
        src_vocab: Vocab | None = None,
        tgt_vocab: Vocab | None = None,
        *,
        device: torch.device | str | None = None,
    ) -> Translator:
        """Load a checkpoint written by :meth:`save` (with
        ``torch.load(weights_only=True)``).

        Args:
            path: the file.
            src_vocab, tgt_vocab: the vocabularies you will feed the model;
                when given, they must be the ones it was trained with,
                or the token ids would mean different words.
            device: where to put the model; ``None`` uses
                :func:`~attnbook.core.runtime.get_device`.

        Returns:
            The translator, its model in eval mode.

        Raises:
            FileNotFoundError: there is no such file.
            ValueError: the file is not such a checkpoint (the message
                names the file), names a model kind that is not in
                :data:`MODEL_KINDS`, or was trained with other vocabularies
                than the ones given.

        >>> import tempfile
        >>> from pathlib import Path
        >>> from attnbook.nmt.seq2seq import Seq2SeqConfig
        >>> src_vocab, tgt_vocab = (
        ...     Vocab(["the", "cat"]),
        ...     Vocab(["le", "chat"]),
        ... )
        >>> model = Seq2Seq(
        ...     Seq2SeqConfig(
        ...         len(src_vocab), len(tgt_vocab), emb_dim=4, hidden_dim=4
        ...     )
        ... )
        >>> folder = Path(tempfile.mkdtemp())
        >>> path = Translator(model, src_vocab, tgt_vocab).save(
        ...     folder / "model.pt"
        ... )
        >>> Translator.load(path, device="cpu").tgt_vocab == tgt_vocab
        True
        >>> _ = (folder / "notes.txt").write_text("not a checkpoint")
        >>> try:
        ...     Translator.load(folder / "notes.txt")
        ... except ValueError as error:
        ...     print(error.args[0].split("/")[-1])
        notes.txt is not an attnbook checkpoint: torch.load could not read
        it (UnpicklingError)
        """
        path = Path(path)
        try:
            stored = torch.load(
                path, map_location="cpu", weights_only=True
            )
        # no such file, no permission: not a question of format
        except OSError:
            raise
        # torch.load fails in many ways on a file it cannot read
        except Exception as error:
            raise ValueError(
                f"{path} is not an attnbook checkpoint: torch.load could "
                f"not read it ({type(error).__name__})"
            ) from error
        if not isinstance(stored, dict) or stored.get("format") not in (
            CHECKPOINT_FORMAT,
            _WORDS_ONLY_FORMAT,
            _SEQ2SEQ_ONLY_FORMAT,
        ):
            raise ValueError(
                f"{path} is not an attnbook checkpoint (no format "
                f"{CHECKPOINT_FORMAT!r})"
            )
        kind = stored.get("kind", Seq2Seq.kind)
        if kind not in MODEL_KINDS:
            raise ValueError(
                f"{path} holds a model of kind {kind!r}; this version "
                f"knows {sorted(MODEL_KINDS)}"
            )
        for name, key, given in (
            ("source", "src_vocab", src_vocab),
            ("target", "tgt_vocab", tgt_vocab),
        ):
            difference = (
                None
                if given is None
                else _vocab_difference(name, stored[key], given)
            )
            if difference:
                raise ValueError(
                    f"checkpoint {path} was trained with another "
                    f"vocabulary: {difference}; "
                    "use the vocabularies saved with it (load without "
                    "passing them)"
                )
        model_class = MODEL_KINDS[kind]
        model = model_class(model_class.config_class(**stored["config"]))
        model.load_state_dict(stored["state_dict"])
        model.to(device if device is not None else get_device()).eval()
        return cls(
            model,
            Vocab(stored["src_vocab"]),
            Vocab(stored["tgt_vocab"]),
            Tokenizer.from_state(stored.get("tokenizer")),
        )
