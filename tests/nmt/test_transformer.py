"""attnbook.nmt.transformer: shapes, the causal decoder, cached decoding equal to the parallel pass, training."""

from __future__ import annotations

import math

import pytest
import torch

from attnbook import causal_mask
from attnbook.checks.transformer import check_decoder_mask, check_multihead_attention
from attnbook.nmt.attention_analysis import alignment_accuracy, head_alignment_accuracy
from attnbook.nmt.data import Vocab, make_batch
from attnbook.nmt.evaluation import evaluate
from attnbook.nmt.grammar import make_splits
from attnbook.nmt.search import beam_search, greedy_decode
from attnbook.nmt.training import TrainConfig, train
from attnbook.nmt.transformer import (
    EncoderLayer,
    Transformer,
    TransformerConfig,
    sinusoidal_positions,
    train_neighbour_copier,
)
from attnbook.nmt.translator import Translator

pytestmark = pytest.mark.usefixtures("one_thread")


@pytest.fixture(scope="module")
def toy():
    splits = make_splits(300, 40, 40, seed=3, max_src_len=10)
    src_vocab = Vocab.build(p.source for p in splits.train)
    tgt_vocab = Vocab.build(p.target for p in splits.train)
    return splits, src_vocab, tgt_vocab


@pytest.fixture
def small_model(tiny_translator):
    def make(src_vocab, tgt_vocab, seed=0, **sizes) -> Transformer:
        return tiny_translator("transformer", seed, vocabs=(src_vocab, tgt_vocab), **sizes).model

    return make


def test_shapes_of_logits_and_of_every_heads_cross_attention(toy, small_model):
    splits, src_vocab, tgt_vocab = toy
    model = small_model(src_vocab, tgt_vocab, num_layers=3)
    batch = make_batch(splits.train[:5], src_vocab, tgt_vocab)
    logits, weights = model(batch.src, batch.src_mask, batch.tgt_in)
    (batch_size, src_len), tgt_len = batch.src.shape, batch.tgt_in.shape[1]
    assert logits.shape == (batch_size, tgt_len, len(tgt_vocab))
    assert weights.shape == (batch_size, tgt_len, src_len)
    _, every = model.cross_attention(batch.src, batch.src_mask, batch.tgt_in)
    assert every.shape == (batch_size, 3, 2, tgt_len, src_len)
    torch.testing.assert_close(every[:, -1].mean(dim=1), weights)
    assert bool(every.masked_select(~batch.src_mask[:, None, None, None, :]).eq(0).all())  # no padding


def test_a_target_token_never_changes_the_logits_before_it(toy, small_model):
    splits, src_vocab, tgt_vocab = toy
    model = small_model(src_vocab, tgt_vocab).double().eval()
    batch = make_batch(splits.train[:4], src_vocab, tgt_vocab)
    logits, _ = model(batch.src, batch.src_mask, batch.tgt_in)
    changed = batch.tgt_in.clone()
    changed[:, 3] = (changed[:, 3] + 1) % len(tgt_vocab)
    changed_logits, _ = model(batch.src, batch.src_mask, changed)
    torch.testing.assert_close(changed_logits[:, :3], logits[:, :3])
    assert not torch.allclose(changed_logits[:, 3:], logits[:, 3:])


def test_cached_step_by_step_decoding_equals_the_parallel_pass(toy, small_model):
    splits, src_vocab, tgt_vocab = toy
    model = small_model(src_vocab, tgt_vocab).double().eval()
    batch = make_batch(splits.train[:6], src_vocab, tgt_vocab)
    parallel = model(batch.src, batch.src_mask, batch.tgt_in)
    stepwise = model(batch.src, batch.src_mask, batch.tgt_in, parallel=False)
    torch.testing.assert_close(stepwise[0], parallel[0])
    torch.testing.assert_close(stepwise[1], parallel[1])


