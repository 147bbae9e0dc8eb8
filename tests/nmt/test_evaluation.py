"""Metrics, alignment accuracy, attention interventions and held-out evaluation."""

import pytest
import torch

from attnbook.nmt.attention_analysis import (
    accuracy_with_forced_attention,
    alignment_accuracy,
    teacher_forced_attention,
)
from attnbook.nmt.data import SentencePair
from attnbook.nmt.evaluation import error_by_position, evaluate
from attnbook.nmt.grammar import CATEGORIES
from attnbook.nmt.metrics import score_translations

pytestmark = pytest.mark.usefixtures("one_thread")


def test_translation_metrics_on_hand_made_hypotheses():
    pairs = [
        SentencePair(("a",) * 3, ("le", "petit", "chat", "noir", "dort")),
        SentencePair(("a",) * 10, ("la", "fille", "ne", "chante", "pas")),
    ]
    scores = score_translations(
        [["le", "petit", "chat", "noir", "dort"], ["la", "fille", "ne", "chante"]], pairs
    )
    assert scores.exact_match == 0.5
    assert scores.token_accuracy == 9 / 10  # the missing word counts against it
    assert scores.exact_match_by_length == {"1-8": 1.0, "9-13": 0.0}
    assert scores.count_by_length == {"1-8": 1, "9-13": 1}
    assert scores.token_accuracy_by_length == {"1-8": 1.0, "9-13": 4 / 5}  # 4 right of 5 positions
    assert scores.bleu_by_length["1-8"] == pytest.approx(100.0) and scores.bleu_by_length["9-13"] < 100.0
    assert 0.0 < scores.bleu < 100.0 and 0.0 < scores.chrf < 100.0
    assert scores.to_dict()["exact_match"] == 0.5
    perfect = score_translations([list(p.target) for p in pairs], pairs)
    assert perfect.bleu == pytest.approx(100.0) and perfect.chrf == pytest.approx(100.0)
    assert perfect.token_accuracy == 1.0
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
    monkeypatch.setattr(
        "attnbook.nmt.attention_analysis.teacher_forced_attention", lambda *args, **kwargs: [weights]
    )
    result = alignment_accuracy(None, [pair])
    assert result.by_category == {"article": 0.0, "noun": 1.0, "adjective_after": 1.0}
    assert result.accuracy == pytest.approx(2 / 3)
    assert result.argmax == [[2, 2, 1]]
    assert result.counts == {"article": 1, "noun": 1, "adjective_after": 1}


def test_alignment_accuracy_needs_true_alignments(tiny_translator):
    with pytest.raises(ValueError, match="true alignments"):
        alignment_accuracy(tiny_translator(), [SentencePair(("a",), ("b",))])


def test_teacher_forced_attention_gives_one_matrix_per_pair_without_padding(toy_splits, tiny_translator):
    weights = teacher_forced_attention(tiny_translator(), toy_splits.val[:5])
    for pair, matrix in zip(toy_splits.val[:5], weights, strict=True):
        assert matrix.shape == (len(pair.target) + 1, len(pair.source) + 1)
        torch.testing.assert_close(matrix.sum(-1), torch.ones(matrix.size(0)))
    with pytest.raises(ValueError, match="no attention"):
        teacher_forced_attention(tiny_translator(attention="none"), toy_splits.val[:2])


def test_evaluate_reports_every_metric_and_counts_unknown_tokens(toy_splits, tiny_translator):
    translator = tiny_translator()
    unseen = SentencePair(("the", "zebra", "sleeps"), ("le", "zèbre", "dort"))
    result = evaluate(translator, toy_splits.test, with_alignment=True)
    summary = result.to_dict()
    assert 0.0 <= summary["exact_match"] <= summary["token_accuracy"] + 1e-9 <= 1.0 + 1e-9
    assert 0.0 <= summary["alignment_accuracy"] <= 1.0
    assert set(summary["alignment_by_category"]) <= set(CATEGORIES)
    assert sum(result.metrics.count_by_length.values()) == len(toy_splits.test)
    assert evaluate(translator, [unseen]).n_unknown == 2  # "zebra" and "zèbre"
    beam = evaluate(translator, toy_splits.test[:5], beam_size=3)
    assert len(beam.hypotheses) == 5
    baseline = evaluate(tiny_translator(attention="none"), toy_splits.test[:5])
    assert baseline.alignment is None and baseline.to_dict()["alignment_accuracy"] is None


def test_forcing_attention_matches_a_hand_written_decoder_loop(toy_splits, tiny_translator):
    translator = tiny_translator(seed=2)
    model = translator.model.double().eval()
    pairs = toy_splits.val[:6]
    position = lambda pair, i: len(pair.source)  # noqa: E731 (every noun looks at the source <eos>)
    got = accuracy_with_forced_attention(translator, pairs, category="noun", position=position)
    batch = translator.batch(pairs)
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


def test_no_forcing_gives_the_models_own_accuracy_and_the_hook_is_removed(toy_splits, tiny_translator):
    for attention in ("bahdanau", "luong"):
        translator = tiny_translator(attention=attention, seed=3)
        model = translator.model.eval()
        pairs = toy_splits.val[:8]
        batch = translator.batch(pairs)
        before = model(batch.src, batch.src_mask, batch.tgt_in)[0]
        own = accuracy_with_forced_attention(translator, pairs, category="verb", position=None)
        predicted = before.argmax(-1)
        verbs = [(row, i) for row, p in enumerate(pairs) for i, c in enumerate(p.categories) if c == "verb"]
        assert own == sum(int(predicted[r, i] == batch.tgt_out[r, i]) for r, i in verbs) / len(verbs)
        accuracy_with_forced_attention(translator, pairs, category="verb", position=lambda p, i: 0)
        torch.testing.assert_close(model(batch.src, batch.src_mask, batch.tgt_in)[0], before)
    with pytest.raises(ValueError, match="no target word of category"):
        accuracy_with_forced_attention(translator, pairs, category="elephant", position=None)


def test_error_by_position_agrees_with_one_sentence_at_a_time(tiny_translator, toy_splits):
    translator = tiny_translator("none")
    pairs = toy_splits.val[:12]
    errors = error_by_position(translator, pairs, batch_size=5)  # padded batches of mixed lengths
    wrong = [0] * len(errors)
    count = [0] * len(errors)
    for pair in pairs:  # the oracle: each sentence alone, no padding
        batch = next(iter(translator.batches([pair], 1)))
        with torch.no_grad():
            logits, _ = translator.model(batch.src, batch.src_mask, batch.tgt_in)
        predicted = logits.argmax(dim=-1)[0].tolist()
        reference = translator.tgt_vocab.encode(pair.target, add_eos=False)
        for i, word in enumerate(reference):
            wrong[i] += predicted[i] != word
            count[i] += 1
    assert len(errors) == max(len(p.target) for p in pairs)
    assert errors == pytest.approx([w / c for w, c in zip(wrong, count, strict=True)])
    assert sum(errors) > 0.0  # an untrained model errs: the comparison is not vacuous
    with pytest.raises(ValueError, match="no pairs"):
        error_by_position(translator, [])
