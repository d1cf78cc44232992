"""The durable record: an append-only event log per table in SQLite.

Every accepted action is written (and committed, synchronously, in WAL mode) before the
reply leaves the server, so a crash never loses an acknowledged result. The state is derived
from the log by replaying it through the engine; triggers make the log append-only at the
database level. A *snapshot* of the derived state is kept now and then beside the log
(``snapshots``, issue 18): never the record, only a shortcut, so that re-opening a table
replays the events after its newest snapshot instead of its whole history. A snapshot is used
only if its state hashes to the checkpoint its event logged (``events.state_sha256``).

The referee's writes go through a group commit (``GroupCommit``): one writer thread, on a
connection of its own, takes every write queued while its last commit was syncing and
commits them together, one transaction and one sync for the lot; each writer is answered
after the commit that holds its row. The event loop never waits on the disk meanwhile.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import queue
import sqlite3
import threading
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SCHEMA_VERSION = 2  # 2: snapshots

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS tables (
    id           TEXT PRIMARY KEY,
    ruleset      TEXT NOT NULL,
    created_at   TEXT NOT NULL,
    token_sha256 TEXT NOT NULL,  -- the write token itself is never stored
    setup        TEXT NOT NULL,  -- JSON, as the ruleset validated it
    dice         TEXT NOT NULL,  -- JSON DiceState at creation, with the secret server seed
    commitment   TEXT NOT NULL,  -- SHA-256 of the server seed, published at creation
    seed_chosen  INTEGER NOT NULL,
    version      TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
    table_id       TEXT NOT NULL REFERENCES tables(id),
    seq            INTEGER NOT NULL,
    request_id     TEXT,
    request_sha256 TEXT NOT NULL,
    action         TEXT NOT NULL,  -- JSON action as the engine took it
    dice           TEXT,           -- JSON faces the table supplied, if any
    entry          TEXT NOT NULL,  -- JSON log entry as served
    result_sha256  TEXT NOT NULL,  -- the result, checked again when the log is replayed
    state_sha256   TEXT,           -- the derived state after it, at checkpoints (else NULL)
    version        TEXT NOT NULL,  -- tankref and card-data version that decided it
    created_at     TEXT NOT NULL,
    PRIMARY KEY (table_id, seq)
) WITHOUT ROWID;
CREATE UNIQUE INDEX IF NOT EXISTS events_by_request
    ON events (table_id, request_id) WHERE request_id IS NOT NULL;
-- Requests that changed nothing (a model that only drifted): no event, but the request id
-- is spent, so the same id sent again answers "nothing applied" even after the table moved.
CREATE TABLE IF NOT EXISTS quiet_requests (
    table_id       TEXT NOT NULL REFERENCES tables(id),
    request_id     TEXT NOT NULL,
    request_sha256 TEXT NOT NULL,
    seq            INTEGER NOT NULL,  -- the log's last seq when it was answered
    PRIMARY KEY (table_id, request_id)
) WITHOUT ROWID;
-- Each player's own write credential (issue 15): only its hash, like the table's token.
CREATE TABLE IF NOT EXISTS seat_tokens (
    table_id     TEXT NOT NULL REFERENCES tables(id),
    player       TEXT NOT NULL,
    token_sha256 TEXT NOT NULL,
    PRIMARY KEY (table_id, player)
) WITHOUT ROWID;
-- Tables a demo made (`tankref demo`): listed as such, so they can be told apart and removed.
CREATE TABLE IF NOT EXISTS demo_tables (
    table_id TEXT PRIMARY KEY REFERENCES tables(id)
) WITHOUT ROWID;
-- Derived, never the record (schema 2): a table's state after event seq, a checkpoint, so that
-- re-opening the table replays only the events after it. Written after its event committed
-- (the foreign key: never ahead of the log); used only if the state hashes to the event's
-- state_sha256 and it was made by the engine version now running.
CREATE TABLE IF NOT EXISTS snapshots (
    table_id    TEXT NOT NULL,
    seq         INTEGER NOT NULL,
    version     TEXT NOT NULL,  -- the engine and card data that made it
    state       TEXT NOT NULL,  -- the ruleset's state JSON, the text the checkpoint hashed
    timeline    TEXT NOT NULL,  -- JSON: what the log says beside the state (undo marks ...)
    head_sha256 TEXT NOT NULL,  -- the log's hash chain after event seq
    PRIMARY KEY (table_id, seq),
    FOREIGN KEY (table_id, seq) REFERENCES events (table_id, seq)
);
CREATE TRIGGER IF NOT EXISTS events_append_only_update BEFORE UPDATE ON events
    BEGIN SELECT RAISE(ABORT, 'the event log is append-only'); END;
CREATE TRIGGER IF NOT EXISTS events_append_only_delete BEFORE DELETE ON events
    BEGIN SELECT RAISE(ABORT, 'the event log is append-only'); END;
"""

