"""How the cost of a shot grows with the table: Engage and ``options`` at 2 v 2 .. 50 v 50.

Each table has N tanks a side, 5 x N / 2 terrain pieces and N / 2 smoke screens (2 v 2 is
``engage_speed.py``'s duel: five pieces about the line and one screen). Whatever N, the timed
shot is the same: the Tiger R1 at (0, -20) fires at the Sherman B1 at (4, 20) across the same
five pieces and through its own smoke, with the same dice (table dice, supplied: every white
a HIT, every red two PEN, the morale die a 2; the damage card drawn by the referee from the
same seed). The other tanks stand along the two deployment lines (x beyond +-24); the other
terrain and screens lie in strips at z +-37 on a table 80" deep (deploy depth 20"), more than
a screen's 12" from any line between the two deployment lines, so no other line of R1's
meets them. The table grows along x to hold them.

Timed, median CPU time per call: ``adjudicate(Engage R1 -> B1)``, and ``options_for(R1)``
without odds (every enemy's sight line and the Engage checks: the menu's work), per enemy it
lists.

What a shot costs (the claim the PASS lines check):

- the line of fire: O(cells the line crosses + pieces filed in them) through the terrain and
  smoke grid index (``SegmentIndex``; below 8 pieces every piece is looked at, as before);
  that is O(pieces on the line), not O(terrain);
- the rules of one shot: O(1) (two tanks, their dice, one card, one morale check);
- the bookkeeping per action: copying the state's map of tank references (one C-level dict
  copy, O(tanks) at a few ns a tank); the morale sweep over the tanks the action touched
  only (a side that lost a mover is counted until two movers are found: the whole side
  only when it is down to its last); the elimination check, which looks at the tanks the
  action touched and scans the sides only when one of them left play (O(tanks) then, at
  worst);
- no step compares tanks with tanks: nothing is O(tanks^2). ``options`` is O(enemies x the
  cost of each enemy's line).

PASS when, at 50 v 50, the Engage costs at most ``LIMIT`` x its 2 v 2 figure (the same shot,
the same pieces on the line), and ``options`` per enemy at most ``LIMIT`` x the 2 v 2 figure
(those lines are longer on the wider table: more cells crossed, the same kind of pieces).
The baseline of each run is its own 2 v 2 figure.

    python bench/growth.py [--runs 2000] [--strict]
"""

from __future__ import annotations

import argparse
import functools
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

from engage_speed import duel_terrain
from tankref.core.dice import DiceState, SuppliedDice
from tankref.core.errors import DiceNeeded
from tankref.core.geometry import Circle, TableArea
from tankref.rulesets.ttt.actions import (
    CrewRoll,
    Engage,
    PlaceTank,
    PlaceTerrain,
    Smoke,
    StartGame,
)
from tankref.rulesets.ttt.cards import default_cards
from tankref.rulesets.ttt.engine import adjudicate, new_table, options_for
from tankref.rulesets.ttt.state import Options, SmokeScreen, TableState, TerrainPiece

SIZES = (2, 10, 20, 50)
LIMIT = 2.0  # the 50 v 50 cost per shot at most this many times the 2 v 2
SHOT = Engage(tank_id="R1", target_id="B1")
FACES = {"white": 5, "red": 5, "green": 2}  # a HIT, two PEN (no star), morale OK
KINDS = ("forest", "cover1", "cover2", "hill", "blocking")
STRIP_Z = 37.0  # the extra terrain and smoke: beyond any screen's reach of a line (z 20)


def with_dice(state: TableState, action: Any) -> tuple[TableState, SuppliedDice | None]:
    """The action adjudicated with the table dice it asks for (``FACES``), and those dice."""
    faces: dict[str, list[int]] = {}
    while True:
        supplied = SuppliedDice(faces=faces) if faces else None
        try:
            return adjudicate(state, action, supplied).state, supplied
        except DiceNeeded as need:
            faces.setdefault(need.need.die, []).extend([FACES[need.need.die]] * need.need.count)


def base_terrain() -> list[TerrainPiece]:
    """The duel's five pieces (``engage_speed.py``'s)."""
    return duel_terrain()


