"""The translator export (attnbook.nmt.export) and the page's forward pass that reads it (book/seq2seq.js).

The exporter's round trip is tested in Python; the JavaScript forward pass is run under Node (when the
machine has it) on the same export and must give PyTorch's translations, tokens and attention weights.
The browser test (tests/browser/test_translator.py) runs the same script in Chromium on the shipped model.
"""

from __future__ import annotations

import json
import subprocess
from functools import partial
from importlib import resources

import pytest
import torch

from attnbook.nmt import beam_search, detokenize_french, export_translator, shipped_export
from attnbook.nmt.corpus import tokenize_english
from attnbook.nmt.export import SHIPPED_TRANSFORMER, SHIPPED_TRANSLATOR, read_export
from attnbook.nmt.search import greedy_decode

pytestmark = pytest.mark.usefixtures("one_thread")


def test_float32_export_reads_back_the_same_weights_and_vocabularies(tiny_translator, tmp_path):
    translator = tiny_translator()
    path = export_translator(translator, tmp_path / "model.js", name="toy", quantization="float32")
    exported = read_export(path)
    assert (exported.name, exported.quantization, exported.size) == ("toy", "float32", path.stat().st_size)
    assert exported.src_vocab == list(translator.src_vocab.tokens)
    assert exported.tgt_vocab == list(translator.tgt_vocab.tokens)
    state = translator.model.state_dict()
    assert exported.state_dict.keys() == state.keys()
    for key, tensor in state.items():
        assert torch.equal(exported.state_dict[key], tensor), key


def test_round_trip_translates_as_the_original(tiny_translator, toy_splits, tmp_path):
    translator = tiny_translator()
    copy = read_export(
        export_translator(translator, tmp_path / "m.js", quantization="float32")
    ).to_translator()
    for pair in toy_splits.test[:10]:
        assert copy.translation(pair.source).target == translator.translation(pair.source).target


def test_int8_weights_are_within_half_a_step_of_their_row_scale(tiny_translator, tmp_path):
    translator = tiny_translator(emb_dim=64, hidden_dim=64)  # matrices large enough to be quantised
    exported = read_export(export_translator(translator, tmp_path / "m.js"))
    assert exported.quantization == "int8"
    weight = translator.model.decoder.out.weight.detach()
    scales = weight.abs().amax(dim=1, keepdim=True) / 127
    error = (exported.state_dict["decoder.out.weight"] - weight).abs()
    assert bool((error <= scales / 2 + 1e-7).all())
    assert float(error.max()) > 0  # it was quantised, not stored exactly
    bias = translator.model.decoder.out.bias.detach()
    assert torch.equal(exported.state_dict["decoder.out.bias"], bias)  # vectors stay float32


def test_int8_export_is_about_a_quarter_of_float32(tiny_translator, tmp_path):
    translator = tiny_translator(emb_dim=64, hidden_dim=64)
    small = export_translator(translator, tmp_path / "int8.js").stat().st_size
    large = export_translator(translator, tmp_path / "f32.js", quantization="float32").stat().st_size
    assert 0.2 < small / large < 0.4


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        ("not an export at all", "no line starting with attnbookTranslatorWeights("),
        ('x\nattnbookTranslatorWeights({"format": "other"},"");\n', "no format"),
        ("x\nattnbookTranslatorWeights({broken", "header is not JSON"),
    ],
)
def test_a_file_that_is_not_an_export_gives_a_clear_error(tmp_path, content, reason):
    path = tmp_path / "notes.js"
    path.write_text(content)
    with pytest.raises(ValueError, match=r"notes.js is not a translator export") as error:
        read_export(path)
    assert reason in str(error.value)


def test_a_cut_short_export_gives_a_clear_error(tiny_translator, tmp_path):
    path = export_translator(tiny_translator(), tmp_path / "m.js")
    path.write_text(path.read_text()[:-500])
    with pytest.raises(ValueError, match=r"m.js is not a translator export"):
        read_export(path)


