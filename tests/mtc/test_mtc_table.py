"""MTC-HEX1: TTS positions on the table's hex grid (size, orientation, origin), terrain per
hex from the setup and from terrain pieces, and the generic surface (scene, odds, luck)."""

from __future__ import annotations

from fractions import Fraction

import pytest
from pydantic import ValidationError

from kit.mtc import game
from tankref.core.dice import DiceState, SuppliedDice
from tankref.core.hexgrid import Hex, HexGrid
from tankref.core.ruleset import TankPut
from tankref.rulesets import get_ruleset
from tankref.rulesets.mtc.actions import Fire, Move
from tankref.rulesets.mtc.plugin import MinimalTankCombat
from tankref.rulesets.mtc.state import TableState

RULES = MinimalTankCombat()


def put(card: str, player: str, x: float, z: float) -> TankPut:
    return TankPut(card=card, player=player, x=x, z=z, facing=0)


def _table(setup: dict[str, object]) -> TableState:
    return RULES.new_table(RULES.parse_setup(setup), DiceState(source="table", seed="t"))


def test_registered_by_name() -> None:
    assert get_ruleset("mtc").title == "Minimal Tank Combat"


@pytest.mark.parametrize("orientation", ["pointy", "flat"])
def test_a_drop_anywhere_in_a_hex_stands_the_tank_in_that_hex(orientation: str) -> None:
    """MTC-HEX1: the table's grid (3" hexes, origin at (5, -2)) maps the drop to a hex; the
    model is told to sit at the hex centre; a later drop in the same hex is drift."""
    state = _table(
        {"grid": {"hex_width": 3.0, "orientation": orientation, "origin_x": 5, "origin_z": -2}}
    )
    grid = state.grid
    cx, cz = grid.center(Hex(2, -1))
    action = RULES.tank_put(state, "R1", put("standard", "Red", cx + 0.9, cz - 0.8))
    assert action is not None
    outcome = RULES.adjudicate(state, action)
    state = outcome.state
    assert state.tanks["R1"].hex == Hex(2, -1)
    event = outcome.result.events[-1]
    assert event.kind == "place_model" and event.clause == "MTC-HEX1"
    assert (event.data["x"], event.data["z"]) == pytest.approx((cx, cz), abs=1e-3)
    assert RULES.tank_put(state, "R1", put("standard", "Red", cx - 1.0, cz + 0.5)) is None
    view = RULES.tank_views(state)[0]
    assert (view.x, view.z) == pytest.approx((cx, cz))


def test_a_drop_in_play_is_a_move_by_hex_distance() -> None:
    """MTC-HEX1 / MTC-MV1: in play a drop two hexes away is a 2-point move; the distance is
    hexes, not inches (a 3" grid here)."""
    state = _table({"grid": {"hex_width": 3.0, "orientation": "flat"}})
    grid = state.grid
    for tid, card, player, h in (
        ("R1", "standard", "Red", Hex(0, 0)),
        ("B1", "standard", "Blue", Hex(0, 6)),
    ):
        x, z = grid.center(h)
        state = RULES.adjudicate(state, RULES.tank_put(state, tid, put(card, player, x, z))).state
    state = RULES.adjudicate(
        state, RULES.parse_action({"kind": "start_game"}), SuppliedDice(faces={"d6": [6, 1]})
    ).state
    x, z = grid.center(Hex(2, -1))
    action = RULES.tank_put(state, "R1", put("standard", "Red", x, z))
    assert isinstance(action, Move)
    result = RULES.adjudicate(state, action).result
    assert result.outcome["cost"] == 2
    x, z = grid.center(Hex(3, -1))
    refused = RULES.tank_put(state, "R1", put("standard", "Red", x, z))
    with pytest.raises(Exception, match="needs 3 MP"):
        RULES.adjudicate(state, refused)  # type: ignore[arg-type]


