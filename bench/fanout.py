"""Fan-out (issue 18): one write with 500 long-polls and 200 WebSockets waiting on its table;
the time until the last of them has the new entry (target: at most 100 ms on loopback), and
another table's read latency meanwhile (no other table slowed).

The referee: ``python -m tankref serve`` on a temporary database, its own process. Table A
is in setup (two tanks placed); each write is a tank put (``PUT /tables/A/tanks/R1``, a new
x each time): a logged event, committed before its reply. Table B holds a few events; its
first log page is read over and over on a connection of its own.

Each round: the waiters are parked (``GET /tables/A/events?after=N&wait=20`` on raw
keep-alive sockets, and ``/tables/A/stream?after=N`` WebSockets), then the write is sent;
each waiter notes when its answer (a log page with entry N+1) or message (entry N+1) has
arrived whole. Checked: every waiter got entry N+1, once. Baselines from the same run: the
same write and a single long-poll waiting on it (its arrival), and table B's read latency
while nothing else happens. The clients are one asyncio process on the same machine: their
own work (parsing 700 answers) is inside the figures.

    python bench/fanout.py --rounds 5
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import connect

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from server_load import free_port  # noqa: E402
from startup import on, referee, started  # noqa: E402

TARGET_MS = 100.0
HOST = "127.0.0.1"


@dataclass
class Round:
    write_ms: float  # the write's own reply
    last_ms: float  # the last waiter to have the entry
    median_ms: float
    other_ms: list[float] = field(default_factory=list)  # table B's reads meanwhile
    wrong: list[str] = field(default_factory=list)
    server_cpu_ms: float = 0.0  # the referee's CPU time from the write to the last arrival


@dataclass
class Cpu:
    pid: int

    def ms(self) -> float:
        """The process's user + system CPU time so far (Linux /proc; else 0)."""
        try:
            stat = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return 0.0
        return 1000 * (int(stat[11]) + int(stat[12])) / os.sysconf("SC_CLK_TCK")