def test_position_codes_are_distinct_and_bounded():
    codes = sinusoidal_positions(50, 16)
    assert codes.abs().max() <= 1
    assert torch.cdist(codes, codes).add(torch.eye(50)).min() > 0.1  # no two positions share a code
    with pytest.raises(ValueError, match="even"):
        sinusoidal_positions(4, 5)


def test_config_refuses_heads_that_do_not_divide_the_width():
    with pytest.raises(ValueError, match="divisible by num_heads"):
        TransformerConfig(10, 10, d_model=30, num_heads=4)


def test_the_package_training_loop_and_search_serve_it(toy, small_model):
    splits, src_vocab, tgt_vocab = toy
    model = small_model(src_vocab, tgt_vocab, d_model=32, num_heads=4, ff_dim=64)
    translator = Translator(model, src_vocab, tgt_vocab)
    config = TrainConfig(max_epochs=12, batch_size=32, lr=3e-3, eval_every=50, patience=100)
    result = train(translator, splits.train, splits.val, config, progress=False)
    uniform_loss = math.log(len(tgt_vocab))  # the loss of a model that knows nothing
    assert result.val_history[-1].loss < 0.6 * uniform_loss
    batch = make_batch(splits.val[:8], src_vocab, tgt_vocab)
    greedy = greedy_decode(model, batch.src, batch.src_mask)
    beam_of_one = beam_search(model, batch.src, batch.src_mask, beam_size=1)
    assert [h.ids for h in greedy] == [h.ids for h in beam_of_one]
    scores = evaluate(translator, splits.val)
    assert scores.alignment is not None and 0 <= scores.alignment.accuracy <= 1
    by_head = head_alignment_accuracy(translator, splits.val)
    assert by_head.shape == (2, 4)
    assert bool(((by_head >= 0) & (by_head <= 1)).all())


def test_head_alignment_agrees_with_the_package_scorer_on_a_one_head_model(toy, small_model):
    splits, src_vocab, tgt_vocab = toy
    translator = Translator(
        small_model(src_vocab, tgt_vocab, num_heads=1, num_layers=1), src_vocab, tgt_vocab
    )
    by_head = head_alignment_accuracy(translator, splits.val)
    expected = alignment_accuracy(translator, splits.val).accuracy  # last layer, one head
    assert by_head.item() == pytest.approx(expected)


def test_one_head_copies_one_neighbour_and_two_heads_copy_both():
    _, one_head = train_neighbour_copier(1, steps=300)
    _, two_heads = train_neighbour_copier(2, steps=300)
    assert two_heads.min() > 0.95
    assert one_head.min() < 0.5  # a linear read-out of one average names only one of the two tokens


def test_checkers_pass_the_package_and_fail_common_mistakes():
    def reference_heads(mha, query, keys, values, mask):
        return mha(query, keys, values, mask=mask)

    def without_scaling(mha, query, keys, values, mask):
        context, weights = mha(query * mha.head_dim**0.5, keys, values, mask=mask)
        return context, weights

    assert check_multihead_attention(reference_heads)
    result = check_multihead_attention(without_scaling)
    assert not result and str(result).startswith("✗ failed on case 1 of 3")
    assert "your scores are not divided by sqrt(head_dim)" in str(result)
    assert check_decoder_mask(lambda tgt_mask: tgt_mask[:, None, :] & causal_mask(tgt_mask.shape[1]))
    inverted = check_decoder_mask(lambda tgt_mask: ~(tgt_mask[:, None, :] & causal_mask(tgt_mask.shape[1])))
    assert not inverted and str(inverted).startswith("✗ failed on case 1 of 3")
    assert "your mask is inverted: True must mean may attend" in str(inverted)
    # Two slips at once (inverted, and the padding ignored) match no single slip: the entries are listed.
    wrong = check_decoder_mask(lambda tgt_mask: ~causal_mask(tgt_mask.shape[1]).expand(len(tgt_mask), -1, -1))
    assert not wrong and "mask differs at 9 of 9 entries, e.g. [0, 0, 0]: expected True, got False" in str(
        wrong
    )
    not_boolean = check_decoder_mask(
        lambda tgt_mask: (tgt_mask[:, None, :] & causal_mask(tgt_mask.shape[1])).float()
    )
    assert not not_boolean and "mask should be a boolean tensor (True = may attend)" in str(not_boolean)


