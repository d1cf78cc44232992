"""Whole sides alternate (AFV-SEQ1): a side's phase begins (AFV-MV1) and ends (AFV-MV2), the
turn limit, and the game's end when a side has no units left."""

from __future__ import annotations

from tankref.core.adjudication import refuse
from tankref.core.flow import NOT_YOUR_PHASE, require_playing
from tankref.rulesets.afv.actions import EndPhase
from tankref.rulesets.afv.context import AfvContext
from tankref.rulesets.afv.presentation import unit_label
from tankref.rulesets.afv.state import TableState

# Where the text is silent the referee rules, and says so in the result when it applies.
RULING_SEQUENCE = (
    "Whole sides alternate; within its side's phase a unit moves, then fires: once it has "
    "fired it does not move again this phase."
)


def begin_phase(ctx: AfvContext) -> None:
    """AFV-MV1 at the start of a side's movement: a Stopped marker is removed and the unit goes
    straight to Fire; a Ready marker is removed."""
    state = ctx.state
    state.spotting = ()
    for unit_id in sorted(state.units):
        unit = state.units[unit_id]
        if unit.player != state.active_player or not unit.in_play:
            continue
        u = ctx.edit(unit_id)
        u.began_stopped = u.stopped
        u.began_with_stop = u.stopped or u.ready
        u.began_suppressed = u.suppressed
        if u.stopped:
            ctx.say(f"{unit_label(u)}: Stopped marker removed; no move this phase (AFV-MV1).")
        u.stopped = False
        u.ready = False
        u.start_x, u.start_z = u.x, u.z
        u.moved_cm = 0.0
        u.evasive = False
        u.retreated = False
        u.got_out = False
        u.fired = ()
        u.revealed = False


def check_phase(state: TableState, player: str | None = None) -> None:
    require_playing(state, "AFV-SEQ1")
    if player is not None and player != state.active_player:
        refuse(
            NOT_YOUR_PHASE, "AFV-SEQ1", f"player: it is {state.active_player}'s phase",
            field="player",
        )  # fmt: skip


def end_phase(ctx: AfvContext, action: EndPhase) -> None:
    check_phase(ctx.state, action.player)
    state = ctx.state
    ending = state.active_player
    for unit_id in sorted(state.units):
        unit = state.units[unit_id]
        if unit.player != ending or not unit.on_board:
            continue
        if unit.moved_cm == 0:  # AFV-MV2: moved zero: a Ready marker instead of a direction
            u = ctx.edit(unit_id)
            u.ready = True
            u.direction = None
    ctx.say(f"{ending}'s phase ends.")
    state.phase = 1 - state.phase
    if state.phase == 0:
        state.turn += 1
        if state.turn > state.options.turn_limit:
            state.status = "over"
            state.game_over_reason = f"turn limit ({state.options.turn_limit}) reached: a draw"
            ctx.say(f"Game over: {state.game_over_reason}.")
            ctx.event("game_over", "AFV-SEQ1", state.game_over_reason, winner=None)
            return
    ctx.say(f"Turn {state.turn}: {state.active_player}'s phase.")
    begin_phase(ctx)


def check_victory(ctx: AfvContext) -> None:
    """After every action of a game under way: a side with no unit in play has lost."""
    state = ctx.state
    if state.status != "playing":
        return
    alive = {p.id: any(u.player == p.id and u.in_play for u in state.units.values())
             for p in state.players}  # fmt: skip
    if all(alive.values()):
        return
    state.status = "over"
    standing = [p for p, ok in alive.items() if ok]
    state.winner = standing[0] if standing else None
    state.game_over_reason = (
        f"{state.enemy_of(standing[0])} has no units left" if standing else "no units left"
    )
    ctx.say(f"Game over: {state.game_over_reason}.")
    ctx.event("game_over", "AFV-SEQ1", state.game_over_reason, winner=state.winner)
