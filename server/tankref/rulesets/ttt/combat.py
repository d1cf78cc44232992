"""Engage: who may fire, the side hit, Accuracy, Penetration, stars (the damage card it then
draws, and what that does, are in ``damage``).

TTT-E1..E7, TTT-CV1, TTT-CN1, with the Grizzled reroll (TTT-CR1) spent where it can change
the outcome. A shot is planned first (``plan_engage``: pure, every number that decides it),
then resolved with the dice (``do_engage``); the odds engine (``odds.py``) reads the same
plan, so the odds and the adjudication cannot disagree.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from operator import attrgetter, methodcaller
from typing import TypeVar

from tankref.core import flow
from tankref.core.adjudication import assign, computed_modifier, refuse
from tankref.core.dice import Roll
from tankref.core.errors import DecisionNeeded, RulesError, bad_value
from tankref.core.geometry import bearing, normalize_degrees, signed_angle
from tankref.core.results import Modifier
from tankref.core.trusted import frozen
from tankref.rulesets.ttt.actions import BestArmourChoice, Engage, GrizzledUse
from tankref.rulesets.ttt.adjudication import Context
from tankref.rulesets.ttt.cards import (
    ACCURACY_DIE,
    HIT,
    PEN,
    PENETRATION_DIE,
    STAR,
    Armour,
    Side,
)
from tankref.rulesets.ttt.damage import apply_damage, draw_damage_card
from tankref.rulesets.ttt.flow import get_tank, require_playing, require_present
from tankref.rulesets.ttt.movement import facing_used
from tankref.rulesets.ttt.presentation import tank_label
from tankref.rulesets.ttt.sight import (
    LineOfFire,
    SideReading,
    Sightlines,
    in_front_arc,
    read_line,
    side_hit,
)
from tankref.rulesets.ttt.state import Options, SmokeScreen, TableState, TankState, TerrainPiece


def check_engage(
    state: TableState, tank_id: str, target_id: str
) -> tuple[TankState, TankState, LineOfFire]:
    """TTT-E1 and every refusal that stops a tank from firing; changes nothing."""
    shooter = check_shooter(state, tank_id)
    target = check_target(state, shooter, get_tank(state, target_id, "target_id"))
    line = read_line(state, shooter, target)
    check_sight(shooter, target, line)
    return shooter, target, line


def check_shooter(state: TableState, tank_id: str) -> TankState:
    """The refusals of ``check_engage`` that hold whatever the target (TTT-E1 ...)."""
    require_playing(state)
    shooter = get_tank(state, tank_id)
    require_present(shooter)
    # The label is written only for a refusal: a tank that may fire (every tank of every menu,
    # every shot) needs none.
    # Engaged first: a Waiting tank that fired is no longer waiting, and the reason it may
    # not fire again is the once-a-turn Engage, not the phase.
    if shooter.engaged:
        refuse(
            "ALREADY_ENGAGED",
            "TTT-E1",
            f"{tank_label(shooter)} has already engaged in its turn (which began with "
            f"{state.turn_began(shooter)}): once per turn",
        )
    if shooter.player != state.active_player and not shooter.waiting:
        refuse(
            flow.NOT_YOUR_PHASE,
            "TTT-W1",
            f"{tank_label(shooter)} may Engage in the enemy's phase only from Wait",
            active_player=state.active_player,
        )
    if shooter.stunned == "now":
        refuse(
            "CREW_STUNNED",
            "TTT-E7",
            f"{tank_label(shooter)}'s crew is stunned: no action this phase",
        )
    if shooter.bound_to_recover:
        refuse(
            "MUST_RECOVER",
            "TTT-MR4",
            f"{tank_label(shooter)} is Shaken and Immobilized: it may only Recover",
        )
    if shooter.morale == "routed":
        refuse(
            "ROUTED",
            "TTT-MR2",
            f"{tank_label(shooter)} is Routed: it drives for its edge and does not Engage",
        )
    if shooter.moved == "fast" and not shooter.card.engage_while_fast:
        refuse(
            "ENGAGE_WHILE_FAST",
            "TTT-M2",
            f"{tank_label(shooter)} is Moving Fast and its card cannot Engage",
        )
    if shooter.recover_tried:
        refuse(
            "ACTION_AFTER_RECOVER",
            "TTT-R1",
            f"{tank_label(shooter)} tried to Recover: no other action but a Normal Move this turn",
        )
    if shooter.smoke_popped:
        refuse(
            "ACTION_AFTER_SMOKE",
            "TTT-SM1",
            f"{tank_label(shooter)} popped reusable smoke: no Engage this turn",
        )
    return shooter


def check_target(state: TableState, shooter: TankState, target: TankState) -> TankState:
    """The refusals of ``check_engage`` about the target, before its line is read (TTT-E1,
    TTT-E7's jammed turret)."""
    if target.player == shooter.player:
        refuse(flow.NOT_AN_ENEMY, "TTT-E1", f"target_id: {tank_label(target)} is a friendly tank")
    if not target.on_board:
        refuse(
            flow.TARGET_NOT_ON_TABLE, "TTT-E1", f"target_id: {tank_label(target)} is not in play"
        )
    if shooter.turret_jammed and not in_front_arc(state.options, shooter, target):
        refuse(
            "TURRET_JAMMED",
            "TTT-E7",
            f"{tank_label(shooter)}'s turret is jammed: {tank_label(target)} is outside its "
            "front arc",
        )
    return target


def check_sight(shooter: TankState, target: TankState, line: LineOfFire) -> None:
    """TTT-E1: the shooter must see the target."""
    if not line.visible:
        refuse(
            "NO_LINE_OF_SIGHT",
            "TTT-E1",
            f"{tank_label(shooter)} cannot see {tank_label(target)}: blocked by {line.blocked_by}",
            blocked_by=line.blocked_by,
        )


def best_side(target: TankState) -> Side:
    """The strongest of Front, Side, Rear (ties go to the front, then to the side)."""
    armour = target.card.armour
    front, side, rear = armour.front, armour.side, armour.rear
    if front >= side and front >= rear:
        return "front"
    return "side" if side >= rear else "rear"


# A card's armour by side, and its best side: the same numbers for every shot at a tank of
# that card (armour.of is a getattr on a pydantic model, read for every pair of a table's
# odds). Keyed by the Armour's id, the Armour kept in the entry, so that an id reused by a
# later object is never taken for it.
_armours: dict[int, tuple[Armour, dict[Side, int], Side]] = {}
_ARMOURS = 256
_SIDES: tuple[Side, ...] = ("front", "side", "rear", "turret")


def _armour_by_side(target: TankState) -> tuple[dict[Side, int], Side]:
    """The target's armour of each side (``armour.of``) and its ``best_side``."""
    armour = target.card.armour
    found = _armours.get(id(armour))
    if found is not None and found[0] is armour:
        return found[1], found[2]
    if len(_armours) >= _ARMOURS:
        _armours.clear()
    values = {side: armour.of(side) for side in _SIDES}
    best = best_side(target)
    _armours[id(armour)] = (armour, values, best)
    return values, best


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


# --- the plan: every number of the shot, read from the table before any die is rolled -------


@dataclass(frozen=True)
class SidePlan:
    """TTT-E2 and TTT-E3: the side the shot strikes, after the referee's best-armour turn."""

    shown: SideReading  # the side the target shows as it stands
    hull_down: bool
    best: Side | None = None  # its best armour, when that is stronger than the side shown
    blocked: str | None = None  # why it cannot turn that armour to the shot
    facing: float | None = None  # the facing the referee turns it to (None: no turn)
    final: SideReading | None = None  # the side hit after the turn (None: ``shown``)
    undecided: bool = False  # option ask: the turn waits for the target's owner (TTT-E3)

    @property
    def reading(self) -> SideReading:
        return self.final or self.shown

    @property
    def side(self) -> Side:
        return self.reading.side


@dataclass(frozen=True)
class EngagePlan:
    """Everything that decides a shot's odds, computed once from the table.

    ``do_engage`` rolls the dice against it; the odds engine reads the same numbers, so the
    odds cannot drift from the adjudication.
    """

    shooter: TankState
    target: TankState
    line: LineOfFire
    side: SidePlan
    accuracy_mods: tuple[Modifier, ...]  # every Accuracy penalty with its clause (TTT-E4)
    white_dice: int
    penetration_mods: tuple[Modifier, ...]  # Gun Damaged, Cover, literal Cover, in that order
    red_dice: int
    armour: int  # of the side hit
    threshold: int  # armour + Cover (+ concealment, option cover): the PEN needed (TTT-E5)
    reroll_accuracy: bool  # the Grizzled reroll may be spent on a missed Accuracy roll
    # ... or on a failed Penetration roll, when it was not spent on Accuracy in this shot
    reroll_penetration: bool

    @property
    def cover(self) -> int:
        return self.line.cover

    @property
    def concealment_bonus(self) -> int:
        """Concealment added to the armour (option concealment: cover), else 0 (TTT-CN1)."""
        return self.threshold - self.armour - self.cover

    @property
    def red_dice_mods(self) -> list[int]:
        return [m.amount for m in self.penetration_mods if m.applies_to == "penetration_dice"]


def _turn_blocked(state: TableState, target: TankState) -> str | None:
    """Why the target may not turn its best armour to the shot (TTT-E3, TTT-F1, TTT-M2)."""
    options = state.options
    if options.best_armour == "never":
        return "the table's option is never"
    if target.facing_changed:
        return facing_used(state, target)
    if target.moved == "fast":
        return "it is Moving Fast"
    if target.immobilized and not options.immobilized_turns:
        return "it is Immobilized (option immobilized_turns false: broken tracks do not turn it)"
    return None


def choose_side(
    state: TableState,
    shooter: TankState,
    target: TankState,
    line: LineOfFire,
    decision: BestArmourChoice | None = None,
) -> SidePlan:
    """TTT-E2/TTT-E3: the side hit, with the best-armour turn the referee would make.

    With the option ask, ``decision`` is the target's owner's answer; none yet plans the turn
    (the odds show the owner's best choice) and marks the plan as waiting for the answer.
    """
    options = state.options
    shown = side_hit(options, shooter, target, line.hull_down)
    if line.hull_down:
        return frozen(SidePlan, {"shown": shown, "hull_down": True, **_NO_TURN})
    armour, best = _armour_by_side(target)
    if armour[best] <= armour[shown.side]:
        return frozen(SidePlan, {"shown": shown, "hull_down": False, **_NO_TURN})
    blocked = _turn_blocked(state, target)
    if blocked:
        return _side_plan(shown, False, best, blocked)
    if options.best_armour == "ask" and decision == "stay":
        return _side_plan(shown, False, best, "its owner declines the turn (option ask)")
    # The model is turned to a facing rounded as the state stores it, and the side is read
    # again from that stored facing, so the plan and the table agree to the last digit.
    facing = round(facing_to_present(best, target, shooter), 3)
    final = side_hit(options, shooter, target, False, facing)
    undecided = options.best_armour == "ask" and decision is None
    return _side_plan(shown, False, best, None, facing, final, undecided)


# A SidePlan's fields after ``shown`` and ``hull_down`` when no best-armour turn is made.
_NO_TURN = {
    "best": None,
    "blocked": None,
    "facing": None,
    "final": None,
    "undecided": False,
}


def _side_plan(
    shown: SideReading,
    hull_down: bool,
    best: Side | None = None,
    blocked: str | None = None,
    facing: float | None = None,
    final: SideReading | None = None,
    undecided: bool = False,
) -> SidePlan:
    """``SidePlan(...)`` built as ``core.trusted.frozen`` builds it: every field given."""
    return frozen(
        SidePlan,
        {
            "shown": shown,
            "hull_down": hull_down,
            "best": best,
            "blocked": blocked,
            "facing": facing,
            "final": final,
            "undecided": undecided,
        },
    )


def accuracy_penalties(
    options: Options, shooter: TankState, target: TankState, line: LineOfFire
) -> tuple[Modifier, ...]:
    """TTT-E4: every die taken off the shooter's Accuracy, each with the clause imposing it."""
    return _shooter_penalties(shooter) + _shot_penalties(options, target, line)


def _shooter_penalties(shooter: TankState) -> tuple[Modifier, ...]:
    """TTT-E4's penalties that come from the shooter alone, in the order they are listed."""
    mods: list[Modifier] = []
    if shooter.moved != "none":
        mods.append(_penalty("TTT-M1", f"moved this turn ({shooter.moved})", -2))
    if shooter.morale == "shaken":
        mods.append(_penalty("TTT-MR1", "Shaken crew", -1))
    if shooter.optics_damage:
        mods.append(_penalty("TTT-E7", "Optics Damaged", -shooter.optics_damage))
    return tuple(mods)


def _shot_penalties(options: Options, target: TankState, line: LineOfFire) -> tuple[Modifier, ...]:
    """TTT-E4's penalties that come from the target and the line of fire."""
    mods: list[Modifier] = []
    if target.moved == "fast" and target.card.fast_evasion:
        mods.append(_penalty("TTT-M2", "target Moving Fast (its card: -1 enemy Accuracy)", -1))
    if line.concealment and options.concealment == "accuracy":
        kind = "light" if line.concealment == 1 else "heavy"
        mods.append(
            _penalty(
                "TTT-CN1",
                f"{kind} concealment ({line.concealment_why})",
                -line.concealment,
                "concealment takes Accuracy dice off the shooter (option concealment: accuracy)",
            )
        )
    if line.smoke:
        stacking = options.smoke_stacking
        ruling = "screens add" if stacking == "add" else "the strongest screen on the line applies"
        mods.append(
            _penalty(
                "TTT-SM3",
                f"smoke on the line of fire ({len(line.smoke_screens)} screen(s))",
                -line.smoke,
                ruling,
            )
        )
    return tuple(mods)


def _penalty(clause: str, label: str, amount: int, ruling: str | None = None) -> Modifier:
    return computed_modifier(clause, label, amount, "accuracy_dice", ruling)


def penetration_modifiers(
    options: Options, shooter: TankState, line: LineOfFire
) -> tuple[Modifier, ...]:
    """TTT-E5/TTT-CV1: Gun Damaged, Cover on the armour, and (option literal) Cover off the dice."""
    return _gun_modifiers(shooter) + _line_modifiers(options, line)


def _gun_modifiers(shooter: TankState) -> tuple[Modifier, ...]:
    if not shooter.gun_damage:
        return ()
    return (computed_modifier("TTT-E7", "Gun Damaged", -shooter.gun_damage, "penetration_dice"),)


def _line_modifiers(options: Options, line: LineOfFire) -> tuple[Modifier, ...]:
    """Cover (and, option literal, Cover off the dice) and concealment as armour."""
    mods: list[Modifier] = []
    cover = line.cover
    if cover:
        mods.append(
            computed_modifier(
                "TTT-CV1",
                f"Cover +{cover} ({line.cover_why})",
                cover,
                "armour",
                "Cover is added once, to the armour" if options.cover == "armour" else None,
            )
        )
        if options.cover == "literal":
            mods.append(
                computed_modifier(
                    "TTT-E5",
                    f"Cover also taken off the red dice ({line.cover_why})",
                    -cover,
                    "penetration_dice",
                    "literal: Cover subtracted from the dice and added to the armour",
                )
            )
    concealed = concealment_armour(options, line)
    if concealed:
        kind = "light" if concealed == 1 else "heavy"
        mods.append(
            computed_modifier(
                "TTT-CN1",
                f"{kind} concealment +{concealed} ({line.concealment_why})",
                concealed,
                "armour",
                "concealment is a Cover-style bonus against penetration "
                "(option concealment: cover)",
            )
        )
    return tuple(mods)


def concealment_armour(options: Options, line: LineOfFire) -> int:
    """TTT-CN1 read the other way (option concealment: cover): added to the armour."""
    return line.concealment if options.concealment == "cover" else 0


def reroll_allowed(
    options: Options, tank: TankState, stage: GrizzledUse, declared: GrizzledUse | None
) -> bool:
    """TTT-CR1: may the Grizzled reroll be spent at ``stage``? Auto: wherever it can change
    the outcome; ask: only at the stage the Engage declared."""
    if not tank.grizzled or tank.reroll_used:
        return False
    if options.grizzled_reroll == "auto":
        return True
    return declared == stage


@dataclass(frozen=True)
class ShooterPlan:
    """What a shot's numbers take from the shooter alone: the same against every target."""

    shooter: TankState
    accuracy_mods: tuple[Modifier, ...]  # moved, Shaken, Optics Damaged (TTT-E4)
    gun_mods: tuple[Modifier, ...]  # Gun Damaged (TTT-E7)
    reroll_accuracy: bool
    reroll_penetration: bool
    white: int  # the card's Accuracy with the shooter's own penalties (before the target's)
    red: int  # the card's Penetration with Gun Damaged (before the line's modifiers)


def shooter_plan(
    options: Options, shooter: TankState, declared: GrizzledUse | None = None
) -> ShooterPlan:
    accuracy_mods, lost, gun_mods, red_lost = _shooter_part(shooter)
    card = shooter.card
    white = card.accuracy + lost
    red = card.penetration + red_lost
    return frozen(
        ShooterPlan,
        {
            "shooter": shooter,
            "accuracy_mods": accuracy_mods,
            "gun_mods": gun_mods,
            "reroll_accuracy": reroll_allowed(options, shooter, "accuracy", declared),
            "reroll_penetration": reroll_allowed(options, shooter, "penetration", declared),
            "white": white,
            "red": red,
        },
    )


def plan_shot(
    options: Options,
    shooter: TankState,
    target: TankState,
    line: LineOfFire,
    side: SidePlan,
    declared: GrizzledUse | None = None,
) -> EngagePlan:
    """The dice, the PEN needed and the rerolls of a shot whose side and line are known."""
    return plan_against(options, shooter_plan(options, shooter, declared), target, line, side)


def plan_against(
    options: Options,
    own: ShooterPlan,
    target: TankState,
    line: LineOfFire,
    side: SidePlan,
    made: dict[tuple[object, ...], _Whole] | None = None,
) -> EngagePlan:
    """``plan_shot`` with the shooter's part already worked out (``shooter_plan``).

    ``made``: the shooter's modifiers joined with those already built for its other
    targets, by everything they are built from (one shooter's shots often cross the same
    forest or smoke)."""
    card = target.card
    if made is None:
        accuracy = _accuracy_whole(options, own, target, line)
        penetration = _penetration_whole(options, own, line)
    else:
        # Keyed by everything each part is built from (the table's options and the shooter
        # are the same for every target of one shooter). The two keys differ in length.
        fast = target.moved == "fast" and card.fast_evasion
        shot_key = (
            fast,
            line.concealment,
            line.concealment_why,
            line.smoke,
            len(line.smoke_screens),
        )
        found = made.get(shot_key)
        if found is None:
            found = made[shot_key] = _accuracy_whole(options, own, target, line)
        accuracy = found
        line_key = (line.cover, line.cover_why, line.concealment, line.concealment_why)
        found = made.get(line_key)
        if found is None:
            found = made[line_key] = _penetration_whole(options, own, line)
        penetration = found
    armour = card.armour.of((side.final or side.shown).side)
    return frozen(
        EngagePlan,
        {
            "shooter": own.shooter,
            "target": target,
            "line": line,
            "side": side,
            "accuracy_mods": accuracy[0],
            "white_dice": accuracy[1],
            "penetration_mods": penetration[0],
            "red_dice": penetration[1],
            "armour": armour,
            "threshold": armour + penetration[2],
            "reroll_accuracy": own.reroll_accuracy,
            "reroll_penetration": own.reroll_penetration,
        },
    )


# One stage's modifiers, the shooter's and the shot's, with the dice rolled and what is added
# to the armour for the PEN needed (Cover and, option cover, concealment; 0 for Accuracy).
_Whole = tuple[tuple[Modifier, ...], int, int]


def _accuracy_whole(
    options: Options, own: ShooterPlan, target: TankState, line: LineOfFire
) -> _Whole:
    mods, white, _ = _accuracy_part(options, target, line)
    return own.accuracy_mods + mods, max(0, own.white + white), 0


def _penetration_whole(options: Options, own: ShooterPlan, line: LineOfFire) -> _Whole:
    mods, red, armour = _penetration_part(options, line)
    return own.gun_mods + mods, max(0, own.red + red), armour


# The shot's part of a stage's modifiers (the target's and the line's), by everything it is
# built from: the options it reads and the line's few numbers and texts. A table's shots
# cross the same few pieces and screens, so each part's records and texts are built once,
# not once a shot; the key is the whole input, so an option edited or another piece crossed
# finds its own entry, never a stale one. Each entry's first element names its stage.
_parts: dict[tuple[object, ...], _Whole] = {}
_PARTS = 512

K = TypeVar("K")
P = TypeVar("P")


def _kept(table: dict[K, P], key: K, part: P) -> P:
    """Keep ``part`` under ``key`` (the table forgotten when full: a few entries a game)."""
    if len(table) >= _PARTS:
        table.clear()
    table[key] = part
    return part


# The shooter's own penalties (TTT-E4) and Gun Damaged (TTT-E7), with the white and red dice
# they take off, kept in the same way by everything they are built from.
_ShooterPart = tuple[tuple[Modifier, ...], int, tuple[Modifier, ...], int]
_shooter_parts: dict[tuple[str, str, int, int], _ShooterPart] = {}


def _shooter_part(shooter: TankState) -> _ShooterPart:
    key = (shooter.moved, shooter.morale, shooter.optics_damage, shooter.gun_damage)
    found = _shooter_parts.get(key)
    if found is not None:
        return found
    accuracy_mods = _shooter_penalties(shooter)
    gun_mods = _gun_modifiers(shooter)
    lost = sum(m.amount for m in accuracy_mods)
    red_lost = sum(m.amount for m in gun_mods if m.applies_to == "penetration_dice")
    return _kept(_shooter_parts, key, (accuracy_mods, lost, gun_mods, red_lost))


def _accuracy_part(options: Options, target: TankState, line: LineOfFire) -> _Whole:
    """The target's and the line's Accuracy penalties, and the white dice they take off."""
    key = (
        "accuracy",
        target.moved == "fast" and target.card.fast_evasion,
        line.concealment,
        line.concealment_why,
        line.smoke,
        len(line.smoke_screens),
        options.concealment,
        options.smoke_stacking,
    )
    found = _parts.get(key)
    if found is not None:
        return found
    mods = _shot_penalties(options, target, line)
    return _kept(_parts, key, (mods, sum(m.amount for m in mods), 0))


def _penetration_part(options: Options, line: LineOfFire) -> _Whole:
    """The line's Penetration modifiers, what they add to the red dice (Cover on the armour
    adds none; option literal takes Cover off the dice) and to the armour (Cover and, option
    cover, concealment)."""
    key = (
        "penetration",
        line.cover,
        line.cover_why,
        line.concealment,
        line.concealment_why,
        options.cover,
        options.concealment,
    )
    found = _parts.get(key)
    if found is not None:
        return found
    mods = _line_modifiers(options, line)
    red = sum(m.amount for m in mods if m.applies_to == "penetration_dice")
    return _kept(_parts, key, (mods, red, line.cover + concealment_armour(options, line)))


def plan_engage(
    state: TableState,
    tank_id: str,
    target_id: str,
    declared: GrizzledUse | None = None,
    decision: BestArmourChoice | None = None,
) -> EngagePlan:
    """The whole shot as the referee will resolve it; raises the Engage's ``RulesError``.

    Pure: reads the table, changes nothing, rolls nothing. ``declared`` is the Engage's
    ``grizzled_reroll`` (read only when the table's option is ask); ``decision`` its
    ``best_armour`` answer (read only when the best_armour option is ask).
    """
    shooter, target, line = check_engage(state, tank_id, target_id)
    side = choose_side(state, shooter, target, line, decision)
    return plan_shot(state.options, shooter, target, line, side, declared)


_by_id = attrgetter("id")


def engage_lines(
    state: TableState, tank_id: str
) -> tuple[TankState | None, list[tuple[TankState, LineOfFire | RulesError]]]:
    """``check_engage`` against every enemy on the table, by id: the shooter and each
    enemy's line of fire, or the refusal about that target alone (out of sight, outside a
    jammed turret's arc). A refusal of the shooter itself is raised, as the first
    ``check_engage`` would raise it (none when no enemy is on the table: then no shooter)."""
    shooter, enemies = _shooter_and_enemies(state, tank_id)
    if shooter is None:
        return None, []
    sight = Sightlines(state, shooter)
    out: list[tuple[TankState, LineOfFire | RulesError]] = []
    for target in enemies:
        try:
            check_target(state, shooter, target)
            line = sight.line(target)
            check_sight(shooter, target, line)
        except RulesError as err:
            # Kept without its traceback: the traceback holds this frame, whose ``out``
            # holds the error, a cycle only the garbage collector would free (with every
            # line and plan of the shooter in it).
            out.append((target, err.with_traceback(None)))
            continue
        out.append((target, line))
    return shooter, out


def _shooter_and_enemies(
    state: TableState, tank_id: str
) -> tuple[TankState | None, list[TankState]]:
    """The shooter (its own refusals raised) and the enemies on the board, by id; no shooter
    and no enemies when none is on the board."""
    player = get_tank(state, tank_id).player
    # Filtered first, then sorted: the same list (ids are unique), a fraction of the sort.
    enemies = [t for t in state.tanks.values() if t.player != player and t.on_board]
    enemies.sort(key=_by_id)
    if not enemies:
        return None, []
    return check_shooter(state, tank_id), enemies


def plan_engages(
    state: TableState,
    tank_id: str,
    declared: GrizzledUse | None = None,
    refusals: bool = True,
) -> list[tuple[TankState, EngagePlan | RulesError]]:
    """``plan_engage`` against every enemy on the table, by id: each one's plan, or the
    refusal about that target alone (as ``engage_lines``; a shooter's own refusal is raised).
    ``refusals=False``: the refused targets are left out, without building their errors and
    texts (two tank labels and an exception each) for a caller that drops them (the odds).

    The same plans as one ``plan_engage`` per target (a test compares them over many random
    tables, and over every step of played games against a cleared cache), with the
    shooter's checks, penalties and sight-line geometry worked out once, and each pair's
    line and plan kept (``_pair_plans``) while neither tank, the terrain, the smoke nor the
    options change: after a move, only the moved tank's pairs are read again.
    """
    shooter, enemies = _shooter_and_enemies(state, tank_id)
    if shooter is None:
        return []
    options, terrain, smoke = state.options, state.terrain, state.smoke
    jammed = shooter.turret_jammed
    sight: Sightlines | None = None
    own: ShooterPlan | None = None
    made: dict[tuple[object, ...], _Whole] = {}
    out: list[tuple[TankState, EngagePlan | RulesError]] = []
    for target in enemies:
        if jammed and not in_front_arc(options, shooter, target):
            if refusals:
                out.append((target, _refusal(check_target, state, shooter, target)))
            continue
        # A target that changed facing this turn: why it may not turn its best armour says
        # when its turn began (``facing_used``), which the table's turn decides.
        began = state.turn_began(target) if target.facing_changed else None
        key = (id(shooter), id(target), id(terrain), id(smoke), id(options), declared, began)
        kept = _pair_plans.get(key)
        if kept is not None and kept.holds(shooter, target, terrain, smoke, options):
            line, plan = kept.line, kept.plan
        else:
            if sight is None:
                sight = Sightlines(state, shooter)
            line = sight.line(target)
            plan = None
            if line.visible:
                if own is None:
                    own = shooter_plan(options, shooter, declared)
                side = choose_side(state, shooter, target, line)
                plan = plan_against(options, own, target, line, side, made)
            if len(_pair_plans) >= _PAIR_PLANS:
                _pair_plans.clear()
            _pair_plans[key] = _PairPlan(shooter, target, terrain, smoke, options, line, plan)
        if plan is None:
            if refusals:
                out.append((target, _refusal(check_sight, shooter, target, line)))
            continue
        out.append((target, plan))
    return out


def _refusal(check: Callable[..., object], *args: object) -> RulesError:
    """The refusal ``check(*args)`` raises (its traceback dropped: it would hold the
    caller's frame, whose list holds the error, a cycle only the collector would free)."""
    try:
        check(*args)
    except RulesError as err:
        return err.with_traceback(None)
    raise AssertionError(f"{check.__name__} did not refuse")  # pragma: no cover


@dataclass(frozen=True, slots=True)
class _PairPlan:
    """One pair's line of fire and plan (None: out of sight), with everything they were
    read from, held so that an id reused by a later object is never taken for it."""

    shooter: TankState
    target: TankState
    terrain: dict[str, TerrainPiece]
    smoke: tuple[SmokeScreen, ...]
    options: Options
    line: LineOfFire
    plan: EngagePlan | None

    def holds(
        self,
        shooter: TankState,
        target: TankState,
        terrain: dict[str, TerrainPiece],
        smoke: tuple[SmokeScreen, ...],
        options: Options,
    ) -> bool:
        return (
            self.shooter is shooter
            and self.target is target
            and self.terrain is terrain
            and self.smoke is smoke
            and self.options is options
        )


# (shooter, target, terrain, smoke, options: their ids; the Grizzled declaration; when a
# target that changed facing this turn began its turn) -> the pair's line and plan.
#
# Keyed by the objects themselves. A state's tanks are never changed in place once the state
# is made (an action edits its own copies, ``Context.edit``); its terrain dict is never edited
# in place (setup copies it); its smoke is a tuple and its options are frozen. So the same
# objects read the same line and plan whatever the table around them: the tanks' own fields
# hold all a plan reads from them, and the key holds the one thing it reads from the table's
# turn. A state's copies share every unchanged tank, so after a move the other pairs are
# found here.
_PairKey = tuple[int, int, int, int, int, GrizzledUse | None, str | None]
_pair_plans: dict[_PairKey, _PairPlan] = {}
_PAIR_PLANS = 4096


def clear_plan_cache() -> None:
    """Forget every kept pair plan (benchmarks time a cold cache with it)."""
    _pair_plans.clear()


# --- resolving the plan with the dice ---------------------------------------------------------


def _spend_reroll(ctx: Context, tank_id: str, stage: str) -> None:
    ctx.edit(tank_id).reroll_used = True
    option = ctx.state.options.grizzled_reroll
    text = (
        f"the Grizzled reroll is spent on {stage}, where it can change the outcome"
        if option == "auto"
        else f"the Grizzled reroll is spent on {stage}, as declared"
    )
    ctx.rule("TTT-CR1", text, "grizzled_reroll", option)


# A roll's dice read in C (``map`` over these), not die by die in Python: each shot reads its
# dice several ways (faces for the summary, HIT, PEN and STAR icons), on every Engage.
_face = attrgetter("face")
_icons = attrgetter("icons")
_hits = methodcaller("count", HIT)
_pens = methodcaller("count", PEN)
_stars = methodcaller("count", STAR)


class _Pool:
    """The red dice as they stand: the latest roll in each die's slot, the PEN icons each
    shows and their sum, kept up to date as a die is replaced (read after every reroll: not
    counted anew)."""

    __slots__ = ("counts", "pens", "slots")

    def __init__(self, slots: list[Roll]) -> None:
        self.slots = slots
        # Each slot's PEN count kept beside it: a blank or the weakest die is then found by
        # the list's own index in C, not by a Python loop over the dice (every * spent).
        self.counts = counts = list(map(_pens, map(_icons, slots)))
        self.pens = sum(counts)

    def replace(self, slot: int, roll: Roll) -> None:
        """The die in ``slot`` rerolled: ``roll`` takes its place."""
        count = roll.icons.count(PEN)
        self.pens += count - self.counts[slot]
        self.counts[slot] = count
        self.slots[slot] = roll

    def weakest(self) -> int:
        """The slot showing the fewest PEN icons (blanks first; the first of equals)."""
        counts = self.counts
        return counts.index(min(counts))


def _spend_stars(ctx: Context, pool: _Pool, stars: int, threshold: int) -> int:
    """TTT-E6: each * rerolls one non-penetrating die; a * on a reroll grants another.

    Ruling: stars are spent while the target is not yet penetrated (a reroll after that
    changes nothing), and a die rerolled once may be rerolled again by a later *.
    """
    used = 0
    counts = pool.counts
    # The first blank die read off the PEN counts in C (no method call, no loop a star).
    while stars > 0 and pool.pens < threshold and 0 in counts:
        slot = counts.index(0)
        stars -= 1
        used += 1
        new = ctx.bag.reroll(pool.slots[slot], "to reroll (a * was rolled)")
        pool.replace(slot, new)
        stars += new.icons.count(STAR)
    return used


def _resolve_side(ctx: Context, plan: EngagePlan, target: TankState) -> None:
    """Report the side hit (TTT-E2) and make the best-armour turn the plan decided (TTT-E3)."""
    options = ctx.state.options
    side = plan.side
    line = plan.line
    if side.hull_down:
        ctx.rule("TTT-E2", f"hull-down to the shooter ({line.hull_down_why}): the Turret is hit")
        return
    shown = side.shown
    front, rear = f"{options.front_arc:g}", f"{options.rear_arc:g}"  # each formatted once
    ctx.rule(
        "TTT-E2",
        f"side by the shooter's bearing, {shown.relative:.1f}° off the target's facing "
        f"(front ±{front}°, rear ±{rear}°)",
        "front_arc/rear_arc",
        f"{front}/{rear}",
    )
    if shown.note:
        ctx.rule("TTT-E2", shown.note)
    if side.best is None:
        return
    if side.blocked or side.facing is None:
        ctx.rule(
            "TTT-E3",
            f"{tank_label(target)} cannot turn its best armour: {side.blocked}",
            "best_armour",
            options.best_armour,
        )
        return
    old_facing = target.facing
    assign(target, facing=side.facing, facing_changed=True, best_armour_turned=True)
    who = "its owner chose to turn" if options.best_armour == "ask" else "the referee turns"
    ctx.rule(
        "TTT-E3",
        f"{who} {tank_label(target)}'s best armour ({side.best}) to the shot and uses its "
        "facing change",
        "best_armour",
        options.best_armour,
    )
    ctx.event(
        "turn_model",
        "TTT-E3",
        f"Turn {tank_label(target)} to face {target.facing:.0f}° (best armour to the shot)",
        tank_id=target.id,
        facing=target.facing,
        before=old_facing,
    )


def ask_best_armour(plan: EngagePlan) -> None:
    """TTT-E3, option ask: the target "can" turn its best armour, so its owner decides."""
    target = plan.target
    best = plan.side.best
    raise DecisionNeeded(
        "TTT-E3",
        f"{tank_label(target)} may turn its best armour ({best}) to the shot from "
        f"{tank_label(plan.shooter)}, using its facing change this turn: {target.player} decides "
        "(turn or stay); send the Engage again with best_armour",
        decision="best_armour",
        seat=target.player,
        choices=["turn", "stay"],
        field="best_armour",
        tank_id=target.id,
        shooter_id=plan.shooter.id,
        side_shown=plan.side.shown.side,
        best_side=best,
    )


def _roll_accuracy(ctx: Context, plan: EngagePlan, shooter: TankState) -> bool | None:
    """TTT-E4 (with TTT-CR1): True on a hit, False on a miss, None when no die is left."""
    outcome = ctx.result.outcome
    mods = plan.accuracy_mods
    ctx.result.modifiers.extend(mods)
    n_white = plan.white_dice
    outcome["accuracy_dice"] = n_white
    # lists, not generators, inside join: cheaper for a handful of items (a hot path)
    math_text = (
        f"{shooter.card.accuracy}"
        + "".join([f" {m.amount:+d}" for m in mods])
        + f" = {n_white} white"
    )
    if n_white == 0:
        ctx.rule("TTT-E4", "no Accuracy dice left: the Engage fails")
        ctx.say(f"Accuracy: {math_text}: no dice left, the Engage fails.")
        outcome["reason"] = "no accuracy dice"
        return None
    whites = ctx.bag.roll(ACCURACY_DIE, n_white, "for Accuracy")
    # The most HIT icons a die shows, in C: a hit when above 0 (no list of them, no ``any``).
    most: int = max(map(_hits, map(_icons, whites)))
    hit = most > 0
    acc_line = f"Accuracy: {math_text} [{' '.join(map(str, map(_face, whites)))}]"
    if not hit and plan.reroll_accuracy:
        _spend_reroll(ctx, shooter.id, "Accuracy")
        again = ctx.bag.reroll(whites[0], "Grizzled reroll")
        most = again.icons.count(HIT)  # every die before it showed none
        hit = most > 0
        acc_line += f", Grizzled reroll {again.face}"
    # This shot's white dice are the action's only ones (one Engage per action).
    if most > 1:
        ctx.rule("TTT-E4", "at most one hit per Accuracy roll, however many HIT icons show")
    ctx.say(f"{acc_line}: {'hit' if hit else 'miss'}.")
    return hit


def _roll_penetration(
    ctx: Context, plan: EngagePlan, shooter: TankState, reroll_left: bool
) -> bool:
    """TTT-E5/TTT-E6/TTT-CV1 (with TTT-CR1): True when the target is penetrated."""
    outcome = ctx.result.outcome
    cover = plan.line.cover  # ``plan.cover`` without the property's call
    mods = plan.penetration_mods
    ctx.result.modifiers.extend(mods)
    if cover:
        option = ctx.state.options.cover
        ctx.rule("TTT-E5", f"Cover counted: {option}", "cover", option)
    n_red = plan.red_dice
    threshold = plan.threshold
    armour = plan.armour
    concealed = threshold - armour - cover  # ``plan.concealment_bonus``, read once
    outcome.update(armour=armour, cover=cover, needed=threshold, penetration_dice=n_red)
    if concealed:
        outcome["concealment"] = concealed
    pool = _Pool(ctx.bag.roll(PENETRATION_DIE, n_red, "for Penetration") if n_red else [])
    first_faces = " ".join(map(str, map(_face, pool.slots)))  # the faces, as rolled
    stars = sum(map(_stars, map(_icons, pool.slots)))
    used = _spend_stars(ctx, pool, stars, threshold)
    pen_line = (
        f"Penetration: {shooter.card.penetration}"
        # ``plan.red_dice_mods`` and ``plan.side.side`` read here: one list, no property call
        + "".join([f" {m.amount:+d}" for m in mods if m.applies_to == "penetration_dice"])
        + f" = {n_red} red vs {outcome['hit_side']} armour {armour}"
        + (f" + cover {cover}" if cover else "")
        + (f" + concealment {concealed}" if concealed else "")
        + f" [{first_faces}]"
    )
    if used:
        pen_line += f", {used} * reroll(s)"
        ctx.rule(
            "TTT-E6", "each * rerolls a non-penetrating die while the target is not yet penetrated"
        )
    if pool.pens < threshold and pool.slots and reroll_left:
        _spend_reroll(ctx, shooter.id, "Penetration")
        slot = pool.weakest()
        new = ctx.bag.reroll(pool.slots[slot], "Grizzled reroll")
        pool.replace(slot, new)
        pen_line += f", Grizzled reroll {new.face}"
        # Only the rerolled die's own stars: stars left over from the first roll were lost
        # when no blank die remained to spend them on.
        extra = _spend_stars(ctx, pool, new.icons.count(STAR), threshold)
        if extra:
            pen_line += f", {extra} more * reroll(s)"
    pens = pool.pens
    outcome["pens"] = pens
    pen_line += f" = {pens} PEN"
    if pens < threshold:
        ctx.say(f"{pen_line}: no penetration.")
        return False
    outcome["penetrated"] = True
    ctx.say(f"{pen_line}: penetrated!")
    return True


def do_engage(ctx: Context, action: Engage) -> None:
    state = ctx.state
    if action.best_armour is not None and state.options.best_armour != "ask":
        bad_value(
            "DECISION_NOT_ASKED",
            "TTT-E3",
            f"best_armour: the table's best_armour option is {state.options.best_armour}, so "
            "the target's owner is not asked",
            field="best_armour",
        )
    plan = plan_engage(
        state, action.tank_id, action.target_id, action.grizzled_reroll, action.best_armour
    )
    if plan.side.undecided:
        ask_best_armour(plan)
    s = ctx.edit(plan.shooter.id)
    t = ctx.edit(plan.target.id)
    assign(s, engaged=True, waiting=False)
    line = plan.line
    outcome = ctx.result.outcome
    outcome.update(
        shooter=s.id, target=t.id, range=round(line.range, 2), hit=False, penetrated=False
    )
    ctx.say(f'{tank_label(s)} engages {tank_label(t)} at {line.range:.1f}".')

    _resolve_side(ctx, plan, t)
    # ``plan.side.side`` without its two properties' calls (the side after any turn).
    side = plan.side
    outcome["hit_side"] = (side.final or side.shown).side

    hit = _roll_accuracy(ctx, plan, s)
    if not hit:
        return
    outcome["hit"] = True
    # TTT-MO2 (2) counts the game turn, both phases: hits of an earlier turn are forgotten.
    hit_by = t.hit_by if t.hit_turn == state.turn else ()
    if s.id not in hit_by:
        if hit_by:
            ctx.trigger_morale(t.id, "hit by a second enemy tank this turn")
        assign(t, hit_by=(*hit_by, s.id), hit_turn=state.turn)

    # The Grizzled reroll is still there for Penetration unless Accuracy just spent it.
    reroll_left = plan.reroll_penetration and not s.reroll_used
    if not _roll_penetration(ctx, plan, s, reroll_left):
        return

    card = draw_damage_card(ctx, t.id)
    outcome["damage_card"] = card.name
    apply_damage(ctx, t.id, card)
    if ctx.state.tanks[t.id].on_board:
        ctx.trigger_morale(t.id, "suffered a penetrating hit")
