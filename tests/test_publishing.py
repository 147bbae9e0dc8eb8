"""Guards of what makes the book reusable, citable and published: the licences, CITATION.cff, the
GitHub Actions workflows, and the addresses in README.md, all derived from _config.yml's repository.

The workflows cannot run here; `make lint` checks them with actionlint, and these tests check what
they must do."""

from __future__ import annotations

import json
import re

import pytest
import yaml
from book_config import REPO_ROOT, book_config

WORKFLOWS = REPO_ROOT / ".github" / "workflows"


def owner_and_repo() -> tuple[str, str]:
    url = book_config()["repository"]["url"]
    match = re.fullmatch(r"https://github\.com/([\w.-]+)/([\w.-]+?)/?", url)
    assert match, f"_config.yml: repository.url {url!r} is not https://github.com/<owner>/<repo>"
    return match.group(1), match.group(2)


def pages_url() -> str:
    """Where GitHub Pages serves the book: https://<owner>.github.io/<repo>/ (owner in lower case)."""
    owner, repo = owner_and_repo()
    return f"https://{owner.lower()}.github.io/{repo}/"


def read_workflow(name: str) -> dict:
    workflow = yaml.safe_load((WORKFLOWS / name).read_text())
    # YAML 1.1 reads the key `on` as True.
    workflow["on"] = workflow.pop(True, workflow.get("on"))
    return workflow


def package_field(name: str) -> object:
    """A one-line field of code/pyproject.toml's [project] table, read by hand (Python 3.10, which the
    book supports, has no TOML reader)."""
    text = (REPO_ROOT / "code" / "pyproject.toml").read_text()
    project = text.split("[project]\n", 1)[1].split("\n[", 1)[0]
    match = re.search(rf"^{re.escape(name)} = (.+)$", project, re.MULTILINE)
    assert match, f"code/pyproject.toml: no {name} in [project]"
    return json.loads(match.group(1))


def steps(job: dict) -> list[dict]:
    return job.get("steps", [])


def uses(job: dict) -> list[str]:
    return [step["uses"].split("@")[0] for step in steps(job) if "uses" in step]


def runs(job: dict) -> list[str]:
    return [step["run"].strip() for step in steps(job) if "run" in step]


# --- licences -------------------------------------------------------------------------------------


def test_code_is_mit_and_the_package_carries_the_same_licence():
    licence = (REPO_ROOT / "LICENSE").read_text()
    assert licence.startswith("MIT License\n") and "Permission is hereby granted, free of charge" in licence
    assert (REPO_ROOT / "code" / "LICENSE").read_text() == licence, "code/LICENSE must be a copy of LICENSE"
    assert package_field("license") == "MIT"
    assert package_field("license-files") == ["LICENSE"]


def test_text_and_figures_are_cc_by_4():
    text = (REPO_ROOT / "LICENSE-text").read_text()
    assert "Creative Commons Attribution 4.0 International Public License" in text
    for section in range(1, 9):
        assert f"Section {section} -- " in text, f"LICENSE-text: the legal code lacks Section {section}"
    assert "MIT License (the file LICENSE)" in text, "LICENSE-text must say what the MIT licence covers"


def test_readme_and_the_footer_state_both_licences():
    readme = (REPO_ROOT / "README.md").read_text()
    assert "CC BY 4.0" in readme and "`LICENSE-text`" in readme
    assert "MIT" in readme and "`LICENSE`" in readme
    footer = book_config()["html"]["extra_footer"]
    assert "https://creativecommons.org/licenses/by/4.0/" in footer and "CC BY 4.0" in footer
    assert "MIT" in footer


# --- citation -------------------------------------------------------------------------------------


def citation() -> dict:
    return yaml.safe_load((REPO_ROOT / "CITATION.cff").read_text())


def cff_errors(document: dict) -> list[str]:
    """Every way `document` breaks the Citation File Format 1.2.0 schema (the format's own
    schema.json, kept in tests/data), with formats (dates, URLs) checked too."""
    import jsonschema

    schema = json.loads((REPO_ROOT / "tests" / "data" / "citation-file-format-1.2.0.schema.json").read_text())
    assert schema["$id"] == "https://citation-file-format.github.io/1.2.0/schema.json"
    validator = jsonschema.Draft7Validator(schema, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)
    return [f"{'/'.join(map(str, error.path))}: {error.message}" for error in validator.iter_errors(document)]


def test_citation_cff_is_valid_citation_file_format_1_2():
    document = citation()
    assert document["cff-version"] == "1.2.0"
    assert cff_errors(document) == []


