"""AFV fixes from the rules audit (issue 14): a fall-back judged by where the unit ends up,
whatever the drag path (AFV-MV1); the degraded vehicle's "move ½ or shoot -2" (AFV-DMG1) for
vehicles only and against the rate for the terrain crossed (AFV-MV3); the direction marker of
a team getting out of its carrier (AFV-MV2)."""

from __future__ import annotations

import pytest

from kit.afv import AfvGame, cm, hit_mods
from tankref.rulesets.afv.actions import Disembark, Embark, Fire, Move
from tankref.rulesets.afv.engine import options_for

DEGRADED = ("degraded and moved more than half its rate", -2)


def suppressed_duel() -> AfvGame:
    """Red's Standard AFV R1 at the origin, Suppressed; Blue's B1 100 cm north (the nearest
    enemy) and B2 60 cm east-north-east of it. Red's phase of turn 1."""
    game = AfvGame()
    game.put("R1", "standard-afv", "Red", 0, 0)
    game.put("B1", "standard-afv", "Blue", 0, cm(100), 180)
    game.put("B2", "standard-afv", "Blue", cm(100), cm(30), 270)
    game.start()
    game.state.units["R1"] = game.unit("R1").model_copy(update={"suppressed": True})
    return game


def test_a_fall_back_dragged_back_to_the_start_keeps_the_marker_AFV_MV1() -> None:
    """AFV-MV1: a Suppressed unit dragged 1 cm directly away and back has not fallen back: it
    keeps its Suppressed marker, so it may still fire only at the nearest enemy and is
    revealed doing so; with no move it takes a Ready marker."""
    game = suppressed_duel()
    game.move("R1", 0, -cm(1), 180)
    assert not game.unit("R1").suppressed and game.unit("R1").retreated
    game.move("R1", 0, 0, 180)  # back where it began the phase
    r1 = game.unit("R1")
    assert r1.suppressed and not r1.retreated and r1.moved_cm == 0
    err = game.refused(Fire(tank_id="R1", target_id="B2"), "NOT_NEAREST_ENEMY", "AFV-FR1")
    assert "B1" in err.message
    game.fire("R1", "B1", [1, 1])
    r1 = game.unit("R1")
    assert r1.revealed and not r1.suppressed  # the marker comes off by firing (AFV-FR1)


def test_a_fall_back_that_ends_away_counts_as_a_move_AFV_MV1() -> None:
    """AFV-MV1: away, back, and away again: the net move is the fall-back; the marker is
    off, the unit moved (-2 to hit as a vehicle, AFV-HIT2) and takes no Ready marker."""
    game = suppressed_duel()
    game.move("R1", 0, -cm(1), 180)
    game.move("R1", 0, 0, 180)
    game.move("R1", 0, -cm(30), 180)
    r1 = game.unit("R1")
    assert not r1.suppressed and r1.retreated and r1.moved_cm == pytest.approx(30)
    res = game.fire("R1", "B2", [1, 1])  # fell back: no longer bound to the nearest enemy
    assert ("shooter moved and is not infantry", -2) in hit_mods(res)
    game.end_phase()
    assert not game.unit("R1").ready


def test_options_follow_the_fall_back_AFV_MV1() -> None:
    """AFV-MV1: the options agree with the action: back at the start the unit's Fire is
    still limited to the nearest enemy (B2 refused), after a real fall-back it is not."""
    game = suppressed_duel()
    game.move("R1", 0, -cm(1), 180)
    game.move("R1", 0, 0, 180)
    fire = next(o for o in options_for(game.state, "R1") if o.kind == "fire")
    assert fire.allowed and fire.detail is not None
    assert {t["target_id"] for w in fire.detail["weapons"] for t in w["targets"]} == {"B1"}
    game.move("R1", 0, -cm(30), 180)
    fire = next(o for o in options_for(game.state, "R1") if o.kind == "fire")
    assert fire.detail is not None
    assert {t["target_id"] for w in fire.detail["weapons"] for t in w["targets"]} == {"B1", "B2"}


def infantry_duel(card: str = "degraded-infantry") -> AfvGame:
    game = AfvGame()
    game.put("R1", card, "Red", 0, 0)
    game.put("B1", "utility-vehicle", "Blue", 0, cm(12), 180)
    game.start()
    return game


