"""MTC-MV1 (terrain costs, points per turn, any direction) and MTC-MV2 (the road bonus),
checked on the cheapest legal path from a drop, or on the path the player reports."""

from __future__ import annotations

from kit.mtc import design, game
from tankref.core.hexgrid import DIRECTIONS, Hex
from tankref.rulesets.mtc import rules

ENEMY = ("B1", "standard", "Blue", -10, 10)
ROAD = {(i, 0): "road" for i in range(0, 9)}


def _move(tank_id: str, q: int, r: int) -> dict[str, object]:
    return {"kind": "move", "tank_id": tank_id, "hex": [q, r]}


def test_terrain_costs_per_hex_entered() -> None:
    """MTC-MV1: clear 1, rubble 2, town 2, road 1 (entered off the road: no bonus)."""
    g = game(
        [("R1", "raider", "Red", 0, 0), ENEMY],
        {(1, 0): "rubble", (2, 0): "town", (3, 0): "road", (4, 0): "clear"},
    )
    result = g.do({"kind": "move", "tank_id": "R1", "path": [[1, 0], [2, 0], [3, 0]]})
    assert result.outcome["cost"] == 5 and result.outcome["path_reported"] is True
    g.refuse({"kind": "move", "tank_id": "R1", "path": [[1, 0], [2, 0], [3, 0], [4, 0]]}, "TOO_FAR")
    assert [rules.MOVE_COST[k] for k in ("clear", "rubble", "crater", "road", "town")] == [
        1,
        2,
        None,
        1,
        2,
    ]


def test_a_drop_takes_the_cheapest_legal_path() -> None:
    """MTC-MV1 with the ruling: a drop in (2,0) is the cheapest path from the start hex;
    rubble in (1,0) makes both routes cost 3, too far for MOVE 2, fine for MOVE 3."""
    g = game(
        [("R1", "standard", "Red", 0, 0), ("R2", "mover", "Red", 0, 3), ENEMY],
        {(1, 0): "rubble", (1, 3): "rubble"},
        designs=[design("mover", 3, 2, 2, 3)],
    )
    err = g.refuse(_move("R1", 2, 0), "TOO_FAR")
    assert err.clause == "MTC-MV1" and err.details["needed"] == 3
    result = g.do(_move("R2", 2, 3))
    assert result.outcome["cost"] == 3
    assert result.rulings[0].text == rules.RULING_DROP_PATH


def test_craters_cannot_be_entered_and_paths_go_around() -> None:
    """MTC-MV1: crater: no entry, neither to end in nor to pass through."""
    g = game([("R1", "raider", "Red", 0, 0), ENEMY], {(1, 0): "crater"})
    err = g.refuse(_move("R1", 1, 0), "NO_ENTRY")
    assert err.clause == "MTC-MV1"
    g.refuse({"kind": "move", "tank_id": "R1", "path": [[1, 0], [2, 0]]}, "NO_ENTRY")
    result = g.do(_move("R1", 2, 0))
    assert Hex(1, 0) not in [Hex(*h) for h in result.outcome["path"]]
    assert result.outcome["cost"] == 3


def test_a_tank_moves_in_any_direction() -> None:
    """MTC-MV1: all six neighbours are one point away."""
    g = game([("R1", "standard", "Red", 0, 0), ENEMY])
    for d in DIRECTIONS:
        result = g.do(_move("R1", d.q, d.r))
        assert result.outcome["cost"] == 1


def test_several_drops_in_one_phase_make_one_move() -> None:
    """MTC-MV1: the points are counted from where the tank began the phase; dropping it
    again does not buy new points, and it may go back to where it began."""
    g = game([("R1", "standard", "Red", 0, 0), ENEMY])
    g.do(_move("R1", 1, 0))
    g.do(_move("R1", 2, 0))
    assert g.tank("R1").mp_spent == 2
    err = g.refuse(_move("R1", 3, 0), "TOO_FAR")
    assert err.details["needed"] == 3
    g.do(_move("R1", 0, 0))
    assert g.tank("R1").moved is False


