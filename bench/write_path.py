"""One engage request's write path, step by step: where the referee's own CPU goes, and what
each step is there for.

``bench/server_load.py`` splits the referee's CPU per request into the bare endpoint's, what
durability adds, the engine's and the rest, "the referee's own overhead". This bench itemises
that rest, in process, on a real ``Referee`` with a real SQLite event store in a temporary
folder (WAL, ``synchronous=FULL``, the group commit: as ``tankref serve`` runs it, with its
GIL switch interval and garbage-collector threshold, on uvloop where it is installed, as
uvicorn picks it). Each client table is a 20 v 20 table of
``server_load.py`` (the same plan: every tank that may engage shoots its nearest target, then
``end_phase``), so every request is a real adjudication with server dice.

Each engage request is taken through the steps the referee takes (the route, ``submit``,
``_record``), calling the referee's own code for each, CPU time of the event loop's thread:

1. guards: ``RequestGuards`` whole (Host, Origin, content type, size, the path's and the
   body's text, the body read and parsed), around an app that does nothing;
2. validation: ``ActionRequest`` and the ruleset's action model (``parse_action``);
3. open + authorize: the table opened, the token's SHA-256 compared;
4. request hash: the request's canonical JSON and its SHA-256 (what recognises a request id
   sent again, with the same or another body);
5. lock + repeat check: the table's lock taken, the request id looked up;
6. engine: ``Timeline.act`` (the rules; not the referee's overhead);
7. recording: ``Referee._entry``: the summary, the result's JSON and digest, the chat lines,
   the checkpoint, the hash chain's link, the changed tanks' views, the log entry's JSON and
   the event's row (its parts timed again on their own below it, right after: warm then,
   so "the rest" also holds what the first, cold pass cost more);
8. commit hand-off: the row queued to the group commit and awaited until the commit that
   holds it (with its fsync) is on disk: the CPU of every thread of the process (the
   writer's SQLite and sync calls included), and the loop thread's share of it (the row
   queued, the writer's ask answered, the future resolved: two wake-ups of the loop);
9. apply + wake: ``Referee._apply``, the table moved on and its waiters woken (none wait
   here; ``bench/fanout.py`` times 700);
10. reply: the reply's JSON around the logged entry and its ``Response``.

Each step is printed with its median and mean (the mean holds the rare costly requests:
a checkpoint's state hash every 25 events, a snapshot every 50, a young collection), its
share of the referee's own CPU around the rules (its loop CPU less the engine's), the
guarantee that requires it (validation, authorization, idempotency, durability, the reply,
the live page) and a floor measured in the same run: the least work that guarantee needs
however it were coded (the body's ``json.loads``, the bare endpoint's pydantic body, one
SHA-256 of the token or the body, the result's JSON and its digest, a reply around the
entry, the group commit round trip of a row of the same size on a file of its own).

Then the whole request through the referee's ASGI app in process (every middleware, the
quick route, the response sent to a no-op ASGI ``send``), next to the bare endpoint of
``server_load.py`` and the bare + durable one through their ASGI apps, on the same bodies:
CPU of the event loop's thread and of the whole process per request. The referee's own
overhead is split as ``server_load.py`` splits it (bare + durable + engine + the rest),
on the loop thread (the fsync's CPU, on the writer thread, varies from commit to commit by
more than the overhead), without HTTP parsing and sockets (the same for all three but for
the referee's reply in one write). One request at a time: each commit holds one row (under
load a commit holds several, and its cost is shared). The steps' medians do not add up
exactly to the whole's (a median of sums is not a sum of medians; the framework's routing
and the response's send are in the whole only).

    python bench/write_path.py                  # 3 tables of breakdown, 3 for the whole apps
    python bench/write_path.py --tables 6
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import hashlib
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic_core import to_json

import server_load  # beside this file: the same tables, actions and bare endpoint
from tankref.core import chain
from tankref.core.results import chat_lines
from tankref.server.app import create_app
from tankref.server.guards import PARSED_BODY, RequestGuards
from tankref.server.referee import Referee, _canonical, _reply, _sha256
from tankref.server.routes.deps import json_reply
from tankref.server.schemas import ActionRequest, log_entry_json
from tankref.server.serve import WRITER_SWITCH_INTERVAL, YOUNG_GC_THRESHOLD
from tankref.server.settings import Settings

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
ASGI = Callable[[Scope, Callable[[], Awaitable[Message]], Callable[[Message], Awaitable[None]]],
                Awaitable[None]]  # fmt: skip
HOST = b"127.0.0.1:8765"


# --- an in-process ASGI client ----------------------------------------------------------------


def scope_for(method: str, path: str, body: bytes, token: str | None) -> Scope:
    """A request as uvicorn hands it over, with httpx's headers."""
    headers = [
        (b"host", HOST),
        (b"accept", b"*/*"),
        (b"accept-encoding", b"gzip, deflate"),
        (b"connection", b"keep-alive"),
        (b"user-agent", b"python-httpx/0.28.1"),
        (b"content-length", str(len(body)).encode()),
        (b"content-type", b"application/json"),
    ]
    if token is not None:
        headers.append((b"authorization", f"Bearer {token}".encode()))
    return {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.4"},
        "http_version": "1.1",
        "server": ("127.0.0.1", 8765),
        "client": ("127.0.0.1", 40000),
        "scheme": "http",
        "method": method,
        "root_path": "",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "headers": headers,
        "state": {},
    }


