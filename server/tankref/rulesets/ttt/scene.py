"""TinyTableTopTanks drawn: terrain, smoke rings at their current strength, the objective, and
the line of the latest shot, in the shared scene vocabulary."""

from __future__ import annotations

from tankref.core.results import Result
from tankref.core.scene import LineOfFire, PlayerSide, Ring, SceneParts, TerrainView
from tankref.rulesets.ttt.presentation import tank_label
from tankref.rulesets.ttt.sight import SMOKE_INNER, SMOKE_OUTER
from tankref.rulesets.ttt.state import TableState

_TERRAIN_LABEL = {
    "forest": "Forest",
    "blocking": "Blocking terrain",
    "cover1": "Cover +1",
    "cover2": "Cover +2",
    "hill": "Hill",
}


def scene_parts(state: TableState) -> SceneParts:
    rings: list[Ring] = []
    for screen in state.smoke:
        if screen.strength <= 0:
            continue  # decayed away: nothing to draw
        rings.append(
            Ring(
                id=f"smoke-{screen.id}",
                kind="smoke",
                x=screen.x,
                z=screen.z,
                radius=SMOKE_INNER,
                level=screen.strength,
                owner=screen.owner,
                label=f"{screen.ability} (-{screen.strength})",
            )
        )
        if screen.strength >= 2:  # TTT-SM3: a -2 screen still gives -1 out to 12"
            rings.append(
                Ring(
                    id=f"smoke-{screen.id}-outer",
                    kind="smoke",
                    x=screen.x,
                    z=screen.z,
                    radius=SMOKE_OUTER,
                    level=screen.strength - 1,
                    owner=screen.owner,
                    label=f"{screen.ability} (-{screen.strength - 1})",
                )
            )
    if state.objective is not None:
        rings.append(
            Ring(
                id="objective",
                kind="objective",
                x=state.objective[0],
                z=state.objective[1],
                radius=state.scenario.objective_radius,
                level=0,
                label="Objective",
            )
        )
    return SceneParts(
        area=state.area,
        players=[PlayerSide(id=p.id, edge=p.edge) for p in state.players],
        terrain=[
            TerrainView(
                id=piece.id,
                kind=piece.kind,
                label=piece.name or _TERRAIN_LABEL.get(piece.kind, piece.kind),
                shape=piece.shape,
            )
            for piece in state.terrain.values()
        ],
        rings=rings,
    )


def line_of_fire(state: TableState, result: Result) -> LineOfFire | None:
    """The shot in ``result`` (an Engage, Wait shots included), between the two tanks as they
    stand after it; None when the result fired no shot."""
    shooter = state.tanks.get(str(result.outcome.get("shooter", "")))
    target = state.tanks.get(str(result.outcome.get("target", "")))
    if shooter is None or target is None:
        return None
    if result.outcome.get("destroyed") or target.destroyed:
        what = "destroyed"
    elif result.outcome.get("penetrated"):
        what = "penetrated"
    elif result.outcome.get("hit"):
        what = "hit, no penetration"
    else:
        what = "missed"
    return LineOfFire(
        shooter_id=shooter.id,
        target_id=target.id,
        x1=shooter.x,
        z1=shooter.z,
        x2=target.x,
        z2=target.z,
        label=f"{tank_label(shooter)} → {tank_label(target)}: {what}",
    )
