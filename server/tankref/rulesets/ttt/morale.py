"""Crew, morale and Recover (TTT-C1, TTT-CR1, TTT-MO1..3, TTT-MR1..6, TTT-R1)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from tankref.core.adjudication import assign, refuse
from tankref.core.geometry import Edge, Point
from tankref.rulesets.ttt.actions import Recover
from tankref.rulesets.ttt.adjudication import Context
from tankref.rulesets.ttt.cards import MORALE_DIE
from tankref.rulesets.ttt.flow import require_own_phase
from tankref.rulesets.ttt.presentation import tank_label
from tankref.rulesets.ttt.sight import read_line
from tankref.rulesets.ttt.state import Morale, TableState, TankState, standing


def morale_result(face: int) -> Morale:
    """TTT-MO3: green d6, 1-3 OK, 4-5 Shaken, 6 Routed."""
    if face <= 3:
        return "ok"
    if face <= 5:
        return "shaken"
    return "routed"


def morale_after(old: Morale, result: Morale) -> tuple[Morale, str]:
    """The crew's morale after a check with ``result``, and the clause deciding it: TTT-MO3,
    or TTT-MR3 when a Shaken crew is Shaken again. Shared with the odds engine."""
    if result == "routed":
        return "routed", "TTT-MO3"
    if result == "shaken":
        if old == "shaken":
            return "routed", "TTT-MR3"
        if old == "ok":
            return "shaken", "TTT-MO3"
    return old, "TTT-MO3"


def bails_out(old: Morale, new: Morale, immobilized: bool) -> bool:
    """TTT-MR5: a crew newly Routed in an Immobilized tank abandons it."""
    return new == "routed" and old != "routed" and immobilized


def mobile_friends(state: TableState, tank: TankState) -> int:
    """Friendly tanks other than this one that are still in the game and can move (MO2 3)."""
    return sum(
        1
        for other in state.tanks.values()
        if other.player == tank.player and other.id != tank.id and other.can_move
    )


def rout_point(state: TableState, tank: TankState) -> tuple[Edge, Point, bool]:
    """TTT-MR2: where a Routed tank drives at the end of its phase (its full Movement straight
    toward the edge it entered from), and whether that takes it off the table."""
    edge = tank.entered_edge or state.player(tank.player).edge
    point, leaves = state.area.drive_toward_edge(edge, tank.pos, tank.movement)
    return edge, point, leaves


def announce_rout(ctx: Context, tank: TankState, clause: str) -> None:
    """Tell the table where a newly Routed tank must drive (TTS draws the point)."""
    if tank.immobilized or not tank.on_board:
        return  # it bails out instead (TTT-MR5)
    state = ctx.state
    edge, point, leaves = rout_point(state, tank)
    where = f"off the {edge} edge" if leaves else f"to ({point[0]:.1f}, {point[1]:.1f})"
    # TTT-MR2: it drives once a turn, at the end of its own phase; one that already moved in
    # this phase (or is stunned) drives at the end of its next.
    now = tank.player == state.active_player and tank.moved == "none" and tank.stunned != "now"
    when = "at the end of this phase" if now else "at the end of its next phase"
    ctx.event(
        "routed",
        clause,
        f"{tank_label(tank)} is Routed: {when} it drives {where}",
        tank_id=tank.id,
        edge=edge,
        x=round(point[0], 3),
        z=round(point[1], 3),
        leaves_table=leaves,
        drives_this_phase=now,
    )


def bail_out(ctx: Context, tank_id: str, clause: str, why: str) -> None:
    """TTT-MR5: a Routed crew that cannot drive abandons the tank: it is destroyed."""
    tank = ctx.edit(tank_id)
    tank.destroyed = True
    tank.destroyed_by = "crew bailed out"
    tank.must_recover = False
    tank.waiting = False
    ctx.say(f"{tank_label(tank)}: {why}; the crew bails out and the tank is destroyed.")
    ctx.event("bail_out", clause, f"{tank_label(tank)} bails out", tank_id=tank_id)


def catastrophe_seen(ctx: Context, dead: TankState) -> None:
    """TTT-MO2 trigger 4: friends who see a friendly tank explode or burn check morale."""
    for friend in ctx.state.tanks.values():
        if friend.player != dead.player or friend.id == dead.id or not friend.on_board:
            continue
        if read_line(ctx.state, friend, dead).visible:
            ctx.trigger_morale(friend.id, f"saw {tank_label(dead)} destroyed ({dead.destroyed_by})")


def _movers(state: TableState) -> Counter[str]:
    """How many tanks each player has that can still move: a tank's ``mobile_friends`` is its
    player's count less itself. Counted once per sweep, not once per tank (big tables)."""
    return Counter(t.player for t in state.tanks.values() if t.can_move)


