"""MTC-INI1: the initiative roll each turn (ties re-rolled) and the four phases."""

from __future__ import annotations

import pytest

from kit.mtc import game
from tankref.core.errors import RulesError
from tankref.rulesets.mtc.state import Options

TANKS = [("R1", "standard", "Red", 0, 0), ("B1", "standard", "Blue", 0, 8)]


def test_the_higher_initiative_roll_is_player_1() -> None:
    """MTC-INI1: both roll a die (Red first, then Blue); the higher becomes player 1."""
    g = game(TANKS, initiative=(2, 5))
    assert g.state.order == ("Blue", "Red")
    assert g.state.active_player == "Blue" and g.state.step == "movement"
    g = game(TANKS, initiative=(4, 3))
    assert g.state.order == ("Red", "Blue")


def test_initiative_ties_are_re_rolled() -> None:
    """MTC-INI1: 3-3 and 6-6 are ties, rolled again until 1-4 decides: Blue is player 1."""
    g = game(TANKS, start=False)
    result = g.do({"kind": "start_game"}, [3, 3, 6, 6, 1, 4])
    assert g.state.order == ("Blue", "Red")
    assert [r.face for r in result.rolls] == [3, 3, 6, 6, 1, 4]
    assert result.outcome["initiative"] == [[3, 3], [6, 6], [1, 4]]
    assert "2 ties re-rolled" in result.summary[-1]
    event = result.events[-1]
    assert event.kind == "initiative" and event.clause == "MTC-INI1"


def test_a_tie_with_table_dice_asks_for_two_more() -> None:
    """MTC-INI1: after a tie the table is asked for the re-roll; nothing is applied."""
    g = game(TANKS, start=False)
    with pytest.raises(RulesError) as caught:
        g.do({"kind": "start_game"}, [5, 5])
    assert caught.value.code == "DICE_NEEDED"
    assert "initiative" in caught.value.details["need"]["purpose"]
    assert g.state.status == "setup"


def test_phases_run_p1_move_p1_combat_p2_move_p2_combat_then_a_new_roll() -> None:
    """MTC-INI1: P1 movement, P1 combat, P2 movement, P2 combat; then the next turn starts
    with its own initiative roll, which may change who is player 1."""
    g = game(TANKS, initiative=(6, 1))
    seen = [(g.state.active_player, g.state.step)]
    for _ in range(3):
        g.end_phase()
        seen.append((g.state.active_player, g.state.step))
    assert seen == [
        ("Red", "movement"),
        ("Red", "combat"),
        ("Blue", "movement"),
        ("Blue", "combat"),
    ]
    result = g.end_phase([2, 6])
    assert g.state.turn == 2 and g.state.order == ("Blue", "Red")
    assert (g.state.active_player, g.state.step) == ("Blue", "movement")
    assert result.outcome["player_1"] == "Blue"


def test_actions_out_of_phase_are_refused() -> None:
    """MTC-INI1: no moving in the combat phase, no firing in the movement phase, nothing in
    the other player's phases."""
    g = game([("R1", "standard", "Red", 0, 0), ("B1", "standard", "Blue", 2, 0)])
    err = g.refuse({"kind": "fire", "tank_ids": ["R1"], "target_id": "B1"}, "WRONG_STEP")
    assert err.clause == "MTC-INI1"
    g.refuse({"kind": "move", "tank_id": "B1", "hex": [3, 0]}, "NOT_YOUR_PHASE")
    g.to_combat()
    g.refuse({"kind": "move", "tank_id": "R1", "hex": [0, 1]}, "WRONG_STEP")
    g.refuse({"kind": "end_phase", "player": "Blue"}, "NOT_YOUR_PHASE")


def test_the_turn_limit_ends_the_game_in_a_draw() -> None:
    g = game(TANKS, options=Options(turn_limit=1))
    for _ in range(3):
        g.end_phase()
    result = g.end_phase()
    assert g.state.status == "over" and g.state.winner is None
    assert result.events[-1].kind == "game_over"
    g.refuse({"kind": "end_phase"}, "GAME_OVER")


def test_a_game_needs_a_tank_on_each_side() -> None:
    g = game([("R1", "standard", "Red", 0, 0)], start=False)
    g.refuse({"kind": "start_game"}, "NO_TANKS", [6, 1])
