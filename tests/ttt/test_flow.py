"""The game's flow on the core kit: the shared refusal codes with TTT's clauses, dispatch as
data, option checks as data, and the table summary naming the phase of the turn (TTT-T1)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kit.ttt import Game, duel
from tankref.core import flow
from tankref.core.dispatch import action_classes
from tankref.core.errors import RulesError
from tankref.rulesets.ttt import engine
from tankref.rulesets.ttt.actions import (
    Action,
    CrewRoll,
    EndPhase,
    Engage,
    Move,
    PlaceTank,
    PlaceTerrain,
    Recover,
    RemoveTank,
    SetObjective,
    Smoke,
    StartGame,
    Wait,
)
from tankref.rulesets.ttt.options import OPTION_CHECKS
from tankref.rulesets.ttt.plugin import TinyTableTopTanks
from tankref.rulesets.ttt.state import Options, Scenario, TerrainPiece

TTT_SOURCES = Path(engine.__file__).parent


def _in_setup() -> Game:
    g = Game()
    g.place("R1", "tiger-i", "Red", 0, -20)
    g.place("B1", "m4a1-sherman", "Blue", 0, 20, 180)
    return g


def test_tank_actions_before_the_start_are_NOT_STARTED_under_TTT_T1() -> None:
    """TTT-T1: before start_game no tank acts and no phase ends: NOT_STARTED (it was
    GAME_NOT_STARTED), clause TTT-T1, state unchanged; the options say the same."""
    g = _in_setup()
    for action in (
        Engage(tank_id="R1", target_id="B1"),
        Wait(tank_id="R1"),
        Recover(tank_id="R1"),
        Smoke(tank_id="R1", ability="smoke dischargers"),
        EndPhase(),
    ):
        err = g.refused(action, "NOT_STARTED")
        assert err.clause == "TTT-T1", (action, err)
    for option in engine.options_for(g.state, "R1"):
        assert (option.allowed, option.code, option.clause) == (False, "NOT_STARTED", "TTT-T1")


def test_a_move_in_setup_is_still_told_to_place_the_tank_TTT_S1() -> None:
    """TTT-S1: a Move during setup is answered USE_PLACE_TANK (not the generic NOT_STARTED):
    the dispatch table lets a Move through in setup for its own, more useful, answer."""
    g = _in_setup()
    err = g.refused(Move(tank_id="R1", x=0, z=-18, facing=0), "USE_PLACE_TANK")
    assert err.clause == "TTT-S1"


def test_setup_actions_after_the_start_are_SETUP_OVER_under_TTT_S1() -> None:
    """TTT-S1: once the game has started nothing more is placed, removed or rolled for:
    SETUP_OVER with clause TTT-S1 for each setup action, state unchanged."""
    g = duel()
    wood = TerrainPiece.model_validate(
        {"id": "w1", "kind": "forest", "shape": {"shape": "circle", "x": 0, "z": 0, "radius": 3}}
    )
    for action in (
        PlaceTank(tank_id="R9", card="tiger-i", player="Red", x=0, z=-20),
        RemoveTank(tank_id="R1"),
        PlaceTerrain(piece=wood),
        SetObjective(x=0, z=0),
        CrewRoll(),
        StartGame(),
    ):
        err = g.refused(action, "SETUP_OVER")
        assert err.clause == "TTT-S1", (action, err)


def test_every_action_is_refused_GAME_OVER_once_the_game_has_ended_TTT_T1() -> None:
    """TTT-T1/TTT-S1: once the game has ended (here the turn limit) every action, of setup or of
    play, is refused GAME_OVER (a setup action too: one answer for a finished game), state
    unchanged."""
    g = duel()
    g.do(
        Engage(tank_id="R1", target_id="B1"),
        white=[5, 1, 1, 1],
        red=[5, 5, 3, 1, 1],
        card="Explosion",
    )
    assert g.state.status == "over"
    for action in (Wait(tank_id="R1"), EndPhase(), Move(tank_id="R1", x=0, z=-18, facing=0)):
        err = g.refused(action, "GAME_OVER")
        assert err.clause == "TTT-T1" and "the game is over" in err.message
    g.refused(StartGame(), "GAME_OVER")


def test_a_destroyed_tank_is_DESTROYED_and_a_friend_NOT_AN_ENEMY_TTT_E1() -> None:
    """TTT-E1/TTT-E7: the unified codes DESTROYED (was TANK_DESTROYED) for a destroyed tank
    that acts, NOT_AN_ENEMY (was TARGET_NOT_ENEMY) for a friendly target; clauses kept, and
    the destroyed tank's options say the same."""
    g = duel(
        extra=[("R2", "tiger-i", "Red", 10, -20, 0), ("B2", "m4a1-sherman", "Blue", 10, 20, 180)]
    )
    err = g.refused(Engage(tank_id="R1", target_id="R2"), "NOT_AN_ENEMY")
    assert err.clause == "TTT-E1"
    g.do(EndPhase())
    # B2 knocks out the Tiger through its front (6 PEN vs 6); R2, its last friend able to
    # move, checks morale (TTT-MO2): green 1, OK.
    g.do(
        Engage(tank_id="B2", target_id="R1"),
        white=[5, 1, 1],
        red=[5, 5, 5],
        green=[1],
        card="Knocked Out",
    )
    assert g.state.tanks["R1"].destroyed
    err = g.refused(Engage(tank_id="R1", target_id="B1"), "DESTROYED")
    assert err.clause == "TTT-E7"
    for option in engine.options_for(g.state, "R1"):
        assert (option.allowed, option.code, option.clause) == (False, "DESTROYED", "TTT-E7")


