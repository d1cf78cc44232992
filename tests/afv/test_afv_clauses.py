"""Every AFV clause ID (other-rulesets-clauses.md) is named by a test's docstring here, and
the AFV page's table set-up (docs/rulesets/afv.md) is one the referee accepts."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

from tankref.core.dice import DiceState
from tankref.rulesets import get_ruleset

HERE = Path(__file__).resolve().parent
AFV_PAGE = HERE.parents[1] / "docs" / "rulesets" / "afv.md"
CLAUSES = (
    "AFV-SEQ1", "AFV-MV1", "AFV-MV2", "AFV-MV3", "AFV-FR1", "AFV-SP1", "AFV-HIT1", "AFV-HIT2",
    "AFV-AP1", "AFV-DMG1", "AFV-DMG2", "AFV-UNITS", "AFV-SPC1",
)  # fmt: skip


def test_every_clause_is_named_by_a_test() -> None:
    named: set[str] = set()
    for path in HERE.glob("test_afv_*.py"):
        if path.name == Path(__file__).name:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                named |= set(re.findall(r"AFV-[A-Z]+\d*", ast.get_docstring(node) or ""))
    assert set(CLAUSES) <= named, sorted(set(CLAUSES) - named)


def test_the_afv_page_setup_is_accepted() -> None:
    block = re.search(r"```json\n(.*?)```", AFV_PAGE.read_text(), re.S)
    assert block is not None
    body = json.loads(block.group(1))
    assert body["ruleset"] == "afv"
    afv = get_ruleset("afv")
    setup = afv.parse_setup(body["setup"])
    state = afv.new_table(setup, DiceState())
    assert afv.summary(state).players == ["Red", "Blue"]
