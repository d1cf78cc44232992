"""What may this tank do now: one option per action kind, from the checks the actions run.

``OPTION_CHECKS`` lists each kind with its check; a check that passes gives the option's
detail (spaces, targets with their odds), one that refuses gives the code and clause the
action itself would be refused with, because it is the same check.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from tankref.core.adjudication import refuse
from tankref.core.errors import RulesError
from tankref.core.options import Option, option
from tankref.rulesets.yrd import odds as yard_odds
from tankref.rulesets.yrd.anti_tank import anti_tank_target, check_anti_tank
from tankref.rulesets.yrd.attack import attack_target, check_attack
from tankref.rulesets.yrd.context import get_tank
from tankref.rulesets.yrd.movement import move_choices
from tankref.rulesets.yrd.state import TableState, TankState
from tankref.rulesets.yrd.turns import check_end_turn

# (state, the tank, whether to work out odds) -> the option's detail, or a refusal.
OptionCheck = Callable[[TableState, TankState, bool], dict[str, Any] | None]


def attack_choices(state: TableState, tank: TankState, odds: bool) -> dict[str, Any]:
    """YRD-AT1: the enemy pieces on the tank's own artillery spaces."""
    check_attack(state, tank)
    targets = []
    for piece in sorted(state.pieces.values(), key=lambda p: p.id):
        try:
            attack_target(state, tank, piece.id)
        except RulesError:
            continue
        entry: dict[str, Any] = {"target_id": piece.id, "artillery": piece.artillery}
        if odds:
            entry.update(yard_odds.attack_odds(state, tank, piece).brief())
        targets.append(entry)
    if not targets:
        refuse(
            "NO_TARGETS", "YRD-AT1", f"no enemy piece stands on {tank.player}'s artillery spaces"
        )
    return {"targets": targets}


def anti_tank_choices(state: TableState, tank: TankState, odds: bool) -> dict[str, Any]:
    """YRD-AN1: the enemy tank (an automatic failure when on its Shield space and the table
    says so); refused with the target's own refusal when it may not be attacked."""
    check_anti_tank(state, tank)
    targets = []
    first: RulesError | None = None
    for other in sorted(state.tanks.values(), key=lambda t: t.id):
        if other.player == tank.player:
            continue
        try:
            anti_tank_target(state, tank, other.id)
        except RulesError as err:
            first = first or err
            continue
        entry: dict[str, Any] = {"target_id": other.id, "space": other.space}
        if other.space == "shield":
            entry["auto_fail"] = True
        elif odds:
            entry.update(yard_odds.anti_tank_odds(state, tank, other).brief())
        targets.append(entry)
    if not targets:
        raise first or RulesError("NO_TARGETS", "YRD-AN1", "no enemy tank to attack")
    return {"targets": targets}


def end_turn_choice(state: TableState, tank: TankState, odds: bool) -> None:
    check_end_turn(state, tank.player)


OPTION_CHECKS: tuple[tuple[str, OptionCheck], ...] = (
    ("move", move_choices),
    ("attack", attack_choices),
    ("anti_tank", anti_tank_choices),
    ("end_turn", end_turn_choice),
)
KINDS = tuple(kind for kind, _ in OPTION_CHECKS)


def options_for(state: TableState, unit_id: str, *, odds: bool = True) -> list[Option]:
    """What ``unit_id`` may do now, each refusal with its code and clause. Changes nothing.

    A piece gets every kind refused (YRD-EN1: pieces have no tank actions); an unknown id is
    refused outright. ``odds``: give each target the exact odds of the contest (for menus);
    the self-play bots skip them."""
    try:
        tank = get_tank(state, unit_id)
    except RulesError as err:
        if unit_id not in state.pieces:
            raise
        return [Option(kind, False, err.code, err.clause, err.message) for kind in KINDS]
    return [option(kind, partial(check, state, tank, odds)) for kind, check in OPTION_CHECKS]
