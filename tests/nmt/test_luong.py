"""Luong's refinements: local-p attention, input feeding, their configuration, command line and scores."""

import json
import math
from dataclasses import replace

import pytest
import torch

from attnbook.cli import main
from attnbook.core.alignment import attention_entropy
from attnbook.layers.local import LocalPAttention
from attnbook.nmt.alignment_metrics import alignment_error_rate
from attnbook.nmt.attention_analysis import teacher_forced_attention
from attnbook.nmt.decoders import LuongDecoder
from attnbook.nmt.evaluation import attention_scores
from attnbook.nmt.search import beam_search, greedy_decode
from attnbook.nmt.seq2seq import Seq2SeqConfig
from attnbook.nmt.training import TrainConfig, train, validation_loss
from attnbook.nmt.translator import Translator
from attnbook.studies.experiment import ExperimentConfig, ModelConfig

pytestmark = pytest.mark.usefixtures("one_thread")


def local_attention(window=2, score="general", seed=0):
    torch.manual_seed(seed)
    return LocalPAttention(query_dim=5, key_dim=6, score=score, window=window).double()


def naive_local_p(module, query, keys, mask):
    """Local-p weights one row at a time, from the paper's formulas (an independent oracle)."""
    batch, tgt_len, _ = query.shape
    src_len = keys.shape[1]
    weights = torch.zeros(batch, tgt_len, src_len, dtype=query.dtype)
    for b in range(batch):
        length = int(mask[b].sum())
        for t in range(tgt_len):
            h = query[b, t]
            v_p, w_p = module.position_v.weight[0], module.position_proj.weight
            p = (length - 1) * torch.sigmoid(v_p @ torch.tanh(w_p @ h))
            window = [s for s in range(length) if abs(s - p) <= module.window]
            scores = torch.stack([h @ module.scorer.key_proj.weight @ keys[b, s] for s in window])
            align = torch.softmax(scores, dim=0)
            for a, s in zip(align, window, strict=True):
                weights[b, t, s] = a * math.exp(-((s - p) ** 2) / (2 * (module.window / 2) ** 2))
    return weights


@pytest.fixture
def inputs():
    torch.manual_seed(1)
    query = torch.randn(3, 4, 5, dtype=torch.float64)
    keys = torch.randn(3, 9, 6, dtype=torch.float64)
    lengths = torch.tensor([9, 5, 1])  # the last sentence: <eos> alone
    mask = torch.arange(9) < lengths.unsqueeze(1)
    return query, keys, mask


def test_local_p_matches_the_formulas_row_by_row(inputs):
    query, keys, mask = inputs
    module = local_attention()
    context, weights = module(query, keys, mask=mask)
    with torch.no_grad():
        expected = naive_local_p(module, query, keys, mask)
    torch.testing.assert_close(weights, expected)
    torch.testing.assert_close(context, expected @ keys)
    assert weights.shape == (3, 4, 9) and context.shape == (3, 4, 6)


def test_local_p_weights_are_zero_outside_the_window_and_on_padding(inputs):
    query, keys, mask = inputs
    module = local_attention(window=2)
    _, weights = module(query, keys, mask=mask)
    centre = module.centre(query, mask).unsqueeze(-1)
    outside = (torch.arange(9) - centre).abs() > module.window
    assert bool((weights[outside] == 0).all())
    assert bool((weights[~mask.unsqueeze(1).expand_as(weights)] == 0).all())
    row_sums = weights.sum(-1)
    assert bool((row_sums <= 1 + 1e-12).all()) and bool((row_sums > 0).all())
    assert not bool(torch.isnan(weights).any())
    assert bool((centre[2] == 0).all()) and bool((weights[2, :, 0] == 1).all())  # one position: all on it


def test_local_p_one_step_equals_all_steps_and_its_gradients_check(inputs):
    query, keys, mask = inputs
    module = local_attention(score="concat")
    _, all_steps = module(query, keys, mask=mask)
    _, one_step = module(query[:, 1], keys, mask=mask)
    torch.testing.assert_close(one_step, all_steps[:, 1])
    query.requires_grad_(True)
    keys.requires_grad_(True)
    assert torch.autograd.gradcheck(lambda q, k: module(q, k, mask=mask)[0], (query, keys))


