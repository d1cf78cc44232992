"""The physical world of the fake TTS: tables, heights, what rests on what, and who reads a
button from where.

Its facts come only from ``real_saves.json`` (readings from real public saves), never from
``tankref.tts.tabletop``, so a wrong number in the save writer fails a test here:
- a table's flat top reaches its hand zones (they sit at its rim), on every side a hand
  zone faces;
- the top height and each built-in's height at scale 1 are solved from resting heights: a
  piece rests at top + height x scale / 2, fitted over the lowest reading at each scale;
- an unlocked piece with nothing under it falls and is lost when the save loads; one placed
  lower than what it stands on is sunk (physics throws it); two unlocked pieces may not
  overlap; a locked surface must show above what it lies on;
- a button is read upright from +z at rotation 0 (FACTS.md, API ui docs), so a player at -z
  needs it turned by 180.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

SUMMARY = Path(__file__).with_name("real_saves.json")
TOLERANCE = 0.03  # inches: a save's rounding, not a drop
DROP = 0.25  # a piece placed this far above its support falls and may tumble


@dataclass(frozen=True)
class Facts:
    top: float
    tables: dict[str, tuple[float, float]]  # table -> half extent x, z of its flat top
    heights: dict[str, float]  # built-in -> height at scale 1
    rests: dict[str, float]  # built-in whose origin is not its centre -> rest above the top


def _fit(readings: list[tuple[float, float]]) -> tuple[float, float]:
    """(top, height) from (scale, lowest resting y) pairs: y = top + height x scale / 2."""
    if len(readings) == 1:
        raise ValueError("one reading cannot give both top and height")
    n = len(readings)
    mx = sum(s for s, _ in readings) / n
    my = sum(y for _, y in readings) / n
    slope = sum((s - mx) * (y - my) for s, y in readings) / sum((s - mx) ** 2 for s, _ in readings)
    return my - slope * mx, 2 * slope


@cache
def facts() -> Facts:
    data = json.loads(SUMMARY.read_text(encoding="utf-8"))
    saves = data["saves"]
    lowest: dict[tuple[str, str, float], float] = {}
    for save in saves:
        for r in save["resting"]:
            key = (save["path"] + "@" + save["repo"], r["name"], r["scaleY"])
            lowest[key] = min(lowest.get(key, math.inf), r["posY"])

    def series(name: str) -> dict[str, list[tuple[float, float]]]:
        out: dict[str, list[tuple[float, float]]] = {}
        for (where, n, scale), y in lowest.items():
            if n == name:
                out.setdefault(where, []).append((scale, y))
        return out

    # The top and BlockSquare's height: canterbury-tts's thin blocks (0 and 0.1 thick).
    canterbury = series("BlockSquare")["TS_Save_1.json@timur-tabi/canterbury-tts"]
    top, block = _fit([r for r in canterbury if r[0] <= 0.1])
    rectangle = series("BlockRectangle")["TS_Save_1.json@timur-tabi/canterbury-tts"]
    heights = {
        "BlockSquare": block,
        "BlockRectangle": 2 * (rectangle[0][1] - top) / rectangle[0][0],
    }
    # Dice on Table_RPG (Buyn/TTS_save Chess/TS_Save_31): Die_6 at three scales.
    dice = series("Die_6")["Chess/TS_Save_31.json@Buyn/TTS_save"]
    die_top, heights["Die_6"] = _fit(dice)
    assert abs(die_top - top) < 0.01, (die_top, top)  # two saves, two tables, one height
    rounded = series("Die_6_Rounded")["Chess/TS_Save_31.json@Buyn/TTS_save"]
    heights["Die_6_Rounded"] = 2 * (min(y for s, y in rounded if s == 1.0) - top)
    # Scenery whose pivot is not its centre: its origin above the top at scale 1 (highest
    # reading of the settled ones on Table_RPG).
    rests = {}
    for name in ("Tileset_Tree", "Tileset_Rock"):
        rpg = [
            r["posY"]
            for s in saves
            if s["table"] == "Table_RPG"
            for r in s["resting"]
            if r["name"] == name and r["scaleY"] == 1.0
        ]
        rests[name] = max(rpg) - top
    tables: dict[str, tuple[float, float]] = {}
    for save in saves:
        hands = save["hands"]
        if save["table"] in ("Table_None", "Table_Custom") or not hands:
            continue  # no table, or a custom one whose size is the mod's own
        xs = [abs(h["x"]) for h in hands if round(h["rotY"]) % 180 == 90]
        zs = [abs(h["z"]) for h in hands if round(h["rotY"]) % 180 == 0]
        if xs and zs:
            old = tables.get(save["table"], (math.inf, math.inf))
            tables[save["table"]] = (min(old[0], *xs), min(old[1], *zs))
    return Facts(top=top, tables=tables, heights=heights, rests=rests)


# --- reading a save --------------------------------------------------------------------------
@dataclass
class Piece:
    guid: str
    name: str
    nickname: str
    x: float
    y: float
    z: float
    yaw: float
    scale: tuple[float, float, float]
    locked: bool
    tags: list[str]
    children: list[dict[str, Any]] = field(default_factory=list)
    measure: bool = False

    @property
    def height(self) -> float | None:
        h = facts().heights.get(self.name)
        return None if h is None else h * self.scale[1]

    @property
    def bottom(self) -> float | None:
        if self.name in facts().rests:
            return self.y - facts().rests[self.name] * self.scale[1]
        h = self.height
        return None if h is None else self.y - h / 2

    @property
    def top(self) -> float | None:
        h, b = self.height, self.bottom
        return None if h is None or b is None else b + h

    def corners(self) -> list[tuple[float, float]]:
        size = 1.0 if self.name.startswith("Block") else facts().heights.get(self.name, 1.0)
        hx, hz = self.scale[0] * size / 2, self.scale[2] * size / 2
        c, s = math.cos(math.radians(self.yaw)), math.sin(math.radians(self.yaw))
        return [
            (self.x + dx * c + dz * s, self.z - dx * s + dz * c)
            for dx, dz in ((-hx, -hz), (hx, -hz), (hx, hz), (-hx, hz))
        ]

    def covers(self, x: float, z: float) -> bool:
        return _inside((x, z), self.corners())

    @property
    def flat(self) -> bool:
        """A locked block lying square: something can stand on it."""
        return self.locked and self.name == "BlockSquare" and round(self.yaw) % 90 == 0


def pieces(save: dict[str, Any]) -> list[Piece]:
    out = []
    for o in save["ObjectStates"]:
        t = o["Transform"]
        out.append(
            Piece(
                guid=o["GUID"],
                name=o["Name"],
                nickname=o.get("Nickname", ""),
                x=t["posX"],
                y=t["posY"],
                z=t["posZ"],
                yaw=t["rotY"],
                scale=(t["scaleX"], t["scaleY"], t["scaleZ"]),
                locked=bool(o.get("Locked")),
                tags=list(o.get("Tags", [])),
                children=list(o.get("ChildObjects") or []),
                measure=bool(o.get("MeasureMovement")),
            )
        )
    return out


def _inside(p: tuple[float, float], poly: list[tuple[float, float]]) -> bool:
    sign = 0.0
    for i in range(len(poly)):
        (ax, az), (bx, bz) = poly[i], poly[(i + 1) % len(poly)]
        cross = (bx - ax) * (p[1] - az) - (bz - az) * (p[0] - ax)
        if abs(cross) < 1e-9:
            continue
        if sign and (cross > 0) != (sign > 0):
            return False
        sign = cross
    return True


def _overlap(a: list[tuple[float, float]], b: list[tuple[float, float]]) -> bool:
    """Two convex footprints overlap (separating axis test; touching is not overlap)."""
    for poly in (a, b):
        for i in range(len(poly)):
            (ax, az), (bx, bz) = poly[i], poly[(i + 1) % len(poly)]
            nx, nz = az - bz, bx - ax
            pa = [nx * x + nz * z for x, z in a]
            pb = [nx * x + nz * z for x, z in b]
            if max(pa) <= min(pb) + 1e-6 or max(pb) <= min(pa) + 1e-6:
                return False
    return True


def support(
    save: dict[str, Any], world: list[Piece], piece: Piece, reach: float = 0.5
) -> float | None:
    """The height of what the piece stands on (the highest table top or locked surface under
    its centre that is not more than ``reach`` above its bottom: a loose piece placed lower
    has sunk into it), or None: nothing, it falls."""
    tops: list[float] = []
    f = facts()
    table = save.get("Table", "")
    if table in f.tables:
        hx, hz = f.tables[table]
        if abs(piece.x) <= hx and abs(piece.z) <= hz:
            tops.append(f.top)
    bottom = piece.bottom if piece.bottom is not None else piece.y
    for other in world:
        if other is piece or not other.flat or other.top is None:
            continue
        if other.covers(piece.x, piece.z) and other.top <= bottom + reach:
            tops.append(other.top)
    return max(tops) if tops else None


def inspect(save: dict[str, Any]) -> list[str]:
    """Everything physically wrong with a save as it loads, in words."""
    f = facts()
    problems: list[str] = []
    table = save.get("Table", "")
    if table != "Table_None" and table not in f.tables:
        problems.append(f"table {table!r}: no real save shows its flat top")
    world = pieces(save)
    for p in world:
        what = f"{p.nickname or p.name} ({p.guid})"
        below = support(save, world, p, TOLERANCE if p.locked else 0.5)
        if p.locked:
            if p.flat and _hidden(save, world, p):
                problems.append(f"{what}: a locked surface flush with or under the top")
            resting = below is None or p.bottom is None or abs(p.bottom - below) <= 0.05
            if p.name in f.rests and not resting:
                problems.append(f"{what}: scenery at {p.y:.3f} is not resting on {below:.3f}")
            continue
        if below is None:
            problems.append(f"{what}: nothing under it at ({p.x}, {p.z}): it falls and is lost")
            continue
        if p.bottom is None:
            if not below < p.y < below + 1.0:
                problems.append(f"{what}: a {p.name} at {p.y:.3f} above {below:.3f}")
            continue
        if p.bottom < below - TOLERANCE:
            problems.append(f"{what}: sunk {below - p.bottom:.3f} into what it stands on")
        elif p.bottom > below + DROP:
            problems.append(f"{what}: {p.bottom - below:.3f} above what it stands on")
    loose = [p for p in world if not p.locked]
    for i, a in enumerate(loose):
        for b in loose[i + 1 :]:
            if _overlap(a.corners(), b.corners()):
                problems.append(f"{a.nickname or a.name} overlaps {b.nickname or b.name}")
        for b in world:
            # A loose piece inside a solid locked one (a building, not what it stands on).
            if not (b.flat and b.top is not None and b.bottom is not None and a.bottom):
                continue
            above_its_base = b.top > a.bottom + TOLERANCE
            below_its_top = b.bottom < (a.top or a.y) - TOLERANCE
            if above_its_base and below_its_top and _overlap(a.corners(), b.corners()):
                problems.append(f"{a.nickname or a.name} is inside {b.nickname}")
    for p in world:
        if "tank" in p.tags:
            problems.extend(_front(p))
    problems.extend(_hands(save))
    return problems


def _hands(save: dict[str, Any]) -> list[str]:
    """Hand zones face the table as in real saves: one at the south edge turned 0, at the
    north 180 (every hand zone of a stock table that sits at its south or north edge
    agrees; a mod's own zones on Table_None or a custom table may be anything)."""
    real = [
        (h["z"], h["rotY"])
        for s in json.loads(SUMMARY.read_text(encoding="utf-8"))["saves"]
        if s["table"] not in ("Table_None", "Table_Custom")
        for h in s["hands"]
        if abs(h["z"]) > 10 and abs(h["x"]) < abs(h["z"]) / 2
    ]
    assert real and all(abs(((r - (0 if z < 0 else 180)) + 180) % 360 - 180) < 5 for z, r in real)
    out = []
    for hand in (save.get("Hands") or {}).get("HandTransforms") or []:
        t = hand["Transform"]
        want = 0.0 if t["posZ"] < 0 else 180.0
        if abs(((t["rotY"] - want) + 180) % 360 - 180) > 5:
            out.append(f"{hand['Color']}'s hand zone at z {t['posZ']:+.0f} faces {t['rotY']:.0f}")
    return out


def _hidden(save: dict[str, Any], world: list[Piece], p: Piece) -> bool:
    """A locked surface whose top is not above the table top or the surface it lies in."""
    f = facts()
    assert p.top is not None and p.bottom is not None
    table = f.tables.get(save.get("Table", ""))
    on_table = table is not None and abs(p.x) <= table[0] and abs(p.z) <= table[1]
    if on_table and p.top <= f.top + 0.005:
        return True
    for other in world:
        if other is p or not other.flat or other.top is None or other.bottom is None:
            continue
        if other.covers(p.x, p.z) and other.bottom < p.top - 0.005 <= other.top:
            return True
    return False


def _front(tank: Piece) -> list[str]:
    """A tank shows its front: a narrow part (a gun) reaching past the hull's front (+z at
    rotation 0, in the hull's own scaled space), and TTS measures its moves."""
    out = []
    gun = [
        c
        for c in tank.children
        if c["Transform"]["posZ"] + c["Transform"]["scaleZ"] / 2 > 0.5
        and c["Transform"]["scaleX"] < 0.5
    ]
    if not gun:
        out.append(f"{tank.nickname}: nothing shows which way it faces")
    if not tank.measure:
        out.append(f"{tank.nickname}: MeasureMovement is off")
    # Child transforms are in the parent's scaled space (real_saves.json child_objects): a
    # part reaching below the hull's base (-0.5) would sit in the table.
    for c in tank.children:
        t = c["Transform"]
        if t["posY"] - t["scaleY"] / 2 < -0.5 - 1e-6:
            out.append(f"{tank.nickname}: its {c.get('Nickname', c['Name'])} is below its base")
    return out


class World:
    """The table as a loaded save made it: the table top and the locked surfaces (they never
    move). ``fall`` loses every unlocked object that a player or a script has put where
    nothing holds it up."""

    def __init__(self, save: dict[str, Any]) -> None:
        self._save = {"Table": save.get("Table", "")}
        self._surfaces = [p for p in pieces(save) if p.flat]
        self._locked = {p.guid for p in pieces(save) if p.locked}
        self._seen: dict[str, tuple[float, float]] = {}

    def holds(self, x: float, z: float) -> bool:
        probe = Piece("", "", "", x, math.inf, z, 0.0, (0.0, 0.0, 0.0), False, [])
        return support(self._save, self._surfaces, probe) is not None

    def fall(self, tts: Any) -> None:
        for obj in tts.objects.values():
            if obj.destroyed or obj.held_by is not None or obj.guid in self._locked:
                continue
            where = (obj.position[0], obj.position[2])
            if self._seen.get(obj.guid) == where:
                continue  # only a piece that moved can have left the table
            self._seen[obj.guid] = where
            if not self.holds(*where):
                obj.destroyed = True


# --- buttons ---------------------------------------------------------------------------------
def seats(save: dict[str, Any]) -> dict[str, float]:
    """Each seat colour and the z of its hand zone: which edge the player sits at."""
    hands = (save.get("Hands") or {}).get("HandTransforms") or []
    return {h["Color"]: h["Transform"]["posZ"] for h in hands}


def button_problems(tts: Any, save: dict[str, Any]) -> list[str]:
    """Every button is read upright from the seat that uses it and is not stretched: a
    side's model faces that side's seat; the board faces the nearer edge."""
    where = seats(save)
    problems = []

    def side_of(obj: Any) -> str | None:
        return next((t[5:] for t in obj.tags if t.startswith("side:")), None)

    # While a target is picked, the picking buttons are the shooter's side's to read.
    picking = next(
        (
            side_of(o)
            for o in tts.objects.values()
            if any(b["label"].startswith("Cancel target") for b in o.buttons)
        ),
        None,
    )
    for obj in tts.objects.values():
        if obj.destroyed or not obj.buttons:
            continue
        for b in obj.buttons:
            side = side_of(obj)
            if picking is not None and b["click_function"] != "tankref_noop":
                side = picking
            viewer_z = where.get(side, 0.0) if side else obj.position[2]
            want = 180.0 if viewer_z < 0 else 0.0
            p = b.get("params", {})
            rot = p.get("rotation") or [0, 0, 0]
            turn = float(rot["y"] if isinstance(rot, dict) else rot[1])
            yaw = (obj.rotation[1] + turn) % 360
            off = min(abs(yaw - want), 360 - abs(yaw - want))
            if off > 45:
                problems.append(
                    f"{obj.nickname} button {b['label']!r}: turned {yaw:.0f}, its reader "
                    f"sits at z {viewer_z:+.0f}"
                )
            sc = p.get("scale") or [1, 1, 1]
            sx, sz = (sc["x"], sc["z"]) if isinstance(sc, dict) else (sc[0], sc[2])
            wx, wz = obj.scale[0] * sx, obj.scale[2] * sz
            if abs(wx - wz) > 0.1 * max(wx, wz):
                problems.append(
                    f"{obj.nickname} button {b['label']!r}: stretched {wx:.2f}:{wz:.2f}"
                )
    return problems
