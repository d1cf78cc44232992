"""The tank yard drawn: each party's tank spaces and artillery spaces as rings (the layout a
dropped model snaps to), and the line of the latest attack."""

from __future__ import annotations

from tankref.core.results import Result
from tankref.core.scene import LineOfFire, PlayerSide, Ring, SceneParts
from tankref.rulesets.yrd.state import SPACE_LABEL, TANK_SPACES, TableState


def scene_parts(state: TableState) -> SceneParts:
    radius = state.options.snap_radius
    rings: list[Ring] = []
    for party in state.players:
        yard = state.yard(party.id)
        for space in TANK_SPACES:
            spot = yard.tank_spot(space)
            rings.append(
                Ring(
                    id=f"{party.id}-{space}",
                    kind="tank_space",
                    x=spot.x,
                    z=spot.z,
                    radius=radius,
                    level=0,
                    owner=party.id,
                    label=f"{party.id} {SPACE_LABEL[space]} space",
                )
            )
        for n, spot in enumerate(yard.artillery, start=1):
            rings.append(
                Ring(
                    id=f"{party.id}-artillery-{n}",
                    kind="artillery_space",
                    x=spot.x,
                    z=spot.z,
                    radius=radius,
                    level=0,
                    owner=party.id,
                    label=f"{party.id} artillery space {n}",
                )
            )
    return SceneParts(
        area=state.area,
        players=[PlayerSide(id=p.id) for p in state.players],
        terrain=[],
        rings=rings,
    )


def line_of_fire(state: TableState, result: Result) -> LineOfFire | None:
    """The attack in ``result``, from the tank to its target as they stand after it."""
    shooter = state.tanks.get(str(result.outcome.get("shooter", "")))
    target_id = str(result.outcome.get("target", ""))
    target = state.tanks.get(target_id) or state.pieces.get(target_id)
    if shooter is None or target is None:
        return None
    verdict = str(result.outcome.get("verdict", ""))
    damage = result.outcome.get("damage", 0)
    what = {
        "auto_fail": "fails (Shield)",
        "lose": "missed",
        "critical_failure": "critical failure",
    }.get(verdict, f"{verdict.replace('_', ' ')}, {damage} damage")
    return LineOfFire(
        shooter_id=shooter.id,
        target_id=target.id,
        x1=shooter.x,
        z1=shooter.z,
        x2=target.x,
        z2=target.z,
        label=f"{shooter.name} → {target.name}: {what}",
    )
