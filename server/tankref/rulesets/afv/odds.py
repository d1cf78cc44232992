"""Exact odds of an AFV shot, from the same plan the Fire resolves (fractions, no sampling).

2d6 + hit + modifiers gives the number of hits (AFV-HIT1); each hit rolls 2d6 + pen - armour
on the target's column (AFV-DMG1) until one destroys it. Where a spotting d6 comes first
(infantry in sight, AFV-SP1) every chance is multiplied by its 1/2.
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from typing import Any

from pydantic import BaseModel

from tankref.core.errors import RulesError
from tankref.rulesets.afv import rules
from tankref.rulesets.afv.actions import Fire
from tankref.rulesets.afv.context import get_unit
from tankref.rulesets.afv.fire import ShotPlan, plan_fire
from tankref.rulesets.afv.state import TableState

_TWO_D6: dict[int, Fraction] = {
    s: Fraction(n, 36) for s, n in Counter(a + b for a in range(1, 7) for b in range(1, 7)).items()
}


def _exact(p: Fraction) -> str:
    return f"{p.numerator}/{p.denominator}"


class ShotOdds(BaseModel):
    shooter: str
    target: str
    weapon: int
    weapon_name: str
    hit_modifier: int
    damage_modifier: int
    p_spot: float
    p_hit: float
    expected_hits: float
    p_destroyed: float
    per_hit: dict[str, float]  # each damage-table result's chance for one hit
    exact: dict[str, str]

    def brief(self) -> dict[str, Any]:
        return {
            "p_hit": round(self.p_hit, 4),
            "p_destroyed": round(self.p_destroyed, 4),
            "exact": {k: self.exact[k] for k in ("p_hit", "p_destroyed")},
        }


def hit_distribution(hit: int, modifier: int) -> dict[int, Fraction]:
    """P(number of hits) for 2d6 + hit + modifier (AFV-HIT1)."""
    out: dict[int, Fraction] = {}
    for s, p in _TWO_D6.items():
        k = rules.hits_for(s + hit + modifier)
        out[k] = out.get(k, Fraction(0)) + p
    return out


def damage_distribution(modifier: int, infantry: bool) -> dict[str, Fraction]:
    """P(each damage-table result) for one hit: 2d6 + (pen - armour) (AFV-DMG1)."""
    column = rules.human_result if infantry else rules.vehicle_result
    out: dict[str, Fraction] = {}
    for s, p in _TWO_D6.items():
        result = column(s + modifier)
        out[result] = out.get(result, Fraction(0)) + p
    return out


def shot_odds(plan: ShotPlan) -> ShotOdds:
    p_spot = Fraction(rules.SPOT_ON, 6) if plan.seen.roll else Fraction(1)
    hits = hit_distribution(plan.weapon.hit, plan.hit_modifier)
    per_hit = damage_distribution(plan.damage_modifier, plan.target.infantry)
    q = per_hit.get("destroyed", Fraction(0))
    p_hit = p_spot * (1 - hits.get(0, Fraction(0)))
    expected = p_spot * sum((k * p for k, p in hits.items()), Fraction(0))
    p_destroyed = p_spot * sum((p * (1 - (1 - q) ** k) for k, p in hits.items()), Fraction(0))
    return ShotOdds(
        shooter=plan.shooter.id,
        target=plan.target.id,
        weapon=plan.weapon_index,
        weapon_name=plan.weapon.name,
        hit_modifier=plan.hit_modifier,
        damage_modifier=plan.damage_modifier,
        p_spot=float(p_spot),
        p_hit=float(p_hit),
        expected_hits=float(expected),
        p_destroyed=float(p_destroyed),
        per_hit={k: float(v) for k, v in per_hit.items()},
        exact={
            "p_spot": _exact(p_spot),
            "p_hit": _exact(p_hit),
            "expected_hits": _exact(expected),
            "p_destroyed": _exact(p_destroyed),
        },
    )


def odds_for(state: TableState, shooter_id: str, target_id: str | None) -> list[ShotOdds]:
    """Against one target (each weapon that may fire at it), or every enemy any of its weapon
    systems may fire at now; most likely kill first. Refused like the Fire when none may."""
    shooter = get_unit(state, shooter_id)
    targets = (
        [get_unit(state, target_id, "target_id")]
        if target_id is not None
        else [u for u in state.units.values() if u.player != shooter.player and u.on_board]
    )
    found: list[ShotOdds] = []
    first: RulesError | None = None
    for target in sorted(targets, key=lambda u: u.id):
        for index in range(len(shooter.card.weapon)):
            try:
                plan = plan_fire(state, Fire(tank_id=shooter_id, target_id=target.id, weapon=index))
            except RulesError as err:
                first = first or err
                continue
            found.append(shot_odds(plan))
    if not found:
        raise first or RulesError("NO_TARGETS", "AFV-FR1", f"{shooter_id} has no target")
    return sorted(found, key=lambda o: (-o.p_destroyed, -o.p_hit, o.target, o.weapon))
