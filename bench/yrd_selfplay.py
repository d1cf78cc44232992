"""Self-play bench for the tank yard: N seeded random matches between two scripted parties.

Each game is ``tankref.rulesets.yrd.selfplay.play_game(seed)``: random rulings (contest die,
ties, criticals, grazing, advantage, shield), defence values, tanks and pieces, played on
the server's dice to the turn limit. Any exception (the referee refusing an action its own
``options_for`` allowed, or a crash) is an error: the script prints it and exits 1. The time
per action is printed next to a baseline measured in the same run: one JSON round-trip of
the table state.

    python bench/yrd_selfplay.py --games 1000 --seed-base 0
"""

from __future__ import annotations

import argparse
import sys
import time
import traceback
from collections import Counter

from tankref.rulesets.yrd.selfplay import play_game
from tankref.rulesets.yrd.state import TableState


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Play N seeded tank yard self-play games and report their verdicts."
    )
    parser.add_argument("--games", type=int, default=1000, help="number of games (default 1000)")
    parser.add_argument(
        "--seed-base", type=int, default=0, help="seed of the first game; game i uses base + i"
    )
    args = parser.parse_args(argv)

    verdicts: Counter[str] = Counter()
    errors = 0
    actions = 0
    wrecked = 0
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
        actions += record.actions
        verdicts += record.verdicts
        wrecked += sum(t.heavily_damaged for t in record.final.tanks.values())
        last = record.final
    elapsed = (time.perf_counter_ns() - started) / 1e9
    print(f"games: {args.games}, errors: {errors}, actions: {actions}, {elapsed:.2f} s")
    print("verdicts: " + ", ".join(f"{k} {v}" for k, v in sorted(verdicts.items())))
    print(f"tanks ended Heavily Damaged: {wrecked}")
    if last is not None and actions:
        n = 2_000
        t0 = time.perf_counter_ns()
        for _ in range(n):
            TableState.from_json(last.to_json())
        baseline = (time.perf_counter_ns() - t0) / n
        per_action = elapsed * 1e9 / actions  # options_for + adjudicate + the bot's choice
        print(
            f"per bot action: {per_action / 1e3:.1f} us = {per_action / baseline:.2f}x one "
            f"state JSON round-trip ({baseline / 1e3:.1f} us)"
        )
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
