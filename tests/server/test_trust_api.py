"""Dice you can check, over real HTTP: player seeds, undo, void by both players, ending the
game by agreement, the revealed seed, and a restart that rebuilds the same table."""

from __future__ import annotations

import hashlib
import hmac
from pathlib import Path
from typing import Any

import httpx

from serverkit import LiveReferee, Table, duel, live_referee, new_table

MISS = {"faces": {"white": [1, 1, 1, 1]}}  # the Tiger's four Accuracy dice, all blank


def post(
    table: Table, path: str, *, headers: dict[str, str] | None = None, **body: Any
) -> httpx.Response:
    return table.http.post(table.path(path), json=body, headers=headers)


def without_counter(state: dict[str, Any]) -> dict[str, Any]:
    return {**state, "dice": {k: v for k, v in state["dice"].items() if k != "counter"}}


def refused(table: Table, response: httpx.Response, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    body: dict[str, Any] = response.json()
    assert body["code"] == code, body
    return body


def test_undo_is_free_without_dice_and_restores_the_state(referee: LiveReferee) -> None:
    table = duel(referee.url)
    before = table.read()
    waited = table.ok(table.act({"kind": "wait", "tank_id": "R1"}))
    assert table.read()["state"] != before["state"]

    reply = table.ok(post(table, "/undo", request_id="u1"))
    entry = reply["entry"]
    assert entry["kind"] == "undo"
    assert entry["action"] == {"control": "undo"}
    assert entry["chat"] == [f"Undone: R1's wait (event {waited['seq']})"]
    assert entry["result"]["outcome"] == {"undone": waited["seq"]}
    assert [t["tank_id"] for t in entry["tanks"]] == ["R1"]
    after = table.read()
    assert after["state"] == before["state"]
    assert after["tanks"] == before["tanks"]
    # The same request again changes nothing more; the log keeps both entries.
    again = table.ok(post(table, "/undo", request_id="u1"))
    assert again["replayed"] is True
    kinds = [e["kind"] for e in table.log()]
    assert kinds[-2:] == ["wait", "undo"]


def test_undo_goes_back_one_action_at_a_time_until_dice(referee: LiveReferee) -> None:
    table = duel(referee.url)  # place, place, crew_roll (table dice), start_game
    table.ok(post(table, "/undo", request_id="u1"))  # start_game: no dice
    assert table.read()["table"]["status"] == "setup"
    snapshot = table.snapshot()
    body = refused(table, post(table, "/undo", request_id="u2"), 409, "DICE_ROLLED")
    assert "voided" in body["message"]
    assert table.snapshot() == snapshot


def test_void_needs_both_players_and_keeps_the_dice_spent(referee: LiveReferee) -> None:
    table = duel(referee.url, dice_source="server")
    before = table.read()
    shot = table.ok(table.act({"kind": "engage", "tank_id": "R1", "target_id": "B1"}))
    seq = shot["seq"]
    assert shot["entry"]["result"]["rolls"]
    spent = table.read()["dice"]["counter"]
    assert spent > before["dice"]["counter"]

    refused(table, post(table, "/undo", request_id="u1"), 409, "DICE_ROLLED")
    first = table.ok(post(table, "/void", request_id="v1", seq=seq, player="Blue"))
    assert first["entry"]["kind"] == "void_request"
    assert first["entry"]["chat"] == [
        f"Void requested by Blue for event {seq}, R1's engage (needs Red too)"
    ]
    assert without_counter(table.read()["state"]) != without_counter(before["state"])
    snapshot = table.snapshot()
    refused(table, post(table, "/void", request_id="v2", seq=seq, player="Blue"), 409,
            "VOID_ALREADY_ASKED")  # fmt: skip
    body = refused(table, post(table, "/void", request_id="v3", seq=seq, player="Green"), 422,
                   "UNKNOWN_PLAYER")  # fmt: skip
    assert body["field"] == "player"
    assert table.snapshot() == snapshot

    done = table.ok(
        post(table, "/void", request_id="v4", seq=seq, player="Red", headers=table.seat("Red"))
    )
    assert done["entry"]["kind"] == "void"
    assert done["entry"]["result"]["outcome"] == {"voided": seq, "players": ["Blue", "Red"]}
    after = table.read()
    assert after["dice"]["counter"] == spent  # the voided rolls stay spent
    assert without_counter(after["state"]) == without_counter(before["state"])
    assert after["tanks"] == before["tanks"]
    log = table.log()
    assert [e["kind"] for e in log[-3:]] == ["engage", "void_request", "void"]
    assert log[-3]["result"] == shot["entry"]["result"]  # the voided entry stays in the log


def test_a_new_action_lapses_a_pending_void(referee: LiveReferee) -> None:
    table = duel(referee.url)
    shot = table.ok(table.act({"kind": "engage", "tank_id": "R1", "target_id": "B1"}, dice=MISS))
    table.ok(post(table, "/void", request_id="v1", seq=shot["seq"], player="Red"))
    ended = table.ok(table.act({"kind": "end_phase", "player": "Red"}))
    assert not ended["entry"]["result"]["rolls"]
    body = refused(
        table, post(table, "/void", request_id="v2", seq=shot["seq"], player="Blue"), 409,
        "NOT_LATEST",
    )  # fmt: skip
    assert body["details"]["latest"] == ended["seq"]
    refused(table, post(table, "/void", request_id="v3", seq=ended["seq"], player="Blue"), 409,
            "NO_DICE_ROLLED")  # fmt: skip
    # Red's request was for the shot: Blue asking for it again needs Red again.
    table.ok(post(table, "/undo", request_id="u1", seq=ended["seq"]))
    again = table.ok(post(table, "/void", request_id="v4", seq=shot["seq"], player="Blue"))
    assert again["entry"]["kind"] == "void_request"


def test_player_seed_feeds_every_server_roll(referee: LiveReferee) -> None:
    seed = "trust-api-server-seed"
    table = new_table(referee.url, dice={"seed": seed})
    reply = table.ok(post(table, "/seeds", request_id="s1", player="Red", seed="red's own"))
    assert reply["entry"]["kind"] == "player_seed"
    assert table.read()["dice"]["player_seeds"] == ["red's own"]
    refused(table, post(table, "/seeds", request_id="s2", player="Red", seed="again"), 409,
            "SEED_ALREADY_GIVEN")  # fmt: skip
    table.ok(table.put_tank("R1", card="tiger-i", player="Red", x=0, z=-20, facing=0))
    table.ok(table.put_tank("B1", card="m4a1-sherman", player="Blue", x=0, z=20, facing=180))
    crew = table.ok(table.act({"kind": "crew_roll"}))
    rolls = crew["entry"]["result"]["rolls"]
    assert rolls and all(r["source"] == "server" for r in rolls)
    for roll in rolls:  # HMAC-SHA256(server seed; player seeds, counter), computed here
        assert roll["face"] == reference_face(seed, ["red's own"], roll["counter"], 6)
    body = refused(table, post(table, "/seeds", request_id="s3", player="Blue", seed="late"),
                   409, "DICE_ALREADY_ROLLED")  # fmt: skip
    assert "first roll" in body["message"]


def reference_face(seed: str, player_seeds: list[str], counter: int, sides: int) -> int:
    """The referee's documented derivation, written out independently."""
    prefix = b"".join(len(s).to_bytes(2, "big") + s.encode() for s in player_seeds)
    limit = 2**32 - 2**32 % sides
    attempt = 0
    while True:
        message = prefix + counter.to_bytes(8, "big") + attempt.to_bytes(4, "big")
        digest = hmac.new(seed.encode(), message, hashlib.sha256).digest()
        for i in range(0, 32, 4):
            word = int.from_bytes(digest[i : i + 4], "big")
            if word < limit:
                return word % sides + 1
        attempt += 1


def test_seed_is_revealed_only_when_the_game_is_over(referee: LiveReferee) -> None:
    table = duel(referee.url, dice_source="server")
    table.ok(table.act({"kind": "engage", "tank_id": "R1", "target_id": "B1"}))
    refused(table, table.http.get(table.path("/reveal")), 409, "GAME_NOT_OVER")
    assert table.read()["dice"]["seed"] is None
    assert "seed" not in table.read()["state"]["dice"]
    export = table.ok(table.http.get(table.path("/export")))
    assert export["table"]["seed"] is None

    ended = table.ok(post(table, "/end", request_id="e1"))
    assert ended["entry"]["kind"] == "end_game"
    assert ended["table"]["status"] == "over"
    refused(table, table.act({"kind": "wait", "tank_id": "B1"}), 409, "GAME_OVER")
    refused(table, post(table, "/undo", request_id="u1"), 409, "GAME_OVER")
    revealed = table.ok(table.http.get(table.path("/reveal")))
    assert revealed["seed"] == "serverkit-duel-0"
    assert hashlib.sha256(revealed["seed"].encode()).hexdigest() == revealed["commitment"]
    assert revealed["commitment"] == table.created["dice"]["commitment"]
    assert revealed["matches"] is True
    read = table.read()
    assert read["dice"]["seed"] == revealed["seed"]
    assert read["table"]["status"] == "over"
    assert table.ok(table.http.get(table.path("/export")))["table"]["seed"] == revealed["seed"]


def test_writes_need_the_token_and_bad_bodies_are_named(referee: LiveReferee) -> None:
    table = duel(referee.url)
    snapshot = table.snapshot()
    anonymous = httpx.post(f"{referee.url}{table.path('/undo')}", json={"request_id": "x"})
    assert anonymous.status_code == 401
    body = refused(table, post(table, "/void", request_id="v1", seq="3", player="Red"), 422,
                   "INVALID")  # fmt: skip
    assert body["field"] == "seq"
    refused(table, post(table, "/seeds", request_id="s1", player="Red", seed=""), 422, "INVALID")
    assert table.snapshot() == snapshot


def test_restart_rebuilds_undo_and_void_exactly(tmp_path: Path) -> None:
    db = tmp_path / "trust.sqlite3"
    with live_referee(db) as live:
        table = duel(live.url, dice_source="server")
        table.ok(table.act({"kind": "wait", "tank_id": "R1"}))
        table.ok(post(table, "/undo", request_id="u1"))
        shot = table.ok(table.act({"kind": "engage", "tank_id": "R1", "target_id": "B1"}))
        for n, who in enumerate(("Red", "Blue")):
            seat = table.seat(who) if who == "Blue" else None  # Red: the host's table token
            table.ok(
                post(table, "/void", request_id=f"v{n}", seq=shot["seq"], player=who, headers=seat)
            )
        table.ok(table.act({"kind": "engage", "tank_id": "R1", "target_id": "B1"}))
        table.ok(post(table, "/void", request_id="v9", seq=shot["seq"] + 3, player="Red"))
        first = table.read()
        log = table.log()
        table.close()
    with live_referee(db) as live:
        again = Table(live.url, table.created)
        assert again.read() == first
        assert again.log() == log
        # The pending request survived the restart: Blue completes it.
        blue = again.seat("Blue")
        done = again.ok(
            post(again, "/void", request_id="v10", seq=shot["seq"] + 3, player="Blue", headers=blue)
        )
        assert done["entry"]["kind"] == "void"
        again.close()
