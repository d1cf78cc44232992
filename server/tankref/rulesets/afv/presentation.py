"""Markers and tooltip text for an AFV unit, in the game's words (distances in the rule's cm,
with the table's inches beside them)."""

from __future__ import annotations

from tankref.rulesets.afv.cards import both
from tankref.rulesets.afv.state import UnitState


def unit_label(unit: UnitState) -> str:
    return f"{unit.name} ({unit.id})"


def markers(unit: UnitState) -> list[str]:
    if unit.destroyed:
        return ["Destroyed"]
    out: list[str] = []
    if unit.carried_by is not None:
        out.append(f"Carried by {unit.carried_by}")
    if unit.ready:
        out.append("Ready")
    if unit.stopped:
        out.append("Stopped")
    if unit.suppressed:
        out.append("Suppressed")
    if unit.direction is not None:
        out.append(f"Direction {unit.direction:03.0f}°")
    if unit.evasive:
        out.append("Evasive")
    if unit.revealed:
        out.append("Revealed")
    if unit.degraded and not unit.infantry:
        out.append("Degraded")
    if unit.immobilised:
        out.append("Stopped for good")
    for index in unit.weapons_lost:
        out.append(f"{unit.card.weapon[index].name} lost")
    return out


def tooltip(unit: UnitState, last: str | None = None) -> str:
    """Short text for a TTS description: the card's lines, status, the last result."""
    card = unit.card
    head = f"{card.name} ({card.unit_class}): move {both(card.move_cm)}"
    if card.slow_move_cm is not None:
        head += f", {both(card.slow_move_cm)} on {'/'.join(card.slow_on)}"
    if not card.infantry:
        head += f", armour {card.armour}"
    lines = [head]
    lines += [f"- {w.line()}" for w in card.weapon]
    status = markers(unit)
    if status:
        lines.append("Status: " + ", ".join(status))
    if last:
        lines.append(f"Last: {last}")
    lines.append(
        'Distances in cm as the rules give them; the table measures inches (1" = 2.54 cm).'
    )
    return "\n".join(lines)
