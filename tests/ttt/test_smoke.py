"""Smoke: use, placement, strength on the line of fire and decay, through the real engine
(TTT-SM1, TTT-SM2, TTT-SM3, TTT-SM4).

Cards used: tiger-i "NbK 39 dischargers" (self, -2, once); panzer-iii-j "Nebelkerzen rack"
(self, -1, once); m4a1-sherman "2-inch smoke mortar" (mortar, -1, 12", twice); panther-g
"Nahverteidigungswaffe" (mortar, -1, 6", twice).
"""

from __future__ import annotations

import pytest

from kit.ttt import Game, duel
from tankref.rulesets.ttt.actions import EndPhase, Engage, Move, Smoke
from tankref.rulesets.ttt.state import Options

TIGER_SMOKE = "NbK 39 dischargers"
PZ3_SMOKE = "Nebelkerzen rack"
SHERMAN_MORTAR = "2-inch smoke mortar"
PANTHER_MORTAR = "Nahverteidigungswaffe"


def smoke(tank_id: str, ability: str, x: float | None = None, z: float | None = None) -> Smoke:
    return Smoke(tank_id=tank_id, ability=ability, x=x, z=z)


def end_phase(g: Game, times: int = 1) -> None:
    for _ in range(times):
        g.do(EndPhase())


def strengths(g: Game) -> list[int]:
    return [s.strength for s in g.state.smoke]


def blue_shoots_r1(g: Game, white: int) -> int:
    """End Red's phase, B1 (3 white dice, not moved) engages R1; returns the smoke penalty."""
    g.do(EndPhase())
    r = g.do(Engage(tank_id="B1", target_id="R1"), white=[1] * white)
    assert r.outcome["accuracy_dice"] == white
    return sum(m.amount for m in r.modifiers if m.clause == "TTT-SM3")


# --- TTT-SM1: use -----------------------------------------------------------------------------


def test_ttt_sm1_once_only_smoke_is_counted_per_game() -> None:
    """TTT-SM1: a once-a-game smoke is used up for the match, next turn included."""
    g = duel()
    g.do(smoke("R1", TIGER_SMOKE))
    assert g.tank("R1").smoke_uses == {TIGER_SMOKE: 1}
    err = g.refused(smoke("R1", TIGER_SMOKE), "SMOKE_USED_UP")
    assert err.clause == "TTT-SM1"
    end_phase(g, 2)
    g.refused(smoke("R1", TIGER_SMOKE), "SMOKE_USED_UP")


def test_ttt_sm1_once_only_smoke_does_not_stop_moving() -> None:
    """TTT-SM1: only a reusable smoke forbids moving; a once-only one may pop before a move."""
    g = duel()
    g.do(smoke("R1", TIGER_SMOKE))
    r = g.do(Move(tank_id="R1", x=0, z=-16, facing=0))
    assert r.outcome["move"] == "normal"
    assert g.tank("R1").smoke_popped is False


def test_ttt_sm1_once_only_smoke_may_pop_after_an_engage() -> None:
    """TTT-SM1: a once-only smoke may be popped after the tank moved and engaged."""
    g = duel()
    g.do(Move(tank_id="R1", x=0, z=-16, facing=0))
    g.do(Engage(tank_id="R1", target_id="B1"), white=[1, 1])
    g.do(smoke("R1", TIGER_SMOKE))
    assert len(g.state.smoke) == 1


def test_ttt_sm1_unknown_ability_is_refused() -> None:
    """TTT-SM1: smoke abilities come from the card; another name is NO_SUCH_SMOKE."""
    g = duel()
    err = g.refused(smoke("R1", SHERMAN_MORTAR, 0, -15), "NO_SUCH_SMOKE")
    assert TIGER_SMOKE in err.message


def test_ttt_sm1_card_without_smoke_has_none() -> None:
    """TTT-SM1: a card with no smoke ability (panzer-iv-h) cannot smoke."""
    g = duel(red_card="panzer-iv-h")
    g.refused(smoke("R1", "anything"), "NO_SUCH_SMOKE")


