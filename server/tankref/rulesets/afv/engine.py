"""The AFV referee: a pure function from (state, action, dice) to (state, result).

- ``new_table`` makes a table in setup.
- ``options_for`` says what a unit may do now (and why not), through the same ``check_*``
  functions ``adjudicate`` uses, without changing anything.
- ``adjudicate`` applies one action to a private copy and returns the new state with the
  structured result; a refusal raises a ``RulesError`` and the caller's state is untouched.

Distances: the table reports inches; every rule distance is in cm (``cards.inches_to_cm``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NoReturn

from pydantic_core import to_jsonable_python

from tankref.core.dice import DiceBag, DiceState, Roll, SuppliedDice
from tankref.core.errors import RulesError, bad_value, not_found
from tankref.core.geometry import (
    Point,
    TableArea,
    bearing,
    contains,
    distance,
    normalize_degrees,
    segment_enters,
    signed_angle,
)
from tankref.core.options import Option, option
from tankref.core.results import Event, Modifier, ModifierTarget, Result, RulingNote, TankChange
from tankref.rulesets.afv import rules
from tankref.rulesets.afv.actions import (
    Action,
    Disembark,
    Embark,
    EndPhase,
    Evade,
    Fire,
    Move,
    PlaceTank,
    PlaceTerrain,
    RemoveTank,
    Spot,
    StartGame,
)
from tankref.rulesets.afv.cards import DIE, CardSet, Weapon, both, default_cards, inches_to_cm
from tankref.rulesets.afv.presentation import markers, tooltip, unit_label
from tankref.rulesets.afv.state import AfvOptions, AfvPlayer, Spotting, TableState, UnitState

_TRACKED = (
    "x", "z", "facing", "destroyed", "carried_by", "ready", "stopped", "suppressed",
    "direction", "degraded", "immobilised", "weapons_lost", "superficial", "components_lost",
    "moved_cm", "evasive", "retreated", "fired", "revealed",
)  # fmt: skip

# Rulings the referee applies where the text is silent; each is reported when it is used.
RULING_SEQUENCE = (
    "Whole sides alternate; within its side's phase a unit moves, then fires: once it has "
    "fired it does not move again this phase."
)
RULING_MEASURE = (
    "A move is measured in a straight line, in cm, from where the unit began its phase "
    "(the table's inches x 2.54); the unit then faces its direction of travel."
)
RULING_HALF = "Exactly half the rate counts as 'half or less': direction marker across the path."
RULING_SLOW = (
    "A move whose straight path starts in or crosses terrain that slows the unit's card is "
    "limited to the slow rate."
)
RULING_RETREAT = (
    "'Directly away from the enemy' is away from the nearest enemy unit, within the table's "
    "retreat tolerance; 'full speed' is up to the full rate. It is judged by where the move "
    "ends: dragged back to where it began, the unit has not fallen back and keeps its marker."
)
RULING_SUPPRESSED_FIRE = (
    "A Suppressed unit that has not fallen back may fire only at the nearest enemy it could "
    "otherwise shoot; it is revealed to every opponent until its next phase."
)
RULING_SPOT = (
    "One spotting d6 per unit and infantry target per phase; a failed roll is not retried "
    "that phase. Vehicles in line of sight are seen without a roll."
)
RULING_AP = "A weapon with hit above 0 is anti-personnel; one with hit 0 is not."
RULING_PEN = "'Subtract pen from armour' is read as the modifier pen - armour (infantry armour 0)."
RULING_DEGRADED_VEHICLE = (
    "A Degraded vehicle chooses each phase by what it does: moving more than half its rate "
    "for the ground it crossed costs -2 to hit. Degraded infantry become the Degraded "
    "infantry type instead (the human column)."
)
RULING_AFTER_KILL = "Once the target is destroyed the shot's remaining hits are not rolled."
RULING_LATERAL = (
    "'Laterally' compares the target's direction marker with the line between the two "
    "units; straight toward or straight away is not lateral."
)
RULING_COVER = "Infantry are in cover inside a woods or cover piece."
RULING_SIGHT = (
    "Hills and woods block line of sight (a piece the shooter or the target stands in does "
    "not); only hills block direct fire at what a recon unit spots."
)
RULING_ATGM = (
    "'A stop marker' is the Ready or Stopped marker the unit began its phase with; it keeps "
    "it by not moving."
)
RULING_CARRY = (
    "A team boards a carrier within its own move and gets out within its own move of it, "
    "not in the same phase (a team that got out is measured from the carrier for the rest "
    "of that phase); carried teams neither spot nor fire and die with their carrier."
)


# --- the working context ------------------------------------------------------------------


def refuse(code: str, clause: str | None, message: str, **details: Any) -> NoReturn:
    raise RulesError(code, clause, message, details)


def get_unit(state: TableState, unit_id: str, field: str = "tank_id") -> UnitState:
    unit = state.units.get(unit_id)
    if unit is None:
        not_found("UNKNOWN_TANK", None, f"{field}: no unit {unit_id!r} on this table", field=field)
    return unit


class Context:
    def __init__(
        self, before: TableState, action: dict[str, Any], supplied: SuppliedDice | None
    ) -> None:
        self.before = before
        self.state = before.clone()
        self.bag = DiceBag(self.state.dice, self.state.dice_specs, supplied)
        self.result = Result(action=action)
        self._own: set[str] = set()

    def edit(self, unit_id: str) -> UnitState:
        """The unit, privately copied into the working state on first write."""
        if unit_id not in self._own:
            self.state.units[unit_id] = self.state.units[unit_id].model_copy()
            self._own.add(unit_id)
        return self.state.units[unit_id]

    def forget(self, unit_id: str) -> None:
        self._own.add(unit_id)
        del self.state.units[unit_id]

    @property
    def edited(self) -> list[str]:
        return sorted(self._own)

    def say(self, line: str) -> None:
        self.result.summary.append(line)

    def rule(self, clause: str, text: str, option: str | None = None, value: Any = None) -> None:
        if any(r.clause == clause and r.text == text for r in self.result.rulings):
            return
        self.result.rulings.append(
            RulingNote(
                clause=clause, text=text, option=option, value=None if value is None else str(value)
            )
        )

    def modifier(
        self, clause: str, label: str, amount: int, applies_to: ModifierTarget, ruling: str | None
    ) -> None:
        self.result.modifiers.append(
            Modifier(
                clause=clause, label=label, amount=amount, applies_to=applies_to, ruling=ruling
            )
        )

    def event(self, kind: str, clause: str | None, text: str, **data: Any) -> None:
        self.result.events.append(Event(kind=kind, clause=clause, text=text, data=data))


@dataclass(frozen=True)
class Adjudication:
    state: TableState
    result: Result


# --- tables ---------------------------------------------------------------------------------


def new_table(
    players: tuple[AfvPlayer, AfvPlayer] | None = None,
    *,
    options: AfvOptions | None = None,
    area: TableArea | None = None,
    cards: CardSet | None = None,
    dice: DiceState | None = None,
) -> TableState:
    """A table in setup. Defaults: Red (south edge) and Blue (north)."""
    players = players or (AfvPlayer(id="Red", edge="south"), AfvPlayer(id="Blue", edge="north"))
    if players[0].id == players[1].id:
        bad_value("TWO_PLAYERS", "AFV-SEQ1", "players: the two players need different ids")
    return TableState(
        players=players,
        options=options or AfvOptions(),
        area=area or TableArea(),
        dice_specs=dict((cards or default_cards()).dice),
        dice=dice or DiceState(),
    )


def adjudicate(
    state: TableState,
    action: Action,
    dice: SuppliedDice | None = None,
    cards: CardSet | None = None,
) -> Adjudication:
    """Apply ``action``; raise ``RulesError`` (state untouched) if the rules refuse it."""
    ctx = Context(state, action.model_dump(), dice)
    match action:
        case PlaceTank():
            _place(ctx, action, cards or default_cards())
        case RemoveTank():
            _remove(ctx, action)
        case PlaceTerrain():
            _place_terrain(ctx, action)
        case StartGame():
            _start_game(ctx)
        case Move():
            _move(ctx, action)
        case Evade():
            _evade(ctx, action)
        case Spot():
            _spot(ctx, action)
        case Fire():
            _fire(ctx, action)
        case Embark():
            _embark(ctx, action)
        case Disembark():
            _disembark(ctx, action)
        case EndPhase():
            _end_phase(ctx, action)
    if ctx.state.status == "playing":
        _check_victory(ctx)
    ctx.bag.finish()
    new_state = ctx.state
    new_state.dice = ctx.bag.settled_state()
    ctx.result.rolls = ctx.bag.rolls
    # The acting unit is listed even when its state did not change (a shot spends nothing it
    # tracks), so the table redraws its tooltip with what it just did.
    acting = getattr(action, "tank_id", None)
    changed = ctx.edited
    if isinstance(acting, str) and acting in new_state.units and acting not in changed:
        changed = [*changed, acting]
    for unit_id in changed:
        after = new_state.units.get(unit_id)
        before = state.units.get(unit_id)
        if after is None:
            ctx.result.changes.append(
                TankChange(
                    tank_id=unit_id,
                    name=before.name if before else unit_id,
                    changes={"removed": [False, True]},
                )
            )
            continue
        label = unit_label(after)
        last = next((line for line in reversed(ctx.result.summary) if label in line), None)
        ctx.result.changes.append(_change(before, after, last))
    return Adjudication(new_state, ctx.result)


def _change(before: UnitState | None, after: UnitState, last: str | None) -> TankChange:
    diff: dict[str, list[Any]] = {}
    for name in _TRACKED:
        new = getattr(after, name)
        old = getattr(before, name) if before is not None else None
        if old != new:
            diff[name] = [to_jsonable_python(old), to_jsonable_python(new)]
    if before is not None and before.card.id != after.card.id:
        diff["card"] = [before.card.id, after.card.id]
    return TankChange(
        tank_id=after.id,
        name=after.name,
        changes=diff,
        markers=markers(after),
        tooltip=tooltip(after, last),
    )


# --- setup ----------------------------------------------------------------------------------


def _check_setup(state: TableState, clause: str = "AFV-UNITS") -> None:
    if state.status != "setup":
        refuse("NOT_IN_SETUP", clause, "units and terrain are placed before the game starts")


def _place(ctx: Context, action: PlaceTank, cards: CardSet) -> None:
    _check_setup(ctx.state)
    card = cards.unit(action.card)
    if card is None:
        known = ", ".join(sorted(cards.units))
        bad_value(
            "UNKNOWN_CARD", "AFV-UNITS", f"card: no unit {action.card!r} (known: {known})",
            field="card",
        )  # fmt: skip
    if action.player not in {p.id for p in ctx.state.players}:
        bad_value(
            "UNKNOWN_PLAYER",
            "AFV-SEQ1",
            f"player: {action.player!r} is not a player at this table",
            field="player",
        )
    if not ctx.state.area.contains((action.x, action.z)):
        refuse(
            "OFF_TABLE",
            "AFV-UNITS",
            f"({action.x:.1f}, {action.z:.1f}) is off the table: AFV units start on it",
            field="x",
        )
    old = ctx.state.units.get(action.tank_id)
    degraded = cards.unit(card.degrades_to) if card.degrades_to else None
    unit = UnitState(
        id=action.tank_id,
        name=action.name or (old.name if old else card.name),
        player=action.player,
        card=card,
        degraded_card=degraded,
        x=action.x,
        z=action.z,
        facing=normalize_degrees(action.facing),
        start_x=action.x,
        start_z=action.z,
    )
    ctx.state.units[unit.id] = unit
    ctx._own.add(unit.id)
    ctx.say(f"{unit_label(unit)} placed for {unit.player} at ({unit.x:.1f}, {unit.z:.1f}).")


def _remove(ctx: Context, action: RemoveTank) -> None:
    _check_setup(ctx.state)
    unit = get_unit(ctx.state, action.tank_id)
    ctx.forget(unit.id)
    ctx.say(f"{unit_label(unit)} taken off the table.")


def _place_terrain(ctx: Context, action: PlaceTerrain) -> None:
    _check_setup(ctx.state, "AFV-MV3")
    ctx.state.terrain[action.piece.id] = action.piece
    ctx.say(f"Terrain {action.piece.id} ({action.piece.kind}) placed.")


def check_start(state: TableState) -> None:
    _check_setup(state, "AFV-SEQ1")
    for p in state.players:
        if not any(u.player == p.id for u in state.units.values()):
            refuse("NO_UNITS", "AFV-SEQ1", f"{p.id} has no units on the table yet")


def _start_game(ctx: Context) -> None:
    check_start(ctx.state)
    ctx.state.status = "playing"
    ctx.state.turn = 1
    ctx.state.phase = 0
    ctx.rule("AFV-SEQ1", RULING_SEQUENCE)
    ctx.say(f"Turn 1: {ctx.state.active_player} moves and fires first.")
    _begin_phase(ctx)


# --- the sequence (AFV-SEQ1, AFV-MV1) --------------------------------------------------------


def _begin_phase(ctx: Context) -> None:
    """AFV-MV1 at the start of a side's movement: a Stopped marker is removed and the unit goes
    straight to Fire; a Ready marker is removed."""
    state = ctx.state
    state.spotting = ()
    for unit_id in sorted(state.units):
        unit = state.units[unit_id]
        if unit.player != state.active_player or not unit.in_play:
            continue
        u = ctx.edit(unit_id)
        u.began_stopped = u.stopped
        u.began_with_stop = u.stopped or u.ready
        u.began_suppressed = u.suppressed
        if u.stopped:
            ctx.say(f"{unit_label(u)}: Stopped marker removed; no move this phase (AFV-MV1).")
        u.stopped = False
        u.ready = False
        u.start_x, u.start_z = u.x, u.z
        u.moved_cm = 0.0
        u.evasive = False
        u.retreated = False
        u.got_out = False
        u.fired = ()
        u.revealed = False


def check_phase(state: TableState, player: str | None = None) -> None:
    if state.status != "playing":
        refuse("NOT_PLAYING", "AFV-SEQ1", f"the game is {state.status}: no phases to end")
    if player is not None and player != state.active_player:
        refuse(
            "NOT_YOUR_PHASE", "AFV-SEQ1", f"player: it is {state.active_player}'s phase",
            field="player",
        )  # fmt: skip


def _end_phase(ctx: Context, action: EndPhase) -> None:
    check_phase(ctx.state, action.player)
    state = ctx.state
    ending = state.active_player
    for unit_id in sorted(state.units):
        unit = state.units[unit_id]
        if unit.player != ending or not unit.on_board:
            continue
        if unit.moved_cm == 0:  # AFV-MV2: moved zero: a Ready marker instead of a direction
            u = ctx.edit(unit_id)
            u.ready = True
            u.direction = None
    ctx.say(f"{ending}'s phase ends.")
    state.phase = 1 - state.phase
    if state.phase == 0:
        state.turn += 1
        if state.turn > state.options.turn_limit:
            state.status = "over"
            state.game_over_reason = f"turn limit ({state.options.turn_limit}) reached: a draw"
            ctx.say(f"Game over: {state.game_over_reason}.")
            ctx.event("game_over", "AFV-SEQ1", state.game_over_reason, winner=None)
            return
    ctx.say(f"Turn {state.turn}: {state.active_player}'s phase.")
    _begin_phase(ctx)


def _check_victory(ctx: Context) -> None:
    state = ctx.state
    alive = {p.id: any(u.player == p.id and u.in_play for u in state.units.values())
             for p in state.players}  # fmt: skip
    if all(alive.values()):
        return
    state.status = "over"
    standing = [p for p, ok in alive.items() if ok]
    state.winner = standing[0] if standing else None
    state.game_over_reason = (
        f"{state.enemy_of(standing[0])} has no units left" if standing else "no units left"
    )
    ctx.say(f"Game over: {state.game_over_reason}.")
    ctx.event("game_over", "AFV-SEQ1", state.game_over_reason, winner=state.winner)


def _own_unit(state: TableState, unit_id: str, clause: str) -> UnitState:
    """The acting unit: the game is on, it is its side's phase, it is in play."""
    unit = get_unit(state, unit_id)
    if state.status != "playing":
        refuse("NOT_PLAYING", "AFV-SEQ1", f"the game is {state.status}")
    if unit.player != state.active_player:
        refuse(
            "NOT_YOUR_PHASE", "AFV-SEQ1",
            f"{unit_label(unit)} belongs to {unit.player}; it is {state.active_player}'s phase",
        )  # fmt: skip
    if unit.destroyed:
        refuse("DESTROYED", clause, f"{unit_label(unit)} is destroyed")
    return unit


