"""Movement (AFV-MV1, AFV-MV2, AFV-MV3): how far a unit may go this phase, from where it
began it, the direction marker it leaves, and a Suppressed unit's fall-back."""

from __future__ import annotations

from tankref.core.adjudication import refuse
from tankref.core.flow import IMMOBILIZED, OFF_TABLE
from tankref.core.geometry import (
    Point,
    bearing,
    distance,
    normalize_degrees,
    segment_enters,
    signed_angle,
)
from tankref.rulesets.afv.actions import Evade, Move
from tankref.rulesets.afv.cards import both, inches_to_cm
from tankref.rulesets.afv.context import AfvContext, own_unit
from tankref.rulesets.afv.presentation import unit_label
from tankref.rulesets.afv.state import TableState, UnitState

# Where the text is silent the referee rules, and says so in the result when it applies.
RULING_MEASURE = (
    "A move is measured in a straight line, in cm, from where the unit began its phase "
    "(the table's inches x 2.54); the unit then faces its direction of travel."
)
RULING_HALF = "Exactly half the rate counts as 'half or less': direction marker across the path."
RULING_SLOW = (
    "A move whose straight path starts in or crosses terrain that slows the unit's card is "
    "limited to the slow rate."
)
RULING_RETREAT = (
    "'Directly away from the enemy' is away from the nearest enemy unit, within the table's "
    "retreat tolerance; 'full speed' is up to the full rate. It is judged by where the move "
    "ends: dragged back to where it began, the unit has not fallen back and keeps its marker."
)


def nearest_enemy(state: TableState, unit: UnitState, pos: Point) -> UnitState | None:
    enemies = [u for u in state.units.values() if u.player != unit.player and u.on_board]
    if not enemies:
        return None
    return min(enemies, key=lambda e: (distance(pos, e.pos), e.id))


def slowed_by(state: TableState, unit: UnitState, a: Point, b: Point) -> str | None:
    """AFV-MV3: the first piece of slowing terrain the straight path a-b starts in or crosses."""
    kinds = unit.card.slow_on
    if not kinds:
        return None
    for piece in sorted(state.terrain.values(), key=lambda p: p.id):
        if piece.kind in kinds and segment_enters(piece.shape, a, b):
            return piece.id
    return None


def check_may_move(state: TableState, unit_id: str) -> UnitState:
    """May this unit move at all now? (Not where: see ``move_limit``.)"""
    unit = own_unit(state, unit_id, "AFV-MV1")
    if unit.carried_by is not None:
        refuse(
            "CARRIED", "AFV-SPC1",
            f"{unit_label(unit)} is carried by {unit.carried_by}: it moves with it",
        )  # fmt: skip
    if unit.fired:
        refuse("ALREADY_FIRED", "AFV-SEQ1", f"{unit_label(unit)} has fired: its move is over")
    if unit.began_stopped:
        refuse(
            "STOPPED_MARKER", "AFV-MV1",
            f"{unit_label(unit)} began its phase with a Stopped marker: no move, straight to Fire",
        )  # fmt: skip
    if unit.immobilised:
        refuse(IMMOBILIZED, "AFV-DMG1", f"{unit_label(unit)} is stopped for good")
    return unit


def terrain_rate(state: TableState, unit: UnitState, dest: Point) -> tuple[float, list[str]]:
    """The full rate (cm) for the ground a move from the phase's start to ``dest`` crosses
    (AFV-MV3), and why: what "half" is measured against (AFV-MV2, a degraded vehicle's ½)."""
    start = (unit.start_x, unit.start_z)
    rate = unit.card.move_cm
    why = [f"move {both(rate)}"]
    slow = slowed_by(state, unit, start, dest)
    if slow is not None and unit.card.slow_move_cm is not None:
        rate = unit.card.slow_move_cm
        why.append(f"{both(rate)} through {state.terrain[slow].kind} ({slow}, AFV-MV3)")
    return rate, why


def move_rate(state: TableState, unit: UnitState, dest: Point) -> tuple[float, list[str]]:
    """The rate (cm) that applies to a move from the phase's start to ``dest``, and why."""
    rate, why = terrain_rate(state, unit, dest)
    if unit.evasive:
        rate = rate / 2
        why.append(f"evasive: half, {both(rate)} (AFV-MV2)")
    return rate, why


def check_move(state: TableState, move: Move) -> tuple[UnitState, float, float, list[str]]:
    """The unit, the move's length and rate (cm) and how the rate was found; or a refusal."""
    unit = check_may_move(state, move.tank_id)
    if move.evasive and not unit.evasive and unit.moved_cm > 0:
        refuse(
            "EVADE_TOO_LATE", "AFV-MV2",
            f"{unit_label(unit)} has already moved: declare an evasive move before it",
        )  # fmt: skip
    if move.evasive is False and unit.evasive:
        refuse("EVASIVE_DECLARED", "AFV-MV2", f"{unit_label(unit)} declared an evasive move")
    if not state.area.contains((move.x, move.z)):
        refuse(OFF_TABLE, "AFV-MV1", f"({move.x:.1f}, {move.z:.1f}) is off the table", field="x")
    if move.evasive and not unit.evasive:
        unit = unit.model_copy(update={"evasive": True})
    start = (unit.start_x, unit.start_z)
    dest = (move.x, move.z)
    moved = inches_to_cm(distance(start, dest))
    rate, why = move_rate(state, unit, dest)
    if moved > rate + 1e-6:
        refuse(
            "TOO_FAR", "AFV-MV3" if len(why) > 1 and "AFV-MV3" in why[1] else "AFV-MV1",
            f"{unit_label(unit)} may move {both(rate)} this phase ({'; '.join(why)}); "
            f"this move is {both(round(moved, 1))} from where it began the phase",
            moved_cm=round(moved, 2), rate_cm=rate,
        )  # fmt: skip
    if (unit.suppressed or unit.retreated) and moved > 0:  # the whole move, every drag
        enemy = nearest_enemy(state, unit, start)
        if enemy is not None:
            away = bearing(enemy.pos, start)
            off = abs(signed_angle(bearing(start, dest) - away))
            if off > state.options.retreat_tolerance:
                refuse(
                    "MUST_MOVE_AWAY", "AFV-MV1",
                    f"{unit_label(unit)} is Suppressed: it may only move directly away from "
                    f"the nearest enemy, {unit_label(enemy)} (heading {away:.0f}°; this move "
                    f"is {off:.0f}° off)",
                    away_heading=round(away, 1),
                )  # fmt: skip
    return unit, moved, rate, why


