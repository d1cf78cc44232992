"""Tank yard tables for tests (``from kit.yrd import yard``): built through the real engine,
dice forced with supplied faces.

``yard()`` gives a started match: Red's tank "R" and Blue's tank "B" on the spaces asked,
Red's turn 1, table dice (every roll must be supplied, so a test says exactly what fell).
"""

from __future__ import annotations

from typing import Any

from kit import Table, faces
from tankref.core.dice import DiceState
from tankref.core.results import Result
from tankref.rulesets.yrd.actions import (
    Action,
    EndTurn,
    PlacePiece,
    PlaceTank,
    StartGame,
)
from tankref.rulesets.yrd.engine import new_table
from tankref.rulesets.yrd.state import Options, Party, SpaceName, TableState, TankState


class Yard(Table):
    state: TableState

    def __init__(self, state: TableState) -> None:
        super().__init__("yrd", state)

    def do(self, action: Action, **dice: list[int]) -> Result:
        return self.apply(action, faces(**dice) if dice else None)

    def refused(self, action: Action, code: str, clause: str | None, **dice: list[int]) -> None:
        """The action is refused with ``code``/``clause`` and the state is exactly as it was."""
        self.expect_refusal(action, code, clause, faces(**dice) if dice else None)

    def tank(self, tank_id: str) -> TankState:
        return self.state.tanks[tank_id]

    def end_turn(self) -> None:
        self.do(EndTurn())

    def spot(self, player: str, space: SpaceName) -> tuple[float, float]:
        s = self.state.yard(player).tank_spot(space)
        return s.x, s.z

    def artillery(self, owner: str, n: int) -> tuple[float, float]:
        s = self.state.yard(owner).artillery[n - 1]
        return s.x, s.z

    def piece(self, piece_id: str, player: str, on: tuple[str, int] | None, **kw: Any) -> None:
        x, z = self.artillery(*on) if on else (30.0, 0.0)
        self.do(
            PlacePiece(
                piece_id=piece_id, card=kw.pop("card", "party-member"), player=player, x=x, z=z
            )
        )


def yard(
    red: SpaceName = "attack",
    blue: SpaceName = "anti_tank",
    *,
    options: Options | None = None,
    red_defence: int = 0,
    blue_defence: int = 0,
    pieces: dict[str, tuple[str, tuple[str, int] | None]] | None = None,
    start: bool = True,
) -> Yard:
    """Red's tank R and Blue's tank B placed (Red's yard south, Blue's north, the defaults);
    ``pieces``: id -> (owner, (homefield, artillery number) or None)."""
    state = new_table(
        (Party(id="Red", defence=red_defence), Party(id="Blue", defence=blue_defence)),
        options=options,
        dice=DiceState(source="table", seed="yrdkit-0"),
    )
    g = Yard(state)
    for tank_id, player, space in (("R", "Red", red), ("B", "Blue", blue)):
        x, z = g.spot(player, space)
        g.do(PlaceTank(tank_id=tank_id, card="yard-tank", player=player, x=x + 0.4, z=z - 0.3))
    for piece_id, (owner, on) in (pieces or {}).items():
        g.piece(piece_id, owner, on)
    if start:
        g.do(StartGame())
    return g