def test_degraded_infantry_do_not_take_the_vehicle_minus_2_AFV_DMG1() -> None:
    """AFV-DMG1/AFV-DMG2: "move ½ or shoot -2" is the vehicle column; degraded infantry
    become the Degraded infantry type instead, and shoot with no -2 after moving more than
    half their rate."""
    game = infantry_duel()
    game.state.units["R1"] = game.unit("R1").model_copy(update={"degraded": True})
    game.move("R1", 0, cm(8), 0)  # 8 of 10 cm: more than half
    res = game.fire("R1", "B1", [1, 1])
    assert DEGRADED not in hit_mods(res)
    assert all("degraded" not in label for label, _ in hit_mods(res))


def test_degraded_heavy_moving_its_full_soft_rate_shoots_at_minus_2_AFV_DMG1_AFV_MV3() -> None:
    """AFV-DMG1 with AFV-MV3: a degraded Heavy armour moving its full 10 cm through soft
    ground moved more than half the rate for that terrain: -2 to hit; 5 cm (half) does not."""
    for moved, penalised in ((10, True), (5, False)):
        game = AfvGame()
        game.terrain("s1", "soft", 0, cm(5), cm(4))
        game.put("R1", "heavy-armour", "Red", 0, 0)
        game.put("B1", "standard-afv", "Blue", 0, cm(40), 180)
        game.start()
        game.state.units["R1"] = game.unit("R1").model_copy(update={"degraded": True})
        game.move("R1", 0, cm(moved), 0)
        res = game.fire("R1", "B1", [1, 1])
        assert (DEGRADED in hit_mods(res)) is penalised, moved


def carried_team() -> AfvGame:
    """Red's IFV R1 at the origin carrying a Standard infantry team R2 (10 cm move); Blue far
    north. Red's phase of turn 2 (the team boarded in turn 1)."""
    game = AfvGame()
    game.put("R1", "ifv", "Red", 0, 0)
    game.put("R2", "standard-infantry", "Red", cm(5), 0)
    game.put("B1", "standard-afv", "Blue", 0, cm(150), 180)
    game.start()
    game.do(Embark(tank_id="R2", carrier_id="R1"))
    game.end_phase()
    game.end_phase()
    return game


@pytest.mark.parametrize(("east", "across"), [(4, True), (5, True), (8, False)])
def test_a_team_getting_out_places_its_direction_marker_by_half_its_rate_AFV_MV2(
    east: float, across: bool
) -> None:
    """AFV-MV2, "the same applies to a team getting out of a carrier": half its rate or less
    (exactly half included, the ruling): the marker across its new facing; more: along it."""
    game = carried_team()
    game.do(Disembark(tank_id="R2", x=cm(east), z=0))
    team = game.unit("R2")
    assert team.facing == pytest.approx(90)
    assert team.direction == pytest.approx(180 if across else 90)


def test_a_team_that_got_out_moves_within_its_rate_of_the_carrier_AFV_SPC1() -> None:
    """AFV-SPC1 (ruling: a team gets out within its own move of the carrier, and does not
    board again that phase): dragged after getting out, it is still measured from the
    carrier, so 8 cm out and 10 cm on is refused; boarding again waits for its next phase;
    the options say the same."""
    game = carried_team()
    game.do(Disembark(tank_id="R2", x=cm(8), z=0))
    err = game.refused(Move(tank_id="R2", x=cm(18), z=0, facing=90), "TOO_FAR")
    assert '10 cm (3.9")' in err.message
    game.move("R2", cm(10), 0, 90)  # the whole rate, from the carrier
    team = game.unit("R2")
    assert team.moved_cm == pytest.approx(10) and team.direction == pytest.approx(90)
    game.refused(Embark(tank_id="R2", carrier_id="R1"), "GOT_OUT_THIS_PHASE", "AFV-SPC1")
    embark = next(o for o in options_for(game.state, "R2") if o.kind == "embark")
    assert not embark.allowed and embark.code == "GOT_OUT_THIS_PHASE"
    game.end_phase()
    game.end_phase()
    game.do(Embark(tank_id="R2", carrier_id="R1"))
    assert game.unit("R2").carried_by == "R1"


def test_a_team_getting_out_beside_its_carrier_has_moved_AFV_MV2() -> None:
    """AFV-MV2: getting out counts as its move even at the carrier's side (no Ready marker);
    dragged back onto that spot it is still a team that got out, marker across."""
    game = carried_team()
    game.do(Disembark(tank_id="R2", x=0, z=0))
    game.move("R2", 0, 0, 45)
    team = game.unit("R2")
    assert team.carried_by is None and team.direction == pytest.approx(135)
    game.end_phase()
    assert not game.unit("R2").ready
