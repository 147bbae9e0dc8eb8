"""The loss, the training loop, the metrics, alignment accuracy, checkpoints and the whole experiment."""

import pytest
import torch
from train_json_keys import REQUIRED_SUMMARY_KEYS

from attnbook.data import CATEGORIES, SentencePair, Vocab, make_batch, make_splits
from attnbook.seq2seq import Seq2Seq, Seq2SeqConfig
from attnbook.training import (
    ExperimentConfig,
    TrainConfig,
    accuracy_with_forced_attention,
    alignment_accuracy,
    evaluate,
    load_checkpoint,
    run_experiment,
    save_checkpoint,
    score_translations,
    sequence_loss,
    teacher_forced_attention,
    train,
    validation_loss,
)

pytestmark = pytest.mark.usefixtures("one_thread")


@pytest.fixture(scope="module")
def splits():
    return make_splits(240, 40, 40, seed=5, max_src_len=8)


@pytest.fixture(scope="module")
def vocabs(splits):
    return Vocab.build(p.source for p in splits.train), Vocab.build(p.target for p in splits.train)


def tiny_model(vocabs, attention="bahdanau", seed=0) -> Seq2Seq:
    torch.manual_seed(seed)
    src_vocab, tgt_vocab = vocabs
    return Seq2Seq(
        Seq2SeqConfig(
            len(src_vocab), len(tgt_vocab), attention=attention, emb_dim=16, hidden_dim=24, attn_dim=16
        )
    )


QUICK = TrainConfig(max_epochs=2, batch_size=32, lr=1e-2, eval_every=4, patience=100, log_every=2)


def test_padding_adds_nothing_to_the_loss_or_the_accuracy():
    torch.manual_seed(0)
    logits = torch.randn(2, 4, 7, requires_grad=True)
    tgt_out = torch.tensor([[4, 5, 2, 0], [6, 2, 0, 0]])
    loss, correct, count = sequence_loss(logits, tgt_out)
    assert count == 5
    real = tgt_out != 0
    expected = -torch.log_softmax(logits, -1).gather(-1, tgt_out.unsqueeze(-1)).squeeze(-1)[real].mean()
    torch.testing.assert_close(loss, expected)
    loss.backward()
    assert (logits.grad[~real] == 0).all()  # no gradient reaches a padded position
    changed = logits.detach().clone()
    changed[~real] = 100.0 * torch.randn_like(changed[~real])
    torch.testing.assert_close(sequence_loss(changed, tgt_out)[0], loss.detach())
    assert sequence_loss(changed, tgt_out)[1] == correct


def test_training_lowers_the_loss_records_a_curve_and_keeps_the_best_weights(splits, vocabs, capsys):
    model = tiny_model(vocabs)
    before = validation_loss(model, splits.val, *vocabs)["loss"]
    result = train(model, splits.train, splits.val, *vocabs, QUICK, progress=False)
    assert result.steps == 2 * 8
    assert [r["step"] for r in result.history] == list(range(2, 17, 2))
    assert result.history[-1]["loss"] < result.history[0]["loss"]
    best = min(result.val_history, key=lambda r: r["loss"])
    assert result.best_step == best["step"] and best["loss"] < before
    assert validation_loss(model, splits.val, *vocabs)["loss"] == pytest.approx(best["loss"], rel=1e-5)
    assert not model.training and result.seconds > 0
    assert capsys.readouterr().err == ""  # progress=False prints nothing


def test_early_stopping_ends_training_when_validation_stops_improving(splits, vocabs):
    model = tiny_model(vocabs)
    frozen = TrainConfig(max_epochs=5, batch_size=32, lr=0.0, eval_every=2, patience=2)
    result = train(model, splits.train, splits.val, *vocabs, frozen, progress=False)
    assert result.stopped_early
    assert result.steps == 6  # validations at steps 2 (best), 4 and 6 (no better): stop
    assert result.best_step == 2


