"""The durable record on PostgreSQL (issue 19): the same log as ``store.EventStore`` keeps in
SQLite, with the same guarantees, for a referee that runs on a database server.

- The log is append-only in the database: triggers refuse UPDATE, DELETE and TRUNCATE on
  ``events`` (deleting a whole table, its owner's request, lifts them inside that one
  transaction, as SQLite's store does).
- ``(table_id, seq)`` is the primary key and request ids are unique per table (an index).
- One writer at a time per table across processes: every transaction that writes a table's
  log first takes a transaction-scoped advisory lock keyed by the table; a writer whose copy
  of the table is behind (another process logged that seq first) gets ``WriteConflict``,
  never a second event with the same seq.
- The referee's writes go through a group commit: one thread on a connection of its own
  commits every write queued while its last commit was on its way, in one transaction;
  each write is answered only after that commit returned.
- A server that cannot be reached raises ``StoreUnavailable``; the next use connects again.
- A write that lost its seq to another process's is tried again inside ``hold``: the
  table's lock taken first, in a transaction of its own on a connection of its own, and
  kept while the referee catches up, adjudicates and commits; so it cannot lose again.
- Several referee processes on one database hear each other's writes: each commit that logs
  events also notifies ``CHANNEL`` (in the same transaction, so a notification never comes
  before its commit) with the writer's origin, the table and its last seq, and deleting a
  table notifies ``deleted`` in place of a seq; ``listen`` hears them on a connection of its
  own (``PgListener``).
- The hosted profile's creation limit is counted here too (``table_creations``), so every
  process on the database shares it: a table and its count are one transaction, under a
  lock per client address, so two processes racing cannot both make the last one allowed.

Columns are text as in SQLite (a log entry is served byte for byte as it was stored).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import queue
import secrets
import threading
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from typing import Any, TypeVar

from tankref.server.dburl import without_password
from tankref.server.store import (
    CreationLimited,
    EventRow,
    LoggedSnapshot,
    Quota,
    Reopened,
    Snapshot,
    StoreError,
    StoreFailure,
    StoreUnavailable,
    TableBusy,
    TableGone,
    TableRow,
    WriteConflict,
    _event,
    _event_params,
    _resolve,
    _settle,
    _table,
    _Write,
    one_line,
)

try:
    import psycopg
    import psycopg.errors
    from psycopg.pq import TransactionStatus
except ImportError:  # an optional extra: SQLite needs none of it
    psycopg = None  # type: ignore[assignment]

# PostgreSQL's own numbering: 1, as SQLite's schema 2 (snapshots); 2: table_creations (the
# creation limit shared by every process), added to a schema 1 database when it is opened.
SCHEMA_VERSION = 2
CONNECT_TIMEOUT = 5  # seconds: an unreachable server is said so, not waited on
# Seconds the event loop waits for a new connection when its own was lost; a connection still
# being made after that is waited for off the loop, and requests meanwhile are answered 503.
LOOP_CONNECT_WAIT = 1.0
# A server that stops answering over TCP (a network gone quiet) is given up on after this
# long, rather than the operating system's minutes; unless the URL says otherwise.
TCP_SETTINGS = {
    "keepalives": "1",
    "keepalives_idle": "10",
    "keepalives_interval": "5",
    "keepalives_count": "2",
    "tcp_user_timeout": "10000",
}
# Advisory locks are two 32-bit keys: tankref's ("tank") and the table's.
LOCK_CLASS = 0x74616E6B
SCHEMA_LOCK = 0  # the table key of the lock taken while the schema is made
# The creation limit's locks: ("addr", the client address's key), apart from the tables'.
ADDRESS_LOCK_CLASS = 0x61646472
# What a commit that logs events notifies: "ORIGIN TABLE_ID SEQ" (the table's last seq in it);
# deleting a table: "ORIGIN TABLE_ID deleted".
CHANNEL = "tankref_log"
DELETED = "deleted"
_NOTIFY = "SELECT pg_notify(%s, %s)"
# A table held for a write (``PgStore.hold``): a write holds it for milliseconds, so a wait
# of HOLD_WAIT seconds means the holder is stuck (``TableBusy``); a holder whose process
# went quiet mid-write (killed, cut off) has its session ended, and the table let go, by
# the server after HOLD_IDLE seconds idle in its transaction.
HOLD_WAIT = 10
HOLD_IDLE = 30
HELD_KEEP = 4  # connections kept for holds between writes, per event loop

_SCHEMA = """
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE tables (
    id           TEXT PRIMARY KEY,
    ruleset      TEXT NOT NULL,
    created_at   TEXT NOT NULL,
    token_sha256 TEXT NOT NULL,
    setup        TEXT NOT NULL,
    dice         TEXT NOT NULL,
    commitment   TEXT NOT NULL,
    seed_chosen  INTEGER NOT NULL,
    version      TEXT NOT NULL
);
CREATE TABLE events (
    table_id       TEXT NOT NULL REFERENCES tables(id),
    seq            BIGINT NOT NULL,
    request_id     TEXT,
    request_sha256 TEXT NOT NULL,
    action         TEXT NOT NULL,
    dice           TEXT,
    entry          TEXT NOT NULL,
    result_sha256  TEXT NOT NULL,
    state_sha256   TEXT,
    version        TEXT NOT NULL,
    created_at     TEXT NOT NULL,
    PRIMARY KEY (table_id, seq)
);
CREATE UNIQUE INDEX events_by_request
    ON events (table_id, request_id) WHERE request_id IS NOT NULL;
