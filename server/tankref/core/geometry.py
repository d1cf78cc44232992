"""Table-plane geometry for the referee: bearings, arcs, shapes and the table edges.

The plane is Tabletop Simulator's (x, z) in inches. Facing is TTS yaw in degrees: yaw 0 faces
+z and yaw 90 faces +x, so the forward vector is (sin yaw, cos yaw) and a bearing is
atan2(dx, dz), the reverse of the usual maths convention.

These functions run inside every shot adjudication, so the hot ones take and return plain
tuples and floats; only the shape and table descriptions are pydantic models, built once
when card or scenario data is loaded.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from functools import cached_property
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

__all__ = [
    "EPSILON_DEG",
    "LENGTH_EPSILON",
    "MAX_COORD",
    "MAX_POLYGON_POINTS",
    "MAX_RADIUS",
    "Arc",
    "ArcReading",
    "Box",
    "Circle",
    "Edge",
    "Point",
    "Polygon",
    "SegmentFan",
    "SegmentIndex",
    "Shape",
    "TableArea",
    "arc_at",
    "arc_of",
    "bearing",
    "bounding_box",
    "bounding_radius",
    "contains",
    "distance",
    "forward",
    "normalize_degrees",
    "point_at",
    "relative_bearing",
    "segment_enters",
    "segment_point_distance",
    "shape_center",
    "signed_angle",
]

Point = tuple[float, float]

EPSILON_DEG: float = 1e-6
# Float noise on coordinates of a few thousand inches is ~1e-12; a billionth of an inch is far
# below anything a player can place, so "on the boundary" means "within this of it".
LENGTH_EPSILON: float = 1e-9
_LENGTH_EPSILON_SQ = LENGTH_EPSILON * LENGTH_EPSILON
_REACH_MARGIN = 1e-6  # a polygon's quick-reject box: a thousand LENGTH_EPSILONs wide
_UPRIGHT = 1e-9  # a line of fire this little across is read as upright by the grid index
MAX_COORD: float = 10_000.0
MAX_RADIUS: float = 1_000.0
MAX_POLYGON_POINTS: int = 1_000
# Shoelace area at or below this (square inches) counts as zero: collinear points.
_MIN_POLYGON_AREA = 1e-6

_sin = math.sin
_cos = math.cos
_atan2 = math.atan2
_hypot = math.hypot
_sqrt = math.sqrt
_INF = math.inf
# SegmentFan's cones: a disc's reach widened by this factor and its half-angle by this much
# (radians), far beyond the rounding of the distances and angles compared; a disc whose
# widened reach is this near the distance to a is met in any direction.
_WIDEN = 1.0 + 1e-9
_CONE_MARGIN = 1e-9
_NEARLY_HELD = 0.999
_radians = math.radians
_degrees = math.degrees


# --- angles -------------------------------------------------------------------------------


def normalize_degrees(angle: float) -> float:
    """``angle`` folded into [0, 360)."""
    r = angle % 360.0
    # A tiny negative angle rounds up to exactly 360.0 under %; fold it back to 0.
    return 0.0 if r >= 360.0 else r


def signed_angle(angle: float) -> float:
    """``angle`` folded into (-180, 180]; both 180 and -180 come back as 180."""
    r = angle % 360.0
    if r >= 360.0:
        return 0.0
    return r - 360.0 if r > 180.0 else r


def distance(a: Point, b: Point) -> float:
    return _hypot(b[0] - a[0], b[1] - a[1])


def bearing(origin: Point, target: Point) -> float:
    """Yaw from ``origin`` toward ``target``, [0, 360): 0 is +z, 90 is +x; 0.0 if they coincide."""
    # atan2(dx, dz) rather than (dz, dx) because yaw is measured from +z toward +x.
    r = _degrees(_atan2(target[0] - origin[0], target[1] - origin[1])) % 360.0
    return 0.0 if r >= 360.0 else r


def forward(facing: float) -> Point:
    """Unit vector (x, z) a model with yaw ``facing`` points along."""
    rad = _radians(facing)
    return (_sin(rad), _cos(rad))


def relative_bearing(facing: float, origin: Point, target: Point) -> float:
    """Bearing of ``target`` from ``origin`` relative to ``facing``, in (-180, 180]."""
    r = (_degrees(_atan2(target[0] - origin[0], target[1] - origin[1])) - facing) % 360.0
    if r >= 360.0:
        return 0.0
    return r - 360.0 if r > 180.0 else r


def point_at(origin: Point, heading: float, dist: float) -> Point:
    """``origin`` moved ``dist`` inches along yaw ``heading``."""
    rad = _radians(heading)
    return (origin[0] + dist * _sin(rad), origin[1] + dist * _cos(rad))


def _segment_point_distance(
    ax: float, az: float, bx: float, bz: float, px: float, pz: float
) -> float:
    dx = bx - ax
    dz = bz - az
    wx = px - ax
    wz = pz - az
    dot = wx * dx + wz * dz
    if dot <= 0.0:  # also covers a == b (dot is 0)
        return _hypot(wx, wz)
    len2 = dx * dx + dz * dz
    if dot >= len2:
        return _hypot(px - bx, pz - bz)
    # Perpendicular distance via the cross product: more accurate than subtracting the
    # projection, which matters for the tangent-touches-circle ruling.
    return abs(wx * dz - wz * dx) / _sqrt(len2)


def segment_point_distance(a: Point, b: Point, p: Point) -> float:
    """Shortest distance from ``p`` to the segment ``a``-``b`` (``a == b`` allowed)."""
    return _segment_point_distance(a[0], a[1], b[0], b[1], p[0], p[1])


# --- shapes -------------------------------------------------------------------------------

Coord = Annotated[float, Field(ge=-MAX_COORD, le=MAX_COORD, allow_inf_nan=False)]


class Circle(BaseModel):
    # Spelled out per class so the pydantic mypy plugin sees frozen=True.
    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    shape: Literal["circle"] = "circle"
    x: Coord
    z: Coord
    radius: float = Field(gt=0.0, le=MAX_RADIUS, allow_inf_nan=False)

    @cached_property
    def reach(self) -> Box:
        """Its box, widened as a polygon's ``reach`` is: a segment wholly to one side of it
        misses the circle, which a line of fire finds without the exact distance (most
        pieces of a table lie nowhere near a given line). Worked out once per circle."""
        return bounding_box(self, _REACH_MARGIN)


class Polygon(BaseModel):
    """A closed polygon, any winding. Insideness is even-odd, so a self-crossing outline works
    but its overlapping lobes cancel; the boundary always counts as inside."""

    # Spelled out per class so the pydantic mypy plugin sees frozen=True.
    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    shape: Literal["polygon"] = "polygon"
    points: tuple[tuple[Coord, Coord], ...] = Field(min_length=3, max_length=MAX_POLYGON_POINTS)

    @model_validator(mode="after")
    def _has_area(self) -> Polygon:
        pts = self.points
        if len(set(pts)) < 3:
            raise ValueError("a polygon needs at least 3 distinct points")
        # Shoelace area relative to the first vertex keeps the products small and exact-ish.
        x0, z0 = pts[0]
        twice = 0.0
        px, pz = 0.0, 0.0
        for x, z in pts[1:]:
            qx, qz = x - x0, z - z0
            twice += px * qz - qx * pz
            px, pz = qx, qz
        if abs(twice) / 2.0 <= _MIN_POLYGON_AREA:
            raise ValueError("polygon has zero area (its points are collinear or cancel out)")
        return self

    @cached_property
    def reach(self) -> Box:
        """Its box, widened well past LENGTH_EPSILON: a point or segment wholly to one side of
        it cannot touch the polygon (a cheap reject before the exact tests). Worked out once
        per polygon (a cached property is no field: never serialised or compared)."""
        return bounding_box(self, _REACH_MARGIN)


Shape = Annotated[Circle | Polygon, Field(discriminator="shape")]


def _polygon_contains(points: tuple[tuple[float, float], ...], px: float, pz: float) -> bool:
    inside = False
    ax, az = points[-1]
    for bx, bz in points:
        # On the edge (within LENGTH_EPSILON) counts as inside; squared distances avoid sqrt.
        dx = bx - ax
        dz = bz - az
        wx = px - ax
        wz = pz - az
        dot = wx * dx + wz * dz
        if dot <= 0.0:
            d2 = wx * wx + wz * wz
        else:
            len2 = dx * dx + dz * dz
            if dot >= len2:
                ux = px - bx
                uz = pz - bz
                d2 = ux * ux + uz * uz
            else:
                c = wx * dz - wz * dx
                d2 = c * c / len2
        if d2 <= _LENGTH_EPSILON_SQ:
            return True
        # Even-odd ray cast toward +x; the half-open test counts a vertex on the ray once.
        if (az > pz) != (bz > pz) and px < ax + (pz - az) * dx / dz:
            inside = not inside
        ax, az = bx, bz
    return inside


def contains(shape: Circle | Polygon, p: Point) -> bool:
    """True when ``p`` is inside ``shape`` or on its boundary."""
    px, pz = p
    if isinstance(shape, Circle):
        return _hypot(px - shape.x, pz - shape.z) <= shape.radius + LENGTH_EPSILON
    x0, z0, x1, z1 = shape.reach
    if px < x0 or px > x1 or pz < z0 or pz > z1:
        return False
    return _polygon_contains(shape.points, px, pz)


def _segment_crosses_boundary(
    points: tuple[tuple[float, float], ...], ax: float, az: float, bx: float, bz: float
) -> bool:
    """Whether segment a-b meets any polygon edge, given that neither a nor b is on one."""
    sx = bx - ax
    sz = bz - az
    len2 = sx * sx + sz * sz
    cx, cz = points[-1]
    for dx, dz in points:
        # A vertex lying on a-b covers touching and collinear overlap (a and b are not on edges):
        # ``_segment_point_distance(ax, az, bx, bz, cx, cz)``, written out (the same arithmetic).
        wx = cx - ax
        wz = cz - az
        dot = wx * sx + wz * sz
        if dot <= 0.0:
            near = _hypot(wx, wz)
        elif dot >= len2:
            near = _hypot(cx - bx, cz - bz)
        else:
            near = abs(wx * sz - wz * sx) / _sqrt(len2)
        if near <= LENGTH_EPSILON:
            return True
        # Proper crossing: each segment's ends strictly on opposite sides of the other.
        o1 = sx * wz - sz * wx
        o2 = sx * (dz - az) - sz * (dx - ax)
        if (o1 < 0.0 < o2) or (o2 < 0.0 < o1):
            ex = dx - cx
            ez = dz - cz
            o3 = ex * (az - cz) - ez * (ax - cx)
            o4 = ex * (bz - cz) - ez * (bx - cx)
            if (o3 < 0.0 < o4) or (o4 < 0.0 < o3):
                return True
        cx, cz = dx, dz
    return False


def segment_enters(shape: Circle | Polygon, a: Point, b: Point) -> bool:
    """True if any point of the segment ``a``-``b`` is inside or on ``shape``; touching counts."""
    ax, az = a
    bx, bz = b
    x0, z0, x1, z1 = shape.reach
    if (
        (ax < x0 and bx < x0)
        or (ax > x1 and bx > x1)
        or (az < z0 and bz < z0)
        or (az > z1 and bz > z1)
    ):
        return False  # wholly to one side of its box
    if isinstance(shape, Circle):
        d = _segment_point_distance(ax, az, bx, bz, shape.x, shape.z)
        return d <= shape.radius + LENGTH_EPSILON
    pts = shape.points
    # an end outside the box is not inside (nor on) the polygon: no need to walk its edges
    if (x0 <= ax <= x1 and z0 <= az <= z1 and _polygon_contains(pts, ax, az)) or (
        x0 <= bx <= x1 and z0 <= bz <= z1 and _polygon_contains(pts, bx, bz)
    ):
        return True
    # Both ends strictly outside: the segment enters only by meeting the boundary.
    return _segment_crosses_boundary(pts, ax, az, bx, bz)


def shape_center(shape: Circle | Polygon) -> Point:
    """Circle centre, or the mean of the polygon's vertices."""
    if isinstance(shape, Circle):
        return (shape.x, shape.z)
    pts = shape.points
    n = len(pts)
    return (sum(x for x, _ in pts) / n, sum(z for _, z in pts) / n)


