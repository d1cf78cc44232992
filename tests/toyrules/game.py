"""Toy tanks (RULES.md): the whole ruleset, state to plug-in, over tankref's public core only.

Setup places tanks (TOY-S1) and starts the game (TOY-S2); each turn a player's tanks move
(TOY-M1) and fire one d6 each (TOY-F1); the last player with a tank wins (TOY-V1). It is
built from the core kit alone: a ``Context`` working copy, the shared flow guards and codes,
a ``Dispatch`` table and option checks that are the handlers' own checks.
"""

from __future__ import annotations

import math
import random
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import cache, partial
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from tankref.core.adjudication import Adjudication, Context, refuse
from tankref.core.aids import AidLine, AidRing, Aids, Refusal
from tankref.core.dice import DiceState, DieSpec, Face, SuppliedDice
from tankref.core.dispatch import PLAY, SETUP, Dispatch, Step
from tankref.core.errors import RulesError, bad_value, not_found
from tankref.core.flow import (
    DESTROYED,
    NO_TANKS,
    NOT_AN_ENEMY,
    OFF_TABLE,
    GameStatus,
    require_turn_of,
)
from tankref.core.geometry import TableArea
from tankref.core.luck import LuckTrial
from tankref.core.options import Option, option
from tankref.core.results import Result
from tankref.core.ruleset import (
    BoardHints,
    ModelState,
    OddsTrial,
    PlayRecord,
    RulesetInfo,
    SaveTable,
    SetupChoice,
    TankPut,
    TankView,
    from_wire,
    numbered_dice,
    save_units,
)
from tankref.core.scene import LineOfFire, PlayerSide, SceneParts

NAME = "toy"
TITLE = "Toy tanks"
TURN = "TOY-T1"
RANGE = 12.0  # TOY-F1
AREA = TableArea()
D6 = DieSpec(name="d6", label="d6", faces=tuple(Face(face=n) for n in range(1, 7)))


class Card(BaseModel):
    id: str
    name: str
    move: float
    hits_on: int = Field(ge=1, le=6)


@cache
def cards() -> dict[str, Card]:
    data = tomllib.loads((Path(__file__).parent / "cards.toml").read_text(encoding="utf-8"))
    return {c["id"]: Card(**c) for c in data["tank"]}


# --- state and actions -----------------------------------------------------------------------
class Player(BaseModel):
    id: str = Field(min_length=1, max_length=32)


class Tank(BaseModel):
    id: str
    name: str
    card: str
    player: str
    x: float
    z: float
    facing: float
    destroyed: bool = False
    moved: bool = False
    fired: bool = False


class ToyState(BaseModel):
    status: GameStatus = "setup"
    turn: int = 0
    active_player: str
    players: list[Player]
    tanks: dict[str, Tank] = Field(default_factory=dict)
    winner: str | None = None
    game_over_reason: str | None = None
    dice: DiceState

    def clone(self) -> ToyState:
        """A copy to work on: tanks shared until the adjudication takes its own copy of one."""
        copy = self.model_copy()
        copy.tanks = dict(self.tanks)
        copy.dice = self.dice.model_copy()
        return copy


class ToySetup(BaseModel):
    model_config = ConfigDict(extra="forbid")
    players: tuple[str, str] = ("Red", "Blue")


class _Act(BaseModel):
    model_config = ConfigDict(extra="forbid")


class PlaceTank(_Act):
    kind: Literal["place_tank"] = "place_tank"
    tank_id: str
    card: str
    player: str
    x: float
    z: float
    facing: float = 0.0
    name: str | None = None


class RemoveTank(_Act):
    kind: Literal["remove_tank"] = "remove_tank"
    tank_id: str


class StartGame(_Act):
    kind: Literal["start_game"] = "start_game"


class Move(_Act):
    kind: Literal["move"] = "move"
    tank_id: str
    x: float
    z: float
    facing: float


class Fire(_Act):
    kind: Literal["fire"] = "fire"
    tank_id: str
    target_id: str


class EndTurn(_Act):
    kind: Literal["end_turn"] = "end_turn"


Action = Annotated[
    PlaceTank | RemoveTank | StartGame | Move | Fire | EndTurn, Field(discriminator="kind")
]
ACTIONS: TypeAdapter[Action] = TypeAdapter(Action)


