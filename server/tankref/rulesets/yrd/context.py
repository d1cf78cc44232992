"""One tank yard adjudication on the core kit, and the look-ups every action shares.

The yard keeps two kinds of model: tanks (``state.tanks``) and the pieces of the wider game
(``state.pieces``). Both are listed in a result's changes, in the order the action touched
them, with the markers and tooltip the table draws.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from tankref.core.adjudication import Context, refuse
from tankref.core.dice import SuppliedDice
from tankref.core.errors import not_found
from tankref.core.flow import require_playing, require_turn_of
from tankref.rulesets.yrd.actions import Action
from tankref.rulesets.yrd.cards import CardSet
from tankref.rulesets.yrd.presentation import (
    piece_label,
    piece_markers,
    piece_tooltip,
    tank_label,
    tank_markers,
    tank_tooltip,
)
from tankref.rulesets.yrd.state import PieceState, TableState, TankState

Unit = TankState | PieceState

TANK_FIELDS: tuple[str, ...] = (
    "space", "x", "z", "facing", "hp", "heavily_damaged", "shutdown_until", "moved",
    "attacked", "damage_taken",
)  # fmt: skip
PIECE_FIELDS: tuple[str, ...] = (
    "x", "z", "facing", "homefield", "artillery", "hp", "damage_taken",
)  # fmt: skip


class YardContext(Context[TableState, Unit]):
    """The working copy of a yard table, its dice, the cards models are placed from."""

    unit_maps: ClassVar[tuple[str, ...]] = ("tanks", "pieces")
    sorted_changes: ClassVar[bool] = False

    def __init__(
        self, before: TableState, action: Action, supplied: SuppliedDice | None, cards: CardSet
    ) -> None:
        super().__init__(before, action.model_dump(), before.dice_specs, supplied)
        self.cards = cards

    def tank(self, tank_id: str) -> TankState:
        """The tank, ready to be written to."""
        unit = self.edit(tank_id)
        assert isinstance(unit, TankState)
        return unit

    def piece(self, piece_id: str) -> PieceState:
        """The piece, ready to be written to."""
        unit = self.edit(piece_id)
        assert isinstance(unit, PieceState)
        return unit

    def tracked_for(self, unit: Unit) -> Sequence[str]:
        return TANK_FIELDS if isinstance(unit, TankState) else PIECE_FIELDS

    def label(self, unit: Unit) -> str:
        return tank_label(unit) if isinstance(unit, TankState) else piece_label(unit)

    def view(self, unit: Unit, last_line: str | None) -> tuple[list[str], str]:
        if isinstance(unit, TankState):
            return tank_markers(unit), tank_tooltip(unit, last_line)
        return piece_markers(unit), piece_tooltip(unit, last_line)


# --- checks shared by adjudication and options_for -------------------------------------------


def get_tank(state: TableState, unit_id: str, role: str = "tank_id") -> TankState:
    """The tank ``unit_id``; a piece is refused: only tanks act on tanks (YRD-EN1)."""
    tank = state.tanks.get(unit_id)
    if tank is not None:
        return tank
    piece = state.pieces.get(unit_id)
    if piece is not None:
        refuse(
            "NOT_A_TANK",
            "YRD-EN1",
            f"{role}: {piece_label(piece)} is a piece, not a tank: tanks are affected only by "
            "other tanks, and the tank rules give pieces no actions",
            field=role,
        )
    not_found("UNKNOWN_TANK", None, f"{role}: no tank {unit_id!r}", field=role)


def check_may_act(state: TableState, tank: TankState) -> None:
    """The match under way, its owner's turn (YRD-SP1), and not Shut Down (YRD-SD1)."""
    require_playing(state, None)
    require_turn_of(state, tank.player, "YRD-SP1", what="turn")
    if tank.shutdown:
        refuse(
            "SHUTDOWN",
            "YRD-SD1",
            f"{tank_label(tank)} is Shut Down until the end of turn {tank.shutdown_until}: "
            "it cannot move or attack",
        )


def check_not_attacked(tank: TankState) -> None:
    """YRD-SP1: one attack a turn, from whichever space the tank is on."""
    if tank.attacked:
        refuse("ALREADY_ATTACKED", "YRD-SP1", f"{tank_label(tank)} has made its attack this turn")
