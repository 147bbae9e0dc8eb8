"""The Translator: translating, batching pairs, and checkpoints that load safely."""

import pytest
import torch

from attnbook.nmt.data import Vocab
from attnbook.nmt.seq2seq import ModelConfig
from attnbook.nmt.training import TrainConfig, train
from attnbook.nmt.transformer import TransformerSizes
from attnbook.nmt.translator import CHECKPOINT_FORMAT, MODEL_KINDS, Translator

pytestmark = pytest.mark.usefixtures("one_thread")


def test_translate_counts_unknown_words_and_rejects_empty_or_over_long_input(toy_splits, tiny_translator):
    translator = tiny_translator()
    known = toy_splits.train[0].source
    result = translator.translation(f"{known[0]} zebra {known[1]}", max_len=5)
    assert result.n_unknown == 1 and result.source == [known[0], "zebra", known[1]]
    assert result.weights.shape[1] == 4  # three tokens and <eos>
    assert set(result.to_dict()) == {"source", "target", "weights", "n_unknown", "text"}
    assert (
        translator.translate(f"{known[0]} zebra {known[1]}")
        == translator.translation(f"{known[0]} zebra {known[1]}").text
    )
    with pytest.raises(ValueError, match="empty sentence"):
        translator.translate("   ")
    with pytest.raises(ValueError, match="max_len=25"):
        translator.translate("the cat " * 13)
    beam = translator.beam_search(list(known[:3]), beam_size=3, max_len=5)
    assert beam.n_unknown == 0
    assert (
        translator.translation(list(known), beam_size=1).target
        == translator.beam_search(known, beam_size=1).target
    )


def test_translating_pairs_in_batches_matches_one_at_a_time(toy_splits, tiny_translator):
    translator = tiny_translator(seed=3)
    translator.model.double().train()
    pairs = toy_splits.val[:7]
    batched = translator.translate_pairs(pairs, batch_size=3, max_len=6)
    alone = [translator.translation(list(p.source), max_len=6).target for p in pairs]
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


KINDS = {
    "bahdanau": ModelConfig(attention="bahdanau", emb_dim=16, hidden_dim=16, attn_dim=16),
    "luong": ModelConfig(attention="luong", emb_dim=16, hidden_dim=16),
    "luong-feeding-local-p": ModelConfig(
        attention="luong", emb_dim=16, hidden_dim=16, input_feeding=True, local_p=True, local_window=2
    ),
    "none": ModelConfig(attention="none", emb_dim=16, hidden_dim=16),
    "transformer": TransformerSizes(d_model=16, num_heads=2, num_layers=1, ff_dim=32),
}


@pytest.mark.parametrize("name", sorted(KINDS))
def test_every_model_kind_translates_the_same_after_a_save_and_load(name, tmp_path, toy_splits, toy_vocabs):
    src_vocab, tgt_vocab = toy_vocabs
    torch.manual_seed(0)
    config = KINDS[name].sized(len(src_vocab), len(tgt_vocab), max_src_len=8)
    model_class = next(c for c in MODEL_KINDS.values() if isinstance(config, c.config_class))
    translator = Translator(model_class(config), src_vocab, tgt_vocab)
    train(
        translator, toy_splits.train, toy_splits.val, TrainConfig(max_epochs=1, batch_size=60), progress=False
    )
    path = translator.save(tmp_path / f"{name}.pt")
    assert torch.load(path, weights_only=True)["kind"] == model_class.kind
    loaded = Translator.load(path, device="cpu")
    assert type(loaded.model) is model_class and loaded.model.config == config
    pairs = toy_splits.val[:12]
    before, after = translator.decode_pairs(pairs), loaded.decode_pairs(pairs)
    assert [h.ids for h in after] == [h.ids for h in before]
    assert [h.score for h in after] == [h.score for h in before]
    assert loaded.translate_pairs(pairs, beam_size=3) == translator.translate_pairs(pairs, beam_size=3)


def test_a_checkpoint_of_the_first_format_loads_as_a_seq2seq_model(tmp_path, tiny_translator):
    translator = tiny_translator()
    stored = torch.load(translator.save(tmp_path / "model.pt"), weights_only=True)
    del stored["kind"]
    stored["format"] = "attnbook-seq2seq-1"  # written before checkpoints named their model's kind
    torch.save(stored, tmp_path / "old.pt")
    loaded = Translator.load(tmp_path / "old.pt", device="cpu")
    assert type(loaded.model) is type(translator.model) and loaded.model.config == translator.model.config
    stored["format"], stored["kind"] = CHECKPOINT_FORMAT, "perceptron"
    torch.save(stored, tmp_path / "odd.pt")
    with pytest.raises(ValueError, match="kind 'perceptron'; this version knows"):
        Translator.load(tmp_path / "odd.pt", device="cpu")