def test_ttt_sm1_reusable_smoke_can_be_used_as_often_as_the_card_says() -> None:
    """TTT-SM1: the Sherman's mortar (uses = 2) pops twice in the game, then SMOKE_USED_UP."""
    g = duel(red_card="m4a1-sherman")
    g.do(smoke("R1", SHERMAN_MORTAR, 0, -12))
    end_phase(g, 2)
    g.do(smoke("R1", SHERMAN_MORTAR, 5, -12))
    assert g.tank("R1").smoke_uses == {SHERMAN_MORTAR: 2}
    end_phase(g, 2)
    g.refused(smoke("R1", SHERMAN_MORTAR, 0, -12), "SMOKE_USED_UP")


def test_ttt_sm1_reusable_smoke_cannot_follow_a_move() -> None:
    """TTT-SM1: a reusable smoke cannot be used by a tank that moved this turn."""
    g = duel(red_card="m4a1-sherman")
    g.do(Move(tank_id="R1", x=0, z=-17, facing=0))
    err = g.refused(smoke("R1", SHERMAN_MORTAR, 0, -10), "SMOKE_AFTER_MOVE")
    assert err.clause == "TTT-SM1"


def test_ttt_sm1_reusable_smoke_cannot_follow_an_engage() -> None:
    """TTT-SM1: a reusable smoke cannot be used by a tank that engaged this turn."""
    g = duel(red_card="m4a1-sherman")
    g.do(Engage(tank_id="R1", target_id="B1"), white=[1, 1, 1])
    g.refused(smoke("R1", SHERMAN_MORTAR, 0, -10), "SMOKE_AFTER_MOVE")


def test_ttt_sm1_no_move_after_a_reusable_smoke() -> None:
    """TTT-SM1: after popping a reusable smoke the tank may not Move this turn."""
    g = duel(red_card="panther-g")
    g.do(smoke("R1", PANTHER_MORTAR, 0, -15))
    assert g.tank("R1").smoke_popped is True
    err = g.refused(Move(tank_id="R1", x=0, z=-16, facing=0), "ACTION_AFTER_SMOKE")
    assert err.clause == "TTT-SM1"


def test_ttt_sm1_no_engage_after_a_reusable_smoke() -> None:
    """TTT-SM1: after popping a reusable smoke the tank may not Engage this turn."""
    g = duel(red_card="panther-g")
    g.do(smoke("R1", PANTHER_MORTAR, 0, -15))
    g.refused(Engage(tank_id="R1", target_id="B1"), "ACTION_AFTER_SMOKE", white=[1, 1, 1, 1])


def test_ttt_sm1_reusable_smoke_restriction_ends_with_the_turn() -> None:
    """TTT-SM1: the no-Move/no-Engage restriction lasts for the turn the smoke was popped."""
    g = duel(red_card="panther-g")
    g.do(smoke("R1", PANTHER_MORTAR, 0, -15))
    end_phase(g, 2)
    assert g.tank("R1").smoke_popped is False
    r = g.do(Move(tank_id="R1", x=0, z=-14, facing=0))
    assert r.outcome["move"] == "normal"


# --- TTT-SM2: placement -----------------------------------------------------------------------


def test_ttt_sm2_self_smoke_is_centred_on_the_tank() -> None:
    """TTT-SM2: a self smoke is centred where the tank stands (after its move)."""
    g = duel()
    g.do(Move(tank_id="R1", x=2, z=-17, facing=0))
    r = g.do(smoke("R1", TIGER_SMOKE))
    (screen,) = g.state.smoke
    assert (screen.x, screen.z, screen.strength) == (2, -17, 2)
    assert (screen.owner, screen.tank_id) == ("Red", "R1")
    assert any(e.kind == "smoke" and e.clause == "TTT-SM2" for e in r.events)


def test_ttt_sm2_self_smoke_takes_no_aim_point() -> None:
    """TTT-SM2: a self smoke cannot be placed elsewhere (SMOKE_ON_SELF)."""
    g = duel()
    g.refused(smoke("R1", TIGER_SMOKE, 0, -10), "SMOKE_ON_SELF")


