"""The encoder, the three decoders, the configuration's checks, and greedy and beam search."""

import math

import pytest
import torch

from attnbook.nmt import shipped_export
from attnbook.nmt.data import SentencePair, Vocab, make_batch
from attnbook.nmt.decoders import BahdanauDecoder, LuongDecoder, PlainDecoder
from attnbook.nmt.grammar import generate_pairs
from attnbook.nmt.model import evaluating
from attnbook.nmt.search import beam_search, greedy_decode
from attnbook.nmt.seq2seq import Seq2Seq, Seq2SeqConfig

KINDS = ("bahdanau", "luong", "none")


pytestmark = pytest.mark.usefixtures("one_thread")


@pytest.fixture(scope="module")
def pairs():
    return generate_pairs(40, seed=2, max_src_len=12)


@pytest.fixture(scope="module")
def vocabs(pairs):
    return Vocab.build(p.source for p in pairs), Vocab.build(p.target for p in pairs)


@pytest.fixture
def tiny_model(tiny_translator):
    def make(kind: str, vocabs, seed: int = 0, dtype=torch.float64) -> Seq2Seq:
        sizes = {"emb_dim": 8, "hidden_dim": 12, "attn_dim": 6}
        return tiny_translator(kind, seed, vocabs=vocabs, **sizes).model.to(dtype).eval()

    return make


def test_config_rejects_an_unknown_attention():
    with pytest.raises(ValueError, match="attention must be one of"):
        Seq2SeqConfig(10, 10, attention="dot")


@pytest.mark.parametrize(
    ("choices", "fact"),
    [
        ({"attention": "luong", "luong_score": "dot"}, "luong_score='general'"),
        ({"attention": "luong", "luong_score": "location", "max_src_len": None}, "needs max_src_len"),
        ({"attention": "luong", "luong_score": "cosine"}, "luong_score must be one of"),
        ({"hidden_dim": 0}, "hidden_dim must be at least 1"),
    ],
)
def test_config_refuses_an_impossible_combination_when_built(choices, fact):
    with pytest.raises(ValueError, match=fact):
        Seq2SeqConfig(10, 10, **choices)


@pytest.mark.parametrize("score", ["general", "concat", "location"])
def test_every_possible_luong_score_runs(score, pairs, vocabs, tiny_translator):
    model = tiny_translator("luong", vocabs=vocabs, luong_score=score, max_src_len=12).model
    batch = make_batch(pairs[:3], *vocabs)
    _, weights = model(batch.src, batch.src_mask, batch.tgt_in)
    assert weights.shape == (3, batch.tgt_in.size(1), batch.src.size(1))


def test_evaluating_restores_the_mode_even_after_an_error(vocabs, tiny_model):
    model = tiny_model("bahdanau", vocabs).train()
    with pytest.raises(RuntimeError), evaluating(model):
        assert not model.training
        raise RuntimeError("inside")
    assert model.training


def test_decoder_classes_follow_the_config(vocabs, tiny_model):
    assert isinstance(tiny_model("bahdanau", vocabs).decoder, BahdanauDecoder)
    assert isinstance(tiny_model("luong", vocabs).decoder, LuongDecoder)
    assert isinstance(tiny_model("none", vocabs).decoder, PlainDecoder)


def test_encoder_states_of_a_sentence_do_not_depend_on_the_padding_around_it(pairs, vocabs, tiny_model):
    model = tiny_model("bahdanau", vocabs)
    short = min(pairs, key=lambda p: len(p.source))
    long = max(pairs, key=lambda p: len(p.source))
    alone = make_batch([short], *vocabs)
    padded = make_batch([short, long], *vocabs)
    states_alone, summary_alone = model.encoder(alone.src, alone.src_mask)
    states_padded, summary_padded = model.encoder(padded.src, padded.src_mask)
    n = alone.src.size(1)
    assert padded.src.size(1) > n
    torch.testing.assert_close(states_padded[0, :n], states_alone[0])
    torch.testing.assert_close(summary_padded[0], summary_alone[0])
    assert (states_padded[0, n:] == 0).all()  # the padding has no state
    assert states_padded.shape == (2, padded.src.size(1), 2 * model.config.hidden_dim)


