"""AFV on the shared flow: the unified refusal codes (core.flow) with AFV's own clauses, and
the results the core kit writes for AFV (the acting unit listed, each ruling once)."""

from __future__ import annotations

from typing import Any

from kit.afv import AfvGame, cm
from tankref.core.geometry import Circle
from tankref.rulesets.afv.actions import (
    Embark,
    EndPhase,
    Fire,
    Move,
    PlaceTank,
    PlaceTerrain,
    RemoveTank,
    Spot,
    StartGame,
)
from tankref.rulesets.afv.engine import options_for
from tankref.rulesets.afv.state import AfvOptions, TerrainPiece


def _duel(**kwargs: Any) -> AfvGame:
    game = AfvGame(**kwargs)
    game.put("R1", "standard-afv", "Red", 0, 0)
    game.put("B1", "standard-afv", "Blue", 0, cm(100), 180)
    return game


def _refusal(game: AfvGame, unit_id: str, kind: str) -> tuple[str | None, str | None]:
    option = next(o for o in options_for(game.state, unit_id) if o.kind == kind)
    assert not option.allowed
    return option.code, option.clause


def test_play_before_the_start_is_NOT_STARTED_AFV_SEQ1() -> None:
    """AFV-SEQ1: nothing moves, spots or fires, and no phase ends, before the game starts;
    the menu says the same."""
    game = _duel()
    game.refused(Move(tank_id="R1", x=0, z=cm(5), facing=0), "NOT_STARTED", "AFV-SEQ1")
    game.refused(Spot(tank_id="R1", target_id="B1"), "NOT_STARTED", "AFV-SEQ1")
    game.refused(EndPhase(player="Red"), "NOT_STARTED", "AFV-SEQ1")
    assert _refusal(game, "R1", "move") == ("NOT_STARTED", "AFV-SEQ1")
    assert _refusal(game, "R1", "fire") == ("NOT_STARTED", "AFV-SEQ1")


def test_setup_after_the_start_is_SETUP_OVER_AFV_UNITS_AFV_MV3() -> None:
    """AFV-UNITS, AFV-MV3, AFV-SEQ1: units and terrain are placed, and the game started, only
    in setup; each refusal keeps its clause."""
    game = _duel()
    game.start()
    place = PlaceTank(tank_id="R2", card="standard-afv", player="Red", x=cm(5), z=0, facing=0)
    game.refused(place, "SETUP_OVER", "AFV-UNITS")
    game.refused(RemoveTank(tank_id="R1"), "SETUP_OVER", "AFV-UNITS")
    piece = TerrainPiece(id="w1", kind="woods", shape=Circle(x=0, z=5, radius=2))
    game.refused(PlaceTerrain(piece=piece), "SETUP_OVER", "AFV-MV3")
    game.refused(StartGame(), "SETUP_OVER", "AFV-SEQ1")


def test_a_side_with_no_units_cannot_start_NO_TANKS_AFV_SEQ1() -> None:
    """AFV-SEQ1: both sides need a unit on the table before the game starts."""
    game = AfvGame()
    game.put("R1", "standard-afv", "Red", 0, 0)
    error = game.refused(StartGame(), "NO_TANKS", "AFV-SEQ1")
    assert "Blue" in error.message


def test_once_over_everything_is_GAME_OVER_AFV_SEQ1() -> None:
    """AFV-SEQ1: after the turn limit the game is over; actions and menus say GAME_OVER."""
    game = _duel(options=AfvOptions(turn_limit=1))
    game.start()
    game.end_phase()
    game.end_phase()
    assert game.state.status == "over"
    error = game.refused(Move(tank_id="B1", x=0, z=cm(90), facing=180), "GAME_OVER", "AFV-SEQ1")
    assert "turn limit" in error.message
    game.refused(EndPhase(player="Red"), "GAME_OVER", "AFV-SEQ1")
    game.refused(RemoveTank(tank_id="R1"), "GAME_OVER", "AFV-UNITS")  # setup too
    assert _refusal(game, "R1", "fire") == ("GAME_OVER", "AFV-SEQ1")


def test_a_carried_team_is_not_on_the_table_TARGET_NOT_ON_TABLE_AFV_FR1_AFV_SP1() -> None:
    """AFV-FR1, AFV-SP1, AFV-SPC1: a team aboard its carrier is not on the table: it is
    neither shot at nor looked for."""
    game = AfvGame()
    game.put("B1", "utility-vehicle", "Blue", 0, cm(100), 180)
    game.put("B2", "standard-infantry", "Blue", cm(5), cm(100), 180)
    game.put("R1", "standard-afv", "Red", 0, 0)
    game.start()
    game.end_phase()
    game.do(Embark(tank_id="B2", carrier_id="B1"))
    game.end_phase()
    game.refused(Fire(tank_id="R1", target_id="B2"), "TARGET_NOT_ON_TABLE", "AFV-FR1")
    game.refused(Spot(tank_id="R1", target_id="B2"), "TARGET_NOT_ON_TABLE", "AFV-SP1")


def test_the_spotter_is_listed_though_unchanged_AFV_SP1() -> None:
    """AFV-SP1: a spotting roll changes nothing a unit tracks, yet the spotter is in the
    result's changes so the table redraws its tooltip with the roll."""
    game = AfvGame()
    game.put("R1", "standard-afv", "Red", 0, 0)
    game.put("B1", "standard-infantry", "Blue", 0, cm(60), 180)
    game.start()
    result = game.do(Spot(tank_id="R1", target_id="B1"), d6=[5])
    assert result.outcome["spotted"] is False
    assert [c.tank_id for c in result.changes] == ["R1"]
    assert result.changes[0].changes == {}
    assert "not spotted" in result.changes[0].tooltip


def test_each_ruling_is_noted_once_per_shot_AFV_DMG1() -> None:
    """AFV-DMG1: two hits roll damage twice; the pen - armour ruling is noted once."""
    game = _duel()
    game.put("B1", "standard-afv", "Blue", 0, cm(10), 180)
    game.start()
    result = game.do(Fire(tank_id="R1", target_id="B1"), d6=[6, 6, 1, 1, 1, 1])
    assert len(result.outcome["damage"]) == result.outcome["hits"] == 2
    pen = [r for r in result.rulings if r.clause == "AFV-DMG1" and "pen" in r.text]
    assert len(pen) == 1
