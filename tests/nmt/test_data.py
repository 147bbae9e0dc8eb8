"""The toy grammar's pairs and alignments, the vocabulary, and padded batches with masks."""

import random

import pytest
import torch

from attnbook.nmt.data import LENGTH_BUCKETS, SentencePair, Vocab, iterate_batches, length_bucket, make_batch
from attnbook.nmt.grammar import CATEGORIES, generate_pairs, make_splits

MASCULINE = {"chat", "chien", "cheval", "canard", "garçon", "livre", "gâteau", "jardin"}
FEMININE = {"fille", "femme", "souris", "vache", "voiture", "maison", "balle", "lettre"}
MASCULINE_PLURAL = {"chats", "chiens", "chevaux", "canards", "garçons", "livres", "gâteaux", "jardins"}
FEMININE_PLURAL = {"filles", "femmes", "souris", "vaches", "voitures", "maisons", "balles", "lettres"}


@pytest.fixture(scope="module")
def pairs() -> list[SentencePair]:
    return generate_pairs(3000, seed=7)


def test_same_seed_gives_same_pairs_and_leaves_global_random_state_alone():
    state = random.getstate()
    first = generate_pairs(200, seed=3)
    assert random.getstate() == state
    assert first == generate_pairs(200, seed=3)
    assert first != generate_pairs(200, seed=4)


def test_every_target_token_has_an_alignment_inside_the_source_and_a_known_category(pairs):
    for pair in pairs:
        assert len(pair.alignment) == len(pair.target) == len(pair.categories)
        for sources, category in zip(pair.alignment, pair.categories, strict=True):
            assert sources, f"unaligned target token in {pair}"
            assert all(0 <= j < len(pair.source) for j in sources)
            assert category in CATEGORIES


def test_lengths_respect_the_bounds_and_fill_every_bucket(pairs):
    lengths = [len(p.source) for p in pairs]
    assert min(lengths) >= 3 and max(lengths) <= 25
    buckets = {length_bucket(n) for n in lengths}
    assert buckets == {f"{lo}-{hi}" for lo, hi in LENGTH_BUCKETS}


def test_sources_are_unique_and_splits_are_disjoint():
    splits = make_splits(500, 100, 100, seed=1)
    train = {p.source for p in splits.train}
    val = {p.source for p in splits.val}
    test = {p.source for p in splits.test}
    assert len(train) == 500 and len(val) == 100 and len(test) == 100
    assert not train & val and not train & test and not val & test


def test_articles_and_adjectives_agree_with_their_noun(pairs):
    article_forms = {
        "m": {"le", "un"},
        "f": {"la", "une"},
        "pl": {"les", "des"},
    }
    checked = 0
    for pair in pairs:
        for i, category in enumerate(pair.categories):
            if category != "article":
                continue
            noun = pair.target[pair.noun_of(i)]
            article = pair.target[i]
            if article in article_forms["pl"]:
                assert noun in MASCULINE_PLURAL | FEMININE_PLURAL, pair
            elif article in article_forms["m"]:
                assert noun in MASCULINE, pair
            else:
                assert article in article_forms["f"] and noun in FEMININE, pair
            checked += 1
    assert checked > 3000


def test_french_adjectives_after_the_noun_cross_the_english_order(pairs):
    crossings = 0
    for pair in pairs:
        for i, category in enumerate(pair.categories):
            if category == "adjective_after":
                noun_i = i - 1
                assert pair.categories[noun_i] == "noun"
                # French: noun then adjective; English: adjective then noun, so the links cross
                assert max(pair.alignment[i]) < min(pair.alignment[noun_i])
                crossings += 1
            if category == "adjective_before":
                assert pair.categories[i + 1] == "noun"
                assert max(pair.alignment[i]) < min(pair.alignment[i + 1])
    assert crossings > 500


def test_does_not_becomes_ne_pas_around_the_verb_and_both_align_to_does_not(pairs):
    negated = 0
    for pair in pairs:
        for i, category in enumerate(pair.categories):
            if pair.target[i] in ("ne", "n'"):
                assert category == "negation"
                assert [pair.source[j] for j in pair.alignment[i]] in (["does", "not"], ["do", "not"])
                assert pair.categories[i + 1] == "verb" and pair.target[i + 2] == "pas"
                assert pair.alignment[i + 2] == pair.alignment[i]
                negated += 1
        assert pair.source.count("not") == pair.target.count("pas")
    assert negated > 300


