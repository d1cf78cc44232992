"""The state of a tank yard table: plain data that round-trips through JSON.

Each party's yard is a layout of TTS positions: its three tank spaces (Shield, Attack,
Anti-tank) and the artillery spaces of its homefield. A model dropped within ``snap_radius``
of a space stands on it. Turns alternate between the two parties and are counted one per
party turn (turn 1 is the first party's, turn 2 the second's ...), which is what Shutdown's
"until the end of its owning player's next turn" is measured in (YRD-SD1).
"""

from __future__ import annotations

from itertools import combinations
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from tankref.core.dice import DiceState, DieSpec
from tankref.core.flow import GameStatus
from tankref.core.geometry import TableArea, distance
from tankref.rulesets.yrd.cards import PieceCard, TankCard

STATE_VERSION = 1

SpaceName = Literal["shield", "attack", "anti_tank"]
TANK_SPACES: tuple[SpaceName, ...] = ("shield", "attack", "anti_tank")
SPACE_LABEL: dict[str, str] = {"shield": "Shield", "attack": "Attack", "anti_tank": "Anti-tank"}

Coord = Annotated[float, Field(ge=-10_000, le=10_000, allow_inf_nan=False)]


class Spot(BaseModel):
    """A space's centre on the table, in TTS inches."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    x: Coord
    z: Coord


class Yard(BaseModel):
    """One party's spaces: its three tank spaces and its homefield's artillery spaces."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    shield: Spot
    attack: Spot
    anti_tank: Spot
    artillery: tuple[Spot, ...] = Field(min_length=1, max_length=12)

    def tank_spot(self, space: SpaceName) -> Spot:
        spot: Spot = getattr(self, space)
        return spot


def default_yard(index: int) -> Yard:
    """The first party's yard along the south of the table, the second's mirrored north;
    each homefield's artillery spaces between its yard and the middle."""
    sign = -1.0 if index == 0 else 1.0
    row, art = 18.0 * sign, 8.0 * sign
    return Yard(
        shield=Spot(x=-8.0, z=row),
        attack=Spot(x=0.0, z=row),
        anti_tank=Spot(x=8.0, z=row),
        artillery=(Spot(x=-12.0, z=art), Spot(x=0.0, z=art), Spot(x=12.0, z=art)),
    )


class Party(BaseModel):
    """A player: id, the party's defence value (added in YRD-AT1 contests), and its yard
    (None in a setup request: the default layout for its seat)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(min_length=1, max_length=32)
    defence: int = Field(default=0, ge=-20, le=100, description="The party's defence value.")
    yard: Yard | None = None


class Options(BaseModel):
    """Per-table rulings where chapter 12 is silent (other-rulesets-clauses.md)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    contest_die: str = Field(
        default="d20",
        min_length=1,
        max_length=16,
        description="YRD-AT1/YRD-AN1: the die each side rolls in a contest (d20, d12, d10, d6).",
    )
    tie: Literal["defender", "offender", "reroll"] = Field(
        default="defender", description="YRD-AT1/YRD-AN1: who wins a tied contest."
    )
    criticals: Literal["natural", "off"] = Field(
        default="natural",
        description="YRD-AT1/YRD-AN1: natural = the offender's highest face is a critical "
        "success, a 1 a critical failure (offender only); off = no criticals.",
    )
    grazing_margin: int = Field(
        default=2,
        ge=0,
        le=20,
        description="YRD-AT1: an offender winning by this much or less scores a grazing hit "
        "(half damage); 0 = no grazing hits.",
    )
    grazing_rounding: Literal["down", "up"] = Field(
        default="down", description="YRD-AT1: half of an odd damage total rounds down or up."
    )
    advantage: Literal["roll_twice", "bonus", "off"] = Field(
        default="roll_twice",
        description="YRD-AN1: against a tank on its Attack space the offender rolls twice "
        "and keeps the higher (roll_twice), adds advantage_bonus (bonus), or nothing (off).",
    )
    advantage_bonus: int = Field(default=5, ge=1, le=20, description="advantage = bonus: +N.")
    shield: Literal["refuse", "auto_fail"] = Field(
        default="refuse",
        description="YRD-SH1: an Anti-tank attack on a tank on its Shield space is refused "
        "(it may not be targeted) or logged as an automatic failure that spends the attack.",
    )
    # Table settings rather than rulings.
    snap_radius: float = Field(
        default=3.0,
        gt=0,
        le=24,
        allow_inf_nan=False,
        description="Inches: a model this close to a space's centre stands on it.",
    )
    turn_limit: int = Field(
        default=10,
        ge=1,
        le=500,
        description="Rounds (one turn each) before the match ends; the players may end it sooner.",
    )


class TankState(BaseModel):
    """A party's one tank (YRD-SP1). ``card`` is a snapshot taken when it was placed."""

    model_config = ConfigDict(extra="forbid")

    id: str
    name: str
    player: str
    card: TankCard
    space: SpaceName
    x: float
    z: float
    facing: float = 0.0
    hp: int
    heavily_damaged: bool = False  # YRD-HP1: for the rest of the match
    shutdown_until: int | None = None  # YRD-SD1: lifts at the end of this turn number
    moved: bool = False  # this turn's movement phase is used (YRD-SP1)
    attacked: bool = False  # this turn's attack is made (YRD-AT1, YRD-AN1)
    damage_taken: int = 0

    @property
    def shutdown(self) -> bool:
        return self.shutdown_until is not None


