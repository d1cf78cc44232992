"""What an AFV unit may do now, as data: one (kind, check) per action kind, each check the
very one the action's handler runs, so a menu never offers what the referee refuses."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from tankref.core.errors import RulesError
from tankref.core.flow import DESTROYED, GAME_OVER, NOT_STARTED, NOT_YOUR_PHASE
from tankref.core.geometry import bearing
from tankref.core.options import Option, option
from tankref.rulesets.afv.actions import Disembark, Embark, Fire, Spot
from tankref.rulesets.afv.carry import check_aboard, check_disembark, check_embark, check_may_board
from tankref.rulesets.afv.context import get_unit
from tankref.rulesets.afv.fire import check_weapon, plan_fire
from tankref.rulesets.afv.movement import check_evade, check_may_move, move_rate, nearest_enemy
from tankref.rulesets.afv.odds import shot_odds
from tankref.rulesets.afv.presentation import unit_label
from tankref.rulesets.afv.spotting import check_spot
from tankref.rulesets.afv.state import TableState, UnitState

# A check: (the table, the unit, with odds?) -> the option's detail, or the action's refusal.
Check = Callable[[TableState, UnitState, bool], dict[str, Any]]

# Refusals about the unit itself rather than one target: no other target would do better.
_UNIT_REFUSALS = (NOT_YOUR_PHASE, NOT_STARTED, GAME_OVER, DESTROYED, "CARRIED")


def _move(state: TableState, unit: UnitState, odds: bool) -> dict[str, Any]:
    u = check_may_move(state, unit.id)
    rate, why = move_rate(state, u, (u.start_x, u.start_z))
    detail: dict[str, Any] = {
        "from": [u.start_x, u.start_z],
        "rate_cm": rate,
        "rate_inches": round(rate / 2.54, 3),
        "moved_cm": u.moved_cm,
        "why": why,
        "units": "rate in cm as the rules give it; from and positions in table inches",
    }
    if u.suppressed:
        enemy = nearest_enemy(state, u, (u.start_x, u.start_z))
        if enemy is not None:
            detail["away_heading"] = round(bearing(enemy.pos, (u.start_x, u.start_z)), 1)
            detail["tolerance"] = state.options.retreat_tolerance
    return detail


def _evade(state: TableState, unit: UnitState, odds: bool) -> dict[str, Any]:
    return {"rate_cm": check_evade(state, unit.id).card.move_cm / 2}


def _spot(state: TableState, unit: UnitState, odds: bool) -> dict[str, Any]:
    targets = []
    first: RulesError | None = None
    for other in sorted(state.units.values(), key=lambda u: u.id):
        if other.player == unit.player or not other.on_board or not other.infantry:
            continue
        try:
            check_spot(state, Spot(tank_id=unit.id, target_id=other.id))
        except RulesError as err:
            if err.code in _UNIT_REFUSALS:
                raise
            first = first or err
            continue
        targets.append({"target_id": other.id, "p_spot": "1/2"})
    if not targets:
        raise first or RulesError(
            "NO_TARGETS", "AFV-SP1", f"{unit_label(unit)} has no enemy infantry to look for"
        )
    return {"targets": targets}


def _fire(state: TableState, unit: UnitState, odds: bool) -> dict[str, Any]:
    """Per weapon system, every target it may shoot, with the hit modifiers and (with
    ``odds``) the exact chance of a hit and of destroying it."""
    weapons = []
    first: RulesError | None = None
    for index in range(len(unit.card.weapon)):
        try:
            check_weapon(state, unit.id, index)
        except RulesError as err:
            if err.code in _UNIT_REFUSALS:
                raise
            first = first or err
            continue
        targets = []
        for other in sorted(state.units.values(), key=lambda u: u.id):
            if other.player == unit.player or not other.on_board:
                continue
            try:
                plan = plan_fire(state, Fire(tank_id=unit.id, target_id=other.id, weapon=index))
            except RulesError as err:
                first = first or err
                continue
            target: dict[str, Any] = {
                "target_id": other.id,
                "range_cm": round(plan.range_cm, 1),
                "range_band": plan.band,
                "hit_modifier": plan.hit_modifier,
                "needs_spot_roll": plan.seen.roll,
                "seen": plan.seen.note,
            }
            if odds:
                target.update(shot_odds(plan).brief())
            targets.append(target)
        if targets:
            weapon = unit.card.weapon[index]
            weapons.append({"weapon": index, "name": weapon.name, "targets": targets})
    if not weapons:
        raise first or RulesError("NO_TARGETS", "AFV-FR1", f"{unit_label(unit)} has no target")
    return {"weapons": weapons}


def _embark(state: TableState, unit: UnitState, odds: bool) -> dict[str, Any]:
    check_may_board(state, unit.id)  # the team's own refusals first, as the Embark gives them
    carriers = []
    first: RulesError | None = None
    for other in sorted(state.units.values(), key=lambda u: u.id):
        if other.player != unit.player or other.id == unit.id or not other.card.carries:
            continue
        try:
            check_embark(state, Embark(tank_id=unit.id, carrier_id=other.id))
        except RulesError as err:
            first = first or err
            continue
        carriers.append(other.id)
    if not carriers:
        raise first or RulesError("NO_CARRIER", "AFV-SPC1", "no friendly carrier on the table")
    return {"carriers": carriers}


def _disembark(state: TableState, unit: UnitState, odds: bool) -> dict[str, Any]:
    check_aboard(state, unit.id)  # in its phase and aboard, as the Disembark asks first
    assert unit.carried_by is not None
    carrier = state.units[unit.carried_by]
    check_disembark(state, Disembark(tank_id=unit.id, x=carrier.x, z=carrier.z))
    return {"carrier_id": carrier.id, "within_cm": unit.card.move_cm}


OPTION_CHECKS: tuple[tuple[str, Check], ...] = (
    ("move", _move),
    ("evade", _evade),
    ("spot", _spot),
    ("fire", _fire),
    ("embark", _embark),
    ("disembark", _disembark),
)


def options_for(state: TableState, unit_id: str, *, odds: bool = True) -> list[Option]:
    """What ``unit_id`` may do now, each refusal with its code and clause. Changes nothing."""
    unit = get_unit(state, unit_id)
    return [option(kind, partial(check, state, unit, odds)) for kind, check in OPTION_CHECKS]
