"""The turn of Minimal Tank Combat (MTC-INI1): the initiative roll, then player 1's movement
and combat phases, then player 2's; whose phase it is and the end of the game.

The status (setup, playing, over) is the core's flow (``core.flow``) with its shared codes;
this module adds the game's own order of phases and steps.
"""

from __future__ import annotations

from tankref.core.adjudication import refuse
from tankref.core.flow import (
    DESTROYED,
    NO_TANKS,
    NOT_YOUR_PHASE,
    WRONG_STEP,
    require_playing,
    require_setup,
)
from tankref.rulesets.mtc.actions import EndPhase, StartGame
from tankref.rulesets.mtc.cards import DIE
from tankref.rulesets.mtc.context import TableContext, label
from tankref.rulesets.mtc.state import PHASES, Step, TableState, TankState

TURN_CLAUSE = "MTC-INI1"


def check_playing(state: TableState) -> None:
    require_playing(state, TURN_CLAUSE)


def check_phase(state: TableState, tank: TankState, step: Step, verb: str) -> None:
    """The tank may act now: the game under way, the tank alive, its player's ``step``."""
    check_playing(state)
    if tank.destroyed:
        refuse(DESTROYED, "MTC-CRT1", f"{label(tank)} was destroyed")
    active = state.active_player
    if tank.player != active:
        refuse(
            NOT_YOUR_PHASE,
            TURN_CLAUSE,
            f"{label(tank)} cannot {verb}: it is {active}'s {state.step} phase",
        )
    if state.step != step:
        refuse(
            WRONG_STEP,
            TURN_CLAUSE,
            f"{label(tank)} cannot {verb} in the {state.step} phase (only in the {step} phase)",
        )


def check_may_end(state: TableState, player: str | None) -> None:
    """The phase may be ended, by ``player`` when one is named: only by its own player."""
    check_playing(state)
    active = state.active_player
    if player is not None and player != active:
        refuse(
            NOT_YOUR_PHASE,
            TURN_CLAUSE,
            f"player: it is {active}'s {state.step} phase, not {player}'s",
            field="player",
        )


def end_phase_option(state: TableState, tank: TankState) -> None:
    """A tank's menu offers the end of the phase to its own player only."""
    check_may_end(state, tank.player)


# --- handlers ------------------------------------------------------------------------------


def start_game(ctx: TableContext, action: StartGame) -> None:
    state = ctx.state
    require_setup(state, None, "starting the game")
    for player in state.players:
        if not any(t.player == player for t in state.tanks.values()):
            refuse(NO_TANKS, None, f"{player} has no tank on the map")
    state.status = "playing"
    ctx.say("The game begins.")
    start_turn(ctx)


def start_turn(ctx: TableContext) -> None:
    """MTC-INI1: both players roll a die, the higher is player 1, ties are re-rolled."""
    state = ctx.state
    state.turn += 1
    a, b = state.players
    rolled: list[list[int]] = []
    while True:
        face_a = ctx.bag.roll(DIE, 1, f"for {a}'s initiative, turn {state.turn}")[0].face
        face_b = ctx.bag.roll(DIE, 1, f"for {b}'s initiative, turn {state.turn}")[0].face
        rolled.append([face_a, face_b])
        if face_a != face_b:
            break
    first = a if face_a > face_b else b
    state.order = (first, state.enemy_of(first))
    state.phase = 0
    for tank in list(state.tanks.values()):
        if not tank.in_play:
            continue
        if tank.moved or tank.fired or tank.mp_spent or tank.start_hex != tank.hex:
            fresh = ctx.edit(tank.id)
            fresh.start_q, fresh.start_r = fresh.q, fresh.r
            fresh.moved = fresh.fired = fresh.road_bonus_used = False
            fresh.mp_spent = 0
    rolls = ", then ".join(f"{a} {x}, {b} {y}" for x, y in rolled)
    ties = len(rolled) - 1
    ctx.say(
        f"Turn {state.turn} initiative: {rolls}"
        + (f" ({ties} tie{'s' if ties > 1 else ''} re-rolled)" if ties else "")
        + f". {first} is player 1: {first} moves and fires first."
    )
    ctx.event(
        "initiative",
        TURN_CLAUSE,
        f"Turn {state.turn}: {first} is player 1",
        turn=state.turn,
        rolls=rolled,
        player_1=first,
    )
    ctx.result.outcome.update({"turn": state.turn, "initiative": rolled, "player_1": first})


def end_phase(ctx: TableContext, action: EndPhase) -> None:
    state = ctx.state
    check_may_end(state, action.player)
    active = state.active_player
    ctx.say(f"{active} ends the {state.step} phase.")
    if state.phase + 1 < len(PHASES):
        state.phase += 1
        ctx.say(f"{state.active_player}'s {state.step} phase.")
        return
    if state.turn >= state.options.turn_limit:
        game_over(ctx, None, f"turn limit ({state.options.turn_limit}) reached")
        return
    start_turn(ctx)


def game_over(ctx: TableContext, winner: str | None, reason: str) -> None:
    state = ctx.state
    state.status = "over"
    state.winner = winner
    state.game_over_reason = reason
    text = f"Game over: {reason}" + (f"; {winner} wins." if winner else "; a draw.")
    ctx.say(text)
    ctx.event("game_over", None, text, winner=winner, reason=reason)


def check_sides(ctx: TableContext) -> None:
    """After every action: a side with no tank left in play has lost (the referee's end, as
    the players set no victory conditions of their own here)."""
    state = ctx.state
    if state.status != "playing":
        return
    for player in state.players:
        if not any(t.in_play and t.player == player for t in state.tanks.values()):
            game_over(ctx, state.enemy_of(player), f"{player} has no tanks left")
            return