def test_the_same_seed_trains_the_same_weights(splits, vocabs):
    states = []
    for _ in range(2):
        model = tiny_model(vocabs, seed=4)
        train(
            model,
            splits.train[:64],
            splits.val,
            *vocabs,
            TrainConfig(max_epochs=1, batch_size=32),
            progress=False,
        )
        states.append(model.state_dict())
    for name, value in states[0].items():
        torch.testing.assert_close(value, states[1][name], rtol=0, atol=0)


def test_luong_trains_in_one_call_or_step_by_step_to_the_same_weights(splits, vocabs):
    states = []
    for parallel in (True, False):
        model = tiny_model(vocabs, attention="luong", seed=1).double()
        config = TrainConfig(max_epochs=1, batch_size=32, parallel_decoder=parallel)
        train(model, splits.train[:64], splits.val, *vocabs, config, progress=False)
        states.append(model.state_dict())
    for name, value in states[0].items():
        torch.testing.assert_close(value, states[1][name])


def test_training_needs_both_splits(splits, vocabs):
    with pytest.raises(ValueError, match="need training and validation pairs"):
        train(tiny_model(vocabs), splits.train, [], *vocabs, QUICK, progress=False)


def test_translation_metrics_on_hand_made_hypotheses():
    pairs = [
        SentencePair(("a",) * 3, ("le", "petit", "chat", "noir", "dort")),
        SentencePair(("a",) * 10, ("la", "fille", "ne", "chante", "pas")),
    ]
    scores = score_translations(
        [["le", "petit", "chat", "noir", "dort"], ["la", "fille", "ne", "chante"]], pairs
    )
    assert scores["exact_match"] == 0.5
    assert scores["token_accuracy"] == 9 / 10  # the missing word counts against it
    assert scores["exact_match_by_length"] == {"1-8": 1.0, "9-13": 0.0}
    assert scores["count_by_length"] == {"1-8": 1, "9-13": 1}
    assert 0.0 < scores["bleu"] < 100.0
    perfect = score_translations([list(p.target) for p in pairs], pairs)
    assert perfect["bleu"] == pytest.approx(100.0)
    assert perfect["token_accuracy"] == 1.0
    with pytest.raises(ValueError, match="1 hypotheses for 2 pairs"):
        score_translations([["le"]], pairs)


def test_alignment_accuracy_scores_the_argmax_against_the_truth_by_category(monkeypatch):
    pair = SentencePair(
        ("the", "black", "cat"),
        ("le", "chat", "noir"),
        alignment=((0,), (2,), (1,)),
        categories=("article", "noun", "adjective_after"),
    )
    # the article looks at the noun, the noun at the noun, the adjective at the adjective; <eos> row ignored
    weights = torch.tensor(
        [[0.1, 0.2, 0.6, 0.1], [0.0, 0.1, 0.8, 0.1], [0.1, 0.7, 0.1, 0.1], [0.9, 0.0, 0.0, 0.1]]
    )
    monkeypatch.setattr("attnbook.training.teacher_forced_attention", lambda *args, **kwargs: [weights])
    result = alignment_accuracy(None, [pair], None, None)
    assert result.by_category == {"article": 0.0, "noun": 1.0, "adjective_after": 1.0}
    assert result.accuracy == pytest.approx(2 / 3)
    assert result.argmax == [[2, 2, 1]]
    assert result.counts == {"article": 1, "noun": 1, "adjective_after": 1}


def test_alignment_accuracy_needs_true_alignments(vocabs):
    with pytest.raises(ValueError, match="true alignments"):
        alignment_accuracy(tiny_model(vocabs), [SentencePair(("a",), ("b",))], *vocabs)


def test_teacher_forced_attention_gives_one_matrix_per_pair_without_padding(splits, vocabs):
    model = tiny_model(vocabs)
    weights = teacher_forced_attention(model, splits.val[:5], *vocabs)
    for pair, matrix in zip(splits.val[:5], weights, strict=True):
        assert matrix.shape == (len(pair.target) + 1, len(pair.source) + 1)
        torch.testing.assert_close(matrix.sum(-1), torch.ones(matrix.size(0)))
    with pytest.raises(ValueError, match="no attention"):
        teacher_forced_attention(tiny_model(vocabs, attention="none"), splits.val[:2], *vocabs)


