"""Typed tank yard actions: what a player (or TTS on their behalf) asks the referee.

Models are placed and moved by their TTS position (the referee finds the space they stand
on); an API client may name the tank space instead.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, model_validator

from tankref.rulesets.yrd.state import SpaceName

UnitId = Annotated[str, Field(min_length=1, max_length=64)]
Coord = Annotated[float, Field(ge=-10_000, le=10_000, allow_inf_nan=False)]
Facing = Annotated[float, Field(ge=-3600, le=3600, allow_inf_nan=False)]


class _Action(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class PlaceTank(_Action):
    """Setup: a party's tank put on one of its yard's tank spaces (YRD-SP1)."""

    kind: Literal["place_tank"] = "place_tank"
    tank_id: UnitId
    card: str = Field(min_length=1, max_length=64)
    player: str = Field(min_length=1, max_length=32)
    x: Coord
    z: Coord
    facing: Facing = 0.0
    name: str | None = Field(default=None, max_length=80)


class PlacePiece(_Action):
    """A piece put down or moved (any time: pieces move by the wider game's rules); it
    stands on the artillery space under it, if any."""

    kind: Literal["place_piece"] = "place_piece"
    piece_id: UnitId
    card: str = Field(min_length=1, max_length=64)
    player: str = Field(min_length=1, max_length=32)
    x: Coord
    z: Coord
    facing: Facing = 0.0
    name: str | None = Field(default=None, max_length=80)


class RemoveTank(_Action):
    """A model taken off the table: a tank during setup, a piece at any time."""

    kind: Literal["remove_tank"] = "remove_tank"
    tank_id: UnitId


class StartGame(_Action):
    kind: Literal["start_game"] = "start_game"


class Move(_Action):
    """YRD-SP1: the tank's movement phase: to another tank space of its yard, given by
    ``space`` or by the model's position (``x``, ``z``)."""

    kind: Literal["move"] = "move"
    tank_id: UnitId
    space: SpaceName | None = None
    x: Coord | None = None
    z: Coord | None = None
    facing: Facing | None = None

    @model_validator(mode="after")
    def _space_or_position(self) -> Move:
        if (self.space is None) == (self.x is None or self.z is None):
            raise ValueError("give either space or both x and z")
        return self


class Attack(_Action):
    """YRD-AT1: the tank on its Attack space attacks an enemy piece on one of its
    artillery spaces."""

    kind: Literal["attack"] = "attack"
    tank_id: UnitId
    target_id: UnitId


class AntiTank(_Action):
    """YRD-AN1: the tank on its Anti-tank space attacks an enemy tank."""

    kind: Literal["anti_tank"] = "anti_tank"
    tank_id: UnitId
    target_id: UnitId


class EndTurn(_Action):
    kind: Literal["end_turn"] = "end_turn"
    player: str | None = Field(default=None, max_length=32)


Action = Annotated[
    PlaceTank | PlacePiece | RemoveTank | StartGame | Move | Attack | AntiTank | EndTurn,
    Field(discriminator="kind"),
]
ACTION_ADAPTER: TypeAdapter[Action] = TypeAdapter(Action)
