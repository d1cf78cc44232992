"""AFV-FR1, AFV-SP1, AFV-HIT1, AFV-HIT2, AFV-AP1: who may shoot whom, and how many hits."""

from __future__ import annotations

import pytest

from kit.afv import AfvGame, cm, hit_mods
from tankref.rulesets.afv import rules
from tankref.rulesets.afv.actions import Fire, Move, Spot
from tankref.rulesets.afv.cards import default_cards


def game_with(
    shooter: str = "standard-afv", target: str = "standard-afv", at_cm: float = 30.0, **kw: float
) -> AfvGame:
    """Red's R1 (``shooter``) at the origin; Blue's B1 (``target``) ``at_cm`` north. Red's phase."""
    game = AfvGame()
    game.put("R1", shooter, "Red", 0, 0)
    game.put("B1", target, "Blue", kw.get("x", 0.0), cm(at_cm), 180)
    game.start()
    return game


@pytest.mark.parametrize(
    ("total", "hits"),
    [(2, 0), (7, 0), (8, 1), (10, 1), (11, 2), (13, 2), (14, 3), (17, 4), (20, 5)],
)
def test_hit_thresholds_8_11_14_17(total: int, hits: int) -> None:
    """AFV-HIT1: 8+ one hit, 11+ two, 14+ three, 17+ four, and so on (+3 each)."""
    assert rules.hits_for(total) == hits


@pytest.mark.parametrize(("faces", "hits"), [((3, 4), 0), ((4, 4), 1), ((5, 6), 2)])
def test_a_shot_rolls_2d6_plus_hit(faces: tuple[int, int], hits: int) -> None:
    """AFV-HIT1: the main gun (hit 0) at short range: 2d6 alone decides the hits; each hit
    then rolls its own damage dice."""
    game = game_with()
    damage = [1, 1] * hits  # 2 + 9 - 6 = 5: superficial
    result = game.fire("R1", "B1", [*faces, *damage])
    assert result.outcome["hit_total"] == sum(faces)
    assert result.outcome["hits"] == hits
    assert result.outcome["damage"] == ["superficial"] * hits
    assert [r.purpose.startswith("to hit") for r in result.rolls[:2]] == [True, True]


def test_three_hits_from_a_hit_3_weapon() -> None:
    """AFV-HIT1: the IFV's autocannon (hit 3): 6+6+3 = 15, three hits, each rolled."""
    game = game_with("ifv")
    result = game.fire("R1", "B1", [6, 6, 1, 1, 1, 1, 1, 1])
    assert result.outcome["hits"] == 3 and len(result.rolls) == 8


def test_shooter_moved_and_not_infantry_minus_2() -> None:
    """AFV-HIT2: a vehicle that moved this phase shoots at -2; infantry that moved does not."""
    game = game_with()
    game.move("R1", 0, cm(5), 0)
    result = game.fire("R1", "B1", [4, 4])
    assert ("shooter moved and is not infantry", -2) in hit_mods(result)
    assert result.outcome["hits"] == 0  # 8 - 2 = 6
    team = game_with("heavy-weapons-team", at_cm=25)
    team.move("R1", 0, cm(5), 0)
    result = team.fire("R1", "B1", [1, 1])
    assert all("moved" not in label for label, _ in hit_mods(result))


@pytest.mark.parametrize(
    ("card", "penalty"),
    [("fast-cannon-carrier", -3), ("utility-vehicle", -3), ("standard-afv", -2),
     ("heavy-armour", -1), ("heavy-weapons-team", -1)],
)  # fmt: skip
def test_target_moved_laterally_by_class(card: str, penalty: int) -> None:
    """AFV-HIT2: a target whose direction marker is more than 45° off the line: -3 light or
    recon, -2 medium, -1 heavy or infantry."""
    rate = default_cards().units[card].move_cm
    game = game_with("standard-afv", card, at_cm=150, x=-cm(rate * 0.375))
    game.end_phase()
    # East across R1's line of fire, more than half its rate: marker along its facing, east.
    game.move("B1", cm(rate * 0.375), cm(150), 90)
    game.end_phase()
    assert game.unit("B1").direction == pytest.approx(90)
    spot = [1] if game.unit("B1").infantry else []
    result = game.fire("R1", "B1", [*spot, 1, 1], weapon=1)
    lateral = [(label, n) for label, n in hit_mods(result) if "laterally" in label]
    assert [n for _, n in lateral] == [penalty]
    assert any(m.ruling and "direction marker" in m.ruling for m in result.modifiers)


def test_straight_toward_the_shooter_is_not_lateral() -> None:
    """AFV-HIT2: a target that drove straight at the shooter takes no lateral penalty."""
    game = game_with(at_cm=55)
    game.end_phase()
    game.move("B1", 0, cm(25), 180)  # 30 cm toward R1: more than half, marker along
    game.end_phase()
    assert game.unit("B1").direction == pytest.approx(180)
    result = game.fire("R1", "B1", [1, 1])
    assert all("laterally" not in label for label, _ in hit_mods(result))


