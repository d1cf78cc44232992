"""AFV on the command line: ``tankref cards|rulings|odds --ruleset afv`` (the plug-in's
``commands``), built on the shared pieces in ``core.tools``.

The odds are the referee's own: a small table is set up and played through AFV's actions to
the shot asked about (the shooter's side's second phase, so a unit that must begin its phase
with a stop marker has one), and the ruleset's ``odds`` hook answers for it.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from pydantic import BaseModel

from tankref.core.ruleset import Command, Ruleset
from tankref.core.tools import (
    TAG_HINT,
    a_table,
    cards_command,
    odds_run,
    percent,
    print_chances,
    rulings_command,
    shot_arguments,
    whole_number,
)
from tankref.rulesets.afv import rules
from tankref.rulesets.afv.actions import Fire
from tankref.rulesets.afv.cards import UnitCard, both, default_cards, inches_to_cm, load_cards
from tankref.rulesets.afv.carry import RULING_CARRY
from tankref.rulesets.afv.damage import RULING_DEGRADED_VEHICLE, RULING_PEN
from tankref.rulesets.afv.fire import (
    RULING_AFTER_KILL,
    RULING_AP,
    RULING_COVER,
    RULING_LATERAL,
    RULING_SUPPRESSED_FIRE,
    plan_fire,
)
from tankref.rulesets.afv.movement import RULING_HALF, RULING_MEASURE, RULING_RETREAT, RULING_SLOW
from tankref.rulesets.afv.odds import ShotOdds
from tankref.rulesets.afv.spotting import RULING_SIGHT, RULING_SPOT
from tankref.rulesets.afv.state import AfvOptions, TableState
from tankref.rulesets.afv.turns import RULING_SEQUENCE


# --- tankref cards --ruleset afv -----------------------------------------------------------
def _move(card: UnitCard) -> str:
    slow = f" ({card.slow_move_cm:g} on {'/'.join(card.slow_on)})" if card.slow_move_cm else ""
    return f"{card.move_cm:g}{slow}"


def _card_lines(folder: Path | None) -> list[str]:
    cards = load_cards(folder)
    lines = [
        f"{'id':<20} {'name':<26} {'class':<9} {'armour':>6}  move cm; weapons: hit/pen, "
        "short range cm"
    ]
    for card in cards.units.values():
        weapons = "; ".join(f"{w.name} {w.hit}/{w.pen} {w.short_cm:g}" for w in card.weapon)
        extra = [f"carries {card.carries}"] if card.carries else []
        extra += ["recon: spots for all"] if card.spots_for_all else []
        extra += ["fires only after a stop"] if card.fires_only_after_stop else []
        extra += [f"degrades to {card.degrades_to}"] if card.degrades_to else []
        lines.append(
            f"{card.id:<20} {card.name[:26]:<26} {card.unit_class:<9} {card.armour:>6}  "
            f"{_move(card)}; {weapons}" + "".join(f"; {e}" for e in extra)
        )
    lines.append(f"\n{len(cards.units)} unit cards; dice: {', '.join(cards.dice)}. {TAG_HINT}")
    return lines


# --- tankref rulings --ruleset afv ---------------------------------------------------------
READINGS: tuple[tuple[str, str], ...] = (
    ("AFV-SEQ1", RULING_SEQUENCE),
    ("AFV-MV1", RULING_MEASURE),
    ("AFV-MV1", RULING_RETREAT),
    ("AFV-MV2", RULING_HALF),
    ("AFV-MV3", RULING_SLOW),
    ("AFV-SP1", RULING_SPOT),
    ("AFV-FR1", RULING_SIGHT),
    ("AFV-FR1", RULING_SUPPRESSED_FIRE),
    ("AFV-AP1", RULING_AP),
    ("AFV-HIT2", RULING_LATERAL),
    ("AFV-HIT2", RULING_COVER),
    ("AFV-DMG1", RULING_PEN),
    ("AFV-DMG1", RULING_DEGRADED_VEHICLE),
    ("AFV-DMG1", RULING_AFTER_KILL),
    ("AFV-SPC1", RULING_CARRY),
)


# --- tankref odds --ruleset afv ------------------------------------------------------------
def _centimetres(text: str) -> float:
    """A distance between the two units: more than 0, at most 100 m."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of cm: {text!r}") from None
    if not 0 < value <= 10_000:
        raise argparse.ArgumentTypeError(f"must be more than 0 and at most 10000 cm, got {text}")
    return value


