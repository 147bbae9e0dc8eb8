"""axe-core (Deque's accessibility engine) run in a page: the script comes from the PyPI package
axe-playwright-python, which carries axe.min.js; nothing is fetched at run time.

`audit(tab)` injects the script into an open Playwright page, runs every rule axe runs by default
(WCAG 2.0, 2.1 and 2.2 at levels A and AA, and axe's best practices) but one, and returns its
violations, each with its rule, impact, help text and the elements it found (their CSS selector and
HTML).

The rule left out is axe's ``color-contrast``: test_contrast.py measures the contrast of every piece of
text a reader can see on every page, in both modes (prose, code, outputs, the navigation, the widgets and
the text of their SVG figures), against 4.5:1 for text of any size, where axe allows 3:1 for large text.
axe's rule checked the same text again and was the slowest of its rules: on chapter 3 it took 2.2 s of
a 3.9 s run, and with the rule left out the run takes 1.7 s, with the same violations otherwise.
"""

from __future__ import annotations

from pathlib import Path

import pytest

# Impacts that fail a test: axe's two highest of four (minor, moderate, serious, critical).
FAILING = ("critical", "serious")

# Rules that misfire on an element of the third-party theme (pydata-sphinx-theme, sphinx-book-theme)
# that the book cannot change, each scoped to that element's selector. None is needed at present.
THEME_EXCLUDES: list[str] = []

# The rule test_contrast.py checks instead of axe, on every text (see above).
MEASURED_ELSEWHERE = "color-contrast"

# One run of every rule on the page but the one measured elsewhere, ``exclude`` left out.
RUN_JS = """
async ([exclude, measuredElsewhere]) => {
  window.axe.configure({ rules: [{ id: measuredElsewhere, enabled: false }] });
  const context = exclude.length ? { include: [document], exclude: exclude.map((s) => [s]) } : document;
  const found = await window.axe.run(context, { resultTypes: ["violations"] });
  return found.violations.map((v) => ({
    rule: v.id,
    impact: v.impact,
    help: v.help,
    nodes: v.nodes.map((n) => ({
      target: n.target.join(" "),
      html: n.html.slice(0, 200),
      impact: n.impact,
      summary: (n.failureSummary || "").slice(0, 300),
    })),
  }));
}
"""


def axe_script() -> Path:
    try:
        import axe_playwright_python
    except ImportError:
        pytest.fail("axe-playwright-python is missing: tools/setup_env.sh test installs it")
    path = Path(axe_playwright_python.__file__).parent / "axe.min.js"
    if not path.is_file():
        pytest.fail(f"axe-playwright-python has no axe.min.js at {path}")
    return path


def axe_version() -> str:
    head = axe_script().read_text(encoding="utf-8")[:200]
    return head.split("axe v", 1)[1].split()[0] if "axe v" in head else "?"


def audit(tab, exclude: list[str] | None = None) -> list[dict]:
    """axe's violations on the page open in ``tab`` (every impact), ``exclude`` left out of the audit."""
    if not tab.evaluate("() => !!window.axe"):
        tab.add_script_tag(path=str(axe_script()))
    return tab.evaluate(RUN_JS, [exclude or [], MEASURED_ELSEWHERE])


def failing(violations: list[dict]) -> list[dict]:
    return [v for v in violations if v["impact"] in FAILING]


def describe(violations: list[dict], where: str) -> str:
    lines = []
    for v in violations:
        lines.append(f"{where}: {v['impact']} {v['rule']} ({v['help']}), {len(v['nodes'])} elements:")
        lines += [f"    {n['target']}: {n['html'][:120]}" for n in v["nodes"][:6]]
        if len(v["nodes"]) > 6:
            lines.append(f"    and {len(v['nodes']) - 6} more")
    return "\n".join(lines)
