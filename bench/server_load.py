"""Referee throughput, CPU and latency under load, next to a bare FastAPI endpoint served the
same way.

Targets (issue 18, on a 2-core machine), each printed as a ratio with PASS or FAIL:

- at saturation (8 clients, each sending its next request as soon as the last is answered):
  engage throughput at least 0.8x the bare endpoint's, and server CPU per request at most
  2.5x the bare endpoint's;
- paced (``--rate 25``: 8 clients x 25 req/s): engage p99 at most 2 ms, or at most 1.3x the
  bare endpoint's p99 in the same run.

Four servers run one after the other, each its own process under uvicorn with the same flags
(127.0.0.1, log level warning, no server header, no proxy headers):

- the referee, ``python -m tankref serve`` on a temporary database (SQLite, WAL,
  synchronous=FULL: every reply waits for the commit that holds its event; concurrent
  writes share a commit, ``tankref.server.store.GroupCommit``);
- a bare FastAPI app (in this file): one POST endpoint that validates a small pydantic body of
  the same shape as an action request and returns a small JSON dict. It is the floor: HTTP,
  routing, pydantic and JSON with no work behind them;
- the same bare app, "bare + durable", which also appends each request as a row to a SQLite
  file of its own (WAL, synchronous=FULL) and answers only after the commit that holds it,
  concurrent requests sharing a commit through the referee's own ``GroupCommit``: what
  durability alone costs. With the engine's share (below) it is the FLOOR the referee cannot
  go under without giving up durability or a correct adjudication; what the referee costs
  beyond bare + durable + engine is its own overhead, printed as such;
- "bare + durable + engine", the same bare app again, whose endpoint also plays each action
  on the table it belongs to through the pure engine (the ruleset's strict parse of the
  action, then ``adjudicate``, the state kept in memory), before its durable row: that floor
  served and measured, not added up. Beside the referee it shows what the referee costs
  around the same rules at the same load: its CPU, its throughput, and, paced, its p99 (which
  no sum of CPU times can give: a request also waits behind the others' service). It is the
  bare endpoint with the two things added, not a bound on each part: its request still goes
  through FastAPI's routing and body validation, which the referee's busiest route skips
  (``routes.actions.QuickAction``), so the referee can come out level with it.

The four run with the referee's process settings (``tankref.server.serve``): the collector's
young threshold, what start-up built frozen out of its full sweeps, the log writer's switch
interval.

Each client gets its own 20 v 20 tables (Meeting Engagement, two lines of tanks 40" apart, no
terrain, server dice with a chosen seed), created and set up before the clock starts. What it
sends is planned beforehand through the pure engine on the same seed: in each phase every
tank that may engage shoots its nearest target, then ``end_phase``; a table is dropped for the
next one once a phase has fewer than 5 engages. So every timed request is a real
adjudication (distinct request id, a logged state change, server dice), about 93% of them
engages, and none is refused (a refusal would be counted as an error). The bare endpoint gets
the same bodies. Latency is measured per request in the client; req/s is the requests done
between the start barrier and the last client finishing. A few requests per client are sent
untimed first (warm-up). ``--clients`` clients share the request budget ``--requests``; each
run stops at ``--seconds`` regardless.

The planning adjudicates every action through the pure engine too, and times it (CPU, in this
process): the engine's share of a request. The referee's CPU per request less that is its
overhead around the rules (HTTP, validation, hashing, the log entry, SQLite), printed
beside the bare endpoint's whole cost.

The clients are threads, each with its own keep-alive ``httpx.Client`` (the default,
``--mode threads``), or asyncio tasks each with an ``httpx.AsyncClient`` (``--mode async``);
on this machine the threads drive the servers harder (the bare endpoint answers about 1.2-2x
more req/s to threads than to asyncio tasks). Even so the clients, one Python process on the
same 2 cores, cannot keep the bare server busy (it uses about a third of a core): its req/s
is partly a measure of the client, which flatters the ratio. So each server's CPU time per
request (Linux /proc) is printed too, and their ratio: what the throughput ratio would be if
the clients could saturate both; then split by thread (the event loop's, and the others: the
log's writer) into user and system time, so the writer's SQLite and sync show apart.
``--rate`` paces each client instead (staggered), for latency at a given load rather than at
saturation: with 8 clients each sending its next request the moment the last is answered, a
request waits behind up to 7 others, so latency at saturation is about 8x the service time
whatever the server.

    python bench/server_load.py --clients 8 --requests 4000 --seconds 20
    python bench/server_load.py --rate 25           # 8 x 25 req/s: latency at 200 req/s
    python bench/server_load.py --profile-server /tmp/referee.prof --requests 2000
    python bench/server_load.py --spy-server /tmp/referee.txt  # py-spy (PyPI) on PATH
    python bench/server_load.py --spy-server /tmp/referee.txt --spy-bare /tmp/durable.txt
    python bench/server_load.py --spy-server /tmp/referee.txt --spy-floor /tmp/floor.txt
    python bench/server_load.py --bare-http referee  # the bare endpoints on the referee's HTTP
    python bench/server_load.py --db postgresql://USER@HOST/DB --workers 2

``--db postgresql://...`` also runs the referee on PostgreSQL with ``--workers`` processes
(issue 19), in the same run, on a fresh database it makes on that server (its user may create
databases) and drops afterwards, with the same clients and the same planned actions: its row
and its throughput and CPU per request as ratios to the one SQLite worker's.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import pstats
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
from fastapi import FastAPI
from pydantic import BaseModel, ConfigDict, Field

from tankref.server.store import GroupCommit

if TYPE_CHECKING:
    from tankref.rulesets.ttt.state import Options, TableState

TARGET_RATIO = 0.8  # at saturation: engage req/s at least 0.8x the bare endpoint's
TARGET_CPU_RATIO = 2.5  # at saturation: server CPU per request at most 2.5x the bare's
TARGET_P99_MS = 2.0  # paced: engage p99 at most 2 ms ...
TARGET_P99_RATIO = 1.3  # ... or at most 1.3x the bare endpoint's p99
SPY_RATE = 250  # py-spy's samples a second
MIN_REQUESTS = 200  # fewer cannot be timed: a CPU clock ticks every 10 ms
TANKS_A_SIDE = 20
MIN_ENGAGES_A_PHASE = 5  # fewer: the table is used up, the client moves to its next one
WARMUP = 10  # untimed requests per client before the clock starts
HOST = "127.0.0.1"
CPU_PARTS = ("loop user", "loop sys", "other user", "other sys")


# --- the bare endpoint --------------------------------------------------------------------


class BareBody(BaseModel):
    """The bare endpoint's body: the shape of an action request, validated the same way."""

    model_config = ConfigDict(extra="forbid")
    request_id: str = Field(min_length=1, max_length=100, pattern=r"^[A-Za-z0-9._:-]+$")
    action: dict[str, Any]


