"""Interactive attention figures as self-contained HTML: no library, no CDN, no server, no kernel.

Each function returns a :class:`Widget`, whose ``_repr_html_`` is one ``<div class="attention-widget">``
holding its data (as JSON), a small style sheet and a small inline script. A notebook, Colab and the
HTML book all show it as it is, online or offline:

- :func:`attention_widget`: a weight matrix with tokens on both axes (source on x, target on y). Hover
  or arrow-key over a cell to read its target word, source word and weight (and score); hover a target
  word to draw its row of weights onto the source words.
- :func:`decoder_stepper`: a slider over decoder steps showing, for step ``i``, the query, the scores
  over the source words, the softmax weights as bars and the emitted word; several runs (an untrained
  and a trained model) get a toggle.
- :func:`weights_slider`: a slider over precomputed rows of weights, e.g. one per temperature.
- :func:`curve_slider`: a slider over precomputed curves, e.g. kernel regression fits, one per bandwidth.

The output depends on the arguments only: the element id is the ``name`` given, or a hash of the content,
so every build writes the same page. Colours follow the book's theme (its CSS variables) in light and
dark mode, with fallbacks where the theme is absent (Colab, Jupyter).
"""

from __future__ import annotations

import hashlib
import html
import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

MAX_BYTES = 50_000
"""The most bytes one widget may take: a page with several widgets stays light."""

DECIMALS = 4
"""Weights, scores and curves are embedded rounded to this many decimals (the widgets show three)."""

ArrayLike = torch.Tensor | np.ndarray | Sequence[Any]


@dataclass(frozen=True)
class Widget:
    """One interactive figure, rendered as self-contained HTML.

    Attributes:
        name: the element id of the widget's root (``attention-widget`` is its class).
        kind: ``"matrix"``, ``"stepper"``, ``"slider"`` or ``"curve"``.
        html: the whole output: a ``<style>``, the root ``<div>`` with its data and its script.
    """

    name: str
    kind: str
    html: str

    @property
    def size(self) -> int:
        """The size of the HTML in bytes (UTF-8)."""
        return len(self.html.encode("utf-8"))

    def _repr_html_(self) -> str:
        return self.html

    def __repr__(self) -> str:
        return f"Widget(name={self.name!r}, kind={self.kind!r}, size={self.size:,} bytes)"


@dataclass(frozen=True)
class DecoderRun:
    """What a decoder did at each of its ``T`` steps over a source of ``S`` tokens, for :func:`decoder_stepper`.

    Attributes:
        weights: ``(T, S)`` attention weights; row ``i`` is step ``i``'s distribution over the source.
        emitted: ``T`` words, the word the decoder emitted at each step.
        scores: optional ``(T, S)`` scores before the softmax (``-inf`` for masked positions is allowed).
        queries: optional ``(T, d)`` queries, e.g. the decoder state each step attends from.
    """

    weights: ArrayLike
    emitted: Sequence[str]
    scores: ArrayLike | None = None
    queries: ArrayLike | None = None


def _array(name: str, value: ArrayLike, ndim: int) -> np.ndarray:
    if isinstance(value, torch.Tensor):
        value = value.detach().to("cpu", torch.float64).numpy()
    try:
        array = np.asarray(value, dtype=float)
    except (TypeError, ValueError) as error:
        raise TypeError(f"{name} must be a tensor, an array or nested lists of numbers; {error}") from error
    if array.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-D, got shape {tuple(array.shape)}")
    return array


def _finite(name: str, array: np.ndarray, allow_neg_inf: bool = False) -> None:
    bad = np.isnan(array) | (np.isinf(array) & ~(allow_neg_inf & (array < 0)))
    if bad.any():
        raise ValueError(
            f"{name} has {int(bad.sum())} non-finite entries (first at {np.argwhere(bad)[0].tolist()})"
        )


def _tokens(name: str, tokens: Sequence[str], length: int, axis: str) -> list[str]:
    if isinstance(tokens, str):
        raise TypeError(f"{name} must be a sequence of tokens, not one string: split it first")
    tokens = [str(token) for token in tokens]
    if len(tokens) != length:
        raise ValueError(f"{name} has {len(tokens)} tokens but the weights have {length} {axis}")
    return tokens


