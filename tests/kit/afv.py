"""AFV tables for tests (``from kit.afv import AfvGame, cm``): table dice, so every roll in
a test is a face the test supplies (``d6=[...]``); distances as the rules give them, in cm."""

from __future__ import annotations

from typing import Any

from kit import Table
from tankref.core.dice import DiceState, SuppliedDice
from tankref.core.errors import RulesError
from tankref.core.geometry import Circle, TableArea
from tankref.core.results import Result
from tankref.rulesets.afv.actions import (
    Action,
    EndPhase,
    Fire,
    Move,
    PlaceTank,
    PlaceTerrain,
    StartGame,
)
from tankref.rulesets.afv.engine import new_table
from tankref.rulesets.afv.state import TableState, TerrainPiece, UnitState


def cm(value: float) -> float:
    """A rule distance in cm as table inches (TTS positions)."""
    return value / 2.54


def _d6(faces: list[int] | tuple[int, ...]) -> SuppliedDice:
    return SuppliedDice(faces={"d6": list(faces)})


class AfvGame(Table):
    state: TableState

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("dice", DiceState(source="table", seed="afv-tests"))
        # A big table (about 10 m square) so long-range shots fit; tests of the edge pass one.
        kwargs.setdefault("area", TableArea(x_min=-200, x_max=200, z_min=-200, z_max=200))
        super().__init__("afv", new_table(**kwargs))

    def do(self, action: Action, d6: list[int] | tuple[int, ...] = ()) -> Result:
        return self.apply(action, _d6(d6))

    def refused(
        self, action: Action, code: str, clause: str | None = None, d6: tuple[int, ...] = ()
    ) -> RulesError:
        """The rules refuse ``action`` with ``code`` (and ``clause``, when given); the state
        is exactly as it was."""
        return self.expect_refusal(action, code, clause, _d6(d6), check_clause=clause is not None)

    def put(
        self, unit_id: str, card: str, player: str, x: float, z: float, facing: float = 0.0
    ) -> UnitState:
        self.do(PlaceTank(tank_id=unit_id, card=card, player=player, x=x, z=z, facing=facing))
        return self.unit(unit_id)

    def terrain(self, piece_id: str, kind: str, x: float, z: float, radius: float) -> None:
        piece = TerrainPiece.model_validate(
            {"id": piece_id, "kind": kind, "shape": Circle(x=x, z=z, radius=radius)}
        )
        self.do(PlaceTerrain(piece=piece))

    def start(self) -> None:
        self.do(StartGame())

    def end_phase(self) -> Result:
        return self.do(EndPhase())

    def move(self, unit_id: str, x: float, z: float, facing: float = 0.0, **kw: Any) -> Result:
        return self.do(Move(tank_id=unit_id, x=x, z=z, facing=facing, **kw))

    def fire(
        self, unit_id: str, target_id: str, d6: list[int] | tuple[int, ...], weapon: int = 0
    ) -> Result:
        return self.do(Fire(tank_id=unit_id, target_id=target_id, weapon=weapon), d6)

    def unit(self, unit_id: str) -> UnitState:
        return self.state.units[unit_id]


def hit_mods(result: Result) -> list[tuple[str, int]]:
    return [(m.label, m.amount) for m in result.modifiers if m.applies_to == "hit_roll"]