def test_terrain_pieces_cover_the_hexes_under_their_footprint() -> None:
    """MTC-HEX1: a piece's footprint covers the hexes whose centres lie inside it; a small
    one covers the hex it sits in; the latest piece wins where two overlap."""
    state = _table({"terrain": [{"q": 0, "r": 0, "kind": "rubble"}]})
    grid = state.grid
    cx, cz = grid.center(Hex(3, 0))
    action = RULES.terrain_put(
        state, "T1", {"kind": "town", "shape": {"shape": "circle", "x": cx, "z": cz, "radius": 2.1}}
    )
    state = RULES.adjudicate(state, action).state
    covered = {Hex(*h) for h in state.pieces["T1"].hexes}
    assert covered == {
        Hex(3, 0),
        Hex(4, 0),
        Hex(2, 0),
        Hex(3, 1),
        Hex(2, 1),
        Hex(3, -1),
        Hex(4, -1),
    }
    small = RULES.terrain_put(
        state,
        "T2",
        {"kind": "crater", "shape": {"shape": "circle", "x": 0.3, "z": 0.2, "radius": 0.4}},
    )
    state = RULES.adjudicate(state, small).state
    assert state.terrain_at((0, 0)) == "crater"
    listed = RULES.terrain_put(state, "T3", {"kind": "road", "hexes": [[3, 0], [9, 9]]})
    state = RULES.adjudicate(state, listed).state
    assert state.terrain_at((3, 0)) == "road" and state.terrain_at((4, 0)) == "town"
    with pytest.raises(ValidationError):
        RULES.terrain_put(state, "T4", {"kind": "forest", "hexes": [[0, 1]]})


def test_scene_draws_terrain_hexes_and_the_line_of_fire() -> None:
    g = game(
        [("R1", "standard", "Red", 0, 0), ("B1", "raider", "Blue", 2, 0)],
        {(1, 1): "town", (5, 5): "crater"},
    )
    parts = RULES.scene_parts(g.state)
    assert [(t.id, t.kind) for t in parts.terrain] == [("hex:1,1", "town"), ("hex:5,5", "crater")]
    assert parts.terrain[0].shape.shape == "polygon" and len(parts.terrain[0].shape.points) == 6
    assert parts.area is not None and [p.id for p in parts.players] == ["Red", "Blue"]
    g.to_combat()
    result = g.do(Fire(tank_ids=("R1",), target_id="B1"), [2])
    line = RULES.line_of_fire(g.state, result)
    assert line is not None and (line.x2, line.z2) == pytest.approx((4.0, 0.0))
    assert line.label == "3-1: rolled 2, X"


def test_odds_and_luck_come_from_the_crt_column() -> None:
    """MTC-CRT1: the chance at 1-1 is 3/6; the luck trial counts it as one chance."""
    g = game(
        [
            ("R1", "standard", "Red", 0, 0),
            ("B1", "raider", "Blue", 2, 0),
            ("B2", "heavy", "Blue", 0, 2),
        ]
    )
    g.to_combat()
    odds = RULES.odds(g.state, "R1", None)
    assert [(o.target_id, o.column, o.exact) for o in odds] == [
        ("B1", "3-1", "5/6"),
        ("B2", "1-2", "1/3"),
    ]
    before = g.state
    result = g.do(Fire(tank_ids=("R1",), target_id="B2"), [5])
    trials = RULES.luck_trials(before, None, result)
    assert len(trials) == 1 and trials[0].p == Fraction(1, 3) and trials[0].happened
    assert trials[0].player == "Red"


def test_objective_reserve_and_terrain_in_play_are_refused_clearly() -> None:
    g = game([("R1", "standard", "Red", 0, 0), ("B1", "standard", "Blue", 2, 0)], start=False)
    g.refuse({"kind": "set_objective", "x": 0, "z": 0}, "NO_OBJECTIVE")
    g.refuse(
        {
            "kind": "place_tank",
            "tank_id": "R2",
            "design": "standard",
            "player": "Red",
            "x": 10,
            "z": 0,
            "reserve": True,
        },
        "NO_RESERVE",
    )
    g.refuse(
        {
            "kind": "place_tank",
            "tank_id": "R2",
            "design": "standard",
            "player": "Red",
            "x": 500,
            "z": 0,
        },
        "OFF_TABLE",
    )
    g.refuse(
        {
            "kind": "place_tank",
            "tank_id": "R2",
            "design": "standard",
            "player": "Red",
            "x": 4,
            "z": 0,
        },
        "HEX_OCCUPIED",
    )
    g.do({"kind": "start_game"}, [6, 1])
    g.refuse(
        {"kind": "place_terrain", "piece_id": "T", "terrain": "town", "hexes": [[1, 1]]},
        "SETUP_OVER",
    )
    g.refuse({"kind": "remove_tank", "tank_id": "R1"}, "SETUP_OVER")


def test_a_custom_grid_is_kept_in_the_state() -> None:
    state = _table({"grid": {"hex_width": 1.25, "orientation": "flat"}})
    assert state.grid == HexGrid(hex_width=1.25, orientation="flat")
    assert TableState.from_json(state.to_json()) == state