# --- movement (AFV-MV1, AFV-MV2, AFV-MV3) ----------------------------------------------------


def _nearest_enemy(state: TableState, unit: UnitState, pos: Point) -> UnitState | None:
    enemies = [u for u in state.units.values() if u.player != unit.player and u.on_board]
    if not enemies:
        return None
    return min(enemies, key=lambda e: (distance(pos, e.pos), e.id))


def slowed_by(state: TableState, unit: UnitState, a: Point, b: Point) -> str | None:
    """AFV-MV3: the first piece of slowing terrain the straight path a-b starts in or crosses."""
    kinds = unit.card.slow_on
    if not kinds:
        return None
    for piece in sorted(state.terrain.values(), key=lambda p: p.id):
        if piece.kind in kinds and segment_enters(piece.shape, a, b):
            return piece.id
    return None


def check_may_move(state: TableState, unit_id: str) -> UnitState:
    """May this unit move at all now? (Not where: see ``move_limit``.)"""
    unit = _own_unit(state, unit_id, "AFV-MV1")
    if unit.carried_by is not None:
        refuse(
            "CARRIED", "AFV-SPC1",
            f"{unit_label(unit)} is carried by {unit.carried_by}: it moves with it",
        )  # fmt: skip
    if unit.fired:
        refuse("ALREADY_FIRED", "AFV-SEQ1", f"{unit_label(unit)} has fired: its move is over")
    if unit.began_stopped:
        refuse(
            "STOPPED_MARKER", "AFV-MV1",
            f"{unit_label(unit)} began its phase with a Stopped marker: no move, straight to Fire",
        )  # fmt: skip
    if unit.immobilised:
        refuse("IMMOBILISED", "AFV-DMG1", f"{unit_label(unit)} is stopped for good")
    return unit


