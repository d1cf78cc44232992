"""The Attack space (YRD-AT1): once a turn, a tank not Heavily Damaged attacks an enemy piece on
one of its own party's artillery spaces; a contest roll decides, 2d6 is the damage (doubled on
a critical success, halved on a grazing hit), and a critical failure damages the attacker."""

from __future__ import annotations

from tankref.core.adjudication import refuse
from tankref.core.errors import not_found
from tankref.rulesets.yrd import contest
from tankref.rulesets.yrd.actions import Attack
from tankref.rulesets.yrd.cards import DAMAGE_DIE
from tankref.rulesets.yrd.context import YardContext, check_may_act, check_not_attacked, get_tank
from tankref.rulesets.yrd.damage import damage_tank
from tankref.rulesets.yrd.presentation import piece_label, tank_label, where
from tankref.rulesets.yrd.state import SPACE_LABEL, PieceState, TableState, TankState

# Readings where the text leaves room, reported in the result that uses them.
RULING_DOWN = (
    "A piece whose card gives HP is Down at 0 HP and is no longer a target (the wider game "
    "says what else that means)."
)
RULING_CRITICAL_FAILURE = "A critical failure on the Attack space also fails the attack."


def check_attack(state: TableState, tank: TankState) -> None:
    """YRD-AT1: from its Attack space, once a turn, not Heavily Damaged (YRD-HP1)."""
    check_may_act(state, tank)
    if tank.space != "attack":
        refuse(
            "NOT_ON_ATTACK_SPACE",
            "YRD-AT1",
            f"{tank_label(tank)} is on its {SPACE_LABEL[tank.space]} space: attacks on "
            "artillery spaces are made from the Attack space",
        )
    if tank.heavily_damaged:
        refuse(
            "HEAVILY_DAMAGED",
            "YRD-HP1",
            f"{tank_label(tank)} is Heavily Damaged: it can no longer attack pieces on "
            "artillery spaces",
        )
    check_not_attacked(tank)


def attack_target(state: TableState, tank: TankState, target_id: str) -> PieceState:
    """YRD-AT1: an enemy piece on one of the attacker's own artillery spaces."""
    piece = state.pieces.get(target_id)
    if piece is None:
        if target_id in state.tanks:
            refuse(
                "NOT_A_PIECE",
                "YRD-AT1",
                f"target_id: {target_id} is a tank; the Attack space attacks pieces on "
                "artillery spaces (tanks are attacked from the Anti-tank space)",
                field="target_id",
            )
        not_found("UNKNOWN_TANK", None, f"target_id: no piece {target_id!r}", field="target_id")
    if piece.player == tank.player:
        refuse(
            "FRIENDLY_FIRE",
            "YRD-AT1",
            f"target_id: {piece_label(piece)} is {tank.player}'s own piece: no friendly fire",
            field="target_id",
        )
    if piece.homefield != tank.player:
        refuse(
            "NOT_ON_YOUR_ARTILLERY",
            "YRD-AT1",
            f"target_id: {piece_label(piece)} is {where(piece)}; {tank.player}'s tank attacks "
            f"only pieces on {tank.player}'s own artillery spaces",
            field="target_id",
        )
    if piece.down:
        refuse(
            "PIECE_DOWN",
            "YRD-AT1",
            f"target_id: {piece_label(piece)} is Down (0 HP)",
            field="target_id",
        )
    return piece


def attack_contest(state: TableState, tank: TankState, piece: PieceState) -> contest.Contest:
    """The contest against a piece: the defending party adds its defence; grazing hits count."""
    return contest.contest_for(
        state.options,
        contest.dice_sides(state.dice_specs),
        clause="YRD-AT1",
        defender_bonus=state.party(piece.player).defence,
        advantage=False,
        grazing=True,
    )


def attack(ctx: YardContext, action: Attack) -> None:
    state = ctx.state
    tank = get_tank(state, action.tank_id)
    check_attack(state, tank)
    piece = attack_target(state, tank, action.target_id)
    c = attack_contest(state, tank, piece)
    throws = contest.roll(ctx.bag, c, tank_label(tank), piece_label(piece))
    verdict = throws[-1].verdict
    assert verdict is not None
    tank = ctx.tank(tank.id)
    tank.attacked = True
    ctx.result.modifiers.extend(contest.modifiers(c, piece.player))
    ctx.result.rulings.extend(contest.rulings(c, state.options, advantage=False))
    ctx.say(
        f"{tank_label(tank)} attacks {piece_label(piece)} on {tank.player}'s artillery space "
        f"{piece.artillery}: {contest.throw_text(throws, c)}: {contest.VERDICT_TEXT[verdict]} "
        "(YRD-AT1)"
    )
    dealt = 0
    rolled = 0
    if verdict in contest.SUCCESS:
        dice = ctx.bag.roll(DAMAGE_DIE, 2, "for damage (2d6)")
        rolled = sum(r.face for r in dice)
        if verdict == "critical_success":
            dealt = 2 * rolled
            how = f"2d6 = {rolled}, doubled (critical success) = {dealt}"
            ctx.modifier("YRD-AT1", "critical success: double damage", rolled, "damage")
        elif verdict == "graze":
            dealt = contest.halve(rolled, state.options.grazing_rounding)
            how = f"2d6 = {rolled}, halved (grazing hit) = {dealt}"
            ctx.modifier(
                "YRD-AT1",
                "grazing hit: half damage",
                dealt - rolled,
                "damage",
                ruling=f"rounded {state.options.grazing_rounding}",
            )
        else:
            dealt = rolled
            how = f"2d6 = {rolled}"
        piece = ctx.piece(piece.id)
        piece.damage_taken += dealt
        if piece.hp is not None:
            piece.hp -= dealt
        hp_text = (
            f", HP {max(piece.hp, 0)}/{piece.card.hp}"
            if piece.hp is not None and piece.card.hp is not None
            else ""
        )
        ctx.say(f"{piece_label(piece)} takes {dealt} damage ({how}){hp_text}")
        if piece.down:
            line = f"{piece_label(piece)} is Down (0 HP): no longer a target"
            ctx.say(line)
            ctx.event("piece_down", "YRD-AT1", line)
            ctx.rule("YRD-AT1", RULING_DOWN)
    elif verdict == "critical_failure":
        damage_tank(ctx, tank, 1, "its own critical failure", "YRD-AT1")
        ctx.rule("YRD-AT1", RULING_CRITICAL_FAILURE)
    ctx.result.outcome = {
        "shooter": tank.id,
        "target": piece.id,
        "attack": "artillery",
        "verdict": verdict,
        "hit": verdict in contest.SUCCESS,
        "damage_rolled": rolled,
        "damage": dealt,
        "self_damage": 1 if verdict == "critical_failure" else 0,
        "offender_total": throws[-1].offender_total,
        "defender_total": throws[-1].defender_total,
    }
