"""The one interface the referee keeps its log through, and how a database is chosen.

Two stores implement it: ``store.EventStore`` (SQLite, a file: the zero-set-up default) and
``pgstore.PgStore`` (PostgreSQL, for a referee that neither player hosts, issue 19). Both
keep the same guarantees: an append-only log enforced by the database itself, ``(table_id,
seq)`` unique, request ids unique per table, every write committed before it is answered.

``--db`` (or ``TANKREF_DB``) names the database: a ``postgresql://`` or ``postgres://`` URL
means PostgreSQL; anything else is an SQLite file path, as it always was.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any, Protocol

from tankref.server.dburl import DB_VARIABLE, chosen_db, is_postgres, without_password
from tankref.server.store import (
    CreationLimited,
    EventRow,
    EventStore,
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
)

__all__ = [
    "DB_VARIABLE",
    "CreationLimited",
    "Quota",
    "Store",
    "StoreError",
    "StoreFailure",
    "StoreUnavailable",
    "TableBusy",
    "TableGone",
    "TableWriter",
    "WriteConflict",
    "chosen_db",
    "is_postgres",
    "open_store",
    "without_password",
]


class TableWriter(Protocol):
    """Where the referee queues a write: the store's group commit, or a table ``hold``s.
    Each future is done once a commit that holds the write is durable, or holds why it was
    refused (``WriteConflict``: another process logged that seq first; ``TableGone``: the
    table was deleted meanwhile)."""

    def queue_event(self, row: EventRow) -> asyncio.Future[None]: ...
    def queue_quiet_request(
        self, table_id: str, request_id: str, sha256: str, seq: int
    ) -> asyncio.Future[None]: ...
    def queue_snapshot(self, snapshot: Snapshot) -> asyncio.Future[None]: ...


class Store(TableWriter, Protocol):
    """What the referee, the history slider, luck and the routes ask of the log.

    Every method but ``read_log`` and ``read_reopen`` runs on the event loop's thread (one
    connection); those two are for worker threads and read on a connection of their own.
    ``queue_*`` hand a write to the store's group commit: the future is done once a commit
    that holds it is durable, or holds why it was refused."""

    @property
    def where(self) -> str:
        """The database as a person names it (a file path, or a URL without its password)."""
        ...

    def set_busy(self, busy: Callable[[], bool]) -> None:
        """``busy()`` (asked on the event loop): whether a request is under way that may yet
        queue a write; a store whose commits wait for such writes asks it first."""

    def check_readable(self) -> None: ...
    def check_writable(self) -> None: ...
    def close(self) -> None: ...

    # tables
    def add_table(
        self,
        row: TableRow,
        seat_tokens: dict[str, str] | None = None,
        *,
        demo: bool = False,
        quota: Quota | None = None,
    ) -> None:
        """The table, in one transaction. ``quota`` (the hosted profile's creation limit):
        checked and counted with it, atomically, for every process on the database;
        beyond it ``CreationLimited`` is raised and nothing is written."""
        ...

    def creation_wait(self, quota: Quota) -> int | None:
        """Seconds until ``quota.address`` may make another table (None: now); a read
        only, nothing counted."""
        ...

    def demo_table_ids(self) -> set[str]: ...
    def delete_table(self, table_id: str) -> int: ...
    def seat_tokens(self, table_id: str) -> dict[str, str]: ...
    def tables(self) -> Iterator[TableRow]: ...
    def table_ids(self) -> list[str]: ...
    def table(self, table_id: str) -> TableRow | None: ...

    # events
    def append(self, row: EventRow) -> None: ...
    def add_quiet_request(self, table_id: str, request_id: str, sha256: str, seq: int) -> None: ...
    def add_snapshot(self, snapshot: Snapshot) -> None: ...
    def snapshot_seqs(self, table_id: str) -> list[int]: ...
    def reopen(self, table_id: str, take: Callable[[LoggedSnapshot], Any]) -> Reopened: ...
    def quiet_requests(self, table_id: str) -> dict[str, tuple[int, str]]: ...
    def events(self, table_id: str, after: int = 0, limit: int | None = None) -> list[EventRow]: ...
    def entries(self, table_id: str, after: int, limit: int) -> list[str]: ...
    def request_digest(self, table_id: str, seq: int) -> str: ...
    def entry_at(self, table_id: str, seq: int) -> str: ...
    def last_entry(self, table_id: str) -> tuple[int, str] | None: ...
    def last_seq(self, table_id: str) -> int:
        """The table's last event's seq (0: none yet): one index step."""
        ...

    # off the event loop, on a connection of their own
    def read_log(
        self, table_id: str, upto: int, *, after: int = 0
    ) -> tuple[TableRow | None, list[EventRow]]: ...
    def read_reopen(self, table_id: str, take: Callable[[LoggedSnapshot], Any]) -> Reopened: ...

    # several processes on one database (PostgreSQL): each hears the others' writes
    def listen(
        self,
        heard: Callable[[str, int], None],
        reconnected: Callable[[], None],
        deleted: Callable[[str], None],
    ) -> threading.Event | None:
        """Calls ``heard(table_id, seq)`` (on a thread of its own) for each commit another
        process makes to a table's log, ``deleted(table_id)`` for each table another
        process deletes, and ``reconnected()`` once it listens again after losing its
        connection (notifications meanwhile were missed). The event is set while it
        listens; None: nothing else writes this database."""
        ...

    def hold(self, table_id: str) -> AbstractAsyncContextManager[TableWriter]:
        """The table held for one write, by one process at a time across every process on
        the database, from entering (which waits for any other holder or committing writer
        of the table) until the write queued through the ``TableWriter`` it gives is
        committed or the block is left: whatever the log says on entering stays true until
        then. For a write that lost its seq to another process's: caught up inside the
        hold, it cannot lose again. Raises ``StoreUnavailable`` as any write does, and
        ``TableBusy`` when another holder keeps the table for far longer than a write
        takes."""
        ...


def open_store(db: str | Path, *, create: bool = True) -> Store:
    """The store ``db`` names: a PostgreSQL URL, or an SQLite file path. ``create=False``:
    an empty PostgreSQL database is refused rather than given the referee's tables (the
    commands that only read; they check an SQLite file is there themselves).

    Raises StoreError (one line, never the password) when it cannot be used."""
    if is_postgres(db):
        from tankref.server.pgstore import PgStore  # psycopg only when it is asked for

        return PgStore(str(db), create=create)
    return EventStore(Path(db).expanduser() if isinstance(db, str) else db)