def terrain_rate(state: TableState, unit: UnitState, dest: Point) -> tuple[float, list[str]]:
    """The full rate (cm) for the ground a move from the phase's start to ``dest`` crosses
    (AFV-MV3), and why: what "half" is measured against (AFV-MV2, a degraded vehicle's ½)."""
    start = (unit.start_x, unit.start_z)
    rate = unit.card.move_cm
    why = [f"move {both(rate)}"]
    slow = slowed_by(state, unit, start, dest)
    if slow is not None and unit.card.slow_move_cm is not None:
        rate = unit.card.slow_move_cm
        why.append(f"{both(rate)} through {state.terrain[slow].kind} ({slow}, AFV-MV3)")
    return rate, why


def move_rate(state: TableState, unit: UnitState, dest: Point) -> tuple[float, list[str]]:
    """The rate (cm) that applies to a move from the phase's start to ``dest``, and why."""
    rate, why = terrain_rate(state, unit, dest)
    if unit.evasive:
        rate = rate / 2
        why.append(f"evasive: half, {both(rate)} (AFV-MV2)")
    return rate, why


def check_move(state: TableState, move: Move) -> tuple[UnitState, float, float, list[str]]:
    """The unit, the move's length and rate (cm) and how the rate was found; or a refusal."""
    unit = check_may_move(state, move.tank_id)
    if move.evasive and not unit.evasive and unit.moved_cm > 0:
        refuse(
            "EVADE_TOO_LATE", "AFV-MV2",
            f"{unit_label(unit)} has already moved: declare an evasive move before it",
        )  # fmt: skip
    if move.evasive is False and unit.evasive:
        refuse("EVASIVE_DECLARED", "AFV-MV2", f"{unit_label(unit)} declared an evasive move")
    if not state.area.contains((move.x, move.z)):
        refuse("OFF_TABLE", "AFV-MV1", f"({move.x:.1f}, {move.z:.1f}) is off the table", field="x")
    if move.evasive and not unit.evasive:
        unit = unit.model_copy(update={"evasive": True})
    start = (unit.start_x, unit.start_z)
    dest = (move.x, move.z)
    moved = inches_to_cm(distance(start, dest))
    rate, why = move_rate(state, unit, dest)
    if moved > rate + 1e-6:
        refuse(
            "TOO_FAR", "AFV-MV3" if len(why) > 1 and "AFV-MV3" in why[1] else "AFV-MV1",
            f"{unit_label(unit)} may move {both(rate)} this phase ({'; '.join(why)}); "
            f"this move is {both(round(moved, 1))} from where it began the phase",
            moved_cm=round(moved, 2), rate_cm=rate,
        )  # fmt: skip
    if (unit.suppressed or unit.retreated) and moved > 0:  # the whole move, every drag
        enemy = _nearest_enemy(state, unit, start)
        if enemy is not None:
            away = bearing(enemy.pos, start)
            off = abs(signed_angle(bearing(start, dest) - away))
            if off > state.options.retreat_tolerance:
                refuse(
                    "MUST_MOVE_AWAY", "AFV-MV1",
                    f"{unit_label(unit)} is Suppressed: it may only move directly away from "
                    f"the nearest enemy, {unit_label(enemy)} (heading {away:.0f}°; this move "
                    f"is {off:.0f}° off)",
                    away_heading=round(away, 1),
                )  # fmt: skip
    return unit, moved, rate, why


