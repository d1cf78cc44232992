"""The table as drawing primitives: what the live page and the TTS scripts draw.

A ruleset turns its state into these shapes (terrain footprints, smoke and objective rings,
the last line of fire), so a front end draws any rule system without knowing its rules.
Units are inches (TTS world units); +z is north; facing 0 faces +z, 90 faces +x.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from tankref.core.geometry import Edge, Shape, TableArea
from tankref.core.hexgrid import HexGrid


class PlayerSide(BaseModel):
    id: str
    edge: Edge | None = None  # the table edge the player deploys from, where it has one


class TerrainView(BaseModel):
    id: str
    kind: str  # the ruleset's word: forest, building, cover+1, hill ...
    label: str
    shape: Shape


class Ring(BaseModel):
    """A circle drawn on the table: a smoke screen's reach or the objective's radius."""

    id: str
    kind: str  # smoke | objective (a ruleset may add its own)
    x: float
    z: float
    radius: float
    level: int = Field(ge=0, description="Smoke: its current strength; 0 for markers.")
    owner: str | None = None
    label: str


class LineOfFire(BaseModel):
    """The most recent shot, from shooter to target, with what came of it."""

    shooter_id: str
    target_id: str
    x1: float
    z1: float
    x2: float
    z2: float
    label: str
    seq: int | None = None  # the log entry that fired it (set by the server)


class SceneParts(BaseModel):
    """What a ruleset adds to the tanks and the summary the server already has."""

    area: TableArea | None  # None where a ruleset has no fixed playing area
    players: list[PlayerSide]
    terrain: list[TerrainView]
    rings: list[Ring]
    # Where a ruleset plays on hexes: the grid, so a front end can draw every hex of the map
    # lightly (terrain lists only the hexes that are not clear).
    grid: HexGrid | None = None
