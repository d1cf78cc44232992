"""Move, Move Fast, facing, Wait and the Routed drive (TTT-M1, TTT-M2, TTT-F1, TTT-W1, TTT-MR2).

TTS reports where a tank now stands; the referee classifies that from where the tank began
its phase (straight-line distance, so several drags in one phase count as one move):
stopped (within the table's drift tolerance), a Normal Move (up to Movement), Moving Fast
(up to twice Movement), or illegal (further). A move may end facing any way, since a tank
drives where it points; turning on the spot is the once-a-turn facing change (TTT-F1).
"""

from __future__ import annotations

from dataclasses import dataclass

from tankref.core import flow
from tankref.core.adjudication import assign, refuse
from tankref.core.geometry import Edge, Point, distance, signed_angle
from tankref.rulesets.ttt.actions import Move, Wait
from tankref.rulesets.ttt.adjudication import Context
from tankref.rulesets.ttt.flow import get_tank, require_own_phase, require_playing
from tankref.rulesets.ttt.morale import rout_point
from tankref.rulesets.ttt.presentation import tank_label
from tankref.rulesets.ttt.state import MoveKind, TableState, TankState

EDGES: tuple[Edge, ...] = ("south", "north", "west", "east")


def turned(a: float, b: float, tolerance: float) -> bool:
    return abs(signed_angle(a - b)) > tolerance


def classify(state: TableState, tank: TankState, travelled: float) -> MoveKind:
    """TTT-M1/M2: stopped, normal, fast; further than twice Movement is refused."""
    tol = state.options.move_tolerance
    if travelled <= tol:
        return "none"
    if travelled <= tank.movement + tol:
        return "normal"
    if travelled <= 2 * tank.movement + tol:
        return "fast"
    refuse(
        "MOVE_TOO_FAR",
        "TTT-M2",
        f'{tank_label(tank)} moved {travelled:.1f}": more than twice its Movement '
        f'({2 * tank.movement:g}")',
        travelled=round(travelled, 2),
        normal=tank.movement,
        fast=2 * tank.movement,
    )


def check_entry_time(state: TableState, tank: TankState) -> None:
    """TTT-S2/S3: whether a tank off the table may drive on yet."""
    scenario = state.scenario
    if scenario.kind == "ambush" and tank.player == scenario.ambusher and state.turn < 2:
        refuse("AMBUSH_NOT_YET", "TTT-S2", "the ambusher enters in its phase of turn two")
    if scenario.kind == "objective" and tank.player == scenario.defender and state.turn < 2:
        refuse(
            "REINFORCEMENTS_NOT_YET", "TTT-S3", "the defender's reinforcements arrive from turn two"
        )


def entry_edges(state: TableState, tank: TankState) -> list[Edge]:
    """The edges a tank off the table may drive on from (TTT-S2: any but the ambushed's)."""
    scenario = state.scenario
    if scenario.kind == "ambush" and tank.player == scenario.ambusher:
        ambushed_edge = state.player(state.enemy_of(tank.player)).edge
        return [e for e in EDGES if e != ambushed_edge]
    return [state.player(tank.player).edge]


def check_may_drive(state: TableState, tank: TankState) -> None:
    """Whether the tank may drive (or turn) in this phase at all, before any distance."""
    label = tank_label(tank)
    if tank.on_table:
        require_own_phase(state, tank.id)
    else:
        require_playing(state)
        if tank.player != state.active_player:
            refuse(flow.NOT_YOUR_PHASE, "TTT-T1", f"it is {state.active_player}'s phase")
        check_entry_time(state, tank)
    if tank.bound_to_recover:
        refuse("MUST_RECOVER", "TTT-MR4", f"{label} is Shaken and Immobilized: it may only Recover")
    if tank.morale == "routed":
        refuse(
            "ROUTED_MOVES_ITSELF",
            "TTT-MR2",
            f"{label} is Routed: the referee drives it toward its edge at the end of the phase",
        )


def drive_blocker(tank: TankState) -> tuple[str, str, str] | None:
    """Why the tank may not leave its spot this phase (code, clause, why), if it may not."""
    if tank.engaged:
        return "MOVE_AFTER_ENGAGE", "TTT-M1", "it has engaged: a tank moves before it Engages"
    if tank.waiting:
        return "MOVE_WHILE_WAITING", "TTT-W1", "it is in Wait, Stopped"
    if tank.smoke_popped:
        return "ACTION_AFTER_SMOKE", "TTT-SM1", "it popped reusable smoke this turn"
    if tank.immobilized:
        return flow.IMMOBILIZED, "TTT-E7", "it is Immobilized"
    return None


def fast_blocker(tank: TankState) -> tuple[str, str, str] | None:
    """Why the tank may not Move Fast this phase, if it may not."""
    if tank.morale == "shaken":
        return "SHAKEN_NO_FAST", "TTT-MR1", "a Shaken crew cannot Move Fast"
    if tank.engine_damaged:
        return "ENGINE_NO_FAST", "TTT-E7", "its engine is damaged: no Move Fast"
    if tank.recover_tried:
        return "ACTION_AFTER_RECOVER", "TTT-R1", "after a Recover only a Normal Move is allowed"
    return None