def test_local_p_refuses_a_bad_window_and_a_bad_mask(inputs):
    query, keys, mask = inputs
    with pytest.raises(ValueError, match="window"):
        LocalPAttention(5, 6, window=0)
    with pytest.raises(TypeError, match="mask must be a boolean tensor"):  # as every attention module
        local_attention()(query, keys, mask=mask.long())
    with pytest.raises(ValueError, match="mask must have shape"):
        local_attention()(query, keys, mask=mask[:, :-1])


@pytest.fixture
def variant(tiny_translator):
    def make(vocabs, seed=0, **choices) -> Translator:
        choices = {"emb_dim": 8, "hidden_dim": 10, "attn_dim": 64, **choices}
        return tiny_translator("luong", seed, vocabs=vocabs, **choices)

    return make


def test_input_feeding_feeds_the_attentional_state_into_the_next_step(toy_vocabs, toy_splits, variant):
    translator = variant(toy_vocabs, input_feeding=True)
    decoder = translator.model.decoder
    assert type(decoder) is LuongDecoder and decoder.input_feeding and decoder.rnn.input_size == 8 + 10
    inputs, attentional = [], []
    decoder.rnn.register_forward_hook(lambda m, args, out: inputs.append(args[0]))
    decoder.combine.register_forward_hook(lambda m, args, out: attentional.append(torch.tanh(out)))
    batch = translator.batch(toy_splits.val[:4])
    translator.model(batch.src, batch.src_mask, batch.tgt_in)
    assert len(inputs) == batch.tgt_in.size(1)  # one GRU call per step: the decoder steps
    assert bool((inputs[0][:, 8:] == 0).all())  # s~_0 = 0
    for step in range(1, len(inputs)):
        torch.testing.assert_close(inputs[step][:, 8:], attentional[step - 1])
        assert inputs[step][:, 8:].abs().sum() > 0


def test_input_feeding_changes_what_the_next_step_computes(toy_vocabs, toy_splits, variant):
    decoder = variant(toy_vocabs, input_feeding=True).model.decoder
    translator = variant(toy_vocabs, input_feeding=True)
    batch = translator.batch(toy_splits.val[:4])
    memory = translator.model.encode(batch.src, batch.src_mask)
    decoder = translator.model.decoder
    state = decoder.init_state(memory)
    fed = state.clone()
    fed[:, 10:] = 0.5  # the same s_0, another attentional state
    tokens = batch.tgt_in[:, 0]
    logits, _, _ = decoder.step(tokens, state, memory)
    other, _, _ = decoder.step(tokens, fed, memory)
    assert not torch.allclose(logits, other)


@pytest.mark.parametrize(
    "choices", [{"input_feeding": True}, {"local_p": True}, {"input_feeding": True, "local_p": True}]
)
def test_teacher_forcing_equals_the_steps_search_uses(choices, toy_vocabs, toy_splits, variant):
    translator = variant(toy_vocabs, **choices)
    model = translator.model.double().eval()
    batch = translator.batch(toy_splits.val[:5])
    logits, weights = model(batch.src, batch.src_mask, batch.tgt_in)
    memory = model.encode(batch.src, batch.src_mask)
    stepped, stepped_weights = model.decoder.forward_stepwise(batch.tgt_in, memory)
    torch.testing.assert_close(logits, stepped)
    torch.testing.assert_close(weights, stepped_weights)
    assert bool((weights.masked_select(~batch.src_mask.unsqueeze(1)) == 0).all())
    greedy = greedy_decode(model, batch.src, batch.src_mask, max_len=12)
    beams = beam_search(model, batch.src[:1], batch.src_mask[:1], beam_size=3, max_len=12)
    assert greedy is not None and beams is not None


@pytest.mark.parametrize("choices", [{}, {"input_feeding": True}])
def test_the_general_score_projects_the_keys_once_per_sentence_with_the_same_result(
    choices, toy_vocabs, toy_splits, variant
):
    translator = variant(toy_vocabs, luong_score="general", **choices)
    model = translator.model.eval()
    batch = translator.batch(toy_splits.val[:5])
    memory = model.encode(batch.src, batch.src_mask)
    assert memory.projected_keys is not None and memory.projected_keys.shape == (5, batch.src.size(1), 10)
    calls = []
    model.decoder.attention.key_proj.register_forward_hook(lambda *_: calls.append(1))
    with torch.no_grad():
        prepared = model.decoder(batch.tgt_in, memory)
        assert calls == []  # no step projects the keys again
        unprepared = model.decoder(batch.tgt_in, replace(memory, projected_keys=None))
    assert len(calls) == (batch.tgt_in.size(1) if choices else 1)  # unprepared: every step projects
    for got, want in zip(prepared, unprepared, strict=True):
        torch.testing.assert_close(got, want, rtol=0, atol=0)


