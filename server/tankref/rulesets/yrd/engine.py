"""The tank yard referee: a pure function from (state, action, dice) to (state, result).

- ``new_table`` makes a table in setup.
- ``options_for`` says what a unit may do now (and why not), with the same checks.
- ``adjudicate`` applies one action to a private copy and returns the new state with the
  structured result; a refusal raises a ``RulesError`` and the caller's state is untouched.

A party's turn: the tank's movement phase (stay, or move to another of its yard's spaces),
then the one attack its space grants, then the turn ends (rulings: the text gives the phase
and the attacks but not their order in a turn).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic_core import to_jsonable_python

from tankref.core.dice import DiceBag, DiceState, SuppliedDice
from tankref.core.errors import BadValue, NotFound, RulesError
from tankref.core.geometry import TableArea
from tankref.core.options import Option, option
from tankref.core.results import Event, Modifier, Result, RulingNote, TankChange
from tankref.rulesets.yrd import contest
from tankref.rulesets.yrd.actions import (
    Action,
    AntiTank,
    Attack,
    EndTurn,
    Move,
    PlacePiece,
    PlaceTank,
    RemoveTank,
    StartGame,
)
from tankref.rulesets.yrd.cards import DAMAGE_DIE, CardSet, default_cards
from tankref.rulesets.yrd.presentation import (
    piece_label,
    piece_markers,
    piece_tooltip,
    tank_label,
    tank_markers,
    tank_tooltip,
    where,
)
from tankref.rulesets.yrd.state import (
    SPACE_LABEL,
    TANK_SPACES,
    Options,
    Party,
    PieceState,
    SpaceName,
    TableState,
    TankState,
    artillery_at,
    default_yard,
    layout_problems,
    space_named_at,
    tank_space_at,
)

_TANK_FIELDS: tuple[str, ...] = (
    "space", "x", "z", "facing", "hp", "heavily_damaged", "shutdown_until", "moved",
    "attacked", "damage_taken",
)  # fmt: skip
_PIECE_FIELDS: tuple[str, ...] = (
    "x",
    "z",
    "facing",
    "homefield",
    "artillery",
    "hp",
    "damage_taken",
)


@dataclass(frozen=True)
class Adjudication:
    state: TableState
    result: Result


def with_yards(players: Sequence[Party]) -> tuple[Party, Party]:
    """The parties with every missing yard filled in with the default for its seat."""
    if len(players) != 2:
        raise BadValue("TWO_PLAYERS", "YRD-SP1", "players: the tank yard is for two parties")
    filled = [
        p if p.yard is not None else p.model_copy(update={"yard": default_yard(i)})
        for i, p in enumerate(players)
    ]
    return filled[0], filled[1]


def new_table(
    players: Sequence[Party] | None = None,
    *,
    options: Options | None = None,
    first_player: str | None = None,
    cards: CardSet | None = None,
    dice: DiceState | None = None,
    area: TableArea | None = None,
) -> TableState:
    """A table in setup. Defaults: Red (yard south) and Blue (yard north), Red first."""
    parties = with_yards(players or (Party(id="Red"), Party(id="Blue")))
    if parties[0].id == parties[1].id:
        raise BadValue("TWO_PLAYERS", "YRD-SP1", "players: the two parties need different ids")
    options = options or Options()
    cards = cards or default_cards()
    area = area or TableArea()
    if options.contest_die not in cards.dice:
        raise BadValue(
            "UNKNOWN_DIE",
            None,
            f"options.contest_die: no die {options.contest_die!r} (known: {', '.join(cards.dice)})",
            {"field": "options.contest_die"},
        )
    problems = layout_problems(parties, options.snap_radius, area)
    if problems:
        raise RulesError(
            "BAD_LAYOUT",
            "YRD-SP1",
            "players.yard: " + "; ".join(problems),
            {"field": "players", "problems": problems},
        )
    ids = [p.id for p in parties]
    first = first_player or ids[0]
    if first not in ids:
        raise BadValue(
            "UNKNOWN_PLAYER",
            None,
            f"first_player: {first!r} is not a party",
            {"field": "first_player"},
        )
    order = (first, ids[1] if first == ids[0] else ids[0])
    return TableState(
        players=parties,
        order=order,
        options=options,
        area=area,
        dice_specs=dict(cards.dice),
        dice=dice or DiceState(),
    )


@dataclass
class _Ctx:
    """One adjudication's working copy, its dice and the result being written."""

    state: TableState
    bag: DiceBag
    result: Result
    edited: list[str] = field(default_factory=list)

    def touch(self, unit_id: str) -> None:
        if unit_id not in self.edited:
            self.edited.append(unit_id)

    def say(self, line: str) -> None:
        self.result.summary.append(line)


