"""The working context of one adjudication: a private copy of the state, the dice, the result.

Handlers change only the copy. The engine hands it back only when the whole action has
succeeded, so a refusal (or a table that still owes dice) leaves the caller's state as it was.
"""

from __future__ import annotations

from typing import Any, NoReturn

from tankref.core.dice import DiceBag, SuppliedDice
from tankref.core.errors import RulesError, not_found
from tankref.core.results import Event, Modifier, ModifierTarget, Result, RulingNote
from tankref.rulesets.ttt.state import TableState, TankState


def refuse(code: str, clause: str | None, message: str, **details: Any) -> NoReturn:
    raise RulesError(code, clause, message, details)


def tank_label(tank: TankState) -> str:
    return f"{tank.name} ({tank.id})"


def get_tank(state: TableState, tank_id: str, field: str = "tank_id") -> TankState:
    tank = state.tanks.get(tank_id)
    if tank is None:
        not_found("UNKNOWN_TANK", None, f"{field}: no tank {tank_id!r} on this table", field=field)
    return tank


class Context:
    def __init__(
        self, before: TableState, action: dict[str, Any], supplied: SuppliedDice | None
    ) -> None:
        self.before = before
        self.state = before.clone()
        self.bag = DiceBag(self.state.dice, self.state.rules.dice, supplied)
        self.result = Result(action=action)
        self._own: set[str] = set()
        # TTT-MO2: tank id -> the triggers that fired for it during this action
        self.morale_triggers: dict[str, list[str]] = {}
        self.checked: set[str] = set()

    # --- tanks -------------------------------------------------------------------------
    def tank(self, tank_id: str, field: str = "tank_id") -> TankState:
        return get_tank(self.state, tank_id, field)

    def edit(self, tank_id: str) -> TankState:
        """The tank, privately copied into the working state on first write."""
        if tank_id not in self._own:
            self.state.tanks[tank_id] = self.state.tanks[tank_id].model_copy()
            self._own.add(tank_id)
        return self.state.tanks[tank_id]

    @property
    def edited(self) -> list[str]:
        return sorted(self._own)

    # --- the result --------------------------------------------------------------------
    def say(self, line: str) -> None:
        self.result.summary.append(line)

    def rule(self, clause: str, text: str, option: str | None = None, value: Any = None) -> None:
        self.result.rulings.append(
            RulingNote(
                clause=clause, text=text, option=option, value=None if value is None else str(value)
            )
        )

    def modifier(
        self,
        clause: str,
        label: str,
        amount: int,
        applies_to: ModifierTarget,
        ruling: str | None = None,
    ) -> Modifier:
        mod = Modifier(
            clause=clause, label=label, amount=amount, applies_to=applies_to, ruling=ruling
        )
        self.result.modifiers.append(mod)
        return mod

    def event(self, kind: str, clause: str | None, text: str, **data: Any) -> None:
        self.result.events.append(Event(kind=kind, clause=clause, text=text, data=data))

    def trigger_morale(self, tank_id: str, why: str) -> None:
        self.morale_triggers.setdefault(tank_id, []).append(why)
