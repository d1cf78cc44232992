"""What happens when a tank is changed during its own phase (issue 14, TinyTableTopTanks).

An audit found the referee treating a Wait shot that Shakes, Routs or Immobilizes a tank in
its own phase as if it had happened before that phase began. Each test here was written to
fail on the code before the fix, and is named after the clause it proves; every die is forced
with supplied faces.

The duel (``kit.ttt.duel``): Red "R1" (Tiger I: Move 5", 4 white, 5 red, armour 6/5/5/7) at
(0, -20) facing north; Blue "B1" (M4A1 Sherman: Move 6", 3 white, 3 red, armour 5/3/3/5) at
(0, 20) facing south. Red takes the first phase of each turn.
"""

from __future__ import annotations

from typing import Any

import pytest

from kit.ttt import Game, duel
from tankref.core.errors import DiceNeeded
from tankref.core.results import Result
from tankref.rulesets.ttt.actions import CrewRoll, EndPhase, Engage, Move, Recover, Smoke, Wait
from tankref.rulesets.ttt.engine import options_for
from tankref.rulesets.ttt.state import Options

TIGER_HIT = [5, 1, 1, 1]
TIGER_PEN = [5, 5, 5, 1, 1]  # 6 PEN: through a Sherman's front (5)
SHERMAN_HIT = [5, 1, 1]
SHERMAN_PEN = [5, 5, 5]  # 6 PEN: through a Tiger's front (6)
R2_TIGER = ("R2", "tiger-i", "Red", 10.0, -20.0, 0.0)


def end(g: Game, **dice: Any) -> Result:
    return g.do(EndPhase(), **dice)


def blue_waits_for_red() -> Game:
    """Turn 1 passes; B1 goes into Wait in Blue's phase; returns at Red's phase of turn 2."""
    g = duel()
    end(g)
    g.do(Wait(tank_id="B1"))
    end(g)
    assert (g.state.turn, g.state.active_player, g.tank("B1").waiting) == (2, "Red", True)
    return g


def wait_shot_on_r1(g: Game, *, card: str, green: int) -> Result:
    """B1 fires from Wait at R1 in Red's phase: hit, penetrated, ``card``, morale ``green``."""
    return g.do(
        Engage(tank_id="B1", target_id="R1"),
        white=SHERMAN_HIT,
        red=SHERMAN_PEN,
        card=card,
        green=[green],
    )


def allowed(g: Game, tank_id: str) -> set[str]:
    return {o.kind for o in options_for(g.state, tank_id, odds=False) if o.allowed}


def kinds(result: Result) -> list[str]:
    return [e.kind for e in result.events]


def no_dice_needed(g: Game, action: Any) -> Result:
    """The action adjudicates with no die at all (a roll would raise DICE_NEEDED)."""
    return g.do(action)


# --- 1. TTT-MR4: "only allowed to make a Recover attempt on their next turn" -------------------


def shaken_and_immobilized_by_a_wait_shot() -> Game:
    g = blue_waits_for_red()
    g.do(Move(tank_id="R1", x=0, z=-17, facing=0))
    wait_shot_on_r1(g, card="Immobilized", green=4)
    r1 = g.tank("R1")
    assert (r1.morale, r1.immobilized, r1.must_recover) == ("shaken", True, True)
    return g


def test_mr4_no_recover_roll_at_the_end_of_the_same_phase_TTT_MR4() -> None:
    """TTT-MR4: Shaken and Immobilized by a Wait shot in its own phase, R1 is not rolled for at
    the end of that phase (no green die is asked for); it must Recover in its next turn."""
    g = shaken_and_immobilized_by_a_wait_shot()
    r = no_dice_needed(g, EndPhase())
    assert not r.rolls and g.tank("R1").on_board and g.tank("R1").must_recover
    assert any(n.clause == "TTT-MR4" and "next turn" in n.text for n in r.rulings)
    end(g)  # Blue's phase
    # Red's phase of turn 3: now it is bound, and the referee rolls if the player does not.
    assert allowed(g, "R1") == {"recover"}
    r = end(g, green=[5])
    assert r.outcome["recovers"][0]["recovered"] is False
    assert g.tank("R1").destroyed_by == "crew bailed out"


def test_mr4_the_player_may_not_recover_in_the_same_phase_TTT_MR4() -> None:
    """TTT-MR4/TTT-R1: the player's own Recover in that phase is refused (too soon), and the
    rest of this turn the tank is only Shaken and Immobilized (it may still Engage)."""
    g = shaken_and_immobilized_by_a_wait_shot()
    err = g.refused(Recover(tank_id="R1"), "RECOVER_TOO_SOON", green=[1])
    assert err.clause == "TTT-R1"
    assert "engage" in allowed(g, "R1")
    # Moved (-2) and Shaken (-1): 4 - 3 = 1 white die.
    r = g.do(Engage(tank_id="R1", target_id="B1"), white=[1])
    assert r.outcome["accuracy_dice"] == 1