def _rounded(array: np.ndarray) -> list:
    """Nested lists rounded to DECIMALS; ``-inf`` (a masked score) becomes ``None``."""
    rounded = np.round(array, DECIMALS) + 0.0  # + 0.0 turns -0.0 into 0.0
    return [
        _rounded(row) if isinstance(row, np.ndarray) else (None if math.isinf(row) else float(row))
        for row in rounded
    ]


def _weights(name: str, value: ArrayLike) -> np.ndarray:
    weights = _array(name, value, 2)
    _finite(name, weights)
    if (weights < 0).any():
        raise ValueError(
            f"{name} must be non-negative (attention weights); the smallest is {weights.min():.4g}"
        )
    return weights


def _slug(name: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    if not slug:
        raise ValueError(f"name must contain a letter or a digit, got {name!r}")
    return slug


def _render(kind: str, data: dict, name: str | None, caption: str | None) -> Widget:
    payload = json.dumps({"kind": kind, **data}, separators=(",", ":"), allow_nan=False)  # ASCII
    if name is None:
        digest = hashlib.sha1(f"{kind}\0{payload}\0{caption}".encode()).hexdigest()[:10]
        element_id = f"aw-{kind}-{digest}"
    else:
        element_id = f"aw-{_slug(name)}"
    payload = payload.replace("</", "<\\/")  # JSON inside <script>: never close the element early
    caption_html = f'<div class="aw-caption">{_ascii_html(caption)}</div>' if caption else ""
    label = _ascii_html(caption or f"interactive attention figure ({kind})")
    document = (
        f"<style>{_CSS}</style>"
        f'<div class="attention-widget" id="{element_id}" data-kind="{kind}" role="figure" aria-label="{label}">'
        f'<div class="aw-body">Interactive figure: it needs JavaScript.</div>{caption_html}'
        f'<script type="application/json" class="aw-data">{payload}</script>'
        f"<script>{_JS.replace('__AW_ID__', element_id)}</script></div>"
    )
    assert document.isascii()  # the page's declared encoding cannot garble it
    widget = Widget(element_id, kind, document)
    if widget.size > MAX_BYTES:
        raise ValueError(
            f"the {kind} widget takes {widget.size:,} bytes, over the limit of {MAX_BYTES:,}: "
            "pass fewer frames, steps or points"
        )
    return widget


def _ascii_html(text: str) -> str:
    """Escaped text in pure ASCII (non-ASCII characters as references): any page encoding shows it right."""
    return html.escape(text, quote=True).encode("ascii", "xmlcharrefreplace").decode("ascii")


def attention_widget(
    weights: ArrayLike,
    src_tokens: Sequence[str],
    tgt_tokens: Sequence[str],
    *,
    scores: ArrayLike | None = None,
    name: str | None = None,
    caption: str | None = None,
) -> Widget:
    """An attention matrix with tokens on both axes: hover a cell to read it, a target word to see its row.

    Args:
        weights: ``(tgt_len, src_len)`` weights; row ``i`` is target step ``i``'s distribution.
        src_tokens: ``src_len`` labels of the columns (x axis).
        tgt_tokens: ``tgt_len`` labels of the rows (y axis).
        scores: optional ``(tgt_len, src_len)`` scores before the softmax, shown beside the weight.
        name: the element id (made URL-safe, prefixed ``aw-``); ``None`` hashes the content.
        caption: a sentence shown under the figure.

    Shape:
        - weights, scores: ``(T, S)``; src_tokens: ``S``; tgt_tokens: ``T``.

    Returns:
        A :class:`Widget`; a notebook displays it.

    Raises:
        ValueError: the weights are not 2-D, not finite or negative, the token lists do not match their
            shape, the scores' shape differs from the weights', or the widget exceeds ``MAX_BYTES``.
    """
    matrix = _weights("weights", weights)
    tgt_len, src_len = matrix.shape
    data = {
        "src": _tokens("src_tokens", src_tokens, src_len, "columns (src_len)"),
        "tgt": _tokens("tgt_tokens", tgt_tokens, tgt_len, "rows (tgt_len)"),
        "weights": _rounded(matrix),
        "scores": None,
    }
    if scores is not None:
        score_matrix = _array("scores", scores, 2)
        if score_matrix.shape != matrix.shape:
            raise ValueError(f"scores must have the weights' shape {matrix.shape}, got {score_matrix.shape}")
        _finite("scores", score_matrix, allow_neg_inf=True)
        data["scores"] = _rounded(score_matrix)
    return _render("matrix", data, name, caption)


def _run_data(label: str, run: DecoderRun, src_len: int) -> dict:
    weights = _weights(f"runs[{label!r}].weights", run.weights)
    steps = weights.shape[0]
    if weights.shape[1] != src_len:
        raise ValueError(
            f"runs[{label!r}].weights has {weights.shape[1]} columns but src_tokens has {src_len} tokens"
        )
    data = {
        "label": label,
        "weights": _rounded(weights),
        "emitted": _tokens(f"runs[{label!r}].emitted", run.emitted, steps, "rows (steps)"),
        "scores": None,
        "queries": None,
    }
    if run.scores is not None:
        scores = _array(f"runs[{label!r}].scores", run.scores, 2)
        if scores.shape != weights.shape:
            raise ValueError(
                f"runs[{label!r}].scores must have the weights' shape {weights.shape}, got {scores.shape}"
            )
        _finite(f"runs[{label!r}].scores", scores, allow_neg_inf=True)
        data["scores"] = _rounded(scores)
    if run.queries is not None:
        queries = _array(f"runs[{label!r}].queries", run.queries, 2)
        if queries.shape[0] != steps:
            raise ValueError(
                f"runs[{label!r}].queries has {queries.shape[0]} rows but the weights have {steps} steps"
            )
        _finite(f"runs[{label!r}].queries", queries)
        data["queries"] = _rounded(queries)
    return data


def decoder_stepper(
    src_tokens: Sequence[str],
    runs: DecoderRun | Mapping[str, DecoderRun],
    *,
    name: str | None = None,
    caption: str | None = None,
) -> Widget:
    """A slider (and the arrow keys) over decoder steps: query, scores, weights and emitted word of step ``i``.

    Args:
        src_tokens: the ``S`` source tokens the decoder attends over.
        runs: one :class:`DecoderRun`, or several by label (``{"untrained": ..., "trained": ...}``),
            which the widget lets the reader toggle between.
        name: the element id (made URL-safe, prefixed ``aw-``); ``None`` hashes the content.
        caption: a sentence shown under the figure.

    Returns:
        A :class:`Widget`.

    Raises:
        ValueError: a run's weights do not have ``S`` columns, its emitted words, scores or queries do
            not match its number of steps, ``runs`` is empty, or the widget exceeds ``MAX_BYTES``.
    """
    runs = {"": runs} if isinstance(runs, DecoderRun) else dict(runs)
    if not runs:
        raise ValueError("runs is empty: pass a DecoderRun or a mapping of labels to DecoderRuns")
    if isinstance(src_tokens, str):
        raise TypeError("src_tokens must be a sequence of tokens, not one string: split it first")
    src = [str(token) for token in src_tokens]
    data = {"src": src, "runs": [_run_data(str(label), run, len(src)) for label, run in runs.items()]}
    return _render("stepper", data, name, caption)


def weights_slider(
    weights: ArrayLike,
    key_tokens: Sequence[str],
    values: Sequence[float],
    *,
    parameter: str = "τ",
    name: str | None = None,
    caption: str | None = None,
) -> Widget:
    """A slider over precomputed rows of weights, one per value of a parameter (e.g. the temperature).

    Args:
        weights: ``(F, S)`` weights, row ``f`` computed at ``values[f]``.
        key_tokens: the ``S`` labels of the keys.
        values: the ``F`` parameter values, in the order the slider visits them.
        parameter: the parameter's symbol or name, shown as ``parameter = value``.
        name: the element id (made URL-safe, prefixed ``aw-``); ``None`` hashes the content.
        caption: a sentence shown under the figure.

    Raises:
        ValueError: the shapes of weights, key_tokens and values disagree, or the widget exceeds
            ``MAX_BYTES``.
    """
    frames = _weights("weights", weights)
    values = _array("values", values, 1)
    if len(values) != frames.shape[0]:
        raise ValueError(f"values has {len(values)} entries but weights has {frames.shape[0]} rows (frames)")
    _finite("values", values)
    data = {
        "src": _tokens("key_tokens", key_tokens, frames.shape[1], "columns"),
        "parameter": parameter,
        "values": [float(f"{value:.4g}") for value in values],
        "weights": _rounded(frames),
    }
    return _render("slider", data, name, caption)


def curve_slider(
    x: ArrayLike,
    curves: ArrayLike,
    values: Sequence[float],
    *,
    parameter: str = "σ",
    points: tuple[ArrayLike, ArrayLike] | None = None,
    reference: ArrayLike | None = None,
    x_label: str = "x",
    y_label: str = "y",
    name: str | None = None,
    caption: str | None = None,
) -> Widget:
    """A slider over precomputed curves on one grid, one per value of a parameter (e.g. a bandwidth).

    Hover the plot (or focus it and press the arrow keys) to read the curve at a grid point.

    Args:
        x: the ``N`` grid points, increasing.
        curves: ``(F, N)`` curve values, row ``f`` computed at ``values[f]``.
        values: the ``F`` parameter values.
        parameter: the parameter's symbol or name.
        points: optional ``(xs, ys)`` samples drawn as dots (e.g. the training data).
        reference: optional ``N`` values of a reference curve (e.g. the true function), dashed.
        x_label, y_label: the axis titles.
        name: the element id (made URL-safe, prefixed ``aw-``); ``None`` hashes the content.
        caption: a sentence shown under the figure.

    Raises:
        ValueError: the shapes disagree, x is not increasing, or the widget exceeds ``MAX_BYTES``.
    """
    grid = _array("x", x, 1)
    frames = _array("curves", curves, 2)
    values = _array("values", values, 1)
    for label, array in (("x", grid), ("curves", frames), ("values", values)):
        _finite(label, array)
    if frames.shape[1] != len(grid):
        raise ValueError(f"curves has {frames.shape[1]} columns but x has {len(grid)} grid points")
    if len(values) != frames.shape[0]:
        raise ValueError(f"values has {len(values)} entries but curves has {frames.shape[0]} rows (frames)")
    if len(grid) < 2 or (np.diff(grid) <= 0).any():
        raise ValueError("x must have at least two grid points, in increasing order")
    data = {
        "parameter": parameter,
        "values": [float(f"{value:.4g}") for value in values],
        "x": _rounded(grid),
        "curves": _rounded(frames),
        "points": None,
        "reference": None,
        "xLabel": x_label,
        "yLabel": y_label,
    }
    if points is not None:
        xs, ys = _array("points[0]", points[0], 1), _array("points[1]", points[1], 1)
        if xs.shape != ys.shape:
            raise ValueError(f"points must be two arrays of one length, got {len(xs)} and {len(ys)}")
        data["points"] = [_rounded(xs), _rounded(ys)]
    if reference is not None:
        ref = _array("reference", reference, 1)
        if ref.shape != grid.shape:
            raise ValueError(f"reference has {len(ref)} values but x has {len(grid)} grid points")
        data["reference"] = _rounded(ref)
    return _render("curve", data, name, caption)


# The style sheet: the theme's variables (pydata-sphinx-theme, light and dark) with fallbacks elsewhere.
# The widget paints its own background: in dark mode the theme puts HTML outputs on a light panel.
_CSS = """
.attention-widget{--aw-fg:var(--pst-color-text-base,#222);--aw-muted:var(--pst-color-text-muted,#666);
--aw-bg:var(--pst-color-background,#fff);--aw-line:var(--pst-color-border,#bbb);
--aw-accent:var(--pst-color-primary,#1f6fb2);--aw-cell:2.7em;color:var(--aw-fg);background:var(--aw-bg);
padding:0.5em;border-radius:4px;margin:0.5em 0 1em;max-width:100%;overflow-x:auto;font-size:0.9em;line-height:1.3}
.attention-widget .aw-grid{display:inline-grid;gap:1px;align-items:end;padding:4px}
.attention-widget .aw-grid:focus-visible,.attention-widget svg:focus-visible,.attention-widget input:focus-visible,
.attention-widget button:focus-visible{outline:2px solid var(--aw-accent);outline-offset:2px}
.attention-widget .aw-cell{height:1.9em;display:flex;align-items:center;justify-content:center;
font-size:0.8em;font-variant-numeric:tabular-nums;cursor:crosshair}
.attention-widget .aw-cell.aw-row{box-shadow:inset 0 0 0 1px var(--aw-accent)}
.attention-widget .aw-cell.aw-on{box-shadow:inset 0 0 0 3px var(--aw-accent)}
.attention-widget .aw-ylabel{text-align:right;padding-right:0.4em;align-self:center;white-space:nowrap;cursor:pointer}
.attention-widget .aw-ylabel.aw-on,.attention-widget .aw-xlabel.aw-on{color:var(--aw-accent);font-weight:bold}
.attention-widget .aw-xlabel{writing-mode:vertical-rl;transform:rotate(180deg);justify-self:center;
white-space:nowrap;padding-top:0.3em}
.attention-widget .aw-barcell{height:3.2em;display:flex;flex-direction:column;justify-content:flex-end;
align-items:center;border-bottom:1px solid var(--aw-line)}
.attention-widget .aw-bar{width:70%;background:var(--aw-accent);min-height:0}
.attention-widget .aw-num{font-size:0.75em;font-variant-numeric:tabular-nums;color:var(--aw-muted);text-align:center}
.attention-widget .aw-muted{color:var(--aw-muted);font-size:0.85em}
.attention-widget .aw-readout{min-height:1.5em;margin:0.3em 0;font-variant-numeric:tabular-nums}
.attention-widget .aw-field{margin-right:1.2em;white-space:nowrap}
.attention-widget .aw-key{color:var(--aw-muted);margin-right:0.3em}
.attention-widget .aw-value{font-weight:bold}
.attention-widget .aw-controls{display:flex;flex-wrap:wrap;gap:0.6em;align-items:center;margin:0.3em 0}
.attention-widget input[type=range]{width:16em;accent-color:var(--aw-accent)}
.attention-widget button{font:inherit;color:var(--aw-fg);background:var(--aw-bg);border:1px solid var(--aw-line);
border-radius:4px;padding:0.1em 0.6em;cursor:pointer}
.attention-widget button[aria-pressed=true]{border-color:var(--aw-accent);color:var(--aw-accent);font-weight:bold}
.attention-widget .aw-query{display:flex;gap:1px;flex-wrap:wrap;align-items:center}
.attention-widget .aw-query span{width:0.7em;height:1.1em;border:1px solid var(--aw-line)}
.attention-widget .aw-caption{color:var(--aw-muted);font-size:0.95em;margin-top:0.4em;max-width:44em}
.attention-widget svg{display:block;max-width:100%;height:auto;color:var(--aw-fg)}
""".replace("\n", "")

# The script: reads the JSON next to it and builds the figure inside its own root, found through
# document.currentScript (an id is the fallback), so that two widgets on a page never mix.
_JS = r"""
(function(root){
if(!root||root.dataset.ready)return;root.dataset.ready="1";
const d=JSON.parse(root.querySelector("script.aw-data").textContent);
const body=root.querySelector(".aw-body");body.textContent="";
const el=(tag,cls,text)=>{const e=document.createElement(tag);if(cls)e.className=cls;
if(text!==undefined)e.textContent=text;return e;};
const STOPS=["#faebdd","#f6bb97","#f4865e","#ec4a3e","#ca1a50","#951c5b","#601f52","#2e1739","#03051a"]
.map(h=>[1,3,5].map(i=>parseInt(h.slice(i,i+2),16)));
const colour=w=>{const t=Math.max(0,Math.min(1,w))*(STOPS.length-1),i=Math.min(Math.floor(t),STOPS.length-2),
f=t-i;return "rgb("+STOPS[i].map((c,k)=>Math.round(c+(STOPS[i+1][k]-c)*f)).join(",")+")";};
const fmt=v=>v===null||v===undefined?"−∞":v.toFixed(3);
const readout=el("div","aw-readout");readout.setAttribute("aria-live","polite");
const show=fields=>{readout.textContent="";for(const [key,value] of fields){const f=el("span","aw-field");
f.dataset.field=key;f.append(el("span","aw-key",key),el("span","aw-value",value));readout.append(f);}};
const slider=(n,label,onchange)=>{const box=el("div","aw-controls"),input=el("input"),text=el("span","aw-step");
input.type="range";input.min=0;input.max=n-1;input.step=1;input.value=0;input.setAttribute("aria-label",label);
input.addEventListener("input",()=>onchange(+input.value));box.append(input,text);
root.addEventListener("keydown",e=>{if(e.target===input||e.target.tagName==="svg")return;
const k={ArrowRight:1,ArrowUp:1,ArrowLeft:-1,ArrowDown:-1}[e.key];if(!k)return;e.preventDefault();
input.value=Math.max(0,Math.min(+input.max,+input.value+k));onchange(+input.value);});
return {box,input,text};};
function bars(src,row,scores,hoverLabel){
const grid=el("div","aw-grid");grid.style.gridTemplateColumns="auto repeat("+src.length+",var(--aw-cell))";
const scoreCells=[],barCells=[],nums=[],labels=[];
if(scores){grid.append(el("div","aw-ylabel aw-muted","score"));
src.forEach(()=>{const c=el("div","aw-num");scoreCells.push(c);grid.append(c);});}
grid.append(el("div","aw-ylabel aw-muted","weight"));
src.forEach((s,j)=>{const c=el("div","aw-barcell"),n=el("span","aw-num"),b=el("div","aw-bar");c.dataset.col=j;
c.append(n,b);barCells.push(b);nums.push(n);grid.append(c);});
grid.append(el("div"));src.forEach((s,j)=>{const l=el("div","aw-xlabel",s);l.dataset.col=j;labels.push(l);grid.append(l);});
let current=null;
const draw=(weights,sc)=>{current={weights,sc};weights.forEach((w,j)=>{barCells[j].style.height=(100*w).toFixed(1)+"%";
nums[j].textContent=w.toFixed(2);if(scores)scoreCells[j].textContent=sc?(sc[j]===null?"−∞":sc[j].toFixed(2)):"";});};
grid.addEventListener("mouseover",e=>{const t=e.target.closest("[data-col]");if(!t||!current)return;const j=+t.dataset.col;
labels.forEach((l,k)=>l.classList.toggle("aw-on",k===j));
const f=[["source",src[j]],["weight",fmt(current.weights[j])]];if(current.sc)f.push(["score",fmt(current.sc[j])]);
show(hoverLabel().concat(f));});
return {grid,draw};}
function matrix(){
const S=d.src.length,T=d.tgt.length,grid=el("div","aw-grid");grid.tabIndex=0;
grid.setAttribute("aria-label","attention weights: arrow keys move between cells");
grid.style.gridTemplateColumns="auto repeat("+S+",var(--aw-cell))";
const cells=[],ylabels=[],barCells=[],nums=[],xlabels=[];
d.tgt.forEach((t,i)=>{const y=el("div","aw-ylabel",t);y.dataset.row=i;ylabels.push(y);grid.append(y);cells.push([]);
d.src.forEach((s,j)=>{const w=d.weights[i][j],c=el("div","aw-cell",S<=12?w.toFixed(2):"");c.dataset.row=i;c.dataset.col=j;
c.style.background=colour(w);c.style.color=w>0.45?"#fff":"#111";cells[i].push(c);grid.append(c);});});
grid.append(el("div","aw-ylabel aw-muted","row"));
d.src.forEach(()=>{const c=el("div","aw-barcell"),n=el("span","aw-num"),b=el("div","aw-bar");c.append(n,b);
barCells.push(b);nums.push(n);grid.append(c);});
grid.append(el("div","aw-ylabel aw-muted","target ↑ source →"));
d.src.forEach(s=>{const x=el("div","aw-xlabel",s);xlabels.push(x);grid.append(x);});
let ai=-1,aj=-1;
const activate=(i,j)=>{ai=i;aj=j;cells.forEach((r,k)=>r.forEach((c,l)=>{c.classList.toggle("aw-row",k===i);
c.classList.toggle("aw-on",k===i&&l===j);}));ylabels.forEach((y,k)=>y.classList.toggle("aw-on",k===i));
xlabels.forEach((x,l)=>x.classList.toggle("aw-on",l===j));
d.weights[i].forEach((w,l)=>{barCells[l].style.height=(100*w).toFixed(1)+"%";nums[l].textContent=w.toFixed(2);});
const f=[["target",d.tgt[i]]];if(j>=0){f.push(["source",d.src[j]],["weight",fmt(d.weights[i][j])]);
if(d.scores)f.push(["score",fmt(d.scores[i][j])]);}show(f);};
grid.addEventListener("mouseover",e=>{const t=e.target.closest("[data-row]");if(!t)return;
activate(+t.dataset.row,t.dataset.col===undefined?-1:+t.dataset.col);});
grid.addEventListener("focus",()=>{if(ai<0)activate(0,0);});
grid.addEventListener("keydown",e=>{const m={ArrowUp:[-1,0],ArrowDown:[1,0],ArrowLeft:[0,-1],ArrowRight:[0,1]}[e.key];
if(!m)return;e.preventDefault();activate(Math.max(0,Math.min(T-1,Math.max(ai,0)+m[0])),
Math.max(0,Math.min(S-1,Math.max(aj,0)+m[1])));});
show([["hover a cell or a target word","(or focus the matrix and use the arrow keys)"]]);
body.append(grid,readout);}
function stepper(){
let r=0,step=0;const runs=d.runs,head=el("div","aw-controls"),emitted=el("div","aw-controls"),
query=el("div","aw-controls");
const b=bars(d.src,null,runs.some(x=>x.scores),()=>[["step",String(step+1)],["emits",runs[r].emitted[step]]]);
const s=slider(Math.max(...runs.map(x=>x.weights.length)),"decoder step",i=>go(i));
const toggles=runs.length>1?runs.map((run,k)=>{const t=el("button",null,run.label);t.type="button";
t.addEventListener("click",()=>{r=k;go(step);});head.append(t);return t;}):[];
const go=i=>{const run=runs[r],T=run.weights.length;step=Math.max(0,Math.min(T-1,i));s.input.max=T-1;
s.input.value=step;s.text.textContent="step "+(step+1)+" of "+T;toggles.forEach((t,k)=>t.setAttribute("aria-pressed",k===r));
emitted.textContent="";emitted.append(el("span","aw-key","emits"),el("span","aw-value",run.emitted[step]));
query.textContent="";if(run.queries){const q=run.queries[step],top=Math.max(1e-9,...run.queries.flat().map(Math.abs)),
strip=el("div","aw-query");q.forEach(v=>{const c=el("span");const a=Math.abs(v)/top;
c.style.background=v>=0?"rgba(202,26,80,"+a.toFixed(3)+")":"rgba(31,111,178,"+a.toFixed(3)+")";c.title=v.toFixed(3);
strip.append(c);});query.append(el("span","aw-key","query ("+q.length+" numbers; red +, blue −)"),strip);}
b.draw(run.weights[step],run.scores?run.scores[step]:null);readout.textContent="";
root.dataset.step=step;};
body.append(head,s.box,query,b.grid,emitted,readout);go(0);}
function weightSlider(){
let frame=0;const label=()=>d.parameter+" = "+d.values[frame];
const b=bars(d.src,null,false,()=>[[d.parameter,String(d.values[frame])]]);
const s=slider(d.values.length,d.parameter,i=>go(i));
const go=i=>{frame=i;s.input.value=i;s.text.textContent=label();b.draw(d.weights[i],null);readout.textContent="";
root.dataset.step=i;};body.append(s.box,b.grid,readout);go(0);}
function curve(){
const NS="http://www.w3.org/2000/svg",W=600,H=280,L=60,R=12,TP=10,B=36;
const svgEl=(tag,attrs,parent)=>{const e=document.createElementNS(NS,tag);for(const k in attrs)e.setAttribute(k,attrs[k]);
if(parent)parent.append(e);return e;};
const ys=d.curves.flat().concat(d.reference||[],d.points?d.points[1]:[]);
const x0=d.x[0],x1=d.x[d.x.length-1],y0=Math.min(...ys),y1=Math.max(...ys);
const px=x=>L+(x-x0)/(x1-x0)*(W-L-R),py=y=>H-B-(y-y0)/(y1-y0||1)*(H-TP-B);
const svg=svgEl("svg",{viewBox:"0 0 "+W+" "+H,width:W,height:H,tabindex:0,role:"img",
"aria-label":"curves: hover or use the arrow keys to read a value"});
svgEl("path",{d:"M"+L+" "+TP+"V"+(H-B)+"H"+(W-R),fill:"none",stroke:"currentColor","stroke-opacity":0.5},svg);
[[x0,0],[(x0+x1)/2,0],[x1,0]].forEach(([x])=>{svgEl("text",{x:px(x),y:H-B+16,"text-anchor":"middle","font-size":12,
fill:"currentColor"},svg).textContent=+x.toFixed(2);});
[y0,(y0+y1)/2,y1].forEach(y=>{svgEl("text",{x:L-6,y:py(y)+4,"text-anchor":"end","font-size":12,fill:"currentColor"},svg)
.textContent=+y.toFixed(2);});
svgEl("text",{x:(L+W-R)/2,y:H-4,"text-anchor":"middle","font-size":13,fill:"currentColor"},svg).textContent=d.xLabel;
svgEl("text",{x:12,y:TP+(H-TP-B)/2,"text-anchor":"middle","font-size":13,fill:"currentColor",
transform:"rotate(-90 12 "+(TP+(H-TP-B)/2)+")"},svg).textContent=d.yLabel;
const line=v=>v.map((y,k)=>px(d.x[k]).toFixed(1)+","+py(y).toFixed(1)).join(" ");
if(d.reference)svgEl("polyline",{points:line(d.reference),fill:"none",stroke:"currentColor","stroke-opacity":0.6,
"stroke-dasharray":"5 4"},svg);
if(d.points)d.points[0].forEach((x,k)=>svgEl("circle",{cx:px(x).toFixed(1),cy:py(d.points[1][k]).toFixed(1),r:2.6,
fill:"currentColor","fill-opacity":0.7},svg));
const fit=svgEl("polyline",{fill:"none",stroke:"var(--aw-accent)","stroke-width":2.2},svg);
const guide=svgEl("line",{y1:TP,y2:H-B,stroke:"var(--aw-accent)","stroke-opacity":0.5,visibility:"hidden"},svg);
const dot=svgEl("circle",{r:4.5,fill:"var(--aw-accent)",visibility:"hidden"},svg);
let frame=0,probe=-1;
const s=slider(d.values.length,d.parameter,i=>go(i));
const read=k=>{probe=k;const x=px(d.x[k]),y=py(d.curves[frame][k]);for(const e of [guide,dot])e.setAttribute("visibility","visible");
guide.setAttribute("x1",x);guide.setAttribute("x2",x);dot.setAttribute("cx",x);dot.setAttribute("cy",y);
show([[d.parameter,String(d.values[frame])],[d.xLabel,fmt(d.x[k])],[d.yLabel,fmt(d.curves[frame][k])]]);
readout.dataset.index=k;};
const go=i=>{frame=i;s.input.value=i;s.text.textContent=d.parameter+" = "+d.values[i];
fit.setAttribute("points",line(d.curves[i]));root.dataset.step=i;if(probe>=0)read(probe);};
svg.addEventListener("mousemove",e=>{const box=svg.getBoundingClientRect(),x=x0+((e.clientX-box.left)*W/box.width-L)
/(W-L-R)*(x1-x0);let k=0;d.x.forEach((v,m)=>{if(Math.abs(v-x)<Math.abs(d.x[k]-x))k=m;});read(k);});
svg.addEventListener("keydown",e=>{const m={ArrowRight:1,ArrowLeft:-1}[e.key];if(!m)return;e.preventDefault();
read(Math.max(0,Math.min(d.x.length-1,(probe<0?0:probe)+m)));});
show([["hover the plot","(or focus it and use the arrow keys)"]]);body.append(s.box,svg,readout);go(0);}
({matrix,stepper,slider:weightSlider,curve})[d.kind]();
})((document.currentScript&&document.currentScript.closest(".attention-widget"))||document.getElementById("__AW_ID__"));
""".strip()
_JS = re.sub(r"[^\x00-\x7f]", lambda m: f"\\u{ord(m.group()):04x}", _JS)  # inside string literals only
