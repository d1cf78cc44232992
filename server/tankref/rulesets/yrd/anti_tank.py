"""The Anti-tank space (YRD-AN1, YRD-SH1): once a turn, a tank attacks the enemy tank; neither
side adds modifiers, the offender has advantage against a tank on its Attack space, a hit
deals 1 damage (2 on a critical success), and a tank on its Shield space is out of reach."""

from __future__ import annotations

from tankref.core.adjudication import refuse
from tankref.core.errors import not_found
from tankref.rulesets.yrd import contest
from tankref.rulesets.yrd.actions import AntiTank
from tankref.rulesets.yrd.context import YardContext, check_may_act, check_not_attacked, get_tank
from tankref.rulesets.yrd.damage import damage_tank
from tankref.rulesets.yrd.presentation import tank_label
from tankref.rulesets.yrd.state import SPACE_LABEL, TableState, TankState


def check_anti_tank(state: TableState, tank: TankState) -> None:
    """YRD-AN1: from its Anti-tank space, once a turn."""
    check_may_act(state, tank)
    if tank.space != "anti_tank":
        refuse(
            "NOT_ON_ANTI_TANK_SPACE",
            "YRD-AN1",
            f"{tank_label(tank)} is on its {SPACE_LABEL[tank.space]} space: tanks are attacked "
            "from the Anti-tank space",
        )
    check_not_attacked(tank)


def anti_tank_target(state: TableState, tank: TankState, target_id: str) -> TankState:
    """YRD-AN1 / YRD-SH1: an enemy tank; one on its Shield space may not be targeted (option
    ``shield``: refuse) or the attack fails automatically (``auto_fail``, checked by the
    caller)."""
    if target_id in state.pieces:
        refuse(
            "NOT_A_TANK",
            "YRD-AN1",
            f"target_id: {target_id} is a piece; the Anti-tank space attacks tanks",
            field="target_id",
        )
    target = state.tanks.get(target_id)
    if target is None:
        not_found("UNKNOWN_TANK", None, f"target_id: no tank {target_id!r}", field="target_id")
    if target.player == tank.player:
        refuse(
            "FRIENDLY_FIRE",
            "YRD-AN1",
            f"target_id: {tank_label(target)} is {tank.player}'s own tank: no friendly fire",
            field="target_id",
        )
    if target.space == "shield" and state.options.shield == "refuse":
        refuse(
            "TARGET_SHIELDED",
            "YRD-SH1",
            f"target_id: {tank_label(target)} is on its Shield space: it may not be targeted "
            "by tanks on Anti-tank spaces",
            field="target_id",
        )
    return target


def has_advantage(state: TableState, target: TankState) -> bool:
    """YRD-AN1: against a tank on its Attack space (unless the table turns advantage off)."""
    return target.space == "attack" and state.options.advantage != "off"


def anti_tank_contest(state: TableState, target: TankState) -> contest.Contest:
    return contest.contest_for(
        state.options,
        contest.dice_sides(state.dice_specs),
        clause="YRD-AN1",
        defender_bonus=0,  # "neither side adds modifiers"
        advantage=has_advantage(state, target),
        grazing=False,
    )


def anti_tank(ctx: YardContext, action: AntiTank) -> None:
    state = ctx.state
    tank = get_tank(state, action.tank_id)
    check_anti_tank(state, tank)
    target = anti_tank_target(state, tank, action.target_id)
    tank = ctx.tank(tank.id)
    tank.attacked = True
    base = {"shooter": tank.id, "target": target.id, "attack": "anti_tank"}
    if target.space == "shield":  # only reached with the shield option "auto_fail"
        ctx.say(
            f"{tank_label(tank)} attacks {tank_label(target)}, which is on its Shield space: "
            "the attack fails automatically (YRD-SH1)"
        )
        ctx.rule(
            "YRD-SH1",
            "An Anti-tank attack on a tank on its Shield space fails automatically and spends "
            "the attack.",
            option="shield",
            value="auto_fail",
        )
        ctx.result.outcome = {**base, "verdict": "auto_fail", "hit": False, "damage": 0}
        return
    advantage = has_advantage(state, target)
    c = anti_tank_contest(state, target)
    throws = contest.roll(ctx.bag, c, tank_label(tank), tank_label(target))
    verdict = throws[-1].verdict
    assert verdict is not None
    ctx.result.modifiers.extend(contest.modifiers(c, target.player))
    ctx.result.rulings.extend(contest.rulings(c, state.options, advantage=advantage))
    adv = " with advantage (its Attack space)" if advantage else ""
    ctx.say(
        f"{tank_label(tank)} attacks {tank_label(target)}{adv}: "
        f"{contest.throw_text(throws, c)}: {contest.VERDICT_TEXT[verdict]} (YRD-AN1)"
    )
    dealt = {"critical_success": 2, "win": 1, "graze": 1}.get(verdict, 0)
    if dealt:
        damage_tank(ctx, target, dealt, contest.VERDICT_TEXT[verdict], "YRD-AN1")
    elif verdict == "critical_failure":
        damage_tank(ctx, tank, 1, "its own critical failure", "YRD-AN1")
    ctx.result.outcome = {
        **base,
        "verdict": verdict,
        "hit": dealt > 0,
        "advantage": advantage,
        "damage": dealt,
        "self_damage": 1 if verdict == "critical_failure" else 0,
        "offender_total": throws[-1].offender_total,
        "defender_total": throws[-1].defender_total,
    }
