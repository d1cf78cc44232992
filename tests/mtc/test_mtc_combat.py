"""MTC-LOS1 (range and line of sight), MTC-CB1 (once a turn, combined fire, odds columns)
and MTC-CRT1 (the Combat Results Table), with the attack die forced."""

from __future__ import annotations

import pytest

from kit.mtc import Game, TankSpec, design, game
from tankref.rulesets.mtc import rules
from tankref.rulesets.mtc.cards import Design
from tankref.rulesets.mtc.state import TerrainKind

# Custom designs to reach every column: attack / defense as named.
DESIGNS: list[Design] = [
    design("gun1", 1, 1, 5, 1),
    design("gun2", 2, 1, 5, 1),
    design("gun3", 3, 1, 5, 1),
    design("gun5", 5, 1, 5, 1),
    design("wall2", 1, 2, 1, 1),
    design("wall3", 1, 3, 1, 1),
    design("wall4", 1, 4, 1, 1),
]


def combat(
    tanks: list[TankSpec], terrain: dict[tuple[int, int], TerrainKind] | None = None
) -> Game:
    g = game(tanks, terrain, designs=DESIGNS)
    g.to_combat()
    return g


def fire(*shooters: str, at: str) -> dict[str, object]:
    return {"kind": "fire", "tank_ids": list(shooters), "target_id": at}


def test_range_is_counted_in_hexes() -> None:
    """MTC-LOS1: a target RANGE hexes away may be fired at; one more hex is out of range."""
    g = combat(
        [
            ("R1", "standard", "Red", 0, 0),
            ("B1", "wall2", "Blue", 3, 0),
            ("B2", "wall2", "Blue", 0, 4),
        ]
    )
    err = g.refuse(fire("R1", at="B2"), "OUT_OF_RANGE")
    assert err.clause == "MTC-LOS1" and err.details == {"distance": 4, "range": 3}
    result = g.do(fire("R1", at="B1"), [1])
    assert result.outcome["column"] == "1-1"


def test_a_tank_or_a_crater_on_the_line_blocks_it() -> None:
    """MTC-LOS1: the line may not pass through a hex with a tank (either side's) or blocking
    terrain (crater); rubble and town do not block; the end hexes never do."""
    g = combat(
        [
            ("R1", "gun1", "Red", 0, 0),
            ("R2", "gun1", "Red", 2, 0),
            ("B1", "wall2", "Blue", 4, 0),
            ("B2", "wall2", "Blue", 0, 4),
            ("B3", "gun1", "Blue", 4, -4),
        ],
        {(0, 2): "crater", (3, -3): "rubble", (2, -2): "town", (4, -4): "town"},
    )
    err = g.refuse(fire("R1", at="B1"), "NO_LINE_OF_SIGHT")  # R2 in (2,0)
    assert "R2 (Red) in (2,0)" in err.message and err.clause == "MTC-LOS1"
    err = g.refuse(fire("R1", at="B2"), "NO_LINE_OF_SIGHT")
    assert "crater in (0,2)" in err.message
    g.do(fire("R1", at="B3"), [1])  # through town and rubble, into a town hex


def test_a_line_along_hex_edges_is_blocked_only_if_both_sides_block() -> None:
    """MTC-LOS1 with the ruling for lines along edges: (0,0) to (1,1) runs between (1,0)
    and (0,1); one blocked side leaves the line clear (ruling noted), both block it."""
    g = combat(
        [("R1", "gun1", "Red", 0, 0), ("R2", "gun1", "Red", 1, 0), ("B1", "wall2", "Blue", 1, 1)]
    )
    result = g.do(fire("R1", at="B1"), [1])
    assert any(n.text == rules.RULING_EDGE_LINE for n in result.rulings)
    g = combat(
        [("R1", "gun1", "Red", 0, 0), ("B1", "wall2", "Blue", 1, 1)],
        {(1, 0): "crater", (0, 1): "crater"},
    )
    g.refuse(fire("R1", at="B1"), "NO_LINE_OF_SIGHT")


def test_each_tank_fires_once_a_turn() -> None:
    """MTC-CB1: a tank that fired may not fire again this turn, alone or in company."""
    g = combat(
        [("R1", "gun1", "Red", 0, 0), ("R2", "gun1", "Red", 0, 1), ("B1", "wall2", "Blue", 2, 0)]
    )
    g.do(fire("R1", at="B1"), [1])
    err = g.refuse(fire("R1", at="B1"), "ALREADY_FIRED")
    assert err.clause == "MTC-CB1"
    g.refuse(fire("R2", "R1", at="B1"), "ALREADY_FIRED")
    g.refuse(fire("R2", "R2", at="B1"), "SAME_TANK_TWICE")