class ShotOdds(BaseModel):
    shooter_id: str
    target_id: str
    range: float
    p_hit: float
    exact: dict[str, str]


class ToyContext(Context[ToyState, Tank]):
    """One toy adjudication's working copy: what a client is told of each tank it touched."""

    tracked: ClassVar[tuple[str, ...]] = ("x", "z", "facing", "moved", "fired", "destroyed")

    def view(self, unit: Tank, last_line: str | None) -> tuple[list[str], str]:
        return _markers(unit), _tooltip(unit)


# --- the checks (each both the handler's and its menu entry's) ---------------------------------
def _tank(state: ToyState, tank_id: str, field: str = "tank_id") -> Tank:
    tank = state.tanks.get(tank_id)
    if tank is None:
        not_found("UNKNOWN_TANK", None, f"{field}: no tank {tank_id!r}", field=field)
    return tank


def _may_act(state: ToyState, tank: Tank) -> None:
    require_turn_of(state, tank.player, TURN, "turn")
    if tank.destroyed:
        refuse(DESTROYED, "TOY-F1", f"{tank.name} is destroyed")


def _may_move(state: ToyState, tank: Tank) -> dict[str, Any]:
    _may_act(state, tank)
    if tank.moved:
        refuse("ALREADY_MOVED", TURN, f"{tank.name} has moved this turn")
    return {"max_distance": cards()[tank.card].move}


def _may_fire(state: ToyState, tank: Tank) -> None:
    _may_act(state, tank)
    if tank.fired:
        refuse("ALREADY_FIRED", TURN, f"{tank.name} has fired this turn")


def _enemies(state: ToyState, tank: Tank) -> list[Tank]:
    alive = [t for t in state.tanks.values() if t.player != tank.player and not t.destroyed]
    return sorted(alive, key=lambda t: t.id)


def _targets(state: ToyState, tank: Tank) -> list[Tank]:
    return [t for t in _enemies(state, tank) if math.dist((tank.x, tank.z), (t.x, t.z)) <= RANGE]


def _check_target(state: ToyState, tank: Tank, target_id: str) -> Tank:
    target = _tank(state, target_id, "target_id")
    if target.player == tank.player:
        refuse(NOT_AN_ENEMY, "TOY-F1", f"target_id: {target.name} is yours", field="target_id")
    if target not in _targets(state, tank):
        refuse(
            "NO_TARGET", "TOY-F1", f"target_id: {target.name} is not in range", field="target_id"
        )
    return target


def _fire_option(state: ToyState, tank: Tank) -> dict[str, Any]:
    _may_fire(state, tank)
    if not _targets(state, tank):
        refuse("NO_TARGET", "TOY-F1", f"no enemy tank within {RANGE:g} in", field="target_id")
    return {"targets": [_odds(tank, t).model_dump() for t in _targets(state, tank)]}


def _p_hit(tank: Tank) -> Fraction:
    return Fraction(7 - cards()[tank.card].hits_on, 6)


def _odds(tank: Tank, target: Tank) -> ShotOdds:
    p = _p_hit(tank)
    return ShotOdds(
        shooter_id=tank.id,
        target_id=target.id,
        range=round(math.dist((tank.x, tank.z), (target.x, target.z)), 2),
        p_hit=float(p),
        exact={"p_hit": str(p)},
    )


# --- the handlers ------------------------------------------------------------------------------
def place_tank(ctx: ToyContext, action: PlaceTank) -> None:
    card = cards().get(action.card)
    if card is None:
        bad_value("UNKNOWN_CARD", "TOY-S1", f"card: no card {action.card!r}", field="card")
    if action.player not in {p.id for p in ctx.state.players}:
        bad_value("UNKNOWN_PLAYER", "TOY-S1", f"player: no {action.player!r}", field="player")
    if not AREA.contains((action.x, action.z)):
        refuse(OFF_TABLE, "TOY-S1", f"({action.x:g}, {action.z:g}) is off the field", field="x")
    name = action.name or f"{action.player} {card.name}"
    fields = action.model_dump(include={"player", "x", "z", "facing"})
    ctx.add(action.tank_id, Tank(id=action.tank_id, name=name, card=card.id, **fields))
    ctx.say(f"{name} placed (TOY-S1)")


