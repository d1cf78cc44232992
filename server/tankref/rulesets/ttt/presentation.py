"""Markers and tooltip text for a tank, from its state, in the game's words."""

from __future__ import annotations

from tankref.rulesets.ttt.state import TankState


def tank_label(tank: TankState) -> str:
    """How results name a tank: its name and id (a tooltip's last line is found by it)."""
    return f"{tank.name} ({tank.id})"


def markers(tank: TankState) -> list[str]:
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


def tooltip(tank: TankState, last: str | None = None, status: list[str] | None = None) -> str:
    """Short text for a TTS description: card line, crew, status, last result (``status``:
    the tank's ``markers`` when the caller has them already)."""
    card = tank.card
    a = card.armour
    lines = [
        f'{card.name}: Move {card.movement:g}", Acc {card.accuracy}, Pen {card.penetration}, '
        f"Armour F{a.front} S{a.side} R{a.rear} T{a.turret}",
        f"Crew: {tank.crew.capitalize()}"
        + ("" if tank.morale == "ok" else f", {tank.morale.capitalize()}"),
    ]
    if status is None:
        status = markers(tank)
    if status:
        lines.append("Status: " + ", ".join(status))
    if last:
        lines.append(f"Last: {last}")
    return "\n".join(lines)