async def long_poll(port: int, path: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A parked long-poll on a raw keep-alive socket (an HTTP client's own cost kept low)."""
    reader, writer = await asyncio.open_connection(HOST, port)
    writer.write(f"GET {path} HTTP/1.1\r\nHost: {HOST}\r\n\r\n".encode())
    await writer.drain()
    return reader, writer


async def answer(reader: asyncio.StreamReader) -> tuple[float, str | bytes]:
    """When a long-poll's answer had arrived whole, and its body (parsed later: the clock
    stops at the arrival, not at the client's own work after it)."""
    head = await reader.readuntil(b"\r\n\r\n")
    length = next(
        int(line.split(b":", 1)[1])
        for line in head.split(b"\r\n")
        if line.lower().startswith(b"content-length:")
    )
    body = await reader.readexactly(length)
    return time.perf_counter(), body


async def one_round(
    url: str,
    port: int,
    cpu: Cpu,
    a: dict[str, Any],
    b: str,
    polls: int,
    sockets: int,
    x: float,
) -> Round:
    async with httpx.AsyncClient(base_url=url, timeout=60) as http:
        seq = (await http.get(f"/tables/{a['table_id']}")).json()["seq"]
        events = f"/tables/{a['table_id']}/events?after={seq}&wait=20"
        polled = [await long_poll(port, events) for _ in range(polls)]
        streams = [
            await connect(f"ws://{HOST}:{port}/tables/{a['table_id']}/stream?after={seq}")
            for _ in range(sockets)
        ]
        await asyncio.sleep(1.0)  # every waiter parked on the server

        async def message(ws: Any) -> tuple[float, str | bytes]:
            text: str = await ws.recv()
            return time.perf_counter(), text

        arrivals = [asyncio.ensure_future(answer(r)) for r, _ in polled]
        arrivals += [asyncio.ensure_future(message(ws)) for ws in streams]
        other: list[float] = []
        done = asyncio.Event()

        async def read_other() -> None:
            async with httpx.AsyncClient(base_url=url, timeout=60) as reader:
                while not done.is_set():
                    begun = time.perf_counter()
                    await reader.get(f"/tables/{b}/log", params={"limit": 10})
                    other.append((time.perf_counter() - begun) * 1000)

        others = asyncio.ensure_future(read_other())
        await asyncio.sleep(0.05)
        body = {"card": "tiger-i", "player": "Red", "x": x, "z": -20, "facing": 0}
        cpu_before = cpu.ms()
        begun = time.perf_counter()
        reply = await http.put(
            f"/tables/{a['table_id']}/tanks/R1",
            json=body,
            headers={"Authorization": f"Bearer {a['token']}"},
        )
        wrote = time.perf_counter()
        got = await asyncio.gather(*arrivals)
        cpu_spent = cpu.ms() - cpu_before
        done.set()
        await others
        wrong = [] if reply.status_code == 200 else [f"write: {reply.status_code}"]
        for n, (_, text) in enumerate(got):
            data = json.loads(text)
            seqs = [e["seq"] for e in data["entries"]] if "entries" in data else [data["seq"]]
            if seqs != [seq + 1]:
                wrong.append(f"waiter {n} got {seqs}")
        for ws in streams:  # nothing more (a second copy of the entry) before the close
            try:
                extra = await asyncio.wait_for(ws.recv(), 0.01)
                wrong.append(f"a stream got {extra[:40]!r} twice")
            except TimeoutError:
                pass
            await ws.close()
        for _, writer in polled:
            writer.close()
        times = [(at - begun) * 1000 for at, _ in got]
        return Round(
            write_ms=(wrote - begun) * 1000,
            last_ms=max(times),
            median_ms=statistics.median(times),
            other_ms=other,
            wrong=wrong,
            server_cpu_ms=cpu_spent,
        )


async def other_idle(url: str, b: str, reads: int) -> list[float]:
    async with httpx.AsyncClient(base_url=url, timeout=60) as reader:
        times = []
        for _ in range(reads):
            begun = time.perf_counter()
            await reader.get(f"/tables/{b}/log", params={"limit": 10})
            times.append((time.perf_counter() - begun) * 1000)
        return times


def setup(url: str) -> tuple[dict[str, Any], str]:
    with httpx.Client(base_url=url, timeout=30) as http:
        a = http.post("/tables", json={}).json()
        b = http.post("/tables", json={}).json()
        for table in (a, b):
            auth = {"Authorization": f"Bearer {table['token']}"}
            for tank, player, z in (("R1", "Red", -20), ("B1", "Blue", 20)):
                body = {"card": "tiger-i", "player": player, "x": 0, "z": z, "facing": 0}
                put = http.put(f"/tables/{table['table_id']}/tanks/{tank}", json=body, headers=auth)
                put.raise_for_status()
    return a, b["table_id"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--polls", type=int, default=500, help="long-polls (default 500)")
    parser.add_argument("--sockets", type=int, default=200, help="WebSockets (default 200)")
    parser.add_argument("--rounds", type=int, default=5, help="writes timed (default 5)")
    parser.add_argument("--strict", action="store_true", help="exit 1 when a target is missed")
    args = parser.parse_args(argv)

    port = free_port()
    with (
        tempfile.TemporaryDirectory() as folder,
        started(on(referee(Path(folder) / "fanout.sqlite3"), port), port) as (url, _, pid),
    ):
        a, b = setup(url)
        cpu = Cpu(pid)

        async def run() -> tuple[list[Round], list[Round], list[float]]:
            idle = await other_idle(url, b, 50)
            alone = [
                await one_round(url, port, cpu, a, b, 1, 0, 1.0 + k) for k in range(args.rounds)
            ]
            rounds = [
                await one_round(url, port, cpu, a, b, args.polls, args.sockets, 10.0 + k)
                for k in range(args.rounds)
            ]
            return alone, rounds, idle

        alone, rounds, idle = asyncio.run(run())

    def med(values: list[float]) -> float:
        return statistics.median(values)

    last = med([r.last_ms for r in rounds])
    base = med([r.last_ms for r in alone])
    during = [ms for r in rounds for ms in r.other_ms]
    write_alone = med([r.write_ms for r in alone])
    write_all = med([r.write_ms for r in rounds])
    halfway = med([r.median_ms for r in rounds])
    worst = max(r.last_ms for r in rounds)
    print(
        f"{args.polls} long-polls and {args.sockets} WebSockets on one table, {args.rounds} writes"
    )
    print(
        f"  one long-poll waiting (baseline): the write answered after {write_alone:.1f} ms, "
        f"the waiter has the entry after {base:.1f} ms"
    )
    print(
        f"  all waiting: the write answered after {write_all:.1f} ms; half the waiters have "
        f"the entry after {halfway:.1f} ms, the last after {last:.1f} ms = "
        f"{last / base:.1f}x baseline (median of {len(rounds)}; worst {worst:.1f} ms)"
    )
    print(
        f"  the referee's CPU time from the write to the last arrival: "
        f"{med([r.server_cpu_ms for r in rounds]):.0f} ms (one waiter: "
        f"{med([r.server_cpu_ms for r in alone]):.0f} ms; the rest of the wall time is the "
        "clients', on the same cores)"
    )
    print(
        f"another table's log read: {med(idle):.1f} ms idle (baseline, median), during the "
        f"fan-out median {med(during):.1f} ms, worst {max(during):.1f} ms "
        f"({len(during)} reads) = {med(during) / med(idle):.1f}x baseline"
    )
    wrong = [w for r in [*alone, *rounds] for w in r.wrong]
    ok = last <= TARGET_MS
    print(
        f"{'PASS' if ok else 'FAIL'}: the last of {args.polls + args.sockets} waiters has the "
        f"entry after {last:.1f} ms (target at most {TARGET_MS:.0f} ms)"
    )
    print(
        f"{'PASS' if not wrong else 'FAIL'}: every waiter got the new entry, once"
        + (f" (not: {'; '.join(wrong[:5])})" if wrong else "")
    )
    if args.strict and (not ok or wrong):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
