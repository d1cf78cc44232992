"""The state of a TinyTableTopTanks table: plain data that round-trips through JSON.

Per-tank flags that the rules count "per turn" are kept per tank *cycle*: they reset at the
start of the owner's phase and last through the enemy's phase that follows, which is when a
Waiting tank fires and a target turns its best armour (TTT-T1, TTT-F1, TTT-W1).
"""

from __future__ import annotations

import math
from operator import itemgetter
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from tankref.core.dice import DiceState
from tankref.core.geometry import Edge, Point, Shape, TableArea
from tankref.core.trusted import copied
from tankref.rulesets.ttt.cards import RulesData, TankCard

STATE_VERSION = 1

TerrainKind = Literal["blocking", "forest", "cover1", "cover2", "hill"]
Crew = Literal["unknown", "scared", "grizzled"]
Morale = Literal["ok", "shaken", "routed"]
MoveKind = Literal["none", "normal", "fast"]
Stun = Literal["no", "next", "now"]
ScenarioKind = Literal["meeting", "ambush", "objective"]


def _finite(value: float, limit: float = 10_000.0) -> float:
    if not math.isfinite(value) or abs(value) > limit:
        raise ValueError(f"must be a finite number within ±{limit:g}")
    return value


class Options(BaseModel):
    """Per-table rulings. The five marked *(option)* in the clause list, plus table settings."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    front_arc: float = Field(
        default=45.0,
        gt=0,
        lt=180,
        allow_inf_nan=False,
        description="TTT-E2 (option: arc width): half-width of the front arc, degrees.",
    )
    rear_arc: float = Field(
        default=45.0,
        gt=0,
        lt=180,
        allow_inf_nan=False,
        description="TTT-E2 (option: arc width): half-width of the rear arc, degrees.",
    )
    best_armour: Literal["auto", "ask", "never"] = Field(
        default="auto",
        description="TTT-E3: auto = the referee turns the target's best armour to the shot "
        '(using its facing change); ask = the target\'s owner decides ("can" turn: it may '
        "decline), the Engage answered DECISION_NEEDED until it does; never = no turn.",
    )
    immobilized_turns: bool = Field(
        default=False,
        description="TTT-E3/TTT-F1 (not printed): false = an Immobilized tank cannot turn its "
        "best armour to a shot or turn on the spot (broken tracks); true = it still can.",
    )
    concealment: Literal["accuracy", "cover"] = Field(
        default="accuracy",
        description="TTT-CN1: accuracy = light/heavy concealment takes 1/2 Accuracy dice off "
        "the shooter; cover = it is a Cover-style bonus added to the armour against "
        "penetration instead.",
    )
    cover: Literal["armour", "literal"] = Field(
        default="armour",
        description="TTT-E5: armour = Cover added once, to the armour; literal = also taken "
        "off the red dice.",
    )
    smoke_stacking: Literal["strongest", "add"] = Field(
        default="strongest",
        description="TTT-SM3: strongest = the strongest screen on the line applies; "
        "add = screens add up.",
    )
    grizzled_reroll: Literal["auto", "ask"] = Field(
        default="auto",
        description="TTT-CR1: auto = the referee spends the Grizzled reroll where it can "
        "change the outcome; ask = only where the action declares it.",
    )
    # Table settings rather than rulings.
    move_tolerance: float = Field(
        default=0.25,
        ge=0,
        le=2,
        allow_inf_nan=False,
        description="Inches of drift ignored when TTS reports a tank that did not move.",
    )
    facing_tolerance: float = Field(
        default=2.0,
        ge=0,
        le=20,
        allow_inf_nan=False,
        description="Degrees of drift ignored when TTS reports a tank that did not turn.",
    )
    deploy_depth: float = Field(
        default=6.0,
        gt=0,
        le=48,
        allow_inf_nan=False,
        description="TTT-S1: how far from its own edge a side deploys, inches.",
    )
    turn_limit: int = Field(
        default=10,
        ge=1,
        le=200,
        description="Turns before a Meeting Engagement or Ambush ends in a draw.",
    )

    @model_validator(mode="after")
    def _arcs_fit(self) -> Options:
        if self.front_arc + self.rear_arc > 180:
            raise ValueError("front_arc + rear_arc must not exceed 180 degrees")
        return self


class Player(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(min_length=1, max_length=32)
    edge: Edge


class Scenario(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: ScenarioKind = "meeting"
    # TTT-S1: the players decide who takes the first phase; None = the first player listed.
    first_player: str | None = None
    ambusher: str | None = None  # TTT-S2
    defender: str | None = None  # TTT-S3
    objective_turns: int = Field(default=6, ge=1, le=100)  # TTT-S3: the agreed N
    objective_radius: float = Field(default=12.0, gt=0, le=100, allow_inf_nan=False)


class TerrainPiece(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(min_length=1, max_length=64)
    kind: TerrainKind
    shape: Shape
    name: str = Field(default="", max_length=80)


class SmokeScreen(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: int
    owner: str
    tank_id: str
    ability: str
    x: float
    z: float
    strength: int = Field(ge=0, le=2)


class TankState(BaseModel):
    """One tank. ``card`` is a snapshot: later card edits never change a game in progress."""

    model_config = ConfigDict(extra="forbid")

    id: str
    name: str
    player: str
    card: TankCard
    x: float
    z: float
    facing: float
    hull_down: bool = False
    on_table: bool = True  # False: off the table, waiting to enter (TTT-S2, TTT-S3)
    entered_edge: Edge | None = None  # the edge a Routed tank drives toward (TTT-MR2)
    crew: Crew = "unknown"
    crew_roll: int | None = None
    morale: Morale = "ok"
    destroyed: bool = False
    destroyed_by: str | None = None
    removed: bool = False  # drove off the table while Routed: gone for good (TTT-MR2)
    immobilized: bool = False
    damage: tuple[str, ...] = ()  # damage card names applied, in order (TTT-E7)
    gun_damage: int = 0
    optics_damage: int = 0
    engine_damaged: bool = False
    turret_jammed: bool = False
    stunned: Stun = "no"
    must_recover: bool = False  # TTT-MR4
    # A morale complication (Shaken, Routed, TTT-MR4) arrived since this tank's own phase
    # began: it is "this round", not a prior one, until its next phase begins (TTT-R1,
    # TTT-MR4, TTT-MR6). The one piece of phase-boundary bookkeeping the morale rules read.
    complication_this_turn: bool = False
    smoke_uses: dict[str, int] = Field(default_factory=dict)
    # --- this tank's cycle: reset at the start of its owner's phase ---
    start_x: float = 0.0
    start_z: float = 0.0
    start_facing: float = 0.0
    moved: MoveKind = "none"
    facing_changed: bool = False
    best_armour_turned: bool = False
    engaged: bool = False
    waiting: bool = False
    recover_tried: bool = False
    smoked: bool = False  # laid smoke this turn: once a turn (ruling on TTT-SM1)
    smoke_popped: bool = False  # popped a reusable smoke: no Move or Engage (TTT-SM1)
    reroll_used: bool = False  # the Grizzled reroll (TTT-CR1)
    # Enemy tanks that hit it in game turn ``hit_turn`` (TTT-MO2 trigger 2 counts the printed
    # turn, both phases, not the tank's cycle).
    hit_by: tuple[str, ...] = ()
    hit_turn: int = 0

    @property
    def pos(self) -> Point:
        return (self.x, self.z)

    # ``in_play`` and ``can_move`` read only the fields in ``standing`` (below, a test
    # checks): a field either comes to read must be added there too.
    @property
    def in_play(self) -> bool:
        """Still in the game: on the table or waiting to enter, neither destroyed nor gone."""
        return not self.destroyed and not self.removed

    @property
    def on_board(self) -> bool:
        return self.on_table and not self.destroyed and not self.removed

    @property
    def can_move(self) -> bool:
        # ``in_play`` spelt out: read for each touched tank after every action (TTT-MO2)
        return not self.destroyed and not self.removed and not self.immobilized

    @property
    def movement(self) -> float:
        """Normal Move distance: Engine Damaged halves it (TTT-E7)."""
        return self.card.movement / 2 if self.engine_damaged else self.card.movement

    @property
    def grizzled(self) -> bool:
        return self.crew == "grizzled"

    @property
    def bound_to_recover(self) -> bool:
        """TTT-MR4: Shaken and Immobilized, it "may only try to Recover" -- in its next turn,
        so not yet in the turn the complication arrived."""
        return self.must_recover and not self.complication_this_turn


# The fields a tank's ``in_play`` and ``can_move`` are read from, all at once from its
# instance dict (one C call): the after-action checks compare a touched tank's values with
# its values before the action, and only a tank whose values changed can have left play or
# stopped being able to move (most touched tanks, and a whole side at a phase's end).
standing = itemgetter("destroyed", "removed", "immobilized")


class DeckState(BaseModel):
    """The table's damage deck: drawn without replacement, reshuffled when empty (TTT-E7)."""

    model_config = ConfigDict(extra="forbid")

    draw_pile: tuple[str, ...] = ()  # cards left, drawn at random; empty = shuffle a full deck
    discard: tuple[str, ...] = ()
    shuffles: int = 0


