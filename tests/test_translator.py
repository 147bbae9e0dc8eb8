"""The Translator: translating, batching pairs, and checkpoints that load safely."""

import pytest
import torch

from attnbook.nmt.data import Vocab
from attnbook.nmt.translator import Translator

pytestmark = pytest.mark.usefixtures("one_thread")


def test_translate_counts_unknown_words_and_rejects_empty_or_over_long_input(toy_splits, tiny_translator):
    translator = tiny_translator()
    known = toy_splits.train[0].source
    result = translator.translate(f"{known[0]} zebra {known[1]}", max_len=5)
    assert result.n_unknown == 1 and result.source == [known[0], "zebra", known[1]]
    assert result.weights.shape[1] == 4  # three tokens and <eos>
    assert set(result.to_dict()) == {"source", "target", "weights", "n_unknown"}
    with pytest.raises(ValueError, match="empty sentence"):
        translator.translate("   ")
    with pytest.raises(ValueError, match="max_len=25"):
        translator.translate("the cat " * 13)
    beam = translator.beam_search(list(known[:3]), beam_size=3, max_len=5)
    assert beam.n_unknown == 0
    assert (
        translator.translate(list(known), beam_size=1).target
        == translator.beam_search(known, beam_size=1).target
    )


def test_translating_pairs_in_batches_matches_one_at_a_time(toy_splits, tiny_translator):
    translator = tiny_translator(seed=3)
    translator.model.double().train()
    pairs = toy_splits.val[:7]
    batched = translator.translate_pairs(pairs, batch_size=3, max_len=6)
    alone = [translator.translate(list(p.source), max_len=6).target for p in pairs]
    assert batched == alone
    assert translator.model.training  # translating puts the model in eval mode only while it runs


def test_the_model_and_the_vocabularies_must_agree(tiny_translator, toy_vocabs):
    model = tiny_translator().model
    src_vocab, tgt_vocab = toy_vocabs
    with pytest.raises(
        ValueError, match=rf"tgt_vocab has {len(src_vocab)} tokens .* built for {len(tgt_vocab)}"
    ):
        Translator(model, src_vocab, src_vocab)


def test_checkpoint_round_trip_restores_the_model_and_its_vocabularies(tmp_path, toy_splits, tiny_translator):
    translator = tiny_translator(attention="luong")
    translator.model.eval()
    path = translator.save(tmp_path / "ckpt" / "model.pt")
    assert isinstance(torch.load(path, weights_only=True), dict)  # plain data: safe to load
    loaded = Translator.load(path, translator.src_vocab, translator.tgt_vocab, device="cpu")
    assert (loaded.src_vocab, loaded.tgt_vocab) == (translator.src_vocab, translator.tgt_vocab)
    assert loaded.model.config == translator.model.config and not loaded.model.training
    batch = translator.batch(toy_splits.val[:3])
    torch.testing.assert_close(
        loaded.model(batch.src, batch.src_mask, batch.tgt_in),
        translator.model(batch.src, batch.src_mask, batch.tgt_in),
    )


def test_a_checkpoint_trained_with_another_vocabulary_is_refused(tmp_path, tiny_translator):
    translator = tiny_translator()
    src_vocab, tgt_vocab = translator.src_vocab, translator.tgt_vocab
    path = translator.save(tmp_path / "model.pt")
    other = Vocab([*src_vocab.tokens[4:], "zebra"])
    with pytest.raises(ValueError, match="another vocabulary: its source vocabulary has"):
        Translator.load(path, other, tgt_vocab, device="cpu")
    swapped = list(tgt_vocab.tokens[4:])
    swapped[0], swapped[1] = swapped[1], swapped[0]
    with pytest.raises(ValueError, match=r"its target vocabulary has .* at id 4"):
        Translator.load(path, src_vocab, Vocab(swapped), device="cpu")


@pytest.mark.parametrize(
    "write",
    [
        lambda path: torch.save({"weights": torch.zeros(2)}, path),  # a dict of tensors, not ours
        lambda path: path.write_text("source\ttarget\n", encoding="utf-8"),  # not a torch file at all
        lambda path: path.write_bytes(b""),  # empty
    ],
)
def test_a_file_that_is_not_a_checkpoint_is_a_value_error_naming_the_file(tmp_path, write):
    path = tmp_path / "other.pt"
    write(path)
    with pytest.raises(ValueError, match=r"other\.pt is not an attnbook checkpoint"):
        Translator.load(path, device="cpu")


def test_a_missing_checkpoint_is_a_file_not_found_error(tmp_path):
    with pytest.raises(FileNotFoundError):
        Translator.load(tmp_path / "missing.pt", device="cpu")
