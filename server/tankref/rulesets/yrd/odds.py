"""Exact odds of a tank yard attack (fractions, by enumerating every throw), from the same
``Contest`` the referee adjudicates with."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from pydantic import BaseModel, Field

from tankref.core.errors import RulesError
from tankref.rulesets.yrd import contest
from tankref.rulesets.yrd.anti_tank import anti_tank_contest, anti_tank_target, check_anti_tank
from tankref.rulesets.yrd.attack import attack_contest, attack_target, check_attack
from tankref.rulesets.yrd.context import get_tank
from tankref.rulesets.yrd.state import PieceState, TableState, TankState


def _exact(p: Fraction) -> str:
    return str(p.numerator) if p.denominator == 1 else f"{p.numerator}/{p.denominator}"


class AttackOdds(BaseModel):
    """One attack's chances: the contest's verdicts and the damage that follows."""

    shooter: str
    target: str
    attack: str = Field(description="artillery (YRD-AT1) or anti_tank (YRD-AN1)")
    clause: str
    advantage: bool
    p_hit: float = Field(description="The offender wins (grazing and critical included).")
    p_critical_success: float
    p_graze: float
    p_critical_failure: float = Field(description="The offender's own tank takes 1 damage.")
    expected_damage: float
    damage: dict[int, float] = Field(description="P(damage dealt to the target) by amount.")
    exact: dict[str, str]

    def brief(self) -> dict[str, Any]:
        """For menus: the few figures a hover shows."""
        return {
            "p_hit": round(self.p_hit, 4),
            "p_critical_success": round(self.p_critical_success, 4),
            "p_critical_failure": round(self.p_critical_failure, 4),
            "expected_damage": round(self.expected_damage, 3),
            "advantage": self.advantage,
        }


def _build(
    c: contest.Contest,
    shooter: str,
    target: str,
    attack: str,
    damage: dict[int, Fraction],
    advantage: bool,
) -> AttackOdds:
    v = contest.verdict_odds(c)
    hit = v["win"] + v["graze"] + v["critical_success"]
    mean = sum((Fraction(k) * p for k, p in damage.items()), Fraction(0))
    return AttackOdds(
        shooter=shooter,
        target=target,
        attack=attack,
        clause=c.clause,
        advantage=advantage,
        p_hit=float(hit),
        p_critical_success=float(v["critical_success"]),
        p_graze=float(v["graze"]),
        p_critical_failure=float(v["critical_failure"]),
        expected_damage=float(mean),
        damage={k: float(p) for k, p in damage.items()},
        exact={
            "p_hit": _exact(hit),
            "p_critical_success": _exact(v["critical_success"]),
            "p_graze": _exact(v["graze"]),
            "p_critical_failure": _exact(v["critical_failure"]),
            "expected_damage": _exact(mean),
        },
    )


def attack_odds(state: TableState, tank: TankState, piece: PieceState) -> AttackOdds:
    """YRD-AT1 against ``piece`` (the checks are the caller's)."""
    c = attack_contest(state, tank, piece)
    damage = contest.artillery_damage_odds(c, state.options.grazing_rounding)
    return _build(c, tank.id, piece.id, "artillery", damage, False)


def anti_tank_odds(state: TableState, tank: TankState, target: TankState) -> AttackOdds:
    """YRD-AN1 against ``target`` (the checks are the caller's)."""
    c = anti_tank_contest(state, target)
    v = contest.verdict_odds(c)
    damage = {
        0: v["lose"] + v["critical_failure"],
        1: v["win"] + v["graze"],
        2: v["critical_success"],
    }
    advantage = c.offender_dice > 1 or c.offender_bonus > 0
    return _build(c, tank.id, target.id, "anti_tank", damage, advantage)


def odds_for(state: TableState, shooter_id: str, target_id: str | None) -> list[AttackOdds]:
    """The odds of the attack ``shooter_id`` may make now against ``target_id``, or against
    every target it may attack (likeliest hit first). Refused as the attack would be."""
    tank = get_tank(state, shooter_id)
    if tank.space == "attack":
        check_attack(state, tank)
        if target_id is not None:
            return [attack_odds(state, tank, attack_target(state, tank, target_id))]
        found = []
        for piece in sorted(state.pieces.values(), key=lambda p: p.id):
            try:
                attack_target(state, tank, piece.id)
            except RulesError:
                continue
            found.append(attack_odds(state, tank, piece))
    elif tank.space == "anti_tank":
        check_anti_tank(state, tank)
        ids = [target_id] if target_id is not None else [
            t.id for t in sorted(state.tanks.values(), key=lambda t: t.id)
            if t.player != tank.player
        ]  # fmt: skip
        found = []
        for other_id in ids:
            try:
                other = anti_tank_target(state, tank, other_id)
            except RulesError:
                if target_id is not None:
                    raise
                continue
            if other.space != "shield":  # an automatic failure has no odds to show
                found.append(anti_tank_odds(state, tank, other))
    else:
        raise RulesError(
            "ODDS_NOT_AVAILABLE",
            "YRD-SH1",
            f"{shooter_id} is on its Shield space: it makes no attack from there",
        )
    return sorted(found, key=lambda o: -o.p_hit)
