"""Markers and tooltip text for a tank, from the table state, in the game's words."""

from __future__ import annotations

from tankref.rulesets.mtc.state import TableState, TankState


def markers(state: TableState, tank: TankState) -> list[str]:
    if tank.destroyed:
        return ["Destroyed"]
    out: list[str] = []
    if tank.moved:
        out.append("Moved")
    if tank.road_bonus_used:
        out.append("Road Bonus")
    if tank.fired:
        out.append("Fired")
    if state.terrain_at(tank.hex) == "town":
        out.append("In Town +1 DEF")
    return out


def tooltip(state: TableState, tank: TankState, last: str | None = None) -> str:
    """Short text for a TTS description: the design line, where it stands, status, last result."""
    d = tank.design
    lines = [
        f"{d.name}: ATTACK {d.attack}, DEFENSE {d.defense}, RANGE {d.range}, MOVE {d.move} "
        f"({d.build_points} BP)",
        f"Hex {tank.hex}: {state.terrain_at(tank.hex)}",
    ]
    status = markers(state, tank)
    if status:
        lines.append("Status: " + ", ".join(status))
    if last:
        lines.append(f"Last: {last}")
    return "\n".join(lines)
