"""Setting up a Minimal Tank Combat table: the designs (MTC-BP1), the map and its terrain
(MTC-HEX1, the players' own per rules 5.0), and the tanks placed in their hexes.

Every action here is taken during setup only; the dispatch table (``engine``) guards that
with the core's flow codes before a handler runs.
"""

from __future__ import annotations

from collections.abc import Sequence

from tankref.core.adjudication import refuse
from tankref.core.dice import DiceState
from tankref.core.errors import bad_value
from tankref.core.flow import OFF_TABLE
from tankref.core.geometry import TableArea, bounding_radius, contains, shape_center
from tankref.core.hexgrid import Hex, HexGrid
from tankref.rulesets.mtc.actions import PlaceTank, PlaceTerrain, RemoveTank, SetObjective
from tankref.rulesets.mtc.cards import CardSet, Design, default_cards, design_problems
from tankref.rulesets.mtc.context import TableContext, get_tank, label
from tankref.rulesets.mtc.rules import MOVE_COST, RULING_STACKING
from tankref.rulesets.mtc.state import (
    HexTerrain,
    Options,
    TableState,
    TankState,
    TerrainPiece,
    terrain_map,
)

MAX_PIECE_HEXES = 2000


def bad_designs(designs: Sequence[Design], max_bp: int) -> list[tuple[str, str]]:
    """Every problem of every design (MTC-BP1), as (field path, problem)."""
    out: list[tuple[str, str]] = []
    seen: set[str] = set()
    for index, design in enumerate(designs):
        for where, problem in design_problems(design, max_bp):
            path = f"designs.{index}" + ("" if where == "(design)" else f".{where}")
            out.append((path, f"{design.id}: {problem}"))
        if design.id in seen:
            out.append((f"designs.{index}.id", f"{design.id}: the id is used twice"))
        seen.add(design.id)
    return out


def new_table(
    players: tuple[str, str] = ("Red", "Blue"),
    *,
    grid: HexGrid | None = None,
    area: TableArea | None = None,
    terrain: Sequence[HexTerrain] = (),
    designs: Sequence[Design] = (),
    options: Options | None = None,
    cards: CardSet | None = None,
    dice: DiceState | None = None,
) -> TableState:
    """A table in setup; ``designs`` are the table's own, added to the shipped ones."""
    options = options or Options()
    if players[0] == players[1]:
        bad_value("TWO_PLAYERS", "MTC-INI1", "players: the two players need different ids")
    problems = bad_designs(designs, options.max_bp)
    if problems:
        refuse(
            "BAD_DESIGN",
            "MTC-BP1",
            f"{len(problems)} design problem(s): " + "; ".join(p for _, p in problems),
            problems=[{"field": f, "problem": p} for f, p in problems],
        )
    cards = cards or default_cards()
    # The shipped designs are held to the table's ceiling too (MTC-BP1): those above it are
    # not fielded here; placing one is refused naming its cost.
    shipped = {k: d for k, d in cards.designs.items() if d.build_points <= options.max_bp}
    state = TableState(
        players=players,
        grid=grid or HexGrid(),
        area=area or TableArea(),
        options=options,
        designs={**shipped, **{d.id: d for d in designs}},
        die=cards.die,
        setup_terrain=tuple(terrain),
        dice=dice or DiceState(),
    )
    state.terrain = dict(terrain_map(state.setup_terrain, {}))
    return state


# --- handlers ------------------------------------------------------------------------------


