"""How long the luck of a 500-event table takes, against the target of well under a second.

The table: a real referee (``Referee`` over an SQLite event log in a temporary folder) hosts
a scripted game on the server's dice: twenty KV-1s a side in two lines 26" apart; in turn
a quarter of the tanks Engage their opposite number (or the first enemy in sight) each
phase, then the phase ends; played until the log holds ``--events`` events. Timed, as the
server does it:

- cold: a fresh book counts the whole table (reads the effective events, replays each with
  its logged faces, turns each into luck trials, builds the report);
- cached: the same read again at the same seq (what a page re-reading it costs);
- one more event: a phase ends (a new log event), then the book counts only that one.

Baseline, timed in the same run: replaying the same events through the engine alone
(``adjudicate`` from the first state, no luck): the floor of any count that replays.

    python bench/luck_speed.py --events 500
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tankref.core.dice import SuppliedDice
from tankref.core.timeline import first_state
from tankref.rulesets.ttt.engine import options_for
from tankref.server.luck import LuckDesk
from tankref.server.referee import Referee, TableHost
from tankref.server.schemas import CreateTable
from tankref.server.store import EventStore

TARGET_S = 1.0  # "well under a second" for a 500-event table, cold


async def act(ref: Referee, host: TableHost, data: dict[str, Any]) -> None:
    action = host.rules.parse_action(data)
    await ref.submit(host, request_id=None, request=data, build=lambda state: action)


async def build_table(ref: Referee, events: int) -> TableHost:
    created = ref.create_table(
        CreateTable.model_validate(
            {
                "setup": {"options": {"turn_limit": 200, "deploy_depth": 12}},
                "dice": {"source": "server", "seed": "luck-bench"},
            }
        )
    )
    host = ref.host(created.table_id)
    for i in range(20):
        for player, z, facing, card in (("Red", -13.0, 0.0, "kv-1"), ("Blue", 13.0, 180.0, "kv-1")):
            tank = {"tank_id": f"{player[0]}{i + 1}", "card": card, "player": player}
            await act(ref, host, {"kind": "place_tank", **tank, "x": i * 2.0 - 19, "z": z,
                                  "facing": facing})  # fmt: skip
    await act(ref, host, {"kind": "crew_roll"})
    await act(ref, host, {"kind": "start_game"})
    while host.seq < events and host.summary().status == "playing":
        for tank_id in sorted(host.state.tanks):
            if host.seq >= events - 1 or host.summary().status != "playing":
                break
            option = next(o for o in options_for(host.state, tank_id, odds=False)
                          if o.kind == "engage")  # fmt: skip
            if not option.allowed or not option.detail:
                continue
            if (host.state.turn + int(tank_id[1:])) % 4:
                continue  # a quarter of the tanks fire each turn: the game lasts
            # Each tank fires at its opposite number while it can (no second-hit morale
            # checks, so the game lasts), else at the first enemy in sight.
            targets = [t["target_id"] for t in option.detail["targets"]]
            opposite = ("B" if tank_id[0] == "R" else "R") + tank_id[1:]
            target = opposite if opposite in targets else targets[0]
            await act(ref, host, {"kind": "engage", "tank_id": tank_id, "target_id": target})
        if host.summary().status == "playing":
            await act(ref, host, {"kind": "end_phase"})
    if host.seq < events:
        why = host.summary().reason
        raise SystemExit(f"the game ended after {host.seq} events, before {events}: {why}")
    return host


def replay_only(ref: Referee, host: TableHost, desk: LuckDesk) -> None:
    row = desk.row(ref, host.id)
    rules = host.rules
    state = first_state(rules, row.setup, row.dice)
    for event in ref.effective_events(host):
        dice = None if event.dice is None else SuppliedDice.model_validate(event.dice)
        state = rules.adjudicate(state, rules.parse_action(event.action), dice).state


def timed(fn: Callable[[], object], runs: int) -> float:
    out = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return statistics.median(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Time the luck of a long table (see the doc).")
    parser.add_argument("--events", type=int, default=500, help="log events (default 500)")
    parser.add_argument("--runs", type=int, default=5, help="timed runs of each (default 5)")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory() as folder:
        store = EventStore(Path(folder) / "bench.sqlite3")
        ref = Referee(store)
        host = asyncio.run(build_table(ref, args.events))
        desk = LuckDesk()
        report = desk.count_now(ref, host)
        trials = sum(getattr(p, m).trials for p in report.players for m in ("hit", "penetration"))
        print(f"table: {host.seq} events, {host.summary().status}, {trials} shot trials")
        for line in (m.text for p in report.players for m in (p.hit, p.penetration)):
            print(f"  {line}")

        cold = timed(lambda: LuckDesk().count_now(ref, host), args.runs)
        cached = timed(lambda: desk.count_now(ref, host), args.runs * 20)
        baseline = timed(lambda: replay_only(ref, host, desk), args.runs)

        def one_more() -> None:
            asyncio.run(act(ref, host, {"kind": "end_phase"}))
            t0 = time.perf_counter()
            desk.count_now(ref, host)
            increments.append(time.perf_counter() - t0)

        increments: list[float] = []
        for _ in range(args.runs):
            one_more()
        store.close()

    inc = statistics.median(increments)
    print(f"cold count     {cold * 1000:8.1f} ms  (median of {args.runs})")
    print(f"cached read    {cached * 1e6:8.1f} µs")
    print(f"one new event  {inc * 1000:8.2f} ms")
    print(f"baseline       {baseline * 1000:8.1f} ms  (replaying the same events, no luck)")
    print(f"ratio          cold count / baseline = {cold / baseline:.2f}x")
    verdict = "PASS" if cold <= TARGET_S else "FAIL"
    print(f"{verdict}: cold count {cold * 1000:.0f} ms against the target of {TARGET_S:.0f} s")
    return 0 if verdict == "PASS" else 1


if __name__ == "__main__":
    sys.exit(main())