def test_combined_fire_adds_the_attacks() -> None:
    """MTC-CB1: two ATTACK 1 tanks against DEFENSE 2 fire at 1-1 together (1-2 alone)."""
    g = combat(
        [("R1", "gun1", "Red", 0, 0), ("R2", "gun1", "Red", 0, 1), ("B1", "wall2", "Blue", 2, 0)]
    )
    result = g.do(fire("R1", "R2", at="B1"), [4])
    assert result.outcome["attack"] == 2 and result.outcome["column"] == "1-1"
    assert result.outcome["destroyed"] is True
    assert g.tank("R1").fired and g.tank("R2").fired
    assert g.tank("B1").destroyed_by == ("R1", "R2")


@pytest.mark.parametrize(
    ("shooter", "target", "column"),
    [
        ("gun1", "wall2", "1-2"),  # 1:2
        ("gun3", "wall4", "1-2"),  # 3:4 rounds down to 1-2
        ("gun2", "wall2", "1-1"),
        ("gun5", "wall3", "1-1"),  # 5:3 rounds down to 1-1
        ("gun5", "wall2", "2-1"),  # 5:2 rounds down to 2-1
        ("gun3", "gun1", "3-1"),
        ("gun5", "gun1", "3-1"),  # 5:1 is better than 3-1: uses 3-1 (ruling)
    ],
)
def test_odds_round_down_in_the_defenders_favour(shooter: str, target: str, column: str) -> None:
    """MTC-CB1: total ATTACK : DEFENSE, rounded down to 1-2, 1-1, 2-1 or 3-1."""
    g = combat([("R1", shooter, "Red", 0, 0), ("B1", target, "Blue", 1, 0)])
    result = g.do(fire("R1", at="B1"), [1])
    assert result.outcome["column"] == column
    assert any(n.text == rules.RULING_COLUMNS for n in result.rulings)


def test_worse_than_one_to_two_cannot_attack() -> None:
    """MTC-CB1 ruling: 1:3 has no column; the attack is refused and the tank may still fire
    with a friend (2:3 is 1-2)."""
    g = combat(
        [("R1", "gun1", "Red", 0, 0), ("R2", "gun1", "Red", 0, 1), ("B1", "wall3", "Blue", 1, 0)]
    )
    err = g.refuse(fire("R1", at="B1"), "ODDS_TOO_LOW")
    assert err.clause == "MTC-CB1"
    result = g.do(fire("R1", "R2", at="B1"), [1])
    assert result.outcome["column"] == "1-2"


def test_a_tank_in_town_gets_one_more_defense() -> None:
    """MTC-CB1: town +1 DEFENSE: ATTACK 2 against DEFENSE 1 in a town is 1-1, not 2-1."""
    g = combat([("R1", "gun2", "Red", 0, 0), ("B1", "gun1", "Blue", 1, 0)], {(1, 0): "town"})
    result = g.do(fire("R1", at="B1"), [3])
    assert result.outcome["defense"] == 2 and result.outcome["column"] == "1-1"
    assert result.outcome["destroyed"] is False  # 3 is N at 1-1
    assert result.modifiers[0].clause == "MTC-CB1" and result.modifiers[0].amount == 1


@pytest.mark.parametrize(
    ("shooter", "target", "column", "first_x"),
    [
        ("gun1", "wall2", "1-2", 5),
        ("gun2", "wall2", "1-1", 4),
        ("gun2", "gun1", "2-1", 3),
        ("gun3", "gun1", "3-1", 2),
    ],
)
def test_the_crt_destroys_from_its_columns_lowest_x(
    shooter: str, target: str, column: str, first_x: int
) -> None:
    """MTC-CRT1: one d6; 1-2 X on 5-6, 1-1 X on 4-6, 2-1 X on 3-6, 3-1 X on 2-6."""
    for face in range(1, 7):
        g = combat([("R1", shooter, "Red", 0, 0), ("B1", target, "Blue", 1, 0)])
        result = g.do(fire("R1", at="B1"), [face])
        assert result.outcome["column"] == column
        assert result.outcome["destroyed"] is (face >= first_x), (column, face)
        assert result.outcome["result"] == ("X" if face >= first_x else "N")
        assert result.rolls[0].face == face and "CRT" in result.rolls[0].purpose


def test_a_destroyed_tank_is_removed_from_the_game() -> None:
    """MTC-CRT1: X removes the target: it no longer blocks sight, cannot be fired at, and
    its side loses when it had no other tank."""
    g = combat(
        [
            ("R1", "gun5", "Red", 0, 0),
            ("R2", "gun5", "Red", 0, 1),
            ("B1", "gun1", "Blue", 1, 0),
            ("B2", "gun1", "Blue", 2, 0),
        ]
    )
    result = g.do(fire("R1", at="B1"), [6])
    assert g.tank("B1").destroyed
    assert result.events[0].kind == "destroyed" and result.events[0].clause == "MTC-CRT1"
    assert result.changes[-1].markers == ["Destroyed"]
    g.refuse(fire("R2", at="B1"), "TARGET_DESTROYED")
    result = g.do(fire("R2", at="B2"), [6])  # sight through B1's empty hex
    assert g.state.status == "over" and g.state.winner == "Red"
    assert result.events[-1].kind == "game_over"
