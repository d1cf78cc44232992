"""Typed AFV actions: what a player (or TTS on their behalf) asks the referee.

Units are tank models on the TTS table, so the fields shared with every ruleset keep the
server's words (``tank_id``, ``target_id``, ``place_tank``, ``remove_tank``); positions are
TTS inches.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from tankref.rulesets.afv.state import TerrainPiece

UnitId = Annotated[str, Field(min_length=1, max_length=64)]
Coord = Annotated[float, Field(ge=-10_000, le=10_000, allow_inf_nan=False)]
Facing = Annotated[float, Field(ge=-3600, le=3600, allow_inf_nan=False)]


class _Action(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class PlaceTank(_Action):
    """Setup: put a unit on the table (a card from the roster, AFV-UNITS)."""

    kind: Literal["place_tank"] = "place_tank"
    tank_id: UnitId
    card: str = Field(min_length=1, max_length=64)
    player: str = Field(min_length=1, max_length=32)
    x: Coord = 0.0
    z: Coord = 0.0
    facing: Facing = 0.0
    name: str | None = Field(default=None, max_length=80)


class RemoveTank(_Action):
    """Setup: a unit's model was taken off the table."""

    kind: Literal["remove_tank"] = "remove_tank"
    tank_id: UnitId


class PlaceTerrain(_Action):
    kind: Literal["place_terrain"] = "place_terrain"
    piece: TerrainPiece


class StartGame(_Action):
    kind: Literal["start_game"] = "start_game"


class Move(_Action):
    """A unit's new position and facing as TTS reports it (inches); the referee measures it
    in cm from where the unit began its phase (AFV-MV1, AFV-MV2)."""

    kind: Literal["move"] = "move"
    tank_id: UnitId
    x: Coord
    z: Coord
    facing: Facing
    evasive: bool | None = Field(default=None, description="True: an evasive move (AFV-MV2).")


class Evade(_Action):
    """Declare this phase's move evasive before making it: half rate, the direction marker
    across the path (AFV-MV2). For tables that report moves by dragging models."""

    kind: Literal["evade"] = "evade"
    tank_id: UnitId


class Spot(_Action):
    """Look for an enemy infantry team in line of sight: a d6, spotted on 1-3 (AFV-SP1)."""

    kind: Literal["spot"] = "spot"
    tank_id: UnitId
    target_id: UnitId


class Fire(_Action):
    """One weapon system at one target (AFV-FR1); ``weapon`` is its index on the card."""

    kind: Literal["fire"] = "fire"
    tank_id: UnitId
    target_id: UnitId
    weapon: int = Field(default=0, ge=0, le=5)


class Embark(_Action):
    """An infantry team boards a friendly carrier within its move (AFV-SPC1)."""

    kind: Literal["embark"] = "embark"
    tank_id: UnitId
    carrier_id: UnitId


class Disembark(_Action):
    """A carried team gets out at (x, z), within its move of the carrier (AFV-SPC1)."""

    kind: Literal["disembark"] = "disembark"
    tank_id: UnitId
    x: Coord
    z: Coord


class EndPhase(_Action):
    kind: Literal["end_phase"] = "end_phase"
    player: str | None = None


Action = Annotated[
    PlaceTank
    | RemoveTank
    | PlaceTerrain
    | StartGame
    | Move
    | Evade
    | Spot
    | Fire
    | Embark
    | Disembark
    | EndPhase,
    Field(discriminator="kind"),
]
ACTION_ADAPTER: TypeAdapter[Action] = TypeAdapter(Action)
