"""AFV-SEQ1, AFV-MV1, AFV-MV2, AFV-MV3: the sequence, markers and movement in cm on a table
measured in inches."""

from __future__ import annotations

import pytest

from kit.afv import AfvGame, cm
from tankref.core.geometry import TableArea
from tankref.rulesets.afv.actions import EndPhase, Evade, Fire, Move, PlaceTank
from tankref.rulesets.afv.state import AfvOptions


def duel() -> AfvGame:
    """Red's Standard AFV R1 at the origin facing north; Blue's Standard AFV B1 100 cm north,
    facing south. Red's phase of turn 1."""
    game = AfvGame()
    game.put("R1", "standard-afv", "Red", 0, 0)
    game.put("B1", "standard-afv", "Blue", 0, cm(100), 180)
    game.start()
    return game


def test_sides_alternate_whole_phases() -> None:
    """AFV-SEQ1: player A's units all act in A's phase, then player B's; B's units are refused
    in A's phase; the turn counts up after both; a ruling is stated."""
    game = duel()
    assert (game.state.turn, game.state.active_player) == (1, "Red")
    assert any(r.clause == "AFV-SEQ1" for r in game.last.rulings)  # type: ignore[union-attr]
    game.refused(Move(tank_id="B1", x=0, z=cm(90), facing=180), "NOT_YOUR_PHASE", "AFV-SEQ1")
    game.refused(EndPhase(player="Blue"), "NOT_YOUR_PHASE", "AFV-SEQ1")
    game.end_phase()
    assert (game.state.turn, game.state.active_player) == (1, "Blue")
    game.end_phase()
    assert (game.state.turn, game.state.active_player) == (2, "Red")


def test_a_unit_moves_then_fires_and_not_after() -> None:
    """AFV-SEQ1 (ruling): within its phase a unit moves, then fires; after firing its move
    is over."""
    game = duel()
    game.fire("R1", "B1", [1, 1])  # 2 + 0 hit - 2 long range: a miss
    game.refused(Move(tank_id="R1", x=0, z=cm(5), facing=0), "ALREADY_FIRED", "AFV-SEQ1")


def test_turn_limit_ends_the_game_in_a_draw() -> None:
    """AFV-SEQ1: at the table's turn limit the game is over without a winner."""
    game = AfvGame(options=AfvOptions(turn_limit=1))
    game.put("R1", "standard-afv", "Red", 0, 0)
    game.put("B1", "standard-afv", "Blue", 0, cm(100), 180)
    game.start()
    game.end_phase()
    game.end_phase()
    assert game.state.status == "over" and game.state.winner is None


def test_stopped_marker_removed_and_the_unit_goes_straight_to_fire() -> None:
    """AFV-MV1: a unit with a Stopped marker has it removed at the start of its phase, may
    not move, and may still fire."""
    game = AfvGame()
    game.put("R1", "heavy-weapons-team", "Red", 0, 0)
    game.put("B1", "standard-afv", "Blue", 0, cm(30), 180)
    game.start()
    game.end_phase()
    # Blue's machine gun spots the team (d6 1) and stops it: hit 2d6 6+6+3-2 = 13 (two hits),
    # damage 1+2+1 = 4 and 1+1+1 = 3: stopped.
    game.fire("B1", "R1", [1, 6, 6, 1, 2, 1, 1], weapon=1)
    assert game.unit("R1").stopped
    game.end_phase()
    team = game.unit("R1")
    assert not team.stopped and team.began_stopped
    game.refused(Move(tank_id="R1", x=0, z=cm(5), facing=0), "STOPPED_MARKER", "AFV-MV1")
    game.fire("R1", "B1", [1, 1])  # it may fire
    assert game.unit("R1").fired == (0,)


def test_ready_marker_removed_at_the_start_of_the_phase() -> None:
    """AFV-MV1: a Ready marker (it did not move last phase) is removed when its phase starts."""
    game = duel()
    game.end_phase()
    assert game.unit("R1").ready
    game.end_phase()
    assert not game.unit("R1").ready and game.unit("R1").began_with_stop


def test_suppressed_unit_may_only_fall_back_directly_away() -> None:
    """AFV-MV1: a Suppressed unit may move full speed directly away from the enemy, which
    removes the marker; a move any other way is refused with the heading it must take."""
    game = duel()
    game.state.units["R1"] = game.unit("R1").model_copy(update={"suppressed": True})
    err = game.refused(Move(tank_id="R1", x=cm(30), z=0, facing=90), "MUST_MOVE_AWAY", "AFV-MV1")
    assert err.details["away_heading"] == pytest.approx(180)
    game.move("R1", 0, -cm(40), 180)
    unit = game.unit("R1")
    assert not unit.suppressed and unit.retreated
    assert any(r.clause == "AFV-MV1" and "nearest enemy" in r.text for r in game.last.rulings)  # type: ignore[union-attr]


