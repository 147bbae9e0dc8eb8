"""The interactive widgets (attnbook.book.widgets) of the built book, used in headless Chromium with no network.

Every chapter page shows as many widgets as its notebook makes. Each widget is then used as a reader
would: hover a cell (or a bar, or a point of a curve) and read the tooltip, which must show the tokens and
the weight of the matrix embedded in the page to 3 decimals; move each stepper and slider (keys and
toggles) and check that the step changes and the bars follow. No console error, no request off the
machine. A screenshot of each widget in a hovered state, in the theme's light and dark modes, goes to
_build/screenshots/widgets/.
"""

from __future__ import annotations

import json
import re

import pytest
from book_browser import SCREENSHOT_DIR, TIMEOUT_MS, VIEWPORT, is_local
from book_config import REPO_ROOT, chapter_pages

CHAPTERS = chapter_pages()
WIDGET_SHOTS = SCREENSHOT_DIR / "widgets"
# A widget is the displayed value of a cell: its last statement calls one of these functions.
WIDGET_CALL = re.compile(
    r"^(attention_widget|decoder_stepper|weights_slider|curve_slider|checkpoint_slider)\(", re.MULTILINE
)
# The chapters that must have widgets, by the number their file name starts with, and which kinds.
REQUIRED_KINDS = {
    "01": {"matrix"},
    "02": {"matrix", "stepper"},
    "03": {"matrix"},
    "04": {"slider", "curve"},
    "07": {"matrix", "stepper", "checkpoints"},
    "08": {"matrix"},
}

READ_JS = """
(root) => {
  const fields = {};
  root.querySelectorAll(".aw-readout .aw-field").forEach((f) => {
    fields[f.dataset.field] = f.querySelector(".aw-value").textContent;
  });
  return {
    fields,
    step: root.dataset.step === undefined ? null : Number(root.dataset.step),
    index: root.querySelector(".aw-readout").dataset.index,
    bars: [...root.querySelectorAll(".aw-barcell .aw-num")].map((n) => n.textContent),
    pressed: [...root.querySelectorAll("button[aria-pressed=true]")].map((b) => b.textContent),
    stepText: (root.querySelector(".aw-step") || {}).textContent,
  };
}
"""


def widget_count_in_notebook(chapter: str) -> int:
    notebook = json.loads((REPO_ROOT / f"{chapter}.ipynb").read_text())
    return sum(
        1
        for cell in notebook["cells"]
        if cell["cell_type"] == "code" and WIDGET_CALL.search("".join(cell["source"]))
    )


def f3(value: float | None) -> str:
    return "−∞" if value is None else f"{value:.3f}"


class WidgetPage:
    """One chapter opened in a fresh offline context, with its console errors and blocked requests."""

    def __init__(self, book, chapter: str):
        self.chapter = chapter
        self.errors: list[str] = []
        self.external: list[str] = []
        self.context = book.browser.new_context(viewport=VIEWPORT, service_workers="block")
        self.context.set_default_timeout(TIMEOUT_MS)
        self.context.route("**/*", self._route)
        self.tab = self.context.new_page()
        self.tab.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.tab.on("pageerror", lambda error: self.errors.append(f"uncaught: {error}"))
        self.tab.goto(book.url(chapter), wait_until="load")

    def _route(self, route):
        if is_local(route.request.url):
            route.continue_()
        else:
            self.external.append(route.request.url)
            route.abort("internetdisconnected")

    def widgets(self):
        return self.tab.query_selector_all(".attention-widget")

    def read(self, root) -> dict:
        return root.evaluate(READ_JS)

    def shoot(self, root, suffix: str = "") -> str:
        WIDGET_SHOTS.mkdir(parents=True, exist_ok=True)
        name = f"{self.chapter.removeprefix('chapters/')}__{root.get_attribute('id')}{suffix}.png"
        root.scroll_into_view_if_needed()
        root.screenshot(path=str(WIDGET_SHOTS / name))
        return name

    def shoot_dark(self, root) -> str:
        self.tab.evaluate("() => { document.documentElement.dataset.theme = 'dark'; }")
        try:
            return self.shoot(root, "__dark")
        finally:
            self.tab.evaluate("() => { document.documentElement.dataset.theme = 'light'; }")

    def close(self):
        self.context.close()


def data_of(root) -> dict:
    return json.loads(root.query_selector("script.aw-data").text_content())


