"""Several referee processes on one PostgreSQL database (issue 19): each hears the others'
writes (LISTEN/NOTIFY) and catches its tables up from the log, so a client gets every event
once and in order whichever process it talks to; a worker killed mid-write loses nothing
acknowledged; a database restart mid-game is 503s and retries. Real processes, loopback
only. Needs ``TANKREF_TEST_PG`` (skipped without it)."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import connect

from pgkit import fresh_database, raw, throwaway_cluster, url_of
from serverkit import Table, answers_health, duel, free_port, live_referee
from tankref.server.hosted import EXPIRY_REQUEST_ID, expire_abandoned
from tankref.server.pgstore import PgStore
from tankref.server.referee import Referee, rebuild
from tankref.server.schemas import CreateTable

END_PHASE = {"kind": "end_phase"}
LONG_GAME = {"options": {"turn_limit": 200}}  # 400 phases: the clients never run out


def serve_pg(url: str, tmp: Path, *args: str) -> Any:
    """``python -m tankref serve --db URL ARGS``, its output in ``tmp``."""
    return _Serve(url, tmp, args)


@dataclass
class _Serve:
    url: str
    tmp: Path
    args: tuple[str, ...]
    port: int = field(default_factory=free_port)
    proc: subprocess.Popen[bytes] | None = None
    stderr_apart: bool = False  # stderr to its own file (``errors()``), not merged

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> _Serve:
        self.start()
        return self

    def start(self) -> None:
        out = (self.tmp / f"serve-{self.port}.out").open("ab")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tankref", "serve", "--port", str(self.port), "--db", self.url,
             *self.args],
            stdout=out,
            stderr=(self.tmp / f"serve-{self.port}.err").open("ab")
            if self.stderr_apart
            else subprocess.STDOUT,
        )  # fmt: skip
        assert answers_health(self.base, self.proc, 30), self.output()

    def output(self) -> str:
        return (self.tmp / f"serve-{self.port}.out").read_text(errors="replace")

    def errors(self) -> str:
        return (self.tmp / f"serve-{self.port}.err").read_text(errors="replace")

    def stop(self, sig: int = signal.SIGTERM) -> None:
        assert self.proc is not None
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(20)

    def __exit__(self, *exc: object) -> None:
        self.stop()


@dataclass
class Writer:
    """A client that plays its table on for a while: each request sent again (same request
    id) until it is answered, as TTS does; what it was told, kept."""

    base: str
    table: Table
    name: str
    acknowledged: dict[str, int] = field(default_factory=dict)  # request id -> seq
    sent: set[str] = field(default_factory=set)
    statuses: dict[int, int] = field(default_factory=dict)
    retry_after: set[str] = field(default_factory=set)
    codes: list[str] = field(default_factory=list)  # of each refusal
    pause: float = 0.05  # seconds between requests: a table's 400 phases last the run
    over: bool = False
    enough: threading.Event = field(default_factory=threading.Event)  # set: stop now

    def run(self, until: float) -> None:
        with httpx.Client(base_url=self.base, headers=self.table.http.headers, timeout=30) as http:
            n = 0
            while time.monotonic() < until and not self.over and not self.enough.is_set():
                n += 1
                request_id = f"{self.name}-{n}"
                self.sent.add(request_id)
                body = {"request_id": request_id, "action": END_PHASE}
                while True:  # the same request id until answered
                    try:
                        reply = http.post(self.table.path("/actions"), json=body)
                    except httpx.TransportError:  # the worker went away: the next one answers
                        self.statuses[0] = self.statuses.get(0, 0) + 1
                        time.sleep(0.05)
                        continue
                    self.statuses[reply.status_code] = self.statuses.get(reply.status_code, 0) + 1
                    if reply.status_code != 200:
                        self.codes.append(reply.json().get("code", ""))
                    if reply.status_code == 200:
                        self.acknowledged[request_id] = reply.json()["seq"]
                        time.sleep(self.pause)
                        break
                    if reply.status_code == 409 and reply.json()["code"] == "GAME_OVER":
                        self.over = True
                        break
                    assert reply.status_code in (409, 503), reply.text
                    if reply.status_code == 503:
                        self.retry_after.add(reply.headers.get("Retry-After", ""))
                    time.sleep(0.1)


@dataclass
class Twin(Writer):
    """A client whose every request goes to both processes at once (as a retry that lands
    on the other worker while the first is still on its way): both must be answered with
    the one event it logged, applied once."""

    other: str = ""  # the other process's base URL
    twice: list[tuple[dict[str, Any], dict[str, Any]]] = field(default_factory=list)

    def run(self, until: float) -> None:
        headers = self.table.http.headers
        with (
            httpx.Client(base_url=self.base, headers=headers, timeout=30) as here,
            httpx.Client(base_url=self.other, headers=headers, timeout=30) as there,
            ThreadPoolExecutor(2) as pool,
        ):
            n = 0
            while time.monotonic() < until and not self.enough.is_set():
                n += 1
                request_id = f"{self.name}-{n}"
                self.sent.add(request_id)
                body = {"request_id": request_id, "action": END_PHASE}
                asked = [pool.submit(c.post, self.table.path("/actions"), json=body)
                         for c in (here, there)]  # fmt: skip
                replies = [a.result() for a in asked]
                for reply in replies:
                    self.statuses[reply.status_code] = self.statuses.get(reply.status_code, 0) + 1
                if all(r.status_code == 200 for r in replies):
                    first, second = (r.json() for r in replies)
                    self.twice.append((first, second))
                    self.acknowledged[request_id] = first["seq"]
                else:
                    self.codes += [r.json().get("code", "") for r in replies]
                    return


class LongPoller:
    """A TTS-like reader: long-polls the table's events from 0 on, keeping every entry."""

    def __init__(self, base: str, table_id: str) -> None:
        self.base, self.table_id = base, table_id
        self.seqs: list[int] = []
        self.stop = threading.Event()

    def run(self) -> None:
        with httpx.Client(base_url=self.base, timeout=30) as http:
            while not self.stop.is_set():
                after = self.seqs[-1] if self.seqs else 0
                try:
                    page = http.get(
                        f"/tables/{self.table_id}/events", params={"after": after, "wait": 2}
                    )
                except httpx.TransportError:
                    time.sleep(0.05)
                    continue
                if page.status_code != 200:
                    time.sleep(0.1)
                    continue
                self.seqs.extend(e["seq"] for e in page.json()["entries"])