def test_only_links_to_function_words_french_lacks_are_possible_and_every_word_has_one_sure_link(pairs):
    possible_only: dict[str, int] = {}
    for pair in pairs:
        assert len(pair.sure) == len(pair.alignment)
        for i, (sure, sources) in enumerate(zip(pair.sure, pair.alignment, strict=True)):
            assert len(sure) == 1 and set(sure) <= set(sources), (pair, i)
            for j in set(sources) - set(sure):
                possible_only[pair.source[j]] = possible_only.get(pair.source[j], 0) + 1
            if pair.categories[i] == "negation":
                assert [pair.source[j] for j in sure] == ["not"]
            if pair.categories[i] == "verb":
                assert pair.source[sure[0]] not in ("does", "do", "at", "for", "not")
    # do-support and the particles of "look at" and "wait for": nothing else is only possible
    assert set(possible_only) == {"does", "do", "at", "for"}
    assert min(possible_only.values()) > 50  # each occurs: the test can fail


def test_the_true_alignment_scores_aer_0_against_sure_and_possible_links(pairs):
    from attnbook.core.alignment import alignment_matrix
    from attnbook.nmt.alignment_metrics import alignment_error_rate

    subset = pairs[:300]
    sure = [p.sure_links() for p in subset]
    possible = [p.links() for p in subset]
    by_sure = [
        alignment_matrix(links, len(p.target), len(p.source)) for links, p in zip(sure, subset, strict=True)
    ]
    assert alignment_error_rate(by_sure, sure, possible) == 0.0
    # without the possible links, the same argmax misses every link to "does", "at" and "for"
    assert alignment_error_rate(by_sure, possible) > 0.0
    # an argmax on a possible link (ne on does) costs recall: AER above 0, below the no-possible-link score
    by_all = [
        alignment_matrix(links, len(p.target), len(p.source))
        for links, p in zip(possible, subset, strict=True)
    ]
    assert 0.0 < alignment_error_rate(by_all, sure, possible) < alignment_error_rate(by_all, possible)


def test_sure_links_must_be_links_and_default_to_all_links():
    pair = SentencePair(("does", "not"), ("ne", "pas"), ((0, 1), (0, 1)), sure=((1,), (1,)))
    assert pair.links() == [(0, 0), (0, 1), (1, 0), (1, 1)] and pair.sure_links() == [(0, 1), (1, 1)]
    assert pair.with_source_reversed().sure == ((0,), (0,))
    assert SentencePair(("a",), ("x",), ((0,),)).sure_links() == [(0, 0)]
    with pytest.raises(ValueError, match=r"sure\[0\]=\(1,\) must be a subset of alignment\[0\]=\(0,\)"):
        SentencePair(("a", "b"), ("x",), ((0,),), sure=((1,),))
    with pytest.raises(ValueError, match="sure has 2 entries but alignment has 1"):
        SentencePair(("a", "b"), ("x",), ((0,),), sure=((0,), (0,)))


def test_elision_before_a_vowel():
    pairs = generate_pairs(2000, seed=11)
    elided = {"n'": 0, "qu'": 0}
    for pair in pairs:
        for i, token in enumerate(pair.target):
            if token in ("ne", "n'", "que", "qu'"):
                vowel = pair.target[i + 1][0] in "aeiouéh"
                assert token.endswith("'") == vowel, pair
                elided[token] = elided.get(token, 0) + 1
    assert min(elided.values()) > 50  # both elisions occur: the test can fail


def test_que_elides_into_a_token_of_its_own_with_the_conjunctions_links():
    pairs = generate_pairs(2000, seed=12)
    found = 0
    for pair in pairs:
        assert "que un" not in " ".join(pair.target) and "que une" not in " ".join(pair.target)
        for i, token in enumerate(pair.target):
            if token == "qu'":
                assert pair.target[i - 1] in ("parce", "pendant") and pair.target[i + 1] in ("un", "une")
                assert pair.categories[i] == "conjunction" and pair.alignment[i] == pair.alignment[i - 1]
                assert pair.categories[i + 1] == "article"
                assert [pair.source[j] for j in pair.alignment[i + 1]] == ["a"]
                found += 1
    assert found > 50


