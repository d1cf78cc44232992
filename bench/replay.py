"""How long the referee takes to re-open a table with a 2,000-event log (target: 60 ms, 1.5x).

The game: ``trustkit.long_game``, a seeded 5 v 5 game on server dice played through the real
``Referee`` into a real SQLite log (with some waits undone and some shots voided by both
players); live play leaves a snapshot of the state every ``SNAPSHOT_EVERY`` (50) events.
Timed: ``reopen_from(store.reopen, ...)``, what the referee runs when a table not in memory is
first used (issue 18): the newest snapshot read from SQLite, checked against the checkpoint
hash its event logged and parsed, the events after it read, checked (entries, hash chain) and
replayed through ``Timeline.replay``. Also printed: what making a snapshot costs live play (every
``SNAPSHOT_EVERY`` events). Two tails: this log's own (its newest snapshot is at or
near its last event), and the longest a table can have, the snapshot before the newest (at
least ``SNAPSHOT_EVERY`` events to replay, the re-opening then saving a new snapshot): the
target is judged on that one. Baseline, timed the same way in the same run: a JSON
round-trip of the log's entries (``json.loads`` of every stored entry), a floor for "touching
every event at all".

Printed beside it, not a target: the whole log replayed from event 1 (``rebuild(row,
events)``, what ``tankref verify`` and export still do: the replay-equals-live check), the
events read from SQLite once, outside the timing.

    python bench/replay.py --runs 15 [--strict] [--profile]

Targets (issue 18): at most 60 ms, and at most 1.5x the baseline; ``--strict`` exits 1 when
either is missed.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import json
import pstats
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # the game kit the tests use

from tankref.server.referee import (  # noqa: E402
    SNAPSHOT_EVERY,
    engine_version,
    rebuild,
    reopen_from,
    snapshot_of,
)
from tankref.server.store import EventStore  # noqa: E402
from trustkit import long_game, open_referee  # noqa: E402

TARGET_MS = 60.0
TARGET_RATIO = 1.5


def _median_ms(run: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        run()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=2000, help="log length (default 2000)")
    parser.add_argument("--runs", type=int, default=15, help="timed replays (default 15)")
    parser.add_argument("--seed", type=int, default=1, help="game seed (default 1)")
    parser.add_argument("--strict", action="store_true", help="exit 1 when a target is missed")
    parser.add_argument(
        "--profile", action="store_true", help="also print a cProfile of one rebuild"
    )
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "bench.sqlite3"
        ref = open_referee(db)
        table_id = long_game(ref, events=args.events, seed=args.seed)
        host = ref.host(table_id)
        live = host.rules.dump_state(host.state)
        ref.store.close()
        store = EventStore(db)  # as a restarted referee has it
        row = store.table(table_id)
        assert row is not None
        events = store.events(table_id)
        entries = [e.entry for e in events]
        version = engine_version(row.ruleset)
        newest = store.snapshot_seqs(table_id)[-1]

        def reopen(below: int | None = None) -> object:
            return reopen_from(store.reopen, row, version, below)[0]

        for below, tail in ((None, "own"), (newest, "longest")):
            reopened = reopen_from(store.reopen, row, version, below)[0]
            if reopened.damaged or reopened.rules.dump_state(reopened.state) != live:
                print(f"FAIL: re-opening ({tail} tail) does not give the live table")
                return 1
        rebuilt = rebuild(row, events)
        if rebuilt.damaged or rebuilt.rules.dump_state(rebuilt.state) != live:
            print(f"FAIL: the replay does not reproduce the table ({rebuilt.damaged})")
            return 1
        # As the server runs: what was loaded at start-up is kept out of full GC sweeps.
        gc.collect()
        gc.freeze()
        base = _median_ms(lambda: [json.loads(text) for text in entries], args.runs)
        own = _median_ms(reopen, args.runs)
        longest = _median_ms(lambda: reopen(newest), args.runs)
        whole = _median_ms(lambda: rebuild(row, events), args.runs)
        made = _median_ms(lambda: snapshot_of(rebuilt, version), args.runs)
        older = reopen_from(store.reopen, row, version, newest)[0].timeline.floor
        taken_back = len(rebuilt.timeline.cancelled)
        print(
            f"log: {len(events)} events ({taken_back} taken back by undo/void), table "
            f"{host.summary().status}, turn {host.summary().turn}; snapshots every "
            f"{SNAPSHOT_EVERY}, the newest at event {newest}"
        )
        print(f"baseline (json.loads of every entry):      {base:8.2f} ms")
        print(
            f"re-open, its own tail ({len(events) - newest:3d} events):      {own:8.2f} ms"
            f"  = {own / base:.2f}x baseline"
        )
        print(
            f"re-open, longest tail ({len(events) - older:3d} events):      {longest:8.2f} ms"
            f"  = {longest / base:.2f}x baseline"
        )
        print(
            f"whole replay from event 1 (verify, export): {whole:8.2f} ms  = "
            f"{whole / base:.1f}x baseline (not a target)"
        )
        print(
            f"a snapshot made (what live play pays every {SNAPSHOT_EVERY} events): {made:.2f} ms"
            f" = {1000 * made / SNAPSHOT_EVERY:.1f} us per event"
        )
        ok_ms = longest <= TARGET_MS
        ok_ratio = longest / base <= TARGET_RATIO
        print(
            f"{'PASS' if ok_ms else 'FAIL'}: re-opening takes {longest:.1f} ms (longest tail) "
            f"against the target of at most {TARGET_MS:.0f} ms"
        )
        print(
            f"{'PASS' if ok_ratio else 'FAIL'}: {longest / base:.2f}x the baseline against the "
            f"target of at most {TARGET_RATIO:.1f}x"
        )
        if args.profile:
            for what, run in (("re-open, longest tail", lambda: reopen(newest)),
                              ("whole replay", lambda: rebuild(row, events))):  # fmt: skip
                print(f"--- profile: {what}")
                profiler = cProfile.Profile()
                profiler.enable()
                run()
                profiler.disable()
                pstats.Stats(profiler, stream=sys.stdout).sort_stats("tottime").print_stats(20)
        store.close()
    return 1 if args.strict and not (ok_ms and ok_ratio) else 0


if __name__ == "__main__":
    raise SystemExit(main())
