"""What the yard (chapter 12) says about itself: its title and setups, the TTS board's words
for it, and the table ``tankref tts-save`` lays out (``tankref.core.ruleset.RulesetInfo``)."""

from __future__ import annotations

from functools import cache

from tankref.core.ruleset import (
    BoardHints,
    RulesetInfo,
    SaveSpace,
    SaveTable,
    SetupChoice,
    UnitRow,
    numbered_dice,
    save_units,
)
from tankref.rulesets.yrd import NAME
from tankref.rulesets.yrd.cards import default_cards
from tankref.rulesets.yrd.state import default_yard

# The printed chapter's own heading (tank-yard-chapter12.txt), the one name every list shows.
TITLE = "Chapter 12: Tanks and Their Mechanics"

_UNITS: tuple[UnitRow, ...] = (
    ("Red", "Red tank", "yard-tank", 0.0, -18.0, 0.0),
    ("Blue", "Blue tank", "yard-tank", 8.0, 18.0, 180.0),
    ("Blue", "Blue piece", "piece", 0.0, -8.0, 180.0),
    ("Red", "Red piece", "piece", 12.0, 8.0, 0.0),
)


def _spaces() -> list[SaveSpace]:
    """Each party's spaces where the referee's default layout has them (it snaps a model
    dropped within 3 in of one onto it)."""
    out: list[SaveSpace] = []
    for index, side in enumerate(("Red", "Blue")):
        yard = default_yard(index)
        spaces = [
            ("Shield", yard.shield),
            ("Attack", yard.attack),
            ("Anti-tank", yard.anti_tank),
            *((f"Artillery {i}", p) for i, p in enumerate(yard.artillery, 1)),
        ]
        out.extend(
            SaveSpace(
                side=side,
                label=label,
                x=point.x,
                z=point.z,
                description=f"{side}'s {label} space: drop a model within 3 in of it.",
            )
            for label, point in spaces
        )
    return out


@cache
def info() -> RulesetInfo:
    cards = default_cards()
    names = {card: card for card in [*cards.tanks, *cards.pieces]}
    return RulesetInfo(
        name=NAME,
        title=TITLE,
        clause_prefix="YRD",
        description="The tank yard: one tank per party moves between its shield, attack and "
        "anti-tank spaces; artillery pieces on the homefield.",
        terrain_kinds=[],  # the yard has no terrain
        setups=[
            SetupChoice(
                key="even",
                label="defence 0 / 0",
                setup={"players": [{"id": "Red", "defence": 0}, {"id": "Blue", "defence": 0}]},
            ),
            SetupChoice(
                key="dug_in",
                label="defence 1 / 2",
                setup={"players": [{"id": "Red", "defence": 1}, {"id": "Blue", "defence": 2}]},
            ),
        ],
        board=BoardHints(
            board=[
                {"kind": "start_game", "label": "Start game"},
                {"kind": "end_turn", "label": "End turn"},
            ],
            labels={"anti_tank": "Anti-tank"},
            verbs={"attack": "Attack", "anti_tank": "Fire"},
        ),
        save=SaveTable(
            units=save_units(_UNITS, names),
            dice=[numbered_dice("d20", 2, sides=20), numbered_dice("d6", 4)],
            spaces=_spaces(),
        ),
    )
