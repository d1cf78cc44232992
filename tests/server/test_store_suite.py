"""One store test suite, run against both stores (issue 19): SQLite and PostgreSQL keep the
same guarantees. The log is append-only in the database itself (a raw UPDATE or DELETE is
refused), ``(table_id, seq)`` is unique, a request id is unique per table, what was committed
reads back (after re-opening too), snapshots are kept and offered newest first, and a
database that is not ours, or of a newer schema, is refused untouched. The PostgreSQL runs
need ``TANKREF_TEST_PG`` (skipped without it, saying so)."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pgkit import fresh_database, raw
from tankref.server.store import (
    CreationLimited,
    EventRow,
    Quota,
    Snapshot,
    StoreError,
    TableRow,
    WriteConflict,
)
from tankref.server.stores import Store, open_store


@dataclass
class Kind:
    """One store under test: how to open it again on the same database, and a raw
    connection to it (what a person with the database's own tool can do)."""

    name: str
    db: Path | str
    refused: tuple[type[BaseException], ...]  # what a duplicate or a raw change raises

    def open(self) -> Store:
        return open_store(self.db)

    def execute(self, sql: str) -> int:
        """``sql`` run and committed on a connection of its own; the rows it changed."""
        if isinstance(self.db, Path):
            db = sqlite3.connect(self.db)
            try:
                changed = db.execute(sql).rowcount
                db.commit()
                return changed
            finally:
                db.close()
        with raw(self.db) as db:
            return int(db.execute(sql).rowcount)


@pytest.fixture(params=["sqlite", "postgres"])
def kind(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Kind]:
    if request.param == "sqlite":
        yield Kind("sqlite", tmp_path / "s.sqlite3", (sqlite3.DatabaseError,))
        return
    import psycopg

    with fresh_database() as url:
        yield Kind("postgres", url, (psycopg.Error, WriteConflict))


@pytest.fixture
def store(kind: Kind) -> Iterator[Store]:
    opened = kind.open()
    yield opened
    opened.close()


def table_row(table_id: str = "t1") -> TableRow:
    return TableRow(
        id=table_id,
        ruleset="ttt",
        created_at=f"2026-01-01T00:00:00.000+00:00 {table_id}",
        token_sha256="0" * 64,
        setup={"players": ["Red", "Blue"]},
        dice={"source": "table", "seed": "s"},
        commitment="c" * 64,
        seed_chosen=True,
        version="test",
    )


def event(seq: int, table_id: str = "t1", request_id: str | None = None) -> EventRow:
    return EventRow(
        table_id=table_id,
        seq=seq,
        request_id=request_id if request_id is not None else f"req-{seq}",
        request_sha256=f"{seq:064d}",
        action={"kind": "wait", "tank_id": "R1"},
        dice={"faces": {"white": [seq % 6 + 1]}},
        entry=f'{{"seq":{seq},"kind":"action"}}',
        result_sha256="r" * 64,
        state_sha256="s" * 64 if seq % 2 == 0 else None,
        version="test",
        created_at="2026-01-01T00:00:01.000+00:00",
    )


def queued(*writes: Callable[[], asyncio.Future[None]]) -> list[BaseException | None]:
    """Each write queued in one turn of an event loop (one group commit), and its outcome."""

    async def run() -> list[BaseException | None]:
        futures = [write() for write in writes]
        outcomes = await asyncio.gather(*futures, return_exceptions=True)
        return [o if isinstance(o, BaseException) else None for o in outcomes]

    return asyncio.run(run())


def test_a_raw_update_or_delete_of_an_event_is_refused_by_the_database(
    kind: Kind, store: Store
) -> None:
    """Append-only in the database itself, not only in the referee's code."""
    store.add_table(table_row())
    store.append(event(1))
    store.append(event(2))
    store.close()
    with pytest.raises(kind.refused, match="append-only"):
        kind.execute("UPDATE events SET entry = '{}' WHERE seq = 1")
    with pytest.raises(kind.refused, match="append-only"):
        kind.execute("DELETE FROM events")
    again = kind.open()
    try:
        assert [e.entry for e in again.events("t1")] == [event(1).entry, event(2).entry]
    finally:
        again.close()


def test_seq_is_unique_per_table(kind: Kind, store: Store) -> None:
    """A second event at a table's seq is refused, whether written alone or queued with
    others (which are committed all the same); another table has its own seqs."""
    store.add_table(table_row("t1"))
    store.add_table(table_row("t2"))
    store.append(event(1))
    with pytest.raises(kind.refused):
        store.append(event(1, request_id="other"))
    outcomes = queued(
        lambda: store.queue_event(event(2)),
        lambda: store.queue_event(event(2, request_id="other")),
        lambda: store.queue_event(event(1, "t2")),
    )
    assert outcomes[0] is None and outcomes[2] is None
    assert isinstance(outcomes[1], kind.refused)
    assert [e.request_id for e in store.events("t1")] == ["req-1", "req-2"]
    assert [e.seq for e in store.events("t2")] == [1]


def test_a_request_id_is_unique_per_table(kind: Kind, store: Store) -> None:
    """The same request id twice on one table is refused by the database (a quiet request's
    too); on another table it is another request."""
    store.add_table(table_row("t1"))
    store.add_table(table_row("t2"))
    store.append(event(1, request_id="shot"))
    with pytest.raises(kind.refused):
        store.append(event(2, request_id="shot"))
    store.append(event(1, "t2", request_id="shot"))
    store.add_quiet_request("t1", "drift", "d" * 64, 1)
    with pytest.raises(kind.refused):
        store.add_quiet_request("t1", "drift", "e" * 64, 1)
    assert [e.seq for e in store.events("t1")] == [1]
    assert store.quiet_requests("t1") == {"drift": (1, "d" * 64)}


def test_what_was_committed_reads_back_after_reopening(kind: Kind, store: Store) -> None:
    """Every row the referee writes reads back the same, from a new store on the same
    database, by every read the referee makes."""
    store.add_table(table_row("t1"), {"Red": "a" * 64, "Blue": "b" * 64}, demo=True)
    store.add_table(table_row("t2"))
    assert queued(*(lambda n=n: store.queue_event(event(n)) for n in range(1, 6))) == [None] * 5
    assert queued(lambda: store.queue_quiet_request("t1", "q", "q" * 64, 5)) == [None]
    store.close()
    again = kind.open()
    try:
        assert again.table_ids() == ["t1", "t2"]
        assert list(again.tables()) == [table_row("t1"), table_row("t2")]
        assert again.table("t1") == table_row("t1")
        assert again.table("nope") is None
        assert again.seat_tokens("t1") == {"Red": "a" * 64, "Blue": "b" * 64}
        assert again.demo_table_ids() == {"t1"}
        assert again.events("t1") == [event(n) for n in range(1, 6)]
        assert again.events("t1", after=2, limit=2) == [event(3), event(4)]
        assert again.entries("t1", 3, 10) == [event(4).entry, event(5).entry]
        assert again.entry_at("t1", 2) == event(2).entry
        assert again.request_digest("t1", 3) == event(3).request_sha256
        assert again.last_entry("t1") == (5, event(5).entry)
        assert again.last_entry("t2") is None
        assert again.last_seq("t1") == 5 and again.last_seq("t2") == 0  # a read's freshness check
        assert again.quiet_requests("t1") == {"q": (5, "q" * 64)}
        row, events = again.read_log("t1", upto=4, after=1)
        assert row == table_row("t1") and events == [event(2), event(3), event(4)]
    finally:
        again.close()


def test_snapshots_are_kept_and_offered_newest_first(kind: Kind, store: Store) -> None:
    """A snapshot rides with its event's commit; re-opening is offered the newest first, gets
    the events after the one it takes and the request ids up to it. A snapshot ahead of the
    log is refused (it is never the record)."""
    store.add_table(table_row())
    for n in range(1, 7):
        store.append(event(n))
    first = Snapshot("t1", 2, "test", '{"at":2}', "{}", "h2")
    newest = Snapshot("t1", 4, "test", '{"at":4}', "{}", "h4")
    store.add_snapshot(first)
    assert queued(lambda: store.queue_snapshot(newest)) == [None]
    assert store.snapshot_seqs("t1") == [2, 4]
    lost = queued(lambda: store.queue_snapshot(Snapshot("t1", 9, "test", "{}", "{}", "h9")))
    assert lost[0] is not None
    offered: list[int] = []

    def take_older(logged: Any) -> Any:
        offered.append(logged.snapshot.seq)
        return logged.snapshot if logged.snapshot.seq == 2 else None

    for read in (store.reopen, store.read_reopen):
        offered.clear()
        reopened = read("t1", take_older)
        assert offered == [4, 2]
        assert reopened.snapshot == first and reopened.after == 2
        assert [e.seq for e in reopened.events] == [3, 4, 5, 6]
        assert reopened.requests == {"req-1": 1, "req-2": 2}
        assert reopened.row == table_row()
    logged = store.reopen("t1", lambda found: found).snapshot
    assert logged.state_sha256 == event(4).state_sha256 and logged.entry == event(4).entry


def test_deleting_a_table_removes_it_and_keeps_the_guard(kind: Kind, store: Store) -> None:
    """Its owner's delete takes the table with its log, seats and snapshots; the other
    tables' logs stay append-only."""
    store.add_table(table_row("t1"), {"Red": "a" * 64}, demo=True)
    store.add_table(table_row("t2"))
    for n in range(1, 4):
        store.append(event(n))
        store.append(event(n, "t2"))
    store.add_snapshot(Snapshot("t1", 2, "test", "{}", "{}", "h"))
    assert store.delete_table("t1") == 3
    assert store.table("t1") is None and store.events("t1") == []
    assert store.demo_table_ids() == set() and store.seat_tokens("t1") == {}
    store.close()
    with pytest.raises(kind.refused, match="append-only"):
        kind.execute("DELETE FROM events WHERE table_id = 't2'")


def test_a_newer_schema_is_refused_untouched(kind: Kind, store: Store) -> None:
    store.close()
    kind.execute("UPDATE meta SET value = '99' WHERE key = 'schema'")
    with pytest.raises(StoreError, match="newer tankref"):
        kind.open()


def test_another_programs_database_is_refused_untouched(kind: Kind) -> None:
    kind.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY, total INTEGER)")
    with pytest.raises(StoreError, match="not a tankref database"):
        kind.open()
    assert kind.execute("INSERT INTO invoices (id, total) VALUES (1, 2)") == 1