def bounding_radius(shape: Circle | Polygon) -> float:
    """Largest distance from :func:`shape_center` to the boundary, for cheap rejects."""
    if isinstance(shape, Circle):
        return shape.radius
    cx, cz = shape_center(shape)
    # The farthest boundary point of a polygon is always a vertex.
    return max(_hypot(x - cx, z - cz) for x, z in shape.points)


Box = tuple[float, float, float, float]  # x_min, z_min, x_max, z_max


def bounding_box(shape: Circle | Polygon, grow: float = 0.0) -> Box:
    """The axis-aligned box around ``shape``, widened by ``grow`` on every side."""
    if isinstance(shape, Circle):
        r = shape.radius + grow
        return (shape.x - r, shape.z - r, shape.x + r, shape.z + r)
    xs = [x for x, _ in shape.points]
    zs = [z for _, z in shape.points]
    return (min(xs) - grow, min(zs) - grow, max(xs) + grow, max(zs) + grow)


class SegmentIndex:
    """Which of a fixed list of boxes a segment can meet, without looking at them all.

    Each box is filed under the square cells of a grid that it overlaps; a segment looks only
    in the cells it passes through (widened by ``MARGIN``, far above float noise and far below
    anything a player places), so a query costs O(cells crossed + boxes filed there), not
    O(boxes). Boxes too big to file (more than ``MAX_CELLS`` cells) are looked at by every
    query, and a query that would cross more cells than there are boxes looks at every box.
    The answer is a superset of the boxes the segment meets, in their given order: callers
    run their exact test on it, so an index changes what they cost, never what they find.
    """

    CELL = 6.0  # inches: a few tanks wide
    MAX_CELLS = 64
    MARGIN = 1e-3

    def __init__(self, boxes: list[Box]) -> None:
        self.count = len(boxes)
        cells: dict[tuple[int, int], list[int]] = {}
        self.always: list[int] = []
        cell = self.CELL
        for i, (x0, z0, x1, z1) in enumerate(boxes):
            c0, c1 = math.floor(x0 / cell), math.floor(x1 / cell)
            r0, r1 = math.floor(z0 / cell), math.floor(z1 / cell)
            if (c1 - c0 + 1) * (r1 - r0 + 1) > self.MAX_CELLS:
                self.always.append(i)
                continue
            for c in range(c0, c1 + 1):
                for r in range(r0, r1 + 1):
                    cells.setdefault((c, r), []).append(i)
        # column -> the rows of its cells that hold boxes (ascending) and those cells' boxes:
        # a line walks the columns it crosses and finds the filed cells within its rows there
        # by bisection, never visiting an empty cell.
        self.columns: dict[int, tuple[list[int], list[list[int]]]] = {}
        for (c, r), filed in sorted(cells.items()):
            rows, held = self.columns.setdefault(c, ([], []))
            rows.append(r)
            held.append(filed)

    def near(self, a: Point, b: Point) -> list[int]:
        """The indices (ascending) of every box the segment ``a``-``b`` meets, and maybe a
        few it passes close to."""
        cell, m = self.CELL, self.MARGIN
        ax, az = a
        bx, bz = b
        x_lo, x_hi = (ax, bx) if ax <= bx else (bx, ax)
        c0, c1 = math.floor((x_lo - m) / cell), math.floor((x_hi + m) / cell)
        if c1 - c0 + 1 > self.count:  # a long line across a sparse index: look at all
            return list(range(self.count))
        dx, dz = bx - ax, bz - az
        # A nearly upright line is taken as upright: its whole z span in each column it
        # crosses (a superset, as ``near`` may give), never a slope that overflows to inf/NaN.
        upright = abs(dx) < _UPRIGHT
        slope = 0.0 if upright else dz / dx
        found: set[int] = set(self.always)
        budget = 2 * self.count + 2  # columns and cells worth a look before all is cheaper
        columns = self.columns
        for c in range(c0, c1 + 1):
            column = columns.get(c)
            if column is None:  # nothing filed in this column
                continue
            # The part of the segment over this column (a column's width, widened by m).
            if upright:
                z_lo, z_hi = (az, bz) if az <= bz else (bz, az)
            else:
                xa = x_lo if x_lo > c * cell - m else c * cell - m
                xb = x_hi if x_hi < (c + 1) * cell + m else (c + 1) * cell + m
                za = az + (xa - ax) * slope
                zb = az + (xb - ax) * slope
                z_lo, z_hi = (za, zb) if za <= zb else (zb, za)
            rows, held = column
            first = bisect_left(rows, math.floor((z_lo - m) / cell))
            last = bisect_right(rows, math.floor((z_hi + m) / cell))
            budget -= 1 + last - first
            if budget < 0:
                return list(range(self.count))
            for k in range(first, last):
                found.update(held[k])
        return sorted(found)


