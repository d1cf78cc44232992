"""TinyTableTopTanks aids over HTTP and against the engine: the Movement rings, the arcs and
the lines of fire are the referee's own geometry (issue 20)."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kit.ttt import duel as engine_duel
from serverkit import LiveReferee, Table, duel, new_table
from tankref.core.aids import AidRing
from tankref.core.errors import RulesError
from tankref.rulesets import get_ruleset
from tankref.rulesets.ttt.actions import Move
from tankref.rulesets.ttt.engine import adjudicate
from tankref.rulesets.ttt.state import Options

ENGAGE = {"kind": "engage", "tank_id": "R1", "target_id": "B1"}
PENETRATES = {"white": [5, 1, 1, 1], "red": [5, 5, 3, 1, 1]}


def _aids(table: Table, tank_id: str) -> dict[str, Any]:
    return table.ok(table.http.get(table.path(f"/tanks/{tank_id}/aids")))


def _card_movement(table: Table, tank_id: str) -> float:
    return float(table.read()["state"]["tanks"][tank_id]["card"]["movement"])


def test_rings_are_movement_and_twice_it_from_the_phase_start_TTT_M1_M2(
    referee: LiveReferee,
) -> None:
    """TTT-M1/TTT-M2: the Normal ring is the card's Movement, the Fast ring twice it, both
    around where the tank began its phase; after a drag they stay there (what the phase has
    used is measured from that point). The tank whose phase it is not gets none, with the
    clause."""
    table = duel(referee.url)
    movement = _card_movement(table, "R1")
    aids = _aids(table, "R1")
    rings = {r["id"]: r for r in aids["move"]}
    assert set(rings) == {"normal", "fast"}
    assert rings["normal"]["radius"] == movement and rings["normal"]["clause"] == "TTT-M1"
    assert rings["fast"]["radius"] == 2 * movement and rings["fast"]["clause"] == "TTT-M2"
    assert (rings["normal"]["x"], rings["normal"]["z"]) == (0, -20)
    assert aids["move_refused"] is None
    table.ok(table.put_tank("R1", card="tiger-i", player="Red", x=0, z=-18, facing=0))
    after = _aids(table, "R1")
    assert after["version"] > aids["version"]
    assert [(r["x"], r["z"], r["radius"]) for r in after["move"]] == [
        (0, -20, movement),
        (0, -20, 2 * movement),
    ]
    blue = _aids(table, "B1")
    assert blue["move"] == [] and blue["move_refused"]["clause"] == "TTT-T1"


def test_engine_damaged_halves_the_ring_and_takes_the_fast_one_TTT_E7(
    referee: LiveReferee,
) -> None:
    """TTT-E7 Engine Damaged: half Movement and no Move Fast, so one ring of half the card's
    Movement, and the missing Fast ring named with its clause."""
    table = duel(referee.url, damage_cards="table")
    dice = {"faces": {**PENETRATES, "green": [1]}, "damage_card": "Engine Damaged"}
    table.ok(table.act(ENGAGE, dice=dice))
    table.ok(table.act({"kind": "end_phase"}))
    aids = _aids(table, "B1")
    movement = _card_movement(table, "B1")
    assert [(r["id"], r["radius"]) for r in aids["move"]] == [("normal", movement / 2)]
    assert [lim["clause"] for lim in aids["limits"]] == ["TTT-E7"]


def test_immobilized_gets_no_ring_and_says_why_TTT_E7(referee: LiveReferee) -> None:
    """TTT-E7 Immobilized: no rings; the reason carries the clause the move would be refused
    with."""
    table = duel(referee.url, damage_cards="table")
    dice = {"faces": {**PENETRATES, "green": [1]}, "damage_card": "Immobilized"}
    table.ok(table.act(ENGAGE, dice=dice))
    table.ok(table.act({"kind": "end_phase"}))
    aids = _aids(table, "B1")
    assert aids["move"] == []
    assert aids["move_refused"]["clause"] == "TTT-E7"
    assert "Immobilized" in aids["move_refused"]["message"]


def test_routed_gets_no_ring_and_says_why_TTT_MR2(referee: LiveReferee) -> None:
    """TTT-MR2: a crew Routed by its morale check (green 6, TTT-MO3) is driven by the referee,
    so it gets no rings, the reason naming the clause; a drag of it is refused the same way."""
    table = duel(referee.url, damage_cards="table")
    dice = {"faces": {**PENETRATES, "green": [6]}, "damage_card": "Glancing Blow"}
    table.ok(table.act(ENGAGE, dice=dice))
    table.ok(table.act({"kind": "end_phase"}))
    assert table.read()["state"]["tanks"]["B1"]["morale"] == "routed"
    aids = _aids(table, "B1")
    assert aids["move"] == [] and aids["move_refused"]["clause"] == "TTT-MR2"
    reply = table.put_tank("B1", card="m4a1-sherman", player="Blue", x=0, z=16, facing=180)
    assert reply.status_code == 409 and reply.json()["clause"] == "TTT-MR2"


def test_arcs_follow_the_table_arc_options_TTT_E2(referee: LiveReferee) -> None:
    """TTT-E2 (option arc width): the front wedge spans ±front_arc about the facing, the rear
    ±rear_arc about the back, the sides between; with front and rear meeting there is no side
    arc."""
    table = duel(referee.url, options={"front_arc": 30, "rear_arc": 60})
    arcs = {a["id"]: a for a in _aids(table, "B1")["arcs"]}  # B1 faces 180
    assert (arcs["front"]["start"], arcs["front"]["end"]) == (150, 210)
    assert (arcs["rear"]["start"], arcs["rear"]["end"]) == (300, 60)
    assert (arcs["side-right"]["start"], arcs["side-right"]["end"]) == (210, 300)
    assert {a["clause"] for a in arcs.values()} == {"TTT-E2"}
    wide = duel(referee.url, options={"front_arc": 90, "rear_arc": 90})
    assert [a["id"] for a in _aids(wide, "R1")["arcs"]] == ["front", "rear"]


def test_lines_are_read_like_a_shot_and_unknown_unit_is_404_TTT_E1_CN1(
    referee: LiveReferee,
) -> None:
    """TTT-E1/TTT-CN1: a forest between the tanks reads heavy concealment, a blocking piece
    reads blocked and the target may not be engaged (the reason names TTT-E1); an unknown
    unit is a 404 naming it, and the read changes nothing."""
    table = duel(referee.url)
    line = _aids(table, "R1")["lines"][0]
    assert line["target_id"] == "B1" and line["reading"] == "clear" and line["may_fire"]
    assert math.isclose(line["range"], 40)
    before = table.snapshot()
    reply = table.http.get(table.path("/tanks/nope/aids"))
    assert reply.status_code == 404 and "nope" in reply.json()["message"]
    assert table.snapshot() == before

    forest = {"kind": "forest", "shape": {"shape": "circle", "x": 0, "z": 0, "radius": 3}}
    wall = {"kind": "blocking", "shape": {"shape": "circle", "x": 0, "z": 0, "radius": 3}}
    for piece, word, clause in ((forest, "heavy", "TTT-CN1"), (wall, "blocked", "TTT-E1")):
        t = _setup_with_terrain(referee, piece)
        line = _aids(t, "R1")["lines"][0]
        assert (line["reading"], line["clause"]) == (word, clause), line
        if word == "blocked":
            assert not line["may_fire"] and line["refused"]["clause"] == "TTT-E1"


def _setup_with_terrain(referee: LiveReferee, piece: dict[str, Any]) -> Table:
    table = new_table(referee.url, dice={"source": "table", "seed": "aids-terrain"})
    table.ok(table.http.put(table.path("/terrain/T1"), json=piece))
    table.ok(table.put_tank("R1", card="tiger-i", player="Red", x=0, z=-20, facing=0))
    table.ok(table.put_tank("B1", card="m4a1-sherman", player="Blue", x=0, z=20, facing=180))
    table.ok(table.act({"kind": "crew_roll"}, dice={"faces": {"green": [1, 1]}}))
    table.ok(table.act({"kind": "start_game"}))
    return table


# --- the same geometry both ways ------------------------------------------------------------

_GAME = engine_duel(options=Options(move_tolerance=0.25))
_RINGS = {
    r.id: r for r in get_ruleset("ttt").aids(_GAME.state, "R1").move if isinstance(r, AidRing)
}


@settings(deadline=None)
@given(
    bearing=st.floats(0, 360, exclude_max=True),
    reach=st.floats(0.3, 30),
)
def test_a_move_inside_a_ring_is_that_kind_TTT_M1_M2(bearing: float, reach: float) -> None:
    """TTT-M1/TTT-M2 property: a move ending inside the Normal ring (its drift tolerance
    included) is classified Normal, between the rings Fast, beyond the Fast ring refused: the
    aid and the adjudication measure the same way."""
    normal, fast = _RINGS["normal"], _RINGS["fast"]
    x = normal.x + reach * math.sin(math.radians(bearing))
    z = normal.z + reach * math.cos(math.radians(bearing))
    state = _GAME.state
    if not state.area.contains((x, z)):
        return
    move = Move(tank_id="R1", x=x, z=z, facing=0)
    normal_edge = normal.radius + normal.tolerance
    fast_edge = fast.radius + fast.tolerance
    gap = 1e-6  # a point within float noise of a ring is either side's
    if abs(reach - normal_edge) < gap or abs(reach - fast_edge) < gap:
        return
    if reach > fast_edge:
        with pytest.raises(RulesError) as refused:
            adjudicate(state, move)
        assert refused.value.clause == "TTT-M2"
        return
    kind = adjudicate(state, move).result.outcome["move"]
    assert kind == ("normal" if reach < normal_edge else "fast")
