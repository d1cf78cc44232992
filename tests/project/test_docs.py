"""The README (for players) and docs/ stay short, linked and true: the size, every relative
link and heading, both set-up commands as CI runs them, every command, the rulesets' table
set-ups, the licence."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import pytest

from tankref.cli import build_parser
from tankref.core.dice import DiceState
from tankref.rulesets import get_ruleset

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
PAGES = [README, *sorted(DOCS.rglob("*.md"))]
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.S | re.M)


def _prose(page: Path) -> str:
    """The page without its code blocks (a link-like text in code is not a link)."""
    return FENCE.sub("", page.read_text())


def _anchors(page: Path) -> set[str]:
    """The heading anchors GitHub makes: lower case, punctuation dropped, spaces to hyphens."""
    found = set()
    for heading in re.findall(r"^#+\s+(.*)$", _prose(page), re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        found.add(slug)
    return found


def _links(page: Path) -> list[str]:
    return [t for t in LINK.findall(_prose(page)) if not re.match(r"[a-z]+:", t)]


def _marked_command(marker: str) -> str:
    """The line two below a marker (the marker, the fence, the command), as .ci/run reads it."""
    lines = README.read_text().splitlines()
    at = lines.index(f"<!-- {marker} -->")
    assert lines[at + 1].startswith("```"), f"no code block under <!-- {marker} -->"
    return lines[at + 2]


def test_readme_is_at_most_10_kb() -> None:
    size = len(README.read_bytes())
    assert size <= 10_000, f"README.md is {size} bytes: move detail into docs/"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(page: Path) -> None:
    """A link to a file leads to one that exists; a #heading to a heading on that page."""
    broken = []
    for target in _links(page):
        path_part, _, anchor = target.partition("#")
        dest = (page.parent / path_part).resolve() if path_part else page
        missing_heading = anchor and dest.suffix == ".md" and anchor not in _anchors(dest)
        if not dest.exists() or missing_heading:
            broken.append(target)
    assert broken == []


def test_every_docs_page_is_reachable_from_the_readme() -> None:
    seen: set[Path] = set()
    todo = [README]
    while todo:
        page = todo.pop()
        if page in seen:
            continue
        seen.add(page)
        for target in _links(page):
            dest = (page.parent / target.partition("#")[0]).resolve()
            if dest.suffix == ".md" and dest.exists():
                todo.append(dest)
    orphans = [str(p.relative_to(ROOT)) for p in PAGES if p.resolve() not in seen]
    assert orphans == []


def test_readme_keeps_both_set_up_commands_as_ci_runs_them() -> None:
    """The install-and-run line is a virtual environment's (no `python`, no system pip
    needed); the test command is the very one .ci/run runs; CI reads the install line from
    the README rather than keeping its own copy."""
    install = _marked_command("install-command")
    assert install == (
        "python3 -m venv .venv && .venv/bin/python -m pip install . "
        "&& .venv/bin/python -m tankref serve"
    )
    ci = (ROOT / ".ci" / "run").read_text()
    ci_test = re.search(r"^test_command='(.*)'$", ci, re.M)
    assert ci_test is not None
    assert _marked_command("test-command") == ci_test.group(1)
    assert "<!-- install-command -->" in ci


def test_windows_lines_come_first_and_cite_pythons_docs() -> None:
    readme = README.read_text()
    windows = readme.index("**Windows**")
    assert windows < readme.index("<!-- install-command -->")
    for line in (
        "py -m venv .venv",
        ".venv\\Scripts\\python -m pip install .",
        ".venv\\Scripts\\python -m tankref serve",
    ):
        assert line in readme[windows:]
    install = (DOCS / "install.md").read_text()
    assert "https://docs.python.org/3/using/windows.html" in install
    assert "https://docs.python.org/3/library/venv.html" in install


def test_every_command_is_in_the_readme() -> None:
    parser = build_parser()
    (commands,) = [
        a.choices for a in parser._actions if isinstance(a.choices, dict) and "serve" in a.choices
    ]
    readme = README.read_text()
    missing = [name for name in commands if f"`tankref {name}" not in readme]
    assert missing == []


@pytest.mark.parametrize("name", ["ttt", "afv", "mtc", "yrd"])
def test_each_ruleset_page_sets_up_a_table_the_referee_accepts(name: str) -> None:
    page = DOCS / "rulesets" / f"{name}.md"
    blocks = re.findall(r"```json\n(.*?)```", page.read_text(), re.S)
    bodies = [json.loads(b) for b in blocks if '"ruleset"' in b]
    assert bodies, f"{page.name} shows no table set-up"
    ruleset = get_ruleset(name)
    for body in bodies:
        assert body["ruleset"] == name
        state = ruleset.new_table(ruleset.parse_setup(body["setup"]), DiceState())
        assert len(ruleset.summary(state).players) == 2


def test_no_page_cites_a_file_the_repo_does_not_have() -> None:
    """Rule texts are not shipped: no page names one, nor "more rule systems come next"."""
    for page in PAGES:
        text = page.read_text()
        for name in re.findall(r"[\w-]+\.txt\b", text):
            assert list(ROOT.rglob(name)), f"{page.name} cites {name}, not in the repo"
        assert "come next" not in text
        assert "chapter 12" not in text.lower(), page.name


def test_the_screenshot_is_a_real_picture() -> None:
    shot = DOCS / "img" / "page.png"
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert width >= 1280 and height >= 720
    assert "docs/img/page.png" in README.read_text()


def test_licence_is_mit_and_pyproject_agrees() -> None:
    licence = (ROOT / "LICENSE").read_text()
    assert licence.startswith("MIT License")
    assert "Copyright (c) 2026 the tankref authors" in licence
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["license"] == "MIT"
    assert project["license-files"] == ["LICENSE"]
