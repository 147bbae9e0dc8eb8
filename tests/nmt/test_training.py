"""The loss and the training loop."""

import math
from dataclasses import astuple, replace

import pytest
import torch

from attnbook.nmt.side_by_side import TrainingRun, train_side_by_side
from attnbook.nmt.training import LossRecord, Schedule, TrainConfig, sequence_loss, train, validation_loss

pytestmark = pytest.mark.usefixtures("one_thread")


@pytest.fixture
def learning_rates(monkeypatch):
    """The learning rate of every optimiser step taken during the test, in order."""
    seen = []
    original_step = torch.optim.Adam.step

    def recording_step(self, *args, **kwargs):
        seen.append(self.param_groups[0]["lr"])
        return original_step(self, *args, **kwargs)

    monkeypatch.setattr(torch.optim.Adam, "step", recording_step)
    return seen


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


@pytest.mark.parametrize("kind", ["bahdanau", "luong", "none", "transformer"])
@pytest.mark.parametrize("parallel", [True, False])
def test_the_kept_positions_logits_are_the_full_logits_rows_and_give_the_same_loss(
    kind, parallel, toy_splits, tiny_translator
):
    translator = tiny_translator(kind)
    model = translator.model.double()
    batch = next(translator.batches(toy_splits.train[:12], 12))
    real = batch.tgt_out != 0
    assert not real.all()  # the batch holds padding for keep to skip
    full, weights = model(batch.src, batch.src_mask, batch.tgt_in, parallel=parallel)
    kept, kept_weights = model(batch.src, batch.src_mask, batch.tgt_in, parallel=parallel, keep=real)
    assert kept.shape == (int(real.sum()), full.size(-1))
    torch.testing.assert_close(kept, full[real])
    if weights is not None:
        torch.testing.assert_close(kept_weights, weights)
    for smoothing in (0.0, 0.1):
        padded = sequence_loss(full, batch.tgt_out, label_smoothing=smoothing)
        rows = sequence_loss(kept, batch.tgt_out[real], label_smoothing=smoothing)
        torch.testing.assert_close(rows[0], padded[0])
        assert rows[1:] == padded[1:]


def test_training_lowers_the_loss_records_a_curve_and_keeps_the_best_weights(
    toy_splits, tiny_translator, capsys
):
    translator = tiny_translator()
    before = validation_loss(translator, toy_splits.val).loss
    result = train(translator, toy_splits.train, toy_splits.val, QUICK, progress=False)
    assert result.steps == 2 * 8
    assert [r.step for r in result.history] == list(range(2, 17, 2))
    assert result.history[-1].loss < result.history[0].loss
    best = min(result.val_history, key=lambda r: r.loss)
    assert result.best_step == best.step and best.loss < before
    assert validation_loss(translator, toy_splits.val).loss == pytest.approx(best.loss, rel=1e-5)
    assert not translator.model.training and result.seconds > 0
    assert isinstance(result.history[0], LossRecord) and set(result.to_dict()) >= {"history", "best_step"}
    assert capsys.readouterr().err == ""  # progress=False prints nothing


def test_early_stopping_ends_training_when_validation_stops_improving(toy_splits, tiny_translator):
    frozen = TrainConfig(max_epochs=5, batch_size=32, lr=0.0, eval_every=2, patience=2)
    result = train(tiny_translator(), toy_splits.train, toy_splits.val, frozen, progress=False)
    assert result.stopped_early
    assert result.steps == 6  # validations at steps 2 (best), 4 and 6 (no better): stop
    assert result.best_step == 2


