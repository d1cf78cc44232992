"""Move, Move Fast, facing changes, Wait and the phase cycle, through the real engine
(TTT-M1, TTT-M2, TTT-F1, TTT-W1, TTT-T1).

``duel()``: Red "R1" (tiger-i, Movement 5, Acc 4) at (0, -20) facing north, Blue "B1"
(m4a1-sherman, Movement 6, Acc 3) at (0, 20) facing south; Red's phase of turn 1.
"""

from __future__ import annotations

from kit.ttt import Game, duel
from tankref.core.options import Option
from tankref.rulesets.ttt.actions import EndPhase, Engage, Move, Smoke, Wait
from tankref.rulesets.ttt.engine import options_for
from tankref.rulesets.ttt.presentation import markers

MISS_R1 = [1, 1, 1, 1]  # tiger-i, 4 white dice, all blank
MISS_B1 = [1, 1, 1]  # m4a1-sherman, 3 white dice, all blank


def move(tank_id: str, x: float, z: float, facing: float) -> Move:
    return Move(tank_id=tank_id, x=x, z=z, facing=facing)


def end_phase(g: Game, times: int = 1) -> None:
    for _ in range(times):
        g.do(EndPhase())


def accuracy_mods(g: Game) -> list[tuple[str, int]]:
    assert g.last is not None
    return [(m.clause, m.amount) for m in g.last.modifiers if m.applies_to == "accuracy_dice"]


# --- TTT-M1: classifying a move ---------------------------------------------------------------


def test_ttt_m1_drift_within_tolerance_is_stopped() -> None:
    """TTT-M1: a report within the drift tolerance of the phase start is Stopped, no penalty."""
    g = duel()
    g.do(move("R1", 0.1, -19.85, 0))
    assert g.tank("R1").moved == "none"
    g.do(Engage(tank_id="R1", target_id="B1"), white=MISS_R1)
    assert ("TTT-M1", -2) not in accuracy_mods(g)
    assert g.last is not None and g.last.outcome["accuracy_dice"] == 4


def test_ttt_m1_up_to_movement_is_a_normal_move() -> None:
    """TTT-M1: a move up to the card's Movement (5") is a Normal Move."""
    g = duel()
    r = g.do(move("R1", 3, -16, 0))  # 5" exactly
    assert r.outcome["move"] == "normal"
    assert r.outcome["travelled"] == 5.0
    assert g.tank("R1").moved == "normal"
    assert (g.tank("R1").x, g.tank("R1").z) == (3, -16)


def test_ttt_m1_normal_move_costs_two_accuracy_dice() -> None:
    """TTT-M1: a tank that moved suffers -2 Accuracy dice when it Engages that turn."""
    g = duel()
    g.do(move("R1", 0, -17, 0))
    g.do(Engage(tank_id="R1", target_id="B1"), white=[1, 1])
    assert ("TTT-M1", -2) in accuracy_mods(g)
    assert g.last is not None and g.last.outcome["accuracy_dice"] == 2


def test_ttt_m1_several_drags_count_as_the_net_straight_line() -> None:
    """TTT-M1: two drags of 3" and 4" at right angles are one 5" move (net), not 7" (fast)."""
    g = duel()
    g.do(move("R1", 3, -20, 0))
    r = g.do(move("R1", 3, -16, 0))
    assert r.outcome["travelled"] == 5.0
    assert r.outcome["move"] == "normal"
    assert g.tank("R1").moved == "normal"


def test_ttt_m1_dragging_back_to_the_start_is_stopped() -> None:
    """TTT-M1: a tank dragged away and back to where it began its phase counts as Stopped."""
    g = duel()
    g.do(move("R1", 0, -16, 0))
    r = g.do(move("R1", 0, -20, 0))
    assert r.outcome["move"] == "none"
    assert g.tank("R1").moved == "none"


def test_ttt_m1_normal_move_may_end_facing_anywhere() -> None:
    """TTT-M1: a Normal Move may end in any facing; it is not the once-a-turn facing change."""
    g = duel()
    r = g.do(move("R1", 0, -16, 135))
    assert r.outcome["move"] == "normal"
    assert r.outcome["facing_change"] is False
    assert g.tank("R1").facing == 135
    assert g.tank("R1").facing_changed is False


