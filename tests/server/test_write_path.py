"""The write path: a log entry assembled from parts is the entry model's own JSON, byte for
byte, and the result's digest is of those bytes; writes that arrive together share one
commit, each answered after it; a duplicate request rolls once even when its copies arrive
together; a write the database refuses fails alone; a cancelled write still moves its table
on with its commit."""

from __future__ import annotations

import asyncio
import hashlib
import json
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from pydantic_core import to_json

from serverkit import duel, live_referee, wal_commits
from tankref.core.results import chat_lines
from tankref.core.ruleset import TankPut
from tankref.core.timeline import result_digest
from tankref.rulesets import get_ruleset, ruleset_names
from tankref.server.errors import ApiError
from tankref.server.referee import Referee, TableHost
from tankref.server.schemas import CreateTable, LogEntry, OrderedBy, log_entry_json
from tankref.server.store import EventStore, GroupCommit


@pytest.mark.parametrize("name", ruleset_names())
def test_log_entry_json_is_the_models_own_serialisation(name: str) -> None:
    """Every action of a self-play game of each ruleset: the entry the referee logs (parts
    serialised once, nothing validated again) is ``LogEntry.model_dump_json()``, and the
    result digest taken of the entry's result bytes is ``result_digest`` of the result as
    logged (what the start-up replay and ``tankref verify`` check)."""
    rules = get_ruleset(name)
    record = rules.self_play(1)
    state = record.start
    assert len(record.actions) > 10
    for seq, action in enumerate(record.actions, start=1):
        outcome = rules.adjudicate(state, action)
        state, result = outcome.state, outcome.result
        summary = rules.summary(state)
        tanks = rules.tank_views(state, [c.tank_id for c in result.changes])
        data = action.model_dump(mode="json")
        by = OrderedBy(seat="Red", as_referee=seq % 2 == 0) if seq % 3 else None
        dice = {"faces": {"white": [seq % 6 + 1]}} if seq % 4 == 0 else None
        fields = {
            "seq": seq,
            "at": "2026-12-02T01:02:03.456+00:00",
            "request_id": f"r-{seq}" if seq % 5 else None,
            "kind": str(data.get("kind")),
            "action": data,
            "dice": dice,
            "chat": chat_lines(result),
            "tanks": tanks,
            "by": by,
            "previous_sha256": "a" * 64,
            "chain_sha256": "b" * 64,
        }
        result_json = to_json(result)
        built = log_entry_json(result=result_json, table=to_json(summary), **fields)
        model = LogEntry(result=result.model_dump(mode="json"), table=summary, **fields)
        assert built == model.model_dump_json(), (name, seq)
        logged = LogEntry.model_validate_json(built).result
        assert hashlib.sha256(result_json).hexdigest() == result_digest(logged), (name, seq)


def test_a_log_entry_missing_a_field_is_refused() -> None:
    """An entry built without one of the model's fields fails loudly, never shorter."""
    with pytest.raises(KeyError, match="chain_sha256"):
        log_entry_json(
            result=b"{}",
            table=b"{}",
            seq=1,
            at="now",
            request_id=None,
            kind="wait",
            action={},
            dice=None,
            chat=[],
            tanks=[],
            by=None,
            previous_sha256=None,
        )


# --- the group commit, in process: the real referee on a real SQLite file ------------------


def _referee(tmp_path: Path) -> Referee:
    return Referee(EventStore(tmp_path / "referee.sqlite3"))


def _duel(ref: Referee) -> TableHost:
    """A started TTT game on server dice: Red's Tiger I R1 facing Blue's Sherman B1."""
    created = ref.create_table(CreateTable.model_validate({"dice": {"seed": "write-path-0"}}))
    host = ref.host(created.table_id)
    places = (("R1", "tiger-i", "Red", -20.0, 0.0), ("B1", "m4a1-sherman", "Blue", 20.0, 180.0))

    async def set_up() -> None:
        for tank_id, card, player, z, facing in places:
            put = TankPut(card=card, player=player, x=0.0, z=z, facing=facing)
            await _place(ref, host, tank_id, put)
        for kind in ("crew_roll", "start_game"):
            await _act(ref, host, {"kind": kind}, f"setup-{kind}")

    asyncio.run(set_up())
    return host


async def _place(ref: Referee, host: TableHost, tank_id: str, put: TankPut) -> dict[str, Any]:
    reply = await ref.submit(
        host,
        request_id=f"place-{tank_id}",
        request={"put_tank": tank_id, **put.model_dump(mode="json")},
        build=lambda state: host.rules.tank_put(state, tank_id, put),
    )
    return dict(json.loads(reply))


async def _act(
    ref: Referee, host: TableHost, action: dict[str, Any], request_id: str
) -> dict[str, Any]:
    parsed = host.rules.parse_action(action)
    reply = await ref.submit(
        host, request_id=request_id, request={"action": action}, build=lambda _: parsed
    )
    return dict(json.loads(reply))