def adjudicate(
    state: TableState,
    action: Action,
    dice: SuppliedDice | None = None,
    cards: CardSet | None = None,
) -> Adjudication:
    """Apply ``action``; raise ``RulesError`` (state untouched) if the rules refuse it."""
    work = state.clone()
    ctx = _Ctx(work, DiceBag(work.dice, work.dice_specs, dice), Result(action=action.model_dump()))
    if state.status == "over":
        raise RulesError("GAME_OVER", None, f"the match is over: {state.game_over_reason}")
    match action:
        case PlaceTank():
            _place_tank(ctx, action, cards or default_cards())
        case PlacePiece():
            _place_piece(ctx, action, cards or default_cards())
        case RemoveTank():
            _remove(ctx, action)
        case StartGame():
            _start_game(ctx)
        case Move():
            _move(ctx, action)
        case Attack():
            _attack(ctx, action)
        case AntiTank():
            _anti_tank(ctx, action)
        case EndTurn():
            _end_turn(ctx, action)
    ctx.bag.finish()
    work.dice = ctx.bag.settled_state()
    ctx.result.rolls = ctx.bag.rolls
    for unit_id in ctx.edited:
        ctx.result.changes.append(_change(state, work, unit_id, ctx.result.summary))
    return Adjudication(work, ctx.result)


def _change(before: TableState, after: TableState, unit_id: str, lines: list[str]) -> TankChange:
    tank, piece = after.tanks.get(unit_id), after.pieces.get(unit_id)
    if tank is None and piece is None:
        old = before.tanks.get(unit_id) or before.pieces.get(unit_id)
        return TankChange(
            tank_id=unit_id,
            name=old.name if old is not None else unit_id,
            changes={"removed": [False, True]},
        )
    unit: TankState | PieceState
    old_unit: TankState | PieceState | None
    if tank is not None:
        unit, old_unit, names = tank, before.tanks.get(unit_id), _TANK_FIELDS
        label = tank_label(tank)
    else:
        assert piece is not None
        unit, old_unit, names = piece, before.pieces.get(unit_id), _PIECE_FIELDS
        label = piece_label(piece)
    diff: dict[str, list[Any]] = {}
    for name in names:
        new = getattr(unit, name)
        old = getattr(old_unit, name) if old_unit is not None else None
        if old != new:
            diff[name] = [to_jsonable_python(old), to_jsonable_python(new)]
    last = next((line for line in reversed(lines) if label in line), None)
    if isinstance(unit, TankState):
        return TankChange(
            tank_id=unit.id,
            name=unit.name,
            changes=diff,
            markers=tank_markers(unit),
            tooltip=tank_tooltip(unit, last),
        )
    return TankChange(
        tank_id=unit.id,
        name=unit.name,
        changes=diff,
        markers=piece_markers(unit),
        tooltip=piece_tooltip(unit, last),
    )


# --- checks shared by adjudication and options_for -------------------------------------------


def get_tank(state: TableState, unit_id: str, role: str = "tank_id") -> TankState:
    """The tank ``unit_id``; a piece is refused: only tanks act on tanks (YRD-EN1)."""
    tank = state.tanks.get(unit_id)
    if tank is not None:
        return tank
    piece = state.pieces.get(unit_id)
    if piece is not None:
        raise RulesError(
            "NOT_A_TANK",
            "YRD-EN1",
            f"{role}: {piece_label(piece)} is a piece, not a tank: tanks are affected only by "
            "other tanks, and the tank rules give pieces no actions",
            {"field": role},
        )
    raise NotFound("UNKNOWN_TANK", None, f"{role}: no tank {unit_id!r}", {"field": role})


def check_playing(state: TableState) -> None:
    if state.status == "setup":
        raise RulesError("NOT_STARTED", None, "the match has not started (start_game)")
    if state.status == "over":
        raise RulesError("GAME_OVER", None, f"the match is over: {state.game_over_reason}")


def check_may_act(state: TableState, tank: TankState) -> None:
    """Its owner's turn, and not Shut Down (YRD-SD1)."""
    check_playing(state)
    if tank.player != state.active_player:
        raise RulesError(
            "NOT_YOUR_TURN",
            "YRD-SP1",
            f"it is {state.active_player}'s turn, not {tank.player}'s",
        )
    if tank.shutdown:
        raise RulesError(
            "SHUTDOWN",
            "YRD-SD1",
            f"{tank_label(tank)} is Shut Down until the end of turn {tank.shutdown_until}: "
            "it cannot move or attack",
        )


