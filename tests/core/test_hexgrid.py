"""The core hex grid: positions to hexes, distance, lines (with the edge ties) and paths."""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tankref.core.hexgrid import (
    DIRECTIONS,
    Hex,
    HexGrid,
    hex_distance,
    hex_line,
    hex_lines,
    neighbours,
    path_to,
    reachable,
)

coords = st.integers(min_value=-40, max_value=40)
hexes = st.builds(Hex, coords, coords)
grids = st.builds(
    HexGrid,
    hex_width=st.floats(min_value=0.5, max_value=6.0),
    orientation=st.sampled_from(["pointy", "flat"]),
    origin_x=st.floats(min_value=-30, max_value=30),
    origin_z=st.floats(min_value=-30, max_value=30),
)


def test_neighbours_are_one_step_away_and_six() -> None:
    h = Hex(3, -2)
    ring = neighbours(h)
    assert len(set(ring)) == 6
    assert all(hex_distance(h, n) == 1 for n in ring)


def test_distance_is_the_largest_cube_difference() -> None:
    assert hex_distance(Hex(0, 0), Hex(3, 0)) == 3
    assert hex_distance(Hex(0, 0), Hex(2, -5)) == 5
    assert hex_distance(Hex(-1, 2), Hex(2, -1)) == 3
    assert hex_distance(Hex(0, 0), Hex(2, 2)) == 4  # cube (2, 2, -4)


@given(grids, hexes)
def test_a_hex_centre_maps_back_to_its_hex(grid: HexGrid, h: Hex) -> None:
    x, z = grid.center(h)
    assert grid.hex_at(x, z) == h


@given(grids, hexes, st.floats(0, 0.95), st.floats(0, 360))
def test_points_inside_the_inscribed_circle_belong_to_the_hex(
    grid: HexGrid, h: Hex, frac: float, angle: float
) -> None:
    """Anything nearer the centre than the flat sides is in that hex, any orientation."""
    cx, cz = grid.center(h)
    d = frac * grid.hex_width / 2
    x, z = cx + d * math.cos(math.radians(angle)), cz + d * math.sin(math.radians(angle))
    assert grid.hex_at(x, z) == h


def test_neighbours_are_one_hex_width_apart_in_both_orientations() -> None:
    for orientation in ("pointy", "flat"):
        grid = HexGrid(hex_width=1.5, orientation=orientation)
        for d in DIRECTIONS:
            x, z = grid.center(d)
            assert math.hypot(x, z) == pytest.approx(1.5)


def test_orientation_sets_which_neighbour_lies_due_east_or_north() -> None:
    pointy = HexGrid(hex_width=2.0, orientation="pointy", origin_x=10, origin_z=-4)
    assert pointy.center(Hex(1, 0)) == pytest.approx((12.0, -4.0))  # rows run east-west
    flat = HexGrid(hex_width=2.0, orientation="flat")
    assert flat.center(Hex(0, 1)) == pytest.approx((0.0, 2.0))  # columns run north-south
    # A corner points north on a pointy grid; a flat side faces north on a flat grid.
    assert max(z for _, z in pointy.corners(Hex(0, 0))) == pytest.approx(-4 + pointy.radius)
    assert max(z for _, z in flat.corners(Hex(0, 0))) == pytest.approx(1.0)


@given(hexes, hexes)
def test_a_line_steps_from_hex_to_neighbouring_hex(a: Hex, b: Hex) -> None:
    for line in hex_lines(a, b):
        assert line[0] == a and line[-1] == b
        assert len(line) == hex_distance(a, b) + 1
        assert all(hex_distance(p, q) == 1 for p, q in itertools.pairwise(line))


def test_a_straight_row_is_its_own_line() -> None:
    assert hex_line(Hex(0, 0), Hex(4, 0)) == [Hex(i, 0) for i in range(5)]


def test_a_line_along_a_hex_edge_has_two_readings() -> None:
    """From (0,0) to (1,1) the line runs between (1,0) and (0,1): the nudge picks one side,
    the opposite nudge the other; the ruleset decides which one counts."""
    one, other = hex_lines(Hex(0, 0), Hex(1, 1))
    assert {one[1], other[1]} == {Hex(1, 0), Hex(0, 1)}
    assert one[0] == other[0] == Hex(0, 0) and one[-1] == other[-1] == Hex(1, 1)


def test_a_line_off_the_edges_has_one_reading() -> None:
    one, other = hex_lines(Hex(0, 0), Hex(2, 1))
    assert one == other


def test_reachable_spends_the_cost_of_each_hex_entered() -> None:
    costs = {Hex(1, 0): 2, Hex(2, 0): 1}
    blocked = {Hex(0, 1)}

    def enter(h: Hex) -> int | None:
        return None if h in blocked else costs.get(h, 1)

    reach = reachable(Hex(0, 0), enter, budget=3)
    assert reach[Hex(1, 0)].cost == 2
    assert Hex(0, 1) not in reach  # no entry
    assert reach[Hex(2, 0)].cost == 3  # via (1,0) costs 3; around through (1,-1),(2,-1) is 3
    path = path_to(reach, Hex(2, 0))
    assert path[0] == Hex(0, 0) and path[-1] == Hex(2, 0)
    assert sum(enter(h) or 0 for h in path[1:]) == 3
    assert all(reach[h].cost <= 3 for h in reach)


def test_reachable_may_end_in_but_not_pass_a_hex() -> None:
    wall = {Hex(1, 0), Hex(1, -1), Hex(0, -1), Hex(-1, 0), Hex(-1, 1), Hex(0, 1)}
    reach = reachable(Hex(0, 0), lambda h: 1, budget=3, may_pass=lambda h: h not in wall)
    assert set(reach) == {Hex(0, 0), *wall}


def test_hexes_in_a_rectangle_are_those_with_centres_inside() -> None:
    grid = HexGrid(hex_width=2.0)
    inside = list(grid.hexes_in(-3, 3, -1, 1))
    assert set(inside) == {Hex(-1, 0), Hex(0, 0), Hex(1, 0)}


@given(grids, st.floats(-20, 20), st.floats(-20, 20), st.floats(0, 15), st.floats(0, 15))
def test_hexes_in_lists_exactly_the_centres_inside(
    grid: HexGrid, x: float, z: float, w: float, h: float
) -> None:
    """Each hex whose centre is in the rectangle, once; none outside (checked against every
    hex near it)."""
    found = list(grid.hexes_in(x, x + w, z, z + h))
    assert len(found) == len(set(found))
    near = grid.hex_at(x + w / 2, z + h / 2)
    radius = int((w + h) / grid.hex_width) + 3
    for dq in range(-radius, radius + 1):
        for dr in range(-radius, radius + 1):
            cand = Hex(near.q + dq, near.r + dr)
            cx, cz = grid.center(cand)
            inside = x - 1e-7 <= cx <= x + w + 1e-7 and z - 1e-7 <= cz <= z + h + 1e-7
            strictly = x + 1e-7 < cx < x + w - 1e-7 and z + 1e-7 < cz < z + h - 1e-7
            if strictly:
                assert cand in found
            if cand in found:
                assert inside