async def call(
    app: ASGI, method: str, path: str, body: bytes = b"", token: str | None = None
) -> tuple[int, bytes]:
    """The status and body ``app`` answers."""
    scope = scope_for(method, path, body, token)
    return await call_scope(app, scope, body)


async def call_scope(app: ASGI, scope: Scope, body: bytes) -> tuple[int, bytes]:
    sent = False
    status = 0
    chunks: list[bytes] = []

    async def receive() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        await asyncio.get_running_loop().create_future()  # the client never goes away
        raise AssertionError

    async def send(message: Message) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))

    await app(scope, receive, send)
    return status, b"".join(chunks)


def encoded(data: Any) -> bytes:
    return json.dumps(data).encode()  # as httpx sends a json= body


@dataclass
class Table:
    table_id: str
    token: str
    bodies: list[tuple[bytes, bool]]  # each timed request's body, and whether an engage


async def set_up(app: ASGI, plan: server_load.TablePlan, k: int) -> Table:
    """A table of ``plan``, created and set up through the app, and its requests."""
    made = {"ruleset": "ttt", "setup": plan.setup, "dice": {"seed": plan.seed}}
    status, reply = await call(app, "POST", "/tables", encoded(made))
    assert status in (200, 201), reply
    created = json.loads(reply)
    table_id, token = created["table_id"], created["token"]
    for place in plan.places:
        body = {key: value for key, value in place.items() if key != "tank_id"}
        path = f"/tables/{table_id}/tanks/{place['tank_id']}"
        status, reply = await call(app, "PUT", path, encoded(body), token)
        assert status in (200, 201), reply
    for n, action in enumerate(({"kind": "crew_roll"}, {"kind": "start_game"})):
        body = {"request_id": f"setup-{n}", "action": action}
        status, reply = await call(app, "POST", f"/tables/{table_id}/actions", encoded(body), token)
        assert status == 200, reply
    bodies = [
        (encoded({"request_id": f"t{k}-{n:05d}", "action": action}), action["kind"] == "engage")
        for n, action in enumerate(plan.actions)
    ]
    return Table(table_id, token, bodies)


# --- the steps --------------------------------------------------------------------------------


