"""Every kind of widget (attnbook.book.widgets) and the translator box used with the keyboard alone.

The widgets of the harness page (test_widget_harness.py) and a translator box over a small exported
model are opened from the disk in headless Chromium. Each test reaches its widget with Tab from the
element before it and drives it with keys only (no mouse event is sent): the arrow keys, Home, End,
Page Up and Page Down across a matrix's cells (one cell in the tab order at a time, its numbers in its
accessible name), the sliders (native range inputs whose value a screen reader reads as text), the
stepper's toggles (Space), a curve's probe (a slider over the grid's points), Enter in the translator.
Every focus stop shows a focus ring (:focus-visible, an outline at least 2 px wide).

Under ``prefers-reduced-motion: reduce`` a widget shows no transition and no animation, even one that a
page's own style sheet would give it.
"""

from __future__ import annotations

import json

import pytest
from axe import audit, describe, failing
from test_translator import toy  # noqa: F401 (a fixture)
from test_widget_harness import PAGE, FileBook, browser, harness_widgets  # noqa: F401 (a fixture)
from test_widgets import WidgetPage

from attnbook.book import translator_widget
from attnbook.nmt import export_translator

ACTIVE_JS = """
() => {
  const e = document.activeElement;
  const style = getComputedStyle(e);
  const widget = e.closest(".attention-widget[id], .attn-translator[id]");
  return {
    tag: e.tagName.toLowerCase(),
    classes: [...e.classList],
    role: e.getAttribute("role"),
    type: e.getAttribute("type"),
    label: e.getAttribute("aria-label"),
    valuetext: e.getAttribute("aria-valuetext"),
    valuenow: e.getAttribute("aria-valuenow"),
    pressed: e.getAttribute("aria-pressed"),
    value: e.value === undefined ? null : String(e.value),
    row: e.dataset.row === undefined ? null : Number(e.dataset.row),
    col: e.dataset.col === undefined ? null : Number(e.dataset.col),
    widget: widget ? widget.id : null,
    focusVisible: e.matches(":focus-visible"),
    outline: style.outlineStyle + " " + style.outlineWidth,
  };
}
"""

# A button just before the widget, focused from a script; Tab from it is the reader's first key.
TAB_FROM_JS = """
(id) => {
  let start = document.getElementById("kb-start");
  if (!start) {
    start = document.createElement("button");
    start.id = "kb-start";
    start.textContent = "before the widget";
  }
  document.getElementById(id).before(start);
  start.focus();
}
"""


@pytest.fixture(scope="module")
def harness(browser, toy, tmp_path_factory):  # noqa: F811
    """The harness's widgets and a translator box on one page, opened once for this module's tests."""
    folder = tmp_path_factory.mktemp("keyboard")
    path = export_translator(toy[0], folder / "weights" / "toy.js", name="toy")
    box = translator_widget("weights/toy.js", size=path.stat().st_size, beam=4, name="keyboard translator")
    widgets = [*harness_widgets(), box]
    (folder / "keyboard.html").write_text(PAGE.format(body="\n".join(w.html for w in widgets)))
    page = WidgetPage(FileBook(browser, folder), "keyboard")
    page.sentences = toy[1]
    yield page
    page.close()


@pytest.fixture
def page(harness):
    """The harness page loaded afresh (no test sees where another left a widget), with the console's
    errors and the blocked requests of this test alone."""
    harness.tab.reload(wait_until="load")
    harness.errors.clear()
    harness.external.clear()
    yield harness
    assert not harness.errors, f"console errors: {harness.errors}"
    assert not harness.external, f"requests off the machine: {harness.external}"


def active(page) -> dict:
    return page.tab.evaluate(ACTIVE_JS)


def press(page, *keys: str) -> dict:
    for key in keys:
        page.tab.keyboard.press(key)
    return active(page)


def tab_into(page, widget_id: str) -> dict:
    page.tab.evaluate(TAB_FROM_JS, widget_id)
    found = press(page, "Tab")
    assert found["widget"] == widget_id, f"Tab from before {widget_id} reached {found}"
    return found


def assert_focus_ring(found: dict) -> None:
    assert found["focusVisible"], f"{found['tag']}.{'.'.join(found['classes'])}: no :focus-visible"
    style, width = found["outline"].split()
    assert style != "none" and float(width.removesuffix("px")) >= 2, f"focus ring: {found['outline']}"


