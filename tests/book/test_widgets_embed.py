"""The widgets' script and style files as a widget embeds them (attnbook.book.widgets._embed): the same
program and the same style sheet as the package's readable file, and a file the compaction could not keep
the same refused, with its line named."""

from __future__ import annotations

import json
import re
import subprocess
from importlib import resources

import pytest
import tinycss2

from attnbook.book.widgets._embed import asset, compact_css, compact_js

BOOK_FILES = resources.files("attnbook.book")
SCRIPTS = sorted(path.name for path in BOOK_FILES.iterdir() if path.name.endswith(".js"))
STYLE_SHEETS = sorted(path.name for path in BOOK_FILES.iterdir() if path.name.endswith(".css"))


def read(name: str) -> str:
    return BOOK_FILES.joinpath(name).read_text(encoding="utf-8")


def test_the_package_has_the_widgets_and_the_translators_files():
    assert {"widgets.js", "translator.js", "seq2seq.js", "grammar.js", "detok.js"} <= set(SCRIPTS)
    assert {"widgets.css", "translator.css"} <= set(STYLE_SHEETS)


@pytest.mark.parametrize("name", SCRIPTS + STYLE_SHEETS)
def test_every_file_embeds_in_ascii_and_smaller(name):
    embedded = asset(name)
    assert embedded.isascii()
    assert len(embedded) < len(read(name).encode("utf-8"))


def code_lines(text: str) -> list[str]:
    """The lines of a script that are code: neither blank nor a comment line, indentation dropped."""
    lines = (line.strip() for line in text.split("\n"))
    return [line for line in lines if line and not line.startswith("//")]


def laid_out(biome, script: str) -> str:
    result = subprocess.run(
        [str(biome), "format", "--stdin-file-path=script.js"],
        input=script,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout


@pytest.mark.parametrize("name", SCRIPTS)
def test_a_script_embeds_as_the_same_program(biome, name):
    """Biome lays a script out from its syntax tree, so the same program gets the same layout: the
    embedded script, laid out, is the file laid out, less its comment lines, once the file's characters
    outside ASCII are the escapes the embedding writes (which the next test checks in Node)."""
    file = re.sub(r"[^\x00-\x7f]", lambda match: f"\\u{ord(match.group()):04x}", read(name))
    embedded = asset(name)
    assert code_lines(laid_out(biome, embedded)) == code_lines(laid_out(biome, file))
    assert "\n//" not in "\n" + embedded


def test_a_scripts_escapes_mean_the_characters_they_replace(node, tmp_path):
    script = (
        "// prints its strings and what its regular expression matches\n"
        "const strings = ['−∞', \"target ↑ source →\", 'déjà vu'];\n"
        "const quotes = /[’‘]/g;\n"
        "console.log(JSON.stringify([strings, 'l’été ‘x’'.replace(quotes, \"'\")]));\n"
    )
    printed = []
    for text in (script, compact_js(script)):
        (tmp_path / "script.js").write_text(text, encoding="utf-8")
        result = subprocess.run(
            [node, str(tmp_path / "script.js")], capture_output=True, text=True, timeout=60, check=True
        )
        printed.append(json.loads(result.stdout))
    assert printed[0] == printed[1] == [["−∞", "target ↑ source →", "déjà vu"], "l'été 'x'"]


def shape(nodes) -> list:
    """CSS's own reading of a style sheet: its tokens and blocks, a run of white space as one space and
    none at the start or the end of a block, where CSS reads none."""
    shaped: list = []
    for node in nodes:
        if node.type == "whitespace":
            if shaped and shaped[-1] != " ":
                shaped.append(" ")
        elif node.type.endswith("block"):
            shaped.append((node.type, shape(node.content)))
        elif node.type == "function":
            shaped.append((node.type, node.lower_name, shape(node.arguments)))
        else:
            shaped.append((node.type, node.serialize()))
    while shaped and shaped[-1] == " ":
        shaped.pop()
    return shaped


@pytest.mark.parametrize("name", STYLE_SHEETS)
def test_a_style_sheet_embeds_as_the_same_tokens(name):
    def tokens(text: str) -> list:
        return shape(tinycss2.parse_component_value_list(text, skip_comments=True))

    embedded = asset(name)
    assert "\n" not in embedded and "/*" not in embedded
    assert tokens(embedded) == tokens(read(name))


@pytest.mark.parametrize(
    ("script", "message"),
    [
        ("const a = `one\n  two`;\n", "a backtick or a /\\* outside a comment line"),
        ("const a = `one`;\n", "a backtick"),
        ("/* a comment\n   over two lines */\nconst a = 1;\n", "line 1: a backtick or a /\\*"),
        ('const a = "one \\\n  two";\n', "line 1: a line that ends in a backslash"),
        ("const\u00a0a = 1;\n", "U\\+00A0 is a space or a line break outside ASCII"),
        ('const a = "\U0001f600";\n', "above U\\+FFFF"),
    ],
    ids=["multi-line template", "template", "block comment", "continued string", "NBSP", "astral"],
)
def test_a_script_the_embedding_could_not_keep_the_same_is_refused(script, message):
    with pytest.raises(ValueError, match=message):
        compact_js(script, "s.js")


def test_a_script_keeps_what_only_looks_like_a_comment():
    script = 'const url = "http://example.org"; // a trailing comment\n  // a comment line\n  go(url);\n'
    assert compact_js(script) == 'const url = "http://example.org"; // a trailing comment\ngo(url);'


@pytest.mark.parametrize(
    ("style", "message"),
    [
        (".a { content: 'one \\\n two'; }\n", "line 1: a line that ends in a backslash"),
        (".a::before { content: '→'; }\n", "line 1: a character outside ASCII"),
        (".a/* between */.b { color: red; }\n", "has no white space beside it"),
        (".a { color: red; } /* never closed\n", "a comment that never ends"),
        (".a { content: 'never closed\n}\n", "a string that does not end on its line"),
    ],
    ids=["continued string", "non-ASCII", "comment between names", "open comment", "open string"],
)
def test_a_style_sheet_the_embedding_could_not_keep_the_same_is_refused(style, message):
    with pytest.raises(ValueError, match=message):
        compact_css(style, "s.css")


def test_a_style_sheet_keeps_strings_and_escapes_that_hold_comment_marks():
    style = '/* a comment */\n.a\\"b::before {\n  content: "/* kept */";\n  color: red; /* dropped */\n}\n'
    assert compact_css(style) == '.a\\"b::before { content: "/* kept */"; color: red; }'
