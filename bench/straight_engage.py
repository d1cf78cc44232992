"""engage_speed.py's shot written straight: what its rules cost in CPython with nothing general
around them (issue 18's 60 µs question).

``straight_engage`` adjudicates the one Engage that ``engage_speed.py`` times, on the same
table, as a single function: no dispatch, no working context, no plan objects, no caches of
modifiers, no result models (the result is the plain data ``Result.model_dump()`` gives). It
works on the same ``TableState`` (copied as the engine copies it: a state must stay a state)
and draws the same numbers from the table's generator (HMAC-SHA256 per number, which no
speed-up may give up); the markers and tooltips come from the engine's own renderer, kept
by status as the engine keeps them. Every condition on the shot's path is read from the
table; a branch this table never takes raises ``OffPath`` instead of being written (in an
engine it would be code that does not run, at no cost). ``check`` proves it gives the
engine's result data and new state, field for field, before anything is timed.

It is a reference, not a floor: more could be precomputed (a cache keyed by positions would
flatter a bench that repeats one shot). It says what this one shot's rules, lines, numbers,
texts and change records cost once the engine's generality is taken away, so the engine's
time splits into "the rules written straight" and "what the engine's shape adds".

    python bench/straight_engage.py [--runs 5000] [--sections]

``--sections`` splits the straight engage's time by section (clock readings between them,
their own cost taken off).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

from pydantic_core import to_jsonable_python

from tankref.core.dice import Draws
from tankref.core.geometry import (
    arc_at,
    contains,
    distance,
    relative_bearing,
    segment_enters,
    segment_point_distance,
    signed_angle,
)
from tankref.core.trusted import copied
from tankref.rulesets.ttt import presentation
from tankref.rulesets.ttt.actions import Engage
from tankref.rulesets.ttt.adjudication import Context
from tankref.rulesets.ttt.cards import (
    ACCURACY_DIE,
    HIT,
    MORALE_DIE,
    PEN,
    PENETRATION_DIE,
    STAR,
    Side,
)
from tankref.rulesets.ttt.engine import adjudicate
from tankref.rulesets.ttt.state import TableState, TankState

# The engine's own list of the fields a change record reports, read from it (not copied).
TRACKED = Context.tracked
_PLAIN = frozenset((str, int, float, bool, type(None)))
# Where the sections end, in order (``--sections``).
SECTIONS = (
    "checks",
    "line of fire",
    "side hit",
    "dice and modifiers planned",
    "working copy, first line and ruling, result",
    "Accuracy (generator keyed, white dice)",
    "Penetration (red dice, * rerolls)",
    "damage card",
    "morale check",
    "changes, markers, tooltips",
)


class OffPath(Exception):
    """The table asks for a branch the straight engage does not write."""


class Differs(Exception):
    """The straight engage no longer gives the engine's answer (the engine changed)."""


