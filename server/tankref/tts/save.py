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


def build_save(url: str = DEFAULT_URL) -> dict[str, Any]:
    """The save as a dict (write it with ``json.dumps``)."""
    cards = load_cards()
    guids = _Guids()
    tank_script = bundle("tank")
    objects: list[dict[str, Any]] = [
        _object(
            guids.next(),
            "BlockSquare",
            "Play area (72 x 48 in)",
            (0.0, 0.5, 0.0),
            scale=(72.0, 0.2, 48.0),
            colour=(0.42, 0.5, 0.32),
            description="The referee's table: x from -36 to 36, z from -24 to 24 (inches). "
            "Red deploys along the south edge (z -24), Blue along the north (z 24).",
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
                script=tank_script,
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


def write_save(path: Path, *, url: str = DEFAULT_URL, force: bool = False) -> Path:
    """Write the save to ``path`` (a folder: the next ``TS_Save_N.json`` in it)."""
    target = next_save_path(path) if path.is_dir() else path
    if target.exists() and not force:
        raise FileExistsError(f"{target} exists (use --force to overwrite it)")
    text = json.dumps(build_save(url), indent=2, ensure_ascii=False)
    target.write_text(text + "\n", encoding="utf-8")
    return target
