"""What the aids cost on a 20 v 20 table, per ruleset, against one ``options_for`` call.

For each ruleset with units that move freely (TinyTableTopTanks, AFV, Minimal Tank Combat)
a started table of twenty units a side in two lines, through the ``Ruleset`` interface only
(setup, ``tank_put``, ``adjudicate`` on the server's dice), TTT's with a forest, a cover
piece and a building between the lines. Timed on the same state, in the same run:

- aids: ``rules.aids(state, unit)`` for one unit of the side whose phase it is (its rings or
  hexes, its arcs, its line of fire to all twenty enemies, each read like a shot);
- table: the aids of all forty units (what a page hovering everything, or a TTS table
  refreshing every shown shape, would ask for after one log entry);
- baseline: ``rules.options_for(state, unit)`` for that unit (what every menu already asks).

The tank yard (one tank a side) is timed the same way. The route answers a repeated read at
the same log position from its cache, so a unit's shapes are computed once per entry.

    python bench/aids.py --runs 200
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

from tankref.core.dice import DiceState
from tankref.core.ruleset import Ruleset, TankPut
from tankref.rulesets import get_ruleset

LINES = {  # card, and each side's line across the table (z), per ruleset
    "ttt": ("kv-1", -13.0, {"options": {"deploy_depth": 12, "turn_limit": 50}}),
    "afv": ("standard-afv", -10.0, {}),
    "mtc": ("standard", -12.0, {}),
}
TTT_TERRAIN = [
    ("wood", {"kind": "forest", "shape": {"shape": "circle", "x": -10, "z": 0, "radius": 4}}),
    ("hedge", {"kind": "cover1", "shape": {"shape": "circle", "x": 6, "z": 0, "radius": 3}}),
    (
        "barn",
        {
            "kind": "blocking",
            "shape": {"shape": "polygon", "points": [[14, -2], [19, -2], [16, 3]]},
        },
    ),
]


def time_ns(fn: Callable[[], object], runs: int, warmup: int) -> list[float]:
    for _ in range(warmup):
        fn()
    out = []
    for _ in range(runs):
        start = time.perf_counter_ns()
        fn()
        out.append(time.perf_counter_ns() - start)
    return out


def apply(rules: Ruleset, state: Any, action: Any) -> Any:
    return rules.adjudicate(state, action).state


def twenty_a_side(name: str) -> tuple[Ruleset, Any]:
    rules = get_ruleset(name)
    card, z, setup = LINES[name]
    state = rules.new_table(rules.parse_setup(setup), DiceState(seed=f"aids-bench-{name}"))
    if name == "ttt":
        for piece_id, data in TTT_TERRAIN:
            state = apply(rules, state, rules.terrain_put(state, piece_id, data))
    for i in range(20):
        for player, side_z, facing in (("Red", z, 0.0), ("Blue", -z, 180.0)):
            put = TankPut(card=card, player=player, x=i * 2.0 - 19, z=side_z, facing=facing)
            action = rules.tank_put(state, f"{player[0]}{i + 1}", put)
            assert action is not None
            state = apply(rules, state, action)
    if name == "ttt":
        state = apply(rules, state, rules.parse_action({"kind": "crew_roll"}))
    return rules, apply(rules, state, rules.parse_action({"kind": "start_game"}))


def yard() -> tuple[Ruleset, Any]:
    rules = get_ruleset("yrd")
    state = rules.new_table(rules.parse_setup({}), DiceState(seed="aids-bench-yrd"))
    for tank_id, player, x, z, facing in (
        ("R", "Red", 0.5, -18.2, 0.0),
        ("B", "Blue", 8, 18, 180.0),
    ):
        put = TankPut(card="yard-tank", player=player, x=x, z=z, facing=facing)
        action = rules.tank_put(state, tank_id, put)
        assert action is not None
        state = apply(rules, state, action)
    return rules, apply(rules, state, rules.parse_action({"kind": "start_game"}))


def report(name: str, rules: Ruleset, state: Any, runs: int, warmup: int) -> None:
    active = rules.summary(state).active_player or ""
    units = sorted(v.tank_id for v in rules.tank_views(state))
    unit = next(v.tank_id for v in rules.tank_views(state) if v.player == active)
    shapes = rules.aids(state, unit)
    moves = ", ".join(f"{m.shape} {m.id}" for m in shapes.move) or "none"
    print(
        f"{name}: {len(units)} units; {unit}: move {moves}; {len(shapes.arcs)} arcs; "
        f"{len(shapes.lines)} lines"
    )
    one = statistics.median(time_ns(lambda: rules.aids(state, unit), runs, warmup))
    every = statistics.median(
        time_ns(lambda: [rules.aids(state, u) for u in units], max(1, runs // 10), 2)
    )
    base = statistics.median(time_ns(lambda: rules.options_for(state, unit), runs, warmup))
    print(f"  aids (one unit)    median {one / 1000:9.1f} µs")
    print(f"  aids (all {len(units):2d})      median {every / 1000:9.1f} µs")
    print(f"  baseline options   median {base / 1000:9.1f} µs  (options_for of that unit)")
    print(f"  ratio aids / options = {one / base:.2f}x; all units / options = {every / base:.1f}x")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=20)
    args = parser.parse_args()
    tables = [(name, *twenty_a_side(name)) for name in LINES] + [("yrd", *yard())]
    for name, rules, state in tables:
        report(name, rules, state, args.runs, args.warmup)
    return 0


if __name__ == "__main__":
    sys.exit(main())
