// The page's translator (attnbook.book.translator_widget): a text box, the translation, its attention.
//
// The model (seq2seq.js) runs in the page. Its weights are not in the page: they are a script file
// written by attnbook.nmt.export_translator, loaded with a <script> element the first time the reader
// focuses the box (a page opened from the disk may load a script but not fetch a file), so the page
// stays light until then. The file calls attnbookTranslatorWeights(header, data), defined here.
//
// After each translation the attention matrix and a decoder stepper are drawn by the attention
// widgets' own script (widgets.js, window.attnbookRenderWidget), so they behave as every other widget.
//
// A box over a Transformer (data.transformer: its layers and heads; the weights file's header says
// kind "transformer") runs transformer.js instead of the GRU, and lets the reader choose which
// cross-attention the figures draw: one head of one layer, or the average of a layer's heads. The
// default, the last layer's average, is the row the translator reads to replace an <unk>.
//
// A box over the toy grammar's model (data.grammar holds attnbook.nmt.grammar_lexicon()) reads the
// sentence with the grammar too (grammar.js): when the grammar can make it, the true alignment is drawn
// beside the attention. Such a box also refuses a word outside the model's vocabulary (data.refuseUnknown)
// with a message, instead of reading it as <unk>, and drops punctuation, which the grammar has none of.
// Python replaces __AW_ID__ with the element id and strips these comment lines and the indentation.
((root) => {
  if (!root || root.dataset.ready) return;
  root.dataset.ready = "1";
  const data = JSON.parse(root.querySelector("script.aw-data").textContent);
  const body = root.querySelector(".aw-body");
  body.textContent = "";

  const element = (tag, className, text) => {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  };

  // --- loading the weights, once per page and model ---------------------------------------------------

  // Models by the URL of their weights: { translator, waiting: [callbacks], failed }.
  window.attnbookTranslatorModels = window.attnbookTranslatorModels || {};
  const models = window.attnbookTranslatorModels;
  // The weights file calls this with its header and data; document.currentScript is its element.
  window.attnbookTranslatorWeights = (header, weightData) => {
    const script = document.currentScript;
    const entry = models[script ? script.dataset.url : ""];
    if (!entry) return;
    const model =
      header.kind === "transformer" ? window.attnbookTransformer : window.attnbookSeq2Seq;
    entry.translator = new model.Translator(header, weightData);
    for (const callback of entry.waiting.splice(0)) callback();
    // One throwaway translation of eight words the model knows, once the boxes waiting for the model have
    // translated: the engine compiles the forward pass while the reader types, so the reader's first
    // sentence does not pay for it.
    setTimeout(() => {
      entry.translator.translate(header.src_vocab.slice(4, 12).join(" "), 1);
      entry.warm = true;
    }, 0);
  };

  function load(onReady, onError) {
    let entry = models[data.src];
    if (entry?.translator) return onReady();
    if (entry?.failed) return onError();
    if (!entry) {
      entry = { translator: null, waiting: [], failed: false, errors: [] };
      models[data.src] = entry;
      const script = document.createElement("script");
      script.src = data.src;
      script.dataset.url = data.src;
      script.addEventListener("error", () => {
        entry.failed = true;
        for (const callback of entry.errors.splice(0)) callback();
      });
      document.head.append(script);
    }
    entry.waiting.push(onReady);
    entry.errors.push(onError);
  }

  // --- the form -------------------------------------------------------------------------------------

  const form = element("form", "at-form");
  const label = element("label", "at-label", "English");
  const input = element("input", "at-source");
  input.type = "text";
  input.dataset.role = "source";
  input.autocomplete = "off";
  input.spellcheck = false;
  input.placeholder = data.placeholder;
  input.setAttribute("aria-label", "English sentence to translate; press Enter");
  label.append(input);
  const beamLabel = element("label", "at-label", "search");
  const beam = element("select", "at-beam");
  beam.dataset.role = "beam";
  for (const [value, text] of [
    [1, "greedy (beam 1)"],
    [4, "beam 4"],
  ]) {
    const option = element("option", null, text);
    option.value = value;
    option.selected = value === data.beam;
    beam.append(option);
  }
  beamLabel.append(beam);
  const button = element("button", "at-go", "Translate");
  button.type = "submit";
  form.append(label, beamLabel, button);

  const status = element("div", "at-status", data.intro);
  status.setAttribute("aria-live", "polite");
  status.dataset.role = "status";
  const output = element("div", "at-output");
  output.dataset.role = "output";
  output.lang = "fr";
  // the French is read out when it appears, as the status line is
  output.setAttribute("aria-live", "polite");
  const unknown = element("div", "at-unknown");
  unknown.dataset.role = "unknown";
  const figures = element("div", "at-figures");

  // A Transformer's choice of attention: a layer, and one of its heads or their average.
  const view = element("div", "at-form at-view");
  let layer = null;
  let head = null;
  if (data.transformer) {
    const choice = (role, text, aria, options, selected) => {
      const wrap = element("label", "at-label", text);
      const select = element("select", "at-" + role);
      select.dataset.role = role;
      select.setAttribute("aria-label", aria);
      for (const [value, name] of options) {
        const option = element("option", null, name);
        option.value = value;
        option.selected = value === selected;
        select.append(option);
      }
      wrap.append(select);
      view.append(wrap);
      return select;
    };
    const { layers, heads } = data.transformer;
    layer = choice(
      "layer",
      "attention drawn: layer",
      "which decoder layer's cross-attention the figures draw",
      Array.from({ length: layers }, (_, l) => [String(l), String(l + 1) + " of " + layers]),
      String(layers - 1),
    );
    head = choice(
      "head",
      "",
      "which head of that layer the figures draw, or the average of its heads",
      [["mean", "average of the " + heads + " heads"]].concat(
        Array.from({ length: heads }, (_, h) => [String(h), "head " + (h + 1) + " of " + heads]),
      ),
      "mean",
    );
  }
  body.append(form, status, output, unknown, ...(data.transformer ? [view] : []), figures);

  const setStatus = (text, kind) => {
    status.textContent = text;
    status.dataset.kind = kind || "";
  };

  let loading = false;
  const startLoading = () => {
    if (loading) return;
    loading = true;
    setStatus("Loading the model (" + data.megabytes + " MB) ...", "loading");
    load(
      () => setStatus(data.ready, "ready"),
      () => setStatus(data.failed, "error"),
    );
  };
  input.addEventListener("focus", startLoading);

  // --- drawing a translation ------------------------------------------------------------------------

  // A child attention widget (matrix or stepper) drawn by widgets.js from its data.
  function childWidget(kind, widgetData, caption) {
    const child = element("div", "attention-widget");
    child.dataset.kind = kind;
    child.setAttribute("role", "figure");
    child.setAttribute("aria-label", caption);
    const childBody = element("div", "aw-body");
    const json = element("script", "aw-data");
    json.type = "application/json";
    json.textContent = JSON.stringify({ kind, ...widgetData });
    child.append(childBody, element("div", "aw-caption", caption), json);
    figures.append(child);
    window.attnbookRenderWidget(child);
    return child;
  }

  // The grammar's French for the typed words and its true links, or null (no grammar, or not its sentence).
  function grammarParse(source) {
    if (!data.grammar) return null;
    return window.attnbookToyGrammar.parse(source, data.grammar);
  }

  // The attention rows the figures draw: the search's (seq2seq), or the chosen layer's head or average
  // of heads (Transformer); with the name of that choice for the captions.
  function shownWeights(result) {
    if (!layer || !result.heads) return { rows: result.weights, name: "" };
    const l = Number(layer.value);
    const heads = data.transformer.heads;
    if (head.value === "mean") {
      const rows = result.heads.map((step) =>
        step[l][0].map((_, j) => step[l].reduce((sum, row) => sum + row[j], 0) / heads),
      );
      return { rows, name: " (layer " + (l + 1) + ", the average of its " + heads + " heads)" };
    }
    const h = Number(head.value);
    return {
      rows: result.heads.map((step) => step[l][h]),
      name: " (layer " + (l + 1) + ", head " + (h + 1) + ")",
    };
  }

  let shown = null; // the translation drawn, drawn again when the reader picks another head

  function draw(result) {
    shown = result;
    output.textContent = result.text;
    root.dataset.tokens = JSON.stringify(result.target);
    // The ids the search produced, <eos> included when it ended the sentence (for tests).
    root.dataset.ids = JSON.stringify(result.finished ? result.ids.concat([2]) : result.ids);
    unknown.textContent = "";
    if (result.unknown.length) {
      unknown.append(
        element(
          "span",
          "aw-key",
          "unknown to the model, which knows the " +
            result.vocabularySize.toLocaleString("en-US") +
            " English tokens of its training sentences (read as <unk>):",
        ),
        element("span", "aw-value", result.unknown.join(" ")),
      );
    }
    if (data.longest && result.source.length > data.longest) {
      unknown.append(
        element(
          "div",
          "at-note",
          "This sentence has " +
            result.source.length +
            " words and punctuation marks; the longest English sentence the model was trained on has " +
            data.longest +
            ", so it has never met one this long.",
        ),
      );
    }
    for (const r of result.replacements) {
      const line = element("div", "at-replacement");
      line.dataset.position = r.position;
      line.dataset.copied = r.copied ? "yes" : "no";
      const why = r.copied
        ? ")"
        : r.known
          ? ", a word the model knew: not copied)"
          : ": not a word, not copied)";
      line.append(
        element(
          "span",
          "aw-key",
          "<unk> (word " + (r.position + 1) + (r.copied ? ") copied from" : ") read most"),
        ),
        element("span", "aw-value", r.word),
        element("span", "aw-key", "(source word " + (r.source + 1) + why),
      );
      unknown.append(line);
    }
    figures.textContent = "";
    const columns = result.readAs.concat(["<eos>"]);
    const rows = result.target.concat(["<eos>"]).slice(0, result.weights.length);
    const picked = shownWeights(result);
    const weights = picked.rows.map((row) => Array.from(row));
    root.dataset.view = layer ? layer.value + ":" + head.value : "";
    const parsed = grammarParse(result.source);
    const sameFrench = parsed && parsed.target.join(" ") === result.target.join(" ");
    const trueLinks = parsed ? window.attnbookToyGrammar.links(parsed) : null;
    childWidget(
      "matrix",
      { src: columns, tgt: rows, weights, scores: null, links: sameFrench ? trueLinks : null },
      "Attention while translating" +
        picked.name +
        ": one row per French token, one column per English token." +
        (sameFrench ? " Dashed outlines: the grammar's true alignment." : ""),
    );
    if (data.grammar) {
      root.dataset.grammar = parsed ? "yes" : "no";
      if (parsed) {
        // Each French word's unit of weight shared by the English words the grammar links it to.
        const truth = parsed.alignment.map((positions) =>
          columns.map((_, j) => (positions.includes(j) ? 1 / positions.length : 0)),
        );
        root.dataset.truth = JSON.stringify(trueLinks);
        const truthWidget = childWidget(
          "matrix",
          { src: columns, tgt: parsed.target, weights: truth, scores: null, links: trueLinks },
          "The grammar's own French for this sentence and its true alignment" +
            (sameFrench
              ? " (the model wrote the same French)."
              : " (the model wrote other French)."),
        );
        truthWidget.dataset.role = "truth";
      } else {
        delete root.dataset.truth;
        unknown.append(
          element(
            "div",
            "at-note",
            "The toy grammar cannot make this sentence, so there is no true alignment to compare with.",
          ),
        );
      }
    }
    childWidget(
      "stepper",
      { src: columns, runs: [{ label: "", weights, emitted: rows, scores: null, queries: null }] },
      "The decoder step by step" +
        picked.name +
        ": the weights it gave the English tokens, and the token it wrote.",
    );
  }

  function translate() {
    const text = input.value;
    const started = performance.now();
    const run = () => {
      const entry = models[data.src];
      const tokens = window.attnbookSeq2Seq.tokenizeEnglish(text);
      // the grammar has no punctuation: its box translates the words alone
      const words = data.grammar ? tokens.filter((token) => /[\p{L}\p{N}]/u.test(token)) : tokens;
      const vocabulary = entry.translator.header.src_vocab;
      const outside = words.filter((token) => !vocabulary.includes(token));
      const refused = data.refuseUnknown && outside.length > 0;
      const result = refused
        ? null
        : entry.translator.translate(words.join(" "), Number(beam.value));
      figures.textContent = "";
      unknown.textContent = "";
      output.textContent = "";
      delete root.dataset.tokens;
      delete root.dataset.ids;
      delete root.dataset.grammar;
      delete root.dataset.truth;
      shown = null;
      if (refused) {
        const quoted = outside.map((word) => "\u201c" + word + "\u201d").join(", ");
        setStatus(
          quoted +
            (outside.length === 1 ? " is not a word" : " are not words") +
            " of the toy grammar: this model knows only the grammar's " +
            (vocabulary.length - 4) +
            " English words (for example: " +
            data.placeholder +
            ").",
          "unknown-word",
        );
      } else if (result.error === "empty") {
        setStatus("The box is empty: type an English sentence.", "empty");
      } else if (result.error === "too long") {
        setStatus(
          "This sentence has " +
            result.source.length +
            " words and punctuation marks; the model reads at most " +
            result.maxSrcLen +
            ". Shorten it.",
          "too-long",
        );
      } else {
        draw(result);
        const search = Number(beam.value) === 1 ? "greedy search" : "beam search, 4 beams";
        const casing = entry.translator.header.casing ? data.recased : data.casing;
        setStatus(data.ready + " (" + search + "; " + casing + ")", "done");
      }
      root.dataset.ms = (performance.now() - started).toFixed(1);
      root.dataset.done = String(Number(root.dataset.done || 0) + 1);
    };
    startLoading();
    load(run, () => setStatus(data.failed, "error"));
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    translate();
  });
  beam.addEventListener("change", () => {
    if (input.value.trim()) translate();
  });
  // another layer or head: the same translation, drawn again
  for (const select of [layer, head]) {
    select?.addEventListener("change", () => {
      if (shown) draw(shown);
    });
  }
})(document.currentScript?.closest(".attn-translator") || document.getElementById("__AW_ID__"));
