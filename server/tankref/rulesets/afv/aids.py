"""AFV aids: the move rates as rings (cm converted to table inches), by terrain where the
rules change them, and each enemy's line of fire.

The rings come from the checks a move runs (``movement.check_may_move``, ``movement.move_rate``:
AFV-MV1, the evasive half of AFV-MV2, the slow rate of AFV-MV3), measured from where the unit
began its phase; the lines from ``spotting.sight_blocker``/``in_cover`` and ``fire.plan_fire``
(AFV-FR1, AFV-HIT2), the same reads a shot makes.
"""

from __future__ import annotations

from tankref.core.aids import AidLine, AidRing, Aids, Refusal
from tankref.core.errors import RulesError
from tankref.core.geometry import distance
from tankref.rulesets.afv import fire, movement, spotting
from tankref.rulesets.afv.actions import Fire
from tankref.rulesets.afv.cards import both, cm_to_inches
from tankref.rulesets.afv.context import get_unit
from tankref.rulesets.afv.state import TableState, UnitState


def aids(state: TableState, unit_id: str) -> Aids:
    """The aids for one unit now; an unknown unit is refused (UNKNOWN_TANK)."""
    unit = get_unit(state, unit_id)
    out = Aids(tank_id=unit.id)
    _rings(state, unit, out)
    if unit.on_board:
        out.lines = [
            _line(state, unit, other)
            for other in sorted(state.units.values(), key=lambda u: u.id)
            if other.player != unit.player and other.on_board
        ]
    return out


def _rings(state: TableState, unit: UnitState, out: Aids) -> None:
    try:
        u = movement.check_may_move(state, unit.id)
    except RulesError as err:
        out.move_refused = Refusal.of(err)
        return
    start = (u.start_x, u.start_z)
    rate, why = movement.move_rate(state, u, start)  # the rate options give: open ground here
    evasive = " (evasive: half, AFV-MV2)" if u.evasive else ""
    out.move.append(
        AidRing(
            id="rate",
            x=start[0],
            z=start[1],
            radius=round(cm_to_inches(rate), 4),
            clause="AFV-MV1",
            label=f"move up to {both(rate)} from where it began its phase{evasive}",
        )
    )
    slow = u.card.slow_move_cm
    if slow is not None and not any("AFV-MV3" in w for w in why):
        slow_rate = slow / 2 if u.evasive else slow
        kinds = ", ".join(u.card.slow_on)
        out.move.append(
            AidRing(
                id="slow",
                x=start[0],
                z=start[1],
                radius=round(cm_to_inches(slow_rate), 4),
                clause="AFV-MV3",
                label=f"a path into or across {kinds}: up to {both(slow_rate)}{evasive}",
            )
        )
    if u.suppressed or u.retreated:
        out.notes.append(
            "AFV-MV1: Suppressed: it may only move directly away from the nearest enemy"
        )


def _line(state: TableState, shooter: UnitState, target: UnitState) -> AidLine:
    blocker = spotting.sight_blocker(state, shooter, target, ("hill", "woods"))
    cover = spotting.in_cover(state, target)
    if blocker is not None:
        word, clause = "blocked", "AFV-FR1"
        label = f"{state.terrain[blocker].kind} {blocker} blocks the line"
    elif cover is not None:
        word, clause = "cover", "AFV-HIT2"
        label = f"the target stands in {state.terrain[cover].kind} {cover}"
    else:
        word, clause, label = "clear", "AFV-FR1", "clear"
    refused: Refusal | None = None
    for index in range(len(shooter.card.weapon)):
        try:
            fire.plan_fire(state, Fire(tank_id=shooter.id, target_id=target.id, weapon=index))
        except RulesError as err:
            refused = refused or Refusal.of(err)
            continue
        refused = None  # one weapon system that may fire is enough
        break
    return AidLine(
        target_id=target.id,
        x1=shooter.x,
        z1=shooter.z,
        x2=target.x,
        z2=target.z,
        reading=word,
        range=round(distance(shooter.pos, target.pos), 3),
        clause=clause,
        label=label,
        may_fire=refused is None,
        refused=refused,
    )