CREATE TABLE quiet_requests (
    table_id       TEXT NOT NULL REFERENCES tables(id),
    request_id     TEXT NOT NULL,
    request_sha256 TEXT NOT NULL,
    seq            BIGINT NOT NULL,
    PRIMARY KEY (table_id, request_id)
);
CREATE TABLE seat_tokens (
    table_id     TEXT NOT NULL REFERENCES tables(id),
    player       TEXT NOT NULL,
    token_sha256 TEXT NOT NULL,
    PRIMARY KEY (table_id, player)
);
CREATE TABLE demo_tables (
    table_id TEXT PRIMARY KEY REFERENCES tables(id)
);
CREATE TABLE snapshots (
    table_id    TEXT NOT NULL,
    seq         BIGINT NOT NULL,
    version     TEXT NOT NULL,
    state       TEXT NOT NULL,
    timeline    TEXT NOT NULL,
    head_sha256 TEXT NOT NULL,
    PRIMARY KEY (table_id, seq),
    FOREIGN KEY (table_id, seq) REFERENCES events (table_id, seq)
);
CREATE FUNCTION tankref_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'the event log is append-only';
END
$$;
CREATE TRIGGER events_append_only_update BEFORE UPDATE ON events
    FOR EACH ROW EXECUTE FUNCTION tankref_append_only();
CREATE TRIGGER events_append_only_delete BEFORE DELETE ON events
    FOR EACH ROW EXECUTE FUNCTION tankref_append_only();
CREATE TRIGGER events_append_only_truncate BEFORE TRUNCATE ON events
    FOR EACH STATEMENT EXECUTE FUNCTION tankref_append_only();
"""

# Schema 2. Tables made per client address in the last hour (the hosted profile's limit):
# not the record, pruned as they leave the hour; a deleted table still counted.
_CREATIONS = """
CREATE TABLE table_creations (
    address TEXT NOT NULL,
    made_at DOUBLE PRECISION NOT NULL  -- seconds since the epoch, the referee's clock
);
CREATE INDEX table_creations_by_address ON table_creations (address, made_at);
CREATE INDEX table_creations_by_time ON table_creations (made_at);
"""
# The times still in the window that decide the wait (``Quota.wait``), newest first.
_MADE = (
    "SELECT made_at FROM table_creations WHERE address = %s AND made_at > %s "
    "ORDER BY made_at DESC LIMIT %s"
)
# Creations that left the hour, any address's, a few at a time; rows another transaction
# is pruning are skipped, never waited for (two prunes never wait on each other).
_PRUNE = (
    "DELETE FROM table_creations WHERE ctid = ANY(ARRAY("
    "SELECT ctid FROM table_creations WHERE made_at <= %s LIMIT 100 FOR UPDATE SKIP LOCKED))"
)

_EVENT_COLUMNS = (
    "table_id, seq, request_id, request_sha256, action, dice, entry, result_sha256, "
    "state_sha256, version, created_at"
)
_TABLE_COLUMNS = (
    "id, ruleset, created_at, token_sha256, setup, dice, commitment, seed_chosen, version"
)
_INSERT_EVENT = (
    f"INSERT INTO events ({_EVENT_COLUMNS}) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
)
_INSERT_SNAPSHOT = (
    "INSERT INTO snapshots (table_id, seq, version, state, timeline, head_sha256) "
    "VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (table_id, seq) DO UPDATE SET "
    "version = EXCLUDED.version, state = EXCLUDED.state, timeline = EXCLUDED.timeline, "
    "head_sha256 = EXCLUDED.head_sha256"
)
_INSERT_QUIET = (
    "INSERT INTO quiet_requests (table_id, request_id, request_sha256, seq) VALUES (%s, %s, %s, %s)"
)
_LOCK_TABLE = "SELECT pg_advisory_xact_lock(%s, %s)"
# Several tables' locks, taken in the order of the keys (sorted): a volatile function is
# evaluated after the ORDER BY, so two writers never take each other's in a circle.
_LOCK_TABLES = (
    "SELECT pg_advisory_xact_lock(%s, k) FROM unnest(%s::int4[]) WITH ORDINALITY AS u(k, n) "
    "ORDER BY n"
)


def table_key(table_id: str) -> int:
    """The table's advisory lock key: a signed 32-bit number from its id."""
    return int.from_bytes(hashlib.sha256(table_id.encode()).digest()[:4], "big", signed=True)


def _failure(exc: BaseException, where: str) -> StoreFailure:
    """A driver's error as the store's own (the referee never sees psycopg's)."""
    if psycopg is not None and isinstance(exc, psycopg.errors.LockNotAvailable):
        # (an OperationalError too, but the server answered: it is there)
        return TableBusy(f"another referee process holds the table: {one_line(exc)}")
    if psycopg is not None and isinstance(exc, psycopg.OperationalError):
        return StoreUnavailable(f"{where}: the database cannot be reached: {one_line(exc)}")
    if psycopg is not None and isinstance(exc, psycopg.errors.UniqueViolation):
        return WriteConflict(f"another writer logged it first: {one_line(exc)}")
    if (
        psycopg is not None
        and isinstance(exc, psycopg.errors.ForeignKeyViolation)
        and exc.diag.table_name in ("events", "quiet_requests")  # not a snapshot's event
    ):
        return TableGone(f"the table was deleted: {one_line(exc)}")
    return StoreFailure(one_line(exc))


