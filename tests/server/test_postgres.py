"""What only the PostgreSQL store has to answer for (issue 19): one writer at a time per table
across processes (a writer that is behind gets a conflict, never a second event at a seq, and
the referee catches up from the log), a server that goes away mid-game (503 with
Retry-After, nothing acknowledged that is not committed), and choosing it with ``--db`` or
``TANKREF_DB`` with a one-line error when it cannot be reached. Needs ``TANKREF_TEST_PG``
(skipped without it) except where no server is reached at all."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import httpx
import pytest

from pgkit import fresh_database, raw, unreachable
from serverkit import duel, live_referee
from tankref.server.pgstore import LOCK_CLASS, PgStore, table_key
from tankref.server.store import (
    EventRow,
    Snapshot,
    TableBusy,
    TableGone,
    TableRow,
    WriteConflict,
)
from tankref.server.stores import without_password

WAIT = {"kind": "wait", "tank_id": "R1"}


@pytest.fixture
def url() -> Iterator[str]:
    with fresh_database() as made:
        yield made


def _row() -> TableRow:
    return TableRow("t1", "ttt", "2026", "0" * 64, {}, {}, "c" * 64, True, "test")


def _event(seq: int, by: str) -> EventRow:
    return EventRow(
        "t1", seq, f"{by}-{seq}", "r", {"kind": "wait"}, None, f'{{"by":"{by}"}}', "r", None,
        "test", "2026",
    )  # fmt: skip


def test_a_writer_that_is_behind_gets_a_conflict_never_a_second_event(url: str) -> None:
    """Two referee processes' stores on one database: the one whose copy is behind is told
    ``WriteConflict`` for the seq the other logged first; the log keeps the first."""
    first, second = PgStore(url), PgStore(url)
    try:
        first.add_table(_row())

        async def write(store: PgStore, seq: int, by: str) -> None:
            await store.queue_event(_event(seq, by))

        asyncio.run(write(first, 1, "first"))
        with pytest.raises(WriteConflict):
            asyncio.run(write(second, 1, "second"))
        assert [e.request_id for e in second.events("t1")] == ["first-1"]
    finally:
        first.close()
        second.close()


def test_a_writer_behind_does_not_put_its_snapshot_on_the_others_event(url: str) -> None:
    """A snapshot queued with an event that loses its seq is refused with it: the seq's
    snapshot stays the one made with the event that was logged."""
    first, second = PgStore(url), PgStore(url)
    try:
        first.add_table(_row())

        async def write(store: PgStore, by: str) -> list[BaseException | None]:
            written = [
                store.queue_event(_event(1, by)),
                store.queue_snapshot(Snapshot("t1", 1, "test", "{}", "{}", by)),
            ]
            outcomes = await asyncio.gather(*written, return_exceptions=True)
            return [o if isinstance(o, BaseException) else None for o in outcomes]

        assert asyncio.run(write(first, "first")) == [None, None]
        lost = asyncio.run(write(second, "second"))
        assert isinstance(lost[0], WriteConflict) and lost[1] is not None
        with raw(url) as db:
            heads = [r[0] for r in db.execute("SELECT head_sha256 FROM snapshots")]
        assert heads == ["first"]
    finally:
        first.close()
        second.close()


def test_racing_writers_on_one_table_never_log_a_seq_twice(url: str) -> None:
    """Four threads, each a store of its own (as four processes), each trying to log seqs
    1..40 of one table as fast as it can: every seq is logged exactly once, by whoever won
    it (the advisory lock and the primary key), and every loser was told so."""
    setup = PgStore(url)
    setup.add_table(_row())
    setup.close()
    won: dict[str, int] = {}
    lost: dict[str, int] = {}

    def writer(by: str) -> None:
        store = PgStore(url)

        async def run() -> None:
            for seq in range(1, 41):
                try:
                    await store.queue_event(_event(seq, by))
                    won[by] = won.get(by, 0) + 1
                except WriteConflict:
                    lost[by] = lost.get(by, 0) + 1

        try:
            asyncio.run(run())
        finally:
            store.close()

    threads = [threading.Thread(target=writer, args=(f"w{n}",)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    with raw(url) as db:
        seqs = [r[0] for r in db.execute("SELECT seq FROM events ORDER BY seq")]
    assert seqs == list(range(1, 41))
    assert sum(won.values()) == 40 and sum(lost.values()) == 4 * 40 - 40


def test_groups_over_several_tables_never_wait_on_each_other_in_a_circle(url: str) -> None:
    """Four stores (as four processes) each commit groups that hold both of two tables'
    next events, queued in opposite orders: the tables' locks are taken in one order, so no
    commit fails for a deadlock; every seq of each table is logged once, the losers told
    ``WriteConflict``."""
    setup = PgStore(url)
    for table_id in ("t1", "t2"):
        setup.add_table(replace(_row(), id=table_id))
    setup.close()
    other: list[BaseException] = []

    def writer(n: int) -> None:
        store = PgStore(url)
        order = ("t1", "t2") if n % 2 else ("t2", "t1")

        async def run() -> None:
            for seq in range(1, 31):
                rows = [replace(_event(seq, f"w{n}"), table_id=t) for t in order]
                outcomes = await asyncio.gather(
                    *(store.queue_event(row) for row in rows), return_exceptions=True
                )
                other.extend(
                    o for o in outcomes if isinstance(o, BaseException)
                    and not isinstance(o, WriteConflict)
                )  # fmt: skip

        try:
            asyncio.run(run())
        finally:
            store.close()

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert other == []
    with raw(url) as db:
        for table_id in ("t1", "t2"):
            seqs = [
                r[0]
                for r in db.execute(
                    "SELECT seq FROM events WHERE table_id = %s ORDER BY seq", (table_id,)
                )
            ]
            assert seqs == list(range(1, 31))


def test_a_group_commit_is_one_transaction_a_refused_row_undoing_the_rest(url: str) -> None:
    """A group goes in one pipeline without BEGIN or COMMIT: still one transaction. Three
    writes, three statements, made one group (the writer held up meanwhile by a lock another
    session holds on another table), the last a seq already taken: nothing of the first try
    stays, so the others, committed again each on its own, are answered committed (were each
    statement its own transaction, their rows would have stayed and their second tries been
    refused)."""
    store = PgStore(url)
    try:
        for table_id in ("t0", "t1"):
            store.add_table(replace(_row(), id=table_id))
        store.append(replace(_event(1, "before"), table_id="t0"))

        async def run() -> list[BaseException | None]:
            with raw(url) as blocker:
                blocker.execute("SELECT pg_advisory_lock(%s, %s)", (LOCK_CLASS, table_key("t0")))
                held_up = store.queue_event(replace(_event(2, "held"), table_id="t0"))
                await asyncio.sleep(0.5)  # the writer waits on t0's lock, the group sent
                grouped = [
                    store.queue_event(_event(1, "first")),
                    store.queue_quiet_request("t1", "quiet", "q" * 64, 1),
                    store.queue_event(replace(_event(1, "dup"), table_id="t0")),
                ]
            await held_up  # the blocker's session ended: its lock let go
            outcomes = await asyncio.gather(*grouped, return_exceptions=True)
            return [o if isinstance(o, BaseException) else None for o in outcomes]

        first, quiet, dup = asyncio.run(run())
        assert first is None and quiet is None
        assert isinstance(dup, WriteConflict)
        assert [e.request_id for e in store.events("t1")] == ["first-1"]
        assert store.quiet_requests("t1") == {"quiet": (1, "q" * 64)}
        assert [e.request_id for e in store.events("t0")] == ["before-1", "held-2"]
    finally:
        store.close()


def test_a_referee_behind_its_log_catches_up_instead_of_forking_it(url: str) -> None:
    """Two referees on one database (as two processes would be): one plays a table on; the
    other hears of it, or finds its write beaten to the seq, catches its copy up from the
    log and applies its own write after the other's: one log, seqs contiguous, no 409."""
    with live_referee(url) as one:
        table = duel(one.url)
        with live_referee(url) as two:
            at_two = httpx.Client(base_url=two.url, headers=table.http.headers, timeout=30)
            assert at_two.get(table.path()).json()["seq"] == 4  # opened on two
            table.ok(table.act(WAIT, request_id="on-one"))  # seq 5, written by one
            body = {"request_id": "on-two", "action": {"kind": "end_phase"}}
            caught_up = at_two.post(table.path("/actions"), json=body)
            assert caught_up.status_code == 200, caught_up.text
            assert caught_up.json()["seq"] == 6
            log = [e["request_id"] for e in table.log()]
            assert log[-2:] == ["on-one", "on-two"]
            assert [e["seq"] for e in table.log()] == list(range(1, 7))
            assert table.read()["head_sha256"] == at_two.get(table.path()).json()["head_sha256"]
            at_two.close()