class SegmentFan:
    """Segments from one fixed end ``a`` to many ends ``b``, against fixed shapes and points:
    which shapes a-b enters (``segment_enters``) and holds b (``contains``), and how far a-b
    passes from each point (``segment_point_distance``), to the last bit, with the work that
    depends on ``a`` alone done once: whether each shape holds ``a`` (``holds_a``), where
    each circle and point lies from ``a``. One shooter's lines of fire to every target share it.
    """

    __slots__ = ("a", "circles", "cones", "holds_a", "points", "shapes")

    def __init__(
        self, a: Point, shapes: list[Circle | Polygon], points: tuple[Point, ...] = ()
    ) -> None:
        self.a = a
        self.shapes = shapes
        self.holds_a = [contains(shape, a) for shape in shapes]
        # Per circle: its centre, its reach (radius + LENGTH_EPSILON, as segment_enters and
        # contains add it), then as for a point; None for a polygon.
        self.circles: list[tuple[float, float, float, float, float, float] | None] = []
        for shape in shapes:
            if isinstance(shape, Circle):
                self.circles.append(
                    (
                        shape.x,
                        shape.z,
                        shape.radius + LENGTH_EPSILON,
                        *self._from_a(shape.x, shape.z),
                    )
                )
            else:
                self.circles.append(None)
        self.cones = self._cones()
        # Per point: its position, the point less a (the w of _segment_point_distance) and
        # |w| (its distance when the nearest point of the segment is a).
        self.points = [(px, pz, *self._from_a(px, pz)) for px, pz in points]

    def _cones(self) -> list[tuple[float, float, int]]:
        """(lowest, highest bearing from a, index) of the directions in which a segment from
        a can meet each shape, in shape order: a disc seen from outside lies within a cone
        of half-width asin(radius / distance) about its centre, so a segment whose bearing
        lies outside it cannot enter it. Widened well beyond any rounding (the exact test
        still decides every segment inside), split in two where it crosses -pi/pi; a
        polygon, or a disc that holds or nearly holds a, may be met in any direction."""
        cones: list[tuple[float, float, int]] = []
        for i, circle in enumerate(self.circles):
            if circle is None:
                cones.append((-_INF, _INF, i))
                continue
            _, _, reach, wx, wz, near_a = circle
            ratio = reach * _WIDEN / near_a if near_a > 0.0 else _INF
            if ratio > _NEARLY_HELD:  # asin is steep there: any direction
                cones.append((-_INF, _INF, i))
                continue
            centre = math.atan2(wz, wx)
            half = math.asin(ratio) + _CONE_MARGIN
            low, high = centre - half, centre + half
            if low < -math.pi:
                cones.append((low + math.tau, _INF, i))
            if high > math.pi:
                cones.append((-_INF, high - math.tau, i))
            cones.append((low, high, i))
        return cones

    def _from_a(self, px: float, pz: float) -> tuple[float, float, float]:
        wx, wz = px - self.a[0], pz - self.a[1]
        return wx, wz, _hypot(wx, wz)

    def entered(self, b: Point, which: list[int] | None = None) -> list[tuple[int, bool]]:
        """(index, whether it holds b) of each shape (of ``which``, else all) a-b enters."""
        ax, az = self.a
        bx, bz = b
        dx = bx - ax
        dz = bz - az
        len2 = dx * dx + dz * dz
        length = _sqrt(len2)  # the same float for every circle: taken once
        out = []
        circles = self.circles
        if which is None:
            # Only the shapes whose cone holds the segment's bearing (see _cones): most
            # pieces of a table lie off any one line, and this costs a comparison each.
            # A cone split at -pi/pi lists its index twice; one bearing lies in one part.
            bearing = _atan2(dz, dx)
            which = [i for low, high, i in self.cones if low <= bearing <= high]
        for i in which:
            circle = circles[i]
            if circle is None:
                shape = self.shapes[i]
                if segment_enters(shape, self.a, b):
                    out.append((i, contains(shape, b)))
                continue
            # _segment_point_distance's arithmetic, term for term, so the ruling on a line
            # that grazes a circle cannot differ from segment_enters'.
            px, pz, reach, wx, wz, near_a = circle
            dot = wx * dx + wz * dz
            if dot <= 0.0:
                d = near_a
            elif dot >= len2:
                d = _hypot(px - bx, pz - bz)
            else:
                d = abs(wx * dz - wz * dx) / length
            if d <= reach:
                out.append((i, _hypot(bx - px, bz - pz) <= reach))
        return out

    def distances(self, b: Point) -> list[float]:
        """``segment_point_distance(a, b, p)`` for each of the points, in order."""
        ax, az = self.a
        bx, bz = b
        dx = bx - ax
        dz = bz - az
        len2 = dx * dx + dz * dz
        out = []
        for px, pz, wx, wz, near_a in self.points:
            dot = wx * dx + wz * dz
            if dot <= 0.0:
                out.append(near_a)
            elif dot >= len2:
                out.append(_hypot(px - bx, pz - bz))
            else:
                out.append(abs(wx * dz - wz * dx) / _sqrt(len2))
        return out


