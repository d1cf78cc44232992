"""A referee database with a long history, for the start-up, memory and fan-out benches.

One game is played for real (``trustkit.long_game``: a seeded 5 v 5 game on server dice
through the real ``Referee`` into real SQLite, with some undos and voids); its table is then
written again ``tables - 1`` times under new ids, straight into the store's tables (one
transaction per table), each copy's hash chain computed afresh for its own id, so every copy
loads as a sound table whose replay gives the same state as the game played live; the
snapshots live play left (every 50 events) are copied with it, each with its copy's own chain
head, so a copy re-opens as the game does. The first table is the game itself. The live
game's ``GET /tables/{id}`` answer is kept beside the database (``.live.json``) for the
replay-equals-live check.

Built once and kept in the temporary folder, named by its size, the store's schema and the
engine version that played it (``--fresh`` builds it again).
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # the game kit the tests use

from tankref.server.referee import chained, engine_version, table_genesis  # noqa: E402
from tankref.server.store import SCHEMA_VERSION, TableRow  # noqa: E402
from trustkit import long_game, open_referee  # noqa: E402

_EVENT_INSERT = (
    "INSERT INTO events (table_id, seq, request_id, request_sha256, action, dice, entry, "
    "result_sha256, state_sha256, version, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)


@dataclass(frozen=True)
class History:
    db: Path
    tables: list[str]  # every table's id; the first is the game played live
    events: int  # events per table
    live: dict[str, Any]  # the played table's GET /tables/{id} answer, as served live

    def as_live(self, read: dict[str, Any]) -> bool:
        """Whether a table's ``GET /tables/{id}`` answer is the live game's: the same, but
        for what a copy's own id makes (its id, and its chain's head, which starts from the
        id; the game itself must match that too)."""
        if read.get("table_id") == self.tables[0]:
            return read == self.live
        own = {"table_id": read.get("table_id"), "head_sha256": read.get("head_sha256")}
        return read == {**self.live, **own}


def history(tables: int, events: int, *, fresh: bool = False, quiet: bool = False) -> History:
    """The database (built if it is not kept yet)."""
    folder = Path(tempfile.gettempdir()) / "tankref-bench"
    name = (
        f"history-{tables}x{events}-schema{SCHEMA_VERSION}-"
        f"{engine_version('ttt').replace('+', '-')}"
    )
    db, live, ids = (folder / f"{name}{suffix}" for suffix in (".sqlite3", ".live.json", ".ids"))
    if fresh or not (db.exists() and live.exists() and ids.exists()):
        folder.mkdir(exist_ok=True)
        for path in folder.glob(f"{name}*"):
            path.unlink()
        started = time.perf_counter()
        work = Path(tempfile.mkdtemp(dir=folder))
        try:
            made, read = _build(work / "db.sqlite3", tables, events)
            live.write_text(json.dumps(read))
            ids.write_text("\n".join(made))
            for suffix in ("", "-wal", "-shm"):  # the WAL was folded in on close
                if (work / f"db.sqlite3{suffix}").exists():
                    shutil.move(work / f"db.sqlite3{suffix}", f"{db}{suffix}")
        finally:
            shutil.rmtree(work, ignore_errors=True)
        if not quiet:
            took = time.perf_counter() - started
            print(f"built {db} ({tables} tables x {events} events) in {took:.0f}s")
    return History(db, ids.read_text().split("\n"), events, json.loads(live.read_text()))


def _build(db: Path, tables: int, events: int) -> tuple[list[str], dict[str, Any]]:
    ref = open_referee(db)
    played = long_game(ref, events=events, seed=1)
    host = ref.host(played)
    read = json.loads(ref.read(host).model_dump_json())
    store = ref.store
    row = store.table(played)
    assert row is not None
    logged = store.events(played)
    entries = [json.loads(e.entry) for e in logged]
    seats = store.seat_tokens(played)
    snapshots = store.db.execute(
        "SELECT seq, version, state, timeline FROM snapshots WHERE table_id = ?", (played,)
    ).fetchall()
    quiet = store.quiet_requests(played)
    db_: sqlite3.Connection = store.db
    ids = [played]
    for k in range(1, tables):
        table_id = f"{k:06d}{played[6:]}"
        copy = TableRow(**{**row.__dict__, "id": table_id})
        head = table_genesis(copy)
        rows = []
        heads = {}
        for event, entry in zip(logged, entries, strict=True):
            previous = head
            head, _ = chained(previous, event, entry)  # the referee's own link
            heads[event.seq] = head
            text = event.entry.replace(entry["previous_sha256"], previous).replace(
                entry["chain_sha256"], head
            )
            rows.append(
                (
                    table_id,
                    event.seq,
                    event.request_id,
                    event.request_sha256,
                    json.dumps(event.action),
                    None if event.dice is None else json.dumps(event.dice),
                    text,
                    event.result_sha256,
                    event.state_sha256,
                    event.version,
                    event.created_at,
                )
            )
        assert table_id != played
        store.add_table(copy, seats)
        db_.execute("BEGIN")
        db_.executemany(_EVENT_INSERT, rows)
        db_.executemany(
            "INSERT INTO quiet_requests (table_id, request_id, request_sha256, seq) "
            "VALUES (?, ?, ?, ?)",
            [(table_id, rid, sha, seq) for rid, (seq, sha) in quiet.items()],
        )
        db_.executemany(
            "INSERT INTO snapshots (table_id, seq, version, state, timeline, head_sha256) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            [(table_id, seq, v, state, marks, heads[seq]) for seq, v, state, marks in snapshots],
        )
        db_.execute("COMMIT")
        ids.append(table_id)
    store.close()
    return ids, read
