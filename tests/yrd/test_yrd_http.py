"""A tank yard table through the real referee (uvicorn, HTTP, SQLite): models put by their
TTS positions, attacks with table dice, then the scene, options, odds and log."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from serverkit import live_referee, new_table


def test_yard_table_over_http(tmp_path: Path) -> None:
    """YRD-SP1, YRD-AT1, YRD-AN1, YRD-SD1 over HTTP: create a ``yrd`` table, drop two tanks
    and a piece on their spaces, attack with forced dice; refusals change neither state nor
    log; the scene draws the spaces and the latest attack."""
    with live_referee(tmp_path / "yrd.db") as ref:
        table = new_table(
            ref.url,
            ruleset="yrd",
            setup={"players": [{"id": "Red"}, {"id": "Blue", "defence": 2}]},
            dice={"source": "table", "seed": "yrd-http-0"},
        )
        assert table.created["ruleset"] == "yrd"
        put = table.put_tank
        table.ok(put("R", card="yard-tank", player="Red", x=0.5, z=-18.2, facing=0))
        table.ok(put("B", card="yard-tank", player="Blue", x=8, z=18, facing=180))
        table.ok(put("P1", card="party-member", player="Blue", x=0.3, z=-8.1, facing=180))
        refused = put("R2", card="yard-tank", player="Red", x=-8, z=-18, facing=0)
        assert refused.status_code == 409 and refused.json()["code"] == "ONE_TANK"
        assert refused.json()["clause"] == "YRD-SP1"
        table.ok(table.act({"kind": "start_game"}))

        options = {o["kind"]: o for o in table.ok(table.http.get(table.path("/tanks/R/options")))}
        assert options["attack"]["allowed"]
        [target] = options["attack"]["detail"]["targets"]
        assert target["target_id"] == "P1"
        odds = table.ok(table.http.get(table.path("/tanks/R/odds")))["odds"]
        assert odds[0]["target"] == "P1" and odds[0]["exact"]["p_hit"] == "39/100"
        assert target["p_hit"] == 0.39

        # YRD-AT1: 15 against 3 + 2 defence; 2d6 = 4 + 5.
        reply = table.ok(
            table.act(
                {"kind": "attack", "tank_id": "R", "target_id": "P1"},
                dice={"faces": {"d20": [15, 3], "d6": [4, 5]}},
            )
        )
        result = reply["entry"]["result"]
        assert result["outcome"]["damage"] == 9
        assert result["modifiers"][0]["clause"] == "YRD-AT1"
        piece = next(t for t in reply["entry"]["tanks"] if t["tank_id"] == "P1")
        assert "HP 11/20" in piece["markers"]
        table.ok(table.act({"kind": "end_turn"}))

        # YRD-AN1 with advantage (R is on its Attack space): 2 and 12, keep 12, against 5.
        needs = table.act({"kind": "anti_tank", "tank_id": "B", "target_id": "R"})
        assert needs.status_code == 409 and needs.json()["code"] == "DICE_NEEDED"
        reply = table.ok(
            table.act(
                {"kind": "anti_tank", "tank_id": "B", "target_id": "R"},
                dice={"faces": {"d20": [2, 12, 5]}},
            )
        )
        r = next(t for t in reply["entry"]["tanks"] if t["tank_id"] == "R")
        assert "Shutdown" in r["markers"] and "HP 4/5" in r["markers"]
        table.ok(table.act({"kind": "end_turn", "player": "Blue"}))

        # YRD-SD1: Red's tank is Shut Down this turn: dragging it to Shield is refused.
        before = table.snapshot()
        moved = put("R", card="yard-tank", player="Red", x=-8, z=-18, facing=0)
        assert moved.status_code == 409 and moved.json()["code"] == "SHUTDOWN"
        assert moved.json()["clause"] == "YRD-SD1"
        terrain = table.http.put(table.path("/terrain/t1"), json={"kind": "forest"})
        assert terrain.status_code == 409 and terrain.json()["code"] == "NO_TERRAIN"
        assert table.snapshot() == before
        # A drop on the same space (TTS re-reports) changes nothing.
        same = table.ok(put("R", card="yard-tank", player="Red", x=0.2, z=-17.9, facing=0))
        assert same["applied"] is False

        scene = table.ok(table.http.get(table.path("/scene")))
        assert scene["ruleset"] == "yrd"
        kinds = Counter(r["kind"] for r in scene["rings"])
        assert kinds == {"tank_space": 6, "artillery_space": 6}
        assert {t["tank_id"] for t in scene["tanks"]} == {"R", "B", "P1"}
        line = scene["line_of_fire"]
        assert (line["shooter_id"], line["target_id"]) == ("B", "R")
        assert (line["x2"], line["z2"]) == (0.0, -18.0)

        log = table.log()
        assert [e["kind"] for e in log] == [
            "place_tank", "place_tank", "place_piece", "start_game",
            "attack", "end_turn", "anti_tank", "end_turn",
        ]  # fmt: skip
        assert log[4]["result"]["rolls"][0]["source"] == "table"
        table.close()
