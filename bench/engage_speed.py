"""How long one Engage adjudication takes, against the target of 60 µs (issue 18).

The table: a fresh, started duel (Tiger "R1" against a Sherman "B1", 40" apart) with five
terrain pieces (cover across the line of fire, a forest, a hill and a blocking piece beside
it) and a -2 smoke screen the Tiger laid on itself. ``adjudicate(state, Engage(R1 -> B1))``
runs on the server's dice, again and again on the same state: the engine is a pure
function, so every run does exactly the same work. The dice seed is the first of
``engage-speed-0``, ``engage-speed-1``, ... whose shot hits and penetrates, so the whole path
is timed (side hit and best-armour turn, Accuracy, Penetration with stars, damage card,
morale). Two baselines are timed the same way in the same run:

- ``TableState.model_copy()`` of the same state (pydantic's shallow copy): a floor for "doing
  anything at all with a state";
- the FLOOR: the dice recipe alone. As many numbers as the timed Engage draws from the
  table's generator (its dice, and the damage card it draws: the dice counter's advance),
  drawn through ``core.dice.Draws`` (HMAC-SHA256 per number, rejection sampled, as
  docs/trust-and-dice.md publishes it) with no rules around them: what verifiable dice cost,
  which no speed-up may give up. The Engage is reported as that floor plus "the engage
  beyond the dice" (the rules, the result and the bookkeeping: Python work).

Beside them, a reference: the result's data alone (its ``model_dump()``: dicts, lists, text
and numbers) rebuilt by ``pickle.loads``, in C with no Python code. It is not a floor (the
engine builds models and shares its constant strings), but it is of the order any CPython
engine returning this result pays to allocate it; with the dice floor, it says how much of the
target is left for the rules themselves. And a second reference: the same shot written
straight (``straight_engage.py``: one function, no dispatch, working context, plan objects or
result models, checked to give the engine's result data and new state), which splits the
engage into what this shot's rules cost in CPython and what the engine's shape adds.

    python bench/engage_speed.py --runs 5000 [--strict] [--profile] [--breakdown]

``--strict`` exits 1 when the target is missed. ``--profile`` adds a cProfile of the engage,
sorted by own time: where the time goes.

``--breakdown`` splits the engage by stage, in the same run, on the thread's CPU clock. Each
stage is the engine's own functions run from the start up to the end of that stage, in the
order ``adjudicate`` runs them (the working context; the plan, ``plan_engage``; the rest of
the Engage handler: the side turned, the dice, the summary lines, the damage card; the morale
checks; the side-out and objective watch; ``finish``: the dice settled and each touched tank's
changes, markers and tooltip); its time is the median of that prefix less the median of the
one before (the samples of all prefixes interleaved, so a busy spell hits them alike). The
last prefix must give exactly ``adjudicate``'s result, which the bench checks first. Beside
each stage: its share, how many Python function calls and calls of built-ins it makes
(``sys.setprofile``) and how many bytecode instructions the interpreter runs for it
(``sys.settrace`` with opcode events), all exact counts; the dice FLOOR is shown inside the
stage that rolls. The time per instruction, all told, says what the target asks: at that
rate, 60 µs is a budget of so many instructions.
"""

from __future__ import annotations

import argparse
import cProfile
import pickle
import pstats
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

from straight_engage import Differs, OffPath, check, straight_engage
from tankref.core.dice import DiceState, Draws
from tankref.core.geometry import Circle, Polygon
from tankref.rulesets.ttt import combat, morale, turns
from tankref.rulesets.ttt.actions import (
    CrewRoll,
    Engage,
    PlaceTank,
    PlaceTerrain,
    Smoke,
    StartGame,
)
from tankref.rulesets.ttt.adjudication import Context
from tankref.rulesets.ttt.cards import default_cards
from tankref.rulesets.ttt.engine import DISPATCH, adjudicate, new_table
from tankref.rulesets.ttt.state import TableState, TerrainPiece

TARGET_US = 60.0  # at most 60 µs per engage (issue 18)
SHOT = Engage(tank_id="R1", target_id="B1")