# --- hit arcs -----------------------------------------------------------------------------

Arc = Literal["front", "side", "rear"]


@dataclass(frozen=True, slots=True)
class ArcReading:
    arc: Arc
    relative: float  # the relative angle used, in (-180, 180]
    # The two arcs meeting at the boundary when the angle lies on one (inner arc first);
    # ``arc`` is then the inner one and the ruleset decides which side applies.
    on_edge: tuple[Arc, Arc] | None = None


def arc_of(
    relative: float, front_half_width: float = 45.0, rear_half_width: float = 45.0
) -> ArcReading:
    """Which arc of a model a relative bearing falls in.

    Front when ``|relative| < front_half_width``, rear when ``|relative| > 180 -
    rear_half_width``, side otherwise. Within EPSILON_DEG of a boundary the inner arc is
    given and ``on_edge`` names both arcs. When the two widths add up to 180 (within
    EPSILON_DEG) there is no side arc and the single boundary is front/rear.
    """
    if not (
        math.isfinite(front_half_width)
        and math.isfinite(rear_half_width)
        and front_half_width > 0.0
        and rear_half_width > 0.0
        and front_half_width + rear_half_width <= 180.0 + EPSILON_DEG
    ):
        raise ValueError(
            "arc half-widths must be positive and add up to at most 180 degrees, got "
            f"front {front_half_width}, rear {rear_half_width}"
        )
    if not math.isfinite(relative):
        raise ValueError(f"relative bearing must be finite, got {relative}")
    rel = signed_angle(relative)
    arc, edge = arc_at(rel, front_half_width, rear_half_width)
    return ArcReading(arc, rel, edge)