@pytest.mark.parametrize(
    ("field", "value"),
    [("authors", None), ("license", "CC-BY-99"), ("date-released", "yesterday"), ("url", "not a url")],
)
def test_the_citation_check_rejects_a_broken_file(field, value):
    document = citation()
    if value is None:
        del document[field]
    else:
        document[field] = value
    assert cff_errors(document), f"a CITATION.cff with {field}={value!r} passed the schema check"


def intro_bibtex() -> dict[str, str]:
    intro = (REPO_ROOT / "intro.md").read_text()
    block = re.search(r"```bibtex\n(@misc\{\w+,\n.*?\n\})\n```", intro, re.DOTALL)
    assert block, "intro.md: no ```bibtex block with an @misc entry"
    return dict(re.findall(r"^\s+(\w+)\s*=\s*\{(.*)\},?$", block.group(1), re.MULTILINE))


def test_citation_cff_and_the_intro_bibtex_entry_agree_with_the_repository():
    owner, repo = owner_and_repo()
    document = citation()
    preferred = document["preferred-citation"]
    assert document["repository-code"] == preferred["repository-code"] == f"https://github.com/{owner}/{repo}"
    assert document["url"] == preferred["url"] == pages_url()
    assert document["title"] == preferred["title"]
    assert sorted(document["license"]) == ["CC-BY-4.0", "MIT"]
    assert str(document["version"]) == package_field("version"), "CITATION.cff: version is not the package's"

    entry = intro_bibtex()
    assert entry["title"] == preferred["title"]
    assert entry["year"] == str(preferred["year"])
    assert entry["author"] == "{" + preferred["authors"][0]["name"] + "}", "a group author in double braces"
    assert entry["howpublished"] == f"\\url{{{pages_url()}}}"


# --- workflows ------------------------------------------------------------------------------------


def test_test_workflow_runs_the_ci_command_on_every_push_and_pull_request():
    workflow = read_workflow("test.yml")
    assert set(workflow["on"]) == {"push", "pull_request"}
    assert not any(workflow["on"][event] for event in ("push", "pull_request")), "no branch filter"
    assert workflow["permissions"] == {"contents": "read"}
    ci = (REPO_ROOT / ".ci" / "run").read_text()
    assert re.search(r"^make test$", ci, re.MULTILINE), ".ci/run no longer runs `make test`"
    (job,) = workflow["jobs"].values()
    assert uses(job)[0] == "actions/checkout"
    assert runs(job) == ["bash .ci/run"], "the workflow must run the same command as .ci/run"


def test_pages_workflow_builds_the_book_and_its_pdf_on_main_and_deploys_build_html():
    workflow = read_workflow("pages.yml")
    assert workflow["on"]["push"] == {"branches": ["main"]}
    assert book_config()["repository"]["branch"] == "main"
    build, deploy = workflow["jobs"]["build"], workflow["jobs"]["deploy"]

    # the HTML book, then the PDF edition from the same executed chapters (make pdf copies it into
    # _build/html, where intro.md links to it), with TeX Live installed as root first
    assert runs(build) == ["make book", "sudo tools/install_tex.sh", "make pdf"]
    assert uses(build)[-2:] == ["actions/configure-pages", "actions/upload-pages-artifact"]
    (upload,) = [step for step in steps(build) if step.get("uses", "").startswith("actions/upload-pages")]
    assert upload["with"]["path"] == "_build/html"

    assert deploy["needs"] == "build"
    assert uses(deploy) == ["actions/deploy-pages"]
    assert deploy["permissions"] == {"pages": "write", "id-token": "write"}
    assert deploy["environment"]["name"] == "github-pages"
    # Only the deploying job may write to Pages; every other job reads.
    assert workflow["permissions"] == {"contents": "read"}
    assert "permissions" not in build


def test_upgrade_workflow_tests_the_newest_allowed_versions_weekly_and_reports_what_changed():
    workflow = read_workflow("upgrade-check.yml")
    assert set(workflow["on"]) == {"schedule", "workflow_dispatch"}
    assert len(workflow["on"]["schedule"]) == 1 and workflow["permissions"] == {"contents": "read"}
    (job,) = workflow["jobs"].values()
    assert uses(job)[0] == "actions/checkout"
    setup, report, test = steps(job)[1:]
    # the set-up without constraints.txt, then the diff into the job summary, then every test
    assert setup["run"].strip() == "tools/setup_env.sh test" and setup["env"] == {"BOOK_UNLOCKED": "1"}
    assert "tools/lock_stack.py diff" in report["run"] and "$GITHUB_STEP_SUMMARY" in report["run"]
    assert test["run"].strip().endswith("make test") and test["env"] == {"BOOK_UNLOCKED": "1"}
    setup_script = (REPO_ROOT / "tools" / "setup_env.sh").read_text()
    assert "BOOK_UNLOCKED" in setup_script and "-c constraints.txt" in setup_script


