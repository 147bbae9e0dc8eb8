// The script of every attention widget (attnbook.book.widgets).
//
// Each widget's HTML holds its data as JSON in <script class="aw-data"> and a copy of this script.
// The script finds its own root through document.currentScript (the element id is the fallback),
// so two widgets on one page never mix, and draws the figure with the function that KINDS, at the
// end, gives for the data's "kind". The kinds have the names of attnbook.book.widgets.KINDS:
//   matrix      - a weight matrix, tokens on both axes (attention_widget)
//   stepper     - a slider over decoder steps (decoder_stepper)
//   slider      - a slider over precomputed rows of weights (weights_slider)
//   curve       - a slider over precomputed curves, drawn as SVG (curve_slider), whose script is
//                 widgets-curve.js, embedded before this one
//   checkpoints - a slider over snapshots taken while a model trained, each a matrix
//                 (checkpoint_slider)
// Each function draws one kind from the parts every widget has (see render): its root, its data,
// the body it draws into and the readout line under the figure.
// Python replaces __AW_ID__ with the element id and, embedding the script, drops its comment lines
// and its indentation (attnbook/book/widgets/_embed.py).
// The script also defines window.attnbookRenderWidget(root), which draws a widget made in the page
// (the translator draws its attention that way).
(() => {
  const element = (tag, className, text) => {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  };

  // --- colours and numbers ----------------------------------------------------------------------

  // The colour map of the book's static heatmaps (seaborn's "rocket", reversed: light = small weight).
  const STOPS = [
    "#faebdd",
    "#f6bb97",
    "#f4865e",
    "#ec4a3e",
    "#ca1a50",
    "#951c5b",
    "#601f52",
    "#2e1739",
    "#03051a",
  ].map((hex) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)));

  const channelsOf = (weight) => {
    const position = Math.max(0, Math.min(1, weight)) * (STOPS.length - 1);
    const stop = Math.min(Math.floor(position), STOPS.length - 2);
    const fraction = position - stop;
    return STOPS[stop].map((channel, k) =>
      Math.round(channel + (STOPS[stop + 1][k] - channel) * fraction),
    );
  };
  const colour = (weight) => "rgb(" + channelsOf(weight).join(",") + ")";

  // Black or white text on a cell, whichever contrasts more with the cell's colour (WCAG's relative
  // luminance: above 0.179, black text has the larger contrast ratio, at least 4.58:1 on this map).
  const textColour = (weight) => {
    const linear = channelsOf(weight).map((channel) => {
      const value = channel / 255;
      return value <= 0.03928 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4;
    });
    const luminance = 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2];
    return luminance > 0.179 ? "#000" : "#fff";
  };

  // A weight or a score to three decimals; a masked score (null) is minus infinity.
  const format = (value) => (value === null || value === undefined ? "−∞" : value.toFixed(3));

  // --- the parts the kinds share --------------------------------------------------------------------

  // "key value" fields, each a span the tests and the styles find by its data-field.
  const showFields = (container, fields) => {
    container.textContent = "";
    for (const [key, value] of fields) {
      const field = element("span", "aw-field");
      field.dataset.field = key;
      field.append(element("span", "aw-key", key), element("span", "aw-value", value));
      container.append(field);
    }
  };

  // A range input over n frames; the arrow keys move it from anywhere in the widget (root) too.
  function frameSlider(root, n, label, onChange) {
    const box = element("div", "aw-controls");
    const input = element("input");
    const text = element("span", "aw-step");
    input.type = "range";
    input.min = 0;
    input.max = n - 1;
    input.step = 1;
    input.value = 0;
    input.setAttribute("aria-label", label);
    input.addEventListener("input", () => onChange(+input.value));
    box.append(input, text);
    root.addEventListener("keydown", (event) => {
      // the range input moves itself; an SVG plot or a matrix inside the widget uses the keys itself
      if (event.target === input || event.target.tagName === "svg" || event.defaultPrevented) {
        return;
      }
      const move = { ArrowRight: 1, ArrowUp: 1, ArrowLeft: -1, ArrowDown: -1 }[event.key];
      if (!move) return;
      event.preventDefault();
      input.value = Math.max(0, Math.min(+input.max, +input.value + move));
      onChange(+input.value);
    });
    // The text beside the slider, which a screen reader also reads as the slider's value.
    const say = (value) => {
      text.textContent = value;
      input.setAttribute("aria-valuetext", value);
    };
    return { box, input, text, say };
  }

  // One row of weights as bars over the source words (optionally with a row of scores above).
  // hoverLabel() gives the fields the readout shows before the hovered word's own.
  function bars(widget, src, withScores, hoverLabel) {
    const grid = element("div", "aw-grid");
    grid.style.gridTemplateColumns = "auto repeat(" + src.length + ",var(--aw-cell))";
    const scoreCells = [];
    const barFills = [];
    const numbers = [];
    const labels = [];
    if (withScores) {
      grid.append(element("div", "aw-ylabel aw-muted", "score"));
      src.forEach(() => {
        const cell = element("div", "aw-num");
        scoreCells.push(cell);
        grid.append(cell);
      });
    }
    grid.append(element("div", "aw-ylabel aw-muted", "weight"));
    src.forEach((_word, j) => {
      const cell = element("div", "aw-barcell");
      const number = element("span", "aw-num");
      const fill = element("div", "aw-bar");
      cell.dataset.col = j;
      cell.append(number, fill);
      barFills.push(fill);
      numbers.push(number);
      grid.append(cell);
    });
    grid.append(element("div"));
    src.forEach((word, j) => {
      const label = element("div", "aw-xlabel", word);
      label.dataset.col = j;
      labels.push(label);
      grid.append(label);
    });

    let current = null;
    const draw = (weights, scores) => {
      current = { weights, scores };
      weights.forEach((weight, j) => {
        barFills[j].style.height = (100 * weight).toFixed(1) + "%";
        numbers[j].textContent = weight.toFixed(2);
        if (withScores) {
          scoreCells[j].textContent = scores
            ? scores[j] === null
              ? "−∞"
              : scores[j].toFixed(2)
            : "";
        }
      });
    };
    grid.addEventListener("mouseover", (event) => {
      const target = event.target.closest("[data-col]");
      if (!target || !current) return;
      const j = +target.dataset.col;
      labels.forEach((label, k) => {
        label.classList.toggle("aw-on", k === j);
      });
      const fields = [
        ["source", src[j]],
        ["weight", format(current.weights[j])],
      ];
      if (current.scores) fields.push(["score", format(current.scores[j])]);
      widget.show(hoverLabel().concat(fields));
    });
    return { grid, draw };
  }

  // --- matrix: attention_widget -----------------------------------------------------------------

  // The matrix as an ARIA grid: one row element per matrix row (display: contents, so the cells stay
  // items of the CSS grid), the target word its row header, the source words the column headers, and
  // under the matrix a row of bars for the active target word. Only cell (0, 0) starts in the tab
  // order. links is a set of "i,j" keys (the true alignment a grammar knows), outlined.
  function matrixGrid(data, links) {
    const S = data.src.length;
    const grid = element("div", "aw-grid");
    grid.setAttribute("role", "grid");
    grid.setAttribute(
      "aria-label",
      "attention weights, one row per target word, one column per source word: " +
        "arrow keys move between cells",
    );
    grid.style.gridTemplateColumns = "auto repeat(" + S + ",var(--aw-cell))";
    const row = (...children) => {
      const node = element("div", "aw-gridrow");
      node.setAttribute("role", "row");
      node.append(...children);
      grid.append(node);
      return node;
    };
    const parts = { grid, cells: [], yLabels: [], xLabels: [], barFills: [], numbers: [] };
    // What a screen reader says of cell (i, j): its words, weight, score and link.
    const cellLabel = (i, j) => {
      let text =
        "target " +
        data.tgt[i] +
        ", source " +
        data.src[j] +
        ": weight " +
        format(data.weights[i][j]);
      if (data.scores) text += ", score " + format(data.scores[i][j]);
      if (data.links) text += links.has(i + "," + j) ? ", a true link" : ", not a true link";
      return text;
    };
    // The column headers come first for a screen reader and last on the screen (CSS order), under
    // the bars, as in the static figure.
    const corner = element("div", "aw-ylabel aw-muted", "target ↑ source →");
    corner.setAttribute("role", "columnheader");
    row(
      corner,
      ...data.src.map((sourceWord) => {
        const xLabel = element("div", "aw-xlabel", sourceWord);
        xLabel.setAttribute("role", "columnheader");
        parts.xLabels.push(xLabel);
        return xLabel;
      }),
    ).classList.add("aw-columns");
    data.tgt.forEach((targetWord, i) => {
      const yLabel = element("div", "aw-ylabel", targetWord);
      yLabel.setAttribute("role", "rowheader");
      yLabel.dataset.row = i;
      parts.yLabels.push(yLabel);
      const rowCells = data.src.map((_sourceWord, j) => {
        const weight = data.weights[i][j];
        const cell = element("div", "aw-cell", S <= 12 ? weight.toFixed(2) : "");
        cell.setAttribute("role", "gridcell");
        cell.setAttribute("aria-label", cellLabel(i, j));
        cell.tabIndex = i === 0 && j === 0 ? 0 : -1;
        cell.dataset.row = i;
        cell.dataset.col = j;
        cell.style.background = colour(weight);
        cell.style.color = textColour(weight);
        if (links.has(i + "," + j)) cell.classList.add("aw-link");
        return cell;
      });
      parts.cells.push(rowCells);
      row(yLabel, ...rowCells);
    });
    const barsHeader = element("div", "aw-ylabel aw-muted", "row");
    barsHeader.setAttribute("role", "rowheader");
    row(
      barsHeader,
      ...data.src.map(() => {
        const cell = element("div", "aw-barcell");
        cell.setAttribute("role", "gridcell");
        const number = element("span", "aw-num");
        const fill = element("div", "aw-bar");
        cell.append(number, fill);
        parts.barFills.push(fill);
        parts.numbers.push(number);
        return cell;
      }),
    );
    return parts;
  }

  // The cell the arrow keys, Home, End, Page Up and Page Down move to from cell (i, j) of a T x S
  // matrix, or undefined for another key; with Ctrl, Home and End go to the first and the last cell.
  function cellAfterKey(event, i, j, T, S) {
    const to = {
      ArrowUp: [i - 1, j],
      ArrowDown: [i + 1, j],
      ArrowLeft: [i, j - 1],
      ArrowRight: [i, j + 1],
      Home: event.ctrlKey ? [0, 0] : [i, 0],
      End: event.ctrlKey ? [T - 1, S - 1] : [i, S - 1],
      PageUp: [0, j],
      PageDown: [T - 1, j],
    }[event.key];
    return to && [Math.max(0, Math.min(T - 1, to[0])), Math.max(0, Math.min(S - 1, to[1]))];
  }

  // Hovering a cell or a target word, or moving the focus, makes a row (and a cell of it) the
  // active one: outlined, drawn as bars under the matrix and read out. One cell at a time is in the
  // tab order (a roving tabindex).
  function drawMatrix(widget) {
    const { data } = widget;
    const links = new Set((data.links || []).map(([i, j]) => i + "," + j));
    const { grid, cells, yLabels, xLabels, barFills, numbers } = matrixGrid(data, links);

    let activeRow = -1;
    let activeCol = -1;
    // Row i (and cell j of it, or no cell when j is -1) becomes the active one.
    const activate = (i, j) => {
      activeRow = i;
      activeCol = j;
      cells.forEach((cellRow, k) => {
        cellRow.forEach((cell, l) => {
          cell.classList.toggle("aw-row", k === i);
          cell.classList.toggle("aw-on", k === i && l === j);
        });
      });
      yLabels.forEach((yLabel, k) => {
        yLabel.classList.toggle("aw-on", k === i);
      });
      xLabels.forEach((xLabel, l) => {
        xLabel.classList.toggle("aw-on", l === j);
      });
      data.weights[i].forEach((weight, l) => {
        barFills[l].style.height = (100 * weight).toFixed(1) + "%";
        numbers[l].textContent = weight.toFixed(2);
      });
      const fields = [["target", data.tgt[i]]];
      if (j >= 0) {
        fields.push(["source", data.src[j]], ["weight", format(data.weights[i][j])]);
        if (data.links) fields.push(["true link", links.has(i + "," + j) ? "yes" : "no"]);
        if (data.scores) fields.push(["score", format(data.scores[i][j])]);
      }
      widget.show(fields);
    };
    // The keyboard's cell: the only one in the tab order, and focused.
    const focusCell = (i, j) => {
      for (const cell of cells.flat()) cell.tabIndex = -1;
      cells[i][j].tabIndex = 0;
      cells[i][j].focus();
      activate(i, j);
    };
    grid.addEventListener("mouseover", (event) => {
      const target = event.target.closest("[data-row]");
      if (!target) return;
      activate(+target.dataset.row, target.dataset.col === undefined ? -1 : +target.dataset.col);
    });
    grid.addEventListener("focusin", (event) => {
      const cell = event.target.closest(".aw-cell");
      if (cell && (+cell.dataset.row !== activeRow || +cell.dataset.col !== activeCol)) {
        activate(+cell.dataset.row, +cell.dataset.col);
      }
    });
    grid.addEventListener("keydown", (event) => {
      const cell = event.target.closest(".aw-cell");
      if (!cell) return;
      const to = cellAfterKey(
        event,
        +cell.dataset.row,
        +cell.dataset.col,
        cells.length,
        data.src.length,
      );
      if (!to) return;
      event.preventDefault();
      focusCell(...to);
    });
    widget.show([
      ["hover a cell or a target word", "(or tab to the matrix and use the arrow keys)"],
    ]);
    widget.body.append(grid, widget.readout);
  }

  // --- stepper: decoder_stepper ------------------------------------------------------------------

  // The query as a strip of coloured cells: red positive, blue negative, scaled by the largest of
  // all the run's queries.
  function queryStrip(queries, step) {
    const q = queries[step];
    const top = Math.max(1e-9, ...queries.flat().map(Math.abs));
    const strip = element("div", "aw-query");
    q.forEach((value) => {
      const cell = element("span");
      const alpha = (Math.abs(value) / top).toFixed(3);
      cell.style.background =
        value >= 0 ? "rgba(202,26,80," + alpha + ")" : "rgba(31,111,178," + alpha + ")";
      cell.title = value.toFixed(3);
      strip.append(cell);
    });
    return [element("span", "aw-key", "query (" + q.length + " numbers; red +, blue −)"), strip];
  }

  // Step i's query, scores, weights and emitted word; a toggle between runs.
  function drawStepper(widget) {
    const { root, data } = widget;
    const runs = data.runs;
    let run = 0;
    let step = 0;
    const head = element("div", "aw-controls");
    const emitted = element("div", "aw-controls");
    const query = element("div", "aw-controls");
    const barRow = bars(
      widget,
      data.src,
      runs.some((r) => r.scores),
      () => [
        ["step", String(step + 1)],
        ["emits", runs[run].emitted[step]],
      ],
    );
    const stepSlider = frameSlider(
      root,
      Math.max(...runs.map((r) => r.weights.length)),
      "decoder step",
      (i) => go(i),
    );
    const toggles =
      runs.length > 1
        ? runs.map((r, k) => {
            const toggle = element("button", null, r.label);
            toggle.type = "button";
            toggle.addEventListener("click", () => {
              run = k;
              go(step);
            });
            head.append(toggle);
            return toggle;
          })
        : [];
    const go = (i) => {
      const current = runs[run];
      const T = current.weights.length;
      step = Math.max(0, Math.min(T - 1, i));
      stepSlider.input.max = T - 1;
      stepSlider.input.value = step;
      stepSlider.say("step " + (step + 1) + " of " + T);
      toggles.forEach((toggle, k) => {
        toggle.setAttribute("aria-pressed", k === run);
      });
      emitted.textContent = "";
      emitted.append(
        element("span", "aw-key", "emits"),
        element("span", "aw-value", current.emitted[step]),
      );
      query.textContent = "";
      if (current.queries) query.append(...queryStrip(current.queries, step));
      barRow.draw(current.weights[step], current.scores ? current.scores[step] : null);
      widget.readout.textContent = "";
      root.dataset.step = step;
    };
    widget.body.append(head, stepSlider.box, query, barRow.grid, emitted, widget.readout);
    go(0);
  }

  // --- slider: weights_slider --------------------------------------------------------------------

  // One row of weights per value of the parameter.
  function drawSlider(widget) {
    const { root, data } = widget;
    let frame = 0;
    const barRow = bars(widget, data.src, false, () => [
      [data.parameter, String(data.values[frame])],
    ]);
    const valueSlider = frameSlider(root, data.values.length, data.parameter, (i) => go(i));
    const go = (i) => {
      frame = i;
      valueSlider.input.value = i;
      valueSlider.say(data.parameter + " = " + data.values[frame]);
      barRow.draw(data.weights[i], null);
      widget.readout.textContent = "";
      root.dataset.step = i;
    };
    widget.body.append(valueSlider.box, barRow.grid, widget.readout);
    go(0);
  }

  // --- checkpoints: checkpoint_slider --------------------------------------------------------------

  // One matrix per snapshot taken during training, with that snapshot's measures above it.
  function drawCheckpoints(widget) {
    const { root, data } = widget;
    const notes = element("div", "aw-notes");
    notes.setAttribute("aria-live", "polite");
    const holder = element("div", "aw-frame");
    const stepSlider = frameSlider(root, data.steps.length, "training step", (i) => go(i));
    const go = (i) => {
      stepSlider.input.value = i;
      stepSlider.say(
        "step " + data.steps[i] + " (snapshot " + (i + 1) + " of " + data.steps.length + ")",
      );
      showFields(notes, data.fields[i]);
      // the frame's matrix, drawn by this script as a widget of its own (not counted as one)
      const child = element("div", "aw-checkpoint");
      child.dataset.kind = "matrix";
      const json = element("script", "aw-data");
      json.type = "application/json";
      const snapshot = {
        src: data.src,
        tgt: data.tgt,
        weights: data.weights[i],
        links: data.links,
      };
      json.textContent = JSON.stringify({ kind: "matrix", scores: null, ...snapshot });
      child.append(element("div", "aw-body"), json);
      holder.textContent = "";
      holder.append(child);
      render(child);
      root.dataset.step = i;
    };
    widget.body.append(stepSlider.box, notes, holder);
    go(0);
  }

  // --- every widget -------------------------------------------------------------------------------

  // A kind drawn by a script of its own (widgets-curve.js) is there a function of the parts the kinds
  // share; that script comes just before this one in every widget and leaves the function in
  // window.attnbookWidgetKinds.
  const shared = { format, frameSlider };
  const ownScripts = window.attnbookWidgetKinds || {};

  // The function that draws each kind, by the kind's name in Python (attnbook.book.widgets.KINDS).
  const KINDS = {
    matrix: drawMatrix,
    stepper: drawStepper,
    slider: drawSlider,
    curve: ownScripts.curve(shared),
    checkpoints: drawCheckpoints,
  };

  // Draws the widget whose root element this is, once: its data, the body it replaces the
  // "needs JavaScript" note in, and the readout line under the figure (announced to screen readers).
  function render(root) {
    if (!root || root.dataset.ready) return;
    root.dataset.ready = "1";
    const readout = element("div", "aw-readout");
    readout.setAttribute("aria-live", "polite");
    const widget = {
      root,
      data: JSON.parse(root.querySelector("script.aw-data").textContent),
      body: root.querySelector(".aw-body"),
      readout,
      show: (fields) => showFields(readout, fields),
    };
    widget.body.textContent = "";
    KINDS[widget.data.kind](widget);
  }

  window.attnbookRenderWidget = render;
  render(
    document.currentScript?.closest(".attention-widget") || document.getElementById("__AW_ID__"),
  );
})();