class TableState(BaseModel):
    model_config = ConfigDict(extra="forbid")

    ruleset: Literal["ttt"] = "ttt"
    version: int = STATE_VERSION
    area: TableArea = TableArea()
    options: Options = Options()
    scenario: Scenario = Scenario()
    players: tuple[Player, Player]
    order: tuple[str, str]  # phase order: player ids (TTT-T1)
    rules: RulesData
    status: Literal["setup", "playing", "over"] = "setup"
    turn: int = 0
    phase: int = 0  # index into ``order``
    objective: tuple[float, float] | None = None
    objective_clear_phases: int = 0  # whole phases with no defender near it (TTT-S3)
    # A non-routed defender was near the objective at some moment of this phase (TTT-S3):
    # such a phase does not count toward the attacker's full turn.
    objective_held_this_phase: bool = True
    tanks: dict[str, TankState] = Field(default_factory=dict)
    terrain: dict[str, TerrainPiece] = Field(default_factory=dict)
    smoke: tuple[SmokeScreen, ...] = ()
    next_smoke_id: int = 1
    dice: DiceState = Field(default_factory=DiceState)
    deck: DeckState = DeckState()
    winner: str | None = None
    game_over_reason: str | None = None

    @field_validator("objective")
    @classmethod
    def _finite_objective(cls, value: tuple[float, float] | None) -> tuple[float, float] | None:
        if value is not None:
            _finite(value[0])
            _finite(value[1])
        return value

    @property
    def active_player(self) -> str:
        return self.order[self.phase]

    def player(self, player_id: str) -> Player:
        for p in self.players:
            if p.id == player_id:
                return p
        raise KeyError(player_id)

    def turn_began(self, tank: TankState) -> str:
        """When ``tank``'s own turn (its cycle: its phase and the enemy's phase after it) began,
        in words, for messages about things allowed once a turn (TTT-F1)."""
        turn = self.turn
        if tank.player != self.active_player and self.order.index(tank.player) > self.phase:
            turn -= 1  # the enemy moves first: the tank's turn began in the previous game turn
        if turn < 1:
            return "the start of the game (it has had no phase yet)"
        return f"{tank.player}'s phase of turn {turn}"

    def enemy_of(self, player_id: str) -> str:
        return self.order[1] if self.order[0] == player_id else self.order[0]

    def clone(self) -> TableState:
        """A copy to work on. Tanks are shared until a handler takes a private copy of one."""
        copy = copied(self)
        fields = copy.__dict__  # the engine's own values: no validation to skip (core.trusted)
        fields["tanks"] = dict(self.tanks)
        fields["dice"] = copied(self.dice)
        copy.__pydantic_fields_set__.update(("tanks", "dice"))
        return copy

    def to_json(self) -> str:
        return self.model_dump_json()

    @classmethod
    def from_json(cls, text: str | bytes) -> TableState:
        return cls.model_validate_json(text)