def test_infantry_in_cover_minus_2() -> None:
    """AFV-HIT2: infantry inside woods or cover are at -2 to hit (the piece they stand in does
    not block the line to them)."""
    game = AfvGame()
    game.terrain("w1", "woods", 0, cm(15), cm(4))
    game.put("R1", "standard-afv", "Red", 0, 0)
    game.put("B1", "standard-infantry", "Blue", 0, cm(15), 180)
    game.start()
    result = game.fire("R1", "B1", [2, 1, 1], weapon=1)
    assert ("infantry in cover (woods w1)", -2) in hit_mods(result)


@pytest.mark.parametrize(
    ("at_cm", "band", "mod"),
    [(40, "short", 0), (41, "long", -2), (200, "long", -2), (201, "distant", -4),
     (400, "distant", -4)],
)  # fmt: skip
def test_range_bands_in_multiples_of_short(at_cm: float, band: str, mod: int) -> None:
    """AFV-HIT2: short +0; long (up to 5x short) -2; distant (up to 10x short) -4; measured in
    cm from the table's inches."""
    game = game_with(at_cm=at_cm)
    result = game.fire("R1", "B1", [1, 1])
    assert result.outcome["range_band"] == band
    assert [n for label, n in hit_mods(result) if "range" in label] == [mod]


def test_beyond_ten_times_short_no_shot() -> None:
    """AFV-HIT2: beyond 10x short range there is no shot (machine gun, short 20 cm: 201 cm)."""
    game = game_with(at_cm=201)
    err = game.refused(Fire(tank_id="R1", target_id="B1", weapon=1), "OUT_OF_RANGE", "AFV-HIT2")
    assert "201 cm" in err.message


def test_infantry_only_hurt_by_anti_personnel_weapons() -> None:
    """AFV-AP1: a weapon with hit 0 (the main gun) may not fire at infantry; the machine gun
    (hit 3) may, and the result states the ruling."""
    game = game_with(target="standard-infantry", at_cm=15)
    game.refused(Fire(tank_id="R1", target_id="B1", weapon=0), "NOT_ANTI_PERSONNEL", "AFV-AP1")
    result = game.fire("R1", "B1", [1, 1, 1], weapon=1)
    assert any(r.clause == "AFV-AP1" and "hit above 0" in r.text for r in result.rulings)


def test_line_of_sight_blocked_by_woods_and_hills() -> None:
    """AFV-FR1: no line of sight (woods or a hill between): no shot."""
    for kind in ("woods", "hill"):
        game = AfvGame()
        game.terrain("t1", kind, 0, cm(20), cm(3))
        game.put("R1", "standard-afv", "Red", 0, 0)
        game.put("B1", "standard-afv", "Blue", 0, cm(40), 180)
        game.start()
        err = game.refused(Fire(tank_id="R1", target_id="B1"), "NO_LINE_OF_SIGHT", "AFV-FR1")
        assert kind in err.message


@pytest.mark.parametrize(("kind", "allowed"), [("woods", True), ("hill", False)])
def test_recon_spotting_lets_others_fire_past_woods_not_hills(kind: str, allowed: bool) -> None:
    """AFV-FR1, AFV-SP1: a target out of sight but spotted by a friendly recon unit may be
    shot unless a hill is between (direct fire)."""
    game = AfvGame()
    game.terrain("t1", kind, 0, cm(20), cm(3))
    game.put("R1", "standard-afv", "Red", 0, 0)
    game.put("R2", "utility-vehicle", "Red", cm(30), cm(10))  # sees B1 round the piece
    game.put("B1", "standard-afv", "Blue", 0, cm(40), 180)
    game.start()
    if allowed:
        result = game.fire("R1", "B1", [1, 1])
        assert "spotted by recon" in result.summary[0]
        assert any(r.clause == "AFV-FR1" for r in result.rulings)
    else:
        game.refused(Fire(tank_id="R1", target_id="B1"), "NO_LINE_OF_SIGHT", "AFV-FR1")


def test_suppressed_unit_fires_only_at_the_nearest_enemy_and_is_revealed() -> None:
    """AFV-FR1: a Suppressed unit may fire at the nearest enemy, revealing itself to all
    opponents, and removes its Suppressed marker."""
    game = AfvGame()
    game.put("R1", "standard-afv", "Red", 0, 0)
    game.put("B1", "standard-afv", "Blue", 0, cm(30), 180)
    game.put("B2", "standard-afv", "Blue", cm(10), cm(60), 180)
    game.start()
    game.state.units["R1"] = game.unit("R1").model_copy(update={"suppressed": True})
    game.refused(Fire(tank_id="R1", target_id="B2"), "NOT_NEAREST_ENEMY", "AFV-FR1")
    result = game.fire("R1", "B1", [1, 1])
    unit = game.unit("R1")
    assert not unit.suppressed and unit.revealed
    assert "Revealed" in result.changes[0].markers
    game.end_phase()  # revealed infantry would need no spotting roll; the marker lasts till
    game.end_phase()  # its own next phase
    assert not game.unit("R1").revealed