def test_a_database_gone_mid_game_is_a_503_with_retry_after_and_nothing_applied(
    url: str,
) -> None:
    """The server cut off mid-game: writes and reads answer 503 DATABASE_UNAVAILABLE with
    Retry-After, nothing is applied; once it is back the referee connects again and the
    same request applies once."""
    with live_referee(url) as live:
        table = duel(live.url)
        before = table.snapshot()
        with unreachable(url):
            write = table.act(WAIT, request_id="during")
            assert write.status_code == 503, write.text
            assert write.json()["code"] == "DATABASE_UNAVAILABLE"
            assert write.headers["Retry-After"] == "2"
            read = table.http.get(table.path("/log"))
            assert read.status_code == 503 and "Retry-After" in read.headers
        assert table.snapshot() == before
        applied = table.ok(table.act(WAIT, request_id="during"))
        assert applied["applied"] is True and applied["seq"] == before[0]["seq"] + 1
        assert table.ok(table.act(WAIT, request_id="during"))["replayed"] is True


def _serve(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tankref", "serve", "--port", "1", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **(env or {})},
    )


def test_serve_says_in_one_line_when_the_server_cannot_be_reached() -> None:
    """Exit 2 and one line naming the URL without its password; no traceback."""
    done = _serve("--db", "postgresql://league:s3cret@127.0.0.1:1/tankref")
    assert done.returncode == 2, done.stderr
    assert "postgresql://league:***@127.0.0.1:1/tankref" in done.stderr
    assert "s3cret" not in done.stderr + done.stdout
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_tankref_db_names_the_database_and_the_flag_wins(tmp_path: Path) -> None:
    """TANKREF_DB is used when --db is not given; --db wins over it."""
    env = {"TANKREF_DB": "postgres://league:s3cret@127.0.0.1:1/tankref"}
    done = _serve(env=env)
    assert done.returncode == 2 and "postgres://league:***@127.0.0.1:1/tankref" in done.stderr
    junk = tmp_path / "notes.txt"
    junk.write_text("not a database\n" * 50)
    done = _serve("--db", str(junk), env=env)
    assert done.returncode == 2 and str(junk) in done.stderr
    assert "postgres://" not in done.stderr


