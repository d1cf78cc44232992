"""The log, the long-poll (TTS) and the WebSocket stream (browsers); one write at a time."""

from __future__ import annotations

import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
from websockets.sync.client import connect

from serverkit import LiveReferee, duel, live_referee, new_table

WHITE_MISS = {"faces": {"white": [1, 1, 1, 1]}}


def test_log_pages_in_order(referee: LiveReferee) -> None:
    """The log lists every accepted action in order, `limit` at a time, with `next_after`."""
    table = duel(referee.url)
    for _ in range(3):
        table.ok(table.act({"kind": "end_phase"}))
    everything = table.log()
    assert [e["seq"] for e in everything] == list(range(1, 8))
    page = table.ok(table.http.get(table.path("/log"), params={"after": 2, "limit": 3}))
    assert [e["seq"] for e in page["entries"]] == [3, 4, 5]
    assert page["next_after"] == 5 and page["last_seq"] == 7
    last = table.ok(table.http.get(table.path("/log"), params={"after": 5, "limit": 3}))
    assert [e["seq"] for e in last["entries"]] == [6, 7]
    assert last["next_after"] is None
    bad = table.http.get(table.path("/log"), params={"limit": 0})
    assert bad.status_code == 422 and bad.json()["field"] == "query.limit"


def test_long_poll_answers_at_once_when_there_is_news(referee: LiveReferee) -> None:
    """Entries after N already there: the long-poll returns them without waiting."""
    table = duel(referee.url)
    started = time.monotonic()
    page = table.ok(table.http.get(table.path("/events"), params={"after": 2, "wait": 20}))
    assert time.monotonic() - started < 5
    assert [e["seq"] for e in page["entries"]] == [3, 4]


def test_long_poll_wakes_when_the_other_side_acts(referee: LiveReferee) -> None:
    """TTS's poll is held open and released by the next result (a Wait shot in the enemy's
    phase appears without a click)."""
    table = duel(referee.url)
    seq = table.read()["seq"]
    got: dict[str, object] = {}

    def poll() -> None:
        with httpx.Client(base_url=referee.url, timeout=30) as client:
            got["page"] = client.get(
                table.path("/events"), params={"after": seq, "wait": 20}
            ).json()
            got["waited"] = time.monotonic() - started

    poller = threading.Thread(target=poll)
    # Timed from here: under load the client itself may take a good part of the 0.5 s.
    started = time.monotonic()
    poller.start()
    time.sleep(0.5)
    assert poller.is_alive()  # held open: nothing new yet
    table.ok(table.act({"kind": "engage", "tank_id": "R1", "target_id": "B1"}, dice=WHITE_MISS))
    poller.join(10)
    page = got["page"]
    assert isinstance(page, dict)
    assert [e["kind"] for e in page["entries"]] == ["engage"]
    assert 0.4 < float(str(got["waited"])) < 10


def test_long_poll_times_out_empty(referee: LiveReferee) -> None:
    """No news within `wait` seconds: an empty page with the latest seq; ask again."""
    table = duel(referee.url)
    started = time.monotonic()
    page = table.ok(table.http.get(table.path("/events"), params={"after": 4, "wait": 0.3}))
    assert 0.25 < time.monotonic() - started < 5
    assert page["entries"] == [] and page["last_seq"] == 4
    reply = table.http.get(table.path("/events"), params={"wait": 26})
    assert reply.status_code == 422  # held at most ~25 s


def test_websocket_streams_backlog_then_live_entries(referee: LiveReferee) -> None:
    """A browser gets every entry after N, then each new one as it is logged."""
    table = duel(referee.url)
    ws_url = referee.url.replace("http://", "ws://") + table.path("/stream") + "?after=2"
    with connect(ws_url, open_timeout=10) as ws:
        backlog = [json.loads(ws.recv(timeout=10)) for _ in range(2)]
        assert [e["seq"] for e in backlog] == [3, 4]
        table.ok(table.act({"kind": "wait", "tank_id": "R1"}))
        live = json.loads(ws.recv(timeout=10))
        assert live["seq"] == 5 and live["kind"] == "wait"
        assert live["tanks"][0]["markers"] == ["Wait"]


def test_websocket_unknown_table_closes(referee: LiveReferee) -> None:
    """A stream for a table that does not exist is closed with a reason."""
    ws_url = referee.url.replace("http://", "ws://") + "/tables/nope/stream"
    with connect(ws_url, open_timeout=10) as ws:
        try:
            ws.recv(timeout=5)
        except Exception as exc:  # the close arrives as an exception from recv
            assert "4404" in str(exc) or "nope" in str(exc)
        else:
            raise AssertionError("the stream should have closed")


