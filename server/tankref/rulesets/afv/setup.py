"""A table in setup: units placed on it (AFV-UNITS), terrain (AFV-MV3), and the start
(AFV-SEQ1). The dispatch table checks the game is still in setup before any of these."""

from __future__ import annotations

from tankref.core.adjudication import refuse
from tankref.core.dice import DiceState
from tankref.core.errors import bad_value
from tankref.core.flow import NO_TANKS, OFF_TABLE
from tankref.core.geometry import TableArea, normalize_degrees
from tankref.rulesets.afv.actions import PlaceTank, PlaceTerrain, RemoveTank, StartGame
from tankref.rulesets.afv.cards import CardSet, default_cards
from tankref.rulesets.afv.context import AfvContext, get_unit
from tankref.rulesets.afv.presentation import unit_label
from tankref.rulesets.afv.state import AfvOptions, AfvPlayer, TableState, UnitState
from tankref.rulesets.afv.turns import RULING_SEQUENCE, begin_phase


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


def place(ctx: AfvContext, action: PlaceTank) -> None:
    cards = ctx.cards
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
            OFF_TABLE,
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
    ctx.add(unit.id, unit)
    ctx.say(f"{unit_label(unit)} placed for {unit.player} at ({unit.x:.1f}, {unit.z:.1f}).")


def remove(ctx: AfvContext, action: RemoveTank) -> None:
    unit = get_unit(ctx.state, action.tank_id)
    ctx.forget(unit.id)
    ctx.say(f"{unit_label(unit)} taken off the table.")


def place_terrain(ctx: AfvContext, action: PlaceTerrain) -> None:
    ctx.state.terrain[action.piece.id] = action.piece
    ctx.say(f"Terrain {action.piece.id} ({action.piece.kind}) placed.")


def check_start(state: TableState) -> None:
    """Both sides have a unit on the table (the setup guard has run)."""
    for p in state.players:
        if not any(u.player == p.id for u in state.units.values()):
            refuse(NO_TANKS, "AFV-SEQ1", f"{p.id} has no units on the table yet")


def start_game(ctx: AfvContext, action: StartGame) -> None:
    check_start(ctx.state)
    ctx.state.status = "playing"
    ctx.state.turn = 1
    ctx.state.phase = 0
    ctx.rule("AFV-SEQ1", RULING_SEQUENCE)
    ctx.say(f"Turn 1: {ctx.state.active_player} moves and fires first.")
    begin_phase(ctx)
