"""Luck wording (issue 17 item 6): one rule decides the words, the luck percentile, the p-value
and the page's whisker (``fair_range``). "About as expected" exactly when the count is inside
the band, exactly when the two-sided p-value is 0.10 or more, exactly when the percentile is
between 5 and 95; "significantly" exactly when the p-value is below 0.01. Swept over every
count of several numbers of trials and chances, then through a real referee and `tankref luck`.
"""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

import pytest

from serverkit import duel, live_referee
from tankref import cli
from tankref.core.luck import (
    AS_EXPECTED,
    AS_EXPECTED_P,
    SIGNIFICANT,
    LuckTrial,
    Measure,
    MeasureLuck,
    measure_luck,
)

ENGAGE = {"kind": "engage", "tank_id": "R1", "target_id": "B1"}
MISS = {"faces": {"white": [1, 1, 1, 1]}}  # the Tiger's four white dice: no HIT


def check_agreement(luck: MeasureLuck) -> None:
    """The four say the same, and so does the number in the words."""
    lo, hi = luck.fair_range
    inside = lo <= luck.observed <= hi
    as_expected = "about as expected" in luck.text
    assert (luck.verdict == "as_expected") == inside == as_expected, luck
    assert (luck.p_value >= AS_EXPECTED_P) == inside, luck
    assert (AS_EXPECTED[0] <= luck.luck_percentile <= AS_EXPECTED[1]) == inside, luck
    assert luck.significant == (luck.p_value < SIGNIFICANT) == ("significantly" in luck.text)
    assert not (luck.significant and inside)
    share = re.search(r"(luckier|unluckier) than ([0-9.]+)% of fair tables", luck.text)
    assert share is not None, luck.text
    assert (float(share[2]) <= AS_EXPECTED[1]) == inside, luck.text
    if not inside:  # the words name the side the percentile is on
        side = "lucky" if luck.luck_percentile > 50 else "unlucky"
        assert luck.verdict == side and f"{side} (" in luck.text, luck
    assert lo <= hi


CHANCES: list[list[Fraction]] = [
    [Fraction(1, 2)],
    [Fraction(65, 81)],
    [Fraction(1, 6)],
    [Fraction(35, 36)],
    [Fraction(1, 36)],
    [Fraction(1, 3), Fraction(2, 3), Fraction(65, 81), Fraction(1, 6), Fraction(5, 6)],
    [Fraction(11, 16)],  # 8 shots: 5.5 expected, the issue's example
]


@pytest.mark.parametrize("measure", ["hit", "morale_failure"])
@pytest.mark.parametrize("n", [1, 2, 3, 5, 8, 10, 20, 41])
@pytest.mark.parametrize("chances", CHANCES, ids=lambda c: "-".join(map(str, c)))
def test_words_percentile_p_value_and_whisker_agree_for_every_count(
    measure: Measure, n: int, chances: list[Fraction]
) -> None:
    """Every count 0..n of n trials (the chances repeated in turn); more failed morale checks
    is the unlucky side, so the percentile flips and the rule still holds."""
    ps = [chances[i % len(chances)] for i in range(n)]
    seen_inside = seen_outside = 0
    for k in range(n + 1):
        trials = [LuckTrial("Red", measure, p, i < k) for i, p in enumerate(ps)]
        luck = measure_luck("Red", measure, trials)
        assert luck.observed == k
        check_agreement(luck)
        inside = luck.verdict == "as_expected"
        seen_inside += inside
        seen_outside += not inside
    assert seen_inside >= 1  # the band is never empty


def test_the_issue_example_no_longer_contradicts_itself() -> None:
    """2 hits in 8 shots where 5.5 were expected: once "about as expected (unluckier than 99%
    of fair tables)" with p = 0.024 outside the whisker; now unlucky, all four agreeing."""
    trials = [LuckTrial("Red", "hit", Fraction(11, 16), i < 2) for i in range(8)]
    luck = measure_luck("Red", "hit", trials)
    check_agreement(luck)
    assert luck.expected == 5.5 and luck.verdict == "unlucky" and not luck.significant
    assert luck.luck_percentile < 5 and luck.p_value < AS_EXPECTED_P
    assert luck.observed < luck.fair_range[0]
    assert luck.text.startswith(
        "Red hit 2 times in 8 shots where 5.5 were expected: unlucky (unluckier than 9"
    )
    assert "fair dice are this far off about 1 time in" in luck.text


def test_the_referee_and_the_command_line_say_the_same(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A real referee: two Tiger shots that both miss (each hits with 65/81), so Red's hits
    are below the band but not significantly: the reply agrees with itself, its whisker
    leaves 0 out, and `tankref luck` prints the same line."""
    db = tmp_path / "luck.sqlite3"
    with live_referee(db) as live:
        table = duel(live.url)
        table.ok(table.act(ENGAGE, dice=MISS))
        table.ok(table.act({"kind": "end_phase"}))
        table.ok(table.act({"kind": "end_phase"}))
        table.ok(table.act(ENGAGE, dice=MISS))
        reply = table.ok(table.http.get(table.path("/luck")))
    hits = MeasureLuck.model_validate(reply["players"][0]["hit"])
    check_agreement(hits)
    assert (hits.trials, hits.observed, hits.verdict) == (2, 0, "unlucky")
    assert hits.fair_range[0] == 1 and not hits.significant
    assert reply["significance"].startswith("About as expected means the luck percentile")
    assert "between 5 and 95" in reply["significance"]
    assert cli.main(["luck", table.id, "--db", str(db)]) == 0
    assert f"  {hits.text}\n" in capsys.readouterr().out
