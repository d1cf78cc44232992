"""TinyTableTopTanks aids: the Movement rings, the arcs and each enemy's line of fire.

Every shape comes from the checks the adjudication runs: the rings from ``movement`` (the
same blockers and the same ``classify`` radii: Movement and twice it, from where the tank
began its phase, TTT-M1/M2), the arcs from the table's arc options (TTT-E2) and the lines
from ``sight.read_line`` and ``combat.check_engage`` (TTT-E1, TTT-CN1, TTT-CV1, TTT-SM3).
"""

from __future__ import annotations

from tankref.core.aids import AidLine, AidRing, Aids, Refusal, arc_wedges, worst_reading
from tankref.core.errors import RulesError
from tankref.rulesets.ttt import combat, movement
from tankref.rulesets.ttt.flow import get_tank
from tankref.rulesets.ttt.presentation import tank_label
from tankref.rulesets.ttt.sight import LineOfFire, read_line
from tankref.rulesets.ttt.state import TableState, TankState

ARC_RADIUS = 8.0  # inches: how far the arc wedges are drawn (the arcs themselves are unbounded)

_READING_CLAUSE = {
    "blocked": "TTT-E1",
    "smoke": "TTT-SM3",
    "heavy": "TTT-CN1",
    "light": "TTT-CN1",
    "cover": "TTT-CV1",
    "clear": "TTT-E1",
}


def aids(state: TableState, tank_id: str) -> Aids:
    """The aids for one tank now; an unknown tank is refused (UNKNOWN_TANK)."""
    tank = get_tank(state, tank_id)
    out = Aids(tank_id=tank.id)
    _rings(state, tank, out)
    if tank.on_board:
        opts = state.options
        out.arcs = arc_wedges(
            tank.x, tank.z, tank.facing, opts.front_arc, opts.rear_arc, ARC_RADIUS, "TTT-E2"
        )
        out.lines = [
            _line(state, tank, other)
            for other in sorted(state.tanks.values(), key=lambda t: t.id)
            if other.player != tank.player and other.on_board
        ]
    return out


def _rings(state: TableState, tank: TankState, out: Aids) -> None:
    try:
        movement.check_may_drive(state, tank)
    except RulesError as err:
        out.move_refused = Refusal.of(err)
        return
    drive = movement.drive_blocker(tank)
    if drive is not None:
        code, clause, why = drive
        out.move_refused = Refusal(
            code=code, clause=clause, message=f"{tank_label(tank)} cannot move: {why}"
        )
        return
    if not tank.on_table:
        edges = ", ".join(movement.entry_edges(state, tank))
        out.notes.append(
            f"TTT-S2: it enters from the {edges} edge; the move is measured from where it "
            f'crosses the edge (Movement {tank.movement:g}", fast {2 * tank.movement:g}")'
        )
        return
    tol = state.options.move_tolerance
    x, z = tank.start_x, tank.start_z
    damaged = " (Engine Damaged: half)" if tank.engine_damaged else ""
    out.move.append(
        AidRing(
            id="normal",
            x=x,
            z=z,
            radius=tank.movement,
            tolerance=tol,
            clause="TTT-M1",
            label=f'Normal Move: up to {tank.movement:g}"{damaged} from where it began its phase',
        )
    )
    fast = movement.fast_blocker(tank)
    if fast is not None:
        code, clause, why = fast
        out.limits.append(Refusal(code=code, clause=clause, message=f"no Move Fast: {why}"))
        return
    out.move.append(
        AidRing(
            id="fast",
            x=x,
            z=z,
            radius=2 * tank.movement,
            tolerance=tol,
            clause="TTT-M2",
            label=f'Move Fast: up to {2 * tank.movement:g}"{damaged}',
        )
    )


def _line(state: TableState, shooter: TankState, target: TankState) -> AidLine:
    line = read_line(state, shooter, target)
    word = worst_reading(
        blocked=not line.visible,
        smoke=line.smoke,
        concealment=line.concealment,
        cover=line.cover,
    )
    refused: Refusal | None = None
    try:
        combat.check_engage(state, shooter.id, target.id)
    except RulesError as err:
        refused = Refusal.of(err)
    return AidLine(
        target_id=target.id,
        x1=shooter.x,
        z1=shooter.z,
        x2=target.x,
        z2=target.z,
        reading=word,
        range=round(line.range, 3),
        clause=_READING_CLAUSE[word],
        label=_describe(line),
        may_fire=refused is None,
        refused=refused,
    )


def _describe(line: LineOfFire) -> str:
    parts: list[str] = []
    if not line.visible:
        parts.append(f"blocked by {line.blocked_by}")
    if line.smoke:
        parts.append(f"smoke -{line.smoke}")
    if line.concealment:
        heavy = "heavy" if line.concealment >= 2 else "light"
        parts.append(f"{heavy} concealment ({line.concealment_why})")
    if line.cover:
        parts.append(f"cover +{line.cover} ({line.cover_why})")
    if line.hull_down:
        parts.append(f"hull-down ({line.hull_down_why})")
    return "; ".join(parts) or "clear"
