"""The scene over HTTP: the table as shapes for the live page and the TTS scripts (terrain,
smoke rings at their current strength, the objective ring, the latest line of fire)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx

from serverkit import LiveReferee, duel, live_referee, new_table

MISS = {"faces": {"white": [1, 1, 1, 1]}}
TIGER_SMOKE = "NbK 39 dischargers"  # self, -2, once


def scene(table: Any) -> dict[str, Any]:
    return table.ok(table.http.get(table.path("/scene")))  # type: ignore[no-any-return]


def smoke_rings(table: Any) -> list[tuple[float, int]]:
    return [(r["radius"], r["level"]) for r in scene(table)["rings"] if r["kind"] == "smoke"]


def test_scene_shows_terrain_objective_players_and_area(referee: LiveReferee) -> None:
    """TTT-S3's objective ring at the scenario's radius; terrain footprints by kind."""
    table = new_table(
        referee.url,
        setup={"scenario": {"kind": "objective", "defender": "Blue", "objective_radius": 9}},
    )
    wood = {"kind": "forest", "shape": {"shape": "circle", "x": -10, "z": 0, "radius": 4}}
    table.ok(table.http.put(table.path("/terrain/wood-1"), json=wood))
    house = {
        "kind": "blocking",
        "name": "Farm",
        "shape": {"shape": "polygon", "points": [[5, 5], [9, 5], [9, 9], [5, 9]]},
    }
    table.ok(table.http.put(table.path("/terrain/farm"), json=house))
    table.ok(table.http.put(table.path("/objective"), json={"x": 3, "z": 4}))
    table.ok(table.put_tank("B1", card="m4a1-sherman", player="Blue", x=0, z=10, facing=180))

    view = scene(table)
    assert view["table"]["status"] == "setup"
    assert view["area"] == {"x_min": -36, "x_max": 36, "z_min": -24, "z_max": 24}
    assert view["players"] == [{"id": "Red", "edge": "south"}, {"id": "Blue", "edge": "north"}]
    terrain = {t["id"]: t for t in view["terrain"]}
    assert terrain["wood-1"]["kind"] == "forest" and terrain["wood-1"]["label"] == "Forest"
    assert terrain["wood-1"]["shape"] == {"shape": "circle", "x": -10, "z": 0, "radius": 4}
    assert terrain["farm"]["label"] == "Farm"
    assert terrain["farm"]["shape"]["points"] == [[5, 5], [9, 5], [9, 9], [5, 9]]
    assert view["rings"] == [
        {
            "id": "objective",
            "kind": "objective",
            "x": 3,
            "z": 4,
            "radius": 9,
            "level": 0,
            "owner": None,
            "label": "Objective",
        }
    ]
    assert [t["tank_id"] for t in view["tanks"]] == ["B1"]
    assert view["line_of_fire"] is None
    assert view["seq"] == table.read()["seq"]


def test_scene_smoke_rings_thin_and_vanish_as_the_screen_decays(referee: LiveReferee) -> None:
    """TTT-SM3/TTT-SM4 drawn: a -2 screen is a 6" ring at -2 inside a 12" ring at -1; at its
    owner's next phase it thins to one 6" ring at -1, and the phase after that it is gone."""
    table = duel(referee.url)
    table.ok(table.act({"kind": "smoke", "tank_id": "R1", "ability": TIGER_SMOKE}))
    assert smoke_rings(table) == [(6, 2), (12, 1)]
    ring = next(r for r in scene(table)["rings"] if r["kind"] == "smoke")
    assert (ring["x"], ring["z"], ring["owner"]) == (0, -20, "Red")
    table.ok(table.act({"kind": "end_phase"}))
    assert smoke_rings(table) == [(6, 2), (12, 1)]  # Blue's phase: Red's smoke holds
    table.ok(table.act({"kind": "end_phase"}))
    assert smoke_rings(table) == [(6, 1)]
    table.ok(table.act({"kind": "end_phase"}))
    table.ok(table.act({"kind": "end_phase"}))
    assert smoke_rings(table) == []


def test_scene_keeps_the_latest_line_of_fire_across_a_restart(tmp_path: Path) -> None:
    """TTT-E1's line drawn: the latest shot stays in the scene until the next one, and a
    restarted referee rebuilds it from the log."""
    db = tmp_path / "scene.sqlite3"
    with live_referee(db) as ref:
        table = duel(ref.url)
        assert scene(table)["line_of_fire"] is None
        shot = table.ok(
            table.act({"kind": "engage", "tank_id": "R1", "target_id": "B1"}, dice=MISS)
        )
        line = scene(table)["line_of_fire"]
        assert line == {
            "shooter_id": "R1",
            "target_id": "B1",
            "x1": 0,
            "z1": -20,
            "x2": 0,
            "z2": 20,
            "label": line["label"],
            "seq": shot["seq"],
        }
        assert line["label"].endswith("missed") and "R1" in line["label"]
        table.ok(table.act({"kind": "end_phase"}))  # no shot: the line stays
        before = scene(table)
        assert before["line_of_fire"] == line
        table_id = table.id
    with live_referee(db) as ref:
        reply = httpx.get(f"{ref.url}/tables/{table_id}/scene", timeout=10)
        assert reply.json() == before


def test_scene_of_an_unknown_table_is_404(referee: LiveReferee) -> None:
    reply = httpx.get(f"{referee.url}/tables/nope/scene", timeout=10)
    assert reply.status_code == 404 and reply.json()["code"] == "UNKNOWN_TABLE"


def test_a_voided_shot_takes_its_line_of_fire_back(referee: LiveReferee) -> None:
    """A shot both players void leaves the scene as before it: no line of fire."""
    table = duel(referee.url)
    shot = table.ok(table.act({"kind": "engage", "tank_id": "R1", "target_id": "B1"}, dice=MISS))
    assert scene(table)["line_of_fire"]["seq"] == shot["seq"]
    for player in ("Red", "Blue"):
        body = {"request_id": f"void-{player}", "seq": shot["seq"], "player": player}
        table.ok(table.http.post(table.path("/void"), json=body, headers=table.seat(player)))
    assert scene(table)["line_of_fire"] is None