@dataclass
class Steps:
    """CPU per step (ns), one figure per engage request."""

    ns: dict[str, list[int]] = field(default_factory=dict)

    def add(self, name: str, ns: int) -> None:
        self.ns.setdefault(name, []).append(ns)

    def median(self, name: str) -> float:
        """In µs."""
        return statistics.median(self.ns[name]) / 1e3

    def mean(self, name: str) -> float:
        """In µs: with the rare costly requests (a checkpoint's state hash every 25 events,
        a snapshot every 50, a young garbage collection), which the median leaves out and
        throughput pays."""
        return statistics.fmean(self.ns[name]) / 1e3


STEPS = (
    "guards",
    "validation",
    "open + authorize",
    "request hash",
    "lock + repeat check",
    "engine",
    "recording",
    "commit hand-off",
    "apply + wake",
    "reply",
)
RECORDING_PARTS = (
    "summary + its JSON",
    "result JSON + SHA-256",
    "chat lines",
    "chain link",
    "tank views",
    "log entry JSON",
)


async def breakdown(app: Any, table: Table, steps: Steps) -> None:
    """Each request of ``table`` through the referee's steps, each step its own code."""
    ref: Referee = app.state.referee
    settings: Settings = app.state.settings
    parsed: dict[str, Any] = {}

    async def nothing(scope: Scope, receive: Any, send: Any) -> None:
        parsed["data"] = scope.get(PARSED_BODY)

    guards = RequestGuards(
        nothing,
        max_body_bytes=settings.max_body_bytes,
        allowed_hosts=settings.allowed_hosts,
        body_timeout=settings.body_timeout_seconds,
    )
    path = f"/tables/{table.table_id}/actions"
    authorization = f"Bearer {table.token}"
    clock = time.thread_time_ns
    rules = (await ref.open(table.table_id)).rules
    for body, engage in table.bodies:
        scope = scope_for("POST", path, body, table.token)
        t0 = clock()
        await call_scope(guards, scope, body)
        t1 = clock()
        request_body = ActionRequest.model_validate(parsed["data"])
        action = rules.parse_action(request_body.action)
        t2 = clock()
        host = await ref.open(table.table_id)
        ref.authorize(host, authorization)
        t3 = clock()
        request = request_body.model_dump(mode="json", exclude={"request_id", "dice"})
        request_sha = _sha256(_canonical(request))
        t4 = clock()
        async with host.lock:
            assert ref._repeated(host, request_body.request_id, request_sha) is None
            t5 = clock()
            step = host.timeline.act(action, None)
            t6 = clock()
            event = ref._entry(host, request_body.request_id, request_sha, step, None, None)
            t7 = clock()
            if engage:
                recording_parts(ref, host, step, steps)
            p0, t8 = time.process_time_ns(), clock()
            written = ref.store.queue_event(event.row)
            if event.snapshot is not None:
                ref._save_snapshot(event.snapshot)
            t8q = clock()
            await written
            p1, t9 = time.process_time_ns(), clock()
            ref._apply(host, event, step)
            t10 = clock()
            reply = _reply(
                True, False, event.row.seq, event.row.entry, event.table_json, event.head
            )
            json_reply(reply)
            t11 = clock()
        if not engage:
            continue
        took = (t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4, t6 - t5, t7 - t6)
        for name, ns in zip(STEPS, (*took, p1 - p0, t10 - t9, t11 - t10), strict=True):
            steps.add(name, ns)
        steps.add("commit hand-off, loop thread", t9 - t8)
        steps.add("commit hand-off, queueing", t8q - t8)
        steps.add("entry bytes", len(event.row.entry))
        floors(body, parsed["data"], table.token, step.result, event.row.entry, steps)


