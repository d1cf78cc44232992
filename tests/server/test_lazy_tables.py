"""Tables rebuilt on first use, not at start-up, and dropped again when idle (issue 18).

Start-up reads each table's row only; a table's log is replayed on its first use, and the
least recently used idle tables beyond ``keep_rebuilt`` are dropped (rebuilt from the log on
their next use). Whatever rebuilds a table must give the state live play left: these games
are played through the real ``Referee`` into real SQLite (with undos and voids), and every
rebuilt table is compared with what the live one answered.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path
from typing import Any

import httpx
import pytest

from serverkit import duel, live_referee
from tankref.server.errors import ApiError
from tankref.server.referee import Referee, TableHost
from tankref.server.schemas import CreateTable
from tankref.server.store import EventStore
from trustkit import long_game, open_referee


def _answers(ref: Referee, host: TableHost) -> dict[str, Any]:
    """What the routes answer about a table: its read, its scene, its list item."""
    [item] = [i for i in ref.list_tables() if i.table_id == host.id]
    return {
        "read": json.loads(ref.read(host).model_dump_json()),
        "scene": json.loads(host.scene().model_dump_json()),
        "listed": item.model_dump(mode="json"),
        "requests": dict(host.requests),
        "quiet": dict(host.quiet),
        "seats": dict(host.seat_tokens),
        "cancelled": dict(host.timeline.cancelled),
    }


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, dict[str, Any]]]:
    """Three tables played live (two long games with undos and voids, one only created),
    and what each answered live."""
    db = tmp_path_factory.mktemp("lazy") / "lazy.sqlite3"
    ref = open_referee(db)
    ids = [long_game(ref, events=150, seed=s) for s in (3, 4)]
    ids.append(ref.create_table(CreateTable.model_validate({})).table_id)  # no event yet
    live = {table_id: _answers(ref, ref.host(table_id)) for table_id in ids}
    ref.store.close()
    return db, live


def test_start_up_replays_no_log_and_the_list_replays_none(
    played: tuple[Path, dict[str, dict[str, Any]]],
) -> None:
    """A new referee on the log knows every table from its row; listing them rebuilds none
    (each is listed from its last log entry, or as created) and lists each as live play
    left it."""
    db, live = played
    ref = Referee(EventStore(db))
    try:
        assert list(ref.rows) == list(live) and not ref.tables
        listed = {i.table_id: i.model_dump(mode="json") for i in ref.list_tables()}
        assert not ref.tables  # nothing was replayed for the list
        assert listed == {table_id: answers["listed"] for table_id, answers in live.items()}
    finally:
        ref.store.close()


def test_a_table_rebuilt_on_first_use_is_the_table_live_play_left(
    played: tuple[Path, dict[str, dict[str, Any]]],
) -> None:
    """Replay on first use gives the same state, scene, list item, spent request ids, seats
    and taken-back events as the live table (the replay-equals-live check)."""
    db, live = played
    ref = Referee(EventStore(db))
    try:
        for table_id, answers in live.items():
            assert _answers(ref, ref.host(table_id)) == answers
        assert list(ref.tables) == list(live)
    finally:
        ref.store.close()


def test_a_table_rebuilt_off_the_event_loop_is_the_same_and_replayed_once(
    played: tuple[Path, dict[str, dict[str, Any]]],
) -> None:
    """``open`` (what the routes use) replays in a worker thread; requests that come for the
    same table meanwhile get the same rebuilt table, not a replay each."""
    db, live = played
    ref = Referee(EventStore(db))
    table_id = next(iter(live))

    async def both() -> list[TableHost]:
        return list(await asyncio.gather(ref.open(table_id), ref.open(table_id)))

    try:
        first, second = asyncio.run(both())
        assert first is second and first is ref.tables[table_id]
        assert _answers(ref, first) == live[table_id]
    finally:
        ref.store.close()


def test_an_idle_table_is_dropped_and_rebuilt_the_same_on_its_next_use(
    played: tuple[Path, dict[str, dict[str, Any]]],
) -> None:
    """With room for one rebuilt table, using another drops the idle one; it is still listed
    as it was, and its next use rebuilds it to the same state."""
    db, live = played
    ref = Referee(EventStore(db), keep_rebuilt=1, idle_seconds=0)
    first, second, _ = live
    try:
        dropped = ref.host(first)
        ref.host(second)
        assert list(ref.tables) == [second]
        listed = {i.table_id: i.model_dump(mode="json") for i in ref.list_tables()}
        assert listed[first] == live[first]["listed"]
        again = ref.host(first)
        assert again is not dropped and list(ref.tables) == [first]
        assert _answers(ref, again) == live[first]
    finally:
        ref.store.close()


def test_a_table_with_a_waiter_is_not_dropped_and_the_waiter_hears_the_next_write(
    tmp_path: Path,
) -> None:
    """A long-poll waiting on a table keeps it in memory (a waiter on a dropped copy would
    never hear of the next write): using other tables drops only idle ones."""
    db = tmp_path / "wait.sqlite3"
    ref = open_referee(db)
    ids = [long_game(ref, events=20, seed=s) for s in (6, 7, 8)]
    ref.store.close()
    ref = Referee(EventStore(db), keep_rebuilt=1, idle_seconds=0)

    async def play() -> None:
        watched = ref.host(ids[0])
        waiting = asyncio.ensure_future(watched.wait_after(watched.seq, 10))
        await asyncio.sleep(0)
        ref.host(ids[1])
        ref.host(ids[2])  # the one before, idle, goes; the watched one stays
        assert list(ref.tables) == [ids[0], ids[2]]
        host = await ref.open(ids[0])
        assert host is watched
        seq = host.seq
        await ref.control(host, request_id="end", action={"control": "end_game"})
        await asyncio.wait_for(waiting, 5)
        assert host.seq == seq + 1 and host.watchers == 0

    try:
        asyncio.run(play())
    finally:
        ref.store.close()


def test_a_write_after_a_rebuild_carries_on_the_log_and_its_chain(tmp_path: Path) -> None:
    """A table dropped and rebuilt takes its next action on top of its log: the seq, the
    hash chain and a repeated request id all carry on as if it had never left memory."""
    db = tmp_path / "carry.sqlite3"
    ref = open_referee(db)
    table_id = long_game(ref, events=40, seed=9)
    other = long_game(ref, events=0, seed=10)
    ref.store.close()
    ref = Referee(EventStore(db), keep_rebuilt=1, idle_seconds=0)

    async def play() -> None:
        host = await ref.open(table_id)
        head, seq = host.head, host.seq
        await ref.open(other)
        assert table_id not in ref.tables
        host = await ref.open(table_id)
        assert (host.head, host.seq) == (head, seq)
        reply = json.loads(
            await ref.control(host, request_id="end", action={"control": "end_game"})
        )
        assert reply["applied"] and reply["seq"] == seq + 1
        assert reply["entry"]["previous_sha256"] == head
        await ref.open(other)  # dropped again; the repeat is answered from the log
        host = await ref.open(table_id)
        again = json.loads(
            await ref.control(host, request_id="end", action={"control": "end_game"})
        )
        assert again["replayed"] and again["seq"] == seq + 1 and host.seq == seq + 1

    try:
        asyncio.run(play())
    finally:
        ref.store.close()
    ref = Referee(EventStore(db))  # and a restart replays the whole log, chain unbroken
    try:
        rebuilt = ref.host(table_id)
        assert rebuilt.damaged is None and rebuilt.timeline.ended is not None
    finally:
        ref.store.close()


def test_a_log_that_does_not_load_is_set_aside_on_first_use_the_others_play_on(
    tmp_path: Path,
) -> None:
    """An event whose logged entry is not JSON: the table starts (its row is sound), its
    first use sets it aside with the reason (409 TABLE_QUARANTINED, then listed in /health),
    and the other table is served and plays on."""
    db = tmp_path / "aside.sqlite3"
    with live_referee(db) as live:
        good, bad = duel(live.url), duel(live.url)
    raw = sqlite3.connect(db)
    raw.execute("DROP TRIGGER events_append_only_update")
    raw.execute("UPDATE events SET entry = '{cut' WHERE table_id = ? AND seq = 2", (bad.id,))
    raw.commit()
    raw.close()
    with live_referee(db) as live, httpx.Client(base_url=live.url) as http:
        assert http.get("/health").json()["tables"] == 2
        reply = http.get(f"/tables/{bad.id}")
        assert reply.status_code == 409 and reply.json()["code"] == "TABLE_QUARANTINED"
        assert "event 2" in reply.json()["message"] and "not JSON" in reply.json()["message"]
        health = http.get("/health").json()
        assert health["tables"] == 1 and [q["table_id"] for q in health["quarantined"]] == [bad.id]
        assert [t["table_id"] for t in http.get("/tables").json()] == [good.id]
        assert http.get(f"/tables/{good.id}").json()["seq"] == 4
        good.http.base_url = httpx.URL(live.url)
        good.ok(good.act({"kind": "end_phase", "player": "Red"}))


def test_the_referee_answers_the_same_before_and_after_a_restart(tmp_path: Path) -> None:
    """Over HTTP: the list and each table read the same from a referee that has just started
    (tables listed without a replay, then rebuilt on first read) as from the one that played."""
    db = tmp_path / "restart.sqlite3"
    with live_referee(db) as live, httpx.Client(base_url=live.url) as http:
        tables = [duel(live.url), duel(live.url, dice_source="server")]
        tables[0].ok(tables[0].act({"kind": "end_phase", "player": "Red"}))
        before = (http.get("/tables").json(), [t.read() for t in tables])
    with live_referee(db) as live, httpx.Client(base_url=live.url) as http:
        listed = http.get("/tables").json()
        assert not live.server.config.app.state.referee.tables
        reads = [http.get(f"/tables/{t.id}").json() for t in tables]
        assert (listed, reads) == before


def test_an_unknown_table_is_still_404_and_a_set_aside_row_409(tmp_path: Path) -> None:
    """``open`` keeps the answers ``host`` gave: no such table, 404; a row that does not
    load at start-up, set aside at once."""
    db = tmp_path / "unknown.sqlite3"
    ref = open_referee(db)
    table_id = long_game(ref, events=0, seed=11)
    ref.store.db.execute("UPDATE tables SET ruleset = 'chess' WHERE id = ?", (table_id,))
    ref.store.close()
    ref = Referee(EventStore(db))
    try:
        for asked, status in (("nope", 404), (table_id, 409)):
            with pytest.raises(ApiError) as refused:
                asyncio.run(ref.open(asked))
            assert refused.value.status == status
        assert table_id in ref.quarantined and not ref.rows
    finally:
        ref.store.close()