def _move(ctx: Context, action: Move) -> None:
    state = ctx.state
    unit, moved, rate, why = check_move(state, action)
    u = ctx.edit(unit.id)
    if action.evasive:
        u.evasive = True
    start = (u.start_x, u.start_z)
    dest = (action.x, action.z)
    u.x, u.z = dest
    ctx.rule("AFV-MV1", RULING_MEASURE)
    if len(why) > 1 and "AFV-MV3" in why[1]:
        ctx.rule("AFV-MV3", RULING_SLOW)
    if moved <= 0.01 and u.got_out:
        # Beside its carrier: getting out was its move (AFV-SPC1), half or less of it.
        u.moved_cm = 0.001
        u.facing = normalize_degrees(action.facing)
        how = _place_direction(ctx, u, 0.0, rate)
        ctx.say(f"{unit_label(u)} stands by the carrier it got out of: {how} (AFV-MV2).")
    elif moved <= 0.01:
        # Back where it began (or turned on the spot): not a move.
        u.moved_cm = 0.0
        u.facing = normalize_degrees(action.facing)
        u.direction = None
        ctx.say(f"{unit_label(u)} has not moved from where it began the phase.")
        if u.retreated:
            # AFV-MV1 judges the fall-back by where the move ends, not by its first drag:
            # back at the start it has not fallen back, and the marker is still there.
            u.retreated = False
            u.suppressed = True
            ctx.say(f"{unit_label(u)} did not fall back: it keeps its Suppressed marker (AFV-MV1).")
    else:
        u.moved_cm = round(moved, 3)
        travel = bearing(start, dest)
        u.facing = round(travel, 3)  # AFV-MV1: it faces its direction of travel
        if abs(signed_angle(action.facing - travel)) > 2:
            ctx.event(
                "face", "AFV-MV1", f"{unit_label(u)} faces its direction of travel ({travel:.0f}°)",
                tank_id=u.id, facing=round(travel, 1),
            )  # fmt: skip
        full = rate * 2 if u.evasive else rate
        if u.evasive:
            u.direction = normalize_degrees(travel + 90)
            how = "evasive: direction marker across its path"
        else:
            how = _place_direction(ctx, u, moved, full)
        ctx.say(f"{unit_label(u)} moved {both(round(moved, 1))} of {both(rate)}: {how} (AFV-MV2).")
        if u.suppressed:
            u.suppressed = False
            u.retreated = True
            ctx.rule(
                "AFV-MV1", RULING_RETREAT, "retreat_tolerance", state.options.retreat_tolerance
            )
            ctx.say(
                f"{unit_label(u)} fell back from the enemy: Suppressed marker removed (AFV-MV1)."
            )
    for other_id in sorted(state.units):
        other = state.units[other_id]
        if other.carried_by == u.id:
            o = ctx.edit(other_id)
            o.x, o.z = u.x, u.z