def test_a_pre_norm_layer_is_x_plus_its_sublayer_of_the_normed_x():
    torch.manual_seed(0)
    layer = EncoderLayer(8, 2, 16).double()
    states = torch.randn(2, 5, 8, dtype=torch.float64)
    mask = torch.tensor([[True] * 5, [True] * 3 + [False] * 2])
    normed = layer.norm_attn(states)
    after_attention = states + layer.self_attn(normed, normed, mask=mask)[0]
    # the position-wise feed-forward network: W_2 relu(W_1 x + b_1) + b_2
    first, second = layer.feed_forward[0], layer.feed_forward[2]
    hidden = torch.relu(layer.norm_ff(after_attention) @ first.weight.T + first.bias)
    expected = after_attention + hidden @ second.weight.T + second.bias
    torch.testing.assert_close(layer(states, mask), expected)


def test_a_post_norm_layer_is_the_norm_of_x_plus_its_sublayer_of_x():
    torch.manual_seed(0)
    layer = EncoderLayer(8, 2, 16, norm_first=False).double()
    states = torch.randn(2, 5, 8, dtype=torch.float64)
    mask = torch.ones(2, 5, dtype=torch.bool)
    after_attention = layer.norm_attn(states + layer.self_attn(states, states, mask=mask)[0])
    expected = layer.norm_ff(after_attention + layer.feed_forward(after_attention))
    torch.testing.assert_close(layer(states, mask), expected)


def test_post_norm_models_have_no_final_norm_and_decode_step_by_step_as_in_parallel(toy, small_model):
    splits, src_vocab, tgt_vocab = toy
    model = small_model(src_vocab, tgt_vocab, norm_first=False).double().eval()
    assert isinstance(model.encoder.norm, torch.nn.Identity) and isinstance(
        model.decoder.norm, torch.nn.Identity
    )
    batch = make_batch(splits.train[:6], src_vocab, tgt_vocab)
    parallel = model(batch.src, batch.src_mask, batch.tgt_in)
    stepwise = model(batch.src, batch.src_mask, batch.tgt_in, parallel=False)
    torch.testing.assert_close(stepwise[0], parallel[0])


def test_the_default_model_has_no_dropout_modules_and_pre_norm_layers(toy, small_model):
    _, src_vocab, tgt_vocab = toy
    model = small_model(src_vocab, tgt_vocab)
    assert not any(isinstance(module, torch.nn.Dropout) for module in model.modules())
    assert isinstance(model.encoder.norm, torch.nn.LayerNorm)
    assert all(layer.norm_first for layer in [*model.encoder.layers, *model.decoder.layers])


def test_dropout_changes_training_passes_and_is_inactive_in_evaluation_mode(toy, small_model):
    splits, src_vocab, tgt_vocab = toy
    model = small_model(src_vocab, tgt_vocab, dropout=0.3)
    batch = make_batch(splits.train[:4], src_vocab, tgt_vocab)
    model.train()
    first, second = (model(batch.src, batch.src_mask, batch.tgt_in)[0] for _ in range(2))
    assert not torch.allclose(first, second)  # a fresh dropout mask each pass
    model.eval()
    with torch.no_grad():
        evaluated = model(batch.src, batch.src_mask, batch.tgt_in)[0]
        again = model(batch.src, batch.src_mask, batch.tgt_in)[0]
    torch.testing.assert_close(evaluated, again, rtol=0, atol=0)
    # the same weights without dropout give the same evaluation
    plain = small_model(src_vocab, tgt_vocab).eval()
    plain.load_state_dict(model.state_dict())
    with torch.no_grad():
        torch.testing.assert_close(plain(batch.src, batch.src_mask, batch.tgt_in)[0], evaluated)


