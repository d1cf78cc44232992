"""`tankref tts-save`: a complete Tabletop Simulator save that plays against the referee.

Everything in it is built-in TTS objects (no downloaded assets), laid on the physical world
``tabletop`` describes: one locked surface on ``Table_None`` holding the field mat, each
side's reserve strip, the dice tray, the damage block and the tankref board. Tanks are a hull
with a turret and a gun barrel (child objects) so their front shows; area terrain is a flat
locked footprint dressed with trees and rocks; round terrain has its edge drawn round. Every
unlocked piece starts resting: its centre at what it stands on plus half its height.
1 world unit = 1 inch; +z is north (Blue's edge), -z south (Red's).
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tankref import __version__
from tankref.core.ruleset import SaveDice, SaveTable
from tankref.rulesets import DEFAULT_RULESET, get_ruleset, ruleset_names
from tankref.tts import tabletop as tt
from tankref.tts.bundle import bundle

DEFAULT_URL = "http://127.0.0.1:8765"

Colour = tuple[float, float, float]
Vec3 = tuple[float, float, float]
RED: Colour = (0.75, 0.15, 0.12)
BLUE: Colour = (0.15, 0.3, 0.75)
MAT: Colour = (0.42, 0.5, 0.32)

# How each kind of die a ruleset asks for is made in TTS: (object, MaterialIndex, colour). The
# red and green dice are the built-in rounded d6 in its own red and green materials; white is
# the plain Die_6.
DIE_OBJECTS: dict[tuple[int, str], tuple[str, int, Colour]] = {
    (6, "white"): ("Die_6", 0, (1.0, 1.0, 1.0)),
    (6, "red"): ("Die_6_Rounded", tt.DIE_6_ROUNDED_RED, (0.996, 0.0, 0.0)),
    (6, "green"): ("Die_6_Rounded", tt.DIE_6_ROUNDED_GREEN, (0.055, 0.779, 0.0)),
    (20, "white"): ("Die_20", 0, (1.0, 1.0, 1.0)),
}
# Solid terrain kinds keep their height (a building is a block you cannot drive onto).
SOLID = {"building"}
# Dressing per kind: (TTS object, scale, resting height of its origin at scale 1).
DRESSING = {
    "forest": ("Tileset_Tree", 1.0, tt.TREE_REST),
    "woods": ("Tileset_Tree", 1.0, tt.TREE_REST),
    "cover+1": ("Tileset_Tree", 0.5, tt.TREE_REST),
    "cover+2": ("Tileset_Rock", 0.6, tt.ROCK_REST),
    "cover": ("Tileset_Rock", 0.6, tt.ROCK_REST),
    "rubble": ("Tileset_Rock", 0.5, tt.ROCK_REST),
    "hill": ("Tileset_Rock", 0.8, tt.ROCK_REST),
    "town": ("BlockSquare", 1.0, 0.5),
    "crater": ("Tileset_Rock", 0.4, tt.ROCK_REST),
}
HULL: Vec3 = (1.4, 0.5, 2.2)  # a tank's hull (world inches); the turret and gun ride on it
TANK_HEIGHT = 0.85  # hull and turret


@dataclass
class _Guids:
    """Deterministic six-hex-digit GUIDs: the same save every time for the same version."""

    n: int = 0

    def next(self) -> str:
        self.n += 1
        return f"{0xA70000 + self.n * 7:06x}"


def _transform(pos: Vec3, yaw: float, scale: Vec3) -> dict[str, float]:
    return {
        "posX": pos[0],
        "posY": round(pos[1], 4),
        "posZ": pos[2],
        "rotX": 0.0,
        "rotY": yaw,
        "rotZ": 0.0,
        "scaleX": scale[0],
        "scaleY": scale[1],
        "scaleZ": scale[2],
    }


def _object(
    guid: str,
    name: str,
    nickname: str,
    pos: Vec3,
    *,
    yaw: float = 0.0,
    scale: Vec3 = (1.0, 1.0, 1.0),
    colour: Colour = (1.0, 1.0, 1.0),
    tags: tuple[str, ...] = (),
    description: str = "",
    locked: bool = False,
    material: int | None = None,
    measure: bool = False,
) -> dict[str, Any]:
    obj: dict[str, Any] = {
        "GUID": guid,
        "Name": name,
        "Transform": _transform(pos, yaw, scale),
        "Nickname": nickname,
        "Description": description,
        "GMNotes": "",
        "ColorDiffuse": {"r": colour[0], "g": colour[1], "b": colour[2]},
        "Tags": list(tags),
        "Locked": locked,
        "Grid": False,
        "Snap": False,
        "Autoraise": True,
        "Sticky": True,
        "Tooltip": True,
        "HideWhenFaceDown": False,
        "Hands": False,
        "MeasureMovement": measure,
        "LuaScript": "",
        "LuaScriptState": "",
        "XmlUI": "",
    }
    if material is not None:
        obj["MaterialIndex"] = material
    return obj


def _slab(
    guids: _Guids,
    nickname: str,
    box: tt.Box,
    colour: Colour,
    *,
    tags: tuple[str, ...] = (),
    description: str = "",
) -> dict[str, Any]:
    """A locked flat BlockSquare: the surface, the mat, a tray, a zone, a footprint."""
    return _object(
        guids.next(),
        "BlockSquare",
        nickname,
        (box.x, box.y, box.z),
        scale=(box.size_x, box.thick, box.size_z),
        colour=colour,
        tags=tags,
        description=description,
        locked=True,
    )


def _table(guids: _Guids, url: str, deploy: str = "") -> list[dict[str, Any]]:
    """What every save starts with: the surface, the field mat, the reserves, the dice tray
    and the tankref board."""
    half_x, half_z = tt.FIELD_X / 2, tt.FIELD_Z / 2
    area = (
        f"The referee's field: x from {-half_x:g} to {half_x:g}, "
        f"z from {-half_z:g} to {half_z:g} (inches)."
    )
    out = [
        _slab(guids, "Table", tt.SURFACE, (0.3, 0.24, 0.18), description="The table top."),
        _slab(
            guids,
            f"Play area ({tt.FIELD_X:g} x {tt.FIELD_Z:g} in)",
            tt.FIELD,
            MAT,
            description=f"{area} {deploy}".strip(),
        ),
        _slab(
            guids,
            "Dice tray",
            tt.DICE_TRAY,
            (0.22, 0.22, 0.24),
            description="The table's dice: roll them here when the referee asks (table dice).",
        ),
    ]
    for side, box in tt.RESERVES.items():
        out.append(
            _slab(
                guids,
                f"{side} reserve",
                box,
                RED if side == "Red" else BLUE,
                tags=("reserve", f"side:{side}"),
                description=f"{side}'s reserve: units off the field wait here.",
            )
        )
    board = _slab(
        guids,
        "tankref board",
        tt.BOARD,
        (0.2, 0.2, 0.2),
        tags=("tankref_board",),
        description=f"Referee: {url}",
    )
    out.append(board)
    return out


def _tank(
    guids: _Guids,
    side: str,
    nickname: str,
    card_id: str,
    x: float,
    z: float,
    facing: float,
    name: str,
    top: float,
) -> dict[str, Any]:
    """A hull with a turret and a gun barrel pointing forward (+z at yaw 0), as child objects:
    their transforms are in the hull's own scaled space (xexuxjy/Saves ChildObjects)."""
    hx, hy, hz = HULL
    tank = _object(
        guids.next(),
        "BlockSquare",
        nickname,
        (x, tt.rest_on(top, hy), z),
        yaw=facing,
        scale=HULL,
        colour=RED if side == "Red" else BLUE,
        tags=("tank", f"card:{card_id}", f"side:{side}"),
        description=f"{name} ({side}). The gun shows its front. Right-click for its orders.",
        measure=True,  # TTS measures while it is dragged (API docs object.md measure_movement)
    )
    turret_h, barrel = 0.35, 0.16
    # (nickname, world size, world centre offset from the hull's centre)
    parts = (
        ("turret", (0.9, turret_h, 0.9), (0.0, hy / 2 + turret_h / 2, -0.1)),
        ("gun", (barrel, barrel, 1.3), (0.0, hy / 2 + turret_h / 2, 0.35 + 0.65)),
    )
    children = []
    for part, size, offset in parts:
        child = _object(
            guids.next(),
            "BlockSquare",
            f"{nickname} {part}",
            (offset[0] / hx, offset[1] / hy, offset[2] / hz),
            scale=(size[0] / hx, size[1] / hy, size[2] / hz),
            colour=(0.2, 0.2, 0.2) if part == "gun" else (RED if side == "Red" else BLUE),
        )
        children.append(child)
    tank["ChildObjects"] = children
    return tank