def along(k: int) -> float:
    """The k-th spot (k >= 0) along a strip, alternating sides of the middle, 3" apart."""
    return (1 if k % 2 == 0 else -1) * (24.0 + 3.0 * (k // 2))


def table(n: int, seed: str) -> tuple[TableState, SuppliedDice | None]:
    """The n v n table, started, R1's smoke laid; the supplied dice of the timed shot."""
    half_width = max(36.0, abs(along(max(5 * n // 4, 2 * n))) + 6.0)
    state = new_table(
        area=TableArea(x_min=-half_width, x_max=half_width, z_min=-40.0, z_max=40.0),
        options=Options(deploy_depth=20.0),
        dice=DiceState(source="table", seed=seed),
    )
    pieces = base_terrain()
    pieces += [
        TerrainPiece(
            id=f"t{k}",
            kind=KINDS[k % len(KINDS)],
            shape=Circle(x=along(k // 2), z=STRIP_Z if k % 2 else -STRIP_Z, radius=1.0),
        )
        for k in range(5 * n // 2 - len(pieces))
    ]
    actions: list[Any] = [PlaceTerrain(piece=p) for p in pieces]
    actions += [
        PlaceTank(tank_id="R1", card="tiger-i", player="Red", x=0, z=-20, facing=0),
        PlaceTank(tank_id="B1", card="m4a1-sherman", player="Blue", x=4, z=20, facing=150),
    ]
    for k in range(n - 1):
        actions += [
            PlaceTank(tank_id=f"R{k + 2}", card="m4a1-sherman", player="Red", x=along(k), z=-20),
            PlaceTank(
                tank_id=f"B{k + 2}",
                card="m4a1-sherman",
                player="Blue",
                x=along(k),
                z=20,
                facing=180,
            ),
        ]
    actions += [CrewRoll(), StartGame(), Smoke(tank_id="R1", ability="NbK 39 dischargers")]
    for action in actions:
        state, _ = with_dice(state, action)
    # The other screens (one per two tanks a side beyond the first), out in the strips.
    first = state.next_smoke_id
    screens = tuple(
        SmokeScreen(
            id=first + k,
            owner="Red" if k % 2 else "Blue",
            tank_id="R1",
            ability="bench screen",
            x=along(k // 2),
            z=STRIP_Z if k % 2 else -STRIP_Z,
            strength=2,
        )
        for k in range(n // 2 - 1)
    )
    state = state.model_copy(
        update={"smoke": state.smoke + screens, "next_smoke_id": first + len(screens)}
    )
    _, supplied = with_dice(state, SHOT)
    return state, supplied


def median_us(fn: Callable[[], object], runs: int) -> float:
    """Median CPU time of one call (the thread's own clock: on a shared machine a call long
    enough to be preempted would otherwise be charged for the other programs' time, and the
    big tables' long ``options`` calls would look worse than they are)."""
    for _ in range(max(20, runs // 20)):
        fn()
    clock = time.thread_time_ns
    times = []
    for _ in range(runs):
        t0 = clock()
        fn()
        times.append(clock() - t0)
    return statistics.median(times) / 1000


def quiet_seed() -> str:
    """A seed whose first damage card leaves B1 on the table: the same path at every size
    (a catastrophic kill sends every friend that saw it to a morale check: the rules' cost)."""
    for k in range(200):
        seed = f"growth-{k}"
        state, supplied = table(2, seed)
        result = adjudicate(state, SHOT, supplied)
        card = default_cards().rules.deck_card(str(result.result.outcome.get("damage_card")))
        if card is not None and card.effect != "destroyed":
            return seed
    raise SystemExit("no seed among 200 keeps B1 on the table")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=2000, help="timed calls of each (2000)")
    parser.add_argument("--strict", action="store_true", help="exit 1 when a target is missed")
    args = parser.parse_args(argv)

    seed = quiet_seed()
    rows = []
    outcome = None
    for n in SIZES:
        state, supplied = table(n, seed)
        result = adjudicate(state, SHOT, supplied).result
        out = result.outcome
        shot = (out["hit_side"], out["accuracy_dice"], out["penetration_dice"], out["pens"])
        if outcome is None:
            outcome = shot
        elif shot != outcome:  # the same shot at every size, or the comparison means nothing
            print(f"FAIL: the shot differs at {n} v {n}: {shot} against {outcome}")
            return 1
        engage = median_us(functools.partial(adjudicate, state, SHOT, supplied), args.runs)
        menu = options_for(state, "R1", odds=False)
        targets = next(o for o in menu if o.kind == "engage").detail or {}
        enemies = len(targets.get("targets", []))
        opts = median_us(
            functools.partial(options_for, state, "R1", odds=False), max(200, args.runs // n)
        )
        rows.append((n, len(state.terrain), len(state.smoke), engage, opts, enemies))

    print(f"dice seed {seed!r}; the shot: {outcome} (side, white, red, PEN) at every size")
    print(" size   terrain smoke | engage µs  x 2v2 | options µs  enemies  µs/enemy  x 2v2")
    base_engage = rows[0][3]
    base_per_enemy = rows[0][4] / rows[0][5]
    for n, terrain, smoke, engage, opts, enemies in rows:
        per_enemy = opts / enemies
        print(
            f"{n:2d} v {n:<2d} {terrain:6d} {smoke:5d} | {engage:9.1f} {engage / base_engage:6.2f} "
            f"| {opts:10.1f} {enemies:8d} {per_enemy:9.1f} {per_enemy / base_per_enemy:6.2f}"
        )
    big = rows[-1]
    engage_ratio = big[3] / base_engage
    enemy_ratio = big[4] / big[5] / base_per_enemy
    ok_engage = engage_ratio <= LIMIT
    ok_options = enemy_ratio <= LIMIT
    print(
        f"{'PASS' if ok_engage else 'FAIL'}: engage per shot at {big[0]} v {big[0]} is "
        f"{engage_ratio:.2f}x the 2 v 2 (the same pieces on the line), target at most {LIMIT:g}x"
    )
    print(
        f"{'PASS' if ok_options else 'FAIL'}: options per enemy at {big[0]} v {big[0]} is "
        f"{enemy_ratio:.2f}x the 2 v 2, target at most {LIMIT:g}x"
    )
    return 1 if args.strict and not (ok_engage and ok_options) else 0


if __name__ == "__main__":
    sys.exit(main())