def remove_tank(ctx: ToyContext, action: RemoveTank) -> None:
    _tank(ctx.state, action.tank_id)
    ctx.forget(action.tank_id)
    ctx.say(f"{action.tank_id} taken away (TOY-S1)")


def start_game(ctx: ToyContext, action: StartGame) -> None:
    s = ctx.state
    empty = [p.id for p in s.players if not any(t.player == p.id for t in s.tanks.values())]
    if empty:
        refuse(NO_TANKS, "TOY-S2", f"{', '.join(empty)} has no tank yet")
    s.status, s.turn = "playing", 1
    ctx.say(f"The game begins: {s.active_player} goes first (TOY-S2)")


def move(ctx: ToyContext, action: Move) -> None:
    tank = _tank(ctx.state, action.tank_id)
    reach = _may_move(ctx.state, tank)["max_distance"]
    if math.dist((tank.x, tank.z), (action.x, action.z)) > reach + 1e-9:
        refuse("TOO_FAR", "TOY-M1", f"{tank.name} moves at most {reach:g} in", field="x")
    if not AREA.contains((action.x, action.z)):
        refuse(OFF_TABLE, "TOY-M1", "the move ends off the field", field="x")
    tank = ctx.edit(tank.id)
    tank.x, tank.z, tank.facing, tank.moved = action.x, action.z, action.facing, True
    ctx.say(f"{tank.name} moves (TOY-M1)")


def fire(ctx: ToyContext, action: Fire) -> None:
    shooter = _tank(ctx.state, action.tank_id)
    _may_fire(ctx.state, shooter)
    target = _check_target(ctx.state, shooter, action.target_id)
    roll = ctx.bag.roll("d6", 1, f"to hit {target.name}")[0]
    hit = roll.face >= cards()[shooter.card].hits_on
    ctx.edit(shooter.id).fired = True
    ctx.edit(target.id).destroyed = hit
    ctx.result.outcome = {"hit": hit, "target_id": target.id}
    verdict = "destroyed" if hit else "missed"
    ctx.say(f"{shooter.name} fires at {target.name}: d6 {roll.face}, {verdict} (TOY-F1)")
    s = ctx.state
    if not any(t.player == target.player and not t.destroyed for t in s.tanks.values()):
        s.status, s.winner = "over", shooter.player
        s.game_over_reason = f"{target.player} has no tank left (TOY-V1)"
        ctx.say(f"{shooter.player} wins: {s.game_over_reason}")


def end_turn(ctx: ToyContext, action: EndTurn) -> None:
    s = ctx.state
    ids = [p.id for p in s.players]
    s.active_player = ids[(ids.index(s.active_player) + 1) % len(ids)]
    if s.active_player == ids[0]:
        s.turn += 1
    for tank_id in [t.id for t in s.tanks.values() if t.moved or t.fired]:
        tank = ctx.edit(tank_id)
        tank.moved = tank.fired = False
    ctx.say(f"{s.active_player}'s turn {s.turn} (TOY-T1)")


DISPATCH: Dispatch[ToyContext] = Dispatch(
    Action,
    {
        PlaceTank: Step(place_tank, when=SETUP, clause="TOY-S1", what="placing a tank"),
        RemoveTank: Step(remove_tank, when=SETUP, clause="TOY-S1", what="taking a tank away"),
        StartGame: Step(start_game, when=SETUP, clause="TOY-S2", what="starting the game"),
        Move: Step(move, when=PLAY, clause=TURN),
        Fire: Step(fire, when=PLAY, clause=TURN),
        EndTurn: Step(end_turn, when=PLAY, clause=TURN),
    },
)

# A tank's menu: each entry is the check its action's handler runs.
OPTION_CHECKS: tuple[tuple[str, Callable[[ToyState, Tank], dict[str, Any]]], ...] = (
    ("move", _may_move),
    ("fire", _fire_option),
)


def adjudicate(
    state: ToyState, action: BaseModel, supplied: SuppliedDice | None = None
) -> Adjudication[ToyState]:
    ctx = ToyContext(state, action.model_dump(mode="json"), {"d6": D6}, supplied)
    DISPATCH(ctx, ctx.state, action)
    return ctx.finish()


