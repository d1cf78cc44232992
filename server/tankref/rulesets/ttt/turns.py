"""Turns, phases, scenarios and victory (TTT-T1, TTT-S1..S3, TTT-SM4, TTT-MR2, TTT-MR4)."""

from __future__ import annotations

import math
from operator import attrgetter

from tankref.core import flow
from tankref.core.adjudication import assign, refuse
from tankref.core.geometry import distance
from tankref.rulesets.ttt.actions import EndPhase, StartGame
from tankref.rulesets.ttt.adjudication import Context
from tankref.rulesets.ttt.morale import recover_attempt
from tankref.rulesets.ttt.movement import rout_move
from tankref.rulesets.ttt.presentation import tank_label
from tankref.rulesets.ttt.state import TableState, TankState, standing

# The handlers here run when the dispatch table's guard (``engine``) allows: start_game in
# setup, end_phase in play.


# TTT-T1: a turn is player one's phase, then player two's; the printed text counts them ("the
# first phase of turn one", "the second phase of turn two").
PHASE_NAMES = ("first", "second")


def phase_name(state: TableState) -> str | None:
    """Which phase of the turn it is, in the printed words, while the game is under way."""
    return PHASE_NAMES[state.phase] if state.status == "playing" else None


# --- setup ------------------------------------------------------------------------------------


def phase_order(state: TableState) -> tuple[str, str]:
    ids = [p.id for p in state.players]
    scenario = state.scenario
    if scenario.kind == "ambush" and scenario.ambusher in ids:
        first = ids[0] if ids[1] == scenario.ambusher else ids[1]  # TTT-S2: the ambushed first
    else:
        first = scenario.first_player or ids[0]
    second = ids[1] if first == ids[0] else ids[0]
    return first, second


def do_start_game(ctx: Context, action: StartGame) -> None:
    state = ctx.state
    problems: list[str] = []
    for player in state.players:
        if not any(t.player == player.id for t in state.tanks.values()):
            problems.append(f"{player.id} has no tanks")
    if problems:
        refuse(flow.NO_TANKS, "TTT-T1", "; ".join(problems))
    unrolled = sorted(t.id for t in state.tanks.values() if t.crew == "unknown")
    if unrolled:
        refuse(
            "CREW_NOT_ROLLED",
            "TTT-C1",
            f"roll crews first (crew_roll): {', '.join(unrolled)}",
            tanks=unrolled,
        )
    scenario = state.scenario
    if scenario.kind == "objective":
        if state.objective is None:
            refuse("OBJECTIVE_NOT_SET", "TTT-S3", "place the objective first (set_objective)")
        defender = scenario.defender
        own = [t for t in state.tanks.values() if t.player == defender]
        deployed = sum(1 for t in own if t.on_table)
        wanted = math.ceil(len(own) / 2)
        if deployed != wanted:
            refuse(
                "DEFENDER_DEPLOYMENT",
                "TTT-S3",
                f"the defender deploys half its tanks, rounded up: {wanted} of {len(own)} on the "
                f"table, {deployed} placed",
                wanted=wanted,
                placed=deployed,
            )
        ctx.rule("TTT-S3", "the defender's on-table half is rounded up")
    state.order = phase_order(state)
    state.status = "playing"
    state.turn = 1
    state.phase = 0
    ctx.say(f"The game begins: turn 1, {state.active_player}'s phase ({scenario.kind}).")
    ctx.event("game_started", "TTT-T1", "The game begins", order=list(state.order))
    begin_phase(ctx)


# --- phases ----------------------------------------------------------------------------------