def recording_parts(ref: Referee, host: Any, step: Any, steps: Steps) -> None:
    """``Referee._entry``'s parts, each timed on its own (pure: run again on the same step)."""
    clock = time.thread_time_ns
    t0 = clock()
    summary = host.timeline.summary_after(step)
    table_json = to_json(summary)
    t1 = clock()
    result_json = to_json(step.result)
    result_sha = hashlib.sha256(result_json).hexdigest()
    t2 = clock()
    chat = chat_lines(step.result)
    t3 = clock()
    head = chain.link(
        host.head,
        seq=host.seq + 1,
        kind=step.kind,
        request_id="r",
        action=step.action,
        dice=None,
        result_sha256=result_sha,
        state_sha256=None,
        version=ref.version(host.rules.name),
        at="2026-12-02T10:00:00.000+00:00",
        chat=chat,
    )
    t4 = clock()
    tanks = ref._changed_tanks(host, step.state, step.result)
    t5 = clock()
    log_entry_json(
        result=result_json,
        table=table_json,
        seq=host.seq + 1,
        at="2026-12-02T10:00:00.000+00:00",
        request_id="r",
        kind=step.kind,
        action=step.action,
        dice=None,
        chat=chat,
        tanks=tanks,
        by=None,
        previous_sha256=host.head,
        chain_sha256=head,
    )
    t6 = clock()
    for name, ns in zip(
        RECORDING_PARTS, (t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4, t6 - t5), strict=True
    ):
        steps.add(name, ns)


def floors(body: bytes, data: Any, token: str, result: Any, entry: str, steps: Steps) -> None:
    """The least work each guarantee needs, timed on this request's own data."""
    clock = time.thread_time_ns
    t0 = clock()
    json.loads(body)
    t1 = clock()
    server_load.BareBody.model_validate(data)
    t2 = clock()
    _sha256(token)
    t3 = clock()
    hashlib.sha256(body).hexdigest()
    t4 = clock()
    hashlib.sha256(to_json(result)).hexdigest()
    t5 = clock()
    json_reply('{"applied":true,"entry":' + entry + "}")
    t6 = clock()
    for name, ns in (
        ("floor: json.loads of the body", t1 - t0),
        ("floor: bare body validation", t2 - t1),
        ("floor: SHA-256 of the token", t3 - t2),
        ("floor: SHA-256 of the body", t4 - t3),
        ("floor: result JSON + SHA-256", t5 - t4),
        ("floor: a reply around the entry", t6 - t5),
    ):
        steps.add(name, ns)


async def commit_floor(folder: Path, entry_bytes: int, n: int) -> tuple[float, float]:
    """The group commit round trip of one row of ``entry_bytes`` on a file of its own
    (the bare + durable endpoint's log): process CPU and the loop thread's, µs (medians)."""
    path = folder / "floor.sqlite3"
    writer = server_load.durable_log(path)
    text = "x" * entry_bytes
    cpu: list[int] = []
    loop_cpu: list[int] = []
    try:
        for seq in range(1, n + 1):
            p0, t0 = time.process_time_ns(), time.thread_time_ns()
            await writer.write(server_load.INSERT_REQUEST, (seq, f"r{seq}", text))
            cpu.append(time.process_time_ns() - p0)
            loop_cpu.append(time.thread_time_ns() - t0)
    finally:
        writer.close()
    return statistics.median(cpu) / 1e3, statistics.median(loop_cpu) / 1e3


# --- the whole apps ---------------------------------------------------------------------------


async def whole(
    app: ASGI, tables: list[Table], path: Callable[[Table], str]
) -> tuple[list[int], list[int]]:
    """CPU (ns) of each engage request through ``app``: the event loop's thread, and the
    whole process's (the log's writer thread, its SQLite and fsync, besides)."""
    loop: list[int] = []
    process: list[int] = []
    for table in tables:
        for body, engage in table.bodies:
            scope = scope_for("POST", path(table), body, table.token)
            p0, t0 = time.process_time_ns(), time.thread_time_ns()
            status, reply = await call_scope(app, scope, body)
            p1, t1 = time.process_time_ns(), time.thread_time_ns()
            assert status == 200, reply[:300]
            if engage:
                loop.append(t1 - t0)
                process.append(p1 - p0)
    return loop, process


# --- the run ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Row:
    name: str
    us: float
    mean: float
    guarantee: str
    floor: float | None  # µs; None: the step is its own floor (nothing less does the job)