# --- 2. TTT-MR2: a Routed tank drives once per turn -------------------------------------------


def test_mr2_routed_after_a_fast_move_does_not_drive_again_that_phase_TTT_MR2() -> None:
    """TTT-MR2: R1 Moves Fast (9"), then B1's Wait shot Routs it: it is not driven another 5"
    at the end of that phase, but at the end of its next one."""
    g = blue_waits_for_red()
    g.do(Move(tank_id="R1", x=0, z=-11, facing=0))
    assert g.tank("R1").moved == "fast"
    r = wait_shot_on_r1(g, card="Glancing Blow", green=6)
    (routed,) = [e for e in r.events if e.kind == "routed"]
    assert routed.data["drives_this_phase"] is False and "next phase" in routed.text
    r = end(g)
    assert "rout_move" not in kinds(r)
    assert (g.tank("R1").x, g.tank("R1").z) == (0, -11)
    assert any(n.clause == "TTT-MR2" and "once a turn" in n.text for n in r.rulings)
    end(g)  # Blue's phase
    r = end(g)  # Red's phase of turn 3: now it drives its 5" toward the south edge
    assert "rout_move" in kinds(r)
    assert (g.tank("R1").x, g.tank("R1").z) == (0, -16)


def test_mr2_routed_in_its_phase_before_moving_drives_at_its_end_TTT_MR2() -> None:
    """TTT-MR2: Routed by a Wait shot before it moved (it only engaged), it drives that phase."""
    g = blue_waits_for_red()
    g.do(Engage(tank_id="R1", target_id="B1"), white=[1, 1, 1, 1])
    wait_shot_on_r1(g, card="Glancing Blow", green=6)
    r = end(g)
    assert "rout_move" in kinds(r)
    assert g.tank("R1").z == -24 or g.tank("R1").removed


# --- 3. TTT-R1 / TTT-MR6: Recover only if no action but a Normal Move ---------------------------


def r1_shaken_in_blue_phase() -> Game:
    """B1 Shakes R1 in Blue's phase of turn 1; returns at Red's phase of turn 2."""
    g = duel()
    end(g)
    g.do(
        Engage(tank_id="B1", target_id="R1"),
        white=SHERMAN_HIT,
        red=SHERMAN_PEN,
        card="Glancing Blow",
        green=[4],
    )
    end(g)
    assert g.tank("R1").morale == "shaken"
    return g


def test_one_shot_smoke_then_recover_is_refused_TTT_R1_TTT_MR6() -> None:
    """TTT-R1/TTT-MR6: the Tiger's one-shot smoke is an action: Recover after it is refused."""
    g = r1_shaken_in_blue_phase()
    g.do(Smoke(tank_id="R1", ability="NbK 39 dischargers"))
    err = g.refused(Recover(tank_id="R1"), "RECOVER_AFTER_ACTION", green=[1])
    assert err.clause == "TTT-MR6"
    assert "recover" not in allowed(g, "R1")


def test_recover_then_smoke_is_refused_TTT_R1_TTT_MR6() -> None:
    """TTT-R1/TTT-MR6: after a Recover (here a failed one), Smoke is refused, "before or after"."""
    g = r1_shaken_in_blue_phase()
    g.do(Recover(tank_id="R1"), green=[5])
    err = g.refused(Smoke(tank_id="R1", ability="NbK 39 dischargers"), "ACTION_AFTER_RECOVER")
    assert err.clause == "TTT-R1"


def test_normal_move_then_recover_is_allowed_TTT_R1() -> None:
    """TTT-R1: a Normal Move is the one action a Recover allows."""
    g = r1_shaken_in_blue_phase()
    g.do(Move(tank_id="R1", x=0, z=-16, facing=0))
    r = g.do(Recover(tank_id="R1"), green=[2])
    assert r.outcome["recovered"] is True and g.tank("R1").morale == "ok"


# --- 4. TTT-MR1: a Shaken crew cannot Wait ------------------------------------------------------