def bare_app(durable: Path | None = None, tables: dict[str, TableState] | None = None) -> FastAPI:
    """One POST endpoint with a small pydantic body and a small JSON reply; /health for
    start-up. Nothing else.

    ``durable``: the floor durability sets, what the referee cannot go under without giving
    it up: each request is also appended as a row to this SQLite file (WAL,
    ``synchronous=FULL``) and answered only once the commit that holds it is on disk,
    concurrent requests sharing a commit through the referee's own group commit
    (``tankref.server.store.GroupCommit``).

    ``tables`` (with ``durable``): the floor the rules add, served. ``POST /engine/{table}``
    also plays the action on that table's state through the pure engine (the ruleset's
    strict parse of the action, as the referee parses it, then its ``adjudicate``), keeps the
    new state and logs the request as ``/echo`` does: what the rules and durability add to
    the bare endpoint, and nothing else (no idempotency, no result in the log or the reply,
    no hash chain, no live page). Not a bound on each part: its request still takes
    FastAPI's route, which the referee's busiest one skips."""
    app = FastAPI(title="bare")
    seen = {"n": 0}
    writer = None if durable is None else durable_log(durable)

    @app.post("/echo")
    async def echo(body: BareBody) -> dict[str, Any]:
        seen["n"] += 1
        seq = seen["n"]
        if writer is not None:
            await writer.write(INSERT_REQUEST, (seq, body.request_id, body.model_dump_json()))
        return {"applied": True, "seq": seq, "request_id": body.request_id}

    if tables is not None:
        from tankref.rulesets import get_ruleset

        if writer is None:
            raise ValueError("the engine's floor is served durable: give both")
        rules = get_ruleset("ttt")

        @app.post("/engine/{table}")
        async def engine(table: str, body: BareBody) -> dict[str, Any]:
            action = rules.parse_action(body.action)
            tables[table] = rules.adjudicate(tables[table], action).state
            seen["n"] += 1
            seq = seen["n"]
            assert writer is not None  # (checked above; for mypy in this closure)
            await writer.write(INSERT_REQUEST, (seq, body.request_id, body.model_dump_json()))
            return {"applied": True, "seq": seq, "request_id": body.request_id}

    @app.get("/health")
    async def health() -> dict[str, str]:
        return {"status": "ok"}

    return app


INSERT_REQUEST = "INSERT INTO requests (seq, request_id, body) VALUES (?, ?, ?)"


def durable_log(path: Path) -> GroupCommit:
    """The bare + durable endpoint's log: one append-only table in WAL mode, written through
    the referee's group commit at the referee's ``synchronous=FULL``."""
    db = sqlite3.connect(path, isolation_level=None)
    try:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute(
            "CREATE TABLE IF NOT EXISTS requests "
            "(seq INTEGER PRIMARY KEY, request_id TEXT NOT NULL, body TEXT NOT NULL)"
        )
    finally:
        db.close()
    return GroupCommit(path, synchronous=2)


def serve_bare(
    port: int,
    log_level: str,
    durable: Path | None = None,
    *,
    referee_http: bool = False,
    engine: Path | None = None,
) -> int:
    """The bare app under uvicorn, configured as ``tankref.server.serve.serve`` configures
    the referee; its HTTP protocol uvicorn's own (the issue's baseline) or, with
    ``referee_http``, the referee's (``tankref.server.limits.protocol_class``: its limits,
    and a reply's head and body in one write), for a like-for-like comparison. ``engine``:
    a plans file (``write_floor_plans``): its tables are set up (untimed, before /health
    answers) for ``/engine/{table}``.

    The process runs as ``tankref serve`` runs the referee (``serve._tune``): the log
    writer's switch interval, the collector's young threshold, and what start-up built
    frozen out of full sweeps (the engine's tables, as the referee's loaded ones)."""
    import gc

    import uvicorn

    from tankref.server.limits import ConnectionLimits, protocol_class
    from tankref.server.serve import WRITER_SWITCH_INTERVAL, YOUNG_GC_THRESHOLD

    sys.setswitchinterval(WRITER_SWITCH_INTERVAL)
    gc.set_threshold(YOUNG_GC_THRESHOLD, 10, 10)
    tables = None if engine is None else floor_tables(engine)
    app = bare_app(durable, tables)
    gc.freeze()
    config = uvicorn.Config(
        app,
        host=HOST,
        port=port,
        log_level=log_level,
        http=protocol_class(ConnectionLimits()) if referee_http else "auto",
        ws="websockets-sansio",
        server_header=False,
        proxy_headers=False,
    )
    uvicorn.Server(config).run()
    return 0


# --- the work -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Call:
    method: str
    path: str
    body: dict[str, Any]
    token: str
    engage: bool
    engine_ns: int = 0  # what the pure engine took to adjudicate it (CPU, in this process)
    table: str = ""  # the seed of the table it is sent to (its plan's)


@dataclass
class TablePlan:
    seed: str
    setup: dict[str, Any]
    places: list[dict[str, Any]]  # PUT /tanks/{tank_id} bodies, with "tank_id"
    actions: list[dict[str, Any]]  # action bodies after start_game, in order
    engine_ns: list[int]  # CPU the pure engine took to adjudicate each action, in order


