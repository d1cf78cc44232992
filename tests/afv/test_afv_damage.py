"""AFV-DMG1, AFV-DMG2, AFV-SPC1: the damage table's two columns, infantry markers, and the
units' specials (ATGM stop marker, carrying teams)."""

from __future__ import annotations

import pytest

from kit.afv import AfvGame, cm, hit_mods
from tankref.rulesets.afv.actions import Disembark, Embark, Fire, Move
from tankref.rulesets.afv.state import AfvOptions


def shot(
    target: str, *, options: AfvOptions | None = None, shooter: str = "standard-afv"
) -> AfvGame:
    """Red's R1 at the origin, Blue's B1 15 cm north (short range for every weapon)."""
    game = AfvGame(options=options or AfvOptions())
    game.put("R1", shooter, "Red", 0, 0)
    game.put("B1", target, "Blue", 0, cm(15), 180)
    game.put("B2", "standard-afv", "Blue", cm(100), cm(100), 180)  # so the game goes on
    game.start()
    return game


# One hit from the main gun (pen 9) on a Standard AFV (armour 6): 2d6 + 3.
@pytest.mark.parametrize(
    ("faces", "result"),
    [((1, 1), "superficial"), ((1, 2), "component"), ((2, 3), "component"),
     ((3, 3), "degraded"), ((4, 5), "stopped_or_no_weapon"), ((6, 6), "destroyed")],
)  # fmt: skip
def test_vehicle_column_2d6_plus_pen_minus_armour(faces: tuple[int, int], result: str) -> None:
    """AFV-DMG1: each hit rolls 2d6 + (pen - armour) on the vehicle column (a ruling: 'subtract
    pen from armour' read as the modifier pen - armour)."""
    game = shot("standard-afv")
    res = game.fire("R1", "B1", [4, 4, *faces])
    assert res.outcome["damage"] == [result]
    damage = [m for m in res.modifiers if m.applies_to == "damage_roll"]
    assert [(m.clause, m.amount) for m in damage] == [("AFV-DMG1", 3)]
    assert any(r.clause == "AFV-DMG1" and "pen - armour" in r.text for r in res.rulings)
    unit = game.unit("B1")
    assert unit.destroyed == (result == "destroyed")
    assert unit.degraded == (result == "degraded")


def test_vehicle_nothing_on_2_or_less() -> None:
    """AFV-DMG1: 2 or less is nothing: the machine gun (pen 1) on heavy armour (9), 2d6 - 8."""
    game = shot("heavy-armour")
    res = game.fire("R1", "B1", [6, 6, 1, 1, 5, 5, 6, 5], weapon=1)  # 6+6+3 = 15: three hits
    assert res.outcome["damage"] == ["nothing", "nothing", "superficial"]


@pytest.mark.parametrize(
    ("faces", "result", "markers"),
    [((1, 1), "stopped", ["Stopped"]), ((2, 1), "stopped", ["Stopped"]),
     ((3, 2), "suppressed", ["Suppressed"]), ((4, 3), "suppressed", ["Suppressed"]),
     ((4, 4), "degraded", ["Suppressed"]), ((5, 5), "degraded", ["Suppressed"]),
     ((6, 5), "destroyed", ["Destroyed"])],
)  # fmt: skip
def test_human_column_and_infantry_markers(
    faces: tuple[int, int], result: str, markers: list[str]
) -> None:
    """AFV-DMG1 human column (machine gun pen 1, infantry armour 0: 2d6 + 1) and AFV-DMG2:
    stopped infantry get a STOPPED marker, suppressed a SUPPRESSED marker; degraded get
    SUPPRESSED and become the Degraded infantry unit type."""
    game = shot("standard-infantry")
    res = game.fire("R1", "B1", [1, 2, 3, *faces], weapon=1)  # spotted; 2+3+3 = 8: one hit
    assert res.outcome["damage"] == [result]
    change = next(c for c in res.changes if c.tank_id == "B1")
    assert change.markers == markers


def test_degraded_infantry_becomes_the_degraded_unit_type() -> None:
    """AFV-DMG2: a Degraded result gives a SUPPRESSED marker and the Degraded infantry card
    (move 10 cm, 0 hit, 0 pen, 10 cm)."""
    game = shot("heavy-weapons-team")
    res = game.fire("R1", "B1", [1, 3, 4, 4, 4], weapon=1)  # 3+4+3 = 10: one hit; 8+1 = 9
    assert res.outcome["damage"] == ["degraded"]
    team = game.unit("B1")
    assert team.suppressed and team.card.id == "degraded-infantry"
    assert res.changes[[c.tank_id for c in res.changes].index("B1")].changes["card"] == [
        "heavy-weapons-team", "degraded-infantry"
    ]  # fmt: skip
    assert "Degraded infantry" in res.changes[[c.tank_id for c in res.changes].index("B1")].tooltip


def test_remaining_hits_not_rolled_once_destroyed() -> None:
    """AFV-DMG1 (ruling): once the target is destroyed the shot's other hits are not rolled."""
    game = shot("standard-infantry")
    res = game.fire("R1", "B1", [1, 6, 6, 6, 6], weapon=1)  # 6+6+3 = 15: 3 hits; first kills
    assert res.outcome["hits"] == 3 and res.outcome["damage"] == ["destroyed"]
    assert len(res.rolls) == 5
    assert any("remaining hits" in r.text for r in res.rulings)