def test_ttt_m1_no_move_after_engage() -> None:
    """TTT-M1: a tank moves before it Engages: a move after the Engage is MOVE_AFTER_ENGAGE."""
    g = duel()
    g.do(Engage(tank_id="R1", target_id="B1"), white=MISS_R1)
    err = g.refused(move("R1", 0, -17, 0), "MOVE_AFTER_ENGAGE")
    assert err.clause == "TTT-M1"


def test_ttt_m1_no_pivot_after_engage() -> None:
    """TTT-M1: turning on the spot after the Engage is refused too (MOVE_AFTER_ENGAGE)."""
    g = duel()
    g.do(Engage(tank_id="R1", target_id="B1"), white=MISS_R1)
    g.refused(move("R1", 0, -20, 90), "MOVE_AFTER_ENGAGE")


# --- TTT-M2: Move Fast ------------------------------------------------------------------------


def test_ttt_m2_up_to_twice_movement_is_moving_fast() -> None:
    """TTT-M2: more than Movement, up to twice it, is Moving Fast, with its event and marker."""
    g = duel()
    r = g.do(move("R1", 0, -10, 0))  # 10" = 2 x 5"
    assert r.outcome["move"] == "fast"
    assert g.tank("R1").moved == "fast"
    assert any(e.kind == "moving_fast" and e.clause == "TTT-M2" for e in r.events)
    change = next(c for c in r.changes if c.tank_id == "R1")
    assert "Moving Fast" in change.markers


def test_ttt_m2_moving_fast_marker_stays_until_the_tanks_next_phase() -> None:
    """TTT-M2: the Moving Fast marker shows through the enemy's phase, gone at its next phase."""
    g = duel()
    g.do(move("R1", 0, -13, 0))
    g.do(EndPhase())
    assert "Moving Fast" in markers(g.tank("R1"))  # Blue's phase
    r = g.do(EndPhase())  # Red's phase of turn 2 begins
    assert g.state.turn == 2
    assert "Moving Fast" not in markers(g.tank("R1"))
    change = next(c for c in r.changes if c.tank_id == "R1")
    assert "Moving Fast" not in change.markers


def test_ttt_m2_more_than_twice_movement_is_refused_with_the_distances() -> None:
    """TTT-M2 ruling: beyond twice Movement is MOVE_TOO_FAR, distances given, state unchanged."""
    g = duel()
    err = g.refused(move("R1", 0, -9, 0), "MOVE_TOO_FAR")  # 11" > 10"
    assert err.clause == "TTT-M2"
    assert err.details == {"travelled": 11.0, "normal": 5, "fast": 10}


def test_ttt_m2_too_far_counts_the_net_distance_over_several_drags() -> None:
    """TTT-M2: a second drag that takes the net distance past twice Movement is refused."""
    g = duel()
    g.do(move("R1", 0, -12, 0))  # 8": fast
    err = g.refused(move("R1", 0, -8, 0), "MOVE_TOO_FAR")  # 12" from the start
    assert err.details["travelled"] == 12.0
    assert g.tank("R1").z == -12


def test_ttt_m2_fast_tank_cannot_wait() -> None:
    """TTT-M2/TTT-W1: a tank Moving Fast cannot go into Wait (WAIT_AFTER_FAST)."""
    g = duel()
    g.do(move("R1", 0, -12, 0))
    g.refused(Wait(tank_id="R1"), "WAIT_AFTER_FAST")


def test_ttt_m2_fast_tank_cannot_engage() -> None:
    """TTT-M2: a tank Moving Fast cannot Engage unless its card says so (ENGAGE_WHILE_FAST)."""
    g = duel()
    g.do(move("R1", 0, -12, 0))
    g.refused(Engage(tank_id="R1", target_id="B1"), "ENGAGE_WHILE_FAST", white=MISS_R1)


