"""Engage: who may fire, the side hit, Accuracy, Penetration, stars, the damage card.

TTT-E1..E7, TTT-CV1, TTT-CN1, with the Grizzled reroll (TTT-CR1) spent where it can change
the outcome.
"""

from __future__ import annotations

from dataclasses import dataclass

from tankref.core.dice import Roll
from tankref.core.geometry import bearing, normalize_degrees, signed_angle
from tankref.rulesets.ttt.actions import Engage, GrizzledUse
from tankref.rulesets.ttt.cards import (
    ACCURACY_DIE,
    HIT,
    PEN,
    PENETRATION_DIE,
    STAR,
    DamageCard,
    Side,
)
from tankref.rulesets.ttt.context import Context, get_tank, refuse, tank_label
from tankref.rulesets.ttt.morale import bail_out, catastrophe_seen
from tankref.rulesets.ttt.sight import LineOfFire, in_front_arc, read_line, side_hit
from tankref.rulesets.ttt.state import TableState, TankState


def check_engage(
    state: TableState, tank_id: str, target_id: str
) -> tuple[TankState, TankState, LineOfFire]:
    """TTT-E1 and every refusal that stops a tank from firing; changes nothing."""
    from tankref.rulesets.ttt.turns import require_playing, require_present

    require_playing(state)
    shooter = get_tank(state, tank_id)
    require_present(shooter)
    label = tank_label(shooter)
    if shooter.player != state.active_player and not shooter.waiting:
        refuse(
            "NOT_YOUR_PHASE",
            "TTT-W1",
            f"{label} may Engage in the enemy's phase only from Wait",
            active_player=state.active_player,
        )
    if shooter.engaged:
        refuse("ALREADY_ENGAGED", "TTT-E1", f"{label} has already engaged this turn")
    if shooter.stunned == "now":
        refuse("CREW_STUNNED", "TTT-E7", f"{label}'s crew is stunned: no action this phase")
    if shooter.must_recover:
        refuse("MUST_RECOVER", "TTT-MR4", f"{label} is Shaken and Immobilized: it may only Recover")
    if shooter.morale == "routed":
        refuse(
            "ROUTED", "TTT-MR2", f"{label} is Routed: it drives for its edge and does not Engage"
        )
    if shooter.moved == "fast" and not shooter.card.engage_while_fast:
        refuse("ENGAGE_WHILE_FAST", "TTT-M2", f"{label} is Moving Fast and its card cannot Engage")
    if shooter.recover_tried:
        refuse(
            "ACTION_AFTER_RECOVER",
            "TTT-R1",
            f"{label} tried to Recover: no other action but a Normal Move this turn",
        )
    if shooter.smoke_popped:
        refuse(
            "ACTION_AFTER_SMOKE", "TTT-SM1", f"{label} popped reusable smoke: no Engage this turn"
        )
    target = get_tank(state, target_id, "target_id")
    if target.player == shooter.player:
        refuse("TARGET_NOT_ENEMY", "TTT-E1", f"target_id: {tank_label(target)} is a friendly tank")
    if not target.on_board:
        refuse("TARGET_NOT_ON_TABLE", "TTT-E1", f"target_id: {tank_label(target)} is not in play")
    if shooter.turret_jammed and not in_front_arc(state.options, shooter, target):
        refuse(
            "TURRET_JAMMED",
            "TTT-E7",
            f"{label}'s turret is jammed: {tank_label(target)} is outside its front arc",
        )
    line = read_line(state, shooter, target)
    if not line.visible:
        refuse(
            "NO_LINE_OF_SIGHT",
            "TTT-E1",
            f"{label} cannot see {tank_label(target)}: blocked by {line.blocked_by}",
            blocked_by=line.blocked_by,
        )
    return shooter, target, line


def best_side(target: TankState) -> Side:
    """The strongest of Front, Side, Rear (ties go to the front)."""
    armour = target.card.armour
    return max(("front", "side", "rear"), key=lambda s: (armour.of(s), s == "front"))


def facing_to_present(side: Side, target: TankState, shooter: TankState) -> float:
    """The facing that points ``side`` of the target straight at the shooter (TTT-E3)."""
    toward = bearing(target.pos, shooter.pos)
    if side == "front":
        return normalize_degrees(toward)
    if side == "rear":
        return normalize_degrees(toward + 180)
    # Side: the smaller of the two quarter turns.
    left, right = normalize_degrees(toward + 90), normalize_degrees(toward - 90)
    if abs(signed_angle(left - target.facing)) <= abs(signed_angle(right - target.facing)):
        return left
    return right


