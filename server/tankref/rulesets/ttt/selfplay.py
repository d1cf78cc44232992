"""Seeded random self-play of TinyTableTopTanks: a fuzzer for the referee.

``random_table(seed)`` builds a started game (scenario, tanks from the shipped cards,
terrain, crews rolled) and ``play_game(seed)`` lets two scripted sides play it to the end.
The sides choose only among what ``options_for`` says is allowed, so any refusal of a chosen
action is a disagreement between ``options_for`` and ``adjudicate`` and raises
``SelfPlayError``. The one exception is a *move*: the bot picks a random point inside the
budget the option gives; it pre-checks the table area and the facing rules it knows, and a
move still refused is recorded in the ``GameRecord`` (not raised) so it can be counted.

Everything is reproducible: the table and the bots' choices come from ``random.Random``
seeded with the game seed; the dice are the server's, seeded with ``selfplay-{seed}``.
Pure engine code: no I/O.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tankref.core.dice import DiceState
from tankref.core.errors import RulesError
from tankref.core.geometry import Circle, Edge, Point, Polygon, TableArea, distance, point_at
from tankref.core.options import Option
from tankref.core.results import Result
from tankref.rulesets.ttt.actions import (
    Action,
    CrewRoll,
    EndPhase,
    Engage,
    GrizzledUse,
    Move,
    PlaceTank,
    PlaceTerrain,
    Recover,
    SetObjective,
    Smoke,
    StartGame,
    Wait,
)
from tankref.rulesets.ttt.cards import default_cards
from tankref.rulesets.ttt.engine import adjudicate, new_table, options_for
from tankref.rulesets.ttt.state import (
    Options,
    Player,
    Scenario,
    ScenarioKind,
    TableState,
    TankState,
    TerrainKind,
    TerrainPiece,
)

__all__ = [
    "GameRecord",
    "SelfPlayError",
    "StepHook",
    "play_game",
    "random_table",
]

TURN_LIMIT = 8
TERRAIN_KINDS: tuple[TerrainKind, ...] = ("blocking", "forest", "cover1", "cover2", "hill")
SCENARIOS: tuple[ScenarioKind, ...] = ("meeting", "ambush", "objective")
_OPPOSITE: dict[Edge, Edge] = {"north": "south", "south": "north", "east": "west", "west": "east"}
_EDGES: tuple[Edge, ...] = ("south", "north", "west", "east")
# How much the bot likes each kind of action when it is allowed.
_WEIGHTS: dict[str, float] = {"move": 3.0, "engage": 5.0, "wait": 1.0, "recover": 4.0, "smoke": 0.6}

StepHook = Callable[[TableState, Action, Result], None]


class SelfPlayError(RuntimeError):
    """The referee refused an action that ``options_for`` allowed (or a game did not end)."""

    def __init__(self, seed: int, message: str, action: Action | None = None) -> None:
        super().__init__(f"self-play seed {seed}: {message}")
        self.seed = seed
        self.action = action


@dataclass(frozen=True)
class GameRecord:
    seed: int
    scenario: ScenarioKind
    winner: str | None
    reason: str | None
    ending: str  # elimination, objective, turn_limit or draw
    turns: int
    actions: int
    final: TableState
    move_attempts: int = 0
    moves_refused: tuple[str, ...] = ()  # refusal codes of the bot's moves, in order

    @property
    def ended(self) -> bool:
        return self.final.status == "over"


# --- the table ----------------------------------------------------------------------------


def _apply(state: TableState, action: Action) -> TableState:
    return adjudicate(state, action).state


def _edge_point(area: TableArea, edge: Edge, depth: float, along: float) -> Point:
    """The point ``depth`` inches in from ``edge``, at ``along`` on the axis of the edge."""
    if edge == "south":
        return (along, area.z_min + depth)
    if edge == "north":
        return (along, area.z_max - depth)
    if edge == "west":
        return (area.x_min + depth, along)
    return (area.x_max - depth, along)


def _along_range(area: TableArea, edge: Edge, margin: float) -> tuple[float, float]:
    """Where along ``edge`` a point ``margin`` inches clear of the two side edges lies."""
    if edge in ("south", "north"):
        return area.x_min + margin, area.x_max - margin
    return area.z_min + margin, area.z_max - margin


def _clamp(area: TableArea, p: Point) -> Point:
    return (min(max(p[0], area.x_min), area.x_max), min(max(p[1], area.z_min), area.z_max))


def _toward_centre(area: TableArea, p: Point) -> float:
    cx, cz = (area.x_min + area.x_max) / 2, (area.z_min + area.z_max) / 2
    return math.degrees(math.atan2(cx - p[0], cz - p[1])) % 360


def _random_shape(rng: random.Random, area: TableArea) -> Circle | Polygon:
    cx = rng.uniform(area.x_min + 4, area.x_max - 4)
    cz = rng.uniform(area.z_min + 4, area.z_max - 4)
    if rng.random() < 0.5:
        return Circle(x=round(cx, 2), z=round(cz, 2), radius=round(rng.uniform(1.5, 8.0), 2))
    n = rng.randint(3, 7)
    points = []
    for i in range(n):  # one vertex per sector: a simple polygon with a clear area
        angle = 2 * math.pi * (i + rng.uniform(0.1, 0.9)) / n
        r = rng.uniform(2.0, 9.0)
        points.append((round(cx + r * math.cos(angle), 2), round(cz + r * math.sin(angle), 2)))
    return Polygon(points=tuple(points))


def _random_options(rng: random.Random) -> Options:
    arcs = (45.0, 45.0) if rng.random() < 0.6 else (rng.uniform(30, 60), rng.uniform(30, 60))
    return Options(
        turn_limit=rng.randint(5, TURN_LIMIT),
        front_arc=round(arcs[0], 1),
        rear_arc=round(arcs[1], 1),
        best_armour=rng.choice(("auto", "auto", "never")),
        cover=rng.choice(("armour", "armour", "literal")),
        smoke_stacking=rng.choice(("strongest", "strongest", "add")),
        grizzled_reroll=rng.choice(("auto", "auto", "ask")),
    )


def random_table(seed: int) -> TableState:
    """A started game: random scenario, 2-5 tanks a side, terrain, crews rolled (server dice)."""
    rng = random.Random(f"ttt-selfplay-table-{seed}")
    cards = default_cards()
    card_ids = sorted(cards.tanks)
    south_north = rng.random() < 0.7
    edges: tuple[Edge, Edge] = ("south", "north") if south_north else ("west", "east")
    if rng.random() < 0.5:
        edges = (edges[1], edges[0])
    players = (Player(id="Red", edge=edges[0]), Player(id="Blue", edge=edges[1]))
    ids = ("Red", "Blue")
    kind = rng.choice(SCENARIOS)
    options = _random_options(rng)
    if kind == "meeting":
        scenario = Scenario(kind="meeting", first_player=rng.choice((None, *ids)))
    elif kind == "ambush":
        scenario = Scenario(kind="ambush", ambusher=rng.choice(ids))
    else:
        scenario = Scenario(
            kind="objective",
            defender=rng.choice(ids),
            first_player=rng.choice((None, *ids)),
            objective_turns=rng.randint(3, options.turn_limit),
        )
    state = new_table(
        players, scenario=scenario, options=options, dice=DiceState(seed=f"selfplay-{seed}")
    )
    area = state.area

    for i in range(rng.randint(2, 6)):
        piece = TerrainPiece(
            id=f"T{i + 1}", kind=rng.choice(TERRAIN_KINDS), shape=_random_shape(rng, area)
        )
        state = _apply(state, PlaceTerrain(piece=piece))

    objective: Point | None = None
    if kind == "objective":
        objective = (round(rng.uniform(-24, 24), 2), round(rng.uniform(-12, 12), 2))
        state = _apply(state, SetObjective(x=objective[0], z=objective[1]))

    for player in players:
        count = rng.randint(2, 5)
        on_table = count
        if kind == "ambush" and player.id == scenario.ambusher:
            on_table = 0
        elif kind == "objective":
            on_table = math.ceil(count / 2) if player.id == scenario.defender else 0
        enemy_edge = _OPPOSITE[player.edge]
        for n in range(count):
            tank_id = f"{player.id[0]}{n + 1}"
            card = rng.choice(card_ids)
            if n >= on_table:
                action = PlaceTank(tank_id=tank_id, card=card, player=player.id, reserve=True)
            else:
                if objective is not None:
                    r = rng.uniform(0, 0.9 * scenario.objective_radius)
                    x, z = _clamp(area, point_at(objective, rng.uniform(0, 360), r))
                else:
                    low, high = _along_range(area, player.edge, 1.0)
                    depth = rng.uniform(0.2, options.deploy_depth - 0.2)
                    x, z = _edge_point(area, player.edge, depth, rng.uniform(low, high))
                facing = area.edge_heading(enemy_edge) + rng.uniform(-60, 60)
                action = PlaceTank(
                    tank_id=tank_id,
                    card=card,
                    player=player.id,
                    x=round(x, 3),
                    z=round(z, 3),
                    facing=round(facing % 360, 2),
                    hull_down=rng.random() < 0.1,
                )
            state = _apply(state, action)

    state = _apply(state, CrewRoll())
    return _apply(state, StartGame())


# --- the bots -----------------------------------------------------------------------------


def _ending(state: TableState) -> str:
    reason = state.game_over_reason or ""
    if state.winner is None:
        return "turn_limit" if "turn limit" in reason else "draw"
    if "no tanks left" in reason:
        return "elimination"
    return "objective"


class _Game:
    def __init__(self, seed: int, on_step: StepHook | None, max_actions: int) -> None:
        self.seed = seed
        self.rng = random.Random(seed)
        self.state = random_table(seed)
        self.on_step = on_step
        self.max_actions = max_actions
        self.actions = 0
        self.move_attempts = 0
        self.refused: list[str] = []

    # --- applying --------------------------------------------------------------------
    def apply(self, action: Action) -> bool:
        if self.actions >= self.max_actions:
            raise SelfPlayError(self.seed, f"no end after {self.max_actions} actions", action)
        if isinstance(action, Move):
            self.move_attempts += 1
        try:
            adj = adjudicate(self.state, action)
        except RulesError as err:
            if isinstance(action, Move):
                self.refused.append(err.code)
                return False
            raise SelfPlayError(
                self.seed,
                f"turn {self.state.turn}, {self.state.active_player}'s phase: allowed "
                f"{action!r} was refused: {err.code} ({err.clause}): {err.message}",
                action,
            ) from err
        self.state = adj.state
        self.actions += 1
        if self.on_step is not None:
            self.on_step(adj.state, action, adj.result)
        return True

    # --- choosing ----------------------------------------------------------------------
    def allowed(self, tank_id: str) -> dict[str, Option]:
        # The bots never read the shot odds: skipping them keeps self-play as fast as before.
        options = options_for(self.state, tank_id, odds=False)
        return {o.kind: o for o in options if o.allowed}

    def play(self) -> GameRecord:
        while self.state.status == "playing":
            self.play_phase()
        state = self.state
        return GameRecord(
            seed=self.seed,
            scenario=state.scenario.kind,
            winner=state.winner,
            reason=state.game_over_reason,
            ending=_ending(state),
            turns=state.turn,
            actions=self.actions,
            final=state,
            move_attempts=self.move_attempts,
            moves_refused=tuple(self.refused),
        )

    def play_phase(self) -> None:
        rng = self.rng
        player = self.state.active_player
        own = sorted(t.id for t in self.state.tanks.values() if t.player == player and t.in_play)
        rng.shuffle(own)
        for tank_id in own:
            for _ in range(rng.randint(0, 4)):
                if self.state.status != "playing":
                    return
                if rng.random() < 0.2:
                    self.waiting_enemy_fires()
                    if self.state.status != "playing":
                        return
                if not self.act(tank_id):
                    break
        if self.state.status == "playing":
            self.waiting_enemy_fires()
        if self.state.status == "playing":
            self.apply(EndPhase(player=player if rng.random() < 0.5 else None))

    def waiting_enemy_fires(self) -> None:
        state = self.state
        enemy = state.enemy_of(state.active_player)
        waiting = sorted(
            t.id for t in state.tanks.values() if t.player == enemy and t.waiting and t.on_board
        )
        for tank_id in waiting:
            if self.rng.random() < 0.5:
                engage = self.allowed(tank_id).get("engage")
                if engage is not None:
                    self.engage(tank_id, engage)
                    return

    def act(self, tank_id: str) -> bool:
        """One action for this tank, chosen among the allowed ones; False if none."""
        tank = self.state.tanks[tank_id]
        if not tank.in_play:
            return False
        allowed = self.allowed(tank_id)
        if not allowed:
            return False
        kinds = sorted(allowed)
        kind = self.rng.choices(kinds, weights=[_WEIGHTS[k] for k in kinds])[0]
        option = allowed[kind]
        if kind == "move":
            self.move(tank, option)
        elif kind == "engage":
            self.engage(tank_id, option)
        elif kind == "wait":
            self.apply(Wait(tank_id=tank_id))
        elif kind == "recover":
            self.apply(Recover(tank_id=tank_id, lender_id=self.lender(tank)))
        elif kind == "smoke":
            self.smoke(tank, option)
        return True

    def engage(self, tank_id: str, option: Option) -> None:
        detail = option.detail or {}
        target = self.rng.choice(detail["targets"])["target_id"]
        use: GrizzledUse | None = None
        if self.state.options.grizzled_reroll == "ask":
            use = self.rng.choice((None, "accuracy", "penetration", "none"))
        self.apply(Engage(tank_id=tank_id, target_id=target, grizzled_reroll=use))

    def lender(self, tank: TankState) -> str | None:
        if self.state.options.grizzled_reroll != "ask" or self.rng.random() < 0.3:
            return None
        friends = sorted(
            t.id
            for t in self.state.tanks.values()
            if t.player == tank.player
            and t.id != tank.id
            and t.on_board
            and t.grizzled
            and not t.reroll_used
        )
        return self.rng.choice(friends) if friends else None

    def smoke(self, tank: TankState, option: Option) -> None:
        rng = self.rng
        ability: dict[str, Any] = rng.choice((option.detail or {})["abilities"])
        if ability["kind"] != "mortar":
            self.apply(Smoke(tank_id=tank.id, ability=ability["ability"]))
            return
        reach = float(ability["range"])
        enemies = [t for t in self.state.tanks.values() if t.player != tank.player and t.on_board]
        in_range = [t for t in enemies if distance(tank.pos, t.pos) <= reach + 3]
        if in_range:
            mark = rng.choice(in_range)
            aim = point_at(mark.pos, rng.uniform(0, 360), rng.uniform(0, 3))
        else:
            aim = point_at(tank.pos, rng.uniform(0, 360), rng.uniform(0, reach))
        gap = distance(tank.pos, aim)
        if gap > reach * 0.99:  # pull the aim point back inside the mortar's range
            k = reach * 0.99 / gap
            aim = (tank.x + (aim[0] - tank.x) * k, tank.z + (aim[1] - tank.z) * k)
        self.apply(Smoke(tank_id=tank.id, ability=ability["ability"], x=aim[0], z=aim[1]))

    def move(self, tank: TankState, option: Option) -> None:
        rng = self.rng
        detail = option.detail or {}
        if detail["normal"] is None:  # it may only turn on the spot
            self.pivot(tank)
            return
        normal = float(detail["normal"])
        fast = detail.get("fast")
        if fast is not None and rng.random() < 0.3:
            low, high = normal + 0.5, float(fast) - 0.1
        else:
            low, high = 0.5, normal - 0.1
        dist = rng.uniform(low, max(low, high))
        hull_down = rng.choice((None, None, None, False, True))
        area = self.state.area
        if not tank.on_table:
            self.enter(tank, dist, hull_down, detail["entry_edges"])
            return
        start = (tank.start_x, tank.start_z)
        if rng.random() < 0.15 and detail["pivot"]:
            self.pivot(tank)
            return
        # Pre-check the table area: a few headings for a point on the table, clear of where
        # the tank began and where it stands (so it is a real move, not a turn on the spot);
        # failing that, the point clamped to the table edge.
        for _ in range(8):
            heading = rng.uniform(0, 360)
            if rng.random() < 0.6:  # mostly toward the middle of the table, where the enemy is
                heading = (_toward_centre(area, start) + rng.uniform(-70, 70)) % 360
            x, z = point_at(start, heading, dist)
            if (
                area.contains((x, z))
                and distance(start, (x, z)) >= 0.5
                and distance(tank.pos, (x, z)) >= 0.5
            ):
                break
        x, z = _clamp(area, (x, z))
        facing = heading if rng.random() < 0.8 else rng.uniform(0, 360)
        self.apply(
            Move(
                tank_id=tank.id,
                x=round(x, 3),
                z=round(z, 3),
                facing=round(facing % 360, 2),
                hull_down=hull_down,
            )
        )

    def pivot(self, tank: TankState) -> None:
        """Turn on the spot where the tank began its phase: its facing change (TTT-F1)."""
        facing = (tank.start_facing + self.rng.uniform(20, 340)) % 360
        self.apply(Move(tank_id=tank.id, x=tank.start_x, z=tank.start_z, facing=round(facing, 2)))

    def enter(
        self, tank: TankState, depth: float, hull_down: bool | None, edges: list[Edge]
    ) -> None:
        """A reserve tank drives on: ``depth`` inches in from an edge it may use."""
        state = self.state
        area = state.area
        edge = self.rng.choice(edges)
        # Keep clear of the two side edges, so the edge the referee measures from is this one.
        low, high = _along_range(area, edge, depth + 0.5)
        x, z = _edge_point(area, edge, depth, self.rng.uniform(low, max(low, high)))
        facing = (_toward_centre(area, (x, z)) + self.rng.uniform(-45, 45)) % 360
        self.apply(
            Move(
                tank_id=tank.id,
                x=round(x, 3),
                z=round(z, 3),
                facing=round(facing, 2),
                hull_down=hull_down,
            )
        )


def play_game(seed: int, *, on_step: StepHook | None = None, max_actions: int = 5000) -> GameRecord:
    """Play ``random_table(seed)`` to the end with two scripted sides.

    ``on_step(state, action, result)`` is called after every accepted action with the new
    state. Raises ``SelfPlayError`` when the referee refuses an action ``options_for``
    allowed (a refused *move* is recorded instead) or when ``max_actions`` is exceeded.
    """
    return _Game(seed, on_step, max_actions).play()