def test_degraded_vehicle_moving_more_than_half_shoots_at_minus_2() -> None:
    """AFV-DMG1: a degraded vehicle moves ½ or shoots -2 (ruling: chosen each phase by what
    it does: more than half its rate costs -2 to hit)."""
    game = shot("standard-afv")
    game.state.units["R1"] = game.unit("R1").model_copy(update={"degraded": True})
    game.move("R1", cm(20), 0, 90)  # exactly half of 40: no penalty
    res = game.fire("R1", "B1", [1, 1])
    assert all("degraded" not in label for label, _ in hit_mods(res))
    game2 = shot("standard-afv")
    game2.state.units["R1"] = game2.unit("R1").model_copy(update={"degraded": True})
    game2.move("R1", cm(21), 0, 90)
    res = game2.fire("R1", "B1", [1, 1])
    assert ("degraded and moved more than half its rate", -2) in hit_mods(res)


@pytest.mark.parametrize("option", ["stopped", "no_weapon"])
def test_stopped_or_no_weapon_is_a_table_option(option: str) -> None:
    """AFV-DMG1 vehicle 12-14 'stopped or no weapon': stopped = never moves again (default);
    no_weapon = its most penetrating weapon system is knocked out. The result names it."""
    game = shot("standard-afv", options=AfvOptions(stopped_or_no_weapon=option))  # type: ignore[arg-type]
    res = game.fire("R1", "B1", [4, 4, 4, 5])  # 9 + 3 = 12
    assert any(r.option == "stopped_or_no_weapon" and r.value == option for r in res.rulings)
    target = game.unit("B1")
    game.end_phase()
    if option == "stopped":
        assert target.immobilised and target.weapons_lost == ()
        game.refused(Move(tank_id="B1", x=0, z=cm(10), facing=180), "IMMOBILIZED", "AFV-DMG1")
    else:
        assert not target.immobilised and target.weapons_lost == (0,)
        game.refused(Fire(tank_id="B1", target_id="R1", weapon=0), "WEAPON_LOST", "AFV-DMG1")
        game.move("B1", 0, cm(10), 180)


def test_atgm_fires_only_on_a_turn_that_has_and_starts_with_a_stop_marker() -> None:
    """AFV-SPC1: the ATGM carrier fires only if it began its phase with a stop (Ready)
    marker and does not move that phase."""
    game = AfvGame()
    game.put("R1", "atgm-carrier", "Red", 0, 0)
    game.put("B1", "standard-afv", "Blue", 0, cm(30), 180)
    game.start()
    game.refused(Fire(tank_id="R1", target_id="B1"), "NEEDS_STOP_MARKER", "AFV-SPC1")
    game.end_phase()
    game.end_phase()  # it did not move: Ready, removed at the start of this phase
    game.move("R1", cm(5), 0, 90)
    game.refused(Fire(tank_id="R1", target_id="B1"), "NEEDS_STOP_MARKER", "AFV-SPC1")
    game.move("R1", 0, 0, 0)  # back where it began: it has not moved
    res = game.fire("R1", "B1", [1, 1])
    assert res.outcome["fired"]


def test_utility_vehicle_carries_one_team_ifv_two() -> None:
    """AFV-SPC1: the Utility vehicle carries one infantry team, the IFV two; teams get in
    within their move and out within their move of the carrier, and die with it."""
    game = AfvGame()
    game.put("R1", "utility-vehicle", "Red", 0, 0)
    game.put("R2", "ifv", "Red", cm(15), 0)
    for n in (3, 4, 5):
        game.put(f"R{n}", "standard-infantry", "Red", cm(8), cm(n - 4))
    game.put("B1", "standard-afv", "Blue", 0, cm(40), 180)
    game.start()
    game.do(Embark(tank_id="R3", carrier_id="R1"))
    game.refused(Embark(tank_id="R4", carrier_id="R1"), "CARRIER_FULL", "AFV-SPC1")
    game.do(Embark(tank_id="R4", carrier_id="R2"))
    game.do(Embark(tank_id="R5", carrier_id="R2"))
    assert game.unit("R5").carried_by == "R2"
    game.refused(Fire(tank_id="R5", target_id="B1"), "CARRIED", "AFV-SPC1")
    game.move("R1", cm(30), 0, 90)
    assert game.unit("R3").x == pytest.approx(cm(30))
    game.end_phase()
    res = game.fire("B1", "R2", [6, 6, 6, 6])  # 12 + 9 - 3 = 18: the IFV is destroyed
    assert game.unit("R2").destroyed and game.unit("R4").destroyed and game.unit("R5").destroyed
    assert any(r.clause == "AFV-SPC1" for r in res.rulings)
    game.end_phase()
    game.refused(Disembark(tank_id="R3", x=cm(30), z=cm(11)), "TOO_FAR", "AFV-SPC1")
    game.do(Disembark(tank_id="R3", x=cm(30), z=cm(9)))
    assert game.unit("R3").carried_by is None
