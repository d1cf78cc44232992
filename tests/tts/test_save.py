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
    """Every piece, unique GUIDs, numeric transforms, tagged terrain, the API docs' coloured
    dice, and each die's faces described honestly (TTT-MO3 for the green die)."""
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
        assert tank["Name"] in ("BlockSquare", "BlockRectangle")
    terrain = tagged("terrain")
    assert {k for o in terrain for k in o["Tags"]} >= TERRAIN_KINDS
    assert all(set(o["Tags"]) & TERRAIN_KINDS for o in terrain)  # every piece says its kind
    assert len(tagged("objective")) == 1
    assert len(tagged("tankref_board")) == 1
    assert (
        len(tagged("damage_deck")) == 1 and "Immobilized" in tagged("damage_deck")[0]["Description"]
    )
    # Built-in coloured dice, as the API docs name them (D6, D6 Red, D6 Green: their object
    # and MaterialIndex, from tests/tts/real_saves.json, not from the save writer).
    variants = json.loads((Path(__file__).with_name("real_saves.json")).read_text("utf-8"))[
        "api_docs"
    ]["built_in"]["variants"]
    for die, built_in in (("white", "D6"), ("red", "D6 Red"), ("green", "D6 Green")):
        want = variants[built_in]
        dice = tagged(f"die_{die}")
        assert dice and all(
            d["Name"] == want["name"] and d.get("MaterialIndex", 0) == want["material"]
            for d in dice
        )
    # Honest faces: what each number counts (house defaults), the green die by TTT-MO3's table.
    white = tagged("die_white")[0]["Description"]
    assert "5: HIT" in white and "6: HIT HIT" in white and "1: nothing" in white
    assert "3: PEN" in tagged("die_red")[0]["Description"]
    green = tagged("die_green")[0]["Description"]
    assert "blank" not in green and "1-3 OK, 4-5 Shaken, 6 Routed" in green and "TTT-MO3" in green
    assert all(not o["LuaScript"] for o in objects)  # Global builds every menu


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


def test_each_ruleset_gets_its_own_pieces(tmp_path: Path) -> None:
    """`--ruleset`: units from that ruleset's cards, its terrain kinds, its dice; YRD's yard
    spaces as markers; MTC's hex grid in the save's Grid; the board starts on the ruleset."""
    from tankref.rulesets.afv.cards import default_cards as afv_cards
    from tankref.rulesets.mtc.cards import default_cards as mtc_cards
    from tankref.rulesets.yrd.cards import default_cards as yrd_cards

    yard = yrd_cards()
    cards = {
        "afv": set(afv_cards().units),
        "mtc": set(mtc_cards().designs),
        "yrd": set(yard.tanks) | set(yard.pieces),
    }
    terrain = {
        "afv": {"woods", "hill", "cover", "mud"},
        "mtc": {"road", "town", "rubble", "crater"},
    }
    for ruleset, known in cards.items():
        done = _run(
            "tts-save", str(tmp_path / f"{ruleset}.json"), "--ruleset", ruleset, cwd=tmp_path
        )
        assert done.returncode == 0, done.stderr
        save = _load(tmp_path / f"{ruleset}.json")
        assert save["LuaScript"] == bundle("global")
        assert json.loads(save["LuaScriptState"])["ruleset"] == ruleset
        objects = save["ObjectStates"]
        tanks = [o for o in objects if "tank" in o["Tags"]]
        used = {t[5:] for o in tanks for t in o["Tags"] if t.startswith("card:")}
        assert used and used <= known, (ruleset, used - known)
        assert {t for o in tanks for t in o["Tags"] if t.startswith("side:")} == {
            "side:Red",
            "side:Blue",
        }
        kinds = {t for o in objects if "terrain" in o["Tags"] for t in o["Tags"]}
        assert kinds - {"terrain", "round"} == terrain.get(ruleset, set())
        assert not [o for o in objects if "objective" in o["Tags"]]
        assert [o for o in objects if "die_d6" in o["Tags"]]
    yrd = _load(tmp_path / "yrd.json")["ObjectStates"]
    spaces = [o for o in yrd if "yard_space" in o["Tags"]]
    assert len(spaces) == 12 and any(o["Nickname"] == "Red Attack space" for o in spaces)
    assert [o for o in yrd if "die_d20" in o["Tags"]]
    grid = _load(tmp_path / "mtc.json")["Grid"]
    assert grid["Type"] == 1 and grid["xSize"] == 2.0 and grid["Lines"] is True
    assert "Grid" not in _load(tmp_path / "afv.json")
    bad = _run("tts-save", str(tmp_path / "x.json"), "--ruleset", "chess", cwd=tmp_path)
    assert bad.returncode == 2 and "--ruleset" in bad.stderr