def straight_engage(
    state: TableState, tank_id: str, target_id: str, mark: Callable[[], None] | None = None
) -> tuple[TableState, dict[str, Any]]:
    """The Engage ``tank_id`` -> ``target_id`` on ``state``: the new state and the result's
    data. ``mark``: called at the end of each of ``SECTIONS`` (timing only)."""
    # --- checks (TTT-E1 and the shooter's refusals) ---
    if state.status != "playing":
        raise OffPath("the game is not being played")
    tanks = state.tanks
    s0 = tanks.get(tank_id)
    t0 = tanks.get(target_id)
    if s0 is None or t0 is None or not s0.on_board:
        raise OffPath("a tank unknown or not on the table")
    if (
        s0.engaged
        or (s0.player != state.active_player and not s0.waiting)
        or s0.stunned == "now"
        or s0.bound_to_recover
        or s0.morale == "routed"
        or (s0.moved == "fast" and not s0.card.engage_while_fast)
        or s0.recover_tried
        or s0.smoke_popped
    ):
        raise OffPath("the shooter may not fire")
    if t0.player == s0.player or not t0.on_board or s0.turret_jammed:
        raise OffPath("a target refused, or a jammed turret")
    options = state.options
    if options.best_armour == "ask":
        raise OffPath("best_armour: ask")
    if mark:
        mark()

    # --- the line of fire (TTT-E1, TTT-CV1, TTT-CN1, TTT-E2's hill, TTT-SM3) ---
    a, b = (s0.x, s0.z), (t0.x, t0.z)
    reach = distance(a, b)
    visible = True
    cover, cover_why = 0, ""
    for piece in state.terrain.values():
        shape = piece.shape
        if not segment_enters(shape, a, b):
            continue
        holds_a, holds_b = contains(shape, a), contains(shape, b)
        kind = piece.kind
        if kind == "blocking":
            if not holds_a and not holds_b:
                visible = False
        elif kind == "forest":
            raise OffPath("a forest on the line")
        elif kind == "cover1" or kind == "cover2":
            if holds_a and not holds_b:
                continue
            level = 1 if kind == "cover1" else 2
            if level > cover:
                where = "target inside" if holds_b else "between"
                cover, cover_why = level, f"{piece.name or piece.id}: {where}"
        elif kind == "hill" and holds_b and not holds_a:
            raise OffPath("hull-down on a hill")
    if not visible:
        raise OffPath("no line of sight")
    if t0.hull_down:
        raise OffPath("the target is marked hull-down")
    smoke = screens = 0
    adding = options.smoke_stacking == "add"
    for screen in state.smoke:
        if screen.strength <= 0:
            continue
        gap = segment_point_distance(a, b, (screen.x, screen.z))
        if gap <= 6.0:
            got = screen.strength
        elif screen.strength >= 2 and gap <= 12.0:
            got = screen.strength - 1
        else:
            continue
        screens += 1
        smoke = smoke + got if adding else max(smoke, got)
    if mark:
        mark()

    # --- the side hit (TTT-E2) and the best-armour turn (TTT-E3) ---
    rel = relative_bearing(t0.facing, b, a)
    side, edge = arc_at(signed_angle(rel), options.front_arc, options.rear_arc)
    if edge is not None:
        raise OffPath("the bearing on an arc's edge")
    plates = t0.card.armour
    front, flank, back = plates.front, plates.side, plates.rear
    best: Side = (
        "front" if front >= flank and front >= back else ("side" if flank >= back else "rear")
    )
    armour = plates.of(side)
    if plates.of(best) > armour:
        raise OffPath("a best-armour turn")
    if mark:
        mark()

    # --- the dice and the modifiers (TTT-E4, TTT-E5, TTT-CV1, TTT-SM3) ---
    if s0.moved != "none" or s0.morale == "shaken" or s0.optics_damage or s0.gun_damage:
        raise OffPath("the shooter's own penalties")
    if t0.moved == "fast" and t0.card.fast_evasion:
        raise OffPath("a fast target")
    if options.cover != "armour":
        raise OffPath("cover option")
    card = s0.card
    modifiers: list[dict[str, Any]] = []
    white = card.accuracy
    if smoke:
        white -= smoke
        ruling = "screens add" if adding else "the strongest screen on the line applies"
        modifiers.append(
            {
                "clause": "TTT-SM3",
                "label": f"smoke on the line of fire ({screens} screen(s))",
                "amount": -smoke,
                "applies_to": "accuracy_dice",
                "ruling": ruling,
            }
        )
    white = max(0, white)
    red = card.penetration
    needed = armour + cover
    if s0.grizzled and not s0.reroll_used and options.grizzled_reroll != "auto":
        raise OffPath("a declared Grizzled reroll")
    if mark:
        mark()

    # --- the working copy, the first line, the side's ruling, the result ---
    new = copied(state)
    fields = new.__dict__
    new_tanks = fields["tanks"] = dict(tanks)
    dice = fields["dice"] = copied(state.dice)
    new.__pydantic_fields_set__.update(("tanks", "dice"))
    s = new_tanks[tank_id] = copied(s0)
    t = new_tanks[target_id] = copied(t0)
    s_fields, t_fields = s.__dict__, t.__dict__
    s_fields["engaged"] = True
    s_fields["waiting"] = False
    s_label = f"{s0.name} ({s0.id})"
    t_label = f"{t0.name} ({t0.id})"
    summary = [f'{s_label} engages {t_label} at {reach:.1f}".']
    front_arc, rear_arc = f"{options.front_arc:g}", f"{options.rear_arc:g}"
    rulings: list[dict[str, Any]] = [
        {
            "clause": "TTT-E2",
            "text": f"side by the shooter's bearing, {rel:.1f}° off the target's facing "
            f"(front ±{front_arc}°, rear ±{rear_arc}°)",
            "option": "front_arc/rear_arc",
            "value": f"{front_arc}/{rear_arc}",
        }
    ]
    outcome: dict[str, Any] = {
        "shooter": tank_id,
        "target": target_id,
        "range": round(reach, 2),
        "hit": False,
        "penetrated": False,
        "hit_side": side,
        "accuracy_dice": white,
    }
    rolls: list[dict[str, Any]] = []
    events: list[dict[str, Any]] = []
    changes: list[dict[str, Any]] = []
    result: dict[str, Any] = {
        "action": {
            "kind": "engage",
            "tank_id": tank_id,
            "target_id": target_id,
            "grizzled_reroll": None,
            "best_armour": None,
        },
        "summary": summary,
        "rolls": rolls,
        "modifiers": modifiers,
        "rulings": rulings,
        "outcome": outcome,
        "events": events,
        "changes": changes,
    }
    if mark:
        mark()

    # --- Accuracy (TTT-E4): the table's generator, one HMAC-SHA256 per number ---
    table_dice = state.dice
    if table_dice.source != "server" or table_dice.damage_cards != "referee":
        raise OffPath("the table rolls or draws its own")
    draws = Draws(table_dice.seed, table_dice.player_seeds)
    counter = table_dice.counter
    specs = state.rules.dice
    if white == 0:
        raise OffPath("no Accuracy dice")
    white_faces = specs[ACCURACY_DIE].faces
    faces = draws.numbers(counter, white, len(white_faces))
    most = 0
    for i, face in enumerate(faces):
        icons = white_faces[face - 1].icons
        rolls.append(
            {
                "die": ACCURACY_DIE,
                "face": face,
                "icons": icons,
                "purpose": "for Accuracy",
                "source": "server",
                "counter": counter + i,
                "reroll_of": None,
            }
        )
        most = max(most, icons.count(HIT))
    counter += white
    if most != 1:
        raise OffPath("a miss, or two HIT icons")
    lost = "".join([f" {m['amount']:+d}" for m in modifiers])
    shown = " ".join(map(str, faces))
    summary.append(f"Accuracy: {card.accuracy}{lost} = {white} white [{shown}]: hit.")
    outcome["hit"] = True
    if t0.hit_turn == state.turn and t0.hit_by:
        raise OffPath("a second hit this turn")
    t_fields["hit_by"] = (tank_id,)
    t_fields["hit_turn"] = state.turn
    if mark:
        mark()

    # --- Penetration (TTT-E5, TTT-E6, TTT-CV1) ---
    if cover:
        modifiers.append(
            {
                "clause": "TTT-CV1",
                "label": f"Cover +{cover} ({cover_why})",
                "amount": cover,
                "applies_to": "armour",
                "ruling": "Cover is added once, to the armour",
            }
        )
        rulings.append(
            {
                "clause": "TTT-E5",
                "text": "Cover counted: armour",
                "option": "cover",
                "value": "armour",
            }
        )
    outcome.update(armour=armour, cover=cover, needed=needed, penetration_dice=red)
    red_faces = specs[PENETRATION_DIE].faces
    sides = len(red_faces)
    faces = draws.numbers(counter, red, sides)
    latest = list(range(len(rolls), len(rolls) + red))  # each slot's latest roll
    counts: list[int] = []
    stars = 0
    for i, face in enumerate(faces):
        icons = red_faces[face - 1].icons
        rolls.append(
            {
                "die": PENETRATION_DIE,
                "face": face,
                "icons": icons,
                "purpose": "for Penetration",
                "source": "server",
                "counter": counter + i,
                "reroll_of": None,
            }
        )
        counts.append(icons.count(PEN))
        stars += icons.count(STAR)
    counter += red
    pens = sum(counts)
    used = 0
    while stars > 0 and pens < needed and 0 in counts:
        slot = counts.index(0)
        stars -= 1
        used += 1
        (face,) = draws.numbers(counter, 1, sides)
        icons = red_faces[face - 1].icons
        rolls.append(
            {
                "die": PENETRATION_DIE,
                "face": face,
                "icons": icons,
                "purpose": "to reroll (a * was rolled)",
                "source": "server",
                "counter": counter,
                "reroll_of": latest[slot],
            }
        )
        counter += 1
        latest[slot] = len(rolls) - 1
        count = icons.count(PEN)
        pens += count - counts[slot]
        counts[slot] = count
        stars += icons.count(STAR)
    pen_line = (
        f"Penetration: {card.penetration} = {red} red vs {side} armour {armour}"
        + (f" + cover {cover}" if cover else "")
        + f" [{' '.join(map(str, faces))}]"
    )
    if used:
        pen_line += f", {used} * reroll(s)"
        rulings.append(
            {
                "clause": "TTT-E6",
                "text": "each * rerolls a non-penetrating die while the target is not yet "
                "penetrated",
                "option": None,
                "value": None,
            }
        )
    if pens < needed:
        raise OffPath("no penetration")
    outcome["pens"] = pens
    outcome["penetrated"] = True
    summary.append(f"{pen_line} = {pens} PEN: penetrated!")
    if mark:
        mark()

    # --- the damage card (TTT-E7): a uniform draw from what is left, a full deck when empty ---
    deck = copied(state.deck)
    deck_fields = deck.__dict__
    rules = state.rules
    if not deck_fields["draw_pile"]:
        deck_fields["draw_pile"] = rules.deck_names()
        deck_fields["discard"] = ()
        deck_fields["shuffles"] += 1
        events.append(
            {
                "kind": "deck_shuffled",
                "clause": "TTT-E7",
                "text": "The damage deck is shuffled",
                "data": {"shuffles": deck_fields["shuffles"]},
            }
        )
    pile = deck_fields["draw_pile"]
    (drawn,) = draws.numbers(counter, 1, len(pile))
    counter += 1
    name = pile[drawn - 1]
    deck_fields["draw_pile"] = pile[: drawn - 1] + pile[drawn:]
    deck_fields["discard"] = (*deck_fields["discard"], name)
    fields["deck"] = deck
    damage = rules.deck_card(name)
    if damage is None or damage.effect != "crew_stunned":
        raise OffPath("another damage card")
    outcome["damage_card"] = name
    t_fields["damage"] = (*t0.damage, name)
    t_fields["stunned"] = "next"
    text = f"Damage card: {name}. {t_label}'s crew takes no action in its next phase."
    summary.append(text)
    events.append(
        {
            "kind": "damage",
            "clause": "TTT-E7",
            "text": text,
            "data": {"tank_id": target_id, "card": name, "effect": "crew_stunned"},
        }
    )
    if mark:
        mark()

    # --- the morale check (TTT-MO2, TTT-MO3): a stunned crew changes no tank's mobility, so
    # no side can have lost its last mover, and no tank left play ---
    if t.grizzled or t.morale != "ok":
        raise OffPath("a Grizzled or already shaken target")
    green_faces = specs[MORALE_DIE].faces
    (face,) = draws.numbers(counter, 1, len(green_faces))
    rolls.append(
        {
            "die": MORALE_DIE,
            "face": face,
            "icons": green_faces[face - 1].icons,
            "purpose": f"for the morale check of {t_label}",
            "source": "server",
            "counter": counter,
            "reroll_of": None,
        }
    )
    counter += 1
    if face > 3:
        raise OffPath("a failed morale check")
    line = f"Morale check for {t_label} (suffered a penetrating hit): green {face} = OK"
    summary.append(line)
    events.append(
        {
            "kind": "morale_check",
            "clause": "TTT-MO3",
            "text": line,
            "data": {"tank_id": target_id, "face": face, "before": "ok", "after": "ok"},
        }
    )
    if state.scenario.kind == "objective":
        raise OffPath("an objective to watch")
    if mark:
        mark()

    # --- settled: the generator's count, each touched tank's changes, markers and tooltip ---
    dice.__dict__["counter"] = counter
    dice.__pydantic_fields_set__.add("counter")
    touched: list[tuple[str, TankState, TankState, str]] = [
        (tank_id, s0, s, s_label),
        (target_id, t0, t, t_label),
    ]
    touched.sort(key=lambda unit: unit[0])
    for unit_id, before, after, label in touched:
        old_fields, new_fields = before.__dict__, after.__dict__
        diff: dict[str, list[Any]] = {}
        for field in TRACKED:
            old, now = old_fields[field], new_fields[field]
            if old is not now and old != now:
                diff[field] = [
                    old if type(old) in _PLAIN else to_jsonable_python(old),
                    now if type(now) in _PLAIN else to_jsonable_python(now),
                ]
        last = next((said for said in reversed(summary) if label in said), None)
        markers, tooltip = presentation.view(after, last)
        changes.append(
            {
                "tank_id": unit_id,
                "name": new_fields["name"],
                "changes": diff,
                "markers": markers,
                "tooltip": tooltip,
            }
        )
    if mark:
        mark()
    return new, result


