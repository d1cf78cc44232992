"""MTC-BP1: the build-point tank designer, as card data and as a table's own designs."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from kit.mtc import design, game
from tankref.core.errors import DataError, RulesError
from tankref.rulesets.mtc.cards import default_cards, design_problems, load_cards
from tankref.rulesets.mtc.engine import new_table
from tankref.rulesets.mtc.plugin import MinimalTankCombat
from tankref.rulesets.mtc.state import Options


def test_shipped_designs_are_legal_and_include_the_rule_texts_examples() -> None:
    """MTC-BP1: every shipped design has each element 1-5 and costs at most 15 BP; the three
    example tanks of rules 3.0 are there, 10 BP each (the average tank)."""
    cards = default_cards()
    for d in cards.designs.values():
        assert design_problems(d) == [], d.id
    examples = {
        (d.attack, d.defense, d.range, d.move): d.build_points for d in cards.designs.values()
    }
    assert examples[(3, 2, 3, 2)] == 10
    assert examples[(2, 1, 2, 5)] == 10
    assert examples[(4, 2, 2, 2)] == 10
    assert cards.die.sides == 6


def test_a_design_costs_one_bp_per_point_up_to_fifteen() -> None:
    """MTC-BP1: 15 BP is allowed, 16 is not; 5 is the most of one element, 1 the least."""
    assert design_problems(design("big", 5, 5, 3, 2)) == []
    problems = design_problems(design("bigger", 5, 5, 3, 3))
    assert problems == [("(design)", "costs 16 BP, more than the 15 BP a tank may cost")]
    assert design_problems(design("small", 1, 1, 1, 1)) == []


def test_every_problem_of_every_design_is_reported_at_once() -> None:
    """MTC-BP1: a design with ATTACK 6, MOVE 0 and a bad id, and another at 17 BP: all four
    problems in one refusal, none hidden behind another."""
    bad = [design("Bad Id", 6, 5, 1, 0), design("fat", 5, 5, 5, 2)]
    with pytest.raises(RulesError) as caught:
        new_table(designs=bad)
    err = caught.value
    assert err.code == "BAD_DESIGN" and err.clause == "MTC-BP1"
    fields = [p["field"] for p in err.details["problems"]]
    assert fields == ["designs.0.id", "designs.0.attack", "designs.0.move", "designs.1"]
    assert "ATTACK 6 is above 5" in err.message and "MOVE 0 is below 1" in err.message
    assert "costs 17 BP" in err.message


def test_setup_reports_each_design_problem_with_its_field() -> None:
    """MTC-BP1 over the wire: the setup is refused with one entry per problem."""
    rules = MinimalTankCombat()
    data = {
        "designs": [
            {"id": "ok", "name": "Ok", "attack": 3, "defense": 3, "range": 2, "move": 2},
            {"id": "wild", "name": "Wild", "attack": 0, "defense": 9, "range": 5, "move": 5},
        ]
    }
    with pytest.raises(ValidationError) as caught:
        rules.parse_setup(data)
    errors = caught.value.errors()
    assert [e["loc"] for e in errors] == [
        ("designs", 1, "attack"),
        ("designs", 1, "defense"),
        ("designs", 1),
    ]
    assert all(e["msg"].startswith("MTC-BP1") for e in errors)
    assert "costs 19 BP" in errors[2]["msg"]


def test_the_table_may_set_its_own_bp_ceiling() -> None:
    """MTC-BP1: "tanks can go up in size to 15 BPs" is the default; a table may agree on
    smaller tanks (max_bp)."""
    with pytest.raises(RulesError) as caught:
        new_table(designs=[design("ten", 3, 2, 3, 2)], options=Options(max_bp=9))
    assert "more than the 9 BP" in caught.value.message


def test_a_custom_design_fields_a_tank() -> None:
    """MTC-BP1: a table's own design is card data like the shipped ones."""
    g = game(
        [("R1", "sniper", "Red", 0, 0), ("B1", "standard", "Blue", 5, 0)],
        designs=[design("sniper", 3, 1, 5, 1)],
    )
    assert g.tank("R1").design.range == 5
    g.refuse(
        {"kind": "place_tank", "tank_id": "R9", "design": "nope", "player": "Red", "x": 9, "z": 9},
        "SETUP_OVER",
    )


def test_unknown_design_is_refused_naming_the_known_ones() -> None:
    g = game([], start=False)
    err = g.refuse(
        {"kind": "place_tank", "tank_id": "R1", "design": "tiger", "player": "Red", "x": 0, "z": 0},
        "UNKNOWN_CARD",
    )
    assert "raider" in err.message


def test_broken_design_files_list_every_problem(tmp_path: Path) -> None:
    """MTC-BP1 for card files: every problem in the file at once."""
    (tmp_path / "designs.toml").write_text(
        '[[design]]\nid = "a"\nname = "A"\nattack = 6\ndefense = 5\nrange = 5\nmove = 5\n'
        '[[design]]\nid = "a"\nname = "B"\nattack = 1\ndefense = 1\nrange = 1\nmove = 0\n'
        '[[design]]\nid = "c"\nname = "C"\nattack = "x"\ndefense = 1\nrange = 1\nmove = 1\n'
    )
    (tmp_path / "dice.toml").write_text(
        '[[die]]\nname = "d6"\nlabel = "d6"\nfaces = [{face=1},{face=2},{face=3},{face=4},'
        "{face=5},{face=6}]\n"
    )
    with pytest.raises(DataError) as caught:
        load_cards(tmp_path)
    text = "\n".join(caught.value.problems)
    assert len(caught.value.problems) == 5, text
    assert "ATTACK 6 is above 5" in text and "costs 21 BP" in text
    assert "MOVE 0 is below 1" in text and "used by another design" in text
    assert "attack" in text and "(c)" in text


def test_max_bp_refuses_values_above_the_printed_15_MTC_BP1() -> None:
    """MTC-BP1, "Tanks can go up in size to 15 BPs": the option may lower the ceiling, never
    raise it; 16 or more is refused naming max_bp (over HTTP too: the setup's options)."""
    assert Options().max_bp == 15 and Options(max_bp=15).max_bp == 15
    for too_big in (16, 20):
        with pytest.raises(ValidationError) as caught:
            Options(max_bp=too_big)
        assert caught.value.errors()[0]["loc"] == ("max_bp",)
    with pytest.raises(ValidationError) as caught:
        MinimalTankCombat().parse_setup({"options": {"max_bp": 16}})
    assert caught.value.errors()[0]["loc"] == ("options", "max_bp")


def test_shipped_designs_are_held_to_the_tables_max_bp_MTC_BP1() -> None:
    """MTC-BP1 with a lower max_bp: the shipped designs are checked too. The 15 BP Heavy
    tank is not fielded on a 12 BP table (refused naming its cost and the ceiling), the
    10 BP Standard tank is; the table's own designs are held to the same ceiling."""
    g = game([("R1", "standard", "Red", 0, 0)], options=Options(max_bp=12), start=False)
    assert "heavy" not in g.state.designs and "standard" in g.state.designs
    assert all(d.build_points <= 12 for d in g.state.designs.values())
    err = g.refuse(
        {"kind": "place_tank", "tank_id": "R2", "design": "heavy", "player": "Red", "x": 9, "z": 9},
        "DESIGN_OVER_BP",
    )
    assert err.clause == "MTC-BP1" and err.details["field"] == "card"
    assert "15 BP" in err.message and "12 BP" in err.message
    full = game([("R1", "heavy", "Red", 0, 0)], start=False)  # the printed 15: fielded
    assert full.tank("R1").design.build_points == 15
