// Chapter 9's Transformer translator in the browser: the forward pass of attnbook.nmt.transformer and
// attnbook.layers.multihead, written to be read beside that Python. Same names, one function per step.
//
// The model is pre-norm (x + sublayer(LayerNorm(x))): embeddings scaled by sqrt(d_model) plus
// sinusoidal positions; each encoder layer self-attention then a feed-forward network; each decoder
// layer causal self-attention, cross-attention over the encoder's states, a feed-forward network;
// a final LayerNorm on each side, then the output layer.
//
// It gives seq2seq.js's searches the step interface (encode, initState, step) and reuses them, the
// tokeniser, replace_unknown and the translator: attnbookTransformer.Translator(header, data) is
// attnbookSeq2Seq.Translator with this model. Each step returns the last layer's cross-attention
// averaged over the heads (weights: what the Python step returns, and what replace_unknown reads) and
// every layer's and head's (heads[layer][head], one weight per source token) for the page to draw.
//
// Like seq2seq.js it computes in float64 (PyTorch in float32), reads the weights of a file written by
// attnbook.nmt.export_translator, and stores a matrix as { rows, cols, data }, row-major (out, in).
// The page loads seq2seq.js first. The file defines one global, attnbookTransformer; under Node (for
// tests) it exports the same object.
((global) => {
  "use strict";

  const seq2seq =
    typeof module === "object" && module.exports ? require("./seq2seq.js") : global.attnbookSeq2Seq;
  const { linear, embedding, softmax } = seq2seq;

  // nn.LayerNorm's default epsilon.
  const LAYER_NORM_EPS = 1e-5;

  // --- the pieces: attnbook.nmt.transformer and attnbook.layers.multihead --------------------------------

  // sinusoidal_positions, one row: P[t, 2l] = sin(t / 10000^(2l/d)), P[t, 2l + 1] = cos(t / 10000^(2l/d)).
  function position(t, dim) {
    const code = new Float64Array(dim);
    for (let k = 0; k < dim; k += 2) {
      const frequency = Math.exp((-Math.log(10000) * k) / dim);
      code[k] = Math.sin(t * frequency);
      code[k + 1] = Math.cos(t * frequency);
    }
    return code;
  }

  // _Embed: the token's embedding times sqrt(d_model), plus the code of its position t.
  function embed(weight, id, t) {
    const x = embedding(weight, id);
    const scale = Math.sqrt(weight.cols);
    const code = position(t, weight.cols);
    for (let k = 0; k < x.length; k++) x[k] = x[k] * scale + code[k];
    return x;
  }

  // nn.LayerNorm over the features: (x - mean) / sqrt(variance + eps) * weight + bias, the variance
  // biased (divided by d).
  function layerNorm(weights, prefix, x) {
    const gain = weights[prefix + ".weight"];
    const bias = weights[prefix + ".bias"];
    let mean = 0;
    for (const v of x) mean += v;
    mean /= x.length;
    let variance = 0;
    for (const v of x) variance += (v - mean) * (v - mean);
    variance /= x.length;
    const scale = 1 / Math.sqrt(variance + LAYER_NORM_EPS);
    return x.map((v, k) => (v - mean) * scale * gain[k] + bias[k]);
  }

  // nn.Linear named `prefix` (its weight and bias) applied to x.
  const project = (weights, prefix, x) =>
    linear(weights[prefix + ".weight"], x, weights[prefix + ".bias"]);

  // _feed_forward: Linear(d_model, ff_dim), ReLU, Linear(ff_dim, d_model).
  function feedForward(weights, prefix, x) {
    const hidden = project(weights, prefix + ".0", x).map((v) => Math.max(v, 0));
    return project(weights, prefix + ".2", hidden);
  }

  const add = (x, y) => x.map((v, k) => v + y[k]);

  // The keys and values a MultiHeadAttention named `prefix` attends over: key_proj and value_proj of
  // each state. Computed once per sequence (the encoder's states) or once per position (the decoder's
  // cache), since they do not depend on the query.
  function keysAndValues(weights, prefix, states) {
    return {
      keys: states.map((h) => project(weights, prefix + ".key_proj", h)),
      values: states.map((h) => project(weights, prefix + ".value_proj", h)),
    };
  }

  // MultiHeadAttention.forward for one query x over projected keys and values: the query projected, split
  // into heads of head_dim features; each head's scores q_h . k_h / sqrt(head_dim) and their softmax; the
  // heads' contexts side by side, projected by out_proj. No mask: every key is one the query may see (a
  // real source token or <eos>; the decoder's positions so far). Returns the output and the weights of
  // each head, weights[head][j].
  function multiHead(weights, prefix, numHeads, x, attended) {
    const q = project(weights, prefix + ".query_proj", x);
    const headDim = q.length / numHeads;
    const merged = new Float64Array(q.length); // [head_1; ...; head_H]
    const headWeights = [];
    for (let h = 0; h < numHeads; h++) {
      const from = h * headDim;
      const scores = attended.keys.map((k) => {
        let dot = 0;
        for (let i = from; i < from + headDim; i++) dot += q[i] * k[i];
        return dot / Math.sqrt(headDim);
      });
      const alpha = softmax(scores);
      attended.values.forEach((v, j) => {
        for (let i = from; i < from + headDim; i++) merged[i] += alpha[j] * v[i];
      });
      headWeights.push(alpha);
    }
    return { context: project(weights, prefix + ".out_proj", merged), weights: headWeights };
  }

  // --- the model --------------------------------------------------------------------------------------

  // TransformerEncoder: the source ids (ending in <eos>) embedded at positions 0, 1, ...; each
  // EncoderLayer states + SelfAttention(LN(states)), then states + FeedForward(LN(states)); a final
  // LayerNorm. Returns the encoder's states (src_len x d_model).
  function encode(weights, config, srcIds) {
    let states = srcIds.map((id, t) => embed(weights["encoder.embed.embedding.weight"], id, t));
    for (let l = 0; l < config.num_layers; l++) {
      const layer = "encoder.layers." + l;
      const normed = states.map((x) => layerNorm(weights, layer + ".norm_attn", x));
      const attended = keysAndValues(weights, layer + ".self_attn", normed);
      states = states.map((x, i) =>
        add(
          x,
          multiHead(weights, layer + ".self_attn", config.num_heads, normed[i], attended).context,
        ),
      );
      states = states.map((x) =>
        add(
          x,
          feedForward(weights, layer + ".feed_forward", layerNorm(weights, layer + ".norm_ff", x)),
        ),
      );
    }
    return states.map((x) => layerNorm(weights, "encoder.norm", x));
  }

  // TransformerMemory, with each decoder layer's cross-attention keys and values of the encoder's
  // states, computed once per sentence.
  function prepare(weights, config, states) {
    const cross = [];
    for (let l = 0; l < config.num_layers; l++) {
      cross.push(keysAndValues(weights, "decoder.layers." + l + ".cross_attn", states));
    }
    return { states, cross };
  }

  // TransformerDecoder.init_state: nothing decoded yet. The Python cache holds each layer's input at
  // every position so far and projects it again at every step; this one holds what those inputs become
  // in the self-attention, their keys and values (LayerNorm acts on each position alone, so they never
  // change): the same numbers, computed once.
  function initState(config) {
    const empty = () => Array.from({ length: config.num_layers }, () => []);
    return { length: 0, keys: empty(), values: empty() };
  }

  // TransformerDecoder.step: read token `prevToken` at position state.length and predict the next one.
  // In each DecoderLayer the new position attends over itself and every earlier position (the causal
  // mask lets it see them all), then over the encoder's states, then goes through the feed-forward
  // network. Returns the logits, the grown cache (a new object: beam search's beams share their
  // parents' caches), the last layer's cross-attention averaged over the heads, and every layer's.
  function decoderStep(weights, config, prevToken, state, memory) {
    let x = embed(weights["decoder.embed.embedding.weight"], prevToken, state.length);
    const next = { length: state.length + 1, keys: [], values: [] };
    const heads = [];
    for (let l = 0; l < config.num_layers; l++) {
      const layer = "decoder.layers." + l;
      const normed = layerNorm(weights, layer + ".norm_self", x);
      const own = keysAndValues(weights, layer + ".self_attn", [normed]);
      next.keys.push(state.keys[l].concat(own.keys));
      next.values.push(state.values[l].concat(own.values));
      const self = { keys: next.keys[l], values: next.values[l] };
      x = add(x, multiHead(weights, layer + ".self_attn", config.num_heads, normed, self).context);
      const cross = multiHead(
        weights,
        layer + ".cross_attn",
        config.num_heads,
        layerNorm(weights, layer + ".norm_cross", x),
        memory.cross[l],
      );
      x = add(x, cross.context);
      x = add(
        x,
        feedForward(weights, layer + ".feed_forward", layerNorm(weights, layer + ".norm_ff", x)),
      );
      heads.push(cross.weights);
    }
    const logits = project(weights, "decoder.out", layerNorm(weights, "decoder.norm", x));
    const last = heads[heads.length - 1];
    const mean = new Float64Array(memory.states.length);
    for (const row of last) for (let j = 0; j < row.length; j++) mean[j] += row[j] / last.length;
    return { logits, state: next, weights: mean, heads };
  }

  // The step interface of seq2seq.js's searches over a Transformer export's weights.
  function transformerModel(weights, header) {
    const config = header.config;
    return {
      encode: (srcIds) => prepare(weights, config, encode(weights, config, srcIds)),
      initState: () => initState(config),
      step: (token, state, memory) => decoderStep(weights, config, token, state, memory),
    };
  }

  // seq2seq.js's translator (tokeniser, searches, replace_unknown, detokeniser) over this model.
  function Translator(header, data) {
    return new seq2seq.Translator(header, data, transformerModel);
  }

  const api = {
    position,
    layerNorm,
    multiHead,
    encode,
    prepare,
    initState,
    decoderStep,
    transformerModel,
    Translator,
    tokenizeEnglish: seq2seq.tokenizeEnglish,
    detokenizeFrench: seq2seq.detokenizeFrench,
  };
  if (typeof module === "object" && module.exports) module.exports = api;
  else global.attnbookTransformer = api;
})(typeof globalThis === "object" ? globalThis : this);
