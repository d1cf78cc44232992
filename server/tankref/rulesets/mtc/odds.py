"""Exact odds of a Minimal Tank Combat attack (MTC-CB1, MTC-CRT1): the CRT column of the
planned fire and the chance its one d6 destroys, as a fraction."""

from __future__ import annotations

from pydantic import BaseModel

from tankref.rulesets.mtc.fire import FirePlan


class ShotOdds(BaseModel):
    """The chance of one attack (MTC-CB1, MTC-CRT1): exact, from the CRT column."""

    shooters: list[str]
    target_id: str
    distance: int
    attack: int
    defense: int
    town: bool
    column: str
    p_destroyed: float
    exact: str


def shot_odds(plan: FirePlan) -> ShotOdds:
    """The plan's chance: alone or combined, as the Fire it plans would roll."""
    p = plan.p
    return ShotOdds(
        shooters=[s.id for s in plan.shooters],
        target_id=plan.target.id,
        distance=max(line.distance for line in plan.lines.values()),
        attack=plan.attack,
        defense=plan.defense,
        town=plan.town,
        column=plan.column,
        p_destroyed=float(p),
        exact=f"{p.numerator}/{p.denominator}",
    )