def duel_terrain() -> list[TerrainPiece]:
    """The duel's five pieces: a wall, a wood, a knoll, a barn, a hedge."""
    return [
        TerrainPiece(
            id="wall", kind="cover1", shape=Polygon(points=((-6, 1), (6, 1), (6, 3), (-6, 3)))
        ),
        TerrainPiece(id="wood", kind="forest", shape=Circle(x=-15, z=0, radius=5)),
        TerrainPiece(id="knoll", kind="hill", shape=Circle(x=14, z=8, radius=4)),
        TerrainPiece(
            id="barn", kind="blocking", shape=Polygon(points=((10, -10), (16, -10), (13, -4)))
        ),
        TerrainPiece(id="hedge", kind="cover2", shape=Circle(x=-20, z=-15, radius=3)),
    ]


def duel(seed: str) -> TableState:
    state = new_table(dice=DiceState(seed=seed))
    pieces = duel_terrain()
    actions: list[Any] = [PlaceTerrain(piece=p) for p in pieces]
    actions += [
        PlaceTank(tank_id="R1", card="tiger-i", player="Red", x=0, z=-20, facing=0),
        PlaceTank(tank_id="B1", card="m4a1-sherman", player="Blue", x=4, z=20, facing=150),
        CrewRoll(),
        StartGame(),
        Smoke(tank_id="R1", ability="NbK 39 dischargers"),
    ]
    for action in actions:
        state = adjudicate(state, action).state
    return state


def full_path_table(tries: int = 2000) -> tuple[TableState, str]:
    for k in range(tries):
        seed = f"engage-speed-{k}"
        state = duel(seed)
        outcome = adjudicate(state, SHOT).result.outcome
        if outcome.get("penetrated"):
            return state, seed
    raise SystemExit(f"no seed among {tries} gives a penetrating shot")


def time_ns(
    fn: Callable[[], object],
    runs: int,
    warmup: int,
    clock: Callable[[], int] = time.perf_counter_ns,
) -> list[int]:
    for _ in range(warmup):
        fn()
    out = []
    for _ in range(runs):
        t0 = clock()
        fn()
        out.append(clock() - t0)
    return out


def stages(state: TableState) -> list[tuple[str, Callable[[], Context]]]:
    """The engage's prefixes: each runs the engine's functions from the start to the end of
    its stage, as ``adjudicate`` runs them (engine.py), and returns the working context."""
    cards = default_cards()
    shot = SHOT

    def context() -> Context:
        return Context(state, shot.model_dump(), None, cards)

    def plan() -> Context:
        ctx = context()
        combat.plan_engage(
            ctx.state, shot.tank_id, shot.target_id, shot.grizzled_reroll, shot.best_armour
        )
        return ctx

    def engage() -> Context:  # the handler, plan included (it plans first)
        ctx = context()
        DISPATCH(ctx, state, shot)
        return ctx

    def morale_checks() -> Context:
        ctx = engage()
        morale.resolve_morale(ctx)
        return ctx

    def side_out() -> Context:
        ctx = morale_checks()
        turns.check_elimination(ctx)
        turns.watch_objective(ctx)
        return ctx

    def finish() -> Context:
        ctx = side_out()
        ctx.finish()
        return ctx

    return [
        ("Context(): working copy, dice bag, empty result", context),
        ("plan_engage: checks, line of fire, side, dice", plan),
        ("do_engage beyond the plan: rolls, text, card", engage),
        ("resolve_morale: the morale checks", morale_checks),
        ("check_elimination, watch_objective", side_out),
        ("finish: dice settled, changes, markers, tooltip", finish),
    ]


def count_work(fn: Callable[[], object]) -> tuple[int, int, int]:
    """How many Python functions and built-ins one call of ``fn`` calls, and how many
    bytecode instructions the interpreter runs for it (exact counts, not samples)."""
    calls = [0, 0, 0]
    here = __file__  # the stage wrappers of this bench are not the engine's work

    def tally(frame: Any, event: str, arg: object) -> None:
        if event == "call" and frame.f_code.co_filename != here:
            calls[0] += 1
        elif event == "c_call":
            calls[1] += 1

    def trace(frame: Any, event: str, arg: object) -> Any:
        if frame.f_code.co_filename == here:
            return None
        frame.f_trace_opcodes = True
        frame.f_trace_lines = False
        return step

    def step(frame: Any, event: str, arg: object) -> Any:
        if event == "opcode":
            calls[2] += 1
        return step

    sys.setprofile(tally)
    try:
        fn()
    finally:
        sys.setprofile(None)
    sys.settrace(trace)
    try:
        fn()
    finally:
        sys.settrace(None)
    # the profiler's own exit (a c_call of sys.setprofile) is not the engine's
    return calls[0], calls[1] - 1, calls[2]