def test_shaken_while_in_wait_loses_the_wait_TTT_MR1() -> None:
    """TTT-MR1: B1 in Wait is Shaken by R1's shot in Red's phase: it loses its Wait at once and
    may not fire back from it."""
    g = blue_waits_for_red()
    r = g.do(
        Engage(tank_id="R1", target_id="B1"),
        white=TIGER_HIT,
        red=TIGER_PEN,
        card="Glancing Blow",
        green=[4],
    )
    assert not g.tank("B1").waiting
    (lost,) = [e for e in r.events if e.kind == "wait_lost"]
    assert lost.clause == "TTT-MR1"
    assert "Wait" not in r.changes[[c.tank_id for c in r.changes].index("B1")].markers
    err = g.refused(Engage(tank_id="B1", target_id="R1"), "NOT_YOUR_PHASE")
    assert err.clause == "TTT-W1"


# --- 5. Crew Stunned: "no action in its next phase", the referee's own actions included -------


def stunned_in_red_phase(green_first: int) -> Game:
    """R1 penetrates B1 (Immobilized, morale ``green_first``), R2 penetrates it again (Crew
    Stunned, morale 1: one check for both triggers); returns at Blue's phase of turn 1."""
    g = duel(extra=[R2_TIGER])
    g.do(
        Engage(tank_id="R1", target_id="B1"),
        white=TIGER_HIT,
        red=TIGER_PEN,
        card="Immobilized" if green_first != 6 else "Glancing Blow",
        green=[green_first],
    )
    g.do(
        Engage(tank_id="R2", target_id="B1"),
        white=TIGER_HIT,
        red=TIGER_PEN,
        card="Crew Stunned",
        green=[1],
    )
    end(g)
    assert g.tank("B1").stunned == "now"
    return g


def test_stunned_crew_gets_no_referee_recover_roll_TTT_E7_TTT_MR4() -> None:
    """TTT-E7 Crew Stunned with TTT-MR4: the player's Recover is refused as stunned, and the
    referee rolls none either at the end of the phase; the roll comes the phase after."""
    g = stunned_in_red_phase(green_first=4)
    assert g.tank("B1").must_recover
    g.refused(Recover(tank_id="B1"), "CREW_STUNNED", green=[1])
    r = no_dice_needed(g, EndPhase())
    assert g.tank("B1").on_board and g.tank("B1").must_recover
    assert any(n.clause == "TTT-E7" and "stunned" in n.text for n in r.rulings)
    end(g)  # Red's phase of turn 2
    r = end(g, green=[2])  # Blue's phase of turn 2: the referee rolls the Recover now
    assert r.outcome["recovers"] == [
        {
            "tank_id": "B1",
            "crew": "scared",
            "face": 2,
            "morale_before": "shaken",
            "recovered": True,
            "morale_after": "ok",
        }
    ]


def test_stunned_routed_tank_does_not_drive_TTT_E7_TTT_MR2() -> None:
    """TTT-E7 Crew Stunned with TTT-MR2: a stunned Routed tank does not drive in the phase it
    is stunned; it drives at the end of the next one."""
    g = stunned_in_red_phase(green_first=6)
    assert g.tank("B1").morale == "routed"
    r = end(g)
    assert "rout_move" not in kinds(r) and g.tank("B1").z == 20
    end(g)
    r = end(g)
    assert "rout_move" in kinds(r)


# --- 7. TTT-R1: Recover is for "morale complications in prior rounds" --------------------------


def test_recover_refused_in_the_phase_the_crew_was_shaken_TTT_R1() -> None:
    """TTT-R1: B1 Shaken by R1's Wait shot in Blue's own phase may not Recover in that phase;
    in its next phase it may."""
    g = duel()
    g.do(Wait(tank_id="R1"))
    end(g)
    g.do(
        Engage(tank_id="R1", target_id="B1"),
        white=TIGER_HIT,
        red=TIGER_PEN,
        card="Glancing Blow",
        green=[5],
    )
    err = g.refused(Recover(tank_id="B1"), "RECOVER_TOO_SOON", green=[1])
    assert err.clause == "TTT-R1" and "prior rounds" in err.message
    end(g)
    end(g)
    assert "recover" in allowed(g, "B1")


def test_recover_allowed_after_a_complication_in_the_enemy_phase_TTT_R1() -> None:
    """TTT-R1: Shaken in the enemy's phase is a prior round for the tank's own phase after it."""
    g = r1_shaken_in_blue_phase()
    r = g.do(Recover(tank_id="R1"), green=[3])
    assert r.outcome["recovered"] is True


# --- messages that pointed at the wrong rule -------------------------------------------------


