"""TinyTableTopTanks: the first ruleset, a plug-in over the shared core."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tankref.core.dice import SuppliedDice

NAME = "ttt"


@dataclass(frozen=True)
class TinyTableTopTanks:
    name: str = NAME
    title: str = "TinyTableTopTanks"
    clause_prefix: str = "TTT"

    def parse_action(self, data: object) -> Any:
        from tankref.rulesets.ttt.actions import parse_action

        return parse_action(data)

    def load_state(self, text: str | bytes) -> Any:
        from tankref.rulesets.ttt.state import TableState

        return TableState.from_json(text)

    def adjudicate(self, state: Any, action: Any, dice: SuppliedDice | None = None) -> Any:
        from tankref.rulesets.ttt.engine import adjudicate

        return adjudicate(state, action, dice)


def ruleset() -> TinyTableTopTanks:
    return TinyTableTopTanks()