def test_one_shot_per_weapon_system() -> None:
    """AFV-FR1: each weapon system fires once a phase, at a single target."""
    game = game_with(at_cm=15)
    game.fire("R1", "B1", [1, 1], weapon=0)
    game.refused(Fire(tank_id="R1", target_id="B1", weapon=0), "ALREADY_FIRED", "AFV-FR1")
    game.fire("R1", "B1", [1, 1], weapon=1)
    game.refused(Fire(tank_id="R1", target_id="B1", weapon=1), "ALREADY_FIRED", "AFV-FR1")
    game.refused(Fire(tank_id="R1", target_id="B1", weapon=2), "NO_SUCH_WEAPON", "AFV-FR1")


@pytest.mark.parametrize(("face", "spotted"), [(1, True), (3, True), (4, False), (6, False)])
def test_infantry_in_sight_spotted_on_1_to_3(face: int, spotted: bool) -> None:
    """AFV-SP1: infantry in line of sight is spotted only on 1-3 on a d6; a unit that failed
    does not shoot at it this phase."""
    game = game_with(target="standard-infantry", at_cm=15)
    result = game.do(Spot(tank_id="R1", target_id="B1"), [face])
    assert result.outcome["spotted"] is spotted
    if spotted:
        game.fire("R1", "B1", [1, 1], weapon=1)  # no second spotting die
    else:
        game.refused(Fire(tank_id="R1", target_id="B1", weapon=1), "NOT_SPOTTED", "AFV-SP1")
    game.refused(Spot(tank_id="R1", target_id="B1"), "ALREADY_SPOTTED", "AFV-SP1", d6=(1,))


def test_fire_at_unspotted_infantry_rolls_the_spotting_die_first() -> None:
    """AFV-SP1: firing at infantry not yet spotted rolls the d6 first; a miss holds the shot
    (the weapon system is not used)."""
    game = game_with(target="standard-infantry", at_cm=15)
    result = game.fire("R1", "B1", [5], weapon=1)
    assert result.outcome == {
        "shooter": "R1", "target": "B1", "weapon": 1, "spotted": False, "fired": False
    }  # fmt: skip
    assert game.unit("R1").fired == ()


def test_what_recon_spots_everyone_spots() -> None:
    """AFV-SP1: infantry spotted by a recon unit is spotted for every friendly unit: no roll."""
    game = AfvGame()
    game.put("R1", "standard-afv", "Red", 0, 0)
    game.put("R2", "utility-vehicle", "Red", cm(10), 0)
    game.put("B1", "standard-infantry", "Blue", 0, cm(15), 180)
    game.start()
    game.do(Spot(tank_id="R2", target_id="B1"), [2])
    result = game.fire("R1", "B1", [1, 1], weapon=1)
    assert len(result.rolls) == 2  # the hit dice only
    assert "spotted by recon" in result.summary[0]


def test_vehicles_in_sight_need_no_spotting() -> None:
    """AFV-SP1: the spotting roll is for infantry; a vehicle in sight is seen."""
    game = game_with()
    game.refused(Spot(tank_id="R1", target_id="B1"), "SPOT_NOT_NEEDED", "AFV-SP1", d6=(1,))
    game.refused(Move(tank_id="B1", x=0, z=0, facing=0), "NOT_YOUR_PHASE")


def test_suppressed_fire_goes_to_the_nearest_enemy_it_could_shoot() -> None:
    """AFV-FR1 (ruling): the nearest enemy is the nearest this weapon could otherwise shoot: one
    hidden behind a hill does not count."""
    game = AfvGame()
    game.terrain("h1", "hill", cm(-20), cm(10), cm(4))
    game.put("R1", "standard-afv", "Red", 0, 0)
    game.put("B1", "standard-afv", "Blue", cm(-35), cm(18), 180)  # nearer, behind the hill
    game.put("B2", "standard-afv", "Blue", cm(10), cm(40), 180)
    game.start()
    game.state.units["R1"] = game.unit("R1").model_copy(update={"suppressed": True})
    game.refused(Fire(tank_id="R1", target_id="B1"), "NO_LINE_OF_SIGHT")
    result = game.fire("R1", "B2", [1, 1])
    assert any(r.clause == "AFV-FR1" and "nearest enemy" in r.text for r in result.rulings)


def test_a_shot_redraws_the_shooters_tooltip_with_what_it_did() -> None:
    """AFV-FR1: the shooter is among the result's changed units (even when its own state did
    not change), its tooltip saying what it just fired at, so the table redraws it."""
    game = game_with()
    result = game.fire("R1", "B1", [1, 1])  # 2: a miss
    shooter = next(c for c in result.changes if c.tank_id == "R1")
    assert "Last:" in shooter.tooltip and "B1" in shooter.tooltip
