"""Minimal Tank Combat tables for tests (``from kit.mtc import game``): started tables built
from hexes, dice forced face by face (``d6``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kit import Table
from tankref.core.dice import DiceState, SuppliedDice
from tankref.core.errors import RulesError
from tankref.core.hexgrid import Hex, HexGrid
from tankref.core.results import Result
from tankref.rulesets.mtc.actions import ACTION_ADAPTER, Action
from tankref.rulesets.mtc.cards import Design
from tankref.rulesets.mtc.engine import new_table
from tankref.rulesets.mtc.state import HexTerrain, Options, TableState, TerrainKind

TankSpec = tuple[str, str, str, int, int]  # id, design, player, q, r


def _d6(faces: Sequence[int] | None) -> SuppliedDice | None:
    return None if faces is None else SuppliedDice(faces={"d6": list(faces)})


class Game(Table):
    """A table and the actions played on it, with dice forced face by face."""

    state: TableState

    def __init__(self, state: TableState) -> None:
        super().__init__("mtc", state)

    def do(self, action: dict[str, Any] | Action, faces: Sequence[int] | None = None) -> Result:
        parsed = ACTION_ADAPTER.validate_python(action) if isinstance(action, dict) else action
        return self.apply(parsed, _d6(faces))

    def refuse(
        self, action: dict[str, Any], code: str, faces: Sequence[int] | None = None
    ) -> RulesError:
        """The action is refused with ``code``; the state is exactly as before."""
        parsed = ACTION_ADAPTER.validate_python(action)
        return self.expect_refusal(parsed, code, dice=_d6(faces), check_clause=False)

    def tank(self, tank_id: str) -> Any:
        return self.state.tanks[tank_id]

    def hex_of(self, tank_id: str) -> Hex:
        return self.state.tanks[tank_id].hex

    def end_phase(self, faces: Sequence[int] | None = None) -> Result:
        return self.do({"kind": "end_phase"}, faces)

    def to_combat(self) -> None:
        """From player 1's movement phase to its combat phase."""
        assert self.state.step == "movement"
        self.end_phase()


def game(
    tanks: Sequence[TankSpec],
    terrain: dict[tuple[int, int], TerrainKind] | None = None,
    *,
    designs: Sequence[Design] = (),
    grid: HexGrid | None = None,
    options: Options | None = None,
    initiative: Sequence[int] = (6, 1),
    start: bool = True,
) -> Game:
    """A table on the default 72" x 48" map (2" pointy hexes at the origin) with ``tanks``
    placed by hex; started with the initiative faces given (Red rolls first: Red 6, Blue 1
    makes Red player 1)."""
    state = new_table(
        ("Red", "Blue"),
        grid=grid,
        terrain=[HexTerrain(q=q, r=r, kind=k) for (q, r), k in (terrain or {}).items()],
        designs=designs,
        options=options,
        dice=DiceState(source="table", seed="mtckit"),
    )
    g = Game(state)
    for tank_id, design, player, q, r in tanks:
        x, z = state.grid.center(Hex(q, r))
        g.do(
            {
                "kind": "place_tank",
                "tank_id": tank_id,
                "design": design,
                "player": player,
                "x": x,
                "z": z,
            }
        )
    if start:
        g.do({"kind": "start_game"}, initiative)
    return g


def design(id: str, attack: int, defense: int, range: int, move: int) -> Design:
    return Design(id=id, name=id.title(), attack=attack, defense=defense, range=range, move=move)