def options_for(state: ToyState, tank_id: str) -> list[Option]:
    tank = _tank(state, tank_id)
    return [option(kind, partial(check, state, tank)) for kind, check in OPTION_CHECKS]


def new_table(setup: ToySetup, dice: DiceState) -> ToyState:
    if setup.players[0] == setup.players[1]:
        bad_value("SAME_PLAYERS", "TOY-S1", "setup.players: two different ids", field="players")
    players = [Player(id=p) for p in setup.players]
    return ToyState(active_player=players[0].id, players=players, dice=dice)


def _markers(tank: Tank) -> list[str]:
    return ["destroyed"] if tank.destroyed else []


def _tooltip(tank: Tank) -> str:
    card = cards()[tank.card]
    return f"{card.name}: move {card.move:g} in, hits on {card.hits_on}+" + (
        " (destroyed)" if tank.destroyed else ""
    )


# --- aids and self-play (the same checks again) -----------------------------------------------
def aids(state: ToyState, tank_id: str) -> Aids:
    """The ring it may move within (TOY-M1) and its line to each enemy (TOY-F1)."""
    tank = _tank(state, tank_id)
    out = Aids(tank_id=tank.id)
    try:
        reach = _may_move(state, tank)["max_distance"]
    except RulesError as err:
        out.move_refused = Refusal.of(err)
    else:
        label = f"Move: up to {reach:g} in, on the field"
        ring = AidRing(id="move", x=tank.x, z=tank.z, radius=reach, clause="TOY-M1", label=label)
        out.move.append(ring)
    for enemy in _enemies(state, tank) if not tank.destroyed else []:
        refused = None
        try:
            _may_fire(state, tank)
            _check_target(state, tank, enemy.id)
        except RulesError as err:
            refused = Refusal.of(err)
        gap = math.dist((tank.x, tank.z), (enemy.x, enemy.z))
        out.lines.append(
            AidLine(
                target_id=enemy.id,
                x1=tank.x,
                z1=tank.z,
                x2=enemy.x,
                z2=enemy.z,
                reading="clear",  # the toy has no terrain: only the range decides (TOY-F1)
                range=round(gap, 3),
                clause="TOY-F1",
                label=f"{gap:.1f} in; " + ("in range" if gap <= RANGE else f"beyond {RANGE:g} in"),
                may_fire=refused is None,
                refused=refused,
            )
        )
    return out


def start_table(seed: int) -> ToyState:
    """A started duel: one to three tanks a side, each somewhere in its own third of the field."""
    rng = random.Random(seed)
    state = new_table(ToySetup(), DiceState(seed=f"selfplay-toy-{seed}"))
    for player, side in (("Red", -1), ("Blue", 1)):
        for n in range(rng.randint(1, 3)):
            card = rng.choice(sorted(cards()))
            x, z = rng.uniform(-30, 30), side * rng.uniform(10, 22)
            place = PlaceTank(tank_id=f"{player[0]}{n + 1}", card=card, player=player, x=x, z=z)
            state = adjudicate(state, place).state
    return adjudicate(state, StartGame()).state


def bot_choice(state: ToyState, tank: Tank, entry: Option, rng: random.Random) -> BaseModel:
    """Among what the menu allows: a listed target at random, or a move toward the nearest enemy
    (half to all the way it may go, stopping 3 in short)."""
    assert entry.detail is not None
    if entry.kind == "fire":
        return Fire(tank_id=tank.id, target_id=rng.choice(entry.detail["targets"])["target_id"])
    enemy = min(_enemies(state, tank), key=lambda t: math.dist((tank.x, tank.z), (t.x, t.z)))
    dx, dz = enemy.x - tank.x, enemy.z - tank.z
    gap = math.hypot(dx, dz)
    step = min(entry.detail["max_distance"] * rng.uniform(0.5, 1.0), max(gap - 3.0, 0.0))
    x, z = tank.x + dx / gap * step, tank.z + dz / gap * step
    return Move(tank_id=tank.id, x=x, z=z, facing=math.degrees(math.atan2(dx, dz)) % 360)


