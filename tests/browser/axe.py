"""axe-core (Deque's accessibility engine) run in a page: the script comes from the PyPI package
axe-playwright-python, which carries axe.min.js; nothing is fetched at run time.

`audit(tab)` injects the script into an open Playwright page, runs every rule axe runs by default
(WCAG 2.0, 2.1 and 2.2 at levels A and AA, and axe's best practices) and returns its violations, each
with its rule, impact, help text and the elements it found (their CSS selector and HTML).

One rule is scoped: axe's ``color-contrast`` skips the highlighted code of the listings and cells
(``div.highlight``), whose every token test_contrast.py measures in both modes, against the same 4.5:1.
A chapter holds some 6,000 to 8,000 such token elements: on chapter 3, axe's contrast rule took 14.1 s
with them and 5.4 s without them, and every other rule 4.2 s. The rule is scoped by its selector
(``axe.configure``; axe's own is ``*``), so that one run of axe audits the page: on chapter 3 that run
took 3.0 to 3.8 s, where a run without the contrast rule and a run of it alone on the page without the
code took 4.0 to 5.6 s, with the same violations.
"""

from __future__ import annotations

from pathlib import Path

import pytest

# Impacts that fail a test: axe's two highest of four (minor, moderate, serious, critical).
FAILING = ("critical", "serious")

# Rules that misfire on an element of the third-party theme (pydata-sphinx-theme, sphinx-book-theme)
# that the book cannot change, each scoped to that element's selector. None is needed at present.
THEME_EXCLUDES: list[str] = []

# The selector test_contrast.py measures instead of axe's color-contrast (see above).
CONTRAST_MEASURED_ELSEWHERE = "div.highlight"

# One run of every rule on the page, ``exclude`` left out, color-contrast's selector first narrowed to
# the elements outside the highlighted code.
RUN_JS = """
async ([exclude, codeSelector]) => {
  window.axe.configure({
    rules: [{ id: "color-contrast", selector: `*:not(${codeSelector}, ${codeSelector} *)` }],
  });
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
    return tab.evaluate(RUN_JS, [exclude or [], CONTRAST_MEASURED_ELSEWHERE])


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