def test_move_up_to_the_rate_in_cm_and_face_the_direction_of_travel() -> None:
    """AFV-MV1: up to the full rate, measured in cm from where the unit began its phase (the
    table's inches x 2.54); the unit then faces its direction of travel."""
    game = duel()
    err = game.refused(Move(tank_id="R1", x=cm(41), z=0, facing=90), "TOO_FAR", "AFV-MV1")
    assert '40 cm (15.7")' in err.message and err.details["moved_cm"] == pytest.approx(41)
    result = game.move("R1", cm(30), 0, facing=0)  # the model was left facing north
    assert game.unit("R1").facing == pytest.approx(90)
    assert [e.kind for e in result.events] == ["face"]
    assert result.events[0].data["facing"] == pytest.approx(90)
    # Several drags count as one move from the start of the phase.
    game.move("R1", cm(39), 0, facing=90)
    game.refused(Move(tank_id="R1", x=cm(41), z=0, facing=90), "TOO_FAR")


def test_direction_marker_along_or_across_by_half_the_rate() -> None:
    """AFV-MV2: more than half the rate: direction marker along the facing; half or less
    (exactly half included, a ruling): across it; moved zero: a Ready marker."""
    game = AfvGame()
    game.put("R1", "standard-afv", "Red", 0, 0)
    game.put("R2", "standard-afv", "Red", cm(50), 0)
    game.put("R3", "standard-afv", "Red", cm(100), 0)
    game.put("B1", "standard-afv", "Blue", 0, cm(200), 180)
    game.start()
    game.move("R1", 0, cm(25))  # north, 25 of 40
    game.move("R2", cm(50), cm(20))  # exactly half
    assert any(r.clause == "AFV-MV2" for r in game.last.rulings)  # type: ignore[union-attr]
    game.end_phase()
    assert game.unit("R1").direction == pytest.approx(0)
    assert game.unit("R2").direction == pytest.approx(90)
    r3 = game.unit("R3")
    assert r3.ready and r3.direction is None


def test_evasive_move_half_rate_marker_across_the_path() -> None:
    """AFV-MV2: an evasive move is half the rate, its direction marker across the path."""
    game = duel()
    game.do(Evade(tank_id="R1"))
    game.refused(Move(tank_id="R1", x=cm(21), z=0, facing=90), "TOO_FAR")
    game.move("R1", cm(20), 0, 90)  # east, the whole evasive rate
    assert game.unit("R1").direction == pytest.approx(180)  # across, not along
    game2 = duel()
    game2.move("R1", cm(5), 0, 90, evasive=True)  # declared with the move itself
    assert game2.unit("R1").evasive
    game2.refused(Move(tank_id="R1", x=cm(5), z=0, facing=90, evasive=False), "EVASIVE_DECLARED")


@pytest.mark.parametrize(
    ("card", "kind", "slow", "full"),
    [("utility-vehicle", "mud", 20, 80), ("utility-vehicle", "rough", 20, 80),
     ("heavy-armour", "soft", 10, 20)],
)  # fmt: skip
def test_terrain_slows_the_units_the_text_names(card: str, kind: str, slow: int, full: int) -> None:
    """AFV-MV3: Utility vehicle 20 cm through rough terrain or mud; Heavy armour 10 cm on
    soft terrain; elsewhere the full rate."""
    game = AfvGame(area=TableArea(x_min=-200, x_max=200, z_min=-200, z_max=200))
    game.terrain("t1", kind, cm(5), 0, cm(3))
    game.put("R1", card, "Red", 0, 0)
    game.put("B1", "standard-afv", "Blue", 0, cm(300), 180)
    game.start()
    err = game.refused(Move(tank_id="R1", x=cm(slow + 1), z=0, facing=90), "TOO_FAR", "AFV-MV3")
    assert f"{slow} cm" in err.message
    game.move("R1", cm(slow), 0, 90)
    game.move("R1", 0, cm(full), 0)  # north, clear of the piece: the full rate


def test_heavy_armour_is_not_slowed_by_mud() -> None:
    """AFV-MV3: only the terrain kinds on the unit's card slow it."""
    game = AfvGame(area=TableArea(x_min=-200, x_max=200, z_min=-200, z_max=200))
    game.terrain("t1", "mud", cm(5), 0, cm(3))
    game.put("R1", "heavy-armour", "Red", 0, 0)
    game.put("B1", "standard-afv", "Blue", 0, cm(300), 180)
    game.start()
    game.move("R1", cm(20), 0, 90)
    assert game.unit("R1").moved_cm == pytest.approx(20)


def test_refused_fire_when_not_playing() -> None:
    """AFV-SEQ1: no shots before the game starts."""
    game = AfvGame()
    game.put("R1", "standard-afv", "Red", 0, 0)
    game.put("B1", "standard-afv", "Blue", 0, cm(100), 180)
    game.refused(Fire(tank_id="R1", target_id="B1"), "NOT_STARTED")


def test_units_are_placed_on_the_table() -> None:
    """AFV-UNITS (ruling): AFV has no reserves: a unit put down off the table is refused."""
    game = AfvGame(area=TableArea())
    game.refused(
        PlaceTank(tank_id="R1", card="standard-afv", player="Red", x=0, z=100), "OFF_TABLE"
    )


def test_a_fall_back_stays_directly_away_for_every_drag() -> None:
    """AFV-MV1: a Suppressed unit that fell back may drag further, still only directly away."""
    game = duel()
    game.state.units["R1"] = game.unit("R1").model_copy(update={"suppressed": True})
    game.move("R1", 0, -cm(10), 180)
    game.refused(Move(tank_id="R1", x=cm(20), z=-cm(10), facing=90), "MUST_MOVE_AWAY")
    game.move("R1", 0, -cm(40), 180)
