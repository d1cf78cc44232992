"""The walk through one shot in docs/engine.md is true: the same table, faces and result."""

from __future__ import annotations

from kit.ttt import Game
from tankref.rulesets.ttt.actions import Engage, Move


def test_readme_shot_walkthrough_ttt_e1_to_e7() -> None:
    """TTT-E1..E7, TTT-CV1, TTT-CR1, TTT-MO2 together, exactly as docs/engine.md tells it."""
    g = Game()
    g.place("R1", "tiger-i", "Red", -10, -19, 0)
    g.place("B1", "m4a1-sherman", "Blue", 0, 18, 127.35)
    g.terrain("hedge", "cover1", {"shape": "circle", "x": -1, "z": 15, "radius": 1.5})
    g.crew("R1", grizzled=True)
    g.crew("B1")
    g.start()
    g.do(Move(tank_id="R1", x=-10, z=-14, facing=0))
    result = g.do(
        Engage(tank_id="R1", target_id="B1"),
        white=[5, 2],
        red=[6, 1, 3, 4, 2, 5, 3],
        green=[4],
        card="Immobilized",
    )
    out = result.outcome
    assert out["range"] == 33.53
    assert [e.kind for e in result.events if e.kind == "turn_model"] == ["turn_model"]
    assert out["hit_side"] == "front" and out["armour"] == 5 and out["cover"] == 1
    assert out["accuracy_dice"] == 2 and out["hit"] is True
    assert out["needed"] == 6 and out["pens"] == 6 and out["penetrated"] is True
    assert out["damage_card"] == "Immobilized"
    assert [(m.clause, m.amount) for m in result.modifiers] == [("TTT-M1", -2), ("TTT-CV1", 1)]
    clauses = {r.clause for r in result.rulings}
    assert {"TTT-E2", "TTT-E3", "TTT-E6", "TTT-CR1"} <= clauses
    rerolls = [r for r in result.rolls if r.reroll_of is not None]
    assert [(r.die, r.face) for r in rerolls] == [("red", 5), ("red", 3)]
    b1 = g.tank("B1")
    assert b1.morale == "shaken" and b1.immobilized and b1.must_recover
    change = next(c for c in result.changes if c.tank_id == "B1")
    assert "Shaken" in change.markers and "Immobilized" in change.markers
    assert g.tank("R1").reroll_used