def check_may_move(state: TableState, tank: TankState) -> None:
    """YRD-SP1: one movement phase a turn, before the tank's attack."""
    check_may_act(state, tank)
    if tank.attacked:
        raise RulesError(
            "ALREADY_ATTACKED",
            "YRD-SP1",
            f"{tank_label(tank)} has attacked this turn: the movement phase comes first",
        )
    if tank.moved:
        raise RulesError(
            "ALREADY_MOVED", "YRD-SP1", f"{tank_label(tank)} has used its movement phase"
        )


def check_destination(state: TableState, tank: TankState, space: SpaceName) -> None:
    if space == tank.space:
        raise RulesError(
            "SAME_SPACE",
            "YRD-SP1",
            f"{tank_label(tank)} is on its {SPACE_LABEL[space]} space already: staying needs "
            "no move",
            {"field": "space"},
        )
    if space == "attack" and tank.heavily_damaged:
        raise RulesError(
            "HEAVILY_DAMAGED",
            "YRD-HP1",
            f"{tank_label(tank)} is Heavily Damaged: it can no longer go to its Attack space",
            {"field": "space"},
        )


def destination(state: TableState, tank: TankState, action: Move) -> SpaceName:
    """The tank space a Move names or lands on; elsewhere is refused (YRD-SP1)."""
    if action.space is not None:
        return action.space
    assert action.x is not None and action.z is not None  # the action's own validator
    space = tank_space_at(state, tank.player, action.x, action.z)
    if space is None:
        there = space_named_at(state, action.x, action.z)
        raise RulesError(
            "NOT_ON_A_SPACE",
            "YRD-SP1",
            f"{tank_label(tank)} can only travel within its yard, between its Shield, Attack "
            f"and Anti-tank spaces; ({action.x:g}, {action.z:g}) is "
            + (f"{there}" if there else "on none of them"),
            {"field": "x"},
        )
    return space


def check_attack(state: TableState, tank: TankState) -> None:
    """YRD-AT1: from its Attack space, once a turn, not Heavily Damaged (YRD-HP1)."""
    check_may_act(state, tank)
    if tank.space != "attack":
        raise RulesError(
            "NOT_ON_ATTACK_SPACE",
            "YRD-AT1",
            f"{tank_label(tank)} is on its {SPACE_LABEL[tank.space]} space: attacks on "
            "artillery spaces are made from the Attack space",
        )
    if tank.heavily_damaged:
        raise RulesError(
            "HEAVILY_DAMAGED",
            "YRD-HP1",
            f"{tank_label(tank)} is Heavily Damaged: it can no longer attack pieces on "
            "artillery spaces",
        )
    _check_not_attacked(tank)


def _check_not_attacked(tank: TankState) -> None:
    if tank.attacked:
        raise RulesError(
            "ALREADY_ATTACKED", "YRD-SP1", f"{tank_label(tank)} has made its attack this turn"
        )


def attack_target(state: TableState, tank: TankState, target_id: str) -> PieceState:
    """YRD-AT1: an enemy piece on one of the attacker's own artillery spaces."""
    piece = state.pieces.get(target_id)
    if piece is None:
        if target_id in state.tanks:
            raise RulesError(
                "NOT_A_PIECE",
                "YRD-AT1",
                f"target_id: {target_id} is a tank; the Attack space attacks pieces on "
                "artillery spaces (tanks are attacked from the Anti-tank space)",
                {"field": "target_id"},
            )
        raise NotFound(
            "UNKNOWN_TANK", None, f"target_id: no piece {target_id!r}", {"field": "target_id"}
        )
    if piece.player == tank.player:
        raise RulesError(
            "FRIENDLY_FIRE",
            "YRD-AT1",
            f"target_id: {piece_label(piece)} is {tank.player}'s own piece: no friendly fire",
            {"field": "target_id"},
        )
    if piece.homefield != tank.player:
        raise RulesError(
            "NOT_ON_YOUR_ARTILLERY",
            "YRD-AT1",
            f"target_id: {piece_label(piece)} is {where(piece)}; {tank.player}'s tank attacks "
            f"only pieces on {tank.player}'s own artillery spaces",
            {"field": "target_id"},
        )
    if piece.down:
        raise RulesError(
            "PIECE_DOWN",
            "YRD-AT1",
            f"target_id: {piece_label(piece)} is Down (0 HP)",
            {"field": "target_id"},
        )
    return piece


