"""The TinyTableTopTanks working context: the core's kit with what only this game keeps.

``Context`` (``tankref.core.adjudication``) holds the working copy, the dice and the result,
and lists each touched tank's changes with its markers and tooltip. TTT adds the card set a
placed tank is built from and the morale bookkeeping of one action: the triggers that fired
for each tank and the tanks already checked (TTT-MO2: one check per tank per event).
"""

from __future__ import annotations

from typing import Any

from tankref.core import adjudication
from tankref.core.dice import SuppliedDice
from tankref.rulesets.ttt import presentation
from tankref.rulesets.ttt.cards import CardSet
from tankref.rulesets.ttt.flow import get_tank
from tankref.rulesets.ttt.presentation import tank_label
from tankref.rulesets.ttt.state import TableState, TankState

Adjudication = adjudication.Adjudication[TableState]


class Context(adjudication.Context[TableState, TankState]):
    tracked = (
        "x", "z", "facing", "hull_down", "on_table", "crew", "morale", "destroyed", "removed",
        "immobilized", "damage", "stunned", "must_recover", "moved", "facing_changed", "engaged",
        "waiting", "recover_tried", "reroll_used", "smoke_uses",
    )  # fmt: skip

    def __init__(
        self,
        before: TableState,
        action: dict[str, Any],
        supplied: SuppliedDice | None,
        cards: CardSet,
    ) -> None:
        super().__init__(before, action, before.rules.dice, supplied)
        self.cards = cards
        # TTT-MO2: tank id -> the triggers that fired for it during this action
        self.morale_triggers: dict[str, list[str]] = {}
        self.checked: set[str] = set()

    def tank(self, tank_id: str, field: str = "tank_id") -> TankState:
        return get_tank(self.state, tank_id, field)

    def trigger_morale(self, tank_id: str, why: str) -> None:
        self.morale_triggers.setdefault(tank_id, []).append(why)

    def label(self, unit: TankState) -> str:
        return tank_label(unit)

    def view(self, unit: TankState, last_line: str | None) -> tuple[list[str], str]:
        return presentation.view(unit, last_line)