def test_a_url_is_printed_without_its_password() -> None:
    assert without_password("postgresql://u:pw@h:5/db?sslmode=require") == (
        "postgresql://u:***@h:5/db?sslmode=require"
    )
    assert without_password("postgresql://h/db?user=u&password=pw") == (
        "postgresql://h/db?user=u&password=***"
    )
    assert without_password("postgresql://u@h/db") == "postgresql://u@h/db"


def test_serve_runs_on_postgresql(url: str, tmp_path: Path) -> None:
    """`tankref serve --db postgresql://...` starts, says where its log is (no password), and
    keeps a game there."""
    from serverkit import serve_command

    with serve_command(tmp_path / "unused", "--db", url) as referee:
        table = duel(referee.url)
        table.ok(table.act(WAIT))
        health = httpx.get(f"{referee.url}/health").json()
        assert health["database"] == url and health["tables"] == 1
    with raw(url) as db:
        assert db.execute("SELECT count(*) FROM events").fetchone()[0] == 5


def test_a_table_first_opened_while_the_database_is_gone_is_not_set_aside(url: str) -> None:
    """A table the referee has not opened yet, asked for while the server is away: 503 with
    Retry-After, not set aside as damaged; once the server is back it opens and plays."""
    with live_referee(url) as live:
        table = duel(live.url)
        before = table.snapshot()
    with live_referee(url) as live:  # a restart: the table is opened on first use
        table.http.base_url = httpx.URL(live.url)
        with unreachable(url):
            reply = table.http.get(table.path())
            assert reply.status_code == 503, reply.text
            assert reply.json()["code"] == "DATABASE_UNAVAILABLE" and "Retry-After" in reply.headers
        assert table.snapshot() == before
        table.ok(table.act(WAIT))
        assert httpx.get(f"{live.url}/health").json()["quarantined"] == []


def test_connections_cut_mid_game_are_made_again_unseen(url: str) -> None:
    """The server cut every connection (a restart, an idle timeout): the next read, write and
    new table connect again and are answered as if nothing happened."""
    with live_referee(url) as live:
        table = duel(live.url)
        before = table.snapshot()
        with raw(url) as admin:
            cut = admin.execute(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid()"
            ).fetchone()[0]
        assert cut >= 2  # the event loop's connection and the group commit's
        assert table.snapshot() == before
        assert table.ok(table.act(WAIT))["seq"] == before[0]["seq"] + 1
        duel(live.url)


