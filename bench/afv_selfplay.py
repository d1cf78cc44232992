"""Self-play bench for AFV: N seeded random games between two scripted sides.

Each game is ``tankref.rulesets.afv.selfplay.play_game(seed)``: 2-5 units a side from the
roster, random terrain, played on the server's dice to a victory or the turn limit. Any
exception (the referee refusing an action its own ``options_for`` allowed, or a crash) is
an error: the script prints it and exits 1. The time per action is printed next to a
baseline measured in the same run: one JSON round-trip of the table state.

    python bench/afv_selfplay.py --games 1000 --seed-base 0
"""

from __future__ import annotations

import argparse
import sys
import time
import traceback
from collections import Counter

from tankref.rulesets.afv.selfplay import play_game
from tankref.rulesets.afv.state import TableState


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Play N seeded AFV self-play games and report how they ended."
    )
    parser.add_argument("--games", type=int, default=1000, help="number of games (default 1000)")
    parser.add_argument(
        "--seed-base", type=int, default=0, help="seed of the first game; game i uses base + i"
    )
    args = parser.parse_args(argv)

    endings: Counter[str] = Counter()
    kinds: Counter[str] = Counter()
    errors = 0
    actions = 0
    refused_moves = 0
    last: TableState | None = None
    started = time.perf_counter_ns()
    for seed in range(args.seed_base, args.seed_base + args.games):
        try:
            record = play_game(seed)
        except Exception as exc:  # every exception is a finding: count it, keep going
            errors += 1
            if errors <= 5:
                print(f"--- seed {seed}: {type(exc).__name__}", file=sys.stderr)
                traceback.print_exception(exc, file=sys.stderr)
            continue
        actions += record.steps
        refused_moves += record.refused_moves
        kinds.update(record.kinds)
        endings["victory" if record.winner else "draw"] += 1
        last = record.final
    elapsed = (time.perf_counter_ns() - started) / 1e9
    print(f"games: {args.games}, errors: {errors}, actions: {actions}, {elapsed:.2f} s")
    print("endings: " + ", ".join(f"{k} {v}" for k, v in sorted(endings.items())))
    print("actions: " + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())))
    print(f"moves refused (bot guessed past slowing terrain): {refused_moves}")
    if last is not None and actions:
        n = 2_000
        t0 = time.perf_counter_ns()
        for _ in range(n):
            TableState.from_json(last.to_json())
        baseline = (time.perf_counter_ns() - t0) / n
        per_action = elapsed * 1e9 / actions
        print(
            f"per action: {per_action / 1e3:.1f} us = {per_action / baseline:.1f}x one JSON "
            f"round-trip of a final table state ({baseline / 1e3:.1f} us)"
        )
    return 1 if errors else 0


if __name__ == "__main__":
    raise SystemExit(main())
