"""The marker badges come from the rulesets: every marker each ruleset put on its units in its
own bots' games (collected from ``tank_views`` after every action, as the scene shows them)
gets a badge on the page's board, all of a ruleset's markers on one board at once still each
get their own, and the legend keys each one with the marker in the ruleset's words.

The page's own code decides (``badgeMap`` in page/board.js, imported in Debian's Chromium from
the real referee); no list of markers is kept here or in the page.
"""

from __future__ import annotations

import functools
from typing import Any

import pytest

from tankref.core.timeline import Timeline
from tankref.rulesets import get_ruleset, ruleset_names

SEEDS = (0, 1, 2)


@functools.cache
def markers_shown(name: str) -> frozenset[str]:
    """Every marker the ruleset showed on a unit in its bots' games (seeds ``SEEDS``)."""
    rules = get_ruleset(name)
    found: set[str] = set()
    for seed in SEEDS:
        record = rules.self_play(seed)
        timeline = Timeline(rules, record.start)
        for view in rules.tank_views(record.start):
            found.update(view.markers)
        for seq, action in enumerate(record.actions, start=1):
            step = timeline.act(action)
            timeline.commit(step, seq)
            for view in rules.tank_views(step.state):
                found.update(view.markers)
    return frozenset(found)


# The page's badges for one board carrying the given markers, one unit each.
BADGES = """async (markers) => {
  const { badgeMap } = await import("/page/board.js");
  const tanks = markers.map((m, i) => ({ tank_id: `U${i}`, name: `Unit ${i}`, player: "P",
    on_table: true, in_play: true, markers: [m], x: 0, z: 0, facing: 0 }));
  return Object.fromEntries(badgeMap({ tanks }));
}"""


@pytest.mark.parametrize("name", sorted(ruleset_names()))
def test_every_marker_a_ruleset_shows_gets_a_badge_of_its_own(name: str, referee_page: Any) -> None:
    markers = sorted(markers_shown(name) - {"Destroyed"})  # drawn as a wreck, not a badge
    assert markers, f"{name}'s bots never marked a unit"
    badges: dict[str, str] = referee_page.evaluate(BADGES, markers)
    assert sorted(badges) == markers
    # One badge, one meaning, with every marker of the ruleset on the board at once.
    assert len(set(badges.values())) == len(badges), badges
    for marker, short in badges.items():
        assert 0 < len(short) <= 9, (marker, short)  # a badge, not a sentence
    # Any two of them on one board keep the badges they have alone, unless the two would
    # share one: the short forms the legend keys are stable as a game goes on.
    alone = {m: referee_page.evaluate(BADGES, [m])[m] for m in markers}
    shared = {b for b in alone.values() if list(alone.values()).count(b) > 1}
    for marker, short in badges.items():
        if alone[marker] not in shared:
            assert short == alone[marker], (marker, short, alone[marker])


def test_a_ruleset_whose_markers_would_share_a_badge_gets_them_apart(referee_page: Any) -> None:
    """Two artillery spaces of different yards (both "Ar2" by the first word and the number):
    on one board each takes every word's initial; the yard's Attack and Anti-tank spaces
    are told apart by their words (the hyphen splits "Anti-tank")."""
    markers = ["Attack space", "Anti-tank space", "Artillery 2 (Ann)", "Artillery 2 (Bob)"]
    badges = referee_page.evaluate(BADGES, markers)
    assert badges == {
        "Attack space": "As",
        "Anti-tank space": "Ats",
        "Artillery 2 (Ann)": "AA2",
        "Artillery 2 (Bob)": "AB2",
    }