def pivot_blocker(state: TableState, tank: TankState) -> tuple[str, str, str] | None:
    """Why the tank may not turn on the spot now (TTT-F1), if it may not."""
    if tank.moved == "fast":
        return (
            "FACING_AFTER_FAST",
            "TTT-M2",
            "it moved fast: its facing is fixed until its next turn",
        )
    if tank.best_armour_turned:
        return "FACING_ALREADY_CHANGED", "TTT-F1", facing_used(state, tank)
    if tank.immobilized and not state.options.immobilized_turns:
        return (
            flow.IMMOBILIZED,
            "TTT-F1",
            "it is Immobilized: it cannot turn on the spot (option immobilized_turns false)",
        )
    if tank.engaged:
        return "MOVE_AFTER_ENGAGE", "TTT-M1", "it has engaged: no facing change after the Engage"
    if tank.waiting:
        return "MOVE_WHILE_WAITING", "TTT-W1", "it is in Wait: it turned before it stopped"
    return None


def facing_used(state: TableState, tank: TankState) -> str:
    """The refusal of a second facing change, saying when the tank's turn began (TTT-F1)."""
    return (
        f"it already changed facing in its turn, which began with {state.turn_began(tank)} "
        "(TTT-F1: once a turn; a tank's turn runs from its own phase through the enemy's phase "
        "after it)"
    )


@dataclass(frozen=True)
class MovePlan:
    kind: MoveKind
    travelled: float
    pivot: bool  # turned on the spot: the facing change (TTT-F1)
    entry_edge: Edge | None  # set when the tank drives on from off the table
    start: Point  # where the move is measured from


def is_drift(state: TableState, action: Move) -> bool:
    """TTS physics settling a model that did not really move or turn (table tolerances)."""
    tank = state.tanks.get(action.tank_id)
    if tank is None or not tank.on_table:
        return False
    options = state.options
    return (
        distance(tank.pos, (action.x, action.z)) <= options.move_tolerance
        and not turned(tank.facing, action.facing, options.facing_tolerance)
        and (action.hull_down is None or action.hull_down == tank.hull_down)
    )


def check_move(state: TableState, action: Move) -> MovePlan | None:
    """Classify a reported position and facing; None when it is drift, not a move."""
    if state.status == "setup":
        refuse("USE_PLACE_TANK", "TTT-S1", "during setup, place tanks with place_tank")
    require_playing(state)
    tank = get_tank(state, action.tank_id)
    options = state.options
    new = (action.x, action.z)
    label = tank_label(tank)
    same_spot = distance(tank.pos, new) <= options.move_tolerance
    same_facing = not turned(tank.facing, action.facing, options.facing_tolerance)
    if is_drift(state, action):
        return None  # TTS physics drift: nothing to adjudicate
    if tank.on_board and tank.player != state.active_player:
        if same_spot:
            refuse(
                "FACING_NOT_ALLOWED",
                "TTT-F1",
                f"{label} may change facing in the enemy's phase only to turn its best armour to "
                "a shot, which the referee does itself",
            )
        refuse(
            flow.NOT_YOUR_PHASE,
            "TTT-T1",
            f"it is {state.active_player}'s phase: {label} cannot move now",
            active_player=state.active_player,
        )
    check_may_drive(state, tank)
    if not state.area.contains(new):
        refuse(
            flow.OFF_TABLE,
            "TTT-MR2",
            f"({action.x:g}, {action.z:g}) is off the table; only a Routed tank drives off",
            field="x",
        )

    entry_edge: Edge | None = None
    if tank.on_table:
        start = (tank.start_x, tank.start_z)
    else:
        # Ruling (TTT-S2, TTT-S3): an entering tank is measured from the point where it
        # crossed the edge, straight behind where it stops.
        entry_edge = state.area.nearest_edge(new)
        allowed = entry_edges(state, tank)
        if len(allowed) == 1:
            entry_edge = allowed[0]
        elif entry_edge not in allowed:
            refuse(
                "AMBUSH_EDGE",
                "TTT-S2",
                f"the ambusher may not enter from the {entry_edge} edge, where the ambushed side "
                "started",
                edge=entry_edge,
            )
        start = state.area.drive_toward_edge(
            entry_edge, new, state.area.distance_to_edge(entry_edge, new)
        )[0]
    travelled = distance(start, new)
    kind = classify(state, tank, travelled)
    if kind != "none" or entry_edge is not None:
        blocked = drive_blocker(tank)
        if blocked:
            code, clause, why = blocked
            refuse(code, clause, f"{label} cannot move: {why}")
    if kind == "fast":
        blocked = fast_blocker(tank)
        if blocked:
            code, clause, why = blocked
            refuse(
                code,
                clause,
                f'{label} moved {travelled:.1f}" (a Fast move): {why}',
                travelled=round(travelled, 2),
            )
    # TTT-F1: turning on the spot is the once-a-turn facing change. TTS reports a rotation in
    # steps, so several turns in one phase are one change, measured from the facing the tank
    # began its phase with. After a Fast move the facing is fixed (TTT-M2).
    if tank.moved == "fast" and same_spot and not same_facing:
        refuse(
            "FACING_AFTER_FAST",
            "TTT-M2",
            f"{label} moved fast: its facing is fixed until its next turn",
        )
    pivot = False
    if kind == "none" and entry_edge is None:
        pivot = turned(tank.start_facing, action.facing, options.facing_tolerance)
        blocked = None if same_facing else pivot_blocker(state, tank)
        if blocked:
            code, clause, why = blocked
            refuse(code, clause, f"{label} cannot turn: {why}")
    return MovePlan(kind, travelled, pivot, entry_edge, start)