def test_ttt_m2_facing_cannot_change_after_a_fast_move() -> None:
    """TTT-M2: after a Fast move, turning on the spot where it stopped is FACING_AFTER_FAST."""
    g = duel()
    g.do(move("R1", 0, -13, 0))
    err = g.refused(move("R1", 0, -13, 90), "FACING_AFTER_FAST")
    assert err.clause == "TTT-M2"


def test_ttt_m2_fast_tank_gets_no_best_armour_turn() -> None:
    """TTT-M2/TTT-F1: a tank Moving Fast keeps its facing even when shot in the enemy's phase."""
    g = duel(red_at=(0, -20, 90))
    g.do(move("R1", 0, -12, 90))
    g.do(EndPhase())
    g.do(Engage(tank_id="B1", target_id="R1"), white=MISS_B1)
    assert g.tank("R1").facing == 90
    assert g.last is not None and g.last.outcome["hit_side"] == "side"


# --- TTT-F1: facing change --------------------------------------------------------------------


def test_ttt_f1_turning_on_the_spot_uses_the_facing_change() -> None:
    """TTT-F1: turning on the spot is the once-a-turn facing change, not a move."""
    g = duel()
    r = g.do(move("R1", 0, -20, 90))
    assert r.outcome["move"] == "none"
    assert r.outcome["facing_change"] is True
    assert g.tank("R1").facing_changed is True
    assert g.tank("R1").moved == "none"


def test_ttt_f1_turning_in_steps_is_one_facing_change() -> None:
    """TTT-F1 ruling: TTS reports a rotation in steps; several turns on the spot in one phase
    are one facing change, measured from the facing the tank began its phase with."""
    g = duel()
    g.do(move("R1", 0, -20, 15))
    g.do(move("R1", 0, -20, 30))
    result = g.do(move("R1", 0, -20, 45))
    assert result.outcome["facing_change"] is True
    assert g.tank("R1").facing == 45 and g.tank("R1").facing_changed is True
    back = g.do(move("R1", 0, -20, 0))
    assert back.outcome["facing_change"] is False
    assert g.tank("R1").facing_changed is False


def test_ttt_f1_no_pivot_after_engaging() -> None:
    """TTT-F1/TTT-M1: once the tank has engaged, no further turn on the spot this turn."""
    g = duel()
    g.do(move("R1", 0, -20, 10))
    g.do(Engage(tank_id="R1", target_id="B1"), white=[1, 1, 1, 1])
    err = g.refused(move("R1", 0, -20, 40), "MOVE_AFTER_ENGAGE")
    assert err.clause == "TTT-M1"


def test_ttt_f1_pivot_after_the_best_armour_turn_is_refused() -> None:
    """TTT-F1: a facing change spent on the best-armour turn leaves no pivot that turn."""
    # B1 waits in its phase and fires from Wait in Red's phase of turn 2: R1 turns its front.
    g = duel(red_at=(0, -20, 90))
    g.do(EndPhase())
    g.do(Wait(tank_id="B1"))
    g.do(EndPhase())
    g.do(Engage(tank_id="B1", target_id="R1"), white=MISS_B1)
    assert g.tank("R1").best_armour_turned is True
    assert g.tank("R1").facing == 0
    g.refused(move("R1", 0, -20, 90), "FACING_ALREADY_CHANGED")


def test_ttt_f1_manual_rotation_in_the_enemy_phase_is_refused() -> None:
    """TTT-F1: in the enemy's phase a player may not turn a tank (FACING_NOT_ALLOWED)."""
    g = duel()
    g.do(EndPhase())
    err = g.refused(move("R1", 0, -20, 90), "FACING_NOT_ALLOWED")
    assert err.clause == "TTT-F1"


def test_ttt_f1_best_armour_turn_is_the_enemy_phase_facing_change() -> None:
    """TTT-F1/TTT-E3: the referee's best-armour turn is the facing change in the enemy's phase;
    a manual turn after it is still refused."""
    g = duel(red_at=(0, -20, 90))  # R1 shows its side (5) to B1; its front is 6
    g.do(EndPhase())
    r = g.do(Engage(tank_id="B1", target_id="R1"), white=MISS_B1)
    assert any(e.kind == "turn_model" and e.data["tank_id"] == "R1" for e in r.events)
    assert g.tank("R1").facing == 0
    assert g.tank("R1").facing_changed is True
    assert r.outcome["hit_side"] == "front"
    g.refused(move("R1", 0, -20, 45), "FACING_NOT_ALLOWED")