def _place_direction(ctx: Context, u: UnitState, moved: float, full: float) -> str:
    """AFV-MV2 after a move of ``moved`` cm at the full rate ``full``: more than half, the
    direction marker along the new facing; half or less (exactly half: the ruling), across."""
    if moved > full / 2 + 1e-9:
        u.direction = u.facing
        return "more than half its rate: direction marker along its facing"
    u.direction = normalize_degrees(u.facing + 90)
    if abs(moved - full / 2) < 0.05:
        ctx.rule("AFV-MV2", RULING_HALF)
    return "half its rate or less: direction marker across its facing"


def check_evade(state: TableState, unit_id: str) -> UnitState:
    unit = check_may_move(state, unit_id)
    if unit.evasive:
        refuse("ALREADY_EVASIVE", "AFV-MV2", f"{unit_label(unit)} already moves evasively")
    if unit.moved_cm > 0:
        refuse(
            "EVADE_TOO_LATE", "AFV-MV2",
            f"{unit_label(unit)} has already moved: declare an evasive move before it",
        )  # fmt: skip
    return unit


def _evade(ctx: Context, action: Evade) -> None:
    unit = check_evade(ctx.state, action.tank_id)
    u = ctx.edit(unit.id)
    u.evasive = True
    rate, _ = move_rate(ctx.state, u, u.pos)
    ctx.say(f"{unit_label(u)} will move evasively: up to {both(rate)} (AFV-MV2).")


# --- sight and spotting (AFV-FR1, AFV-SP1) ---------------------------------------------------


def sight_blocker(
    state: TableState, a: UnitState, b: UnitState, kinds: tuple[str, ...]
) -> str | None:
    """The first piece of ``kinds`` on the line a-b; a piece either unit stands in is its own
    position, not a screen between them."""
    for piece in sorted(state.terrain.values(), key=lambda p: p.id):
        if piece.kind not in kinds:
            continue
        if contains(piece.shape, a.pos) or contains(piece.shape, b.pos):
            continue
        if segment_enters(piece.shape, a.pos, b.pos):
            return piece.id
    return None


def in_sight(state: TableState, a: UnitState, b: UnitState) -> bool:
    return sight_blocker(state, a, b, ("hill", "woods")) is None


def in_cover(state: TableState, unit: UnitState) -> str | None:
    for piece in sorted(state.terrain.values(), key=lambda p: p.id):
        if piece.kind in ("woods", "cover") and contains(piece.shape, unit.pos):
            return piece.id
    return None


def _spot_entry(state: TableState, spotter: str, target: str) -> Spotting | None:
    return next((s for s in state.spotting if s.spotter == spotter and s.target == target), None)


def _recon_spotter(state: TableState, shooter: UnitState, target: UnitState) -> UnitState | None:
    """A friendly recon unit that sees the target now (for infantry: that has spotted it)."""
    for unit in sorted(state.units.values(), key=lambda u: u.id):
        if unit.player != shooter.player or not unit.on_board or not unit.card.spots_for_all:
            continue
        if not in_sight(state, unit, target):
            continue
        if not target.infantry or target.revealed:
            return unit
        entry = _spot_entry(state, unit.id, target.id)
        if entry is not None and entry.spotted:
            return unit
    return None