def _fewer_movers(ctx: Context) -> set[str]:
    """The players with fewer tanks that can move than before the action. Only tanks the
    action touched can differ (every change goes through the context, and an untouched tank
    is the very same object), so this looks at those alone: most actions touch one or two
    tanks, and this runs after every action, whatever the size of the table."""
    before, now = ctx.before.tanks, ctx.state.tanks
    net: dict[str, int] = {}
    for tank_id in ctx.touched:
        old = before.get(tank_id)
        tank = now.get(tank_id)
        if tank is old:
            continue
        if tank is None:  # taken off the table by the action
            assert old is not None
            net[old.player] = net.get(old.player, 0) - old.can_move
            continue
        if old is not None and standing(tank.__dict__) == standing(old.__dict__):
            continue  # it moves as well as before (most touched tanks)
        gained = tank.can_move - (False if old is None else old.can_move)  # bools: -1, 0, 1
        if gained:
            net[tank.player] = net.get(tank.player, 0) + gained
    return {player for player, change in net.items() if change < 0}


def _two_can_move(state: TableState, player: str) -> bool:
    """Whether ``player`` still has two tanks that can move (then every one of its tanks has a
    mobile friend). Stops at the second one found, so a big side costs what a small one does."""
    found = 0
    for tank in state.tanks.values():
        if tank.player == player and tank.can_move:
            found += 1
            if found == 2:
                return True
    return False


def _no_friend_left_to_move(
    ctx: Context, fewer: set[str], movers_before: Counter[str], movers: Counter[str]
) -> None:
    """TTT-MO2 (3): trigger the tanks whose last friend able to move has just stopped."""
    for tank in ctx.state.tanks.values():
        if tank.player not in fewer or tank.id in ctx.checked:
            continue
        if tank.id in ctx.morale_triggers or not tank.on_board:
            continue
        before = ctx.before.tanks.get(tank.id)
        if before is None:
            continue
        # mobile_friends: the side's count less the tank itself, now and before the action
        if movers[tank.player] - tank.can_move == 0 and (
            movers_before[before.player] - before.can_move > 0
        ):
            ctx.trigger_morale(tank.id, "no friendly tank left that can move")


def resolve_morale(ctx: Context) -> None:
    """Make every morale check this action caused: one per tank, however many triggers."""
    movers_before: Counter[str] | None = None
    sweep = True
    while True:
        # A tank's mobile friends can only have dropped to none if its side's count of tanks
        # that can move dropped (no action makes a tank mobile again).
        # A side with two tanks still able to move leaves no tank of it without a mobile
        # friend: only a side down to its last mover needs the sweep over its tanks.
        if sweep:
            fewer = {p for p in _fewer_movers(ctx) if not _two_can_move(ctx.state, p)}
            if fewer:
                if movers_before is None:
                    movers_before = _movers(ctx.before)
                _no_friend_left_to_move(ctx, fewer, movers_before, _movers(ctx.state))
        for tank_id in ctx.morale_triggers:  # the first tank triggered and not yet checked
            if tank_id not in ctx.checked:
                break
        else:
            return
        ctx.checked.add(tank_id)
        could_move = ctx.state.tanks[tank_id].can_move
        morale_check(ctx, tank_id, ctx.morale_triggers[tank_id])
        # A check changes the checked tank alone (a bail-out, TTT-MR5, only from a tank that
        # was Immobilized): unless that tank's mobility changed, the sweep would find again
        # what it found (its tanks already triggered), so it is skipped.
        sweep = ctx.state.tanks[tank_id].can_move != could_move


_SAID: dict[Morale, str] = {"ok": "OK", "shaken": "Shaken!", "routed": "Routed!"}