def data_of(page, widget_id: str) -> dict:
    return json.loads(
        page.tab.evaluate(f"() => document.querySelector('#{widget_id} > script.aw-data').textContent")
    )


def readout(page, widget_id: str) -> dict:
    return page.tab.evaluate(
        """(id) => Object.fromEntries([...document.querySelectorAll('#' + id + ' .aw-readout .aw-field')]
            .map((f) => [f.dataset.field, f.querySelector('.aw-value').textContent]))""",
        widget_id,
    )


def f3(value: float | None) -> str:
    return "−∞" if value is None else f"{value:.3f}"


def test_matrix_cells_by_arrow_keys(page):
    wid = "aw-harness-matrix"
    data = data_of(page, wid)
    weights, scores, src, tgt = data["weights"], data["scores"], data["src"], data["tgt"]
    rows, cols = len(tgt), len(src)
    found = tab_into(page, wid)
    assert (found["role"], found["row"], found["col"]) == ("gridcell", 0, 0), found
    assert_focus_ring(found)

    def check(found, i, j):
        assert (found["row"], found["col"]) == (i, j), f"expected cell ({i}, {j}), focus on {found}"
        assert f"target {tgt[i]}, source {src[j]}: weight {f3(weights[i][j])}" in found["label"]
        assert f"score {f3(scores[i][j])}" in found["label"]
        assert readout(page, wid)["weight"] == f3(weights[i][j])
        stops = page.tab.evaluate(
            f"() => document.querySelectorAll('#{wid} .aw-cell[tabindex=\"0\"]').length"
        )
        assert stops == 1, f"{stops} cells in the tab order"

    check(press(page, "ArrowRight"), 0, 1)
    check(press(page, "ArrowDown"), 1, 1)
    check(press(page, "End"), 1, cols - 1)
    check(press(page, "ArrowRight"), 1, cols - 1)  # the edge holds
    check(press(page, "Home"), 1, 0)
    check(press(page, "ArrowLeft"), 1, 0)
    check(press(page, "PageDown"), rows - 1, 0)
    check(press(page, "Control+Home"), 0, 0)
    check(press(page, "ArrowUp"), 0, 0)
    check(press(page, "Control+End"), rows - 1, cols - 1)
    # Tab leaves the matrix at once; Shift+Tab comes back to the cell it left
    left = press(page, "Tab")
    assert left["widget"] != wid or left["role"] != "gridcell", f"Tab stayed in the matrix: {left}"
    check(press(page, "Shift+Tab"), rows - 1, cols - 1)
    structure = page.tab.evaluate(
        f"""() => {{ const g = document.querySelector('#{wid} [role=grid]');
        return {{ label: g.getAttribute('aria-label'), rows: g.querySelectorAll(':scope > [role=row]').length,
                 headers: g.querySelectorAll('[role=columnheader]').length,
                 rowheaders: g.querySelectorAll('[role=rowheader]').length }}; }}"""
    )
    assert structure["label"] and structure["rows"] == rows + 2, structure
    assert structure["headers"] == cols + 1 and structure["rowheaders"] == rows + 1, structure


def test_single_column_matrix_holds_at_its_edges(page):
    wid = "aw-harness-one-column"
    found = tab_into(page, wid)
    assert (found["row"], found["col"]) == (0, 0)
    assert (press(page, "ArrowRight")["col"], active(page)["row"]) == (0, 0)
    assert press(page, "ArrowDown")["row"] == 1
    assert press(page, "ArrowDown")["row"] == 1


def test_stepper_toggles_and_slider(page):
    wid = "aw-harness-stepper"
    data = data_of(page, wid)
    runs = data["runs"]
    first = tab_into(page, wid)
    assert first["tag"] == "button" and first["widget"] == wid
    assert_focus_ring(first)
    second = press(page, "Tab")
    assert second["tag"] == "button"
    press(page, "Space")
    pressed = page.tab.evaluate(
        f"() => [...document.querySelectorAll('#{wid} button')].map((b) => b.getAttribute('aria-pressed'))"
    )
    assert pressed == ["false", "true"], "Space on the second toggle chooses the second run"
    slider = press(page, "Tab")
    assert slider["type"] == "range" and slider["label"] == "decoder step"
    assert_focus_ring(slider)
    steps = len(runs[1]["weights"])
    assert slider["valuetext"] == f"step 1 of {steps}"
    assert press(page, "ArrowRight")["valuetext"] == f"step 2 of {steps}"
    assert press(page, "End")["valuetext"] == f"step {steps} of {steps}"
    emitted = page.tab.evaluate(
        f"() => document.querySelector('#{wid} .aw-controls .aw-value:last-child').textContent"
    )
    assert emitted == runs[1]["emitted"][steps - 1]
    # back to the first toggle and Enter: the first run, its own number of steps
    press(page, "Shift+Tab", "Shift+Tab", "Enter")
    slider = press(page, "Tab", "Tab", "Home")
    assert slider["valuetext"] == f"step 1 of {len(runs[0]['weights'])}"