def test_local_p_alone_keeps_the_parallel_decoder(toy_vocabs, variant):
    decoder = variant(toy_vocabs, local_p=True, local_window=3).model.decoder
    assert isinstance(decoder, LuongDecoder) and isinstance(decoder.attention, LocalPAttention)
    assert decoder.attention.window == 3 and isinstance(decoder.rnn, torch.nn.GRU)


def test_an_input_fed_local_p_model_learns_its_training_pairs(toy_vocabs, toy_splits, variant):
    translator = variant(toy_vocabs, seed=3, input_feeding=True, local_p=True, emb_dim=16, hidden_dim=24)
    pairs = toy_splits.train[:16]
    before = validation_loss(translator, pairs).loss  # the loss on the training pairs themselves
    config = TrainConfig(max_epochs=40, batch_size=16, lr=1e-2, patience=1000, keep_best=False)
    train(translator, pairs, toy_splits.val[:4], config, progress=False)
    after = validation_loss(translator, pairs)
    assert after.loss < 0.2 * before
    assert after.token_accuracy > 0.8


@pytest.mark.parametrize(
    ("choices", "fact"),
    [
        ({"attention": "bahdanau", "input_feeding": True}, "input_feeding=True belongs to Luong's decoder"),
        ({"attention": "none", "local_p": True}, "use attention='luong'"),
        ({"attention": "luong", "local_p": True, "local_window": 0}, "local_window"),
    ],
)
def test_impossible_combinations_are_refused_when_built(choices, fact):
    with pytest.raises(ValueError, match=fact):
        Seq2SeqConfig(10, 10, **choices)
    with pytest.raises(ValueError, match=fact):
        ExperimentConfig(model=ModelConfig(**choices))


TINY = ["--n-train", "120", "--n-val", "20", "--n-test", "30", "--epochs", "1", "--hidden-dim", "8"]


def test_the_command_line_trains_an_input_fed_local_p_model(capsys, summary_keys):
    flags = ["--attention", "luong", "--input-feeding", "--local-p", "--local-window", "2", "--json"]
    assert main(["train", "--device", "cpu", "--threads", "1", *flags, *TINY]) == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert set(summary) == summary_keys
    config = summary["config"]
    assert (config["input_feeding"], config["local_p"], config["local_window"]) == (True, True, 2)
    assert 0.0 <= summary["aer"] <= 1.0
    assert 0.0 <= summary["attention_mass"] <= 1.0 and summary["mean_entropy"] >= 0.0


def test_the_command_line_refuses_input_feeding_without_luong(capsys):
    assert main(["train", "--device", "cpu", "--attention", "bahdanau", "--input-feeding", *TINY]) == 2
    assert "--attention luong" in capsys.readouterr().err


def test_attention_scores_match_their_definitions(toy_splits, tiny_translator):
    translator = tiny_translator(attention="luong")
    pairs = toy_splits.test[:20]
    scores, entropy = attention_scores(translator, pairs)
    weights = teacher_forced_attention(translator, pairs)
    rows = [attention_entropy(m[: len(p.target)]) for m, p in zip(weights, pairs, strict=True)]
    assert entropy == pytest.approx(torch.cat(rows).mean().item())
    lengths = [len(p.target) for p in pairs]
    expected = alignment_error_rate(
        weights, [p.sure_links() for p in pairs], [p.links() for p in pairs], tgt_lengths=lengths
    )
    assert scores.aer == expected  # against the sure and the possible links
    assert expected != alignment_error_rate(weights, [p.links() for p in pairs], tgt_lengths=lengths)
    assert 0.0 <= scores.mass <= 1.0


@pytest.mark.parametrize(
    "choices",
    [{}, {"input_feeding": True}, {"local_p": True}, {"input_feeding": True, "local_p": True}],
    ids=["global", "feeding", "local-p", "both"],
)
def test_every_parameter_of_a_luong_decoder_is_used(choices, variant, toy_vocabs, toy_splits):
    # one decoder class, its parts chosen once when built: no module is built and left unused
    translator = variant(toy_vocabs, **choices)
    batch = translator.batch(toy_splits.val[:4])
    logits, _ = translator.model(batch.src, batch.src_mask, batch.tgt_in)
    logits.sum().backward()
    unused = [name for name, p in translator.model.named_parameters() if p.grad is None]
    assert unused == []
    assert type(translator.model.decoder) is LuongDecoder
