"""What AFV says about itself: its title and setups, the TTS board's words for it, and the
table ``tankref tts-save`` lays out (``tankref.core.ruleset.RulesetInfo``)."""

from __future__ import annotations

from functools import cache
from typing import get_args

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
from tankref.rulesets.afv import NAME
from tankref.rulesets.afv.cards import TerrainKind, default_cards

_UNITS: tuple[UnitRow, ...] = (
    ("Red", "Red 1", "ifv", -8.0, -18.0, 0.0),
    ("Red", "Red 2", "standard-infantry", -6.0, -18.0, 0.0),
    ("Blue", "Blue 1", "standard-afv", 8.0, 18.0, 180.0),
    ("Blue", "Blue 2", "at-team", 4.0, 18.0, 180.0),
)
_TERRAIN: tuple[TerrainRow, ...] = (
    ("Woods", ("woods", "round"), -20.0, 0.0, (9.0, 2.0, 9.0), (0.12, 0.35, 0.12)),
    ("Hill", ("hill", "round"), 20.0, 0.0, (10.0, 0.6, 10.0), (0.45, 0.55, 0.3)),
    ("Rubble", ("cover",), 0.0, 0.0, (5.0, 0.6, 3.0), (0.4, 0.38, 0.35)),
    ("Mud", ("mud",), -8.0, 8.0, (6.0, 0.2, 4.0), (0.35, 0.25, 0.15)),
)


@cache
def info() -> RulesetInfo:
    # The save names a unit by its card id, as the referee's card data does.
    cards = {card: card for card in default_cards().units}
    return RulesetInfo(
        name=NAME,
        title="AFV",
        clause_prefix="AFV",
        description="A pared-down Striker for tiny tanks: armour, infantry and carriers, "
        "spotting and weapon systems.",
        terrain_kinds=list(get_args(TerrainKind)),
        setups=[
            SetupChoice(key="standard", label="10 turns", setup={"options": {"turn_limit": 10}}),
            SetupChoice(key="short", label="6 turns", setup={"options": {"turn_limit": 6}}),
        ],
        board=BoardHints(
            players=[{"id": "Red", "edge": "south"}, {"id": "Blue", "edge": "north"}],
            board=[
                {"kind": "start_game", "label": "Start game"},
                {"kind": "end_phase", "label": "End phase"},
            ],
            unit_extra=[{"kind": "end_phase", "label": "End phase"}],
            terrain=[
                {"tag": "hill", "kind": "hill"},
                {"tag": "woods", "kind": "woods"},
                {"tag": "forest", "kind": "woods"},
                {"tag": "cover", "kind": "cover"},
                {"tag": "rough", "kind": "rough"},
                {"tag": "mud", "kind": "mud"},
                {"tag": "soft", "kind": "soft"},
            ],
            verbs={"fire": "Fire", "spot": "Spot"},
            # Embark names its carrier; disembark needs a point on the table.
            special={"embark": "carriers", "disembark": "point"},
        ),
        save=SaveTable(
            units=save_units(_UNITS, cards),
            terrain=save_terrain(_TERRAIN),
            dice=[numbered_dice("d6", 7)],
        ),
    )