def _reroll_allowed(
    ctx: Context, tank: TankState, stage: GrizzledUse, declared: GrizzledUse | None
) -> bool:
    if not tank.grizzled or tank.reroll_used:
        return False
    if ctx.state.options.grizzled_reroll == "auto":
        return True
    return declared == stage


def _spend_reroll(ctx: Context, tank_id: str, stage: str) -> None:
    ctx.edit(tank_id).reroll_used = True
    option = ctx.state.options.grizzled_reroll
    text = (
        f"the Grizzled reroll is spent on {stage}, where it can change the outcome"
        if option == "auto"
        else f"the Grizzled reroll is spent on {stage}, as declared"
    )
    ctx.rule("TTT-CR1", text, "grizzled_reroll", option)


@dataclass
class _Pool:
    """The red dice as they stand: the latest roll in each die's slot."""

    slots: list[Roll]

    @property
    def pens(self) -> int:
        return sum(r.icons.count(PEN) for r in self.slots)

    def weakest(self) -> int:
        """The slot showing the fewest PEN icons (blanks first)."""
        return min(range(len(self.slots)), key=lambda i: self.slots[i].icons.count(PEN))

    def blank(self) -> int | None:
        for i, r in enumerate(self.slots):
            if PEN not in r.icons:
                return i
        return None


def _spend_stars(ctx: Context, pool: _Pool, stars: int, threshold: int) -> int:
    """TTT-E6: each * rerolls one non-penetrating die; a * on a reroll grants another.

    Ruling: stars are spent while the target is not yet penetrated (a reroll after that
    changes nothing), and a die rerolled once may be rerolled again by a later *.
    """
    used = 0
    while stars > 0 and pool.pens < threshold:
        slot = pool.blank()
        if slot is None:
            break
        stars -= 1
        used += 1
        new = ctx.bag.reroll(pool.slots[slot], "to reroll (a * was rolled)")
        pool.slots[slot] = new
        stars += new.icons.count(STAR)
    return used


