"""Tank yard tables for tests: built through the real engine, dice forced with supplied faces.

``yard()`` gives a started match: Red's tank "R" and Blue's tank "B" on the spaces asked,
Red's turn 1, table dice (every roll must be supplied, so a test says exactly what fell).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from tankref.core.dice import DiceState, SuppliedDice
from tankref.core.errors import RulesError
from tankref.core.results import Result
from tankref.rulesets.yrd.actions import (
    Action,
    EndTurn,
    PlacePiece,
    PlaceTank,
    StartGame,
)
from tankref.rulesets.yrd.engine import adjudicate, new_table
from tankref.rulesets.yrd.state import Options, Party, SpaceName, TableState, TankState


@dataclass
class Yard:
    state: TableState
    results: list[Result] = field(default_factory=list)

    @property
    def last(self) -> Result:
        return self.results[-1]

    def do(self, action: Action, **faces: list[int]) -> Result:
        supplied = SuppliedDice(faces=faces) if faces else None
        out = adjudicate(self.state, action, supplied)
        self.state = out.state
        self.results.append(out.result)
        return out.result

    def refused(self, action: Action, code: str, clause: str | None, **faces: list[int]) -> None:
        """The action is refused with ``code``/``clause`` and the state is exactly as it was."""
        before = self.state.to_json()
        supplied = SuppliedDice(faces=faces) if faces else None
        with pytest.raises(RulesError) as info:
            adjudicate(self.state, action, supplied)
        assert (info.value.code, info.value.clause) == (code, clause), info.value
        assert self.state.to_json() == before

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
