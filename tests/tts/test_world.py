"""The save sits on the real table: every generated save (all four rulesets) loaded into the
fake TTS's physical world, whose facts come from real public saves (``real_saves.json``),
not from the save writer's own module; and the save uses only keys, object names and field
types that real saves or the Knowledge Base's save format show."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import fakeworld
import pytest
from faketts import FakeTTS
from ttsplay import Table

from serverkit import LiveReferee
from tankref.rulesets import ruleset_names
from tankref.tts import tabletop
from tankref.tts.save import build_save

SUMMARY: dict[str, Any] = json.loads(
    Path(__file__).with_name("real_saves.json").read_text(encoding="utf-8")
)


@pytest.mark.parametrize("ruleset", ruleset_names())
def test_every_piece_rests_on_the_table(
    referee: LiveReferee, tts_table: Table, ruleset: str
) -> None:
    """Unlocked pieces rest on a surface with no overlap, none is off it, locked surfaces
    show, every tank shows its front and measures its moves, the board's buttons face the
    seat at its edge; loading loses nothing."""
    save = build_save(referee.url, ruleset)
    assert fakeworld.inspect(save) == []
    tts = tts_table(referee.url, ruleset=ruleset)
    assert not [o.nickname for o in tts.objects.values() if o.destroyed]
    board = tts.tagged("tankref_board")[0]
    assert board.buttons and fakeworld.button_problems(tts, save) == []
    tanks = [o for o in save["ObjectStates"] if "tank" in o["Tags"]]
    assert tanks and all(t["MeasureMovement"] and t["ChildObjects"] for t in tanks)


def _one(save: dict[str, Any], nickname: str) -> dict[str, Any]:
    return next(o for o in save["ObjectStates"] if o["Nickname"] == nickname)


def test_each_physical_check_can_fail() -> None:
    """A die off the surface falls and is lost; a sunk tank, overlapping dice, a flush mat,
    a tank with no front, a tank inside a building, a floating die, the old save on the
    stock table, an unknown table and a hand zone turned away are each found."""
    base = build_save()
    assert fakeworld.inspect(base) == []

    def broken(change: Any) -> list[str]:
        save = copy.deepcopy(base)
        change(save)
        return fakeworld.inspect(save)

    def die_off(save: dict[str, Any]) -> None:
        _one(save, "White die")["Transform"]["posX"] = -60.0  # past the surface's west edge

    assert any("falls and is lost" in p for p in broken(die_off))
    off = copy.deepcopy(base)
    die_off(off)
    tts = FakeTTS.from_save({**off, "LuaScript": ""})  # loaded: the die is gone
    try:
        assert tts.get(_one(off, "White die")["GUID"]).destroyed
        assert len(tts.tagged("die_white")) == 4
    finally:
        tts.close()

    def sunk(save: dict[str, Any]) -> None:
        _one(save, "Red 1")["Transform"]["posY"] = 1.0  # the old TABLE_Y: into the mat

    assert any("Red 1" in p and "sunk" in p for p in broken(sunk))

    def stacked(save: dict[str, Any]) -> None:
        dice = [o for o in save["ObjectStates"] if "die_red" in o["Tags"]]
        dice[1]["Transform"]["posX"] = dice[0]["Transform"]["posX"] + 0.3

    assert any("overlaps" in p for p in broken(stacked))

    def flush(save: dict[str, Any]) -> None:
        _one(save, "Play area (72 x 48 in)")["Transform"]["posY"] = 0.5  # inside the surface

    assert any("flush" in p for p in broken(flush))

    def no_front(save: dict[str, Any]) -> None:
        del _one(save, "Blue 2")["ChildObjects"]
        _one(save, "Blue 1")["MeasureMovement"] = False
        _one(save, "Red 2")["ChildObjects"][0]["Transform"]["posY"] = -0.6  # turret underneath

    found = broken(no_front)
    assert any("Blue 2: nothing shows" in p for p in found)
    assert any("Blue 1: MeasureMovement is off" in p for p in found)
    assert any("Red 2: its Red 2 turret is below its base" in p for p in found)

    def in_house(save: dict[str, Any]) -> None:
        _one(save, "Blue 1")["Transform"].update(posX=24.0, posZ=4.0)

    assert any("inside Farmhouse" in p for p in broken(in_house))

    def floating(save: dict[str, Any]) -> None:
        _one(save, "Green die")["Transform"]["posY"] += 1.0

    assert any("above what it stands on" in p for p in broken(floating))

    def small_table(save: dict[str, Any]) -> None:
        save["Table"] = "Table_RPG"  # the old save: the stock table, nothing locked under
        save["ObjectStates"] = [o for o in save["ObjectStates"] if not o["Locked"]]
        for o in save["ObjectStates"]:
            o["Transform"]["posY"] = fakeworld.facts().top + 0.4

    # Table_RPG's top, from its real hand zones, reaches neither the dice at x -48.5 nor
    # tanks at z +-21; a piece in the middle stays.
    found = broken(small_table)
    assert any("White die" in p and "lost" in p for p in found)
    assert any("Red 1" in p and "lost" in p for p in found)
    assert not any("Objective" in p and "lost" in p for p in found)
    assert any("no real save" in p for p in broken(lambda s: s.update(Table="Table_Nowhere")))

    def hand_turned(save: dict[str, Any]) -> None:
        save["Hands"]["HandTransforms"][0]["Transform"]["rotY"] = 180.0  # Red's, at the south

    assert any("Red's hand zone" in p for p in broken(hand_turned))


def test_a_wrong_size_in_the_facts_module_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fake's facts do not come from tankref.tts.tabletop: a wrong die size there shows
    as dice placed above the tray or sunk into it."""
    monkeypatch.setattr(tabletop, "DIE_6_ROUNDED", 1.4)
    monkeypatch.setattr(tabletop, "DIE_6", 0.5)
    found = fakeworld.inspect(build_save())
    assert any("Red die" in p and "above what it stands on" in p for p in found)
    assert any("White die" in p and "sunk" in p for p in found)