def test_a_dropout_of_one_or_more_is_refused():
    with pytest.raises(ValueError, match="dropout"):
        TransformerConfig(10, 10, dropout=1.0)
    with pytest.raises(ValueError, match="attention_dropout"):
        TransformerConfig(10, 10, attention_dropout=1.0)


def test_attention_dropout_drops_weights_in_training_only_and_returns_them_whole(toy, small_model):
    splits, src_vocab, tgt_vocab = toy
    model = small_model(src_vocab, tgt_vocab, attention_dropout=0.5)
    dropouts = [m for m in model.modules() if isinstance(m, torch.nn.Dropout)]
    assert len(dropouts) == 3 * 2 and all(d.p == 0.5 for d in dropouts)  # every attention of 2 layers each
    batch = make_batch(splits.train[:4], src_vocab, tgt_vocab)
    model.train()
    (first, weights), (second, _) = (model(batch.src, batch.src_mask, batch.tgt_in) for _ in range(2))
    assert not torch.allclose(first, second)
    # the weights returned are a distribution over the English words, before the dropout
    torch.testing.assert_close(weights.sum(-1), torch.ones(weights.shape[:2]))
    plain = small_model(src_vocab, tgt_vocab).eval()
    plain.load_state_dict(model.state_dict())  # no weights of its own: the same state
    model.eval()
    with torch.no_grad():
        torch.testing.assert_close(
            model(batch.src, batch.src_mask, batch.tgt_in)[0],
            plain(batch.src, batch.src_mask, batch.tgt_in)[0],
        )


def test_without_the_causal_mask_a_later_target_token_changes_the_earlier_logits(toy, small_model):
    splits, src_vocab, tgt_vocab = toy
    model = small_model(src_vocab, tgt_vocab, causal=False).double().eval()
    batch = make_batch(splits.train[:4], src_vocab, tgt_vocab)
    logits, _ = model(batch.src, batch.src_mask, batch.tgt_in)
    changed = batch.tgt_in.clone()
    changed[:, 3] = (changed[:, 3] + 1) % len(tgt_vocab)
    changed_logits, _ = model(batch.src, batch.src_mask, changed)
    assert not torch.allclose(changed_logits[:, :3], logits[:, :3])
    # search decodes one token at a time, so it never sees the future: it differs from the parallel pass
    stepwise, _ = model(batch.src, batch.src_mask, batch.tgt_in, parallel=False)
    assert not torch.allclose(stepwise, logits)


def test_tied_embeddings_share_one_matrix_whose_gradient_sums_both_uses(toy, small_model):
    splits, src_vocab, tgt_vocab = toy
    tied, untied = small_model(src_vocab, tgt_vocab, tie_embeddings=True), small_model(src_vocab, tgt_vocab)
    assert tied.decoder.out.weight is tied.decoder.embed.embedding.weight
    assert untied.decoder.out.weight is not untied.decoder.embed.embedding.weight  # off by default
    count = sum(p.numel() for p in untied.parameters()) - sum(p.numel() for p in tied.parameters())
    assert count == len(tgt_vocab) * tied.config.d_model
    # the same weights in two matrices: the one matrix's gradient is the sum of theirs
    untied.load_state_dict(tied.state_dict())
    batch = make_batch(splits.train[:4], src_vocab, tgt_vocab)
    for model in (tied, untied):
        model(batch.src, batch.src_mask, batch.tgt_in)[0].square().mean().backward()
    torch.testing.assert_close(
        tied.decoder.out.weight.grad,
        untied.decoder.out.weight.grad + untied.decoder.embed.embedding.weight.grad,
    )