def check_anti_tank(state: TableState, tank: TankState) -> None:
    """YRD-AN1: from its Anti-tank space, once a turn."""
    check_may_act(state, tank)
    if tank.space != "anti_tank":
        raise RulesError(
            "NOT_ON_ANTI_TANK_SPACE",
            "YRD-AN1",
            f"{tank_label(tank)} is on its {SPACE_LABEL[tank.space]} space: tanks are attacked "
            "from the Anti-tank space",
        )
    _check_not_attacked(tank)


def anti_tank_target(state: TableState, tank: TankState, target_id: str) -> TankState:
    """YRD-AN1 / YRD-SH1: an enemy tank; one on its Shield space may not be targeted (option
    ``shield``: refuse) or the attack fails automatically (``auto_fail``, checked by the
    caller)."""
    if target_id in state.pieces:
        raise RulesError(
            "NOT_A_TANK",
            "YRD-AN1",
            f"target_id: {target_id} is a piece; the Anti-tank space attacks tanks",
            {"field": "target_id"},
        )
    target = state.tanks.get(target_id)
    if target is None:
        raise NotFound(
            "UNKNOWN_TANK", None, f"target_id: no tank {target_id!r}", {"field": "target_id"}
        )
    if target.player == tank.player:
        raise RulesError(
            "FRIENDLY_FIRE",
            "YRD-AN1",
            f"target_id: {tank_label(target)} is {tank.player}'s own tank: no friendly fire",
            {"field": "target_id"},
        )
    if target.space == "shield" and state.options.shield == "refuse":
        raise RulesError(
            "TARGET_SHIELDED",
            "YRD-SH1",
            f"target_id: {tank_label(target)} is on its Shield space: it may not be targeted "
            "by tanks on Anti-tank spaces",
            {"field": "target_id"},
        )
    return target


def check_end_turn(state: TableState, player: str | None) -> None:
    check_playing(state)
    if player is not None and player != state.active_player:
        raise RulesError(
            "NOT_YOUR_TURN",
            "YRD-SP1",
            f"player: it is {state.active_player}'s turn, not {player}'s",
            {"field": "player"},
        )


# --- setup -------------------------------------------------------------------------------------


def _check_player(state: TableState, player: str) -> None:
    if player not in state.order:
        raise BadValue(
            "UNKNOWN_PLAYER",
            None,
            f"player: {player!r} is not a party at this table ({', '.join(state.order)})",
            {"field": "player"},
        )


def _place_tank(ctx: _Ctx, action: PlaceTank, cards: CardSet) -> None:
    state = ctx.state
    if state.status != "setup":
        raise RulesError(
            "SETUP_OVER",
            "YRD-SP1",
            f"{action.tank_id}: tanks are placed during setup; in the match a tank only "
            "moves between its own yard's spaces",
        )
    card = cards.tanks.get(action.card)
    if card is None:
        raise BadValue(
            "UNKNOWN_CARD",
            None,
            f"card: no tank card {action.card!r} (tanks: {', '.join(sorted(cards.tanks))}; "
            f"pieces: {', '.join(sorted(cards.pieces))})",
            {"field": "card"},
        )
    _check_player(state, action.player)
    if action.tank_id in state.pieces:
        raise RulesError(
            "ID_IN_USE", None, f"tank_id: {action.tank_id} is a piece", {"field": "tank_id"}
        )
    other = state.tank_of(action.player)
    if other is not None and other.id != action.tank_id:
        raise RulesError(
            "ONE_TANK",
            "YRD-SP1",
            f"{action.player} has a tank already ({tank_label(other)}): each party has one",
            {"field": "player"},
        )
    space = tank_space_at(state, action.player, action.x, action.z)
    if space is None:
        there = space_named_at(state, action.x, action.z)
        raise RulesError(
            "NOT_ON_A_SPACE",
            "YRD-SP1",
            f"{action.tank_id}: a tank stands on one of its own yard's tank spaces ("
            f"{action.player}'s Shield, Attack or Anti-tank); ({action.x:g}, {action.z:g}) is "
            + (there or "on none of them"),
            {"field": "x"},
        )
    spot = state.yard(action.player).tank_spot(space)
    old = state.tanks.get(action.tank_id)
    same_card = old is not None and old.card == card
    state.tanks[action.tank_id] = TankState(
        id=action.tank_id,
        name=action.name or (old.name if old else action.tank_id),
        player=action.player,
        card=card,
        space=space,
        x=spot.x,
        z=spot.z,
        facing=action.facing,
        hp=old.hp if old is not None and same_card else card.hp,
    )
    ctx.touch(action.tank_id)
    ctx.say(
        f"{action.name or action.tank_id} ({action.player}): {card.name} placed on "
        f"{action.player}'s {SPACE_LABEL[space]} space"
    )