def test_weights_slider_by_keys(page):
    wid = "aw-harness-slider"
    data = data_of(page, wid)
    found = tab_into(page, wid)
    assert found["type"] == "range" and found["label"] == data["parameter"]
    assert_focus_ring(found)
    values = data["values"]
    assert found["valuetext"] == f"{data['parameter']} = {values[0]}"
    assert press(page, "ArrowRight")["valuetext"] == f"{data['parameter']} = {values[1]}"
    assert press(page, "End")["valuetext"] == f"{data['parameter']} = {values[-1]}"
    bars = page.tab.evaluate(
        f"() => [...document.querySelectorAll('#{wid} .aw-barcell .aw-num')].map((n) => n.textContent)"
    )
    assert bars == [f"{w:.2f}" for w in data["weights"][-1]]


def test_curve_probe_and_slider_by_keys(page):
    wid = "aw-harness-curve"
    data = data_of(page, wid)
    slider = tab_into(page, wid)
    assert slider["type"] == "range"
    probe = press(page, "Tab")
    assert probe["tag"] == "svg" and probe["role"] == "slider" and probe["label"]
    assert_focus_ring(probe)
    found = press(page, "ArrowRight", "ArrowRight")
    x, y = data["x"][2], data["curves"][0][2]
    assert found["valuenow"] == "2"
    assert found["valuetext"] == f"{data['xLabel']} {f3(x)}, {data['yLabel']} {f3(y)}"
    assert press(page, "End")["valuenow"] == str(len(data["x"]) - 1)
    assert press(page, "Home")["valuenow"] == "0"
    press(page, "ArrowRight")
    # the slider before it moves the curve; the probe keeps its place and reads the new curve
    press(page, "Shift+Tab", "ArrowRight")
    value = page.tab.evaluate(f"() => document.querySelector('#{wid} svg').getAttribute('aria-valuetext')")
    assert value == f"{data['xLabel']} {f3(data['x'][1])}, {data['yLabel']} {f3(data['curves'][1][1])}"


def test_checkpoints_slider_and_its_matrix(page):
    wid = "aw-harness-checkpoints"
    data = data_of(page, wid)
    last = len(data["steps"]) - 1
    slider = tab_into(page, wid)
    assert slider["type"] == "range"
    found = press(page, "End")
    assert found["valuetext"] == f"step {data['steps'][last]} (snapshot {last + 1} of {last + 1})"
    cell = press(page, "Tab")
    assert (cell["role"], cell["row"], cell["col"]) == ("gridcell", 0, 0)
    cell = press(page, "ArrowDown", "ArrowRight")
    assert (cell["row"], cell["col"]) == (1, 1)
    assert f"weight {f3(data['weights'][last][1][1])}" in cell["label"]
    assert "a true link" in cell["label"], "the link (1, 1) is named as such"
    step = page.tab.evaluate(f"() => document.getElementById('{wid}').dataset.step")
    assert step == str(last), "the arrows in the matrix do not move the slider"
    press(page, "Shift+Tab", "ArrowLeft")
    assert page.tab.evaluate(f"() => document.getElementById('{wid}').dataset.step") == str(last - 1)


