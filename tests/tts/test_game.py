"""A whole short game played through the bundled Lua in a real Lua 5.2 runtime, against a live
referee over real HTTP: the players only click the board, right-click tanks, click Fire and
drag models. Server dice on a chosen seed make the game the same every run."""

from __future__ import annotations

import math
from typing import Any

import fakeworld
import httpx
from faketts import FakeTTS
from ttsplay import Game, Table, fight, guid_of

from serverkit import LiveReferee
from tankref.tts.save import build_save

SEED = "tts-game-0003"  # Red wins in turn 4, after a Wait shot and a smoke screen


def ring_radii(lines: list[dict[str, Any]]) -> list[float]:
    """The radii of the closed rings among Global's vector lines (smoke, objective)."""
    radii = []
    for line in lines:
        points = line["points"]
        if len(points) > 2:
            cx = sum(p[0] for p in points[:-1]) / (len(points) - 1)
            cz = sum(p[2] for p in points[:-1]) / (len(points) - 1)
            radii.append(round(math.hypot(points[0][0] - cx, points[0][2] - cz), 1))
    return sorted(radii)


def drawn(tts: FakeTTS) -> list[dict[str, Any]]:
    """The script's lines: Global's lines less what the save drew (round terrain's rings)."""
    return [line for line in tts.global_lines if line not in tts.save_lines]


def test_a_short_game_through_the_lua(referee: LiveReferee, tts_table: Table) -> None:
    # Blue's Sherman starts facing east, so Red's first shot comes into its side arc and the
    # referee turns its best armour (the model must follow).
    tts = tts_table(
        referee.url, keep=("Red 1", "Blue 1"), seed=SEED, moves={"Blue 1": (10.0, 21.0, 90.0)}
    )
    game = Game(tts, referee.url, tts.tagged("tankref_board")[0].guid)
    r1, b1 = guid_of(tts, "Red 1"), guid_of(tts, "Blue 1")
    assert ring_radii(tts.save_lines), "the save draws its round terrain's rings"
    game.press("New table")
    assert tts.said("tankref: table ")
    table = game.read()
    assert {t["tank_id"] for t in table["tanks"]} == {r1, b1}  # the models, by their GUIDs
    terrain = {t["label"]: t for t in game.read("/scene")["terrain"]}
    assert len(terrain) == 5  # every tagged terrain piece was posted, with its footprint
    assert terrain["Wood"]["shape"] == {"shape": "circle", "x": -24.0, "z": 0.0, "radius": 4.5}
    hedge = sorted(tuple(p) for p in terrain["Hedge"]["shape"]["points"])
    assert hedge == [(-5.0, 8.5), (-5.0, 9.5), (5.0, 8.5), (5.0, 9.5)]
    game.press("Crew roll")
    assert "Crew:" in tts.get(r1).description and "Unknown" not in tts.get(r1).description
    game.press("Start game")
    assert tts.said("The game begins")

    # Turn 1, Red: a normal move (one drop = one request), then Engage with the odds shown.
    puts_before = sum(1 for m, url, _ in tts.requests if m == "PUT" and "/tanks/" in url)
    game.drive(r1, -8, -17, 0)
    puts = sum(1 for m, url, _ in tts.requests if m == "PUT" and "/tanks/" in url) - puts_before
    assert puts == 1
    game.order(r1, "Engage")
    fire = [b for b in tts.buttons(b1) if b.startswith("Fire")]
    assert fire and "hit " in fire[0] and "penetrate " in fire[0] and "kill " in fire[0]
    assert "If Red 1 fires: hit " in tts.get(b1).description  # odds on hover
    assert tts.get(b1).highlight is not None
    # Red picks: the Fire button on Blue's tank is turned to Red's seat, not Blue's.
    assert fakeworld.button_problems(tts, build_save(referee.url)) == []
    tts.click(b1, "Fire")
    tts.settle()
    assert tts.said("Accuracy: ")  # the math, in chat
    # ... printed, not broadcast, with each modifier's reason and clause beside it
    assert all(c.kind == "print" for c in tts.chat if c.text.startswith("Accuracy: "))
    why = [c.text for c in tts.chat if c.text.startswith("Why: ")]
    assert why and "TTT-" in why[-1], why
    assert all(not b.startswith("Fire") for b in tts.buttons(b1))  # picking is over
    # The best-armour turn: the model now faces where the referee says.
    facing = {t["tank_id"]: t["facing"] for t in game.read()["tanks"]}[b1]
    assert facing != 90.0
    assert abs(tts.get(b1).rotation[1] - facing) < 0.5
    assert any(len(line["points"]) == 2 for line in tts.global_lines)  # the line of fire...
    tts.skip(5)
    assert not any(len(line["points"]) == 2 for line in tts.global_lines)  # ...drawn briefly
    game.press("End phase")

    # Turn 1, Blue: Wait.
    game.order(b1, "Wait")
    assert "Wait" in tts.buttons(b1) and "Status: " in tts.get(b1).description
    game.press("End phase")

    # Turn 2, Red: smoke (a -2 screen: rings at 6" and 12"), then fire.
    game.order(r1, "Smoke")
    assert ring_radii(drawn(tts)) == [6.0, 12.0]
    scene = game.read("/scene")  # the rings are the referee's scene, as it draws them
    assert sorted(r["radius"] for r in scene["rings"]) == [6.0, 12.0]
    assert any(url.endswith("/scene") for _, url, _ in tts.requests)
    fight(game, r1, b1)
    # Blue's waiting Sherman fires in Red's phase, from another device (the browser page):
    # the long-poll brings it to the table without anyone clicking.
    token = game.saved["token"]
    chat_before = len(tts.chat)
    shot = httpx.post(
        f"{referee.url}/tables/{game.table_id}/actions",
        json={"request_id": "page-1", "action": {"kind": "engage", "tank_id": b1, "target_id": r1}},
        headers={"Authorization": f"Bearer {token}"},
        timeout=10,
    )
    assert shot.status_code == 200, shot.text
    tts.run_until(lambda: any(f"({b1}) engages" in c.text for c in tts.chat[chat_before:]), 10)
    assert "Wait" not in tts.buttons(b1)  # the shot used up its Wait
    game.press("End phase")
    fight(game, b1, r1)
    game.press("End phase")

    # Turn 3: the screen thins to -1 at the start of Red's phase: one ring left.
    assert game.summary()["turn"] == 3
    assert ring_radii(drawn(tts)) == [6.0]
    while game.summary()["status"] == "playing":
        summary = game.summary()
        own, enemy = (r1, b1) if summary["active_player"] == "Red" else (b1, r1)
        fight(game, own, enemy)
        if game.summary()["status"] == "playing":
            game.press("End phase")
        assert game.summary()["turn"] <= 4, "the seeded game should be over by turn 4"

    # The end, as the players see it.
    final = game.summary()
    assert final["winner"] == "Red"
    assert tts.said("Victory: Red!")
    # Centre-screen broadcasts are for headlines only: the new table and the victory.
    headlines = [c.text for c in tts.chat if c.kind == "broadcast"]
    assert len(headlines) == 2, headlines
    assert headlines[0].startswith("tankref: table ") and headlines[1].startswith("Victory: Red!")
    assert ring_radii(drawn(tts)) == []  # the smoke has cleared
    # ...and the save's own rings (round terrain) outlived every redraw, each once.
    assert [line for line in tts.global_lines if line in tts.save_lines] == tts.save_lines
    views: dict[str, Any] = {}  # each tank as the last log entry that changed it drew it
    for entry in game.read("/log?limit=500")["entries"]:
        views.update({t["tank_id"]: t for t in entry["tanks"]})
    for guid in (r1, b1):
        obj = tts.get(guid)
        assert obj.description == views[guid]["tooltip"]
        assert obj.nickname == views[guid]["name"]
        assert tts.buttons(guid) == views[guid]["markers"]  # badges = the referee's markers
    blue = tts.get(b1)
    assert "Destroyed" in tts.buttons(b1) or "Off Table" in tts.buttons(b1)
    assert blue.highlight is not None  # a knocked-out tank stands out
    assert "Status: " in blue.description and "Last: " in blue.description
    assert fakeworld.button_problems(tts, build_save(referee.url)) == []  # badges face seats
    # Every entry of the log was drawn; one long-poll at a time, all game long.
    assert game.saved["seq"] == game.read()["seq"]
    assert tts.most_polls == 1