def use_matrix(page: WidgetPage, root) -> None:
    data = data_of(root)
    weights, scores = data["weights"], data["scores"]
    row = len(weights) // 2
    col = max(range(len(weights[row])), key=weights[row].__getitem__)
    root.query_selector(f".aw-cell[data-row='{row}'][data-col='{col}']").hover()
    shown = page.read(root)
    expected = {"target": data["tgt"][row], "source": data["src"][col], "weight": f3(weights[row][col])}
    if scores is not None:
        expected["score"] = f3(scores[row][col])
    assert shown["fields"] == expected, f"hovered cell ({row}, {col})"
    assert shown["bars"] == [f"{w:.2f}" for w in weights[row]], "the row's weights under the source tokens"
    page.shoot(root)
    page.shoot_dark(root)
    # a target word: its row drawn onto the source tokens
    root.query_selector(".aw-ylabel[data-row='0']").hover()
    shown = page.read(root)
    assert shown["fields"] == {"target": data["tgt"][0]}
    assert shown["bars"] == [f"{w:.2f}" for w in weights[0]]
    # the keyboard: focus starts at the first cell (the matrix's one stop in the tab order), ArrowDown
    # moves a row, ArrowRight a column
    page.tab.mouse.move(0, 0)
    root.query_selector(".aw-cell[data-row='0'][data-col='0']").focus()
    page.tab.keyboard.press("ArrowDown")
    page.tab.keyboard.press("ArrowRight")
    rows, cols = len(weights), len(weights[0])
    down, right = min(1, rows - 1), min(1, cols - 1)
    shown = page.read(root)
    assert shown["fields"]["target"] == data["tgt"][down] and shown["fields"]["source"] == data["src"][right]
    assert shown["fields"]["weight"] == f3(weights[down][right])


def hover_bar(page: WidgetPage, root, col: int) -> dict:
    root.query_selector(f".aw-barcell[data-col='{col}']").hover()
    return page.read(root)


def use_stepper(page: WidgetPage, root) -> None:
    data = data_of(root)
    runs, src = data["runs"], data["src"]
    slider = root.query_selector("input[type=range]")
    buttons = root.query_selector_all("button")
    assert len(buttons) == (len(runs) if len(runs) > 1 else 0), "one toggle per run"
    for index, run in enumerate(runs):
        if buttons:
            buttons[index].click()
            assert page.read(root)["pressed"] == [run["label"]]
        slider.focus()
        page.tab.keyboard.press("Home")
        assert page.read(root)["step"] == 0
        page.tab.keyboard.press("ArrowRight")
        step = page.read(root)["step"]
        assert step == min(1, len(run["weights"]) - 1), "ArrowRight moves the stepper one step"
        assert page.read(root)["stepText"] == f"step {step + 1} of {len(run['weights'])}"
        col = max(range(len(src)), key=run["weights"][step].__getitem__)
        shown = hover_bar(page, root, col)
        expected = {
            "step": str(step + 1),
            "emits": run["emitted"][step],
            "source": src[col],
            "weight": f3(run["weights"][step][col]),
        }
        if run["scores"] is not None:
            expected["score"] = f3(run["scores"][step][col])
        assert shown["fields"] == expected, f"run {run['label']!r}, step {step + 1}, source {col}"
        assert shown["bars"] == [f"{w:.2f}" for w in run["weights"][step]]
        page.shoot(root, f"__{run['label'] or 'run'}")
    page.shoot_dark(root)
    # the arrow keys also work with the focus on the toggle buttons (not only on the slider)
    if buttons:
        buttons[0].focus()
        page.tab.keyboard.press("ArrowRight")
        assert page.read(root)["step"] == min(2, len(runs[-1]["weights"]) - 1)


def use_slider(page: WidgetPage, root) -> None:
    data = data_of(root)
    slider = root.query_selector("input[type=range]")
    slider.focus()
    assert page.read(root)["step"] == 0
    page.tab.keyboard.press("End")
    last = len(data["values"]) - 1
    assert page.read(root)["step"] == last
    page.tab.keyboard.press("ArrowLeft")
    frame = last - 1
    assert page.read(root)["step"] == frame
    assert page.read(root)["stepText"] == f"{data['parameter']} = {data['values'][frame]}"
    weights = data["weights"][frame]
    col = max(range(len(weights)), key=weights.__getitem__)
    shown = hover_bar(page, root, col)
    assert shown["fields"] == {
        data["parameter"]: str(data["values"][frame]),
        "source": data["src"][col],
        "weight": f3(weights[col]),
    }
    assert shown["bars"] == [f"{w:.2f}" for w in weights]
    page.shoot(root)
    page.shoot_dark(root)


