"""The checks and sums of Minimal Tank Combat, shared by ``adjudicate`` and ``options_for``.

Each ``check_*`` / ``plan_*`` either returns what the action would do or raises the
``RulesError`` that refuses it (stable code, clause); none of them changes the state.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from tankref.core.errors import NotFound, RulesError
from tankref.core.hexgrid import Hex, Reach, hex_distance, hex_lines, path_to, reachable
from tankref.rulesets.mtc.state import TableState, TankState, TerrainKind

# MTC-MV1: movement points to enter a hex; None = no entry.
MOVE_COST: dict[TerrainKind, int | None] = {
    "clear": 1,
    "rubble": 2,
    "crater": None,
    "road": 1,
    "town": 2,
}
BLOCKS_SIGHT: frozenset[TerrainKind] = frozenset({"crater"})  # MTC-LOS1
TOWN_DEFENSE = 1  # MTC-CB1: +1 DEFENSE in a town

# MTC-CB1 / MTC-CRT1: the columns, weakest first, and the lowest face that destroys.
COLUMNS: tuple[str, ...] = ("1-2", "1-1", "2-1", "3-1")
KILL_FROM: dict[str, int] = {"1-2": 5, "1-1": 4, "2-1": 3, "3-1": 2}

RULING_DROP_PATH = (
    "A drop is a move along the cheapest legal path from the hex the tank began its "
    "movement phase in (several drops in one phase make one move); a reported path is "
    "checked as given."
)
RULING_STACKING = (
    "One tank a hex: a tank may pass through hexes of friendly tanks but not enemy ones, "
    "and may not end its move in a hex another tank holds."
)
RULING_EDGE_LINE = (
    "A line running exactly along hex edges is blocked only if the hexes on both sides of "
    "it block (the shooter gets the benefit of the doubt)."
)
RULING_COLUMNS = "Odds better than 3-1 use the 3-1 column; worse than 1-2 cannot attack."


def get_tank(state: TableState, tank_id: str) -> TankState:
    tank = state.tanks.get(tank_id)
    if tank is None:
        raise NotFound(
            "UNKNOWN_TANK",
            None,
            f"tank_id: no tank {tank_id!r} on this table",
            {"field": "tank_id"},
        )
    return tank


def label(tank: TankState) -> str:
    return f"{tank.name} ({tank.player})"


def check_playing(state: TableState) -> None:
    if state.status == "setup":
        raise RulesError("NOT_STARTED", "MTC-INI1", "the game has not started (start_game)")
    if state.status == "over":
        raise RulesError("GAME_OVER", None, f"the game is over: {state.game_over_reason}")


def _check_phase(state: TableState, tank: TankState, step: str, verb: str) -> None:
    check_playing(state)
    if tank.destroyed:
        raise RulesError("DESTROYED", "MTC-CRT1", f"{label(tank)} was destroyed")
    active = state.active_player
    if tank.player != active:
        raise RulesError(
            "NOT_YOUR_PHASE",
            "MTC-INI1",
            f"{label(tank)} cannot {verb}: it is {active}'s {state.step} phase",
        )
    if state.step != step:
        raise RulesError(
            "WRONG_PHASE",
            "MTC-INI1",
            f"{label(tank)} cannot {verb} in the {state.step} phase (only in the {step} phase)",
        )


# --- movement --------------------------------------------------------------------------------


def road_bonus(tank: TankState) -> int:
    """MTC-MV2: half of MOVE, rounded down."""
    return tank.design.move // 2


def check_may_move(state: TableState, tank: TankState) -> None:
    _check_phase(state, tank, "movement", "move")


def _enter_cost(state: TableState, tank: TankState, road_only: bool) -> Callable[[Hex], int | None]:
    occupied = state.occupied()
    known: dict[Hex, int | None] = {}  # Dijkstra asks about each hex up to six times

    def cost(h: Hex) -> int | None:
        if h in known:
            return known[h]
        kind = state.terrain_at(h)
        other = occupied.get((h.q, h.r))
        enemy = other is not None and other.player != tank.player
        off_road = road_only and kind != "road"
        answer = None if enemy or off_road or not state.on_map(h) else MOVE_COST[kind]
        known[h] = answer
        return answer

    return cost


def _entry_problem(state: TableState, tank: TankState, h: Hex) -> RulesError | None:
    if not state.on_map(h):
        return RulesError("OFF_MAP", "MTC-HEX1", f"hex {h} is off the map", {"hex": list(h)})
    kind = state.terrain_at(h)
    if MOVE_COST[kind] is None:
        return RulesError("NO_ENTRY", "MTC-MV1", f"hex {h} is a {kind}: no entry", {"hex": list(h)})
    other = state.tank_at(h)
    if other is not None and other.id != tank.id and other.player != tank.player:
        return RulesError(
            "ENEMY_IN_HEX",
            "MTC-MV1",
            f"hex {h} holds the enemy {label(other)} (ruling: {RULING_STACKING})",
            {"hex": list(h)},
        )
    return None


@dataclass(frozen=True)
class Reachable:
    """Where a tank may still end its move this phase: cheapest paths with and without the
    road bonus (the road one only when it began on a road)."""

    normal: dict[Hex, Reach]
    road: dict[Hex, Reach] | None
    budget: int
    bonus: int

    def ends(self, state: TableState, tank: TankState) -> list[dict[str, Any]]:
        """Each hex it may end in, cheapest first, with the points it costs."""
        occupied = state.occupied()
        out: dict[Hex, dict[str, Any]] = {}
        for reach, road in ((self.normal, False), (self.road or {}, True)):
            for h, how in reach.items():
                other = occupied.get((h.q, h.r))
                if other is not None and other.id != tank.id:
                    continue
                if h in out:
                    continue
                out[h] = {"hex": [h.q, h.r], "cost": how.cost, "road": road}
        return sorted(out.values(), key=lambda e: (e["cost"], e["hex"]))


def reachable_for(state: TableState, tank: TankState) -> Reachable:
    start = tank.start_hex
    budget = tank.design.move
    bonus = road_bonus(tank)
    normal = reachable(start, _enter_cost(state, tank, False), budget)
    road = None
    if state.terrain_at(start) == "road" and bonus > 0:
        road = reachable(start, _enter_cost(state, tank, True), budget + bonus)
    return Reachable(normal, road, budget, bonus)


@dataclass(frozen=True)
class MovePlan:
    tank_id: str
    start: Hex
    dest: Hex
    path: list[Hex]  # start first
    cost: int
    budget: int
    road_bonus: int  # the bonus used (0 when not on the road)
    reported: bool  # the path was the player's, not the referee's cheapest


def plan_move(
    state: TableState, tank: TankState, dest: Hex, path: Sequence[Hex] | None = None
) -> MovePlan:
    check_may_move(state, tank)
    start = tank.start_hex
    problem = None if dest == start else _entry_problem(state, tank, dest)
    if problem is not None:
        raise problem
    other = state.tank_at(dest)
    if other is not None and other.id != tank.id:
        raise RulesError(
            "HEX_OCCUPIED",
            "MTC-MV1",
            f"hex {dest} already holds {label(other)} (ruling: {RULING_STACKING})",
            {"hex": list(dest)},
        )
    move = tank.design.move
    bonus = road_bonus(tank)
    if path is not None:
        return _plan_reported(state, tank, dest, list(path), move, bonus)
    if dest == start:
        return MovePlan(tank.id, start, dest, [start], 0, move, 0, False)
    reach = reachable_for(state, tank)
    if dest in reach.normal:
        return MovePlan(
            tank.id, start, dest, path_to(reach.normal, dest), reach.normal[dest].cost, move, 0,
            False,
        )  # fmt: skip
    if reach.road is not None and dest in reach.road:
        return MovePlan(
            tank.id, start, dest, path_to(reach.road, dest), reach.road[dest].cost,
            move + bonus, bonus, False,
        )  # fmt: skip
    # Too far: say how far it is when that is near enough to be worth counting.
    wide_budget = 2 * (move + bonus) + 2
    wide = reachable(start, _enter_cost(state, tank, False), wide_budget)
    need = wide[dest].cost if dest in wide else None
    on_road = reach.road is not None
    budget = f"{move} MP" + (f" (+{bonus} road bonus on roads only)" if on_road else "")
    why = f"needs {need} MP" if need is not None else f"needs more than {wide_budget} MP"
    raise RulesError(
        "TOO_FAR",
        "MTC-MV2" if on_road else "MTC-MV1",
        f"{label(tank)} cannot reach hex {dest} from {start}: {why}, it has {budget}",
        {"needed": need, "move": move, "road_bonus": bonus if on_road else 0},
    )


def _plan_reported(
    state: TableState, tank: TankState, dest: Hex, path: list[Hex], move: int, bonus: int
) -> MovePlan:
    start = tank.start_hex
    if path[-1] != dest:
        raise RulesError(
            "PATH_MISMATCH",
            "MTC-MV1",
            f"path: it ends in {path[-1]}, but the tank was put in {dest}",
            {"field": "path"},
        )
    here = start
    cost = 0
    for h in path:
        if hex_distance(here, h) != 1:
            raise RulesError(
                "PATH_NOT_ADJACENT",
                "MTC-MV1",
                f"path: {h} is not next to {here} (list every hex entered, in order)",
                {"field": "path", "hex": list(h)},
            )
        problem = _entry_problem(state, tank, h)
        if problem is not None:
            raise problem
        step = MOVE_COST[state.terrain_at(h)]
        assert step is not None
        cost += step
        here = h
    on_road = state.terrain_at(start) == "road" and all(state.terrain_at(h) == "road" for h in path)
    budget = move + (bonus if on_road else 0)
    if cost > budget:
        bonus_text = f" + {bonus} road bonus" if on_road and bonus else ""
        raise RulesError(
            "TOO_FAR",
            "MTC-MV2" if on_road else "MTC-MV1",
            f"{label(tank)}'s path costs {cost} MP; it has {move} MP{bonus_text}",
            {"needed": cost, "move": move, "road_bonus": bonus if on_road else 0},
        )
    used = bonus if on_road and cost > move else 0
    return MovePlan(tank.id, start, dest, [start, *path], cost, budget, used, True)


# --- sight and combat ------------------------------------------------------------------------


@dataclass(frozen=True)
class SightLine:
    """The line from shooter to target: both readings (equal unless it runs along edges)
    and what blocks each; clear when either reading is clear (RULING_EDGE_LINE)."""

    distance: int
    readings: tuple[list[Hex], list[Hex]]
    blocked: tuple[list[str], list[str]]

    @property
    def along_edge(self) -> bool:
        return self.readings[0] != self.readings[1]

    @property
    def clear(self) -> bool:
        return not self.blocked[0] or not self.blocked[1]


def sight_line(state: TableState, a: Hex, b: Hex) -> SightLine:
    readings = hex_lines(a, b)
    occupied = state.occupied()
    blocked: list[list[str]] = []
    for line in readings:
        found = []
        for h in line[1:-1]:  # the shooter's and the target's own hexes never block
            kind = state.terrain_at(h)
            if kind in BLOCKS_SIGHT:
                found.append(f"{kind} in {h}")
            other = occupied.get((h.q, h.r))
            if other is not None:
                found.append(f"{label(other)} in {h}")
        blocked.append(found)
    return SightLine(hex_distance(a, b), readings, (blocked[0], blocked[1]))


def check_may_fire(state: TableState, tank: TankState) -> None:
    _check_phase(state, tank, "combat", "fire")
    if tank.fired:
        raise RulesError("ALREADY_FIRED", "MTC-CB1", f"{label(tank)} has fired this turn")


def check_target(state: TableState, shooter: TankState, target: TankState) -> SightLine:
    """MTC-LOS1: the target within RANGE hexes and a clear line."""
    if target.player == shooter.player:
        raise RulesError("NOT_AN_ENEMY", "MTC-CB1", f"{label(target)} is on {shooter.name}'s side")
    if target.destroyed:
        raise RulesError("TARGET_DESTROYED", "MTC-CRT1", f"{label(target)} was destroyed")
    line = sight_line(state, shooter.hex, target.hex)
    if line.distance > shooter.design.range:
        raise RulesError(
            "OUT_OF_RANGE",
            "MTC-LOS1",
            f"{label(target)} is {line.distance} hexes from {shooter.name}; "
            f"its RANGE is {shooter.design.range}",
            {"distance": line.distance, "range": shooter.design.range},
        )
    if not line.clear:
        why = "; ".join(line.blocked[0])
        if line.along_edge:
            why += f" and on the other side of the edge: {'; '.join(line.blocked[1])}"
        raise RulesError(
            "NO_LINE_OF_SIGHT",
            "MTC-LOS1",
            f"no line of sight from {shooter.name} to {target.name}: {why}",
            {"blocked": line.blocked[0], "blocked_other_side": line.blocked[1]},
        )
    return line


def odds_column(attack: int, defense: int) -> str | None:
    """MTC-CB1: the ratio rounded down in the defender's favour; None below 1-2."""
    if attack >= 3 * defense:
        return "3-1"
    if attack >= 2 * defense:
        return "2-1"
    if attack >= defense:
        return "1-1"
    if 2 * attack >= defense:
        return "1-2"
    return None


