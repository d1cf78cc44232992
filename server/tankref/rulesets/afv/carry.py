"""Carrying (AFV-SPC1): a team boards a friendly carrier within its move, rides with it, and
gets out within its move of it in a later phase."""

from __future__ import annotations

from tankref.core.adjudication import refuse
from tankref.core.flow import OFF_TABLE
from tankref.core.geometry import bearing, distance
from tankref.rulesets.afv.actions import Disembark, Embark
from tankref.rulesets.afv.cards import both, inches_to_cm
from tankref.rulesets.afv.context import AfvContext, get_unit, own_unit
from tankref.rulesets.afv.movement import check_may_move, place_direction
from tankref.rulesets.afv.presentation import unit_label
from tankref.rulesets.afv.state import TableState, UnitState

# Where the text is silent the referee rules, and says so in the result when it applies.
RULING_CARRY = (
    "A team boards a carrier within its own move and gets out within its own move of it, "
    "not in the same phase (a team that got out is measured from the carrier for the rest "
    "of that phase); carried teams neither spot nor fire and die with their carrier."
)


def check_may_board(state: TableState, tank_id: str) -> UnitState:
    """What the team itself must be to board any carrier (the menu asks this first too)."""
    team = check_may_move(state, tank_id)
    if team.got_out:
        refuse(
            "GOT_OUT_THIS_PHASE", "AFV-SPC1",
            f"{unit_label(team)} got out of its carrier this phase: it boards again in a "
            "later phase",
        )  # fmt: skip
    if not team.infantry:
        refuse("NOT_INFANTRY", "AFV-SPC1", f"{unit_label(team)} is not an infantry team")
    if team.suppressed:
        refuse(
            "MUST_MOVE_AWAY", "AFV-MV1",
            f"{unit_label(team)} is Suppressed: it may only move directly away from the enemy",
        )  # fmt: skip
    return team


def check_embark(state: TableState, action: Embark) -> tuple[UnitState, UnitState, float]:
    team = check_may_board(state, action.tank_id)
    carrier = get_unit(state, action.carrier_id, "carrier_id")
    if carrier.player != team.player or not carrier.on_board:
        refuse(
            "NOT_A_CARRIER",
            "AFV-SPC1",
            f"carrier_id: {unit_label(carrier)} is not a friend on the table",
        )
    aboard = sum(1 for u in state.units.values() if u.carried_by == carrier.id and u.in_play)
    if carrier.card.carries == 0:
        refuse("NOT_A_CARRIER", "AFV-SPC1", f"carrier_id: {carrier.card.name} carries nobody")
    if aboard >= carrier.card.carries:
        refuse(
            "CARRIER_FULL", "AFV-SPC1",
            f"{unit_label(carrier)} carries {carrier.card.carries} team(s) and has {aboard} aboard",
        )  # fmt: skip
    dist = inches_to_cm(distance((team.start_x, team.start_z), carrier.pos))
    if dist > team.card.move_cm + 1e-6:
        refuse(
            "TOO_FAR", "AFV-SPC1",
            f"{unit_label(carrier)} is {both(round(dist, 1))} from where {unit_label(team)} "
            f"began its phase; it moves {both(team.card.move_cm)}",
        )  # fmt: skip
    return team, carrier, dist


def embark(ctx: AfvContext, action: Embark) -> None:
    team, carrier, dist = check_embark(ctx.state, action)
    t = ctx.edit(team.id)
    t.carried_by = carrier.id
    t.x, t.z = carrier.x, carrier.z
    t.moved_cm = max(round(dist, 3), 0.001)  # it moved this phase: no Ready marker for it
    t.direction = None
    ctx.rule("AFV-SPC1", RULING_CARRY)
    ctx.say(f"{unit_label(t)} boards {unit_label(carrier)} (AFV-SPC1).")


def check_aboard(state: TableState, tank_id: str) -> UnitState:
    """The team's own, in its phase, and aboard a carrier (the menu asks this first too)."""
    team = own_unit(state, tank_id, "AFV-SPC1")
    if team.carried_by is None:
        refuse("NOT_CARRIED", "AFV-SPC1", f"{unit_label(team)} is not aboard a carrier")
    return team


def check_disembark(state: TableState, action: Disembark) -> tuple[UnitState, UnitState, float]:
    team = check_aboard(state, action.tank_id)
    if team.moved_cm > 0:
        refuse("EMBARKED_THIS_PHASE", "AFV-SPC1", f"{unit_label(team)} boarded this phase")
    if team.began_stopped:
        refuse("STOPPED_MARKER", "AFV-MV1", f"{unit_label(team)} began its phase Stopped")
    assert team.carried_by is not None  # check_aboard
    carrier = get_unit(state, team.carried_by, "carrier_id")
    if not state.area.contains((action.x, action.z)):
        refuse(
            OFF_TABLE, "AFV-MV1", f"({action.x:.1f}, {action.z:.1f}) is off the table", field="x"
        )
    dist = inches_to_cm(distance(carrier.pos, (action.x, action.z)))
    if dist > team.card.move_cm + 1e-6:
        refuse(
            "TOO_FAR", "AFV-SPC1",
            f"{unit_label(team)} gets out within {both(team.card.move_cm)} of its carrier; this "
            f"is {both(round(dist, 1))}",
        )  # fmt: skip
    return team, carrier, dist


def disembark(ctx: AfvContext, action: Disembark) -> None:
    team, carrier, dist = check_disembark(ctx.state, action)
    t = ctx.edit(team.id)
    t.carried_by = None
    t.x, t.z = action.x, action.z
    # Its move this phase is measured from the carrier: a later drag stays within its rate
    # of it (AFV-SPC1), and it does not board again this phase.
    t.start_x, t.start_z = carrier.x, carrier.z
    t.got_out = True
    t.moved_cm = max(round(dist, 3), 0.001)
    if dist > 0:
        t.facing = round(bearing(carrier.pos, t.pos), 3)
    how = place_direction(ctx, t, dist, t.card.move_cm)  # AFV-MV2 applies to getting out
    ctx.rule("AFV-SPC1", RULING_CARRY)
    ctx.say(
        f"{unit_label(t)} gets out of {unit_label(carrier)}, {both(round(dist, 1))} away "
        f"(AFV-SPC1): {how} (AFV-MV2)."
    )
