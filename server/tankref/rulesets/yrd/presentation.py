"""Markers and tooltip text for tanks and pieces, in the game's words."""

from __future__ import annotations

from tankref.core.ruleset import TankView
from tankref.rulesets.yrd.state import SPACE_LABEL, PieceState, TableState, TankState


def tank_label(tank: TankState) -> str:
    return f"{tank.name} ({tank.player})"


def piece_label(piece: PieceState) -> str:
    return f"{piece.name} ({piece.player})"


def where(piece: PieceState) -> str:
    if piece.homefield is None:
        return "off the artillery spaces"
    return f"on {piece.homefield}'s artillery space {piece.artillery}"


def tank_markers(tank: TankState) -> list[str]:
    out = [f"{SPACE_LABEL[tank.space]} space", f"HP {tank.hp}/{tank.card.hp}"]
    if tank.heavily_damaged:
        out.append("Heavily Damaged")
    if tank.shutdown:
        out.append("Shutdown")
    return out


def piece_markers(piece: PieceState) -> list[str]:
    out = ["Piece"]
    if piece.homefield is not None:
        out.append(f"Artillery {piece.artillery} ({piece.homefield})")
    if piece.hp is not None and piece.card.hp is not None:
        out.append(f"HP {max(piece.hp, 0)}/{piece.card.hp}")
    elif piece.damage_taken:
        out.append(f"Damage {piece.damage_taken}")
    if piece.down:
        out.append("Down")
    return out


def tank_tooltip(tank: TankState, last: str | None = None) -> str:
    lines = [
        f"{tank.card.name}: HP {tank.hp}/{tank.card.hp}, on its {SPACE_LABEL[tank.space]} space"
    ]
    status: list[str] = ["Heavily Damaged"] if tank.heavily_damaged else []
    if tank.shutdown:
        status.append(f"Shutdown (until the end of turn {tank.shutdown_until})")
    if status:
        lines.append("Status: " + ", ".join(status))
    if last:
        lines.append(f"Last: {last}")
    return "\n".join(lines)


def piece_tooltip(piece: PieceState, last: str | None = None) -> str:
    hp = (
        f"HP {max(piece.hp, 0)}/{piece.card.hp}"
        if piece.hp is not None and piece.card.hp is not None
        else f"damage from tanks {piece.damage_taken} (HP kept by the players)"
    )
    lines = [f"{piece.card.name}: {hp}, {where(piece)}"]
    if piece.down:
        lines.append("Status: Down")
    if last:
        lines.append(f"Last: {last}")
    return "\n".join(lines)


def unit_views(state: TableState, ids: list[str] | None = None) -> list[TankView]:
    """Tanks and pieces as front ends draw them (both are models on the table)."""
    wanted = sorted([*state.tanks, *state.pieces]) if ids is None else ids
    views: list[TankView] = []
    for unit_id in wanted:
        tank = state.tanks.get(unit_id)
        if tank is not None:
            views.append(
                TankView(
                    tank_id=tank.id,
                    name=tank.name,
                    card=tank.card.id,
                    player=tank.player,
                    x=tank.x,
                    z=tank.z,
                    facing=tank.facing,
                    on_table=True,
                    in_play=True,  # a tank is never destroyed: it ends Heavily Damaged
                    markers=tank_markers(tank),
                    tooltip=tank_tooltip(tank),
                )
            )
            continue
        piece = state.pieces.get(unit_id)
        if piece is not None:
            views.append(
                TankView(
                    tank_id=piece.id,
                    name=piece.name,
                    card=piece.card.id,
                    player=piece.player,
                    x=piece.x,
                    z=piece.z,
                    facing=piece.facing,
                    on_table=True,
                    in_play=not piece.down,
                    markers=piece_markers(piece),
                    tooltip=piece_tooltip(piece),
                )
            )
    return views
