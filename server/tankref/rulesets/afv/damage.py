"""Damage (AFV-DMG1, AFV-DMG2): one hit on the target's column, the markers and lasting damage
it leaves, and a destroyed carrier's teams lost with it (AFV-SPC1)."""

from __future__ import annotations

from tankref.core.dice import Roll
from tankref.rulesets.afv import rules
from tankref.rulesets.afv.cards import DIE, Weapon
from tankref.rulesets.afv.carry import RULING_CARRY
from tankref.rulesets.afv.context import AfvContext
from tankref.rulesets.afv.presentation import unit_label
from tankref.rulesets.afv.state import UnitState

# Where the text is silent the referee rules, and says so in the result when it applies.
RULING_PEN = "'Subtract pen from armour' is read as the modifier pen - armour (infantry armour 0)."
RULING_DEGRADED_VEHICLE = (
    "A Degraded vehicle chooses each phase by what it does: moving more than half its rate "
    "for the ground it crossed costs -2 to hit. Degraded infantry become the Degraded "
    "infantry type instead (the human column)."
)


def damage(ctx: AfvContext, weapon: Weapon, by: str, target: UnitState, n: int) -> str:
    """AFV-DMG1 for one hit of ``weapon`` (fired by ``by``): 2d6 + pen - armour on the
    target's column; AFV-DMG2 markers."""
    pen, armour = weapon.pen, target.card.armour
    rolls: list[Roll] = ctx.bag.roll(DIE, 2, f"damage, hit {n} (2d6 + pen - armour, AFV-DMG1)")
    total = sum(r.face for r in rolls) + pen - armour
    ctx.modifier("AFV-DMG1", f"hit {n}: pen {pen} - armour {armour}", pen - armour, "damage_roll",
                 RULING_PEN)  # fmt: skip
    label = unit_label(target)
    math = f"2d6 {rolls[0].face}+{rolls[1].face} + pen {pen} - armour {armour} = {total}"
    if target.infantry:
        result: str = rules.human_result(total)
        words = rules.HUMAN_WORDS[result]
        if result == "stopped":
            target.stopped = True
        elif result == "suppressed":
            target.suppressed = True
        elif result == "degraded":
            target.suppressed = True
            if target.degraded_card is not None and target.card.id != target.degraded_card.id:
                target.card = target.degraded_card
                words += f": now {target.card.name}"
            target.degraded = True
        elif result == "destroyed":
            destroy(ctx, target, by)
        ctx.say(f"Hit {n} on {label}: {math}, human column: {words} (AFV-DMG1, AFV-DMG2).")
        return result
    result = rules.vehicle_result(total)
    words = rules.VEHICLE_WORDS[result]
    if result == "superficial":
        target.superficial += 1
    elif result == "component":
        target.components_lost += 1
    elif result == "degraded":
        target.degraded = True
        ctx.rule("AFV-DMG1", RULING_DEGRADED_VEHICLE)
    elif result == "stopped_or_no_weapon":
        option = ctx.state.options.stopped_or_no_weapon
        ctx.rule(
            "AFV-DMG1",
            "'Stopped or no weapon': stopped means stopped for good; no weapon takes out its "
            "most penetrating weapon system left (stopped once none is left).",
            "stopped_or_no_weapon", option,
        )  # fmt: skip
        left = target.weapons()
        if option == "no_weapon" and left:
            index, lost = max(left, key=lambda iw: (iw[1].pen, -iw[0]))
            target.weapons_lost = tuple(sorted((*target.weapons_lost, index)))
            words += f": {lost.name} knocked out"
        else:
            target.immobilised = True
            words += ": stopped for good"
    elif result == "destroyed":
        destroy(ctx, target, by)
    ctx.say(f"Hit {n} on {label}: {math}, vehicle column: {words} (AFV-DMG1).")
    return result


def destroy(ctx: AfvContext, unit: UnitState, by: str) -> None:
    unit.destroyed = True
    unit.destroyed_by = by
    unit.suppressed = unit.stopped = unit.ready = False
    unit.direction = None
    ctx.event("destroyed", "AFV-DMG1", f"{unit_label(unit)} is destroyed", tank_id=unit.id)
    for other_id in sorted(ctx.state.units):
        if ctx.state.units[other_id].carried_by == unit.id:
            carried = ctx.edit(other_id)
            carried.destroyed = True
            carried.destroyed_by = by
            ctx.rule("AFV-SPC1", RULING_CARRY)
            ctx.say(f"{unit_label(carried)} is lost with its carrier (AFV-SPC1).")