# Deleting a whole table (its owner's request) lifts the append-only guard for that one
# transaction only: dropped and made again inside it, so no other write ever sees it gone.
_APPEND_ONLY_DELETE = """CREATE TRIGGER events_append_only_delete BEFORE DELETE ON events
    BEGIN SELECT RAISE(ABORT, 'the event log is append-only'); END"""


_EVENT_COLUMNS = (
    "table_id, seq, request_id, request_sha256, action, dice, entry, result_sha256, "
    "state_sha256, version, created_at"
)
_TABLE_COLUMNS = (
    "id, ruleset, created_at, token_sha256, setup, dice, commitment, seed_chosen, version"
)
_INSERT_EVENT = f"INSERT INTO events ({_EVENT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
_SNAPSHOT_COLUMNS = "table_id, seq, version, state, timeline, head_sha256"
_INSERT_SNAPSHOT = (
    f"INSERT OR REPLACE INTO snapshots ({_SNAPSHOT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)"
)
_INSERT_QUIET = (
    "INSERT INTO quiet_requests (table_id, request_id, request_sha256, seq) VALUES (?, ?, ?, ?)"
)


def one_line(exc: BaseException, limit: int = 200) -> str:
    """An error as one short line (SQLite may quote a whole damaged schema)."""
    text = " ".join(str(exc).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


class StoreError(RuntimeError):
    """The database cannot be used (wrong file, newer schema, disk trouble)."""


class StoreFailure(Exception):
    """A read or write the database refused or could not do; nothing was changed by it
    (whichever store: the referee catches this, never a database driver's own errors)."""


class StoreUnavailable(StoreFailure):
    """The database server cannot be reached just now: try again shortly (HTTP 503 with
    Retry-After). The write it refused is not applied."""


class CreationLimited(Exception):
    """A table refused by the creation limit (``Quota``): nothing was written."""

    def __init__(self, retry_after: int) -> None:
        super().__init__(f"too many tables from this address; try again in {retry_after} s")
        self.retry_after = retry_after


HOUR = 3600.0


@dataclass(frozen=True)
class Quota:
    """At most ``per_hour`` tables from ``address`` in any hour (the hosted profile's
    tables-per-hour). ``at``: now, in seconds since the epoch, as the referee's clock says:
    a wall clock, the same for every worker on one machine (and NTP's on several)."""

    address: str
    per_hour: int
    at: float

    @property
    def window_start(self) -> float:
        """A creation at or before this has left the hour and no longer counts."""
        return self.at - HOUR

    def wait(self, made: Sequence[float]) -> int | None:
        """Seconds until one more table is admitted, given the times ``made`` of the tables
        still in the window, newest first (None: admitted now). When ``per_hour`` or more
        count, the one ``per_hour`` places back from the newest must leave the hour first."""
        if len(made) < self.per_hour:
            return None
        leaves = made[self.per_hour - 1] + HOUR
        # Whole seconds, rounded up (sent then, it is admitted); at most an hour, even if
        # the clock was set back.
        return min(int(HOUR), max(1, math.ceil(leaves - self.at)))


class WriteConflict(StoreFailure):
    """Another writer (another referee process) logged this table's next event first: this
    referee's copy of the table is behind its log and must catch up before it writes."""


class TableBusy(StoreFailure):
    """Another referee process has held the table far longer than any write takes (stuck,
    or cut off mid-write until the database ends its session): nothing was written."""


class TableGone(StoreFailure):
    """The table was deleted (by another referee process) before this write reached it:
    nothing was written, and there is no table to write to any more."""


@dataclass(frozen=True)
class TableRow:
    id: str
    ruleset: str
    created_at: str
    token_sha256: str
    setup: dict[str, Any]
    dice: dict[str, Any]
    commitment: str
    seed_chosen: bool
    version: str

    def params(self) -> tuple[Any, ...]:
        """Its columns' values in ``tables``' column order (both stores write them so)."""
        return (
            self.id,
            self.ruleset,
            self.created_at,
            self.token_sha256,
            json.dumps(self.setup),
            json.dumps(self.dice),
            self.commitment,
            int(self.seed_chosen),
            self.version,
        )


@dataclass(frozen=True)
class EventRow:
    table_id: str
    seq: int
    request_id: str | None
    request_sha256: str
    action: dict[str, Any]
    dice: dict[str, Any] | None
    entry: str  # JSON text, served as is
    result_sha256: str
    state_sha256: str | None
    version: str
    created_at: str


def event_row(
    *,
    table_id: str,
    seq: int,
    request_id: str | None,
    request_sha256: str,
    action: dict[str, Any],
    dice: dict[str, Any] | None,
    entry: str,
    result_sha256: str,
    state_sha256: str | None,
    version: str,
    created_at: str,
) -> EventRow:
    """``EventRow(...)``, the same row, without a frozen dataclass's ``object.__setattr__``
    per field (a row an event, made on the event loop)."""
    row: EventRow = object.__new__(EventRow)
    row.__dict__.update(
        table_id=table_id,
        seq=seq,
        request_id=request_id,
        request_sha256=request_sha256,
        action=action,
        dice=dice,
        entry=entry,
        result_sha256=result_sha256,
        state_sha256=state_sha256,
        version=version,
        created_at=created_at,
    )
    return row


@dataclass(frozen=True)
class Snapshot:
    """A table's derived state after event ``seq`` (see ``snapshots`` in the schema)."""

    table_id: str
    seq: int
    version: str
    state: str
    timeline: str
    head_sha256: str

    def params(self) -> tuple[Any, ...]:
        return (self.table_id, self.seq, self.version, self.state, self.timeline, self.head_sha256)


@dataclass(frozen=True)
class LoggedSnapshot:
    """A stored snapshot with what its event logged about it, to check it against."""

    snapshot: Snapshot
    state_sha256: str | None  # the event's checkpoint hash (None: not a checkpoint)
    entry: str  # the event's log entry (its chain link)


@dataclass(frozen=True)
class Reopened:
    """What re-opening a table reads: its row, the snapshot taken (None: none was usable),
    the events after it, and the request ids of the events up to it (id -> seq: read from
    the index of request ids alone; their hashes are read when asked, ``request_digest``)."""

    row: TableRow | None
    snapshot: Any  # what ``take`` made of the snapshot it took
    after: int  # the snapshot's seq (0: none)
    events: list[EventRow]
    requests: dict[str, int]


class EventStore:
    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            # One event loop thread uses the connection; isolation_level=None: we say BEGIN.
            self.db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=FULL")  # committed means on disk
            self.db.execute("PRAGMA foreign_keys=ON")
            self._check_is_ours()
            self.db.executescript(_SCHEMA)
            self._check_version()
            self._writer: GroupCommit | None = None  # started by the first queued write
            self._busy: Callable[[], bool] | None = None  # see ``set_busy``
            # Tables made per client address (times, oldest first), for the creation limit.
            # Kept in memory: SQLite is one referee process, whose memory every request
            # shares, and the file's schema stays as it was (as the limit did before).
            self._made: dict[str, deque[float]] = {}
        except (sqlite3.DatabaseError, UnicodeDecodeError, ValueError) as exc:
            # A damaged file (text that is not UTF-8, a schema that does not parse ...)
            raise StoreError(
                f"{path}: cannot use this file as the referee's database: {one_line(exc)}"
            ) from exc

    @property
    def where(self) -> str:
        """The database as a person names it: the file's path."""
        return str(self.path)

    def check_readable(self) -> None:
        """The list of tables reads (a table that then does not load is set aside)."""
        try:
            self.table_ids()
        except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:
            raise StoreError(f"{self.path}: cannot read the tables: {one_line(exc)}") from exc

    def listen(
        self,
        heard: Callable[[str, int], None],
        reconnected: Callable[[], None],
        deleted: Callable[[str], None],
    ) -> threading.Event | None:
        """Other processes' writes: none (SQLite is one referee process's file)."""
        return None

    @contextlib.asynccontextmanager
    async def hold(self, table_id: str) -> AsyncIterator[EventStore]:
        """The table's writes for one process at a time: this one is the only process (the
        referee's lock on the table already makes its writes one at a time), so they go
        through the group commit as always."""
        yield self

    def check_writable(self) -> None:
        """A write can be committed here (a referee that cannot write acknowledges nothing)."""
        try:
            self.db.execute("BEGIN IMMEDIATE")
            self.db.execute("ROLLBACK")
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path}: cannot write to it: {one_line(exc)}") from exc

    def _check_is_ours(self) -> None:
        """Some other program's SQLite file is refused, not filled with our tables."""
        names = {
            str(r[0])
            for r in self.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        }
        if names and "meta" not in names:
            self.db.close()
            raise StoreError(
                f"{self.path}: not a tankref database (an SQLite file with other tables: "
                f"{', '.join(sorted(names)[:5])})"
            )

    def _check_version(self) -> None:
        row = self.db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
        if row is None:
            self.db.execute(
                "INSERT INTO meta (key, value) VALUES ('schema', ?)", (str(SCHEMA_VERSION),)
            )
        elif int(row[0]) > SCHEMA_VERSION:
            raise StoreError(
                f"{self.path}: written by a newer tankref (schema {row[0]}); upgrade tankref"
            )
        elif int(row[0]) < SCHEMA_VERSION:  # the new tables were made above: say so
            self.db.execute(
                "UPDATE meta SET value = ? WHERE key = 'schema'", (str(SCHEMA_VERSION),)
            )

    def close(self) -> None:
        """Every queued write committed (or refused) first, then the connections closed."""
        if self._writer is not None:
            self._writer.close()
            self._writer = None
        self.db.close()

    # --- tables ----------------------------------------------------------------------------
    def add_table(
        self,
        row: TableRow,
        seat_tokens: dict[str, str] | None = None,
        *,
        demo: bool = False,
        quota: Quota | None = None,
    ) -> None:
        """The table's row and its seats' token hashes (player -> SHA-256), in one go;
        ``demo``: a table `tankref demo` made. ``quota``: counted against it, and refused
        (``CreationLimited``, nothing written) beyond it; one event loop thread makes every
        table, so the check and the count are one step."""
        if quota is not None:
            wait = self.creation_wait(quota)
            if wait is not None:
                raise CreationLimited(wait)
        with self._transaction():
            self.db.execute(
                "INSERT INTO tables (id, ruleset, created_at, token_sha256, setup, dice, "
                "commitment, seed_chosen, version) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                row.params(),
            )
            for player, digest in (seat_tokens or {}).items():
                self.db.execute(
                    "INSERT INTO seat_tokens (table_id, player, token_sha256) VALUES (?, ?, ?)",
                    (row.id, player, digest),
                )
            if demo:
                self.db.execute("INSERT INTO demo_tables (table_id) VALUES (?)", (row.id,))
        if quota is not None:  # committed: it counts (a refused one never gets here)
            self._made.setdefault(quota.address, deque()).append(quota.at)
            if len(self._made) > 10_000:  # addresses not seen within the hour: forgotten
                for gone in [a for a, m in self._made.items() if m[-1] <= quota.window_start]:
                    del self._made[gone]

    def creation_wait(self, quota: Quota) -> int | None:
        """Seconds until ``quota.address`` may make another table (None: now)."""
        made = self._made.get(quota.address)
        if made is None:
            return None
        while made and made[0] <= quota.window_start:
            made.popleft()
        if not made:
            del self._made[quota.address]  # an address seen once long ago: forgotten
            return None
        return quota.wait(list(reversed(made)) if len(made) >= quota.per_hour else ())

    def demo_table_ids(self) -> set[str]:
        return {str(r[0]) for r in self.db.execute("SELECT table_id FROM demo_tables")}

    def delete_table(self, table_id: str) -> int:
        """The table and everything of it (events, spent request ids, seats, demo mark), in
        one transaction: all gone or nothing. Returns how many events it held."""
        try:
            return self._delete_table(table_id)
        except sqlite3.Error as exc:
            raise StoreFailure(str(exc)) from exc

    def _delete_table(self, table_id: str) -> int:
        with self._transaction():
            self.db.execute("DROP TRIGGER events_append_only_delete")
            self.db.execute("DELETE FROM snapshots WHERE table_id = ?", (table_id,))
            gone = self.db.execute("DELETE FROM events WHERE table_id = ?", (table_id,))
            events = gone.rowcount
            for other in ("quiet_requests", "seat_tokens", "demo_tables"):
                self.db.execute(f"DELETE FROM {other} WHERE table_id = ?", (table_id,))
            self.db.execute("DELETE FROM tables WHERE id = ?", (table_id,))
            self.db.execute(_APPEND_ONLY_DELETE)
        return int(events)

    def seat_tokens(self, table_id: str) -> dict[str, str]:
        """Player -> the SHA-256 of their seat token (none for a table from before seats)."""
        rows = self.db.execute(
            "SELECT player, token_sha256 FROM seat_tokens WHERE table_id = ?", (table_id,)
        ).fetchall()
        return {str(r[0]): str(r[1]) for r in rows}

    def tables(self) -> Iterator[TableRow]:
        cursor = self.db.execute(f"SELECT {_TABLE_COLUMNS} FROM tables ORDER BY created_at, id")
        for r in cursor.fetchall():
            yield _table(r)

    def table_ids(self) -> list[str]:
        """Every table's id, oldest first: read apart from the rows, so that one row that
        cannot be read does not hide the others."""
        rows = self.db.execute("SELECT id FROM tables ORDER BY created_at, id").fetchall()
        return [str(r[0]) for r in rows]

    def table(self, table_id: str) -> TableRow | None:
        found = self.db.execute(
            f"SELECT {_TABLE_COLUMNS} FROM tables WHERE id = ?", (table_id,)
        ).fetchone()
        return None if found is None else _table(found)

    # --- events ----------------------------------------------------------------------------
    def append(self, row: EventRow) -> None:
        """One event, committed before this returns (on the calling thread)."""
        with self._transaction():
            self.db.execute(_INSERT_EVENT, _event_params(row))

    def add_quiet_request(self, table_id: str, request_id: str, sha256: str, seq: int) -> None:
        with self._transaction():
            self.db.execute(_INSERT_QUIET, (table_id, request_id, sha256, seq))

    def queue_event(self, row: EventRow) -> asyncio.Future[None]:
        """One event, handed to the group commit: the future is done once a commit that
        holds it is on disk (its exception: the ``sqlite3.Error`` that refused it)."""
        return self._group().write(_INSERT_EVENT, _event_params(row))

    def queue_quiet_request(
        self, table_id: str, request_id: str, sha256: str, seq: int
    ) -> asyncio.Future[None]:
        """A spent request id that changed nothing, through the group commit."""
        return self._group().write(_INSERT_QUIET, (table_id, request_id, sha256, seq))

    def add_snapshot(self, snapshot: Snapshot) -> None:
        """A snapshot, committed before this returns (on the calling thread)."""
        try:
            with self._transaction():
                self.db.execute(_INSERT_SNAPSHOT, snapshot.params())
        except sqlite3.Error as exc:
            raise StoreFailure(str(exc)) from exc

    def queue_snapshot(self, snapshot: Snapshot) -> asyncio.Future[None]:
        """A snapshot, through the group commit (it rides with the next commit's events)."""
        return self._group().write(_INSERT_SNAPSHOT, snapshot.params())

    def snapshot_seqs(self, table_id: str) -> list[int]:
        rows = self.db.execute(
            "SELECT seq FROM snapshots WHERE table_id = ? ORDER BY seq", (table_id,)
        ).fetchall()
        return [int(r[0]) for r in rows]

    def reopen(self, table_id: str, take: Callable[[LoggedSnapshot], Any]) -> Reopened:
        """``read_reopen`` on this store's connection."""
        return _read_reopen(self.db, table_id, take)

    def read_log(
        self, table_id: str, upto: int, *, after: int = 0
    ) -> tuple[TableRow | None, list[EventRow]]:
        """``read_log`` on a connection of its own (for a worker thread)."""
        return read_log(self.path, table_id, upto, after=after)

    def read_reopen(self, table_id: str, take: Callable[[LoggedSnapshot], Any]) -> Reopened:
        """``read_reopen`` on a connection of its own (for a worker thread)."""
        return read_reopen(self.path, table_id, take)

    def _group(self) -> GroupCommit:
        if self._writer is None:
            # The writer syncs as this connection was told to (a test fixture may have
            # turned syncing off to build a long log fast; the referee never does).
            level = int(self.db.execute("PRAGMA synchronous").fetchone()[0])
            self._writer = GroupCommit(self.path, synchronous=level, busy=self._busy)
        return self._writer

    def set_busy(self, busy: Callable[[], bool]) -> None:
        """``busy()``, asked on the event loop: whether a request is under way that may yet
        queue a write. The group commit asks the loop for more before committing only then
        (``GroupCommit``); unset, it always asks."""
        self._busy = busy
        if self._writer is not None:
            self._writer.busy = busy

    def quiet_requests(self, table_id: str) -> dict[str, tuple[int, str]]:
        """Request id -> (seq when answered, request hash), for requests that changed nothing."""
        rows = self.db.execute(
            "SELECT request_id, seq, request_sha256 FROM quiet_requests WHERE table_id = ?",
            (table_id,),
        ).fetchall()
        return {str(r[0]): (int(r[1]), str(r[2])) for r in rows}

    def events(self, table_id: str, after: int = 0, limit: int | None = None) -> list[EventRow]:
        sql = f"SELECT {_EVENT_COLUMNS} FROM events WHERE table_id = ? AND seq > ? ORDER BY seq"
        args: tuple[Any, ...] = (table_id, after)
        if limit is not None:
            sql += " LIMIT ?"
            args = (*args, limit)
        return [_event(r) for r in self.db.execute(sql, args).fetchall()]

    def entries(self, table_id: str, after: int, limit: int) -> list[str]:
        """Log entries (JSON text) after ``after``, oldest first: the cheap read path."""
        rows = self.db.execute(
            "SELECT entry FROM events WHERE table_id = ? AND seq > ? ORDER BY seq LIMIT ?",
            (table_id, after, limit),
        ).fetchall()
        return [r[0] for r in rows]

    def request_digest(self, table_id: str, seq: int) -> str:
        """The request hash of the event at ``seq``."""
        row = self.db.execute(
            "SELECT request_sha256 FROM events WHERE table_id = ? AND seq = ?", (table_id, seq)
        ).fetchone()
        return str(row[0])

    def entry_at(self, table_id: str, seq: int) -> str:
        row = self.db.execute(
            "SELECT entry FROM events WHERE table_id = ? AND seq = ?", (table_id, seq)
        ).fetchone()
        return str(row[0])

    def last_entry(self, table_id: str) -> tuple[int, str] | None:
        """The table's last event's (seq, entry), or None: one index step, whatever the
        log's length (the table list reads it instead of replaying the log)."""
        row = self.db.execute(
            "SELECT seq, entry FROM events WHERE table_id = ? ORDER BY seq DESC LIMIT 1",
            (table_id,),
        ).fetchone()
        return None if row is None else (int(row[0]), str(row[1]))

    def last_seq(self, table_id: str) -> int:
        row = self.db.execute(
            "SELECT max(seq) FROM events WHERE table_id = ?", (table_id,)
        ).fetchone()
        return int(row[0] or 0)

    def _transaction(self) -> _Transaction:
        return _Transaction(self.db)


