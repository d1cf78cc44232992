"""Tank models by GUID, terrain and the objective over HTTP: placement, moves, drift, refusals."""

from __future__ import annotations

import httpx

from serverkit import LiveReferee, duel, new_table

TIGER = {"card": "tiger-i", "player": "Red"}


def test_setup_put_places_and_replaces_and_ignores_repeats(referee: LiveReferee) -> None:
    """TTT-S1 by GUID: the first put places the tank, a new spot re-places it, a repeat of the
    same report changes nothing (applied false, no log entry)."""
    table = new_table(referee.url)
    first = table.ok(table.put_tank("a1b2c3", **TIGER, x=1, z=-21, facing=5))
    assert first["applied"] is True and first["entry"]["kind"] == "place_tank"
    assert first["entry"]["tanks"][0]["tank_id"] == "a1b2c3"
    again = table.ok(table.put_tank("a1b2c3", **TIGER, x=1.1, z=-21, facing=5.5))
    assert again["applied"] is False and again["entry"] is None
    moved = table.ok(table.put_tank("a1b2c3", **TIGER, x=4, z=-20, facing=10))
    assert moved["applied"] is True
    assert table.read()["state"]["tanks"]["a1b2c3"]["x"] == 4
    assert len(table.log()) == 2


def test_setup_put_outside_deployment_names_the_clause(referee: LiveReferee) -> None:
    """TTT-S1: Red deploys along its own (south) edge; deep in the table is refused (409)."""
    table = new_table(referee.url)
    reply = table.put_tank("R1", **TIGER, x=0, z=0, facing=0)
    assert reply.status_code == 409
    assert reply.json()["clause"] == "TTT-S1"
    assert reply.json()["code"] == "DEPLOY_ZONE"
    assert table.log() == []


def test_unknown_card_and_player_name_the_field(referee: LiveReferee) -> None:
    """An unknown card or player: 422 naming `card` / `player`; nothing placed."""
    table = new_table(referee.url)
    reply = table.put_tank("R1", card="maus", player="Red", x=0, z=-21, facing=0)
    assert reply.status_code == 422
    assert reply.json()["code"] == "UNKNOWN_CARD"
    assert reply.json()["field"] == "action.card"
    reply = table.put_tank("R1", card="tiger-i", player="Green", x=0, z=-21, facing=0)
    assert reply.status_code == 422
    assert reply.json()["field"] == "action.player"
    assert table.log() == []


def test_nan_infinite_and_absurd_coordinates_are_refused(referee: LiveReferee) -> None:
    """NaN, Infinity, coordinates beyond any table, and values of another JSON type (no
    guessing that "1.5" or false meant a number): 422 naming the field."""
    table = new_table(referee.url)
    path = table.path("/tanks/R1")
    for raw, field in (
        ('{"card":"tiger-i","player":"Red","x":NaN,"z":-21,"facing":0}', "x"),
        ('{"card":"tiger-i","player":"Red","x":0,"z":Infinity,"facing":0}', "z"),
        ('{"card":"tiger-i","player":"Red","x":0,"z":-21,"facing":-Infinity}', "facing"),
        ('{"card":"tiger-i","player":"Red","x":1e300,"z":-21,"facing":0}', "x"),
        ('{"card":"tiger-i","player":"Red","x":"left","z":-21,"facing":0}', "x"),
        ('{"card":"tiger-i","player":"Red","x":"1.5","z":-21,"facing":0}', "x"),
        ('{"card":"tiger-i","player":"Red","x":false,"z":-21,"facing":0}', "x"),
        ('{"card":"tiger-i","player":"Red","x":0,"z":-21,"facing":0,"hull_down":1}', "hull_down"),
    ):
        reply = table.http.put(path, content=raw, headers={"Content-Type": "application/json"})
        assert reply.status_code == 422, (raw, reply.text)
        assert reply.json()["field"] == field, reply.json()
    assert table.log() == []


def test_move_in_play_is_classified_by_the_engine(referee: LiveReferee) -> None:
    """TTT-M1: a put in play is a move the referee classifies (normal) and reports."""
    table = duel(referee.url)
    reply = table.ok(table.put_tank("R1", **TIGER, x=0, z=-16, facing=0))
    entry = reply["entry"]
    assert entry["kind"] == "move"
    r1 = next(t for t in entry["tanks"] if t["tank_id"] == "R1")
    assert r1["z"] == -16
    assert table.read()["state"]["tanks"]["R1"]["moved"] == "normal"


def test_move_fast_gets_its_marker(referee: LiveReferee) -> None:
    """TTT-M2: beyond Movement but within twice it is Moving Fast, shown as a marker."""
    table = duel(referee.url)
    entry = table.ok(table.put_tank("R1", **TIGER, x=0, z=-12, facing=0))["entry"]
    r1 = next(t for t in entry["tanks"] if t["tank_id"] == "R1")
    assert "Moving Fast" in r1["markers"]


