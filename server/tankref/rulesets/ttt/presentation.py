"""Markers and tooltip text for a tank, from its state, in the game's words."""

from __future__ import annotations

from operator import itemgetter

from tankref.rulesets.ttt.cards import TankCard
from tankref.rulesets.ttt.state import TankState


def tank_label(tank: TankState) -> str:
    """How results name a tank: its name and id (a tooltip's last line is found by it)."""
    return f"{tank.name} ({tank.id})"


# The fields a tank's markers are read from, all at once from its instance dict (one C call).
# The markers, and the tooltip's lines above its last result (the card's line, the crew and
# the status), are a function of these values and the card alone, so both are kept by them:
# a changed field is another key, never a stale answer (most tanks share a handful of
# statuses, and a change record needs both: a phase's end lists a whole side).
_status_fields = itemgetter(
    "destroyed", "removed", "on_table", "crew", "morale", "moved", "waiting", "immobilized",
    "must_recover", "gun_damage", "optics_damage", "engine_damaged", "turret_jammed", "stunned",
    "hull_down",
)  # fmt: skip
# (status, id of the card) -> (the card, its markers, the tooltip's head). The card is kept
# in the entry, so its id cannot be another card's while the entry lives.
_looks: dict[tuple[tuple[object, ...], int], tuple[TankCard, tuple[str, ...], str]] = {}
_LOOKS = 1024


def view(tank: TankState, last: str | None = None) -> tuple[list[str], str]:
    """Its markers (a list of its own) and its tooltip (``last``: the last result line that
    names it, if any)."""
    card = tank.card
    key = (_status_fields(tank.__dict__), id(card))
    known = _looks.get(key)
    if known is None:
        if len(_looks) >= _LOOKS:
            _looks.clear()
        status = _markers(tank)
        known = _looks[key] = (card, tuple(status), _tooltip_head(tank, status))
    head = known[2]
    return list(known[1]), f"{head}\nLast: {last}" if last else head


def markers(tank: TankState) -> list[str]:
    """Its status markers, in the order a front end shows them (``_markers``)."""
    return view(tank)[0]


def tooltip(tank: TankState, last: str | None = None) -> str:
    """Short text for a TTS description: card line, crew, status, last result."""
    return view(tank, last)[1]


def _markers(tank: TankState) -> list[str]:
    """Its markers worked out from its fields (each read is in ``_status_fields``)."""
    out: list[str] = []
    if tank.destroyed:
        return ["Destroyed"]
    if tank.removed:
        return ["Off Table"]
    if not tank.on_table:
        out.append("Reserve")
    if tank.grizzled:
        out.append("Grizzled")
    if tank.morale == "shaken":
        out.append("Shaken")
    elif tank.morale == "routed":
        out.append("Routed")
    if tank.moved == "fast":
        out.append("Moving Fast")
    if tank.waiting:
        out.append("Wait")
    if tank.immobilized:
        out.append("Immobilized")
    if tank.must_recover:
        out.append("Must Recover")
    if tank.gun_damage:
        out.append("Gun Damaged" + (f" x{tank.gun_damage}" if tank.gun_damage > 1 else ""))
    if tank.optics_damage:
        out.append("Optics Damaged" + (f" x{tank.optics_damage}" if tank.optics_damage > 1 else ""))
    if tank.engine_damaged:
        out.append("Engine Damaged")
    if tank.turret_jammed:
        out.append("Turret Jammed")
    if tank.stunned != "no":
        out.append("Crew Stunned")
    if tank.hull_down:
        out.append("Hull Down")
    return out


# id of a tank card -> (the card, its tooltip line). A card is a frozen snapshot that every
# tooltip of its tanks repeats: the line is written once per card, not once per result.
_card_lines: dict[int, tuple[TankCard, str]] = {}
_CARD_LINES = 512


def card_line(card: TankCard) -> str:
    """The card's tooltip line: Move, Accuracy, Penetration and armour."""
    known = _card_lines.get(id(card))
    if known is not None and known[0] is card:
        return known[1]
    a = card.armour
    line = (
        f'{card.name}: Move {card.movement:g}", Acc {card.accuracy}, Pen {card.penetration}, '
        f"Armour F{a.front} S{a.side} R{a.rear} T{a.turret}"
    )
    if len(_card_lines) >= _CARD_LINES:
        _card_lines.pop(next(iter(_card_lines)))  # the oldest
    _card_lines[id(card)] = (card, line)
    return line


def _tooltip_head(tank: TankState, status: list[str]) -> str:
    """The tooltip's lines above its last result (``status``: its markers): each read is
    the card or in ``_status_fields``."""
    # one line each, written straight into one string (no list of lines to join)
    text = f"{card_line(tank.card)}\nCrew: {tank.crew.capitalize()}"
    if tank.morale != "ok":
        text += f", {tank.morale.capitalize()}"
    if status:
        text += "\nStatus: " + ", ".join(status)
    return text