async def run(tables: int) -> int:
    sys.setswitchinterval(WRITER_SWITCH_INTERVAL)
    gc.set_threshold(YOUNG_GC_THRESHOLD, 10, 10)
    plans = [server_load.plan_table(f"write-path-{k}") for k in range(3 * tables)]
    engages = sum(a["kind"] == "engage" for p in plans for a in p.actions)
    print(
        f"{len(plans)} tables of {server_load.TANKS_A_SIDE} v {server_load.TANKS_A_SIDE}, "
        f"{engages} engages: {tables} for the breakdown, {tables} for each whole app "
        "(the referee; the bare endpoints get the same bodies)"
    )
    steps = Steps()
    with tempfile.TemporaryDirectory(prefix="tankref-write-path-") as where:
        folder = Path(where)
        app = create_app(Settings(db_path=folder / "referee.sqlite3"))
        async with app.router.lifespan_context(app):
            made = [await set_up(app, plan, k) for k, plan in enumerate(plans)]
            for table in made[:tables]:
                await breakdown(app, table, steps)
            referee_cpu = await whole(
                app, made[tables : 2 * tables], lambda t: f"/tables/{t.table_id}/actions"
            )
            bare_cpu = await whole(server_load.bare_app(), made[2 * tables :], lambda t: "/echo")
            durable_cpu = await whole(
                server_load.bare_app(folder / "durable.sqlite3"), made[2 * tables :],
                lambda t: "/echo",
            )  # fmt: skip
            entry_size = int(statistics.median(steps.ns["entry bytes"]))
            commit_cpu, commit_loop = await commit_floor(folder, entry_size, 300)
    report(steps, referee_cpu, bare_cpu, durable_cpu, commit_cpu, commit_loop)
    return 0