@dataclass
class Seen:
    """How a shooter may see a target: ``roll`` True when a spotting d6 decides it first."""

    how: str  # sight | recon
    roll: bool = False
    by: str | None = None
    note: str = ""


def check_seen(state: TableState, shooter: UnitState, target: UnitState) -> Seen:
    """AFV-FR1 and AFV-SP1: may ``shooter`` shoot at ``target`` as far as seeing it goes?"""
    if in_sight(state, shooter, target):
        if not target.infantry:
            return Seen("sight", note="in line of sight")
        if target.revealed:
            return Seen("sight", note="revealed by firing while Suppressed (AFV-FR1)")
        entry = _spot_entry(state, shooter.id, target.id)
        if entry is not None and entry.spotted:
            return Seen("sight", note="spotted")
        recon = _recon_spotter(state, shooter, target)
        if recon is not None:
            return Seen("recon", by=recon.id, note=f"spotted by recon {unit_label(recon)}")
        if entry is not None:
            refuse(
                "NOT_SPOTTED", "AFV-SP1",
                f"{unit_label(shooter)} failed to spot {unit_label(target)} this phase",
            )  # fmt: skip
        if shooter.carried_by is None:
            return Seen("sight", roll=True, note="infantry: a spotting d6, 1-3 (AFV-SP1)")
    hill = sight_blocker(state, shooter, target, ("hill",))
    recon = _recon_spotter(state, shooter, target)
    if recon is not None and hill is None:
        return Seen(
            "recon", by=recon.id, note=f"out of sight, spotted by recon {unit_label(recon)}"
        )
    blocker = sight_blocker(state, shooter, target, ("hill", "woods"))
    why = f"{state.terrain[blocker].kind} {blocker} blocks the line" if blocker else "not spotted"
    if blocker and hill is None:
        why += " and no friendly recon unit spots it"
    refuse(
        "NO_LINE_OF_SIGHT", "AFV-FR1",
        f"{unit_label(shooter)} cannot see {unit_label(target)}: {why}", blocker=blocker,
    )  # fmt: skip


def check_spot(state: TableState, spot: Spot) -> tuple[UnitState, UnitState]:
    unit = _own_unit(state, spot.tank_id, "AFV-SP1")
    if unit.carried_by is not None:
        refuse("CARRIED", "AFV-SPC1", f"{unit_label(unit)} is carried: it cannot spot")
    target = get_unit(state, spot.target_id, "target_id")
    if target.player == unit.player:
        refuse("NOT_AN_ENEMY", "AFV-SP1", f"target_id: {unit_label(target)} is a friend")
    if not target.on_board:
        refuse("TARGET_GONE", "AFV-SP1", f"target_id: {unit_label(target)} is not on the table")
    if not target.infantry:
        refuse(
            "SPOT_NOT_NEEDED", "AFV-SP1",
            f"{unit_label(target)} is a vehicle: seen without a roll when in line of sight",
        )  # fmt: skip
    if target.revealed:
        refuse("SPOT_NOT_NEEDED", "AFV-SP1", f"{unit_label(target)} revealed itself (AFV-FR1)")
    if _spot_entry(state, unit.id, target.id) is not None:
        refuse(
            "ALREADY_SPOTTED", "AFV-SP1",
            f"{unit_label(unit)} already looked for {unit_label(target)} this phase",
        )  # fmt: skip
    if not in_sight(state, unit, target):
        refuse(
            "NO_LINE_OF_SIGHT", "AFV-SP1",
            f"{unit_label(unit)} has no line of sight to {unit_label(target)}",
        )  # fmt: skip
    return unit, target


def _roll_spot(ctx: Context, unit: UnitState, target: UnitState) -> bool:
    roll = ctx.bag.roll(DIE, 1, f"to spot {unit_label(target)} (1-3, AFV-SP1)")[0]
    spotted = roll.face <= rules.SPOT_ON
    ctx.state.spotting = (
        *ctx.state.spotting,
        Spotting(spotter=unit.id, target=target.id, spotted=spotted),
    )
    ctx.rule("AFV-SP1", RULING_SPOT)
    shared = (
        " Recon: every friendly unit sees it (AFV-SP1)."
        if spotted and unit.card.spots_for_all
        else ""
    )
    ctx.say(
        f"{unit_label(unit)} looks for {unit_label(target)}: d6 {roll.face}, "
        f"{'spotted' if spotted else 'not spotted'} (1-3, AFV-SP1).{shared}"
    )
    return spotted


def _spot(ctx: Context, action: Spot) -> None:
    unit, target = check_spot(ctx.state, action)
    spotted = _roll_spot(ctx, unit, target)
    ctx.result.outcome = {"spotter": unit.id, "target_id": target.id, "spotted": spotted}


# --- fire (AFV-FR1, AFV-HIT1, AFV-HIT2, AFV-AP1, AFV-DMG1, AFV-DMG2, AFV-SPC1) ---------------


@dataclass
class ShotPlan:
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
    unit = _own_unit(state, unit_id, "AFV-FR1")
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
        refuse("NOT_AN_ENEMY", "AFV-FR1", f"target_id: {unit_label(target)} is a friend")
    if not target.on_board:
        refuse("TARGET_GONE", "AFV-FR1", f"target_id: {unit_label(target)} is not on the table")
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


