"""What TinyTableTopTanks says about itself: its title and setups, the TTS board's words for
it, and the table ``tankref tts-save`` lays out (``tankref.core.ruleset.RulesetInfo``)."""

from __future__ import annotations

from functools import cache
from typing import get_args

from tankref.core.dice import DieSpec
from tankref.core.ruleset import (
    BoardHints,
    RulesetInfo,
    SaveDice,
    SaveTable,
    SetupChoice,
    TerrainRow,
    UnitRow,
    save_terrain,
    save_units,
)
from tankref.rulesets.ttt.cards import default_cards
from tankref.rulesets.ttt.state import TerrainKind

NAME = "ttt"
TITLE = "TinyTableTopTanks"

# (side, nickname, card, x, z, facing): each side along its own edge, facing the other.
_UNITS: tuple[UnitRow, ...] = (
    ("Red", "Red 1", "tiger-i", -8.0, -21.0, 0.0),
    ("Red", "Red 2", "panzer-iv-h", 10.0, -21.0, 0.0),
    ("Blue", "Blue 1", "m4a1-sherman", -12.0, 21.0, 180.0),
    ("Blue", "Blue 2", "t-34-85", 8.0, 21.0, 180.0),
)
# The kinds as players tag them (the board maps the tags, see BoardHints.terrain). The
# height of a solid piece (a building) is its size's y; area terrain lies flat.
_TERRAIN: tuple[TerrainRow, ...] = (
    ("Wood", ("forest", "round"), -24.0, 0.0, (9.0, 2.0, 9.0), (0.12, 0.35, 0.12)),
    ("Farmhouse", ("building",), 24.0, 4.0, (6.0, 3.0, 5.0), (0.55, 0.5, 0.45)),
    ("Hedge", ("cover+1",), 0.0, 9.0, (10.0, 0.8, 1.0), (0.25, 0.5, 0.2)),
    ("Rubble", ("cover+2",), 0.0, -9.0, (6.0, 0.6, 3.0), (0.4, 0.38, 0.35)),
    ("Hill", ("hill", "round"), 28.0, -14.0, (12.0, 0.6, 12.0), (0.45, 0.55, 0.3)),
)
# (die, count, what it decides): TTT-AC*, TTT-PE*, TTT-MO3.
_DICE = (
    ("white", 5, "Accuracy: count the HIT icons"),
    ("red", 7, "Penetration: count PEN; STAR lets you reroll one non-penetrating die"),
    ("green", 2, "Morale (TTT-MO3): 1-3 OK, 4-5 Shaken, 6 Routed"),
)


def _faces(spec: DieSpec | None) -> str:
    """Each face number and what the referee counts on it (a face with no icon counts
    nothing; a die without icons is read by its number)."""
    if spec is None or not any(f.icons for f in spec.faces):
        return "a plain d6, read by its number"
    return "; ".join(f"{f.face}: {' '.join(f.icons) or 'nothing'}" for f in spec.faces)


def _save() -> SaveTable:
    cards = default_cards()
    dice = [
        SaveDice(
            die=die,
            count=count,
            colour=die,
            nickname=f"{die.capitalize()} die",
            description=f"{die} die. {use}. Faces: {_faces(cards.rules.dice.get(die))}",
        )
        for die, count, use in _DICE
    ]
    deck = "\n".join(f"{c.count} x {c.name}" for c in cards.rules.deck)
    return SaveTable(
        deploy="Red deploys along the south edge (z -24), Blue along the north (z 24).",
        units=save_units(_UNITS, {t.id: t.name for t in cards.tanks.values()}),
        terrain=save_terrain(_TERRAIN),
        dice=dice,
        objective="The objective (Objective scenario: Blue defends within 12 in).",
        damage_deck="The referee draws from this table's own deck, without replacement:\n" + deck,
    )


@cache
def info() -> RulesetInfo:
    return RulesetInfo(
        name=NAME,
        title=TITLE,
        clause_prefix="TTT",
        description="Tanks against tanks on an open table: engage, penetrate, draw damage "
        "cards, keep the crew's nerve.",
        terrain_kinds=list(get_args(TerrainKind)),
        setups=[
            SetupChoice(
                key="meeting", label="Meeting Engagement", setup={"scenario": {"kind": "meeting"}}
            ),
            SetupChoice(
                key="ambush",
                label="Ambush (Blue ambushes)",
                setup={"scenario": {"kind": "ambush", "ambusher": "Blue"}},
            ),
            SetupChoice(
                key="objective",
                label="Objective (Blue defends)",
                objective=True,
                setup={"scenario": {"kind": "objective", "defender": "Blue"}},
            ),
        ],
        board=BoardHints(
            setup_word="Scenario",
            players=[{"id": "Red", "edge": "south"}, {"id": "Blue", "edge": "north"}],
            board=[
                {"kind": "crew_roll", "label": "Crew roll"},
                {"kind": "start_game", "label": "Start game"},
                {"kind": "end_phase", "label": "End phase"},
            ],
            unit_extra=[{"kind": "end_phase", "label": "End phase"}],  # not in its options
            reserve=True,
            arcs=True,
            terrain=[
                {"tag": "forest", "kind": "forest"},
                {"tag": "building", "kind": "blocking"},
                {"tag": "blocking", "kind": "blocking"},
                {"tag": "cover+1", "kind": "cover1"},
                {"tag": "cover1", "kind": "cover1"},
                {"tag": "cover+2", "kind": "cover2"},
                {"tag": "cover2", "kind": "cover2"},
                {"tag": "hill", "kind": "hill"},
            ],
            labels={"engage": "Engage", "smoke": "Smoke"},
            verbs={"engage": "Fire"},
            # Smoke: one item per usable ability; a mortar's lands where the player points.
            special={"smoke": "abilities"},
        ),
        save=_save(),
    )