def test_every_workflow_that_installs_the_book_does_so_through_the_locked_set_up():
    """test.yml (make test), pages.yml (make book, make pdf) install through tools/setup_env.sh, which
    reads constraints.txt; colab-check.yml is Colab's own environment on purpose; upgrade-check.yml alone
    unlocks. No workflow calls pip itself, around the lock."""
    for path in sorted(WORKFLOWS.glob("*.yml")):
        for job in read_workflow(path.name)["jobs"].values():
            for command in runs(job):
                assert "pip install" not in command, f"{path.name}: {command!r} installs around the lock"
    assert {path.name for path in WORKFLOWS.glob("*.yml")} == {
        "colab-check.yml",
        "pages.yml",
        "test.yml",
        "upgrade-check.yml",
    }


# --- README ---------------------------------------------------------------------------------------


def test_readme_pages_url_and_badges_agree_with_the_repository_of_config():
    owner, repo = owner_and_repo()
    readme = (REPO_ROOT / "README.md").read_text()

    pages = set(re.findall(r"https://[\w.-]+\.github\.io/[\w.-]+/?", readme))
    assert pages == {pages_url()}, f"README.md: Pages addresses {sorted(pages)}, expected {pages_url()}"
    read = re.search(r"\[!\[Read the book\]\([^)]*\)\]\(([^)]*)\)", readme)
    assert read and read.group(1) == pages_url(), "README.md: the 'Read the book' badge must link to Pages"

    colab = re.search(r"\[!\[Open in Colab\]\([^)]*\)\]\(([^)]*)\)", readme)
    assert colab, "README.md: no 'Open in Colab' badge"
    branch = book_config()["repository"]["branch"]
    expected = (
        f"https://colab.research.google.com/github/{owner}/{repo}/blob/{branch}/chapters/01_intuition.ipynb"
    )
    assert colab.group(1) == expected
    assert (REPO_ROOT / "chapters" / "01_intuition.ipynb").exists()

    actions = f"https://github.com/{owner}/{repo}/actions/workflows/test.yml"
    assert f"[![test]({actions}/badge.svg)]({actions})" in readme
    assert (WORKFLOWS / "test.yml").exists()

    # Any other address of a GitHub repository in the README is this one.
    repositories = set(
        re.findall(r"github\.com/([\w.-]+/[\w.-]+?)(?:@|/|\.git|\)|\"|`|$)", readme, re.MULTILINE)
    )
    assert repositories <= {f"{owner}/{repo}", "<owner>/<repo>"}, sorted(repositories)


def test_readme_lists_every_command_of_the_command_line_as_a_pip_user_types_it():
    from attnbook.cli.main import build_parser

    (commands,) = [a for a in build_parser()._actions if a.__class__.__name__ == "_SubParsersAction"]
    readme = (REPO_ROOT / "README.md").read_text()
    section = readme.split("## The command line\n", 1)[1].split("\n## ", 1)[0]
    shown = set(re.findall(r"^python -m attnbook ([\w-]+)", section, re.MULTILINE))
    assert shown == set(commands.choices), f"README.md's command line shows {sorted(shown)}"
    assert not re.search(r"^\.venv/bin/python -m attnbook", readme, re.MULTILINE)
    # the command line comes before the module inventory, and the quick start before everything else
    assert readme.index("## The command line") < readme.index("<!-- module inventory")
    assert readme.index("## Quick start") == readme.index("\n## ") + 1


def test_readme_times_of_long_commands_agree_with_their_help_and_recorded_runs():
    readme = (REPO_ROOT / "README.md").read_text()
    recorded = json.loads((REPO_ROOT / "code/src/attnbook/data/bottleneck_cpu.json").read_text())
    minutes = recorded["seconds"] / 60
    assert 25 <= minutes <= 35, "the recorded bottleneck study no longer takes about half an hour"
    command = (REPO_ROOT / "code/src/attnbook/cli/bottleneck.py").read_text()
    assert "half an hour on 2 CPU cores" in command
    (line,) = [line for line in readme.splitlines() if line.startswith("python -m attnbook bottleneck")]
    assert "about half an hour on 2 cores" in line and f"took {minutes:.0f} min" in line


def test_the_package_page_on_the_registry_is_code_readme():
    assert package_field("readme") == "README.md"
    page = (REPO_ROOT / "code" / "README.md").read_text()
    assert page.startswith("# attnbook\n") and "--index-url https://download.pytorch.org/whl/cpu" in page
    assert pages_url() in page and "python -m attnbook" in page
