"""Setting up the yard (YRD-SP1): a table in setup, each party's one tank placed on one of its
own yard's tank spaces, pieces put down (any time), and the start of the match."""

from __future__ import annotations

from collections.abc import Sequence

from tankref.core.adjudication import refuse
from tankref.core.dice import DiceState
from tankref.core.errors import bad_value, not_found
from tankref.core.flow import NO_TANKS
from tankref.core.geometry import TableArea
from tankref.rulesets.yrd.actions import PlacePiece, PlaceTank, RemoveTank, StartGame
from tankref.rulesets.yrd.cards import CardSet, default_cards
from tankref.rulesets.yrd.context import YardContext
from tankref.rulesets.yrd.presentation import piece_label, tank_label, where
from tankref.rulesets.yrd.state import (
    SPACE_LABEL,
    Options,
    Party,
    PieceState,
    TableState,
    TankState,
    artillery_at,
    default_yard,
    layout_problems,
    space_named_at,
    tank_space_at,
)
from tankref.rulesets.yrd.turns import begin_turn


def with_yards(players: Sequence[Party]) -> tuple[Party, Party]:
    """The parties with every missing yard filled in with the default for its seat."""
    if len(players) != 2:
        bad_value("TWO_PLAYERS", "YRD-SP1", "players: the tank yard is for two parties")
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
        bad_value("TWO_PLAYERS", "YRD-SP1", "players: the two parties need different ids")
    options = options or Options()
    cards = cards or default_cards()
    area = area or TableArea()
    if options.contest_die not in cards.dice:
        bad_value(
            "UNKNOWN_DIE",
            None,
            f"options.contest_die: no die {options.contest_die!r} (known: {', '.join(cards.dice)})",
            field="options.contest_die",
        )
    problems = layout_problems(parties, options.snap_radius, area)
    if problems:
        refuse(
            "BAD_LAYOUT",
            "YRD-SP1",
            "players.yard: " + "; ".join(problems),
            field="players",
            problems=problems,
        )
    ids = [p.id for p in parties]
    first = first_player or ids[0]
    if first not in ids:
        bad_value(
            "UNKNOWN_PLAYER", None, f"first_player: {first!r} is not a party", field="first_player"
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


def _check_player(state: TableState, player: str) -> None:
    if player not in state.order:
        bad_value(
            "UNKNOWN_PLAYER",
            None,
            f"player: {player!r} is not a party at this table ({', '.join(state.order)})",
            field="player",
        )


def place_tank(ctx: YardContext, action: PlaceTank) -> None:
    """YRD-SP1: a party's one tank, on one of its own yard's tank spaces (setup only: the
    dispatch table says so)."""
    state, cards = ctx.state, ctx.cards
    card = cards.tanks.get(action.card)
    if card is None:
        bad_value(
            "UNKNOWN_CARD",
            None,
            f"card: no tank card {action.card!r} (tanks: {', '.join(sorted(cards.tanks))}; "
            f"pieces: {', '.join(sorted(cards.pieces))})",
            field="card",
        )
    _check_player(state, action.player)
    if action.tank_id in state.pieces:
        refuse("ID_IN_USE", None, f"tank_id: {action.tank_id} is a piece", field="tank_id")
    other = state.tank_of(action.player)
    if other is not None and other.id != action.tank_id:
        refuse(
            "ONE_TANK",
            "YRD-SP1",
            f"{action.player} has a tank already ({tank_label(other)}): each party has one",
            field="player",
        )
    space = tank_space_at(state, action.player, action.x, action.z)
    if space is None:
        there = space_named_at(state, action.x, action.z)
        refuse(
            "NOT_ON_A_SPACE",
            "YRD-SP1",
            f"{action.tank_id}: a tank stands on one of its own yard's tank spaces ("
            f"{action.player}'s Shield, Attack or Anti-tank); ({action.x:g}, {action.z:g}) is "
            + (there or "on none of them"),
            field="x",
        )
    spot = state.yard(action.player).tank_spot(space)
    old = state.tanks.get(action.tank_id)
    same_card = old is not None and old.card == card
    tank = TankState(
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
    ctx.add(action.tank_id, tank, "tanks")
    ctx.say(
        f"{action.name or action.tank_id} ({action.player}): {card.name} placed on "
        f"{action.player}'s {SPACE_LABEL[space]} space"
    )


def place_piece(ctx: YardContext, action: PlacePiece) -> None:
    """A piece put down or moved, any time: it stands on the artillery space under it."""
    state, cards = ctx.state, ctx.cards
    card = cards.pieces.get(action.card)
    if card is None:
        bad_value(
            "UNKNOWN_CARD",
            None,
            f"card: no piece card {action.card!r} (pieces: {', '.join(sorted(cards.pieces))})",
            field="card",
        )
    _check_player(state, action.player)
    if action.piece_id in state.tanks:
        refuse("ID_IN_USE", None, f"piece_id: {action.piece_id} is a tank", field="piece_id")
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
    ctx.add(action.piece_id, piece, "pieces")
    ctx.say(f"{piece_label(piece)} is {where(piece)}")


def remove_model(ctx: YardContext, action: RemoveTank) -> None:
    """A model off the table: a piece any time, a tank only during setup (YRD-SP1)."""
    state = ctx.state
    piece = state.pieces.get(action.tank_id)
    tank = state.tanks.get(action.tank_id)
    if piece is not None:
        ctx.forget(action.tank_id)
        ctx.say(f"{piece_label(piece)} left the table")
    elif tank is not None:
        if state.status != "setup":
            refuse(
                "TANK_STAYS",
                "YRD-SP1",
                f"tank_id: {tank_label(tank)} stays in its yard for the match (it cannot be "
                "destroyed: at 0 HP it is Heavily Damaged)",
                field="tank_id",
            )
        ctx.forget(action.tank_id)
        ctx.say(f"{tank_label(tank)} taken off the table")
    else:
        not_found("UNKNOWN_TANK", None, f"tank_id: no model {action.tank_id!r}", field="tank_id")


def start_game(ctx: YardContext, action: StartGame) -> None:
    """YRD-SP1: each party's tank on one of its spaces; the first party's turn begins."""
    state = ctx.state
    missing = [p for p in state.order if state.tank_of(p) is None]
    if missing:
        refuse(
            NO_TANKS,
            "YRD-SP1",
            f"each party needs its tank on one of its spaces first: {', '.join(missing)} has none",
            missing=missing,
        )
    state.status = "playing"
    state.turn = 1
    begin_turn(ctx)