def test_concurrent_writes_to_one_table_apply_one_at_a_time(referee: LiveReferee) -> None:
    """Sixteen clients post at once: each request applies exactly once, seqs are contiguous,
    and the state is what applying them in log order gives."""
    table = new_table(referee.url)
    ids = [f"c{i}" for i in range(16)]

    def place(i: int) -> int:
        with httpx.Client(
            base_url=referee.url, headers={"Authorization": f"Bearer {table.token}"}
        ) as client:
            body = {"card": "m5-stuart", "player": "Red", "x": -30 + 4 * i, "z": -21,
                    "facing": 0, "request_id": ids[i]}  # fmt: skip
            return client.put(table.path(f"/tanks/S{i}"), json=body).status_code

    with ThreadPoolExecutor(8) as pool:
        codes = list(pool.map(place, range(16)))
    assert codes == [200] * 16
    log = table.log()
    assert [e["seq"] for e in log] == list(range(1, 17))
    assert sorted(e["request_id"] for e in log) == sorted(ids)
    assert len(table.read()["tanks"]) == 16


def test_tables_are_independent(referee: LiveReferee) -> None:
    """Work on one table neither blocks nor touches another."""
    a, b = duel(referee.url), duel(referee.url)
    b_before = b.snapshot()
    a.ok(a.act({"kind": "end_phase"}))
    assert b.snapshot() == b_before
    assert a.read()["table"]["active_player"] == "Blue"


def test_stopping_the_referee_answers_held_long_polls(tmp_path: Path) -> None:
    """A referee that stops answers the long-polls it holds (an empty page) at once, rather
    than cutting them off with an error when its grace period ends."""
    with live_referee(tmp_path / "stop.sqlite3") as live:
        table = duel(live.url)
        got: dict[str, object] = {}

        def poll() -> None:
            with httpx.Client(base_url=live.url, timeout=30) as client:
                reply = client.get(table.path("/events"), params={"after": 4, "wait": 20})
                got["status"], got["body"] = reply.status_code, reply.json()

        poller = threading.Thread(target=poll)
        poller.start()
        time.sleep(0.5)
        started = time.monotonic()
        live.server.should_exit = True
        poller.join(10)
        assert time.monotonic() - started < 1.5  # well inside the 2 s grace period
    assert got["status"] == 200
    assert got["body"] == {"entries": [], "last_seq": 4, "next_after": None, "taken_back": {}}


def test_log_pages_mark_entries_taken_back(referee: LiveReferee) -> None:
    """An undone entry stays in the log; its page says which event took it back."""
    table = duel(referee.url)
    waited = table.ok(table.act({"kind": "wait", "tank_id": "R1"}))["seq"]
    undo = table.ok(table.http.post(table.path("/undo"), json={"request_id": "u1"}))["seq"]
    page = table.ok(table.http.get(table.path("/log")))
    assert page["taken_back"] == {str(waited): undo}
    assert [e["seq"] for e in page["entries"]] == list(range(1, undo + 1))
    later = table.ok(table.http.get(table.path(f"/log?after={waited}")))
    assert later["taken_back"] == {}  # only entries on the page are named


def test_the_log_limits_are_the_referees_settings(tmp_path: Path) -> None:
    """``Settings.log_page_max`` and ``long_poll_max_seconds`` are the limits the routes
    enforce and document (a referee set lower refuses beyond them, naming the field)."""
    db = tmp_path / "limits.sqlite3"
    with live_referee(db, log_page_max=3, long_poll_max_seconds=1.5) as live:
        table = duel(live.url)
        page = table.ok(table.http.get(table.path("/log")))  # the default page: the most
        assert [e["seq"] for e in page["entries"]] == [1, 2, 3] and page["next_after"] == 3
        reply = table.http.get(table.path("/log"), params={"limit": 4})
        assert reply.status_code == 422 and reply.json()["field"] == "query.limit"
        reply = table.http.get(table.path("/events"), params={"wait": 2})
        assert reply.status_code == 422 and reply.json()["field"] == "query.wait"
        started = time.monotonic()
        waited = table.ok(table.http.get(table.path("/events"), params={"after": 4}))
        assert waited["entries"] == [] and 1.4 < time.monotonic() - started < 5  # the default
        paths = httpx.get(f"{live.url}/openapi.json").json()["paths"]
        query = {
            p["name"]: p["schema"]
            for p in paths["/tables/{table_id}/events"]["get"]["parameters"]
            if p["in"] == "query"
        }
        assert query["limit"]["maximum"] == 3 and query["wait"]["maximum"] == 1.5
        table.close()