def _place_piece(ctx: _Ctx, action: PlacePiece, cards: CardSet) -> None:
    state = ctx.state
    card = cards.pieces.get(action.card)
    if card is None:
        raise BadValue(
            "UNKNOWN_CARD",
            None,
            f"card: no piece card {action.card!r} (pieces: {', '.join(sorted(cards.pieces))})",
            {"field": "card"},
        )
    _check_player(state, action.player)
    if action.piece_id in state.tanks:
        raise RulesError(
            "ID_IN_USE", None, f"piece_id: {action.piece_id} is a tank", {"field": "piece_id"}
        )
    spot = artillery_at(state, action.x, action.z)
    old = state.pieces.get(action.piece_id)
    keep = old is not None and old.card == card and old.player == action.player
    piece = PieceState(
        id=action.piece_id,
        name=action.name or (old.name if old else action.piece_id),
        player=action.player,
        card=card,
        x=action.x,
        z=action.z,
        facing=action.facing,
        homefield=spot[0] if spot else None,
        artillery=spot[1] if spot else None,
        hp=old.hp if old is not None and keep else card.hp,
        damage_taken=old.damage_taken if old is not None and keep else 0,
    )
    state.pieces[action.piece_id] = piece
    ctx.touch(action.piece_id)
    ctx.say(f"{piece_label(piece)} is {where(piece)}")


def _remove(ctx: _Ctx, action: RemoveTank) -> None:
    state = ctx.state
    if action.tank_id in state.pieces:
        piece = state.pieces.pop(action.tank_id)
        ctx.say(f"{piece_label(piece)} left the table")
    elif action.tank_id in state.tanks:
        if state.status != "setup":
            raise RulesError(
                "TANK_STAYS",
                "YRD-SP1",
                f"tank_id: {tank_label(state.tanks[action.tank_id])} stays in its yard for "
                "the match (it cannot be destroyed: at 0 HP it is Heavily Damaged)",
                {"field": "tank_id"},
            )
        tank = state.tanks.pop(action.tank_id)
        ctx.say(f"{tank_label(tank)} taken off the table")
    else:
        raise NotFound(
            "UNKNOWN_TANK", None, f"tank_id: no model {action.tank_id!r}", {"field": "tank_id"}
        )
    ctx.touch(action.tank_id)


def _start_game(ctx: _Ctx) -> None:
    state = ctx.state
    if state.status != "setup":
        raise RulesError("ALREADY_STARTED", None, "the match has started already")
    missing = [p for p in state.order if state.tank_of(p) is None]
    if missing:
        raise RulesError(
            "NO_TANK",
            "YRD-SP1",
            f"each party needs its tank on one of its spaces first: {', '.join(missing)} has none",
            {"missing": missing},
        )
    state.status = "playing"
    state.turn = 1
    _begin_turn(ctx)


def _begin_turn(ctx: _Ctx) -> None:
    state = ctx.state
    tank = state.tank_of(state.active_player)
    if tank is not None and (tank.moved or tank.attacked):
        tank.moved = tank.attacked = False
        ctx.touch(tank.id)
    line = f"Turn {state.turn} (round {state.round}): {state.active_player}'s turn"
    ctx.say(line)
    ctx.result.events.append(
        Event(
            kind="turn_started",
            clause="YRD-SP1",
            text=line,
            data={"turn": state.turn, "player": state.active_player},
        )
    )


def _end_turn(ctx: _Ctx, action: EndTurn) -> None:
    state = ctx.state
    check_end_turn(state, action.player)
    ender = state.active_player
    ctx.say(f"{ender} ends turn {state.turn}")
    for tank in state.tanks.values():
        if tank.shutdown_until is not None and tank.shutdown_until <= state.turn:
            tank.shutdown_until = None
            ctx.touch(tank.id)
            line = f"{tank_label(tank)} is no longer Shut Down"
            ctx.say(line)
            ctx.result.events.append(Event(kind="shutdown_lifted", clause="YRD-SD1", text=line))
    ctx.result.outcome = {"ended_turn": state.turn, "player": ender}
    if state.turn >= 2 * state.options.turn_limit:
        state.status = "over"
        state.game_over_reason = (
            f"the turn limit: {state.options.turn_limit} rounds played (chapter 12 names no "
            "winner; the wider game decides)"
        )
        line = f"Match over: {state.game_over_reason}"
        ctx.say(line)
        ctx.result.events.append(Event(kind="game_over", text=line))
        return
    state.turn += 1
    _begin_turn(ctx)


