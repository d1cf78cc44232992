"""The fake TTS is only as good as its faithfulness: it offers nothing the real API lacks,
and behaves as FACTS.md documents where our scripts depend on it."""

from __future__ import annotations

import inspect
from typing import Any

import pytest
from faketts import (
    API,
    FakeObject,
    FakeTTS,
    GlobalView,
    MenuClosed,
    ObjectView,
    PlayerView,
    WebRequestView,
)

from serverkit import LiveReferee, free_port
from tankref.tts.bundle import bundle


def _table(script: str, *objects: FakeObject) -> FakeTTS:
    tts = FakeTTS()
    tts.global_script = script
    for obj in objects:
        tts.objects[obj.guid] = obj
    tts.load()
    return tts


def _g(tts: FakeTTS, name: str) -> Any:
    return tts.global_runtime.globals()[name]


@pytest.mark.parametrize(
    ("cls", "section"),
    [
        (ObjectView, "Object"),
        (WebRequestView, "WebRequestInstance"),
        (GlobalView, "Global"),
        (PlayerView, "PlayerInstance"),
    ],
)
def test_the_fake_offers_only_real_api_names(cls: type, section: str) -> None:
    public = {n for n, _ in inspect.getmembers(cls) if not n.startswith("_")} - {"SECTION"}
    if cls is WebRequestView:  # its fields are set per request
        public |= {n for n in vars(WebRequestView("u")) if not n.startswith("_")}
    assert public, cls
    assert public <= set(API[section]), public - set(API[section])
    assert section == cls.SECTION  # what the attribute filter lets Lua reach


def test_script_globals_are_api_names_only() -> None:
    tts = _table("")
    try:
        names = set(tts.global_runtime.globals().keys())
        assert names <= set(API["/"]) | {"_G", "_VERSION"}, names - set(API["/"])
        for missing in ("io", "require", "load", "dofile", "debug", "package", "python"):
            assert missing not in names
    finally:
        tts.close()


def test_lua_cannot_reach_anything_else_on_an_object() -> None:
    tts = _table(
        "function onLoad()\n"
        "  local o = getObjectFromGUID('abc123')\n"
        "  ok_api = pcall(function() return o.getPosition().x end)\n"
        "  ok_other = pcall(function() return o.position end)\n"
        "end",
        FakeObject(guid="abc123"),
    )
    try:
        assert _g(tts, "ok_api") is True and _g(tts, "ok_other") is False
    finally:
        tts.close()


def test_moonsharp_quirks() -> None:
    tts = _table(
        "empty = JSON.encode({})\n"
        "ok_string = pcall(error, 'x')\n"
        "local ok, why = pcall(error, {code = 1})\n"
        "table_error = why\n"
    )
    try:
        assert _g(tts, "empty") == "[]"
        assert "bad argument #1 to 'error'" in _g(tts, "table_error")
    finally:
        tts.close()


def test_web_requests_answer_on_a_later_tick_and_4xx_is_not_an_error(
    referee: LiveReferee,
) -> None:
    dead = f"http://127.0.0.1:{free_port()}"
    tts = _table(
        "function onLoad()\n"
        f"  WebRequest.get('{referee.url}/tables/nope', function(r)\n"
        "    code, err, text = r.response_code, r.is_error, r.text end)\n"
        f"  WebRequest.get('{dead}/health', function(r) down = r.is_error end)\n"
        "  local gone = WebRequest.get('" + referee.url + "/health', function(r) late = true end)\n"
        "  gone.dispose()\n"
        "  Wait.frames(function() ticked = true end, 1)\n"
        "end"
    )
    try:
        assert _g(tts, "code") is None  # never within the call
        tts.run_until(lambda: _g(tts, "code") is not None and _g(tts, "down") is not None, 10)
        assert _g(tts, "code") == 404 and _g(tts, "err") is False
        assert "UNKNOWN_TABLE" in _g(tts, "text")
        assert _g(tts, "down") is True
        tts.run(0.2)
        assert _g(tts, "late") is None  # a disposed request never calls back
        assert _g(tts, "ticked") is True
    finally:
        tts.close()


def test_unknown_entry_kinds_are_drawn_generically() -> None:
    """Entries another ruleset or a later issue adds (undo, void...) still show their chat
    lines and tanks, and break nothing."""
    probe = "\nfunction tankref_probe(entry) use('render').entry(entry) end\n"
    tank = FakeObject(guid="aaa111", nickname="Red 1", tags=["tank"])
    tts = _table(bundle("global") + probe, tank)
    try:
        _g(tts, "tankref_probe")(
            tts.global_runtime.table_from(
                {
                    "seq": 1,
                    "kind": "void",
                    "chat": tts.global_runtime.table_from(["Entry 7 is voided by the referee."]),
                    "tanks": tts.global_runtime.table_from(
                        [
                            tts.global_runtime.table_from(
                                {
                                    "tank_id": "aaa111",
                                    "name": "Red 1",
                                    "tooltip": "Restored",
                                    "x": 0,
                                    "z": 0,
                                    "facing": 0,
                                    "markers": tts.global_runtime.table_from(["Shaken"]),
                                }
                            )
                        ]
                    ),
                }
            )
        )
        assert tts.errors == []
        assert tts.said("Entry 7 is voided by the referee.")
        # A routed tank is shown the point it must drive toward.
        lua = tts.global_runtime
        event = lua.table_from(
            {"kind": "rout_move", "data": lua.table_from({"tank_id": "aaa111", "x": 0, "z": -24})}
        )
        result = lua.table_from({"events": lua.table_from([event])})
        _g(tts, "tankref_probe")(lua.table_from({"seq": 2, "kind": "end_phase", "result": result}))
        assert tts.errors == []
        assert tts.said("Drive the routed aaa111 to the red mark (0, -24).")
        arrow = [line["points"] for line in tts.global_lines if len(line["points"]) == 2]
        assert arrow == [[[0, 1.2, 0], [0, 1.2, -24]]]
        assert tank.description == "Restored" and [b["label"] for b in tank.buttons] == ["Shaken"]
    finally:
        tts.close()