class PieceState(BaseModel):
    """A party's piece: a target for the other party's tank when on its artillery spaces."""

    model_config = ConfigDict(extra="forbid")

    id: str
    name: str
    player: str
    card: PieceCard
    x: float
    z: float
    facing: float = 0.0
    homefield: str | None = None  # whose homefield's artillery space it stands on
    artillery: int | None = None  # which one, 1-based
    hp: int | None = None  # None: the players keep its HP; the referee counts damage only
    damage_taken: int = 0

    @property
    def down(self) -> bool:
        return self.hp is not None and self.hp <= 0


class TableState(BaseModel):
    model_config = ConfigDict(extra="forbid")

    ruleset: Literal["yrd"] = "yrd"
    version: int = STATE_VERSION
    area: TableArea = TableArea()
    options: Options = Options()
    players: tuple[Party, Party]
    order: tuple[str, str]  # turn order: the first party, the second
    dice_specs: dict[str, DieSpec]
    status: GameStatus = "setup"
    turn: int = 0  # party turns played so far, this one included (0 in setup)
    tanks: dict[str, TankState] = Field(default_factory=dict)
    pieces: dict[str, PieceState] = Field(default_factory=dict)
    dice: DiceState = Field(default_factory=DiceState)
    winner: str | None = None
    game_over_reason: str | None = None

    @model_validator(mode="after")
    def _yards_set(self) -> TableState:
        if any(p.yard is None for p in self.players):
            raise ValueError("every party needs its yard layout")
        return self

    @property
    def active_player(self) -> str:
        return self.order[(self.turn - 1) % 2] if self.turn > 0 else self.order[0]

    @property
    def round(self) -> int:
        return (self.turn + 1) // 2

    def party(self, player_id: str) -> Party:
        for p in self.players:
            if p.id == player_id:
                return p
        raise KeyError(player_id)

    def yard(self, player_id: str) -> Yard:
        yard = self.party(player_id).yard
        assert yard is not None  # checked when the state is built
        return yard

    def enemy_of(self, player_id: str) -> str:
        return self.order[1] if self.order[0] == player_id else self.order[0]

    def tank_of(self, player_id: str) -> TankState | None:
        for tank in self.tanks.values():
            if tank.player == player_id:
                return tank
        return None

    def clone(self) -> TableState:
        """A copy to work on: new unit maps sharing their units (the adjudication copies a
        unit before it writes to it), and its own dice."""
        copy = self.model_copy()
        copy.tanks = dict(self.tanks)
        copy.pieces = dict(self.pieces)
        copy.dice = self.dice.model_copy()
        return copy

    def to_json(self) -> str:
        return self.model_dump_json()

    @classmethod
    def from_json(cls, text: str | bytes) -> TableState:
        return cls.model_validate_json(text)


# --- the layout: TTS positions to spaces -------------------------------------------------------


def space_spots(players: tuple[Party, Party]) -> list[tuple[str, Spot]]:
    """Every space on the table with a label, in a fixed order."""
    out: list[tuple[str, Spot]] = []
    for party in players:
        yard = party.yard or default_yard(players.index(party))
        for space in TANK_SPACES:
            out.append((f"{party.id} {SPACE_LABEL[space]} space", yard.tank_spot(space)))
        for n, spot in enumerate(yard.artillery, start=1):
            out.append((f"{party.id} artillery space {n}", spot))
    return out


def layout_problems(players: tuple[Party, Party], radius: float, area: TableArea) -> list[str]:
    """Everything wrong with a layout, at once: spaces whose snap circles overlap (a drop
    would be ambiguous) and spaces off the table."""
    problems: list[str] = []
    spots = space_spots(players)
    for (a, pa), (b, pb) in combinations(spots, 2):
        gap = distance((pa.x, pa.z), (pb.x, pb.z))
        if gap <= 2 * radius:
            problems.append(
                f'{a} and {b} are {gap:g}" apart: more than twice snap_radius ({radius:g}") '
                "is needed"
            )
    for label, p in spots:
        if not (area.x_min <= p.x <= area.x_max and area.z_min <= p.z <= area.z_max):
            problems.append(f"{label} at ({p.x:g}, {p.z:g}) is off the table")
    return problems


def tank_space_at(state: TableState, player: str, x: float, z: float) -> SpaceName | None:
    """The tank space of ``player``'s yard a model at (x, z) stands on, if any."""
    yard = state.yard(player)
    radius = state.options.snap_radius
    for space in TANK_SPACES:
        spot = yard.tank_spot(space)
        if distance((spot.x, spot.z), (x, z)) <= radius:
            return space
    return None


def artillery_at(state: TableState, x: float, z: float) -> tuple[str, int] | None:
    """(homefield owner, artillery number) of the artillery space at (x, z), if any."""
    radius = state.options.snap_radius
    for party in state.players:
        for n, spot in enumerate(state.yard(party.id).artillery, start=1):
            if distance((spot.x, spot.z), (x, z)) <= radius:
                return party.id, n
    return None


def space_named_at(state: TableState, x: float, z: float) -> str | None:
    """Any space at (x, z), by its label (for refusals that say where a model landed)."""
    radius = state.options.snap_radius
    for label, spot in space_spots(state.players):
        if distance((spot.x, spot.z), (x, z)) <= radius:
            return label
    return None
