"""One refusal code per meaning across every ruleset (issue 16): the codes core/flow.py
replaced never come back, and every registered ruleset answers the game's flow with the same
codes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tankref.core.errors import RulesError
from tankref.core.flow import REPLACED
from tankref.rulesets import get_ruleset, ruleset_names

ROOT = Path(__file__).resolve().parents[2]
SOURCES = [
    *sorted((ROOT / "server" / "tankref").rglob("*.py")),
    *sorted((ROOT / "server" / "tankref").rglob("*.js")),
    *sorted((ROOT / "tts_lua").rglob("*.lua")),
]


def test_replaced_refusal_codes_are_gone() -> None:
    pattern = re.compile(r"[\"'](" + "|".join(sorted(REPLACED)) + r")[\"']")
    found = []
    for path in SOURCES:
        if path.name == "flow.py" and path.parent.name == "core":
            continue  # the table of what each unified code replaced
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if pattern.search(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert found == [], "\n".join(found)


def _code(name: str, state: object, kind: str) -> str:
    rules = get_ruleset(name)
    action = rules.parse_action({"kind": kind})
    with pytest.raises(RulesError) as refused:
        rules.adjudicate(state, action)
    return refused.value.code


@pytest.mark.parametrize("name", ruleset_names())
def test_every_ruleset_answers_the_games_flow_with_the_same_codes(name: str) -> None:
    """A second start_game is SETUP_OVER while the game is played; once it is over, starting
    again is GAME_OVER, in every ruleset (TTT-T1, AFV-SEQ1, MTC-INI1, YRD-SP1)."""
    game = get_ruleset(name).self_play(0)
    assert _code(name, game.start, "start_game") == "SETUP_OVER"
    assert _code(name, game.final, "start_game") == "GAME_OVER"
