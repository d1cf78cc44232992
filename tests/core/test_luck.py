"""Luck statistics: the exact distribution of a count of successes, against enumeration and
hand-computed cases, and the report's figures and plain-language line."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tankref.core.luck import (
    SIGNIFICANT,
    LuckTrial,
    count_distribution,
    luck_by_player,
    measure_luck,
)


def enumerated(ps: list[Fraction]) -> dict[int, Fraction]:
    """P(count = k) by listing every way the trials can fall: the definition itself."""
    out: dict[int, Fraction] = {}
    for outcome in itertools.product((False, True), repeat=len(ps)):
        weight = Fraction(1)
        for p, happened in zip(ps, outcome, strict=True):
            weight *= p if happened else 1 - p
        k = sum(outcome)
        out[k] = out.get(k, Fraction(0)) + weight
    return out


chances = st.fractions(min_value=0, max_value=1, max_denominator=36)


@settings(max_examples=60, deadline=None)
@given(st.lists(chances, min_size=0, max_size=10))
def test_distribution_matches_enumeration(ps: list[Fraction]) -> None:
    exact = enumerated(ps)
    dist = count_distribution(ps)
    for k in range(-1, len(ps) + 2):
        assert dist.p_equal(k) == pytest.approx(float(exact.get(k, 0)), abs=1e-12)
    assert float(dist.pmf.sum()) == pytest.approx(1.0, abs=1e-12)


def test_distribution_of_many_trials_matches_an_exact_recurrence() -> None:
    """Hundreds of trials with several chances (grouped into binomials, convolved) against a
    dynamic programme in exact fractions."""
    ps = [Fraction(1, 3)] * 120 + [Fraction(65, 81)] * 80 + [Fraction(1, 2)] * 60
    exact = [Fraction(1)]
    for p in ps:
        exact = [
            (exact[k] if k < len(exact) else 0) * (1 - p) + (exact[k - 1] * p if k else 0)
            for k in range(len(exact) + 1)
        ]
    dist = count_distribution(ps)
    for k, pk in enumerate(exact):
        assert dist.p_equal(k) == pytest.approx(float(pk), rel=1e-9, abs=1e-300)
    # a far tail, where a normal approximation would be off by orders of magnitude
    tail = sum(exact[200:])
    assert dist.p_above(199) == pytest.approx(float(tail), rel=1e-9)


def test_certain_trials_shift_the_count() -> None:
    dist = count_distribution([Fraction(1), Fraction(1), Fraction(0), Fraction(1, 2)])
    assert dist.p_equal(1) == 0
    assert dist.p_equal(2) == pytest.approx(0.5)
    assert dist.p_equal(3) == pytest.approx(0.5)


def trials(measure: str, p: Fraction, happened: list[bool], player: str = "Red") -> list[LuckTrial]:
    return [LuckTrial(player, measure, p, h) for h in happened]  # type: ignore[arg-type]


def test_three_fair_coins_all_hit_by_hand() -> None:
    """3 shots at 1/2, 3 hits: P(3) = 1/8, P(<3) = 7/8; the two-sided mid-p value is twice
    the upper mid tail 1/16."""
    luck = measure_luck("Red", "hit", trials("hit", Fraction(1, 2), [True] * 3))
    assert (luck.trials, luck.observed, luck.expected, luck.expected_exact) == (3, 3, 1.5, "3/2")
    assert luck.luck_percentile == pytest.approx(100 * (7 / 8 + 1 / 16))
    assert luck.p_value == pytest.approx(2 / 16)
    assert luck.fair_range == (0, 3)
    assert not luck.significant and luck.verdict == "as_expected"
    assert luck.text == (
        "Red hit 3 times in 3 shots where 1.5 were expected: "
        "about as expected (luckier than 94% of fair tables)."
    )


def test_morale_failures_count_against_the_player() -> None:
    """More failures than expected is bad luck: the percentile is flipped."""
    luck = measure_luck("Blue", "morale_failure", trials("", Fraction(1, 2), [True] * 3, "Blue"))
    assert luck.luck_percentile == pytest.approx(100 * (0 + 1 / 16))
    assert luck.text == (
        "Blue failed 3 of 3 morale checks where 1.5 were expected: "
        "about as expected (unluckier than 94% of fair tables)."
    )


def test_a_significant_run_of_hits() -> None:
    """10 shots at 1/2, all hit: P = 1/1024, mid tail 1/2048, two-sided 2/2048 < 0.01."""
    luck = measure_luck("Red", "hit", trials("hit", Fraction(1, 2), [True] * 10))
    assert luck.p_value == pytest.approx(2 / 2048, rel=1e-3)
    assert luck.p_value < SIGNIFICANT and luck.significant and luck.verdict == "lucky"
    # binomial(10, 1/2): at 2 the lower mid tail is (1 + 10 + 45/2)/1024 < 0.05; at 3 it is
    # (56 + 60)/1024 >= 0.05
    assert luck.fair_range == (3, 7)
    assert luck.text == (
        "Red hit 10 times in 10 shots where 5.0 were expected: significantly lucky (luckier "
        "than 99.95% of fair tables; fair dice are this far off about 1 time in 1,000)."
    )
    unlucky = measure_luck("Red", "penetration", trials("", Fraction(1, 2), [False] * 10))
    assert unlucky.verdict == "unlucky" and unlucky.luck_percentile < 0.1
    assert unlucky.text.startswith("Red penetrated 0 times in 10 hits where 5.0 were expected:")
    assert "unluckier than 99.95% of fair tables" in unlucky.text


def test_two_sided_p_value_against_the_definition() -> None:
    """Mixed chances: the p-value is twice the smaller mid tail (the tail beyond the count
    and half the count's own chance), counted by enumeration."""
    ps = [Fraction(1, 3), Fraction(2, 3), Fraction(65, 81), Fraction(1, 6), Fraction(5, 6)]
    outcome = [True, True, True, False, True]  # 4 successes
    exact = enumerated(ps)
    low = sum(exact[k] for k in range(4)) + exact[4] / 2
    high = exact[5] + exact[4] / 2
    ts = [LuckTrial("Red", "hit", p, h) for p, h in zip(ps, outcome, strict=True)]
    luck = measure_luck("Red", "hit", ts)
    assert luck.p_value == pytest.approx(float(min(1, 2 * min(low, high))), rel=1e-3)
    assert luck.expected_exact == str(sum(ps, Fraction(0)))
    below, equal = sum(exact[k] for k in range(4)), exact[4]
    assert luck.luck_percentile == pytest.approx(float(100 * (below + equal / 2)), abs=0.01)


def test_players_in_order_with_every_measure() -> None:
    ts = [
        LuckTrial("Blue", "hit", Fraction(1, 3), True),
        LuckTrial("Green", "morale_failure", Fraction(1, 2), False),
    ]
    report = luck_by_player(ts, ["Red", "Blue"])
    assert [p.player for p in report] == ["Red", "Blue", "Green"]
    red = report[0]
    assert red.hit.trials == 0 and red.hit.verdict == "as_expected"
    assert red.hit.text == "Red: no shot that could hit or miss yet."
    assert report[1].hit.observed == 1 and report[1].penetration.trials == 0
    assert report[2].morale_failure.trials == 1


def test_a_trial_needs_a_probability() -> None:
    with pytest.raises(ValueError, match="probability"):
        LuckTrial("Red", "hit", Fraction(3, 2), True)


def test_thousands_of_trials_are_quick_enough_to_read_on_every_event() -> None:
    """Not a timing assertion: the grouped convolution keeps 20,000 trials to a handful of
    binomials; the answer still sums to one and is centred on the expected count."""
    ps = [Fraction(k % 35 + 1, 36) for k in range(20_000)]
    dist = count_distribution(ps)
    mean = sum(float(p) for p in ps)
    assert float(dist.pmf.sum()) == pytest.approx(1.0, abs=1e-9)
    assert abs(dist.quantile(0.5) - mean) < 2
    sd = math.sqrt(sum(float(p * (1 - p)) for p in ps))
    assert dist.quantile(0.95) - dist.quantile(0.05) == pytest.approx(2 * 1.645 * sd, abs=2)
