"""Exact odds against a million real adjudications per situation (agreement within 0.3 pp).

For each situation (``tests/oddskit.py`` builds the table: R1 engages B1), the exact
P(hit), P(penetrated), P(destroyed) and P(target fails morale) from
``tankref.rulesets.ttt.odds`` are compared with the share of ``--samples`` adjudications in
which it happened. Every sample runs the real ``adjudicate`` on the server's own dice, from
a seed of its own (``bench-{situation}-{i}``): nothing is patched and nothing is shortcut.
The samples are cut into chunks of ``--chunk`` and spread over ``--workers`` processes
(default: every core). A situation passes when every figure agrees within ``--tolerance``
percentage points (default 0.3; with a million samples one standard error is at most 0.05 pp).

The default eight situations cover the rules' modifiers: the plain shot; a moved shooter at
a side it may not turn away; a hull-down Turret with a Grizzled reroll and six red dice;
Move-Fast evasion, light concealment and literal Cover; ask mode with the reroll declared
for Penetration against Cover 2 and a Shaken, Immobilized crew (bail-out); a rear shot
through smoke at a Routed crew with a depleted deck; a second enemy hit with a friend in
sight; damaged optics and gun at a target that already turned. ``--situations N`` above 8
adds situations from the test spread.

It builds its tables with the tests' kit (``tests/oddskit.py``, ``tests/kit/ttt.py``), so it
needs the test extras installed (``pip install -e ".[test]"``).

    python bench/odds_agreement.py                        # 8 x 1,000,000 samples
    python bench/odds_agreement.py --situations 3 --samples 100000
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))  # the situation kit the tests use

from oddskit import Spec, Tally, build, exact_odds, sample, spread  # noqa: E402
from tankref.rulesets.ttt.state import TableState  # noqa: E402

SITUATIONS = [
    Spec(),
    Spec(shooter="m4a1-sherman", target="panther-g", bearing=90.0, best_armour="never", moved=True),
    Spec(shooter="king-tiger", target="tiger-i", hull_down="flag", grizzled=True),
    Spec(
        shooter="t-34-85",
        target="cromwell-iv",
        target_fast=True,
        concealment=1,
        cover=1,
        cover_rule="literal",
    ),
    Spec(
        shooter="is-2",
        target="kv-1",
        grizzled=True,
        policy="ask",
        declared="penetration",
        cover=2,
        target_morale="shaken",
        target_immobilized=True,
    ),
    Spec(
        shooter="panzer-iv-h",
        target="m5-stuart",
        bearing=180.0,
        smoke=(2,),
        target_morale="routed",
        pile=("Immobilized", "Explosion", "Glancing Blow"),
    ),
    Spec(
        shooter="sherman-firefly",
        target="panther-g",
        second_hit=True,
        friends="one",
        pile=("Fire", "Knocked Out", "Immobilized", "Gun Damaged"),
    ),
    Spec(
        shooter="m36-jackson",
        target="churchill-vii",
        bearing=150.0,
        optics=1,
        gun=1,
        target_turned=True,
    ),
]
FIGURES = (
    ("p_hit", "hit"),
    ("p_penetrate", "penetrated"),
    ("p_destroyed", "destroyed"),
    ("p_morale_failure", "morale_failure"),
)

_STATES: dict[int, TableState] = {}  # each worker builds a situation's table once


def _chunk(job: tuple[int, Spec, int, int]) -> tuple[int, Tally]:
    index, spec, start, count = job
    state = _STATES.get(index)
    if state is None:
        state = _STATES[index] = build(spec)
    return index, sample(state, count, f"bench-{index}", spec.declared, start=start)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Exact odds against real adjudications with seeded server dice."
    )
    parser.add_argument("--situations", type=int, default=len(SITUATIONS), help="default 8")
    parser.add_argument("--samples", type=int, default=1_000_000, help="per situation")
    parser.add_argument("--tolerance", type=float, default=0.3, help="percentage points")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--chunk", type=int, default=20_000, help="samples per job")
    args = parser.parse_args(argv)

    specs = SITUATIONS[: args.situations]
    if args.situations > len(SITUATIONS):
        specs += spread(args.situations - len(SITUATIONS))
    exact = [exact_odds(spec, build(spec)) for spec in specs]
    jobs = [
        (i, spec, start, min(args.chunk, args.samples - start))
        for i, spec in enumerate(specs)
        for start in range(0, args.samples, args.chunk)
    ]
    total = len(specs) * args.samples
    print(
        f"{len(specs)} situations x {args.samples:,} samples = {total:,} adjudications, "
        f"{args.workers} workers, tolerance {args.tolerance} pp",
        flush=True,
    )

    tallies = [Tally() for _ in specs]
    left = [len(range(0, args.samples, args.chunk)) for _ in specs]
    failed = 0
    done = 0
    started = time.perf_counter()
    next_note = 0.1
    with multiprocessing.Pool(args.workers) as pool:
        for index, part in pool.imap_unordered(_chunk, jobs):
            tallies[index].add(part)
            done += part.n
            left[index] -= 1
            elapsed = time.perf_counter() - started
            if done / total >= next_note and done < total:
                eta = elapsed * (total - done) / done
                print(
                    f"  [{100 * done / total:3.0f}%] {done:,} samples, {elapsed:.0f} s, "
                    f"about {eta:.0f} s left",
                    flush=True,
                )
                next_note += 0.1
            if left[index] == 0:
                failed += not _report(index, specs[index], exact[index], tallies[index], args)
    elapsed = time.perf_counter() - started
    passed = len(specs) - failed
    verdict = "PASS" if failed == 0 else "FAIL"
    print(
        f"{verdict}: {passed} of {len(specs)} situations agree within {args.tolerance} pp "
        f"({total:,} adjudications in {elapsed:.0f} s, {1e6 * elapsed / total:.1f} µs each "
        f"on {args.workers} workers)"
    )
    return 0 if failed == 0 else 1


def _report(index: int, spec: Spec, odds: object, tally: Tally, args: argparse.Namespace) -> bool:
    ok = True
    lines = []
    for name, field in FIGURES:
        p = getattr(odds, name)
        seen = getattr(tally, field) / tally.n
        diff = 100 * (seen - p)
        good = abs(diff) <= args.tolerance
        ok &= good
        lines.append(
            f"    {name:<17} exact {100 * p:8.4f}%  simulated {100 * seen:8.4f}%  "
            f"diff {diff:+7.4f} pp  {'PASS' if good else 'FAIL'}"
        )
    print(f"[{index + 1}] {spec.label()}  ({tally.n:,} samples)", flush=True)
    print("\n".join(lines), flush=True)
    return ok


if __name__ == "__main__":
    sys.exit(main())
