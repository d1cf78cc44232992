"""Issue 15, hardening: bad input, bad files and bad bindings must not knock the referee over.

Each test drives the real referee: uvicorn in a thread (``live_referee``) or the real
``tankref serve`` command in its own process (``serve_command``), with real SQLite.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import shutil
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from serverkit import duel, fair_to_the_loop, free_port, live_referee, new_table, serve_command
from tankref.core.ruleset import TankPut
from tankref.server.limits import ConnectionLimits
from tankref.server.referee import Referee
from tankref.server.schemas import CreateTable
from tankref.server.store import EventStore


def test_a_referee_bound_beyond_loopback_still_checks_host_and_origin(tmp_path: Path) -> None:
    """``--host 127.0.0.2`` used to switch the Host check off (``Host: evil.com`` served, a
    foreign Origin could create tables) and ignored ``--allow-host``."""
    with serve_command(
        tmp_path / "r.sqlite3", "--allow-host", "tankref.lan", host="127.0.0.2"
    ) as r:
        port = r.url.rsplit(":", 1)[1]
        evil = httpx.get(f"{r.url}/health", headers={"Host": "evil.com"})
        assert evil.status_code == 400 and evil.json()["code"] == "UNKNOWN_HOST"
        assert "--allow-host" in evil.json()["message"]
        create = httpx.post(
            f"{r.url}/tables",
            json={},
            headers={"Host": f"evil.com:{port}", "Origin": f"http://evil.com:{port}"},
        )
        assert create.status_code == 400
        foreign = httpx.post(f"{r.url}/tables", json={}, headers={"Origin": "http://evil.com"})
        assert foreign.status_code == 403 and foreign.json()["code"] == "FOREIGN_ORIGIN"
        assert httpx.get(f"{r.url}/tables").json() == []  # nothing was created
        # The address it is bound to, and the name given with --allow-host, are answered.
        assert httpx.get(f"{r.url}/health").status_code == 200
        named = httpx.get(f"{r.url}/health", headers={"Host": f"tankref.lan:{port}"})
        assert named.status_code == 200
        own = httpx.post(
            f"{r.url}/tables",
            json={},
            headers={"Host": f"tankref.lan:{port}", "Origin": f"http://tankref.lan:{port}"},
        )
        assert own.status_code == 201, own.text
        # A WebSocket from an unknown host is closed before it is accepted.
        table_id = own.json()["table_id"]
        with httpx.Client() as http:
            ws = http.get(
                f"{r.url}/tables/{table_id}/stream",
                headers={
                    "Host": "evil.com",
                    "Connection": "Upgrade",
                    "Upgrade": "websocket",
                    "Sec-WebSocket-Version": "13",
                    "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
                },
            )
            assert ws.status_code == 403
    warning = r.stderr
    assert "beyond this computer" in warning
    assert "read every table" in warning and "tankref.lan" in warning


def test_a_token_sent_in_the_query_is_refused_and_not_logged(tmp_path: Path) -> None:
    """``?token=`` is no way to send a token (401), and the access log, which names every
    request, names the path without its query string (it used to print the token)."""
    with serve_command(tmp_path / "r.sqlite3") as r:
        created = httpx.post(f"{r.url}/tables", json={}).json()
        secret = created["token"]
        path = f"/tables/{created['table_id']}/actions"
        refused = httpx.post(
            f"{r.url}{path}", params={"token": secret}, json={"request_id": "a", "action": {}}
        )
        assert refused.status_code == 401
        log = httpx.get(f"{r.url}/tables/{created['table_id']}/log", params={"token": secret})
        assert log.status_code == 200
        with connect(
            f"{r.url.replace('http', 'ws')}/tables/{created['table_id']}/stream?token={secret}"
        ):
            pass
    logged = r.stdout + r.stderr
    assert f"POST {path}?[query not logged]" in logged, logged
    assert "WebSocket /tables/" in logged
    assert secret not in logged


def test_a_request_that_applied_nothing_never_applies_later(tmp_path: Path) -> None:
    """A tank PUT that was only drift (``applied`` false), sent again with the same request
    id after the tank moved, used to apply as a new move. An id answers its first result,
    always: also after a restart, and a different request under that id is refused."""
    db = tmp_path / "r.sqlite3"
    with live_referee(db) as live:
        table = duel(live.url)
        drift = {"card": "tiger-i", "player": "Red", "x": 0.1, "z": -20.1, "facing": 1}
        first = table.ok(table.put_tank("R1", **drift, request_id="drift-1"))
        assert first["applied"] is False and first["replayed"] is False
        table.ok(table.put_tank("R1", **{**drift, "x": 0, "z": -17, "facing": 0}))
        before = table.snapshot()
        again = table.ok(table.put_tank("R1", **drift, request_id="drift-1"))
        assert again["applied"] is False and again["replayed"] is True
        assert again["seq"] == first["seq"] and again["entry"] is None
        assert table.snapshot() == before
        other = table.put_tank("R1", **{**drift, "x": 3}, request_id="drift-1")
        assert other.status_code == 409 and other.json()["code"] == "REQUEST_ID_REUSED"
    with live_referee(db) as live:
        table.http.base_url = httpx.URL(live.url)
        after_restart = table.ok(table.put_tank("R1", **drift, request_id="drift-1"))
        assert after_restart["applied"] is False and after_restart["replayed"] is True
        assert table.snapshot() == before


def _big_table(db: Path, events: int) -> str:
    """A table whose log holds ``events`` placements, written through the real referee in
    this process (no HTTP: thousands of requests would take the suite's time)."""

    async def build() -> str:
        store = EventStore(db)
        store.db.execute("PRAGMA synchronous=OFF")  # a test fixture, not a game: no fsyncs
        ref = Referee(store)
        created = ref.create_table(CreateTable.model_validate({"dice": {"seed": "big-table-0"}}))
        host = ref.host(created.table_id)
        for i in range(events):
            put = TankPut(card="tiger-i", player="Red", x=float(i % 40 - 20), z=-20, facing=0)
            await ref.submit(
                host,
                request_id=f"place-{i}",
                request={"place": i},
                build=lambda state, put=put: host.rules.tank_put(state, "R1", put),
            )
        assert host.seq == events
        store.close()
        return created.table_id

    return asyncio.run(build())


def test_exporting_a_big_table_does_not_hold_up_other_clients(tmp_path: Path) -> None:
    """The export of a 7,000-event table used to be built on the event loop: every other
    client waited as long as the export took (about 1.3 s). Now /health answers while
    exports are built, in a small part of the time one takes."""
    db = tmp_path / "big.sqlite3"
    table_id = _big_table(db, 7000)
    with (
        live_referee(db) as live,
        fair_to_the_loop(),
        httpx.Client(base_url=live.url, timeout=60) as http,
    ):
        took: list[float] = []
        done = threading.Event()

        def export_three_times() -> None:
            with httpx.Client(base_url=live.url, timeout=60) as exporter:
                for _ in range(3):
                    start = time.monotonic()
                    reply = exporter.get(f"/tables/{table_id}/export")
                    took.append(time.monotonic() - start)
                    assert reply.status_code == 200
                    assert len(reply.json()["events"]) == 7000
            done.set()

        worker = threading.Thread(target=export_three_times)
        worker.start()
        waits = []
        while not done.is_set():
            start = time.monotonic()
            assert http.get("/health").status_code == 200
            waits.append(time.monotonic() - start)
            time.sleep(0.01)
        worker.join()
    assert len(took) == 3 and len(waits) >= 10
    assert max(waits) < 0.5 * min(took), (max(waits), took)


# --- bad text: refused before anything is stored --------------------------------------------


def _post_raw(url: str, path: str, body: str, token: str | None = None) -> httpx.Response:
    """A body as raw JSON text, so escapes such as a lone surrogate reach the server as sent."""
    headers = {"Content-Type": "application/json"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    return httpx.post(f"{url}{path}", content=body.encode(), headers=headers)


def test_a_lone_surrogate_is_refused_before_a_table_is_stored(tmp_path: Path) -> None:
    """``POST /tables`` with a lone surrogate in a player seed used to save the table and
    answer 500; the table then answered 500 on every read and export, after a restart too.
    Now: 422 naming the field, and no table."""
    db = tmp_path / "r.sqlite3"
    with live_referee(db) as live:
        reply = _post_raw(live.url, "/tables", '{"dice": {"player_seeds": {"Red": "\\ud800"}}}')
        assert reply.status_code == 422, reply.text
        assert reply.json()["field"] == "dice.player_seeds.Red"
        assert "surrogate" in reply.json()["message"]
        as_key = _post_raw(live.url, "/tables", '{"dice": {"player_seeds": {"\\udfff": "x"}}}')
        assert as_key.status_code == 422 and as_key.json()["field"] == "dice.player_seeds"
        assert "key" in as_key.json()["message"]
        assert httpx.get(f"{live.url}/tables").json() == []
    with live_referee(db) as live:
        assert httpx.get(f"{live.url}/tables").json() == []
        assert httpx.get(f"{live.url}/health").json()["tables"] == 0


def test_a_lone_surrogate_die_colour_is_refused_and_changes_nothing(tmp_path: Path) -> None:
    """Table dice whose colour (a key) is a lone surrogate used to answer 500."""
    with live_referee(tmp_path / "r.sqlite3") as live:
        table = duel(live.url)
        before = table.snapshot()
        engage = '{"kind": "engage", "tank_id": "R1", "target_id": "B1"}'
        body = (
            f'{{"request_id": "s1", "action": {engage}, "dice": {{"faces": {{"\\ud83d": [6]}}}}}}'
        )
        reply = _post_raw(live.url, table.path("/actions"), body, table.token)
        assert reply.status_code == 422, reply.text
        assert reply.json()["field"] == "dice.faces"
        assert table.snapshot() == before
        # The request id was not spent: the same id with real dice is a new request.
        assert table.act({"kind": "wait", "tank_id": "R1"}, request_id="s1").status_code < 500


def test_control_bidi_and_zero_width_characters_are_refused_in_names_and_ids(
    tmp_path: Path,
) -> None:
    """``Red`` and ``Red`` + a zero-width space must not both be players; a bidi override
    makes a name read backwards in the log and in chat; a control character breaks a line.
    Each is refused (422 naming the field) in the body, the query and the path."""
    with live_referee(tmp_path / "r.sqlite3") as live:
        for name, problem in (
            ("Red\\u200b", "zero-width"),
            ("Re\\u202ed", "bidi"),
            ("Red\\u2066", "bidi"),
            ("Red\\n", "control"),
            ("Red\\u0007", "control"),
            ("\\ufeffRed", "zero-width"),
        ):
            players = f'[{{"id": "Red", "edge": "south"}}, {{"id": "{name}", "edge": "north"}}]'
            reply = _post_raw(live.url, "/tables", f'{{"setup": {{"players": {players}}}}}')
            assert reply.status_code == 422, (name, reply.text)
            assert reply.json()["field"] == "setup.players.1.id", reply.text
            assert problem in reply.json()["message"]
        assert httpx.get(f"{live.url}/tables").json() == []
        table = duel(live.url)
        before = table.snapshot()
        seed = table.http.post(
            table.path("/seeds"), json={"request_id": "z", "player": "Blue\u200d", "seed": "x"}
        )
        assert seed.status_code == 422 and seed.json()["field"] == "player"
        query = table.http.get(table.path("/log"), params={"after": "1\u202e"})
        assert query.status_code == 422 and query.json()["field"] == "query.after"
        path = table.http.get(f"/tables/{table.id}%00/log")
        assert path.status_code == 422 and path.json()["field"] == "path"
        assert table.snapshot() == before


def test_the_same_name_typed_two_ways_is_one_id(tmp_path: Path) -> None:
    """Text is put in Unicode normal form C before it is used: ``Zoë`` typed with a combining
    diaeresis names the same player as ``Zoë`` typed with one character."""
    with live_referee(tmp_path / "r.sqlite3") as live:
        composed, decomposed = "Zo\u00eb", "Zoe\u0308"
        players = [{"id": composed, "edge": "south"}, {"id": decomposed, "edge": "north"}]
        same = httpx.post(f"{live.url}/tables", json={"setup": {"players": players}})
        assert same.status_code == 422 and "different ids" in same.text
        players[1]["id"] = "Blue"
        table = new_table(live.url, setup={"players": players})
        placed = table.ok(
            table.put_tank("R1", card="tiger-i", player=decomposed, x=0, z=-20, facing=0)
        )
        assert placed["entry"]["tanks"][0]["player"] == composed


def test_a_stream_asked_for_an_impossible_position_is_refused_cleanly(tmp_path: Path) -> None:
    """``/stream?after=99999999999999999999999`` used to end in an unhandled OverflowError
    (a traceback in the console); now the handshake is refused and the referee carries on."""
    with live_referee(tmp_path / "r.sqlite3") as live:
        table = duel(live.url)
        ws = live.url.replace("http://", "ws://")
        for after in ("99999999999999999999999", "-1", "1%00"):
            url = f"{ws}{table.path('/stream')}?after={after}"
            with pytest.raises(InvalidStatus) as refused, connect(url, open_timeout=10):
                pass
            assert refused.value.response.status_code == 403
        with connect(f"{ws}{table.path('/stream')}?after=3", open_timeout=10) as stream:
            assert json.loads(stream.recv(timeout=10))["seq"] == 4
        assert httpx.get(f"{live.url}/health").status_code == 200


# --- a bad row or a bad file ---------------------------------------------------------------


def _two_tables(db: Path) -> tuple[str, str]:
    with live_referee(db) as live:
        good = duel(live.url)
        bad = duel(live.url)
        return good.id, bad.id


def _rows(db: Path) -> list[tuple[object, ...]]:
    raw = sqlite3.connect(db)
    try:
        tables = raw.execute("SELECT * FROM tables ORDER BY id").fetchall()
        events = raw.execute("SELECT * FROM events ORDER BY table_id, seq").fetchall()
        return [*tables, *events]
    finally:
        raw.close()


def _corrupt(db: Path, sql: str, *args: object) -> None:
    raw = sqlite3.connect(db)
    raw.execute(sql, args)
    raw.commit()
    raw.close()


@pytest.mark.parametrize(
    ("damage", "why"),
    [
        ("UPDATE tables SET ruleset = 'chess' WHERE id = ?", "chess"),
        ("UPDATE tables SET setup = '{\"players\": [' WHERE id = ?", "JSON"),
        ("UPDATE tables SET dice = '{\"source\": 7}' WHERE id = ?", "source"),
    ],
    ids=["unknown-ruleset", "cut-json", "bad-dice"],
)
def test_a_table_that_does_not_load_is_set_aside_and_the_others_serve(
    tmp_path: Path, damage: str, why: str
) -> None:
    """A row whose ruleset is unknown used to make ``tankref serve`` exit 3 with a traceback,
    every table unreachable. Now that table is quarantined: listed with the reason in
    /health, every request to it answered 409 with the reason, its rows left untouched; the
    other table plays on."""
    db = tmp_path / "r.sqlite3"
    good, bad = _two_tables(db)
    _corrupt(db, damage, bad)
    rows = _rows(db)
    with serve_command(db) as r:
        health = httpx.get(f"{r.url}/health").json()
        assert health["tables"] == 1
        [aside] = health["quarantined"]
        assert aside["table_id"] == bad and why in aside["reason"]
        for reply in (
            httpx.get(f"{r.url}/tables/{bad}"),
            httpx.get(f"{r.url}/tables/{bad}/log"),
            httpx.post(f"{r.url}/tables/{bad}/actions", json={"request_id": "x", "action": {}}),
        ):
            assert reply.status_code == 409, reply.text
            assert reply.json()["code"] == "TABLE_QUARANTINED" and why in reply.json()["message"]
        assert [t["table_id"] for t in httpx.get(f"{r.url}/tables").json()] == [good]
        table = httpx.get(f"{r.url}/tables/{good}").json()
        assert table["seq"] == 4 and table["damaged"] is None
    assert _rows(db) == rows  # set aside, not repaired or dropped
    assert "Traceback" not in r.stderr and "set aside" in r.stderr
    export = subprocess.run(
        [sys.executable, "-m", "tankref", "export", bad, "--db", str(db)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert export.returncode == 1 and export.stderr.count("\n") == 1, export.stderr
    assert "does not load" in export.stderr and "Traceback" not in export.stderr


def test_a_file_that_is_not_a_tankref_database_refuses_to_start_in_one_line(
    tmp_path: Path,
) -> None:
    """Another program's SQLite file is neither served nor filled with our tables."""
    other = tmp_path / "photos.sqlite3"
    _corrupt(other, "CREATE TABLE albums (name TEXT)")
    done = subprocess.run(
        [sys.executable, "-m", "tankref", "serve", "--db", str(other), "--port", "1"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "not a tankref database" in done.stderr
    raw = sqlite3.connect(other)
    assert raw.execute("SELECT name FROM sqlite_master").fetchall() == [("albums",)]
    raw.close()


@pytest.mark.parametrize("seed", range(6))
def test_random_bit_flips_never_give_a_traceback(tmp_path: Path, seed: int) -> None:
    """Bits flipped at random in the database file used to end in tracebacks. Now the referee
    either refuses to start in one clear line, or starts, sets aside what does not load,
    and answers every table without a 5xx other than 503 (the file cannot be read)."""
    db = tmp_path / "r.sqlite3"
    ids = _two_tables(db)
    data = bytearray(db.read_bytes())  # the referee has stopped: no -wal left to lose
    rng = random.Random(seed)
    for _ in range(12):
        at = rng.randrange(len(data))
        data[at] ^= 1 << rng.randrange(8)
    db.write_bytes(bytes(data))
    port = str(free_port())
    proc = subprocess.run(  # the start-up check alone: does it refuse, and how?
        [sys.executable, "-c", _STARTS, str(db), port],
        capture_output=True,
        text=True,
        timeout=60,
    )
    if proc.returncode != 0:
        assert proc.returncode == 2, proc.stderr
        assert proc.stderr.count("\n") == 1 and "cannot open the database" in proc.stderr
        assert "Traceback" not in proc.stderr
        return
    with serve_command(db) as r:
        for table_id in ids:
            for path in ("", "/log", "/scene", "/export"):
                reply = httpx.get(f"{r.url}/tables/{table_id}{path}")
                assert reply.status_code < 500 or reply.status_code == 503, reply.text
        assert httpx.get(f"{r.url}/health").status_code == 200
    assert "Traceback" not in r.stderr, r.stderr


# What ``tankref serve`` checks before it listens, run alone: exit 0 if it would start.
_STARTS = """
import sys
from pathlib import Path
import tankref.server.serve as serve
serve.RefereeServer.run = lambda self: None  # stop where it would start listening
sys.exit(serve.serve("127.0.0.1", int(sys.argv[2]), Path(sys.argv[1]), log_level="error"))
"""


# --- backup ----------------------------------------------------------------------------------


def test_backup_copies_a_live_database_with_its_newest_actions(tmp_path: Path) -> None:
    """``tankref backup FILE`` while the referee runs: the copy holds every acknowledged
    action, as docs/troubleshooting.md says a plain copy of the file without its ``-wal``
    does not; the copy serves the same table; an existing FILE is never overwritten."""
    db = tmp_path / "live.sqlite3"
    copy = tmp_path / "copy.sqlite3"
    with serve_command(db) as r:
        table = duel(r.url)
        table.ok(table.put_tank("R1", card="tiger-i", player="Red", x=0, z=-17, facing=0))
        state = table.read()
        plain = tmp_path / "plain.sqlite3"
        shutil.copyfile(db, plain)  # what the docs warn about: the -wal left behind
        done = subprocess.run(
            [sys.executable, "-m", "tankref", "backup", str(copy), "--db", str(db)],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr
        assert "backed up 1 table(s), 5 event(s)" in done.stdout and str(copy) in done.stdout
        assert "pages (100%)" in done.stderr
        again = subprocess.run(
            [sys.executable, "-m", "tankref", "backup", str(copy), "--db", str(db)],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert again.returncode == 1 and "already exists" in again.stderr
    assert _event_count(plain) < 5  # the newest actions were only in the -wal file
    assert not Path(f"{copy}-wal").exists()
    with serve_command(copy) as restored:
        assert httpx.get(f"{restored.url}/tables/{table.id}").json() == state


def _event_count(db: Path) -> int:
    raw = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True)
    try:
        return int(raw.execute("SELECT count(*) FROM events").fetchone()[0])
    except sqlite3.DatabaseError:
        return 0  # not even the table list made it into the main file
    finally:
        raw.close()


# --- connections: idle, slow, huge (loopback only, bounded counts and times) ---------------

LIMITS = ConnectionLimits(head_seconds=1.5, keep_alive_seconds=1, max_connections=200)
GRACE = 2.5  # seconds beyond a limit for the server to act on it, on a loaded machine


def _closed_by_server(sock: socket.socket) -> bool:
    """The server closed this socket (EOF or reset), after any reply it sent."""
    sock.settimeout(0.05)
    try:
        while True:
            data = sock.recv(65536)
            if not data:
                return True
    except (TimeoutError, BlockingIOError):
        return False
    except OSError:
        return True


def _connect(url: str) -> socket.socket:
    host, port = url.removeprefix("http://").split(":")
    return socket.create_connection((host, int(port)), timeout=5)


def test_idle_slow_and_stalled_clients_are_let_go_while_health_answers(tmp_path: Path) -> None:
    """Idle sockets, slowloris clients (a header byte now and then) and stalled bodies used to
    be kept for ever. Each is closed once its limit runs out, and /health answers within 1 s
    all the while."""
    with live_referee(tmp_path / "r.sqlite3", limits=LIMITS, body_timeout_seconds=1.5) as live:
        idle = [_connect(live.url) for _ in range(60)]
        kept_alive = []
        for _ in range(10):  # one request answered, then nothing
            sock = _connect(live.url)
            sock.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            kept_alive.append(sock)
        slow = []
        for _ in range(20):
            sock = _connect(live.url)
            sock.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            slow.append(sock)
        stalled = []
        for _ in range(20):
            sock = _connect(live.url)
            sock.sendall(
                b"POST /tables HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                b'Content-Length: 100\r\n\r\n{"dice": '
            )
            stalled.append(sock)
        start = time.monotonic()
        waits = []
        with httpx.Client(base_url=live.url, timeout=5) as http:
            while time.monotonic() - start < LIMITS.head_seconds + GRACE:
                for sock in slow:  # a byte every 0.2 s: never a whole header
                    with contextlib.suppress(OSError):
                        sock.sendall(b"x")
                asked = time.monotonic()
                assert http.get("/health").status_code == 200
                waits.append(time.monotonic() - asked)
                time.sleep(0.2)
        assert max(waits) < 1.0, waits
        assert all(_closed_by_server(s) for s in idle), "idle sockets kept"
        assert all(_closed_by_server(s) for s in kept_alive), "idle keep-alive kept"
        assert all(_closed_by_server(s) for s in slow), "slowloris kept"
        for sock in stalled:
            sock.settimeout(1)
            assert sock.recv(65536).startswith(b"HTTP/1.1 408"), "stalled body kept"
            assert _closed_by_server(sock)
        assert httpx.get(f"{live.url}/tables").json() == []  # no stalled body made a table
        for sock in (*idle, *kept_alive, *slow, *stalled):
            sock.close()


def test_a_huge_request_head_is_refused_before_it_is_read(tmp_path: Path) -> None:
    """A 32 MB header used to be read whole (and 20 unfinished 8 MB ones cost 168 MB). A head
    over 16 KiB now gets 400 and the connection is closed; one under it is served."""
    with live_referee(tmp_path / "r.sqlite3") as live:
        ok = httpx.get(f"{live.url}/health", headers={"X-Big": "a" * 15_000})
        assert ok.status_code == 200
        sock = _connect(live.url)
        sock.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Huge: ")
        sent = 0
        with contextlib.suppress(OSError):  # the server hangs up while we are still sending
            while sent < 32 * 1024 * 1024:
                sock.sendall(b"a" * 65536)
                sent += 65536
        assert sent < 8 * 1024 * 1024, sent  # cut off long before the 32 MB were sent
        sock.settimeout(5)
        with contextlib.suppress(ConnectionResetError):
            assert sock.recv(65536).startswith(b"HTTP/1.1 400")
        sock.close()
        assert httpx.get(f"{live.url}/health").status_code == 200


def test_at_the_cap_idle_sockets_make_room_and_asking_ones_get_503(tmp_path: Path) -> None:
    """More idle sockets than the cap: the oldest are let go at once, so a client that asks
    is answered (200 within 1 s). Sockets that are all asking (a head under way) fill the cap:
    a request is answered 503 at once, not left hanging; once they time out, 200 again."""
    limits = ConnectionLimits(head_seconds=1.5, keep_alive_seconds=1, max_connections=30)
    with live_referee(tmp_path / "r.sqlite3", limits=limits) as live:
        idle = [_connect(live.url) for _ in range(40)]
        asked = time.monotonic()
        assert httpx.get(f"{live.url}/health", timeout=5).status_code == 200
        assert time.monotonic() - asked < 1.0
        assert sum(_closed_by_server(s) for s in idle[:15]) >= 10  # the oldest made room
        for sock in idle:
            sock.close()
        time.sleep(0.3)
        slow = []
        for _ in range(40):
            sock = _connect(live.url)
            sock.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            slow.append(sock)
        asked = time.monotonic()
        assert httpx.get(f"{live.url}/health", timeout=5).status_code == 503
        assert time.monotonic() - asked < 1.0
        time.sleep(limits.head_seconds + 0.5)
        deadline = time.monotonic() + GRACE
        while httpx.get(f"{live.url}/health", timeout=5).status_code != 200:
            assert time.monotonic() < deadline, "still refused once the slow sockets are gone"
            time.sleep(0.1)
        assert all(_closed_by_server(s) for s in slow)
        for sock in slow:
            sock.close()


@pytest.mark.skipif(sys.platform == "win32", reason="ulimit -n is a Unix limit")
def test_under_a_small_file_limit_idle_sockets_never_starve_health(tmp_path: Path) -> None:
    """Under `ulimit -n 256`, 300 idle sockets used to take every file descriptor and /health
    stopped answering. The cap follows the file limit and idle sockets make room: /health
    answers within 1 s all the while."""
    with serve_command(tmp_path / "r.sqlite3", file_limit=256) as live:
        idle = []
        waits = []

        def health() -> None:  # a new client each time: it needs a descriptor of its own
            asked = time.monotonic()
            assert httpx.get(f"{live.url}/health", timeout=5).status_code == 200
            waits.append(time.monotonic() - asked)

        for i in range(300):
            idle.append(_connect(live.url))
            if i % 25 == 0:
                health()
        for _ in range(10):
            health()
        assert max(waits) < 1.0, waits
        assert sum(_closed_by_server(s) for s in idle) >= 300 - 256
        for sock in idle:
            sock.close()


def test_a_body_sent_a_byte_at_a_time_has_the_same_time_as_a_stalled_one(
    tmp_path: Path,
) -> None:
    """The body's time limit is for the whole body, not for each piece: a client sending a
    byte every half second is answered 408 once the limit runs out, and nothing is stored."""
    with live_referee(tmp_path / "r.sqlite3", body_timeout_seconds=1.5) as live:
        sock = _connect(live.url)
        sock.sendall(
            b"POST /tables HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Content-Length: 60\r\n\r\n{"
        )
        start = time.monotonic()
        reply = b""
        sock.settimeout(0.5)
        while not reply and time.monotonic() - start < 1.5 + GRACE:
            with contextlib.suppress(OSError):
                sock.sendall(b" ")
            with contextlib.suppress(TimeoutError):
                reply = sock.recv(65536)
        assert reply.startswith(b"HTTP/1.1 408"), reply
        assert b"BODY_TIMEOUT" in reply
        sock.close()
        assert httpx.get(f"{live.url}/tables").json() == []