HOUR = 3600
T = 1_800_000_000.0  # a time in 2027, in seconds since the epoch (the referee's clock)


def per_hour(address: str, at: float, limit: int = 2) -> Quota:
    return Quota(address, limit, at)


def test_the_creation_limit_counts_tables_made_and_says_when_to_come_back(
    kind: Kind, store: Store
) -> None:
    """Two tables an hour per address: the third within the hour is refused with the seconds
    until the first leaves the hour, and nothing is written; asking is not counted, nor is a
    creation the database refuses; another address has its own count; an hour after a
    creation it no longer counts."""
    store.add_table(table_row("a1"), quota=per_hour("a", T))
    store.add_table(table_row("a2"), quota=per_hour("a", T + 10))
    assert store.creation_wait(per_hour("a", T + 20)) == HOUR - 20
    with pytest.raises(CreationLimited) as over:
        store.add_table(table_row("a3"), {"Red": "r" * 64}, quota=per_hour("a", T + 20))
    assert over.value.retry_after == HOUR - 20
    assert store.table("a3") is None and store.seat_tokens("a3") == {}
    assert store.creation_wait(per_hour("a", T + 20, limit=3)) is None  # a higher limit: room

    for _ in range(3):  # asked, not made: nothing counted
        assert store.creation_wait(per_hour("b", T)) is None
    with pytest.raises(kind.refused):  # a1 exists: the database refuses the row
        store.add_table(table_row("a1"), quota=per_hour("b", T))
    store.add_table(table_row("b1"), quota=per_hour("b", T))
    store.add_table(table_row("b2"), quota=per_hour("b", T + 1))
    with pytest.raises(CreationLimited):
        store.add_table(table_row("b3"), quota=per_hour("b", T + 2))

    # Sent when Retry-After said, it is made: the first creation has just left the hour.
    assert store.creation_wait(per_hour("a", T + HOUR - 1)) == 1
    assert store.creation_wait(per_hour("a", T + HOUR - 0.5)) == 1  # whole seconds, up
    store.add_table(table_row("a4"), quota=per_hour("a", T + HOUR))
    assert store.creation_wait(per_hour("a", T + HOUR)) == 10  # now the second must leave
    # A limit lowered since (a restart with a smaller one): the wait is until enough have
    # left for one more, not until the oldest has.
    assert store.creation_wait(per_hour("a", T + HOUR, limit=1)) == HOUR
    assert store.table_ids() == ["a1", "a2", "a4", "b1", "b2"]


