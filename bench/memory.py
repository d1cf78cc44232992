"""Memory per table (issue 18): MB per open table, and 1,000 tables in one process; target at
most 1 MB per idle table.

The database: ``bench/history.py`` (1,000 tables of 500 events each, by default). All in this
process, through the real ``Referee`` on the real SQLite file; memory is the process's
resident set (Linux ``/proc/self/statm``) after a full garbage collection, and, for one open
table, what ``tracemalloc`` counts.

- baseline: the process with the referee on an empty database;
- every table known (start-up: each table's row read, no log replayed);
- one open table: a table rebuilt from its 500-event log and kept in memory (what a table
  being played costs);
- ``--touch`` tables each used once (rebuilt from its log), as a long-running referee sees
  them over a day: at most ``KEEP_REBUILT`` stay rebuilt, the least recently used idle ones
  are dropped (and rebuilt on their next use). Per table: the growth over the baseline,
  divided by the tables the referee holds.

    python bench/memory.py --touch 150
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from history import history  # noqa: E402
from tankref.server.referee import KEEP_REBUILT, Referee  # noqa: E402
from tankref.server.store import EventStore  # noqa: E402

TARGET_MB = 1.0  # per idle table
MB = 1024 * 1024


def resident_mb() -> float:
    """The process's resident set after a full collection (Linux; else 0)."""
    gc.collect()
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
    except OSError:
        return 0.0
    return pages * os.sysconf("SC_PAGE_SIZE") / MB


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=1000, help="tables (default 1000)")
    parser.add_argument("--events", type=int, default=500, help="events a table (default 500)")
    parser.add_argument(
        "--touch", type=int, default=150, help="tables used once each (default 150)"
    )
    parser.add_argument("--fresh", action="store_true", help="build the database again")
    parser.add_argument("--strict", action="store_true", help="exit 1 when a target is missed")
    args = parser.parse_args(argv)

    kept = history(args.tables, args.events, fresh=args.fresh)
    with tempfile.TemporaryDirectory() as folder:
        empty = Referee(EventStore(Path(folder) / "empty.sqlite3"))
        baseline = resident_mb()
        empty.store.close()

    ref = Referee(EventStore(kept.db), idle_seconds=0)
    known = resident_mb() - baseline

    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    one = ref.host(kept.tables[0])
    gc.collect()
    open_mb = (tracemalloc.get_traced_memory()[0] - before) / MB
    tracemalloc.stop()
    assert one.damaged is None

    started = time.perf_counter()
    touched = kept.tables[: args.touch]
    for table_id in touched:
        ref.host(table_id)
    took = time.perf_counter() - started
    held = resident_mb() - baseline
    per_table = held / len(ref.rows)
    rebuilt = len(ref.tables)
    ref.store.close()

    print(f"history: {len(kept.tables)} tables x {kept.events} events")
    print(f"baseline: the referee process on an empty database: {baseline:8.1f} MB resident")
    print(
        f"every table known (rows only):     +{known:8.1f} MB = "
        f"{1000 * known / len(ref.rows):.1f} kB a table"
    )
    print(f"one open table (500-event game, rebuilt, tracemalloc): {open_mb:.2f} MB")
    print(
        f"{len(touched)} tables used once each ({took:.0f}s), {rebuilt} kept rebuilt "
        f"(at most {KEEP_REBUILT}):"
    )
    print(
        f"  +{held:8.1f} MB over the baseline for {len(ref.rows)} tables = "
        f"{per_table:.3f} MB a table ({held / baseline:.2f}x the baseline process)"
    )
    idle_mb = (held - rebuilt * open_mb) / len(ref.rows)
    print(f"  of which an idle table (not rebuilt): about {1000 * max(idle_mb, 0):.0f} kB")
    ok = per_table <= TARGET_MB
    print(
        f"{'PASS' if ok else 'FAIL'}: {per_table:.3f} MB a table with {len(ref.rows)} tables in "
        f"one process (target at most {TARGET_MB:g} MB an idle table)"
    )
    if args.strict and not ok:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