def test_turning_in_place_and_mortar_smoke_where_the_player_points(
    referee: LiveReferee, tts_table: Table
) -> None:
    tts = tts_table(referee.url, keep=("Red 1", "Blue 1"), seed="tts-mortar-0001")
    game = Game(tts, referee.url, tts.tagged("tankref_board")[0].guid)
    r1, b1 = guid_of(tts, "Red 1"), guid_of(tts, "Blue 1")
    game.press("New table")
    game.press("Crew roll")

    # Q/E on a model that stays put: one request, with the new facing.
    puts = len([1 for m, url, _ in tts.requests if m == "PUT" and url.endswith(r1)])
    tts.rotate(r1, 30.0)
    tts.rotate(r1, 45.0)  # two key presses in a row are one turn
    tts.settle()
    assert len([1 for m, url, _ in tts.requests if m == "PUT" and url.endswith(r1)]) == puts + 1
    assert {t["tank_id"]: t["facing"] for t in game.read()["tanks"]}[r1] == 45.0

    game.press("Start game")
    game.press("End phase")  # Red passes; Blue's Sherman has a 2-inch smoke mortar
    game.order(b1, "Smoke")
    assert tts.said("mortar smoke here")
    # Blue points at the spot and presses a scripting key (it works over any object, where
    # the table's own menu does not open: test_seats.py).
    tts.scripting_key(1, color="Blue", at=(-12.0, 12.0))
    tts.settle()
    smoke = game.read()["state"]["smoke"]
    assert [(s["x"], s["z"], s["strength"]) for s in smoke] == [(-12.0, 12.0, 1)]
    assert ring_radii(drawn(tts)) == [6.0]
    ring = drawn(tts)[0]["points"]
    assert abs(sum(p[0] for p in ring[:-1]) / (len(ring) - 1) + 12.0) < 0.01


def test_the_objective_scenario_posts_the_objective(referee: LiveReferee, tts_table: Table) -> None:
    tts = tts_table(referee.url, keep=("Blue 1",), moves={"Blue 1": (4.0, 3.0, 180.0)})
    game = Game(tts, referee.url, tts.tagged("tankref_board")[0].guid)
    game.press("Scenario")
    game.press("Scenario")
    assert "Scenario: Objective (Blue defends)" in tts.buttons(game.board)
    game.press("New table")
    table = game.read()
    assert table["state"]["scenario"]["kind"] == "objective"
    assert table["state"]["objective"] == [0.0, 0.0]
    assert [t["tank_id"] for t in table["tanks"]] == [guid_of(tts, "Blue 1")]  # deployed near it
    assert 12.0 in ring_radii(drawn(tts))  # the objective's 12" ring
