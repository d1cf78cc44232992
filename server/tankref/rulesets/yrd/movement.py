"""The movement phase (YRD-SP1): once a turn, before its attack, a tank moves to another of its
own yard's tank spaces (named, or found under the model's reported position)."""

from __future__ import annotations

from typing import Any

from tankref.core.adjudication import refuse
from tankref.core.errors import RulesError
from tankref.rulesets.yrd.actions import Move
from tankref.rulesets.yrd.context import YardContext, check_may_act, get_tank
from tankref.rulesets.yrd.presentation import tank_label
from tankref.rulesets.yrd.state import (
    SPACE_LABEL,
    TANK_SPACES,
    SpaceName,
    TableState,
    TankState,
    space_named_at,
    tank_space_at,
)


def check_may_move(state: TableState, tank: TankState) -> None:
    """YRD-SP1: one movement phase a turn, before the tank's attack."""
    check_may_act(state, tank)
    if tank.attacked:
        refuse(
            "ALREADY_ATTACKED",
            "YRD-SP1",
            f"{tank_label(tank)} has attacked this turn: the movement phase comes first",
        )
    if tank.moved:
        refuse("ALREADY_MOVED", "YRD-SP1", f"{tank_label(tank)} has used its movement phase")


def check_destination(state: TableState, tank: TankState, space: SpaceName) -> None:
    if space == tank.space:
        refuse(
            "SAME_SPACE",
            "YRD-SP1",
            f"{tank_label(tank)} is on its {SPACE_LABEL[space]} space already: staying needs "
            "no move",
            field="space",
        )
    if space == "attack" and tank.heavily_damaged:
        refuse(
            "HEAVILY_DAMAGED",
            "YRD-HP1",
            f"{tank_label(tank)} is Heavily Damaged: it can no longer go to its Attack space",
            field="space",
        )


def destination(state: TableState, tank: TankState, action: Move) -> SpaceName:
    """The tank space a Move names or lands on; elsewhere is refused (YRD-SP1)."""
    if action.space is not None:
        return action.space
    assert action.x is not None and action.z is not None  # the action's own validator
    space = tank_space_at(state, tank.player, action.x, action.z)
    if space is None:
        there = space_named_at(state, action.x, action.z)
        refuse(
            "NOT_ON_A_SPACE",
            "YRD-SP1",
            f"{tank_label(tank)} can only travel within its yard, between its Shield, Attack "
            f"and Anti-tank spaces; ({action.x:g}, {action.z:g}) is "
            + (f"{there}" if there else "on none of them"),
            field="x",
        )
    return space


def move(ctx: YardContext, action: Move) -> None:
    state = ctx.state
    tank = get_tank(state, action.tank_id)
    check_may_move(state, tank)
    space = destination(state, tank, action)
    check_destination(state, tank, space)
    spot = state.yard(tank.player).tank_spot(space)
    before = tank.space
    tank = ctx.tank(tank.id)
    tank.space, tank.x, tank.z, tank.moved = space, spot.x, spot.z, True
    if action.facing is not None:
        tank.facing = action.facing
    ctx.say(
        f"{tank_label(tank)} moves from its {SPACE_LABEL[before]} space to its "
        f"{SPACE_LABEL[space]} space (YRD-SP1)"
    )
    ctx.result.outcome = {"moved": True, "from": before, "to": space, "x": spot.x, "z": spot.z}


def move_choices(state: TableState, tank: TankState, odds: bool) -> dict[str, Any]:
    """The move option: the spaces the tank may move to now, and those refused (and why)."""
    check_may_move(state, tank)
    spaces, refused = [], []
    for space in TANK_SPACES:
        if space == tank.space:
            continue
        try:
            check_destination(state, tank, space)
        except RulesError as err:
            refused.append({"space": space, "code": err.code, "clause": err.clause})
            continue
        spot = state.yard(tank.player).tank_spot(space)
        spaces.append({"space": space, "x": spot.x, "z": spot.z})
    if not spaces:
        refuse("NO_SPACE", "YRD-SP1", f"{tank_label(tank)} has nowhere to move")
    return {"from": tank.space, "spaces": spaces, "refused": refused}