def _odds_arguments(parser: argparse.ArgumentParser) -> None:
    shot_arguments(parser, "standard-afv", "heavy-armour")
    parser.add_argument(
        "--range",
        type=_centimetres,
        metavar="CM",
        help="the distance in cm (default: the shooter's shortest short range; AFV-HIT2 "
        "bands: short, long to 5x, distant to 10x)",
    )
    parser.add_argument(
        "--weapon", type=whole_number, help="only this weapon system (0: the first)"
    )
    parser.add_argument(
        "--moved", action="store_true", help="the shooter moved this phase (AFV-HIT2)"
    )
    parser.add_argument(
        "--lateral",
        action="store_true",
        help="the target moved across the line of fire in its last phase (AFV-HIT2)",
    )
    parser.add_argument(
        "--cover", action="store_true", help="the target stands in a cover piece (AFV-HIT2)"
    )


def _table(
    afv: Ruleset, args: argparse.Namespace, shooter: UnitCard, target: UnitCard
) -> TableState:
    """Red's shooter due south of Blue's target at the range asked, played to Red's second
    phase: Blue's target crossing the line in its phase (``--lateral``, more than half its
    rate: direction marker along its path), Red's shooter closing in (``--moved``)."""
    range_in = args.range / 2.54 if args.range is not None else None
    if range_in is None:
        range_in = min(w.short_cm for w in shooter.weapon) / 2.54
    half = range_in / 2
    across = 0.75 * target.move_cm / 2.54 if args.lateral else 0.0
    closing = 1.0 if args.moved else 0.0

    def place(unit: str, card: str, player: str, x: float, z: float, facing: float) -> Any:
        return {"kind": "place_tank", "tank_id": unit, "card": card, "player": player,
                "x": x, "z": z, "facing": facing}  # fmt: skip

    actions: list[Any] = [
        place("shooter", shooter.id, "Red", 0.0, -half - closing, 0.0),
        place("target", target.id, "Blue", -across, half, 180.0),
    ]
    if args.cover:
        shape = {"shape": "circle", "x": 0.0, "z": half, "radius": 3.0}
        actions.append(
            {"kind": "place_terrain", "piece": {"id": "cover", "kind": "cover", "shape": shape}}
        )
    actions += [{"kind": "start_game"}, {"kind": "end_phase"}]  # Red's first phase
    if args.lateral:
        actions.append({"kind": "move", "tank_id": "target", "x": 0.0, "z": half, "facing": 90.0})
    actions.append({"kind": "end_phase"})  # Blue's first phase
    if args.moved:
        actions.append({"kind": "move", "tank_id": "shooter", "x": 0.0, "z": -half, "facing": 0.0})
    edge = 2 * max(range_in, across) + 20
    setup = {
        "players": [{"id": "Red", "edge": "south"}, {"id": "Blue", "edge": "north"}],
        "area": {"x_min": -edge, "x_max": edge, "z_min": -edge, "z_max": edge},
    }
    state: TableState = a_table(afv, setup, actions)
    return state


def _figures(
    afv: Ruleset, args: argparse.Namespace, shooter_id: str, target_id: str
) -> list[ShotOdds]:
    cards = default_cards()
    state = _table(afv, args, cards.units[shooter_id], cards.units[target_id])
    found = [o for o in afv.odds(state, "shooter", "target") if isinstance(o, ShotOdds)]
    if args.weapon is not None:
        found = [o for o in found if o.weapon == args.weapon]
        if not found:
            plan_fire(state, Fire(tank_id="shooter", target_id="target", weapon=args.weapon))
    return [o.model_copy(update={"shooter": shooter_id, "target": target_id}) for o in found]


