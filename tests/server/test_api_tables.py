"""Tables over the real HTTP stack: create, list, read; no secret ever leaves the server."""

from __future__ import annotations

import hashlib
import json

import httpx

from serverkit import LiveReferee, duel, new_table


def test_create_table_returns_id_token_and_dice_commitment(referee: LiveReferee) -> None:
    """A new table answers 201 with its id, a write token and the SHA-256 dice commitment."""
    seed = "a-chosen-seed-for-this-test"
    table = new_table(referee.url, dice={"seed": seed})
    made = table.created
    assert made["ruleset"] == "ttt"
    assert len(made["token"]) >= 40
    assert made["dice"]["commitment"] == hashlib.sha256(seed.encode()).hexdigest()
    assert made["dice"]["seed_chosen"] is True
    assert made["table"]["status"] == "setup"
    assert made["table"]["players"] == ["Red", "Blue"]


def test_server_seed_is_secret_and_commitment_is_fresh(referee: LiveReferee) -> None:
    """Without a chosen seed each table gets its own secret seed; only its hash is shown."""
    a = new_table(referee.url).created["dice"]
    b = new_table(referee.url).created["dice"]
    assert a["seed_chosen"] is False
    assert a["commitment"] != b["commitment"]
    assert len(a["commitment"]) == 64


def test_setup_with_scenario_options_and_player_seeds(referee: LiveReferee) -> None:
    """Scenario, rulings and player seeds are taken at creation and shown in the state."""
    table = new_table(
        referee.url,
        setup={
            "players": [{"id": "Green", "edge": "west"}, {"id": "White", "edge": "east"}],
            "scenario": {"kind": "ambush", "ambusher": "White"},
            "options": {"cover": "literal", "front_arc": 60},
        },
        dice={"source": "table", "player_seeds": {"Green": "g-seed", "White": "w-seed"}},
    )
    read = table.read()
    assert read["table"]["players"] == ["Green", "White"]
    assert read["dice"]["source"] == "table"
    assert read["dice"]["player_seeds"] == ["g-seed", "w-seed"]
    assert read["state"]["scenario"]["kind"] == "ambush"
    assert read["state"]["options"]["cover"] == "literal"
    assert read["state"]["options"]["front_arc"] == 60


def test_bad_setup_names_the_field(referee: LiveReferee) -> None:
    """A wrong value inside the setup is a 422 naming its path."""
    reply = httpx.post(
        f"{referee.url}/tables",
        json={"setup": {"players": [{"id": "Red", "edge": "up"}, {"id": "Blue", "edge": "north"}]}},
    )
    assert reply.status_code == 422
    body = reply.json()
    assert body["code"] == "INVALID"
    assert body["field"] == "setup.players.0.edge"
    assert "setup.players.0.edge" in body["message"]


def test_unknown_ruleset_and_scenario_roles_are_refused(referee: LiveReferee) -> None:
    """Unknown ruleset: 422 on `ruleset`; an ambush without an ambusher: the clause TTT-S2."""
    reply = httpx.post(f"{referee.url}/tables", json={"ruleset": "chess"})
    assert reply.status_code == 422
    assert reply.json()["field"] == "ruleset"
    assert "ttt" in reply.json()["message"]
    reply = httpx.post(f"{referee.url}/tables", json={"setup": {"scenario": {"kind": "ambush"}}})
    assert reply.status_code == 409
    assert reply.json()["clause"] == "TTT-S2"
    reply = httpx.post(
        f"{referee.url}/tables",
        json={
            "setup": {"players": [{"id": "Red", "edge": "south"}, {"id": "Red", "edge": "north"}]}
        },
    )
    assert reply.status_code == 422
    assert "different" in reply.json()["message"]


def test_list_and_read_tables(referee: LiveReferee) -> None:
    """The list shows each table with its progress; a read gives state, tanks and summary."""
    table = duel(referee.url)
    listed = httpx.get(f"{referee.url}/tables").json()
    mine = next(t for t in listed if t["table_id"] == table.id)
    assert mine["seq"] == 4  # two placements, crew roll, start
    assert mine["table"]["status"] == "playing"
    read = table.read()
    assert read["seq"] == 4
    assert read["table"]["active_player"] == "Red"
    assert [t["tank_id"] for t in read["tanks"]] == ["B1", "R1"]
    r1 = next(t for t in read["tanks"] if t["tank_id"] == "R1")
    assert r1["card"] == "tiger-i"
    assert r1["tooltip"].startswith("Tiger I")
    assert read["state"]["tanks"]["R1"]["x"] == 0


def test_unknown_table_is_404_naming_it(referee: LiveReferee) -> None:
    """Reads and writes to a table that does not exist: 404 UNKNOWN_TABLE."""
    for reply in (
        httpx.get(f"{referee.url}/tables/nope"),
        httpx.get(f"{referee.url}/tables/nope/log"),
        httpx.post(
            f"{referee.url}/tables/nope/actions",
            json={"request_id": "x", "action": {"kind": "start_game"}},
            headers={"Authorization": "Bearer whatever"},
        ),
    ):
        assert reply.status_code == 404
        assert reply.json()["code"] == "UNKNOWN_TABLE"
        assert "nope" in reply.json()["message"]


def test_no_read_endpoint_shows_the_token_or_the_seed(referee: LiveReferee) -> None:
    """The write token and the secret server seed appear in no read reply."""
    seed = "secret-seed-that-must-not-leak"
    table = duel(referee.url, dice_source="server")
    chosen = new_table(referee.url, dice={"seed": seed})
    chosen.ok(chosen.put_tank("R1", card="tiger-i", player="Red", x=0, z=-20, facing=0))
    texts = []
    for t in (table, chosen):
        texts.append(t.http.get(t.path()).text)
        texts.append(t.http.get(t.path("/log")).text)
        texts.append(t.http.get(t.path("/events"), params={"wait": 0}).text)
        texts.append(t.http.get(t.path("/tanks/R1/options")).text)
    texts.append(httpx.get(f"{referee.url}/tables").text)
    texts.append(httpx.get(f"{referee.url}/health").text)
    blob = "\n".join(texts)
    assert table.token not in blob and chosen.token not in blob
    assert seed not in blob
    state = json.loads(texts[0])["state"]
    assert "seed" not in state["dice"]


def test_health(referee: LiveReferee) -> None:
    """Health says ok, the version, the rulesets and the database in use."""
    body = httpx.get(f"{referee.url}/health").json()
    assert body["status"] == "ok"
    assert "ttt" in body["rulesets"]
    assert body["database"] == str(referee.db_path)