def do_engage(ctx: Context, action: Engage) -> None:
    state = ctx.state
    options = state.options
    shooter, target, line = check_engage(state, action.tank_id, action.target_id)
    s = ctx.edit(shooter.id)
    t = ctx.edit(target.id)
    s.engaged = True
    s.waiting = False
    outcome = ctx.result.outcome
    outcome.update(
        shooter=s.id, target=t.id, range=round(line.range, 2), hit=False, penetrated=False
    )
    ctx.say(f'{tank_label(s)} engages {tank_label(t)} at {line.range:.1f}".')

    # --- the side hit and the best-armour turn (TTT-E2, TTT-E3) ---------------------------
    reading = side_hit(options, s, t, line.hull_down)
    if line.hull_down:
        ctx.rule("TTT-E2", f"hull-down to the shooter ({line.hull_down_why}): the Turret is hit")
    else:
        ctx.rule(
            "TTT-E2",
            f"side by the shooter's bearing, {reading.relative:.1f}° off the target's facing "
            f"(front ±{options.front_arc:g}°, rear ±{options.rear_arc:g}°)",
            "front_arc/rear_arc",
            f"{options.front_arc:g}/{options.rear_arc:g}",
        )
        if reading.note:
            ctx.rule("TTT-E2", reading.note)
        best = best_side(t)
        armour = t.card.armour
        if armour.of(best) > armour.of(reading.side):
            why_not = (
                "the table's option is never"
                if options.best_armour == "never"
                else "it already changed facing this turn"
                if t.facing_changed
                else "it is Moving Fast"
                if t.moved == "fast"
                else "it is Immobilized"
                if t.immobilized
                else None
            )
            if why_not:
                ctx.rule(
                    "TTT-E3",
                    f"{tank_label(t)} cannot turn its best armour: {why_not}",
                    "best_armour",
                    options.best_armour,
                )
            else:
                new_facing = facing_to_present(best, t, s)
                old_facing = t.facing
                t.facing = round(new_facing, 3)
                t.facing_changed = True
                t.best_armour_turned = True
                reading = side_hit(options, s, t, False)
                ctx.rule(
                    "TTT-E3",
                    f"the referee turns {tank_label(t)}'s best armour ({best}) to the shot and "
                    "uses its facing change",
                    "best_armour",
                    "auto",
                )
                ctx.event(
                    "turn_model",
                    "TTT-E3",
                    f"Turn {tank_label(t)} to face {t.facing:.0f}° (best armour to the shot)",
                    tank_id=t.id,
                    facing=t.facing,
                    before=old_facing,
                )
    side = reading.side
    outcome["hit_side"] = side

    # --- Accuracy (TTT-E4) ----------------------------------------------------------------
    dice = s.card.accuracy
    mods: list[int] = []

    def penalty(clause: str, label: str, amount: int, ruling: str | None = None) -> None:
        ctx.modifier(clause, label, amount, "accuracy_dice", ruling)
        mods.append(amount)

    if s.moved != "none":
        penalty("TTT-M1", f"moved this turn ({s.moved})", -2)
    if s.morale == "shaken":
        penalty("TTT-MR1", "Shaken crew", -1)
    if s.optics_damage:
        penalty("TTT-E7", "Optics Damaged", -s.optics_damage)
    if t.moved == "fast" and t.card.fast_evasion:
        penalty("TTT-M2", "target Moving Fast (its card: -1 enemy Accuracy)", -1)
    if line.concealment:
        kind = "light" if line.concealment == 1 else "heavy"
        penalty("TTT-CN1", f"{kind} concealment ({line.concealment_why})", -line.concealment)
    if line.smoke:
        stacking = options.smoke_stacking
        ruling = "screens add" if stacking == "add" else "the strongest screen on the line applies"
        penalty(
            "TTT-SM3",
            f"smoke on the line of fire ({len(line.smoke_screens)} screen(s))",
            -line.smoke,
            ruling,
        )
    n_white = max(0, dice + sum(mods))
    outcome["accuracy_dice"] = n_white
    math_text = f"{dice}" + "".join(f" {m:+d}" for m in mods) + f" = {n_white} white"
    if n_white == 0:
        ctx.rule("TTT-E4", "no Accuracy dice left: the Engage fails")
        ctx.say(f"Accuracy: {math_text}: no dice left, the Engage fails.")
        outcome["reason"] = "no accuracy dice"
        return
    whites = ctx.bag.roll(ACCURACY_DIE, n_white, "for Accuracy")
    hit = any(HIT in r.icons for r in whites)
    faces = " ".join(str(r.face) for r in whites)
    acc_line = f"Accuracy: {math_text} [{faces}]"
    if not hit and _reroll_allowed(ctx, s, "accuracy", action.grizzled_reroll):
        _spend_reroll(ctx, s.id, "Accuracy")
        again = ctx.bag.reroll(whites[0], "Grizzled reroll")
        hit = HIT in again.icons
        acc_line += f", Grizzled reroll {again.face}"
    if any(r.icons.count(HIT) > 1 for r in ctx.bag.rolls if r.die == ACCURACY_DIE):
        ctx.rule("TTT-E4", "at most one hit per Accuracy roll, however many HIT icons show")
    if not hit:
        ctx.say(f"{acc_line}: miss.")
        return
    outcome["hit"] = True
    ctx.say(f"{acc_line}: hit.")
    if t.hit_turn != state.turn:
        t.hit_by, t.hit_turn = (), state.turn  # TTT-MO2 (2) counts the game turn, both phases
    if s.id not in t.hit_by:
        if t.hit_by:
            ctx.trigger_morale(t.id, "hit by a second enemy tank this turn")
        t.hit_by = (*t.hit_by, s.id)

    # --- Penetration (TTT-E5, TTT-E6, TTT-CV1) ----------------------------------------------
    armour_value = t.card.armour.of(side)
    cover = line.cover
    red = s.card.penetration
    pen_mods: list[int] = []
    if s.gun_damage:
        ctx.modifier("TTT-E7", "Gun Damaged", -s.gun_damage, "penetration_dice")
        pen_mods.append(-s.gun_damage)
    if cover:
        ctx.modifier(
            "TTT-CV1",
            f"Cover +{cover} ({line.cover_why})",
            cover,
            "armour",
            "Cover is added once, to the armour" if options.cover == "armour" else None,
        )
        if options.cover == "literal":
            ctx.modifier(
                "TTT-E5",
                f"Cover also taken off the red dice ({line.cover_why})",
                -cover,
                "penetration_dice",
                "literal: Cover subtracted from the dice and added to the armour",
            )
            pen_mods.append(-cover)
        ctx.rule("TTT-E5", f"Cover counted: {options.cover}", "cover", options.cover)
    n_red = max(0, red + sum(pen_mods))
    threshold = armour_value + cover
    outcome.update(armour=armour_value, cover=cover, needed=threshold, penetration_dice=n_red)
    pool = _Pool(ctx.bag.roll(PENETRATION_DIE, n_red, "for Penetration") if n_red else [])
    first_faces = " ".join(str(r.face) for r in pool.slots)
    stars = sum(r.icons.count(STAR) for r in pool.slots)
    used = _spend_stars(ctx, pool, stars, threshold)
    pen_line = (
        f"Penetration: {red}" + "".join(f" {m:+d}" for m in pen_mods) + f" = {n_red} red vs "
        f"{side} armour {armour_value}"
        + (f" + cover {cover}" if cover else "")
        + f" [{first_faces}]"
    )
    if used:
        pen_line += f", {used} * reroll(s)"
        ctx.rule(
            "TTT-E6", "each * rerolls a non-penetrating die while the target is not yet penetrated"
        )
    if (
        pool.pens < threshold
        and pool.slots
        and _reroll_allowed(ctx, s, "penetration", action.grizzled_reroll)
    ):
        _spend_reroll(ctx, s.id, "Penetration")
        slot = pool.weakest()
        new = ctx.bag.reroll(pool.slots[slot], "Grizzled reroll")
        pool.slots[slot] = new
        pen_line += f", Grizzled reroll {new.face}"
        extra = _spend_stars(ctx, pool, new.icons.count(STAR), threshold)
        if extra:
            pen_line += f", {extra} more * reroll(s)"
    pens = pool.pens
    outcome["pens"] = pens
    pen_line += f" = {pens} PEN"
    if pens < threshold:
        ctx.say(f"{pen_line}: no penetration.")
        return
    outcome["penetrated"] = True
    ctx.say(f"{pen_line}: penetrated!")

    # --- Damage card (TTT-E7) -----------------------------------------------------------------
    card = draw_damage_card(ctx)
    outcome["damage_card"] = card.name
    apply_damage(ctx, t.id, card)
    if ctx.state.tanks[t.id].on_board:
        ctx.trigger_morale(t.id, "suffered a penetrating hit")


