"""Tests for tankref.core.geometry: bearings, arcs, shapes and the table edges."""

from __future__ import annotations

import math

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from pydantic import TypeAdapter, ValidationError

from tankref.core.geometry import (
    EPSILON_DEG,
    ArcReading,
    Circle,
    Edge,
    Point,
    Polygon,
    Shape,
    TableArea,
    arc_of,
    bearing,
    bounding_radius,
    contains,
    distance,
    forward,
    normalize_degrees,
    point_at,
    relative_bearing,
    segment_enters,
    segment_point_distance,
    shape_center,
    signed_angle,
)

coords = st.floats(min_value=-1000.0, max_value=1000.0, allow_nan=False, allow_infinity=False)
points = st.tuples(coords, coords)
angles = st.floats(min_value=-1e4, max_value=1e4, allow_nan=False, allow_infinity=False)
EDGES: tuple[Edge, ...] = ("north", "south", "east", "west")


def close(a: float, b: float, tol: float = 1e-9) -> bool:
    return abs(a - b) <= tol


def same_angle(a: float, b: float, tol: float = 1e-9) -> bool:
    return abs(signed_angle(a - b)) <= tol


# --- angles -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("angle", "expected"),
    [
        (0.0, 0.0),
        (360.0, 0.0),
        (-360.0, 0.0),
        (720.5, 0.5),
        (-90.0, 270.0),
        (180.0, 180.0),
        (-180.0, 180.0),
        (359.5, 359.5),
        (-0.0, 0.0),
    ],
)
def test_normalize_degrees(angle: float, expected: float) -> None:
    assert normalize_degrees(angle) == expected


def test_normalize_degrees_tiny_negative_is_not_360() -> None:
    # -1e-20 % 360 rounds to exactly 360.0 in floating point.
    assert normalize_degrees(-1e-20) == 0.0
    assert signed_angle(-1e-20) == 0.0


@pytest.mark.parametrize(
    ("angle", "expected"),
    [
        (0.0, 0.0),
        (180.0, 180.0),
        (-180.0, 180.0),
        (540.0, 180.0),
        (-540.0, 180.0),
        (181.0, -179.0),
        (-179.0, -179.0),
        (270.0, -90.0),
        (-270.0, 90.0),
        (45.0, 45.0),
        (-45.0, -45.0),
    ],
)
def test_signed_angle(angle: float, expected: float) -> None:
    assert signed_angle(angle) == expected


@given(angles)
def test_normalize_and_signed_ranges(angle: float) -> None:
    n = normalize_degrees(angle)
    s = signed_angle(angle)
    assert 0.0 <= n < 360.0
    assert -180.0 < s <= 180.0
    assert same_angle(n, angle, 1e-6)
    assert same_angle(s, angle, 1e-6)


def test_distance() -> None:
    assert distance((0.0, 0.0), (3.0, 4.0)) == 5.0
    assert distance((1.0, 1.0), (1.0, 1.0)) == 0.0
    assert distance((-1.0, 2.0), (2.0, -2.0)) == 5.0


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        ((0.0, 1.0), 0.0),
        ((1.0, 1.0), 45.0),
        ((1.0, 0.0), 90.0),
        ((1.0, -1.0), 135.0),
        ((0.0, -1.0), 180.0),
        ((-0.0, -1.0), 180.0),
        ((-1.0, -1.0), 225.0),
        ((-1.0, 0.0), 270.0),
        ((-1.0, 1.0), 315.0),
    ],
)
def test_bearing_compass_points(target: Point, expected: float) -> None:
    assert bearing((0.0, 0.0), target) == expected
    # Shifting both points leaves the bearing alone.
    moved = (target[0] + 10.0, target[1] - 7.0)
    assert close(bearing((10.0, -7.0), moved), expected)


def test_bearing_same_point_is_zero() -> None:
    assert bearing((3.5, -2.0), (3.5, -2.0)) == 0.0