def report(
    steps: Steps,
    referee: tuple[list[int], list[int]],
    bare: tuple[list[int], list[int]],
    durable: tuple[list[int], list[int]],
    commit_cpu: float,
    commit_loop: float,
) -> None:
    """The steps, then the whole apps. The split into bare + durable + engine + the
    referee's own is of the event loop's thread (what bounds a uvicorn process's
    throughput; the fsync's CPU, on the writer thread, varies from one commit to the next
    by more than the referee's overhead)."""
    m, mean = steps.median, steps.mean

    def us(values: list[int]) -> float:
        return statistics.median(values) / 1e3

    loop_us, process_us = us(referee[0]), us(referee[1])
    bare_us = us(bare[0])
    durable_loop, durable_process = us(durable[0]), us(durable[1])
    engine = m("engine")
    around = loop_us - engine  # the referee's loop CPU around the rules
    own = loop_us - engine - durable_loop  # beyond bare + durable + engine

    def row(name: str, key: str, guarantee: str, floor: float | None) -> Row:
        return Row(name, m(key), mean(key), guarantee, floor)

    rows = [
        row("guards", "guards", "bad input: the same 4xx (text, size, type, host)",
            m("floor: json.loads of the body")),
        row("validation", "validation", "bad input: the same 422",
            m("floor: bare body validation")),
        row("open + authorize", "open + authorize", "only the table's token writes",
            m("floor: SHA-256 of the token")),
        row("request hash", "request hash", "idempotency: an id re-sent never rolls twice",
            m("floor: SHA-256 of the body")),
        row("lock + repeat check", "lock + repeat check", "idempotency, one write at a time",
            None),
        row("engine", "engine", "the rules (not overhead)", None),
        row("recording", "recording", "durability + trust: the log entry, its hash chain",
            m("floor: result JSON + SHA-256")),
        row("commit hand-off (loop)", "commit hand-off, loop thread",
            "durability: answered after its commit", commit_loop),
        row("apply + wake", "apply + wake", "the table moves on; the live page hears", None),
        row("reply", "reply", "the reply (around the logged entry)",
            m("floor: a reply around the entry")),
    ]  # fmt: skip
    print()
    print(
        "One engage request, step by step: CPU of the event loop's thread, µs, median and "
        "mean; share: of the referee's own CPU around the rules (its loop CPU less the "
        "engine's); floor: the least that step's guarantee needs, measured in this run ('=': "
        "the step is its own floor)"
    )
    print(f"{'step':<30}{'CPU':>8}{'mean':>8}{'share':>8}{'floor':>8}{'beyond':>8}  required by")
    total = beyond_all = floor_all = means = 0.0
    for r in rows:
        share = "" if r.name == "engine" else f"{100 * r.us / around:.0f}%"
        floor = r.us if r.floor is None else min(r.floor, r.us)
        beyond = r.us - floor
        total += r.us
        if r.name != "engine":
            beyond_all += beyond
            floor_all += floor
        shown_floor = "=" if r.floor is None else f"{floor:.1f}"
        print(
            f"{r.name:<30}{r.us:>8.1f}{r.mean:>8.1f}{share:>8}{shown_floor:>8}{beyond:>8.1f}  "
            f"{r.guarantee}"
        )
        means += r.mean
        if r.name == "recording":
            parts = 0.0
            for part in RECORDING_PARTS:
                parts += m(part)
                print(
                    f"  {part:<28}{m(part):>8.1f}{mean(part):>8.1f}{100 * m(part) / around:>7.0f}%"
                )
            rest = m("recording") - parts
            shown = f"{100 * rest / around:>7.0f}%"
            print(f"  {'the rest (time, row; cold)':<28}{rest:>8.1f}{'':>8}{shown}")
        if r.name.startswith("commit"):
            q = m("commit hand-off, queueing")
            print(f"  {'the row queued':<28}{q:>8.1f}{'':>8}{100 * q / around:>7.0f}%")
    print(f"{'the steps, added':<30}{total:>8.1f}{means:>8.1f}{'':>8}{floor_all + engine:>8.1f}")
    print(
        f"the commit hand-off's whole (every thread: the writer's SQLite and fsync): "
        f"{m('commit hand-off'):.1f} µs; a row of the same size through the group commit on "
        f"a file of its own: {commit_cpu:.1f} µs ({commit_loop:.1f} on the loop thread). One "
        "request at a time here: one commit each; under load a commit holds several"
    )
    print()
    print(f"{'whole ASGI app (engage), µs':<30}{'loop':>8}{'process':>9}")
    print(f"{'referee':<30}{loop_us:>8.1f}{process_us:>9.1f}")
    print(f"{'bare FastAPI':<30}{bare_us:>8.1f}{us(bare[1]):>9.1f}")
    print(f"{'bare + durable':<30}{durable_loop:>8.1f}{durable_process:>9.1f}")
    print(
        f"referee loop {loop_us:.1f} = bare + durable {durable_loop:.1f} + engine {engine:.1f} "
        f"+ its own overhead {own:.1f} µs ({own / bare_us:.2f}x the bare endpoint's whole; "
        "in process: no HTTP parsing, no sockets, which cost the three alike but for the "
        "referee's reply in one write); the framework's routing and middleware and the "
        f"reply's send are the whole less the steps: {loop_us - total:.1f} µs"
    )
    print(
        f"FLOOR: the referee's loop CPU around the rules is {around:.1f} µs, of which its "
        f"steps' floors {floor_all:.1f}; beyond their floors {beyond_all:.1f} µs: what any "
        "coding could still take out of the steps while keeping every guarantee (a floor is "
        "a lower bound, not a design)"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--tables", type=int, default=3, help="20 v 20 tables per part (default 3)")
    args = parser.parse_args(argv)
    # The event loop uvicorn runs the referee on (its loop "auto"): uvloop where installed.
    try:
        import uvloop
    except ImportError:
        factory = asyncio.new_event_loop
    else:
        factory = uvloop.new_event_loop
    print(f"event loop: {factory.__module__}")
    with asyncio.Runner(loop_factory=factory) as runner:
        return runner.run(run(args.tables))


if __name__ == "__main__":
    sys.exit(main())