def plan_table(seed: str) -> TablePlan:
    """A 20 v 20 table and the actions to send to it, decided by the pure engine on ``seed``
    (the referee rolls the same dice: same seed, same counter)."""
    from tankref.rulesets.ttt.actions import EndPhase, Engage
    from tankref.rulesets.ttt.cards import default_cards
    from tankref.rulesets.ttt.engine import adjudicate, options_for

    cards = sorted(default_cards().tanks)
    places: list[dict[str, Any]] = []
    for player, z, facing in (("Red", -20.0, 0.0), ("Blue", 20.0, 180.0)):
        for i in range(TANKS_A_SIDE):
            x = round(-33 + i * 66 / (TANKS_A_SIDE - 1), 2)
            put = {"card": cards[i % len(cards)], "player": player, "x": x, "z": z}
            places.append({"tank_id": f"{player[0]}{i + 1}", "facing": facing, **put})
    state = started_table(seed, places)
    actions: list[dict[str, Any]] = []
    engine_ns: list[int] = []
    clock = time.thread_time_ns

    def adjudicated(action: Engage | EndPhase) -> TableState:
        t0 = clock()
        after = adjudicate(state, action).state
        engine_ns.append(clock() - t0)
        actions.append(action.model_dump(mode="json", exclude_none=True))
        return after

    while state.status == "playing":
        player = state.active_player
        engages = 0
        own = sorted(t.id for t in state.tanks.values() if t.player == player and t.in_play)
        for tank_id in own:
            engage = next(
                (o for o in options_for(state, tank_id) if o.kind == "engage" and o.allowed),
                None,
            )
            if engage is None or engage.detail is None:
                continue
            target = min(engage.detail["targets"], key=lambda t: (t["range"], t["target_id"]))
            state = adjudicated(Engage(tank_id=tank_id, target_id=target["target_id"]))
            engages += 1
            if state.status != "playing":
                break
        if state.status != "playing" or engages < MIN_ENGAGES_A_PHASE:
            break
        state = adjudicated(EndPhase(player=player))
    return TablePlan(
        seed=seed,
        setup={"options": table_options().model_dump(mode="json")},
        places=places,
        actions=actions,
        engine_ns=engine_ns,
    )


def table_options() -> Options:
    from tankref.rulesets.ttt.state import Options

    return Options(turn_limit=200)


def started_table(seed: str, places: list[dict[str, Any]]) -> TableState:
    """A table as the referee sets it up for the clients (the pure engine): the options, the
    server's dice on ``seed``, the tanks placed, crews rolled, the game started."""
    from tankref.core.dice import DiceState
    from tankref.rulesets.ttt.actions import CrewRoll, PlaceTank, StartGame
    from tankref.rulesets.ttt.engine import adjudicate, new_table

    state = new_table(options=table_options(), dice=DiceState(seed=seed, source="server"))
    for place in places:
        state = adjudicate(state, PlaceTank(**place)).state
    for action in (CrewRoll(), StartGame()):
        state = adjudicate(state, action).state
    return state


def write_floor_plans(path: Path, plans: list[list[TablePlan]]) -> None:
    """Every planned table's seed and tanks, for the engine's floor (``floor_tables``)."""
    tables = [{"seed": p.seed, "places": p.places} for client in plans for p in client]
    path.write_text(json.dumps(tables))


def floor_tables(path: Path) -> dict[str, TableState]:
    """The tables of a plans file, each set up as the referee's (``started_table``), by seed."""
    return {t["seed"]: started_table(t["seed"], t["places"]) for t in json.loads(path.read_text())}


def plan_client(client: int, budget: int) -> list[TablePlan]:
    plans: list[TablePlan] = []
    while sum(len(p.actions) for p in plans) < budget + WARMUP:
        plans.append(plan_table(f"server-load-{client}-{len(plans)}"))
    return plans


def prepare(url: str, plans: list[TablePlan], client: int) -> list[Call]:
    """Create and set up this client's tables (untimed); the calls to time, in order."""
    calls: list[Call] = []
    with httpx.Client(base_url=url, timeout=30) as http:
        for k, plan in enumerate(plans):
            made = http.post(
                "/tables",
                json={"ruleset": "ttt", "setup": plan.setup, "dice": {"seed": plan.seed}},
            )
            made.raise_for_status()
            table_id, token = made.json()["table_id"], made.json()["token"]
            auth = {"Authorization": f"Bearer {token}"}
            for place in plan.places:
                body = {key: value for key, value in place.items() if key != "tank_id"}
                reply = http.put(
                    f"/tables/{table_id}/tanks/{place['tank_id']}", json=body, headers=auth
                )
                reply.raise_for_status()
            for n, action in enumerate(({"kind": "crew_roll"}, {"kind": "start_game"})):
                body = {"request_id": f"setup-{n}", "action": action}
                http.post(f"/tables/{table_id}/actions", json=body, headers=auth).raise_for_status()
            for n, (action, ns) in enumerate(zip(plan.actions, plan.engine_ns, strict=True)):
                body = {"request_id": f"c{client}-t{k}-{n:05d}", "action": action}
                engage = action["kind"] == "engage"
                path = f"/tables/{table_id}/actions"
                calls.append(Call("POST", path, body, token, engage, ns, plan.seed))
    return calls


def bare_calls(calls: list[Call]) -> list[Call]:
    """The same bodies, to the bare endpoint."""
    return [Call("POST", "/echo", c.body, c.token, c.engage) for c in calls]


def floor_calls(calls: list[Call]) -> list[Call]:
    """The same bodies, to the engine's floor, each to its own table."""
    return [Call("POST", f"/engine/{c.table}", c.body, c.token, c.engage) for c in calls]


# --- the servers --------------------------------------------------------------------------


def cpu_pressure() -> str:
    """Linux's CPU pressure (PSI): the share of the last 10 and 60 s in which some runnable
    task waited for a core. Read before the run, other work on a shared machine shows here
    (the load average counts this run's planning too); during the run, this run's own
    clients and server would. Above a few percent, the run's figures are noise as much as
    measurement. Two limits: a bench run that ended within the last minute shows here too
    (leave a minute between runs for the 60 s figure to say anything), and a virtual
    machine's host can slow a run with none of it showing inside (the bare endpoint's own
    CPU per request, against other runs on the same machine, is then the sign)."""
    try:
        line = Path("/proc/pressure/cpu").read_text().splitlines()[0]
    except (OSError, IndexError):
        return "CPU pressure: not known (no /proc/pressure/cpu)"
    fields = dict(part.split("=", 1) for part in line.split()[1:] if "=" in part)
    return f"CPU pressure {fields.get('avg10', '?')}% (10 s), {fields.get('avg60', '?')}% (60 s)"


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind((HOST, 0))
        port: int = s.getsockname()[1]
        return port


