"""How long the exact odds of every shooter-target pair on a 20-vs-20 table take.

Targets (issue 18): warm cache <= 5 ms, cold cache <= 15 ms for the whole table.

The table (seeded, the same on every run): Meeting Engagement, 20 Red tanks along the south
and 20 Blue along the north (cards drawn from the shipped 16, facings spread, a few
hull-down), eight terrain pieces (forests, cover, hills, two blocking rocks), a smoke screen,
crews rolled on the server's dice, the game started: Red's phase of turn 1. Then, so that the
situations are as varied as in play, some shooters are marked moved, Shaken or with damaged
optics or gun, some targets Moving Fast, Shaken, Routed or Immobilized, a few Grizzled
rerolls used, and the deck has had six cards drawn.

"All pairs" is ``odds_for_shooter(state, r)`` for each of the 20 Red tanks: every Blue tank
it may Engage, with the full answer (``ShotOdds``, cards and morale). It is timed cold (every
odds cache cleared first) and warm, median of ``--runs``.

"Warm" is what a page pays after a move: each timed run is the table with one more tank
moved half an inch (Red and Blue in turn, a new tank object and every other one shared, as
the engine's own Move leaves them: the bench checks that first), the caches filled by the
tables before it. The caches hold dice and situation numbers (keyed by the tuple of numbers
that decide a shot) and each pair's line and plan (``combat._pair_plans``, keyed by the
very tank, terrain, smoke and options objects), so the moved tank's pairs are planned again
and the rest are found. Printed beside it: the same table again (every plan found: not a
page's case) and warm with the kept plans cleared before each run (every pair planned, the
dice and situations found: the warm figure of the passes before the plans were kept).

The floors, timed the same way in the same run, are what the answers cannot do without:
the lines of sight of all 400 pairs (``Sightlines``: the terrain and smoke on each line,
geometry only) and the exact probabilities of the table's distinct situations
(``situation_numbers``: cold, from empty caches, icepool and fractions; warm, found in the
caches). Each is printed in ms and as a share of the odds, with what lies beyond them; cold's
beyond is split into warm's beyond, building each situation's answer from its numbers (all
pairs with only the answers' caches cleared, less the warm run with the kept plans cleared)
and the rest. Two
baselines as before: the same number of ``TableState.model_copy()`` calls (one per pair) and
``check_engage`` for every pair one at a time (the legality check alone).

The collector runs as ``tankref serve`` runs it, where the page's odds are computed: the
objects loaded at start-up frozen out of full sweeps, young collections every
``YOUNG_GC_THRESHOLD`` allocations; the table is built after, as a table opened in a running
server. The cold and warm figures under Python's default collector, nothing frozen (as the
first pass measured), are printed too.

Times are CPU time of this process (``time.process_time_ns``) by default, which a shared,
busy machine inflates less than wall time; ``--wall`` times wall-clock instead.

``--profile`` prints where the warm runs' time goes instead (cProfile over ``--runs`` runs
after a move, by own time, and each stage's share: lines of fire, side and plan, the answer).

    python bench/odds_table.py --runs 21 [--strict]
    python bench/odds_table.py --profile [--runs 20]
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import gc
import pstats
import random
import statistics
import sys
import time
from collections.abc import Callable

from tankref.core.dice import DiceState
from tankref.core.errors import RulesError
from tankref.core.geometry import Circle
from tankref.core.trusted import whole
from tankref.rulesets.ttt.actions import CrewRoll, Move, PlaceTank, PlaceTerrain, StartGame
from tankref.rulesets.ttt.cards import default_cards
from tankref.rulesets.ttt.combat import check_engage, clear_plan_cache, plan_engages
from tankref.rulesets.ttt.engine import adjudicate, new_table
from tankref.rulesets.ttt.odds import (
    MoraleOdds,
    ShotOdds,
    cache_sizes,
    clear_answer_caches,
    clear_caches,
    odds_for_shooter,
    situation_numbers,
)
from tankref.rulesets.ttt.sight import Sightlines
from tankref.rulesets.ttt.state import DeckState, Options, SmokeScreen, TableState, TerrainPiece

TARGET_WARM_MS = 5.0
TARGET_COLD_MS = 15.0


def table(seed: int = 20) -> TableState:
    rng = random.Random(seed)
    state = new_table(options=Options(deploy_depth=48.0), dice=DiceState(seed=f"odds-{seed}"))
    kinds = ("forest", "forest", "cover1", "cover2", "cover1", "hill", "blocking", "blocking")
    for i, kind in enumerate(kinds):
        radius = rng.uniform(1.5, 3.0) if kind == "blocking" else rng.uniform(3.0, 6.0)
        shape = Circle(x=rng.uniform(-30, 30), z=rng.uniform(-12, 12), radius=radius)
        state = adjudicate(
            state, PlaceTerrain(piece=TerrainPiece(id=f"T{i}", kind=kind, shape=shape))
        ).state
    ids = sorted(default_cards().tanks)
    for player, z, facing in (("Red", -21.0, 0.0), ("Blue", 21.0, 180.0)):
        for k in range(20):
            action = PlaceTank(
                tank_id=f"{player[0]}{k + 1:02d}",
                card=rng.choice(ids),
                player=player,
                x=round(-34.0 + k * 3.6, 2),
                z=round(z + rng.uniform(-2.5, 2.5), 2),
                facing=round((facing + rng.uniform(-50, 50)) % 360, 1),
                hull_down=rng.random() < 0.1,
            )
            state = adjudicate(state, action).state
    state = adjudicate(state, CrewRoll()).state
    state = adjudicate(state, StartGame()).state

    tanks = dict(state.tanks)
    for tank_id, tank in tanks.items():
        roll = rng.random()
        if tank.player == "Red":
            update = {
                "moved": "normal" if roll < 0.3 else "none",
                "morale": "shaken" if 0.3 <= roll < 0.4 else "ok",
                "optics_damage": int(0.4 <= roll < 0.45),
                "gun_damage": int(0.45 <= roll < 0.5),
                "reroll_used": tank.grizzled and rng.random() < 0.5,
            }
        else:
            update = {
                "moved": "fast" if roll < 0.15 else "none",
                "morale": "shaken" if 0.15 <= roll < 0.3 else "routed" if roll < 0.35 else "ok",
                "immobilized": 0.35 <= roll < 0.45,
                "facing_changed": 0.45 <= roll < 0.6,
            }
        tanks[tank_id] = tank.model_copy(update=update)
    smoke = (
        SmokeScreen(id=1, owner="Blue", tank_id="B05", ability="bench", x=-10, z=10, strength=2),
    )
    deck = list(state.rules.full_deck())
    rng.shuffle(deck)
    return state.model_copy(
        update={"tanks": tanks, "smoke": smoke, "deck": DeckState(draw_pile=tuple(deck[6:]))}
    )


def time_ms(
    fn: Callable[[], object],
    runs: int,
    before: Callable[[], object] | None = None,
    clock: Callable[[], int] = time.process_time_ns,
) -> list[float]:
    out = []
    for _ in range(runs):
        if before is not None:
            before()
        t0 = clock()
        fn()
        out.append((clock() - t0) / 1e6)
    return out


# The stages of one shooter's odds, by the function that does each (cumulative time).
STAGES = (
    ("all pairs (odds_for_shooter)", "odds_for_shooter"),
    ("  planning every target (plan_engages)", "plan_engages"),
    ("    the lines of fire planned again (Sightlines.line)", "line"),
    ("    side hit and best-armour turn (choose_side)", "choose_side"),
    ("    dice, modifiers, PEN needed (plan_against)", "plan_against"),
    ("  the answers (_shot: situation lookup, ShotOdds)", "_shot"),
)


def profile(all_pairs: Callable[[], int], runs: int) -> int:
    """cProfile over ``runs`` warm runs (after one more, unprofiled): each stage's share,
    then the top functions."""
    all_pairs()
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(runs):
        all_pairs()
    profiler.disable()
    stats = pstats.Stats(profiler)
    table = stats.stats  # type: ignore[attr-defined]
    total = sum(row[2] for row in table.values())  # own times add up to the whole
    print(f"warm runs profiled: {runs}; per run {total / runs * 1e3:.2f} ms under cProfile")
    for label, name in STAGES:
        cumulative = sum(row[3] for (_, _, func), row in table.items() if func == name)
        print(f"{label:56} {cumulative / total:6.1%}")
    stats.sort_stats("tottime").print_stats(25)
    return 0


def _all_pairs(state: TableState) -> Callable[[], int]:
    """Odds for every pair: ``odds_for_shooter`` for each Red tank; returns the answers."""
    reds = sorted(t.id for t in state.tanks.values() if t.player == "Red")
    return lambda: sum(len(odds_for_shooter(state, r)) for r in reds)


def moved_tables(state: TableState, count: int) -> list[TableState]:
    """``count`` tables, each the one before with one more tank moved half an inch (Red and
    Blue in turn), every other tank, the terrain, the smoke and the options the same objects,
    as the engine's Move leaves them."""
    reds = sorted(t.id for t in state.tanks.values() if t.player == "Red")
    blues = sorted(t.id for t in state.tanks.values() if t.player == "Blue")
    out = []
    for i in range(count):
        ids = reds if i % 2 == 0 else blues
        tank = state.tanks[ids[(i // 2) % len(ids)]]
        step = 0.5 if (i // (2 * len(ids))) % 2 == 0 else -0.5
        moved = tank.model_copy(update={"x": round(tank.x + step, 2)})
        state = state.model_copy(update={"tanks": {**state.tanks, tank.id: moved}})
        out.append(state)
    return out


def move_shares_the_rest(state: TableState) -> bool:
    """The engine's own Move of an active tank: a new object for that tank alone, and the
    same tanks, terrain, smoke and options objects for the rest (what ``moved_tables``
    assumes)."""
    for tank in sorted(state.tanks.values(), key=lambda t: t.id):
        if tank.player != state.active_player:
            continue
        try:
            after = adjudicate(
                state, Move(tank_id=tank.id, x=tank.x + 0.5, z=tank.z, facing=tank.facing)
            ).state
        except RulesError:
            continue
        same = [i for i in state.tanks if after.tanks[i] is state.tanks[i]]
        return (
            same == [i for i in state.tanks if i != tank.id]
            and after.terrain is state.terrain
            and after.smoke is state.smoke
            and after.options is state.options
        )
    raise SystemExit("no tank of the player to act may move on the bench table")


def medians(
    fns: dict[str, Callable[[], object]], runs: int, clock: Callable[[], int]
) -> dict[str, float]:
    """Each timing's median over ``runs`` (``cold`` and ``odds cold`` clear the caches first,
    ``answers cold`` the answers' caches and the kept plans, ``replanned`` the kept plans)."""
    out = {}
    for name, fn in fns.items():
        before: Callable[[], object] | None = clear_caches if name.endswith("cold") else None
        if name == "answers cold":
            before = _clear_answers_and_plans
        elif name == "replanned":
            before = clear_plan_cache
        out[name] = statistics.median(time_ms(fn, runs, before=before, clock=clock))
    return out


def _clear_answers_and_plans() -> None:
    clear_answer_caches()
    clear_plan_cache()


def _after_moves(tables: list[TableState]) -> Callable[[], int]:
    """All pairs of the next of ``tables`` on each call (one more tank moved each time)."""
    pending = iter(tables)
    return lambda: _all_pairs(next(pending))()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Exact odds for every shooter-target pair of a 20-vs-20 table, cold and "
        "warm cache, next to the floors it cannot go under and trivial baselines."
    )
    parser.add_argument("--runs", type=int, default=21, help="timed runs of each (default 21)")
    parser.add_argument("--seed", type=int, default=20, help="table seed (default 20)")
    parser.add_argument(
        "--wall", action="store_true", help="time wall-clock instead of this process's CPU time"
    )
    parser.add_argument("--strict", action="store_true", help="exit 1 when a target is missed")
    parser.add_argument(
        "--profile", action="store_true", help="profile the warm runs instead of timing them"
    )
    args = parser.parse_args(argv)
    clock = time.perf_counter_ns if args.wall else time.process_time_ns

    # First under Python's default collector, nothing frozen (as the first pass measured),
    # before the server's modules are imported (they double the objects a full collection
    # walks).
    if not args.profile:
        plain_state = table(args.seed)
        _all_pairs(plain_state)()
        plain = medians(
            {
                "cold": _all_pairs(plain_state),
                "warm": _after_moves(moved_tables(plain_state, args.runs)),
            },
            args.runs,
            clock,
        )
        del plain_state
    # Then as ``tankref serve`` runs (the page's odds come from it): what was loaded at
    # start-up is kept out of the collector's full sweeps (app.py), young collections every
    # YOUNG_GC_THRESHOLD allocations (serve.py); the table is built after, as a table is
    # opened in a running server.
    from tankref.server.serve import YOUNG_GC_THRESHOLD

    gc.collect()
    gc.freeze()
    _, *older = gc.get_threshold()
    gc.set_threshold(YOUNG_GC_THRESHOLD, *older)

    state = table(args.seed)
    reds = sorted(t.id for t in state.tanks.values() if t.player == "Red")
    blues = sorted(t.id for t in state.tanks.values() if t.player == "Blue")
    all_pairs = _all_pairs(state)

    if not move_shares_the_rest(state):
        raise SystemExit("the engine's Move no longer shares the unmoved tanks: warm is not a move")
    clear_caches()
    pairs = all_pairs()
    sizes = cache_sizes()
    tables = moved_tables(state, args.runs)
    plans = [
        plan for r in reds for _, plan in plan_engages(state, r) if not isinstance(plan, RulesError)
    ]

    def copies() -> None:
        for _ in range(pairs):
            state.model_copy()

    def checks() -> None:
        for r in reds:
            for b in blues:
                with contextlib.suppress(RulesError):  # out of sight: the odds try it too
                    check_engage(state, r, b)

    targets = [state.tanks[b] for b in blues]

    def lines() -> None:
        for r in reds:
            sight = Sightlines(state, state.tanks[r])
            for target in targets:
                sight.line(target)

    def numbers() -> None:
        situation_numbers(state, plans)

    answers = [odds for r in reds for odds in odds_for_shooter(state, r)]

    def objects() -> None:
        for odds in answers:
            whole(MoraleOdds, odds.morale.__dict__.copy())
            whole(ShotOdds, odds.__dict__.copy())

    if args.profile:
        return profile(_after_moves(tables), args.runs - 1)
    timed: dict[str, Callable[[], object]] = {
        "cold": all_pairs,
        "warm": _after_moves(tables),
        "again": all_pairs,
        "replanned": all_pairs,
        "baseline": copies,
        "legality": checks,
        "lines": lines,
        "odds cold": numbers,
        "odds warm": numbers,
        "objects": objects,
        # All pairs again with each situation's numbers and dice cached but not its answer
        # (ShotOdds fields, card lines, rank) nor the kept plans: less replanned, what cold
        # adds beyond the floor.
        "answers cold": all_pairs,
    }
    m = medians(timed, args.runs, clock)
    kind = "wall" if args.wall else "CPU"
    c_med, w_med, b_med, l_med = m["cold"], m["warm"], m["baseline"], m["legality"]
    r_med = m["replanned"]  # every pair planned, the dice and situations found
    floor_warm = m["lines"] + m["odds warm"]
    floor_cold = m["lines"] + m["odds cold"]
    print(
        f"table: 20 v 20, {len(state.terrain)} terrain pieces, 1 smoke screen, "
        f"{len(state.deck.draw_pile)} cards left; {pairs} legal pairs of {len(reds) * len(blues)} "
        f"({sizes['dice']} kinds of roll, {sizes['situations']} situations with deck and morale)"
    )
    print(
        f"collector as tankref serve runs it: start-up objects frozen, young collections every "
        f"{YOUNG_GC_THRESHOLD:,} allocations; medians of {args.runs} runs, {kind} time"
    )
    print(f"odds, cold cache  {c_med:7.2f} ms")
    print(
        f"odds, warm cache  {w_med:7.2f} ms  (after a move: one more tank moved each run, Red "
        "and Blue in turn; its pairs planned again, the other pairs' lines and plans found, "
        "the dice and situations found by the numbers that decide a shot)"
    )
    print(
        f"  the same table again   {m['again']:6.2f} ms  (every pair's plan found: no page "
        "asks twice for one table's odds, shown for what the answers alone cost)"
    )
    print(
        f"  every pair planned     {r_med:6.2f} ms  (the kept plans cleared before each run, "
        "the dice and situations found: warm as the passes before kept plans measured it)"
    )
    print(
        f"floor: lines of sight      {m['lines']:6.2f} ms  (Sightlines, all "
        f"{len(reds) * len(blues)} pairs: the terrain and smoke on each line)  = "
        f"{m['lines'] / r_med:.2f}x every pair planned, "
        f"{m['lines'] / c_med:.2f}x cold"
    )
    print(
        f"floor: exact odds, cold    {m['odds cold']:6.2f} ms  ({sizes['situations']} distinct "
        f"situations from empty caches: icepool and fractions) = {m['odds cold'] / c_med:.2f}x cold"
    )
    print(
        f"floor: exact odds, warm    {m['odds warm']:6.2f} ms  (the same situations found in the "
        f"caches) = {m['odds warm'] / w_med:.2f}x warm"
    )
    print(
        f"floor, every pair planned = lines + odds warm = {floor_warm:.2f} ms = "
        f"{floor_warm / r_med:.2f}x every pair planned; beyond it {r_med - floor_warm:.2f} ms "
        "(checks, sides, plans, the answers' objects)"
    )
    print(
        f"floor, cold = lines + odds cold = {floor_cold:.2f} ms = {floor_cold / c_med:.2f}x cold; "
        f"beyond it {c_med - floor_cold:.2f} ms"
    )
    answers_cold = m["answers cold"] - r_med
    print(
        f"cold beyond its floor = every pair planned's beyond {r_med - floor_warm:.2f} ms + "
        f"building the {sizes['situations']} situations' answers from their numbers (fields, "
        f"card lines, rank; all pairs with those caches and the kept plans cleared, less every "
        f"pair planned) {answers_cold:.2f} ms + the rest "
        f"{c_med - floor_cold - (r_med - floor_warm) - answers_cold:.2f} ms"
    )
    print(
        f"reference: the answers' objects alone {m['objects']:.2f} ms = "
        f"{m['objects'] / w_med:.2f}x warm ({pairs} ShotOdds and MoraleOdds built from values "
        "already worked out: not a floor, what building the returned models costs at least)"
    )
    print(f"baseline          {b_med:7.2f} ms  ({pairs} x TableState.model_copy())")
    print(f"legality only     {l_med:7.2f} ms  (check_engage for all 400 pairs, one at a time)")
    print(
        f"ratio    warm / baseline = {w_med / b_med:.1f}x, cold / baseline = {c_med / b_med:.1f}x, "
        f"warm / legality = {w_med / l_med:.2f}x"
    )
    print(
        f"Python's default collector, nothing frozen, server not imported (as the first pass "
        f"measured, timed first): cold "
        f"{plain['cold']:.2f} ms, warm (after a move) {plain['warm']:.2f} ms"
    )
    missed = 0
    for label, value, target in (("warm", w_med, TARGET_WARM_MS), ("cold", c_med, TARGET_COLD_MS)):
        verdict = "PASS" if value <= target else "FAIL"
        missed += verdict == "FAIL"
        print(f"{verdict}: {label} {value:.1f} ms for the whole table (target <= {target:.0f} ms)")
    return 1 if args.strict and missed else 0


if __name__ == "__main__":
    sys.exit(main())
