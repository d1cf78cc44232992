"""What a tank may do now (the options a menu offers), each refusal with its code and clause.

The checks are data: one (kind, check) per action a tank takes, and each check is the very
check that action's handler runs, so a menu never offers what the referee would refuse (nor
hides what it would allow). Nothing here changes the table.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from tankref.core.errors import RulesError
from tankref.core.options import Option, option
from tankref.rulesets.ttt import combat, morale, movement, smoke
from tankref.rulesets.ttt import odds as shot_odds
from tankref.rulesets.ttt.actions import Recover, Smoke
from tankref.rulesets.ttt.flow import get_tank
from tankref.rulesets.ttt.sight import LineOfFire
from tankref.rulesets.ttt.state import TableState, TankState

# (table, tank, with odds?) -> the option's detail (None: allowed, nothing more to say)
OptionCheck = Callable[[TableState, TankState, bool], dict[str, Any] | None]


def move_option(state: TableState, tank: TankState, odds: bool) -> dict[str, Any]:
    """Move (TTT-M1, TTT-M2, TTT-F1): how far, whether fast, whether it may turn on the spot."""
    movement.check_may_drive(state, tank)
    drive = movement.drive_blocker(tank)
    fast = movement.fast_blocker(tank)
    pivot = movement.pivot_blocker(state, tank)
    if drive and pivot:
        code, clause, why = drive
        raise RulesError(code, clause, f"{tank.name} cannot move: {why}")
    return {
        "from": [tank.start_x, tank.start_z],
        "normal": None if drive else tank.movement,
        "fast": None if drive or fast else 2 * tank.movement,
        "pivot": pivot is None,
        "entry_edges": None if tank.on_table else movement.entry_edges(state, tank),
    }


def engage_option(state: TableState, tank: TankState, odds: bool) -> dict[str, Any]:
    """Engage (TTT-E1): the enemies it may fire at; with ``odds``, each shot's exact odds."""
    targets = []
    first: RulesError | None = None
    # Every enemy at once (the shooter's checks and sight-line numbers worked out once),
    # each answer the one check_engage or plan_engage gives that pair alone.
    planned: list[tuple[TankState, combat.EngagePlan | LineOfFire | RulesError]]
    if odds:
        planned = list(combat.plan_engages(state, tank.id))
    else:
        planned = list(combat.engage_lines(state, tank.id)[1])
    for other, answer in planned:
        if isinstance(answer, RulesError):
            first = first or answer
            continue
        line = answer.line if isinstance(answer, combat.EngagePlan) else answer
        target: dict[str, Any] = {"target_id": other.id, "range": round(line.range, 2)}
        if isinstance(answer, combat.EngagePlan):
            # The shot's exact odds (ask mode: no Grizzled reroll declared), cached by
            # situation; the plan they come from is the one the Engage would resolve.
            target.update(shot_odds.brief_odds(state, answer))
        targets.append(target)
    if not targets:
        raise first or RulesError("NO_TARGETS", "TTT-E1", f"{tank.name} has no enemy in sight")
    return {"targets": targets}


def wait_option(state: TableState, tank: TankState, odds: bool) -> None:
    """Wait (TTT-W1)."""
    movement.check_wait(state, tank.id)


def recover_option(state: TableState, tank: TankState, odds: bool) -> None:
    """Recover (TTT-R1, TTT-MR4, TTT-MR6)."""
    morale.check_recover(state, Recover(tank_id=tank.id))


def smoke_option(state: TableState, tank: TankState, odds: bool) -> dict[str, Any]:
    """Smoke (TTT-SM1, TTT-SM2): the card's abilities it may use now (a mortar aimed at itself
    stands for any point in range)."""
    usable = []
    last: RulesError | None = None
    for ability in tank.card.smoke:
        aim = (tank.x, tank.z) if ability.kind == "mortar" else (None, None)
        try:
            smoke.check_smoke(
                state, Smoke(tank_id=tank.id, ability=ability.name, x=aim[0], z=aim[1])
            )
        except RulesError as err:
            last = err
            continue
        usable.append(
            {
                "ability": ability.name,
                "kind": ability.kind,
                "strength": ability.strength,
                "range": ability.range,
            }
        )
    if not usable:
        raise last or RulesError("NO_SMOKE", "TTT-SM1", f"{tank.name}'s card has no smoke")
    return {"abilities": usable}


# One per action a tank takes, in the order a menu lists them.
OPTION_CHECKS: tuple[tuple[str, OptionCheck], ...] = (
    ("move", move_option),
    ("engage", engage_option),
    ("wait", wait_option),
    ("recover", recover_option),
    ("smoke", smoke_option),
)


def options_for(state: TableState, tank_id: str, *, odds: bool = True) -> list[Option]:
    """What ``tank_id`` may do now, each refusal with its code and clause. Changes nothing.

    ``odds``: give each Engage target the exact p_hit, p_penetrate and p_destroyed of the
    shot (for hovers); a caller that never shows them (the self-play bots) may skip them.
    """
    tank = get_tank(state, tank_id)
    return [
        option(kind, functools.partial(check, state, tank, odds)) for kind, check in OPTION_CHECKS
    ]


def legal_actions(state: TableState, tank_id: str) -> list[str]:
    return [o.kind for o in options_for(state, tank_id) if o.allowed]