@dataclass
class Server:
    url: str
    proc: subprocess.Popen[bytes]

    def cpu_split(self) -> dict[str, float]:
        """The server's CPU so far, split: the event loop's thread and the others (the log's
        writer, uvicorn's), each user and system time (Linux /proc; else empty)."""
        split = dict.fromkeys(CPU_PARTS, 0.0)
        tick = os.sysconf("SC_CLK_TCK")
        try:
            tasks = list(Path(f"/proc/{self.proc.pid}/task").iterdir())
        except OSError:
            return {}
        for task in tasks:
            try:
                fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:  # a thread that ended meanwhile
                continue
            where = "loop" if task.name == str(self.proc.pid) else "other"
            split[f"{where} user"] += int(fields[11]) / tick
            split[f"{where} sys"] += int(fields[12]) / tick
        return split


@contextmanager
def server(command: list[str], port: int) -> Iterator[Server]:
    url = f"http://{HOST}:{port}"
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=err)
        try:
            deadline = time.monotonic() + 30
            while True:
                try:
                    if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                if proc.poll() is not None or time.monotonic() > deadline:
                    err.seek(0)
                    raise SystemExit(f"{command[:4]} did not start: {err.read().decode()}")
                time.sleep(0.05)
            yield Server(url, proc)
        finally:
            proc.send_signal(signal.SIGINT)  # Ctrl+C: a clean stop (a profile gets written)
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)


def py_spy() -> str:
    """py-spy's path: on PATH, or beside this interpreter (a venv's ``bin`` that is not on
    PATH); SystemExit with what to do when it is in neither."""
    beside = Path(sys.executable).with_name("py-spy")
    found = shutil.which("py-spy") or (str(beside) if beside.exists() else None)
    if found is None:
        raise SystemExit(
            "server_load.py: py-spy is neither on PATH nor beside this Python "
            f"({beside.parent}); install it with: {sys.executable} -m pip install py-spy"
        )
    return found


@contextmanager
def spying(pid: int, out: str | None) -> Iterator[None]:
    """py-spy sampling process ``pid`` meanwhile (``out``: its collapsed stacks; None: no)."""
    if out is None:
        yield
        return
    command = [py_spy(), "record", "--pid", str(pid), "--rate", str(SPY_RATE), "--nonblocking",
               "--threads", "--format", "raw", "--output", out]  # fmt: skip
    spy = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(0.5)  # attached before the clock starts
    try:
        yield
    finally:
        spy.send_signal(signal.SIGINT)  # py-spy writes what it has on Ctrl+C
        spy.wait(30)


def print_spied(
    path: Path,
    name: str = "referee",
    top: int = 30,
    per_request: tuple[int, int] | None = None,
) -> None:
    """Where a server's samples went: each function's own share (its leaf samples), and
    the share spent under it (inclusive), both of every sample taken. ``per_request``: the
    sampling rate (Hz) and the requests timed meanwhile, to print each own share as ms of
    sampled time a request too (a thread waiting in a system call, such as fsync, is
    sampled as busy: that is time, not CPU)."""
    own: dict[str, int] = {}
    under: dict[str, int] = {}
    total = 0
    for line in path.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if not count.isdigit():
            continue
        n = int(count)
        total += n
        frames = [f.rsplit(":", 1)[0] + ")" if ":" in f else f for f in stack.split(";")]
        own[frames[-1]] = own.get(frames[-1], 0) + n
        for frame in set(frames):
            under[frame] = under.get(frame, 0) + n
    ms = 0.0 if per_request is None else 1000 / per_request[0] / per_request[1]
    column = " / ms a request" if ms else ""
    print(f"\n{name}, py-spy ({path}, {total} samples): own share / under it{column}")
    for frame, n in sorted(own.items(), key=lambda kv: -kv[1])[:top]:
        each = f" {n * ms:6.3f}" if ms else ""
        print(f"{100 * n / total:6.1f}% {100 * under[frame] / total:6.1f}%{each}  {frame[:100]}")
    print("under it, the biggest:")
    for frame, n in sorted(under.items(), key=lambda kv: -kv[1])[: top * 2]:
        print(f"{100 * n / total:6.1f}%  {frame[:110]}")


# --- the clients --------------------------------------------------------------------------


@dataclass
class Tally:
    engage_ns: list[int] = field(default_factory=list)
    other_ns: list[int] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    engine_ns: int = 0  # the pure engine's CPU for the requests done (planned in process)
    wall_s: float = 0.0
    cpu: dict[str, float] = field(default_factory=dict)  # the server's, in the timed window

    @property
    def cpu_s(self) -> float:
        return sum(self.cpu.values())

    @property
    def requests(self) -> int:
        return len(self.engage_ns) + len(self.other_ns)

    def add(self, other: Tally) -> None:
        self.engage_ns += other.engage_ns
        self.other_ns += other.other_ns
        self.errors += other.errors
        self.engine_ns += other.engine_ns

    def record(self, call: Call, status: int, text: str, ns: int) -> None:
        if status != 200:
            shown = f"{call.body['request_id']}: {status} {text[:200]}"
            self.errors.append(shown if len(self.errors) < 5 else "")
        (self.engage_ns if call.engage else self.other_ns).append(ns)
        self.engine_ns += call.engine_ns


@dataclass(frozen=True)
class Load:
    seconds: float  # time cap
    rate: float  # requests/s per client; 0: the next as soon as the last is answered
    clients: int

    def due(self, client: int, n: int) -> float:
        """When client ``client`` sends its ``n``-th request, in seconds from the start: the
        clients take turns (staggered), so paced requests do not arrive in bursts."""
        return (n + client / self.clients) / self.rate


def _used(before: dict[str, float], after: dict[str, float]) -> dict[str, float]:
    """CPU used between two ``cpu_split`` readings (a thread gone meanwhile: not counted)."""
    return {part: max(0.0, after.get(part, 0.0) - before.get(part, 0.0)) for part in after}