def test_writes_queued_in_one_turn_share_one_commit(tmp_path: Path) -> None:
    """Three tables each place a tank in the same turn of the event loop: three events, one
    commit in the write-ahead log (one sync for the lot), each reply after it."""
    ref = _referee(tmp_path)
    hosts = [ref.host(ref.create_table(CreateTable.model_validate({})).table_id) for _ in range(3)]
    before = wal_commits(ref.store.path)
    put = TankPut(card="tiger-i", player="Red", x=0.0, z=-20.0, facing=0.0)

    async def together() -> list[dict[str, Any]]:
        return list(await asyncio.gather(*(_place(ref, host, "R1", put) for host in hosts)))

    replies = asyncio.run(together())
    assert [r["applied"] for r in replies] == [True, True, True]
    assert wal_commits(ref.store.path) == before + 1
    for host in hosts:
        assert [e.seq for e in ref.store.events(host.id)] == [1]
    ref.store.close()


def test_a_duplicate_request_in_one_turn_rolls_once(tmp_path: Path) -> None:
    """The same engage (same request id) sent five times in one turn: it is adjudicated and
    logged once; the other four answer the first result (replayed), and the dice counter
    moved once."""
    ref = _referee(tmp_path)
    host = _duel(ref)
    engage = {"kind": "engage", "tank_id": "R1", "target_id": "B1"}
    counter = host.rules.dice_state(host.state).counter

    async def together() -> list[dict[str, Any]]:
        return list(await asyncio.gather(*(_act(ref, host, engage, "shot-1") for _ in range(5))))

    replies = asyncio.run(together())
    assert sorted(r["replayed"] for r in replies) == [False, True, True, True, True]
    assert all(r["entry"] == replies[0]["entry"] for r in replies)
    logged = [e for e in ref.store.events(host.id) if e.request_id == "shot-1"]
    assert len(logged) == 1
    rolled = host.rules.dice_state(host.state).counter - counter
    assert rolled > 0
    again = asyncio.run(_act(ref, host, engage, "shot-1"))
    assert again["replayed"] is True
    assert host.rules.dice_state(host.state).counter - counter == rolled
    ref.store.close()


def test_a_write_the_database_refuses_fails_alone_in_its_group(tmp_path: Path) -> None:
    """Two tables write in one turn; the database refuses one table's insert (as a full
    disk or a damaged file would): that request is told 503 NOT_SAVED and its table has
    not moved on, the other's event is committed; the refused one succeeds later."""
    ref = _referee(tmp_path)
    refused, fine = (
        ref.host(ref.create_table(CreateTable.model_validate({})).table_id) for _ in range(2)
    )
    raw = sqlite3.connect(ref.store.path)
    raw.execute(
        f"CREATE TRIGGER refuse_one BEFORE INSERT ON events WHEN NEW.table_id = '{refused.id}' "
        "BEGIN SELECT RAISE(ABORT, 'disk trouble'); END"
    )
    raw.commit()
    put = TankPut(card="tiger-i", player="Red", x=0.0, z=-20.0, facing=0.0)

    async def together() -> list[dict[str, Any] | BaseException]:
        return list(
            await asyncio.gather(
                _place(ref, refused, "R1", put),
                _place(ref, fine, "R1", put),
                return_exceptions=True,
            )
        )

    first, second = asyncio.run(together())
    assert isinstance(first, ApiError) and first.status == 503 and first.code == "NOT_SAVED"
    assert isinstance(second, dict) and second["applied"] is True
    assert (refused.seq, ref.store.events(refused.id)) == (0, [])
    assert "R1" not in refused.public_state()["tanks"]
    assert [e.seq for e in ref.store.events(fine.id)] == [1]
    raw.execute("DROP TRIGGER refuse_one")
    raw.commit()
    raw.close()
    assert asyncio.run(_place(ref, refused, "R1", put))["entry"]["seq"] == 1
    ref.store.close()


def test_a_cancelled_write_still_moves_the_table_on_with_its_commit(tmp_path: Path) -> None:
    """A request cancelled while its event is being committed (its client gone, the server
    stopping): the table still moves on with the committed event before anything else may
    write to it, so the live table and its log never part; the next write follows on."""
    ref = _referee(tmp_path)
    host = _duel(ref)
    seq = host.seq

    async def cancel_mid_commit() -> None:
        task = asyncio.create_task(_act(ref, host, {"kind": "wait", "tank_id": "R1"}, "w-1"))
        await asyncio.sleep(0)  # the task runs up to its commit and waits there
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert host.seq == seq + 1  # committed, so applied
        after = await _act(ref, host, {"kind": "end_phase"}, "end-1")
        assert after["entry"]["seq"] == seq + 2

    asyncio.run(cancel_mid_commit())
    assert [e.request_id for e in ref.store.events(host.id)][-2:] == ["w-1", "end-1"]
    ref.store.close()


