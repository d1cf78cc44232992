"""The tank yard (chapter 12) on the command line: ``tankref cards|rulings|odds --ruleset yrd``
(the plug-in's ``commands``), built on the shared pieces in ``core.tools``.

The yard has no shot between two cards to price: an attack is a contest whose odds hang on
the parties' defence values and the spaces the tanks stand on, so ``tankref odds`` says so and
points to where a table shows them.
"""

from __future__ import annotations

from pathlib import Path

from tankref.core.ruleset import Command
from tankref.core.tools import TAG_HINT, cards_command, not_offered, rulings_command
from tankref.rulesets.yrd.attack import RULING_CRITICAL_FAILURE, RULING_DOWN
from tankref.rulesets.yrd.cards import load_cards
from tankref.rulesets.yrd.damage import RULING_SHUTDOWN
from tankref.rulesets.yrd.state import Options


def _card_lines(folder: Path | None) -> list[str]:
    cards = load_cards(folder)
    lines = [f"{'id':<18} {'name':<28} {'kind':<6} HP"]
    for tank in cards.tanks.values():
        lines.append(f"{tank.id:<18} {tank.name[:28]:<28} {'tank':<6} {tank.hp}")
    for piece in cards.pieces.values():
        hp = piece.hp if piece.hp is not None else "kept by the players"
        lines.append(f"{piece.id:<18} {piece.name[:28]:<28} {'piece':<6} {hp}")
    lines.append(
        f"\n{len(cards.tanks)} tank card(s), one tank per party (YRD-SP1); {len(cards.pieces)} "
        f"piece card(s) for the artillery spaces (YRD-AT1); dice: {', '.join(cards.dice)}. "
        f"{TAG_HINT}"
    )
    return lines


READINGS: tuple[tuple[str, str], ...] = (
    ("YRD-AT1", RULING_DOWN),
    ("YRD-AT1", RULING_CRITICAL_FAILURE),
    ("YRD-SD1", RULING_SHUTDOWN),
)

NO_SHOT = (
    "Chapter 12: Tanks and Their Mechanics (yrd) has no shot between two cards to price: an "
    "attack is a contest between the parties' defence values, from the space the tank stands "
    "on (YRD-AT1, YRD-AN1). A table shows its exact odds: the tank's Attack or Anti-tank "
    "buttons in TTS, the page's odds panel, GET /tables/{id}/tanks/{tank}/odds."
)

COMMANDS: tuple[Command, ...] = (
    cards_command(
        "List the tank yard's cards: the tank card ids to tag models with and their HP, and "
        "the pieces that stand on artillery spaces; or check a folder of card files "
        "(tanks.toml, pieces.toml, dice.toml) and list every problem at once.",
        "a card folder (tanks.toml, pieces.toml, dice.toml)",
        _card_lines,
    ),
    rulings_command(
        "The tank yard's per-table rulings where chapter 12 is silent (the table's options: "
        "the contest die, ties, criticals, grazing hits, advantage, the Shield space) with "
        "their defaults, and the readings applied where only one is playable.",
        Options,
        READINGS,
    ),
    not_offered(
        "odds",
        "The tank yard has no shot between two cards to price (its attacks are contests of "
        "defence values): this says where a table shows their odds.",
        NO_SHOT,
    ),
)