# --- the movement phase ------------------------------------------------------------------------


def _move(ctx: _Ctx, action: Move) -> None:
    state = ctx.state
    tank = get_tank(state, action.tank_id)
    check_may_move(state, tank)
    space = destination(state, tank, action)
    check_destination(state, tank, space)
    spot = state.yard(tank.player).tank_spot(space)
    before = tank.space
    tank.space, tank.x, tank.z, tank.moved = space, spot.x, spot.z, True
    if action.facing is not None:
        tank.facing = action.facing
    ctx.touch(tank.id)
    ctx.say(
        f"{tank_label(tank)} moves from its {SPACE_LABEL[before]} space to its "
        f"{SPACE_LABEL[space]} space (YRD-SP1)"
    )
    ctx.result.outcome = {"moved": True, "from": before, "to": space, "x": spot.x, "z": spot.z}


# --- attacks -----------------------------------------------------------------------------------


def damage_tank(ctx: _Ctx, tank: TankState, amount: int, why: str, clause: str) -> None:
    """Damage a tank: HP down (not below 0), Heavily Damaged at 0 (YRD-HP1), Shut Down until
    the end of its owner's next turn (YRD-SD1)."""
    state = ctx.state
    before = tank.hp
    tank.hp = max(0, tank.hp - amount)
    tank.damage_taken += amount
    ctx.touch(tank.id)
    ctx.say(f"{tank_label(tank)} takes {amount} damage ({why}, {clause}): HP {before} → {tank.hp}")
    if tank.hp == 0 and not tank.heavily_damaged:
        tank.heavily_damaged = True
        line = (
            f"{tank_label(tank)} is Heavily Damaged for the rest of the match: it can no longer "
            "go to its Attack space (YRD-HP1)"
        )
        ctx.say(line)
        ctx.result.events.append(Event(kind="heavily_damaged", clause="YRD-HP1", text=line))
    # "Its owning player's next turn": the owner's turn after this one when damaged in its
    # own turn (a critical failure), else the owner's coming turn.
    until = state.turn + (2 if tank.player == state.active_player else 1)
    tank.shutdown_until = max(until, tank.shutdown_until or 0)
    line = (
        f"{tank_label(tank)} is Shut Down until the end of turn {tank.shutdown_until} "
        f"({tank.player}'s next turn): it cannot move or attack (YRD-SD1)"
    )
    ctx.say(line)
    ctx.result.events.append(
        Event(
            kind="shutdown",
            clause="YRD-SD1",
            text=line,
            data={"tank_id": tank.id, "until_turn": tank.shutdown_until},
        )
    )
    ctx.result.rulings.append(
        RulingNote(
            clause="YRD-SD1",
            text="Shut Down lasts to the end of the owner's next turn: its coming turn when "
            "damaged in the enemy's turn, the turn after when damaged in its own; HP does "
            "not go below 0.",
        )
    )


def _sides(state: TableState) -> dict[str, int]:
    return {name: spec.sides for name, spec in state.dice_specs.items()}


def attack_contest(state: TableState, tank: TankState, piece: PieceState) -> contest.Contest:
    return contest.contest_for(
        state.options,
        _sides(state),
        clause="YRD-AT1",
        defender_bonus=state.party(piece.player).defence,
        advantage=False,
        grazing=True,
    )


def anti_tank_contest(state: TableState, target: TankState) -> contest.Contest:
    return contest.contest_for(
        state.options,
        _sides(state),
        clause="YRD-AN1",
        defender_bonus=0,  # "neither side adds modifiers"
        advantage=_advantage(state, target),
        grazing=False,
    )


def _advantage(state: TableState, target: TankState) -> bool:
    return target.space == "attack" and state.options.advantage != "off"


def _throw_text(throws: list[contest.Throw], c: contest.Contest) -> str:
    parts = []
    for t in throws:
        off = "/".join(str(r.face) for r in t.offender)
        off_text = f"{c.die} {off}" + (f" (keeps {t.kept})" if len(t.offender) > 1 else "")
        if c.offender_bonus:
            off_text += f" + {c.offender_bonus} = {t.offender_total}"
        def_text = f"{t.defender.face}"
        if c.defender_bonus:
            def_text += f" + {c.defender_bonus} defence = {t.defender_total}"
        parts.append(f"{off_text} vs {def_text}" + (" (tie: again)" if t.verdict is None else ""))
    return "; ".join(parts)