def test_a_duplicate_request_sent_at_once_over_http_rolls_once(tmp_path: Path) -> None:
    """Eight clients send the same engage (same request id) at the same moment to the real
    server: one reply applied it, seven are the same entry replayed; the log holds it once
    and the dice counter moved once."""
    with live_referee(tmp_path / "referee.sqlite3") as live:
        table = duel(live.url, dice_source="server")
        counter = table.read()["dice"]["counter"]
        body = {
            "request_id": "shot-1",
            "action": {"kind": "engage", "tank_id": "R1", "target_id": "B1"},
        }
        start = threading.Barrier(8)
        replies: list[dict[str, Any]] = []

        def send() -> None:
            with httpx.Client(base_url=live.url, headers=table.http.headers, timeout=30) as http:
                start.wait()
                reply = http.post(table.path("/actions"), json=body)
                assert reply.status_code == 200, reply.text
                replies.append(reply.json())

        threads = [threading.Thread(target=send) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        assert len(replies) == 8
        assert sorted(r["replayed"] for r in replies) == [False] + [True] * 7
        assert all(r["entry"] == replies[0]["entry"] for r in replies)
        assert [e["request_id"] for e in table.log()].count("shot-1") == 1
        rolled = table.read()["dice"]["counter"] - counter
        assert rolled > 0
        assert table.ok(table.act(body["action"], request_id="shot-1"))["replayed"] is True
        assert table.read()["dice"]["counter"] - counter == rolled


def test_a_group_goes_as_one_statement_a_run_and_in_order(tmp_path: Path) -> None:
    """A group's writes of one INSERT go as one multi-row statement (cut where SQLite's
    limit on parameters would be passed), other statements between them in their place;
    on a real file, 600 rows queued in one turn are all committed, in one commit, in order."""
    from tankref.server.store import _INSERT_QUIET, GroupCommit, _runs, _Write

    async def statements() -> list[tuple[str, Any]]:
        loop = asyncio.get_running_loop()
        rows = [_Write(_INSERT_QUIET, ("t", f"r{n}", "h", n), loop) for n in range(5)]
        other = _Write("DELETE FROM quiet_requests WHERE table_id = ?", ("x",), loop)
        return _runs([*rows[:3], other, *rows[3:]], max_values=8)

    made = asyncio.run(statements())
    assert [sql.count("(?, ?, ?, ?)") for sql, _ in made] == [2, 1, 0, 2]
    assert list(made[0][1]) == ["t", "r0", "h", 0, "t", "r1", "h", 1]
    assert made[2][0].startswith("DELETE")

    store = EventStore(tmp_path / "runs.sqlite3")
    created = Referee(store).create_table(CreateTable.model_validate({}))
    before = wal_commits(store.path)
    writer = GroupCommit(store.path)

    async def together() -> None:
        queued = [
            writer.write(_INSERT_QUIET, (created.table_id, f"r{n}", "h", n)) for n in range(600)
        ]
        await asyncio.gather(*queued)

    asyncio.run(together())
    writer.close()
    assert wal_commits(store.path) == before + 1
    rows = store.db.execute(
        "SELECT request_id, seq FROM quiet_requests WHERE table_id = ? ORDER BY seq",
        (created.table_id,),
    ).fetchall()
    assert rows == [(f"r{n}", n) for n in range(600)]
    store.close()


@pytest.mark.parametrize("busy", [True, False])
def test_a_commit_waits_for_the_loop_only_while_another_write_is_under_way(
    tmp_path: Path, busy: bool
) -> None:
    """A write handed over while the loop says a request is under way: the writer asks the
    loop before committing, and what the loop queues meanwhile shares the commit. Told that
    nothing else is under way, the writer commits at once, and a write queued later has a
    commit of its own."""
    db = tmp_path / "group.sqlite3"
    made = sqlite3.connect(db)
    made.execute("PRAGMA journal_mode=WAL")
    made.execute("CREATE TABLE t (n INTEGER)")  # kept open: the log not checkpointed away
    before = wal_commits(db)
    writer = GroupCommit(db, busy=lambda: busy)
    writer.ASK_WAIT = 5.0  # the loop below answers late on purpose, never this late

    async def two_writes() -> None:
        first = writer.write("INSERT INTO t VALUES (?)", (1,))
        await asyncio.sleep(0)  # the turn ends: the first write is handed over
        time.sleep(0.3)  # the loop busy with a request (the writer runs meanwhile)
        second = writer.write("INSERT INTO t VALUES (?)", (2,))
        await asyncio.gather(first, second)

    try:
        asyncio.run(two_writes())
    finally:
        writer.close()
    try:
        assert wal_commits(db) == before + (1 if busy else 2)
        assert made.execute("SELECT n FROM t ORDER BY n").fetchall() == [(1,), (2,)]
    finally:
        made.close()
