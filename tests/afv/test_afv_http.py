"""AFV through the real referee (uvicorn, real sockets, real SQLite): create an ``afv``
table, put units by their TTS positions, play with table dice, read scene, options and log;
then restart the referee and find the same table rebuilt from its log."""

from __future__ import annotations

from pathlib import Path

import httpx

from kit.afv import cm
from serverkit import Table, live_referee


def test_an_afv_table_over_http(tmp_path: Path) -> None:
    """AFV-SEQ1, AFV-MV1, AFV-SP1, AFV-HIT1, AFV-DMG1, AFV-DMG2 over HTTP: placement by TTS
    position, a move measured in cm, a shot at infantry with forced dice (spotting, hit,
    damage), refusals as 409 with the clause and nothing changed, the generic scene and
    options, the log; the table survives a restart."""
    db = tmp_path / "referee.sqlite3"
    with live_referee(db) as ref:
        created = httpx.post(
            f"{ref.url}/tables",
            json={"ruleset": "afv", "setup": {"options": {"turn_limit": 5}},
                  "dice": {"source": "table", "seed": "afv-http"}},
            timeout=30,
        )  # fmt: skip
        assert created.status_code == 201, created.text
        assert created.json()["ruleset"] == "afv"
        table = Table(ref.url, created.json())
        table.ok(table.put_tank("R1", card="standard-afv", player="Red", x=0, z=0, facing=0))
        table.ok(
            table.put_tank("B1", card="standard-infantry", player="Blue", x=0, z=cm(30), facing=180)
        )
        bad = table.put_tank("B2", card="tiger-i", player="Blue", x=0, z=5, facing=180)
        assert bad.status_code == 422 and bad.json()["code"] == "UNKNOWN_CARD"
        woods = {"kind": "woods", "shape": {"shape": "circle", "x": 10, "z": 10, "radius": 2}}
        table.ok(table.http.put(table.path("/terrain/w1"), json=woods))
        assert table.http.put(table.path("/objective"), json={"x": 0, "z": 0}).json()["code"] == (
            "NO_OBJECTIVE"
        )
        table.ok(table.act({"kind": "start_game"}))

        # A drag of 10 cm north: a move the referee measures in cm (AFV-MV1).
        moved = table.ok(table.put_tank("R1", card="standard-afv", player="Red", x=0, z=cm(10),
                                        facing=0))  # fmt: skip
        assert moved["applied"] and "10 cm" in " ".join(moved["entry"]["chat"])
        state, log = table.snapshot()
        too_far = table.put_tank("R1", card="standard-afv", player="Red", x=0, z=cm(41), facing=0)
        assert too_far.status_code == 409
        assert (too_far.json()["code"], too_far.json()["clause"]) == ("TOO_FAR", "AFV-MV1")
        assert table.snapshot() == (state, log)

        # Fire the machine gun at the team: the referee asks for the spotting die first.
        fire = {"kind": "fire", "tank_id": "R1", "target_id": "B1", "weapon": 1}
        need = table.act(fire)
        assert need.status_code == 409 and need.json()["details"]["need"]["die"] == "d6"
        assert table.snapshot() == (state, log)
        # Spotted on 2; 6+6+3 = 15, -2 for moving, short range: 2 hits; damage 2+2+1 = 5
        # stopped, 4+4+1 = 9 degraded (and suppressed).
        faces = {"faces": {"d6": [2, 6, 6, 2, 2, 4, 4]}}
        shot = table.ok(table.act(fire, request_id="shot-1", dice=faces))
        repeat = table.ok(table.act(fire, request_id="shot-1", dice=faces))  # a retry
        assert repeat["replayed"] and repeat["seq"] == shot["seq"]  # never rolled twice
        result = shot["entry"]["result"]
        assert result["outcome"]["damage"] == ["stopped", "degraded"]
        assert {m["clause"] for m in result["modifiers"]} >= {"AFV-HIT2", "AFV-DMG1"}
        team = next(t for t in shot["entry"]["tanks"] if t["tank_id"] == "B1")
        assert team["markers"] == ["Stopped", "Suppressed"]
        assert "Degraded infantry" in team["tooltip"] and "2.54 cm" in team["tooltip"]
        again = table.act(fire, dice={"faces": {"d6": [1, 1]}})
        assert (again.status_code, again.json()["code"]) == (409, "ALREADY_FIRED")

        scene = table.ok(table.http.get(table.path("/scene")))
        assert scene["ruleset"] == "afv"
        assert {t["tank_id"] for t in scene["tanks"]} == {"R1", "B1"}
        assert scene["terrain"][0]["kind"] == "woods"
        assert scene["line_of_fire"]["target_id"] == "B1"
        assert "Machine gun" in scene["line_of_fire"]["label"]

        options = {o["kind"]: o for o in table.ok(table.http.get(table.path("/tanks/R1/options")))}
        assert options["move"]["code"] == "ALREADY_FIRED"
        assert options["fire"]["allowed"] is False  # the main gun is hit 0: not at infantry
        assert options["fire"]["clause"] == "AFV-AP1"

        table.ok(table.act({"kind": "end_phase"}))
        options = {o["kind"]: o for o in table.ok(table.http.get(table.path("/tanks/B1/options")))}
        assert options["move"]["code"] == "STOPPED_MARKER"
        kinds = [e["kind"] for e in table.log()]
        assert kinds[-3:] == ["move", "fire", "end_phase"]
        final = table.read()
        table.close()

    with live_referee(db) as ref:  # rebuilt from the event log
        reread = httpx.get(f"{ref.url}/tables/{final['table_id']}", timeout=30)
        assert reread.status_code == 200
        assert reread.json()["state"] == final["state"]


def test_an_afv_game_on_server_dice_verifies_after_the_end(tmp_path: Path) -> None:
    """AFV-HIT1, AFV-DMG1 on the server's dice: the game's export, once ended by agreement,
    replays event by event with the revealed seed (``tankref verify``)."""
    from tankref.core.verify import verify_export

    with live_referee(tmp_path / "referee.sqlite3") as ref:
        created = httpx.post(
            f"{ref.url}/tables",
            json={"ruleset": "afv", "dice": {"source": "server", "seed": "afv-verify-0001"}},
            timeout=30,
        )
        table = Table(ref.url, created.json())
        table.ok(table.put_tank("R1", card="ifv", player="Red", x=0, z=0, facing=0))
        table.ok(table.put_tank("B1", card="standard-afv", player="Blue", x=0, z=cm(25), facing=0))
        table.ok(table.put_tank("B2", card="at-team", player="Blue", x=cm(10), z=cm(20), facing=0))
        table.ok(table.act({"kind": "start_game"}))
        moves = [
            {"kind": "fire", "tank_id": "R1", "target_id": "B1"},
            {"kind": "end_phase"},
            {"kind": "fire", "tank_id": "B1", "target_id": "R1"},
            {"kind": "end_phase"},
        ] * 3
        for action in moves:
            if table.read()["table"]["status"] != "playing":
                break
            table.ok(table.act(action))
        if table.read()["table"]["status"] == "playing":  # else over by the rules already
            table.ok(table.http.post(table.path("/end"), json={"request_id": "end-1"}))
        export = table.ok(table.http.get(table.path("/export")))
        report = verify_export(export)
        assert report.ok, report.lines()
        assert report.readjudicated == report.events > 5
        table.close()
