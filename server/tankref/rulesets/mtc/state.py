"""The state of a Minimal Tank Combat table: plain data that round-trips through JSON.

The map is the table's hex grid (``core.hexgrid``) over a rectangle of the TTS table: a hex
is on the map when its centre is. Terrain is per hex (clear unless set), from the setup's
list and the terrain pieces put on the table; a tank stands in one hex.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from tankref.core.dice import DiceState, DieSpec
from tankref.core.geometry import TableArea
from tankref.core.hexgrid import Hex, HexGrid
from tankref.rulesets.mtc.cards import MAX_BP, Design

STATE_VERSION = 1

TerrainKind = Literal["clear", "rubble", "crater", "road", "town"]
TERRAIN_KINDS: tuple[TerrainKind, ...] = ("clear", "rubble", "crater", "road", "town")
Step = Literal["movement", "combat"]
# The four phases of a turn after the initiative roll (MTC-INI1): index // 2 is the player
# (0 = player 1 of this turn), index % 2 the step.
PHASES: tuple[Step, ...] = ("movement", "combat", "movement", "combat")

HexCoord = int  # axial coordinate; bounded where it comes from the wire
Axial = tuple[int, int]


def hex_key(h: Axial) -> str:
    return f"{h[0]},{h[1]}"


class Options(BaseModel):
    """Per-table settings (the rule text leaves the map and victory to the players)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_bp: int = Field(
        default=MAX_BP,
        ge=4,
        le=MAX_BP,  # "Tanks can go up in size to 15 BPs": a table may agree on less only
        description="MTC-BP1: the most build points a design may cost, shipped designs "
        "included (the text: up to 15; a table may agree on less).",
    )
    turn_limit: int = Field(
        default=12, ge=1, le=200, description="Turns before the game ends in a draw."
    )


class HexTerrain(BaseModel):
    """One hex's terrain, as the setup lists it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    q: int = Field(ge=-1000, le=1000)
    r: int = Field(ge=-1000, le=1000)
    kind: TerrainKind


class TerrainPiece(BaseModel):
    """A terrain model on the table (by its TTS GUID) and the hexes it covers."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    kind: TerrainKind
    hexes: tuple[Axial, ...]
    name: str = ""


class TankState(BaseModel):
    """One tank. ``design`` is a snapshot: a later card edit never changes a game."""

    model_config = ConfigDict(extra="forbid")

    id: str
    name: str
    player: str
    design: Design
    q: int
    r: int
    facing: float = 0.0  # drawn only: Minimal Tank Combat has no facing rules
    destroyed: bool = False
    destroyed_by: tuple[str, ...] = ()
    # --- this turn: reset after the initiative roll ---
    start_q: int = 0
    start_r: int = 0
    moved: bool = False
    mp_spent: int = 0
    road_bonus_used: bool = False
    fired: bool = False

    @property
    def hex(self) -> Hex:
        return Hex(self.q, self.r)

    @property
    def start_hex(self) -> Hex:
        return Hex(self.start_q, self.start_r)

    @property
    def in_play(self) -> bool:
        return not self.destroyed


class TableState(BaseModel):
    model_config = ConfigDict(extra="forbid")

    ruleset: Literal["mtc"] = "mtc"
    version: int = STATE_VERSION
    players: tuple[str, str]
    grid: HexGrid = HexGrid()
    area: TableArea = TableArea()
    options: Options = Options()
    designs: dict[str, Design] = Field(default_factory=dict)
    die: DieSpec
    setup_terrain: tuple[HexTerrain, ...] = ()
    pieces: dict[str, TerrainPiece] = Field(default_factory=dict)
    terrain: dict[str, TerrainKind] = Field(default_factory=dict)  # "q,r" -> kind, not clear
    status: Literal["setup", "playing", "over"] = "setup"
    turn: int = 0
    order: tuple[str, str] | None = None  # this turn's player 1 and player 2 (MTC-INI1)
    phase: int = 0  # index into PHASES
    tanks: dict[str, TankState] = Field(default_factory=dict)
    dice: DiceState = Field(default_factory=DiceState)
    winner: str | None = None
    game_over_reason: str | None = None

    @model_validator(mode="after")
    def _two_players(self) -> TableState:
        if self.players[0] == self.players[1]:
            raise ValueError("the two players need different ids")
        return self

    # --- reading ---------------------------------------------------------------------------
    @property
    def active_player(self) -> str | None:
        if self.status != "playing" or self.order is None:
            return None
        return self.order[self.phase // 2]

    @property
    def step(self) -> Step:
        return PHASES[self.phase]

    def terrain_at(self, h: Axial) -> TerrainKind:
        return self.terrain.get(hex_key(h), "clear")

    def on_map(self, h: Axial) -> bool:
        return self.area.contains(self.grid.center(Hex(h[0], h[1])))

    def tank_at(self, h: Axial) -> TankState | None:
        for tank in self.tanks.values():
            if tank.in_play and tank.q == h[0] and tank.r == h[1]:
                return tank
        return None

    def occupied(self) -> dict[Axial, TankState]:
        return {(t.q, t.r): t for t in self.tanks.values() if t.in_play}

    def enemy_of(self, player: str) -> str:
        return self.players[1] if player == self.players[0] else self.players[0]

    # --- copying ---------------------------------------------------------------------------
    def clone(self) -> TableState:
        """A copy to work on. Tanks are shared until a handler takes a private copy of one."""
        copy = self.model_copy()
        copy.tanks = dict(self.tanks)
        copy.terrain = dict(self.terrain)
        copy.pieces = dict(self.pieces)
        copy.dice = self.dice.model_copy()
        return copy

    def to_json(self) -> str:
        return self.model_dump_json()

    @classmethod
    def from_json(cls, text: str | bytes) -> TableState:
        return cls.model_validate_json(text)


def terrain_map(
    setup: tuple[HexTerrain, ...], pieces: dict[str, TerrainPiece]
) -> dict[str, TerrainKind]:
    """Each hex's terrain: the setup list, then the pieces in the order they were put (a later
    one wins where they overlap). Clear hexes are left out."""
    out: dict[str, TerrainKind] = {}
    for cell in setup:
        out[hex_key((cell.q, cell.r))] = cell.kind
    for piece in pieces.values():
        for h in piece.hexes:
            out[hex_key(h)] = piece.kind
    return {k: v for k, v in out.items() if v != "clear"}