def test_one_to_many_and_many_to_one_words(pairs):
    seen = set()
    for pair in pairs:
        for i, token in enumerate(pair.target):
            sources = [pair.source[j] for j in pair.alignment[i]]
            if token in ("parce", "pendant"):
                assert pair.target[i + 1] in ("que", "qu'") and pair.alignment[i + 1] == pair.alignment[i]
                seen.add(token)
            if sources in (["looks", "at"], ["look", "at"]):
                assert token in ("regarde", "regardent")
                seen.add("regarde")
    assert seen == {"parce", "pendant", "regarde"}


def test_verbs_agree_with_their_subject_across_a_relative_clause(pairs):
    found = 0
    for pair in pairs:
        if len(pair.categories) < 6 or pair.categories[:2] != ("article", "noun") or "qui" not in pair.target:
            continue
        # "les chats qui voient le chien dorment": find the main verb after the relative clause
        if pair.target[2] != "qui":
            continue
        plural = pair.target[0] in ("les", "des")
        verbs = [t for t, c in zip(pair.target, pair.categories, strict=True) if c == "verb"]
        main_verb = verbs[1] if len(verbs) > 1 else None
        if main_verb is None:
            continue
        assert main_verb.endswith("nt") == plural, pair
        found += 1
    assert found > 20


def test_bad_length_arguments_are_rejected():
    with pytest.raises(ValueError, match="min_src_len"):
        generate_pairs(3, min_src_len=10, max_src_len=5)
    with pytest.raises(ValueError, match="n must be non-negative"):
        generate_pairs(-1)


def test_length_bucket_names():
    assert length_bucket(3) == "1-8"
    assert length_bucket(9) == "9-13"
    assert length_bucket(25) == "19-25"
    assert length_bucket(40) == "26+"


def test_sentence_pair_checks_its_annotations():
    with pytest.raises(ValueError, match="alignment has 1 entries but target has 2"):
        SentencePair(("a",), ("x", "y"), alignment=((0,),))


# --------------------------------------------------------------------------------------------------
# Vocabulary


def test_vocab_puts_the_specials_first_and_round_trips():
    vocab = Vocab.build([["the", "cat"], ["the", "dog"]])
    assert vocab.tokens[:4] == ("<pad>", "<sos>", "<eos>", "<unk>")
    assert (vocab.pad_id, vocab.sos_id, vocab.eos_id, vocab.unk_id) == (0, 1, 2, 3)
    assert vocab.tokens[4] == "the"  # the most frequent first
    ids = vocab.encode(["the", "cat"], add_sos=True)
    assert ids[0] == vocab.sos_id and ids[-1] == vocab.eos_id
    assert vocab.decode([*ids, vocab.pad_id]) == ["the", "cat"]


def test_unknown_tokens_map_to_unk_and_are_counted():
    vocab = Vocab(["the", "cat"])
    ids = vocab.encode(["the", "zebra", "cat", "okapi"], add_eos=False)
    assert ids == [vocab.id("the"), vocab.unk_id, vocab.id("cat"), vocab.unk_id]
    assert vocab.unknown(["the", "zebra", "cat", "okapi"]) == ["zebra", "okapi"]


def test_empty_and_over_long_sentences_are_clear_errors():
    vocab = Vocab(["a"])
    with pytest.raises(ValueError, match="empty sentence"):
        vocab.encode([])
    with pytest.raises(ValueError, match="3 tokens, more than the limit max_len=2"):
        vocab.encode(["a", "a", "a"], max_len=2)
    with pytest.raises(TypeError, match="not a str"):
        vocab.encode("a a")


def test_vocabularies_compare_by_their_tokens():
    assert Vocab(["a", "b"]) == Vocab(["a", "b", "a"])
    assert Vocab(["a", "b"]) != Vocab(["b", "a"])


# --------------------------------------------------------------------------------------------------
# Batches


@pytest.fixture(scope="module")
def vocabs(pairs):
    return Vocab.build(p.source for p in pairs), Vocab.build(p.target for p in pairs)