def check(state: TableState, shot: Engage) -> None:
    """Raise ``Differs`` unless the straight engage of ``shot`` gives the engine's result data
    and new state (``OffPath`` when the table leaves the path it writes)."""
    done = adjudicate(state, shot)
    new, result = straight_engage(state, shot.tank_id, shot.target_id)
    want = done.result.model_dump()
    for key, value in want.items():
        if result.get(key) != value:
            raise Differs(f"the result's {key} differs from the engine's")
    if set(result) != set(want):
        raise Differs("the result's keys differ from the engine's")
    if new.model_dump() != done.state.model_dump():
        raise Differs("the new state differs from the engine's")
    if new.model_fields_set != done.state.model_fields_set:
        raise Differs("the new state's fields set differ from the engine's")


def sections(state: TableState, shot: Engage, runs: int) -> list[tuple[str, float]]:
    """The median time of each of ``SECTIONS`` (µs; one clock reading's own cost taken off)."""
    clock = time.perf_counter_ns
    readings: list[int] = []
    mark = lambda: readings.append(clock())  # noqa: E731 (the cheapest callable to hand on)
    gaps: list[int] = []
    for _ in range(runs):
        first = clock()
        gaps.append(clock() - first)
    own = int(statistics.median(gaps))
    per: list[list[int]] = [[] for _ in SECTIONS]
    for _ in range(runs):
        readings.clear()
        readings.append(clock())
        straight_engage(state, shot.tank_id, shot.target_id, mark)
        for k in range(len(SECTIONS)):
            per[k].append(readings[k + 1] - readings[k] - own)
    return [(name, statistics.median(v) / 1000) for name, v in zip(SECTIONS, per, strict=True)]