class Streamer:
    """A live page's reader: one WebSocket stream of the table from 0 on."""

    def __init__(self, base: str, table_id: str) -> None:
        self.url = base.replace("http://", "ws://") + f"/tables/{table_id}/stream?after=0"
        self.seqs: list[int] = []
        self.stop = threading.Event()
        self.closed: str | None = None

    def run(self) -> None:
        with connect(self.url, open_timeout=10) as ws:
            while not self.stop.is_set():
                try:
                    text = ws.recv(timeout=0.5)
                except TimeoutError:
                    continue
                except Exception as exc:  # closed by the referee: said in the assertion
                    self.closed = repr(exc)
                    return
                self.seqs.append(json.loads(text)["seq"])


def _threads(targets: list[Any]) -> list[threading.Thread]:
    threads = [threading.Thread(target=t, daemon=True) for t in targets]
    for thread in threads:
        thread.start()
    return threads


def _log(url: str, table_id: str) -> list[tuple[int, str | None]]:
    with raw(url) as db:
        return [
            (int(r[0]), r[1])
            for r in db.execute(
                "SELECT seq, request_id FROM events WHERE table_id = %s ORDER BY seq", (table_id,)
            )
        ]


def _check_log(url: str, table_id: str, writers: list[Writer]) -> list[int]:
    """No seq twice or missing; every acknowledged request's event in the log once, at the
    seq it was told; no request applied twice. The log's seqs."""
    log = _log(url, table_id)
    seqs = [seq for seq, _ in log]
    assert seqs == list(range(1, len(log) + 1))
    ids = [r for _, r in log if r is not None]
    assert len(ids) == len(set(ids))
    at = {r: seq for seq, r in log}
    for writer in writers:
        for request_id, seq in writer.acknowledged.items():
            assert at.get(request_id) == seq, (request_id, seq)
        assert {r for r in ids if r.startswith(f"{writer.name}-")} <= writer.sent
    return seqs