def test_evaluate_reports_every_metric_and_counts_unknown_tokens(splits, vocabs):
    model = tiny_model(vocabs)
    unseen = SentencePair(("the", "zebra", "sleeps"), ("le", "zèbre", "dort"))
    result = evaluate(model, splits.test, *vocabs, with_alignment=True)
    summary = result.summary()
    assert 0.0 <= summary["exact_match"] <= summary["token_accuracy"] + 1e-9 <= 1.0 + 1e-9
    assert 0.0 <= summary["alignment_accuracy"] <= 1.0
    assert set(summary["alignment_by_category"]) <= set(CATEGORIES)
    assert sum(result.count_by_length.values()) == len(splits.test)
    assert evaluate(model, [unseen], *vocabs).n_unknown == 2  # "zebra" and "zèbre"
    beam = evaluate(model, splits.test[:5], *vocabs, beam_size=3)
    assert len(beam.hypotheses) == 5
    baseline = evaluate(tiny_model(vocabs, attention="none"), splits.test[:5], *vocabs)
    assert baseline.alignment is None and baseline.summary()["alignment_accuracy"] is None


def test_checkpoint_round_trip_restores_the_model_and_its_vocabularies(tmp_path, splits, vocabs):
    model = tiny_model(vocabs, attention="luong").eval()
    path = save_checkpoint(tmp_path / "ckpt" / "model.pt", model, *vocabs)
    assert isinstance(torch.load(path, weights_only=True), dict)  # plain data: safe to load
    loaded, src_vocab, tgt_vocab = load_checkpoint(path, *vocabs, device="cpu")
    assert (src_vocab, tgt_vocab) == vocabs and loaded.config == model.config
    batch = make_batch(splits.val[:3], *vocabs)
    torch.testing.assert_close(
        loaded(batch.src, batch.src_mask, batch.tgt_in), model(batch.src, batch.src_mask, batch.tgt_in)
    )


def test_a_checkpoint_trained_with_another_vocabulary_is_refused(tmp_path, vocabs):
    src_vocab, tgt_vocab = vocabs
    path = save_checkpoint(tmp_path / "model.pt", tiny_model(vocabs), src_vocab, tgt_vocab)
    other = Vocab([*src_vocab.tokens[4:], "zebra"])
    with pytest.raises(ValueError, match="trained with another vocabulary: its source vocabulary has"):
        load_checkpoint(path, other, tgt_vocab, device="cpu")
    swapped = list(tgt_vocab.tokens[4:])
    swapped[0], swapped[1] = swapped[1], swapped[0]
    with pytest.raises(ValueError, match=r"its target vocabulary has .* at id 4"):
        load_checkpoint(path, src_vocab, Vocab(swapped), device="cpu")


def test_a_file_that_is_not_a_checkpoint_is_refused(tmp_path):
    path = tmp_path / "other.pt"
    torch.save({"weights": torch.zeros(2)}, path)
    with pytest.raises(ValueError, match="not an attnbook seq2seq checkpoint"):
        load_checkpoint(path, device="cpu")


def test_run_experiment_end_to_end_on_a_tiny_configuration():
    config = ExperimentConfig(
        attention="luong",
        n_train=200,
        n_val=30,
        n_test=30,
        max_src_len=8,
        emb_dim=8,
        hidden_dim=16,
        attn_dim=8,
        train=TrainConfig(max_epochs=1, batch_size=50, eval_every=2),
    )
    experiment = run_experiment(config, device="cpu", progress=False)
    summary = experiment.summary()
    assert set(summary) >= REQUIRED_SUMMARY_KEYS
    assert summary["device"] == "cpu" and summary["attention"] == "luong"
    assert experiment.training.steps == 4
    train_sources = {p.source for p in experiment.splits.train}
    assert not train_sources & {p.source for p in experiment.splits.test}