Connection = Any  # psycopg.Connection[tuple[Any, ...]] (psycopg is optional)


class PgStore:
    """The log in a PostgreSQL database (``url``: a ``postgresql://`` URL or a libpq
    conninfo). The event loop's reads and single writes go on one connection in autocommit
    mode; the group commit and worker threads' reads on connections of their own."""

    hold_wait: float = HOLD_WAIT  # seconds ``hold`` waits for another holder

    def __init__(self, url: str, *, create: bool = True) -> None:
        """``create``: make the referee's tables in an empty database (False: refuse it, for
        the commands that only read a referee's database)."""
        self.url = url
        self._create = create
        self._where = without_password(url) if "://" in url else "PostgreSQL"
        if psycopg is None:
            raise StoreError(
                f"{self._where}: PostgreSQL needs psycopg: pip install 'tankref[postgres]'"
            )
        self._db: Connection | None = None
        self._attempt: _Connecting | None = None  # a lost connection being made again
        self._writer: PgGroupCommit | None = None
        self._listener: PgListener | None = None
        # Connections for ``hold``, idle between writes, by the event loop that made them
        # (an asyncio connection is used on its own loop only).
        self._held_idle: dict[asyncio.AbstractEventLoop, list[Any]] = {}
        # Names this process's writes in their notifications: it does not hear its own.
        self.origin = secrets.token_hex(8)
        from psycopg.conninfo import conninfo_to_dict

        named = conninfo_to_dict(url)
        self._settings: dict[str, Any] = {"connect_timeout": CONNECT_TIMEOUT} | {
            k: v for k, v in TCP_SETTINGS.items() if k not in named
        }
        try:
            self._prepare()
        except psycopg.OperationalError as exc:
            self.close()
            raise StoreError(f"{self._where}: cannot connect: {one_line(exc)}") from exc
        except psycopg.Error as exc:
            self.close()
            raise StoreError(
                f"{self._where}: cannot use this database for the referee: {one_line(exc)}"
            ) from exc
        except BaseException:
            self.close()
            raise

    @property
    def where(self) -> str:
        return self._where

    def connect(self, *, autocommit: bool = True) -> Connection:
        return psycopg.connect(self.url, autocommit=autocommit, **self._settings)

    def _conn(self) -> Connection:
        """The event loop's connection. A lost one is made again on a thread of its own,
        waited for a moment: the event loop never waits out a server that does not answer
        (StoreUnavailable meanwhile)."""
        db = self._db
        if db is not None and not db.closed and not db.broken:
            return db
        attempt = self._attempt
        if attempt is None:
            attempt = self._attempt = _Connecting(self.connect)
            attempt.done.wait(LOOP_CONNECT_WAIT)
        if not attempt.done.is_set():
            raise StoreUnavailable(f"{self._where}: still connecting to the database")
        self._attempt = None
        if attempt.error is not None:
            raise _failure(attempt.error, self._where) from attempt.error
        self._db = attempt.connection
        return self._db

    def _read(self, read: Callable[[Connection], _T]) -> _T:
        """``read`` on the event loop's connection; once more on a new one if that one had
        been lost meanwhile (the server restarted, an idle connection was cut): a read
        changes nothing, so asking again is safe."""
        for again in (False, True):
            db = self._conn()
            try:
                return read(db)
            except psycopg.OperationalError as exc:
                if again or not db.broken:
                    raise _failure(exc, self._where) from exc
            except psycopg.Error as exc:
                raise _failure(exc, self._where) from exc
        raise AssertionError("unreachable")

    def _prepare(self) -> None:
        """Our schema made (by one process at a time), or checked: another program's tables,
        or a newer schema, are refused and left untouched."""
        db = self._db = self.connect()
        with db.transaction():
            db.execute(_LOCK_TABLE, (LOCK_CLASS, SCHEMA_LOCK))
            names = {
                str(r[0])
                for r in db.execute(
                    "SELECT table_name FROM information_schema.tables "
                    "WHERE table_schema = current_schema()"
                )
            }
            if not names:
                if not self._create:
                    raise StoreError(
                        f"{self._where}: no referee database there (it has no tables yet)"
                    )
                db.execute(_SCHEMA + _CREATIONS)
                db.execute(
                    "INSERT INTO meta (key, value) VALUES ('schema', %s)", (str(SCHEMA_VERSION),)
                )
                return
            if "meta" not in names:
                raise StoreError(
                    f"{self._where}: not a tankref database (it has other tables: "
                    f"{', '.join(sorted(names)[:5])})"
                )
            found = db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
            if found is None or not str(found[0]).isdigit():
                raise StoreError(f"{self._where}: not a tankref database (no schema version)")
            if int(found[0]) > SCHEMA_VERSION:
                raise StoreError(
                    f"{self._where}: written by a newer tankref (schema {found[0]}); "
                    "upgrade tankref"
                )
            if int(found[0]) < 1:
                raise StoreError(f"{self._where}: an unknown schema {found[0]}")
            if int(found[0]) == 1:  # before the shared creation limit: its table added
                db.execute(_CREATIONS)
                db.execute(
                    "UPDATE meta SET value = %s WHERE key = 'schema'", (str(SCHEMA_VERSION),)
                )

    def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        def read(db: Connection) -> list[tuple[Any, ...]]:
            rows: list[tuple[Any, ...]] = db.execute(sql, params).fetchall()
            return rows

        return self._read(read)

    def _write(self, steps: Callable[[Connection], Any], *tables: str) -> Any:
        """``steps`` in one transaction, under the tables' write locks; once more on a new
        connection if the one it began on had been lost before its commit was sent."""
        for again in (False, True):
            db = self._conn()
            committing = False
            try:
                with db.transaction():
                    for table_id in sorted(set(tables)):
                        db.execute(_LOCK_TABLE, (LOCK_CLASS, table_key(table_id)))
                    done = steps(db)
                    committing = True  # the block's end sends COMMIT
                return done
            except psycopg.OperationalError as exc:
                if again or committing or not db.broken:
                    raise _failure(exc, self._where) from exc
            except psycopg.Error as exc:
                raise _failure(exc, self._where) from exc
        raise AssertionError("unreachable")

    def set_busy(self, busy: Callable[[], bool]) -> None:
        """Unused: the group commit here never asks the loop (whatever was queued while the
        last commit was on its way goes in the next one)."""

    def check_readable(self) -> None:
        try:
            self.table_ids()
        except StoreFailure as exc:
            raise StoreError(f"{self._where}: cannot read the tables: {exc}") from exc

    def check_writable(self) -> None:
        """A write can be committed here: not a read-only standby, and ours to write."""
        try:
            db = self._conn()
            if db.execute("SELECT pg_is_in_recovery()").fetchone()[0]:
                raise StoreError(f"{self._where}: a read-only standby; name the primary")
            with db.transaction():
                db.execute(
                    "LOCK TABLE events, snapshots, quiet_requests, table_creations "
                    "IN ROW EXCLUSIVE MODE"
                )
                raise _RolledBack
        except _RolledBack:
            pass
        except psycopg.Error as exc:
            raise StoreError(f"{self._where}: cannot write to it: {one_line(exc)}") from exc

    def close(self) -> None:
        """Every queued write committed (or refused) first, then the connections closed."""
        if self._listener is not None:
            self._listener.close()
            self._listener = None
        if self._writer is not None:
            self._writer.close()
            self._writer = None
        for idle in self._held_idle.values():
            for held in idle:
                _close_now(held)
        self._held_idle.clear()
        if self._db is not None:
            self._db.close()
            self._db = None
        attempt, self._attempt = self._attempt, None
        if attempt is not None and attempt.done.wait(CONNECT_TIMEOUT) and attempt.connection:
            attempt.connection.close()

    # --- tables ----------------------------------------------------------------------------
    def add_table(
        self,
        row: TableRow,
        seat_tokens: dict[str, str] | None = None,
        *,
        demo: bool = False,
        quota: Quota | None = None,
    ) -> None:
        """The table's row, its seats' token hashes and its demo mark in one transaction;
        ``quota``: checked and counted in that transaction too, under the address's lock
        (another process making a table for the same address waits for this commit, then
        counts it), and refused beyond it (``CreationLimited``, nothing written)."""

        def steps(db: Connection) -> None:
            if quota is not None:
                db.execute(_LOCK_TABLE, (ADDRESS_LOCK_CLASS, table_key(quota.address)))
                wait = _creation_wait(db, quota)
                if wait is not None:
                    raise CreationLimited(wait)  # the transaction rolls back: nothing made
                db.execute(
                    "INSERT INTO table_creations (address, made_at) VALUES (%s, %s)",
                    (quota.address, quota.at),
                )
                db.execute(_PRUNE, (quota.window_start,))
            db.execute(
                f"INSERT INTO tables ({_TABLE_COLUMNS}) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)",
                row.params(),
            )
            for player, digest in (seat_tokens or {}).items():
                db.execute(
                    "INSERT INTO seat_tokens (table_id, player, token_sha256) VALUES (%s, %s, %s)",
                    (row.id, player, digest),
                )
            if demo:
                db.execute("INSERT INTO demo_tables (table_id) VALUES (%s)", (row.id,))

        self._write(steps)

    def creation_wait(self, quota: Quota) -> int | None:
        """Seconds until ``quota.address`` may make another table (None: now), as every
        process on this database has counted."""
        return self._read(lambda db: _creation_wait(db, quota))

    def demo_table_ids(self) -> set[str]:
        return {str(r[0]) for r in self._rows("SELECT table_id FROM demo_tables")}

    def delete_table(self, table_id: str) -> int:
        """The table and everything of it, in one transaction (the append-only guard lifted
        inside it alone: no other transaction sees it lifted). How many events it held."""

        def steps(db: Connection) -> int:
            db.execute("ALTER TABLE events DISABLE TRIGGER events_append_only_delete")
            db.execute("DELETE FROM snapshots WHERE table_id = %s", (table_id,))
            events = db.execute("DELETE FROM events WHERE table_id = %s", (table_id,)).rowcount
            for other in ("quiet_requests", "seat_tokens", "demo_tables"):
                db.execute(f"DELETE FROM {other} WHERE table_id = %s", (table_id,))
            db.execute("DELETE FROM tables WHERE id = %s", (table_id,))
            db.execute("ALTER TABLE events ENABLE TRIGGER events_append_only_delete")
            # The other processes drop their copies (delivered at COMMIT, never before).
            db.execute(_NOTIFY, (CHANNEL, f"{self.origin} {table_id} {DELETED}"))
            return int(events)

        deleted: int = self._write(steps, table_id)
        return deleted

    def seat_tokens(self, table_id: str) -> dict[str, str]:
        rows = self._rows(
            "SELECT player, token_sha256 FROM seat_tokens WHERE table_id = %s", (table_id,)
        )
        return {str(r[0]): str(r[1]) for r in rows}

    def tables(self) -> Iterator[TableRow]:
        rows = self._rows(f"SELECT {_TABLE_COLUMNS} FROM tables ORDER BY created_at, id")
        for r in rows:
            yield _table(r)

    def table_ids(self) -> list[str]:
        return [str(r[0]) for r in self._rows("SELECT id FROM tables ORDER BY created_at, id")]

    def table(self, table_id: str) -> TableRow | None:
        found = self._rows(f"SELECT {_TABLE_COLUMNS} FROM tables WHERE id = %s", (table_id,))
        return _table(found[0]) if found else None

    # --- events ----------------------------------------------------------------------------
    def append(self, row: EventRow) -> None:
        """One event, committed before this returns (on the calling thread)."""

        def steps(db: Connection) -> None:
            db.execute(_INSERT_EVENT, _event_params(row))
            db.execute(_NOTIFY, (CHANNEL, f"{self.origin} {row.table_id} {row.seq}"))

        self._write(steps, row.table_id)

    def add_quiet_request(self, table_id: str, request_id: str, sha256: str, seq: int) -> None:
        params = (table_id, request_id, sha256, seq)
        self._write(lambda db: db.execute(_INSERT_QUIET, params), table_id)

    def queue_event(self, row: EventRow) -> asyncio.Future[None]:
        return self._group().write(_INSERT_EVENT, _event_params(row))

    def queue_quiet_request(
        self, table_id: str, request_id: str, sha256: str, seq: int
    ) -> asyncio.Future[None]:
        return self._group().write(_INSERT_QUIET, (table_id, request_id, sha256, seq))

    def add_snapshot(self, snapshot: Snapshot) -> None:
        self._write(lambda db: db.execute(_INSERT_SNAPSHOT, snapshot.params()))

    def queue_snapshot(self, snapshot: Snapshot) -> asyncio.Future[None]:
        return self._group().write(_INSERT_SNAPSHOT, snapshot.params())

    def snapshot_seqs(self, table_id: str) -> list[int]:
        rows = self._rows("SELECT seq FROM snapshots WHERE table_id = %s ORDER BY seq", (table_id,))
        return [int(r[0]) for r in rows]

    def reopen(self, table_id: str, take: Callable[[LoggedSnapshot], Any]) -> Reopened:
        return self._read(lambda db: _read_reopen(db, table_id, take))

    def _group(self) -> PgGroupCommit:
        if self._writer is None:
            self._writer = PgGroupCommit(self.connect, self._where, self.origin)
        return self._writer

    def listen(
        self,
        heard: Callable[[str, int], None],
        reconnected: Callable[[], None],
        deleted: Callable[[str], None],
    ) -> threading.Event | None:
        """Hear other processes' writes (``heard(table_id, seq)``, ``deleted(table_id)``, on
        the listener's thread; ``reconnected()`` after its connection was lost and made
        again: whatever was notified meanwhile was missed). The event is set while it
        listens."""
        if self._listener is None:
            self._listener = PgListener(self.connect, self.origin, heard, reconnected, deleted)
        return self._listener.listening

    @contextlib.asynccontextmanager
    async def hold(self, table_id: str) -> AsyncIterator[PgHeldTable]:
        """The table held (``Store.hold``): its advisory lock taken in a transaction on a
        connection of its own, without blocking the event loop, and the writes queued
        through the hold committed in that transaction (not through the group commit, which
        would wait for this very lock); rolled back, letting the table go, if none was."""
        db, held = await self._taken(table_id)
        reusable = False
        try:
            yield held
        finally:
            try:
                reusable = await held.leave()
            finally:
                idle = self._held_idle.setdefault(asyncio.get_running_loop(), [])
                if reusable and len(idle) < HELD_KEEP:
                    idle.append(db)
                else:
                    await db.close()

    async def _taken(self, table_id: str) -> tuple[Any, PgHeldTable]:
        """A connection of its own holding the table's lock: one kept from an earlier hold,
        or a new one (also when the kept one was lost meanwhile: the server restarted)."""
        reuse = True
        while True:
            db, reused = await self._held_connection(reuse)
            held = PgHeldTable(db, table_id, self.origin, self._where)
            try:
                await held.take()
                return db, held
            except BaseException as exc:
                await db.close()  # awaits nothing: safe while cancelled
                if not (reused and isinstance(exc, StoreUnavailable)):
                    raise
                reuse = False

    async def _held_connection(self, reuse: bool) -> tuple[Any, bool]:
        """A connection for ``hold`` (and whether it was kept from an earlier one)."""
        for loop in [loop for loop in self._held_idle if loop.is_closed()]:
            for stale in self._held_idle.pop(loop):
                _close_now(stale)
        idle = self._held_idle.get(asyncio.get_running_loop(), [])
        while reuse and idle:
            db = idle.pop()
            if not db.closed and not db.broken:
                return db, True
        try:
            db = await psycopg.AsyncConnection.connect(self.url, autocommit=False, **self._settings)
            await db.execute(
                "SELECT set_config('lock_timeout', %s, false), "
                "set_config('idle_in_transaction_session_timeout', %s, false)",
                (f"{round(self.hold_wait * 1000)}ms", f"{HOLD_IDLE}s"),
            )
            await db.commit()
        except psycopg.Error as exc:
            raise _failure(exc, self._where) from exc
        return db, False

    def quiet_requests(self, table_id: str) -> dict[str, tuple[int, str]]:
        rows = self._rows(
            "SELECT request_id, seq, request_sha256 FROM quiet_requests WHERE table_id = %s",
            (table_id,),
        )
        return {str(r[0]): (int(r[1]), str(r[2])) for r in rows}

    def events(self, table_id: str, after: int = 0, limit: int | None = None) -> list[EventRow]:
        sql = f"SELECT {_EVENT_COLUMNS} FROM events WHERE table_id = %s AND seq > %s ORDER BY seq"
        args: tuple[Any, ...] = (table_id, after)
        if limit is not None:
            sql += " LIMIT %s"
            args = (*args, limit)
        return [_event(r) for r in self._rows(sql, args)]

    def entries(self, table_id: str, after: int, limit: int) -> list[str]:
        rows = self._rows(
            "SELECT entry FROM events WHERE table_id = %s AND seq > %s ORDER BY seq LIMIT %s",
            (table_id, after, limit),
        )
        return [str(r[0]) for r in rows]

    def request_digest(self, table_id: str, seq: int) -> str:
        rows = self._rows(
            "SELECT request_sha256 FROM events WHERE table_id = %s AND seq = %s", (table_id, seq)
        )
        return str(rows[0][0])

    def entry_at(self, table_id: str, seq: int) -> str:
        rows = self._rows(
            "SELECT entry FROM events WHERE table_id = %s AND seq = %s", (table_id, seq)
        )
        return str(rows[0][0])

    def last_entry(self, table_id: str) -> tuple[int, str] | None:
        rows = self._rows(
            "SELECT seq, entry FROM events WHERE table_id = %s ORDER BY seq DESC LIMIT 1",
            (table_id,),
        )
        return (int(rows[0][0]), str(rows[0][1])) if rows else None

    def last_seq(self, table_id: str) -> int:
        rows = self._rows("SELECT max(seq) FROM events WHERE table_id = %s", (table_id,))
        return int(rows[0][0] or 0)

    # --- off the event loop: a connection of their own, one snapshot of the database ----------
    def read_log(
        self, table_id: str, upto: int, *, after: int = 0
    ) -> tuple[TableRow | None, list[EventRow]]:
        try:
            with self.connect(autocommit=False) as db:
                db.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
                found = db.execute(
                    f"SELECT {_TABLE_COLUMNS} FROM tables WHERE id = %s", (table_id,)
                ).fetchone()
                events = db.execute(
                    f"SELECT {_EVENT_COLUMNS} FROM events "
                    "WHERE table_id = %s AND seq > %s AND seq <= %s ORDER BY seq",
                    (table_id, after, upto),
                ).fetchall()
                db.rollback()
        except psycopg.Error as exc:
            raise _failure(exc, self._where) from exc
        return (None if found is None else _table(found)), [_event(e) for e in events]

    def read_reopen(self, table_id: str, take: Callable[[LoggedSnapshot], Any]) -> Reopened:
        try:
            with self.connect() as db:
                return _read_reopen(db, table_id, take)
        except psycopg.Error as exc:
            raise _failure(exc, self._where) from exc