def _support(objects: list[dict[str, Any]], x: float, z: float) -> float:
    """The top of the highest locked flat piece under (x, z): what a model there stands on."""
    best = tt.TOP
    for obj in objects:
        t = obj["Transform"]
        if not obj["Locked"] or obj["Name"] != "BlockSquare" or t["rotY"] % 90:
            continue
        if abs(x - t["posX"]) <= t["scaleX"] / 2 and abs(z - t["posZ"]) <= t["scaleZ"] / 2:
            best = max(best, t["posY"] + t["scaleY"] / 2)
    return best


def _circle(x: float, z: float, radius: float, y: float, colour: Colour) -> dict[str, Any]:
    """A closed ring of vector paint on the table (the save's own VectorLines)."""
    steps = 32
    points = [
        {
            "x": round(x + radius * math.sin(2 * math.pi * i / steps), 3),
            "y": round(y, 3),
            "z": round(z + radius * math.cos(2 * math.pi * i / steps), 3),
        }
        for i in range(steps)
    ]
    return {
        "points3": points,
        "color": {"r": colour[0], "g": colour[1], "b": colour[2]},
        "thickness": 0.25,
        "rotation": {"x": 0.0, "y": 0.0, "z": 0.0},
        "loop": True,
        "square": False,
    }


def _terrain(
    guids: _Guids,
    nickname: str,
    kinds: tuple[str, ...],
    x: float,
    z: float,
    scale: Vec3,
    colour: Colour,
    lines: list[dict[str, Any]],
) -> list[dict[str, Any]]:
    """One terrain piece: the tagged footprint the referee reads (its x/z size is the area),
    and untagged locked dressing on it."""
    description = "Terrain: " + ", ".join(k for k in kinds if k != "round")
    tags = ("terrain", *kinds)
    if set(kinds) & SOLID:
        box = tt.Box(x, z, scale[0], scale[2], scale[1], tt.FIELD.top)
        return [_slab(guids, nickname, box, colour, tags=tags, description=description)]
    round_ = "round" in kinds
    thick = tt.ROUND_FOOTPRINT_THICK if round_ else tt.FOOTPRINT_THICK
    box = tt.Box(x, z, scale[0], scale[2], thick, tt.FIELD.top)
    out = [
        _slab(guids, nickname, box, MAT if round_ else colour, tags=tags, description=description)
    ]
    if round_:
        # The footprint is the mat's colour and nearly flush: the ring is what shows.
        lines.append(_circle(x, z, min(scale[0], scale[2]) / 2, box.top + 0.01, colour))
    kind = next((k for k in kinds if k in DRESSING), None)
    if kind is None:
        return out
    name, size, rest = DRESSING[kind]
    for dx, dz in _dressing_spots(scale[0], scale[2], round_):
        out.append(
            _object(
                guids.next(),
                name,
                f"{nickname} (scenery)",
                (x + dx, box.top + rest * size, z + dz),
                scale=(size, size, size),
                colour=colour if name == "BlockSquare" else (1.0, 1.0, 1.0),
                tags=("scenery",),
                locked=True,
            )
        )
    return out