def _replayed(url: str, table_id: str) -> tuple[int, str, dict[str, Any]]:
    """(seq, chain head, public state) of the table replayed from its log alone."""
    store = PgStore(url)
    try:
        row = store.table(table_id)
        assert row is not None
        events = store.events(table_id)
    finally:
        store.close()
    host = rebuild(row, events)
    head = json.loads(events[-1].entry)["chain_sha256"] if events else None
    return host.seq, head, json.loads(json.dumps(host.public_state()))


def _same_as_the_log(base: str, url: str, table_id: str) -> None:
    seq, head, state = _replayed(url, table_id)
    deadline = time.monotonic() + 10
    while True:  # a notification is a moment behind its commit
        read = httpx.get(f"{base}/tables/{table_id}", timeout=30).json()
        if read["seq"] == seq or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert (read["seq"], read["head_sha256"], read["state"]) == (seq, head, state)


@pytest.fixture
def url() -> Iterator[str]:
    with fresh_database() as made:
        yield made


def test_two_workers_one_log_every_reader_hears_every_event_once_in_order(
    url: str, tmp_path: Path
) -> None:
    """Two referee processes on one database, 20 clients over 10 tables (two per table, one
    on each process) for about 12 s, a long-poll and a WebSocket on each process for every
    table: no seq twice, no acknowledged event lost or doubled, every reader got its
    table's every event once and in order, and each process's copy of each table equals a
    replay of its log."""
    with serve_pg(url, tmp_path) as a, serve_pg(url, tmp_path) as b:
        tables = [
            duel((a if n % 2 else b).base, dice_source="server", **LONG_GAME) for n in range(10)
        ]
        writers = [
            Writer(base, table, f"{table.id}-{side}")
            for table in tables
            for side, base in (("a", a.base), ("b", b.base))
        ]
        readers: list[LongPoller | Streamer] = []
        for table in tables:
            for base in (a.base, b.base):
                readers += [LongPoller(base, table.id), Streamer(base, table.id)]
        reading = _threads([r.run for r in readers])
        until = time.monotonic() + 12
        for thread in _threads([lambda w=w: w.run(until) for w in writers]):  # type: ignore[misc]
            thread.join(60)
        assert sum(len(w.acknowledged) for w in writers) > 200
        assert [(w.name, w.statuses, w.codes) for w in writers if set(w.statuses) != {200}] == []
        for table in tables:
            on_table = [w for w in writers if w.table is table]
            seqs = _check_log(url, table.id, on_table)
            for reader in readers:
                if (
                    table.id in getattr(reader, "url", "")
                    or getattr(reader, "table_id", "") == table.id
                ):
                    deadline = time.monotonic() + 15
                    while len(reader.seqs) < len(seqs) and time.monotonic() < deadline:
                        time.sleep(0.05)
                    assert reader.seqs == seqs, (
                        type(reader).__name__,
                        getattr(reader, "closed", None),
                    )
            for base in (a.base, b.base):
                _same_as_the_log(base, url, table.id)
        for reader in readers:
            reader.stop.set()
        for thread in reading:
            thread.join(10)


def _children(pid: int) -> set[int]:
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.add(int(entry.name))
    return found


