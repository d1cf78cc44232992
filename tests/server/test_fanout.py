"""One write, many waiters (issue 18): every long-poll and WebSocket waiting on a table gets
the new entry, once; the entries are read from the log and the page encoded once for all
of them; the table they wait on stays in memory while they wait. A real referee (uvicorn in
a thread, real SQLite); the waiters are real HTTP and WebSocket clients."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import connect

from serverkit import LiveReferee, duel, live_referee
from tankref.server.referee import Referee
from trustkit import long_game, open_referee

POLLS = 40
STREAMS = 10


def _referee(live: LiveReferee) -> Referee:
    ref: Referee = live.server.config.app.state.referee
    return ref


async def _parked(live: LiveReferee, table_id: str, waiters: int) -> None:
    """Until the referee counts ``waiters`` waiting on the table (no guessing with sleeps)."""
    deadline = time.monotonic() + 20
    while _referee(live).tables[table_id].watchers < waiters:
        assert time.monotonic() < deadline, "the waiters never all arrived"
        await asyncio.sleep(0.02)


def test_every_waiter_gets_the_new_entry_once_read_and_encoded_once(tmp_path: Path) -> None:
    with live_referee(tmp_path / "fanout.sqlite3") as live:
        table = duel(live.url)
        other = duel(live.url)
        seq = table.read()["seq"]
        ws_url = live.url.replace("http://", "ws://")

        async def run() -> tuple[list[Any], list[str], int]:
            limits = httpx.Limits(max_connections=POLLS + 5)
            async with httpx.AsyncClient(base_url=live.url, timeout=30, limits=limits) as http:
                polls = [
                    asyncio.ensure_future(
                        http.get(f"/tables/{table.id}/events", params={"after": seq, "wait": 20})
                    )
                    for _ in range(POLLS)
                ]
                streams = [
                    await connect(f"{ws_url}/tables/{table.id}/stream?after={seq}")
                    for _ in range(STREAMS)
                ]
                await _parked(live, table.id, POLLS + STREAMS)
                # Another table is served while they wait.
                elsewhere = await http.get(f"/tables/{other.id}/log")
                assert elsewhere.status_code == 200
                auth = {"Authorization": f"Bearer {table.token}"}
                body = {"request_id": "fan", "action": {"kind": "end_phase", "player": "Red"}}
                wrote = await http.post(f"/tables/{table.id}/actions", json=body, headers=auth)
                assert wrote.status_code == 200, wrote.text
                pages = [(await p).json() for p in polls]
                messages = [await ws.recv() for ws in streams]
                extra = 0
                for ws in streams:  # no second copy of the entry
                    try:
                        await asyncio.wait_for(ws.recv(), 0.2)
                        extra += 1
                    except TimeoutError:
                        pass
                    await ws.close()
                return pages, [str(m) for m in messages], extra

        pages, messages, extra = asyncio.run(run())
        assert [[e["seq"] for e in p["entries"]] for p in pages] == [[seq + 1]] * POLLS
        assert all(p["last_seq"] == seq + 1 for p in pages)
        assert [json.loads(m)["seq"] for m in messages] == [seq + 1] * STREAMS
        assert extra == 0
        assert len({json.dumps(p, sort_keys=True) for p in pages}) == 1
        # One page (the long-polls' ask) and one read of the entries per distinct ask (the
        # long-polls' page of 100, the streams' 200), kept for the seq they were read at.
        host = _referee(live).tables[table.id]
        assert host.pages.seq == seq + 1
        assert list(host.pages.pages) == [(seq, 100)]
        assert set(host.pages.entries) == {(seq, 100), (seq, 200)}
        # Every waiter lets go of the table: a closed stream is noticed by its handler after
        # the client has closed it, so give the referee a moment, not forever.
        deadline = time.monotonic() + 10
        while host.watchers:
            assert time.monotonic() < deadline, f"{host.watchers} waiter(s) never let go"
            time.sleep(0.02)


def test_a_new_write_is_not_answered_from_the_page_of_the_last(tmp_path: Path) -> None:
    """The cached page is for one seq: the next write's waiters get the next entry, and a
    plain read of the log sees every entry."""
    with live_referee(tmp_path / "pages.sqlite3") as live:
        table = duel(live.url)
        seq = table.read()["seq"]
        first = table.http.get(table.path("/events"), params={"after": seq - 1, "wait": 0})
        assert [e["seq"] for e in first.json()["entries"]] == [seq]
        table.ok(table.act({"kind": "end_phase", "player": "Red"}))
        again = table.http.get(table.path("/events"), params={"after": seq - 1, "wait": 0})
        assert [e["seq"] for e in again.json()["entries"]] == [seq, seq + 1]
        assert again.json()["last_seq"] == seq + 1
        assert [e["seq"] for e in table.log()] == list(range(1, seq + 2))


def test_only_the_log_s_tail_is_kept_not_history_paged_through(tmp_path: Path) -> None:
    """Waiters ask for the newest entries: those reads are kept (for the seq they were read
    at); a page far back in a long log is read, not kept (an idle table holds no history)."""
    ref = open_referee(tmp_path / "tail.sqlite3")
    try:
        host = ref.host(long_game(ref, events=120, seed=12))
        history = ref.entries_json(host, 0, 500)
        assert [json.loads(e)["seq"] for e in history] == list(range(1, host.seq + 1))
        assert not host.pages.entries
        tail = ref.entries_json(host, host.seq - 1, 100)
        assert ref.entries_json(host, host.seq - 1, 100) is tail
        assert list(host.pages.entries) == [(host.seq - 1, 100)]
    finally:
        ref.store.close()
