"""Shared test helpers (import as `from tablekit import Game, duel`): a table builder that
always forces the dice.

Every roll in a test comes from supplied face numbers (table dice), never from patching the
generator; the deck uses a fixed seed so a shuffle is the same on every run.
"""

from __future__ import annotations

from typing import Any

import pytest

from tankref.core.dice import DiceState, SuppliedDice
from tankref.core.errors import RulesError
from tankref.core.results import Result
from tankref.rulesets.ttt.actions import (
    Action,
    CrewRoll,
    PlaceTank,
    PlaceTerrain,
    StartGame,
)
from tankref.rulesets.ttt.engine import adjudicate, new_table
from tankref.rulesets.ttt.state import Options, Scenario, TableState, TankState, TerrainPiece


class Game:
    """A table under test. ``do`` applies an action with forced dice and keeps the new state."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("dice", DiceState(seed="tankref-tests"))
        self.state: TableState = new_table(**kwargs)
        self.last: Result | None = None

    def do(
        self,
        action: Action,
        *,
        white: list[int] | tuple[int, ...] = (),
        red: list[int] | tuple[int, ...] = (),
        green: list[int] | tuple[int, ...] = (),
        card: str | None = None,
    ) -> Result:
        faces = {k: list(v) for k, v in (("white", white), ("red", red), ("green", green)) if v}
        supplied = SuppliedDice(faces=faces, damage_card=card)
        adj = adjudicate(self.state, action, supplied)
        self.state = adj.state
        self.last = adj.result
        return adj.result

    def refused(self, action: Action, code: str, **dice: Any) -> RulesError:
        """Assert the action is refused with ``code`` and that nothing changed."""
        before = self.state.model_dump_json()
        with pytest.raises(RulesError) as info:
            self.do(action, **dice)
        assert info.value.code == code, info.value
        assert self.state.model_dump_json() == before
        return info.value

    def tank(self, tank_id: str) -> TankState:
        return self.state.tanks[tank_id]

    def place(
        self,
        tank_id: str,
        card: str,
        player: str,
        x: float,
        z: float,
        facing: float = 0.0,
        **kw: Any,
    ) -> Result:
        return self.do(
            PlaceTank(tank_id=tank_id, card=card, player=player, x=x, z=z, facing=facing, **kw)
        )

    def terrain(self, piece_id: str, kind: str, shape: dict[str, Any]) -> Result:
        piece = TerrainPiece.model_validate({"id": piece_id, "kind": kind, "shape": shape})
        return self.do(PlaceTerrain(piece=piece))

    def crew(self, tank_id: str, grizzled: bool = False) -> Result:
        """Force a crew: face 6 makes Grizzled, face 1 Scared (card modifiers are at most +3)."""
        return self.do(CrewRoll(tank_id=tank_id), green=[6 if grizzled else 1])

    def start(self) -> Result:
        return self.do(StartGame())


def duel(
    red_card: str = "tiger-i",
    blue_card: str = "m4a1-sherman",
    red_at: tuple[float, float, float] = (0.0, -20.0, 0.0),
    blue_at: tuple[float, float, float] = (0.0, 20.0, 180.0),
    *,
    red_grizzled: bool = False,
    blue_grizzled: bool = False,
    options: Options | None = None,
    scenario: Scenario | None = None,
    extra: list[tuple[str, str, str, float, float, float]] = (),  # type: ignore[assignment]
) -> Game:
    """Red tank "R1" at its south edge facing north, Blue "B1" at the north edge facing south;
    started, Red's phase of turn 1. ``extra`` adds (id, card, player, x, z, facing) tanks.
    Tanks sit within 6" of their own edge (z = ±24) unless placed otherwise."""
    g = Game(options=options or Options(), scenario=scenario or Scenario())
    g.place("R1", red_card, "Red", *red_at)
    g.place("B1", blue_card, "Blue", *blue_at)
    for tank_id, card, player, x, z, facing in extra:
        g.place(tank_id, card, player, x, z, facing)
    g.crew("R1", red_grizzled)
    g.crew("B1", blue_grizzled)
    for tank_id, *_ in extra:
        g.crew(tank_id)
    g.start()
    return g