def self_play(seed: int) -> PlayRecord:
    """Each live tank of the player whose turn it is fires if it may, moves (three times in
    four), fires if it now may; then End turn. Server dice seeded from ``seed``."""
    rng = random.Random(seed * 7919 + 1)
    start = state = start_table(seed)
    actions: list[BaseModel] = []
    while state.status == "playing":
        if len(actions) > 2000:
            raise RuntimeError(f"toy self-play seed {seed}: the game did not end")
        mine = sorted(t.id for t in state.tanks.values() if t.player == state.active_player)
        for tank_id in mine:
            for kind in ("fire", "move", "fire"):
                entry = next(o for o in options_for(state, tank_id) if o.kind == kind)
                if entry.allowed and (kind == "fire" or rng.random() < 0.75):
                    actions.append(bot_choice(state, state.tanks[tank_id], entry, rng))
                    state = adjudicate(state, actions[-1]).state
        if state.status == "playing":
            actions.append(EndTurn())
            state = adjudicate(state, actions[-1]).state
    return PlayRecord(start, tuple(actions), state)


# --- the plug-in -------------------------------------------------------------------------------
@cache
def info() -> RulesetInfo:
    rows = [
        ("Red", "Red 1", "tankette", -4.0, -4.0, 0.0),
        ("Blue", "Blue 1", "gun-tank", 4.0, 4.0, 180.0),
    ]
    return RulesetInfo(
        name=NAME,
        title=TITLE,
        clause_prefix="TOY",
        description="A two-player test game: move, fire one d6, last tank standing wins.",
        terrain_kinds=[],
        setups=[SetupChoice(key="duel", label="Red and Blue", setup={"players": ["Red", "Blue"]})],
        board=BoardHints(
            board=[
                {"kind": "start_game", "label": "Start game"},
                {"kind": "end_turn", "label": "End turn"},
            ],
            verbs={"fire": "Fire"},
        ),
        save=SaveTable(
            units=save_units(rows, {c.id: c.name for c in cards().values()}),
            dice=[numbered_dice("d6", 2)],
        ),
    )