@pytest.mark.parametrize("kind", KINDS)
def test_teacher_forcing_matches_the_step_by_step_loop(kind, pairs, vocabs, tiny_model):
    model = tiny_model(kind, vocabs)
    batch = make_batch(pairs[:6], *vocabs)
    logits, weights = model(batch.src, batch.src_mask, batch.tgt_in)
    memory = model.encode(batch.src, batch.src_mask)
    step_logits, step_weights = model.decoder.forward_stepwise(batch.tgt_in, memory)
    assert logits.shape == (6, batch.tgt_in.size(1), len(vocabs[1]))
    torch.testing.assert_close(logits, step_logits)
    if kind == "none":
        assert weights is None and step_weights is None
    else:
        torch.testing.assert_close(weights, step_weights)


def test_luong_one_call_equals_its_stepwise_mode(pairs, vocabs, tiny_model):
    model = tiny_model("luong", vocabs)
    batch = make_batch(pairs[:6], *vocabs)
    parallel = model(batch.src, batch.src_mask, batch.tgt_in, parallel=True)
    stepwise = model(batch.src, batch.src_mask, batch.tgt_in, parallel=False)
    torch.testing.assert_close(parallel, stepwise)


@pytest.mark.parametrize("kind", ["bahdanau", "luong"])
def test_attention_ignores_padding_and_sums_to_one(kind, pairs, vocabs, tiny_model):
    model = tiny_model(kind, vocabs)
    batch = make_batch(pairs[:8], *vocabs)
    _, weights = model(batch.src, batch.src_mask, batch.tgt_in)
    assert weights.shape == (8, batch.tgt_in.size(1), batch.src.size(1))
    assert (weights.masked_select(~batch.src_mask.unsqueeze(1).expand_as(weights)) == 0).all()
    torch.testing.assert_close(weights.sum(-1), torch.ones(weights.shape[:2], dtype=weights.dtype))


@pytest.mark.parametrize("kind", KINDS)
def test_a_sentence_translates_the_same_alone_or_in_a_padded_batch(kind, pairs, vocabs, tiny_model):
    model = tiny_model(kind, vocabs)
    batch = make_batch(pairs[:5], *vocabs)
    together = greedy_decode(model, batch.src, batch.src_mask, max_len=8)
    for row, pair in enumerate(pairs[:5]):
        alone = make_batch([pair], *vocabs)
        (hyp,) = greedy_decode(model, alone.src, alone.src_mask, max_len=8)
        assert hyp.ids == together[row].ids
        if kind != "none":
            torch.testing.assert_close(hyp.weights, together[row].weights)


@pytest.mark.parametrize("kind", ["bahdanau", "luong"])
def test_greedy_weights_have_one_row_per_token_and_one_column_per_source_token(
    kind, pairs, vocabs, tiny_model
):
    model = tiny_model(kind, vocabs)
    batch = make_batch(pairs[:4], *vocabs)
    for pair, hyp in zip(pairs[:4], greedy_decode(model, batch.src, batch.src_mask, max_len=6), strict=True):
        assert len(hyp.ids) <= 6
        assert hyp.weights.shape == (len(hyp.ids) + hyp.finished, len(pair.source) + 1)
        torch.testing.assert_close(
            hyp.weights.sum(-1), torch.ones(hyp.weights.size(0), dtype=hyp.weights.dtype)
        )


@pytest.mark.parametrize("kind", KINDS)
def test_beam_of_one_is_greedy_search(kind, pairs, vocabs, tiny_model):
    model = tiny_model(kind, vocabs)
    batch = make_batch(pairs[:6], *vocabs)
    greedy = greedy_decode(model, batch.src, batch.src_mask, max_len=7)
    beam = beam_search(model, batch.src, batch.src_mask, beam_size=1, max_len=7)
    for g, b in zip(greedy, beam, strict=True):
        assert g.ids == b.ids and g.finished == b.finished
        assert math.isclose(g.score, b.score, rel_tol=1e-9, abs_tol=1e-9)