def test_ttt_sm2_mortar_smoke_lands_on_the_chosen_point() -> None:
    """TTT-SM2: a smoke mortar is centred on the chosen point within the card's range."""
    g = duel(red_card="m4a1-sherman")
    g.do(smoke("R1", SHERMAN_MORTAR, 0, -8))  # exactly 12"
    (screen,) = g.state.smoke
    assert (screen.x, screen.z, screen.strength) == (0, -8, 1)


def test_ttt_sm2_mortar_needs_an_aim_point() -> None:
    """TTT-SM2: a mortar without a point is refused SMOKE_POINT_NEEDED."""
    g = duel(red_card="m4a1-sherman")
    g.refused(smoke("R1", SHERMAN_MORTAR), "SMOKE_POINT_NEEDED")


def test_ttt_sm2_mortar_point_out_of_range_is_refused() -> None:
    """TTT-SM2: a mortar point beyond the card's range is MORTAR_OUT_OF_RANGE, distances given."""
    g = duel(red_card="panther-g")
    err = g.refused(smoke("R1", PANTHER_MORTAR, 0, -13), "MORTAR_OUT_OF_RANGE")
    assert err.clause == "TTT-SM2"
    assert err.details == {"field": "x", "distance": 7.0, "range": 6}
    assert g.tank("R1").smoke_uses == {}


# --- TTT-SM3: strength on the line of fire ----------------------------------------------------


@pytest.mark.parametrize(("offset", "penalty"), [(3, -2), (6, -2), (9, -1), (12, -1), (13, 0)])
def test_ttt_sm3_minus_two_screen_bands(offset: float, penalty: int) -> None:
    """TTT-SM3: a -2 screen gives -2 within 6" of its centre, -1 from 6" to 12", then nothing."""
    g = duel(extra=[("R2", "tiger-i", "Red", offset, -20, 0)])
    g.do(smoke("R2", TIGER_SMOKE))  # the B1 -> R1 line runs along x = 0
    assert blue_shoots_r1(g, white=3 + penalty) == penalty


@pytest.mark.parametrize(("offset", "penalty"), [(6, -1), (7, 0)])
def test_ttt_sm3_minus_one_screen_reaches_six_inches(offset: float, penalty: int) -> None:
    """TTT-SM3: a -1 screen gives -1 within 6" of its centre and nothing beyond."""
    g = duel(extra=[("R2", "panzer-iii-j", "Red", offset, -20, 0)])
    g.do(smoke("R2", PZ3_SMOKE))
    assert blue_shoots_r1(g, white=3 + penalty) == penalty


def test_ttt_sm3_screen_counts_where_the_line_passes_near_its_centre() -> None:
    """TTT-SM3: a screen away from both tanks counts when the line of fire passes within it."""
    g = duel(extra=[("R2", "m4a1-sherman", "Red", 10, -20, 0)])
    g.do(smoke("R2", SHERMAN_MORTAR, 4, -10))  # 4" off the line, >10" from either tank
    assert blue_shoots_r1(g, white=2) == -1


def test_ttt_sm3_strongest_screen_applies_by_default() -> None:
    """TTT-SM3 ruling: screens on one line do not add; the strongest applies, and it says so."""
    g = duel(extra=[("R2", "tiger-i", "Red", 3, -20, 0), ("R3", "panzer-iii-j", "Red", -3, -20, 0)])
    g.do(smoke("R2", TIGER_SMOKE))
    g.do(smoke("R3", PZ3_SMOKE))
    assert blue_shoots_r1(g, white=1) == -2
    assert g.last is not None
    (mod,) = [m for m in g.last.modifiers if m.clause == "TTT-SM3"]
    assert mod.applies_to == "accuracy_dice"
    assert mod.ruling is not None and "strongest" in mod.ruling