# --- seats and the table's behaviour (FACTS.md "The table, the physical world and seats") ------


def test_every_callback_carries_a_seat_and_players_have_their_flags() -> None:
    """onObjectDrop(player_color, obj), a button's (obj, colour, alt), onChat(message, sender)
    and onScriptingButtonDown(index, colour) say who; Player[colour] has host/promoted."""
    script = """
        seen = {}
        function onObjectDrop(c, obj) table.insert(seen, "drop " .. c) end
        function onChat(m, sender)
          local p = Player[sender.color]
          table.insert(seen, "chat " .. sender.color .. " " .. tostring(p.host) .. " "
            .. tostring(p.promoted) .. " " .. tostring(p.seated) .. " " .. p.steam_name)
          return false
        end
        function onScriptingButtonDown(i, c)
          local at = Player[c].getPointerPosition()
          table.insert(seen, "key " .. i .. " " .. c .. " " .. at.x .. " " .. at.z)
        end
    """
    tts = _table(script, FakeObject("t1", position=[0.0, 1.0, 0.0]))
    try:
        tts.drop("t1", 3.0, 4.0, color="Blue")
        assert tts.say("hello", color="Red") is False  # the script hid it
        tts.say("hi", color="Grey")
        tts.scripting_key(1, color="Blue", at=(7.0, -2.0))
        seen = list(_g(tts, "seen").values())
        assert seen == [
            "drop Blue",
            "chat Red true false true Rita",
            "chat Grey false false false Watcher",
            "key 1 Blue 7 -2",
        ]
    finally:
        tts.close()


def test_the_global_menu_opens_only_on_uncovered_points() -> None:
    tts = _table(
        "function onLoad() addContextMenuItem('here', function(c, p) last = c .. p.x end) end",
        FakeObject("wood", position=[-24.0, 1.0, 0.0], scale=[9.0, 1.0, 9.0]),
    )
    try:
        with pytest.raises(MenuClosed):
            tts.global_menu("here", color="Red", at=(-22.0, 3.0))  # on the wood
        tts.global_menu("here", color="Red", at=(-10.0, 3.0))  # open ground
        assert _g(tts, "last") == "Red-10"
    finally:
        tts.close()


def test_set_vector_lines_replaces_the_players_paint() -> None:
    tts = _table("function redraw() Global.setVectorLines({}) end")
    try:
        tts.paint([(0.0, 1.0, 0.0), (1.0, 1.0, 1.0)])
        assert len(tts.global_lines) == 1
        _g(tts, "redraw")()
        assert tts.global_lines == []  # as TTS does: a script must keep what it did not draw
    finally:
        tts.close()


def test_objects_rest_only_after_they_settle_held_ones_never_deleted_ones_raise() -> None:
    script = """
        function probe(guid) local o = getObjectFromGUID(guid) return o end
        function resting(o) return o.resting end
        function value(o) return o.getValue() end
        function gone(o) return o.isDestroyed() end
    """
    tts = _table(script, FakeObject("t1"), FakeObject("d1", name="Die_6"))
    try:
        tank = _g(tts, "probe")("t1")
        tts.drop("t1", 2.0, 2.0)
        assert _g(tts, "resting")(tank) is False
        tts.skip(0.3)
        assert _g(tts, "resting")(tank) is False  # still sliding
        tts.skip(1.0)
        assert _g(tts, "resting")(tank) is True
        assert tts.grab("t1", color="Blue")
        tts.skip(5.0)
        assert _g(tts, "resting")(tank) is False  # a held object never rests
        die = _g(tts, "probe")("d1")
        tts.destroy("d1")
        assert _g(tts, "gone")(die) is True
        with pytest.raises(Exception, match="destroyed"):
            _g(tts, "value")(die)
    finally:
        tts.close()


def test_rewind_runs_onload_again_with_the_older_state_and_places() -> None:
    script = """
        function onLoad(state) loads = (loads or 0) + 1; last = state end
        function onSave() return "saved" end
    """
    tts = _table(script, FakeObject("t1", position=[1.0, 1.0, 1.0]))
    try:
        older = tts.save()
        tts.drop("t1", 9.0, 9.0)
        tts.rewind(older)
        assert tts.get("t1").position == [1.0, 1.0, 1.0]
        assert _g(tts, "last") == "saved"
    finally:
        tts.close()


def test_print_to_color_reaches_that_player_alone_and_needs_a_player_colour() -> None:
    """printToColor(message, player_color, tint): the API names a Player Color; a script
    that passes anything else fails here, and the message reaches that seat alone."""
    tts = _table(
        "function onLoad()\n"
        "  printToColor('for blue', 'Blue', {1, 1, 1})\n"
        "  ok_side = pcall(function() printToColor('for a side', 'Axis') end)\n"
        "end"
    )
    try:
        assert "for blue" in tts.seen_by("Blue") and "for blue" not in tts.seen_by("Red")
        assert _g(tts, "ok_side") is False
        assert "for a side" not in tts.chat_text()
    finally:
        tts.close()