@given(points, points)
def test_bearing_reverses_by_180(a: Point, b: Point) -> None:
    assume(distance(a, b) > 0.1)
    ab = bearing(a, b)
    ba = bearing(b, a)
    assert 0.0 <= ab < 360.0
    assert same_angle(ba - ab, 180.0, 1e-9)


@pytest.mark.parametrize(
    ("facing", "expected"),
    [
        (0.0, (0.0, 1.0)),
        (90.0, (1.0, 0.0)),
        (180.0, (0.0, -1.0)),
        (270.0, (-1.0, 0.0)),
        (-90.0, (-1.0, 0.0)),
        (45.0, (math.sqrt(0.5), math.sqrt(0.5))),
    ],
)
def test_forward(facing: float, expected: Point) -> None:
    fx, fz = forward(facing)
    assert close(fx, expected[0], 1e-12)
    assert close(fz, expected[1], 1e-12)


@given(angles)
def test_forward_is_unit_and_matches_bearing(facing: float) -> None:
    f = forward(facing)
    assert close(math.hypot(*f), 1.0, 1e-12)
    assert same_angle(bearing((0.0, 0.0), f), facing, 1e-6)


@pytest.mark.parametrize(
    ("facing", "target", "expected"),
    [
        (0.0, (1.0, 1.0), 45.0),
        (0.0, (-1.0, 1.0), -45.0),
        (0.0, (1.0, -1.0), 135.0),
        (0.0, (-1.0, -1.0), -135.0),
        (0.0, (0.0, -1.0), 180.0),
        (180.0, (0.0, 1.0), 180.0),  # -180 is reported as 180
        (90.0, (1.0, -1.0), 45.0),
        (270.0, (0.0, 1.0), 90.0),
        (-90.0, (0.0, 1.0), 90.0),
        (450.0, (1.0, 0.0), 0.0),
    ],
)
def test_relative_bearing(facing: float, target: Point, expected: float) -> None:
    assert relative_bearing(facing, (0.0, 0.0), target) == expected


def test_relative_bearing_same_point() -> None:
    # bearing(p, p) is 0, so the relative bearing is just minus the facing.
    assert relative_bearing(10.0, (3.0, 3.0), (3.0, 3.0)) == -10.0


@given(angles, points, points)
def test_relative_bearing_range(facing: float, origin: Point, target: Point) -> None:
    r = relative_bearing(facing, origin, target)
    assert -180.0 < r <= 180.0
    assert same_angle(r, bearing(origin, target) - facing, 1e-6)


def test_point_at_examples() -> None:
    x, z = point_at((1.0, 1.0), 90.0, 2.0)
    assert close(x, 3.0) and close(z, 1.0)
    x, z = point_at((0.0, 0.0), 0.0, 5.0)
    assert (x, z) == (0.0, 5.0)
    x, z = point_at((0.0, 0.0), 225.0, math.sqrt(2.0))
    assert close(x, -1.0) and close(z, -1.0)
    assert point_at((2.0, -3.0), 123.0, 0.0) == (2.0, -3.0)


@given(points, angles, st.floats(min_value=0.01, max_value=500.0))
def test_point_at_distance_and_bearing(origin: Point, heading: float, dist: float) -> None:
    p = point_at(origin, heading, dist)
    assert close(distance(origin, p), dist, 1e-9)
    assert same_angle(bearing(origin, p), heading, 1e-6)