def _auth(call: Call) -> dict[str, str]:
    return {"Authorization": f"Bearer {call.token}"}


def run_threads(target: Server, work: list[list[Call]], load: Load) -> Tally:
    """One thread per client, each with its own keep-alive ``httpx.Client``."""
    tallies = [Tally() for _ in work]
    barrier = threading.Barrier(len(work) + 1)
    clock = time.perf_counter

    def client(c: int, calls: list[Call], tally: Tally) -> None:
        with httpx.Client(base_url=target.url, timeout=30) as http:
            for call in calls[:WARMUP]:
                http.post(call.path, json=call.body, headers=_auth(call))
            barrier.wait()
            started = clock()
            for n, call in enumerate(calls[WARMUP:]):
                if load.rate:
                    time.sleep(max(0.0, started + load.due(c, n) - clock()))
                t0 = time.perf_counter_ns()
                reply = http.post(call.path, json=call.body, headers=_auth(call))
                tally.record(call, reply.status_code, reply.text, time.perf_counter_ns() - t0)
                if clock() - started > load.seconds:
                    break

    threads = [
        threading.Thread(target=client, args=(c, calls, tally), daemon=True)
        for c, (calls, tally) in enumerate(zip(work, tallies, strict=True))
    ]
    for t in threads:
        t.start()
    barrier.wait()
    started, cpu = clock(), target.cpu_split()
    for t in threads:
        t.join()
    total = Tally(wall_s=clock() - started, cpu=_used(cpu, target.cpu_split()))
    for tally in tallies:
        total.add(tally)
    return total


def run_async(target: Server, work: list[list[Call]], load: Load) -> Tally:
    """One asyncio task per client, each with its own keep-alive ``httpx.AsyncClient``."""
    clock = time.perf_counter

    async def main() -> Tally:
        tallies = [Tally() for _ in work]
        ready = asyncio.Barrier(len(work) + 1)

        async def client(c: int, calls: list[Call], tally: Tally) -> None:
            async with httpx.AsyncClient(base_url=target.url, timeout=30) as http:
                for call in calls[:WARMUP]:
                    await http.post(call.path, json=call.body, headers=_auth(call))
                await ready.wait()
                started = clock()
                for n, call in enumerate(calls[WARMUP:]):
                    if load.rate:
                        await asyncio.sleep(max(0.0, started + load.due(c, n) - clock()))
                    t0 = time.perf_counter_ns()
                    reply = await http.post(call.path, json=call.body, headers=_auth(call))
                    ns = time.perf_counter_ns() - t0
                    tally.record(call, reply.status_code, reply.text, ns)
                    if clock() - started > load.seconds:
                        break

        tasks = [
            asyncio.create_task(client(c, calls, tally))
            for c, (calls, tally) in enumerate(zip(work, tallies, strict=True))
        ]
        await ready.wait()
        started, cpu = clock(), target.cpu_split()
        await asyncio.gather(*tasks)
        total = Tally(wall_s=clock() - started, cpu=_used(cpu, target.cpu_split()))
        for tally in tallies:
            total.add(tally)
        return total

    return asyncio.run(main())


# --- the report ---------------------------------------------------------------------------


def pct(values: list[int], q: int) -> float:
    """The q-th percentile, in ms."""
    if len(values) < 2:
        return values[0] / 1e6 if values else float("nan")
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1] / 1e6


