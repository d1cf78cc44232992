"""TinyTableTopTanks on the command line: ``tankref cards``, ``tankref rulings`` and
``tankref odds`` (the plug-in's ``commands``). Each writes to the streams it is given."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TextIO

from tankref.core.errors import DataError, RulesError
from tankref.core.ruleset import Command
from tankref.core.tools import (
    cards_command,
    percent,
    pick_card,
    print_chances,
    rulings_command,
    whole_number,
)
from tankref.rulesets.ttt.cards import TankCard, default_cards, load_cards
from tankref.rulesets.ttt.odds import ShotOdds, odds_for_situation
from tankref.rulesets.ttt.readings import READINGS
from tankref.rulesets.ttt.state import Options


# --- tankref cards -------------------------------------------------------------------------
def _card_lines(folder: Path | None) -> list[str]:
    cards = load_cards(folder)
    lines = [f"{'id':<18} {'name':<28} {'move':>5} {'acc':>3} {'pen':>3}  armour F/S/R/T  smoke"]
    for card in sorted(cards.tanks.values(), key=lambda c: (c.nation, c.id)):
        a = card.armour
        smoke = ", ".join(
            f"{s.kind} -{s.strength}" + (f' {s.range:g}"' if s.range else "") + f" x{s.uses}"
            for s in card.smoke
        )
        lines.append(
            f"{card.id:<18} {card.name[:28]:<28} {card.movement:>5g} {card.accuracy:>3} "
            f"{card.penetration:>3}  {a.front}/{a.side}/{a.rear}/{a.turret:<9} {smoke}"
        )
    deck = sum(c.count for c in cards.rules.deck)
    lines.append(
        f"\n{len(cards.tanks)} tank cards; dice: {', '.join(cards.rules.dice)}; deck: {deck} cards"
    )
    return lines


# --- tankref rulings -----------------------------------------------------------------------
# Chosen with the dice when the table is created (POST /tables "dice"), not an option.
_DAMAGE_CARDS = (
    "dice.damage_cards = 'referee'",
    "TTT-E7: who draws the damage card: the referee from its own deck, or 'table' (the hit "
    "tank's owner draws from a physical deck; the referee asks for the card once the shot "
    "penetrated)",
)


# --- tankref odds --------------------------------------------------------------------------
def _odds_arguments(odds: argparse.ArgumentParser) -> None:
    odds.add_argument("shooter", metavar="SHOOTER_CARD", help="tank card id, e.g. tiger-i")
    odds.add_argument("target", metavar="TARGET_CARD", help="tank card id, e.g. m4a1-sherman")
    odds.add_argument(
        "--side",
        choices=("front", "side", "rear", "turret"),
        default="front",
        help="the side hit (turret: hull-down); default front",
    )
    odds.add_argument("--moved", action="store_true", help="the shooter moved (-2, TTT-M1)")
    odds.add_argument("--shaken", action="store_true", help="Shaken shooter (-1, TTT-MR1)")
    odds.add_argument(
        "--optics", type=whole_number, default=0, help="Optics Damaged cards (-1 each)"
    )
    odds.add_argument("--gun", type=whole_number, default=0, help="Gun Damaged cards (-1 red each)")
    odds.add_argument(
        "--target-fast", action="store_true", help="target Moving Fast (TTT-M2, if its card)"
    )
    odds.add_argument("--cover", type=whole_number, default=0, help="Cover bonus N (TTT-CV1)")
    odds.add_argument(
        "--cover-rule",
        choices=("armour", "literal"),
        default="armour",
        help="TTT-E5: Cover on the armour only (default), or also off the red dice",
    )
    odds.add_argument("--concealment", type=whole_number, default=0, help="concealment N (TTT-CN1)")
    odds.add_argument("--smoke", type=whole_number, default=0, help="smoke N on the line (TTT-SM3)")
    odds.add_argument("--grizzled", action="store_true", help="Grizzled shooter (TTT-CR1)")
    odds.add_argument(
        "--grizzled-policy",
        choices=("auto", "accuracy", "penetration", "none"),
        default="auto",
        help="auto: the reroll is spent where it can change the outcome; accuracy, "
        "penetration, none: the ask option with that declaration",
    )
    odds.add_argument("--target-grizzled", action="store_true", help="no morale checks (MO1)")
    odds.add_argument(
        "--target-morale", choices=("ok", "shaken", "routed"), default="ok", help="default ok"
    )
    odds.add_argument("--target-immobilized", action="store_true")
    odds.add_argument(
        "--second-hit",
        action="store_true",
        help="another enemy tank hit the target this turn (TTT-MO2 trigger 2)",
    )
    odds.add_argument("--cards-dir", help="a card folder to read the cards, dice and deck from")
    odds.add_argument("--json", action="store_true", help="the full answer as JSON")


def _print_odds(odds: ShotOdds, shooter: TankCard, target: TankCard, stdout: TextIO) -> None:
    def say(line: str) -> None:
        print(line, file=stdout)

    say(f"{shooter.name} ({shooter.id}) engages {target.name} ({target.id}): {odds.hit_side}")

    def modifiers(accuracy: bool) -> None:
        for m in odds.modifiers:
            if (m.applies_to == "accuracy_dice") == accuracy:
                say(f"{'':15}{m.amount:+d} {m.label} [{m.clause}]")

    say(f"  Accuracy     {odds.accuracy_dice} white (card {shooter.accuracy})")
    modifiers(accuracy=True)
    cover = f" + cover {odds.cover}" if odds.cover else ""
    say(
        f"  Penetration  {odds.penetration_dice} red (card {shooter.penetration}) vs "
        f"{odds.hit_side} armour {odds.armour}{cover}: {odds.needed} PEN needed"
    )
    modifiers(accuracy=False)
    if odds.grizzled_policy:
        stages = [
            stage
            for stage, ok in (
                ("Accuracy", odds.reroll_accuracy),
                ("Penetration", odds.reroll_penetration),
            )
            if ok
        ]
        where = " or ".join(stages) if stages else "nothing (none declared)"
        say(f"  Grizzled     one reroll, on {where} ({odds.grizzled_policy})")
    rows = [
        ("hit", "p_hit"),
        ("penetrate, given a hit", "p_penetrate_given_hit"),
        ("penetrate", "p_penetrate"),
        ("destroyed", "p_destroyed"),
        ("  by the damage card", "p_destroyed_by_card"),
        ("  crew bails out (TTT-MR5)", "p_bail_out"),
        ("target fails morale", "p_morale_failure"),
    ]
    print_chances(((label, getattr(odds, name), odds.exact[name]) for label, name in rows), stdout)
    source = "a full deck" if odds.deck_reshuffled else f"the {odds.deck_left} cards left"
    say(f"\n  {'damage card (' + source + ')':<44}{'if pen.':>8}{'overall':>9}")
    for c in odds.cards:
        effect = c.effect.replace("_", " ") + (", catastrophic" if c.catastrophic else "")
        name = f"{c.name} x{c.left}"
        say(f"  {name:<20}{effect:<24}{percent(c.p_given_penetration)} {percent(c.p)}")
    if not odds.morale.checks:
        say(f"\n  {odds.morale.why_not}")


def _odds(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    try:
        cards = load_cards(Path(args.cards_dir)) if args.cards_dir else default_cards()
    except DataError as err:
        print(err, file=stderr)
        return 1
    names = {card_id: card.name for card_id, card in cards.tanks.items()}
    shooter_id = pick_card(names, args.shooter, "shooter", stderr)
    target_id = pick_card(names, args.target, "target", stderr)
    if shooter_id is None or target_id is None:
        return 2
    shooter, target = cards.tanks[shooter_id], cards.tanks[target_id]
    policy = args.grizzled_policy
    options = Options(cover=args.cover_rule, grizzled_reroll="auto" if policy == "auto" else "ask")
    try:
        odds = odds_for_situation(
            shooter,
            target,
            side=args.side,
            moved=args.moved,
            shaken=args.shaken,
            optics_damage=args.optics,
            gun_damage=args.gun,
            target_fast=args.target_fast,
            cover=args.cover,
            concealment=args.concealment,
            smoke=args.smoke,
            grizzled=args.grizzled,
            declared=None if policy == "auto" else policy,
            target_grizzled=args.target_grizzled,
            target_morale=args.target_morale,
            target_immobilized=args.target_immobilized,
            second_hit=args.second_hit,
            options=options,
            rules=cards.rules,
        )
    except RulesError as err:
        print(f"tankref odds: {err.message}", file=stderr)
        return 1
    if args.json:
        print(odds.model_dump_json(indent=2), file=stdout)
    else:
        _print_odds(odds, shooter, target, stdout)
    return 0


COMMANDS: tuple[Command, ...] = (
    cards_command(
        "List TinyTableTopTanks' tank cards (id, name, move, accuracy, penetration, armour, "
        "smoke), or check a folder of card files and list every problem at once.",
        "a card folder (tanks/*.toml, dice.toml, damage-deck.toml)",
        _card_lines,
    ),
    rulings_command(
        "The per-table rulings (TinyTableTopTanks' options) with their defaults and clauses, "
        "and the readings applied where only one is playable.",
        Options,
        READINGS,
        more_options=(_DAMAGE_CARDS,),
    ),
    Command(
        "odds",
        "The exact odds (fractions, not sampling) of SHOOTER_CARD engaging TARGET_CARD on the "
        "side named, with the modifiers given, drawing from a full deck.",
        _odds_arguments,
        _odds,
    ),
)