def p_destroyed(column: str) -> Fraction:
    """MTC-CRT1: the chance one d6 destroys at this column."""
    return Fraction(7 - KILL_FROM[column], 6)


@dataclass(frozen=True)
class FirePlan:
    shooters: list[TankState]
    target: TankState
    attack: int
    defense: int
    town: bool
    column: str
    lines: dict[str, SightLine] = field(default_factory=dict)

    @property
    def p(self) -> Fraction:
        return p_destroyed(self.column)


def defense_of(state: TableState, target: TankState) -> tuple[int, bool]:
    town = state.terrain_at(target.hex) == "town"
    return target.design.defense + (TOWN_DEFENSE if town else 0), town


def plan_fire(state: TableState, tank_ids: Sequence[str], target_id: str) -> FirePlan:
    check_playing(state)
    if len(set(tank_ids)) != len(tank_ids):
        raise RulesError(
            "SAME_TANK_TWICE", "MTC-CB1", "tank_ids: a tank fires only once", {"field": "tank_ids"}
        )
    shooters = [get_tank(state, t) for t in tank_ids]
    target = state.tanks.get(target_id)
    if target is None:
        raise NotFound(
            "UNKNOWN_TANK",
            None,
            f"target_id: no tank {target_id!r} on this table",
            {"field": "target_id"},
        )
    lines = {}
    for shooter in shooters:
        check_may_fire(state, shooter)
        lines[shooter.id] = check_target(state, shooter, target)
    attack = sum(s.design.attack for s in shooters)
    defense, town = defense_of(state, target)
    column = odds_column(attack, defense)
    if column is None:
        raise RulesError(
            "ODDS_TOO_LOW",
            "MTC-CB1",
            f"ATTACK {attack} against DEFENSE {defense} is worse than 1-2: no attack "
            f"(ruling: {RULING_COLUMNS})",
            {"attack": attack, "defense": defense},
        )
    return FirePlan(shooters, target, attack, defense, town, column, lines)


def partners(state: TableState, shooter: TankState, target: TankState) -> list[str]:
    """Friendly tanks that could join ``shooter``'s attack on ``target`` now."""
    out = []
    for other in sorted(state.tanks.values(), key=lambda t: t.id):
        if other.id == shooter.id or other.player != shooter.player:
            continue
        try:
            check_may_fire(state, other)
            check_target(state, other, target)
        except RulesError:
            continue
        out.append(other.id)
    return out