class _Transaction:
    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind: object, value: object, tb: object) -> None:
        self.db.execute("COMMIT" if kind is None else "ROLLBACK")


class _Write:
    """One statement waiting for the group commit, and whom to tell."""

    __slots__ = ("done", "loop", "params", "sql")

    def __init__(self, sql: str, params: Sequence[Any], loop: asyncio.AbstractEventLoop) -> None:
        self.sql = sql
        self.params = params
        self.loop = loop
        self.done: asyncio.Future[None] = loop.create_future()


class GroupCommit:
    """The referee's writes, committed in groups by one thread on its own connection.

    The event loop queues a statement and awaits its future. What one turn of the loop
    queues is handed to the thread together, at the end of that turn (a request runs from
    its body to its queued row without yielding, so the requests the loop had ready in one
    turn arrive as one group). Before it commits, the thread asks the loop once more for
    what it has queued since, once it has run what it had ready: the requests the loop
    already had in hand join the commit instead of paying a sync of their own, and a loop
    with nothing in hand answers at once (nobody waits on a timer). When the loop has
    nothing else under way as it hands a turn over (``busy``, said by whoever knows what
    requests are under way: the referee), the thread does not ask: no request in hand
    could join, and the ask would cost the loop a wake-up of its own a commit (issue 18).
    The thread takes every group handed over (up to about ``MAX_GROUP`` rows), runs them in
    one ``BEGIN IMMEDIATE`` ... ``COMMIT`` (with ``synchronous=FULL`` the commit returns once
    the log is on disk: one sync for the lot), and only then resolves the futures, one hop
    back to each event loop. A statement SQLite refuses fails alone: the group is rolled
    back and its statements committed one by one, so the others are still saved and the
    refused one is told why.
    """

    MAX_GROUP = 256
    ASK_WAIT = 0.05  # seconds the thread waits for a busy loop's answer before committing

    def __init__(
        self, path: Path, *, synchronous: int = 2, busy: Callable[[], bool] | None = None
    ) -> None:
        self.path = path
        self.synchronous = synchronous
        # Asked on the loop as it hands a turn over: whether a request other than those
        # waiting on a commit is under way, which may yet queue a write. None: always so.
        self.busy = busy
        # A turn handed over, and whether to ask its loop for more before committing it.
        self._queue: queue.SimpleQueue[tuple[list[_Write], bool] | None] = queue.SimpleQueue()
        # Per event loop: the writes queued in its current turn, not yet handed over.
        self._turns: dict[asyncio.AbstractEventLoop, list[_Write]] = {}
        self._opened = threading.Event()
        self._failed: BaseException | None = None
        self._closing = False
        self._thread = threading.Thread(target=self._run, name="tankref-writer", daemon=True)
        self._thread.start()
        self._opened.wait()
        if self._failed is not None:
            raise StoreError(f"{path}: the writer cannot open the database: {self._failed}")

    def write(self, sql: str, params: Sequence[Any]) -> asyncio.Future[None]:
        loop = asyncio.get_running_loop()
        item = _Write(sql, params, loop)
        turn = self._turns.get(loop)
        if turn is None:
            turn = self._turns[loop] = []
            loop.call_soon(self._hand_over, loop)  # after what this turn already has ready
        turn.append(item)
        return item.done

    def _hand_over(self, loop: asyncio.AbstractEventLoop) -> None:
        turn = self._turns.pop(loop, None)  # None: an ask took it already
        if turn:
            self._queue.put((turn, self.busy is None or self.busy()))

    def _answer(self, loop: asyncio.AbstractEventLoop, answered: threading.Event) -> None:
        """The thread's ask, run by the loop after what it had ready: hand over this turn."""
        self._hand_over(loop)
        answered.set()

    def _ask(self, group: list[_Write]) -> None:
        """Each loop with a write in ``group`` is asked for what it has queued since."""
        for loop in {item.loop for item in group}:
            answered = threading.Event()
            try:
                loop.call_soon_threadsafe(self._answer, loop, answered)
            except RuntimeError:  # that loop is closed: it has nothing more
                continue
            answered.wait(self.ASK_WAIT)  # late: what it hands over goes in the next commit

    def close(self) -> None:
        """Commits what is queued, then stops the thread."""
        self._closing = True  # the loop closing us will not answer an ask
        self._queue.put(None)
        self._thread.join()

    def _run(self) -> None:
        try:
            db = sqlite3.connect(self.path, isolation_level=None)
            db.execute(f"PRAGMA synchronous={self.synchronous}")
            db.execute("PRAGMA foreign_keys=ON")
        except sqlite3.Error as exc:
            self._failed = exc
            self._opened.set()
            return
        self._opened.set()
        try:
            stopping = False
            while not stopping:
                first = self._queue.get()
                if first is None:
                    break
                group, ask = list(first[0]), first[1]
                if ask and not self._closing:
                    self._ask(group)
                while len(group) < self.MAX_GROUP:
                    try:
                        more = self._queue.get_nowait()
                    except queue.Empty:
                        break
                    if more is None:
                        stopping = True
                        break
                    group += more[0]
                _settle(group, self._commit(db, group))
        finally:
            db.close()

    @staticmethod
    def _commit(db: sqlite3.Connection, group: list[_Write]) -> list[BaseException | None]:
        """Each write's outcome (None: committed).

        Consecutive writes of one statement go as one multi-row statement, and a group of one
        such statement (the usual: events only) as that statement alone, which SQLite then
        commits as its own transaction, synced as any commit. Each statement releases the
        GIL while SQLite runs it and must take it back after, waiting up to a switch
        interval behind the busy event loop each time: one statement a commit instead of one
        per row plus BEGIN and COMMIT."""
        runs = _runs(group, db.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER))
        try:
            if len(runs) == 1:
                db.execute(*runs[0])
                return [None] * len(group)
            db.execute("BEGIN IMMEDIATE")
            try:
                for run in runs:
                    db.execute(*run)
                db.execute("COMMIT")
            except BaseException:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise
            return [None] * len(group)
        except Exception as exc:
            if len(group) == 1:
                return [exc]
        # One of them is refused (or the disk is): each on its own, so only it fails.
        return [GroupCommit._commit(db, [item])[0] for item in group]