@dataclass(frozen=True)
class ToyTanks(ModelState):
    name: str = NAME
    title: str = TITLE
    clause_prefix: str = "TOY"
    state_model: ClassVar[type[BaseModel]] = ToyState

    def info(self) -> RulesetInfo:
        return info()

    @property
    def setup_model(self) -> type[BaseModel]:
        return ToySetup

    def parse_setup(self, data: object) -> ToySetup:
        return from_wire(TypeAdapter(ToySetup), data)

    def new_table(self, setup: BaseModel, dice: DiceState) -> ToyState:
        assert isinstance(setup, ToySetup)
        return new_table(setup, dice)

    def tank_views(self, state: Any, tank_ids: list[str] | None = None) -> list[TankView]:
        ids = sorted(state.tanks) if tank_ids is None else tank_ids
        return [
            TankView(
                **t.model_dump(include={"name", "card", "player", "x", "z", "facing"}),
                tank_id=t.id,
                on_table=True,
                in_play=not t.destroyed,
                markers=_markers(t),
                tooltip=_tooltip(t),
            )
            for t in (state.tanks[i] for i in ids if i in state.tanks)
        ]

    def scene_parts(self, state: Any) -> SceneParts:
        players = [PlayerSide(id=p.id) for p in state.players]
        return SceneParts(area=AREA, players=players, terrain=[], rings=[])

    def line_of_fire(self, state: Any, result: Result) -> LineOfFire | None:
        if result.action.get("kind") != "fire":
            return None
        a, b = state.tanks[result.action["tank_id"]], state.tanks[result.action["target_id"]]
        label = "hit" if result.outcome.get("hit") else "miss"
        return LineOfFire(
            shooter_id=a.id, target_id=b.id, x1=a.x, z1=a.z, x2=b.x, z2=b.z, label=label
        )

    def parse_action(self, data: object) -> BaseModel:
        return from_wire(ACTIONS, data)

    def action_schema(self) -> dict[str, Any]:
        return ACTIONS.json_schema()

    def tank_put(self, state: Any, tank_id: str, put: TankPut) -> BaseModel | None:
        tank = state.tanks.get(tank_id)
        if state.status == "setup" or tank is None:
            fields = put.model_dump(include={"card", "player", "x", "z", "facing", "name"})
            return PlaceTank(tank_id=tank_id, **fields)
        if math.dist((tank.x, tank.z), (put.x, put.z)) < 0.25 and tank.facing == put.facing:
            return None  # it only drifted
        return Move(tank_id=tank_id, x=put.x, z=put.z, facing=put.facing)

    def tank_remove(self, state: Any, tank_id: str) -> BaseModel:
        return RemoveTank(tank_id=tank_id)

    def terrain_put(self, state: Any, piece_id: str, data: object) -> BaseModel:
        refuse("NO_TERRAIN", None, "toy tanks has no terrain")

    def terrain_schema(self) -> dict[str, Any]:
        return {"title": "ToyNoTerrain", "type": "object", "description": "Refused: NO_TERRAIN."}

    def objective_put(self, state: Any, x: float, z: float) -> BaseModel:
        refuse("NO_OBJECTIVE", None, "toy tanks has no objective")

    def adjudicate(
        self, state: Any, action: Any, dice: SuppliedDice | None = None
    ) -> Adjudication[ToyState]:
        return adjudicate(state, action, dice)

    def options_for(self, state: Any, tank_id: str) -> list[dict[str, Any]]:
        return [o.to_dict() for o in options_for(state, tank_id)]

    def odds(
        self, state: Any, shooter_id: str, target_id: str | None, **choices: Any
    ) -> list[ShotOdds]:
        tank = _tank(state, shooter_id, "shooter_id")
        _may_fire(state, tank)
        if target_id is None:
            return [_odds(tank, t) for t in _targets(state, tank)]
        return [_odds(tank, _check_target(state, tank, target_id))]

    def luck_trials(self, state_before: Any, action: Any, result: Result) -> list[LuckTrial]:
        if not isinstance(action, Fire) or not result.rolls:
            return []
        tank = state_before.tanks[action.tank_id]
        hit = bool(result.outcome.get("hit"))
        return [LuckTrial(player=tank.player, measure="hit", p=_p_hit(tank), happened=hit)]

    def aids(self, state: Any, tank_id: str) -> Aids:
        return aids(state, tank_id)

    # --- conformance hooks -------------------------------------------------------------------
    def self_play(self, seed: int) -> PlayRecord:
        return self_play(seed)

    def option_actions(self, state: Any, tank_id: str, option: dict[str, Any]) -> list[BaseModel]:
        """Allowed: moves to the four compass points of its ring that stay on the field and
        staying put; a shot at each listed target. Refused: staying put; a shot at its nearest
        enemy (none left: nothing to build)."""
        tank = state.tanks[tank_id]
        kind, allowed, detail = option["kind"], option["allowed"], option.get("detail") or {}
        if kind == "move":
            reach = detail["max_distance"] if allowed else 0.0
            ends = [(tank.x, tank.z)] + [
                (tank.x + reach * math.sin(b), tank.z + reach * math.cos(b))
                for b in (0, math.pi / 2, math.pi, 3 * math.pi / 2)
                if allowed
            ]
            return [
                Move(tank_id=tank_id, x=x, z=z, facing=tank.facing)
                for x, z in ends
                if AREA.contains((x, z))
            ]
        if allowed:
            return [Fire(tank_id=tank_id, target_id=t["target_id"]) for t in detail["targets"]]
        near = sorted(_enemies(state, tank), key=lambda t: math.dist((tank.x, tank.z), (t.x, t.z)))
        return [Fire(tank_id=tank_id, target_id=t.id) for t in near[:1]]

    def odds_trials(self, state: Any) -> list[OddsTrial]:
        """Each shot a tank of the player whose turn it is may take: its ``p_hit``, as the
        result's ``hit`` says (TOY-F1)."""
        trials = []
        for tank in sorted(state.tanks.values(), key=lambda t: t.id):
            entry = next(o for o in options_for(state, tank.id) if o.kind == "fire")
            for shot in (entry.detail or {}).get("targets", []):
                trials.append(
                    OddsTrial(
                        f"p_hit {tank.id} -> {shot['target_id']}",
                        Fire(tank_id=tank.id, target_id=shot["target_id"]),
                        Fraction(shot["exact"]["p_hit"]),
                        lambda result: bool(result.outcome.get("hit")),
                    )
                )
        return trials


def ruleset() -> ToyTanks:
    return ToyTanks()