def begin_phase(ctx: Context) -> None:
    """Start of a player's phase: their tanks' turn flags reset; their smoke decays."""
    state = ctx.state
    player = state.active_player
    for tank in list(state.tanks.values()):
        if tank.player != player or not tank.in_play:
            continue
        t = ctx.edit(tank.id)
        assign(
            t,
            start_x=t.x,
            start_z=t.z,
            start_facing=t.facing,
            moved="none",
            facing_changed=False,
            best_armour_turned=False,
            engaged=False,
            waiting=False,
            recover_tried=False,
            smoked=False,
            smoke_popped=False,
            reroll_used=False,
            # Complications before this phase are now "prior rounds" (TTT-R1, TTT-MR4).
            complication_this_turn=False,
        )
        if t.stunned == "next":
            assign(t, stunned="now")
            ctx.event(
                "stunned", "TTT-E7", f"{tank_label(t)}'s crew is stunned this phase", tank_id=t.id
            )
        elif t.stunned == "now":
            assign(t, stunned="no")
    # TTT-SM4: a -1 screen is gone at the start of its owner's next phase; a -2 becomes -1.
    screens = []
    for screen in state.smoke:
        if screen.owner != player:
            screens.append(screen)
            continue
        left = screen.strength - 1
        if left > 0:
            screens.append(screen.model_copy(update={"strength": left}))
            ctx.event(
                "smoke_decay",
                "TTT-SM4",
                f"Smoke {screen.id} thins to -{left}",
                smoke_id=screen.id,
                strength=left,
            )
        else:
            ctx.event(
                "smoke_gone", "TTT-SM4", f"Smoke {screen.id} clears", smoke_id=screen.id, strength=0
            )
    state.smoke = tuple(screens)
    state.objective_held_this_phase = bool(defenders_near(state))
    ctx.event(
        "phase_started",
        "TTT-T1",
        f"Turn {state.turn}: {player}'s phase",
        turn=state.turn,
        player=player,
    )


def do_end_phase(ctx: Context, action: EndPhase) -> None:
    state = ctx.state
    player = state.active_player
    if action.player is not None and action.player != player:
        refuse(
            flow.NOT_YOUR_PHASE,
            "TTT-T1",
            f"player: it is {player}'s phase, not {action.player}'s",
            field="player",
        )
    # Its tanks on the board that owe a duty, in id order; most owe none.
    owing = [t for t in state.tanks.values() if t.player == player and owes_duty(t) and t.on_board]
    for tank in sorted(owing, key=attrgetter("id")):
        end_of_phase_duties(ctx, tank)
    ctx.say(f"{player} ends the phase.")
    # A Routed tank driving off (or bailing out) may leave a side with no tanks: the game ends
    # here, before the objective or the turn limit is judged and before a new phase begins.
    check_elimination(ctx)
    if state.status != "playing":
        return
    ended_turn = state.turn if state.phase == 1 else None
    objective_check(ctx, ended_turn)
    if state.status != "playing":
        return
    if state.phase == 0:
        state.phase = 1
    else:
        state.phase = 0
        state.turn += 1
        if state.scenario.kind != "objective" and state.turn > state.options.turn_limit:
            state.turn -= 1
            game_over(ctx, None, f"the turn limit ({state.options.turn_limit}) is reached: a draw")
            return
    begin_phase(ctx)


def owes_duty(tank: TankState) -> bool:
    """Whether ``end_of_phase_duties`` has anything to do for the tank: a Recover (TTT-MR4)
    or a Routed drive (TTT-MR2) may be owed. One test for both its callers."""
    return tank.must_recover or tank.morale == "routed"


def end_of_phase_duties(ctx: Context, tank: TankState) -> None:
    """What the referee does for a tank at the end of its owner's phase: the TTT-MR4 Recover
    it did not try, and the Routed drive (TTT-MR2). Each only when the tank's turn allows it:
    a stunned crew takes no action (TTT-E7), a complication from this very turn waits for the
    next (TTT-MR4), and a Routed tank that already moved this turn drives next turn."""
    if not owes_duty(tank):
        return  # nothing owed (most tanks, at every phase's end)
    label = tank_label(tank)
    stunned = tank.stunned == "now"
    if tank.must_recover and not tank.recover_tried:
        if stunned:
            ctx.rule(
                "TTT-E7",
                f"{label}'s crew is stunned: no Recover this phase, not even the referee's "
                "(TTT-MR4 waits for its next phase)",
            )
        elif tank.complication_this_turn:
            ctx.rule(
                "TTT-MR4",
                f"{label} became Shaken and Immobilized this turn: it must try to Recover in its "
                "next turn, not now",
            )
        else:
            ctx.rule("TTT-MR4", f"{label} did not try to Recover: the referee rolls it now")
            recover_attempt(ctx, tank, None)
    tank = ctx.state.tanks[tank.id]
    if not (tank.on_board and tank.morale == "routed" and not tank.immobilized):
        return
    if stunned:
        ctx.rule(
            "TTT-E7",
            f"{label}'s crew is stunned: it does not drive this phase; it drives for its edge "
            "at the end of its next phase",
        )
    elif tank.moved != "none":
        ctx.rule(
            "TTT-MR2",
            f"{label} was Routed after it moved this turn: a Routed tank drives once a turn, so "
            "it drives for its edge at the end of its next phase",
        )
    else:
        rout_move(ctx, tank.id)


