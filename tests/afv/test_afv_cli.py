"""`tankref cards|rulings|odds --ruleset afv` (issue 17 item 5): AFV's card ids with their
figures, its per-table rulings, and the exact odds of a shot as the referee gives them."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from clikit import run_cli
from kit.afv import AfvGame, cm
from tankref.cli import main
from tankref.rulesets import get_ruleset
from tankref.rulesets.afv.cards import default_cards
from tankref.rulesets.afv.state import AfvOptions
from tankref.rulesets.afv.tools import READINGS


def odds_json(capsys: pytest.CaptureFixture[str], *argv: str) -> list[dict[str, Any]]:
    code, out, err = run_cli(capsys, "odds", "--ruleset", "afv", *argv, "--json")
    assert (code, err) == (0, ""), err
    found: list[dict[str, Any]] = json.loads(out)
    return found


def test_cards_lists_every_unit_card_with_its_figures(capsys: pytest.CaptureFixture[str]) -> None:
    """Each card id a model is tagged with, its class, armour, move and each weapon system's
    hit/pen/short range (AFV-HIT1, AFV-DMG1 figures), and how to tag models."""
    code, out, err = run_cli(capsys, "cards", "--ruleset", "afv")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    units = default_cards().units
    for card in units.values():
        row = next(line for line in lines if line.startswith(f"{card.id} "))
        assert card.name in row and card.unit_class in row and f" {card.armour} " in row
        for weapon in card.weapon:
            assert f"{weapon.name} {weapon.hit}/{weapon.pen} {weapon.short_cm:g}" in row
    assert f"{len(units)} unit cards; dice: d6." in out and "card:<id>" in out


def test_cards_checks_a_folder_and_lists_every_problem(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "units.toml").write_text(
        '[[unit]]\nid = "Bad Id"\nname = "x"\nclass = "tank"\nmove_cm = 10\narmour = 1\n'
        'weapon = [{ name = "Gun", hit = 0, pen = 1, short_cm = 10 }]\n',
        encoding="utf-8",
    )
    code, out, err = run_cli(capsys, "cards", "--ruleset", "afv", "--dir", str(tmp_path))
    assert (code, out) == (1, "")
    assert "units.toml" in err and "id" in err and "class" in err
    assert "dice.toml" in err  # the missing dice file is reported in the same go


def test_rulings_lists_every_option_and_reading(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "rulings", "--ruleset", "afv")
    assert (code, err) == (0, "")
    for name, field in AfvOptions.model_fields.items():
        assert f"{name} = {field.default!r}\n    {field.description}" in out
    for clause, text in READINGS:
        assert f"{clause}\n    {text}" in out
    assert "AFV-HIT2\n    'Laterally' compares" in out


def test_odds_by_hand_afv_hit1_and_dmg1(capsys: pytest.CaptureFixture[str]) -> None:
    """AFV-HIT1/AFV-DMG1: a tank destroyer (hit 0, pen 12) at a Standard AFV (armour 6) at
    short range: 2d6 >= 8 hits (15/36), 11+ twice (3/36); each hit destroys on 2d6 + 6 >= 15
    (10/36). P(destroyed) = 12/36 * 5/18 + 3/36 * (1 - (13/18)^2) = 515/3888."""
    (shot,) = odds_json(capsys, "tank-destroyer", "standard-afv")
    assert (shot["shooter"], shot["target"], shot["weapon_name"]) == (
        "tank-destroyer",
        "standard-afv",
        "Main gun",
    )
    one, two, kill = Fraction(12, 36), Fraction(3, 36), Fraction(10, 36)
    assert Fraction(shot["exact"]["p_hit"]) == one + two == Fraction(5, 12)
    assert Fraction(shot["exact"]["p_destroyed"]) == one * kill + two * (1 - (1 - kill) ** 2)
    assert Fraction(shot["exact"]["p_destroyed"]) == Fraction(515, 3888)
    assert (shot["hit_modifier"], shot["damage_modifier"]) == (0, 6)


def test_odds_modifiers_afv_hit2_and_sp1(capsys: pytest.CaptureFixture[str]) -> None:
    """AFV-HIT2: the shooter moved -2, the infantry target moved laterally -1, in cover -2,
    at long range (50 cm, short 20) -2: the machine gun rolls 2d6 + 3 - 7, 8+ (2d6 >= 12,
    1/36); AFV-SP1: infantry is spotted first on 1-3 (1/2), so P(hit) = 1/72. The main gun
    (hit 0) is no anti-personnel attack (AFV-AP1): only the machine gun is listed."""
    argv = ["standard-afv", "standard-infantry", "--moved", "--lateral", "--cover"]
    (shot,) = odds_json(capsys, *argv, "--range", "50")
    assert shot["weapon_name"] == "Machine gun" and shot["hit_modifier"] == -7
    assert shot["exact"]["p_spot"] == "1/2" and shot["exact"]["p_hit"] == "1/72"
    code, out, _ = run_cli(capsys, "odds", "--ruleset", "afv", *argv, "--range", "50")
    assert code == 0
    for line in (
        "-2 shooter moved and is not infantry [AFV-HIT2]",
        "-1 target moved laterally",
        "-2 infantry in cover",
        "-2 long range (up to 5x short)",
        "spotted first (AFV-SP1)         50.00%   1/2",
    ):
        assert line in out


def test_odds_equal_the_hook_on_a_table_built_by_the_tests_kit(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The same shot (a Standard AFV at an IFV 40 cm away, Red's second phase) set up by the
    test kit and asked of the plug-in's odds hook: the same figures, weapon by weapon."""
    game = AfvGame()
    game.put("R", "standard-afv", "Red", 0.0, 0.0)
    game.put("B", "ifv", "Blue", 0.0, cm(40), 180.0)
    game.start()
    game.end_phase()
    game.end_phase()
    hook = get_ruleset("afv").odds(game.state, "R", "B")
    cli = odds_json(capsys, "standard-afv", "ifv", "--range", "40")
    assert [(o["weapon"], o["exact"], o["per_hit"]) for o in cli] == [
        (o.weapon, o.exact, o.per_hit) for o in hook
    ]