def _workers(serving: _Serve, count: int, timeout: float = 30, gone: int = 0) -> set[int]:
    """The supervisor's worker processes, once there are ``count`` serving (and ``gone``,
    one just killed, is not one of them: a killed process lingers a moment)."""
    assert serving.proc is not None
    deadline = time.monotonic() + timeout
    while True:
        # spawned interpreters; the spawn start method's resource tracker is one too
        pids = {p for p in _children(serving.proc.pid) if b"spawn_main" in _cmdline(p)}
        pids = {p for p in pids if b"resource_tracker" not in _cmdline(p)}
        if len(pids) == count and gone not in pids:
            return pids
        assert time.monotonic() < deadline, (pids, serving.output())
        time.sleep(0.1)


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def test_kill_9_of_a_worker_mid_write_loses_nothing_acknowledged(url: str, tmp_path: Path) -> None:
    """`tankref serve --workers 2`: one worker killed (SIGKILL) while clients write; the
    supervisor starts another in its place; every acknowledged action is in the log once,
    none doubled (each request sent again until answered), and the new worker's copies
    equal the log."""
    with serve_pg(url, tmp_path, "--workers", "2") as serving:
        first = _workers(serving, 2)
        tables = [duel(serving.base, dice_source="server", **LONG_GAME) for _ in range(4)]
        writers = [Writer(serving.base, t, f"{t.id}-{n}") for t in tables for n in range(2)]
        until = time.monotonic() + 8
        threads = _threads([lambda w=w: w.run(until) for w in writers])  # type: ignore[misc]
        time.sleep(3)
        victim = min(first)
        os.kill(victim, signal.SIGKILL)
        replaced = _workers(serving, 2, gone=victim)
        assert victim not in replaced and len(replaced - first) == 1
        for thread in threads:
            thread.join(60)
        statuses = {s for w in writers for s in w.statuses}
        assert statuses <= {0, 200, 503}, [(w.statuses, w.codes) for w in writers]  # no 409
        for table in tables:
            _check_log(url, table.id, [w for w in writers if w.table is table])
            for _ in range(4):  # whichever worker answers
                _same_as_the_log(serving.base, url, table.id)
        assert sum(len(w.acknowledged) for w in writers) > 50


def test_json_logs_with_workers_are_json_lines_the_supervisors_too(
    url: str, tmp_path: Path
) -> None:
    """`tankref serve --workers 2 --json-logs`: every line on stderr is one JSON object, from
    start to stop, a worker killed and replaced between: the supervisor's own line about it
    too, and no uvicorn start-up line (the banner on stdout says where it serves)."""
    serving = _Serve(url, tmp_path, ("--workers", "2", "--json-logs"), stderr_apart=True)
    with serving:
        first = _workers(serving, 2)
        httpx.get(f"{serving.base}/health", timeout=30)
        os.kill(min(first), signal.SIGKILL)
        _workers(serving, 2, gone=min(first))
        httpx.get(f"{serving.base}/health", timeout=30)
    lines = serving.errors().splitlines()
    said = [json.loads(line) for line in lines]  # each line one JSON object, or this fails
    assert len(said) >= 2 and all(isinstance(x, dict) and "event" in x for x in said)
    assert any(x["level"] == "warning" and "starting another" in x["event"] for x in said)
    assert "Uvicorn running" not in serving.errors() + serving.output()
    assert "tankref referee on http://127.0.0.1:" in serving.output()


@pytest.mark.parametrize("away", [0.0, 1.5], ids=["restart-m-fast", "away-1.5s"])
def test_a_postgresql_fast_restart_mid_game_is_503_retry_after_and_retries(
    tmp_path: Path, away: float
) -> None:
    """A fast restart of PostgreSQL under two workers mid-game (a cluster of the test's
    own): `pg_ctl restart -m fast` as the issue names it, and a stop with the server away
    for 1.5 s before it starts again (a plain restart here is often quicker than any write
    that could see it gone, so only the second proves the 503 path). Writes meanwhile are
    answered 503 with Retry-After and nothing applied; sent again, they succeed; nothing
    acknowledged is lost, and both workers' copies equal the log."""
    with ExitStack() as stack:
        cluster = stack.enter_context(throwaway_cluster())
        with raw_conninfo(cluster.conninfo) as admin:
            admin.execute('CREATE DATABASE "referee"')
        url = url_of(cluster.conninfo, "referee")
        a = stack.enter_context(serve_pg(url, tmp_path))
        b = stack.enter_context(serve_pg(url, tmp_path))
        tables = [duel(base, dice_source="server", **LONG_GAME) for base in (a.base, b.base)]
        writers = [
            Writer(base, t, f"{t.id}-{n}")
            for t in tables
            for n, base in enumerate((a.base, b.base))
        ]
        until = time.monotonic() + 8
        threads = _threads([lambda w=w: w.run(until) for w in writers])  # type: ignore[misc]
        time.sleep(2.5)
        cluster.restart_fast(away=away)
        for thread in threads:
            thread.join(60)
        statuses = {s for w in writers for s in w.statuses}
        if away:
            assert 503 in statuses, [(w.statuses, w.codes) for w in writers]
        assert statuses <= {0, 200, 503}, [(w.statuses, w.codes) for w in writers]  # no lost race
        assert {r for w in writers for r in w.retry_after} == ({"2"} if 503 in statuses else set())
        acknowledged_after = 0
        for table in tables:
            _check_log(url, table.id, [w for w in writers if w.table is table])
            for base in (a.base, b.base):
                _same_as_the_log(base, url, table.id)
            acknowledged_after += len(_log(url, table.id))
        assert acknowledged_after > 40


