"""A hex grid laid over the table: TTS positions to hexes and back, distance, lines, paths.

Hexes are axial coordinates ``(q, r)`` of the usual cube system (``s = -q - r``); a rule
system that plays on hexes counts its distances, lines of sight and movement here.

The table plane is Tabletop Simulator's (x, z) in inches, +z north. A grid is fixed by the
distance between the centres of two neighbouring hexes (``hex_width``, flat side to flat
side, what a player measures on a printed map), the orientation (``pointy``: a corner points
north, rows of hexes run east-west; ``flat``: a flat side faces north, columns run
north-south) and where the centre of hex (0, 0) lies. On a pointy grid +q runs east and +r
north-north-east; on a flat grid +q runs east-north-east and +r north.

Lines are the standard cube-coordinate line: sample the straight line between the two
centres at ``N + 1`` evenly spaced points (``N`` the hex distance) and round each to its hex.
A sample that falls exactly on a hex edge would round either way, so the end points are
nudged by a tiny cube offset; :func:`hex_lines` gives the line nudged both ways, and where
the two differ the line runs along hex edges (the hexes on its two sides). The ruleset says
which of the two applies (for example: sight is blocked only when both are).

Pure: no I/O. Hot paths take and return plain tuples.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Iterator
from typing import Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field

from tankref.core.geometry import Point

__all__ = [
    "DIRECTIONS",
    "NUDGE",
    "Hex",
    "HexGrid",
    "Orientation",
    "Reach",
    "cube_round",
    "hex_distance",
    "hex_line",
    "hex_lines",
    "neighbours",
    "path_to",
    "reachable",
]

_SQRT3 = math.sqrt(3.0)
# The cube offset added to both ends of a line so no sample lands exactly on an edge; its
# three parts are different and add up to zero, so it never lands on a vertex either.
NUDGE: tuple[float, float, float] = (1e-6, 2e-6, -3e-6)

Orientation = Literal["pointy", "flat"]


class Hex(NamedTuple):
    """One hex in axial coordinates; ``s`` completes the cube triple (q + r + s = 0)."""

    q: int
    r: int

    @property
    def s(self) -> int:
        return -self.q - self.r

    def __str__(self) -> str:
        return f"({self.q},{self.r})"


# The six neighbours, counter-clockwise from +q.
DIRECTIONS: tuple[Hex, ...] = (
    Hex(1, 0),
    Hex(1, -1),
    Hex(0, -1),
    Hex(-1, 0),
    Hex(-1, 1),
    Hex(0, 1),
)


def neighbours(h: Hex) -> list[Hex]:
    q, r = h
    return [Hex(q + dq, r + dr) for dq, dr in DIRECTIONS]


def hex_distance(a: Hex, b: Hex) -> int:
    """Steps from ``a`` to ``b`` (the largest of the three cube differences)."""
    dq = a[0] - b[0]
    dr = a[1] - b[1]
    return max(abs(dq), abs(dr), abs(dq + dr))


def _round_half_up(v: float) -> int:
    # Python's round() goes to even on .5; half-up keeps the rounding direction-independent.
    return math.floor(v + 0.5)


def cube_round(fq: float, fr: float) -> Hex:
    """The hex holding fractional axial coordinates (cube rounding: round all three, then
    recompute the one that moved most so they add up to zero again)."""
    fs = -fq - fr
    q, r, s = _round_half_up(fq), _round_half_up(fr), _round_half_up(fs)
    dq, dr, ds = abs(q - fq), abs(r - fr), abs(s - fs)
    if dq > dr and dq > ds:
        q = -r - s
    elif dr > ds:
        r = -q - s
    return Hex(q, r)


def hex_line(a: Hex, b: Hex, nudge: int = 1) -> list[Hex]:
    """The hexes a straight line from the centre of ``a`` to the centre of ``b`` passes,
    ``a`` first and ``b`` last, one per step. ``nudge`` +1 or -1: which way a sample lying
    exactly on an edge is pushed."""
    n = hex_distance(a, b)
    if n == 0:
        return [Hex(a[0], a[1])]
    eq, er = NUDGE[0] * nudge, NUDGE[1] * nudge
    aq, ar = a[0] + eq, a[1] + er
    dq, dr = (b[0] + eq) - aq, (b[1] + er) - ar
    out = []
    for i in range(n + 1):
        t = i / n
        out.append(cube_round(aq + dq * t, ar + dr * t))
    return out


def hex_lines(a: Hex, b: Hex) -> tuple[list[Hex], list[Hex]]:
    """The line nudged both ways. Equal unless part of it runs along hex edges; then the
    first and the second hold the hexes on either side of those edges."""
    return hex_line(a, b, 1), hex_line(a, b, -1)


# --- paths ----------------------------------------------------------------------------------


class Reach(NamedTuple):
    """How a hex is reached most cheaply: its total cost and the hex it is entered from."""

    cost: int
    came_from: Hex | None


def reachable(
    start: Hex,
    cost_to_enter: Callable[[Hex], int | None],
    budget: int,
    may_pass: Callable[[Hex], bool] | None = None,
) -> dict[Hex, Reach]:
    """Every hex reachable from ``start`` for at most ``budget`` points (Dijkstra).

    ``cost_to_enter(h)`` is the points spent entering ``h``, None where it may not be
    entered. ``may_pass(h)``: False where a path may end but not continue. Ties between
    equally cheap paths go to the hex found first in :data:`DIRECTIONS` order, so the
    answer never depends on a hash order.
    """
    best: dict[Hex, Reach] = {start: Reach(0, None)}
    frontier: list[tuple[int, int, Hex]] = [(0, 0, start)]
    order = 0
    while frontier:
        spent, _, here = heapq.heappop(frontier)
        if spent > best[here].cost:
            continue
        if here != start and may_pass is not None and not may_pass(here):
            continue
        for nxt in neighbours(here):
            step = cost_to_enter(nxt)
            if step is None:
                continue
            total = spent + step
            if total > budget:
                continue
            seen = best.get(nxt)
            if seen is None or total < seen.cost:
                best[nxt] = Reach(total, here)
                order += 1
                heapq.heappush(frontier, (total, order, nxt))
    return best


def path_to(reach: dict[Hex, Reach], goal: Hex) -> list[Hex]:
    """The path (start first, ``goal`` last) recorded in a :func:`reachable` answer."""
    path = [goal]
    step = reach[goal].came_from
    while step is not None:
        path.append(step)
        step = reach[step].came_from
    path.reverse()
    return path


# --- the grid on the table -------------------------------------------------------------------


class HexGrid(BaseModel):
    """Where the hexes lie on the TTS table (inches; +z north)."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    hex_width: float = Field(
        default=2.0,
        gt=0.1,
        le=100.0,
        description="Inches between the centres of two neighbouring hexes (flat to flat).",
    )
    orientation: Orientation = Field(
        default="pointy", description="pointy: a corner points north; flat: a side faces north."
    )
    origin_x: float = Field(default=0.0, ge=-10_000, le=10_000, description="Centre of hex 0,0.")
    origin_z: float = Field(default=0.0, ge=-10_000, le=10_000, description="Centre of hex 0,0.")

    @property
    def radius(self) -> float:
        """Centre to corner, inches."""
        return self.hex_width / _SQRT3

    def hex_at(self, x: float, z: float) -> Hex:
        """The hex under the TTS point (x, z). A point exactly on an edge goes to one of the
        two hexes, always the same one."""
        w = self.hex_width
        dx, dz = x - self.origin_x, z - self.origin_z
        if self.orientation == "pointy":
            fr = dz / (w * _SQRT3 / 2.0)
            fq = dx / w - fr / 2.0
        else:
            fq = dx / (w * _SQRT3 / 2.0)
            fr = dz / w - fq / 2.0
        return cube_round(fq, fr)

    def center(self, h: Hex) -> Point:
        """The hex's centre on the table, inches."""
        q, r = h
        w = self.hex_width
        if self.orientation == "pointy":
            return (self.origin_x + w * (q + r / 2.0), self.origin_z + w * _SQRT3 / 2.0 * r)
        return (self.origin_x + w * _SQRT3 / 2.0 * q, self.origin_z + w * (r + q / 2.0))

    def corners(self, h: Hex) -> list[Point]:
        """The six corners, counter-clockwise (for drawing the hex)."""
        cx, cz = self.center(h)
        start = 30.0 if self.orientation == "pointy" else 0.0
        rad = self.radius
        out = []
        for i in range(6):
            angle = math.radians(start + 60.0 * i)
            out.append((cx + rad * math.cos(angle), cz + rad * math.sin(angle)))
        return out

    def hexes_in(self, x_min: float, x_max: float, z_min: float, z_max: float) -> Iterator[Hex]:
        """Every hex whose centre lies in the rectangle (edges included), row by row (pointy)
        or column by column (flat); only the hexes inside are visited."""
        eps = 1e-9
        w = self.hex_width
        step = w * _SQRT3 / 2.0  # between rows (pointy) or columns (flat)
        if self.orientation == "pointy":
            # z depends on r only; then x on q given r.
            r_lo = math.ceil((z_min - self.origin_z) / step - eps)
            r_hi = math.floor((z_max - self.origin_z) / step + eps)
            for r in range(r_lo, r_hi + 1):
                q_lo = math.ceil((x_min - self.origin_x) / w - r / 2.0 - eps)
                q_hi = math.floor((x_max - self.origin_x) / w - r / 2.0 + eps)
                for q in range(q_lo, q_hi + 1):
                    yield Hex(q, r)
            return
        # flat: x depends on q only; then z on r given q.
        q_lo = math.ceil((x_min - self.origin_x) / step - eps)
        q_hi = math.floor((x_max - self.origin_x) / step + eps)
        for q in range(q_lo, q_hi + 1):
            r_lo = math.ceil((z_min - self.origin_z) / w - q / 2.0 - eps)
            r_hi = math.floor((z_max - self.origin_z) / w - q / 2.0 + eps)
            for r in range(r_lo, r_hi + 1):
                yield Hex(q, r)