def test_min_delta_counts_only_large_falls_for_patience_and_keeps_the_lowest_weights(
    toy_splits, tiny_translator, monkeypatch
):
    losses = iter([1.0, 0.95, 0.5, 0.48, 0.47, 0.46, 0.1])  # falls of 0.05, 0.45, 0.02, 0.01, 0.01, ...
    monkeypatch.setattr(
        "attnbook.nmt.training.validation_loss", lambda *args, **kwargs: LossRecord(0, next(losses), 0.5)
    )
    config = TrainConfig(max_epochs=5, batch_size=32, eval_every=1, patience=3, min_delta=0.1)
    result = train(tiny_translator(), toy_splits.train, toy_splits.val, config, progress=False)
    # 0.95 is not 0.1 below 1.0 (1 bad check); 0.5 counts (reset); 0.48, 0.47, 0.46 do not: stop at step 6
    assert result.stopped_early and result.steps == 6
    assert result.best_step == 6  # the lowest loss is still the one whose weights are kept
    plain = TrainConfig(max_epochs=5, batch_size=32, eval_every=1, patience=3)
    losses = iter([1.0, 0.95, 0.5, 0.48, 0.47, 0.46, 0.1, 0.09, 0.08, 0.07])
    assert train(tiny_translator(), toy_splits.train[:64], toy_splits.val, plain, progress=False).steps == 10
    with pytest.raises(ValueError, match="min_delta"):
        TrainConfig(min_delta=-0.1)


def test_lr_drops_halve_the_rate_when_patience_runs_out_and_stop_at_the_next(
    toy_splits, tiny_translator, monkeypatch, learning_rates
):
    monkeypatch.setattr(
        "attnbook.nmt.training.validation_loss", lambda *args, **kwargs: LossRecord(0, 1.0, 0.5)
    )  # a loss that falls once (from infinity) and never again: patience runs out every 2 validations
    translator = tiny_translator()
    config = TrainConfig(max_epochs=5, batch_size=32, lr=1e-2, eval_every=1, patience=2, lr_drops=2)
    result = train(translator, toy_splits.train, toy_splits.val, config, progress=False)
    # the first validation (step 1) counts; steps 2 and 3 do not: halve; 4 and 5: halve; 6 and 7: stop
    assert result.lr_drop_steps == (3, 5) and result.steps == 7 and result.stopped_early
    assert learning_rates == pytest.approx([1e-2] * 3 + [5e-3] * 2 + [2.5e-3] * 2)
    with pytest.raises(ValueError, match="lr_drops"):
        TrainConfig(lr_drops=-1)


def test_the_same_seed_trains_the_same_weights(toy_splits, tiny_translator):
    states = []
    for _ in range(2):
        translator = tiny_translator(seed=4)
        config = TrainConfig(max_epochs=1, batch_size=32)
        train(translator, toy_splits.train[:64], toy_splits.val, config, progress=False)
        states.append(translator.model.state_dict())
    for name, value in states[0].items():
        torch.testing.assert_close(value, states[1][name], rtol=0, atol=0)


def test_luong_trains_in_one_call_or_step_by_step_to_the_same_weights(toy_splits, tiny_translator):
    states = []
    for parallel in (True, False):
        translator = tiny_translator(attention="luong", seed=1)
        translator.model.double()
        config = TrainConfig(max_epochs=1, batch_size=32, parallel_decoder=parallel)
        train(translator, toy_splits.train[:64], toy_splits.val, config, progress=False)
        states.append(translator.model.state_dict())
    for name, value in states[0].items():
        torch.testing.assert_close(value, states[1][name])


def test_training_needs_both_splits(toy_splits, tiny_translator):
    with pytest.raises(ValueError, match="need training and validation pairs"):
        train(tiny_translator(), toy_splits.train, [], QUICK, progress=False)


def test_keep_best_false_ends_with_the_last_weights(toy_splits, tiny_translator):
    translator = tiny_translator()
    config = TrainConfig(max_epochs=2, batch_size=32, lr=1e-2, eval_every=3, patience=100, keep_best=False)
    result = train(translator, toy_splits.train, toy_splits.val, config, progress=False)
    assert result.val_history[-1].step == result.steps
    assert validation_loss(translator, toy_splits.val).loss == pytest.approx(
        result.val_history[-1].loss, rel=1e-5
    )


@pytest.mark.parametrize(
    ("field", "value"), [("max_epochs", 0), ("batch_size", 0), ("lr", -1.0), ("patience", 0)]
)
def test_a_train_config_below_a_minimum_is_refused_when_built(field, value):
    with pytest.raises(ValueError, match=f"{field} must be at least"):
        TrainConfig(**{field: value})


