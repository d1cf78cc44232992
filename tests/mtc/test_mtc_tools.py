"""`tankref cards|rulings|odds --ruleset mtc` (issue 17 item 5): Minimal Tank Combat's design
ids with their elements, its table settings and readings, and the exact odds of an attack,
alone or combined, as the referee gives them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from clikit import run_cli
from tankref.cli import main
from tankref.rulesets.mtc.cards import default_cards
from tankref.rulesets.mtc.state import Options
from tankref.rulesets.mtc.tools import READINGS


def attack(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    code, out, err = run_cli(capsys, "odds", "--ruleset", "mtc", *argv, "--json")
    assert (code, err) == (0, ""), err
    (found,) = json.loads(out)
    assert isinstance(found, dict)
    return found


def test_cards_lists_every_design_with_its_elements(capsys: pytest.CaptureFixture[str]) -> None:
    """MTC-BP1: each design id, ATTACK, DEFENSE, RANGE, MOVE and its build points."""
    code, out, err = run_cli(capsys, "cards", "--ruleset", "mtc")
    assert (code, err) == (0, "")
    for d in default_cards().designs.values():
        row = next(line for line in out.splitlines() if line.startswith(f"{d.id} "))
        figures = row[len(d.id) :].split()[-5:]
        assert figures == [str(v) for v in (d.attack, d.defense, d.range, d.move)] + [
            str(d.build_points)
        ]
    assert "card:<id>" in out


def test_cards_checks_a_folder_mtc_bp1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """MTC-BP1: a design over 15 BP and an element above 5 are both reported at once."""
    (tmp_path / "designs.toml").write_text(
        '[[design]]\nid = "monster"\nname = "Monster"\nattack = 6\ndefense = 5\nrange = 5\n'
        "move = 5\n",
        encoding="utf-8",
    )
    code, out, err = run_cli(capsys, "cards", "--ruleset", "mtc", "--dir", str(tmp_path))
    assert (code, out) == (1, "")
    assert "ATTACK 6 is above 5" in err and "more than the 15 BP" in err
    assert "dice.toml" in err  # the missing die file, in the same report


def test_rulings_lists_the_settings_and_readings(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "rulings", "--ruleset", "mtc")
    assert (code, err) == (0, "")
    for name, field in Options.model_fields.items():
        assert f"{name} = {field.default!r}\n    {field.description}" in out
    for clause, text in READINGS:
        assert f"{clause}\n    {text}" in out
    assert "MTC-CB1\n    Odds better than 3-1 use the 3-1 column" in out


@pytest.mark.parametrize(
    ("argv", "column", "exact"),
    [
        (["standard", "brawler"], "1-1", "1/2"),  # ATTACK 3 : DEFENSE 2, X on 4-6
        (["heavy", "scout"], "3-1", "5/6"),  # 5 : 1, X on 2-6
        (["raider", "standard"], "1-1", "1/2"),  # 2 : 2
        (["scout", "raider", "--town"], "1-2", "1/3"),  # 1 : 1 + 1 town, X on 5-6
        (["standard", "heavy", "--range", "3"], "1-2", "1/3"),  # 3 : 4 at the gun's RANGE
    ],
)
def test_odds_mtc_cb1_and_crt1(
    argv: list[str], column: str, exact: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """MTC-CB1: ATTACK against DEFENSE (+1 in a town), rounded in the defender's favour, picks
    the column; MTC-CRT1: the chance its one d6 shows X."""
    found = attack(capsys, *argv)
    assert (found["column"], found["exact"]) == (column, exact)
    assert found["shooters"] == [argv[0]] and found["target_id"] == argv[1]
    assert found["town"] == ("--town" in argv)


def test_combined_fire_adds_the_attacks_mtc_cb1(capsys: pytest.CaptureFixture[str]) -> None:
    """MTC-CB1: a Scout (1) joined by a Raider (2) and a Standard tank (3) fire at a Brawler
    in a town: 6 against 2 + 1 = 3, column 2-1, X on 3-6 (2/3); alone the Scout has 1 : 3,
    worse than 1-2, and cannot attack."""
    found = attack(capsys, "scout", "brawler", "--town", "--with", "raider", "--with", "standard")
    assert (found["attack"], found["defense"], found["column"]) == (6, 3, "2-1")
    assert found["exact"] == "2/3" and found["shooters"] == ["scout", "raider", "standard"]
    code, out, err = run_cli(capsys, "odds", "--ruleset", "mtc", "scout", "brawler", "--town")
    assert (code, out) == (1, "")
    assert "worse than 1-2: no attack" in err and err.rstrip().endswith("(MTC-CB1)")


def test_out_of_range_and_bad_requests(capsys: pytest.CaptureFixture[str]) -> None:
    """MTC-LOS1: a Scout's RANGE is 3, so 4 hexes is refused (exit 1); an unknown design, a
    sixth helper or a range outside 1-5 is a bad request (exit 2)."""
    code, out, err = run_cli(capsys, "odds", "--ruleset", "mtc", "scout", "brawler", "--range", "4")
    assert (code, out) == (1, "") and "RANGE is 3" in err and err.rstrip().endswith("(MTC-LOS1)")
    code, _, err = run_cli(
        capsys, "odds", "--ruleset", "mtc", "scout", "brawler", "--with", "tiger"
    )
    assert code == 2 and "unknown --with card 'tiger'" in err
    many = [arg for _ in range(6) for arg in ("--with", "raider")]
    code, _, err = run_cli(capsys, "odds", "--ruleset", "mtc", "heavy", "scout", *many)
    assert code == 2 and "at most 5 tanks join" in err
    with pytest.raises(SystemExit) as done:
        main(["odds", "--ruleset", "mtc", "scout", "brawler", "--range", "6"])
    assert done.value.code == 2 and "must be 1 to 5 hexes" in capsys.readouterr().err


def test_five_friends_join_from_every_free_neighbour(capsys: pytest.CaptureFixture[str]) -> None:
    found = attack(capsys, "heavy", "heavy", *[a for _ in range(5) for a in ("--with", "scout")])
    assert (found["attack"], found["defense"], found["column"]) == (10, 4, "2-1")
