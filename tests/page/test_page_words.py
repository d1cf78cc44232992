"""The page's words for a viewer, run in Debian's Chromium from the page's own module
(page/dom.js): a chance as "N in 10" (or "1 in N" when small, "N in 100" when near sure), and
a field's value with its unit by the name the rulesets give it (inches on a table, hexes on a
hex map, cm where the name says so, degrees for a bearing)."""

from __future__ import annotations

from typing import Any

import pytest

WORDS = """async ([p]) => (await import("/page/dom.js")).inWords(p)"""
MEASURED = """async ([key, value, onHexes]) =>
  (await import("/page/dom.js")).measured(key, value, onHexes)"""
CHANCE = """async ([key, p]) => (await import("/page/odds.js")).chanceText(key, p)"""


@pytest.mark.parametrize(
    ("p", "said"),
    [
        (0.0, "no chance"),
        (1.0, "certain"),
        (0.7037, "7 in 10"),
        (0.5, "5 in 10"),
        (0.1, "1 in 10"),
        (0.094, "1 in 11"),
        (0.04, "1 in 25"),
        (0.0004, "<1 in 1,000"),
        (0.949, "9 in 10"),
        (0.97, "97 in 100"),
        (0.999, ">99 in 100"),
    ],
)
def test_a_chance_in_words(referee_page: Any, p: float, said: str) -> None:
    assert referee_page.evaluate(WORDS, [p]) == said


@pytest.mark.parametrize(
    ("key", "p", "said"),
    [
        ("p_hit", 0.7, "7 in 10 to hit"),
        ("p_destroyed", 0.24, "2 in 10 to destroy"),
        ("p_morale_failure", 0.147, "1 in 10 of a failed morale check"),
        ("p_heavy_damage", 0.31, "3 in 10: heavy damage"),  # a name the page has no words for
    ],
)
def test_an_odds_line_reads_as_a_sentence(referee_page: Any, key: str, p: float, said: str) -> None:
    assert referee_page.evaluate(CHANCE, [key, p]) == said


@pytest.mark.parametrize(
    ("key", "value", "on_hexes", "shown"),
    [
        ("range", 42.19, False, "42.2 in"),  # TTT: table inches
        ("distance", 2, True, "2 hexes"),  # MTC: a hex map
        ("distance", 1, True, "1 hex"),
        ("range_cm", 30.48, False, "30.5 cm"),  # AFV: the rules' cm, as named
        ("moved_cm", 10, False, "10 cm"),
        ("rate_inches", 3.937, False, "3.9 in"),
        ("facing", 90, False, "90°"),
        ("armour", 5, False, "5"),  # a count: no unit
        ("needed", 4.5, False, "4.5"),
    ],
)
def test_a_field_shows_its_unit(
    referee_page: Any, key: str, value: float, on_hexes: bool, shown: str
) -> None:
    assert referee_page.evaluate(MEASURED, [key, value, on_hexes]) == shown
