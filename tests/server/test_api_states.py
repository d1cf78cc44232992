"""``GET /tables/{id}/states/{seq}``: the table after any log entry, rebuilt from the log.

What it answers is checked against a rebuild that does not use the route's code (the stored
log replayed by the engine alone, ``replaykit.rebuilt_at``), at every entry of a played game;
its last entry against the live table. Stepping goes on from kept positions (never from the
start each time) and keeps a bounded number of them.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from pathlib import Path

import httpx

from replaykit import played_duel, rebuilt_at
from serverkit import LiveReferee, duel, fair_to_the_loop, live_referee
from tankref.server.history import History, fork
from tankref.server.referee import rebuild, replay_onto
from tankref.server.store import EventStore
from trustkit import long_game, open_referee


def test_the_table_after_every_entry_is_the_engines_replay_of_the_log(tmp_path: Path) -> None:
    with live_referee(tmp_path / "referee.sqlite3") as live:
        table = played_duel(live.url)
        log = table.log()
        last = table.read()["seq"]
        assert last == len(log) == 17
        states = {}
        for seq in range(last + 1):
            got = table.ok(table.http.get(table.path(f"/states/{seq}")))
            expected = rebuilt_at(live.db_path, table.id, seq)
            assert (got["seq"], got["last_seq"], got["scene"]["seq"]) == (seq, last, seq)
            assert got["state"] == expected.state, seq
            assert got["scene"]["tanks"] == expected.tanks, seq
            entry = log[seq - 1] if seq else None
            assert got["kind"] == (entry["kind"] if entry else None)
            assert got["headline"] == (entry["chat"][0] if entry else None)
            assert got["at"] == (entry["at"] if entry else None)
            assert got["damaged"] is None
            # The line of fire is the latest shot logged so far.
            shots = [e["seq"] for e in log[:seq] if e["kind"] == "engage"]
            fire = got["scene"]["line_of_fire"]
            assert (fire["seq"] if fire else None) == (shots[-1] if shots else None), seq
            states[seq] = got
        assert (
            states[0]["scene"]["tanks"] == [] and states[0]["scene"]["table"]["status"] == "setup"
        )
        assert states[8]["what"] == "engage R1 → B1"
        # Entry 5 (R1 waits) is taken back by entry 6 (undo): the state is entry 4's again.
        assert states[5]["state"] != states[4]["state"]
        assert states[6]["state"] == states[4]["state"]
        assert (
            "Shaken"
            in next(t for t in states[8]["scene"]["tanks"] if t["tank_id"] == "B1")["markers"]
        )
        # The seed stays secret mid-game; the last entry ends the game and shows it, as live.
        assert "seed" not in states[16]["state"]["dice"]
        assert states[17]["scene"]["table"]["status"] == "over"
        assert states[17]["state"] == table.read()["state"]
        assert "seed" in states[17]["state"]["dice"]
        assert states[17]["scene"] == table.ok(table.http.get(table.path("/scene")))


def test_a_seq_past_the_end_is_404_and_a_bad_one_422_changing_nothing(
    referee: LiveReferee,
) -> None:
    table = played_duel(referee.url)
    before = table.snapshot()
    last = before[0]["seq"]

    past = table.http.get(table.path(f"/states/{last + 1}"))
    assert past.status_code == 404
    assert past.json()["code"] == "NO_SUCH_ENTRY"
    assert past.json()["field"] == "seq"
    assert f"has {last} log entries" in past.json()["message"]
    for bad in ("-1", "abc", "1.5", "99999999999999999999999999"):
        reply = table.http.get(table.path(f"/states/{bad}"))
        if bad.startswith("9"):  # a number, just far past the end
            assert reply.status_code == 404, reply.text
            continue
        assert reply.status_code == 422, (bad, reply.text)
        assert reply.json()["field"] == "path.seq", reply.text
    unknown = httpx.get(f"{referee.url}/tables/nosuchtable/states/0")
    assert unknown.status_code == 404
    assert unknown.json()["code"] == "UNKNOWN_TABLE"
    assert table.snapshot() == before  # no dice drawn, nothing logged


def test_a_log_that_stops_replaying_shows_where_it_stopped_and_why(tmp_path: Path) -> None:
    """Entry 5's dice edited in the database (a miss made a hit): the table is damaged from
    there, as at start-up; each later position is the last one the log reached, saying why."""
    db = tmp_path / "referee.sqlite3"
    with live_referee(db) as live:
        table = duel(live.url)
        miss = {"faces": {"white": [1, 1, 1, 1]}}
        table.ok(table.act({"kind": "engage", "tank_id": "R1", "target_id": "B1"}, dice=miss))
        table.ok(table.act({"kind": "end_phase"}))
    raw = sqlite3.connect(db)
    raw.execute("DROP TRIGGER events_append_only_update")
    raw.execute(
        "UPDATE events SET dice = ? WHERE table_id = ? AND seq = 5",
        (json.dumps({"faces": {"white": [5, 1, 1, 1]}}), table.id),
    )
    raw.commit()
    raw.close()
    with live_referee(db) as live:
        table.http.base_url = httpx.URL(live.url)
        four = table.ok(table.http.get(table.path("/states/4")))
        assert four["damaged"] is None
        assert four["state"] == rebuilt_at(db, table.id, 4).state
        for seq in (5, 6):
            got = table.ok(table.http.get(table.path(f"/states/{seq}")))
            assert got["damaged"] is not None and "event 5" in got["damaged"]
            assert got["state"] == four["state"]  # the last state the log reached
            assert got["kind"] == ("engage" if seq == 5 else "end_phase")
        assert got["state"] == table.read()["state"]  # as the live (read-only) table


def test_steps_go_on_from_the_nearest_kept_position_and_the_kept_ones_are_bounded(
    tmp_path: Path,
) -> None:
    db = tmp_path / "referee.sqlite3"
    with live_referee(db) as live:
        table_id = played_duel(live.url).id
    store = EventStore(db)
    try:
        row = store.table(table_id)
        assert row is not None
        history = History(store, stride=5, max_positions=4)

        def replayed_for(seq: int) -> int:
            before = history.replayed
            host = history.at(row, seq)
            assert host.seq == seq
            assert host.public_state() == rebuilt_at(db, table_id, seq).state, seq
            return history.replayed - before

        assert replayed_for(12) == 12  # nothing kept yet: from the start (keeps 5 and 10)
        assert replayed_for(13) == 1  # on from 12
        assert replayed_for(11) == 1  # back: from 10, not from the start
        assert replayed_for(13) == 0  # kept
        assert replayed_for(3) == 3  # before any kept position
        assert len(history) <= 4
        # A walk through the whole log keeps no more than the bound, and every position
        # it goes on from is left as it was (each is checked against the independent rebuild).
        for seq in [*range(17, -1, -1), *range(18)]:
            replayed_for(seq)
            assert len(history) <= 4
        assert replayed_for(9) <= 4  # a position at 5 is kept on the way again
    finally:
        store.close()


def test_a_fork_goes_on_without_touching_the_position_it_came_from(tmp_path: Path) -> None:
    """Entry 5 (R1 waits), forked and replayed through entry 6 (the wait undone) and on: the
    position at 5 keeps its undo stack, its shots, its state and its place in the log."""
    db = tmp_path / "referee.sqlite3"
    with live_referee(db) as live:
        table_id = played_duel(live.url).id
    store = EventStore(db)
    try:
        row = store.table(table_id)
        assert row is not None
        events = store.events(table_id)
    finally:
        store.close()
    five = rebuild(row, events[:5])
    before = (
        five.seq,
        [d.seq for d in five.timeline.done],
        dict(five.timeline.cancelled),
        set(five.timeline.controls),
        dict(five.shots),
        five.rules.dump_state(five.state),
    )
    on = fork(five)
    replay_onto(on, events[5:])
    assert on.seq == len(events) and 5 in on.timeline.cancelled and on.shots
    after = (
        five.seq,
        [d.seq for d in five.timeline.done],
        dict(five.timeline.cancelled),
        set(five.timeline.controls),
        dict(five.shots),
        five.rules.dump_state(five.state),
    )
    assert after == before
    assert five.timeline.done[-1].seq == 5  # the wait, still in effect at entry 5


def test_a_long_replay_does_not_hold_up_other_requests(tmp_path: Path) -> None:
    """The first position of a 1,000-entry table is rebuilt in a worker thread: the referee
    answers other requests while it runs (on the event loop they would wait for it all)."""
    db = tmp_path / "referee.sqlite3"
    ref = open_referee(db)
    table_id = long_game(ref, events=1000)
    ref.store.close()
    with live_referee(db) as live:
        last = httpx.get(f"{live.url}/tables/{table_id}", timeout=60).json()["seq"]
        reply: dict[str, float] = {}

        def ask() -> None:
            start = time.monotonic()
            got = httpx.get(f"{live.url}/tables/{table_id}/states/{last}", timeout=300)
            reply["status"] = got.status_code
            reply["took"] = time.monotonic() - start

        asking = threading.Thread(target=ask)
        waits: list[float] = []  # how long each /health took while the position was rebuilt
        with fair_to_the_loop(), httpx.Client(base_url=live.url, timeout=60) as http:
            http.get("/health")  # connected before the clock starts
            asking.start()
            while asking.is_alive():
                start = time.monotonic()
                assert http.get("/health").status_code == 200
                waits.append(time.monotonic() - start)
        asking.join()
        assert reply["status"] == 200
        assert len(waits) >= 3
        # On the event loop one /health would wait for most of the rebuild, the log's read
        # included; in a worker thread each waits a few GIL switches (measured: 0.01-0.02 s
        # of 0.15-0.25 s).
        assert max(waits) < reply["took"] / 2, (max(waits), reply["took"])