def test_ttt_f1_pivot_in_own_phase_spends_the_best_armour_turn() -> None:
    """TTT-F1: a tank that turned on the spot in its phase cannot turn its best armour later."""
    g = duel()
    g.do(move("R1", 0, -20, 90))  # R1 now shows its side to B1
    g.do(EndPhase())
    r = g.do(Engage(tank_id="B1", target_id="R1"), white=MISS_B1)
    assert g.tank("R1").facing == 90
    assert r.outcome["hit_side"] == "side"
    assert any(n.clause == "TTT-E3" and "already changed facing" in n.text for n in r.rulings)


def test_ttt_f1_facing_change_is_back_at_the_owners_next_phase() -> None:
    """TTT-F1: the facing change is per turn: after a pivot, the next turn may pivot again."""
    g = duel()
    g.do(move("R1", 0, -20, 90))
    end_phase(g, 2)
    assert g.tank("R1").facing_changed is False
    r = g.do(move("R1", 0, -20, 180))
    assert r.outcome["facing_change"] is True


# --- TTT-W1: Wait -----------------------------------------------------------------------------


def test_ttt_w1_wait_after_a_normal_move() -> None:
    """TTT-W1: a tank that made a Normal Move and did not Engage may Wait; then it is Stopped."""
    g = duel()
    g.do(move("R1", 0, -16, 0))
    r = g.do(Wait(tank_id="R1"))
    assert g.tank("R1").waiting is True
    assert any(e.kind == "wait" and e.clause == "TTT-W1" for e in r.events)
    g.refused(move("R1", 0, -15.5, 0), "MOVE_WHILE_WAITING")


def test_ttt_w1_no_wait_after_engage() -> None:
    """TTT-W1: a tank that Engaged this turn cannot Wait (WAIT_AFTER_ENGAGE)."""
    g = duel()
    g.do(Engage(tank_id="R1", target_id="B1"), white=MISS_R1)
    g.refused(Wait(tank_id="R1"), "WAIT_AFTER_ENGAGE")


def test_ttt_w1_waiting_tank_engages_in_the_enemy_phase_with_its_move_penalty() -> None:
    """TTT-W1: from Wait a tank Engages in the enemy's phase; its own move's -2 still applies."""
    g = duel()
    g.do(move("R1", 0, -16, 0))
    g.do(Wait(tank_id="R1"))
    g.do(EndPhase())
    assert g.state.active_player == "Blue"
    g.do(Engage(tank_id="R1", target_id="B1"), white=[1, 1])
    assert ("TTT-M1", -2) in accuracy_mods(g)
    assert g.last is not None and g.last.outcome["accuracy_dice"] == 2
    assert g.tank("R1").engaged is True
    assert g.tank("R1").waiting is False


def test_ttt_w1_non_waiting_tank_cannot_engage_in_the_enemy_phase() -> None:
    """TTT-W1: a tank not in Wait may not Engage in the enemy's phase (NOT_YOUR_PHASE)."""
    g = duel()
    g.do(EndPhase())
    err = g.refused(Engage(tank_id="R1", target_id="B1"), "NOT_YOUR_PHASE", white=MISS_R1)
    assert err.clause == "TTT-W1"


def test_ttt_w1_wait_resets_at_its_owners_next_phase() -> None:
    """TTT-W1: the Wait lasts through the enemy's phase and resets at its owner's next phase."""
    g = duel()
    g.do(Wait(tank_id="R1"))
    g.do(EndPhase())
    assert g.tank("R1").waiting is True
    g.do(EndPhase())
    assert g.tank("R1").waiting is False
    assert "Wait" not in markers(g.tank("R1"))


# --- TTT-T1: phases and turns -----------------------------------------------------------------