def _fire(ctx: Context, action: Fire) -> None:
    state = ctx.state
    plan = plan_fire(state, action)
    shooter = ctx.edit(plan.shooter.id)
    target_label = unit_label(plan.target)
    ctx.rule("AFV-SEQ1", RULING_SEQUENCE)
    if plan.target.infantry:
        ctx.rule("AFV-AP1", RULING_AP)
    seen = plan.seen.note
    if plan.seen.roll:
        if not _roll_spot(ctx, shooter, plan.target):
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
        result = _damage(ctx, plan, target, n + 1)
        outcome["damage"].append(result)
    outcome["destroyed"] = ctx.state.units[plan.target.id].destroyed


def _damage(ctx: Context, plan: ShotPlan, target: UnitState, n: int) -> str:
    """AFV-DMG1 for one hit: 2d6 + pen - armour on the target's column; AFV-DMG2 markers."""
    pen, armour = plan.weapon.pen, target.card.armour
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
            _destroy(ctx, target, plan.shooter.id)
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
        _destroy(ctx, target, plan.shooter.id)
    ctx.say(f"Hit {n} on {label}: {math}, vehicle column: {words} (AFV-DMG1).")
    return result


def _destroy(ctx: Context, unit: UnitState, by: str) -> None:
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


# --- carrying (AFV-SPC1) ---------------------------------------------------------------------


def check_embark(state: TableState, action: Embark) -> tuple[UnitState, UnitState, float]:
    team = check_may_move(state, action.tank_id)
    if team.got_out:
        refuse(
            "GOT_OUT_THIS_PHASE", "AFV-SPC1",
            f"{unit_label(team)} got out of its carrier this phase: it boards again in a "
            "later phase",
        )  # fmt: skip
    if not team.infantry:
        refuse("NOT_INFANTRY", "AFV-SPC1", f"{unit_label(team)} is not an infantry team")
    if team.suppressed:
        refuse(
            "MUST_MOVE_AWAY", "AFV-MV1",
            f"{unit_label(team)} is Suppressed: it may only move directly away from the enemy",
        )  # fmt: skip
    carrier = get_unit(state, action.carrier_id, "carrier_id")
    if carrier.player != team.player or not carrier.on_board:
        refuse(
            "NOT_A_CARRIER",
            "AFV-SPC1",
            f"carrier_id: {unit_label(carrier)} is not a friend on the table",
        )
    aboard = sum(1 for u in state.units.values() if u.carried_by == carrier.id and u.in_play)
    if carrier.card.carries == 0:
        refuse("NOT_A_CARRIER", "AFV-SPC1", f"carrier_id: {carrier.card.name} carries nobody")
    if aboard >= carrier.card.carries:
        refuse(
            "CARRIER_FULL", "AFV-SPC1",
            f"{unit_label(carrier)} carries {carrier.card.carries} team(s) and has {aboard} aboard",
        )  # fmt: skip
    dist = inches_to_cm(distance((team.start_x, team.start_z), carrier.pos))
    if dist > team.card.move_cm + 1e-6:
        refuse(
            "TOO_FAR", "AFV-SPC1",
            f"{unit_label(carrier)} is {both(round(dist, 1))} from where {unit_label(team)} "
            f"began its phase; it moves {both(team.card.move_cm)}",
        )  # fmt: skip
    return team, carrier, dist


def _embark(ctx: Context, action: Embark) -> None:
    team, carrier, dist = check_embark(ctx.state, action)
    t = ctx.edit(team.id)
    t.carried_by = carrier.id
    t.x, t.z = carrier.x, carrier.z
    t.moved_cm = max(round(dist, 3), 0.001)  # it moved this phase: no Ready marker for it
    t.direction = None
    ctx.rule("AFV-SPC1", RULING_CARRY)
    ctx.say(f"{unit_label(t)} boards {unit_label(carrier)} (AFV-SPC1).")


def check_disembark(state: TableState, action: Disembark) -> tuple[UnitState, UnitState, float]:
    team = _own_unit(state, action.tank_id, "AFV-SPC1")
    if team.carried_by is None:
        refuse("NOT_CARRIED", "AFV-SPC1", f"{unit_label(team)} is not aboard a carrier")
    if team.moved_cm > 0:
        refuse("EMBARKED_THIS_PHASE", "AFV-SPC1", f"{unit_label(team)} boarded this phase")
    if team.began_stopped:
        refuse("STOPPED_MARKER", "AFV-MV1", f"{unit_label(team)} began its phase Stopped")
    carrier = get_unit(state, team.carried_by, "carrier_id")
    if not state.area.contains((action.x, action.z)):
        refuse(
            "OFF_TABLE", "AFV-MV1", f"({action.x:.1f}, {action.z:.1f}) is off the table", field="x"
        )
    dist = inches_to_cm(distance(carrier.pos, (action.x, action.z)))
    if dist > team.card.move_cm + 1e-6:
        refuse(
            "TOO_FAR", "AFV-SPC1",
            f"{unit_label(team)} gets out within {both(team.card.move_cm)} of its carrier; this "
            f"is {both(round(dist, 1))}",
        )  # fmt: skip
    return team, carrier, dist


