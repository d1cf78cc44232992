"""The state of an AFV table: plain data that round-trips through JSON.

Positions are TTS inches (what the table reports); every rule distance is compared in cm
after converting (``cards.inches_to_cm``). Markers are the rule's own: Ready, Stopped,
Suppressed and the direction marker (a heading, or none).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from tankref.core.dice import DiceState, DieSpec
from tankref.core.flow import GameStatus
from tankref.core.geometry import Edge, Point, Shape, TableArea
from tankref.rulesets.afv.cards import DIE, TerrainKind, UnitCard, Weapon

STATE_VERSION = 1


class AfvOptions(BaseModel):
    """Per-table rulings where the text leaves room, and table settings."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    stopped_or_no_weapon: Literal["stopped", "no_weapon"] = Field(
        default="stopped",
        description="AFV-DMG1, vehicle 12-14 'stopped or no weapon': stopped = the vehicle "
        "never moves again; no_weapon = it loses its most penetrating weapon system left "
        "(stopped once none is left).",
    )
    retreat_tolerance: float = Field(
        default=20.0,
        ge=0,
        le=90,
        allow_inf_nan=False,
        description="AFV-MV1: degrees a Suppressed unit's move may stray from directly away "
        "from the nearest enemy.",
    )
    move_tolerance: float = Field(
        default=0.25,
        ge=0,
        le=2,
        allow_inf_nan=False,
        description="Inches of drift ignored when TTS reports a unit that did not move.",
    )
    turn_limit: int = Field(
        default=10, ge=1, le=200, description="Turns before the game ends in a draw."
    )


class AfvPlayer(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(min_length=1, max_length=32)
    edge: Edge


class TerrainPiece(BaseModel):
    """A terrain piece: ``hill`` blocks sight and direct fire; ``woods`` blocks sight (not
    direct fire) and is cover for infantry; ``cover`` is cover for infantry; ``rough``,
    ``mud`` and ``soft`` slow the units whose cards say so (AFV-MV3)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(min_length=1, max_length=64)
    kind: TerrainKind
    shape: Shape
    name: str = Field(default="", max_length=80)


class UnitState(BaseModel):
    """One unit. ``card`` is a snapshot (a Degraded team's card becomes Degraded infantry)."""

    model_config = ConfigDict(extra="forbid")

    id: str
    name: str
    player: str
    card: UnitCard
    degraded_card: UnitCard | None = None  # what a Degraded team becomes (AFV-DMG2)
    x: float
    z: float
    facing: float
    destroyed: bool = False
    destroyed_by: str | None = None
    carried_by: str | None = None  # a carrier's id while it carries this team (AFV-SPC1)
    # --- markers (AFV-MV1, AFV-MV2, AFV-DMG2) ---
    ready: bool = False
    stopped: bool = False
    suppressed: bool = False
    direction: float | None = None  # heading of the direction marker
    # --- lasting damage (AFV-DMG1, vehicle column) ---
    degraded: bool = False
    immobilised: bool = False
    weapons_lost: tuple[int, ...] = ()
    superficial: int = 0
    components_lost: int = 0
    # --- this unit's phase: reset when its owner's phase starts ---
    start_x: float = 0.0
    start_z: float = 0.0
    began_stopped: bool = False  # had a Stopped marker: no move this phase (AFV-MV1)
    began_with_stop: bool = False  # had a Ready or Stopped marker (AFV-SPC1, ATGM)
    began_suppressed: bool = False
    moved_cm: float = 0.0
    evasive: bool = False
    retreated: bool = False
    got_out: bool = False  # got out of its carrier this phase: measured from it (AFV-SPC1)
    fired: tuple[int, ...] = ()  # weapon systems fired this phase (AFV-FR1)
    revealed: bool = False  # fired while suppressed: seen by all until its next phase

    @property
    def pos(self) -> Point:
        return (self.x, self.z)

    @property
    def in_play(self) -> bool:
        return not self.destroyed

    @property
    def on_board(self) -> bool:
        return not self.destroyed and self.carried_by is None

    @property
    def infantry(self) -> bool:
        return self.card.infantry

    def weapons(self) -> list[tuple[int, Weapon]]:
        """Weapon systems still working, with their index on the card."""
        return [(i, w) for i, w in enumerate(self.card.weapon) if i not in self.weapons_lost]


class Spotting(BaseModel):
    """This phase's spotting of enemy infantry (AFV-SP1): who tried, who succeeded."""

    model_config = ConfigDict(extra="forbid")

    spotter: str
    target: str
    spotted: bool


class TableState(BaseModel):
    model_config = ConfigDict(extra="forbid")

    ruleset: Literal["afv"] = "afv"
    version: int = STATE_VERSION
    area: TableArea = TableArea()
    options: AfvOptions = AfvOptions()
    players: tuple[AfvPlayer, AfvPlayer]
    dice_specs: dict[str, DieSpec]
    status: GameStatus = "setup"
    turn: int = 0
    phase: int = 0  # index into ``players``: whole sides alternate (AFV-SEQ1)
    units: dict[str, UnitState] = Field(default_factory=dict)
    terrain: dict[str, TerrainPiece] = Field(default_factory=dict)
    spotting: tuple[Spotting, ...] = ()
    dice: DiceState = Field(default_factory=DiceState)
    winner: str | None = None
    game_over_reason: str | None = None

    @model_validator(mode="after")
    def _has_d6(self) -> TableState:
        if DIE not in self.dice_specs:
            raise ValueError(f"dice_specs: no {DIE!r}")
        return self

    @property
    def active_player(self) -> str:
        return self.players[self.phase].id

    def enemy_of(self, player_id: str) -> str:
        a, b = self.players
        return b.id if a.id == player_id else a.id

    def clone(self) -> TableState:
        """A copy to work on; units are shared until a handler takes a private copy of one."""
        copy = self.model_copy()
        copy.units = dict(self.units)
        copy.terrain = dict(self.terrain)
        copy.dice = self.dice.model_copy()
        return copy

    def to_json(self) -> str:
        return self.model_dump_json()

    @classmethod
    def from_json(cls, text: str | bytes) -> TableState:
        return cls.model_validate_json(text)
