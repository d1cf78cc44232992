"""The `tankref` command line, called as a user would (through main())."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tankref.cli import main
from tankref.core.carddata import shipped_dir
from tankref.rulesets import get_ruleset, ruleset_names


def test_cards_lists_the_shipped_tanks(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["cards"]) == 0
    out = capsys.readouterr().out
    assert "tiger-i" in out and "m4a1-sherman" in out
    assert "deck: 20 cards" in out


def test_cards_check_lists_every_problem_and_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "ttt"
    shutil.copytree(shipped_dir("ttt"), folder)
    (folder / "tanks" / "broken.toml").write_text(
        '[[tank]]\nid = "bad-one"\nname = "Bad"\nnation = "X"\nmovement = -1\naccuracy = 3\n'
        'penetration = 3\narmour = { front = 1, side = 1, rear = 1, turret = "thick" }\n'
    )
    assert main(["cards", "--dir", str(folder)]) == 1
    err = capsys.readouterr().err
    assert "broken.toml" in err and "bad-one" in err
    assert "movement" in err and "armour.turret" in err


def test_rulings_lists_each_option_with_its_clause(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rulings"]) == 0
    out = capsys.readouterr().out
    for name, clause in [
        ("front_arc", "TTT-E2"),
        ("best_armour", "TTT-E3"),
        ("cover", "TTT-E5"),
        ("smoke_stacking", "TTT-SM3"),
        ("grizzled_reroll", "TTT-CR1"),
        ("dice.damage_cards", "TTT-E7"),
    ]:
        assert name in out and clause in out


def test_help_runs_as_a_console_script() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "tankref", "--help"], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0
    assert "selfplay" in result.stdout and "cards" in result.stdout


def test_ruleset_registry_knows_ttt() -> None:
    assert "ttt" in ruleset_names()
    ttt = get_ruleset("ttt")
    assert ttt.title == "TinyTableTopTanks" and ttt.clause_prefix == "TTT"
    with pytest.raises(KeyError, match="no ruleset"):
        get_ruleset("chess")


@pytest.mark.parametrize("ruleset", ["ttt", "afv", "mtc", "yrd"])
def test_selfplay_plays_every_ruleset(ruleset: str, capsys: pytest.CaptureFixture[str]) -> None:
    """`tankref selfplay --ruleset NAME`: each ruleset's seeded bots, one way for all four;
    the same seed prints the same game."""
    assert main(["selfplay", "--ruleset", ruleset, "--games", "2", "--seed", "5"]) == 0
    first = capsys.readouterr().out
    assert first.count("== game ") == 2
    assert "game 5: " in first and "game 6: " in first and " actions)" in first
    assert main(["selfplay", "--ruleset", ruleset, "--games", "2", "--seed", "5"]) == 0
    assert capsys.readouterr().out == first
