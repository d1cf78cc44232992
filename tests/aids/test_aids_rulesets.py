"""Aids for AFV, Minimal Tank Combat and the tank yard over HTTP: each shape is what the
ruleset's own move check accepts (issue 20). Refusal codes may be renamed; these tests hold
the reason's clause and presence."""

from __future__ import annotations

import math
from typing import Any

import pytest

from kit.mtc import game as mtc_game
from serverkit import LiveReferee, Table, new_table
from tankref.core.aids import AidHexes
from tankref.core.errors import RulesError
from tankref.core.hexgrid import Hex, HexGrid, hex_distance
from tankref.rulesets import get_ruleset
from tankref.rulesets.afv.cards import cm_to_inches, inches_to_cm
from tankref.rulesets.mtc.actions import Move
from tankref.rulesets.mtc.engine import adjudicate

GRID = HexGrid(hex_width=2.0, orientation="flat", origin_x=1.0, origin_z=0.0)


def _aids(table: Table, unit_id: str) -> dict[str, Any]:
    reply: dict[str, Any] = table.ok(table.http.get(table.path(f"/tanks/{unit_id}/aids")))
    return reply


def _move_option(table: Table, unit_id: str) -> dict[str, Any]:
    options = table.ok(table.http.get(table.path(f"/tanks/{unit_id}/options")))
    return next(o for o in options if o["kind"] == "move")  # type: ignore[no-any-return]


# --- AFV --------------------------------------------------------------------------------------


def _afv(referee: LiveReferee) -> Table:
    table = new_table(referee.url, ruleset="afv", dice={"source": "table", "seed": "aids-afv"})
    put = table.put_tank
    table.ok(put("R1", card="utility-vehicle", player="Red", x=0, z=0, facing=0))
    table.ok(put("R2", card="standard-afv", player="Red", x=-10, z=0, facing=0))
    table.ok(put("B1", card="standard-afv", player="Blue", x=0, z=20, facing=180))
    woods = {"kind": "woods", "shape": {"shape": "circle", "x": 0, "z": 10, "radius": 2}}
    table.ok(table.http.put(table.path("/terrain/w1"), json=woods))
    table.ok(table.act({"kind": "start_game"}))
    return table


def test_afv_rings_are_the_card_rates_in_inches_by_terrain_AFV_MV1_MV3(
    referee: LiveReferee,
) -> None:
    """AFV-MV1/AFV-MV3: the rate ring is the card's move in cm converted to table inches; a
    card slowed by rough or mud gets a second ring at its slow rate (a path into that ground);
    a drag just inside the rate ring is accepted, just outside refused (AFV-MV1)."""
    table = _afv(referee)
    rings = {r["id"]: r for r in _aids(table, "R1")["move"]}
    assert rings["rate"]["radius"] == pytest.approx(cm_to_inches(80), abs=1e-3)
    assert rings["rate"]["clause"] == "AFV-MV1"
    assert rings["slow"]["radius"] == pytest.approx(cm_to_inches(20), abs=1e-3)
    assert rings["slow"]["clause"] == "AFV-MV3"
    plain = {r["id"] for r in _aids(table, "R2")["move"]}
    assert plain == {"rate"}  # the standard AFV is not slowed by any ground
    option = _move_option(table, "R2")["detail"]
    assert _aids(table, "R2")["move"][0]["radius"] == pytest.approx(option["rate_inches"])
    radius = _aids(table, "R2")["move"][0]["radius"]
    before = table.snapshot()
    too_far = table.put_tank(
        "R2", card="standard-afv", player="Red", x=-10 - radius - 0.05, z=0, facing=270
    )
    assert too_far.status_code == 409 and too_far.json()["clause"] == "AFV-MV1"
    assert table.snapshot() == before
    table.ok(
        table.put_tank(
            "R2", card="standard-afv", player="Red", x=-10 - radius + 0.05, z=0, facing=270
        )
    )
    card_cm = table.read()["state"]["units"]["R2"]["card"]["move_cm"]
    assert math.isclose(inches_to_cm(radius), card_cm, abs_tol=1e-2)


def test_afv_lines_and_the_enemy_phase_AFV_FR1(referee: LiveReferee) -> None:
    """AFV-FR1: woods between the units read blocked; the enemy side, out of its phase, gets
    no rings and the reason with its clause."""
    table = _afv(referee)
    line = next(li for li in _aids(table, "R1")["lines"] if li["target_id"] == "B1")
    assert (line["reading"], line["clause"]) == ("blocked", "AFV-FR1")
    clear = next(li for li in _aids(table, "R2")["lines"] if li["target_id"] == "B1")
    assert clear["reading"] == "clear"
    blue = _aids(table, "B1")
    assert blue["move"] == [] and blue["move_refused"]["clause"]
    missing = table.http.get(table.path("/tanks/nope/aids"))
    assert missing.status_code == 404 and "nope" in missing.json()["message"]


# --- Minimal Tank Combat ------------------------------------------------------------------------


def _at(q: int, r: int) -> dict[str, float]:
    x, z = GRID.center(Hex(q, r))
    return {"x": x, "z": z}