def move(ctx: AfvContext, action: Move) -> None:
    state = ctx.state
    unit, moved, rate, why = check_move(state, action)
    u = ctx.edit(unit.id)
    if action.evasive:
        u.evasive = True
    start = (u.start_x, u.start_z)
    dest = (action.x, action.z)
    u.x, u.z = dest
    ctx.rule("AFV-MV1", RULING_MEASURE)
    if len(why) > 1 and "AFV-MV3" in why[1]:
        ctx.rule("AFV-MV3", RULING_SLOW)
    if moved <= 0.01 and u.got_out:
        # Beside its carrier: getting out was its move (AFV-SPC1), half or less of it.
        u.moved_cm = 0.001
        u.facing = normalize_degrees(action.facing)
        how = place_direction(ctx, u, 0.0, rate)
        ctx.say(f"{unit_label(u)} stands by the carrier it got out of: {how} (AFV-MV2).")
    elif moved <= 0.01:
        # Back where it began (or turned on the spot): not a move.
        u.moved_cm = 0.0
        u.facing = normalize_degrees(action.facing)
        u.direction = None
        ctx.say(f"{unit_label(u)} has not moved from where it began the phase.")
        if u.retreated:
            # AFV-MV1 judges the fall-back by where the move ends, not by its first drag:
            # back at the start it has not fallen back, and the marker is still there.
            u.retreated = False
            u.suppressed = True
            ctx.say(f"{unit_label(u)} did not fall back: it keeps its Suppressed marker (AFV-MV1).")
    else:
        u.moved_cm = round(moved, 3)
        travel = bearing(start, dest)
        u.facing = round(travel, 3)  # AFV-MV1: it faces its direction of travel
        if abs(signed_angle(action.facing - travel)) > 2:
            ctx.event(
                "face", "AFV-MV1", f"{unit_label(u)} faces its direction of travel ({travel:.0f}°)",
                tank_id=u.id, facing=round(travel, 1),
            )  # fmt: skip
        full = rate * 2 if u.evasive else rate
        if u.evasive:
            u.direction = normalize_degrees(travel + 90)
            how = "evasive: direction marker across its path"
        else:
            how = place_direction(ctx, u, moved, full)
        ctx.say(f"{unit_label(u)} moved {both(round(moved, 1))} of {both(rate)}: {how} (AFV-MV2).")
        if u.suppressed:
            u.suppressed = False
            u.retreated = True
            ctx.rule(
                "AFV-MV1", RULING_RETREAT, "retreat_tolerance", state.options.retreat_tolerance
            )
            ctx.say(
                f"{unit_label(u)} fell back from the enemy: Suppressed marker removed (AFV-MV1)."
            )
    for other_id in sorted(state.units):
        other = state.units[other_id]
        if other.carried_by == u.id:
            o = ctx.edit(other_id)
            o.x, o.z = u.x, u.z


def place_direction(ctx: AfvContext, u: UnitState, moved: float, full: float) -> str:
    """AFV-MV2 after a move of ``moved`` cm at the full rate ``full``: more than half, the
    direction marker along the new facing; half or less (exactly half: the ruling), across."""
    if moved > full / 2 + 1e-9:
        u.direction = u.facing
        return "more than half its rate: direction marker along its facing"
    u.direction = normalize_degrees(u.facing + 90)
    if abs(moved - full / 2) < 0.05:
        ctx.rule("AFV-MV2", RULING_HALF)
    return "half its rate or less: direction marker across its facing"


def check_evade(state: TableState, unit_id: str) -> UnitState:
    unit = check_may_move(state, unit_id)
    if unit.evasive:
        refuse("ALREADY_EVASIVE", "AFV-MV2", f"{unit_label(unit)} already moves evasively")
    if unit.moved_cm > 0:
        refuse(
            "EVADE_TOO_LATE", "AFV-MV2",
            f"{unit_label(unit)} has already moved: declare an evasive move before it",
        )  # fmt: skip
    return unit


def evade(ctx: AfvContext, action: Evade) -> None:
    unit = check_evade(ctx.state, action.tank_id)
    u = ctx.edit(unit.id)
    u.evasive = True
    rate, _ = move_rate(ctx.state, u, u.pos)
    ctx.say(f"{unit_label(u)} will move evasively: up to {both(rate)} (AFV-MV2).")
