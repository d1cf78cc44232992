"""TinyTableTopTanks luck trials: what chance each adjudicated roll had, exactly.

- An Engage gives one ``hit`` trial for the shooter's player: P(the shot hits), Grizzled
  reroll of a missed roll included where the plan allows it (``combat.plan_engage`` with the
  Engage's own declaration, the same plan the adjudication resolved).
- A hit gives one ``penetration`` trial: P(penetrated) as the red dice stood when they were
  rolled: with the Grizzled reroll still in hand, or not when Accuracy spent it. (Averaged
  over both cases this is the odds engine's P(penetrate | hit).)
- Each morale check in the result gives one ``morale_failure`` trial for the checking tank's
  player: the green die's share of Shaken and Routed faces (TTT-MO3).

A chance of 0 or 1 is no luck and gives no trial (no Accuracy dice left, no PEN needed).
Table dice and server dice count alike. Pure: no I/O.
"""

from __future__ import annotations

from fractions import Fraction

from tankref.core.errors import RulesError
from tankref.core.luck import LuckTrial, Measure
from tankref.core.results import Result
from tankref.rulesets.ttt.actions import Action, Engage
from tankref.rulesets.ttt.cards import ACCURACY_DIE, HIT, MORALE_DIE, PEN, PENETRATION_DIE, STAR
from tankref.rulesets.ttt.combat import plan_engage
from tankref.rulesets.ttt.morale import morale_result
from tankref.rulesets.ttt.odds import hit_odds, penetration_odds
from tankref.rulesets.ttt.state import TableState

__all__ = ["luck_trials", "morale_failure_chance"]


def _trial(player: str, measure: Measure, p: Fraction, happened: bool) -> list[LuckTrial]:
    if p <= 0 or p >= 1:
        return []
    return [LuckTrial(player=player, measure=measure, p=p, happened=happened)]


def morale_failure_chance(state: TableState) -> Fraction:
    """P(a morale check is Shaken or Routed) with this table's green die."""
    faces = state.rules.dice[MORALE_DIE].faces
    return Fraction(sum(1 for f in faces if morale_result(f.face) != "ok"), len(faces))


def _shot(state: TableState, action: Engage, result: Result) -> list[LuckTrial]:
    outcome = result.outcome
    if outcome.get("shooter") != action.tank_id:
        return []  # not resolved as a shot
    plan = plan_engage(state, action.tank_id, action.target_id, action.grizzled_reroll)
    player = plan.shooter.player
    dice = state.rules.dice
    white = tuple(f.icons.count(HIT) for f in dice[ACCURACY_DIE].faces)
    first, again = hit_odds(white, plan.white_dice, plan.reroll_accuracy)
    hit = bool(outcome.get("hit"))
    trials = _trial(player, "hit", first + again, hit)
    if not hit:
        return trials
    red = tuple((f.icons.count(PEN), f.icons.count(STAR)) for f in dice[PENETRATION_DIE].faces)
    # The Grizzled reroll is left for the red dice only if Accuracy did not spend it.
    spent = any(r.die == ACCURACY_DIE and r.reroll_of is not None for r in result.rolls)
    try:
        p = penetration_odds(
            red, plan.red_dice, plan.threshold, plan.reroll_penetration and not spent
        )
    except RulesError as err:
        if err.code != "ODDS_NOT_EXACT":
            raise
        return trials  # house dice with no exact odds: that roll is left out
    return trials + _trial(player, "penetration", p, bool(outcome.get("penetrated")))


def luck_trials(state: TableState, action: Action, result: Result) -> list[LuckTrial]:
    """The trials of one adjudicated action; ``state`` is the table just before it."""
    trials = _shot(state, action, result) if isinstance(action, Engage) else []
    fail = morale_failure_chance(state)
    for event in result.events:
        if event.kind != "morale_check":
            continue
        tank = state.tanks.get(str(event.data.get("tank_id")))
        face = event.data.get("face")
        if tank is None or not isinstance(face, int):
            continue
        trials += _trial(tank.player, "morale_failure", fail, morale_result(face) != "ok")
    return trials