def naive_beam_search(model, src, src_mask, beam_size, max_len, length_penalty, coverage_penalty=0.0):
    """One sentence, plain Python lists: the reference the batched search must reproduce."""
    memory = model.encode(src, src_mask)
    # score, tokens, state, finished, attention rows
    beams = [(0.0, [], model.decoder.init_state(memory), False, [])]
    for _ in range(max_len):
        candidates = []
        for score, tokens, state, finished, rows in beams:
            if finished:
                candidates.append((score, tokens, state, True, rows))
                continue
            prev = torch.tensor([tokens[-1] if tokens else Vocab.sos_id])
            logits, new_state, weights = model.decoder.step(prev, state, memory)
            log_probs = torch.log_softmax(logits[0], dim=-1)
            row = [] if weights is None else [weights[0].tolist()]
            for token, lp in enumerate(log_probs.tolist()):
                candidates.append(
                    (score + lp, [*tokens, token], new_state, token == Vocab.eos_id, rows + row)
                )
        beams = sorted(candidates, key=lambda c: -c[0])[:beam_size]
        if all(b[3] for b in beams):
            break

    def normalised(beam):
        length = len(beam[1])
        penalty = 0.0
        if coverage_penalty and beam[4]:  # GNMT: beta * sum_j log(min(sum_i a_ij, 1))
            covered = [sum(column) for column in zip(*beam[4], strict=True)]
            penalty = coverage_penalty * sum(math.log(min(max(c, 1e-6), 1.0)) for c in covered)
        return beam[0] / length**length_penalty + penalty

    best = max(beams, key=normalised)
    ids = best[1][:-1] if best[3] else best[1]
    return ids, best[0]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(
    ("length_penalty", "coverage_penalty"), [(0.0, 0.0), (1.0, 0.0), (0.0, 2.0), (1.0, 0.5)]
)
def test_batched_beam_search_matches_a_naive_one_sentence_search(
    kind, length_penalty, coverage_penalty, pairs, vocabs, tiny_model
):
    model = tiny_model(kind, vocabs, seed=3)
    batch = make_batch(pairs[:4], *vocabs)
    with torch.no_grad():
        results = beam_search(
            model,
            batch.src,
            batch.src_mask,
            beam_size=3,
            max_len=5,
            length_penalty=length_penalty,
            coverage_penalty=coverage_penalty,
        )
        for row, pair in enumerate(pairs[:4]):
            one = make_batch([pair], *vocabs)
            ids, score = naive_beam_search(
                model, one.src, one.src_mask, 3, 5, length_penalty, coverage_penalty
            )
            assert results[row].ids == ids
            assert math.isclose(results[row].score, score, rel_tol=1e-9, abs_tol=1e-9)


def test_the_coverage_penalty_picks_other_beams_on_a_trained_model_as_the_naive_search_does():
    """On the shipped model, whose attention is peaked, a coverage penalty changes the chosen translation of
    some sentences, and the batched search still chooses what the one-sentence search chooses."""
    translator = shipped_export().to_translator()
    model = translator.model.double()
    sentences = [
        "Tom wants to go with Mary to the station.",
        "I don't know what you want me to do.",
        "Can you read?",
        "She bought a red car and a blue bicycle.",
        "We have to leave before it starts to rain.",
        "He said that he would come back tomorrow.",
    ]
    pairs = [SentencePair(tuple(translator.tokenizer.source(s)), ("<unk>",)) for s in sentences]
    batch = translator.batch(pairs)
    changed = 0
    with torch.no_grad():
        plain = beam_search(model, batch.src, batch.src_mask, beam_size=3, max_len=12)
        covered = beam_search(model, batch.src, batch.src_mask, beam_size=3, max_len=12, coverage_penalty=3.0)
        for row, pair in enumerate(pairs):
            one = translator.batch([pair])
            ids, score = naive_beam_search(model, one.src, one.src_mask, 3, 12, 0.0, 3.0)
            assert covered[row].ids == ids
            assert math.isclose(covered[row].score, score, rel_tol=1e-9, abs_tol=1e-9)
            changed += covered[row].ids != plain[row].ids
    assert changed >= 1