def _dressing_spots(size_x: float, size_z: float, round_: bool) -> list[tuple[float, float]]:
    """Spots near the footprint's edge, leaving its middle free for tanks (the dressing is
    locked and solid: a tank dropped on a tree would sit on it)."""
    rx, rz = size_x / 2, size_z / 2
    if round_:
        r = min(rx, rz) * 0.75
        n = max(3, min(6, int(2 * math.pi * r / 3)))  # about one piece every 3 in of rim
        return [
            (round(r * math.sin(a), 3), round(r * math.cos(a), 3))
            for a in (2 * math.pi * k / n for k in range(n))
        ]
    if min(rx, rz) < 1.0:  # a line (a hedge): along it
        if rx >= rz:
            return [(-rx * 0.7, 0.0), (0.0, 0.0), (rx * 0.7, 0.0)]
        return [(0.0, -rz * 0.7), (0.0, 0.0), (0.0, rz * 0.7)]
    return [(sx * rx * 0.7, sz * rz * 0.7) for sx, sz in ((-1, -1), (1, -1), (1, 1), (-1, 1))]


def _dice(guids: _Guids, dice: list[SaveDice]) -> list[dict[str, Any]]:
    """The table's dice on the tray, one row per kind."""
    out = []
    tray = tt.DICE_TRAY
    for row, kind in enumerate(dice):
        name, material, colour = DIE_OBJECTS[(kind.sides, kind.colour)]
        z = tray.z - 6.0 + 6.0 * row
        height = {"Die_6": tt.DIE_6, "Die_6_Rounded": tt.DIE_6_ROUNDED}.get(name)
        y = tray.top + (tt.DIE_20_DROP if height is None else height / 2)
        for i in range(kind.count):
            out.append(
                _object(
                    guids.next(),
                    name,
                    kind.nickname,
                    (tray.x - tray.size_x / 2 + 1.0 + 1.5 * i, y, z),
                    colour=colour,
                    tags=("dice", f"die_{kind.die}"),
                    description=kind.description,
                    material=material,
                )
            )
    return out