@contextmanager
def raw_conninfo(conninfo: str) -> Iterator[Any]:
    import psycopg

    with psycopg.connect(conninfo, autocommit=True) as db:
        yield db


def test_workers_need_postgresql(tmp_path: Path) -> None:
    """SQLite stays one process: `--workers 2` on a file is refused in one line, exit 2."""
    done = subprocess.run(
        [sys.executable, "-m", "tankref", "serve", "--port", str(free_port()), "--db",
         str(tmp_path / "t.sqlite3"), "--workers", "2"],
        capture_output=True,
        text=True,
        timeout=60,
    )  # fmt: skip
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1 and "PostgreSQL" in done.stderr


def test_a_worker_that_lost_its_listening_connection_catches_up_every_table(url: str) -> None:
    """The listening connection of one referee cut (the server ended it): it listens again
    and reads the log's tail of every table it holds, so what another process wrote while
    it was not listening reaches its long-polls without a write of its own."""
    with live_referee(url) as one, live_referee(url) as two:
        table = duel(one.url)
        at_two = httpx.Client(base_url=two.url, timeout=30)
        assert at_two.get(table.path()).json()["seq"] == 4  # held by two
        with raw(url) as db:
            cut = db.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = current_database() AND query LIKE 'LISTEN%%'"
            ).fetchall()
            assert len(cut) == 2  # each referee's
        table.ok(table.act({"kind": "wait", "tank_id": "R1"}))  # seq 5, while two is away
        page = at_two.get(table.path("/events"), params={"after": 4, "wait": 10}).json()
        assert [e["seq"] for e in page["entries"]] == [5]
        at_two.close()


def test_a_table_made_on_one_worker_is_found_and_listed_on_the_other(url: str) -> None:
    """A table created through one referee process is read, played and listed through
    another that started before it existed."""
    with live_referee(url) as one, live_referee(url) as two:
        table = duel(one.url)
        listed = httpx.get(f"{two.url}/tables", timeout=30).json()
        assert [t["table_id"] for t in listed] == [table.id]
        at_two = httpx.Client(base_url=two.url, headers=table.http.headers, timeout=30)
        assert at_two.get(table.path()).json()["seq"] == 4
        moved = at_two.post(
            table.path("/actions"), json={"request_id": "on-two", "action": {"kind": "end_phase"}}
        )
        assert moved.status_code == 200, moved.text
        assert table.read()["seq"] == 5
        at_two.close()


def test_a_client_reads_its_own_write_whichever_worker_answers(url: str) -> None:
    """A client whose requests land on either worker (a proxy spreads them): each write on
    one, then at once a read of the table, its log and its tank's options on the other,
    thirty times over; every read shows the write it follows, though the other worker's
    notification of it may still be on its way (the read asks the log's last seq first)."""
    with live_referee(url) as one, live_referee(url) as two:
        table = duel(one.url, **LONG_GAME)
        clients = [
            httpx.Client(base_url=base, headers=table.http.headers, timeout=30)
            for base in (one.url, two.url)
        ]
        try:
            for n in range(30):
                wrote, reads = clients[n % 2], clients[(n + 1) % 2]
                done = wrote.post(
                    table.path("/actions"),
                    json={"request_id": f"phase-{n}", "action": {"kind": "end_phase"}},
                )
                assert done.status_code == 200, done.text
                seq = done.json()["seq"]
                state = reads.get(table.path()).json()
                assert state["seq"] == seq, (n, state["seq"], seq)
                assert state["table"]["active_player"] == ("Blue", "Red")[n % 2]  # Red began
                logged = reads.get(table.path("/log"), params={"after": seq - 1}).json()
                assert [e["seq"] for e in logged["entries"]] == [seq]
                options = reads.get(table.path("/tanks/R1/options"))
                assert options.status_code == 200, options.text
        finally:
            for client in clients:
                client.close()


