"""TinyTableTopTanks tables for tests (``from kit.ttt import Game, duel``): every roll from
supplied faces (white, red and green dice, a damage card); the deck uses a fixed seed so a
shuffle is the same on every run."""

from __future__ import annotations

from typing import Any

from kit import Table, faces
from tankref.core.dice import DiceState
from tankref.core.errors import RulesError
from tankref.core.results import Result
from tankref.rulesets.ttt.actions import (
    Action,
    CrewRoll,
    PlaceTank,
    PlaceTerrain,
    StartGame,
)
from tankref.rulesets.ttt.engine import new_table
from tankref.rulesets.ttt.state import Options, Scenario, TableState, TankState, TerrainPiece

Faces = list[int] | tuple[int, ...]


class Game(Table):
    """A table under test. ``do`` applies an action with forced dice and keeps the new state."""

    state: TableState

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("dice", DiceState(seed="tankref-tests"))
        super().__init__("ttt", new_table(**kwargs))

    def do(
        self,
        action: Action,
        *,
        white: Faces = (),
        red: Faces = (),
        green: Faces = (),
        card: str | None = None,
    ) -> Result:
        return self.apply(action, faces(card, white=white, red=red, green=green))

    def refused(self, action: Action, code: str, **dice: Any) -> RulesError:
        """Assert the action is refused with ``code`` and that nothing changed."""
        return self.expect_refusal(action, code, dice=faces(**dice), check_clause=False)

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
