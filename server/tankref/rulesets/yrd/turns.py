"""Turns (YRD-SP1): the parties alternate, one turn each; Shut Down lifts at the end of the turn
it was counted to (YRD-SD1); the match ends after its turn limit.

A party's turn: the tank's movement phase (stay, or move to another of its yard's spaces),
then the one attack its space grants, then the turn ends (rulings: the text gives the phase
and the attacks but not their order in a turn).
"""

from __future__ import annotations

from tankref.core.adjudication import refuse
from tankref.core.flow import NOT_YOUR_PHASE, require_playing
from tankref.rulesets.yrd.actions import EndTurn
from tankref.rulesets.yrd.context import YardContext
from tankref.rulesets.yrd.presentation import tank_label
from tankref.rulesets.yrd.state import TableState


def begin_turn(ctx: YardContext) -> None:
    """The active party's tank gets its movement phase and its attack back."""
    state = ctx.state
    tank = state.tank_of(state.active_player)
    if tank is not None and (tank.moved or tank.attacked):
        tank = ctx.tank(tank.id)
        tank.moved = tank.attacked = False
    line = f"Turn {state.turn} (round {state.round}): {state.active_player}'s turn"
    ctx.say(line)
    ctx.event("turn_started", "YRD-SP1", line, turn=state.turn, player=state.active_player)


def check_end_turn(state: TableState, player: str | None) -> None:
    """The match under way and, when the request names a party, the party whose turn it is."""
    require_playing(state, None)
    if player is not None and player != state.active_player:
        refuse(
            NOT_YOUR_PHASE,
            "YRD-SP1",
            f"player: it is {state.active_player}'s turn, not {player}'s",
            field="player",
        )


def end_turn(ctx: YardContext, action: EndTurn) -> None:
    state = ctx.state
    check_end_turn(state, action.player)
    ender = state.active_player
    ctx.say(f"{ender} ends turn {state.turn}")
    for tank_id, tank in list(state.tanks.items()):
        if tank.shutdown_until is not None and tank.shutdown_until <= state.turn:
            tank = ctx.tank(tank_id)
            tank.shutdown_until = None
            line = f"{tank_label(tank)} is no longer Shut Down"
            ctx.say(line)
            ctx.event("shutdown_lifted", "YRD-SD1", line)
    ctx.result.outcome = {"ended_turn": state.turn, "player": ender}
    if state.turn >= 2 * state.options.turn_limit:
        state.status = "over"
        state.game_over_reason = (
            f"the turn limit: {state.options.turn_limit} rounds played (chapter 12 names no "
            "winner; the wider game decides)"
        )
        line = f"Match over: {state.game_over_reason}"
        ctx.say(line)
        ctx.event("game_over", None, line)
        return
    state.turn += 1
    begin_turn(ctx)
