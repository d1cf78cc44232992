"""Minimal Tank Combat through the real referee (uvicorn, SQLite, HTTP): create an ``mtc``
table, put tanks and terrain by TTS position, play with table dice, read scene, options,
odds and log; refusals are clear 4xx that change nothing."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from serverkit import LiveReferee, Table, live_referee, new_table
from tankref.core.hexgrid import Hex, HexGrid

GRID = HexGrid(hex_width=2.0, orientation="flat", origin_x=1.0, origin_z=0.0)


@pytest.fixture(scope="module")
def referee(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveReferee]:
    with live_referee(tmp_path_factory.mktemp("mtc") / "referee.sqlite3") as live:
        yield live


def at(q: int, r: int, dx: float = 0.0) -> dict[str, float]:
    x, z = GRID.center(Hex(q, r))
    return {"x": x + dx, "z": z}


def d6(*faces: int) -> dict[str, Any]:
    return {"faces": {"d6": list(faces)}}


def mtc_table(url: str) -> Table:
    return new_table(
        url,
        ruleset="mtc",
        setup={
            "grid": GRID.model_dump(),
            "terrain": [{"q": 1, "r": 0, "kind": "road"}, {"q": 2, "r": 0, "kind": "road"}],
            "designs": [
                {"id": "sniper", "name": "Sniper", "attack": 3, "defense": 1, "range": 5, "move": 1}
            ],
        },
        dice={"source": "table", "seed": "mtc-http"},
    )


def test_a_short_game_over_http(referee: LiveReferee) -> None:
    table = mtc_table(referee.url)
    assert table.created["ruleset"] == "mtc"
    table.ok(table.put_tank("R1", card="raider", player="Red", facing=0, **at(0, 0, 0.4)))
    table.ok(table.put_tank("R2", card="sniper", player="Red", facing=0, **at(0, 2)))
    table.ok(table.put_tank("B1", card="standard", player="Blue", facing=180, **at(4, 0)))
    crater = {"kind": "crater", "shape": {"shape": "circle", **at(3, 3), "radius": 0.5}}
    table.ok(table.http.put(table.path("/terrain/crater-1"), json=crater))
    entry = table.ok(table.act({"kind": "start_game"}, dice=d6(4, 4, 5, 2)))["entry"]
    assert entry["table"]["active_player"] == "Red"
    assert entry["table"]["phase"] == "movement"  # MTC-INI1: P1 move, P1 combat, ...
    assert "1 tie re-rolled" in " ".join(entry["chat"])

    options = table.ok(table.http.get(table.path("/tanks/R1/options")))
    move = next(o for o in options if o["kind"] == "move")
    assert move["allowed"] and move["detail"]["road_bonus"] == 0  # (0,0) is not road
    # A drop two hexes east along the road: a move the referee prices (MTC-MV1).
    reply = table.ok(table.put_tank("R1", card="raider", player="Red", facing=90, **at(2, 0)))
    assert reply["entry"]["result"]["outcome"]["cost"] == 2
    assert reply["entry"]["tanks"][0]["markers"] == ["Moved"]
    # A drop in the same hex is drift: nothing logged.
    assert (
        table.ok(table.put_tank("R1", card="raider", player="Red", facing=90, **at(2, 0, 0.3)))[
            "applied"
        ]
        is False
    )
    ended = table.ok(table.act({"kind": "end_phase", "player": "Red"}))["entry"]
    assert (ended["table"]["active_player"], ended["table"]["phase"]) == ("Red", "combat")

    odds = table.ok(table.http.get(table.path("/tanks/R1/odds")))["odds"]
    assert odds[0]["target_id"] == "B1" and odds[0]["column"] == "1-1"
    fire = {"kind": "fire", "tank_ids": ["R1", "R2"], "target_id": "B1"}
    need = table.act(fire)
    assert need.status_code == 409 and need.json()["code"] == "DICE_NEEDED"
    entry = table.ok(table.act(fire, dice=d6(2)))["entry"]
    assert entry["result"]["outcome"]["column"] == "2-1"  # 5 : 2
    assert entry["result"]["outcome"]["destroyed"] is False

    scene = table.ok(table.http.get(table.path("/scene")))
    assert scene["ruleset"] == "mtc"
    assert {t["kind"] for t in scene["terrain"]} == {"road", "crater"}
    assert (
        scene["line_of_fire"]["shooter_id"] == "R1" and scene["line_of_fire"]["target_id"] == "B1"
    )
    r1 = next(t for t in scene["tanks"] if t["tank_id"] == "R1")
    assert (r1["x"], r1["z"]) == pytest.approx(GRID.center(Hex(2, 0)))
    kinds = [e["kind"] for e in table.log()]
    assert kinds[-3:] == ["move", "end_phase", "fire"]


def test_refusals_are_clear_and_change_nothing(referee: LiveReferee) -> None:
    table = mtc_table(referee.url)
    table.ok(table.put_tank("R1", card="standard", player="Red", facing=0, **at(0, 0)))
    table.ok(table.put_tank("B1", card="standard", player="Blue", facing=0, **at(4, 0)))
    table.ok(table.act({"kind": "start_game"}, dice=d6(6, 1)))
    before = table.snapshot()
    reply = table.put_tank("R1", card="standard", player="Red", facing=0, **at(3, 0))
    assert reply.status_code == 409 and reply.json()["clause"] == "MTC-MV1"
    assert "needs 3 MP" in reply.json()["message"]
    reply = table.http.put(table.path("/objective"), json={"x": 0, "z": 0})
    assert reply.status_code == 409 and reply.json()["code"] == "NO_OBJECTIVE"
    reply = table.act({"kind": "fire", "tank_ids": ["R1"], "target_id": "B1"})
    assert reply.status_code == 409 and reply.json()["code"] == "WRONG_STEP"
    reply = table.act({"kind": "fire", "tank_ids": ["R1"], "target_id": 5})
    assert reply.status_code == 422
    assert table.http.get(table.path("/tanks/NOPE/options")).status_code == 404
    assert table.snapshot() == before


def test_a_bad_design_is_refused_with_every_problem(referee: LiveReferee) -> None:
    """MTC-BP1 over HTTP: one 422 listing each problem with its field."""
    reply = httpx.post(
        f"{referee.url}/tables",
        json={
            "ruleset": "mtc",
            "setup": {
                "designs": [
                    {"id": "x", "name": "X", "attack": 7, "defense": 5, "range": 5, "move": 0}
                ]
            },
        },
        timeout=30,
    )
    assert reply.status_code == 422
    problems = reply.json()["details"]["problems"]
    assert [p["field"] for p in problems] == [
        "setup.designs.0.attack",
        "setup.designs.0.move",
        "setup.designs.0",
    ]
    assert "costs 17 BP" in problems[2]["problem"]


def test_the_log_replays_after_a_restart_and_undo_luck_work(tmp_path: Path) -> None:
    """The table is rebuilt from its SQLite log by replaying the MTC actions; undo takes a
    move back; the luck page counts the attack roll at its CRT chance."""
    db = tmp_path / "mtc.sqlite3"
    with live_referee(db) as live:
        table = mtc_table(live.url)
        table.ok(table.put_tank("R1", card="raider", player="Red", facing=0, **at(0, 0)))
        table.ok(table.put_tank("B1", card="standard", player="Blue", facing=0, **at(2, 0)))
        table.ok(table.act({"kind": "start_game"}, dice=d6(6, 1)))
        table.ok(table.put_tank("R1", card="raider", player="Red", facing=0, **at(0, 1)))
        undo = table.http.post(table.path("/undo"), json={"request_id": "u1"})
        assert undo.status_code == 200, undo.text
        assert table.read()["state"]["tanks"]["R1"]["r"] == 0
        table.ok(table.act({"kind": "end_phase"}))
        table.ok(table.act({"kind": "fire", "tank_ids": ["R1"], "target_id": "B1"}, dice=d6(5)))
        luck = table.ok(table.http.get(table.path("/luck")))
        before = table.read()
        table.close()
    red = next(p for p in luck["players"] if p["player"] == "Red")
    hits = red["hit"]
    assert hits["trials"] == 1 and hits["expected_exact"] == "1/2"
    with live_referee(db) as live:
        again = httpx.get(f"{live.url}/tables/{before['table_id']}", timeout=30).json()
    assert again["damaged"] is None
    assert again["state"] == before["state"] and again["seq"] == before["seq"]


def test_the_api_document_describes_mtc_bodies_under_their_own_names(
    referee: LiveReferee,
) -> None:
    """The OpenAPI document gathers every ruleset's bodies, each filed under its ruleset's
    name: MTC's Move (with hex and path) is not another ruleset's model of the same name."""
    doc = httpx.get(f"{referee.url}/openapi.json", timeout=30).json()
    schemas = doc["components"]["schemas"]
    assert {"hex", "path", "x", "z"} <= set(schemas["mtc.Move"]["properties"])
    assert "hex" not in schemas["ttt.Move"]["properties"]
    assert set(schemas["mtc.Fire"]["required"]) == {"tank_ids", "target_id"}
    assert "max_bp" in schemas["mtc.Options"]["properties"]
    tables = {t["properties"]["ruleset"]["const"]: t for t in schemas["CreateTable"]["oneOf"]}
    assert "designs" in tables["mtc"]["properties"]["setup"]["properties"]