def test_forcing_attention_matches_a_hand_written_decoder_loop(splits, vocabs):
    model = tiny_model(vocabs, seed=2).double().eval()
    pairs = splits.val[:6]
    position = lambda pair, i: len(pair.source)  # noqa: E731 (every noun looks at the source <eos>)
    got = accuracy_with_forced_attention(model, pairs, *vocabs, category="noun", position=position)
    batch = make_batch(pairs, *vocabs)
    decoder = model.decoder
    with torch.no_grad():
        memory = model.encode(batch.src, batch.src_mask)
        state = decoder.init_state(memory)
        correct = total = 0
        for i in range(batch.tgt_in.size(1)):
            embedded = decoder.embedding(batch.tgt_in[:, i])
            context, _ = decoder.attention(state, memory.states, mask=memory.mask)
            for row, pair in enumerate(pairs):
                if i < len(pair.categories) and pair.categories[i] == "noun":
                    context[row] = memory.states[row, len(pair.source)]  # one-hot attention on <eos>
            state = decoder.rnn(torch.cat([embedded, context], dim=-1), state)
            predicted = decoder.out(torch.cat([state, context, embedded], dim=-1)).argmax(-1)
            for row, pair in enumerate(pairs):
                if i < len(pair.categories) and pair.categories[i] == "noun":
                    total += 1
                    correct += int(predicted[row] == batch.tgt_out[row, i])
    assert got == correct / total


def test_no_forcing_gives_the_models_own_accuracy_and_the_hook_is_removed(splits, vocabs):
    for attention in ("bahdanau", "luong"):
        model = tiny_model(vocabs, attention=attention, seed=3).eval()
        pairs = splits.val[:8]
        batch = make_batch(pairs, *vocabs)
        before = model(batch.src, batch.src_mask, batch.tgt_in)[0]
        own = accuracy_with_forced_attention(model, pairs, *vocabs, category="verb", position=None)
        predicted = before.argmax(-1)
        verbs = [(row, i) for row, p in enumerate(pairs) for i, c in enumerate(p.categories) if c == "verb"]
        assert own == sum(int(predicted[r, i] == batch.tgt_out[r, i]) for r, i in verbs) / len(verbs)
        accuracy_with_forced_attention(model, pairs, *vocabs, category="verb", position=lambda p, i: 0)
        torch.testing.assert_close(model(batch.src, batch.src_mask, batch.tgt_in)[0], before)
    with pytest.raises(ValueError, match="no target word of category"):
        accuracy_with_forced_attention(model, pairs, *vocabs, category="elephant", position=None)


def test_the_masked_cross_entropy_checker_passes_a_right_answer_and_explains_wrong_ones():
    import torch.nn.functional as F

    from attnbook.checks_seq2seq import check_masked_cross_entropy

    def right(logits, tgt_out, pad_id):
        real = tgt_out != pad_id
        log_probs = torch.log_softmax(logits, dim=-1).gather(-1, tgt_out.unsqueeze(-1)).squeeze(-1)
        return -(log_probs * real).sum() / real.sum()

    def counts_padding(logits, tgt_out, pad_id):
        return F.cross_entropy(logits.flatten(0, 1), tgt_out.flatten())

    def divides_by_every_position(logits, tgt_out, pad_id):
        real = tgt_out != pad_id
        log_probs = torch.log_softmax(logits, dim=-1).gather(-1, tgt_out.unsqueeze(-1)).squeeze(-1)
        return -(log_probs * real).sum() / real.numel()

    def crashes(logits, tgt_out, pad_id):
        raise NotImplementedError("write me")

    assert check_masked_cross_entropy(right).passed
    result = check_masked_cross_entropy(counts_padding)
    assert not result and "padded positions counted" in result.message
    assert not check_masked_cross_entropy(divides_by_every_position)
    crashed = check_masked_cross_entropy(crashes)
    assert not crashed and "NotImplementedError" in crashed.message


def test_keep_best_false_ends_with_the_last_weights(splits, vocabs):
    model = tiny_model(vocabs)
    config = TrainConfig(max_epochs=2, batch_size=32, lr=1e-2, eval_every=3, patience=100, keep_best=False)
    result = train(model, splits.train, splits.val, *vocabs, config, progress=False)
    assert result.val_history[-1]["step"] == result.steps
    assert validation_loss(model, splits.val, *vocabs)["loss"] == pytest.approx(
        result.val_history[-1]["loss"], rel=1e-5
    )