def do_move(ctx: Context, action: Move) -> None:
    plan = check_move(ctx.state, action)
    tank = ctx.tank(action.tank_id)
    label = tank_label(tank)
    if plan is None:
        ctx.say(f"{label}: no change.")
        return
    t = ctx.edit(tank.id)
    old = (t.x, t.z, t.facing)
    t.x, t.z, t.facing = action.x, action.z, action.facing % 360
    if action.hull_down is not None:
        t.hull_down = action.hull_down
    if plan.entry_edge is not None:
        t.on_table = True
        t.entered_edge = plan.entry_edge
        t.start_x, t.start_z = plan.start
        t.start_facing = t.facing
        ctx.rule(
            "TTT-S2",
            f"enters from the {plan.entry_edge} edge; the move is measured from where it "
            "crossed it",
        )
    t.moved = plan.kind
    t.facing_changed = t.best_armour_turned or plan.pivot
    if plan.pivot:
        ctx.say(f"{label} turns on the spot to {t.facing:g}° (its facing change this turn).")
    elif plan.kind == "none":
        ctx.say(f"{label} stays where it began its phase.")
    else:
        what = "makes a Normal Move" if plan.kind == "normal" else "Moves Fast"
        ctx.say(
            f'{label} {what}: {plan.travelled:.1f}" (Movement {t.movement:g}", '
            f'fast {2 * t.movement:g}").'
        )
    ctx.rule("TTT-M1", "a move is measured in a straight line from where the tank began its phase")
    ctx.result.outcome.update(
        tank_id=t.id,
        move=plan.kind,
        travelled=round(plan.travelled, 2),
        facing_change=plan.pivot,
        before=list(old),
    )
    if plan.kind == "fast":
        ctx.event("moving_fast", "TTT-M2", f"{label} is Moving Fast", tank_id=t.id)


def check_wait(state: TableState, tank_id: str) -> TankState:
    """TTT-W1: at most a Normal Move, no Engage, Stopped; not Shaken (TTT-MR1)."""
    tank = require_own_phase(state, tank_id)
    label = tank_label(tank)
    checks = [
        (tank.waiting, "ALREADY_WAITING", "TTT-W1", "it is already in Wait"),
        (tank.engaged, "WAIT_AFTER_ENGAGE", "TTT-W1", "it has engaged this turn"),
        (tank.moved == "fast", "WAIT_AFTER_FAST", "TTT-W1", "it moved fast this turn"),
        (tank.morale == "shaken", "WAIT_WHILE_SHAKEN", "TTT-MR1", "a Shaken crew cannot Wait"),
        (tank.morale == "routed", "ROUTED", "TTT-MR2", "a Routed crew drives for its edge"),
        (tank.bound_to_recover, "MUST_RECOVER", "TTT-MR4", "it may only try to Recover"),
        (tank.recover_tried, "ACTION_AFTER_RECOVER", "TTT-R1", "it tried to Recover this turn"),
    ]
    for blocked, code, clause, why in checks:
        if blocked:
            refuse(code, clause, f"{label} cannot Wait: {why}")
    return tank


def do_wait(ctx: Context, action: Wait) -> None:
    tank = check_wait(ctx.state, action.tank_id)
    label = tank_label(tank)
    t = ctx.edit(tank.id)
    t.waiting = True
    ctx.say(f"{label} stops and Waits: it may Engage during the enemy's phase.")
    ctx.event("wait", "TTT-W1", f"{label} is in Wait", tank_id=t.id)


def rout_move(ctx: Context, tank_id: str) -> None:
    """TTT-MR2: a full Movement straight toward the edge it entered from; off it, gone."""
    state = ctx.state
    t = ctx.edit(tank_id)
    edge, new, left = rout_point(state, t)
    # set as ``assign`` sets fields (no validating setattr each: a phase's end may drive
    # several Routed tanks)
    assign(
        t,
        x=round(new[0], 3),
        z=round(new[1], 3),
        facing=state.area.edge_heading(edge),
        moved="normal",
    )
    label = tank_label(t)
    if left:
        assign(t, removed=True, waiting=False)
        text = f"{label} is Routed and drives off the {edge} edge: removed from play."
    else:
        text = f'{label} is Routed and drives {t.movement:g}" toward the {edge} edge.'
    ctx.say(text)
    ctx.event(
        "rout_move", "TTT-MR2", text, tank_id=t.id, x=t.x, z=t.z, facing=t.facing, removed=left
    )