def _save(
    name: str,
    objects: list[dict[str, Any]],
    lines: list[dict[str, Any]],
    state: dict[str, Any],
    note: str,
) -> dict[str, Any]:
    """The save's top level, with what real saves written by TTS carry (Hands, ComponentTags,
    EpochTime)."""
    now = datetime.now(UTC)
    tags = sorted({t for o in objects for t in o["Tags"]})
    hands = [
        {
            "Color": side,
            "Transform": _transform((hx, tt.HAND_Y, hz), yaw, tt.HAND_SCALE),
        }
        for side, (hx, hz, yaw) in tt.HANDS.items()
    ]
    save: dict[str, Any] = {
        "SaveName": name,
        "EpochTime": int(now.timestamp()),
        "Date": now.strftime("%m/%d/%Y %I:%M:%S %p"),
        "VersionNumber": "v14.0",
        "GameMode": "tankref",
        "GameType": "Wargame",
        "GameComplexity": "",
        "Tags": ["tankref"],
        "Gravity": 0.5,
        "PlayArea": 1.0,
        "Table": tt.TABLE,
        "Sky": "Sky_Museum",
        "Note": note,
        "Rules": "",
        "XmlUI": "",
        "LuaScript": bundle("global"),
        "LuaScriptState": json.dumps(state),
        "TabStates": {},
        "Hands": {"Enable": True, "DisableUnused": False, "Hiding": 0, "HandTransforms": hands},
        "ComponentTags": {"labels": [{"displayed": t, "normalized": t.lower()} for t in tags]},
        "VectorLines": lines,
        "ObjectStates": objects,
    }
    return save