def morale_check(ctx: Context, tank_id: str, reasons: list[str]) -> None:
    tank = ctx.state.tanks[tank_id]
    if not tank.on_board:
        return  # destroyed by the same shot, or not on the table: nobody to panic
    why = "; ".join(reasons)
    label = tank_label(tank)  # the same name and id before and after the copy below
    if tank.grizzled:
        ctx.rule("TTT-MO1", f"{label} is Grizzled: no morale check ({why})")
        return
    if len(reasons) > 1:
        ctx.rule("TTT-MO2", "one morale check per event, however many triggers it fires")
    roll = ctx.bag.roll(MORALE_DIE, 1, f"for the morale check of {label}")[0]
    result = morale_result(roll.face)
    tank = ctx.edit(tank_id)
    old = tank.morale
    new, clause = morale_after(old, result)
    if new != old:
        # TTT-R1: not a "prior round" until its next phase
        assign(tank, morale=new, complication_this_turn=True)
    outcome = _SAID[result]
    line = f"Morale check for {label} ({why}): green {roll.face} = {outcome}"
    if new != old:
        line += f" Now {new.capitalize()}."
    elif result != "ok":
        line += f" Already {old.capitalize()}."
    ctx.say(line)
    ctx.event("morale_check", clause, line, tank_id=tank_id, face=roll.face, before=old, after=new)
    if new == "shaken" and tank.waiting:
        lose_wait(ctx, tank, "TTT-MR1", "a Shaken crew cannot Wait")
    if new == "shaken" and old != "shaken" and tank.immobilized:
        # Ruling: Shaken and Immobilized in either order is the TTT-MR4 situation.
        tank.must_recover = True
        tank.complication_this_turn = True
        ctx.rule(
            "TTT-MR4",
            f"{tank_label(tank)} is Immobilized and now Shaken: its next turn it may only try "
            "to Recover; failure Routs it",
        )
    if new == "routed" and old != "routed":
        tank.must_recover = False
        if tank.waiting:
            lose_wait(ctx, tank, "TTT-MR2", "a Routed crew drives for its edge")
        announce_rout(ctx, tank, clause)
        if bails_out(old, new, tank.immobilized):
            report_reverse_bail_out(ctx)
            bail_out(ctx, tank_id, "TTT-MR5", "Routed while Immobilized")


def lose_wait(ctx: Context, tank: TankState, clause: str, why: str) -> None:
    """A Waiting tank whose crew may no longer Wait loses it at once, before it fires."""
    tank.waiting = False
    text = f"{tank_label(tank)} loses its Wait: {why}"
    ctx.say(f"{text}.")
    ctx.event("wait_lost", clause, text, tank_id=tank.id)


def report_reverse_bail_out(ctx: Context) -> None:
    """TTT-MR5 is printed one way round (Routed, then Immobilized); the referee also applies
    it the other way round, and says so."""
    ctx.rule(
        "TTT-MR5",
        "printed: a Routed unit that becomes Immobilized bails out; ruling: an Immobilized tank "
        "whose crew becomes Routed bails out too (it cannot drive for its edge)",
    )


def check_recover(state: TableState, action: Recover) -> TankState:
    tank = require_own_phase(state, action.tank_id)
    if tank.morale == "ok" and not tank.must_recover:
        refuse("NOTHING_TO_RECOVER", "TTT-R1", f"{tank_label(tank)} is neither Shaken nor Routed")
    if tank.recover_tried:
        refuse(
            "RECOVER_ALREADY_TRIED",
            "TTT-R1",
            f"{tank_label(tank)} already tried to Recover this turn",
        )
    if tank.engaged:
        refuse(
            "RECOVER_AFTER_ENGAGE",
            "TTT-MR6",
            f"{tank_label(tank)} engaged this turn: it may Recover only after no action but a "
            "Normal Move",
        )
    if tank.moved == "fast":
        refuse(
            "RECOVER_AFTER_FAST_MOVE",
            "TTT-MR6",
            f"{tank_label(tank)} moved fast: it may Recover only after no action but a Normal Move",
        )
    if tank.smoked or tank.waiting:
        what = "laid smoke" if tank.smoked else "went into Wait"
        refuse(
            "RECOVER_AFTER_ACTION",
            "TTT-MR6",
            f"{tank_label(tank)} {what} this turn: it may Recover only after no action but a "
            "Normal Move",
        )
    if tank.complication_this_turn:
        refuse(
            "RECOVER_TOO_SOON",
            "TTT-R1",
            f"{tank_label(tank)}'s crew got its morale complication this turn: Recover is for "
            "complications in prior rounds; it may try in its next turn",
        )
    return tank


