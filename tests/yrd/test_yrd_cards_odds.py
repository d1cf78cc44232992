"""Tank yard card data, exact contest odds and luck trials."""

from __future__ import annotations

import fnmatch
import tomllib
from fractions import Fraction
from itertools import product
from pathlib import Path

import pytest

from kit.yrd import yard
from tankref.core.errors import DataError
from tankref.rulesets.yrd import contest
from tankref.rulesets.yrd.actions import AntiTank, Attack
from tankref.rulesets.yrd.cards import load_cards
from tankref.rulesets.yrd.plugin import TankYard
from tankref.rulesets.yrd.state import Options

ROOT = Path(__file__).resolve().parents[2]


def test_shipped_cards_load_and_ship_in_the_wheel() -> None:
    """The shipped cards load (tank stat block, pieces, d20/d12/d10/d6) and every file matches
    the package-data globs that put them in the wheel."""
    cards = load_cards()
    assert cards.tanks["yard-tank"].hp == 5
    assert cards.pieces["piece"].hp is None and cards.pieces["party-member"].hp == 20
    assert {"d20", "d6"} <= set(cards.dice) and cards.dice["d20"].sides == 20
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    globs = config["tool"]["setuptools"]["package-data"]["tankref.cards"]
    files = [p.relative_to(ROOT / "cards").as_posix() for p in (ROOT / "cards/yrd").iterdir()]
    assert files and all(any(fnmatch.fnmatch(f, g) for g in globs) for f in files), files


def test_card_problems_are_listed_at_once(tmp_path: Path) -> None:
    """Broken card files: every problem in every file in one DataError."""
    (tmp_path / "tanks.toml").write_text('[[tank]]\nid = "Bad Id"\nname = "x"\nhp = 0\n')
    (tmp_path / "pieces.toml").write_text('[[piece]]\nid = "p"\nname = ""\n')
    (tmp_path / "dice.toml").write_text('[[die]]\nname = "d20"\nlabel = "d20"\nfaces = []\n')
    with pytest.raises(DataError) as info:
        load_cards(tmp_path)
    text = "\n".join(info.value.problems)
    for expected in ("tank #1 (Bad Id): id", "tank #1 (Bad Id): hp", "piece #1 (p): name"):
        assert expected in text
    assert "faces" in text and "no d6" in text


@pytest.mark.parametrize(
    "options",
    [
        Options(),
        Options(tie="reroll", contest_die="d6", grazing_margin=1),
        Options(tie="offender", criticals="off", contest_die="d10"),
    ],
)
@pytest.mark.parametrize("advantage", [False, True])
def test_verdict_odds_match_every_throw(options: Options, advantage: bool) -> None:
    """YRD-AT1/YRD-AN1 odds: the exact verdict odds equal a count over every throw of the
    dice (both of the offender's with advantage), judged by the referee's own judge."""
    sides = {"d20": 20, "d10": 10, "d6": 6}
    c = contest.contest_for(
        options, sides, clause="YRD-AT1", defender_bonus=1, advantage=advantage, grazing=True
    )
    counts: dict[str, int] = {}
    faces = range(1, c.sides + 1)
    for throw in product(faces, repeat=c.offender_dice + 1):
        verdict = contest.judge(c, max(throw[:-1]), throw[-1])
        if verdict is not None:
            counts[verdict] = counts.get(verdict, 0) + 1
    total = sum(counts.values())
    odds = contest.verdict_odds(c)
    assert sum(odds.values()) == 1
    for verdict in contest.VERDICTS:
        assert odds[verdict] == Fraction(counts.get(verdict, 0), total), verdict


def test_luck_trials_one_per_contest() -> None:
    """Luck: each contest is one "hit" trial for the offender at its exact chance (191/400 for
    d20 against d20, ties to the defender, natural 20 wins); moves roll nothing and count
    nothing."""
    g = yard(pieces={"P": ("Blue", ("Red", 1))})
    before = g.state
    action = Attack(tank_id="R", target_id="P")
    result = g.do(action, d20=[4, 9])
    [trial] = TankYard().luck_trials(before, action, result)
    assert (trial.player, trial.measure, trial.p, trial.happened) == (
        "Red",
        "hit",
        Fraction(191, 400),
        False,
    )
    g = yard(red="anti_tank", blue="attack")
    before = g.state
    action2 = AntiTank(tank_id="R", target_id="B")
    result = g.do(action2, d20=[4, 9, 2])
    [trial] = TankYard().luck_trials(before, action2, result)
    assert trial.happened and trial.p > Fraction(191, 400)  # advantage