def _mtc(referee: LiveReferee) -> Table:
    table = new_table(
        referee.url,
        ruleset="mtc",
        setup={
            "grid": GRID.model_dump(),
            "terrain": [{"q": 1, "r": 0, "kind": "road"}, {"q": 0, "r": 0, "kind": "road"}],
        },
        dice={"source": "table", "seed": "aids-mtc"},
    )
    table.ok(table.put_tank("R1", card="raider", player="Red", facing=0, **_at(0, 0)))
    table.ok(table.put_tank("B1", card="standard", player="Blue", facing=180, **_at(4, 0)))
    table.ok(table.act({"kind": "start_game"}, dice={"faces": {"d6": [6, 1]}}))
    return table


def test_mtc_reach_is_the_set_of_hexes_a_move_accepts_MTC_MV1(referee: LiveReferee) -> None:
    """MTC-MV1/MTC-MV2: the hexes drawn are exactly the hexes the move option lists, each at
    its centre on the table; a drop on one is accepted, and then the tank has no move left
    (the reason with its clause)."""
    table = _mtc(referee)
    aids = _aids(table, "R1")
    [reach] = aids["move"]
    assert reach["shape"] == "hexes" and reach["clause"] == "MTC-MV1"
    drawn = {(h["q"], h["r"]) for h in reach["hexes"]}
    listed = {tuple(h["hex"]) for h in _move_option(table, "R1")["detail"]["hexes"]}
    assert drawn == listed and len(drawn) > 1
    far = max(reach["hexes"], key=lambda h: (h["cost"], h["q"], h["r"]))
    assert (far["x"], far["z"]) == pytest.approx(GRID.center(Hex(far["q"], far["r"])))
    table.ok(table.put_tank("R1", card="raider", player="Red", facing=0, **_at(far["q"], far["r"])))
    after = _aids(table, "R1")
    assert after["version"] > aids["version"]
    lines = after["lines"]
    assert lines and lines[0]["target_id"] == "B1" and lines[0]["clause"] == "MTC-LOS1"


def test_mtc_out_of_phase_gets_no_hexes_MTC_INI1(referee: LiveReferee) -> None:
    """The side whose phase it is not: no hexes, the reason present with a clause."""
    table = _mtc(referee)
    blue = _aids(table, "B1")
    assert blue["move"] == [] and blue["move_refused"]["message"]
    missing = table.http.get(table.path("/tanks/nope/aids"))
    assert missing.status_code == 404 and "nope" in missing.json()["message"]


# --- the tank yard ------------------------------------------------------------------------------


def test_yard_spaces_are_its_legal_moves_YRD_SP1(referee: LiveReferee) -> None:
    """YRD-SP1: the spaces drawn are the move option's spaces (where each stands); after its
    move the tank has no movement phase left, said with the clause."""
    table = new_table(
        referee.url,
        ruleset="yrd",
        setup={"players": [{"id": "Red"}, {"id": "Blue"}]},
        dice={"source": "table", "seed": "aids-yrd"},
    )
    table.ok(table.put_tank("R", card="yard-tank", player="Red", x=0.5, z=-18.2, facing=0))
    table.ok(table.put_tank("B", card="yard-tank", player="Blue", x=8, z=18, facing=180))
    table.ok(table.act({"kind": "start_game"}))
    [spaces] = _aids(table, "R")["move"]
    assert spaces["shape"] == "spaces" and spaces["clause"] == "YRD-SP1"
    listed = _move_option(table, "R")["detail"]["spaces"]
    assert spaces["spaces"] == listed
    first = spaces["spaces"][0]
    table.ok(
        table.put_tank("R", card="yard-tank", player="Red", x=first["x"], z=first["z"], facing=0)
    )
    after = _aids(table, "R")
    assert after["move"] == [] and after["move_refused"]["clause"] == "YRD-SP1"
    assert _aids(table, "B")["move_refused"]["clause"] == "YRD-SP1"  # not its turn
    missing = table.http.get(table.path("/tanks/nope/aids"))
    assert missing.status_code == 404 and "nope" in missing.json()["message"]


# --- the same reach both ways (engine) ----------------------------------------------------------


def test_mtc_every_drawn_hex_is_a_move_the_engine_accepts_and_no_other_MTC_MV1() -> None:
    """MTC-MV1/MTC-MV2: every hex within three of the tank's reach is tried as a move: those
    drawn are accepted, the rest refused (a town, the enemy's hex, too far), so the aid and
    the adjudication agree hex for hex."""
    g = mtc_game(
        [("R1", "standard", "Red", 0, 0), ("B1", "standard", "Blue", 2, 0)],
        terrain={(1, 0): "road", (0, 0): "road", (-1, 1): "town", (0, -1): "rubble"},
    )
    [reach] = get_ruleset("mtc").aids(g.state, "R1").move
    assert isinstance(reach, AidHexes)
    drawn = {(h.q, h.r) for h in reach.hexes}
    start = g.hex_of("R1")
    budget = g.tank("R1").design.move + 3
    tried = 0
    for q in range(start.q - budget, start.q + budget + 1):
        for r in range(start.r - budget, start.r + budget + 1):
            if hex_distance(start, Hex(q, r)) > budget or (q, r) == tuple(start):
                continue
            tried += 1
            try:
                adjudicate(g.state, Move(tank_id="R1", hex=(q, r)))
            except RulesError:
                assert (q, r) not in drawn, (q, r)
            else:
                assert (q, r) in drawn, (q, r)
    assert tried > len(drawn) > 1