def _lender(ctx: Context, tank: TankState, lender_id: str | None) -> TankState | None:
    """TTT-CR1: a Grizzled friend may lend its unused reroll to a Scared crew's Recover."""
    options = ctx.state.options
    candidates = [
        t
        for t in sorted(ctx.state.tanks.values(), key=lambda t: t.id)
        if t.player == tank.player
        and t.id != tank.id
        and t.on_board
        and t.grizzled
        and not t.reroll_used
    ]
    if options.grizzled_reroll == "ask":
        if lender_id is None:
            return None
        for t in candidates:
            if t.id == lender_id:
                return t
        refuse(
            "LENDER_INVALID",
            "TTT-CR1",
            f"lender_id: {lender_id!r} is not a friendly Grizzled tank with its reroll unused",
            field="lender_id",
        )
    return candidates[0] if candidates else None


def do_recover(ctx: Context, action: Recover) -> None:
    tank = check_recover(ctx.state, action)
    if action.lender_id is not None and ctx.state.options.grizzled_reroll == "ask":
        _lender(ctx, tank, action.lender_id)  # a bad lender_id is refused whatever the roll
    recover_attempt(ctx, tank, action.lender_id)


def recover_attempt(ctx: Context, tank: TankState, lender_id: str | None) -> None:
    """TTT-R1 with TTT-MR4 and the lent Grizzled reroll (TTT-CR1)."""
    if lender_id is not None and ctx.state.options.grizzled_reroll == "auto":
        ctx.rule(
            "TTT-CR1",
            "option auto: the referee picks the lender itself; lender_id is not used",
            "grizzled_reroll",
            "auto",
        )
    roll = ctx.bag.roll(MORALE_DIE, 1, f"for the Recover roll of {tank_label(tank)}")[0]
    face = roll.face
    line = f"{tank_label(tank)} tries to Recover: green {face}"
    if face > 3 and not tank.grizzled:
        lender = _lender(ctx, tank, lender_id)
        if lender is not None:
            lent = ctx.edit(lender.id)
            lent.reroll_used = True
            again = ctx.bag.reroll(roll, f"lent by {tank_label(lender)}")
            face = again.face
            line += f", rerolled with {tank_label(lender)}'s Grizzled reroll: {face}"
            ctx.rule(
                "TTT-CR1",
                f"{tank_label(lender)} lends its unused Grizzled reroll to the Recover attempt",
                "grizzled_reroll",
                ctx.state.options.grizzled_reroll,
            )
    tank = ctx.edit(tank.id)
    tank.recover_tried = True
    before = tank.morale
    # The structured outcome: the player's own Recover is the action's outcome; the ones the
    # referee rolls at the end of a phase (TTT-MR4) are listed under "recovers".
    report: dict[str, Any] = {
        "tank_id": tank.id,
        "crew": tank.crew,
        "face": face,
        "morale_before": before,
        "recovered": face <= 3,
        "morale_after": "ok" if face <= 3 else ("routed" if tank.must_recover else before),
    }
    if ctx.result.action.get("kind") == "recover":
        ctx.result.outcome.update(report)
    else:
        ctx.result.outcome.setdefault("recovers", []).append(report)
    if face <= 3:
        tank.morale = "ok"
        tank.must_recover = False
        ctx.say(f"{line}: recovered, the crew is steady again.")
        ctx.event("recover", "TTT-R1", f"{tank_label(tank)} recovers", tank_id=tank.id, face=face)
        return
    if tank.must_recover:
        tank.must_recover = False
        tank.morale = "routed"
        ctx.say(f"{line}: failed. Shaken and Immobilized, the crew Routs (TTT-MR4).")
        ctx.event("rout", "TTT-MR4", f"{tank_label(tank)} routs", tank_id=tank.id, face=face)
        if tank.immobilized:
            report_reverse_bail_out(ctx)
            bail_out(ctx, tank.id, "TTT-MR5", "Routed while Immobilized")
        return
    ctx.rule("TTT-R1", "a failed Recover (4-6) changes nothing")
    ctx.say(f"{line}: failed; still {before.capitalize()}.")