def use_curve(page: WidgetPage, root) -> None:
    data = data_of(root)
    slider = root.query_selector("input[type=range]")
    slider.focus()
    for _ in range(3):
        page.tab.keyboard.press("ArrowRight")
    frame = min(3, len(data["values"]) - 1)
    assert page.read(root)["step"] == frame
    svg = root.query_selector("svg")
    box = svg.bounding_box()
    svg.hover(position={"x": box["width"] * 0.4, "y": box["height"] * 0.4})
    shown = page.read(root)
    index = int(shown["index"])
    assert 0 < index < len(data["x"]) - 1
    assert shown["fields"] == {
        data["parameter"]: str(data["values"][frame]),
        data["xLabel"]: f3(data["x"][index]),
        data["yLabel"]: f3(data["curves"][frame][index]),
    }
    page.shoot(root)
    page.shoot_dark(root)
    # the keyboard moves the probe along the grid; the slider redraws the curve under it
    svg.focus()
    page.tab.keyboard.press("ArrowRight")
    assert int(page.read(root)["index"]) == index + 1
    slider.focus()
    page.tab.keyboard.press("ArrowLeft")
    shown = page.read(root)
    assert shown["step"] == frame - 1
    assert shown["fields"][data["yLabel"]] == f3(data["curves"][frame - 1][index + 1])


NOTES_JS = """(root) => Object.fromEntries([...root.querySelectorAll('.aw-notes .aw-field')].map(
  (f) => [f.dataset.field, f.querySelector('.aw-value').textContent]))"""


def use_checkpoints(page: WidgetPage, root) -> None:
    # the widget's own data (each frame's matrix holds data of its own, deeper in the widget)
    data = json.loads(root.evaluate("(r) => r.querySelector(':scope > script.aw-data').textContent"))
    slider = root.query_selector("input[type=range]")
    slider.focus()
    assert page.read(root)["step"] == 0
    page.tab.keyboard.press("End")
    last = len(data["steps"]) - 1
    shown = page.read(root)
    assert shown["step"] == last
    assert shown["stepText"] == f"step {data['steps'][last]} (snapshot {last + 1} of {len(data['steps'])})"
    assert root.evaluate(NOTES_JS) == dict(data["fields"][last])
    # the frame's matrix: hover a cell, read its weight and whether the grammar links it
    weights = data["weights"][last]
    row = len(weights) // 2
    col = max(range(len(weights[row])), key=weights[row].__getitem__)
    root.query_selector(f".aw-cell[data-row='{row}'][data-col='{col}']").hover()
    fields = page.read(root)["fields"]
    assert fields["weight"] == f3(weights[row][col])
    links = {tuple(link) for link in data["links"] or []}
    if data["links"] is not None:
        assert fields["true link"] == ("yes" if (row, col) in links else "no")
    outlined = root.query_selector_all(".aw-cell.aw-link")
    assert len(outlined) == len(links)
    page.shoot(root)
    page.shoot_dark(root)
    page.tab.keyboard.press("Home")  # the slider kept the focus: back to the first snapshot, then one on
    page.tab.keyboard.press("ArrowRight")
    assert page.read(root)["step"] == 1 and root.evaluate(NOTES_JS) == dict(data["fields"][1])


USE = {
    "matrix": use_matrix,
    "stepper": use_stepper,
    "slider": use_slider,
    "curve": use_curve,
    "checkpoints": use_checkpoints,
}


def test_the_chapters_that_show_attention_have_widgets():
    calls = {
        "matrix": "attention_widget(",
        "stepper": "decoder_stepper(",
        "slider": "weights_slider(",
        "curve": "curve_slider(",
        "checkpoints": "checkpoint_slider(",
    }
    for number, kinds in REQUIRED_KINDS.items():
        (chapter,) = [c for c in CHAPTERS if c.removeprefix("chapters/").startswith(f"{number}_")]
        source = (REPO_ROOT / f"{chapter}.ipynb").read_text()
        missing = sorted(kind for kind in kinds if calls[kind] not in source)
        assert not missing, f"{chapter} has no widget of kind {missing}"


@pytest.mark.parametrize("chapter", [c for c in CHAPTERS if widget_count_in_notebook(c)])
def test_widgets_show_the_embedded_numbers_and_respond(book, chapter):
    page = WidgetPage(book, chapter)
    try:
        roots = page.widgets()
        assert len(roots) == widget_count_in_notebook(chapter), (
            "a widget of the notebook is missing on the page"
        )
        for root in roots:
            kind = root.get_attribute("data-kind")
            assert root.get_attribute("data-ready") == "1", (
                f"{root.get_attribute('id')}: its script did not run"
            )
            USE[kind](page, root)
        assert not page.errors, f"{chapter}: console errors: {page.errors}"
        assert not page.external, f"{chapter} tried to reach the network: {page.external}"
    finally:
        page.close()