def test_translator_by_keys(page):
    wid = "aw-keyboard-translator"
    found = tab_into(page, wid)
    assert found["tag"] == "input" and found["label"]
    assert_focus_ring(found)
    root = f"document.getElementById('{wid}')"
    page.tab.wait_for_function(f"() => {root}.querySelector('[data-role=status]').dataset.kind === 'ready'")
    page.tab.keyboard.type(page.sentences[0])
    page.tab.keyboard.press("Enter")
    page.tab.wait_for_function(f"() => Number({root}.dataset.done || 0) >= 1")
    output = page.tab.evaluate(f"() => {root}.querySelector('[data-role=output]').textContent")
    assert output.strip(), "Enter translated the sentence"
    live = page.tab.evaluate(
        f"() => [{root}.querySelector('[data-role=output]'), {root}.querySelector('[data-role=status]')]"
        ".map((e) => e.getAttribute('aria-live'))"
    )
    assert live == ["polite", "polite"], "the translation and the status are read out when they change"
    beam = press(page, "Tab")
    assert beam["tag"] == "select"
    assert beam["value"] == "4", "the box starts with the beam it was given"
    assert press(page, "ArrowUp")["value"] == "1"
    page.tab.wait_for_function(f"() => Number({root}.dataset.done || 0) >= 2")  # a new search, greedy
    button = press(page, "Tab")
    assert button["tag"] == "button"
    assert_focus_ring(button)
    press(page, "Enter")
    page.tab.wait_for_function(f"() => Number({root}.dataset.done || 0) >= 3")
    # the translation's attention matrix is the next focus stop
    cell = press(page, "Tab")
    assert cell["role"] == "gridcell" and (cell["row"], cell["col"]) == (0, 0)
    assert press(page, "ArrowRight")["col"] == 1


def test_every_widget_has_a_role_and_a_name(page):
    found = page.tab.evaluate(
        """() => [...document.querySelectorAll('.attention-widget[id], .attn-translator[id]')]
            .map((w) => [w.id, w.getAttribute('role'), w.getAttribute('aria-label')])"""
    )
    assert len(found) == len(harness_widgets()) + 1
    for wid, role, name in found:
        assert role in ("figure", "group"), f"{wid}: role {role}"
        assert name and len(name.split()) >= 2, f"{wid}: accessible name {name!r}"


# A page's style sheet that animates everything in the widgets: reduced motion must still win.
MOTION_CSS = """
.attention-widget *, .attn-translator * { transition: all 0.4s ease; }
.attention-widget .aw-cell, .attention-widget button { animation: aw-test-pulse 1s infinite; }
@keyframes aw-test-pulse { from { opacity: 0.5; } to { opacity: 1; } }
"""

MOTION_JS = """
() => [...document.querySelectorAll('.attention-widget *, .attn-translator *')].map((e) => {
  const style = getComputedStyle(e);
  return [style.transitionDuration, style.animationName];
}).filter(([duration, name]) => duration.split(",").some((d) => parseFloat(d) > 0) || name !== "none").length
"""


@pytest.mark.parametrize("motion", ["reduce", "no-preference"])
def test_reduced_motion_stills_every_widget(browser, tmp_path, motion):  # noqa: F811
    (tmp_path / "motion.html").write_text(PAGE.format(body="\n".join(w.html for w in harness_widgets())))
    context = browser.new_context(reduced_motion=motion)
    context.route(
        "**/*", lambda route: route.continue_() if route.request.url.startswith("file:") else route.abort()
    )
    try:
        tab = context.new_page()
        tab.goto((tmp_path / "motion.html").as_uri())
        tab.add_style_tag(content=MOTION_CSS)
        moving = tab.evaluate(MOTION_JS)
        elements = tab.evaluate("() => document.querySelectorAll('.attention-widget *').length")
    finally:
        context.close()
    assert elements > 100
    if motion == "reduce":
        assert moving == 0, f"{moving} elements of the widgets move under prefers-reduced-motion: reduce"
    else:  # the check itself sees motion where motion is allowed
        assert moving > 100, f"only {moving} elements move without the preference"


def test_axe_finds_no_serious_violation_in_the_widgets(page):
    """axe-core over the harness page once the translator has drawn a translation (its matrix and
    stepper included) and with a matrix cell focused."""
    wid = "aw-keyboard-translator"
    root = f"document.getElementById('{wid}')"
    tab_into(page, wid)
    page.tab.wait_for_function(f"() => {root}.querySelector('[data-role=status]').dataset.kind === 'ready'")
    page.tab.keyboard.type(page.sentences[1])
    page.tab.keyboard.press("Enter")
    page.tab.wait_for_function(f"() => Number({root}.dataset.done || 0) >= 1")
    tab_into(page, "aw-harness-matrix")
    press(page, "ArrowDown")
    violations = audit(page.tab, ["#kb-start"])
    assert page.tab.evaluate(f"() => {root}.querySelectorAll('.aw-cell').length") > 0
    bad = failing(violations)
    assert not bad, describe(bad, "the widget harness")