def test_the_masked_cross_entropy_checker_passes_a_right_answer_and_explains_wrong_ones():
    import torch.nn.functional as F

    from attnbook.checks.seq2seq import check_masked_cross_entropy

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
    assert not result and result.message.startswith("✗ failed on case 2 of 4")
    assert "the padded positions counted in the loss" in result.message
    every_position = check_masked_cross_entropy(divides_by_every_position)
    assert not every_position and "your mean divides by every position" in every_position.message
    crashed = check_masked_cross_entropy(crashes)
    assert not crashed and crashed.message.startswith("✗ failed on case 1 of 4")
    assert "your function raised NotImplementedError: write me" in crashed.message


def test_sequence_loss_takes_the_padding_id_and_defaults_to_the_vocabularies():
    logits = torch.randn(2, 4, 7, generator=torch.Generator().manual_seed(0))
    tgt_out = torch.tensor([[4, 5, 2, 0], [6, 2, 0, 0]])
    loss, correct, count = sequence_loss(logits, tgt_out, pad_id=2)  # the 2s are padding now, the 0s words
    assert count == 6
    real = tgt_out != 2
    expected = -torch.log_softmax(logits, -1).gather(-1, tgt_out.unsqueeze(-1)).squeeze(-1)[real].mean()
    torch.testing.assert_close(loss, expected)
    assert correct == ((logits.argmax(-1) == tgt_out) & real).sum()
    assert sequence_loss(logits, tgt_out)[2] == 5  # the default: Vocab.pad_id, 0


@pytest.mark.parametrize("lr_decay", [False, True])
def test_lr_decay_lowers_the_learning_rate_linearly_to_zero_and_is_off_by_default(
    toy_splits, tiny_translator, learning_rates, lr_decay
):
    config = TrainConfig(max_epochs=2, batch_size=100, lr=1e-3, eval_every=100, lr_decay=lr_decay)
    assert not TrainConfig().lr_decay
    train(tiny_translator(), toy_splits.train, toy_splits.val, config, progress=False)
    planned = 2 * math.ceil(len(toy_splits.train) / 100)
    expected = [1e-3 * (1 - step / planned) if lr_decay else 1e-3 for step in range(planned)]
    assert learning_rates == pytest.approx(expected)


def test_models_trained_side_by_side_are_bit_for_bit_those_trained_one_after_the_other(
    toy_splits, tiny_translator
):
    kinds = (("bahdanau", 4), ("none", 5), ("luong", 6))
    config = TrainConfig(max_epochs=2, batch_size=32, eval_every=3)
    alone = []
    for attention, seed in kinds:
        translator = tiny_translator(attention=attention, seed=seed)
        result = train(translator, toy_splits.train[:96], toy_splits.val, config, progress=False)
        alone.append((translator, result))
    together = [tiny_translator(attention=attention, seed=seed) for attention, seed in kinds]
    results = train_side_by_side(
        [TrainingRun(translator, toy_splits.train[:96], toy_splits.val, config) for translator in together]
    )
    assert len(results) == len(kinds)
    for (translator, result), twin, twin_result in zip(alone, together, results, strict=True):
        assert [r.loss for r in twin_result.val_history] == [r.loss for r in result.val_history]
        assert twin_result.best_step == result.best_step and twin_result.steps == result.steps
        for name, value in translator.model.state_dict().items():
            torch.testing.assert_close(twin.model.state_dict()[name], value, rtol=0, atol=0)


def test_a_run_that_fails_side_by_side_raises_its_own_error(toy_splits, tiny_translator):
    runs = [
        TrainingRun(tiny_translator(), toy_splits.train[:32], toy_splits.val, TrainConfig(max_epochs=1)),
        TrainingRun(tiny_translator(), toy_splits.train[:32], [], TrainConfig(max_epochs=1)),
    ]
    with pytest.raises(ValueError, match="need training and validation pairs"):
        train_side_by_side(runs)


def decisions(schedule, losses, first_step=1):
    """(best, halve, stop) for each validation loss in turn, the n-th measured after step first_step + n."""
    return [astuple(schedule.observe(step, loss)) for step, loss in enumerate(losses, start=first_step)]