_VERDICT_TEXT = {
    "critical_success": "critical success",
    "win": "hit",
    "graze": "grazing hit",
    "lose": "the defender wins",
    "critical_failure": "critical failure",
}


def _attack(ctx: _Ctx, action: Attack) -> None:
    state = ctx.state
    tank = get_tank(state, action.tank_id)
    check_attack(state, tank)
    piece = attack_target(state, tank, action.target_id)
    c = attack_contest(state, tank, piece)
    throws = contest.roll(ctx.bag, c, tank_label(tank), piece_label(piece))
    verdict = throws[-1].verdict
    assert verdict is not None
    tank.attacked = True
    ctx.touch(tank.id)
    ctx.result.modifiers.extend(contest.modifiers(c, piece.player))
    ctx.result.rulings.extend(contest.rulings(c, state.options, advantage=False))
    ctx.say(
        f"{tank_label(tank)} attacks {piece_label(piece)} on {tank.player}'s artillery space "
        f"{piece.artillery}: {_throw_text(throws, c)}: {_VERDICT_TEXT[verdict]} (YRD-AT1)"
    )
    dealt = 0
    rolled = 0
    if verdict in contest.SUCCESS:
        dice = ctx.bag.roll(DAMAGE_DIE, 2, "for damage (2d6)")
        rolled = sum(r.face for r in dice)
        if verdict == "critical_success":
            dealt = 2 * rolled
            how = f"2d6 = {rolled}, doubled (critical success) = {dealt}"
            ctx.result.modifiers.append(
                Modifier(clause="YRD-AT1", label="critical success: double damage",
                         amount=rolled, applies_to="damage")
            )  # fmt: skip
        elif verdict == "graze":
            dealt = contest.halve(rolled, state.options.grazing_rounding)
            how = f"2d6 = {rolled}, halved (grazing hit) = {dealt}"
            ctx.result.modifiers.append(
                Modifier(clause="YRD-AT1", label="grazing hit: half damage",
                         amount=dealt - rolled, applies_to="damage",
                         ruling=f"rounded {state.options.grazing_rounding}")
            )  # fmt: skip
        else:
            dealt = rolled
            how = f"2d6 = {rolled}"
        piece.damage_taken += dealt
        if piece.hp is not None:
            piece.hp -= dealt
        ctx.touch(piece.id)
        hp_text = (
            f", HP {max(piece.hp, 0)}/{piece.card.hp}"
            if piece.hp is not None and piece.card.hp is not None
            else ""
        )
        ctx.say(f"{piece_label(piece)} takes {dealt} damage ({how}){hp_text}")
        if piece.down:
            line = f"{piece_label(piece)} is Down (0 HP): no longer a target"
            ctx.say(line)
            ctx.result.events.append(Event(kind="piece_down", clause="YRD-AT1", text=line))
            ctx.result.rulings.append(
                RulingNote(
                    clause="YRD-AT1",
                    text="A piece whose card gives HP is Down at 0 HP and is no longer a target "
                    "(the wider game says what else that means).",
                )
            )
    elif verdict == "critical_failure":
        damage_tank(ctx, tank, 1, "its own critical failure", "YRD-AT1")
        ctx.result.rulings.append(
            RulingNote(
                clause="YRD-AT1",
                text="A critical failure on the Attack space also fails the attack.",
            )
        )
    ctx.result.outcome = {
        "shooter": tank.id,
        "target": piece.id,
        "attack": "artillery",
        "verdict": verdict,
        "hit": verdict in contest.SUCCESS,
        "damage_rolled": rolled,
        "damage": dealt,
        "self_damage": 1 if verdict == "critical_failure" else 0,
        "offender_total": throws[-1].offender_total,
        "defender_total": throws[-1].defender_total,
    }