def test_points_are_not_saved_between_turns() -> None:
    """MTC-MV1: a tank that stood still in turn 1 still has only MOVE points in turn 2."""
    g = game([("R1", "standard", "Red", 0, 0), ENEMY])
    for _ in range(4):
        g.end_phase([6, 1] if g.state.phase == 3 else None)
    assert g.state.turn == 2 and g.state.active_player == "Red"
    g.refuse(_move("R1", 3, 0), "TOO_FAR")
    g.do(_move("R1", 2, 0))


def test_one_tank_a_hex_and_no_passing_through_enemies() -> None:
    """MTC-MV1 with the stacking ruling: pass friends, not enemies; end in an empty hex."""
    g = game(
        [
            ("R1", "standard", "Red", 0, 0),
            ("R2", "standard", "Red", 1, 0),
            ("B1", "standard", "Blue", 0, 1),
            ("B2", "standard", "Blue", 9, 9),
        ]
    )
    g.refuse(_move("R1", 1, 0), "HEX_OCCUPIED")
    g.do({"kind": "move", "tank_id": "R1", "path": [[1, 0], [2, 0]]})  # through a friend
    g.do(_move("R1", 0, 0))
    err = g.refuse({"kind": "move", "tank_id": "R1", "path": [[0, 1], [0, 2]]}, "ENEMY_IN_HEX")
    assert "ruling" in err.message


def test_the_map_edge_stops_a_tank() -> None:
    g = game([("R1", "raider", "Red", 0, 13), ENEMY])  # 13 * 1.732" = 22.5": the top row
    g.refuse(_move("R1", 0, 14), "OFF_TABLE")


def test_road_bonus_of_half_move_while_staying_on_the_road() -> None:
    """MTC-MV2: starting on a road and staying on road hexes gives MOVE // 2 extra points:
    MOVE 5 goes 7 hexes; MOVE 2 goes 3."""
    g = game(
        [("R1", "raider", "Red", 0, 0), ("R2", "standard", "Red", 0, 2), ENEMY],
        {**ROAD, **{(i, 2): "road" for i in range(0, 4)}},
    )
    result = g.do(_move("R1", 7, 0))
    assert result.outcome["road_bonus"] == 2 and result.outcome["cost"] == 7
    assert result.rulings[0].clause == "MTC-MV2"
    assert g.tank("R1").road_bonus_used
    g.refuse(_move("R1", 8, 0), "TOO_FAR")
    result = g.do(_move("R2", 3, 2))
    assert result.outcome["road_bonus"] == 1


def test_no_road_bonus_when_leaving_the_road_or_starting_off_it() -> None:
    """MTC-MV2: the bonus needs a road start and road all the way."""
    g = game([("R1", "raider", "Red", 0, 0), ("R2", "raider", "Red", -1, 1), ENEMY], ROAD)
    err = g.refuse(_move("R1", 6, 1), "TOO_FAR")  # road to (6,0) then off: 7 points
    assert err.clause == "MTC-MV2"
    g.refuse(_move("R2", 6, 0), "TOO_FAR")  # starts off the road
    g.do(_move("R2", 4, 0))  # 5 points: no bonus needed
    g.refuse(
        {
            "kind": "move",
            "tank_id": "R1",
            "path": [[1, 0], [2, 0], [3, 0], [4, 0], [5, 0], [6, 0], [6, 1]],
        },
        "TOO_FAR",
    )
    result = g.do(
        {"kind": "move", "tank_id": "R1", "path": [[1, 0], [2, 0], [3, 0], [4, 0], [5, 0], [6, 0]]}
    )
    assert result.outcome["road_bonus"] == 2


def test_move_one_gets_no_road_bonus() -> None:
    """MTC-MV2: half of MOVE 1 rounded down is 0."""
    g = game([("R1", "crawler", "Red", 0, 0), ENEMY], ROAD, designs=[design("crawler", 5, 5, 4, 1)])
    g.refuse(_move("R1", 2, 0), "TOO_FAR")
    options = g.state.tanks["R1"]
    assert rules.road_bonus(options) == 0


def test_a_reported_path_must_be_connected_and_end_at_the_drop() -> None:
    g = game([("R1", "raider", "Red", 0, 0), ENEMY])
    g.refuse({"kind": "move", "tank_id": "R1", "path": [[2, 0]]}, "PATH_NOT_ADJACENT")
    g.refuse({"kind": "move", "tank_id": "R1", "hex": [2, 0], "path": [[1, 0]]}, "PATH_MISMATCH")