@pytest.mark.parametrize(
    ("argv", "clause"),
    [
        (["atgm-carrier", "heavy-armour", "--moved"], "(AFV-SPC1)"),
        (["at-team", "standard-infantry"], "(AFV-AP1)"),
        (["fast-cannon-carrier", "heavy-armour", "--range", "401"], "(AFV-HIT2)"),
        (["standard-afv", "ifv", "--weapon", "2"], "(AFV-FR1)"),
    ],
)
def test_a_shot_the_rules_refuse_is_one_line_naming_the_clause(
    argv: list[str], clause: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """AFV-SPC1 (an ATGM carrier that moved), AFV-AP1 (hit 0 at infantry), AFV-HIT2 (beyond
    10x short range), AFV-FR1 (no such weapon system): exit 1, the referee's own refusal."""
    code, out, err = run_cli(capsys, "odds", "--ruleset", "afv", *argv)
    assert (code, out) == (1, "")
    assert err.startswith("tankref odds: ") and err.rstrip().endswith(clause)
    assert len(err.splitlines()) == 1


def test_unknown_cards_and_bad_numbers_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "odds", "--ruleset", "afv", "standard-afw", "ifv")
    assert (code, out) == (2, "")
    assert err.startswith(
        "tankref odds: unknown shooter card 'standard-afw': did you mean standard-afv"
    )
    for bad in ("0", "-5", "nan", "far"):
        with pytest.raises(SystemExit) as done:
            main(["odds", "--ruleset", "afv", "standard-afv", "ifv", "--range", bad])
        assert done.value.code == 2
        assert "argument --range" in capsys.readouterr().err
