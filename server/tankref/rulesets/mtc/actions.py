"""Typed Minimal Tank Combat actions: what a player (or TTS on their behalf) asks the referee."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, model_validator

from tankref.core.geometry import Shape
from tankref.rulesets.mtc.state import TerrainKind

TankId = Annotated[str, Field(min_length=1, max_length=64)]
Coord = Annotated[float, Field(ge=-10_000, le=10_000, allow_inf_nan=False)]
Facing = Annotated[float, Field(ge=-3600, le=3600, allow_inf_nan=False)]
AxialCoord = Annotated[int, Field(ge=-1000, le=1000)]
HexRef = tuple[AxialCoord, AxialCoord]


class _Action(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class PlaceTank(_Action):
    """Setup: put a tank of a design on the table; it stands in the hex under (x, z)."""

    kind: Literal["place_tank"] = "place_tank"
    tank_id: TankId
    design: str = Field(min_length=1, max_length=64, description="A design id.")
    player: str = Field(min_length=1, max_length=32)
    x: Coord
    z: Coord
    facing: Facing = 0.0
    name: str | None = Field(default=None, max_length=80)
    reserve: bool = False  # TTS's "off the table": Minimal Tank Combat has no reserve


class RemoveTank(_Action):
    kind: Literal["remove_tank"] = "remove_tank"
    tank_id: TankId


class PlaceTerrain(_Action):
    """Setup: a terrain piece by its TTS GUID, covering the hexes listed, or the hexes whose
    centres lie in its footprint (at least the hex under the footprint's centre)."""

    kind: Literal["place_terrain"] = "place_terrain"
    piece_id: TankId
    terrain: TerrainKind
    hexes: tuple[HexRef, ...] | None = Field(default=None, max_length=2000)
    shape: Shape | None = None
    name: str = Field(default="", max_length=80)

    @model_validator(mode="after")
    def _one_footprint(self) -> PlaceTerrain:
        if (self.hexes is None) == (self.shape is None):
            raise ValueError("give either hexes or shape")
        return self


class SetObjective(_Action):
    """Kept so the generic objective request gets a clear refusal: the players agree their
    own victory conditions (rules 5.0); there is no objective marker."""

    kind: Literal["set_objective"] = "set_objective"
    x: Coord
    z: Coord


class StartGame(_Action):
    """End of setup: the first initiative roll (MTC-INI1)."""

    kind: Literal["start_game"] = "start_game"


class Move(_Action):
    """A tank's move in its movement phase: where the model was dropped (x, z) or a hex,
    and optionally the hexes it went through (entered in order, the last the destination).
    Without a path the referee takes the cheapest legal one from where the tank began the
    phase (MTC-MV1, MTC-MV2)."""

    kind: Literal["move"] = "move"
    tank_id: TankId
    x: Coord | None = None
    z: Coord | None = None
    hex: HexRef | None = None
    path: tuple[HexRef, ...] | None = Field(default=None, min_length=1, max_length=64)
    facing: Facing | None = None

    @model_validator(mode="after")
    def _one_destination(self) -> Move:
        dropped = self.x is not None and self.z is not None
        if (self.x is None) != (self.z is None):
            raise ValueError("give both x and z")
        given = int(dropped) + int(self.hex is not None)
        if given > 1:
            raise ValueError("give the drop point (x, z) or a hex, not both")
        if given == 0 and self.path is None:
            raise ValueError("give the drop point (x, z), a hex, or a path")
        return self


class Fire(_Action):
    """One or more tanks of the phasing player fire together at one enemy tank (MTC-CB1)."""

    kind: Literal["fire"] = "fire"
    tank_ids: tuple[TankId, ...] = Field(min_length=1, max_length=24)
    target_id: TankId


class EndPhase(_Action):
    kind: Literal["end_phase"] = "end_phase"
    player: str | None = None


Action = Annotated[
    PlaceTank | RemoveTank | PlaceTerrain | SetObjective | StartGame | Move | Fire | EndPhase,
    Field(discriminator="kind"),
]
ACTION_ADAPTER: TypeAdapter[Action] = TypeAdapter(Action)
