"""Toy tanks (RULES.md): the whole ruleset, state to plug-in, over tankref's public core only.

Setup places tanks (TOY-S1) and starts the game (TOY-S2); each turn a player's tanks move
(TOY-M1) and fire one d6 each (TOY-F1); the last player with a tank wins (TOY-V1).
"""

from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from tankref.core.dice import DiceBag, DiceState, DieSpec, Face, SuppliedDice
from tankref.core.errors import RulesError
from tankref.core.geometry import TableArea
from tankref.core.luck import LuckTrial
from tankref.core.options import Option, option
from tankref.core.results import Result, TankChange
from tankref.core.ruleset import (
    BoardHints,
    ModelState,
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
    status: Literal["setup", "playing", "over"] = "setup"
    turn: int = 0
    active_player: str
    players: list[Player]
    tanks: dict[str, Tank] = Field(default_factory=dict)
    winner: str | None = None
    game_over_reason: str | None = None
    dice: DiceState

    def clone(self) -> ToyState:
        return self.model_copy(deep=True)


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


@dataclass
class Adjudication:
    state: ToyState
    result: Result


# --- the rules ---------------------------------------------------------------------------------
def _refuse(code: str, clause: str | None, message: str) -> RulesError:
    return RulesError(code, clause, message)


def _own_tank(state: ToyState, tank_id: str) -> Tank:
    tank = state.tanks.get(tank_id)
    if tank is None:
        raise _refuse("UNKNOWN_TANK", None, f"tank_id: no tank {tank_id!r}")
    if state.status != "playing":
        raise _refuse(
            "NOT_STARTED" if state.status == "setup" else "GAME_OVER",
            "TOY-T1",
            f"the game is {state.status}, not playing",
        )
    if tank.player != state.active_player:
        raise _refuse("NOT_YOUR_TURN", "TOY-T1", f"it is {state.active_player}'s turn")
    if tank.destroyed:
        raise _refuse("DESTROYED", "TOY-F1", f"{tank.name} is destroyed")
    return tank


def _check_move(state: ToyState, move: Move) -> Tank:
    tank = _own_tank(state, move.tank_id)
    if tank.moved:
        raise _refuse("ALREADY_MOVED", "TOY-T1", f"{tank.name} has moved this turn")
    reach = cards()[tank.card].move
    if math.dist((tank.x, tank.z), (move.x, move.z)) > reach + 1e-9:
        raise _refuse("TOO_FAR", "TOY-M1", f"{tank.name} moves at most {reach:g} in")
    if not AREA.contains((move.x, move.z)):
        raise _refuse("OFF_TABLE", "TOY-M1", "the move ends off the field")
    return tank


def _targets(state: ToyState, tank: Tank) -> list[Tank]:
    return [
        t
        for t in state.tanks.values()
        if t.player != tank.player
        and not t.destroyed
        and math.dist((tank.x, tank.z), (t.x, t.z)) <= RANGE
    ]


def _check_fire(state: ToyState, fire: Fire) -> tuple[Tank, Tank]:
    tank = _own_tank(state, fire.tank_id)
    if tank.fired:
        raise _refuse("ALREADY_FIRED", "TOY-T1", f"{tank.name} has fired this turn")
    target = state.tanks.get(fire.target_id)
    if target is None or target not in _targets(state, tank):
        raise _refuse("NO_TARGET", "TOY-F1", f"target_id: no enemy tank within {RANGE:g} in")
    return tank, target


def _p_hit(tank: Tank) -> Fraction:
    return Fraction(7 - cards()[tank.card].hits_on, 6)


def adjudicate(state: ToyState, action: Action, supplied: SuppliedDice | None) -> Adjudication:
    s = state.clone()  # the table's state is never touched: a refusal changes nothing
    bag = DiceBag(s.dice, {"d6": D6}, supplied)
    lines: list[str] = []
    outcome: dict[str, Any] = {}
    touched: list[str] = []
    if isinstance(action, PlaceTank | RemoveTank | StartGame) and s.status != "setup":
        raise _refuse("SETUP_OVER", "TOY-S1", "setup is over")
    if isinstance(action, PlaceTank):
        card = cards().get(action.card)
        if card is None:
            raise _refuse("UNKNOWN_CARD", "TOY-S1", f"card: no card {action.card!r}")
        if action.player not in {p.id for p in s.players}:
            raise _refuse("UNKNOWN_PLAYER", "TOY-S1", f"player: no player {action.player!r}")
        if not AREA.contains((action.x, action.z)):
            raise _refuse("OFF_TABLE", "TOY-S1", "the tank is placed off the field")
        name = action.name or f"{action.player} {card.name}"
        s.tanks[action.tank_id] = Tank(
            id=action.tank_id,
            name=name,
            card=card.id,
            player=action.player,
            x=action.x,
            z=action.z,
            facing=action.facing,
        )
        lines.append(f"{name} placed (TOY-S1)")
        touched.append(action.tank_id)
    elif isinstance(action, RemoveTank):
        if s.tanks.pop(action.tank_id, None) is None:
            raise _refuse("UNKNOWN_TANK", None, f"tank_id: no tank {action.tank_id!r}")
        lines.append(f"{action.tank_id} taken away (TOY-S1)")
    elif isinstance(action, StartGame):
        empty = [p.id for p in s.players if not any(t.player == p.id for t in s.tanks.values())]
        if empty:
            raise _refuse("NO_TANKS", "TOY-S2", f"{', '.join(empty)} has no tank yet")
        s.status, s.turn = "playing", 1
        lines.append(f"The game begins: {s.active_player} goes first (TOY-S2)")
    elif isinstance(action, Move):
        tank = s.tanks[_check_move(s, action).id]
        tank.x, tank.z, tank.facing, tank.moved = action.x, action.z, action.facing, True
        lines.append(f"{tank.name} moves (TOY-M1)")
        touched.append(tank.id)
    elif isinstance(action, Fire):
        tank, target = _check_fire(s, action)
        roll = bag.roll("d6", 1, f"to hit {target.name}")[0]
        hit = roll.face >= cards()[tank.card].hits_on
        tank.fired, target.destroyed = True, hit
        outcome = {"hit": hit, "target_id": target.id}
        lines.append(
            f"{tank.name} fires at {target.name}: d6 {roll.face}, "
            + ("destroyed" if hit else "missed")
            + " (TOY-F1)"
        )
        touched += [tank.id, target.id]
        standing = {t.player for t in s.tanks.values() if not t.destroyed}
        if target.player not in standing:
            s.status, s.winner = "over", tank.player
            s.game_over_reason = f"{target.player} has no tank left (TOY-V1)"
            lines.append(f"{tank.player} wins: {s.game_over_reason}")
    else:
        if s.status != "playing":
            raise _refuse(
                "NOT_STARTED" if s.status == "setup" else "GAME_OVER",
                "TOY-T1",
                f"the game is {s.status}, not playing",
            )
        ids = [p.id for p in s.players]
        s.active_player = ids[(ids.index(s.active_player) + 1) % len(ids)]
        if s.active_player == ids[0]:
            s.turn += 1
        for t in s.tanks.values():
            t.moved = t.fired = False
        lines.append(f"{s.active_player}'s turn {s.turn} (TOY-T1)")
    bag.finish()
    s.dice = bag.settled_state()
    changes = [
        TankChange(tank_id=t.id, name=t.name, markers=_markers(t), tooltip=_tooltip(t))
        for t in (s.tanks[i] for i in touched)
    ]
    result = Result(
        action=action.model_dump(mode="json"),
        summary=lines,
        rolls=bag.rolls,
        outcome=outcome,
        changes=changes,
    )
    return Adjudication(s, result)


def _markers(tank: Tank) -> list[str]:
    return ["destroyed"] if tank.destroyed else []


def _tooltip(tank: Tank) -> str:
    card = cards()[tank.card]
    return f"{card.name}: move {card.move:g} in, hits on {card.hits_on}+" + (
        " (destroyed)" if tank.destroyed else ""
    )


def options_for(state: ToyState, tank_id: str) -> list[Option]:
    if tank_id not in state.tanks:
        raise _refuse("UNKNOWN_TANK", None, f"tank_id: no tank {tank_id!r}")

    def move() -> dict[str, Any]:
        tank = _own_tank(state, tank_id)
        if tank.moved:
            raise _refuse("ALREADY_MOVED", "TOY-T1", f"{tank.name} has moved this turn")
        return {"max_distance": cards()[tank.card].move}

    def fire() -> dict[str, Any]:
        tank = _own_tank(state, tank_id)
        targets = _targets(state, tank)
        if tank.fired or not targets:
            _check_fire(state, Fire(tank_id=tank_id, target_id=""))
        return {"targets": [o.model_dump() for t in targets for o in [_odds(tank, t)]]}

    return [option("move", move), option("fire", fire)]


def _odds(tank: Tank, target: Tank) -> ShotOdds:
    p = _p_hit(tank)
    return ShotOdds(
        shooter_id=tank.id,
        target_id=target.id,
        range=round(math.dist((tank.x, tank.z), (target.x, target.z)), 2),
        p_hit=float(p),
        exact={"p_hit": str(p)},
    )


# --- the plug-in -------------------------------------------------------------------------------
@cache
def info() -> RulesetInfo:
    rows = [
        ("Red", "Red 1", "tankette", -4.0, -4.0, 0.0),
        ("Blue", "Blue 1", "gun-tank", 4.0, 4.0, 180.0),
    ]
    return RulesetInfo(
        name=NAME,
        title="Toy tanks",
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
    title: str = "Toy tanks"
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
        if setup.players[0] == setup.players[1]:
            raise _refuse("SAME_PLAYERS", "TOY-S1", "setup.players: two different ids")
        players = [Player(id=p) for p in setup.players]
        return ToyState(active_player=players[0].id, players=players, dice=dice)

    def tank_views(self, state: Any, tank_ids: list[str] | None = None) -> list[TankView]:
        ids = sorted(state.tanks) if tank_ids is None else tank_ids
        return [
            TankView(
                tank_id=t.id,
                name=t.name,
                card=t.card,
                player=t.player,
                x=t.x,
                z=t.z,
                facing=t.facing,
                on_table=True,
                in_play=not t.destroyed,
                markers=_markers(t),
                tooltip=_tooltip(t),
            )
            for t in (state.tanks[i] for i in ids if i in state.tanks)
        ]

    def scene_parts(self, state: Any) -> SceneParts:
        return SceneParts(
            area=AREA, players=[PlayerSide(id=p.id) for p in state.players], terrain=[], rings=[]
        )

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
            return PlaceTank(
                tank_id=tank_id,
                card=put.card,
                player=put.player,
                x=put.x,
                z=put.z,
                facing=put.facing,
                name=put.name,
            )
        if math.dist((tank.x, tank.z), (put.x, put.z)) < 0.25 and tank.facing == put.facing:
            return None  # it only drifted
        return Move(tank_id=tank_id, x=put.x, z=put.z, facing=put.facing)

    def tank_remove(self, state: Any, tank_id: str) -> BaseModel:
        return RemoveTank(tank_id=tank_id)

    def terrain_put(self, state: Any, piece_id: str, data: object) -> BaseModel:
        raise _refuse("NO_TERRAIN", None, "toy tanks has no terrain")

    def terrain_schema(self) -> dict[str, Any]:
        return {"title": "ToyNoTerrain", "type": "object", "description": "Refused: NO_TERRAIN."}

    def objective_put(self, state: Any, x: float, z: float) -> BaseModel:
        raise _refuse("NO_OBJECTIVE", None, "toy tanks has no objective")

    def adjudicate(self, state: Any, action: Any, dice: SuppliedDice | None = None) -> Adjudication:
        return adjudicate(state, action, dice)

    def options_for(self, state: Any, tank_id: str) -> list[dict[str, Any]]:
        return [o.to_dict() for o in options_for(state, tank_id)]

    def odds(
        self, state: Any, shooter_id: str, target_id: str | None, **choices: Any
    ) -> list[ShotOdds]:
        tank = _own_tank(state, shooter_id)
        if target_id is None:
            return [_odds(tank, t) for t in _targets(state, tank)]
        return [_odds(tank, _check_fire(state, Fire(tank_id=shooter_id, target_id=target_id))[1])]

    def luck_trials(self, state_before: Any, action: Any, result: Result) -> list[LuckTrial]:
        if not isinstance(action, Fire) or not result.rolls:
            return []
        tank = state_before.tanks[action.tank_id]
        return [
            LuckTrial(
                player=tank.player,
                measure="hit",
                p=_p_hit(tank),
                happened=bool(result.outcome.get("hit")),
            )
        ]


def ruleset() -> ToyTanks:
    return ToyTanks()
