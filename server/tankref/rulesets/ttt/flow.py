"""Whose phase it is and whether a tank may act in it (TTT-T1), on the core's flow guards.

The game's status, turn and active player are guarded by ``tankref.core.flow`` with the codes
every ruleset shares; this adds what TinyTableTopTanks asks of the acting tank itself: that it
is on the table, in play, its owner's and not stunned.
"""

from __future__ import annotations

from tankref.core import flow
from tankref.core.adjudication import find_unit, refuse
from tankref.rulesets.ttt.presentation import tank_label
from tankref.rulesets.ttt.state import TableState, TankState

PHASES = "TTT-T1"  # the clause of the turn's phases: who acts when


def get_tank(state: TableState, tank_id: str, field: str = "tank_id") -> TankState:
    return find_unit(state.tanks, tank_id, field)


def require_playing(state: TableState) -> None:
    flow.require_playing(state, PHASES)


def require_present(tank: TankState) -> None:
    label = tank_label(tank)
    if tank.destroyed:
        refuse(flow.DESTROYED, "TTT-E7", f"{label} is destroyed ({tank.destroyed_by})")
    if tank.removed:
        refuse("TANK_GONE", "TTT-MR2", f"{label} drove off the table while Routed")
    if not tank.on_table:
        refuse("NOT_ON_TABLE", "TTT-S2", f"{label} has not entered the table yet")


def require_own_phase(state: TableState, tank_id: str) -> TankState:
    """The tank exists, is in play, and it is its owner's phase (TTT-T1)."""
    require_playing(state)
    tank = get_tank(state, tank_id)
    require_present(tank)
    if tank.player != state.active_player:
        refuse(
            flow.NOT_YOUR_PHASE,
            PHASES,
            f"it is {state.active_player}'s phase; {tank_label(tank)} belongs to {tank.player}",
            active_player=state.active_player,
        )
    if tank.stunned == "now":
        refuse(
            "CREW_STUNNED", "TTT-E7", f"{tank_label(tank)}'s crew is stunned: no action this phase"
        )
    return tank
