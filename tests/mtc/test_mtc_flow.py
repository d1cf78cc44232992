"""Minimal Tank Combat on the core kit: the results list tanks in the order the action
touched them, the menu runs the actions' own checks, and a kind the game does not have is
refused whatever the moment."""

from __future__ import annotations

from kit.mtc import game
from tankref.rulesets.mtc.engine import options_for
from tankref.rulesets.mtc.state import Options


def test_changes_follow_the_order_the_fire_touched_the_tanks() -> None:
    """MTC-CB1: a combined fire lists its shooters as given, then the target (not sorted);
    each tooltip's last line is the latest summary line naming that tank."""
    g = game(
        [
            ("R1", "standard", "Red", 0, 0),
            ("R2", "standard", "Red", 0, 1),
            ("B1", "standard", "Blue", 2, 0),
        ]
    )
    g.end_phase()  # Red's movement phase over: Red fires
    result = g.do({"kind": "fire", "tank_ids": ["R2", "R1"], "target_id": "B1"}, [1])
    assert [c.tank_id for c in result.changes] == ["R2", "R1", "B1"]
    assert result.changes[0].changes == {"fired": [False, True]}
    by_id = {c.tank_id: c for c in result.changes}
    assert "Last: R2 and R1 fire at B1 (Blue): N, no effect." in by_id["B1"].tooltip
    assert "Last: ATTACK" in by_id["R1"].tooltip and "Range: R2" in by_id["R1"].tooltip


def test_the_end_phase_menu_entry_is_refused_as_the_action_is() -> None:
    """MTC-INI1: Blue's tank is offered no end of Red's phase, with the very code, clause
    and words the end_phase action by Blue is refused with."""
    g = game([("R1", "standard", "Red", 0, 0), ("B1", "standard", "Blue", 5, 0)])
    offered = {o.kind: o for o in options_for(g.state, "B1")}["end_phase"]
    err = g.refuse({"kind": "end_phase", "player": "Blue"}, "NOT_YOUR_PHASE")
    assert not offered.allowed
    assert (offered.code, offered.clause, offered.reason) == (err.code, err.clause, err.message)
    assert err.details == {"field": "player"}
    assert {o.kind: o for o in options_for(g.state, "R1")}["end_phase"].allowed


def test_no_objective_is_refused_in_setup_in_play_and_once_over() -> None:
    """The rule text has no objective (rules 5.0): NO_OBJECTIVE in every status, never
    GAME_OVER or SETUP_OVER in its place."""
    objective = {"kind": "set_objective", "x": 0, "z": 0}
    g = game(
        [("R1", "standard", "Red", 0, 0), ("B1", "standard", "Blue", 5, 0)],
        options=Options(turn_limit=1),
        start=False,
    )
    g.refuse(objective, "NO_OBJECTIVE")
    g.do({"kind": "start_game"}, [6, 1])
    g.refuse(objective, "NO_OBJECTIVE")
    for _ in range(4):
        g.end_phase()
    assert g.state.status == "over"
    g.refuse(objective, "NO_OBJECTIVE")
    g.refuse({"kind": "end_phase"}, "GAME_OVER")