def test_no_replaced_code_is_left_in_the_ttt_sources() -> None:
    """Every refusal code the core's flow table replaced (GAME_NOT_STARTED, TANK_DESTROYED,
    TARGET_NOT_ENEMY ...) is gone from TinyTableTopTanks: it refuses with the shared ones."""
    found = {
        f"{path.name}: {old}"
        for path in TTT_SOURCES.glob("*.py")
        for old in flow.REPLACED
        if re.search(rf"\b{old}\b", path.read_text(encoding="utf-8"))
    }
    assert found == set()


def test_the_dispatch_table_has_one_step_per_action_kind() -> None:
    """Dispatch as data: every TTT action class has exactly one step, and nothing else does
    (the core checks this at import; here it is shown for TTT's own union)."""
    assert set(engine.DISPATCH.steps) == set(action_classes(Action))
    assert len(engine.DISPATCH.steps) == 12


def test_option_kinds_are_the_tank_actions() -> None:
    """Options as data: one (kind, check) per action a tank takes, each the kind of an action."""
    kinds = [kind for kind, _ in OPTION_CHECKS]
    assert kinds == ["move", "engage", "wait", "recover", "smoke"]
    action_kinds = {cls.model_fields["kind"].default for cls in action_classes(Action)}
    assert set(kinds) <= action_kinds


def test_an_unknown_tank_is_refused_before_any_option_is_built() -> None:
    g = duel()
    with pytest.raises(RulesError) as err:
        engine.options_for(g.state, "X9")
    assert err.value.code == "UNKNOWN_TANK"


def test_the_summary_names_the_phase_of_the_turn_TTT_T1() -> None:
    """TTT-T1: a turn is player one's phase then player two's; the table summary says which
    ("first", "second": the printed text's "the second phase of turn two") while the game is
    under way, and nothing in setup or once it is over."""
    rules = TinyTableTopTanks()
    g = Game(options=Options(turn_limit=2))
    g.place("R1", "tiger-i", "Red", 0, -20)
    g.place("B1", "m4a1-sherman", "Blue", 0, 20, 180)
    assert rules.summary(g.state).phase is None
    g.crew("R1")
    g.crew("B1")
    g.start()
    seen = []
    for _ in range(4):
        s = rules.summary(g.state)
        seen.append((s.turn, s.active_player, s.phase))
        g.do(EndPhase())
    assert seen == [
        (1, "Red", "first"),
        (1, "Blue", "second"),
        (2, "Red", "first"),
        (2, "Blue", "second"),
    ]
    over = rules.summary(g.state)
    assert (over.status, over.active_player, over.phase) == ("over", None, None)


def test_in_an_ambush_the_first_phase_is_the_ambushed_players_TTT_S2() -> None:
    """TTT-S2: the Ambushed moves first, so the first phase of each turn is theirs."""
    rules = TinyTableTopTanks()
    g = Game(scenario=Scenario(kind="ambush", ambusher="Red"))
    g.place("R1", "tiger-i", "Red", 0, -20, reserve=True)
    g.place("B1", "m4a1-sherman", "Blue", 0, 20, 180)
    g.crew("R1")
    g.crew("B1")
    g.start()
    s = rules.summary(g.state)
    assert (s.active_player, s.phase) == ("Blue", "first")