def test_schedule_counts_patience_from_the_last_fall_larger_than_min_delta():
    schedule = Schedule(lr=1.0, planned_steps=100, patience=3, min_delta=0.1)
    # 0.95 is not 0.1 below 1.0; 0.5 is (patience starts again); 0.48, 0.47, 0.46 are not: stop
    assert decisions(schedule, [1.0, 0.95, 0.5, 0.48, 0.47, 0.46]) == [
        (True, False, False),
        (True, False, False),
        (True, False, False),
        (True, False, False),
        (True, False, False),
        (True, False, True),
    ]
    assert (schedule.best_loss, schedule.best_step, schedule.counted_loss) == (0.46, 6, 0.5)
    assert schedule.lr_drop_steps == [] and schedule.rate(7) == 1.0


def test_schedule_halves_the_rate_when_patience_runs_out_and_stops_when_no_halving_is_left():
    schedule = Schedule(lr=0.01, planned_steps=100, patience=2, lr_drops=2)
    losses = [1.0, 1.0, 1.2, 0.9, 0.95, 0.97, 0.96, 0.99]
    assert decisions(schedule, losses, first_step=10) == [
        (True, False, False),  # step 10: the first loss always counts
        (False, False, False),  # an equal loss is not lower
        (False, True, False),  # step 12: the second in a row that does not count: halve
        (True, False, False),  # step 13: a fall starts patience again
        (False, False, False),
        (False, True, False),  # step 15: halve again, the last halving allowed
        (False, False, False),
        (False, False, True),  # step 17: patience runs out with no halving left
    ]
    assert schedule.lr_drop_steps == [12, 15] and schedule.best_step == 13
    assert schedule.rate(18) == 0.01 / 4


def test_schedule_rate_falls_linearly_to_zero_when_decay_is_on_and_halvings_scale_it():
    schedule = Schedule(lr=1.0, planned_steps=4, patience=1, lr_drops=1, decay=True)
    assert [schedule.rate(step) for step in range(1, 6)] == [1.0, 0.75, 0.5, 0.25, 0.0]
    schedule.observe(1, 2.0)
    assert astuple(schedule.observe(2, 2.0)) == (False, True, False)
    assert [schedule.rate(step) for step in range(1, 6)] == [0.5, 0.375, 0.25, 0.125, 0.0]
    assert Schedule(lr=1.0, planned_steps=4, patience=1).rate(4) == 1.0  # no decay: constant


def test_a_nan_validation_loss_is_never_best_and_counts_against_patience():
    schedule = Schedule(lr=1.0, planned_steps=10, patience=2)
    assert decisions(schedule, [math.nan, 3.0, math.nan, math.nan]) == [
        (False, False, False),
        (True, False, False),
        (False, False, False),
        (False, False, True),
    ]
    assert schedule.best_step == 2


def test_schedule_from_config_takes_the_training_rules_of_the_config():
    config = TrainConfig(lr=0.02, patience=5, min_delta=0.01, lr_drops=3, lr_decay=True)
    schedule = Schedule.from_config(config, planned_steps=40)
    assert (schedule.lr, schedule.planned_steps, schedule.patience) == (0.02, 40, 5)
    assert (schedule.min_delta, schedule.lr_drops, schedule.decay) == (0.01, 3, True)
    assert Schedule.from_config(TrainConfig(lr_decay=None), planned_steps=40).decay is False


def test_the_validation_hook_sees_every_validation_and_snapshots_leave_the_run_unchanged(
    toy_splits, tiny_translator
):
    from attnbook.nmt.attention_analysis import AttentionSnapshots

    config = TrainConfig(max_epochs=2, batch_size=32, eval_every=3)
    plain = tiny_translator(seed=7)
    plain_result = train(plain, toy_splits.train[:96], toy_splits.val, config, progress=False)
    watched = tiny_translator(seed=7)
    pair = toy_splits.test[0]
    snapshots = AttentionSnapshots(watched, pair)
    seen = []

    def hook(step, record):
        seen.append((step, record))
        snapshots(step, record)

    result = train(watched, toy_splits.train[:96], toy_splits.val, config, progress=False, on_validation=hook)
    assert seen == [(r.step, r) for r in result.val_history]
    assert snapshots.steps == [r.step for r in plain_result.val_history] == [3, 6]
    assert snapshots.val_losses == [r.loss for r in plain_result.val_history]
    assert all(w.shape == (len(pair.target) + 1, len(pair.source) + 1) for w in snapshots.weights)
    torch.testing.assert_close(snapshots.weights[0].sum(-1), torch.ones(len(pair.target) + 1))
    assert not torch.equal(snapshots.weights[0], snapshots.weights[-1])  # the attention moved as it trained
    assert snapshots.seconds > 0
    for name, value in plain.model.state_dict().items():
        torch.testing.assert_close(watched.model.state_dict()[name], value, rtol=0, atol=0)


