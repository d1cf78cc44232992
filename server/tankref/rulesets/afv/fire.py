"""Fire (AFV-FR1, AFV-HIT1, AFV-HIT2, AFV-AP1): may this weapon system shoot that target, with
which modifiers (one plan for the Fire, its options and its odds), and the shot itself."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tankref.core.adjudication import refuse
from tankref.core.errors import RulesError
from tankref.core.flow import NOT_AN_ENEMY, TARGET_NOT_ON_TABLE
from tankref.core.geometry import bearing, distance
from tankref.core.results import Modifier
from tankref.rulesets.afv import rules
from tankref.rulesets.afv.actions import Fire
from tankref.rulesets.afv.cards import DIE, Weapon, both, inches_to_cm
from tankref.rulesets.afv.context import AfvContext, get_unit, own_unit
from tankref.rulesets.afv.damage import RULING_DEGRADED_VEHICLE, RULING_PEN, damage
from tankref.rulesets.afv.movement import terrain_rate
from tankref.rulesets.afv.presentation import unit_label
from tankref.rulesets.afv.spotting import RULING_SIGHT, Seen, check_seen, in_cover, roll_spot
from tankref.rulesets.afv.state import TableState, UnitState
from tankref.rulesets.afv.turns import RULING_SEQUENCE

# Where the text is silent the referee rules, and says so in the result when it applies.
RULING_SUPPRESSED_FIRE = (
    "A Suppressed unit that has not fallen back may fire only at the nearest enemy it could "
    "otherwise shoot; it is revealed to every opponent until its next phase."
)
RULING_AP = "A weapon with hit above 0 is anti-personnel; one with hit 0 is not."
RULING_AFTER_KILL = "Once the target is destroyed the shot's remaining hits are not rolled."
RULING_LATERAL = (
    "'Laterally' compares the target's direction marker with the line between the two "
    "units; straight toward or straight away is not lateral."
)
RULING_COVER = "Infantry are in cover inside a woods or cover piece."


@dataclass
class ShotPlan:
    """A shot checked and measured, not yet rolled: the Fire, its options and its odds."""

    shooter: UnitState
    target: UnitState
    weapon_index: int
    weapon: Weapon
    range_cm: float
    band: str
    seen: Seen
    modifiers: list[Modifier] = field(default_factory=list)
    rulings: list[tuple[str, str]] = field(default_factory=list)

    @property
    def hit_modifier(self) -> int:
        return sum(m.amount for m in self.modifiers)

    @property
    def damage_modifier(self) -> int:
        return self.weapon.pen - self.target.card.armour


def check_weapon(state: TableState, unit_id: str, weapon: int) -> tuple[UnitState, Weapon]:
    """May this weapon system fire at all now (whatever the target)?"""
    unit = own_unit(state, unit_id, "AFV-FR1")
    if unit.carried_by is not None:
        refuse("CARRIED", "AFV-SPC1", f"{unit_label(unit)} is carried: it cannot fire")
    if weapon >= len(unit.card.weapon):
        refuse(
            "NO_SUCH_WEAPON", "AFV-FR1",
            f"weapon: {unit.card.name} has {len(unit.card.weapon)} weapon system(s), "
            f"numbered from 0", field="weapon",
        )  # fmt: skip
    system = unit.card.weapon[weapon]
    if weapon in unit.weapons_lost:
        refuse("WEAPON_LOST", "AFV-DMG1", f"{unit_label(unit)}'s {system.name} is knocked out")
    if weapon in unit.fired:
        refuse(
            "ALREADY_FIRED", "AFV-FR1",
            f"{unit_label(unit)}'s {system.name} has fired this phase (one shot per weapon system)",
        )  # fmt: skip
    # The ATGM carrier's 'stop marker' is the Ready or Stopped marker it began its phase
    # with; it keeps it by not moving (a ruling, in docs/rulesets/afv.md's list).
    if unit.card.fires_only_after_stop and not (unit.began_with_stop and unit.moved_cm == 0):
        why = "it moved" if unit.moved_cm else "it did not begin the phase with a stop marker"
        refuse(
            "NEEDS_STOP_MARKER", "AFV-SPC1",
            f"{unit_label(unit)} fires only on a turn that has and starts with a stop "
            f"marker: {why}",
        )  # fmt: skip
    return unit, system


def plan_fire(state: TableState, fire: Fire, *, suppression: bool = True) -> ShotPlan:
    """Every check and modifier of a shot, without rolling: the Fire, its options and its
    odds all come from here. ``suppression`` False: leave out the Suppressed unit's
    nearest-enemy rule (to find that nearest enemy)."""
    unit, weapon = check_weapon(state, fire.tank_id, fire.weapon)
    target = get_unit(state, fire.target_id, "target_id")
    if target.player == unit.player:
        refuse(NOT_AN_ENEMY, "AFV-FR1", f"target_id: {unit_label(target)} is a friend")
    if not target.on_board:
        refuse(
            TARGET_NOT_ON_TABLE, "AFV-FR1", f"target_id: {unit_label(target)} is not on the table"
        )
    if target.infantry and not weapon.anti_personnel:
        refuse(
            "NOT_ANTI_PERSONNEL", "AFV-AP1",
            f"{unit_label(target)} is infantry: only anti-personnel attacks affect it, and "
            f"{weapon.name} (hit 0) is not one",
        )  # fmt: skip
    rulings: list[tuple[str, str]] = []
    if unit.suppressed and suppression:
        # AFV-FR1: the nearest enemy this weapon could otherwise shoot, nearer ones first.
        for enemy in sorted(
            (u for u in state.units.values() if u.player != unit.player and u.on_board),
            key=lambda u: (distance(unit.pos, u.pos), u.id),
        ):
            if enemy.id == target.id:
                break
            try:
                plan_fire(state, fire.model_copy(update={"target_id": enemy.id}), suppression=False)
            except RulesError:
                continue
            refuse(
                "NOT_NEAREST_ENEMY", "AFV-FR1",
                f"{unit_label(unit)} is Suppressed: it may fire only at the nearest enemy it "
                f"could shoot, {unit_label(enemy)}",
            )  # fmt: skip
        rulings.append(("AFV-FR1", RULING_SUPPRESSED_FIRE))
    range_cm = inches_to_cm(distance(unit.pos, target.pos))
    band = rules.range_band(range_cm, weapon.short_cm)
    if band is None:
        refuse(
            "OUT_OF_RANGE", "AFV-HIT2",
            f"{unit_label(target)} is {both(round(range_cm, 1))} away, beyond 10x "
            f"{weapon.name}'s short range of {both(weapon.short_cm)}",
            range_cm=round(range_cm, 2),
        )  # fmt: skip
    seen = check_seen(state, unit, target)
    plan = ShotPlan(unit, target, fire.weapon, weapon, range_cm, band[0], seen, rulings=rulings)
    mods = plan.modifiers

    def add(clause: str, label: str, amount: int, ruling: str | None = None) -> None:
        mods.append(Modifier(clause=clause, label=label, amount=amount, applies_to="hit_roll",
                             ruling=ruling))  # fmt: skip

    if unit.moved_cm > 0 and not unit.infantry:
        add("AFV-HIT2", "shooter moved and is not infantry", -2)
    line = bearing(target.pos, unit.pos)
    if rules.lateral(target.direction, line):
        off = rules.off_line(target.direction or 0.0, line)
        add(
            "AFV-HIT2", f"target moved laterally ({off:.0f}° off the line, "
            f"{target.card.unit_class})", rules.LATERAL_PENALTY[target.card.unit_class],
            RULING_LATERAL,
        )  # fmt: skip
    if target.infantry:
        cover = in_cover(state, target)
        if cover is not None:
            add("AFV-HIT2", f"infantry in cover ({state.terrain[cover].kind} {cover})", -2,
                RULING_COVER)  # fmt: skip
    band_name, band_mod = band
    span = {"short": "", "long": " (up to 5x short)", "distant": " (up to 10x short)"}[band_name]
    add(
        "AFV-HIT2", f"{band_name} range{span}: {both(round(range_cm, 1))}, short "
        f"{both(weapon.short_cm)}", band_mod,
    )  # fmt: skip
    # "Move ½ or shoot -2" is the vehicle column (degraded infantry change unit type instead,
    # AFV-DMG2); half of the rate for the ground the move crossed (AFV-MV3).
    if unit.degraded and not unit.infantry and unit.moved_cm > 0:
        full, _ = terrain_rate(state, unit, unit.pos)
        if unit.moved_cm > full / 2 + 1e-9:
            add(
                "AFV-DMG1", "degraded and moved more than half its rate", -2,
                RULING_DEGRADED_VEHICLE,
            )  # fmt: skip
    return plan


def fire(ctx: AfvContext, action: Fire) -> None:
    """The planned shot: a spotting d6 first where infantry need one, 2d6 to hit, then each
    hit's damage until the target is destroyed."""
    state = ctx.state
    plan = plan_fire(state, action)
    shooter = ctx.edit(plan.shooter.id)
    target_label = unit_label(plan.target)
    ctx.rule("AFV-SEQ1", RULING_SEQUENCE)
    if plan.target.infantry:
        ctx.rule("AFV-AP1", RULING_AP)
    seen = plan.seen.note
    if plan.seen.roll:
        if not roll_spot(ctx, shooter, plan.target):
            ctx.result.outcome = {
                "shooter": shooter.id, "target": plan.target.id, "weapon": plan.weapon_index,
                "spotted": False, "fired": False,
            }  # fmt: skip
            ctx.say(f"{unit_label(shooter)} holds its {plan.weapon.name}: no target seen.")
            return
        seen = "spotted on the d6"
    if plan.seen.how == "recon":
        ctx.rule("AFV-FR1", RULING_SIGHT)
    for clause, text in plan.rulings:
        ctx.rule(clause, text)
    if shooter.suppressed:
        shooter.suppressed = False
        shooter.revealed = True
        ctx.say(
            f"{unit_label(shooter)} fires while Suppressed, at the nearest enemy: revealed to "
            "every opponent; Suppressed marker removed (AFV-FR1)."
        )
    shooter.fired = (*shooter.fired, plan.weapon_index)
    ctx.result.modifiers.extend(plan.modifiers)
    rolls = ctx.bag.roll(DIE, 2, f"to hit with {plan.weapon.name} (2d6 + hit, AFV-HIT1)")
    dice_sum = sum(r.face for r in rolls)
    total = dice_sum + plan.weapon.hit + plan.hit_modifier
    hits = rules.hits_for(total)
    mods = "".join(f" {m.amount:+d}" for m in plan.modifiers if m.amount)
    ctx.say(
        f"{unit_label(shooter)} fires its {plan.weapon.name} at {target_label} "
        f"({seen}): {hits} hit{'s' if hits != 1 else ''}."
    )
    ctx.say(
        f"2d6 {rolls[0].face}+{rolls[1].face} + hit {plan.weapon.hit}{mods} = {total} "
        f"(8+ one hit, +1 per 3 more; AFV-HIT1)."
    )
    outcome: dict[str, Any] = {
        "shooter": shooter.id,
        "target": plan.target.id,
        "weapon": plan.weapon_index,
        "weapon_name": plan.weapon.name,
        "range_cm": round(plan.range_cm, 2),
        "range_band": plan.band,
        "hit_total": total,
        "hits": hits,
        "damage": [],
        "fired": True,
    }
    ctx.result.outcome = outcome
    if hits:
        ctx.rule("AFV-DMG1", RULING_PEN)
    for n in range(hits):
        target = ctx.edit(plan.target.id)
        if target.destroyed:
            ctx.rule("AFV-DMG1", RULING_AFTER_KILL)
            break
        result = damage(ctx, plan.weapon, plan.shooter.id, target, n + 1)
        outcome["damage"].append(result)
    outcome["destroyed"] = ctx.state.units[plan.target.id].destroyed