def _disembark(ctx: Context, action: Disembark) -> None:
    team, carrier, dist = check_disembark(ctx.state, action)
    t = ctx.edit(team.id)
    t.carried_by = None
    t.x, t.z = action.x, action.z
    # Its move this phase is measured from the carrier: a later drag stays within its rate
    # of it (AFV-SPC1), and it does not board again this phase.
    t.start_x, t.start_z = carrier.x, carrier.z
    t.got_out = True
    t.moved_cm = max(round(dist, 3), 0.001)
    if dist > 0:
        t.facing = round(bearing(carrier.pos, t.pos), 3)
    how = _place_direction(ctx, t, dist, t.card.move_cm)  # AFV-MV2 applies to getting out
    ctx.rule("AFV-SPC1", RULING_CARRY)
    ctx.say(
        f"{unit_label(t)} gets out of {unit_label(carrier)}, {both(round(dist, 1))} away "
        f"(AFV-SPC1): {how} (AFV-MV2)."
    )


# --- what may this unit do now ---------------------------------------------------------------


def options_for(state: TableState, unit_id: str, *, odds: bool = True) -> list[Option]:
    """What ``unit_id`` may do now, each refusal with its code and clause. Changes nothing.

    Fire lists, per weapon system, every target it may shoot, with the hit modifiers and (with
    ``odds``) the exact chance of a hit and of destroying it."""
    from tankref.rulesets.afv.odds import shot_odds

    unit = get_unit(state, unit_id)
    out: list[Option] = []

    def move_check() -> dict[str, Any]:
        u = check_may_move(state, unit_id)
        rate, why = move_rate(state, u, (u.start_x, u.start_z))
        detail: dict[str, Any] = {
            "from": [u.start_x, u.start_z],
            "rate_cm": rate,
            "rate_inches": round(rate / 2.54, 3),
            "moved_cm": u.moved_cm,
            "why": why,
            "units": "rate in cm as the rules give it; from and positions in table inches",
        }
        if u.suppressed:
            enemy = _nearest_enemy(state, u, (u.start_x, u.start_z))
            if enemy is not None:
                detail["away_heading"] = round(bearing(enemy.pos, (u.start_x, u.start_z)), 1)
                detail["tolerance"] = state.options.retreat_tolerance
        return detail

    out.append(option("move", move_check))
    out.append(option("evade", lambda: {"rate_cm": check_evade(state, unit_id).card.move_cm / 2}))

    def spot_check() -> dict[str, Any]:
        targets = []
        first: RulesError | None = None
        for other in sorted(state.units.values(), key=lambda u: u.id):
            if other.player == unit.player or not other.on_board or not other.infantry:
                continue
            try:
                check_spot(state, Spot(tank_id=unit_id, target_id=other.id))
            except RulesError as err:
                if err.code in ("NOT_YOUR_PHASE", "NOT_PLAYING", "DESTROYED", "CARRIED"):
                    raise
                first = first or err
                continue
            targets.append({"target_id": other.id, "p_spot": "1/2"})
        if not targets:
            raise first or RulesError(
                "NO_TARGETS", "AFV-SP1", f"{unit_label(unit)} has no enemy infantry to look for"
            )
        return {"targets": targets}

    out.append(option("spot", spot_check))

    def fire_check() -> dict[str, Any]:
        weapons = []
        first: RulesError | None = None
        for index in range(len(unit.card.weapon)):
            try:
                check_weapon(state, unit_id, index)
            except RulesError as err:
                if err.code in ("NOT_YOUR_PHASE", "NOT_PLAYING", "DESTROYED", "CARRIED"):
                    raise
                first = first or err
                continue
            targets = []
            for other in sorted(state.units.values(), key=lambda u: u.id):
                if other.player == unit.player or not other.on_board:
                    continue
                try:
                    plan = plan_fire(state, Fire(tank_id=unit_id, target_id=other.id, weapon=index))
                except RulesError as err:
                    first = first or err
                    continue
                target: dict[str, Any] = {
                    "target_id": other.id,
                    "range_cm": round(plan.range_cm, 1),
                    "range_band": plan.band,
                    "hit_modifier": plan.hit_modifier,
                    "needs_spot_roll": plan.seen.roll,
                    "seen": plan.seen.note,
                }
                if odds:
                    target.update(shot_odds(plan).brief())
                targets.append(target)
            if targets:
                weapon = unit.card.weapon[index]
                weapons.append({"weapon": index, "name": weapon.name, "targets": targets})
        if not weapons:
            raise first or RulesError("NO_TARGETS", "AFV-FR1", f"{unit_label(unit)} has no target")
        return {"weapons": weapons}

    out.append(option("fire", fire_check))

    def embark_check() -> dict[str, Any]:
        carriers = []
        first: RulesError | None = None
        for other in sorted(state.units.values(), key=lambda u: u.id):
            if other.player != unit.player or other.id == unit_id or not other.card.carries:
                continue
            try:
                check_embark(state, Embark(tank_id=unit_id, carrier_id=other.id))
            except RulesError as err:
                first = first or err
                continue
            carriers.append(other.id)
        if not carriers:
            if not unit.infantry:
                raise RulesError("NOT_INFANTRY", "AFV-SPC1", f"{unit_label(unit)} is not infantry")
            raise first or RulesError("NO_CARRIER", "AFV-SPC1", "no friendly carrier on the table")
        return {"carriers": carriers}

    out.append(option("embark", embark_check))

    def disembark_check() -> dict[str, Any]:
        if unit.carried_by is None:
            raise RulesError("NOT_CARRIED", "AFV-SPC1", f"{unit_label(unit)} is not aboard")
        carrier = state.units[unit.carried_by]
        check_disembark(state, Disembark(tank_id=unit_id, x=carrier.x, z=carrier.z))
        return {"carrier_id": carrier.id, "within_cm": unit.card.move_cm}

    out.append(option("disembark", disembark_check))
    return out


def legal_actions(state: TableState, unit_id: str) -> list[str]:
    return [o.kind for o in options_for(state, unit_id, odds=False) if o.allowed]