def test_buttons_that_face_the_wrong_seat_are_found(referee: LiveReferee, tts_table: Table) -> None:
    """The board (at the south edge) read from the north, or stretched with the board, is
    found."""
    save = build_save(referee.url)
    tts = tts_table(referee.url)
    board = tts.tagged("tankref_board")[0]
    assert fakeworld.button_problems(tts, save) == []
    board.buttons[0]["params"]["rotation"] = [0, 0, 0]
    board.buttons[1]["params"]["scale"] = [1, 1, 1]
    found = fakeworld.button_problems(tts, save)
    assert len(found) == 2 and "turned 0" in found[0] and "stretched" in found[1]


def _paths(value: Any, path: str, out: dict[str, set[str]]) -> None:
    """Every JSON path in our save, as the summary names them (Object.<field> for objects)."""
    kind = (
        "boolean"
        if isinstance(value, bool)
        else "number"
        if isinstance(value, int | float)
        else "string"
        if isinstance(value, str)
        else "array"
        if isinstance(value, list)
        else "object"
    )
    out.setdefault(path, set()).add(kind)
    if isinstance(value, dict):
        for k, v in value.items():
            key = "*" if k.lstrip("-").isdigit() else k
            if k in ("ObjectStates", "ContainedObjects", "ChildObjects"):
                out.setdefault(f"{path}.{key}", set()).add("array")
                for o in v:
                    _paths(o, "Object", out)
            elif k not in ("LuaScript", "LuaScriptState", "XmlUI"):
                _paths(v, f"{path}.{key}", out)
            else:
                out.setdefault(f"{path}.{key}", set()).add("string")
    elif isinstance(value, list):
        for v in value:
            _paths(v, path + "[]", out)