def test_a_run_trained_side_by_side_calls_its_own_validation_hook(toy_splits, tiny_translator):
    config = TrainConfig(max_epochs=1, batch_size=32, eval_every=2)
    seen = {0: [], 1: []}
    runs = [
        TrainingRun(
            tiny_translator(seed=k),
            toy_splits.train[:96],
            toy_splits.val,
            config,
            on_validation=lambda step, record, k=k: seen[k].append((step, record.loss)),
        )
        for k in (0, 1)
    ]
    results = train_side_by_side(runs)
    for k, result in enumerate(results):
        assert seen[k] == [(r.step, r.loss) for r in result.val_history] and [s for s, _ in seen[k]] == [2, 3]


def test_a_validation_hook_that_returns_true_ends_training_after_that_step(toy_splits, tiny_translator):
    config = TrainConfig(max_epochs=4, batch_size=32, eval_every=3, patience=100)  # 12 steps planned
    result = train(
        tiny_translator(),
        toy_splits.train[:96],
        toy_splits.val,
        config,
        progress=False,
        on_validation=lambda step, record: step >= 6,
    )
    assert result.steps == 6 and result.stopped_early
    assert [r.step for r in result.val_history] == [3, 6]


def test_label_smoothing_loss_is_the_formula_over_the_real_tokens():
    torch.manual_seed(0)
    logits = torch.randn(2, 4, 7)
    tgt_out = torch.tensor([[4, 5, 2, 0], [6, 2, 0, 0]])
    smoothing = 0.1
    loss, _, _ = sequence_loss(logits, tgt_out, label_smoothing=smoothing)
    log_probs = torch.log_softmax(logits, -1)[tgt_out != 0]  # (real tokens, vocab)
    reference = -log_probs.gather(-1, tgt_out[tgt_out != 0].unsqueeze(-1)).squeeze(-1)
    uniform = -log_probs.mean(dim=-1)  # the cross-entropy against 1/V on every word
    expected = ((1 - smoothing) * reference + smoothing * uniform).mean()
    torch.testing.assert_close(loss, expected)
    # off by default: the plain cross-entropy
    torch.testing.assert_close(sequence_loss(logits, tgt_out)[0], reference.mean())


def test_label_smoothing_of_one_or_more_is_refused():
    with pytest.raises(ValueError, match="label_smoothing"):
        TrainConfig(label_smoothing=1.0)


def test_warmup_raises_the_rate_linearly_then_the_decay_takes_over():
    schedule = Schedule(lr=1.0, planned_steps=10, patience=1, decay=True, warmup_steps=4)
    rates = [schedule.rate(step) for step in range(1, 11)]
    decay = [1.0 - (step - 1) / 10 for step in range(1, 11)]
    warmup = [0.25, 0.5, 0.75, 1.0] + [1.0] * 6
    assert rates == pytest.approx([w * d for w, d in zip(warmup, decay, strict=True)])
    assert Schedule.from_config(TrainConfig(warmup_steps=4), planned_steps=10).warmup_steps == 4
    # off by default: the first step takes the whole rate
    assert Schedule.from_config(TrainConfig(), planned_steps=10).rate(1) == TrainConfig().lr


def test_train_takes_the_warmup_rates(toy_splits, tiny_translator, learning_rates):
    config = TrainConfig(max_epochs=1, batch_size=32, lr=1e-2, eval_every=100, patience=100, warmup_steps=4)
    train(tiny_translator(), toy_splits.train, toy_splits.val, config, progress=False)
    assert learning_rates[:5] == pytest.approx([2.5e-3, 5e-3, 7.5e-3, 1e-2, 1e-2])


@pytest.fixture
def sources_seen(monkeypatch):
    """Every source batch a model's forward reads during the test, with whether it was in training mode."""
    from attnbook.nmt.seq2seq import Seq2Seq

    seen = []
    original_forward = Seq2Seq.forward

    def recording_forward(self, src, *args, **kwargs):
        seen.append((self.training, src.clone()))
        return original_forward(self, src, *args, **kwargs)

    monkeypatch.setattr(Seq2Seq, "forward", recording_forward)
    return seen