def draw_damage_card(ctx: Context) -> DamageCard:
    """Without replacement from the table's deck; a full deck is shuffled in when it is empty.

    Drawing a uniformly random card from what is left is the same as drawing the top card of
    a shuffled pile, and costs the generator one number per card instead of a whole shuffle.
    """
    state = ctx.state
    deck = state.deck.model_copy()
    if not deck.draw_pile:
        deck.draw_pile = tuple(state.rules.full_deck())
        deck.discard = ()
        deck.shuffles += 1
        ctx.event("deck_shuffled", "TTT-E7", "The damage deck is shuffled", shuffles=deck.shuffles)
    chosen = ctx.bag.take_damage_card()
    pile = list(deck.draw_pile)
    if chosen is None:
        name = pile.pop(ctx.bag.uniform(len(pile)))
    else:
        if chosen not in pile:
            refuse(
                "DAMAGE_CARD_NOT_IN_DECK",
                "TTT-E7",
                f"dice.damage_card: {chosen!r} is not left in the deck "
                f"(left: {', '.join(sorted(set(pile)))})",
                field="damage_card",
            )
        pile.remove(chosen)
        name = chosen
    deck.draw_pile = tuple(pile)
    deck.discard = (*deck.discard, name)
    state.deck = deck
    card = state.rules.deck_card(name)
    assert card is not None  # the pile only ever holds names from the deck
    return card


def apply_damage(ctx: Context, tank_id: str, card: DamageCard) -> None:
    t = ctx.edit(tank_id)
    t.damage = (*t.damage, card.name)
    label = tank_label(t)
    effect = card.effect
    text = f"Damage card: {card.name}."
    if effect == "destroyed":
        t.destroyed = True
        t.destroyed_by = card.name
        t.waiting = False
        t.must_recover = False
        text += f" {label} is destroyed" + (" (catastrophic)." if card.catastrophic else ".")
    elif effect == "immobilized":
        already = t.immobilized
        t.immobilized = True
        text += f" {label} is Immobilized" + (" (it already was)." if already else ".")
    elif effect == "gun_damaged":
        t.gun_damage += 1
        text += f" {label} loses a Penetration die."
    elif effect == "optics_damaged":
        t.optics_damage += 1
        text += f" {label} loses an Accuracy die."
    elif effect == "engine_damaged":
        text += f" {label}: half Movement, no Move Fast" + (
            " (no further effect: the engine was already damaged)." if t.engine_damaged else "."
        )
        t.engine_damaged = True
    elif effect == "turret_jammed":
        t.turret_jammed = True
        text += f" {label} may only Engage targets in its front arc."
    elif effect == "crew_stunned":
        t.stunned = "next"
        text += f" {label}'s crew takes no action in its next phase."
    else:
        text += " No effect."
    ctx.say(text)
    ctx.event("damage", "TTT-E7", text, tank_id=tank_id, card=card.name, effect=effect)
    if effect == "destroyed" and card.catastrophic:
        catastrophe_seen(ctx, t)
    if effect == "immobilized":
        if t.morale == "routed":
            bail_out(ctx, tank_id, "TTT-MR5", "Routed and Immobilized")
        elif t.morale == "shaken":
            t.must_recover = True
            ctx.rule(
                "TTT-MR4",
                f"{label} is Shaken and now Immobilized: its next turn it may only try to Recover; "
                "failure Routs it",
            )
