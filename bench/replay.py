"""How long the referee takes to rebuild a table from a 2,000-event log (target: 60 ms, 1.5x).

The game: ``trustkit.long_game``, a seeded 5 v 5 game on server dice played through the real
``Referee`` into a real SQLite log (with some waits undone and some shots voided by both
players). Timed: ``rebuild(row, events)``, the function the referee runs at start-up (and
``tankref export``), which replays every event through ``Timeline.replay``: each action
adjudicated again, each result hashed and compared, the state hashed at checkpoints. The
events are read from SQLite once, outside the timing. Baseline, timed the same way in the same
run: a JSON round-trip of the same log entries (``json.loads`` of every stored entry), a floor
for "touching every event at all".

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

from tankref.server.referee import rebuild  # noqa: E402
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
        ref = open_referee(Path(folder) / "bench.sqlite3")
        table_id = long_game(ref, events=args.events, seed=args.seed)
        host = ref.host(table_id)
        row = ref.store.table(table_id)
        assert row is not None
        events = ref.store.events(table_id)
        entries = [e.entry for e in events]
        ref.store.close()

    rebuilt = rebuild(row, events)
    if rebuilt.damaged or rebuilt.rules.dump_state(rebuilt.state) != host.rules.dump_state(
        host.state
    ):
        print(f"FAIL: the replay does not reproduce the table ({rebuilt.damaged})")
        return 1
    # As the server runs: what was loaded at start-up is kept out of full GC sweeps.
    gc.collect()
    gc.freeze()
    base = _median_ms(lambda: [json.loads(text) for text in entries], args.runs)
    replay = _median_ms(lambda: rebuild(row, events), args.runs)
    taken_back = len(rebuilt.timeline.cancelled)
    print(
        f"log: {len(events)} events ({taken_back} taken back by undo/void), table "
        f"{host.summary().status}, turn {host.summary().turn}"
    )
    print(f"baseline (json.loads of every entry): {base:8.2f} ms")
    print(
        f"replay (rebuild from the log):        {replay:8.2f} ms  = {replay / base:.1f}x baseline"
    )
    print(f"per event:                            {1000 * replay / len(events):8.1f} us")
    ok_ms = replay <= TARGET_MS
    ok_ratio = replay / base <= TARGET_RATIO
    print(
        f"{'PASS' if ok_ms else 'FAIL'}: {replay:.1f} ms against the target of at most "
        f"{TARGET_MS:.0f} ms"
    )
    print(
        f"{'PASS' if ok_ratio else 'FAIL'}: {replay / base:.2f}x the baseline against the "
        f"target of at most {TARGET_RATIO:.1f}x"
    )
    if args.profile:
        profiler = cProfile.Profile()
        profiler.enable()
        rebuild(row, events)
        profiler.disable()
        pstats.Stats(profiler, stream=sys.stdout).sort_stats("tottime").print_stats(25)
    return 1 if args.strict and not (ok_ms and ok_ratio) else 0


if __name__ == "__main__":
    raise SystemExit(main())