def watch_objective(ctx: Context) -> None:
    """TTT-S3: a defender near the objective at any moment of a phase holds that phase."""
    state = ctx.state
    if state.scenario.kind == "objective" and not state.objective_held_this_phase:
        state.objective_held_this_phase = bool(defenders_near(state))


def defenders_near(state: TableState) -> list[TankState]:
    """TTT-S3: defending tanks, neither Routed nor destroyed, within 12\" of the objective."""
    if state.objective is None:
        return []
    radius = state.scenario.objective_radius
    return [
        t
        for t in state.tanks.values()
        if t.player == state.scenario.defender
        and t.on_board
        and t.morale != "routed"
        and distance(t.pos, state.objective) <= radius
    ]


def objective_check(ctx: Context, ended_turn: int | None) -> None:
    state = ctx.state
    if state.scenario.kind != "objective":
        return
    near = defenders_near(state)
    # A phase counts only when no defender was near at any moment of it: "one full turn"
    # starts from the moment the last one left, not from the end of that phase.
    held = bool(near) or state.objective_held_this_phase
    if held and not near:
        ctx.rule(
            "TTT-S3",
            'a defender was within 12" of the objective during this phase: the full turn '
            "counts from the moment the last one left, so this phase does not count",
        )
    state.objective_clear_phases = 0 if held else state.objective_clear_phases + 1
    if state.objective_clear_phases >= 2:
        game_over(
            ctx,
            state.enemy_of(state.scenario.defender or ""),
            'no defending tank within 12" of the objective for a full turn: the attacker wins',
        )
        return
    if ended_turn is not None and ended_turn >= state.scenario.objective_turns:
        if near:
            game_over(
                ctx,
                state.scenario.defender,
                f"the defender held the objective through turn {ended_turn}",
            )
        else:
            ctx.rule(
                "TTT-S3",
                "at the end of turn N with no defender near the objective, the attacker wins",
            )
            game_over(
                ctx,
                state.enemy_of(state.scenario.defender or ""),
                f"no defender held the objective at the end of turn {ended_turn}: "
                "the attacker wins",
            )


def game_over(ctx: Context, winner: str | None, reason: str) -> None:
    state = ctx.state
    state.status = "over"
    state.winner = winner
    state.game_over_reason = reason
    ctx.say(f"Game over: {reason}.")
    clause = "TTT-S3" if state.scenario.kind == "objective" else "TTT-S1"
    ctx.event("game_over", clause, f"Game over: {reason}", winner=winner)


def _left_play(ctx: Context) -> bool:
    """Whether a tank this action touched was in play before it and is no longer."""
    before, now = ctx.before.tanks, ctx.state.tanks
    for tank_id in ctx.touched:
        tank = now.get(tank_id)
        old = before.get(tank_id)
        if tank is old or old is None:
            continue  # not changed, or placed by this action (not in play before it)
        if tank is not None and standing(tank.__dict__) == standing(old.__dict__):
            continue  # neither destroyed nor removed by this action
        if old.in_play and (tank is None or not tank.in_play):
            return True
    return False


def check_elimination(ctx: Context) -> None:
    """A side with no tank left in the game loses; both at once is a draw."""
    state = ctx.state
    if state.status != "playing":
        return
    # A table that was playing before the action had a tank in play on each side (this check
    # after every action ends the game otherwise), and only a tank the action touched can
    # have left play (an untouched one is the very same object): when none did, no side can
    # be out of tanks, whatever the size of the table.
    if ctx.before.status == "playing" and not _left_play(ctx):
        return
    alive = {
        p.id: any(t.in_play for t in state.tanks.values() if t.player == p.id)
        for p in state.players
    }
    beaten = [p for p, ok in alive.items() if not ok]
    if len(beaten) == 2:
        game_over(ctx, None, "both sides are out of tanks: a draw")
    elif beaten:
        winner = state.enemy_of(beaten[0])
        game_over(ctx, winner, f"{beaten[0]} has no tanks left: {winner} wins")