def _known_to_the_knowledge_base(path: str, kind: str) -> bool:
    """A path the Knowledge Base's C# classes declare with that JSON type (one level deep:
    SaveState/ObjectState fields and the fields of the class each declares)."""
    classes = SUMMARY["knowledge_base"]["classes"]
    parts = path.replace("[]", "").split(".")
    root = {"Save": "SaveState", "Object": "ObjectState"}[parts[0]]
    fields = classes[root]
    for i, name in enumerate(parts[1:]):
        if name not in fields:
            return False
        if i == len(parts) - 2:
            return fields[name]["json"] == kind or (kind == "object" and path.endswith("[]"))
        cs = fields[name]["cs"].rstrip("?").removeprefix("List<").rstrip(">").rstrip("[]")
        if cs not in classes:
            return False
        fields = classes[cs]
    return True


def test_the_save_uses_only_what_real_saves_show() -> None:
    """Every key, object Name and field type of every generated save is seen in the summary
    of real saves (16 of them) or declared by the Knowledge Base's save format; every object
    is one of the API docs' built-ins and the table one of its table names."""
    assert len(SUMMARY["saves"]) >= 10
    assert all(s["repo"] and s["path"] and len(s["commit"]) == 40 for s in SUMMARY["saves"])
    seen = {k: set(v) for k, v in SUMMARY["fields"].items()}
    # Object types real saves hold, or the Knowledge Base's example save (its Die_20).
    names = set(SUMMARY["all_object_names"]) | set(
        SUMMARY["knowledge_base"]["example_object_names"]
    )
    for ruleset in ruleset_names():
        ours: dict[str, set[str]] = {}
        save = build_save(ruleset=ruleset)
        _paths(save, "Save", ours)
        unseen = [
            (path, kind)
            for path, kinds in ours.items()
            for kind in kinds
            if kind not in seen.get(path, set()) and not _known_to_the_knowledge_base(path, kind)
        ]
        assert unseen == [], ruleset
        used = {o["Name"] for o in save["ObjectStates"]}
        used |= {c["Name"] for o in save["ObjectStates"] for c in o.get("ChildObjects", [])}
        assert used <= names, used - names
        assert used <= set(SUMMARY["api_docs"]["built_in"]["names"])  # and a built-in one
        assert save["Table"] in {s["table"] for s in SUMMARY["saves"]}
        assert save["Table"] in SUMMARY["api_docs"]["tables"]["names"]


def test_a_field_no_real_save_shows_is_found() -> None:
    """The conformance check can fail: a made-up key, and a known key with the wrong type."""
    seen = {k: set(v) for k, v in SUMMARY["fields"].items()}
    ours: dict[str, set[str]] = {}
    save = build_save()
    save["Tables"] = "Table_None"
    save["ObjectStates"][0]["Locked"] = "yes"
    _paths(save, "Save", ours)
    unseen = {
        (path, kind)
        for path, kinds in ours.items()
        for kind in kinds
        if kind not in seen.get(path, set()) and not _known_to_the_knowledge_base(path, kind)
    }
    assert unseen == {("Save.Tables", "string"), ("Object.Locked", "string")}


def test_a_model_put_off_the_table_falls_and_is_lost(
    referee: LiveReferee, tts_table: Table
) -> None:
    """In play: a tank dropped in its reserve strip or at the surface's edge stays; one
    dropped past the edge, where nothing holds it up, falls and is lost."""
    tts = tts_table(referee.url)
    red1, red2, blue1 = (
        next(o.guid for o in tts.tagged("tank") if o.nickname == n)
        for n in ("Red 1", "Red 2", "Blue 1")
    )
    tts.drop(red1, 0.0, -30.0)  # Red's reserve strip
    tts.drop(red2, 51.0, 10.0)  # the surface reaches x 52
    tts.drop(blue1, 53.0, 10.0, color="Blue")  # past it
    tts.run(0.1)
    assert not tts.get(red1).destroyed and not tts.get(red2).destroyed
    assert tts.get(blue1).destroyed
    assert blue1 not in {o.guid for o in tts.tagged("tank")}
