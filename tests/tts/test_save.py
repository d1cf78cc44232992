"""`tankref tts-save`: the save loads as JSON, has every piece the table needs, unique GUIDs,
numeric transforms, tagged terrain, and carries exactly the scripts a fresh bundle makes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from tankref.rulesets.ttt.cards import load_cards
from tankref.tts.bundle import bundle
from tankref.tts.save import next_save_path, write_save

TERRAIN_KINDS = {"forest", "building", "cover+1", "cover+2", "hill"}
TRANSFORM = ("posX", "posY", "posZ", "rotX", "rotY", "rotZ", "scaleX", "scaleY", "scaleZ")


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tankref", *args], cwd=cwd, capture_output=True, text=True
    )


def _load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def test_the_save_is_complete_and_well_formed(tmp_path: Path) -> None:
    done = _run(
        "tts-save", str(tmp_path / "table.json"), "--url", "http://10.0.0.5:9000", cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    save = _load(tmp_path / "table.json")
    for key in ("SaveName", "ObjectStates", "LuaScript", "LuaScriptState", "XmlUI", "Table"):
        assert key in save
    assert save["LuaScript"] == bundle("global")  # bundled, and exactly a fresh bundle
    assert json.loads(save["LuaScriptState"]) == {"url": "http://10.0.0.5:9000"}
    objects = save["ObjectStates"]
    guids = [o["GUID"] for o in objects]
    assert len(guids) == len(set(guids))
    assert all(len(g) == 6 and all(c in "0123456789abcdef" for c in g) for g in guids)
    for obj in objects:
        assert obj["Name"] and isinstance(obj["Tags"], list)
        t = obj["Transform"]
        assert all(isinstance(t[k], int | float) and not isinstance(t[k], bool) for k in TRANSFORM)
        assert all(isinstance(obj["ColorDiffuse"][c], float) for c in "rgb")

    def tagged(tag: str) -> list[dict[str, Any]]:
        return [o for o in objects if tag in o["Tags"]]

    tanks = tagged("tank")
    cards = load_cards()
    assert {next(t for t in o["Tags"] if t.startswith("side:")) for o in tanks} == {
        "side:Red",
        "side:Blue",
    }
    for tank in tanks:
        card = next(t for t in tank["Tags"] if t.startswith("card:"))[5:]
        assert cards.tank(card) is not None, card
        assert tank["LuaScript"] == bundle("tank")
        assert tank["Name"] in ("BlockSquare", "BlockRectangle")
    terrain = tagged("terrain")
    assert {k for o in terrain for k in o["Tags"]} >= TERRAIN_KINDS
    assert all(set(o["Tags"]) & TERRAIN_KINDS for o in terrain)  # every piece says its kind
    assert len(tagged("objective")) == 1
    assert len(tagged("tankref_board")) == 1
    assert (
        len(tagged("damage_deck")) == 1 and "Immobilized" in tagged("damage_deck")[0]["Description"]
    )
    for die in ("white", "red", "green"):
        dice = tagged(f"die_{die}")
        assert dice and all(d["Name"] == "Die_6" for d in dice)
    assert "5: HIT" in tagged("die_white")[0]["Description"]  # what each face means
    assert all(not o["LuaScript"] for o in objects if "tank" not in o["Tags"])


def test_a_folder_gets_the_next_numbered_name_and_nothing_is_overwritten(tmp_path: Path) -> None:
    (tmp_path / "TS_Save_3.json").write_text("{}")
    (tmp_path / "TS_Save_10.json").write_text("{}")
    assert next_save_path(tmp_path).name == "TS_Save_11.json"
    done = _run("tts-save", str(tmp_path), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "TS_Save_11.json" in done.stdout
    assert _load(tmp_path / "TS_Save_11.json")["ObjectStates"]
    again = _run("tts-save", str(tmp_path / "TS_Save_3.json"), cwd=tmp_path)
    assert again.returncode == 1 and "--force" in again.stderr
    assert (tmp_path / "TS_Save_3.json").read_text() == "{}"
    write_save(tmp_path / "TS_Save_3.json", force=True)
    assert _load(tmp_path / "TS_Save_3.json")["ObjectStates"]


def test_help_says_what_it_does(tmp_path: Path) -> None:
    done = _run("tts-save", "--help", cwd=tmp_path)
    assert done.returncode == 0
    assert "--url" in done.stdout and "--force" in done.stdout and "TS_Save_N" in done.stdout