# --- segment distance ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b", "p", "expected"),
    [
        ((0.0, 0.0), (10.0, 0.0), (5.0, 3.0), 3.0),  # perpendicular foot inside
        ((0.0, 0.0), (10.0, 0.0), (-3.0, 4.0), 5.0),  # beyond a
        ((0.0, 0.0), (10.0, 0.0), (13.0, -4.0), 5.0),  # beyond b
        ((0.0, 0.0), (10.0, 0.0), (4.0, 0.0), 0.0),  # on the segment
        ((0.0, 0.0), (10.0, 0.0), (10.0, 0.0), 0.0),  # on an end
        ((2.0, 2.0), (2.0, 2.0), (5.0, 6.0), 5.0),  # degenerate a == b
        ((2.0, 2.0), (2.0, 2.0), (2.0, 2.0), 0.0),
    ],
)
def test_segment_point_distance(a: Point, b: Point, p: Point, expected: float) -> None:
    assert close(segment_point_distance(a, b, p), expected)
    assert close(segment_point_distance(b, a, p), expected)


@given(points, points, points)
def test_segment_point_distance_not_more_than_endpoints(a: Point, b: Point, p: Point) -> None:
    d = segment_point_distance(a, b, p)
    assert d >= 0.0
    assert d <= distance(a, p) + 1e-9
    assert d <= distance(b, p) + 1e-9


@given(points, points, st.floats(min_value=0.0, max_value=1.0))
def test_segment_point_distance_zero_on_segment(a: Point, b: Point, t: float) -> None:
    p = (a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1]))
    assert segment_point_distance(a, b, p) <= 1e-9


# --- shapes -------------------------------------------------------------------------------

SQUARE = Polygon(points=((0.0, 0.0), (4.0, 0.0), (4.0, 4.0), (0.0, 4.0)))
SQUARE_CW = Polygon(points=((0.0, 0.0), (0.0, 4.0), (4.0, 4.0), (4.0, 0.0)))
# A U open to the north: prongs x in [0,1] and [3,4], notch x in (1,3) above z = 1.
U_SHAPE = Polygon(
    points=(
        (0.0, 0.0),
        (4.0, 0.0),
        (4.0, 4.0),
        (3.0, 4.0),
        (3.0, 1.0),
        (1.0, 1.0),
        (1.0, 4.0),
        (0.0, 4.0),
    )
)
DISC = Circle(x=1.0, z=2.0, radius=3.0)


@pytest.mark.parametrize("square", [SQUARE, SQUARE_CW])
@pytest.mark.parametrize(
    ("p", "inside"),
    [
        ((2.0, 2.0), True),
        ((0.0, 0.0), True),  # vertex
        ((4.0, 4.0), True),  # vertex
        ((2.0, 0.0), True),  # edge
        ((4.0, 1.5), True),  # edge
        ((0.0, 3.0), True),  # edge
        ((2.0, 4.0), True),  # edge
        ((2.0, 4.000001), False),
        ((-0.000001, 2.0), False),
        ((5.0, 2.0), False),
        ((2.0, -1.0), False),
        ((-1.0, 0.0), False),  # on the line through an edge, beyond the vertex
        ((5.0, 4.0), False),
    ],
)
def test_polygon_contains(square: Polygon, p: Point, inside: bool) -> None:
    assert contains(square, p) is inside


@pytest.mark.parametrize(
    ("p", "inside"),
    [
        ((0.5, 3.0), True),  # left prong
        ((3.5, 3.0), True),  # right prong
        ((2.0, 0.5), True),  # base
        ((2.0, 2.0), False),  # in the notch
        ((2.0, 1.0), True),  # on the notch floor
        ((1.0, 2.5), True),  # on the notch wall
        ((3.0, 4.0), True),  # vertex at the top of the notch
        ((2.0, 4.0), False),  # level with the top, inside the notch
        ((2.0, 5.0), False),
    ],
)
def test_concave_polygon_contains(p: Point, inside: bool) -> None:
    assert contains(U_SHAPE, p) is inside


def test_polygon_ray_through_vertex_counts_once() -> None:
    diamond = Polygon(points=((0.0, -2.0), (2.0, 0.0), (0.0, 2.0), (-2.0, 0.0)))
    # The +x ray from these points passes exactly through the vertex (2, 0) or (0, 2).
    assert contains(diamond, (0.0, 0.0))
    assert contains(diamond, (-1.0, 0.0))
    assert not contains(diamond, (-3.0, 0.0))
    assert not contains(diamond, (-1.0, 2.0))


