"""Reading a line of fire: sight, concealment, cover, smoke, hull-down and the side hit.

Rulings where the text leaves room are stated once here and reported with every shot:
- TTT-E1: tanks do not block sight; a ``blocking`` piece crossed by the line blocks it unless
  the shooter or the target stands inside that piece.
- TTT-CN1: a forest holding the target is light (+1) from inside the same forest, heavy (+2)
  from outside; a forest crossed between them is heavy (+2); a forest holding only the
  shooter is light (+1). The largest applies.
- TTT-CV1: cover pieces holding the target or crossed by the line count; the largest applies;
  a piece that holds only the shooter does not protect the target.
- TTT-E2: a target inside a ``hill`` piece is hull-down to shooters outside it (Turret hit),
  as is a tank flagged hull-down by the players.
- TTT-SM3: a screen counts when the line of fire passes within its radius.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import MISSING, dataclass, field, fields
from typing import Any, TypeVar, cast

from tankref.core.geometry import (
    Box,
    Point,
    SegmentFan,
    SegmentIndex,
    arc_at,
    bounding_box,
    contains,
    distance,
    relative_bearing,
    segment_enters,
    segment_point_distance,
    signed_angle,
)
from tankref.core.trusted import frozen
from tankref.rulesets.ttt.cards import Side
from tankref.rulesets.ttt.state import Options, SmokeScreen, TableState, TankState, TerrainPiece

SMOKE_INNER = 6.0  # TTT-SM3
SMOKE_OUTER = 12.0

_WEAKER_ON_EDGE = (
    "TTT-E2: the bearing lies exactly on an arc edge; the more exposed (weaker) armour of the "
    "two is hit"
)


@dataclass
class LineOfFire:
    shooter: Point
    target: Point
    range: float
    visible: bool = True
    blocked_by: str | None = None
    concealment: int = 0
    concealment_why: str = ""
    cover: int = 0
    cover_why: str = ""
    smoke: int = 0
    smoke_screens: list[tuple[int, int]] = field(default_factory=list)  # (screen id, strength)
    hull_down: bool = False
    hull_down_why: str = ""


# A line's fields before any piece or screen is read, in declared order: the dataclass's own
# defaults, read from it (its ends, range and screen list are each line's own, set anew).
_BLANK_LINE: dict[str, Any] = {
    f.name: None if f.default is MISSING else f.default for f in fields(LineOfFire)
}
_new_object = object.__new__


def _new_line(a: Point, b: Point) -> LineOfFire:
    """``LineOfFire(a, b, distance(a, b))`` without the generated ``__init__`` (one per pair
    of a table's odds): its dict a copy of the blank line's (one C call, sized at once, where
    filling an empty instance dict grows it), with the line's own values set."""
    values = _BLANK_LINE.copy()
    values["shooter"] = a
    values["target"] = b
    values["range"] = distance(a, b)
    values["smoke_screens"] = []  # the line's own list: screens are appended to it
    line: LineOfFire = _new_object(LineOfFire)
    line.__dict__ = values
    return line


# Where a table has this many pieces (or screens) or more, a line of fire looks only at those
# near it (``SegmentIndex``): its cost follows the pieces on the line, not the table's size.
INDEXED = 8
_INDEX_CACHE = 256

T = TypeVar("T")
# id of a table's terrain dict (or smoke tuple) -> (it, its items, their index). A state
# never changes its terrain dict in place (setup copies it; copies of a state share it) and
# smoke is a tuple, so the object itself names its contents while the cache holds it.
_indexes: dict[int, tuple[object, Sequence[object], SegmentIndex]] = {}


def _near(
    container: Collection[object],
    items: Callable[[], Sequence[T]],
    box: Callable[[T], Box],
    a: Point,
    b: Point,
) -> Sequence[T]:
    """The items whose box the segment a-b may meet, in their order (all of them when few)."""
    if len(container) < INDEXED:
        return items()
    cached: tuple[object, Sequence[object], SegmentIndex] | None = _indexes.get(id(container))
    if cached is None or cached[0] is not container:
        listed = items()
        cached = (container, listed, SegmentIndex([box(item) for item in listed]))
        if len(_indexes) >= _INDEX_CACHE:
            _indexes.pop(next(iter(_indexes)), None)  # the oldest
        _indexes[id(container)] = cached
    listed = cast("Sequence[T]", cached[1])
    return [listed[i] for i in cached[2].near(a, b)]


def _terrain_box(piece: TerrainPiece) -> Box:
    return bounding_box(piece.shape)


def _smoke_box(screen: SmokeScreen) -> Box:
    reach = SMOKE_OUTER  # no screen reaches a line farther off (TTT-SM3)
    return (screen.x - reach, screen.z - reach, screen.x + reach, screen.z + reach)


def smoke_strength_at(screen: SmokeScreen, dist: float) -> int:
    """TTT-SM3: -2 within 6", -1 from 6" to 12" for a -2 screen; -1 within 6" for a -1."""
    if dist <= SMOKE_INNER:
        return screen.strength
    if screen.strength >= 2 and dist <= SMOKE_OUTER:
        return screen.strength - 1
    return 0


def smoke_on_line(
    screens: tuple[SmokeScreen, ...], a: Point, b: Point, stacking: str
) -> tuple[int, list[tuple[int, int]]]:
    found: list[tuple[int, int]] = []
    # A few screens are read as they stand (``_near``'s own answer then, without its call).
    near = screens if len(screens) < INDEXED else _near(screens, lambda: screens, _smoke_box, a, b)
    for screen in near:
        if screen.strength <= 0:
            continue
        s = smoke_strength_at(screen, segment_point_distance(a, b, (screen.x, screen.z)))
        if s:
            found.append((screen.id, s))
    if not found:
        return 0, found
    total = sum(s for _, s in found) if stacking == "add" else max(s for _, s in found)
    return total, found


def read_line(state: TableState, shooter: TankState, target: TankState) -> LineOfFire:
    a, b = shooter.pos, target.pos
    line = _new_line(a, b)
    terrain = state.terrain
    # A few pieces are read as they stand (``_near``'s own answer then, without its call).
    pieces: Collection[TerrainPiece] = (
        terrain.values()
        if len(terrain) < INDEXED
        else _near(terrain, lambda: list(terrain.values()), _terrain_box, a, b)
    )
    for piece in pieces:
        shape = piece.shape
        if not segment_enters(shape, a, b):
            continue
        _read_piece(line, piece, contains(shape, a), contains(shape, b))
    return _finish(state, line, target)


def _read_piece(
    line: LineOfFire, piece: TerrainPiece, holds_shooter: bool, holds_target: bool
) -> None:
    """What one piece the line enters does to it (the rulings in the module's docstring)."""
    kind = piece.kind
    if kind == "blocking":
        if not holds_shooter and not holds_target and line.visible:
            line.visible = False
            line.blocked_by = piece.id
    elif kind == "forest":
        if holds_target:
            level, why = (1, "same forest") if holds_shooter else (2, "into the forest")
        elif holds_shooter:
            level, why = 1, "out of the shooter's forest"
        else:
            level, why = 2, "through a forest"
        if level > line.concealment:
            line.concealment, line.concealment_why = level, f"{piece.name or piece.id}: {why}"
    elif kind in ("cover1", "cover2"):
        if holds_shooter and not holds_target:
            return
        level = 1 if kind == "cover1" else 2
        if level > line.cover:
            where = "target inside" if holds_target else "between"
            line.cover, line.cover_why = level, f"{piece.name or piece.id}: {where}"
    elif kind == "hill" and holds_target and not holds_shooter and not line.hull_down:
        line.hull_down, line.hull_down_why = (
            True,
            f"{piece.name or piece.id}: hull-down on the hill",
        )


def _finish(state: TableState, line: LineOfFire, target: TankState) -> LineOfFire:
    """The target's own hull-down flag and the smoke on the line."""
    if target.hull_down and not line.hull_down:
        line.hull_down, line.hull_down_why = True, "marked hull-down"
    line.smoke, line.smoke_screens = smoke_on_line(
        state.smoke, line.shooter, line.target, state.options.smoke_stacking
    )
    return line


# Up to this many pieces, one shooter's lines test every piece with the shooter's own numbers
# (``SegmentFan``: a few float operations a piece); beyond it they ask the grid index first.
FAN_SCAN = 24


class Sightlines:
    """``read_line`` from one shooter to many targets: the same ``LineOfFire`` for each, with
    what depends on the shooter alone (which pieces hold it, where each circle and smoke
    screen lies from it) worked out once. The odds for every target of a shooter read their
    lines here."""

    def __init__(self, state: TableState, shooter: TankState) -> None:
        self.state = state
        self.a = shooter.pos
        self.pieces = list(state.terrain.values())
        self.slot = {id(piece): i for i, piece in enumerate(self.pieces)}
        self.stacking = state.options.smoke_stacking
        # Few screens: each line measures its distance to every screen that has strength
        # (read_line looks at them all too); many: the lines ask the index, as read_line.
        self.screens: list[SmokeScreen] | None = None
        centres: tuple[Point, ...] = ()
        if len(state.smoke) < INDEXED:
            self.screens = [screen for screen in state.smoke if screen.strength > 0]
            centres = tuple((screen.x, screen.z) for screen in self.screens)
        self.fan = SegmentFan(self.a, [piece.shape for piece in self.pieces], centres)

    def line(self, target: TankState) -> LineOfFire:
        a, b = self.a, target.pos
        line = _new_line(a, b)
        pieces, fan = self.pieces, self.fan
        which = None
        if len(pieces) > FAN_SCAN:  # the index's candidates (a superset, in table order)
            terrain = self.state.terrain
            near = _near(terrain, lambda: list(terrain.values()), _terrain_box, a, b)
            which = [self.slot[id(piece)] for piece in near]
        holds_a = fan.holds_a
        for i, holds_b in fan.entered(b, which):
            _read_piece(line, pieces[i], holds_a[i], holds_b)
        if target.hull_down and not line.hull_down:
            line.hull_down, line.hull_down_why = True, "marked hull-down"
        if self.screens is None:
            line.smoke, line.smoke_screens = smoke_on_line(self.state.smoke, a, b, self.stacking)
        elif self.screens:
            found: list[tuple[int, int]] = []
            total = strongest = 0  # smoke_on_line's sum and max, kept as the screens are read
            for screen, dist in zip(self.screens, fan.distances(b), strict=True):
                strength = smoke_strength_at(screen, dist)
                if strength:
                    strongest = max(strongest, strength) if found else strength
                    total += strength
                    found.append((screen.id, strength))
            if found:
                line.smoke_screens = found
                line.smoke = total if self.stacking == "add" else strongest
        return line


@dataclass(frozen=True)
class SideReading:
    side: Side
    relative: float
    note: str | None = None  # a boundary ruling, when one was needed


def side_hit(
    options: Options,
    shooter: TankState,
    target: TankState,
    hull_down: bool,
    facing: float | None = None,
) -> SideReading:
    """TTT-E2: the side the shot strikes, by the shooter's bearing from the target's facing
    (``facing``: as if the target faced that way instead, for a turn not yet made)."""
    rel = relative_bearing(
        target.facing if facing is None else facing, (target.x, target.z), (shooter.x, shooter.z)
    )
    if hull_down:
        return _reading("turret", rel)
    # The table's options were checked when set: the arc is read without arc_of's checks.
    arc, edge = arc_at(signed_angle(rel), options.front_arc, options.rear_arc)
    if edge is None:
        return frozen(SideReading, {"side": arc, "relative": rel, "note": None})
    first, second = edge
    armour = target.card.armour
    weaker: Side = first if armour.of(first) <= armour.of(second) else second
    return _reading(weaker, rel, _WEAKER_ON_EDGE)


def _reading(side: Side, relative: float, note: str | None = None) -> SideReading:
    return frozen(SideReading, {"side": side, "relative": relative, "note": note})


def in_front_arc(options: Options, shooter: TankState, target: TankState) -> bool:
    """Turret Jammed: may only Engage targets in the front arc (edge included)."""
    rel = relative_bearing(shooter.facing, shooter.pos, target.pos)
    return abs(rel) <= options.front_arc + 1e-6