def row(name: str, n: int, rate: float | None, lat: list[int], cpu_ms: float | None) -> str:
    shown_rate = "" if rate is None else f"{rate:,.0f}"
    shown_cpu = "" if cpu_ms is None else f"{cpu_ms:.2f}"
    return f"{name:<20}{n:>9}{shown_rate:>9}{pct(lat, 50):>9.2f}{pct(lat, 99):>9.2f}{shown_cpu:>12}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Engage req/s and p50/p99 latency of the referee next to a bare FastAPI "
        "endpoint, both under uvicorn on loopback, N concurrent clients."
    )
    parser.add_argument("--clients", type=int, default=8, help="concurrent clients (default 8)")
    parser.add_argument(
        "--requests", type=int, default=4000, help="timed requests in all, per server (4000)"
    )
    parser.add_argument("--seconds", type=float, default=20.0, help="time cap per server (20)")
    parser.add_argument(
        "--rate",
        type=float,
        default=0.0,
        help="requests/s per client, paced (default 0: each client sends its next request "
        "as soon as the last is answered, i.e. saturation)",
    )
    parser.add_argument(
        "--mode",
        choices=("threads", "async"),
        default="threads",
        help="clients as threads (default) or asyncio tasks",
    )
    parser.add_argument("--strict", action="store_true", help="exit 1 when a target is missed")
    parser.add_argument(
        "--profile-server",
        metavar="FILE",
        help="run the referee under cProfile, write its stats to FILE and print the top (the "
        "profiler slows it down: figures are then not comparable)",
    )
    parser.add_argument(
        "--spy-server",
        metavar="FILE",
        help="sample the referee with py-spy (on PATH; from PyPI) while it is timed, write "
        "the collapsed stacks to FILE and print where its time goes (slows it a little)",
    )
    parser.add_argument(
        "--spy-bare",
        metavar="FILE",
        help="sample the bare + durable endpoint (the floor with the same commit hand-off) "
        "with py-spy while it is timed, write its collapsed stacks to FILE and print where its "
        "time goes, each share also as ms a request: to set beside --spy-server's",
    )
    parser.add_argument(
        "--spy-floor",
        metavar="FILE",
        help="sample the bare + durable + engine endpoint (the floor with the same rules) "
        "with py-spy while it is timed, write its collapsed stacks to FILE and print where its "
        "time goes, each share also as ms a request: to set beside --spy-server's",
    )
    parser.add_argument(
        "--spy-workers",
        metavar="FILE",
        help="with --db: sample each PostgreSQL worker with py-spy while it is timed, write "
        "their collapsed stacks together to FILE and print where their time goes",
    )
    parser.add_argument("--serve-bare", type=int, metavar="PORT", help=argparse.SUPPRESS)
    parser.add_argument(
        "--bare-http",
        choices=("uvicorn", "referee"),
        default="uvicorn",
        help="the bare endpoints' HTTP protocol: uvicorn's own (default, the issue's "
        "baseline) or the referee's (like for like: its reply in one write)",
    )
    parser.add_argument(
        "--db",
        metavar="URL",
        help="also run the referee on this PostgreSQL server (postgresql://...; a fresh "
        "database is made there and dropped) with --workers processes, beside SQLite's one",
    )
    parser.add_argument(
        "--workers", type=int, default=2, help="worker processes on PostgreSQL (default 2)"
    )
    parser.add_argument("--durable", type=Path, metavar="DB", help=argparse.SUPPRESS)
    parser.add_argument("--engine", type=Path, metavar="PLANS", help=argparse.SUPPRESS)
    parser.add_argument("--log-level", default="warning", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve_bare is not None:
        return serve_bare(
            args.serve_bare,
            args.log_level,
            args.durable,
            referee_http=args.bare_http == "referee",
            engine=args.engine,
        )

    if args.requests < MIN_REQUESTS:
        # the servers' CPU clocks tick too coarsely to divide among fewer
        parser.error(f"--requests: at least {MIN_REQUESTS} timed requests, not {args.requests}")
    if args.spy_server or args.spy_workers or args.spy_bare or args.spy_floor:
        py_spy()  # before minutes of set-up, not after
    per_client = max(1, args.requests // args.clients)
    load = Load(seconds=args.seconds, rate=args.rate, clients=args.clients)
    t0 = time.perf_counter()
    plans = [plan_client(c, per_client) for c in range(args.clients)]
    planned = sum(len(p.actions) for client in plans for p in client)
    pace = f"paced at {args.rate:g} req/s each" if args.rate else "each as fast as answered"
    print(
        f"planned {sum(len(c) for c in plans)} tables of {TANKS_A_SIDE} v {TANKS_A_SIDE}, "
        f"{planned} actions, in {time.perf_counter() - t0:.1f}s; {args.clients} clients "
        f"({args.mode}, {pace}), {per_client} timed requests each, cap {args.seconds:g}s"
    )
    load_avg = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(
        f"machine: {os.cpu_count()} cores, load average {load_avg} before the run; "
        f"{cpu_pressure()}; the bare endpoints' HTTP protocol: {args.bare_http}'s"
    )
    run = run_threads if args.mode == "threads" else run_async

    with tempfile.TemporaryDirectory(prefix="tankref-load-") as folder:
        port = free_port()
        db = Path(folder) / "load.sqlite3"
        command = [sys.executable, "-m", "tankref", "serve", "--host", HOST, "--port", str(port),
                   "--db", str(db), "--log-level", "warning"]  # fmt: skip
        if args.profile_server:  # python -m cProfile -o FILE -m tankref serve ...
            command[1:1] = ["-m", "cProfile", "-o", args.profile_server]
        with server(command, port) as target:
            t0 = time.perf_counter()
            work: list[list[Call]] = [[] for _ in plans]

            def set_up(c: int) -> None:
                work[c] = prepare(target.url, plans[c], c)[: per_client + WARMUP]

            threads = [threading.Thread(target=set_up, args=(c,)) for c in range(len(plans))]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            print(f"referee: tables set up in {time.perf_counter() - t0:.1f}s (untimed)")
            with spying(target.proc.pid, args.spy_server):
                referee = run(target, work, load)

        port = free_port()
        bare_cmd = [sys.executable, os.path.abspath(__file__), "--serve-bare", str(port),
                    "--log-level", "warning", "--bare-http", args.bare_http]  # fmt: skip
        with server(bare_cmd, port) as target:
            bare = run(target, [bare_calls(calls) for calls in work], load)

        port = free_port()
        durable_cmd = [*bare_cmd[:3], str(port), *bare_cmd[4:], "--durable",
                       str(Path(folder) / "durable.sqlite3")]  # fmt: skip
        with server(durable_cmd, port) as target, spying(target.proc.pid, args.spy_bare):
            durable = run(target, [bare_calls(calls) for calls in work], load)

        port = free_port()
        plans_file = Path(folder) / "plans.json"
        write_floor_plans(plans_file, plans)
        floor_cmd = [*bare_cmd[:3], str(port), *bare_cmd[4:], "--durable",
                     str(Path(folder) / "floor.sqlite3"), "--engine", str(plans_file)]  # fmt: skip
        with server(floor_cmd, port) as target, spying(target.proc.pid, args.spy_floor):
            floor = run(target, [floor_calls(calls) for calls in work], load)

        shared = None
        if args.db:
            with fresh_pg_database(args.db) as url:
                port = free_port()
                pg_cmd = [sys.executable, "-m", "tankref", "serve", "--host", HOST, "--port",
                          str(port), "--db", url, "--log-level", "warning",
                          "--workers", str(args.workers)]  # fmt: skip
                with server(pg_cmd, port) as started:
                    target = Workers(started.url, started.proc)
                    work = [prepare(target.url, plans[c], c)[: per_client + WARMUP]
                            for c in range(len(plans))]  # fmt: skip
                    with spying_workers(_children(started.proc.pid), args.spy_workers):
                        shared = run(target, work, load)

    code = report(args, referee, bare, durable, floor)
    if shared is not None:
        report_workers(args, referee, shared)
        if args.spy_workers:
            print_spied(Path(args.spy_workers), "PostgreSQL workers")
    return code


# --- several workers on PostgreSQL (issue 19) ---------------------------------------------


class Workers(Server):
    """``tankref serve --workers N``: its CPU is its worker processes' (and the supervisor's),
    each worker's main thread counted as a loop."""

    def cpu_split(self) -> dict[str, float]:
        split = dict.fromkeys(CPU_PARTS, 0.0)
        for pid in (self.proc.pid, *_children(self.proc.pid)):
            for part, used in Server(self.url, _Pid(pid)).cpu_split().items():  # type: ignore[arg-type]
                split[part] += used
        return split


@dataclass
class _Pid:
    pid: int


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if (
                entry.name.isdigit()
                and int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid
            ):
                found.append(int(entry.name))
        except OSError:
            continue
    return found


@contextmanager
def spying_workers(pids: list[int], out: str | None) -> Iterator[None]:
    """``spying`` on each worker at once, their stacks written together to ``out`` (each
    stack's first frame names its worker's pid, as py-spy names the process)."""
    if out is None:
        yield
        return
    with ExitStack() as spies:
        for pid in pids:
            spies.enter_context(spying(pid, f"{out}.{pid}"))
        yield
    with open(out, "w") as joined:
        for pid in pids:
            part = Path(f"{out}.{pid}")
            if part.exists():
                joined.write(part.read_text())
                part.unlink()


@contextmanager
def fresh_pg_database(url: str) -> Iterator[str]:
    """A new database on the server ``url`` names, as a URL; dropped afterwards."""
    import secrets
    from urllib.parse import urlencode

    import psycopg
    from psycopg.conninfo import conninfo_to_dict

    name = f"tankref_load_{secrets.token_hex(4)}"
    with psycopg.connect(url, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    params = {k: str(v) for k, v in conninfo_to_dict(url).items() if k != "dbname"}
    password = params.pop("password", None)
    user = params.pop("user", None)
    host = params.pop("host", "")
    port = params.pop("port", None)
    if host.startswith("/"):  # a socket folder goes in the query
        params["host"], host = host, ""
    login = "" if user is None else user + ("" if password is None else f":{password}") + "@"
    where = host + ("" if port is None else f":{port}")
    try:
        yield f"postgresql://{login}{where}/{name}?{urlencode(params)}"
    finally:
        with psycopg.connect(url, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def report_workers(args: argparse.Namespace, sqlite: Tally, shared: Tally) -> None:
    """The PostgreSQL row and its ratios to the one SQLite worker's (same run, same load)."""
    every = shared.engage_ns + shared.other_ns
    rate, cpu = shared.requests / shared.wall_s, 1000 * shared.cpu_s / max(1, shared.requests)
    sqlite_rate = sqlite.requests / sqlite.wall_s
    sqlite_cpu = 1000 * sqlite.cpu_s / sqlite.requests
    sqlite_all = sqlite.engage_ns + sqlite.other_ns
    print()
    print(f"{'':<20}{'requests':>9}{'req/s':>9}{'p50 ms':>9}{'p99 ms':>9}{'CPU ms/req':>12}")
    print(row("SQLite, 1 worker", sqlite.requests, sqlite_rate, sqlite_all, sqlite_cpu))
    print(row(f"PostgreSQL, {args.workers} wk", shared.requests, rate, every, cpu))
    print(
        f"PostgreSQL with {args.workers} workers / SQLite with 1: throughput "
        f"{rate / sqlite_rate:.2f}x, p50 {pct(every, 50) / pct(sqlite_all, 50):.2f}x, "
        f"CPU per request {cpu / sqlite_cpu:.2f}x (all processes; the server's CPU is "
        f"{100 * shared.cpu_s / shared.wall_s:.0f}% of one core, PostgreSQL's own not counted)"
    )
    parts = ", ".join(
        f"{part} {1000 * shared.cpu.get(part, 0.0) / shared.requests:.3f}" for part in CPU_PARTS
    )
    print(f"PostgreSQL workers' CPU ms/request by thread (all workers): {parts}")
    for problem in (e for e in shared.errors if e):
        print(f"  refused on PostgreSQL: {problem}")


@dataclass(frozen=True)
class Verdict:
    ok: bool
    line: str


def verdict(ok: bool, text: str) -> Verdict:
    return Verdict(ok, f"{'PASS' if ok else 'FAIL'}: {text}")


def report(
    args: argparse.Namespace, referee: Tally, bare: Tally, durable: Tally, floor: Tally
) -> int:
    """The table of figures, then one PASS/FAIL line per target; 1 with ``--strict`` when a
    target is missed (or a request was refused, which makes the figures meaningless).

    ``durable``: the bare endpoint that also logs each request durably (``bare_app``): the
    referee's cost is split into the bare endpoint's, what durability adds to it, the
    engine's, and the rest, which is the referee's own overhead. ``floor``: the same with the
    engine served too (``/engine/{table}``), the floor measured: what the referee costs
    beyond it, at the same load, is its own overhead as served."""
    engages = len(referee.engage_ns)
    engage_rate = engages / referee.wall_s
    bare_rate = bare.requests / bare.wall_s
    durable_rate = durable.requests / durable.wall_s
    every = referee.engage_ns + referee.other_ns
    bare_all = bare.engage_ns + bare.other_ns
    durable_all = durable.engage_ns + durable.other_ns
    referee_cpu = 1000 * referee.cpu_s / referee.requests  # ms per request
    bare_cpu = 1000 * bare.cpu_s / bare.requests
    durable_cpu = 1000 * durable.cpu_s / durable.requests
    engine_cpu = referee.engine_ns / 1e6 / referee.requests
    floor_all = floor.engage_ns + floor.other_ns
    floor_cpu = 1000 * floor.cpu_s / floor.requests
    floor_engage_rate = len(floor.engage_ns) / floor.wall_s
    print()
    print(f"{'':<20}{'requests':>9}{'req/s':>9}{'p50 ms':>9}{'p99 ms':>9}{'CPU ms/req':>12}")
    print(row("referee, engage", engages, engage_rate, referee.engage_ns, None))
    print(row("referee, end_phase", len(referee.other_ns), None, referee.other_ns, None))
    print(
        row("referee, all", referee.requests, referee.requests / referee.wall_s, every, referee_cpu)
    )
    print(row("bare FastAPI", bare.requests, bare_rate, bare_all, bare_cpu))
    print(row("bare + durable", durable.requests, durable_rate, durable_all, durable_cpu))
    floor_rate = floor.requests / floor.wall_s
    print(row("bare + dur. + engine", floor.requests, floor_rate, floor_all, floor_cpu))
    tallies = (referee, bare, durable, floor)
    print(
        f"(wall {', '.join(f'{t.wall_s:.2f}s' for t in tallies)}; the servers' CPU time is "
        f"{', '.join(f'{100 * t.cpu_s / t.wall_s:.0f}%' for t in tallies)} of it: 100% is one "
        "core, the whole of what a uvicorn process can use)"
    )
    durability = durable_cpu - bare_cpu
    overhead = referee_cpu - durable_cpu - engine_cpu
    print(
        f"referee CPU per request {referee_cpu:.3f} ms = bare {bare_cpu:.3f} + durability "
        f"{durability:.3f} (bare + durable less bare) + engine {engine_cpu:.3f} (the same "
        f"actions through the pure engine, in this process) + the referee's own overhead "
        f"{overhead:.3f} ms ({overhead / bare_cpu:.2f}x the bare endpoint's whole)"
    )
    added = durable_cpu + engine_cpu
    print(
        f"FLOOR: bare + durable + engine, served, {floor_cpu:.3f} ms CPU = "
        f"{floor_cpu / bare_cpu:.2f}x the bare endpoint's (added up, bare + durable's and the "
        f"engine's in this process: {added:.3f} ms = {added / bare_cpu:.2f}x; durability "
        f"alone {durable_cpu / bare_cpu:.2f}x); its engage throughput "
        f"{floor_engage_rate / bare_rate:.2f}x the bare endpoint's. The referee beyond it: CPU "
        f"{referee_cpu / floor_cpu:.2f}x, {referee_cpu - floor_cpu:.3f} ms a request (its own "
        f"overhead as served), engage throughput {engage_rate / floor_engage_rate:.2f}x"
    )
    for name, tally in (
        ("referee", referee),
        ("bare", bare),
        ("bare + durable", durable),
        ("bare + durable + engine", floor),
    ):
        parts = ", ".join(
            f"{part} {1000 * tally.cpu.get(part, 0.0) / tally.requests:.3f}" for part in CPU_PARTS
        )
        print(f"{name} CPU ms/request by thread: {parts}")
    verdicts: list[Verdict] = []
    cpu_ratio = referee_cpu / bare_cpu if bare_cpu > 0 else float("nan")
    cpu_line = (
        f"server CPU per request {cpu_ratio:.2f}x the bare endpoint's "
        f"(target at most {TARGET_CPU_RATIO}x at saturation)"
    )
    p99, bare_p99 = pct(referee.engage_ns, 99), pct(bare_all, 99)
    if args.rate:
        print(f"n/a: throughput and CPU (paced at {args.rate:g} req/s a client): {cpu_line}")
        durable_p50, durable_p99 = pct(durable_all, 50), pct(durable_all, 99)
        floor_p50, floor_p99 = pct(floor_all, 50), pct(floor_all, 99)
        floor_engage_p99 = pct(floor.engage_ns, 99)
        print(
            f"FLOOR, paced: bare + durable p50 {durable_p50:.2f} ms, p99 {durable_p99:.2f} ms = "
            f"{durable_p99 / bare_p99:.2f}x the bare endpoint's p99; bare + durable + engine "
            f"p50 {floor_p50:.2f} ms, p99 {floor_p99:.2f} ms = {floor_p99 / bare_p99:.2f}x "
            f"(engages {floor_engage_p99:.2f} ms = {floor_engage_p99 / bare_p99:.2f}x); the "
            f"referee's engage p99 is {p99 / durable_p99:.2f}x the first, "
            f"{p99 / floor_engage_p99:.2f}x the second's engages"
        )
        floor_ok = (
            floor_engage_p99 <= TARGET_P99_MS or floor_engage_p99 <= TARGET_P99_RATIO * bare_p99
        )
        print(
            f"the floor itself {'meets' if floor_ok else 'misses'} the p99 target: engage p99 "
            f"{floor_engage_p99:.2f} ms = {floor_engage_p99 / bare_p99:.2f}x the bare "
            "endpoint's (the bare endpoint with the same rules and the same durable log, "
            "nothing else)"
        )
        ok = p99 <= TARGET_P99_MS or p99 <= TARGET_P99_RATIO * bare_p99
        verdicts.append(
            verdict(
                ok,
                f"engage p99 {p99:.2f} ms = {p99 / bare_p99:.2f}x the bare endpoint's "
                f"{bare_p99:.2f} ms, {args.clients} clients x {args.rate:g} req/s (target at "
                f"most {TARGET_P99_MS:g} ms or {TARGET_P99_RATIO}x)",
            )
        )
    else:
        ratio = engage_rate / bare_rate
        verdicts.append(
            verdict(
                ratio >= TARGET_RATIO,
                f"engage throughput {ratio:.2f}x the bare endpoint (target at least "
                f"{TARGET_RATIO}x)",
            )
        )
        verdicts.append(verdict(cpu_ratio <= TARGET_CPU_RATIO, cpu_line))
        floor_ratio = floor_engage_rate / bare_rate
        print(
            f"the floor itself: engage throughput {floor_ratio:.2f}x the bare endpoint "
            f"({'meets' if floor_ratio >= TARGET_RATIO else 'misses'} the target), CPU "
            f"{floor_cpu / bare_cpu:.2f}x ("
            f"{'meets' if floor_cpu / bare_cpu <= TARGET_CPU_RATIO else 'misses'} the target)"
        )
        print(
            f"n/a: p99 at saturation ({p99:.2f} ms; a request waits behind up to "
            f"{args.clients - 1} others): the latency target is paced, run with --rate 25"
        )
    errors = referee.errors + bare.errors + durable.errors + floor.errors
    for problem in (e for e in errors if e):
        print(f"  refused: {problem}")
    if errors:
        n = len(errors)
        verdicts.append(
            verdict(False, f"{n} requests were refused; the figures are not comparable")
        )
    for v in verdicts:
        print(v.line)
    if args.profile_server:  # written when the referee stopped
        print(f"\nreferee profile ({args.profile_server}), by own time:")
        pstats.Stats(args.profile_server, stream=sys.stdout).sort_stats("tottime").print_stats(30)
    if args.spy_server:
        print_spied(Path(args.spy_server), per_request=(SPY_RATE, referee.requests))
    if args.spy_bare:
        print_spied(Path(args.spy_bare), "bare + durable", per_request=(SPY_RATE, durable.requests))
    if args.spy_floor:
        print_spied(
            Path(args.spy_floor),
            "bare + durable + engine",
            per_request=(SPY_RATE, floor.requests),
        )
    if args.strict and not all(v.ok for v in verdicts):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