@pytest.mark.parametrize(
    ("p", "inside"),
    [
        ((1.0, 2.0), True),  # centre
        ((4.0, 2.0), True),  # on the circle
        ((1.0, -1.0), True),  # on the circle
        ((1.0 + 3.0 * math.sqrt(0.5), 2.0 + 3.0 * math.sqrt(0.5)), True),  # on, diagonally
        ((4.000001, 2.0), False),
        ((3.2, 4.2), False),
    ],
)
def test_circle_contains(p: Point, inside: bool) -> None:
    assert contains(DISC, p) is inside


@pytest.mark.parametrize(
    ("a", "b", "enters"),
    [
        ((-5.0, 5.0), (7.0, 5.0), True),  # tangent at (1, 5): touching counts
        ((-5.0, 5.000001), (7.0, 5.000001), False),  # just misses
        ((1.0, 5.0), (1.0, 9.0), True),  # ends on the circle
        ((-5.0, 2.0), (7.0, 2.0), True),  # straight through, both ends outside
        ((0.0, 2.0), (2.0, 2.0), True),  # wholly inside
        ((-5.0, 8.0), (7.0, 8.0), False),
        ((-5.0, 6.0), (-3.0, 20.0), False),  # line would hit, segment stops short
        ((1.0, 2.0), (1.0, 2.0), True),  # degenerate, inside
        ((9.0, 9.0), (9.0, 9.0), False),  # degenerate, outside
        ((4.0, 2.0), (4.0, 2.0), True),  # degenerate, on the circle
    ],
)
def test_circle_segment_enters(a: Point, b: Point, enters: bool) -> None:
    assert segment_enters(DISC, a, b) is enters
    assert segment_enters(DISC, b, a) is enters


@pytest.mark.parametrize("square", [SQUARE, SQUARE_CW])
@pytest.mark.parametrize(
    ("a", "b", "enters"),
    [
        ((-1.0, 2.0), (5.0, 2.0), True),  # both ends outside, crossing
        ((-1.0, -1.0), (5.0, 5.0), True),  # through two vertices
        ((1.0, 1.0), (3.0, 3.0), True),  # wholly inside
        ((2.0, 2.0), (9.0, 9.0), True),  # one end inside
        ((-2.0, 4.0), (0.0, 6.0), False),  # near the corner but outside
        ((-2.0, 2.0), (2.0, 6.0), True),  # touches only the vertex (0, 4)
        ((-1.0, 4.0), (6.0, 4.0), True),  # collinear with the top edge, ends outside
        ((5.0, 0.0), (9.0, 0.0), False),  # collinear with the bottom edge, beyond it
        ((-1.0, -1.0), (-1.0, 9.0), False),
        ((4.0, -3.0), (4.0, -1.0), False),
        ((2.0, 2.0), (2.0, 2.0), True),  # degenerate, inside
        ((4.0, 2.0), (4.0, 2.0), True),  # degenerate, on the edge
        ((6.0, 2.0), (6.0, 2.0), False),  # degenerate, outside
    ],
)
def test_polygon_segment_enters(square: Polygon, a: Point, b: Point, enters: bool) -> None:
    assert segment_enters(square, a, b) is enters
    assert segment_enters(square, b, a) is enters