def _show(
    afv: Ruleset, args: argparse.Namespace, found: Sequence[BaseModel], stdout: TextIO
) -> None:
    cards = default_cards()
    state = _table(afv, args, cards.units[args.shooter], cards.units[args.target])
    shooter, target = cards.units[args.shooter], cards.units[args.target]
    range_cm = inches_to_cm(abs(state.units["target"].z - state.units["shooter"].z))
    print(
        f"{shooter.name} ({shooter.id}) fires at {target.name} ({target.id}), "
        f"{both(round(range_cm, 1))} away",
        file=stdout,
    )
    for odds in found:
        assert isinstance(odds, ShotOdds)
        plan = plan_fire(state, Fire(tank_id="shooter", target_id="target", weapon=odds.weapon))
        weapon = plan.weapon
        print(
            f"\n  {weapon.name} (weapon {odds.weapon}): 2d6 + hit {weapon.hit}, modifiers "
            f"{odds.hit_modifier:+d}: 8+ one hit, one more for every 3 above [AFV-HIT1]",
            file=stdout,
        )
        for m in plan.modifiers:
            print(f"{'':15}{m.amount:+d} {m.label} [{m.clause}]", file=stdout)
        print(
            f"  damage per hit: 2d6 + pen {weapon.pen} - armour {target.armour} = "
            f"{odds.damage_modifier:+d} on the {'human' if target.infantry else 'vehicle'} "
            "column [AFV-DMG1]",
            file=stdout,
        )
        rows = [("hit", odds.p_hit, odds.exact["p_hit"])]
        if odds.p_spot < 1:
            rows.insert(0, ("spotted first (AFV-SP1)", odds.p_spot, odds.exact["p_spot"]))
        rows.append(("destroyed", odds.p_destroyed, odds.exact["p_destroyed"]))
        print_chances(rows, stdout)
        print(
            f"  {'expected hits':<30}{odds.expected_hits:8.3f}   {odds.exact['expected_hits']}",
            file=stdout,
        )
        print("  each hit:", file=stdout)
        words = rules.HUMAN_WORDS if target.infantry else rules.VEHICLE_WORDS
        for result, p in sorted(odds.per_hit.items(), key=lambda kv: -kv[1]):
            print(f"    {words.get(result, result):<48}{percent(p)}", file=stdout)


def commands(afv: Ruleset) -> tuple[Command, ...]:
    """The plug-in's ``commands``: its odds ask ``afv`` (the plug-in itself) for the figures."""
    return (
        cards_command(
            "List AFV's unit cards: the card ids to tag models with, class, armour, move (cm) and "
            "each weapon system's hit, pen and short range; or check a folder of card files "
            "(units.toml, dice.toml) and list every problem at once.",
            "a card folder (units.toml, dice.toml)",
            _card_lines,
        ),
        rulings_command(
            "AFV's per-table rulings (the table's options) with their defaults and clauses, and "
            "the readings applied where only one is playable.",
            AfvOptions,
            READINGS,
        ),
        Command(
            "odds",
            "The exact odds (fractions, not sampling) of an AFV unit SHOOTER_CARD firing each of "
            "its weapon systems at TARGET_CARD: the spotting roll where infantry need one, hits, "
            "each hit's damage and the chance it is destroyed. The referee's own answer for a "
            "table set up as the options say.",
            _odds_arguments,
            odds_run(
                lambda: {card_id: c.name for card_id, c in default_cards().units.items()},
                lambda args, shooter, target: _figures(afv, args, shooter, target),
                lambda args, found, stdout: _show(afv, args, found, stdout),
            ),
        ),
    )