@pytest.mark.parametrize("command", ["luck", "export"])
@pytest.mark.parametrize(
    "named", ["postgresql://u:s3cret@h/db", "postgresql://u:s3cret@/db?host=/nonexistent"]
)
def test_the_reading_commands_on_an_unreachable_server_say_so_in_one_line(
    command: str, named: str
) -> None:
    """`tankref luck|export --db postgresql://...` with no server there: one line naming the
    URL without its password, exit 1 (a real process: no traceback either)."""
    args = ["TABLE"] if command == "export" else []
    done = subprocess.run(
        [sys.executable, "-m", "tankref", command, *args, "--db", named],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith(f"tankref {command}: {named.replace('s3cret', '***')}: ")
    assert "cannot connect" in done.stderr and "s3cret" not in done.stderr


def test_backup_of_a_postgresql_database_points_to_pg_dump_and_migrate() -> None:
    """`tankref backup` copies SQLite files; on a PostgreSQL URL (--db or TANKREF_DB) it says
    in one line what does back one up: pg_dump, or a verified copy into a file."""
    named = "postgresql://u:s3cret@h/db"
    for args, env in ((["--db", named], {}), ([], {"TANKREF_DB": named})):
        done = subprocess.run(
            [sys.executable, "-m", "tankref", "backup", *args],
            capture_output=True,
            text=True,
            timeout=60,
            env={**os.environ, **env},
        )
        assert done.returncode == 1 and done.stdout == ""
        assert done.stderr.count("\n") == 1, done.stderr
        assert "pg_dump" in done.stderr
        assert "tankref migrate --from postgresql://u:***@h/db --to sqlite:FILE" in done.stderr
        assert "s3cret" not in done.stderr


def test_a_held_table_is_written_by_its_holder_alone_until_it_commits(url: str) -> None:
    """Two stores on one database (as two processes). While one holds table t1, the other's
    write to it waits (its group commit takes the same lock), and so does a second hold;
    the holder's event is committed at seq 1 and notified to the other; only then is the
    other's seq 1 refused as a conflict, and the second hold goes in."""
    one, two = PgStore(url), PgStore(url)
    heard: list[tuple[str, int]] = []
    try:
        one.add_table(_row())
        listening = two.listen(lambda t, seq: heard.append((t, seq)), lambda: None, print)
        assert listening is not None and listening.wait(10)

        async def run() -> tuple[BaseException | None, bool]:
            async with one.hold("t1") as held:
                behind = two.queue_event(_event(1, "two"))
                entered = asyncio.Event()

                async def second_hold() -> None:
                    async with two.hold("t1"):
                        entered.set()

                waiting = asyncio.ensure_future(second_hold())
                await asyncio.sleep(0.5)
                assert not behind.done() and not entered.is_set()  # both wait on the holder
                await held.queue_event(_event(1, "one"))
            outcome = await asyncio.gather(behind, return_exceptions=True)
            await asyncio.wait_for(waiting, 10)
            first = outcome[0]
            return (first if isinstance(first, BaseException) else None), entered.is_set()

        lost, entered = asyncio.run(run())
        assert isinstance(lost, WriteConflict) and entered
        assert [e.request_id for e in two.events("t1")] == ["one-1"]
        deadline = time.monotonic() + 10
        while not heard and time.monotonic() < deadline:
            time.sleep(0.05)
        assert heard == [("t1", 1)]
    finally:
        one.close()
        two.close()


def test_a_hold_kept_for_seconds_by_another_is_given_up_as_busy(url: str) -> None:
    """Another session holds the table's lock (stuck mid-write): ``hold`` gives up after
    its wait (here 0.5 s) with ``TableBusy``, having written nothing; once the lock is let
    go, it holds the table again."""
    store = PgStore(url)
    store.hold_wait = 0.5
    try:
        store.add_table(_row())
        with raw(url) as stuck:
            stuck.execute("SELECT pg_advisory_lock(%s, %s)", (LOCK_CLASS, table_key("t1")))

            async def enter() -> None:
                async with store.hold("t1") as held:
                    await held.queue_event(_event(1, "late"))

            started = time.monotonic()
            with pytest.raises(TableBusy):
                asyncio.run(enter())
            assert 0.4 < time.monotonic() - started < 5
            stuck.execute("SELECT pg_advisory_unlock(%s, %s)", (LOCK_CLASS, table_key("t1")))
        assert store.events("t1") == []
        asyncio.run(enter())
        assert [e.request_id for e in store.events("t1")] == ["late-1"]
    finally:
        store.close()


def test_a_write_to_a_table_another_process_deleted_is_told_it_is_gone(url: str) -> None:
    """One store deletes t1 (notifying the others in the same transaction); the other's
    write to it, event or quiet request, is refused as ``TableGone`` and it hears the
    deletion."""
    one, two = PgStore(url), PgStore(url)
    deleted: list[str] = []
    try:
        one.add_table(_row())
        listening = two.listen(lambda t, seq: None, lambda: None, deleted.append)
        assert listening is not None and listening.wait(10)
        assert one.delete_table("t1") == 0

        async def write() -> list[BaseException | None]:
            outcomes = await asyncio.gather(
                two.queue_event(_event(1, "two")),
                two.queue_quiet_request("t1", "q", "q" * 64, 0),
                return_exceptions=True,
            )
            return [o if isinstance(o, BaseException) else None for o in outcomes]

        assert all(isinstance(o, TableGone) for o in asyncio.run(write()))
        deadline = time.monotonic() + 10
        while not deleted and time.monotonic() < deadline:
            time.sleep(0.05)
        assert deleted == ["t1"]
    finally:
        one.close()
        two.close()