_T = TypeVar("_T")


class _Connecting:
    """A connection being made on a thread of its own (``PgStore._conn``)."""

    def __init__(self, connect: Callable[[], Connection]) -> None:
        self.done = threading.Event()
        self.connection: Connection | None = None
        self.error: Exception | None = None
        threading.Thread(target=self._run, args=(connect,), daemon=True).start()

    def _run(self, connect: Callable[[], Connection]) -> None:
        try:
            self.connection = connect()
        except Exception as exc:
            self.error = exc
        finally:
            self.done.set()


def _creation_wait(db: Connection, quota: Quota) -> int | None:
    made = db.execute(_MADE, (quota.address, quota.window_start, quota.per_hour)).fetchall()
    return quota.wait([float(r[0]) for r in made])


class _RolledBack(Exception):
    """Leaves a transaction that was only a check, rolled back."""


def _read_reopen(db: Connection, table_id: str, take: Callable[[LoggedSnapshot], Any]) -> Reopened:
    """As SQLite's ``_read_reopen``: snapshots offered newest first, then what follows."""
    with db.transaction():
        db.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
        found = db.execute(
            f"SELECT {_TABLE_COLUMNS} FROM tables WHERE id = %s", (table_id,)
        ).fetchone()
        taken: Any = None
        after = 0
        offered = db.execute(
            "SELECT s.table_id, s.seq, s.version, s.state, s.timeline, s.head_sha256, "
            "e.state_sha256, e.entry FROM snapshots s JOIN events e "
            "ON e.table_id = s.table_id AND e.seq = s.seq "
            "WHERE s.table_id = %s ORDER BY s.seq DESC",
            (table_id,),
        )
        for r in offered:
            taken = take(LoggedSnapshot(Snapshot(*r[:6]), r[6], r[7]))
            if taken is not None:
                after = int(r[1])
                break
        requests: dict[str, int] = {
            str(r[0]): int(r[1])
            for r in db.execute(
                "SELECT request_id, seq FROM events "
                "WHERE table_id = %s AND request_id IS NOT NULL AND seq <= %s",
                (table_id, after),
            )
        }
        events = db.execute(
            f"SELECT {_EVENT_COLUMNS} FROM events WHERE table_id = %s AND seq > %s ORDER BY seq",
            (table_id, after),
        ).fetchall()
    return Reopened(
        None if found is None else _table(found),
        taken,
        after,
        [_event(e) for e in events],
        requests,
    )