def _anti_tank(ctx: _Ctx, action: AntiTank) -> None:
    state = ctx.state
    tank = get_tank(state, action.tank_id)
    check_anti_tank(state, tank)
    target = anti_tank_target(state, tank, action.target_id)
    tank.attacked = True
    ctx.touch(tank.id)
    base = {"shooter": tank.id, "target": target.id, "attack": "anti_tank"}
    if target.space == "shield":  # only reached with the shield option "auto_fail"
        ctx.say(
            f"{tank_label(tank)} attacks {tank_label(target)}, which is on its Shield space: "
            "the attack fails automatically (YRD-SH1)"
        )
        ctx.result.rulings.append(
            RulingNote(
                clause="YRD-SH1",
                text="An Anti-tank attack on a tank on its Shield space fails automatically and "
                "spends the attack.",
                option="shield",
                value="auto_fail",
            )
        )
        ctx.result.outcome = {**base, "verdict": "auto_fail", "hit": False, "damage": 0}
        return
    advantage = _advantage(state, target)
    c = anti_tank_contest(state, target)
    throws = contest.roll(ctx.bag, c, tank_label(tank), tank_label(target))
    verdict = throws[-1].verdict
    assert verdict is not None
    ctx.result.modifiers.extend(contest.modifiers(c, target.player))
    ctx.result.rulings.extend(contest.rulings(c, state.options, advantage=advantage))
    adv = " with advantage (its Attack space)" if advantage else ""
    ctx.say(
        f"{tank_label(tank)} attacks {tank_label(target)}{adv}: {_throw_text(throws, c)}: "
        f"{_VERDICT_TEXT[verdict]} (YRD-AN1)"
    )
    dealt = {"critical_success": 2, "win": 1, "graze": 1}.get(verdict, 0)
    if dealt:
        damage_tank(ctx, target, dealt, _VERDICT_TEXT[verdict], "YRD-AN1")
    elif verdict == "critical_failure":
        damage_tank(ctx, tank, 1, "its own critical failure", "YRD-AN1")
    ctx.result.outcome = {
        **base,
        "verdict": verdict,
        "hit": dealt > 0,
        "advantage": advantage,
        "damage": dealt,
        "self_damage": 1 if verdict == "critical_failure" else 0,
        "offender_total": throws[-1].offender_total,
        "defender_total": throws[-1].defender_total,
    }


# --- what may this unit do now ------------------------------------------------------------------


KINDS = ("move", "attack", "anti_tank", "end_turn")


def options_for(state: TableState, unit_id: str, *, odds: bool = True) -> list[Option]:
    """What ``unit_id`` may do now, each refusal with its code and clause. Changes nothing.

    ``odds``: give each target the exact odds of the contest (for menus); the self-play bots
    skip them."""
    from tankref.rulesets.yrd import odds as yard_odds  # odds builds on this module

    if unit_id in state.pieces:
        try:
            get_tank(state, unit_id)
        except RulesError as err:
            return [Option(k, False, err.code, err.clause, err.message) for k in KINDS]
    tank = get_tank(state, unit_id)

    def move_check() -> dict[str, Any]:
        check_may_move(state, tank)
        spaces, refused = [], []
        for space in TANK_SPACES:
            if space == tank.space:
                continue
            try:
                check_destination(state, tank, space)
            except RulesError as err:
                refused.append({"space": space, "code": err.code, "clause": err.clause})
                continue
            spot = state.yard(tank.player).tank_spot(space)
            spaces.append({"space": space, "x": spot.x, "z": spot.z})
        if not spaces:
            raise RulesError("NO_SPACE", "YRD-SP1", f"{tank_label(tank)} has nowhere to move")
        return {"from": tank.space, "spaces": spaces, "refused": refused}

    def attack_check() -> dict[str, Any]:
        check_attack(state, tank)
        targets = []
        for piece in sorted(state.pieces.values(), key=lambda p: p.id):
            try:
                attack_target(state, tank, piece.id)
            except RulesError:
                continue
            entry: dict[str, Any] = {"target_id": piece.id, "artillery": piece.artillery}
            if odds:
                entry.update(yard_odds.attack_odds(state, tank, piece).brief())
            targets.append(entry)
        if not targets:
            raise RulesError(
                "NO_TARGETS",
                "YRD-AT1",
                f"no enemy piece stands on {tank.player}'s artillery spaces",
            )
        return {"targets": targets}

    def anti_tank_check() -> dict[str, Any]:
        check_anti_tank(state, tank)
        targets = []
        first: RulesError | None = None
        for other in sorted(state.tanks.values(), key=lambda t: t.id):
            if other.player == tank.player:
                continue
            try:
                anti_tank_target(state, tank, other.id)
            except RulesError as err:
                first = first or err
                continue
            entry: dict[str, Any] = {"target_id": other.id, "space": other.space}
            if other.space == "shield":
                entry["auto_fail"] = True
            elif odds:
                entry.update(yard_odds.anti_tank_odds(state, tank, other).brief())
            targets.append(entry)
        if not targets:
            raise first or RulesError("NO_TARGETS", "YRD-AN1", "no enemy tank to attack")
        return {"targets": targets}

    def end_turn_check() -> None:
        check_end_turn(state, tank.player)

    return [
        option("move", move_check),
        option("attack", attack_check),
        option("anti_tank", anti_tank_check),
        option("end_turn", end_turn_check),
    ]
