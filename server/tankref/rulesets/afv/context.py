"""AFV's working context on the core kit, and the look-ups every action starts with."""

from __future__ import annotations

from typing import Any

from tankref.core.adjudication import Context, find_unit, refuse
from tankref.core.dice import SuppliedDice
from tankref.core.flow import DESTROYED, NOT_YOUR_PHASE, require_playing
from tankref.rulesets.afv.cards import CardSet, default_cards
from tankref.rulesets.afv.presentation import markers, tooltip, unit_label
from tankref.rulesets.afv.state import TableState, UnitState


class AfvContext(Context[TableState, UnitState]):
    """One AFV adjudication: units live in ``units``; a swapped card (a Degraded team) is
    reported beside the tracked fields."""

    unit_maps = ("units",)
    tracked = (
        "x", "z", "facing", "destroyed", "carried_by", "ready", "stopped", "suppressed",
        "direction", "degraded", "immobilised", "weapons_lost", "superficial",
        "components_lost", "moved_cm", "evasive", "retreated", "fired", "revealed",
    )  # fmt: skip
    # A ruling is noted once per action though several hits or units meet it.
    rulings_once = True

    def __init__(
        self,
        before: TableState,
        action: dict[str, Any],
        supplied: SuppliedDice | None,
        cards: CardSet | None = None,
    ) -> None:
        super().__init__(before, action, before.dice_specs, supplied)
        # The cards a placed unit is looked up on (a test may bring its own).
        self.cards = cards or default_cards()

    def label(self, unit: UnitState) -> str:
        return unit_label(unit)

    def view(self, unit: UnitState, last_line: str | None) -> tuple[list[str], str]:
        return markers(unit), tooltip(unit, last_line)

    def extra_changes(self, before: UnitState | None, after: UnitState) -> dict[str, list[Any]]:
        if before is not None and before.card.id != after.card.id:
            return {"card": [before.card.id, after.card.id]}
        return {}


def get_unit(state: TableState, unit_id: str, field: str = "tank_id") -> UnitState:
    return find_unit(state.units, unit_id, field, noun="unit")


def own_unit(state: TableState, unit_id: str, clause: str) -> UnitState:
    """The acting unit: the game is on, it is its side's phase, it is in play."""
    unit = get_unit(state, unit_id)
    require_playing(state, "AFV-SEQ1")
    if unit.player != state.active_player:
        refuse(
            NOT_YOUR_PHASE, "AFV-SEQ1",
            f"{unit_label(unit)} belongs to {unit.player}; it is {state.active_player}'s phase",
        )  # fmt: skip
    if unit.destroyed:
        refuse(DESTROYED, clause, f"{unit_label(unit)} is destroyed")
    return unit