def test_beam_search_returns_the_weights_of_the_chosen_beam(pairs, vocabs, tiny_model):
    model = tiny_model("bahdanau", vocabs, seed=1)
    batch = make_batch(pairs[:3], *vocabs)
    for pair, hyp in zip(
        pairs[:3], beam_search(model, batch.src, batch.src_mask, beam_size=4, max_len=6), strict=True
    ):
        assert hyp.weights.shape == (len(hyp.ids) + hyp.finished, len(pair.source) + 1)
        torch.testing.assert_close(
            hyp.weights.sum(-1), torch.ones(hyp.weights.size(0), dtype=hyp.weights.dtype)
        )


def test_beam_size_must_be_positive(pairs, vocabs, tiny_model):
    model = tiny_model("bahdanau", vocabs)
    batch = make_batch(pairs[:1], *vocabs)
    with pytest.raises(ValueError, match="beam_size must be at least 1"):
        beam_search(model, batch.src, batch.src_mask, beam_size=0)


def test_an_all_padding_source_row_is_a_clear_error(vocabs, tiny_model):
    model = tiny_model("bahdanau", vocabs)
    src = torch.zeros(1, 3, dtype=torch.long)
    with pytest.raises(ValueError, match="at least one token"):
        model.encode(src, src != 0)


def test_baseline_sees_the_source_only_through_its_summary(pairs, vocabs, tiny_model):
    model = tiny_model("none", vocabs)
    batch = make_batch(pairs[:2], *vocabs)
    memory = model.encode(batch.src, batch.src_mask)
    scrambled = type(memory)(torch.randn_like(memory.states), memory.mask, memory.final)
    torch.testing.assert_close(
        model.decoder(batch.tgt_in, memory)[0], model.decoder(batch.tgt_in, scrambled)[0]
    )


def test_models_run_on_float32_by_default(vocabs, tiny_translator):
    src_vocab, tgt_vocab = vocabs
    model = tiny_translator(vocabs=vocabs, emb_dim=4, hidden_dim=4, attn_dim=4).model
    batch = make_batch([SentencePair(("the", "cat", "sleeps"), ("le", "chat", "dort"))], src_vocab, tgt_vocab)
    logits, weights = model(batch.src, batch.src_mask, batch.tgt_in)
    assert logits.dtype == weights.dtype == torch.float32


@pytest.mark.parametrize("kind", KINDS)
def test_dropout_changes_training_only_and_at_zero_draws_nothing(kind, pairs, vocabs):
    batch = make_batch(pairs[:6], *vocabs)

    def build(dropout: float) -> Seq2Seq:
        torch.manual_seed(0)
        config = Seq2SeqConfig(
            len(vocabs[0]),
            len(vocabs[1]),
            attention=kind,
            emb_dim=8,
            hidden_dim=12,
            attn_dim=6,
            dropout=dropout,
        )
        return Seq2Seq(config).double()

    plain, dropped = build(0.0), build(0.5)
    # the same weights: dropout adds no parameter
    weights = [model.state_dict() for model in (plain, dropped)]
    assert weights[0].keys() == weights[1].keys()
    assert all(torch.equal(weights[0][name], weights[1][name]) for name in weights[0])
    logits = {
        name: model(batch.src, batch.src_mask, batch.tgt_in)[0]
        for name, model in (("plain", plain), ("dropped", dropped))
    }
    assert not torch.allclose(logits["plain"], logits["dropped"])  # training mode drops features
    with evaluating(plain), evaluating(dropped):
        torch.testing.assert_close(
            dropped(batch.src, batch.src_mask, batch.tgt_in)[0],
            plain(batch.src, batch.src_mask, batch.tgt_in)[0],
        )
    # at 0 no module is built, so no random number is drawn: the generator is where it was
    state = torch.random.get_rng_state()
    plain(batch.src, batch.src_mask, batch.tgt_in)
    assert torch.equal(torch.random.get_rng_state(), state)
    with pytest.raises(ValueError, match="dropout must be below 1"):
        Seq2SeqConfig(5, 5, dropout=1.0)