LIMITED = ("--tables-per-hour", "3", "--forwarded-allow-ips", "127.0.0.1")


def _create(base: str, address: str) -> httpx.Response:
    """A new table asked for by ``address`` (as the proxy on this machine says)."""
    return httpx.post(f"{base}/tables", json={}, headers={"X-Forwarded-For": address}, timeout=30)


def _limited(reply: httpx.Response) -> bool:
    return (
        reply.status_code == 429
        and reply.json()["code"] == "TABLE_CREATION_LIMIT"
        and 3500 <= int(reply.headers["Retry-After"]) <= 3600
    )


def test_the_table_creation_limit_is_one_count_for_both_workers(url: str, tmp_path: Path) -> None:
    """Two referee processes on one database, three tables an hour per address: one
    address's creations alternate between them, three made, then 429 with Retry-After on
    either; another address makes its own; eight creations at once from a third address,
    over both processes: exactly three made."""
    with serve_pg(url, tmp_path, *LIMITED) as a, serve_pg(url, tmp_path, *LIMITED) as b:
        made = [_create(base, "203.0.113.1") for base in (a.base, b.base, a.base)]
        assert [r.status_code for r in made] == [201, 201, 201]
        assert all(_limited(_create(base, "203.0.113.1")) for base in (b.base, a.base, b.base))
        assert _create(b.base, "203.0.113.2").status_code == 201
        assert _create(a.base, "203.0.113.2").status_code == 201
        start = threading.Barrier(8)

        def race(n: int) -> httpx.Response:
            start.wait()
            return _create((a.base, b.base)[n % 2], "203.0.113.3")

        raced: list[httpx.Response] = []
        threads = [threading.Thread(target=lambda n=n: raced.append(race(n))) for n in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        assert sorted(r.status_code for r in raced) == [201] * 3 + [429] * 5
        assert all(_limited(r) for r in raced if r.status_code == 429)
        for base in (a.base, b.base):
            assert len(httpx.get(f"{base}/tables", timeout=30).json()) == 3 + 2 + 3


def test_serve_workers_2_counts_tables_once_whichever_worker_answers(
    url: str, tmp_path: Path
) -> None:
    """`tankref serve --workers 2 --tables-per-hour 3` on one port: three tables made, then
    every further one refused whichever worker takes the connection (each request a new
    connection); another address unaffected."""
    with serve_pg(url, tmp_path, "--workers", "2", *LIMITED) as serving:
        _workers(serving, 2)
        made = [_create(serving.base, "198.51.100.1") for _ in range(3)]
        assert [r.status_code for r in made] == [201, 201, 201]
        assert all(_limited(_create(serving.base, "198.51.100.1")) for _ in range(8))
        assert _create(serving.base, "198.51.100.2").status_code == 201


def test_two_workers_writing_one_table_never_answer_a_lost_race(url: str, tmp_path: Path) -> None:
    """Eight clients on ONE table, four on each of two referee processes, each sending its
    next action the moment the last is answered, and two more sending each request to both
    processes at once, until 300 actions are logged (at most 30 s). Races are lost at the
    database all along (each process logs them), yet no client is ever answered anything
    but 200: a lost write is tried again holding the table. No seq twice or missing, every
    acknowledged action in the log once at the seq it was told, a request sent to both
    answered by both with its one event, and both processes' copies equal the log."""
    with (
        serve_pg(url, tmp_path, "--log-level", "info") as a,
        serve_pg(url, tmp_path, "--log-level", "info") as b,
    ):
        table = duel(a.base, dice_source="server", **LONG_GAME)
        enough = threading.Event()
        writers: list[Writer] = [
            Writer(base, table, f"{side}{n}", pause=0, enough=enough)
            for n in range(4)
            for side, base in (("a", a.base), ("b", b.base))
        ]
        writers += [
            Twin(a.base, table, "twin-ab", pause=0, enough=enough, other=b.base),
            Twin(b.base, table, "twin-ba", pause=0, enough=enough, other=a.base),
        ]
        until = time.monotonic() + 30
        threads = _threads([lambda w=w: w.run(until) for w in writers])  # type: ignore[misc]
        while sum(len(w.acknowledged) for w in writers) < 300 and time.monotonic() < until:
            time.sleep(0.05)
        enough.set()
        for thread in threads:
            thread.join(60)
        assert sum(len(w.acknowledged) for w in writers) >= 300
        assert [(w.name, w.statuses, w.codes) for w in writers if set(w.statuses) != {200}] == []
        _check_log(url, table.id, writers)
        twins = [pair for w in writers if isinstance(w, Twin) for pair in w.twice]
        assert len(twins) > 10
        for first, second in twins:
            assert first["seq"] == second["seq"] and first["entry"] == second["entry"]
            assert sorted([first["replayed"], second["replayed"]]) == [False, True]
        for base in (a.base, b.base):
            _same_as_the_log(base, url, table.id)
        lost = sum(s.output().count("lost to another referee process") for s in (a, b))
    assert lost >= 10  # the races happened: the path that must not lose was taken


def test_a_table_deleted_on_one_worker_is_gone_on_the_other(url: str) -> None:
    """A table deleted through one referee process: the other, which holds it in memory,
    answers 404 like the first (reads, writes, its list), its held long-poll is answered
    404 at once and its stream closed (4404); a table it knew only by its row is gone too,
    and the tables left are served as before."""
    with live_referee(url) as one, live_referee(url) as two:
        table, cold, kept = duel(one.url), duel(one.url), duel(one.url)
        at_two = httpx.Client(base_url=two.url, headers=table.http.headers, timeout=30)
        assert at_two.get(table.path()).json()["seq"] == 4  # held by two
        assert len(at_two.get("/tables").json()) == 3  # cold: a row on two, never opened
        polled: list[httpx.Response] = []
        poll = _threads([lambda: polled.append(at_two.get(
            table.path("/events"), params={"after": 4, "wait": 20}))])  # fmt: skip
        streamed = Streamer(two.url, table.id)
        stream = _threads([streamed.run])
        deadline = time.monotonic() + 10
        while len(streamed.seqs) < 4 and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.3)  # the long-poll is held by now
        started = time.monotonic()
        for gone in (table, cold):
            assert gone.http.delete(gone.path()).status_code == 200
        poll[0].join(15)
        stream[0].join(15)
        assert time.monotonic() - started < 5
        assert [p.status_code for p in polled] == [404]
        assert polled[0].json()["code"] == "UNKNOWN_TABLE"
        assert streamed.seqs == [1, 2, 3, 4] and "4404" in str(streamed.closed)
        for gone in (table, cold):
            assert at_two.get(gone.path()).status_code == 404
            late = at_two.post(gone.path("/actions"), json={"request_id": "late",
                                                            "action": END_PHASE})  # fmt: skip
            assert late.status_code == 404 and late.json()["code"] == "UNKNOWN_TABLE"
            assert at_two.get(gone.path("/log")).status_code == 404
        assert [t["table_id"] for t in at_two.get("/tables").json()] == [kept.id]
        kept_at_two = at_two.post(
            kept.path("/actions"),
            json={"request_id": "on-two", "action": END_PHASE},
            headers=kept.http.headers,
        )
        assert kept_at_two.status_code == 200, kept_at_two.text
        at_two.close()


