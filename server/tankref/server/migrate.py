"""`tankref migrate`: every table of an SQLite file copied into another database (a league's
PostgreSQL server), its whole log in seq order, then each copy checked as `tankref verify`
checks an export.

The copy goes through the store interface (``stores.Store``): the same statements, the same
append-only log and the same guarantees as the referee's own writes, on either store. A target
that already holds any of the tables is refused before anything is copied.
"""

from __future__ import annotations

import asyncio
import sqlite3
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from tankref.core.verify import verify_export
from tankref.rulesets import ruleset_names
from tankref.server.export import Standing, export_document
from tankref.server.referee import Referee, engine_version
from tankref.server.store import EventStore, Snapshot, StoreError, StoreFailure, one_line
from tankref.server.stores import Store, is_postgres, open_store

SQLITE_PREFIX = "sqlite:"
# Events handed to the group commit before their commits are awaited: a long log goes in
# commits of the store's group size without holding the whole log's futures at once.
CHUNK = 2000


class MigrateRefused(Exception):
    """Nothing was copied: the one line says why."""


@dataclass
class TableCopied:
    table_id: str
    events: int
    ok: bool
    problem: str | None = None


@dataclass
class Migrated:
    tables: list[TableCopied] = field(default_factory=list)

    @property
    def events(self) -> int:
        return sum(t.events for t in self.tables)

    @property
    def ok(self) -> bool:
        return all(t.ok for t in self.tables)


Progress = Callable[[str], None]


def named_store(named: str, *, must_exist: bool = False) -> Store:
    """``sqlite:FILE`` (or a bare file path), or a ``postgresql://`` URL (copied back into a
    file the same way). ``must_exist``: the source, which is only read (an empty PostgreSQL
    database is refused, not given the referee's tables)."""
    if is_postgres(named):
        return open_store(named, create=not must_exist)
    path = Path(named.removeprefix(SQLITE_PREFIX)).expanduser()
    if must_exist and not path.is_file():  # opening it would make an empty one
        raise MigrateRefused(f"--from: no SQLite file at {path}")
    return open_store(path)


def migrate(store: Store, target: Store, progress: Progress = lambda _line: None) -> Migrated:
    """Copies every table of ``store`` into ``target`` and verifies each copy.

    Raises MigrateRefused, with nothing copied, when the target already holds any of them."""
    ids = store.table_ids()
    held = set(target.table_ids()) & set(ids)
    if held:
        some = ", ".join(sorted(held)[:3]) + (" ..." if len(held) > 3 else "")
        raise MigrateRefused(
            f"{target.where} already holds {len(held)} of these tables ({some}); "
            "nothing copied: migrate into a database without them"
        )
    done = Migrated()
    demo = store.demo_table_ids()
    asyncio.run(_copy_all(store, target, ids, demo, progress))
    # The copy opened as the referee opens it (the newest checked snapshot and the events
    # after it), for where each game stands; verify then re-adjudicates the whole log.
    referee = Referee(target, keep_rebuilt=1)
    for number, table_id in enumerate(ids, 1):
        copied = _verify(target, referee, table_id, len(store.events(table_id)))
        done.tables.append(copied)
        if not copied.ok:
            progress(f"table {table_id}: verify FAILED: {copied.problem}")
        if number % 50 == 0 or number == len(ids):
            progress(f"verified {number} of {len(ids)} tables")
    return done


async def _copy_all(
    source: Store, target: Store, ids: list[str], demo: set[str], progress: Progress
) -> None:
    total = len(ids)
    for number, table_id in enumerate(ids, 1):
        row = source.table(table_id)
        if row is None:  # gone between the list and the read: nothing of it to copy
            continue
        target.add_table(row, source.seat_tokens(table_id), demo=table_id in demo)
        events = 0
        while True:
            # In seq order, a chunk at a time; each chunk durable before the next is read.
            chunk = source.events(table_id, after=events, limit=CHUNK)
            if not chunk:
                break
            await _all(target.queue_event(e) for e in chunk)
            events = chunk[-1].seq
            if events >= CHUNK:
                progress(f"table {table_id}: {events} events copied")
        quiet = source.quiet_requests(table_id)
        await _all(
            target.queue_quiet_request(table_id, request_id, sha, seq)
            for request_id, (seq, sha) in quiet.items()
        )
        # Snapshots after their events (the foreign key): derived, but they spare the
        # referee a replay of the whole log on the table's first use.
        await _all(target.queue_snapshot(s) for s in _snapshots(source, table_id))
        progress(f"copied table {number} of {total}: {table_id} ({events} events)")


async def _all(futures: Iterable[asyncio.Future[None]]) -> None:
    await asyncio.gather(*list(futures))


_SNAPSHOTS = (
    "SELECT table_id, seq, version, state, timeline, head_sha256 FROM snapshots "
    "WHERE table_id = {} ORDER BY seq"
)


def _snapshots(source: Store, table_id: str) -> list[Snapshot]:
    """The stored snapshots themselves (the interface lists only their seqs)."""
    rows: list[tuple[Any, ...]]
    if isinstance(source, EventStore):
        rows = source.db.execute(_SNAPSHOTS.format("?"), (table_id,)).fetchall()
    else:  # PgStore: a connection of its own (not imported here: psycopg only when asked)
        with cast(Any, source).connect() as db:
            rows = db.execute(_SNAPSHOTS.format("%s"), (table_id,)).fetchall()
    return [Snapshot(*r) for r in rows]


def _verify(target: Store, referee: Referee, table_id: str, expected: int) -> TableCopied:
    """The copy read back from the target and checked as ``tankref verify`` checks an export:
    every event re-adjudicated, the hash chain computed again."""
    try:
        row = target.table(table_id)
        if row is None:
            return TableCopied(table_id, 0, False, "not in the target")
        events = target.events(table_id)
        if len(events) != expected:
            return TableCopied(
                table_id, len(events), False, f"{len(events)} of {expected} events copied"
            )
        doc = export_document(row, events, Standing.of(referee.host(table_id)))
        installed = engine_version(row.ruleset) if row.ruleset in ruleset_names() else None
        report = verify_export(doc, installed)
    except Exception as exc:  # a table that does not even load fails, named; the rest go on
        return TableCopied(table_id, expected, False, one_line(exc, 300))
    problem = None if report.ok else "; ".join(report.lines()[:3])
    return TableCopied(table_id, len(events), report.ok, problem)


def run(source_named: str, target_named: str) -> int:
    """The command: 0 every table copied and verified, 1 a table failed verify, 2 refused
    or stopped (progress and refusals on stderr, the result on stdout)."""

    def progress(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    try:
        source = named_store(source_named, must_exist=True)
    except (MigrateRefused, StoreError) as exc:
        progress(f"tankref migrate: {exc}")
        return 2
    try:
        target = named_store(target_named)
    except StoreError as exc:
        source.close()
        progress(f"tankref migrate: {exc}")
        return 2
    try:
        done = migrate(source, target, progress)
    except MigrateRefused as exc:
        progress(f"tankref migrate: {exc}")
        return 2
    except (StoreError, StoreFailure, sqlite3.Error) as exc:
        # Stopped part way: what was copied stays (the log is append-only); said plainly.
        progress(f"tankref migrate: stopped: {one_line(exc, 300)}")
        return 2
    finally:
        target.close()
        source.close()
    failed = [t for t in done.tables if not t.ok]
    verdict = "every table verified OK" if not failed else f"{len(failed)} FAILED verify"
    print(
        f"migrated {len(done.tables)} table(s), {done.events} event(s) from {source.where} to "
        f"{target.where}: {verdict}"
    )
    return 0 if not failed else 1