def test_move_too_far_is_refused_with_the_distances(referee: LiveReferee) -> None:
    """TTT-M2 ruling: more than twice Movement is refused (409) with the distances; the model's
    position on the referee stays where it was."""
    table = duel(referee.url)
    before = table.snapshot()
    reply = table.put_tank("R1", **TIGER, x=0, z=0, facing=0)
    assert reply.status_code == 409
    body = reply.json()
    assert body["code"] == "MOVE_TOO_FAR"
    assert body["clause"] == "TTT-M2"
    assert "20" in body["message"]
    assert table.snapshot() == before


def test_drift_is_not_a_move(referee: LiveReferee) -> None:
    """TTS physics settling a model (within the table's tolerance) changes nothing."""
    table = duel(referee.url)
    before = table.snapshot()
    reply = table.ok(table.put_tank("R1", **TIGER, x=0.1, z=-20.1, facing=1))
    assert reply["applied"] is False
    assert table.snapshot() == before


def test_enemy_phase_move_is_refused(referee: LiveReferee) -> None:
    """TTT-T1: Blue's model moved in Red's phase: 409 NOT_YOUR_PHASE."""
    table = duel(referee.url)
    reply = table.put_tank("B1", card="m4a1-sherman", player="Blue", x=0, z=16, facing=180)
    assert reply.status_code == 409
    assert reply.json()["code"] == "NOT_YOUR_PHASE"


def test_new_tank_after_setup_is_refused(referee: LiveReferee) -> None:
    """Once the game has started, a new model is not silently added: 409 SETUP_OVER."""
    table = duel(referee.url)
    reply = table.put_tank("R9", **TIGER, x=5, z=-21, facing=0)
    assert reply.status_code == 409
    assert reply.json()["code"] == "SETUP_OVER"


def test_delete_tank_in_setup(referee: LiveReferee) -> None:
    """A model taken away during setup leaves the table; unknown ids are 404."""
    table = new_table(referee.url)
    table.ok(table.put_tank("R1", **TIGER, x=0, z=-21, facing=0))
    entry = table.ok(table.http.delete(table.path("/tanks/R1")))["entry"]
    assert entry["kind"] == "remove_tank"
    assert table.read()["tanks"] == []
    reply = table.http.delete(table.path("/tanks/R1"))
    assert reply.status_code == 404
    assert reply.json()["code"] == "UNKNOWN_TANK"


def test_options_say_what_a_tank_may_do(referee: LiveReferee) -> None:
    """The options endpoint lists each action, allowed or refused with its clause (menus)."""
    table = duel(referee.url)
    options = {o["kind"]: o for o in table.ok(table.http.get(table.path("/tanks/R1/options")))}
    assert options["engage"]["allowed"] is True
    assert options["engage"]["detail"]["targets"][0]["target_id"] == "B1"
    assert options["move"]["detail"]["normal"] == 5
    blue = {o["kind"]: o for o in table.ok(table.http.get(table.path("/tanks/B1/options")))}
    assert blue["move"]["allowed"] is False
    assert blue["move"]["code"] == "NOT_YOUR_PHASE"
    reply = table.http.get(table.path("/tanks/X9/options"))
    assert reply.status_code == 404


def test_terrain_and_objective(referee: LiveReferee) -> None:
    """Terrain pieces by GUID with kind and footprint; the objective marker (TTT-S3)."""
    table = new_table(referee.url, setup={"scenario": {"kind": "objective", "defender": "Blue"}})
    wood = {"kind": "forest", "shape": {"shape": "circle", "x": -10, "z": 0, "radius": 4}}
    entry = table.ok(table.http.put(table.path("/terrain/wood-1"), json=wood))["entry"]
    assert entry["kind"] == "place_terrain"
    assert table.read()["state"]["terrain"]["wood-1"]["kind"] == "forest"
    reply = table.http.put(table.path("/terrain/x"), json={"kind": "lava", "shape": wood["shape"]})
    assert reply.status_code == 422 and reply.json()["field"] == "kind"
    reply = table.http.put(
        table.path("/terrain/x"),
        json={"kind": "forest", "shape": {"shape": "circle", "x": 0, "z": 0, "radius": -1}},
    )
    assert reply.status_code == 422 and reply.json()["field"].startswith("shape")
    table.ok(table.http.put(table.path("/objective"), json={"x": 3, "z": 4}))
    assert table.read()["state"]["objective"] == [3, 4]
    reply = table.http.put(table.path("/objective"), json={"x": 3})
    assert reply.status_code == 422 and reply.json()["field"] == "z"


def test_path_ids_are_checked(referee: LiveReferee) -> None:
    """A model id with characters TTS never uses in a GUID: 422 on the path parameter."""
    table = new_table(referee.url)
    reply = table.http.put(
        table.path("/tanks/bad%20id"), json={**TIGER, "x": 0, "z": -21, "facing": 0}
    )
    assert reply.status_code == 422
    assert "tank_id" in reply.json()["field"]
    assert httpx.get(f"{referee.url}/tables/{table.id}/tanks/R1/options").status_code == 404