def _runs(group: list[_Write], max_values: int) -> list[tuple[str, Sequence[Any]]]:
    """The group as statements, in order: each run of writes of one ``INSERT ... VALUES
    (...)`` as one statement with a row of values for each (``max_values``: the most
    parameters SQLite takes in one statement)."""
    runs: list[tuple[str, list[_Write]]] = []
    for item in group:
        if runs and runs[-1][0] == item.sql:
            runs[-1][1].append(item)
        else:
            runs.append((item.sql, [item]))
    statements: list[tuple[str, Sequence[Any]]] = []
    for sql, items in runs:
        head, values, row = sql.rpartition(" VALUES ")
        if len(items) == 1 or not values:  # one, or not an insert of one row: each alone
            statements += [(sql, item.params) for item in items]
            continue
        rows = max(1, max_values // max(1, len(items[0].params)))
        for start in range(0, len(items), rows):
            some = items[start : start + rows]
            params = [value for item in some for value in item.params]
            statements.append((f"{head} VALUES {', '.join([row] * len(some))}", params))
    return statements


def _settle(group: list[_Write], outcomes: list[BaseException | None]) -> None:
    """Hands each outcome to its event loop: one call per loop for the whole group."""
    by_loop: dict[asyncio.AbstractEventLoop, list[tuple[_Write, BaseException | None]]] = {}
    for item, outcome in zip(group, outcomes, strict=True):
        by_loop.setdefault(item.loop, []).append((item, outcome))
    for loop, settled in by_loop.items():
        with contextlib.suppress(RuntimeError):  # that loop is closed: nobody is waiting
            loop.call_soon_threadsafe(_resolve, settled)


def _resolve(settled: list[tuple[_Write, BaseException | None]]) -> None:
    for item, outcome in settled:
        if item.done.done():
            continue
        if outcome is None:
            item.done.set_result(None)
        else:
            item.done.set_exception(outcome)


@dataclass(frozen=True)
class BackupDone:
    path: Path
    tables: int
    events: int
    size: int  # bytes


def backup(
    source: Path, target: Path, progress: Callable[[int, int], None] | None = None
) -> BackupDone:
    """A consistent copy of a live referee's database, through SQLite's online backup API:
    the newest actions, still in the ``-wal`` file beside it, are in the copy, and the
    referee may go on writing meanwhile. ``progress(copied, total)`` in pages.

    Raises StoreError: no such file, not a tankref database, or the target exists."""
    if not source.is_file():
        raise StoreError(f"{source}: no referee database there")
    if target.exists():
        raise StoreError(f"{target}: already exists; pick a new name (nothing overwritten)")
    src = sqlite3.connect(f"{source.resolve().as_uri()}?mode=ro", uri=True)
    try:
        names = {r[0] for r in src.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if not {"meta", "tables", "events"} <= names:
            raise StoreError(f"{source}: not a tankref database")
        dst = sqlite3.connect(target)
        try:

            def step(_status: int, remaining: int, total: int) -> None:
                if progress is not None:
                    progress(total - remaining, total)

            src.backup(dst, pages=256, progress=step)
            dst.execute("PRAGMA journal_mode=DELETE")  # one self-contained file
            tables = dst.execute("SELECT count(*) FROM tables").fetchone()[0]
            events = dst.execute("SELECT count(*) FROM events").fetchone()[0]
        finally:
            dst.close()
    except sqlite3.DatabaseError as exc:
        target.unlink(missing_ok=True)
        raise StoreError(f"{source}: cannot back it up: {one_line(exc)}") from exc
    except KeyboardInterrupt:  # Ctrl+C midway: no half copy left to be mistaken for one
        target.unlink(missing_ok=True)
        raise
    finally:
        src.close()
    return BackupDone(target, int(tables), int(events), target.stat().st_size)


def read_log(
    path: Path, table_id: str, upto: int, *, after: int = 0
) -> tuple[TableRow | None, list[EventRow]]:
    """A table's row and its events after ``after`` up to ``upto``, read on a connection of its
    own (read-only, one snapshot): for work done off the event loop while the referee goes on
    writing."""
    db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        db.execute("BEGIN")
        r = db.execute(f"SELECT {_TABLE_COLUMNS} FROM tables WHERE id = ?", (table_id,))
        found = r.fetchone()
        events = db.execute(
            f"SELECT {_EVENT_COLUMNS} FROM events WHERE table_id = ? AND seq > ? AND seq <= ? "
            "ORDER BY seq",
            (table_id, after, upto),
        ).fetchall()
        db.execute("COMMIT")
    finally:
        db.close()
    return (None if found is None else _table(found)), [_event(e) for e in events]


def read_reopen(path: Path, table_id: str, take: Callable[[LoggedSnapshot], Any]) -> Reopened:
    """What re-opening a table needs, read on a connection of its own (read-only, one
    snapshot of the database): its snapshots are offered to ``take`` newest first until it
    makes something of one (not None), then the events after that one are read."""
    db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        return _read_reopen(db, table_id, take)
    finally:
        db.close()


def _read_reopen(
    db: sqlite3.Connection, table_id: str, take: Callable[[LoggedSnapshot], Any]
) -> Reopened:
    db.execute("BEGIN")
    try:
        found = db.execute(
            f"SELECT {_TABLE_COLUMNS} FROM tables WHERE id = ?", (table_id,)
        ).fetchone()
        taken: Any = None
        after = 0
        offered = db.execute(
            "SELECT s.table_id, s.seq, s.version, s.state, s.timeline, s.head_sha256, "
            "e.state_sha256, e.entry FROM snapshots s JOIN events e "
            "ON e.table_id = s.table_id AND e.seq = s.seq "
            "WHERE s.table_id = ? ORDER BY s.seq DESC",
            (table_id,),
        )
        for r in offered:  # one row at a time: the newest usable one is the first, mostly
            taken = take(LoggedSnapshot(Snapshot(*r[:6]), r[6], r[7]))
            if taken is not None:
                after = int(r[1])
                break
        offered.close()
        # From the index alone (it holds the seq): ten times faster than the events' rows.
        requests: dict[str, int] = dict(
            db.execute(
                "SELECT request_id, seq FROM events INDEXED BY events_by_request "
                "WHERE table_id = ? AND request_id IS NOT NULL AND seq <= ?",
                (table_id, after),
            ).fetchall()
        )
        events = db.execute(
            f"SELECT {_EVENT_COLUMNS} FROM events WHERE table_id = ? AND seq > ? ORDER BY seq",
            (table_id, after),
        ).fetchall()
    finally:
        db.execute("COMMIT")
    return Reopened(
        None if found is None else _table(found),
        taken,
        after,
        [_event(e) for e in events],
        requests,
    )


def _table(r: tuple[Any, ...]) -> TableRow:
    return TableRow(
        id=r[0],
        ruleset=r[1],
        created_at=r[2],
        token_sha256=r[3],
        setup=json.loads(r[4]),
        dice=json.loads(r[5]),
        commitment=r[6],
        seed_chosen=bool(r[7]),
        version=r[8],
    )


def _event_params(row: EventRow) -> tuple[Any, ...]:
    return (
        row.table_id,
        row.seq,
        row.request_id,
        row.request_sha256,
        json.dumps(row.action),
        None if row.dice is None else json.dumps(row.dice),
        row.entry,
        row.result_sha256,
        row.state_sha256,
        row.version,
        row.created_at,
    )


def _event(r: tuple[Any, ...]) -> EventRow:
    return EventRow(
        table_id=r[0],
        seq=r[1],
        request_id=r[2],
        request_sha256=r[3],
        action=json.loads(r[4]),
        dice=None if r[5] is None else json.loads(r[5]),
        entry=r[6],
        result_sha256=r[7],
        state_sha256=r[8],
        version=r[9],
        created_at=r[10],
    )