@pytest.mark.parametrize(
    ("a", "b", "enters"),
    [
        ((2.0, 2.0), (2.0, 3.5), False),  # inside the notch only
        ((1.5, 4.5), (2.5, 1.5), False),  # dips into the notch without touching
        ((2.0, 5.0), (2.0, 1.0), True),  # down the notch to its floor
        ((0.5, 3.0), (3.5, 3.0), True),  # prong to prong across the notch
        ((-1.0, 3.0), (5.0, 3.0), True),  # right across, both ends outside
        ((2.0, 3.0), (5.0, 3.0), True),  # from the notch out through a prong
        ((1.0, 5.0), (1.0, 4.5), False),  # above a vertex, not reaching it
        ((0.0, 5.0), (2.0, 3.0), True),  # crosses the top corner of the left prong
    ],
)
def test_concave_polygon_segment_enters(a: Point, b: Point, enters: bool) -> None:
    assert segment_enters(U_SHAPE, a, b) is enters
    assert segment_enters(U_SHAPE, b, a) is enters


@given(points, points)
def test_segment_enters_circle_agrees_with_distance(a: Point, b: Point) -> None:
    c = Circle(x=0.0, z=0.0, radius=50.0)
    d = segment_point_distance(a, b, (0.0, 0.0))
    assume(abs(d - 50.0) > 1e-6)
    assert segment_enters(c, a, b) is (d < 50.0)


@given(points, points)
def test_segment_enters_if_an_end_is_contained(a: Point, b: Point) -> None:
    for shape in (SQUARE, U_SHAPE, DISC):
        if contains(shape, a) or contains(shape, b):
            assert segment_enters(shape, a, b)


def test_shape_center_and_bounding_radius() -> None:
    assert shape_center(DISC) == (1.0, 2.0)
    assert bounding_radius(DISC) == 3.0
    assert shape_center(SQUARE) == (2.0, 2.0)
    assert close(bounding_radius(SQUARE), math.sqrt(8.0))
    tri = Polygon(points=((0.0, 0.0), (6.0, 0.0), (0.0, 3.0)))
    assert shape_center(tri) == (2.0, 1.0)
    assert close(bounding_radius(tri), 4.123105625617661)


@given(points)
def test_outside_bounding_radius_is_outside(p: Point) -> None:
    for shape in (SQUARE, U_SHAPE, DISC):
        if distance(shape_center(shape), p) > bounding_radius(shape) + 1e-6:
            assert not contains(shape, p)


def test_shape_discriminated_union() -> None:
    adapter: TypeAdapter[Circle | Polygon] = TypeAdapter(Shape)
    c = adapter.validate_python({"shape": "circle", "x": 1, "z": 2, "radius": 3})
    assert c == DISC
    p = adapter.validate_python({"shape": "polygon", "points": [[0, 0], [4, 0], [4, 4], [0, 4]]})
    assert p == SQUARE
    with pytest.raises(ValidationError):
        adapter.validate_python({"shape": "hexagon", "x": 1, "z": 2, "radius": 3})
    with pytest.raises(ValidationError):
        adapter.validate_python({"x": 1, "z": 2, "radius": 3})


def test_shapes_are_frozen() -> None:
    with pytest.raises(ValidationError):
        DISC.radius = 4.0  # type: ignore[misc]
    with pytest.raises(ValidationError):
        SQUARE.points = ()  # type: ignore[misc]


