"""Test kit for the referee server: a real uvicorn server on a free loopback port, and a
small client that speaks its HTTP API the way TTS does."""

from __future__ import annotations

import gc
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import uvicorn

from tankref.server.app import create_app
from tankref.server.serve import RefereeServer, referee_config
from tankref.server.settings import Settings


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def wal_commits(db_path: Path) -> int:
    """How many transactions the database's write-ahead log holds: its commit frames (a
    frame whose header gives the database size after it). SQLite's WAL format: a 32-byte
    header (page size at bytes 8-11), then frames of a 24-byte header and one page."""
    data = db_path.with_name(db_path.name + "-wal").read_bytes()
    page = int.from_bytes(data[8:12], "big")
    # The log never restarted (checkpoint sequence 0): every commit since the start is in it.
    assert int.from_bytes(data[12:16], "big") == 0, "the write-ahead log was restarted"
    salts = data[16:24]
    commits = 0
    for at in range(32, len(data) - 24 - page + 1, 24 + page):
        if data[at + 8 : at + 16] != salts:  # a frame left from before the log restarted
            break
        commits += int.from_bytes(data[at + 4 : at + 8], "big") != 0
    return commits


@contextmanager
def fair_to_the_loop() -> Iterator[None]:
    """For a test that times the in-process referee's answers while it computes in a worker
    thread: two stalls of this test process that say nothing of where the work runs are
    taken out. A full collection of the test run's heap stops every thread for tens of ms
    (measured: 20-50 ms, more late in the suite): frozen, the heap so far is not scanned.
    And the GIL convoy: each socket call of a round trip, the client's and the event loop's,
    waits up to one switch interval (5 ms) for the GIL while the worker computes, ~100 ms a
    round trip. A shorter interval shortens the convoy, never work that runs on the loop."""
    gc.collect()
    gc.freeze()
    interval = sys.getswitchinterval()
    sys.setswitchinterval(0.0005)
    try:
        yield
    finally:
        sys.setswitchinterval(interval)
        gc.unfreeze()


@dataclass
class LiveReferee:
    url: str
    db_path: Path | str  # an SQLite file, or a PostgreSQL URL
    server: uvicorn.Server


@contextmanager
def live_referee(
    db_path: Path | str, *, log_level: str = "warning", port: int | None = None, **settings: Any
) -> Iterator[LiveReferee]:
    """The real app under uvicorn in a thread: real sockets, real HTTP, real SQLite (or the
    PostgreSQL database ``db_path`` names, a URL).
    ``port``: a chosen one (to stop the referee and start it again where a client looks)."""
    port = port or free_port()
    db = {"db_url": db_path} if isinstance(db_path, str) else {"db_path": db_path}
    app = create_app(Settings(port=port, **db, **settings))
    server = RefereeServer(referee_config(app, "127.0.0.1", port, log_level), app)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the referee did not start")
        time.sleep(0.02)
    try:
        yield LiveReferee(url=f"http://127.0.0.1:{port}", db_path=db_path, server=server)
    finally:
        server.should_exit = True
        thread.join(20)


@dataclass
class RefereeCommand:
    """``tankref serve`` as its own process (what a user runs): its URL and what it printed."""

    url: str
    proc: subprocess.Popen[bytes]
    stderr_path: Path

    @property
    def stderr(self) -> str:
        return self.stderr_path.read_text(errors="replace")

    @property
    def stdout(self) -> str:  # uvicorn's access log goes here
        return self.stderr_path.with_suffix(".stdout").read_text(errors="replace")


@contextmanager
def serve_command(
    db_path: Path,
    *args: str,
    host: str = "127.0.0.1",
    timeout: float = 20,
    file_limit: int | None = None,
) -> Iterator[RefereeCommand]:
    """``python -m tankref serve --host HOST --port P --db DB ARGS...``, up once /health
    answers (asked by IP address, with a Host header it accepts); stopped afterwards.
    ``file_limit``: the process's ``ulimit -n`` (Unix)."""
    port = free_port()
    stderr_path = db_path.with_name(f"{db_path.name}.{port}.stderr")
    with stderr_path.open("wb") as err, stderr_path.with_suffix(".stdout").open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "tankref", "serve", "--host", host, "--port", str(port),
             "--db", str(db_path), "--log-level", "info", *args],
            stdout=out,
            stderr=err,
            preexec_fn=None if file_limit is None else _file_limit(file_limit),
        )  # fmt: skip
    url = f"http://{host}:{port}"
    try:
        if not answers_health(url, proc, timeout):
            raise RuntimeError(f"the referee did not start:\n{stderr_path.read_text()}")
        yield RefereeCommand(url=url, proc=proc, stderr_path=stderr_path)
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout)