def test_the_creation_count_is_the_databases_on_postgresql_the_processs_on_sqlite(
    kind: Kind, store: Store
) -> None:
    """PostgreSQL keeps the count in the database: another store on it (another worker, or
    the referee started again) counts what this one made. SQLite keeps it in the one
    referee process's memory, as before: a restart starts it afresh."""
    store.add_table(table_row("a1"), quota=per_hour("a", T, limit=1))
    other = kind.open()
    try:
        waits = other.creation_wait(per_hour("a", T + 1, limit=1))
        if kind.name == "postgres":
            assert waits == HOUR - 1
            with pytest.raises(CreationLimited):
                other.add_table(table_row("a2"), quota=per_hour("a", T + 1, limit=1))
        else:
            assert waits is None
    finally:
        other.close()


# SQLite is one referee process: one event loop makes every table, so no race to run.
@pytest.mark.parametrize("kind", ["postgres"], indirect=True)
def test_workers_racing_for_the_last_table_allowed_make_no_more_than_the_limit(
    kind: Kind,
) -> None:
    """Four stores on one PostgreSQL database (four workers), each trying three tables for
    one address at the same moment, limit 3: exactly three are made, the rest refused."""
    stores = [kind.open() for _ in range(4)]
    start = threading.Barrier(len(stores))
    made: list[str] = []
    refused: list[int] = []

    def make(n: int, own: Store) -> None:
        start.wait()
        for k in range(3):
            table_id = f"w{n}-{k}"
            try:
                own.add_table(table_row(table_id), quota=per_hour("a", T + n, limit=3))
                made.append(table_id)
            except CreationLimited as over:
                refused.append(over.retry_after)

    try:
        threads = [threading.Thread(target=make, args=(n, s)) for n, s in enumerate(stores)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        assert len(made) == 3 and len(refused) == 9
        assert sorted(stores[0].table_ids()) == sorted(made)
        assert all(HOUR - 3 <= wait <= HOUR for wait in refused)
    finally:
        for own in stores:
            own.close()


# SQLite keeps the count in memory: its file's schema is unchanged.
@pytest.mark.parametrize("kind", ["postgres"], indirect=True)
def test_a_schema_1_postgresql_database_gets_the_creation_count(kind: Kind, store: Store) -> None:
    """A database made before the shared creation limit (schema 1) is given its table when
    a referee opens it, its tables and logs untouched."""
    store.add_table(table_row("t1"))
    store.append(event(1))
    store.close()
    kind.execute("DROP TABLE table_creations")
    kind.execute("UPDATE meta SET value = '1' WHERE key = 'schema'")
    again = kind.open()
    try:
        assert again.events("t1") == [event(1)]
        again.add_table(table_row("t2"), quota=per_hour("a", T, limit=1))
        assert again.creation_wait(per_hour("a", T, limit=1)) == HOUR
    finally:
        again.close()
    assert kind.execute("UPDATE meta SET value = value WHERE key = 'schema' AND value = '2'") == 1


@pytest.mark.parametrize("kind", ["postgres"], indirect=True)
def test_creations_that_left_the_hour_are_pruned(kind: Kind, store: Store) -> None:
    """The database keeps only the last hour's creations: making a table prunes the older
    ones, whichever address made them."""
    store.add_table(table_row("a1"), quota=per_hour("a", T))
    store.add_table(table_row("b1"), quota=per_hour("b", T + 10))
    store.add_table(table_row("c1"), quota=per_hour("c", T + HOUR + 10))
    store.close()
    assert kind.execute(f"DELETE FROM table_creations WHERE made_at < {T + HOUR}") == 0
    assert kind.execute("DELETE FROM table_creations") == 1


def test_a_held_tables_writes_are_committed_and_read_back(kind: Kind, store: Store) -> None:
    """``hold``, the path a write that lost a race takes (on SQLite, one process, simply the
    group commit): an event and its snapshot queued through it are committed together, a
    quiet request too, and read back; a seq already logged is refused through it as
    through any write; a hold left without a write writes nothing."""
    store.add_table(table_row())
    snap = Snapshot("t1", 1, "test", '{"at":1}', "{}", "h1")

    async def run() -> BaseException | None:
        async with store.hold("t1") as held:
            await asyncio.gather(held.queue_event(event(1)), held.queue_snapshot(snap))
        async with store.hold("t1") as held:
            await held.queue_quiet_request("t1", "drift", "d" * 64, 1)
        async with store.hold("t1"):
            pass
        async with store.hold("t1") as held:
            refused = await asyncio.gather(
                held.queue_event(event(1, request_id="other")), return_exceptions=True
            )
        return refused[0] if isinstance(refused[0], BaseException) else None

    assert isinstance(asyncio.run(run()), kind.refused)
    assert store.events("t1") == [event(1)]
    assert store.snapshot_seqs("t1") == [1]
    assert store.quiet_requests("t1") == {"drift": (1, "d" * 64)}
