"""`tankref odds`: the exact odds of a hypothetical shot, called as a user would (main())."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tankref.cli import main
from tankref.core.carddata import shipped_dir


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["odds", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_odds_prints_a_readable_table(capsys: pytest.CaptureFixture[str]) -> None:
    """TTT-E4/TTT-E5/TTT-E7: a Tiger (4 white, 5 red) at a Sherman's front (5): the dice, the
    PEN needed, every outcome with its chance and exact fraction, and the damage cards."""
    code, out, _ = run(capsys, "tiger-i", "m4a1-sherman")
    assert code == 0
    assert "Tiger I Ausf. E (tiger-i) engages M4A1 Sherman (75 mm) (m4a1-sherman): front" in out
    assert "4 white (card 4)" in out
    assert "5 red (card 5) vs front armour 5: 5 PEN needed" in out
    hit = next(line for line in out.splitlines() if line.strip().startswith("hit "))
    assert "80.25%" in hit and "65/81" in hit  # 1 - (4/6)^4
    assert "Explosion x3" in out and "destroyed, catastrophic" in out
    assert "a full deck" in out


def test_odds_modifiers_are_listed_with_their_clauses(capsys: pytest.CaptureFixture[str]) -> None:
    """TTT-M1, TTT-CN1, TTT-SM3, TTT-CV1: each modifier given on the command line is shown
    with its clause and changes the dice or the PEN needed."""
    code, out, _ = run(
        capsys,
        "king-tiger",
        "m4a1-sherman",
        "--side",
        "side",
        "--moved",
        "--concealment",
        "1",
        "--cover",
        "2",
        "--smoke",
        "0",
    )
    assert code == 0
    assert "1 white (card 4)" in out
    assert "-2 moved this turn (normal) [TTT-M1]" in out
    assert "-1 light concealment (as given) [TTT-CN1]" in out
    assert "vs side armour 3 + cover 2: 5 PEN needed" in out
    assert "+2 Cover +2 (as given) [TTT-CV1]" in out


def test_odds_json_carries_exact_fractions(capsys: pytest.CaptureFixture[str]) -> None:
    """--json prints the whole answer; the Grizzled reroll (TTT-CR1) on two white dice gives
    19/27 in auto, 5/9 when declared for Penetration (ask)."""
    code, out, _ = run(capsys, "is-2", "m4a1-sherman", "--grizzled", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["exact"]["p_hit"] == "19/27"
    assert data["shooter_card"] == "is-2" and data["target_card"] == "m4a1-sherman"
    assert data["reroll_accuracy"] is True and data["grizzled_policy"] == "auto"
    code, out, _ = run(
        capsys, "is-2", "m4a1-sherman", "--grizzled", "--grizzled-policy", "penetration", "--json"
    )
    data = json.loads(out)
    assert data["exact"]["p_hit"] == "5/9"
    assert data["reroll_penetration"] is True and data["grizzled_policy"] == "ask"


def test_unknown_card_is_named_with_close_matches(capsys: pytest.CaptureFixture[str]) -> None:
    """A misspelt card id is refused naming it and the closest card ids."""
    code, out, err = run(capsys, "tigr-i", "sherman")
    assert code == 2 and out == ""
    assert "unknown shooter card 'tigr-i': did you mean tiger-i" in err
    assert "unknown target card 'sherman': did you mean m4a1-sherman" in err


def test_negative_numbers_are_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["odds", "tiger-i", "m4a1-sherman", "--cover", "-1"])
    assert info.value.code == 2
    assert "must be 0 or more" in capsys.readouterr().err


def test_cards_dir_dice_change_the_odds(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The faces come from the card data: a white die with HIT on 4, 5 and 6 makes two dice
    hit 3/4 of the time (--cards-dir reads the folder's dice)."""
    folder = tmp_path / "ttt"
    shutil.copytree(shipped_dir("ttt"), folder)
    dice = folder / "dice.toml"
    text = dice.read_text()
    assert '    { face = 4 },\n    { face = 5, icons = ["HIT"] },' in text
    dice.write_text(
        text.replace(
            '    { face = 4 },\n    { face = 5, icons = ["HIT"] },',
            '    { face = 4, icons = ["HIT"] },\n    { face = 5, icons = ["HIT"] },',
            1,
        )
    )
    code, out, _ = run(capsys, "is-2", "m4a1-sherman", "--cards-dir", str(folder), "--json")
    assert code == 0
    assert json.loads(out)["exact"]["p_hit"] == "3/4"


def test_odds_help_runs_as_a_console_script() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "tankref", "odds", "--help"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0
    assert "SHOOTER_CARD" in result.stdout and "--grizzled-policy" in result.stdout