def test_a_binary_file_gives_a_clear_error(tmp_path):
    path = tmp_path / "model.pt"
    path.write_bytes(bytes(range(256)))
    with pytest.raises(ValueError, match=r"model.pt is not a translator export.*not ASCII"):
        read_export(path)


def test_only_bahdanau_models_and_transformers_are_exported(tiny_translator, tmp_path):
    with pytest.raises(ValueError, match=r"only Bahdanau's seq2seq.*'luong'"):
        export_translator(tiny_translator(attention="luong"), tmp_path / "m.js")
    assert read_export(
        export_translator(tiny_translator(attention="transformer"), tmp_path / "t.js")
    ).kind == ("transformer")
    with pytest.raises(ValueError, match="quantization must be one of"):
        export_translator(tiny_translator(), tmp_path / "m.js", quantization="float16")


# --- the page's forward pass, under Node ---------------------------------------------------------------

NODE_RUNNER = """
const fs = require("fs");
const vm = require("vm");
const model = require(process.argv[2]);
const job = JSON.parse(fs.readFileSync(process.argv[4], "utf8"));
let translator;
vm.runInNewContext(fs.readFileSync(process.argv[3], "utf8"), {
  attnbookTranslatorWeights: (header, data) => { translator = new model.Translator(header, data); },
});
const out = { translations: [], tokens: job.texts.map(model.tokenizeEnglish) };
for (const text of job.sentences) {
  for (const beam of [1, 4]) {
    const r = translator.translate(text, beam);
    out.translations.push({ text, beam, ids: r.ids, weights: r.weights.map((w) => Array.from(w)),
      detok: r.text, replaced: r.replaced, finished: r.finished, score: r.score });
  }
}
out.detok = job.french.map(model.detokenizeFrench);
console.log(JSON.stringify(out));
"""

TRICKY_TEXTS = [
    "I'm   here.",
    "Don\u2019t stop, Tom!",
    "  \u00abQuoi?\u00bb  \u2014 caf\u00e9 au lait\u00a0: 3,5 \u20ac ",
    "\u00c9T\u00c9 \u2018quoted\u2019 `tick` rock'n'roll",
    "\u0645\u0631\u062d\u0628\u0627 \u4f60\u597d_world 42nd",
    "!!!...???",
    "",
]