def _log_lines(serving: _Serve) -> list[dict[str, Any]]:
    """A --json-logs referee's log lines (stderr); its stdout, merged, only says where it
    serves."""
    lines = []
    for line in serving.output().splitlines():
        if line.startswith("{"):
            lines.append(json.loads(line))
        else:  # the banner
            assert "Traceback" not in line and "rror" not in line, line
    return lines


def test_both_workers_expiry_sweeps_end_each_abandoned_table_once(url: str, tmp_path: Path) -> None:
    """Two referee processes, each sweeping for abandoned tables every second (an expiry
    of 1.8 s): each of eight untouched tables, made and read on both, gets exactly one
    end_game event, under the referee's request id; both processes then read every one as
    over, its seed revealed; and neither logs an error."""
    expiry = ("--expire-after-hours", "0.0005", "--json-logs", "--log-level", "info")
    with serve_pg(url, tmp_path, *expiry) as a, serve_pg(url, tmp_path, *expiry) as b:
        tables = [duel((a if n % 2 else b).base, dice_source="server") for n in range(8)]
        for table in tables:
            for serving in (a, b):  # both hold a copy of it
                assert httpx.get(f"{serving.base}{table.path()}", timeout=30).status_code == 200
        deadline = time.monotonic() + 30
        for table in tables:
            for serving in (a, b):
                while True:
                    read = httpx.get(f"{serving.base}{table.path()}", timeout=30).json()
                    if read["table"]["status"] == "over":
                        break
                    assert time.monotonic() < deadline, "never expired"
                    time.sleep(0.1)
                reveal = httpx.get(f"{serving.base}{table.path('/reveal')}", timeout=30)
                assert reveal.json()["matches"] is True
        time.sleep(2.5)  # two more sweeps each: an ended table is not ended again
        for table in tables:
            ends = [e for e in table.log() if e["kind"] == "end_game"]
            assert [e["request_id"] for e in ends] == [EXPIRY_REQUEST_ID], table.id
            assert [e["seq"] for e in table.log()] == list(range(1, 6))
        expired = 0
        for serving in (a, b):
            lines = _log_lines(serving)
            assert [x for x in lines if x["level"] in ("error", "critical")] == []
            expired += sum(1 for x in lines if str(x["event"]).endswith("(ended by the referee)"))
    assert expired == len(tables)  # each claimed by the one process whose end was logged