def test_second_engage_after_a_wait_shot_is_already_engaged_TTT_E1() -> None:
    """TTT-E1: B1 fired from Wait; a second Engage in that phase is refused ALREADY_ENGAGED
    under TTT-E1 (not NOT_YOUR_PHASE under TTT-W1)."""
    g = blue_waits_for_red()
    g.do(Engage(tank_id="B1", target_id="R1"), white=[1, 1, 1])
    err = g.refused(Engage(tank_id="B1", target_id="R1"), "ALREADY_ENGAGED")
    assert err.clause == "TTT-E1"
    assert "Blue's phase of turn 1" in err.message  # B1's turn began in the previous turn


def test_facing_refusal_says_when_the_tank_turn_began_TTT_F1() -> None:
    """TTT-F1: R1's best-armour turn to a Wait shot used its facing change; turning again on
    the spot is refused, and the message says its turn began with Red's phase of turn 2."""
    g = duel(red_at=(0.0, -20.0, 90.0))
    end(g)
    g.do(Wait(tank_id="B1"))
    end(g)
    r = g.do(Engage(tank_id="B1", target_id="R1"), white=[1, 1, 1])
    assert "turn_model" in kinds(r) and g.tank("R1").facing == 0
    err = g.refused(Move(tank_id="R1", x=0, z=-20, facing=45), "FACING_ALREADY_CHANGED")
    assert err.clause == "TTT-F1"
    assert "Red's phase of turn 2" in err.message and "TTT-F1" in err.message


def test_recover_outcome_is_structured_TTT_R1() -> None:
    """TTT-R1: a Recover's outcome carries the result and the crew type, not only chat."""
    g = r1_shaken_in_blue_phase()
    r = g.do(Recover(tank_id="R1"), green=[6])
    assert r.outcome == {
        "tank_id": "R1",
        "crew": "scared",
        "face": 6,
        "morale_before": "shaken",
        "recovered": False,
        "morale_after": "shaken",
    }


def test_crew_roll_outcome_is_structured_TTT_C1() -> None:
    """TTT-C1: the crew roll's outcome lists each tank's roll and crew type."""
    g = Game()
    g.place("R1", "tiger-i", "Red", 0, -20)
    g.place("B1", "m4a1-sherman", "Blue", 0, 20, 180)
    r = g.do(CrewRoll(), green=[6, 2])  # the Tiger's card adds 1 to its crew roll
    assert r.outcome["crews"] == [
        {"tank_id": "B1", "crew": "grizzled", "by_card": False, "face": 6, "modifier": 0,
         "total": 6},
        {"tank_id": "R1", "crew": "scared", "by_card": False, "face": 2, "modifier": 1,
         "total": 3},
    ]  # fmt: skip


def test_table_dice_are_not_asked_for_a_recover_the_referee_does_not_roll_TTT_MR4() -> None:
    """TTT-MR4: with table dice, the end of the phase in which the complication arrived asks
    for no green die (it would be DICE_NEEDED if the referee still rolled it)."""
    g = shaken_and_immobilized_by_a_wait_shot()
    try:
        g.do(EndPhase())
    except DiceNeeded as err:  # pragma: no cover - the failure this test guards against
        pytest.fail(f"the referee asked for {err.need.describe()}")


def test_options_and_adjudication_agree_on_recover_TTT_R1() -> None:
    """TTT-R1: "what may this tank do now" refuses Recover with the same code as the action."""
    g = shaken_and_immobilized_by_a_wait_shot()
    (rec,) = [o for o in options_for(g.state, "R1", odds=False) if o.kind == "recover"]
    assert (rec.allowed, rec.code, rec.clause) == (False, "RECOVER_TOO_SOON", "TTT-R1")


def test_options_default_is_unchanged() -> None:
    """The defaults of the existing rulings are untouched by the new ones."""
    o = Options()
    assert (o.best_armour, o.cover, o.smoke_stacking, o.grizzled_reroll) == (
        "auto",
        "armour",
        "strongest",
        "auto",
    )


def test_facing_refusal_before_the_tanks_first_phase_TTT_F1() -> None:
    """TTT-F1: B1 turned its best armour to R1's first shot of the game; a second shot in that
    phase finds its facing change used, and the ruling says its turn began with the game."""
    flank = ("R2", "tiger-i", "Red", 30.0, 20.0, 270.0)  # east of B1: its side once it turns
    g = duel(blue_at=(0.0, 20.0, 90.0), options=Options(deploy_depth=48), extra=[flank])
    g.do(Engage(tank_id="R1", target_id="B1"), white=[1, 1, 1, 1])
    assert g.tank("B1").facing == 180  # turned its front to R1
    r = g.do(Engage(tank_id="R2", target_id="B1"), white=[1, 1, 1, 1])
    (note,) = [n for n in r.rulings if n.clause == "TTT-E3"]
    assert "start of the game" in note.text and "TTT-F1" in note.text