def test_ttt_t1_phases_alternate_and_the_turn_counts_after_player_two() -> None:
    """TTT-T1: player one's phase, then player two's; the turn advances after the second."""
    g = duel()
    seen = [(g.state.turn, g.state.active_player)]
    for _ in range(4):
        g.do(EndPhase())
        seen.append((g.state.turn, g.state.active_player))
    assert seen == [(1, "Red"), (1, "Blue"), (2, "Red"), (2, "Blue"), (3, "Red")]
    assert g.last is not None
    started = [e for e in g.last.events if e.kind == "phase_started"]
    assert started and started[-1].data == {"turn": 3, "player": "Red"}


def test_ttt_t1_acting_out_of_phase_is_refused() -> None:
    """TTT-T1: in Red's phase Blue's tank cannot move, Wait or pop smoke (NOT_YOUR_PHASE)."""
    g = duel()
    err = g.refused(move("B1", 0, 16, 180), "NOT_YOUR_PHASE")
    assert err.clause == "TTT-T1"
    g.refused(Wait(tank_id="B1"), "NOT_YOUR_PHASE")
    g.refused(Smoke(tank_id="B1", ability="2-inch smoke mortar", x=0, z=15), "NOT_YOUR_PHASE")


def test_ttt_t1_end_phase_by_the_wrong_player_is_refused() -> None:
    """TTT-T1: only the active player may end the phase."""
    g = duel()
    err = g.refused(EndPhase(player="Blue"), "NOT_YOUR_PHASE")
    assert err.clause == "TTT-T1"
    g.do(EndPhase(player="Red"))
    assert g.state.active_player == "Blue"


def test_ttt_t1_turn_flags_last_through_the_enemy_phase_and_reset_at_the_owners() -> None:
    """TTT-T1: a tank's per-turn flags reset at the start of its owner's phase, not before."""
    g = duel()
    g.do(move("R1", 0, -16, 0))
    g.do(Engage(tank_id="R1", target_id="B1"), white=[1, 1])
    g.do(EndPhase())
    r1 = g.tank("R1")
    assert (r1.moved, r1.engaged) == ("normal", True)  # Blue's phase: still this turn
    g.do(EndPhase())
    r1 = g.tank("R1")
    assert (r1.moved, r1.engaged, r1.facing_changed) == ("none", False, False)
    assert (r1.start_x, r1.start_z) == (0, -16)  # the next move is measured from here
    r = g.do(move("R1", 0, -11, 0))
    assert r.outcome["move"] == "normal"


def _move_option(g: Game, tank_id: str = "R1") -> Option:
    (option,) = [o for o in options_for(g.state, tank_id) if o.kind == "move"]
    return option


def test_ttt_m1_m2_f1_options_say_how_far_and_whether_it_may_turn() -> None:
    """TTT-M1/TTT-M2/TTT-F1: what may this tank do now: Normal and Fast distances and the
    turn on the spot, each withdrawn as the tank spends them; nothing changes in the state."""
    g = duel()
    before = g.state.model_dump_json()
    detail = _move_option(g).detail
    assert detail == {
        "from": [0.0, -20.0],
        "normal": 5.0,
        "fast": 10.0,
        "pivot": True,
        "entry_edges": None,
    }
    assert g.state.model_dump_json() == before
    g.do(move("R1", 0, -12, 0))  # 8": Moving Fast
    detail = _move_option(g).detail
    assert detail is not None and detail["pivot"] is False and detail["normal"] == 5.0
    g.do(move("R1", 0, -20, 0))  # back where it began: stopped again
    g.do(Engage(tank_id="R1", target_id="B1"), white=[1, 1, 1, 1])
    option = _move_option(g)
    assert not option.allowed and option.code == "MOVE_AFTER_ENGAGE"
    assert option.clause == "TTT-M1"


def test_ttt_w1_a_waiting_tank_has_stopped_and_does_not_turn() -> None:
    """TTT-W1: Wait comes at the end of the move, after the facing change: once in Wait the
    tank neither drives nor turns on the spot."""
    g = duel()
    g.do(Wait(tank_id="R1"))
    err = g.refused(move("R1", 0, -20, 45), "MOVE_WHILE_WAITING")
    assert err.clause == "TTT-W1"
    option = _move_option(g)
    assert not option.allowed and option.code == "MOVE_WHILE_WAITING"
