"""Minimal Tank Combat aids: the hexes a tank may still end its move in, and each enemy's
line of fire.

The hexes are exactly those ``options`` lists and a move accepts: ``movement.check_may_move``,
``movement.reachable_for`` and ``Reachable.ends`` (MTC-MV1, the road bonus of MTC-MV2); the lines
come from ``fire.sight_line`` and ``fire.check_target`` (MTC-LOS1), the reads a shot makes.
"""

from __future__ import annotations

from tankref.core.aids import AidHex, AidHexes, AidLine, Aids, Refusal
from tankref.core.errors import RulesError
from tankref.core.hexgrid import Hex
from tankref.rulesets.mtc import fire, movement
from tankref.rulesets.mtc.context import get_tank
from tankref.rulesets.mtc.state import TableState, TankState


def aids(state: TableState, tank_id: str) -> Aids:
    """The aids for one tank now; an unknown tank is refused (UNKNOWN_TANK)."""
    tank = get_tank(state, tank_id)
    out = Aids(tank_id=tank.id)
    try:
        movement.check_may_move(state, tank)
    except RulesError as err:
        out.move_refused = Refusal.of(err)
    else:
        out.move.append(_reach(state, tank))
    if tank.in_play:
        out.lines = [
            _line(state, tank, other)
            for other in sorted(state.tanks.values(), key=lambda t: t.id)
            if other.player != tank.player and other.in_play
        ]
    return out


def _reach(state: TableState, tank: TankState) -> AidHexes:
    reach = movement.reachable_for(state, tank)
    grid = state.grid
    hexes = []
    for end in reach.ends(state, tank):
        q, r = end["hex"]
        x, z = grid.center(Hex(q, r))
        hexes.append(AidHex(q=q, r=r, x=x, z=z, cost=end["cost"], road=end["road"]))
    road = f", {reach.bonus} more along the road (MTC-MV2)" if reach.road is not None else ""
    return AidHexes(
        id="reach",
        size=grid.radius,
        orientation=grid.orientation,
        hexes=hexes,
        clause="MTC-MV1",
        label=f"MOVE {reach.budget} from hex {tank.start_hex}{road}",
    )


def _line(state: TableState, shooter: TankState, target: TankState) -> AidLine:
    refused: Refusal | None = None
    try:
        fire.check_may_fire(state, shooter)
        line = fire.check_target(state, shooter, target)  # the line the shot itself reads
    except RulesError as err:
        refused = Refusal.of(err)
        line = fire.sight_line(state, shooter.hex, target.hex)
    x1, z1 = state.grid.center(shooter.hex)
    x2, z2 = state.grid.center(target.hex)
    return AidLine(
        target_id=target.id,
        x1=x1,
        z1=z1,
        x2=x2,
        z2=z2,
        reading="clear" if line.clear else "blocked",
        range=line.distance,
        clause="MTC-LOS1",
        label=f"{line.distance} hexes; " + ("clear" if line.clear else "; ".join(line.blocked[0])),
        may_fire=refused is None,
        refused=refused,
    )
