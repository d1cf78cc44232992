"""Luck trials of TinyTableTopTanks actions: each chance is the exact probability of the roll
as it was adjudicated, by hand for small cases and against the odds engine, and over
thousands of self-played shots the observed counts sit where the chances say they should.

Dice are forced with supplied faces (kit.ttt) or come from seeded self-play games.
House dice: white 5 = HIT, 6 = HIT HIT; red 1-2 blank, 3-4 PEN, 5 PEN PEN, 6 PEN + *;
green 1-3 OK, 4-5 Shaken, 6 Routed (a morale failure is 4-6).
"""

from __future__ import annotations

import math
from collections import defaultdict
from fractions import Fraction

from kit.ttt import duel
from tankref.core.luck import LuckTrial, measure_luck
from tankref.rulesets import get_ruleset
from tankref.rulesets.ttt.actions import Action, EndPhase, Engage
from tankref.rulesets.ttt.luck import luck_trials
from tankref.rulesets.ttt.odds import odds_against, penetration_odds
from tankref.rulesets.ttt.selfplay import play_game, random_table
from tankref.rulesets.ttt.state import Options, TableState

TIGER_HITS = 1 - Fraction(4, 6) ** 4  # 4 white dice, each hits on 5 or 6: 65/81
HOUSE_RED = ((0, 0), (0, 0), (1, 0), (1, 0), (2, 0), (1, 1))


def shot(game: object, action: Action, **dice: object) -> tuple[TableState, list[LuckTrial]]:
    before: TableState = game.state  # type: ignore[attr-defined]
    result = game.do(action, **dice)  # type: ignore[attr-defined]
    return before, luck_trials(before, action, result)


def test_a_hit_that_penetrates_and_makes_the_target_check() -> None:
    """Tiger (4 white, 5 red) against the Sherman's front armour 5, head on."""
    g = duel()
    engage = Engage(tank_id="R1", target_id="B1")
    expected_odds = odds_against(g.state, "R1", "B1")
    before, trials = shot(g, engage, white=[5, 1, 1, 1], red=[5, 5, 3, 1, 1], card="Glancing Blow",
                          green=[4])  # fmt: skip
    hit, pen, morale = trials
    assert (hit.player, hit.measure, hit.p, hit.happened) == ("Red", "hit", TIGER_HITS, True)
    assert hit.p == Fraction(expected_odds.exact["p_hit"])
    # No Grizzled reroll: P(penetrated | hit) is the odds engine's figure.
    assert (pen.player, pen.measure, pen.happened) == ("Red", "penetration", True)
    assert pen.p == Fraction(expected_odds.exact["p_penetrate_given_hit"])
    assert pen.p == penetration_odds(HOUSE_RED, 5, 5, False)
    # Blue's Scared crew checks after the penetrating hit: green 4 is Shaken, a failure.
    assert (morale.player, morale.measure, morale.p, morale.happened) == (
        "Blue",
        "morale_failure",
        Fraction(1, 2),
        True,
    )
    assert before.tanks["B1"].morale == "ok"


def test_a_miss_gives_one_trial_and_a_failed_penetration_no_morale() -> None:
    g = duel()
    _, trials = shot(g, Engage(tank_id="R1", target_id="B1"), white=[1, 2, 3, 4])
    assert [(t.measure, t.happened) for t in trials] == [("hit", False)]
    g = duel()
    _, trials = shot(
        g, Engage(tank_id="R1", target_id="B1"), white=[6, 1, 1, 1], red=[1, 1, 1, 1, 3]
    )
    assert [(t.measure, t.happened) for t in trials] == [("hit", True), ("penetration", False)]