def place_tank(ctx: TableContext, action: PlaceTank) -> None:
    state = ctx.state
    if action.reserve:
        refuse(
            "NO_RESERVE",
            None,
            "reserve: Minimal Tank Combat has no reserve; every tank starts on the map",
            field="reserve",
        )
    design = state.designs.get(action.design)
    over = default_cards().designs.get(action.design)
    if design is None and over is not None and over.build_points > state.options.max_bp:
        refuse(
            "DESIGN_OVER_BP",
            "MTC-BP1",
            f"card: {over.name} ({over.id}) costs {over.build_points} BP, more than this "
            f"table's {state.options.max_bp} BP (max_bp)",
            field="card",
        )
    if design is None:
        bad_value(
            "UNKNOWN_CARD",
            "MTC-BP1",
            f"card: no design {action.design!r} (known: {', '.join(sorted(state.designs))})",
            field="card",
        )
    if action.player not in state.players:
        bad_value(
            "UNKNOWN_PLAYER",
            None,
            f"player: {action.player!r} is not a player here ({' or '.join(state.players)})",
            field="player",
        )
    h = state.grid.hex_at(action.x, action.z)
    if not state.on_map(h):
        refuse(OFF_TABLE, "MTC-HEX1", f"({action.x:g}, {action.z:g}) is hex {h}, off the map")
    kind = state.terrain_at(h)
    if MOVE_COST[kind] is None:
        refuse("NO_ENTRY", "MTC-MV1", f"hex {h} is a {kind}: no tank may stand there")
    other = state.tank_at(h)
    if other is not None and other.id != action.tank_id:
        refuse(
            "HEX_OCCUPIED",
            "MTC-MV1",
            f"hex {h} already holds {label(other)} (ruling: {RULING_STACKING})",
        )
    old = state.tanks.get(action.tank_id)
    tank = ctx.add(
        action.tank_id,
        TankState(
            id=action.tank_id,
            name=action.name or (old.name if old else action.tank_id),
            player=action.player,
            design=design,
            q=h.q,
            r=h.r,
            start_q=h.q,
            start_r=h.r,
            facing=action.facing,
        ),
    )
    ctx.say(f"{label(tank)}, {design.name} ({design.line()}), placed in hex {h} ({kind})")
    ctx.snap(tank)


def remove_tank(ctx: TableContext, action: RemoveTank) -> None:
    tank = get_tank(ctx.state, action.tank_id)
    ctx.forget(tank.id)
    ctx.say(f"{label(tank)} taken off the table")


def _footprint_hexes(state: TableState, action: PlaceTerrain) -> list[Hex]:
    if action.hexes is not None:
        return [Hex(q, r) for q, r in action.hexes]
    shape = action.shape
    assert shape is not None
    cx, cz = shape_center(shape)
    reach = bounding_radius(shape)
    area = state.area
    # Only the part on the map matters; refuse a footprint of absurdly many hexes up front.
    x0, x1 = max(cx - reach, area.x_min), min(cx + reach, area.x_max)
    z0, z1 = max(cz - reach, area.z_min), min(cz + reach, area.z_max)
    hex_area = state.grid.hex_width**2 * 0.8660254
    if x0 <= x1 and z0 <= z1 and (x1 - x0 + 2) * (z1 - z0 + 2) / hex_area > MAX_PIECE_HEXES:
        refuse(
            "PIECE_TOO_BIG",
            "MTC-HEX1",
            f"shape: the piece would cover more than {MAX_PIECE_HEXES} hexes",
            field="shape",
        )
    found = []
    if x0 <= x1 and z0 <= z1:
        found = [
            h for h in state.grid.hexes_in(x0, x1, z0, z1) if contains(shape, state.grid.center(h))
        ]
    if not found:  # a piece smaller than a hex still covers the hex it sits in
        found = [state.grid.hex_at(cx, cz)]
    return found


def place_terrain(ctx: TableContext, action: PlaceTerrain) -> None:
    state = ctx.state
    hexes = [h for h in _footprint_hexes(state, action) if state.on_map(h)]
    if not hexes:
        refuse(OFF_TABLE, "MTC-HEX1", "the terrain piece covers no hex of the map")
    if MOVE_COST[action.terrain] is None:
        for h in hexes:
            other = state.tank_at(h)
            if other is not None:
                refuse(
                    "NO_ENTRY",
                    "MTC-MV1",
                    f"hex {h} holds {label(other)}: it cannot become a {action.terrain}",
                )
    pieces = dict(state.pieces)
    pieces.pop(action.piece_id, None)  # moved: it goes to the end (the latest piece wins)
    pieces[action.piece_id] = TerrainPiece(
        id=action.piece_id,
        kind=action.terrain,
        hexes=tuple((h.q, h.r) for h in hexes),
        name=action.name,
    )
    state.pieces = pieces
    state.terrain = dict(terrain_map(state.setup_terrain, pieces))
    listed = ", ".join(str(h) for h in hexes[:8]) + (" ..." if len(hexes) > 8 else "")
    ctx.say(f"{action.terrain.capitalize()} ({action.piece_id}) covers hex(es) {listed}")
    ctx.result.outcome = {"hexes": [[h.q, h.r] for h in hexes], "terrain": action.terrain}


def no_objective(ctx: TableContext, action: SetObjective) -> None:
    refuse(
        "NO_OBJECTIVE",
        None,
        "Minimal Tank Combat has no objective marker: the players agree their own "
        "victory conditions (rules 5.0); the referee ends the game when a side has "
        "no tanks left or at the turn limit",
    )