class PgGroupCommit:
    """The referee's writes committed in groups by one thread on its own connection.

    Whatever was queued while the last commit was on its way goes in the next one: one
    transaction, the tables' advisory locks taken in a fixed order (two processes never wait
    on each other in a circle), the whole transaction sent in one pipeline. A write the
    database refuses fails alone: the group is rolled back and each write committed on its
    own. A lost connection is made again and the group sent once more; lost again, the whole
    group fails with ``StoreUnavailable`` (none of it is acknowledged; whether the commit
    landed is found by the next write, as a conflict) and the next group connects again."""

    MAX_GROUP = 256

    def __init__(self, connect: Callable[[], Connection], where: str, origin: str = "") -> None:
        self._connect = connect
        self.where = where
        self.origin = origin
        self._db: Connection | None = None
        self._queue: queue.SimpleQueue[_Write | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name="tankref-pg-writer", daemon=True)
        self._thread.start()

    def write(self, sql: str, params: Sequence[Any]) -> asyncio.Future[None]:
        item = _Write(sql, params, asyncio.get_running_loop())
        self._queue.put(item)
        return item.done

    def close(self) -> None:
        """Commits what is queued, then stops the thread."""
        self._queue.put(None)
        self._thread.join()

    def _run(self) -> None:
        try:
            stopping = False
            while not stopping:
                first = self._queue.get()
                if first is None:
                    break
                group = [first]
                while len(group) < self.MAX_GROUP:
                    try:
                        more = self._queue.get_nowait()
                    except queue.Empty:
                        break
                    if more is None:
                        stopping = True
                        break
                    group.append(more)
                _settle(group, self._commit(group))
        finally:
            if self._db is not None:
                self._db.close()

    def _commit(self, group: list[_Write], *, again: bool = True) -> list[BaseException | None]:
        """Each write's outcome (None: committed).

        The whole transaction goes in one pipeline, one round trip: the locks, the rows and
        the notifications sent together, the results read once. On this autocommit
        connection, without BEGIN, what a pipeline sends before its Sync (its end) is one
        transaction, committed at the Sync, or rolled back whole if a statement is refused
        (the rest then skipped): PostgreSQL's protocol, "Pipelining". So the locks are held
        until the commit, as in BEGIN ... COMMIT, without the two statements' cost. A lost
        connection (the server restarted since the last group) is made again and the group
        sent once more. Whether the lost one had committed is not known, and need not be:
        its events' keys are in the log then, so the second try is refused as a conflict
        (nothing written twice, nothing notified twice) and the referee finds its write
        in the log, as after any lost race."""
        try:
            if self._db is None or self._db.closed or self._db.broken:
                self._db = self._connect()
            db = self._db
            try:
                with db.pipeline(), db.cursor() as cursor:
                    # Every write names its table first; the locks in one statement, in order.
                    keys = sorted({table_key(str(item.params[0])) for item in group})
                    cursor.execute(_LOCK_TABLES, (LOCK_CLASS, keys))
                    for sql, params in _runs(group):
                        cursor.executemany(sql, params)
                    heard = _notices(group, self.origin)
                    if heard:  # delivered by the server at COMMIT, never before it
                        cursor.executemany(_NOTIFY, heard)
            except psycopg.Error:
                if not db.broken and db.info.transaction_status != TransactionStatus.IDLE:
                    db.execute("ROLLBACK")  # (rolled back at the Sync already: never left open)
                raise
            return [None] * len(group)
        except psycopg.OperationalError as exc:
            if again:
                return self._commit(group, again=False)
            return [_failure(exc, self.where)] * len(group)
        except psycopg.Error as exc:
            if len(group) == 1:
                return [_failure(exc, self.where)]
        # One of them is refused: each on its own, so only it fails; a snapshot whose event
        # was refused is not saved either (that seq is another writer's: its event says
        # nothing of this state).
        outcomes: list[BaseException | None] = []
        refused: set[tuple[Any, Any]] = set()
        for item in group:
            at = (item.params[0], item.params[1])
            if item.sql == _INSERT_SNAPSHOT and at in refused:
                outcomes.append(WriteConflict(f"its event {at[1]} was not saved"))
                continue
            outcome = self._commit([item])[0]
            if outcome is not None and item.sql == _INSERT_EVENT:
                refused.add(at)
            outcomes.append(outcome)
        return outcomes