def answers_health(url: str, proc: subprocess.Popen[bytes], timeout: float) -> bool:
    """Whether the referee ``proc`` started answers ``/health`` at ``url`` within ``timeout``
    seconds (False as soon as the process has ended: it never will)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            if httpx.get(f"{url}/health", timeout=1.0).status_code == 200:
                return True
        except httpx.TransportError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            return False
        time.sleep(0.02)


def _file_limit(limit: int) -> Callable[[], None]:
    def apply() -> None:  # in the child, before it runs: its own `ulimit -n`
        import resource

        resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit))

    return apply


class Table:
    """One table on a live referee, with its write token."""

    def __init__(self, url: str, created: dict[str, Any]) -> None:
        self.id: str = created["table_id"]
        self.token: str = created["token"]
        self.created = created
        self.http = httpx.Client(
            base_url=url, timeout=30, headers={"Authorization": f"Bearer {self.token}"}
        )
        self._n = 0

    def seat(self, player: str) -> dict[str, str]:
        """The headers of a write with ``player``'s own seat token (a void, their seed)."""
        return {"Authorization": f"Bearer {self.created['seat_tokens'][player]}"}

    def path(self, rest: str = "") -> str:
        return f"/tables/{self.id}{rest}"

    def next_id(self) -> str:
        self._n += 1
        return f"req-{self._n}"

    # --- writes -------------------------------------------------------------------------
    def put_tank(self, tank_id: str, **body: Any) -> httpx.Response:
        return self.http.put(self.path(f"/tanks/{tank_id}"), json=body)

    def act(
        self,
        action: dict[str, Any],
        *,
        request_id: str | None = None,
        dice: dict[str, Any] | None = None,
        by: object = None,
    ) -> httpx.Response:
        body: dict[str, Any] = {"request_id": request_id or self.next_id(), "action": action}
        if dice is not None:
            body["dice"] = dice
        if by is not None:
            body["by"] = by
        return self.http.post(self.path("/actions"), json=body)

    def ok(self, response: httpx.Response, status: int = 200) -> dict[str, Any]:
        assert response.status_code == status, response.text
        data: dict[str, Any] = response.json()
        return data

    # --- reads --------------------------------------------------------------------------
    def read(self) -> dict[str, Any]:
        return self.ok(self.http.get(self.path()))

    def log(self) -> list[dict[str, Any]]:
        entries: list[dict[str, Any]] = []
        after = 0
        while True:
            page = self.ok(self.http.get(self.path("/log"), params={"after": after, "limit": 500}))
            entries.extend(page["entries"])
            if page["next_after"] is None:
                return entries
            after = page["next_after"]

    def snapshot(self) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """State and log together: what a refused request must leave exactly as it was."""
        return self.read(), self.log()

    def close(self) -> None:
        self.http.close()


def new_table(url: str, **body: Any) -> Table:
    response = httpx.post(f"{url}/tables", json=body, timeout=30)
    assert response.status_code == 201, response.text
    return Table(url, response.json())


def duel(
    url: str, *, dice_source: str = "table", damage_cards: str | None = None, **setup: Any
) -> Table:
    """A started game: Red's Tiger I "R1" at (0,-20) facing north, Blue's Sherman "B1" at
    (0,20) facing south; both crews Scared (table dice: green 1s). Red's phase of turn 1.
    Damage cards are drawn where the dice are rolled unless ``damage_cards`` says."""
    dice = {
        "source": dice_source,
        "seed": "serverkit-duel-0",
        "damage_cards": damage_cards or ("table" if dice_source == "table" else "referee"),
    }
    table = new_table(url, setup=setup, dice=dice)
    table.ok(table.put_tank("R1", card="tiger-i", player="Red", x=0, z=-20, facing=0))
    table.ok(table.put_tank("B1", card="m4a1-sherman", player="Blue", x=0, z=20, facing=180))
    crew_dice = {"faces": {"green": [1, 1]}} if dice_source == "table" else None
    table.ok(table.act({"kind": "crew_roll"}, dice=crew_dice))
    table.ok(table.act({"kind": "start_game"}))
    return table