def main(argv: list[str] | None = None) -> int:
    # engage_speed's table and shot (imported here: this module is also imported by it)
    from engage_speed import SHOT, full_path_table

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5000, help="timed runs (default 5000)")
    parser.add_argument("--sections", action="store_true", help="split the time by section")
    args = parser.parse_args(argv)
    state, seed = full_path_table()
    try:
        check(state, SHOT)
    except (OffPath, Differs) as why:
        raise SystemExit(f"straight_engage: {why}: bring it up to date with the engine") from why
    print(f"table: dice seed {seed!r}; the straight engage gives the engine's result and state")
    shooter, target = SHOT.tank_id, SHOT.target_id
    clock = time.thread_time_ns
    engine: list[int] = []
    straight: list[int] = []
    for _ in range(200):
        adjudicate(state, SHOT)
        straight_engage(state, shooter, target)
    for _ in range(args.runs):  # interleaved: a busy spell of the machine hits both alike
        t0 = clock()
        adjudicate(state, SHOT)
        t1 = clock()
        straight_engage(state, shooter, target)
        engine.append(t1 - t0)
        straight.append(clock() - t1)
    e_med, s_med = statistics.median(engine) / 1000, statistics.median(straight) / 1000
    print(f"engine   median {e_med:8.1f} µs  (adjudicate, thread CPU, {args.runs} runs)")
    print(
        f"straight median {s_med:8.1f} µs  (the same shot's rules written straight) = "
        f"{s_med / e_med:.2f}x the engine"
    )
    if args.sections:
        split = sections(state, SHOT, args.runs)
        print("straight engage by section (perf_counter medians):")
        for name, us in split:
            print(f"  {name:45s} {us:6.1f} µs")
        print(f"  {'sum of the medians':45s} {sum(us for _, us in split):6.1f} µs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
