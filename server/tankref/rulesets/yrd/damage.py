"""A damaged tank (YRD-HP1, YRD-SD1): HP down to 0 at the least, Heavily Damaged at 0 for the
rest of the match, and Shut Down until the end of its owner's next turn."""

from __future__ import annotations

from tankref.rulesets.yrd.context import YardContext
from tankref.rulesets.yrd.presentation import tank_label
from tankref.rulesets.yrd.state import TankState

# A reading where the text leaves room, reported in the result that uses it.
RULING_SHUTDOWN = (
    "Shut Down lasts to the end of the owner's next turn: its coming turn when damaged in the "
    "enemy's turn, the turn after when damaged in its own; HP does not go below 0."
)


def damage_tank(ctx: YardContext, tank: TankState, amount: int, why: str, clause: str) -> None:
    """Damage a tank: HP down (not below 0), Heavily Damaged at 0 (YRD-HP1), Shut Down until
    the end of its owner's next turn (YRD-SD1)."""
    state = ctx.state
    tank = ctx.tank(tank.id)
    before = tank.hp
    tank.hp = max(0, tank.hp - amount)
    tank.damage_taken += amount
    ctx.say(f"{tank_label(tank)} takes {amount} damage ({why}, {clause}): HP {before} → {tank.hp}")
    if tank.hp == 0 and not tank.heavily_damaged:
        tank.heavily_damaged = True
        line = (
            f"{tank_label(tank)} is Heavily Damaged for the rest of the match: it can no longer "
            "go to its Attack space (YRD-HP1)"
        )
        ctx.say(line)
        ctx.event("heavily_damaged", "YRD-HP1", line)
    # "Its owning player's next turn": the owner's turn after this one when damaged in its
    # own turn (a critical failure), else the owner's coming turn.
    until = state.turn + (2 if tank.player == state.active_player else 1)
    tank.shutdown_until = max(until, tank.shutdown_until or 0)
    line = (
        f"{tank_label(tank)} is Shut Down until the end of turn {tank.shutdown_until} "
        f"({tank.player}'s next turn): it cannot move or attack (YRD-SD1)"
    )
    ctx.say(line)
    ctx.event("shutdown", "YRD-SD1", line, tank_id=tank.id, until_turn=tank.shutdown_until)
    ctx.rule("YRD-SD1", RULING_SHUTDOWN)