def build_save(url: str = DEFAULT_URL, ruleset: str = DEFAULT_RULESET) -> dict[str, Any]:
    """The save as a dict (write it with ``json.dumps``): the table the ruleset lays out
    (``RulesetInfo.save``) on the table every save has."""
    info = get_ruleset(ruleset).info()
    layout = info.save
    guids = _Guids()
    objects = _table(guids, url, layout.deploy)
    lines: list[dict[str, Any]] = []
    for piece in layout.terrain:
        objects.extend(
            _terrain(
                guids, piece.nickname, piece.tags, piece.x, piece.z, piece.size, piece.colour, lines
            )
        )
    objects.extend(_spaces(guids, layout))
    for unit in layout.units:
        top = _support(objects, unit.x, unit.z)
        objects.append(
            _tank(
                guids,
                unit.side,
                unit.nickname,
                unit.card,
                unit.x,
                unit.z,
                unit.facing,
                unit.name,
                top,
            )
        )
    if layout.objective is not None:
        objects.append(
            _object(
                guids.next(),
                "BlockSquare",
                "Objective",
                (0.0, tt.rest_on(tt.FIELD.top, 0.3), 0.0),
                scale=(1.0, 0.3, 1.0),
                colour=(1.0, 0.85, 0.2),
                tags=("objective",),
                description=layout.objective,
            )
        )
    objects.extend(_dice(guids, layout.dice))
    if layout.damage_deck is not None:
        block = tt.DAMAGE_BLOCK
        objects.append(
            _object(
                guids.next(),
                "BlockSquare",
                "Damage deck",
                (block.x, block.y, block.z),
                scale=(block.size_x, block.thick, block.size_z),
                colour=(0.3, 0.25, 0.2),
                tags=("damage_deck",),
                description=layout.damage_deck,
                locked=True,
            )
        )
    # The board starts on this ruleset (the scripts' own default needs no word); its first
    # setup choice is the default.
    default = info.name == DEFAULT_RULESET
    save = _save(
        f"tankref: {info.title}",
        objects,
        lines,
        {"url": url} if default else {"url": url, "ruleset": info.name},
        f"tankref {__version__}: start the referee (tankref serve), then press New "
        "table on the tankref board" + ("." if default else f" (ruleset {info.title})."),
    )
    if layout.hex_width is not None:
        # TTS's grid drawn over the field: hexes with a corner north (TTS's "Hex
        # Horizontal", Type 1), centred on the origin as the referee's grid is, at the mat's
        # top.
        save["Grid"] = {
            "Type": tt.GRID_HEX_HORIZONTAL,
            "Lines": True,
            "Color": {"r": 0.0, "g": 0.0, "b": 0.0},
            "Opacity": 0.5,
            "ThickLines": False,
            "Snapping": False,
            "Offset": False,
            "BothSnapping": False,
            "xSize": layout.hex_width,
            "ySize": layout.hex_width,
            "PosOffset": {"x": 0.0, "y": tt.FIELD.top, "z": 0.0},
        }
    return save


YARD_SPACE = 2.0  # a marked space's side (inches)
YARD_THICK = 0.05


def _spaces(guids: _Guids, layout: SaveTable) -> list[dict[str, Any]]:
    """Marked spaces (the yard's) as flat locked markers on the mat in their side's colour."""
    return [
        _slab(
            guids,
            f"{space.side} {space.label} space",
            tt.Box(space.x, space.z, YARD_SPACE, YARD_SPACE, YARD_THICK, tt.FIELD.top),
            RED if space.side == "Red" else BLUE,
            tags=("yard_space",),
            description=space.description,
        )
        for space in layout.spaces
    ]


_NUMBERED = re.compile(r"^TS_Save_(\d+)\.json$")


def next_save_path(folder: Path) -> Path:
    """The next free numbered name in a TTS Saves folder."""
    used = [int(m.group(1)) for p in folder.iterdir() if (m := _NUMBERED.match(p.name))]
    return folder / f"TS_Save_{max(used, default=0) + 1}.json"


def write_save(
    path: Path, *, url: str = DEFAULT_URL, force: bool = False, ruleset: str = DEFAULT_RULESET
) -> Path:
    """Write the save to ``path`` (a folder: the next ``TS_Save_N.json`` in it)."""
    if ruleset not in ruleset_names():
        raise ValueError(f"no ruleset {ruleset!r} (known: {', '.join(ruleset_names())})")
    target = next_save_path(path) if path.is_dir() else path
    if target.exists() and not force:
        raise FileExistsError(f"{target} exists (use --force to overwrite it)")
    text = json.dumps(build_save(url, ruleset), indent=2, ensure_ascii=False)
    target.write_text(text + "\n", encoding="utf-8")
    return target
