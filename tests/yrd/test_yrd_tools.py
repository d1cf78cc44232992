"""`tankref cards|rulings|odds --ruleset yrd` (issue 17 item 5): the yard's tank and piece
cards, its per-table rulings, and an odds command that says plainly why it has no shot to
price (exit 2)."""

from __future__ import annotations

import pytest

from clikit import run_cli
from tankref.rulesets.yrd.cards import default_cards
from tankref.rulesets.yrd.state import Options
from tankref.rulesets.yrd.tools import READINGS


def test_cards_lists_tanks_and_pieces_yrd_hp1(capsys: pytest.CaptureFixture[str]) -> None:
    """YRD-HP1: each tank card with its HP; each piece with its HP or 'kept by the players'."""
    code, out, err = run_cli(capsys, "cards", "--ruleset", "yrd")
    assert (code, err) == (0, "")
    cards = default_cards()
    rows = out.splitlines()
    for tank in cards.tanks.values():
        row = next(line for line in rows if line.startswith(f"{tank.id} "))
        assert row.split()[-2:] == ["tank", str(tank.hp)]
    for piece in cards.pieces.values():
        row = next(line for line in rows if line.startswith(f"{piece.id} "))
        assert row.endswith(str(piece.hp) if piece.hp is not None else "kept by the players")
    assert "one tank per party (YRD-SP1)" in out and "card:<id>" in out


def test_rulings_lists_every_option_and_reading(capsys: pytest.CaptureFixture[str]) -> None:
    """The tie, criticals, grazing and advantage options (YRD-AT1, YRD-AN1, YRD-SH1) with
    their defaults, and the readings YRD-AT1 and YRD-SD1 the results report."""
    code, out, err = run_cli(capsys, "rulings", "--ruleset", "yrd")
    assert (code, err) == (0, "")
    for name, field in Options.model_fields.items():
        assert f"{name} = {field.default!r}\n    {field.description}" in out
    for clause, text in READINGS:
        assert f"{clause}\n    {text}" in out
    assert "YRD-SD1\n    Shut Down lasts to the end of the owner's next turn" in out


@pytest.mark.parametrize("argv", [[], ["yard-tank", "yard-tank"], ["a", "b", "--json"]])
def test_odds_says_plainly_there_is_no_shot_to_price(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """Whatever it is given: exit 2, one line saying why (a contest of defence values,
    YRD-AT1, YRD-AN1) and where a table shows the odds, nothing on stdout."""
    code, out, err = run_cli(capsys, "odds", "--ruleset", "yrd", *argv)
    assert (code, out) == (2, "")
    assert len(err.splitlines()) == 1
    assert err.startswith("tankref odds: Chapter 12: Tanks and Their Mechanics (yrd) has no shot")
    assert "defence values" in err and "YRD-AT1, YRD-AN1" in err and "/odds" in err
