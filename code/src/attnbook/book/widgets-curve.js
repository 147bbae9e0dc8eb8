// The curve kind of the attention widgets (attnbook.book.widgets.curve): a slider over precomputed
// curves, drawn as SVG, with a probe that reads the curve at the pointer or where the arrow keys move it.
//
// Every widget embeds this script just before widgets.js (attnbook/book/widgets/_embed.py), which
// calls the function left here with the parts the kinds share (format, frameSlider) and draws the
// curve kind with what it returns. Embedding drops the comment lines and the indentation, as for
// widgets.js.
(() => {
  window.attnbookWidgetKinds = window.attnbookWidgetKinds || {};

  window.attnbookWidgetKinds.curve = ({ format, frameSlider }) => {
    const SVG_NS = "http://www.w3.org/2000/svg";
    const svgElement = (tag, attributes, parent) => {
      const node = document.createElementNS(SVG_NS, tag);
      for (const name in attributes) node.setAttribute(name, attributes[name]);
      if (parent) parent.append(node);
      return node;
    };

    // The plot's size and margins in SVG units, and the maps from data to SVG coordinates: the x axis
    // spans the grid, the y axis every value drawn (curves, reference and samples).
    function plotScale(data) {
      const scale = { W: 600, H: 280, LEFT: 60, RIGHT: 12, TOP: 10, BOTTOM: 36 };
      const ys = data.curves.flat().concat(data.reference || [], data.points ? data.points[1] : []);
      scale.x0 = data.x[0];
      scale.x1 = data.x[data.x.length - 1];
      scale.y0 = Math.min(...ys);
      scale.y1 = Math.max(...ys);
      const { W, H, LEFT, RIGHT, TOP, BOTTOM, x0, x1, y0, y1 } = scale;
      scale.px = (x) => LEFT + ((x - x0) / (x1 - x0)) * (W - LEFT - RIGHT);
      scale.py = (y) => H - BOTTOM - ((y - y0) / (y1 - y0 || 1)) * (H - TOP - BOTTOM);
      return scale;
    }

    // The axes: their lines, three ticks each (the ends and the middle) and their titles.
    function drawAxes(svg, scale, data) {
      const { W, H, LEFT, RIGHT, TOP, BOTTOM, x0, x1, y0, y1, px, py } = scale;
      const axes = "M" + LEFT + " " + TOP + "V" + (H - BOTTOM) + "H" + (W - RIGHT);
      svgElement(
        "path",
        { d: axes, fill: "none", stroke: "currentColor", "stroke-opacity": 0.5 },
        svg,
      );
      [x0, (x0 + x1) / 2, x1].forEach((x) => {
        const tick = {
          x: px(x),
          y: H - BOTTOM + 16,
          "text-anchor": "middle",
          "font-size": 12,
          fill: "currentColor",
        };
        svgElement("text", tick, svg).textContent = +x.toFixed(2);
      });
      [y0, (y0 + y1) / 2, y1].forEach((y) => {
        const tick = {
          x: LEFT - 6,
          y: py(y) + 4,
          "text-anchor": "end",
          "font-size": 12,
          fill: "currentColor",
        };
        svgElement("text", tick, svg).textContent = +y.toFixed(2);
      });
      const xTitle = {
        x: (LEFT + W - RIGHT) / 2,
        y: H - 4,
        "text-anchor": "middle",
        "font-size": 13,
        fill: "currentColor",
      };
      svgElement("text", xTitle, svg).textContent = data.xLabel;
      const middle = TOP + (H - TOP - BOTTOM) / 2;
      const yTitle = {
        x: 12,
        y: middle,
        "text-anchor": "middle",
        "font-size": 13,
        fill: "currentColor",
        transform: "rotate(-90 12 " + middle + ")",
      };
      svgElement("text", yTitle, svg).textContent = data.yLabel;
    }

    // The SVG plot: axes, the dashed reference, the samples as dots, the fitted curve (drawn by the
    // slider), and the probe that reads it, a guide line and a dot, hidden until it reads a point.
    // The SVG is itself a slider over the grid's points, which the arrow keys move.
    function curvePlot(data, scale) {
      const { W, H, TOP, BOTTOM, px, py } = scale;
      const svg = svgElement("svg", {
        viewBox: "0 0 " + W + " " + H,
        width: W,
        height: H,
        tabindex: 0,
        role: "slider",
        "aria-label": "the curve read at one " + data.xLabel + ": hover or use the arrow keys",
        "aria-valuemin": 0,
        "aria-valuemax": data.x.length - 1,
        "aria-valuenow": 0,
        "aria-valuetext": "no point read yet",
      });
      drawAxes(svg, scale, data);
      if (data.reference) {
        const dashed = {
          fill: "none",
          stroke: "currentColor",
          "stroke-opacity": 0.6,
          "stroke-dasharray": "5 4",
        };
        svgElement("polyline", { points: polyline(data, scale, data.reference), ...dashed }, svg);
      }
      if (data.points) {
        data.points[0].forEach((x, k) => {
          const dot = { cx: px(x).toFixed(1), cy: py(data.points[1][k]).toFixed(1), r: 2.6 };
          svgElement("circle", { ...dot, fill: "currentColor", "fill-opacity": 0.7 }, svg);
        });
      }
      const fit = svgElement(
        "polyline",
        { fill: "none", stroke: "var(--aw-accent)", "stroke-width": 2.2 },
        svg,
      );
      const guideStyle = {
        stroke: "var(--aw-accent)",
        "stroke-opacity": 0.5,
        visibility: "hidden",
      };
      const guide = svgElement("line", { y1: TOP, y2: H - BOTTOM, ...guideStyle }, svg);
      const probeDot = svgElement(
        "circle",
        { r: 4.5, fill: "var(--aw-accent)", visibility: "hidden" },
        svg,
      );
      return { svg, fit, guide, probeDot };
    }

    // A polyline's points for values on the grid data.x.
    const polyline = (data, scale, values) =>
      values.map((y, k) => scale.px(data.x[k]).toFixed(1) + "," + scale.py(y).toFixed(1)).join(" ");

    // One curve per value of the parameter, chosen with a slider; a probe reads the curve at the grid
    // point nearest the pointer, or the one the arrow keys move it to.
    function drawCurve(widget) {
      const { root, data } = widget;
      const scale = plotScale(data);
      const { W, LEFT, RIGHT, x0, x1, px, py } = scale;
      const { svg, fit, guide, probeDot } = curvePlot(data, scale);

      let frame = 0;
      let probe = -1;
      const valueSlider = frameSlider(root, data.values.length, data.parameter, (i) => go(i));
      // Grid point k of the current curve is read out and marked.
      const read = (k) => {
        probe = k;
        const x = px(data.x[k]);
        const y = py(data.curves[frame][k]);
        for (const node of [guide, probeDot]) node.setAttribute("visibility", "visible");
        guide.setAttribute("x1", x);
        guide.setAttribute("x2", x);
        probeDot.setAttribute("cx", x);
        probeDot.setAttribute("cy", y);
        widget.show([
          [data.parameter, String(data.values[frame])],
          [data.xLabel, format(data.x[k])],
          [data.yLabel, format(data.curves[frame][k])],
        ]);
        widget.readout.dataset.index = k;
        svg.setAttribute("aria-valuenow", k);
        svg.setAttribute(
          "aria-valuetext",
          data.xLabel +
            " " +
            format(data.x[k]) +
            ", " +
            data.yLabel +
            " " +
            format(data.curves[frame][k]),
        );
      };
      const go = (i) => {
        frame = i;
        valueSlider.input.value = i;
        valueSlider.say(data.parameter + " = " + data.values[i]);
        fit.setAttribute("points", polyline(data, scale, data.curves[i]));
        root.dataset.step = i;
        if (probe >= 0) read(probe);
      };
      svg.addEventListener("mousemove", (event) => {
        const box = svg.getBoundingClientRect();
        const x =
          x0 +
          ((((event.clientX - box.left) * W) / box.width - LEFT) / (W - LEFT - RIGHT)) * (x1 - x0);
        let nearest = 0;
        data.x.forEach((value, m) => {
          if (Math.abs(value - x) < Math.abs(data.x[nearest] - x)) nearest = m;
        });
        read(nearest);
      });
      svg.addEventListener("keydown", (event) => {
        const last = data.x.length - 1;
        const from = Math.max(probe, 0);
        const to = { ArrowRight: from + 1, ArrowLeft: from - 1, Home: 0, End: last }[event.key];
        if (to === undefined) return;
        event.preventDefault();
        read(Math.max(0, Math.min(last, to)));
      });
      widget.show([["hover the plot", "(or focus it and use the arrow keys)"]]);
      widget.body.append(valueSlider.box, svg, widget.readout);
      go(0);
    }

    return drawCurve;
  };
})();