@pytest.mark.parametrize(
    "fields",
    [
        {"x": math.nan, "z": 0.0, "radius": 1.0},
        {"x": 0.0, "z": math.inf, "radius": 1.0},
        {"x": 0.0, "z": 0.0, "radius": math.inf},
        {"x": 0.0, "z": 0.0, "radius": math.nan},
        {"x": 0.0, "z": 0.0, "radius": 0.0},
        {"x": 0.0, "z": 0.0, "radius": -1.0},
        {"x": 0.0, "z": 0.0, "radius": 1000.5},
        {"x": 10_000.5, "z": 0.0, "radius": 1.0},
        {"x": 0.0, "z": -1e300, "radius": 1.0},
        {"x": 0.0, "z": 0.0, "radius": 1.0, "colour": "red"},
        {"shape": "polygon", "x": 0.0, "z": 0.0, "radius": 1.0},
    ],
)
def test_circle_refusals(fields: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        Circle.model_validate(fields)


def test_circle_limits_accepted() -> None:
    c = Circle(x=-10_000.0, z=10_000.0, radius=1000.0)
    assert c.radius == 1000.0


@pytest.mark.parametrize(
    "pts",
    [
        [],
        [(0.0, 0.0), (1.0, 1.0)],  # two points
        [(0.0, 0.0), (1.0, 1.0), (0.0, 0.0)],  # two distinct points
        [(0.0, 0.0), (1.0, 1.0), (1.0, 1.0), (0.0, 0.0)],
        [(0.0, 0.0), (1.0, 1.0), (2.0, 2.0)],  # collinear: zero area
        [(0.0, 0.0), (3.0, 0.0), (1.0, 0.0), (2.0, 0.0)],
        [(0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (1.0, 0.0)],  # out and back: zero area
        [(0.0, 0.0), (math.nan, 1.0), (1.0, 0.0)],
        [(0.0, 0.0), (1.0, math.inf), (1.0, 0.0)],
        [(0.0, 0.0), (10_001.0, 1.0), (1.0, 0.0)],
        [(0.0, 0.0, 0.0), (1.0, 0.0, 0.0), (0.0, 1.0, 0.0)],  # three coordinates
    ],
)
def test_polygon_refusals(pts: list[tuple[float, ...]]) -> None:
    with pytest.raises(ValidationError):
        Polygon.model_validate({"points": pts})


def test_polygon_refuses_extra_fields() -> None:
    with pytest.raises(ValidationError):
        Polygon.model_validate({"points": [(0, 0), (1, 0), (0, 1)], "height": 2})


def test_polygon_tiny_but_real_area_accepted() -> None:
    tri = Polygon(points=((0.0, 0.0), (0.01, 0.0), (0.0, 0.01)))
    assert contains(tri, (0.001, 0.001))


# --- arcs ---------------------------------------------------------------------------------


def test_ttt_e2_hit_arcs() -> None:
    """TTT-E2: front within ±45°, rear within ±45° of the back, side otherwise; exact edges reported

    Checked through arc_of with the default 45° half-widths, and from real bearings.
    """
    expected: list[tuple[float, str, tuple[str, str] | None]] = [
        (0.0, "front", None),
        (44.9, "front", None),
        (-44.9, "front", None),
        (45.0, "front", ("front", "side")),
        (-45.0, "front", ("front", "side")),
        (45.0 + EPSILON_DEG / 2, "front", ("front", "side")),
        (45.0 - EPSILON_DEG / 2, "front", ("front", "side")),
        (45.001, "side", None),
        (90.0, "side", None),
        (-90.0, "side", None),
        (134.999, "side", None),
        (135.0, "side", ("side", "rear")),
        (-135.0, "side", ("side", "rear")),
        (135.001, "rear", None),
        (-135.001, "rear", None),
        (180.0, "rear", None),
        (-180.0, "rear", None),
    ]
    for rel, arc, edge in expected:
        reading = arc_of(rel)
        assert (reading.arc, reading.on_edge) == (arc, edge), rel
        assert -180.0 < reading.relative <= 180.0
    # Straight from geometry: a target exactly on the diagonal is on the front/side edge.
    assert arc_of(relative_bearing(0.0, (0.0, 0.0), (1.0, 1.0))).on_edge == ("front", "side")
    assert arc_of(relative_bearing(90.0, (0.0, 0.0), (-1.0, 1.0))).on_edge == ("side", "rear")
    assert arc_of(relative_bearing(0.0, (0.0, 0.0), (0.0, -5.0))).arc == "rear"


def test_arc_of_normalises_the_angle() -> None:
    assert arc_of(-180.0) == ArcReading("rear", 180.0, None)
    assert arc_of(405.0) == ArcReading("front", 45.0, ("front", "side"))
    assert arc_of(-270.0) == ArcReading("side", 90.0, None)


def test_arc_of_custom_widths() -> None:
    assert arc_of(50.0, front_half_width=60.0, rear_half_width=30.0).arc == "front"
    assert arc_of(60.0, 60.0, 30.0).on_edge == ("front", "side")
    assert arc_of(100.0, 60.0, 30.0).arc == "side"
    assert arc_of(150.0, 60.0, 30.0) == ArcReading("side", 150.0, ("side", "rear"))
    assert arc_of(-160.0, 60.0, 30.0).arc == "rear"


def test_arc_of_without_side_arc() -> None:
    # front + rear == 180: the one boundary is between front and rear.
    assert arc_of(89.0, 90.0, 90.0).arc == "front"
    assert arc_of(90.0, 90.0, 90.0) == ArcReading("front", 90.0, ("front", "rear"))
    assert arc_of(-90.0, 90.0, 90.0).on_edge == ("front", "rear")
    assert arc_of(91.0, 90.0, 90.0).arc == "rear"
    assert arc_of(130.0, 120.0, 60.0).arc == "rear"


@given(angles)
def test_arc_of_always_reads(rel: float) -> None:
    reading = arc_of(rel)
    assert -180.0 < reading.relative <= 180.0
    mag = abs(reading.relative)
    if reading.on_edge is None:
        expected = "front" if mag < 45.0 else "rear" if mag > 135.0 else "side"
        assert reading.arc == expected
    else:
        assert reading.arc == reading.on_edge[0]


@pytest.mark.parametrize(
    ("front", "rear"),
    [(0.0, 45.0), (45.0, 0.0), (-10.0, 45.0), (100.0, 90.0), (math.nan, 45.0), (45.0, math.inf)],
)
def test_arc_of_refuses_bad_widths(front: float, rear: float) -> None:
    with pytest.raises(ValueError):
        arc_of(10.0, front, rear)


def test_arc_of_refuses_nan_angle() -> None:
    with pytest.raises(ValueError):
        arc_of(math.nan)


# --- the table ----------------------------------------------------------------------------

TABLE = TableArea()


def test_table_default_is_six_by_four() -> None:
    assert (TABLE.x_min, TABLE.x_max, TABLE.z_min, TABLE.z_max) == (-36.0, 36.0, -24.0, 24.0)


@pytest.mark.parametrize(
    "fields",
    [
        {"x_min": 10.0, "x_max": 10.0},
        {"x_min": 10.0, "x_max": -10.0},
        {"z_min": 24.0},
        {"z_max": -30.0},
        {"x_min": math.nan},
        {"x_max": math.inf},
        {"z_min": -math.inf},
        {"z_max": 20_000.0},
        {"width": 72.0},
    ],
)
def test_table_refusals(fields: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        TableArea.model_validate(fields)


@pytest.mark.parametrize(
    ("p", "inside"),
    [
        ((0.0, 0.0), True),
        ((36.0, 24.0), True),
        ((-36.0, 0.0), True),
        ((0.0, -24.0), True),
        ((36.01, 0.0), False),
        ((0.0, -24.01), False),
    ],
)
def test_table_contains(p: Point, inside: bool) -> None:
    assert TABLE.contains(p) is inside


def test_table_distance_to_edge() -> None:
    p = (30.0, -20.0)
    assert TABLE.distance_to_edge("north", p) == 44.0
    assert TABLE.distance_to_edge("south", p) == 4.0
    assert TABLE.distance_to_edge("east", p) == 6.0
    assert TABLE.distance_to_edge("west", p) == 66.0
    beyond = (40.0, 0.0)
    assert TABLE.distance_to_edge("east", beyond) == -4.0
    assert TABLE.distance_to_edge("west", beyond) == 76.0


@pytest.mark.parametrize(
    ("table", "p", "edge"),
    [
        (TABLE, (0.0, 0.0), "south"),  # south and north tie
        (TABLE, (0.0, 20.0), "north"),
        (TABLE, (-34.0, 0.0), "west"),
        (TABLE, (35.0, 0.0), "east"),
        (TABLE, (35.0, 23.0), "north"),  # north and east tie
        (TABLE, (-35.0, -23.0), "south"),  # south and west tie
        (TABLE, (40.0, 0.0), "east"),  # off the table: the edge it is past
        (TableArea(x_min=-5.0, x_max=5.0), (0.0, 0.0), "west"),  # west and east tie
        (TableArea(x_min=-10.0, x_max=10.0, z_min=-10.0, z_max=10.0), (0.0, 0.0), "south"),
    ],
)
def test_table_nearest_edge(table: TableArea, p: Point, edge: Edge) -> None:
    assert table.nearest_edge(p) == edge


def test_table_edge_heading() -> None:
    assert [TABLE.edge_heading(e) for e in ("north", "east", "south", "west")] == [
        0.0,
        90.0,
        180.0,
        270.0,
    ]
    # The heading does point at the edge: moving along it shrinks that distance.
    for edge in EDGES:
        p = point_at((0.0, 0.0), TABLE.edge_heading(edge), 1.0)
        assert close(TABLE.distance_to_edge(edge, p), TABLE.distance_to_edge(edge, (0.0, 0.0)) - 1)


def test_table_edge_heading_refuses_unknown_edge() -> None:
    with pytest.raises(ValueError):
        TABLE.edge_heading("up")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        TABLE.distance_to_edge("up", (0.0, 0.0))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("edge", "p", "dist", "result"),
    [
        ("north", (1.0, 2.0), 5.0, ((1.0, 7.0), False)),
        ("north", (1.0, 20.0), 4.0, ((1.0, 24.0), True)),  # exactly reaches the edge
        ("north", (1.0, 20.0), 9.0, ((1.0, 24.0), True)),  # would cross: stops on the line
        ("south", (1.0, 2.0), 5.0, ((1.0, -3.0), False)),
        ("south", (1.0, -20.0), 6.0, ((1.0, -24.0), True)),
        ("east", (30.0, 2.0), 5.0, ((35.0, 2.0), False)),
        ("east", (30.0, 2.0), 6.0, ((36.0, 2.0), True)),
        ("west", (-30.0, 2.0), 5.5, ((-35.5, 2.0), False)),
        ("west", (-30.0, 2.0), 60.0, ((-36.0, 2.0), True)),
        ("west", (-30.0, 2.0), 0.0, ((-30.0, 2.0), False)),
        ("west", (-36.0, 2.0), 0.0, ((-36.0, 2.0), True)),  # already on the edge line
    ],
)
def test_table_drive_toward_edge(
    edge: Edge, p: Point, dist: float, result: tuple[Point, bool]
) -> None:
    assert TABLE.drive_toward_edge(edge, p, dist) == result


@pytest.mark.parametrize("dist", [-1.0, math.nan, math.inf])
def test_table_drive_refuses_bad_distance(dist: float) -> None:
    with pytest.raises(ValueError):
        TABLE.drive_toward_edge("north", (0.0, 0.0), dist)


table_points = st.tuples(
    st.floats(min_value=-36.0, max_value=36.0), st.floats(min_value=-24.0, max_value=24.0)
)


@given(st.sampled_from(EDGES), table_points, st.floats(min_value=0.0, max_value=100.0))
def test_drive_toward_edge_closes_distance(edge: Edge, p: Point, dist: float) -> None:
    before = TABLE.distance_to_edge(edge, p)
    new, left = TABLE.drive_toward_edge(edge, p, dist)
    after = TABLE.distance_to_edge(edge, new)
    assert after <= before
    if left:
        assert dist >= before
        assert after == 0.0
    else:
        assert close(after, before - dist)
        assert TABLE.contains(new)
    # The move is perpendicular: the bearing to the new point is the edge heading.
    if new != p:
        assert same_angle(bearing(p, new), TABLE.edge_heading(edge))
