"""Minimal Tank Combat on the command line: ``tankref cards|rulings|odds --ruleset mtc`` (the
plug-in's ``commands``), built on the shared pieces in ``core.tools``.

The odds are the referee's own: a small hex map is set up and played through the game's
actions to the shooter's combat phase, and the plug-in's ``odds`` hook answers for a tank
firing alone; a combined attack (``--with``) is planned by the same Fire check the referee
adjudicates with (MTC-CB1).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from pydantic import BaseModel

from tankref.core.hexgrid import Hex, HexGrid, hex_distance, neighbours
from tankref.core.ruleset import Command, Ruleset
from tankref.core.tools import (
    TAG_HINT,
    a_table,
    cards_command,
    odds_run,
    pick_card,
    play_until,
    print_chances,
    rulings_command,
    shot_arguments,
    whole_number,
)
from tankref.rulesets.mtc.cards import default_cards, load_cards
from tankref.rulesets.mtc.fire import plan_fire
from tankref.rulesets.mtc.odds import ShotOdds, shot_odds
from tankref.rulesets.mtc.rules import (
    KILL_FROM,
    RULING_COLUMNS,
    RULING_DROP_PATH,
    RULING_EDGE_LINE,
    RULING_STACKING,
)
from tankref.rulesets.mtc.state import Options, TableState

MAX_HELPERS = 5  # the target's free neighbours, one of them maybe the shooter's line


# --- tankref cards --ruleset mtc -----------------------------------------------------------
def _card_lines(folder: Path | None) -> list[str]:
    cards = load_cards(folder)
    lines = [f"{'id':<18} {'name':<28} {'ATT':>3} {'DEF':>3} {'RNG':>3} {'MOV':>3} {'BP':>3}"]
    for d in cards.designs.values():
        lines.append(
            f"{d.id:<18} {d.name[:28]:<28} {d.attack:>3} {d.defense:>3} {d.range:>3} "
            f"{d.move:>3} {d.build_points:>3}"
        )
    lines.append(
        f"\n{len(cards.designs)} tank designs (a table may add its own in its setup, at most "
        f"15 BP each, MTC-BP1); die: d6. {TAG_HINT}"
    )
    return lines


# --- tankref rulings --ruleset mtc ---------------------------------------------------------
READINGS: tuple[tuple[str, str], ...] = (
    ("MTC-MV1", RULING_DROP_PATH),
    ("MTC-MV1", RULING_STACKING),
    ("MTC-LOS1", RULING_EDGE_LINE),
    ("MTC-CB1", RULING_COLUMNS),
)


# --- tankref odds --ruleset mtc ------------------------------------------------------------
def _hexes(text: str) -> int:
    value = whole_number(text)
    if not 1 <= value <= 5:
        raise argparse.ArgumentTypeError(f"must be 1 to 5 hexes (RANGE is 1-5), got {value}")
    return value


def _odds_arguments(parser: argparse.ArgumentParser) -> None:
    shot_arguments(parser, "standard", "brawler")
    parser.add_argument(
        "--range",
        type=_hexes,
        default=1,
        metavar="HEXES",
        help="hexes from the shooter to the target (default 1; at most the shooter's RANGE)",
    )
    parser.add_argument(
        "--town", action="store_true", help="the target is in a town hex: +1 DEFENSE (MTC-CB1)"
    )
    parser.add_argument(
        "--with",
        dest="helpers",
        action="append",
        default=[],
        metavar="DESIGN",
        help=f"a friendly tank of this design joins the attack, next to the target "
        f"(repeatable, up to {MAX_HELPERS}; MTC-CB1 combined ATTACK)",
    )


def _table(mtc: Ruleset, args: argparse.Namespace, shooter: str, target: str) -> TableState:
    """Red's shooter on hex (0,0), Blue's target ``--range`` hexes east, Red's helpers on the
    target's other neighbours, played to Red's combat phase (after the initiative roll)."""
    grid = HexGrid()
    aim = Hex(args.range, 0)
    free = [h for h in neighbours(aim) if hex_distance(h, Hex(0, 0)) > 0][: len(args.helpers)]

    names = _names()

    def place(tank: str, design: str, player: str, h: Hex) -> Any:
        x, z = grid.center(h)
        return {"kind": "place_tank", "tank_id": tank, "design": design, "player": player,
                "x": x, "z": z, "name": names[design]}  # fmt: skip

    actions = [place("shooter", shooter, "Red", Hex(0, 0)), place("target", target, "Blue", aim)]
    actions += [
        place(f"with-{i + 1}", d, "Red", h)
        for i, (d, h) in enumerate(zip(args.helpers, free, strict=True))
    ]
    if args.town:
        actions.append(
            {"kind": "place_terrain", "piece_id": "town", "terrain": "town", "hexes": [aim]}
        )
    actions.append({"kind": "start_game"})
    state = play_until(
        mtc,
        a_table(mtc, {"players": ["Red", "Blue"]}, actions),
        lambda now: now.active_player == "Red" and now.phase == "combat",
        {"kind": "end_phase"},
    )
    assert isinstance(state, TableState)
    return state


def _figures(mtc: Ruleset, args: argparse.Namespace, shooter: str, target: str) -> list[ShotOdds]:
    state = _table(mtc, args, shooter, target)
    if not args.helpers:
        found = [o for o in mtc.odds(state, "shooter", "target") if isinstance(o, ShotOdds)]
    else:
        tanks = ["shooter", *(f"with-{i + 1}" for i in range(len(args.helpers)))]
        found = [shot_odds(plan_fire(state, tanks, "target"))]
    shooters = [shooter, *args.helpers]  # the designs, as the JSON names the cards
    return [o.model_copy(update={"shooters": shooters, "target_id": target}) for o in found]


def _show(args: argparse.Namespace, found: Sequence[BaseModel], stdout: TextIO) -> None:
    designs = default_cards().designs
    shooter, target = designs[args.shooter], designs[args.target]
    for odds in found:
        assert isinstance(odds, ShotOdds)
        joined = "".join(f" with {designs[d].name} ({d})" for d in args.helpers)
        town = " in a town (+1 DEFENSE)" if odds.town else ""
        hexes = "hex" if args.range == 1 else "hexes"
        print(
            f"{shooter.name} ({shooter.id}){joined} fires at {target.name} ({target.id})"
            f"{town}, {args.range} {hexes} away",
            file=stdout,
        )
        kill = KILL_FROM[odds.column]
        print(
            f"  ATTACK {odds.attack} : DEFENSE {odds.defense} -> column {odds.column}, X "
            f"(destroyed) on {kill}-6 [MTC-CB1, MTC-CRT1]",
            file=stdout,
        )
        print_chances([("destroyed", odds.p_destroyed, odds.exact)], stdout)


def _names() -> dict[str, str]:
    return {design_id: d.name for design_id, d in default_cards().designs.items()}


def commands(mtc: Ruleset) -> tuple[Command, ...]:
    """The plug-in's ``commands``: its odds ask ``mtc`` (the plug-in itself) for the figures."""

    def figures(args: argparse.Namespace, shooter: str, target: str) -> list[ShotOdds]:
        return _figures(mtc, args, shooter, target)

    def run(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
        if len(args.helpers) > MAX_HELPERS:
            print(f"tankref odds: --with: at most {MAX_HELPERS} tanks join", file=stderr)
            return 2
        for design in args.helpers:
            if pick_card(_names(), design, "--with", stderr) is None:
                return 2
        return odds_run(_names, figures, _show)(args, stdout, stderr)

    return (
        cards_command(
            "List Minimal Tank Combat's tank designs: the design ids to tag models with and "
            "their ATTACK, DEFENSE, RANGE, MOVE and build points; or check a folder of card "
            "files (designs.toml, dice.toml) and list every problem at once.",
            "a card folder (designs.toml, dice.toml)",
            _card_lines,
        ),
        rulings_command(
            "Minimal Tank Combat's per-table settings with their defaults, and the readings "
            "applied where the text leaves room (one playable reading each).",
            Options,
            READINGS,
        ),
        Command(
            "odds",
            "The exact odds (fractions, not sampling) of a Minimal Tank Combat design "
            "SHOOTER_CARD firing at TARGET_CARD, alone or with friends joining the attack: "
            "the CRT column and the chance the target is destroyed.",
            _odds_arguments,
            run,
        ),
    )