def test_two_referees_sweeping_at_the_same_moment_end_each_table_once(
    url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """The race the served sweeps only sometimes run into, made certain: two referees on one
    database (as two processes), each holding a copy of six abandoned tables, sweep at the
    same moment on one event loop, so each end is raced for at the database. Each table gets
    exactly one end_game event; the two sweeps between them claim each table once; both
    copies read every table as over; nothing is logged as an error."""
    one, two = Referee(PgStore(url)), Referee(PgStore(url))

    async def run() -> tuple[int, int]:
        for ref in (one, two):
            listening = ref.listen()
            assert listening is not None and await asyncio.to_thread(listening.wait, 10)
        made = [one.create_table(CreateTable.model_validate({})).table_id for _ in range(6)]
        for table_id in made:
            await two.open(table_id)
        later = datetime.now(UTC) + timedelta(hours=48)
        swept = await asyncio.gather(
            expire_abandoned(one, 24.0, now=later), expire_abandoned(two, 24.0, now=later)
        )
        deadline = time.monotonic() + 10
        for ref in (one, two):
            for table_id in made:
                while (await ref.open(table_id)).summary().status != "over":
                    assert time.monotonic() < deadline, "a copy never heard of the end"
                    await asyncio.sleep(0.05)
        return swept[0], swept[1]

    try:
        with caplog.at_level(logging.INFO, logger="tankref.server"):
            first, second = asyncio.run(run())
        assert first + second == 6
        for table_id in one.rows:
            ends = [e for e in one.store.events(table_id) if e.action.get("control") == "end_game"]
            assert [e.request_id for e in ends] == [EXPIRY_REQUEST_ID]
        assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == []
        said = [r.getMessage() for r in caplog.records]
        assert any("lost to another referee process" in m for m in said)  # raced
    finally:
        one.store.close()
        two.store.close()
