"""The grid index a line of fire uses on big tables (``geometry.SegmentIndex``): it may only
ever narrow the search, never drop a box the segment meets, and it keeps the boxes' order."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tankref.core.geometry import (
    Box,
    Circle,
    Polygon,
    SegmentIndex,
    bounding_box,
    segment_enters,
)

coord = st.floats(min_value=-120, max_value=120, allow_nan=False, allow_infinity=False)
size = st.floats(min_value=0.01, max_value=40, allow_nan=False, allow_infinity=False)
# Coordinates on the grid's cell lines (multiples of 6) and the edge cases they make.
on_grid = st.integers(min_value=-20, max_value=20).map(lambda k: 6.0 * k)
point = st.tuples(st.one_of(coord, on_grid), st.one_of(coord, on_grid))


@st.composite
def boxes(draw: st.DrawFn) -> list[Box]:
    out: list[Box] = []
    for _ in range(draw(st.integers(min_value=8, max_value=60))):
        x, z = draw(point)
        out.append((x, z, x + draw(size), z + draw(size)))
    return out


def box_shape(box: Box) -> Polygon:
    x0, z0, x1, z1 = box
    return Polygon(points=((x0, z0), (x1, z0), (x1, z1), (x0, z1)))


@settings(max_examples=300, deadline=None)
@given(boxes(), point, point)
def test_index_finds_every_box_a_segment_meets_in_order(
    listed: list[Box], a: tuple[float, float], b: tuple[float, float]
) -> None:
    """Every box the segment meets (touching counts, as ``segment_enters`` says) is among the
    indices ``near`` gives, which come in the boxes' own order, each once."""
    found = SegmentIndex(listed).near(a, b)
    assert found == sorted(set(found))
    meets = [i for i, box in enumerate(listed) if segment_enters(box_shape(box), a, b)]
    assert set(meets) <= set(found)


def test_index_looks_only_near_the_line() -> None:
    """On a wide table of small pieces, a short line is offered only the pieces about it: the
    point of the index (a line's cost follows the pieces on it, not the table's size)."""
    pieces = [Circle(x=-300.0 + 6.0 * k, z=30.0, radius=1.0) for k in range(100)]
    pieces.append(Circle(x=2.0, z=0.0, radius=2.0))  # on the line
    index = SegmentIndex([bounding_box(p) for p in pieces])
    assert index.near((0.0, -20.0), (4.0, 20.0)) == [100]


def test_index_gives_every_box_when_a_line_would_cross_too_many_cells() -> None:
    """A line longer than the index is worth walking gets every box (the exact test decides)."""
    listed = [bounding_box(Circle(x=0.0, z=6.0 * k, radius=1.0)) for k in range(8)]
    assert SegmentIndex(listed).near((-5000.0, 0.0), (5000.0, 1.0)) == list(range(8))


def test_boxes_too_big_to_file_are_offered_to_every_line() -> None:
    """A huge piece (more cells than ``MAX_CELLS``) is looked at by every query."""
    listed = [bounding_box(Circle(x=0.0, z=0.0, radius=500.0))]
    listed += [bounding_box(Circle(x=600.0 + 6.0 * k, z=0.0, radius=1.0)) for k in range(10)]
    assert SegmentIndex(listed).near((-100.0, 300.0), (-90.0, 310.0)) == [0]


def test_nearly_upright_line_is_read_as_upright() -> None:
    """A line a hair off upright (dx of 5e-324 or 1e-300) once overflowed the index's slope to
    inf/NaN and raised; it is now read as upright: every box on it is still found, none
    raises (hypothesis found it)."""
    pieces = [Circle(x=-300.0 + 6.0 * k, z=30.0, radius=1.0) for k in range(100)]
    pieces.append(Circle(x=0.0, z=0.0, radius=2.0))  # on the line
    index = SegmentIndex([bounding_box(p) for p in pieces])
    for dx in (5e-324, 1e-300, -1e-300, 1e-12):
        found = index.near((0.0, -20.0), (dx, 20.0))
        assert 100 in found
        assert found == sorted(set(found))
