"""AFV-UNITS: the roster ships as card data with the text's moves, armour and weapon lines."""

from __future__ import annotations

from pathlib import Path

import pytest

from tankref.core.errors import DataError
from tankref.rulesets.afv.cards import cm_to_inches, default_cards, inches_to_cm, load_cards

# From afv.txt, "Units": id -> (class, move cm, armour, [(hit, pen, short cm)], slow move)
ROSTER = {
    "standard-infantry": ("infantry", 10, 0, [(3, 0, 15)], None),
    "heavy-weapons-team": ("infantry", 8, 0, [(3, 1, 20)], None),
    "at-team": ("infantry", 8, 0, [(0, 6, 20)], None),
    "degraded-infantry": ("infantry", 10, 0, [(0, 0, 10)], None),
    "utility-vehicle": ("recon", 80, 1, [(3, 1, 20)], (20, ("rough", "mud"))),
    "fast-cannon-carrier": ("light", 60, 3, [(0, 9, 40)], None),
    "atgm-carrier": ("light", 60, 3, [(0, 12, 30)], None),
    "ifv": ("light", 60, 3, [(3, 3, 30)], None),
    "standard-afv": ("medium", 40, 6, [(0, 9, 40), (3, 1, 20)], None),
    "tank-destroyer": ("medium", 40, 3, [(0, 12, 50)], None),
    "heavy-armour": ("heavy", 20, 9, [(0, 9, 40), (3, 1, 20)], (10, ("soft",))),
}


def test_the_full_roster_ships_with_the_texts_numbers() -> None:
    """AFV-UNITS: all eleven units, each with its class, move, armour and weapon lines in cm
    as printed; the specials (carry, recon spotting, ATGM stop, degraded infantry) too."""
    cards = default_cards()
    assert set(cards.units) == set(ROSTER)
    for card_id, (cls, move, armour, weapons, slow) in ROSTER.items():
        card = cards.units[card_id]
        assert (card.unit_class, card.move_cm, card.armour) == (cls, move, armour), card_id
        assert [(w.hit, w.pen, w.short_cm) for w in card.weapon] == weapons, card_id
        got_slow = (card.slow_move_cm, card.slow_on) if card.slow_move_cm else None
        assert got_slow == slow, card_id
    assert cards.units["utility-vehicle"].carries == 1
    assert cards.units["ifv"].carries == 2
    assert cards.units["utility-vehicle"].spots_for_all
    assert cards.units["atgm-carrier"].fires_only_after_stop
    assert {c.degrades_to for c in cards.units.values() if c.infantry} == {"degraded-infantry"}
    assert cards.dice["d6"].sides == 6


def test_cm_and_inches_convert_at_2_54() -> None:
    """AFV-UNITS: the cards keep the text's cm; the table's inches convert at 1" = 2.54 cm."""
    assert inches_to_cm(10) == pytest.approx(25.4)
    assert cm_to_inches(40) == pytest.approx(15.748, abs=1e-3)


def test_broken_card_files_list_every_problem_at_once(tmp_path: Path) -> None:
    """AFV-UNITS: a card file with several mistakes reports them all in one error."""
    (tmp_path / "dice.toml").write_text(
        '[[die]]\nname = "d6"\nlabel = "d6"\nfaces = [{face = 1}, {face = 2}]\n'
    )
    (tmp_path / "units.toml").write_text(
        """
[[unit]]
id = "Bad Id"
name = "x"
class = "tank"
move_cm = 10
armour = 0
weapon = [{ name = "g", hit = 0, pen = 1, short_cm = 10 }]

[[unit]]
id = "team"
name = "Team"
class = "infantry"
move_cm = -1
armour = 0
degrades_to = "nobody"
weapon = [{ name = "g", hit = 0, pen = 1, short_cm = 10 }]
"""
    )
    with pytest.raises(DataError) as info:
        load_cards(tmp_path)
    text = "\n".join(info.value.problems)
    assert "Bad Id" in text and "class" in text and "move_cm" in text
    assert len(info.value.problems) >= 3