def breakdown(state: TableState, runs: int, warmup: int, floor_us: float) -> None:
    """Print the engage split by stage (see the module docstring)."""
    parts = stages(state)
    whole = adjudicate(state, SHOT).result.model_dump()
    if parts[-1][1]().result.model_dump() != whole:
        raise SystemExit("the breakdown's stages do not add up to adjudicate's result")
    named: list[tuple[str, Callable[[], object]]] = [
        *parts,
        ("adjudicate", lambda: adjudicate(state, SHOT)),
    ]
    samples: list[list[int]] = [[] for _ in named]
    rounds = 10  # interleaved, so that a busy spell of the machine hits every prefix alike
    for _ in range(rounds):
        for k, (_, fn) in enumerate(named):
            samples[k] += time_ns(fn, max(1, runs // rounds), warmup // rounds, time.thread_time_ns)
    medians = [statistics.median(s) / 1000 for s in samples]
    counts = [count_work(fn) for _, fn in named]
    total = medians[-1]
    print(f"breakdown (thread CPU time, medians of {runs} runs per prefix, interleaved):")
    print(
        f"  {'stage':50s} {'µs':>7s} {'share':>6s} {'py calls':>9s} {'builtins':>9s} "
        f"{'bytecodes':>9s}"
    )
    before, calls_before = 0.0, (0, 0, 0)
    for k, (name, _) in enumerate(parts):
        us = medians[k] - before
        calls = tuple(now - then for now, then in zip(counts[k], calls_before, strict=True))
        print(f"  {name:50s} {us:7.1f} {us / total:6.1%} {calls[0]:9d} {calls[1]:9d} {calls[2]:9d}")
        if name.startswith("do_engage"):
            floor = "  of which the dice recipe alone (FLOOR)"
            print(f"  {floor:50s} {floor_us:7.1f} {floor_us / total:6.1%}")
        before, calls_before = medians[k], counts[k]
    rest = total - before
    last = tuple(now - then for now, then in zip(counts[-1], calls_before, strict=True))
    print(
        f"  {'adjudicate itself (its call, default_cards())':50s} {rest:7.1f} "
        f"{rest / total:6.1%} {last[0]:9d} {last[1]:9d} {last[2]:9d}"
    )
    work = counts[-1]
    print(f"  {'one engage':50s} {total:7.1f} {1:6.0%} {work[0]:9d} {work[1]:9d} {work[2]:9d}")
    print(
        f"  {total * 1000 / work[2]:.0f} ns per bytecode instruction, all told (built-ins, "
        "hashing and allocation included)"
    )


def _count_values(data: object) -> tuple[int, int]:
    """How many dicts and lists, and how many other values (keys included), ``data`` holds."""
    containers = values = 0
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            containers += 1
            values += len(item)  # its keys
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            containers += 1
            stack.extend(item)
        else:
            values += 1
    return containers, values


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Median time of one Engage adjudication, next to a trivial baseline."
    )
    parser.add_argument("--runs", type=int, default=5000, help="timed runs of each (default 5000)")
    parser.add_argument("--warmup", type=int, default=200, help="untimed runs first (default 200)")
    parser.add_argument("--profile", action="store_true", help="also print a cProfile of engage")
    parser.add_argument(
        "--breakdown", action="store_true", help="also split the engage's time by stage"
    )
    parser.add_argument("--strict", action="store_true", help="exit 1 when the target is missed")
    args = parser.parse_args(argv)

    state, seed = full_path_table()
    result = adjudicate(state, SHOT).result
    out = result.outcome
    print(
        f"table: dice seed {seed!r}; {len(state.terrain)} terrain pieces, "
        f"{len(state.smoke)} smoke screen(s); shot {out['hit_side']} side, "
        f"{out['accuracy_dice']} white, {out['penetration_dice']} red vs {out['needed']}, "
        f"penetrated: {out['penetrated']} ({out.get('damage_card')}), "
        f"{len(result.rolls)} dice rolled"
    )

    numbers = adjudicate(state, SHOT).state.dice.counter - state.dice.counter
    first, seeds = state.dice.counter, state.dice.player_seeds

    def dice_only() -> list[int]:
        # keyed per adjudication as the engine keys it, then every number the shot drew
        return Draws(seed, seeds).numbers(first, numbers, 6)

    engage = time_ns(lambda: adjudicate(state, SHOT), args.runs, args.warmup)
    baseline = time_ns(state.model_copy, args.runs, args.warmup)
    floor = time_ns(dice_only, args.runs, args.warmup)
    e_med = statistics.median(engage) / 1000
    b_med = statistics.median(baseline) / 1000
    f_med = statistics.median(floor) / 1000
    e_p90 = statistics.quantiles(engage, n=10)[-1] / 1000
    print(f"engage   median {e_med:8.1f} µs  (p90 {e_p90:.1f} µs, {args.runs} runs)")
    print(f"baseline median {b_med:8.2f} µs  (TableState.model_copy() of the same state)")
    print(f"ratio    engage / baseline = {e_med / b_med:.0f}x")
    print(
        f"FLOOR    median {f_med:8.2f} µs  (the dice recipe alone: {numbers} numbers drawn "
        f"through core.dice, {len(result.rolls)} dice and {numbers - len(result.rolls)} "
        "card draw(s), no rules)"
    )
    print(
        f"floor    share of the engage = {f_med / e_med:.1%}; engage / floor = "
        f"{e_med / f_med:.1f}x; engage beyond the dice {e_med - f_med:.1f} µs "
        f"({(e_med - f_med) / e_med:.1%}); the target leaves {TARGET_US - f_med:.1f} µs "
        "beyond the dice"
    )
    # What allocating the result's data costs with no Python code at all: its values rebuilt
    # by pickle, in C. Not a floor (the engine builds models, and shares its constant strings)
    # but of the order any CPython engine that returns this result pays, beside the dice.
    data = result.model_dump()
    pickled = pickle.dumps(data, protocol=pickle.HIGHEST_PROTOCOL)
    r_med = statistics.median(time_ns(lambda: pickle.loads(pickled), args.runs, args.warmup)) / 1000
    containers, values = _count_values(data)
    print(
        f"result   median {r_med:8.2f} µs  (a reference, not a floor: the result's data alone, "
        f"{values} values in {containers} dicts and lists, rebuilt by pickle in C, no Python "
        "code)"
    )
    print(
        f"budget   the dice floor and the result's data together {f_med + r_med:.1f} µs: the "
        f"target leaves {TARGET_US - f_med - r_med:.1f} µs for every rule, line of fire, "
        "number, text and change record"
    )
    # The same shot's rules written straight (straight_engage.py), on the same clock: what
    # they cost with the engine's generality taken away. Checked against the engine first.
    try:
        check(state, SHOT)
    except (OffPath, Differs) as why:
        print(f"straight (not shown: {why}; bring bench/straight_engage.py up to date)")
    else:
        straight = time_ns(
            lambda: straight_engage(state, SHOT.tank_id, SHOT.target_id), args.runs, args.warmup
        )
        s_med = statistics.median(straight) / 1000
        print(
            f"straight median {s_med:8.1f} µs  (a reference: this shot's rules written straight, "
            "bench/straight_engage.py, same state and result data, nothing general) = "
            f"{s_med / e_med:.2f}x the engage, {s_med / TARGET_US:.2f}x the target"
        )
    # The same engage on the thread's CPU clock: what it costs when other programs share the
    # machine (the target is the wall-clock median above).
    cpu = time_ns(lambda: adjudicate(state, SHOT), args.runs, 0, time.thread_time_ns)
    print(f"cpu      median {statistics.median(cpu) / 1000:8.1f} µs  (the thread's CPU time)")
    verdict = "PASS" if e_med <= TARGET_US else "FAIL"
    print(
        f"{verdict}: median engage {e_med:.1f} µs against the target of at most {TARGET_US:.0f} µs"
    )
    if args.breakdown:
        floor_cpu = time_ns(dice_only, args.runs, args.warmup, time.thread_time_ns)
        breakdown(state, args.runs, args.warmup, statistics.median(floor_cpu) / 1000)
    if args.profile:
        profiler = cProfile.Profile()
        profiler.enable()
        for _ in range(args.runs):
            adjudicate(state, SHOT)
        profiler.disable()
        stats = pstats.Stats(profiler, stream=sys.stdout)
        stats.sort_stats("tottime").print_stats(25)
        stats.sort_stats("cumulative").print_stats(25)
    return 1 if args.strict and verdict == "FAIL" else 0


if __name__ == "__main__":
    sys.exit(main())