def run_node(node, tmp_path, export_path, job: dict, script="seq2seq.js", runner=NODE_RUNNER) -> dict:
    """The page's ``script`` (``attnbook/book/``) run under Node on ``job`` by ``runner``."""
    script = resources.files("attnbook.book").joinpath(script)
    (tmp_path / "job.json").write_text(json.dumps(job))
    (tmp_path / "runner.js").write_text(runner)
    result = subprocess.run(
        [node, str(tmp_path / "runner.js"), str(script), str(export_path), str(tmp_path / "job.json")],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_javascript_forward_pass_translates_as_pytorch(node, tiny_translator, toy_splits, tmp_path):
    translator = tiny_translator(seed=3)
    path = export_translator(translator, tmp_path / "m.js", quantization="float32")
    sentences = [" ".join(p.source) for p in toy_splits.test[:12]] + ["the zebra sees the cat ."]
    french = [["j'", "ai", "froid", "."], ["(", "oui", ")", ",", "l'", "homme", "!"]]
    out = run_node(node, tmp_path, path, {"sentences": sentences, "texts": TRICKY_TEXTS, "french": french})
    assert out["tokens"] == [tokenize_english(text) for text in TRICKY_TEXTS]
    assert out["detok"] == [detokenize_french(tokens) for tokens in french]
    model = translator.model.eval()
    for got in out["translations"]:
        src = torch.tensor([translator.src_vocab.encode(tokenize_english(got["text"]))])
        search = greedy_decode if got["beam"] == 1 else partial(beam_search, beam_size=got["beam"])
        (expected,) = search(model, src, src != 0)
        assert (got["ids"], got["finished"]) == (expected.ids, expected.finished), (got["text"], got["beam"])
        assert got["score"] == pytest.approx(expected.score, abs=1e-4)
        weights = torch.tensor(got["weights"], dtype=torch.float64)
        assert torch.allclose(weights, expected.weights.double(), atol=1e-5)


def test_the_shipped_translator_is_the_default_real_run_light_enough_for_a_page():
    from attnbook.studies import RealConfig

    shipped = shipped_export()
    assert shipped.quantization == "int8" and shipped.size <= 4_000_000
    model = RealConfig().model
    assert (shipped.config["emb_dim"], shipped.config["hidden_dim"], shipped.config["attn_dim"]) == (
        model.emb_dim,
        model.hidden_dim,
        model.attn_dim,
    )
    assert shipped.info["trained_by"].startswith("python -m attnbook train --corpus tatoeba --model seq2seq")
    assert shipped.info["epochs"] == RealConfig().train.max_epochs
    assert 30 < shipped.info["held_out"]["bleu"] < 100  # recorded with the run, on held-out sentences


@pytest.mark.parametrize(
    ("flags", "name"), [([], SHIPPED_TRANSFORMER), (["--model", "seq2seq"], SHIPPED_TRANSLATOR)]
)
def test_translate_without_a_checkpoint_uses_the_shipped_translator(flags, name):
    import sys

    from attnbook.cli.translate import DEFAULT_BEAM

    # the command line searches with the beam of the shipped model's scores; with no --model, the Transformer
    expected = shipped_export(name).to_translator().translate("I am cold.", beam_size=DEFAULT_BEAM)
    printed = subprocess.run(
        [sys.executable, "-m", "attnbook", "translate", "--device", "cpu", *flags, "I am cold."],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()[0]
    assert printed == expected


@pytest.mark.parametrize("choice", [{"norm_first": False}, {"causal": False}])
def test_a_transformer_the_page_cannot_run_is_refused_with_a_clear_error(choice, tmp_path):
    from attnbook.nmt import Transformer, TransformerConfig, Translator, Vocab

    vocab = Vocab(["a", "b"])
    config = TransformerConfig(
        len(vocab), len(vocab), d_model=8, num_heads=2, ff_dim=16, num_layers=1, **choice
    )
    with pytest.raises(ValueError, match="pre-norm Transformers with a causal decoder"):
        export_translator(Translator(Transformer(config).eval(), vocab, vocab), tmp_path / "m.js")


def test_a_model_over_pieces_is_refused_with_a_clear_error(tiny_translator, tmp_path):
    from dataclasses import replace

    from attnbook.nmt import learn_subwords
    from attnbook.nmt.text import Tokenizer

    units = learn_subwords(["the cat sat", "a cat"] * 20, 10)
    with pytest.raises(ValueError, match="the page reads whole words"):
        export_translator(replace(tiny_translator(), tokenizer=Tokenizer(units, units)), tmp_path / "m.js")


# --- the Transformer: its export and the page's transformer.js ----------------------------------------


def test_a_transformer_export_says_its_kind_and_reads_back_as_a_transformer(tiny_translator, tmp_path):
    from attnbook.nmt.transformer import Transformer

    translator = tiny_translator(attention="transformer", d_model=64, ff_dim=64)
    path = export_translator(translator, tmp_path / "tf.js", name="tf")
    header = json.loads(path.read_text().split("\nattnbookTranslatorWeights(", 1)[1].rsplit(',"', 1)[0])
    assert (header["kind"], header["quantization"]) == ("transformer", "int8")
    assert {entry["dtype"] for entry in header["tensors"] if len(entry["shape"]) == 2} == {"int8"}
    exported = read_export(path)
    assert exported.kind == "transformer" and exported.config == translator.model.config.to_dict()
    copy = exported.to_translator()
    assert isinstance(copy.model, Transformer)
    state = translator.model.state_dict()
    assert copy.model.state_dict().keys() == state.keys()
    weight = state["decoder.out.weight"]
    error = (exported.state_dict["decoder.out.weight"] - weight).abs()
    assert bool((error <= weight.abs().amax(dim=1, keepdim=True) / 254 + 1e-7).all())


def test_a_float32_transformer_export_translates_as_the_original(tiny_translator, toy_splits, tmp_path):
    translator = tiny_translator(attention="transformer", seed=2)
    copy = read_export(
        export_translator(translator, tmp_path / "tf.js", quantization="float32")
    ).to_translator()
    for pair in toy_splits.test[:10]:
        assert copy.translation(pair.source).target == translator.translation(pair.source).target


def test_a_tied_transformer_exports_its_output_weight_as_usual_and_translates_as_the_original(
    node, tiny_translator, toy_splits, tmp_path
):
    translator = tiny_translator(attention="transformer", seed=2, tie_embeddings=True)
    model = translator.model
    assert model.decoder.out.weight is model.decoder.embed.embedding.weight
    path = export_translator(translator, tmp_path / "tied.js", quantization="float32")
    exported = read_export(path)
    # the output weight is written as usual: the page reads it under its own name
    torch.testing.assert_close(
        exported.state_dict["decoder.out.weight"], exported.state_dict["decoder.embed.embedding.weight"]
    )
    copy = exported.to_translator()
    assert copy.model.config.tie_embeddings
    for pair in toy_splits.test[:10]:
        assert copy.translation(pair.source).target == translator.translation(pair.source).target
    sentences = [" ".join(p.source) for p in toy_splits.test[:4]]
    for got in run_transformer_node(node, tmp_path, path, sentences):
        src = torch.tensor([translator.src_vocab.encode(tokenize_english(got["text"]))])
        search = greedy_decode if got["beam"] == 1 else partial(beam_search, beam_size=got["beam"])
        (expected,) = search(model.eval(), src, src != 0)
        assert got["ids"] == expected.ids, (got["text"], got["beam"])


def test_an_export_of_an_unknown_kind_gives_a_clear_error(tiny_translator, tmp_path):
    path = export_translator(tiny_translator(), tmp_path / "m.js")
    path.write_text(path.read_text().replace('"kind":"seq2seq"', '"kind":"lstm"'))
    with pytest.raises(ValueError, match="kind 'lstm'"):
        read_export(path)


def test_a_casing_travels_in_the_export_and_the_page_recases_as_python(
    node, tiny_translator, toy_splits, tmp_path
):
    from dataclasses import replace

    from attnbook.nmt.text import Tokenizer

    plain = tiny_translator(seed=3)
    casing = {word: word.upper() for word in plain.tgt_vocab.tokens[5:9]}
    translator = replace(plain, tokenizer=Tokenizer(casing=casing))
    path = export_translator(translator, tmp_path / "m.js", quantization="float32")
    copy = read_export(path).to_translator()
    assert read_export(path).casing == casing and copy.tokenizer.casing == casing
    assert read_export(export_translator(plain, tmp_path / "plain.js")).casing is None
    sentences = [" ".join(p.source) for p in toy_splits.test[:12]]
    out = run_node(node, tmp_path, path, {"sentences": sentences, "texts": [], "french": []})
    texts = [got["detok"] for got in out["translations"]]
    assert texts == [copy.translate(s, beam_size=b) for s in sentences for b in (1, 4)]
    assert all(text[:1] == text[:1].upper() for text in texts)
    assert any(word in text.split() for text in texts for word in casing.values())


def run_transformer_node(node, tmp_path, export_path, sentences: list[str]) -> list[dict]:
    runner = NODE_RUNNER.replace(
        "detok: r.text,",
        "detok: r.text, heads: r.heads.map((l) => l.map((h) => h.map((w) => Array.from(w)))),",
    )
    job = {"sentences": sentences, "texts": [], "french": []}
    return run_node(node, tmp_path, export_path, job, "transformer.js", runner)["translations"]


def test_javascript_transformer_translates_as_pytorch(node, tiny_translator, toy_splits, tmp_path):
    """The tokens, scores, search weights (the last layer's mean over the heads) and every layer's and
    head's cross-attention of transformer.js equal PyTorch's on a float32 export."""
    translator = tiny_translator(attention="transformer", seed=3, d_model=16, num_heads=2, num_layers=2)
    path = export_translator(translator, tmp_path / "tf.js", quantization="float32")
    sentences = [" ".join(p.source) for p in toy_splits.test[:12]] + ["the zebra sees the cat ."]
    model = translator.model.eval()
    for got in run_transformer_node(node, tmp_path, path, sentences):
        src = torch.tensor([translator.src_vocab.encode(tokenize_english(got["text"]))])
        search = greedy_decode if got["beam"] == 1 else partial(beam_search, beam_size=got["beam"])
        (expected,) = search(model, src, src != 0)
        assert (got["ids"], got["finished"]) == (expected.ids, expected.finished), (got["text"], got["beam"])
        assert got["score"] == pytest.approx(expected.score, abs=1e-4)
        assert torch.allclose(
            torch.tensor(got["weights"], dtype=torch.float64), expected.weights.double(), atol=1e-5
        )
        written = [*expected.ids, 2] if expected.finished else expected.ids
        tgt_in = torch.tensor([[1, *written[:-1]]])
        with torch.no_grad():
            _, cross = model.cross_attention(src, src != 0, tgt_in)  # (1, layers, heads, T, S)
        heads = torch.tensor(got["heads"], dtype=torch.float64)  # (T, layers, heads, S)
        assert torch.allclose(heads.permute(1, 2, 0, 3), cross[0].double(), atol=1e-5)


def test_the_shipped_transformer_is_the_default_transformer_run_light_enough_for_a_page():
    from attnbook.core.records import package_path
    from attnbook.nmt.export import SHIPPED_TRANSFORMER
    from attnbook.studies import RealConfig
    from attnbook.studies.realdata import real_defaults, small_data_config
    from attnbook.studies.shipped import TransformerRun, transformer_config

    shipped = shipped_export(SHIPPED_TRANSFORMER)
    assert (shipped.kind, shipped.quantization) == ("transformer", "int8") and shipped.size <= 4_000_000
    sizes = small_data_config().model
    assert [shipped.config[k] for k in ("d_model", "num_heads", "num_layers", "ff_dim")] == [
        sizes.d_model,
        sizes.num_heads,
        sizes.num_layers,
        sizes.ff_dim,
    ]
    record = TransformerRun.packaged()
    # read back, a field added since the record takes its default, as the record's run did
    # the command line's default run on real pairs: the small-data recipe
    assert RealConfig.from_dict(record.config) == transformer_config() == real_defaults()
    assert shipped.config["dropout"] == sizes.dropout > 0
    assert record.file_bytes == shipped.size and record.trained_by == shipped.info["trained_by"]
    # the training's CPU time, what the page quotes, beside its clock time
    assert 0 < shipped.info["train_cpu_seconds"] == record.train_cpu_seconds
    # the scores of the page's weights at both beams, in the record and in the page's file
    assert shipped.info["held_out_by_beam"] == record.held_out and set(record.held_out) == {"1", "4"}
    assert shipped.info["held_out"] == record.held_out[str(shipped.info["beam_size"])]
    assert all(
        20 < scores["bleu"] < 100 and scores["sentences"] > 1000 for scores in record.held_out.values()
    )
    assert (
        shipped.info["parameters"] == record.parameters == sum(t.numel() for t in shipped.state_dict.values())
    )
    with package_path(SHIPPED_TRANSFORMER) as path:
        assert path.stat().st_size == shipped.size
