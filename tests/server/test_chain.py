"""The hash chain over a table's log, through the real server and real SQLite: the head in
every reply that appends, in the log's entries, in the table's read and in the export all
agree and survive a restart; a database written before the chain existed still serves,
exports and verifies (its chain is computed on load) and an unfinished game in it plays on,
its new entries linked to that chain; a stored entry edited in the database
makes the table read-only, naming the event."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import httpx
import pytest

from serverkit import Table, duel, live_referee
from tankref import cli
from tankref.core import chain

# Written by tankref at d185c06 (before the chain), dumped with sqlite3's iterdump: an
# ended game (trustkit.long_game(events=24, seed=11), then end_game) and an unfinished one
# (16 events of seed 12, Red to act), whose write token is below. No entry carries a link.
BEFORE_THE_CHAIN = Path(__file__).with_name("before_the_chain.sql")
UNFINISHED_TOKEN = "OrOJJ1U3NzGw5UttqjtO-7lApG70l8H5Y8o3mkDfbv4"

MISS = {"faces": {"white": [1, 1, 1, 1]}}


def heads_agree(entries: list[dict[str, Any]], start: str) -> str:
    """Each entry's previous link is the one before's link; the last link."""
    head = start
    for entry in entries:
        assert entry["previous_sha256"] == head, entry["seq"]
        head = entry["chain_sha256"]
    return head


def test_the_head_agrees_in_replies_the_log_the_table_and_the_export(tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite3"
    with live_referee(db) as live:
        table = duel(live.url)
        start = table.log()[0]["previous_sha256"]
        replies = [
            table.ok(table.act({"kind": "engage", "tank_id": "R1", "target_id": "B1"}, dice=MISS)),
            table.ok(table.act({"kind": "end_phase"}, request_id="end-1")),
            table.ok(table.act({"kind": "wait", "tank_id": "B1"})),
        ]
        for reply in replies:  # the reply's head is its entry's link: one step further
            assert reply["head_sha256"] == reply["entry"]["chain_sha256"]
            assert len(reply["head_sha256"]) == 64
        assert replies[1]["entry"]["previous_sha256"] == replies[0]["head_sha256"]
        log = table.log()
        head = heads_agree(log, start)
        assert head == replies[-1]["head_sha256"] == table.read()["head_sha256"]
        again = table.ok(table.act({"kind": "end_phase"}, request_id="end-1"))
        assert again["replayed"] is True and again["head_sha256"] == head  # nothing appended
        export = table.ok(table.http.get(table.path("/export")))
        assert export["table"]["head_sha256"] == head
        assert [e["chain_sha256"] for e in export["events"]] == [e["chain_sha256"] for e in log]
    with live_referee(db) as live:  # computed again on load: the same head
        table.http.base_url = httpx.URL(live.url)
        assert table.read()["head_sha256"] == head
        reply = table.ok(table.act({"kind": "end_phase"}))
        assert reply["entry"]["previous_sha256"] == head != reply["head_sha256"]


def old_database(tmp_path: Path) -> Path:
    db = tmp_path / "old.sqlite3"
    raw = sqlite3.connect(db)
    raw.executescript(BEFORE_THE_CHAIN.read_text())
    raw.close()
    return db


def test_a_database_from_before_the_chain_serves_exports_and_verifies(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = old_database(tmp_path)
    raw = sqlite3.connect(db)
    ended, unfinished = (r[0] for r in raw.execute("SELECT id FROM tables ORDER BY created_at"))
    stored = [json.loads(r[0]) for r in raw.execute("SELECT entry FROM events ORDER BY seq")]
    raw.close()
    assert len(stored) == 25 + 16 and not any("chain_sha256" in e for e in stored)
    with live_referee(db) as live:
        read = httpx.get(f"{live.url}/tables/{ended}", timeout=30).json()
        assert read["damaged"] is None and read["seq"] == 25
        assert read["table"]["status"] == "over"
        export = httpx.get(f"{live.url}/tables/{ended}/export", timeout=30).json()
        # The unfinished game goes on: its first new entry links to the head computed on load.
        table = Table(live.url, {"table_id": unfinished, "token": UNFINISHED_TOKEN})
        before = table.read()
        assert before["seq"] == 16 and before["damaged"] is None
        reply = table.ok(table.http.post(table.path("/end"), json={"request_id": "the-end"}))
        assert reply["entry"]["previous_sha256"] == before["head_sha256"]
        assert reply["head_sha256"] == reply["entry"]["chain_sha256"] == table.read()["head_sha256"]
        mixed = table.ok(table.http.get(table.path("/export")))
        table.close()
    head = read["head_sha256"]
    assert export["table"]["head_sha256"] == head == export["events"][-1]["chain_sha256"]
    for doc, noted, events in ((export, head, 25), (mixed, reply["head_sha256"], 17)):
        path = tmp_path / "old.json"
        path.write_text(json.dumps(doc))
        assert cli.main(["verify", str(path), "--head", chain.short(noted)]) == 0
        out = capsys.readouterr().out
        assert "OK" in out.splitlines()[0], out
        assert f"{events} re-adjudicated" in out.splitlines()[0]
    # tankref export, from the file itself, gives the same chain.
    exported = tmp_path / "cli.json"
    assert cli.main(["export", ended, "--db", str(db), "-o", str(exported)]) == 0
    assert json.loads(exported.read_text())["table"]["head_sha256"] == head


def test_an_edited_stored_entry_breaks_the_chain_and_the_table_is_read_only(
    tmp_path: Path,
) -> None:
    """A chat line edited in the database (the result and the replay are untouched, so only
    the chain can tell): the table loads read-only, naming the event; the others play on."""
    db = tmp_path / "r.sqlite3"
    with live_referee(db) as live:
        bad = duel(live.url)
        bad.ok(bad.act({"kind": "engage", "tank_id": "R1", "target_id": "B1"}, dice=MISS))
        good = duel(live.url)
    raw = sqlite3.connect(db)
    raw.execute("DROP TRIGGER events_append_only_update")
    (text,) = raw.execute(
        "SELECT entry FROM events WHERE table_id = ? AND seq = 5", (bad.id,)
    ).fetchone()
    entry = json.loads(text)
    entry["chat"][0] = "R1 destroys B1!"
    raw.execute(
        "UPDATE events SET entry = ? WHERE table_id = ? AND seq = 5", (json.dumps(entry), bad.id)
    )
    raw.commit()
    raw.close()
    with live_referee(db) as live:
        for t in (bad, good):
            t.http.base_url = httpx.URL(live.url)
        damaged = bad.read()["damaged"]
        assert damaged is not None
        assert damaged.startswith("event 5: the log's hash chain breaks here")
        reply = bad.act({"kind": "end_phase"})
        assert reply.status_code == 409 and reply.json()["code"] == "TABLE_DAMAGED"
        assert good.read()["damaged"] is None
        good.ok(good.act({"kind": "end_phase"}))