def _notices(group: list[_Write], origin: str) -> list[tuple[str, str]]:
    """One notification per table the group logs events (or spends quiet request ids: a
    request that changed nothing must not apply later elsewhere) of, with its last seq."""
    last: dict[str, int] = {}
    for item in group:
        if item.sql in (_INSERT_EVENT, _INSERT_QUIET):
            table_id = str(item.params[0])
            seq = int(item.params[1 if item.sql == _INSERT_EVENT else 3])
            last[table_id] = max(seq, last.get(table_id, 0))
    return [(CHANNEL, f"{origin} {t} {seq}") for t, seq in last.items()]


def _close_now(db: Any) -> None:
    """An asyncio connection closed from code that cannot await (``PgStore.close``): its
    ``close()`` awaits nothing but a pool's, which these have none of."""
    db.pgconn.finish()


class PgHeldTable:
    """A table ``PgStore.hold`` holds: the writes queued through it in one turn of the event
    loop go in the hold's transaction, which took the table's lock first, committed
    together with their notification; each future done once that commit returned (or with
    why it failed: the whole transaction is rolled back, nothing of it written)."""

    def __init__(self, db: Any, table_id: str, origin: str, where: str) -> None:
        self._db = db
        self.table_id = table_id
        self.origin = origin
        self.where = where
        self._queued: list[_Write] = []
        self._committing: asyncio.Future[None] | None = None

    async def take(self) -> None:
        """Waits for the table's lock: after any other holder, and any group commit holding
        the table, has committed (its events are then in the log for whoever reads it)."""
        try:
            await self._db.execute(_LOCK_TABLE, (LOCK_CLASS, table_key(self.table_id)))
        except psycopg.Error as exc:
            raise _failure(exc, self.where) from exc

    def queue_event(self, row: EventRow) -> asyncio.Future[None]:
        return self._queue(_INSERT_EVENT, _event_params(row))

    def queue_quiet_request(
        self, table_id: str, request_id: str, sha256: str, seq: int
    ) -> asyncio.Future[None]:
        return self._queue(_INSERT_QUIET, (table_id, request_id, sha256, seq))

    def queue_snapshot(self, snapshot: Snapshot) -> asyncio.Future[None]:
        return self._queue(_INSERT_SNAPSHOT, snapshot.params())

    def _queue(self, sql: str, params: Sequence[Any]) -> asyncio.Future[None]:
        item = _Write(sql, params, asyncio.get_running_loop())
        self._queued.append(item)
        if self._committing is None or self._committing.done():
            # Starts after this turn: what the turn queues next (an event's snapshot) joins.
            self._committing = asyncio.ensure_future(self._commit())
        return item.done

    async def _commit(self) -> None:
        while self._queued:
            group, self._queued = self._queued, []
            outcome = await self._outcome(group)
            _resolve([(item, outcome) for item in group])

    async def _outcome(self, group: list[_Write]) -> BaseException | None:
        db = self._db
        try:
            # The lock again: a no-op while held, and taken first in a later transaction.
            await db.execute(_LOCK_TABLE, (LOCK_CLASS, table_key(self.table_id)))
            async with db.cursor() as cursor:
                for sql, params in _runs(group):
                    await cursor.executemany(sql, params)
                heard = _notices(group, self.origin)
                if heard:  # delivered by the server at COMMIT, never before it
                    await cursor.executemany(_NOTIFY, heard)
            await db.commit()
        except psycopg.Error as exc:
            # Lost while committing, the outcome is not known: unacknowledged, and a retry
            # finds out from the log (as the group commit's).
            if not db.broken:
                with contextlib.suppress(psycopg.Error):
                    await db.rollback()
            return _failure(exc, self.where)
        return None

    async def leave(self) -> bool:
        """The hold ends: a commit under way finished first, an open transaction rolled
        back (letting the table go). Whether the connection can serve another hold."""
        if self._committing is not None and not self._committing.done():
            await asyncio.shield(self._committing)
        db = self._db
        if db.closed or db.broken:
            return False
        status = db.info.transaction_status
        if status in (TransactionStatus.INTRANS, TransactionStatus.INERROR):
            try:
                await db.rollback()
            except psycopg.Error:
                return False
            return True
        return bool(status == TransactionStatus.IDLE)


