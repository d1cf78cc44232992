"""`tankref tts-save`: a complete Tabletop Simulator save that plays against the referee.

Everything in it is plain TTS objects (no downloaded assets): coloured blocks for the tanks,
terrain, the objective marker, the tankref board and the damage deck, standard six-sided dice
tinted white/red/green (their faces mean what ``cards/ttt/dice.toml`` says: the referee reads
face numbers), and the bundled scripts. 1 world unit = 1 inch; +z is north (Blue's edge).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tankref import __version__
from tankref.core.dice import DieSpec
from tankref.rulesets.ttt.cards import load_cards
from tankref.tts.bundle import bundle

DEFAULT_URL = "http://127.0.0.1:8765"
TABLE_Y = 1.0  # where pieces rest, a little above the table top (TTS drops them)

Colour = tuple[float, float, float]
RED: Colour = (0.75, 0.15, 0.12)
BLUE: Colour = (0.15, 0.3, 0.75)

# (side, nickname, card, x, z, facing): each side along its own edge, facing the other.
TANKS = (
    ("Red", "Red 1", "tiger-i", -8.0, -21.0, 0.0),
    ("Red", "Red 2", "panzer-iv-h", 10.0, -21.0, 0.0),
    ("Blue", "Blue 1", "m4a1-sherman", -12.0, 21.0, 180.0),
    ("Blue", "Blue 2", "t-34-85", 8.0, 21.0, 180.0),
)
# (nickname, kind tags, x, z, scale x/y/z, colour): the kinds as players tag them.
TERRAIN = (
    ("Wood", ("forest", "round"), -24.0, 0.0, (9.0, 2.0, 9.0), (0.12, 0.35, 0.12)),
    ("Farmhouse", ("building",), 24.0, 4.0, (6.0, 3.0, 5.0), (0.55, 0.5, 0.45)),
    ("Hedge", ("cover+1",), 0.0, 9.0, (10.0, 0.8, 1.0), (0.25, 0.5, 0.2)),
    ("Rubble", ("cover+2",), 0.0, -9.0, (6.0, 0.6, 3.0), (0.4, 0.38, 0.35)),
    ("Hill", ("hill", "round"), 28.0, -14.0, (12.0, 0.6, 12.0), (0.45, 0.55, 0.3)),
)
DICE = (
    ("white", 5, (0.95, 0.95, 0.95)),
    ("red", 7, (0.8, 0.1, 0.1)),
    ("green", 2, (0.1, 0.6, 0.2)),
)


@dataclass
class _Guids:
    """Deterministic six-hex-digit GUIDs: the same save every time for the same version."""

    n: int = 0

    def next(self) -> str:
        self.n += 1
        return f"{0xA70000 + self.n * 7:06x}"


def _object(
    guid: str,
    name: str,
    nickname: str,
    pos: tuple[float, float, float],
    *,
    yaw: float = 0.0,
    scale: tuple[float, float, float] = (1.0, 1.0, 1.0),
    colour: Colour = (1.0, 1.0, 1.0),
    tags: tuple[str, ...] = (),
    description: str = "",
    script: str = "",
    state: str = "",
    locked: bool = False,
) -> dict[str, Any]:
    return {
        "GUID": guid,
        "Name": name,
        "Transform": {
            "posX": pos[0],
            "posY": pos[1],
            "posZ": pos[2],
            "rotX": 0.0,
            "rotY": yaw,
            "rotZ": 0.0,
            "scaleX": scale[0],
            "scaleY": scale[1],
            "scaleZ": scale[2],
        },
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
        "LuaScript": script,
        "LuaScriptState": state,
        "XmlUI": "",
    }


RULESETS = ("ttt", "afv", "mtc", "yrd")


def _table_and_board(guids: _Guids, url: str, deploy: str = "") -> list[dict[str, Any]]:
    """What every save starts with: the 72" x 48" play area and the tankref board."""
    area = "The referee's table: x from -36 to 36, z from -24 to 24 (inches)."
    return [
        _object(
            guids.next(),
            "BlockSquare",
            "Play area (72 x 48 in)",
            (0.0, 0.5, 0.0),
            scale=(72.0, 0.2, 48.0),
            colour=(0.42, 0.5, 0.32),
            description=f"{area} {deploy}".strip(),
            locked=True,
        ),
        _object(
            guids.next(),
            "BlockRectangle",
            "tankref board",
            (0.0, TABLE_Y, -32.0),
            scale=(4.0, 0.3, 2.0),
            colour=(0.2, 0.2, 0.2),
            tags=("tankref_board",),
            description=f"Referee: {url}",
            locked=True,
        ),
    ]


def build_save(url: str = DEFAULT_URL, ruleset: str = "ttt") -> dict[str, Any]:
    """The save as a dict (write it with ``json.dumps``): TTT's table, or another ruleset's."""
    if ruleset != "ttt":
        return _other_save(url, ruleset)
    cards = load_cards()
    guids = _Guids()
    objects = _table_and_board(
        guids,
        url,
        "Red deploys along the south edge (z -24), Blue along the north (z 24).",
    )
    for side, nickname, card_id, x, z, facing in TANKS:
        card = cards.tank(card_id)
        assert card is not None, card_id
        objects.append(
            _object(
                guids.next(),
                "BlockRectangle",
                nickname,
                (x, TABLE_Y, z),
                yaw=facing,
                scale=(1.4, 0.8, 2.2),
                colour=RED if side == "Red" else BLUE,
                tags=("tank", f"card:{card_id}", f"side:{side}"),
                description=f"{card.name} ({side}). Right-click for its orders.",
            )
        )
    for nickname, kinds, x, z, scale, colour in TERRAIN:
        objects.append(
            _object(
                guids.next(),
                "BlockSquare",
                nickname,
                (x, TABLE_Y, z),
                scale=scale,
                colour=colour,
                tags=("terrain", *kinds),
                description="Terrain: " + ", ".join(k for k in kinds if k != "round"),
            )
        )
    objects.append(
        _object(
            guids.next(),
            "BlockSquare",
            "Objective",
            (0.0, TABLE_Y, 0.0),
            scale=(1.0, 0.3, 1.0),
            colour=(1.0, 0.85, 0.2),
            tags=("objective",),
            description="The objective (Objective scenario: Blue defends within 12 in).",
        )
    )
    for die, count, colour in DICE:
        spec = cards.rules.dice.get(die)
        faces = "plain d6" if spec is None else _faces(spec)
        for i in range(count):
            objects.append(
                _object(
                    guids.next(),
                    "Die_6",
                    f"{die.capitalize()} die",
                    (-40.0 - 1.5 * i, TABLE_Y, {"white": -6.0, "red": 0.0, "green": 6.0}[die]),
                    colour=colour,
                    tags=("dice", f"die_{die}"),
                    description=f"{die} die, faces: {faces}",
                )
            )
    deck = "\n".join(f"{c.count} x {c.name}" for c in cards.rules.deck)
    objects.append(
        _object(
            guids.next(),
            "BlockRectangle",
            "Damage deck",
            (40.0, TABLE_Y, 0.0),
            scale=(2.5, 0.6, 3.5),
            colour=(0.3, 0.25, 0.2),
            tags=("damage_deck",),
            description="The referee draws from this table's own deck, without replacement:\n"
            + deck,
        )
    )
    return {
        "SaveName": "tankref: TinyTableTopTanks",
        "GameMode": "tankref",
        "GameType": "Wargame",
        "GameComplexity": "",
        "Tags": ["tankref"],
        "Date": datetime.now(UTC).strftime("%m/%d/%Y %I:%M:%S %p"),
        "VersionNumber": "v14.0",
        "Gravity": 0.5,
        "PlayArea": 1.0,
        "Table": "Table_RPG",
        "Sky": "Sky_Museum",
        "Note": f"tankref {__version__}: start the referee (tankref serve), then press New "
        "table on the tankref board.",
        "Rules": "",
        "XmlUI": "",
        "LuaScript": bundle("global"),
        "LuaScriptState": json.dumps({"url": url}),
        "TabStates": {},
        "ObjectStates": objects,
    }


def _faces(spec: DieSpec) -> str:
    return "; ".join(f"{f.face}: {' '.join(f.icons) or 'blank'}" for f in spec.faces)


_NUMBERED = re.compile(r"^TS_Save_(\d+)\.json$")


def next_save_path(folder: Path) -> Path:
    """The next free numbered name in a TTS Saves folder."""
    used = [int(m.group(1)) for p in folder.iterdir() if (m := _NUMBERED.match(p.name))]
    return folder / f"TS_Save_{max(used, default=0) + 1}.json"


def write_save(
    path: Path, *, url: str = DEFAULT_URL, force: bool = False, ruleset: str = "ttt"
) -> Path:
    """Write the save to ``path`` (a folder: the next ``TS_Save_N.json`` in it)."""
    if ruleset not in RULESETS:
        raise ValueError(f"no ruleset {ruleset!r} (known: {', '.join(RULESETS)})")
    target = next_save_path(path) if path.is_dir() else path
    if target.exists() and not force:
        raise FileExistsError(f"{target} exists (use --force to overwrite it)")
    text = json.dumps(build_save(url, ruleset), indent=2, ensure_ascii=False)
    target.write_text(text + "\n", encoding="utf-8")
    return target


# --- the other rulesets' tables ---------------------------------------------------------------
# (side, nickname, card, x, z, facing) per ruleset; cards are checked against its card data.
OTHER_UNITS: dict[str, tuple[tuple[str, str, str, float, float, float], ...]] = {
    "afv": (
        ("Red", "Red 1", "ifv", -8.0, -18.0, 0.0),
        ("Red", "Red 2", "standard-infantry", -6.0, -18.0, 0.0),
        ("Blue", "Blue 1", "standard-afv", 8.0, 18.0, 180.0),
        ("Blue", "Blue 2", "at-team", 4.0, 18.0, 180.0),
    ),
    "mtc": (
        ("Red", "Red 1", "standard", 0.0, -12.0, 0.0),
        ("Red", "Red 2", "raider", 4.0, -12.0, 0.0),
        ("Blue", "Blue 1", "brawler", 0.0, 12.0, 180.0),
        ("Blue", "Blue 2", "heavy", 4.0, 12.0, 180.0),
    ),
    "yrd": (
        ("Red", "Red tank", "yard-tank", 0.0, -18.0, 0.0),
        ("Blue", "Blue tank", "yard-tank", 8.0, 18.0, 180.0),
        ("Blue", "Blue piece", "piece", 0.0, -8.0, 180.0),
        ("Red", "Red piece", "piece", 12.0, 8.0, 0.0),
    ),
}
# (nickname, tags, x, z, scale, colour): tagged with the ruleset's own terrain kinds.
OTHER_TERRAIN: dict[str, tuple[tuple[str, tuple[str, ...], float, float, Any, Colour], ...]] = {
    "afv": (
        ("Woods", ("woods", "round"), -20.0, 0.0, (9.0, 2.0, 9.0), (0.12, 0.35, 0.12)),
        ("Hill", ("hill", "round"), 20.0, 0.0, (10.0, 0.6, 10.0), (0.45, 0.55, 0.3)),
        ("Rubble", ("cover",), 0.0, 0.0, (5.0, 0.6, 3.0), (0.4, 0.38, 0.35)),
        ("Mud", ("mud",), -8.0, 8.0, (6.0, 0.2, 4.0), (0.35, 0.25, 0.15)),
    ),
    "mtc": (
        ("Road", ("road",), 0.0, 0.0, (2.0, 0.1, 40.0), (0.5, 0.45, 0.35)),
        ("Town", ("town", "round"), -12.0, 0.0, (4.0, 1.5, 4.0), (0.55, 0.5, 0.45)),
        ("Rubble", ("rubble", "round"), 12.0, 2.0, (3.0, 0.4, 3.0), (0.4, 0.38, 0.35)),
        ("Crater", ("crater", "round"), 6.0, -4.0, (2.0, 0.2, 2.0), (0.3, 0.25, 0.2)),
    ),
    "yrd": (),
}
# Each ruleset's dice: (tag die, TTS die object, count).
OTHER_DICE: dict[str, tuple[tuple[str, str, int], ...]] = {
    "afv": (("d6", "Die_6", 7),),
    "mtc": (("d6", "Die_6", 2),),
    "yrd": (("d20", "Die_20", 2), ("d6", "Die_6", 4)),
}
TITLES = {"afv": "AFV", "mtc": "Minimal Tank Combat", "yrd": "Tank yard (chapter 12)"}
MTC_HEX_WIDTH = 2.0  # the board's MTC setup (tts_lua/rulesets.lua) uses the same grid


def _card_ids(ruleset: str) -> set[str]:
    if ruleset == "afv":
        from tankref.rulesets.afv.cards import default_cards as afv_cards

        return set(afv_cards().units)
    if ruleset == "mtc":
        from tankref.rulesets.mtc.cards import default_cards as mtc_cards

        return set(mtc_cards().designs)
    from tankref.rulesets.yrd.cards import default_cards as yrd_cards

    yard = yrd_cards()
    return set(yard.tanks) | set(yard.pieces)


def _yard_spaces(guids: _Guids) -> list[dict[str, Any]]:
    """The yard's spaces as flat markers where the referee's default layout has them (the
    referee snaps a model dropped within 3 in of one onto it)."""
    from tankref.rulesets.yrd.state import default_yard

    out = []
    for index, side in enumerate(("Red", "Blue")):
        yard = default_yard(index)
        spaces = [
            ("Shield", yard.shield),
            ("Attack", yard.attack),
            ("Anti-tank", yard.anti_tank),
            *((f"Artillery {i}", p) for i, p in enumerate(yard.artillery, 1)),
        ]
        for label, point in spaces:
            out.append(
                _object(
                    guids.next(),
                    "BlockSquare",
                    f"{side} {label} space",
                    (point.x, 0.62, point.z),
                    scale=(2.0, 0.05, 2.0),
                    colour=RED if side == "Red" else BLUE,
                    tags=("yard_space",),
                    description=f"{side}'s {label} space: drop a model within 3 in of it.",
                    locked=True,
                )
            )
    return out


def _other_save(url: str, ruleset: str) -> dict[str, Any]:
    if ruleset not in OTHER_UNITS:
        raise ValueError(f"no ruleset {ruleset!r} (known: {', '.join(RULESETS)})")
    guids = _Guids()
    known = _card_ids(ruleset)
    objects = _table_and_board(guids, url)
    for side, nickname, card_id, x, z, facing in OTHER_UNITS[ruleset]:
        assert card_id in known, (ruleset, card_id)
        objects.append(
            _object(
                guids.next(),
                "BlockRectangle",
                nickname,
                (x, TABLE_Y, z),
                yaw=facing,
                scale=(1.4, 0.8, 2.2),
                colour=RED if side == "Red" else BLUE,
                tags=("tank", f"card:{card_id}", f"side:{side}"),
                description=f"{card_id} ({side}). Right-click for its orders.",
            )
        )
    for nickname, kinds, x, z, scale, colour in OTHER_TERRAIN[ruleset]:
        objects.append(
            _object(
                guids.next(),
                "BlockSquare",
                nickname,
                (x, TABLE_Y, z),
                scale=scale,
                colour=colour,
                tags=("terrain", *kinds),
                description="Terrain: " + ", ".join(k for k in kinds if k != "round"),
            )
        )
    if ruleset == "yrd":
        objects.extend(_yard_spaces(guids))
    for die, kind, count in OTHER_DICE[ruleset]:
        for i in range(count):
            objects.append(
                _object(
                    guids.next(),
                    kind,
                    f"{die} die",
                    (-40.0 - 1.5 * i, TABLE_Y, {"d6": -6.0, "d20": 0.0}[die]),
                    tags=("dice", f"die_{die}"),
                    description=f"a {die}: the referee reads its face number",
                )
            )
    save: dict[str, Any] = {
        "SaveName": f"tankref: {TITLES[ruleset]}",
        "GameMode": "tankref",
        "GameType": "Wargame",
        "GameComplexity": "",
        "Tags": ["tankref"],
        "Date": datetime.now(UTC).strftime("%m/%d/%Y %I:%M:%S %p"),
        "VersionNumber": "v14.0",
        "Gravity": 0.5,
        "PlayArea": 1.0,
        "Table": "Table_RPG",
        "Sky": "Sky_Museum",
        "Note": f"tankref {__version__}: start the referee (tankref serve), then press New "
        f"table on the tankref board (ruleset {TITLES[ruleset]}).",
        "Rules": "",
        "XmlUI": "",
        "LuaScript": bundle("global"),
        # The board starts on this ruleset; its first setup choice is the default.
        "LuaScriptState": json.dumps({"url": url, "ruleset": ruleset}),
        "TabStates": {},
        "ObjectStates": objects,
    }
    if ruleset == "mtc":
        # TTS's grid drawn over the table: hexes 2 in across with a corner north (TTS's
        # "Hex Horizontal", Type 1), centred on the origin as the referee's grid is.
        save["Grid"] = {
            "Type": 1,
            "Lines": True,
            "Color": {"r": 0.0, "g": 0.0, "b": 0.0},
            "Opacity": 0.5,
            "ThickLines": False,
            "Snapping": False,
            "Offset": False,
            "BothSnapping": False,
            "xSize": MTC_HEX_WIDTH,
            "ySize": MTC_HEX_WIDTH,
            "PosOffset": {"x": 0.0, "y": 1.0, "z": 0.0},
        }
    return save