def test_ttt_sm3_smoke_stacking_add_option() -> None:
    """TTT-SM3 option add: screens on the line add up (-2 and -1 leave B1 no dice: it fails)."""
    g = duel(
        options=Options(smoke_stacking="add"),
        extra=[("R2", "tiger-i", "Red", 3, -20, 0), ("R3", "panzer-iii-j", "Red", -3, -20, 0)],
    )
    g.do(smoke("R2", TIGER_SMOKE))
    g.do(smoke("R3", PZ3_SMOKE))
    g.do(EndPhase())
    r = g.do(Engage(tank_id="B1", target_id="R1"))  # no dice to roll
    (mod,) = [m for m in r.modifiers if m.clause == "TTT-SM3"]
    assert mod.amount == -3
    assert mod.ruling is not None and "add" in mod.ruling
    assert r.outcome["accuracy_dice"] == 0
    assert r.outcome["hit"] is False
    assert r.rolls == []


def test_ttt_sm3_smoke_also_hinders_the_tank_inside_it() -> None:
    """TTT-SM3: a line of fire out of a screen passes within it too (the smoker's own shot)."""
    g = duel()
    g.do(smoke("R1", TIGER_SMOKE))
    r = g.do(Engage(tank_id="R1", target_id="B1"), white=[1, 1])
    assert [(m.clause, m.amount) for m in r.modifiers] == [("TTT-SM3", -2)]


# --- TTT-SM4: decay ---------------------------------------------------------------------------


def test_ttt_sm4_minus_one_is_gone_at_the_owners_next_phase() -> None:
    """TTT-SM4: a -1 screen lasts through the enemy's phase and clears at its owner's next."""
    g = duel(red_card="panzer-iii-j")
    g.do(smoke("R1", PZ3_SMOKE))
    g.do(EndPhase())
    assert strengths(g) == [1]  # Blue's phase: Red's smoke does not decay
    r = g.do(EndPhase())
    assert g.state.smoke == ()
    assert any(e.kind == "smoke_gone" and e.clause == "TTT-SM4" for e in r.events)


def test_ttt_sm4_minus_two_thins_then_clears() -> None:
    """TTT-SM4: a -2 becomes -1 at its owner's next phase and is gone the turn after."""
    g = duel()
    g.do(smoke("R1", TIGER_SMOKE))
    g.do(EndPhase())
    assert strengths(g) == [2]
    r = g.do(EndPhase())
    assert strengths(g) == [1]
    assert any(e.kind == "smoke_decay" and e.data["strength"] == 1 for e in r.events)
    g.do(EndPhase())
    assert strengths(g) == [1]
    g.do(EndPhase())
    assert g.state.smoke == ()


def test_ttt_sm4_thinned_screen_gives_only_minus_one() -> None:
    """TTT-SM4/TTT-SM3: once a -2 has thinned to -1 a shot through its centre is at -1."""
    g = duel()
    g.do(smoke("R1", TIGER_SMOKE))
    end_phase(g, 2)
    assert blue_shoots_r1(g, white=2) == -1


def test_ttt_sm4_smoke_decays_on_its_owners_clock() -> None:
    """TTT-SM4: Blue's smoke decays at the start of Blue's phase, not Red's."""
    g = duel()
    g.do(EndPhase())
    g.do(smoke("B1", SHERMAN_MORTAR, 0, 10))
    g.do(EndPhase())  # Red's phase of turn 2
    assert strengths(g) == [1]
    g.do(EndPhase())  # Blue's phase of turn 2
    assert g.state.smoke == ()


def test_sm1_smoke_is_laid_at_most_once_a_turn() -> None:
    """TTT-SM1 ruling: a tank lays smoke once a turn, even with a reusable ability; the next
    turn it may lay it again."""
    g = duel(red_card="m4a1-sherman")
    g.do(Smoke(tank_id="R1", ability=_mortar_name(g), x=0.0, z=-12.0))
    g.refused(Smoke(tank_id="R1", ability=_mortar_name(g), x=0.0, z=-10.0), "SMOKE_ONCE_PER_TURN")
    g.do(EndPhase())
    g.do(EndPhase())
    g.do(Smoke(tank_id="R1", ability=_mortar_name(g), x=0.0, z=-10.0))
    assert g.tank("R1").smoke_uses == {_mortar_name(g): 2}


def _mortar_name(g: Game) -> str:
    return next(s.name for s in g.tank("R1").card.smoke if s.kind == "mortar")