def test_the_grizzled_reroll_as_it_was_used() -> None:
    """P(hit) counts the reroll of a missed roll; P(penetrated) is the red dice's chance with
    the reroll still in hand, or without it when Accuracy spent it."""
    with_reroll = penetration_odds(HOUSE_RED, 5, 5, True)
    without = penetration_odds(HOUSE_RED, 5, 5, False)
    assert with_reroll > without
    grizzled_hit = TIGER_HITS + (1 - TIGER_HITS) * Fraction(1, 3)  # 211/243 by hand
    assert grizzled_hit == Fraction(211, 243)

    g = duel(red_grizzled=True)
    odds = odds_against(g.state, "R1", "B1")
    # Hit on the first roll: the reroll is still there for the red dice.
    _, (hit, pen) = shot(g, Engage(tank_id="R1", target_id="B1"), white=[5, 1, 1, 1],
                         red=[1, 1, 1, 1, 1, 1])  # fmt: skip
    assert hit.p == grizzled_hit == Fraction(odds.exact["p_hit"])
    assert (pen.p, pen.happened) == (with_reroll, False)

    g = duel(red_grizzled=True)
    # Missed, saved by the reroll (face 6): the red dice have no reroll left.
    _, (hit, pen) = shot(g, Engage(tank_id="R1", target_id="B1"), white=[1, 1, 1, 1, 6],
                         red=[1, 1, 1, 1, 1])  # fmt: skip
    assert (hit.p, hit.happened) == (grizzled_hit, True)
    assert (pen.p, pen.happened) == (without, False)

    # Averaged over how the hit came, that is the odds engine's P(penetrate | hit).
    first = TIGER_HITS
    again = (1 - TIGER_HITS) * Fraction(1, 3)
    average = (first * with_reroll + again * without) / (first + again)
    assert average == Fraction(odds.exact["p_penetrate_given_hit"])


def test_ask_mode_uses_the_declaration() -> None:
    """Option ask, reroll declared for Penetration: P(hit) has no reroll in it."""
    g = duel(red_grizzled=True, options=Options(grizzled_reroll="ask"))
    engage = Engage(tank_id="R1", target_id="B1", grizzled_reroll="penetration")
    _, (hit, pen) = shot(g, engage, white=[5, 1, 1, 1], red=[1, 1, 1, 1, 1, 1])
    assert hit.p == TIGER_HITS
    assert pen.p == penetration_odds(HOUSE_RED, 5, 5, True)


def test_other_actions_only_count_their_morale_checks() -> None:
    g = duel()
    _, trials = shot(g, EndPhase())
    assert trials == []


def test_the_plugin_gives_the_same_trials() -> None:
    g = duel()
    engage = Engage(tank_id="R1", target_id="B1")
    before = g.state
    result = g.do(engage, white=[1, 2, 3, 4])
    assert get_ruleset("ttt").luck_trials(before, engage, result) == luck_trials(
        before, engage, result
    )


def test_self_play_counts_sit_where_the_chances_say() -> None:
    """Thousands of shots and checks on the server's own dice in seeded self-play games:
    each measure's observed count is within 4 standard deviations of the sum of its
    chances, and its exact two-sided p-value is not extreme. A chance computed for another
    situation than the one adjudicated (a missed penalty, the reroll counted twice) would
    show here as a bias of many standard deviations."""
    by_measure: dict[str, list[LuckTrial]] = defaultdict(list)
    for seed in range(1, 301):
        before = [random_table(seed)]

        def step(state: TableState, action: Action, result: object, before=before) -> None:  # type: ignore[no-untyped-def]
            for trial in luck_trials(before[0], action, result):  # type: ignore[arg-type]
                by_measure[trial.measure].append(trial)
            before[0] = state

        play_game(seed, on_step=step)
    for measure, trials in by_measure.items():
        n = len(trials)
        assert n > 1000, (measure, n)
        expected = sum(float(t.p) for t in trials)
        observed = sum(t.happened for t in trials)
        sd = math.sqrt(sum(float(t.p * (1 - t.p)) for t in trials))
        assert abs(observed - expected) < 4 * sd, (measure, observed, expected, sd)
        assert measure_luck("all", measure, trials).p_value > 1e-4  # type: ignore[arg-type]
