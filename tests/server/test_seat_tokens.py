"""Seats have their own credentials (issue 15), over real HTTP and SQLite: creating a table
gives a seat token per player; a void completes only with two different credentials (a seat
token, or the table's token acting for one seat); one token never voids as both players; a
seat token asks only for its own player and does nothing else; seat tokens stay secret."""

from __future__ import annotations

import copy
import json
import sqlite3
from pathlib import Path
from typing import Any

import httpx
import pytest

from serverkit import LiveReferee, Table, duel, live_referee, new_table
from tankref import cli
from tankref.core.timeline import result_digest
from trustkit import rechain

ENGAGE = {"kind": "engage", "tank_id": "R1", "target_id": "B1"}


def void(table: Table, seq: int, player: str, seat: str | None = None) -> httpx.Response:
    """Ask to void event ``seq`` for ``player``, with ``seat``'s token (None: the table's)."""
    body = {"request_id": f"void-{seq}-{player}", "seq": seq, "player": player}
    headers = table.seat(seat) if seat is not None else None
    return table.http.post(table.path("/void"), json=body, headers=headers)


def refused(response: httpx.Response, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    body: dict[str, Any] = response.json()
    assert body["code"] == code, body
    return body


def test_a_new_table_gives_each_player_a_seat_token(referee: LiveReferee) -> None:
    table = duel(referee.url, dice_source="server")
    seats = table.created["seat_tokens"]
    assert sorted(seats) == ["Blue", "Red"]
    assert len({table.token, *seats.values()}) == 3
    assert all(len(token) >= 40 for token in seats.values())


def test_one_token_cannot_void_as_both_players(referee: LiveReferee) -> None:
    """The forged void: the table's token asks for Red, then for Blue. Refused (409
    VOID_NEEDS_TWO_SEATS), state and log unchanged: the shot stands, no re-roll."""
    table = duel(referee.url, dice_source="server")
    shot = table.ok(table.act(ENGAGE))["seq"]
    asked = table.ok(void(table, shot, "Red"))["entry"]
    assert asked["kind"] == "void_request"
    assert asked["action"]["credential"] == "table"  # the log says which credential asked
    before = table.snapshot()
    body = refused(void(table, shot, "Blue"), 409, "VOID_NEEDS_TWO_SEATS")
    assert "Blue's own seat token" in body["message"]
    assert table.snapshot() == before
    # Blue's own seat completes it; the log records the seat.
    done = table.ok(void(table, shot, "Blue", seat="Blue"))["entry"]
    assert done["kind"] == "void" and done["action"]["credential"] == "seat"
    assert done["result"]["outcome"] == {"voided": shot, "players": ["Red", "Blue"]}


def test_two_seat_tokens_void_a_shot(referee: LiveReferee) -> None:
    table = duel(referee.url, dice_source="server")
    shot = table.ok(table.act(ENGAGE))["seq"]
    table.ok(void(table, shot, "Blue", seat="Blue"))
    done = table.ok(void(table, shot, "Red", seat="Red"))["entry"]
    assert done["kind"] == "void"
    assert table.log()[-3]["seq"] == shot
    assert [e["action"].get("credential") for e in table.log()[-2:]] == ["seat", "seat"]


def test_a_seat_token_asks_only_for_its_own_player(referee: LiveReferee) -> None:
    table = duel(referee.url, dice_source="server")
    shot = table.ok(table.act(ENGAGE))["seq"]
    before = table.snapshot()
    body = refused(void(table, shot, "Red", seat="Blue"), 403, "NOT_YOUR_SEAT")
    assert body["field"] == "player"
    # Blue's seat asking for Red then Blue's seat for itself: still one seat, refused.
    seed = {"request_id": table.next_id(), "player": "Red", "seed": "mine"}
    blue = table.seat("Blue")
    refused(table.http.post(table.path("/seeds"), json=seed, headers=blue), 403, "NOT_YOUR_SEAT")
    assert table.snapshot() == before


def test_a_seat_token_gives_no_orders(referee: LiveReferee) -> None:
    """A seat token is for its player's say over trust (a void, their seed), nothing else:
    actions, moves, undo and ending the game need the table's token (403)."""
    table = duel(referee.url, dice_source="server")
    red = table.seat("Red")
    before = table.snapshot()
    writes = [
        ("POST", "/actions", {"request_id": "a1", "action": ENGAGE}),
        ("PUT", "/tanks/R1", {"card": "tiger-i", "player": "Red", "x": 0, "z": -19, "facing": 0}),
        ("POST", "/undo", {"request_id": "u1"}),
        ("POST", "/end", {"request_id": "e1"}),
    ]
    for method, path, body in writes:
        reply = table.http.request(method, table.path(path), json=body, headers=red)
        refused(reply, 403, "SEAT_TOKEN_NOT_ENOUGH")
    assert table.snapshot() == before


def test_a_player_gives_their_own_seed_with_their_seat_token(referee: LiveReferee) -> None:
    table = new_table(referee.url, dice={"source": "server"})  # no die rolled yet
    body = {"request_id": "s1", "player": "Blue", "seed": "blue's own"}
    entry = table.ok(table.http.post(table.path("/seeds"), json=body, headers=table.seat("Blue")))
    assert entry["entry"]["kind"] == "player_seed"


def test_seat_tokens_stay_secret_and_survive_a_restart(tmp_path: Path) -> None:
    """Seat tokens appear only in the creation reply: not in any read, the log, the export,
    the page's list or the database file (it keeps hashes); after a restart they still ask."""
    db = tmp_path / "seats.sqlite3"
    with live_referee(db) as live:
        table = duel(live.url, dice_source="server")
        shot = table.ok(table.act(ENGAGE))["seq"]
        table.ok(void(table, shot, "Red", seat="Red"))
        secrets = list(table.created["seat_tokens"].values())
        reads = [
            table.http.get(table.path(rest)).text
            for rest in ("", "/log", "/export", "/scene", "/events?after=0")
        ]
        reads += [httpx.get(f"{live.url}{p}").text for p in ("/tables", "/health", "/")]
        for text in reads:
            assert not any(secret in text for secret in secrets)
        table.close()
    stored = b"".join(p.read_bytes() for p in tmp_path.iterdir() if p.name.startswith("seats"))
    assert not any(secret.encode() in stored for secret in secrets)
    with live_referee(db) as live:
        again = Table(live.url, table.created)
        done = again.ok(void(again, shot, "Blue", seat="Blue"))["entry"]
        assert done["kind"] == "void"
        again.close()


def test_verify_fails_a_void_forged_by_one_credential(
    referee: LiveReferee, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An export whose void was asked by the table's token and Blue's seat, rewritten so the
    table's token asked for both (hash chain redone): the real ``tankref verify`` exits 1 at
    the void."""
    table = duel(referee.url, dice_source="server")
    shot = table.ok(table.act(ENGAGE))["seq"]
    table.ok(void(table, shot, "Red"))
    done = table.ok(void(table, shot, "Blue", seat="Blue"))["seq"]
    table.ok(table.http.post(table.path("/end"), json={"request_id": "end"}))
    doc = table.ok(table.http.get(table.path("/export")))
    path = tmp_path / "export.json"
    path.write_text(json.dumps(doc))
    assert cli.main(["verify", str(path)]) == 0, capsys.readouterr().out
    capsys.readouterr()

    forged = copy.deepcopy(doc)
    event = next(e for e in forged["events"] if e["seq"] == done)
    event["action"]["credential"] = "table"
    event["result"]["action"]["credential"] = "table"
    event["result_sha256"] = result_digest(event["result"])
    rechain(forged)  # a forger who knows the format makes the chain consistent again
    path.write_text(json.dumps(forged))
    assert cli.main(["verify", str(path)]) == 1
    out = capsys.readouterr().out
    assert f"MISMATCH event {done} (void {shot})" in out
    assert "one credential asks once" in out


def test_a_table_from_before_seat_tokens_keeps_its_one_token_void(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A table created before seat tokens has none to give: its table token still asks a void
    for both players (the old rule), across a restart, and its export verifies with a note.
    A table with seat tokens is unchanged beside it (the forged void stays refused)."""
    db = tmp_path / "referee.sqlite3"
    dice = {"source": "server", "seed": "before-seats"}
    with live_referee(db) as live:
        old, new = new_table(live.url, dice=dice), new_table(live.url, dice=dice)
    # Make `old` what the previous version wrote: no seat tokens, no seat_credentials mark.
    raw = sqlite3.connect(db)
    (stored,) = raw.execute("SELECT dice FROM tables WHERE id = ?", (old.id,)).fetchone()
    before_seats = {k: v for k, v in json.loads(stored).items() if k != "seat_credentials"}
    raw.execute("UPDATE tables SET dice = ? WHERE id = ?", (json.dumps(before_seats), old.id))
    raw.execute("DELETE FROM seat_tokens WHERE table_id = ?", (old.id,))
    raw.commit()
    raw.close()
    with live_referee(db) as live:
        for created, one_token_voids in ((old.created, True), (new.created, False)):
            table = Table(live.url, created)
            table.ok(table.put_tank("R1", card="tiger-i", player="Red", x=0, z=-20, facing=0))
            table.ok(
                table.put_tank("B1", card="m4a1-sherman", player="Blue", x=0, z=20, facing=180)
            )
            table.ok(table.act({"kind": "crew_roll"}))
            table.ok(table.act({"kind": "start_game"}))
            shot = table.ok(table.act(ENGAGE))["seq"]
            table.ok(void(table, shot, "Red"))
            if one_token_voids:
                assert table.ok(void(table, shot, "Blue"))["entry"]["kind"] == "void"
            else:
                refused(void(table, shot, "Blue"), 409, "VOID_NEEDS_TWO_SEATS")
            table.close()
    with live_referee(db) as live:  # the one-token void replays: the table is not damaged
        again = Table(live.url, old.created)
        assert again.read()["damaged"] is None
        again.ok(again.http.post(again.path("/end"), json={"request_id": "end"}))
        doc = again.ok(again.http.get(again.path("/export")))
        again.close()
    assert doc["table"]["seat_credentials"] is False
    path = tmp_path / "old.json"
    path.write_text(json.dumps(doc))
    assert cli.main(["verify", str(path)]) == 0
    assert "a table from before seat tokens" in capsys.readouterr().out
    # Passing a table off as one with seat tokens (or back) changes where its chain starts.
    doc["table"]["seat_credentials"] = True
    path.write_text(json.dumps(doc))
    assert cli.main(["verify", str(path)]) == 1