class PgListener:
    """Other processes' writes heard on a connection of its own (``LISTEN``), on a thread
    of its own: the event loop never waits on it. A lost connection is made again (every
    ``RETRY`` seconds while the server is away), then ``reconnected`` is called: what was
    notified meanwhile is gone, so whoever listens reads the log again."""

    RETRY = 0.5
    WAKE = 0.5  # seconds between looks at whether to stop

    def __init__(
        self,
        connect: Callable[[], Connection],
        origin: str,
        heard: Callable[[str, int], None],
        reconnected: Callable[[], None],
        deleted: Callable[[str], None],
    ) -> None:
        self._connect = connect
        self.origin = origin
        self._heard = heard
        self._reconnected = reconnected
        self._deleted = deleted
        self.listening = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="tankref-pg-listener", daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(self.WAKE + CONNECT_TIMEOUT + 1)

    def _run(self) -> None:
        lost = False
        while not self._stop.is_set():
            try:
                with self._connect() as db:
                    db.execute(f"LISTEN {CHANNEL}")
                    self.listening.set()
                    if lost:
                        self._reconnected()
                    while not self._stop.is_set():
                        for notice in db.notifies(timeout=self.WAKE):
                            self._hear(notice.payload)
            except Exception:  # the server went away (or a callback failed): listen again
                self.listening.clear()
                lost = True
                self._stop.wait(self.RETRY)

    def _hear(self, payload: str) -> None:
        origin, table_id, seq = payload.split(" ")
        if origin == self.origin:
            return
        if seq == DELETED:
            self._deleted(table_id)
        else:
            self._heard(table_id, int(seq))


def _runs(group: list[_Write]) -> list[tuple[str, list[Sequence[Any]]]]:
    """The group in order, consecutive writes of one statement together (one executemany)."""
    runs: list[tuple[str, list[Sequence[Any]]]] = []
    for item in group:
        if runs and runs[-1][0] == item.sql:
            runs[-1][1].append(item.params)
        else:
            runs.append((item.sql, [item.params]))
    return runs
