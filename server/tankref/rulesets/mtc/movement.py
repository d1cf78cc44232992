"""Movement in Minimal Tank Combat (MTC-MV1, MTC-MV2): where a tank may end its move this
phase, what a move costs, and the move itself.

A tank moves once a phase from the hex it began the phase in; several drops in one phase make
one move (``RULING_DROP_PATH``). Each check either returns the plan or raises the refusal;
none changes the state.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from tankref.core.adjudication import refuse
from tankref.core.errors import RulesError
from tankref.core.flow import OFF_TABLE
from tankref.core.hexgrid import Hex, Reach, hex_distance, path_to, reachable
from tankref.rulesets.mtc.actions import Move
from tankref.rulesets.mtc.context import TableContext, get_tank, label
from tankref.rulesets.mtc.rules import MOVE_COST, RULING_DROP_PATH, RULING_STACKING, road_bonus
from tankref.rulesets.mtc.state import TableState, TankState
from tankref.rulesets.mtc.turns import check_phase


def check_may_move(state: TableState, tank: TankState) -> None:
    check_phase(state, tank, "movement", "move")


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


def entry_problem(state: TableState, tank: TankState, h: Hex) -> RulesError | None:
    """Why ``tank`` may not enter hex ``h`` (off the map, no entry, an enemy there), if so."""
    if not state.on_map(h):
        return RulesError(OFF_TABLE, "MTC-HEX1", f"hex {h} is off the map", {"hex": list(h)})
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
    problem = None if dest == start else entry_problem(state, tank, dest)
    if problem is not None:
        raise problem
    other = state.tank_at(dest)
    if other is not None and other.id != tank.id:
        refuse(
            "HEX_OCCUPIED",
            "MTC-MV1",
            f"hex {dest} already holds {label(other)} (ruling: {RULING_STACKING})",
            hex=list(dest),
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
    refuse(
        "TOO_FAR",
        "MTC-MV2" if on_road else "MTC-MV1",
        f"{label(tank)} cannot reach hex {dest} from {start}: {why}, it has {budget}",
        needed=need,
        move=move,
        road_bonus=bonus if on_road else 0,
    )


def _plan_reported(
    state: TableState, tank: TankState, dest: Hex, path: list[Hex], move: int, bonus: int
) -> MovePlan:
    start = tank.start_hex
    if path[-1] != dest:
        refuse(
            "PATH_MISMATCH",
            "MTC-MV1",
            f"path: it ends in {path[-1]}, but the tank was put in {dest}",
            field="path",
        )
    here = start
    cost = 0
    for h in path:
        if hex_distance(here, h) != 1:
            refuse(
                "PATH_NOT_ADJACENT",
                "MTC-MV1",
                f"path: {h} is not next to {here} (list every hex entered, in order)",
                field="path",
                hex=list(h),
            )
        problem = entry_problem(state, tank, h)
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
        refuse(
            "TOO_FAR",
            "MTC-MV2" if on_road else "MTC-MV1",
            f"{label(tank)}'s path costs {cost} MP; it has {move} MP{bonus_text}",
            needed=cost,
            move=move,
            road_bonus=bonus if on_road else 0,
        )
    used = bonus if on_road and cost > move else 0
    return MovePlan(tank.id, start, dest, [start, *path], cost, budget, used, True)


def destination(state: TableState, action: Move) -> Hex:
    """The hex a move ends in: given, under the drop point, or the last of the path."""
    if action.hex is not None:
        return Hex(*action.hex)
    if action.x is not None and action.z is not None:
        return state.grid.hex_at(action.x, action.z)
    assert action.path is not None
    return Hex(*action.path[-1])


def plan_move_action(state: TableState, action: Move) -> MovePlan:
    tank = get_tank(state, action.tank_id)
    path = None if action.path is None else [Hex(q, r) for q, r in action.path]
    return plan_move(state, tank, destination(state, action), path)


# --- the option and the handler --------------------------------------------------------------


def move_option(state: TableState, tank: TankState) -> dict[str, Any]:
    """Every hex the tank may end in this phase (cheapest cost, whether the road bonus is
    needed): the move's own check, then its reach."""
    check_may_move(state, tank)
    reach = reachable_for(state, tank)
    return {
        "from": list(tank.start_hex),
        "move": reach.budget,
        "road_bonus": reach.bonus if reach.road is not None else 0,
        "hexes": reach.ends(state, tank),
    }


def move(ctx: TableContext, action: Move) -> None:
    plan = plan_move_action(ctx.state, action)
    tank = ctx.edit(plan.tank_id)
    tank.q, tank.r = plan.dest
    tank.moved = plan.dest != plan.start
    tank.mp_spent = plan.cost
    tank.road_bonus_used = plan.road_bonus > 0
    if action.facing is not None:
        tank.facing = action.facing
    route = " > ".join(str(h) for h in plan.path)
    if not tank.moved:
        ctx.say(f"{label(tank)} stays in hex {plan.start} this phase.")
    else:
        budget = f"{tank.design.move} MP" + (
            f" + {plan.road_bonus} road bonus" if plan.road_bonus else ""
        )
        ctx.say(f"{label(tank)} moves {route}: {plan.cost} MP of {budget}.")
    clause = "MTC-MV2" if plan.road_bonus else "MTC-MV1"
    if not plan.reported and tank.moved:
        ctx.rule(clause, RULING_DROP_PATH)
    ctx.result.outcome = {
        "from": list(plan.start),
        "to": list(plan.dest),
        "path": [list(h) for h in plan.path],
        "cost": plan.cost,
        "move": tank.design.move,
        "road_bonus": plan.road_bonus,
        "path_reported": plan.reported,
    }
    ctx.snap(tank)
