// Bahdanau's seq2seq translator in the browser: the forward pass of attnbook.nmt.seq2seq, the searches of
// attnbook.nmt.search, the tokeniser of attnbook.nmt.corpus and the unknown-word replacement of
// attnbook.nmt.text, written to be read beside that Python. Same names, one function per step.
// French tokens are joined into text by detok.js (attnbookDetok), which the page loads first.
//
// The weights come from a file written by attnbook.nmt.export_translator, which calls
// attnbookTranslatorWeights(header, data). Vectors are Float64Arrays; a matrix is
// { rows, cols, data } in row-major order, as PyTorch stores nn.Linear's weight (out, in).
// All arithmetic is in float64 (PyTorch computes in float32): a near tie between two words can come out
// differently, which the browser test measures.
//
// The searches read a model through three functions, the step interface that attnbook.nmt.model's
// TranslationModel gives the Python searches:
//   model.encode(srcIds) -> memory          (the encoder, run once per sentence)
//   model.initState(memory) -> state        (the decoder's first state)
//   model.step(token, state, memory) -> { logits, state, weights, heads }
// where weights is the row of attention that replace_unknown reads and heads (optional) every
// attention row the step computed, for the page to draw. gruModel(weights) is this file's model;
// transformer.js gives the Transformer the same interface and reuses the searches and the translator.
//
// The file defines one global, attnbookSeq2Seq; it also runs under Node (for tests), where it
// exports the same object.
((global) => {
  "use strict";

  const PAD = 0;
  const SOS = 1;
  const EOS = 2;
  const UNK = 3;
  const UNK_TOKEN = "<unk>";

  // --- text: attnbook.nmt.corpus.normalize and tokenize_english ---------------------------------------

  // Python's \w in a str pattern: letters, numbers and the underscore of any script.
  const WORD = "[\\p{L}\\p{N}_]";
  // What normalize() reads as an apostrophe: the right and left single quotation marks, the modifier
  // letter apostrophe and the backtick (\u0060: a backtick in the code would stop a widget from
  // embedding this script, see attnbook/book/widgets/_embed.py).
  const APOSTROPHES = /[\u2019\u2018\u02bc\u0060]/g;
  const SPACES = /[\s\u00a0\u202f\u2009]+/gu;
  const ENGLISH_TOKEN = new RegExp(WORD + "+(?:'" + WORD + "+)*|[^\\p{L}\\p{N}_\\s]", "gu");
  // detokenize_french and restore_case, from detok.js
  const detok =
    typeof module === "object" && module.exports ? require("./detok.js") : global.attnbookDetok;
  const { detokenizeFrench, restoreCase } = detok;
  // What the translator does where the model writes <unk>: attnbook.nmt.text.UNKNOWN_DEFAULT.
  const UNKNOWN_DEFAULT = "copy";

  function normalize(text) {
    text = text.normalize("NFC").replace(APOSTROPHES, "'").toLowerCase();
    return text.replace(SPACES, " ").trim();
  }

  function tokenizeEnglish(text) {
    return normalize(text).match(ENGLISH_TOKEN) || [];
  }

  // --- weights: decoding the export -----------------------------------------------------------------

  function base64Bytes(text) {
    if (typeof atob === "function") {
      const binary = atob(text);
      const bytes = new Uint8Array(binary.length);
      for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
      return bytes;
    }
    return new Uint8Array(Buffer.from(text, "base64")); // Node
  }

  // Every tensor of the export as float64: int8 ones multiplied by their row's scale.
  function loadWeights(header, data) {
    const bytes = base64Bytes(data);
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const tensors = {};
    for (const entry of header.tensors) {
      const count = entry.shape.reduce((a, b) => a * b, 1);
      const values = new Float64Array(count);
      if (entry.dtype === "int8") {
        const cols = entry.shape[1];
        for (let row = 0; row < entry.shape[0]; row++) {
          const scale = view.getFloat32(entry.scales + 4 * row, true);
          for (let col = 0; col < cols; col++) {
            const k = row * cols + col;
            values[k] = scale * view.getInt8(entry.offset + k);
          }
        }
      } else {
        for (let k = 0; k < count; k++) values[k] = view.getFloat32(entry.offset + 4 * k, true);
      }
      tensors[entry.name] =
        entry.shape.length === 2
          ? { rows: entry.shape[0], cols: entry.shape[1], data: values }
          : values;
    }
    return tensors;
  }

  // --- linear algebra -------------------------------------------------------------------------------

  // weight @ x (+ bias): weight is (out, in), x has `in` entries starting at xOffset. A translation
  // spends about half its time here (profiled under Node), so each row's dot product keeps four running
  // sums, which lets the engine overlap the multiplications (the sums are added in another order than
  // one running sum would be: the same number to about 1e-16).
  function linear(weight, x, bias, xOffset = 0) {
    const out = new Float64Array(weight.rows);
    const w = weight.data;
    const cols = weight.cols;
    const fours = cols - (cols % 4);
    for (let row = 0; row < weight.rows; row++) {
      const base = row * cols;
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      let col = 0;
      for (; col < fours; col += 4) {
        s0 += w[base + col] * x[xOffset + col];
        s1 += w[base + col + 1] * x[xOffset + col + 1];
        s2 += w[base + col + 2] * x[xOffset + col + 2];
        s3 += w[base + col + 3] * x[xOffset + col + 3];
      }
      for (; col < cols; col++) s0 += w[base + col] * x[xOffset + col];
      out[row] = (bias ? bias[row] : 0) + (s0 + s1 + (s2 + s3));
    }
    return out;
  }

  function concat(...vectors) {
    const out = new Float64Array(vectors.reduce((n, v) => n + v.length, 0));
    let at = 0;
    for (const v of vectors) {
      out.set(v, at);
      at += v.length;
    }
    return out;
  }

  const sigmoid = (x) => 1 / (1 + Math.exp(-x));

  // Row `id` of an embedding matrix (nn.Embedding).
  function embedding(weight, id) {
    return weight.data.slice(id * weight.cols, (id + 1) * weight.cols);
  }

  // softmax, and log_softmax (computed as PyTorch does: x - max - log(sum(exp(x - max)))).
  function softmax(scores) {
    const top = Math.max(...scores);
    const exps = scores.map((s) => Math.exp(s - top));
    const total = exps.reduce((a, b) => a + b, 0);
    return exps.map((e) => e / total);
  }

  function logSoftmax(logits) {
    let top = -Infinity;
    for (const x of logits) if (x > top) top = x;
    let total = 0;
    for (const x of logits) total += Math.exp(x - top);
    const shift = top + Math.log(total);
    return logits.map((x) => x - shift);
  }

  // --- the model: attnbook.nmt.seq2seq --------------------------------------------------------------

  // One GRU step (nn.GRU / nn.GRUCell). PyTorch stacks the gates' rows in the order r, z, n:
  //   r = sigmoid(W_ir x + b_ir + W_hr h + b_hr)
  //   z = sigmoid(W_iz x + b_iz + W_hz h + b_hz)
  //   n = tanh(W_in x + b_in + r * (W_hn h + b_hn))
  //   h' = (1 - z) * n + z * h
  function gruCell(x, h, weightIh, weightHh, biasIh, biasHh) {
    const H = h.length;
    const gi = linear(weightIh, x, biasIh); // (3H): the input's part of r, z, n
    const gh = linear(weightHh, h, biasHh); // (3H): the state's part
    const next = new Float64Array(H);
    for (let k = 0; k < H; k++) {
      const r = sigmoid(gi[k] + gh[k]);
      const z = sigmoid(gi[H + k] + gh[H + k]);
      const n = Math.tanh(gi[2 * H + k] + r * gh[2 * H + k]);
      next[k] = (1 - z) * n + z * h[k];
    }
    return next;
  }

  // Encoder: a bidirectional GRU over the source ids (which end in <eos>).
  // Returns the states h_j = [forward_j; backward_j] (src_len x enc_dim) and the summary
  // [forward's last state; backward's state after reading the first word] (enc_dim).
  function encode(weights, srcIds) {
    const rnn = (suffix) => [
      weights["encoder.rnn.weight_ih_l0" + suffix],
      weights["encoder.rnn.weight_hh_l0" + suffix],
      weights["encoder.rnn.bias_ih_l0" + suffix],
      weights["encoder.rnn.bias_hh_l0" + suffix],
    ];
    const forwardRnn = rnn("");
    const backwardRnn = rnn("_reverse");
    const hidden = forwardRnn[1].cols;
    const embedded = srcIds.map((id) => embedding(weights["encoder.embedding.weight"], id));
    const S = srcIds.length;
    const forward = new Array(S);
    const backward = new Array(S);
    let h = new Float64Array(hidden);
    for (let j = 0; j < S; j++) forward[j] = h = gruCell(embedded[j], h, ...forwardRnn);
    h = new Float64Array(hidden);
    for (let j = S - 1; j >= 0; j--) backward[j] = h = gruCell(embedded[j], h, ...backwardRnn);
    const states = forward.map((f, j) => concat(f, backward[j]));
    return { states, summary: concat(forward[S - 1], backward[0]) };
  }

  // EncoderMemory with Bahdanau's projected keys U h_j, computed once per sentence (prepare).
  function prepare(weights, encoded) {
    const keyProj = weights["decoder.attention.key_proj.weight"];
    return { ...encoded, projectedKeys: encoded.states.map((h) => linear(keyProj, h)) };
  }

  // The first decoder state s_0 = tanh(W_s c + b_s), c the encoder's summary.
  function initState(weights, memory) {
    return linear(
      weights["decoder.bridge.weight"],
      memory.summary,
      weights["decoder.bridge.bias"],
    ).map(Math.tanh);
  }

  // BahdanauAttention: e_j = v . tanh(W s_{i-1} + U h_j), alpha = softmax(e), c = sum_j alpha_j h_j.
  function attention(weights, query, memory) {
    const projectedQuery = linear(weights["decoder.attention.query_proj.weight"], query);
    const v = weights["decoder.attention.v.weight"].data;
    const scores = memory.projectedKeys.map((key) => {
      let e = 0;
      for (let k = 0; k < v.length; k++) e += v[k] * Math.tanh(projectedQuery[k] + key[k]);
      return e;
    });
    const alpha = softmax(scores);
    const context = new Float64Array(memory.states[0].length);
    memory.states.forEach((h, j) => {
      for (let k = 0; k < h.length; k++) context[k] += alpha[j] * h[k];
    });
    return { context, weights: alpha, scores };
  }

  // BahdanauDecoder.step: the previous state is the query; [E y_{i-1}; c_i] is the GRU's input;
  // [s_i; c_i; E y_{i-1}] feeds the output layer. Returns the logits, the new state and the weights.
  function decoderStep(weights, prevToken, state, memory) {
    const embedded = embedding(weights["decoder.embedding.weight"], prevToken);
    const attended = attention(weights, state, memory);
    const next = gruCell(
      concat(embedded, attended.context),
      state,
      weights["decoder.rnn.weight_ih"],
      weights["decoder.rnn.weight_hh"],
      weights["decoder.rnn.bias_ih"],
      weights["decoder.rnn.bias_hh"],
    );
    const features = concat(next, attended.context, embedded);
    const logits = linear(weights["decoder.out.weight"], features, weights["decoder.out.bias"]);
    return { logits, state: next, weights: attended.weights };
  }

  // The step interface over the GRU's weights (see the top of the file).
  function gruModel(weights) {
    return {
      encode: (srcIds) => prepare(weights, encode(weights, srcIds)),
      initState: (memory) => initState(weights, memory),
      step: (token, state, memory) => decoderStep(weights, token, state, memory),
    };
  }

  // The searches take a model, or (as before the interface) the GRU's weights.
  const asModel = (model) => (typeof model.step === "function" ? model : gruModel(model));

  // --- search: attnbook.nmt.search ------------------------------------------------------------------

  // The default length limit: 2 * src_len + 5, src_len counting the source's <eos>.
  const defaultMaxLen = (srcIds) => 2 * srcIds.length + 5;

  // A Hypothesis: the ids without <sos>/<eos>, whether <eos> ended it, one row of weights per
  // generated token (<eos> included when finished) and the sum of the tokens' log-probabilities;
  // heads: each generated token's step.heads (when the model gives them), cut as the weights are.
  function hypothesis(ids, weights, score, heads) {
    const end = ids.indexOf(EOS);
    const finished = end >= 0;
    const length = finished ? end : ids.length;
    return {
      ids: ids.slice(0, length),
      finished,
      weights: weights.slice(0, length + finished),
      heads: heads?.[0] ? heads.slice(0, length + finished) : null,
      score,
    };
  }

  // greedy_decode: the most probable token at every step.
  function greedyDecode(model, srcIds, maxLen = defaultMaxLen(srcIds)) {
    model = asModel(model);
    const memory = model.encode(srcIds);
    let state = model.initState(memory);
    let token = SOS;
    let score = 0;
    const ids = [];
    const rows = [];
    const heads = [];
    for (let t = 0; t < maxLen; t++) {
      const step = model.step(token, state, memory);
      const logProbs = logSoftmax(step.logits);
      token = 0;
      for (let k = 1; k < logProbs.length; k++) if (logProbs[k] > logProbs[token]) token = k;
      score += logProbs[token];
      state = step.state;
      ids.push(token);
      rows.push(step.weights);
      heads.push(step.heads);
      if (token === EOS) break;
    }
    return hypothesis(ids, rows, score, heads);
  }

  // beam_search: keep the beamSize most probable partial translations. At first every beam holds the
  // same <sos>, so only the first is expanded; a finished beam may only continue with <pad>, at no cost,
  // so its score stays frozen. The best beam is chosen by score / length ** lengthPenalty.
  function beamSearch(
    model,
    srcIds,
    beamSize = 4,
    maxLen = defaultMaxLen(srcIds),
    lengthPenalty = 0,
  ) {
    model = asModel(model);
    const memory = model.encode(srcIds);
    const start = model.initState(memory);
    let beams = [];
    for (let b = 0; b < beamSize; b++) {
      beams.push({
        state: start,
        ids: [],
        rows: [],
        heads: [],
        score: b === 0 ? 0 : -Infinity,
        finished: false,
      });
    }
    for (let t = 0; t < maxLen; t++) {
      // Every candidate (beam, token) with its score; only the best beamSize survive.
      const candidates = [];
      for (const beam of beams) {
        if (beam.score === -Infinity) continue; // the first step's copies of <sos>: never chosen
        if (beam.finished) {
          candidates.push({ parent: beam, token: PAD, score: beam.score });
          continue;
        }
        const step = model.step(
          beam.ids.length ? beam.ids[beam.ids.length - 1] : SOS,
          beam.state,
          memory,
        );
        const logProbs = logSoftmax(step.logits);
        for (let k = 0; k < logProbs.length; k++) {
          candidates.push({ parent: beam, token: k, score: beam.score + logProbs[k], step });
        }
      }
      // topk: the highest scores first; among equal scores, the earlier candidate (beam, then token).
      const order = [...candidates.keys()];
      order.sort((a, b) => candidates[b].score - candidates[a].score || a - b);
      beams = order.slice(0, beamSize).map((k) => {
        const { parent, token, score, step } = candidates[k];
        return {
          state: step ? step.state : parent.state,
          ids: parent.ids.concat([token]),
          rows: parent.rows.concat([step ? step.weights : parent.rows[parent.rows.length - 1]]),
          heads: parent.heads.concat([step ? step.heads : parent.heads[parent.heads.length - 1]]),
          score,
          finished: parent.finished || token === EOS,
        };
      });
      if (beams.every((beam) => beam.finished)) break;
    }
    // The length of a beam: up to and with its <eos>, or all its tokens.
    const normalised = beams.map((beam) => {
      const end = beam.ids.indexOf(EOS);
      const length = end >= 0 ? end + 1 : beam.ids.length;
      return beam.score / length ** lengthPenalty;
    });
    let best = 0;
    for (let b = 1; b < beams.length; b++) if (normalised[b] > normalised[best]) best = b;
    return hypothesis(beams[best].ids, beams[best].rows, beams[best].score, beams[best].heads);
  }

  // --- the translator: attnbook.nmt.translator and the command line's translate ----------------------

  // copyable: a word or a number (letters, digits, apostrophes, hyphens, a piece's \u2581), never
  // punctuation or an emoji.
  const COPYABLE = /^[\p{L}\p{N}'\-\u2581]*$/u;
  const ALPHANUMERIC = /[\p{L}\p{N}]/u;
  function copyable(token) {
    return COPYABLE.test(token) && ALPHANUMERIC.test(token);
  }

  // replace_unknown: each <unk> of the translation becomes the source word its row of attention
  // weighs most (never the source <eos>) where that word is copyable and one the model could not read
  // (not in `known`); elsewhere the <unk> is left out. Returns the new tokens and, for each <unk>, the
  // source word its row read most, whether the model knew it and whether it was copied.
  function replaceUnknown(target, source, rows, known = new Set()) {
    const replacements = [];
    const replaced = [];
    target.forEach((token, i) => {
      if (token !== UNK_TOKEN) {
        replaced.push(token);
        return;
      }
      let best = 0;
      for (let j = 1; j < source.length; j++) if (rows[i][j] > rows[i][best]) best = j;
      const word = source[best];
      const wasKnown = known.has(word);
      const copied = copyable(word) && !wasKnown;
      replacements.push({ position: i, source: best, word, copied, known: wasKnown });
      if (copied) replaced.push(word);
    });
    return { replaced, replacements };
  }

  // A model made from an export's header and data: translate(text, beamSize, unknown) does what
  // `python -m attnbook translate` does (unknown: "copy" or "keep", as --unknown), and returns every
  // number the page shows. makeModel(weights, header) gives the step interface: the GRU's here,
  // the Transformer's in transformer.js.
  function Translator(header, data, makeModel = gruModel) {
    const weights = loadWeights(header, data);
    const model = makeModel(weights, header);
    const srcIds = new Map(header.src_vocab.map((token, id) => [token, id]));
    const maxSrcLen = header.config.max_src_len;

    this.header = header;
    this.weights = weights;
    this.model = model;

    this.translate = (text, beamSize = 1, unknown = UNKNOWN_DEFAULT) => {
      const source = tokenizeEnglish(text);
      if (source.length === 0) return { error: "empty", source };
      if (maxSrcLen && source.length > maxSrcLen) return { error: "too long", source, maxSrcLen };
      const ids = source
        .map((token) => (srcIds.has(token) ? srcIds.get(token) : UNK))
        .concat([EOS]);
      const found = beamSize === 1 ? greedyDecode(model, ids) : beamSearch(model, ids, beamSize);
      // as Vocab.decode: <pad> and <sos> are no words (a trained model does not write them)
      const target = found.ids
        .filter((id) => id !== PAD && id !== SOS)
        .map((id) => header.tgt_vocab[id]);
      const { replaced, replacements } =
        unknown === "keep"
          ? { replaced: target, replacements: [] }
          : replaceUnknown(target, source, found.weights, srcIds);
      return {
        source,
        readAs: source.map((token) => (srcIds.has(token) ? token : UNK_TOKEN)),
        unknown: source.filter((token) => !srcIds.has(token)),
        vocabularySize: header.src_vocab.length,
        ids: found.ids,
        target,
        replaced,
        replacements,
        text: detokenizeFrench(header.casing ? restoreCase(replaced, header.casing) : replaced),
        weights: found.weights,
        heads: found.heads,
        finished: found.finished,
        score: found.score,
      };
    };
  }

  const api = {
    PAD,
    SOS,
    EOS,
    UNK,
    UNKNOWN_DEFAULT,
    normalize,
    tokenizeEnglish,
    detokenizeFrench,
    loadWeights,
    linear,
    embedding,
    softmax,
    gruCell,
    encode,
    prepare,
    initState,
    attention,
    decoderStep,
    gruModel,
    greedyDecode,
    beamSearch,
    replaceUnknown,
    copyable,
    Translator,
  };
  if (typeof module === "object" && module.exports) module.exports = api;
  else global.attnbookSeq2Seq = api;
})(typeof globalThis === "object" ? globalThis : this);
