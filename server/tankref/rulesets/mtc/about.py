"""What Minimal Tank Combat says about itself: its title and setups, the TTS board's words
for it, and the table ``tankref tts-save`` lays out (``tankref.core.ruleset.RulesetInfo``)."""

from __future__ import annotations

from functools import cache

from tankref.core.ruleset import (
    BoardHints,
    RulesetInfo,
    SaveTable,
    SetupChoice,
    TerrainRow,
    UnitRow,
    numbered_dice,
    save_terrain,
    save_units,
)
from tankref.rulesets.mtc import NAME
from tankref.rulesets.mtc.cards import default_cards
from tankref.rulesets.mtc.state import TERRAIN_KINDS

# The board's setup and the save's TTS grid are the same grid: 2-inch hexes, a corner north,
# centred on the origin.
HEX_WIDTH = 2.0

_UNITS: tuple[UnitRow, ...] = (
    ("Red", "Red 1", "standard", 0.0, -12.0, 0.0),
    ("Red", "Red 2", "raider", 4.0, -12.0, 0.0),
    ("Blue", "Blue 1", "brawler", 0.0, 12.0, 180.0),
    ("Blue", "Blue 2", "heavy", 4.0, 12.0, 180.0),
)
_TERRAIN: tuple[TerrainRow, ...] = (
    ("Road", ("road",), 0.0, 0.0, (2.0, 0.1, 40.0), (0.5, 0.45, 0.35)),
    ("Town", ("town", "round"), -12.0, 0.0, (4.0, 1.5, 4.0), (0.55, 0.5, 0.45)),
    ("Rubble", ("rubble", "round"), 12.0, 2.0, (3.0, 0.4, 3.0), (0.4, 0.38, 0.35)),
    ("Crater", ("crater", "round"), 6.0, -4.0, (2.0, 0.2, 2.0), (0.3, 0.25, 0.2)),
)


@cache
def info() -> RulesetInfo:
    cards = {card: card for card in default_cards().designs}
    grid = {"hex_width": HEX_WIDTH, "orientation": "pointy", "origin_x": 0, "origin_z": 0}
    return RulesetInfo(
        name=NAME,
        title="Minimal Tank Combat",
        clause_prefix="MTC",
        description="Timothy Swenson's tank duel on a hex map: move, then fire, with "
        "combined fire.",
        terrain_kinds=list(TERRAIN_KINDS),
        setups=[SetupChoice(key="hexes", label="2-inch hexes", setup={"grid": grid})],
        board=BoardHints(
            players=["Red", "Blue"],
            board=[
                {"kind": "start_game", "label": "Start game"},
                {"kind": "end_phase", "label": "End phase"},
            ],
            terrain=[{"tag": kind, "kind": kind} for kind in TERRAIN_KINDS],
            verbs={"fire": "Fire"},
            # Combined fire: the shooter and the friends the player adds fire together.
            special={"fire": "partners"},
        ),
        save=SaveTable(
            units=save_units(_UNITS, cards),
            terrain=save_terrain(_TERRAIN),
            dice=[numbered_dice("d6", 2)],
            hex_width=HEX_WIDTH,
        ),
    )
