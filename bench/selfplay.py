"""Self-play bench: N seeded random TinyTableTopTanks games between two scripted sides.

Each game is ``tankref.rulesets.ttt.selfplay.play_game(seed)``: a random scenario, table and
forces, played on the server's dice until a victory or the turn limit. Any exception (the
referee refusing an action its own ``options_for`` allowed, or a crash) is an error; the
script prints every figure and exits 1 if there was one.

    python bench/selfplay.py --games 1000 --seed-base 0
"""

from __future__ import annotations

import argparse
import sys
import time
import traceback
from collections import Counter

from tankref.rulesets.ttt.selfplay import GameRecord, play_game


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Play N seeded TinyTableTopTanks self-play games and report how they ended."
    )
    parser.add_argument("--games", type=int, default=1000, help="number of games (default 1000)")
    parser.add_argument(
        "--seed-base", type=int, default=0, help="seed of the first game; game i uses base + i"
    )
    parser.add_argument(
        "--progress-every", type=int, default=100, help="progress line on stderr every N games"
    )
    args = parser.parse_args(argv)

    endings: Counter[str] = Counter()
    victories: Counter[str] = Counter()
    refusals: Counter[str] = Counter()
    errors: list[tuple[int, BaseException]] = []
    actions = 0
    move_attempts = 0
    play_ns = 0
    started = time.perf_counter_ns()
    for i in range(args.games):
        seed = args.seed_base + i
        t0 = time.perf_counter_ns()
        try:
            rec: GameRecord = play_game(seed)
        except Exception as exc:  # every exception is a finding: count it, keep going
            play_ns += time.perf_counter_ns() - t0
            errors.append((seed, exc))
            if len(errors) <= 5:
                print(f"--- seed {seed}: {type(exc).__name__}", file=sys.stderr)
                traceback.print_exception(exc, file=sys.stderr)
        else:
            play_ns += time.perf_counter_ns() - t0
            actions += rec.actions
            move_attempts += rec.move_attempts
            refusals.update(rec.moves_refused)
            endings[rec.ending] += 1
            if rec.winner is not None:
                victories[f"{rec.ending} ({rec.scenario})"] += 1
        done = i + 1
        if args.progress_every > 0 and done % args.progress_every == 0:
            secs = (time.perf_counter_ns() - started) / 1e9
            print(
                f"[{done}/{args.games}] {secs:.1f}s, errors so far {len(errors)}", file=sys.stderr
            )

    play_s = play_ns / 1e9
    refused = sum(refusals.values())
    last_seed = args.seed_base + args.games - 1
    print(f"games:               {args.games} (seeds {args.seed_base}..{last_seed})")
    print(f"victories:           {sum(victories.values())}")
    for reason, n in sorted(victories.items()):
        print(f"  {reason:<24} {n}")
    print(f"turn-limit endings:  {endings['turn_limit']}")
    print(f"draws (both out):    {endings['draw']}")
    print(f"errors:              {len(errors)} (must be 0)")
    if errors:
        print(f"  failing seeds:     {', '.join(str(s) for s, _ in errors[:20])}")
    played = max(1, args.games - len(errors))
    print(f"actions:             {actions} ({actions / played:.1f} per game)")
    print(
        f"actions/s:           {actions / play_s:,.0f} (bots and referee together, {play_s:.2f}s)"
    )
    share = 100 * refused / move_attempts if move_attempts else 0.0
    detail = f" {dict(refusals)}" if refusals else ""
    print(f"bot moves refused:   {refused} of {move_attempts} ({share:.3f}%){detail}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
