"""The fake TTS is only as good as its faithfulness: it offers nothing the real API lacks,
and behaves as FACTS.md documents where our scripts depend on it."""

from __future__ import annotations

import inspect
from typing import Any

import pytest
from faketts import API, FakeObject, FakeTTS, GlobalView, ObjectView, WebRequestView

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
    [(ObjectView, "Object"), (WebRequestView, "WebRequestInstance"), (GlobalView, "Global")],
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