def test_batch_pads_and_masks_match_the_sentence_lengths(pairs, vocabs):
    src_vocab, tgt_vocab = vocabs
    chosen = pairs[:5]
    batch = make_batch(chosen, src_vocab, tgt_vocab)
    assert batch.src.shape == (5, max(len(p.source) for p in chosen) + 1)
    assert batch.tgt_out.shape == batch.tgt_in.shape == (5, max(len(p.target) for p in chosen) + 1)
    for row, pair in enumerate(chosen):
        assert batch.src_mask[row].sum() == len(pair.source) + 1  # the tokens and <eos>
        assert batch.tgt_mask[row].sum() == len(pair.target) + 1
        assert (batch.src[row][~batch.src_mask[row]] == Vocab.pad_id).all()
        assert src_vocab.decode(batch.src[row]) == list(pair.source)
        assert tgt_vocab.decode(batch.tgt_out[row]) == list(pair.target)
        # teacher forcing: the input at step i is the target of step i - 1, after <sos>
        n = len(pair.target)
        assert batch.tgt_in[row, 0] == Vocab.sos_id
        assert torch.equal(batch.tgt_in[row, 1 : n + 1], batch.tgt_out[row, :n])
        assert (batch.tgt_in[row, n + 1 :] == Vocab.pad_id).all()
    assert batch.src_mask.dtype == torch.bool and batch.n_unknown == 0


def test_batch_counts_unknown_tokens(vocabs):
    src_vocab, tgt_vocab = vocabs
    pair = SentencePair(("the", "zebra", "sleeps"), ("le", "zèbre", "dort"))
    batch = make_batch([pair], src_vocab, tgt_vocab)
    assert batch.n_unknown == 2
    assert batch.src[0, 1] == Vocab.unk_id and batch.tgt_out[0, 1] == Vocab.unk_id


def test_iterate_batches_covers_every_pair_once_and_is_repeatable(pairs, vocabs):
    subset = pairs[:1000]
    batches = list(iterate_batches(subset, *vocabs, batch_size=64, generator=random.Random(5)))
    seen = sorted(i for b in batches for i in b.indices)
    assert seen == list(range(1000))
    again = list(iterate_batches(subset, *vocabs, batch_size=64, generator=random.Random(5)))
    assert [b.indices for b in batches] == [b.indices for b in again]


def test_grouping_by_length_cuts_padding(pairs, vocabs):
    subset = pairs[:2000]

    def padding(group: bool) -> float:
        batches = iterate_batches(
            subset, *vocabs, batch_size=64, generator=random.Random(0), group_by_length=group
        )
        return sum((~b.src_mask).sum().item() for b in batches)

    assert padding(True) < 0.3 * padding(False)


def test_grouping_by_target_length_cuts_the_target_padding_and_still_covers_every_pair(pairs, vocabs):
    subset = pairs[:2000]

    def batches(by_target: bool) -> list:
        return list(
            iterate_batches(subset, *vocabs, batch_size=64, generator=random.Random(0), by_target=by_target)
        )

    def target_padding(found) -> int:
        return sum((~b.tgt_mask).sum().item() for b in found)

    by_source, by_target = batches(False), batches(True)
    assert sorted(i for b in by_target for i in b.indices) == list(range(2000))
    assert target_padding(by_target) < 0.3 * target_padding(by_source)


def test_empty_batch_is_an_error(vocabs):
    with pytest.raises(ValueError, match="no pairs"):
        make_batch([], *vocabs)


def test_noun_of_finds_the_noun_an_article_or_adjective_agrees_with():
    pair = SentencePair(
        ("the", "small", "black", "cat", "sleeps"),
        ("le", "petit", "chat", "noir", "dort"),
        alignment=((0,), (1,), (3,), (2,), (4,)),
        categories=("article", "adjective_before", "noun", "adjective_after", "verb"),
    )
    assert [pair.noun_of(i) for i in range(4) if i != 2] == [2, 2, 2]
    with pytest.raises(ValueError, match="is a verb, not an article or adjective"):
        pair.noun_of(4)
    with pytest.raises(ValueError, match="no word categories"):
        SentencePair(("a",), ("b",)).noun_of(0)