def arc_at(
    rel: float, front_half_width: float, rear_half_width: float
) -> tuple[Arc, tuple[Arc, Arc] | None]:
    """``arc_of``'s arc and edge for a bearing already folded by ``signed_angle``, without
    its checks or its reading object: for widths already checked (a table's options), in
    the hot path of every shot."""
    mag = abs(rel)
    if front_half_width + rear_half_width >= 180.0 - EPSILON_DEG:
        if abs(mag - front_half_width) <= EPSILON_DEG:
            return "front", ("front", "rear")
        return ("front" if mag < front_half_width else "rear"), None
    if abs(mag - front_half_width) <= EPSILON_DEG:
        return "front", ("front", "side")
    rear_edge = 180.0 - rear_half_width
    if abs(mag - rear_edge) <= EPSILON_DEG:
        return "side", ("side", "rear")
    if mag < front_half_width:
        return "front", None
    if mag > rear_edge:
        return "rear", None
    return "side", None


# --- the table ----------------------------------------------------------------------------

Edge = Literal["north", "south", "east", "west"]

_EDGE_HEADING: dict[str, float] = {"north": 0.0, "east": 90.0, "south": 180.0, "west": 270.0}


class TableArea(BaseModel):
    """The playing area, an axis-aligned rectangle; north is +z, east is +x.

    The default is a 6' x 4' table centred on the origin, long side along x.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    x_min: Coord = -36.0
    x_max: Coord = 36.0
    z_min: Coord = -24.0
    z_max: Coord = 24.0

    @model_validator(mode="after")
    def _min_below_max(self) -> TableArea:
        if not self.x_min < self.x_max:
            raise ValueError(f"x_min ({self.x_min}) must be below x_max ({self.x_max})")
        if not self.z_min < self.z_max:
            raise ValueError(f"z_min ({self.z_min}) must be below z_max ({self.z_max})")
        return self

    def contains(self, p: Point) -> bool:
        """True on the table, edges included."""
        return self.x_min <= p[0] <= self.x_max and self.z_min <= p[1] <= self.z_max

    def distance_to_edge(self, edge: Edge, p: Point) -> float:
        """Distance to ``edge``'s line: positive on the table side, negative beyond it."""
        if edge == "north":
            return self.z_max - p[1]
        if edge == "south":
            return p[1] - self.z_min
        if edge == "east":
            return self.x_max - p[0]
        if edge == "west":
            return p[0] - self.x_min
        raise ValueError(f"unknown table edge {edge!r}")

    def nearest_edge(self, p: Point) -> Edge:
        """The edge with the smallest signed distance (so, off the table, the edge it is past).

        Ties go to the first of south, north, west, east.
        """
        best: Edge = "south"
        best_d = p[1] - self.z_min
        d = self.z_max - p[1]
        if d < best_d:
            best, best_d = "north", d
        d = p[0] - self.x_min
        if d < best_d:
            best, best_d = "west", d
        if self.x_max - p[0] < best_d:
            best = "east"
        return best

    def edge_heading(self, edge: Edge) -> float:
        """The yaw pointing straight at ``edge``: north 0, east 90, south 180, west 270."""
        try:
            return _EDGE_HEADING[edge]
        except KeyError:
            raise ValueError(f"unknown table edge {edge!r}") from None

    def drive_toward_edge(self, edge: Edge, p: Point, dist: float) -> tuple[Point, bool]:
        """Move ``p`` straight toward ``edge`` by ``dist`` inches.

        Returns ``(new point, left_table)``. When the move reaches or crosses the edge line
        (or ``p`` was already on or beyond it), ``left_table`` is True and the point returned
        is on the edge line, where the model leaves the table.
        """
        if not (math.isfinite(dist) and dist >= 0.0):
            raise ValueError(f"drive distance must be finite and not negative, got {dist}")
        x, z = p
        remaining = self.distance_to_edge(edge, p)
        left = dist >= remaining
        # Only one coordinate moves, so no trig and the arithmetic stays exact.
        if edge == "north":
            return ((x, self.z_max) if left else (x, z + dist)), left
        if edge == "south":
            return ((x, self.z_min) if left else (x, z - dist)), left
        if edge == "east":
            return ((self.x_max, z) if left else (x + dist, z)), left
        return ((self.x_min, z) if left else (x - dist, z)), left
