"""Setup: tanks, terrain, the objective, crews (TTT-S1..S3, TTT-C1)."""

from __future__ import annotations

from typing import Any

from tankref.core import flow
from tankref.core.adjudication import refuse
from tankref.core.errors import bad_value
from tankref.core.geometry import distance
from tankref.rulesets.ttt.actions import CrewRoll, PlaceTank, PlaceTerrain, RemoveTank, SetObjective
from tankref.rulesets.ttt.adjudication import Context
from tankref.rulesets.ttt.cards import MORALE_DIE
from tankref.rulesets.ttt.flow import get_tank
from tankref.rulesets.ttt.presentation import tank_label
from tankref.rulesets.ttt.state import TankState

GRIZZLED_ON = 6  # TTT-C1: a 6 (after the card's modifier) makes the crew Grizzled


# Each handler here runs during setup only: the dispatch table's guard (``engine``) says so.


def do_place_tank(ctx: Context, action: PlaceTank) -> None:
    state = ctx.state
    card = ctx.cards.tank(action.card)
    if card is None:
        bad_value("UNKNOWN_CARD", None, f"card: no tank card {action.card!r}", field="card")
    ids = [p.id for p in state.players]
    if action.player not in ids:
        bad_value(
            "UNKNOWN_PLAYER",
            None,
            f"player: {action.player!r} is not at this table ({', '.join(ids)})",
            field="player",
        )
    point = (action.x, action.z)
    edge = state.player(action.player).edge
    scenario = state.scenario
    reserve = action.reserve
    if scenario.kind == "ambush" and action.player == scenario.ambusher and not reserve:
        refuse(
            "AMBUSHER_OFF_TABLE",
            "TTT-S2",
            "the ambusher's tanks stay off the table until turn two (reserve = true)",
        )
    if scenario.kind == "objective" and action.player != scenario.defender and not reserve:
        refuse(
            "ATTACKER_ENTERS",
            "TTT-S3",
            "the attacker enters from its edge on turn one (reserve = true)",
        )
    if not reserve:
        if not state.area.contains(point):
            refuse(
                flow.OFF_TABLE,
                "TTT-S1",
                f"({action.x:g}, {action.z:g}) is off the table",
                field="x",
            )
        if scenario.kind == "objective" and action.player == scenario.defender:
            if state.objective is None:
                refuse("OBJECTIVE_NOT_SET", "TTT-S3", "place the objective before the defenders")
            if distance(point, state.objective) > scenario.objective_radius:
                refuse(
                    "DEPLOY_ZONE",
                    "TTT-S3",
                    f'defenders deploy around the objective, within {scenario.objective_radius:g}"',
                    field="x",
                )
            ctx.rule(
                "TTT-S3",
                f'the defensive array is within {scenario.objective_radius:g}" of the objective',
            )
        else:
            depth = state.area.distance_to_edge(edge, point)
            if depth > state.options.deploy_depth:
                refuse(
                    "DEPLOY_ZONE",
                    "TTT-S1",
                    f"{action.player} deploys along the {edge} edge: within "
                    f'{state.options.deploy_depth:g}" of it, not {depth:.1f}"',
                    field="z",
                )
            ctx.rule(
                "TTT-S1", f'deployment along the own edge: within {state.options.deploy_depth:g}"'
            )
    old = state.tanks.get(action.tank_id)
    tank = TankState(
        id=action.tank_id,
        name=action.name or card.name,
        player=action.player,
        card=card,
        x=action.x,
        z=action.z,
        facing=action.facing % 360,
        hull_down=action.hull_down,
        on_table=not reserve,
        entered_edge=edge,
        start_x=action.x,
        start_z=action.z,
        start_facing=action.facing % 360,
    )
    if old is not None and old.card.id == card.id and old.player == action.player:
        tank.crew, tank.crew_roll = old.crew, old.crew_roll  # re-placing keeps the rolled crew
    ctx.add(tank.id, tank)
    where = (
        "in reserve, off the table"
        if reserve
        else f"at ({action.x:g}, {action.z:g}) facing {tank.facing:g}°"
    )
    named = "" if tank.name == card.name else f" ({card.name})"  # a renamed tank: say its card
    ctx.say(f"{tank_label(tank)}{named} for {action.player}, {where}.")


def do_remove_tank(ctx: Context, action: RemoveTank) -> None:
    tank = get_tank(ctx.state, action.tank_id)
    ctx.forget(tank.id)  # reported as removed in the result's changes
    ctx.say(f"{tank_label(tank)} is taken off the table.")


def do_place_terrain(ctx: Context, action: PlaceTerrain) -> None:
    terrain = dict(ctx.state.terrain)
    terrain[action.piece.id] = action.piece
    ctx.state.terrain = terrain
    ctx.say(f"Terrain {action.piece.id} ({action.piece.kind}) placed.")


def do_set_objective(ctx: Context, action: SetObjective) -> None:
    state = ctx.state
    if state.scenario.kind != "objective":
        refuse("NOT_OBJECTIVE_GAME", "TTT-S3", "only the Objective scenario has an objective")
    if not state.area.contains((action.x, action.z)):
        refuse(flow.OFF_TABLE, "TTT-S3", "the objective must be on the table", field="x")
    state.objective = (action.x, action.z)
    ctx.say(f"Objective placed at ({action.x:g}, {action.z:g}).")


def do_crew_roll(ctx: Context, action: CrewRoll) -> None:
    state = ctx.state
    if action.tank_id is not None:
        tank = get_tank(state, action.tank_id)
        if tank.crew != "unknown":
            refuse(
                "CREW_ALREADY_ROLLED", "TTT-C1", f"{tank_label(tank)}'s crew is already {tank.crew}"
            )
        todo = [tank]
    else:
        todo = sorted((t for t in state.tanks.values() if t.crew == "unknown"), key=lambda t: t.id)
        if not todo:
            refuse("CREW_ALREADY_ROLLED", "TTT-C1", "every crew has been rolled")
    crews: list[dict[str, Any]] = []
    for tank in todo:
        t = ctx.edit(tank.id)
        crew = t.card.crew
        if crew.grizzled:
            t.crew = "grizzled"
            ctx.say(f"{tank_label(t)}: Grizzled crew (its card).")
            ctx.event(
                "crew",
                "TTT-C1",
                f"{tank_label(t)} is Grizzled by its card",
                tank_id=t.id,
                crew="grizzled",
            )
            crews.append({"tank_id": t.id, "crew": "grizzled", "by_card": True})
            continue
        roll = ctx.bag.roll(MORALE_DIE, 1, f"for the crew of {tank_label(t)}")[0]
        total = roll.face + crew.modifier
        if crew.modifier:
            ctx.modifier("TTT-C1", f"{t.card.name} crew modifier", crew.modifier, "crew_roll")
        t.crew_roll = total
        t.crew = "grizzled" if total >= GRIZZLED_ON else "scared"
        mod = f" {crew.modifier:+d} = {total}" if crew.modifier else ""
        ctx.say(f"{tank_label(t)}: crew roll {roll.face}{mod}: {t.crew.capitalize()}.")
        ctx.event(
            "crew", "TTT-C1", f"{tank_label(t)} is {t.crew}", tank_id=t.id, crew=t.crew, roll=total
        )
        crews.append(
            {
                "tank_id": t.id,
                "crew": t.crew,
                "by_card": False,
                "face": roll.face,
                "modifier": crew.modifier,
                "total": total,
            }
        )
    # The structured outcome: each crew rolled, its type and the roll behind it (TTT-C1).
    ctx.result.outcome["crews"] = crews