def _training_sources(translator, pairs, config):
    import random

    order = random.Random(config.seed)
    return [
        batch.src
        for _ in range(config.max_epochs)
        for batch in translator.batches(pairs, config.batch_size, shuffle=True, generator=order)
    ]


def test_no_word_dropout_feeds_the_batches_unchanged_and_draws_nothing(
    toy_splits, tiny_translator, sources_seen
):
    translator = tiny_translator()
    config = TrainConfig(max_epochs=1, batch_size=32, eval_every=100, patience=100)
    torch.manual_seed(11)
    train(translator, toy_splits.train, toy_splits.val, config, progress=False)
    after = torch.rand(1)
    trained = [src for training, src in sources_seen if training]
    expected = _training_sources(translator, toy_splits.train, config)
    assert len(trained) == len(expected)
    assert all(torch.equal(seen, batch) for seen, batch in zip(trained, expected, strict=True))
    # a word dropout of 0 draws no number: the global stream is where a plain run leaves it
    translator = tiny_translator()
    torch.manual_seed(11)
    train(translator, toy_splits.train, toy_splits.val, replace(config, word_dropout=0.0), progress=False)
    assert torch.equal(torch.rand(1), after)


def test_word_dropout_of_one_turns_every_source_word_into_unk_but_never_in_validation(
    toy_splits, tiny_translator, sources_seen
):
    from attnbook.nmt.data import Vocab

    translator = tiny_translator()
    config = TrainConfig(max_epochs=1, batch_size=32, eval_every=100, patience=100, word_dropout=1.0)
    result = train(translator, toy_splits.train, toy_splits.val, config, progress=False)
    trained = [src for training, src in sources_seen if training]
    validated = [src for training, src in sources_seen if not training]
    expected = _training_sources(translator, toy_splits.train, config)
    for seen, batch in zip(trained, expected, strict=True):
        words = batch >= 4  # the ids after <pad>, <sos>, <eos> and <unk>
        assert (seen[words] == Vocab.unk_id).all() and torch.equal(seen[~words], batch[~words])
    whole = [batch.src for batch in translator.batches(toy_splits.val, 256)]
    every_validation = whole * len(result.val_history)
    assert all(torch.equal(seen, batch) for seen, batch in zip(validated, every_validation, strict=True))


def test_word_dropout_drops_about_its_share_of_the_words_and_is_refused_above_one():
    from attnbook.nmt.training import drop_source_words

    src = torch.full((200, 50), 9)
    src[:, -1] = 2  # <eos>
    dropped = drop_source_words(src, 0.1, torch.Generator().manual_seed(0))
    share = (dropped[:, :-1] == 3).float().mean().item()
    assert 0.08 < share < 0.12 and (dropped[:, -1] == 2).all()
    with pytest.raises(ValueError, match="word_dropout"):
        TrainConfig(word_dropout=1.5)


def test_average_last_ends_with_the_mean_of_the_last_validations_weights(
    toy_splits, tiny_translator, monkeypatch
):
    from attnbook.nmt import training

    stored = []
    original = training.validation_loss

    def storing(translator, pairs, *args, **kwargs):
        if translator.model.training:  # a validation inside train, not a test's own
            stored.append({k: v.clone() for k, v in translator.model.state_dict().items()})
        return original(translator, pairs, *args, **kwargs)

    monkeypatch.setattr(training, "validation_loss", storing)
    translator = tiny_translator()
    config = TrainConfig(max_epochs=2, batch_size=32, lr=1e-2, eval_every=3, patience=100, average_last=3)
    result = train(translator, toy_splits.train, toy_splits.val, config, progress=False)
    assert len(stored) == len(result.val_history) > 3
    for name, value in translator.model.state_dict().items():
        expected = torch.stack([state[name] for state in stored[-3:]]).mean(dim=0)
        torch.testing.assert_close(value, expected, rtol=0, atol=1e-7)
    # it replaces keep_best's choice: the averaged weights are neither the best nor the last
    assert not torch.equal(translator.model.state_dict()[name], stored[-1][name])
    with pytest.raises(ValueError, match="average_last"):
        TrainConfig(average_last=-1)
