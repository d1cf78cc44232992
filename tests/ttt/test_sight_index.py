"""Lines of fire on a big table (TTT-E1, TTT-CN1, TTT-CV1, TTT-E2, TTT-SM3): with the terrain
and smoke grid index in use, a line reads exactly what looking at every piece reads."""

from __future__ import annotations

import random

from tankref.core.dice import DiceState
from tankref.core.geometry import (
    Circle,
    Polygon,
    TableArea,
    segment_enters,
    segment_point_distance,
)
from tankref.rulesets.ttt.actions import PlaceTank
from tankref.rulesets.ttt.engine import adjudicate, new_table
from tankref.rulesets.ttt.sight import (
    INDEXED,
    SMOKE_OUTER,
    LineOfFire,
    read_line,
    smoke_on_line,
    smoke_strength_at,
)
from tankref.rulesets.ttt.state import SmokeScreen, TableState, TankState, TerrainPiece

KINDS = ("forest", "cover1", "cover2", "hill", "blocking")


def crowded(seed: int) -> TableState:
    """A table with 60 random pieces (circles and triangles) and 20 screens."""
    rng = random.Random(seed)
    pieces: dict[str, TerrainPiece] = {}
    for k in range(60):
        x, z = rng.uniform(-30, 30), rng.uniform(-20, 20)
        if k % 2:
            shape: Circle | Polygon = Circle(x=x, z=z, radius=rng.uniform(0.5, 6))
        else:
            shape = Polygon(points=((x, z), (x + rng.uniform(1, 8), z), (x, z + rng.uniform(1, 8))))
        pieces[f"p{k}"] = TerrainPiece(id=f"p{k}", kind=KINDS[k % 5], shape=shape)
    screens = tuple(
        SmokeScreen(
            id=k,
            owner="Red",
            tank_id="R1",
            ability="pots",
            x=rng.uniform(-36, 36),
            z=rng.uniform(-24, 24),
            strength=rng.choice((1, 2)),
        )
        for k in range(20)
    )
    state = new_table(area=TableArea(), dice=DiceState(seed="index"))
    for tank_id, player, z in (("R1", "Red", -20), ("B1", "Blue", 20)):
        state = adjudicate(
            state, PlaceTank(tank_id=tank_id, card="m4a1-sherman", player=player, x=0, z=z)
        ).state
    return state.model_copy(update={"terrain": pieces, "smoke": screens})


def read_every_piece(state: TableState, shooter: TankState, target: TankState) -> LineOfFire:
    """``read_line`` with the index out of the way: each piece on its own little table (the
    first piece a rule keeps wins ties, so they are read in the table's order)."""
    line = LineOfFire(shooter.pos, target.pos, 0.0)
    for piece in state.terrain.values():
        if not segment_enters(piece.shape, shooter.pos, target.pos):
            continue
        alone = read_line(
            state.model_copy(update={"terrain": {piece.id: piece}, "smoke": ()}), shooter, target
        )
        if not alone.visible and line.visible:
            line.visible, line.blocked_by = False, alone.blocked_by
        if alone.concealment > line.concealment:
            line.concealment, line.concealment_why = alone.concealment, alone.concealment_why
        if alone.cover > line.cover:
            line.cover, line.cover_why = alone.cover, alone.cover_why
        if alone.hull_down and not line.hull_down:
            line.hull_down, line.hull_down_why = True, alone.hull_down_why
    if target.hull_down and not line.hull_down:
        line.hull_down, line.hull_down_why = True, "marked hull-down"
    found = []
    for screen in state.smoke:  # each screen by TTT-SM3's distances
        strength = smoke_strength_at(
            screen, segment_point_distance(shooter.pos, target.pos, (screen.x, screen.z))
        )
        if screen.strength > 0 and strength:
            found.append((screen.id, strength))
    line.smoke = max((s for _, s in found), default=0)  # the default stacking: strongest
    line.smoke_screens = found
    line.range = read_line(state, shooter, target).range
    return line


def test_ttt_e1_a_crowded_table_reads_every_line_as_piece_by_piece() -> None:
    """TTT-E1/TTT-CN1/TTT-CV1/TTT-E2/TTT-SM3: 60 pieces and 20 screens (over the index's
    threshold), 400 random lines: sight, the blocking piece, concealment, cover, hull-down
    and the screens on the line are what reading each piece and screen alone gives."""
    rng = random.Random(7)
    for seed in range(20):
        state = crowded(seed)
        assert len(state.terrain) >= INDEXED and len(state.smoke) >= INDEXED
        for _ in range(20):
            shooter = state.tanks["R1"].model_copy(
                update={"x": rng.uniform(-36, 36), "z": rng.uniform(-24, 24)}
            )
            target = state.tanks["B1"].model_copy(
                update={"x": rng.uniform(-36, 36), "z": rng.uniform(-24, 24)}
            )
            assert read_line(state, shooter, target) == read_every_piece(state, shooter, target)


def test_ttt_sm3_screens_beyond_reach_never_count() -> None:
    """TTT-SM3: on an indexed table a screen farther than 12" from the line is not on it."""
    state = crowded(3)
    far = SmokeScreen(id=99, owner="Red", tank_id="R1", ability="pots", x=0, z=0, strength=2)
    screens = (*state.smoke[:INDEXED], far)
    a, b = (-30.0, SMOKE_OUTER + 0.5), (30.0, SMOKE_OUTER + 0.5)
    _, found = smoke_on_line(screens, a, b, "add")
    assert 99 not in [sid for sid, _ in found]
    _, found = smoke_on_line(screens, (-30.0, SMOKE_OUTER - 0.5), (30.0, SMOKE_OUTER - 0.5), "add")
    assert (99, 1) in found  # within 12": one less than its strength


def test_a_new_line_is_the_dataclass_s_own_blank_line() -> None:
    """``_new_line`` builds a line of fire (TTT-E1's line of sight) without the generated
    ``__init__``; it is the line ``LineOfFire(a, b, range)`` makes, field for field and in
    the same order, and its screen list is its own (a screen appended to one line is on no
    other)."""
    from tankref.core.geometry import distance
    from tankref.rulesets.ttt.sight import LineOfFire, _new_line

    a, b = (1.5, -2.0), (10.0, 7.25)
    made, fresh = _new_line(a, b), LineOfFire(a, b, distance(a, b))
    assert made == fresh
    assert list(vars(made).items()) == list(vars(fresh).items())
    other = _new_line(b, a)
    made.smoke_screens.append((1, 2))
    assert other.smoke_screens == [] and _new_line(a, b).smoke_screens == []
