"""The event log on disk: append-only, durable settings, state rebuilt from it at start, and a
log that no longer replays is reported, never silently rewritten."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from serverkit import duel, live_referee
from tankref.server.store import EventStore, StoreError

MISS = {"faces": {"white": [1, 1, 1, 1]}}


def test_log_is_append_only_in_the_database(tmp_path: Path) -> None:
    """Updating or deleting a logged event is refused by the database itself."""
    db = tmp_path / "r.sqlite3"
    with live_referee(db) as live:
        duel(live.url)
    raw = sqlite3.connect(db)
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        raw.execute("UPDATE events SET action = '{}' WHERE seq = 1")
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        raw.execute("DELETE FROM events")
    assert raw.execute("SELECT count(*) FROM events").fetchone()[0] == 4


def test_store_uses_wal_and_synchronous_commits(tmp_path: Path) -> None:
    """WAL journal and synchronous=FULL: a committed event is on disk before the reply."""
    store = EventStore(tmp_path / "s.sqlite3")
    assert store.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store.db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    store.close()


def test_restart_rebuilds_every_table_from_the_log(referee_db: Path | str) -> None:
    """A stopped and restarted referee has the same tables, states and logs; tokens still
    work, and an acknowledged request id still replays instead of rolling again (SQLite and
    PostgreSQL alike)."""
    db = referee_db
    with live_referee(db) as live:
        a = duel(live.url, dice_source="server")
        a.ok(a.act({"kind": "engage", "tank_id": "R1", "target_id": "B1"}, request_id="s1"))
        b = duel(live.url)
        b.ok(b.act({"kind": "wait", "tank_id": "R1"}))
        before = {t.id: t.snapshot() for t in (a, b)}
        first_shot = a.log()[-1]
    with live_referee(db) as live:
        for t in (a, b):
            t.http.base_url = httpx.URL(live.url)
            assert t.snapshot() == before[t.id]
        again = a.ok(a.act({"kind": "engage", "tank_id": "R1", "target_id": "B1"}, request_id="s1"))
        assert again["replayed"] is True and again["entry"] == first_shot
        assert a.read()["dice"]["counter"] == before[a.id][0]["dice"]["counter"]
        b.ok(b.act({"kind": "end_phase"}))
        assert b.read()["seq"] == before[b.id][0]["seq"] + 1


def test_a_log_that_no_longer_replays_marks_the_table_damaged(tmp_path: Path) -> None:
    """If an event no longer reproduces the state that was logged (tampering, or a rules
    change), the table is read-only and says why; the others carry on."""
    db = tmp_path / "r.sqlite3"
    with live_referee(db) as live:
        bad = duel(live.url)
        bad.ok(bad.act({"kind": "engage", "tank_id": "R1", "target_id": "B1"}, dice=MISS))
        good = duel(live.url)
    raw = sqlite3.connect(db)
    raw.execute("DROP TRIGGER events_append_only_update")
    raw.execute(
        "UPDATE events SET dice = ? WHERE table_id = ? AND seq = 5",
        (json.dumps({"faces": {"white": [5, 1, 1, 1]}}), bad.id),  # now a hit
    )
    raw.commit()
    raw.close()
    with live_referee(db) as live:
        for t in (bad, good):
            t.http.base_url = httpx.URL(live.url)
        read = bad.read()
        assert read["damaged"] is not None and "event 5" in read["damaged"]
        assert len(bad.log()) == 5
        reply = bad.act({"kind": "end_phase"})
        assert reply.status_code == 409 and reply.json()["code"] == "TABLE_DAMAGED"
        assert good.read()["damaged"] is None
        good.ok(good.act({"kind": "end_phase"}))


def test_a_newer_database_is_refused_plainly(tmp_path: Path) -> None:
    """A database written by a newer tankref is not touched: a clear message says so."""
    db = tmp_path / "n.sqlite3"
    EventStore(db).close()
    raw = sqlite3.connect(db)
    raw.execute("UPDATE meta SET value = '99' WHERE key = 'schema'")
    raw.commit()
    raw.close()
    with pytest.raises(StoreError, match="newer tankref"):
        EventStore(db)


def test_serve_refuses_a_file_that_is_not_a_database(tmp_path: Path) -> None:
    """`tankref serve --db` on some other file: exit 2 with a message, no traceback."""
    junk = tmp_path / "notes.txt"
    junk.write_text("not a database, just notes\n" * 50)
    done = subprocess.run(
        [sys.executable, "-m", "tankref", "serve", "--db", str(junk), "--port", "1"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "cannot open the database" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_log_whose_state_differs_on_replay_is_caught(tmp_path: Path) -> None:
    """An edited but still legal event (a move put 1" further) replays without error, yet to
    a different state than was logged: the state hash catches it."""
    db = tmp_path / "r.sqlite3"
    with live_referee(db) as live:
        table = duel(live.url)
        table.ok(table.put_tank("R1", card="tiger-i", player="Red", x=0, z=-17, facing=0))
    raw = sqlite3.connect(db)
    raw.execute("DROP TRIGGER events_append_only_update")
    action = json.loads(raw.execute("SELECT action FROM events WHERE seq = 5").fetchone()[0])
    assert action["kind"] == "move"
    action["z"] = -16
    raw.execute("UPDATE events SET action = ? WHERE seq = 5", (json.dumps(action),))
    raw.commit()
    raw.close()
    with live_referee(db) as live:
        table.http.base_url = httpx.URL(live.url)
        damaged = table.read()["damaged"]
        assert damaged is not None and "differs" in damaged


def test_an_action_the_database_cannot_save_is_not_applied(tmp_path: Path) -> None:
    """If the commit fails (here the database refuses inserts, as a full disk would), the
    reply is 503 NOT_SAVED and the table has not moved on; the retry succeeds later."""
    db = tmp_path / "r.sqlite3"
    with live_referee(db) as live:
        table = duel(live.url)
        before = table.snapshot()
        raw = sqlite3.connect(db)
        raw.execute(
            "CREATE TRIGGER refuse_inserts BEFORE INSERT ON events "
            "BEGIN SELECT RAISE(ABORT, 'disk trouble'); END"
        )
        raw.commit()
        reply = table.act({"kind": "wait", "tank_id": "R1"}, request_id="w")
        assert reply.status_code == 503
        assert reply.json()["code"] == "NOT_SAVED"
        assert "nothing was applied" in reply.json()["message"]
        assert table.snapshot() == before
        raw.execute("DROP TRIGGER refuse_inserts")
        raw.commit()
        raw.close()
        entry = table.ok(table.act({"kind": "wait", "tank_id": "R1"}, request_id="w"))["entry"]
        assert entry["seq"] == before[0]["seq"] + 1
