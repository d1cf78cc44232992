"""TinyTableTopTanks Engage, through the real engine with forced dice: who may fire (TTT-E1),
the side hit (TTT-E2), the best-armour turn (TTT-E3), Accuracy (TTT-E4), Penetration and
Cover (TTT-E5, TTT-CV1), star rerolls (TTT-E6), the damage card and deck (TTT-E7),
concealment (TTT-CN1) and the Accuracy penalties of TTT-M1, TTT-MR1 and TTT-M2.

Dice faces: white 5 = HIT, 6 = HIT HIT, 1-4 blank; red 1-2 blank, 3-4 PEN, 5 PEN PEN,
6 PEN + STAR; green 1-3 morale OK. Tiger I: Acc 4, Pen 5, F6 S5 R5 T7, Movement 5".
M4A1 Sherman: Acc 3, Pen 3, F5 S3 R3 T5, Movement 6".
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

import pytest

from kit.ttt import Game
from tankref.core.dice import Roll
from tankref.core.results import Result, TankChange
from tankref.rulesets.ttt.actions import EndPhase, Engage, Move, Wait
from tankref.rulesets.ttt.engine import legal_actions, options_for
from tankref.rulesets.ttt.presentation import markers
from tankref.rulesets.ttt.state import Options

Tank = tuple[str, str, str, float, float, float]

# The default duel: Red's Tiger in the south facing north, Blue's Sherman in the north facing
# south, 40" apart, each straight in front of the other.
R1: Tank = ("R1", "tiger-i", "Red", 0.0, -20.0, 0.0)
B1: Tank = ("B1", "m4a1-sherman", "Blue", 0.0, 20.0, 180.0)

ONE_HIT = [5, 1, 1, 1]  # Tiger's four white dice, one HIT
MISS = [1, 1, 1, 1]
FIVE_PEN = [5, 5, 3, 1, 1]  # Tiger's five red dice: 2 + 2 + 1 = 5 PEN, no star
FOUR_PEN = [5, 5, 1, 1, 1]  # 4 PEN, no star

HOUSE_DECK = {
    "Explosion": 3,
    "Fire": 3,
    "Knocked Out": 2,
    "Immobilized": 3,
    "Gun Damaged": 2,
    "Optics Damaged": 2,
    "Engine Damaged": 2,
    "Turret Jammed": 1,
    "Crew Stunned": 1,
    "Glancing Blow": 1,
}


def table(
    *tanks: Tank,
    terrain: tuple[tuple[str, str, dict[str, Any]], ...] = (),
    grizzled: tuple[str, ...] = (),
    hull_down: tuple[str, ...] = (),
    **options: Any,
) -> Game:
    """A started table, Red's phase of turn 1. Deployment depth is opened to the whole table
    so a test can put a shooter anywhere (a table setting, not a ruling)."""
    opts: dict[str, Any] = {"deploy_depth": 48.0, "turn_limit": 50, **options}
    g = Game(options=Options(**opts))
    for piece_id, kind, shape in terrain:
        g.terrain(piece_id, kind, shape)
    tanks = tanks or (R1, B1)
    for tank_id, card, player, x, z, facing in tanks:
        g.place(tank_id, card, player, x, z, facing, hull_down=tank_id in hull_down)
    for tank_id, *_ in tanks:
        g.crew(tank_id, grizzled=tank_id in grizzled)
    g.start()
    return g


def circle(x: float, z: float, radius: float) -> dict[str, Any]:
    return {"shape": "circle", "x": x, "z": z, "radius": radius}


def at(bearing_deg: float, dist: float = 20.0) -> tuple[float, float]:
    """The point ``dist`` from the origin along yaw ``bearing_deg`` (0 = +z, 90 = +x)."""
    rad = math.radians(bearing_deg)
    return (round(dist * math.sin(rad), 6), round(dist * math.cos(rad), 6))


def target_at_origin(shooter_bearing: float, card: str = "m4a1-sherman", **options: Any) -> Game:
    """B1 at the origin facing north (0°); R1 (a Sherman) 20" away along ``shooter_bearing``."""
    x, z = at(shooter_bearing)
    shooter: Tank = ("R1", "m4a1-sherman", "Red", x, z, 0.0)
    return table(shooter, ("B1", card, "Blue", 0.0, 0.0, 0.0), **options)


def end_phase(g: Game) -> None:
    g.do(EndPhase())


def whites(result: Result) -> list[Roll]:
    return [r for r in result.rolls if r.die == "white"]


def reds(result: Result) -> list[Roll]:
    return [r for r in result.rolls if r.die == "red"]


def mods(result: Result, clause: str) -> list[tuple[str, int, str]]:
    return [(m.label, m.amount, m.applies_to) for m in result.modifiers if m.clause == clause]


def change_of(result: Result, tank_id: str) -> TankChange:
    found = [c for c in result.changes if c.tank_id == tank_id]
    assert len(found) == 1, result.changes
    return found[0]


def penetrate(
    g: Game,
    card: str,
    *,
    shooter: str = "R1",
    target: str = "B1",
    green: tuple[int, ...] | list[int] = (),
) -> Result:
    """The Tiger's sure penetration of a Sherman's front (5 PEN vs armour 5), drawing ``card``."""
    result = g.do(
        Engage(tank_id=shooter, target_id=target),
        white=ONE_HIT,
        red=FIVE_PEN,
        green=green,
        card=card,
    )
    assert result.outcome["penetrated"] is True
    assert result.outcome["damage_card"] == card
    return result


# --- TTT-E1: who may Engage ---------------------------------------------------------------------


def test_e1_engage_resolves_and_uses_the_turns_engage() -> None:
    """TTT-E1: a tank in its phase with sight of an enemy Engages; it is then marked engaged."""
    g = table()
    result = g.do(Engage(tank_id="R1", target_id="B1"), white=MISS)
    assert result.outcome["shooter"] == "R1"
    assert result.outcome["target"] == "B1"
    assert result.outcome["range"] == 40.0
    assert result.outcome["hit"] is False
    assert len(whites(result)) == 4
    assert g.tank("R1").engaged is True


def test_e1_second_engage_same_turn_refused() -> None:
    """TTT-E1: once per turn: a second Engage is refused ALREADY_ENGAGED, state unchanged."""
    g = table()
    g.do(Engage(tank_id="R1", target_id="B1"), white=MISS)
    err = g.refused(Engage(tank_id="R1", target_id="B1"), "ALREADY_ENGAGED", white=MISS)
    assert err.clause == "TTT-E1"


def test_e1_engage_again_next_turn() -> None:
    """TTT-E1: the once-per-turn limit resets at the start of the shooter's next phase."""
    g = table()
    g.do(Engage(tank_id="R1", target_id="B1"), white=MISS)
    end_phase(g)
    end_phase(g)
    assert g.tank("R1").engaged is False
    g.do(Engage(tank_id="R1", target_id="B1"), white=MISS)
    assert g.tank("R1").engaged is True


def test_e1_friendly_target_refused() -> None:
    """TTT-E1: only an enemy tank may be engaged: a friendly target is NOT_AN_ENEMY."""
    g = table(R1, B1, ("R2", "m4a1-sherman", "Red", 10.0, -20.0, 0.0))
    err = g.refused(Engage(tank_id="R1", target_id="R2"), "NOT_AN_ENEMY", white=MISS)
    assert err.clause == "TTT-E1"


def test_e1_destroyed_target_refused() -> None:
    """TTT-E1: a destroyed tank is no longer an enemy in play: TARGET_NOT_ON_TABLE."""
    g = table(
        R1,
        B1,
        ("R2", "tiger-i", "Red", 10.0, -20.0, 0.0),
        ("B2", "m4a1-sherman", "Blue", 10.0, 20.0, 180.0),
        grizzled=("B2",),
    )
    penetrate(g, "Knocked Out")
    assert g.tank("B1").destroyed is True
    g.refused(Engage(tank_id="R2", target_id="B1"), "TARGET_NOT_ON_TABLE", white=ONE_HIT)


def test_e1_destroyed_shooter_refused() -> None:
    """TTT-E1: a destroyed tank is not allowed to fire: DESTROYED, state unchanged."""
    g = table(
        R1,
        B1,
        ("R2", "tiger-i", "Red", 10.0, -20.0, 0.0),
        ("B2", "m4a1-sherman", "Blue", 10.0, 20.0, 180.0),
        grizzled=("R2",),
    )
    end_phase(g)  # Blue's phase: B2 knocks out the Tiger through its front (6 PEN vs 6)
    g.do(Engage(tank_id="B2", target_id="R1"), white=[5, 1, 1], red=[5, 5, 5], card="Knocked Out")
    assert g.tank("R1").destroyed is True
    g.refused(Engage(tank_id="R1", target_id="B1"), "DESTROYED", white=MISS)


def test_e1_only_visible_enemies_are_offered_as_targets() -> None:
    """TTT-E1: legal targets are the enemy tanks in line of sight; one behind a rock is left out."""
    g = table(
        R1,
        B1,
        ("B2", "m4a1-sherman", "Blue", 20.0, 20.0, 180.0),
        terrain=(("rock", "blocking", circle(10.0, 0.0, 3.0)),),
    )
    engage = next(o for o in options_for(g.state, "R1") if o.kind == "engage")
    assert engage.allowed
    assert engage.detail is not None
    assert [t["target_id"] for t in engage.detail["targets"]] == ["B1"]
    g.refused(Engage(tank_id="R1", target_id="B2"), "NO_LINE_OF_SIGHT", white=MISS)


def test_e1_blocking_terrain_between_refuses_no_line_of_sight() -> None:
    """TTT-E1: a `blocking` piece crossed by the line of fire blocks sight: NO_LINE_OF_SIGHT."""
    g = table(terrain=(("rock", "blocking", circle(0.0, 0.0, 3.0)),))
    err = g.refused(Engage(tank_id="R1", target_id="B1"), "NO_LINE_OF_SIGHT", white=MISS)
    assert err.clause == "TTT-E1"
    assert err.details["blocked_by"] == "rock"


def test_e1_blocking_piece_beside_the_line_does_not_block() -> None:
    """TTT-E1: a blocking piece the line of fire does not cross leaves sight open."""
    g = table(terrain=(("rock", "blocking", circle(10.0, 0.0, 3.0)),))
    result = g.do(Engage(tank_id="R1", target_id="B1"), white=MISS)
    assert result.outcome["shooter"] == "R1"


@pytest.mark.parametrize(("holder", "centre"), [("shooter", (0.0, -20.0)), ("target", (0.0, 20.0))])
def test_e1_blocking_piece_holding_shooter_or_target_does_not_block(
    holder: str, centre: tuple[float, float]
) -> None:
    """TTT-E1 ruling: a blocking piece that holds the shooter or the target does not block."""
    g = table(terrain=(("ruin", "blocking", circle(*centre, 4.0)),))
    result = g.do(Engage(tank_id="R1", target_id="B1"), white=MISS)
    assert result.outcome["range"] == 40.0, holder


def test_e1_out_of_phase_without_wait_refused() -> None:
    """TTT-E1/TTT-W1: in the enemy's phase a tank not in Wait may not Engage: NOT_YOUR_PHASE."""
    g = table()
    end_phase(g)  # Blue's phase now
    assert g.state.active_player == "Blue"
    g.refused(Engage(tank_id="R1", target_id="B1"), "NOT_YOUR_PHASE", white=MISS)


def test_e1_out_of_phase_from_wait_with_its_own_move_penalty() -> None:
    """TTT-E1/TTT-W1: a Waiting tank Engages in the enemy's phase; its own move's -2 counts."""
    g = table()
    g.do(Move(tank_id="R1", x=0.0, z=-17.0, facing=0.0))  # 3": a Normal Move
    g.do(Wait(tank_id="R1"))
    end_phase(g)
    assert g.state.active_player == "Blue"
    result = g.do(Engage(tank_id="R1", target_id="B1"), white=[1, 1])
    assert mods(result, "TTT-M1") == [("moved this turn (normal)", -2, "accuracy_dice")]
    assert result.outcome["accuracy_dice"] == 2
    assert g.tank("R1").waiting is False
    assert g.tank("R1").engaged is True


def test_e1_engage_while_moving_fast_refused() -> None:
    """TTT-M2/TTT-E1: Moving Fast, a card that cannot fire fast is refused ENGAGE_WHILE_FAST."""
    g = table()
    g.do(Move(tank_id="R1", x=0.0, z=-12.0, facing=0.0))  # 8": between 5" and 10", Fast
    assert g.tank("R1").moved == "fast"
    err = g.refused(Engage(tank_id="R1", target_id="B1"), "ENGAGE_WHILE_FAST", white=[1, 1])
    assert err.clause == "TTT-M2"


def test_e1_card_that_fires_while_fast_may_engage() -> None:
    """TTT-M2: the M5 Stuart's card lets it Engage while Moving Fast (with the -2 for moving)."""
    g = table(("R1", "m5-stuart", "Red", 0.0, -20.0, 0.0), B1)
    g.do(Move(tank_id="R1", x=0.0, z=-8.0, facing=0.0))  # 12": Fast for Movement 9"
    assert g.tank("R1").moved == "fast"
    result = g.do(Engage(tank_id="R1", target_id="B1"), white=[1])
    assert result.outcome["accuracy_dice"] == 1
    assert mods(result, "TTT-M1") == [("moved this turn (fast)", -2, "accuracy_dice")]


# --- TTT-E2: the side hit -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("bearing_deg", "side", "armour"),
    [
        (0.0, "front", 5),
        (30.0, "front", 5),
        (90.0, "side", 3),
        (-100.0, "side", 3),
        (180.0, "rear", 3),
        (150.0, "rear", 3),
    ],
)
def test_e2_side_by_bearing_default_arcs(bearing_deg: float, side: str, armour: int) -> None:
    """TTT-E2: Front within ±45° of the facing, Rear within ±45° of the back, Side otherwise."""
    g = target_at_origin(bearing_deg, best_armour="never")
    result = g.do(Engage(tank_id="R1", target_id="B1"), white=[5, 1, 1], red=[1, 1, 1])
    assert result.outcome["hit_side"] == side
    assert result.outcome["armour"] == armour
    ruling = [
        r for r in result.rulings if r.clause == "TTT-E2" and r.option == "front_arc/rear_arc"
    ]
    assert [r.value for r in ruling] == ["45/45"]


def test_e2_front_arc_option_widens_the_front() -> None:
    """TTT-E2 (option: arc width): a shot 60° off the nose is Side by default, Front at ±70°."""
    default = target_at_origin(60.0, best_armour="never")
    r1 = default.do(Engage(tank_id="R1", target_id="B1"), white=[5, 1, 1], red=[1, 1, 1])
    assert r1.outcome["hit_side"] == "side"
    wide = target_at_origin(60.0, best_armour="never", front_arc=70.0)
    r2 = wide.do(Engage(tank_id="R1", target_id="B1"), white=[5, 1, 1], red=[1, 1, 1])
    assert r2.outcome["hit_side"] == "front"
    assert r2.outcome["armour"] == 5
    assert any(r.clause == "TTT-E2" and r.value == "70/45" for r in r2.rulings)


def test_e2_rear_arc_option_widens_the_rear() -> None:
    """TTT-E2 (option: arc width): a shot 120° off the nose is Side by default, Rear at ±70°."""
    default = target_at_origin(120.0, best_armour="never", card="churchill-vii")
    r1 = default.do(Engage(tank_id="R1", target_id="B1"), white=[5, 1, 1], red=[1, 1, 1])
    assert (r1.outcome["hit_side"], r1.outcome["armour"]) == ("side", 5)
    wide = target_at_origin(120.0, best_armour="never", card="churchill-vii", rear_arc=70.0)
    r2 = wide.do(Engage(tank_id="R1", target_id="B1"), white=[5, 1, 1], red=[1, 1, 1])
    assert (r2.outcome["hit_side"], r2.outcome["armour"]) == ("rear", 4)
    assert any(r.clause == "TTT-E2" and r.value == "45/70" for r in r2.rulings)


def test_e2_exactly_on_front_side_edge_takes_weaker_armour() -> None:
    """TTT-E2 ruling: a bearing exactly on the front/side edge hits the weaker armour (Side 3)."""
    g = table(
        ("R1", "m4a1-sherman", "Red", 20.0, 20.0, 0.0),
        ("B1", "m4a1-sherman", "Blue", 0.0, 0.0, 0.0),
        best_armour="never",
    )
    result = g.do(Engage(tank_id="R1", target_id="B1"), white=[5, 1, 1], red=[1, 1, 1])
    assert result.outcome["hit_side"] == "side"
    assert result.outcome["armour"] == 3
    assert any(r.clause == "TTT-E2" and "exactly on an arc edge" in r.text for r in result.rulings)


def test_e2_exactly_on_side_rear_edge_takes_weaker_armour() -> None:
    """TTT-E2 ruling: exactly on the side/rear edge of a Churchill (S5, R4) the Rear is hit."""
    g = table(
        ("R1", "m4a1-sherman", "Red", 20.0, -20.0, 0.0),
        ("B1", "churchill-vii", "Blue", 0.0, 0.0, 0.0),
        best_armour="never",
    )
    result = g.do(Engage(tank_id="R1", target_id="B1"), white=[5, 1, 1], red=[1, 1, 1])
    assert (result.outcome["hit_side"], result.outcome["armour"]) == ("rear", 4)
    assert any(r.clause == "TTT-E2" and "exactly on an arc edge" in r.text for r in result.rulings)


def test_e2_off_the_edge_no_edge_ruling() -> None:
    """TTT-E2: a bearing clearly inside an arc reports no arc-edge ruling."""
    g = target_at_origin(44.0, best_armour="never")
    result = g.do(Engage(tank_id="R1", target_id="B1"), white=[5, 1, 1], red=[1, 1, 1])
    assert result.outcome["hit_side"] == "front"
    assert not any("arc edge" in r.text for r in result.rulings)


def test_e2_hull_down_flag_hits_the_turret() -> None:
    """TTT-E2: a target flagged hull-down is hit on the Turret (Tiger T7), whatever the bearing."""
    g = table(
        ("R1", "m4a1-sherman", "Red", 0.0, -20.0, 0.0),
        ("B1", "tiger-i", "Blue", 0.0, 20.0, 180.0),
        hull_down=("B1",),
    )
    result = g.do(Engage(tank_id="R1", target_id="B1"), white=[5, 1, 1], red=[5, 5, 5])
    assert result.outcome["hit_side"] == "turret"
    assert result.outcome["armour"] == 7
    assert result.outcome["penetrated"] is False  # 6 PEN < 7: the front (6) would have gone
    assert any(r.clause == "TTT-E2" and "hull-down" in r.text for r in result.rulings)


def test_e2_hill_holding_the_target_hits_the_turret() -> None:
    """TTT-E2 ruling: a target inside a `hill` piece is hull-down to a shooter outside it."""
    g = table(
        ("R1", "m4a1-sherman", "Red", 0.0, -20.0, 0.0),
        ("B1", "tiger-i", "Blue", 0.0, 20.0, 180.0),
        terrain=(("ridge", "hill", circle(0.0, 20.0, 3.0)),),
    )
    result = g.do(Engage(tank_id="R1", target_id="B1"), white=[5, 1, 1], red=[1, 1, 1])
    assert (result.outcome["hit_side"], result.outcome["armour"]) == ("turret", 7)


def test_e2_hill_holding_both_is_no_hull_down() -> None:
    """TTT-E2 ruling: when the same hill holds the shooter too, the target is not hull-down."""
    g = table(
        ("R1", "m4a1-sherman", "Red", 0.0, 10.0, 0.0),
        ("B1", "tiger-i", "Blue", 0.0, 20.0, 180.0),
        terrain=(("ridge", "hill", circle(0.0, 15.0, 8.0)),),
    )
    result = g.do(Engage(tank_id="R1", target_id="B1"), white=[5, 1, 1], red=[1, 1, 1])
    assert (result.outcome["hit_side"], result.outcome["armour"]) == ("front", 6)


# --- TTT-E3: the best-armour turn ---------------------------------------------------------------


def test_e3_auto_turns_best_armour_to_the_shot() -> None:
    """TTT-E3 ruling (auto): a side shot turns the target's front to the shooter, uses its facing
    change and emits a turn_model event."""
    g = target_at_origin(90.0)
    result = g.do(Engage(tank_id="R1", target_id="B1"), white=[5, 1, 1], red=[1, 1, 1])
    assert (result.outcome["hit_side"], result.outcome["armour"]) == ("front", 5)
    b1 = g.tank("B1")
    assert b1.facing == 90.0
    assert b1.facing_changed is True
    events = [e for e in result.events if e.kind == "turn_model"]
    assert len(events) == 1
    assert events[0].clause == "TTT-E3"
    assert events[0].data == {"tank_id": "B1", "facing": 90.0, "before": 0.0}
    assert any(
        r.clause == "TTT-E3" and r.option == "best_armour" and r.value == "auto"
        for r in result.rulings
    )
    assert change_of(result, "B1").changes["facing"] == [0.0, 90.0]


def test_e3_auto_turn_happens_even_on_a_miss() -> None:
    """TTT-E3: the target turns to the attack before the Accuracy roll, hit or miss."""
    g = target_at_origin(180.0)
    result = g.do(Engage(tank_id="R1", target_id="B1"), white=[1, 1, 1])
    assert result.outcome["hit"] is False
    assert result.outcome["hit_side"] == "front"
    assert g.tank("B1").facing == 180.0


def test_e3_front_already_best_no_turn() -> None:
    """TTT-E3: a shot already on the best armour turns nothing and keeps the facing change."""
    g = table()
    result = g.do(Engage(tank_id="R1", target_id="B1"), white=MISS)
    assert result.outcome["hit_side"] == "front"
    assert not [e for e in result.events if e.kind == "turn_model"]
    assert g.tank("B1").facing_changed is False


def test_e3_second_shot_same_turn_cannot_turn() -> None:
    """TTT-E3: once a turn: after turning to one shooter, a flanker's shot hits the side."""
    g = table(
        ("R1", "m4a1-sherman", "Red", 20.0, 0.0, 0.0),
        ("R2", "m4a1-sherman", "Red", 0.0, -20.0, 0.0),
        ("B1", "m4a1-sherman", "Blue", 0.0, 0.0, 0.0),
    )
    first = g.do(Engage(tank_id="R1", target_id="B1"), white=[1, 1, 1])
    assert first.outcome["hit_side"] == "front"
    assert g.tank("B1").facing == 90.0
    second = g.do(Engage(tank_id="R2", target_id="B1"), white=[1, 1, 1])
    assert second.outcome["hit_side"] == "side"
    assert not [e for e in second.events if e.kind == "turn_model"]
    assert g.tank("B1").facing == 90.0
    assert any(r.clause == "TTT-E3" and "already changed facing" in r.text for r in second.rulings)


def test_e3_option_never_keeps_the_facing() -> None:
    """TTT-E3 (option: never): the target is not turned; the side is hit; the ruling says so."""
    g = target_at_origin(90.0, best_armour="never")
    result = g.do(Engage(tank_id="R1", target_id="B1"), white=[1, 1, 1])
    assert result.outcome["hit_side"] == "side"
    assert g.tank("B1").facing == 0.0
    assert g.tank("B1").facing_changed is False
    assert not [e for e in result.events if e.kind == "turn_model"]
    assert any(r.clause == "TTT-E3" and r.value == "never" for r in result.rulings)


def test_e3_moving_fast_target_cannot_turn() -> None:
    """TTT-E3: a target Moving Fast (played: 10" by a Sherman) cannot turn its best armour."""
    g = table(
        ("R1", "m4a1-sherman", "Red", 20.0, 0.0, 0.0),
        ("B1", "m4a1-sherman", "Blue", 0.0, 10.0, 0.0),
    )
    end_phase(g)  # Blue's phase
    g.do(Move(tank_id="B1", x=0.0, z=0.0, facing=0.0))  # 10": between 6" and 12", Fast
    assert g.tank("B1").moved == "fast"
    end_phase(g)  # Red's phase, turn 2: B1 still Moving Fast
    assert "Moving Fast" in markers(g.tank("B1"))
    result = g.do(Engage(tank_id="R1", target_id="B1"), white=[1, 1, 1])
    assert result.outcome["hit_side"] == "side"
    assert g.tank("B1").facing == 0.0
    assert any(r.clause == "TTT-E3" and "Moving Fast" in r.text for r in result.rulings)


# --- TTT-E4: Accuracy ---------------------------------------------------------------------------


def test_e4_rolls_the_cards_accuracy_dice() -> None:
    """TTT-E4: with no penalty the shooter rolls exactly its card's Accuracy (Tiger: 4 white)."""
    g = table()
    result = g.do(Engage(tank_id="R1", target_id="B1"), white=MISS)
    assert result.outcome["accuracy_dice"] == 4
    assert [r.face for r in whites(result)] == MISS
    assert result.modifiers == []
    assert result.outcome["hit"] is False
    assert reds(result) == []  # a miss rolls no Penetration


def test_e4_too_few_white_dice_asks_for_more() -> None:
    """TTT-E4: a table that supplies fewer than the Accuracy dice is asked for them; no change."""
    g = table()
    err = g.refused(Engage(tank_id="R1", target_id="B1"), "DICE_NEEDED", white=[1, 1, 1])
    assert err.details["need"]["die"] == "white"


def test_e4_two_hit_icons_are_still_one_hit() -> None:
    """TTT-E4: a 6 (HIT HIT) plus a 5 score one hit: one Penetration roll of the card's dice."""
    g = table()
    result = g.do(Engage(tank_id="R1", target_id="B1"), white=[6, 5, 1, 1], red=FOUR_PEN)
    assert result.outcome["hit"] is True
    assert len(reds(result)) == 5  # the Tiger's 5 red dice, once
    assert result.outcome["pens"] == 4
    assert result.outcome["penetrated"] is False
    assert any(r.clause == "TTT-E4" and "at most one hit" in r.text for r in result.rulings)


def test_e4_every_penalty_listed_with_its_clause() -> None:
    """TTT-E4: dice = card less every penalty, each listed in result.modifiers with its clause."""
    g = table(
        ("R1", "tiger-i", "Red", 0.0, -5.0, 0.0),
        ("B1", "m4a1-sherman", "Blue", 0.0, 5.0, 180.0),
        terrain=(("wood", "forest", circle(0.0, 0.0, 12.0)),),
    )
    g.do(Move(tank_id="R1", x=0.0, z=-3.0, facing=0.0))
    result = g.do(Engage(tank_id="R1", target_id="B1"), white=[1])
    assert [(m.clause, m.amount) for m in result.modifiers] == [("TTT-M1", -2), ("TTT-CN1", -1)]
    assert all(m.applies_to == "accuracy_dice" for m in result.modifiers)
    assert result.outcome["accuracy_dice"] == 1
    assert len(whites(result)) == 1


def test_e4_no_dice_left_the_engage_fails_without_rolling() -> None:
    """TTT-E4 ruling: an IS-2 (Acc 2) that moved (-2) has no dice left: the Engage fails."""
    g = table(("R1", "is-2", "Red", 0.0, -20.0, 0.0), B1)
    g.do(Move(tank_id="R1", x=0.0, z=-17.0, facing=0.0))
    result = g.do(Engage(tank_id="R1", target_id="B1"))
    assert result.rolls == []
    assert result.outcome["accuracy_dice"] == 0
    assert result.outcome["hit"] is False
    assert result.outcome["reason"] == "no accuracy dice"
    assert any(r.clause == "TTT-E4" and "no Accuracy dice left" in r.text for r in result.rulings)
    assert g.tank("R1").engaged is True


def test_e4_no_dice_left_refuses_supplied_white_dice() -> None:
    """TTT-E4 ruling: with no dice left nothing is rolled, so a supplied white die is left over."""
    g = table(("R1", "is-2", "Red", 0.0, -20.0, 0.0), B1)
    g.do(Move(tank_id="R1", x=0.0, z=-17.0, facing=0.0))
    g.refused(Engage(tank_id="R1", target_id="B1"), "DICE_COUNT_WRONG", white=[6])


# --- TTT-M1, TTT-MR1, TTT-M2: Accuracy penalties --------------------------------------------


def test_m1_moved_shooter_loses_two_dice() -> None:
    """TTT-M1: a tank that moved this turn rolls 2 fewer Accuracy dice (Tiger 4 -> 2)."""
    g = table()
    g.do(Move(tank_id="R1", x=0.0, z=-17.0, facing=0.0))
    assert g.tank("R1").moved == "normal"
    result = g.do(Engage(tank_id="R1", target_id="B1"), white=[5, 1], red=FOUR_PEN)
    assert mods(result, "TTT-M1") == [("moved this turn (normal)", -2, "accuracy_dice")]
    assert result.outcome["accuracy_dice"] == 2
    assert result.outcome["hit"] is True


def test_m1_drift_within_tolerance_is_no_move() -> None:
    """TTT-M1 ruling: a position change within the drift tolerance is Stopped: no -2."""
    g = table()
    g.do(Move(tank_id="R1", x=0.1, z=-20.1, facing=0.0))
    result = g.do(Engage(tank_id="R1", target_id="B1"), white=MISS)
    assert mods(result, "TTT-M1") == []
    assert result.outcome["accuracy_dice"] == 4


def test_mr1_shaken_shooter_loses_one_die() -> None:
    """TTT-MR1: a crew Shaken by a real morale check rolls 1 Accuracy die fewer (4 -> 3)."""
    g = table()
    end_phase(g)  # Blue's phase: the Sherman penetrates the Tiger's front (6 PEN vs 6)
    hit = g.do(
        Engage(tank_id="B1", target_id="R1"),
        white=[5, 1, 1],
        red=[5, 5, 5],
        green=[4],
        card="Glancing Blow",
    )
    assert hit.outcome["penetrated"] is True
    assert g.tank("R1").morale == "shaken"
    end_phase(g)
    result = g.do(Engage(tank_id="R1", target_id="B1"), white=[1, 1, 1])
    assert mods(result, "TTT-MR1") == [("Shaken crew", -1, "accuracy_dice")]
    assert result.outcome["accuracy_dice"] == 3


@pytest.mark.parametrize(
    ("card", "movement"), [("m5-stuart", 9.0), ("t-34-85", 7.0), ("cromwell-iv", 8.0)]
)
def test_m2_fast_evasion_target_costs_one_die(card: str, movement: float) -> None:
    """TTT-M2: a target Moving Fast whose card gives -1 enemy Accuracy costs the shooter 1 die."""
    g = table(R1, ("B1", card, "Blue", 0.0, 20.0, 180.0))
    end_phase(g)
    g.do(Move(tank_id="B1", x=0.0, z=20.0 - 1.5 * movement, facing=180.0))
    assert g.tank("B1").moved == "fast"
    end_phase(g)
    result = g.do(Engage(tank_id="R1", target_id="B1"), white=[1, 1, 1])
    assert mods(result, "TTT-M2") == [
        ("target Moving Fast (its card: -1 enemy Accuracy)", -1, "accuracy_dice")
    ]
    assert result.outcome["accuracy_dice"] == 3


def test_m2_fast_target_without_the_card_bonus_costs_nothing() -> None:
    """TTT-M2: a Sherman (no fast-evasion on its card) Moving Fast gives no Accuracy penalty."""
    g = table()
    end_phase(g)
    g.do(Move(tank_id="B1", x=0.0, z=10.0, facing=180.0))
    assert g.tank("B1").moved == "fast"
    end_phase(g)
    result = g.do(Engage(tank_id="R1", target_id="B1"), white=MISS)
    assert mods(result, "TTT-M2") == []
    assert result.outcome["accuracy_dice"] == 4


def test_m2_normal_move_target_no_evasion() -> None:
    """TTT-M2: a fast-evasion card gives its -1 only while Moving Fast, not after a Normal Move."""
    g = table(R1, ("B1", "m5-stuart", "Blue", 0.0, 20.0, 180.0))
    end_phase(g)
    g.do(Move(tank_id="B1", x=0.0, z=14.0, facing=180.0))
    assert g.tank("B1").moved == "normal"
    end_phase(g)
    result = g.do(Engage(tank_id="R1", target_id="B1"), white=MISS)
    assert mods(result, "TTT-M2") == []


# --- TTT-E5: Penetration ------------------------------------------------------------------------


def test_e5_pens_equal_to_armour_penetrate() -> None:
    """TTT-E5: PEN icons equal to the armour of the side hit penetrate (5 vs Front 5)."""
    g = table(grizzled=("B1",))
    result = g.do(
        Engage(tank_id="R1", target_id="B1"), white=ONE_HIT, red=FIVE_PEN, card="Glancing Blow"
    )
    assert result.outcome["pens"] == 5
    assert result.outcome["needed"] == 5
    assert result.outcome["penetrated"] is True


def test_e5_pens_below_armour_do_not_penetrate() -> None:
    """TTT-E5: one PEN short of the armour is no penetration and draws no card."""
    g = table()
    result = g.do(Engage(tank_id="R1", target_id="B1"), white=ONE_HIT, red=FOUR_PEN)
    assert (result.outcome["pens"], result.outcome["penetrated"]) == (4, False)
    assert "damage_card" not in result.outcome
    assert g.state.deck.discard == ()


def test_e5_cover_counted_once_by_default() -> None:
    """TTT-E5 ruling: Cover is added to the armour once; the red dice stay the card's."""
    g = table(terrain=(("wall", "cover1", circle(0.0, 0.0, 2.0)),))
    result = g.do(Engage(tank_id="R1", target_id="B1"), white=ONE_HIT, red=FIVE_PEN)
    assert result.outcome["penetration_dice"] == 5
    assert (result.outcome["cover"], result.outcome["needed"]) == (1, 6)
    assert result.outcome["penetrated"] is False
    assert mods(result, "TTT-E5") == []
    assert any(
        r.clause == "TTT-E5" and r.option == "cover" and r.value == "armour" for r in result.rulings
    )


def test_e5_cover_literal_also_removes_dice() -> None:
    """TTT-E5 (option: literal): Cover is also taken off the red dice (5 - 1 = 4 rolled)."""
    g = table(
        terrain=(("wall", "cover1", circle(0.0, 0.0, 2.0)),), cover="literal", grizzled=("B1",)
    )
    result = g.do(
        Engage(tank_id="R1", target_id="B1"), white=ONE_HIT, red=[5, 5, 5, 1], card="Glancing Blow"
    )
    assert result.outcome["penetration_dice"] == 4
    assert len(reds(result)) == 4
    assert result.outcome["needed"] == 6
    assert result.outcome["penetrated"] is True
    assert mods(result, "TTT-E5") == [
        ("Cover also taken off the red dice (wall: between)", -1, "penetration_dice")
    ]
    assert any(
        r.clause == "TTT-E5" and r.option == "cover" and r.value == "literal"
        for r in result.rulings
    )


# --- TTT-CV1: Cover -----------------------------------------------------------------------------


def test_cv1_cover1_holding_the_target_adds_one() -> None:
    """TTT-CV1: a cover1 piece holding the target adds +1 to its armour against penetration."""
    g = table(terrain=(("hedge", "cover1", circle(0.0, 20.0, 3.0)),))
    result = g.do(Engage(tank_id="R1", target_id="B1"), white=ONE_HIT, red=FIVE_PEN)
    assert mods(result, "TTT-CV1") == [("Cover +1 (hedge: target inside)", 1, "armour")]
    assert result.outcome["needed"] == 6
    assert result.outcome["penetrated"] is False


def test_cv1_cover2_between_adds_two() -> None:
    """TTT-CV1: a cover2 piece between shooter and target adds +2."""
    g = table(terrain=(("bank", "cover2", circle(0.0, 0.0, 3.0)),))
    result = g.do(Engage(tank_id="R1", target_id="B1"), white=ONE_HIT, red=[5, 5, 5, 1, 1])
    assert mods(result, "TTT-CV1") == [("Cover +2 (bank: between)", 2, "armour")]
    assert result.outcome["needed"] == 7
    assert result.outcome["penetrated"] is False


def test_cv1_largest_cover_applies_not_the_sum() -> None:
    """TTT-CV1 ruling: cover1 and cover2 on one line give +2, not +3."""
    g = table(
        terrain=(
            ("hedge", "cover1", circle(0.0, -5.0, 2.0)),
            ("bank", "cover2", circle(0.0, 5.0, 2.0)),
        ),
        grizzled=("B1",),
    )
    result = g.do(
        Engage(tank_id="R1", target_id="B1"),
        white=ONE_HIT,
        red=[5, 5, 5, 3, 1],
        card="Glancing Blow",
    )
    assert result.outcome["cover"] == 2
    assert result.outcome["needed"] == 7
    assert result.outcome["penetrated"] is True  # 7 PEN: +3 would have stopped it
    assert len(mods(result, "TTT-CV1")) == 1


def test_cv1_cover_holding_only_the_shooter_does_not_count() -> None:
    """TTT-CV1 ruling: a cover piece holding only the shooter does not protect the target."""
    g = table(terrain=(("bank", "cover2", circle(0.0, -20.0, 3.0)),), grizzled=("B1",))
    result = g.do(
        Engage(tank_id="R1", target_id="B1"), white=ONE_HIT, red=FIVE_PEN, card="Glancing Blow"
    )
    assert result.outcome["cover"] == 0
    assert mods(result, "TTT-CV1") == []
    assert result.outcome["penetrated"] is True


# --- TTT-CN1: Concealment -----------------------------------------------------------------------


def test_cn1_same_forest_is_light() -> None:
    """TTT-CN1: shooting from inside the same forest is light concealment: -1 die."""
    g = table(
        ("R1", "tiger-i", "Red", 0.0, -5.0, 0.0),
        ("B1", "m4a1-sherman", "Blue", 0.0, 5.0, 180.0),
        terrain=(("wood", "forest", circle(0.0, 0.0, 10.0)),),
    )
    result = g.do(Engage(tank_id="R1", target_id="B1"), white=[1, 1, 1])
    assert mods(result, "TTT-CN1") == [
        ("light concealment (wood: same forest)", -1, "accuracy_dice")
    ]
    assert result.outcome["accuracy_dice"] == 3


def test_cn1_into_a_forest_from_outside_is_heavy() -> None:
    """TTT-CN1: shooting into a forest holding the target from outside it is heavy: -2 dice."""
    g = table(terrain=(("wood", "forest", circle(0.0, 18.0, 5.0)),))
    result = g.do(Engage(tank_id="R1", target_id="B1"), white=[1, 1])
    assert mods(result, "TTT-CN1") == [
        ("heavy concealment (wood: into the forest)", -2, "accuracy_dice")
    ]
    assert result.outcome["accuracy_dice"] == 2


def test_cn1_through_a_forest_is_heavy() -> None:
    """TTT-CN1 ruling: a forest crossed between shooter and target is heavy: -2 dice."""
    g = table(terrain=(("wood", "forest", circle(0.0, 0.0, 5.0)),))
    result = g.do(Engage(tank_id="R1", target_id="B1"), white=[1, 1])
    assert mods(result, "TTT-CN1") == [
        ("heavy concealment (wood: through a forest)", -2, "accuracy_dice")
    ]


# --- TTT-E6: star rerolls -----------------------------------------------------------------------


def test_e6_star_rerolls_one_non_penetrating_die() -> None:
    """TTT-E6: a * rerolls one non-penetrating die; the reroll names the die it replaced."""
    g = table()
    result = g.do(Engage(tank_id="R1", target_id="B1"), white=ONE_HIT, red=[6, 1, 1, 1, 1, 5])
    red = reds(result)
    assert len(red) == 6
    reroll = red[-1]
    assert reroll.face == 5
    assert reroll.reroll_of is not None
    replaced = result.rolls[reroll.reroll_of]
    assert replaced.die == "red" and "PEN" not in replaced.icons
    assert [r.reroll_of for r in red[:-1]] == [None] * 5
    assert result.outcome["pens"] == 3  # 1 (the 6) + 2 (the rerolled 5)
    assert any(r.clause == "TTT-E6" for r in result.rulings)


def test_e6_star_on_a_reroll_grants_another() -> None:
    """TTT-E6: a * on a rerolled die grants another reroll of a non-penetrating die."""
    g = table()
    result = g.do(Engage(tank_id="R1", target_id="B1"), white=ONE_HIT, red=[6, 1, 1, 1, 1, 6, 5])
    red = reds(result)
    assert len(red) == 7
    rerolls = [r for r in red if r.reroll_of is not None]
    assert [r.face for r in rerolls] == [6, 5]
    first_slots = {rerolls[0].reroll_of, rerolls[1].reroll_of}
    assert len(first_slots) == 2  # two different blanks rerolled
    for r in rerolls:
        assert r.reroll_of is not None
        assert result.rolls[r.reroll_of].face in (1, 2)
    assert result.outcome["pens"] == 1 + 1 + 2


def test_e6_star_rerolls_can_turn_a_miss_into_a_penetration() -> None:
    """TTT-E6: star rerolls count toward penetration (4 PEN + reroll 5 = 6 vs 5)."""
    g = table(grizzled=("B1",))
    result = g.do(
        Engage(tank_id="R1", target_id="B1"),
        white=ONE_HIT,
        red=[6, 5, 4, 1, 1, 5],
        card="Glancing Blow",
    )
    assert result.outcome["pens"] == 6
    assert result.outcome["penetrated"] is True


def test_e6_stars_not_spent_once_penetrated() -> None:
    """TTT-E6 ruling: once the target is penetrated no star is spent (no reroll rolled)."""
    g = table(R1, ("B1", "m5-stuart", "Blue", 0.0, 20.0, 180.0), grizzled=("B1",))
    result = g.do(
        Engage(tank_id="R1", target_id="B1"),
        white=ONE_HIT,
        red=[6, 5, 1, 1, 1],
        card="Glancing Blow",
    )
    assert result.outcome["penetrated"] is True
    assert all(r.reroll_of is None for r in result.rolls)
    assert not any(r.clause == "TTT-E6" for r in result.rulings)


def test_e6_star_with_no_blank_left_is_not_spent() -> None:
    """TTT-E6: a * with every die already penetrating has nothing to reroll."""
    g = table(
        ("R1", "m4a1-sherman", "Red", 0.0, -20.0, 0.0), ("B1", "tiger-i", "Blue", 0.0, 20.0, 180.0)
    )
    result = g.do(Engage(tank_id="R1", target_id="B1"), white=[5, 1, 1], red=[6, 5, 3])
    assert result.outcome["pens"] == 4
    assert result.outcome["penetrated"] is False
    assert all(r.reroll_of is None for r in result.rolls)


# --- TTT-E7: the damage card --------------------------------------------------------------------


@pytest.mark.parametrize("card", ["Explosion", "Fire", "Knocked Out"])
def test_e7_destroying_cards_destroy_the_target(card: str) -> None:
    """TTT-E7: Explosion, Fire and Knocked Out destroy the target; changes show "Destroyed"."""
    g = table(
        R1,
        B1,
        ("B2", "m4a1-sherman", "Blue", 20.0, 20.0, 180.0),
        ("B3", "m4a1-sherman", "Blue", -20.0, 20.0, 180.0),
        grizzled=("B2", "B3"),
    )
    result = penetrate(g, card)
    b1 = g.tank("B1")
    assert b1.destroyed is True
    assert b1.destroyed_by == card
    assert b1.damage == (card,)
    change = change_of(result, "B1")
    assert change.markers == ["Destroyed"]
    assert change.changes["destroyed"] == [False, True]
    assert "Destroyed" in change.tooltip
    assert [e.data["card"] for e in result.events if e.kind == "damage"] == [card]


@pytest.mark.parametrize(("card", "checks"), [("Explosion", 2), ("Fire", 2), ("Knocked Out", 0)])
def test_e7_catastrophic_cards_make_friends_in_sight_check(card: str, checks: int) -> None:
    """TTT-E7/TTT-MO2: Explosion and Fire are catastrophic (friends in sight check morale);
    Knocked Out is not."""
    g = table(
        R1,
        B1,
        ("B2", "m4a1-sherman", "Blue", 20.0, 20.0, 180.0),
        ("B3", "m4a1-sherman", "Blue", -20.0, 20.0, 180.0),
    )
    result = penetrate(g, card, green=[1] * checks)
    checked = sorted(e.data["tank_id"] for e in result.events if e.kind == "morale_check")
    assert checked == (["B2", "B3"] if checks else [])


def test_e7_immobilized_stops_the_target_moving() -> None:
    """TTT-E7: Immobilized: the marker shows and the tank's next move is refused."""
    g = table()
    result = penetrate(g, "Immobilized", green=[1])
    change = change_of(result, "B1")
    assert "Immobilized" in change.markers
    assert "Immobilized" in change.tooltip
    assert change.changes["immobilized"] == [False, True]
    end_phase(g)
    g.refused(Move(tank_id="B1", x=0.0, z=17.0, facing=180.0), "IMMOBILIZED")


def test_e7_gun_damaged_loses_a_red_die_next_engage() -> None:
    """TTT-E7: Gun Damaged: the tank's next Engage rolls one Penetration die fewer (3 -> 2)."""
    g = table()
    penetrate(g, "Gun Damaged", green=[1])
    assert g.tank("B1").gun_damage == 1
    end_phase(g)
    result = g.do(Engage(tank_id="B1", target_id="R1"), white=[5, 1, 1], red=[5, 5])
    assert mods(result, "TTT-E7") == [("Gun Damaged", -1, "penetration_dice")]
    assert result.outcome["penetration_dice"] == 2
    assert len(reds(result)) == 2


def test_e7_optics_damaged_loses_a_white_die() -> None:
    """TTT-E7: Optics Damaged: one Accuracy die fewer from now on (3 -> 2)."""
    g = table()
    penetrate(g, "Optics Damaged", green=[1])
    end_phase(g)
    result = g.do(Engage(tank_id="B1", target_id="R1"), white=[5, 5], red=[1, 1, 1])
    assert mods(result, "TTT-E7") == [("Optics Damaged", -1, "accuracy_dice")]
    assert result.outcome["accuracy_dice"] == 2


def test_e7_engine_damaged_halves_movement_and_forbids_fast() -> None:
    """TTT-E7: Engine Damaged: Movement 6" becomes 3"; a 5" move (now Fast) is refused."""
    g = table()
    penetrate(g, "Engine Damaged", green=[1])
    assert g.tank("B1").movement == 3.0
    end_phase(g)
    err = g.refused(Move(tank_id="B1", x=0.0, z=15.0, facing=180.0), "ENGINE_NO_FAST")
    assert err.clause == "TTT-E7"
    g.do(Move(tank_id="B1", x=0.0, z=17.0, facing=180.0))
    assert g.tank("B1").moved == "normal"


def test_e7_turret_jammed_refuses_targets_outside_front_arc() -> None:
    """TTT-E7: Turret Jammed: the tank may only Engage targets in its front arc."""
    g = table(R1, B1, ("R2", "m4a1-sherman", "Red", 30.0, 20.0, 270.0))
    penetrate(g, "Turret Jammed", green=[1])
    end_phase(g)
    err = g.refused(Engage(tank_id="B1", target_id="R2"), "TURRET_JAMMED", white=[1, 1, 1])
    assert err.clause == "TTT-E7"
    result = g.do(Engage(tank_id="B1", target_id="R1"), white=[1, 1, 1])
    assert result.outcome["target"] == "R1"


def test_e7_crew_stunned_no_action_next_phase_only() -> None:
    """TTT-E7: Crew Stunned: no action in its next phase; it acts again the phase after."""
    g = table()
    penetrate(g, "Crew Stunned", green=[1])
    end_phase(g)  # Blue's phase: stunned now
    assert "engage" not in legal_actions(g.state, "B1")
    g.refused(Engage(tank_id="B1", target_id="R1"), "CREW_STUNNED", white=[1, 1, 1])
    g.refused(Move(tank_id="B1", x=0.0, z=17.0, facing=180.0), "CREW_STUNNED")
    end_phase(g)
    end_phase(g)  # Blue's phase of turn 2
    result = g.do(Engage(tank_id="B1", target_id="R1"), white=[1, 1, 1])
    assert result.outcome["shooter"] == "B1"


def test_e7_glancing_blow_has_no_effect() -> None:
    """TTT-E7: Glancing Blow: recorded as drawn, nothing else about the tank changes."""
    g = table(grizzled=("B1",))
    before = g.tank("B1").model_copy()
    result = penetrate(g, "Glancing Blow")
    after = g.tank("B1")
    assert after.damage == ("Glancing Blow",)
    assert after.model_dump(exclude={"damage", "hit_by", "hit_turn"}) == before.model_dump(
        exclude={"damage", "hit_by", "hit_turn"}
    )
    assert set(change_of(result, "B1").changes) == {"damage"}


def test_e7_scared_target_checks_morale_after_penetration() -> None:
    """TTT-E7/TTT-MO2: a penetrated Scared crew that survives checks morale (green 5: Shaken)."""
    g = table()
    result = penetrate(g, "Glancing Blow", green=[5])
    assert g.tank("B1").morale == "shaken"
    assert "Shaken" in change_of(result, "B1").markers


def test_e7_deck_without_replacement_and_reshuffled_after_20() -> None:
    """TTT-E7: the table's 20-card deck is drawn without replacement; the 21st draw reshuffles."""
    shooters: list[Tank] = [
        (f"R{i}", "tiger-i", "Red", -30.0 + 3 * i, -20.0, 0.0) for i in range(21)
    ]
    targets: list[Tank] = [
        (f"B{i}", "m4a1-sherman", "Blue", -30.0 + 5 * i, 20.0, 180.0) for i in range(12)
    ]
    g = table(*shooters, *targets, grizzled=tuple(t[0] for t in targets))
    # Every card of the house deck, destroying cards on their own targets, others on B11.
    order = [name for name, n in HOUSE_DECK.items() for _ in range(n)]
    victims = iter(f"B{i}" for i in range(11))
    for i, card in enumerate(order):
        effect_kills = card in ("Explosion", "Fire", "Knocked Out")
        target = next(victims) if effect_kills else "B11"
        penetrate(g, card, shooter=f"R{i}", target=target)
        deck = g.state.deck
        assert deck.shuffles == 1
        assert len(deck.draw_pile) == 19 - i
        assert len(deck.discard) == i + 1
        if i == 2:  # three Explosions drawn: a fourth is not in the deck
            g.refused(
                Engage(tank_id="R20", target_id="B10"),
                "DAMAGE_CARD_NOT_IN_DECK",
                white=ONE_HIT,
                red=FIVE_PEN,
                card="Explosion",
            )
    assert g.state.deck.draw_pile == ()
    assert Counter(g.state.deck.discard) == Counter(HOUSE_DECK)
    result = penetrate(g, "Explosion", shooter="R20", target="B10")
    deck = g.state.deck
    assert deck.shuffles == 2
    assert len(deck.draw_pile) == 19
    assert deck.discard == ("Explosion",)
    assert Counter(deck.draw_pile) == Counter(HOUSE_DECK) - Counter({"Explosion": 1})
    assert [e.data["shuffles"] for e in result.events if e.kind == "deck_shuffled"] == [2]


def test_e7_first_draw_shuffles_and_undeclared_draw_comes_from_what_is_left() -> None:
    """TTT-E7: the first penetration shuffles a full deck; a draw without a named card is a
    card left in the table's pile (at random, from the table's generator), removed from it."""
    g = table(R1, B1, ("R2", "tiger-i", "Red", 10.0, -20.0, 0.0), grizzled=("B1",))
    first = penetrate(g, "Glancing Blow")
    assert [e.kind for e in first.events if e.kind == "deck_shuffled"] == ["deck_shuffled"]
    pile = g.state.deck.draw_pile
    assert len(pile) == 19 and Counter(pile) == Counter(HOUSE_DECK) - Counter({"Glancing Blow": 1})
    counter = g.state.dice.counter
    result = g.do(Engage(tank_id="R2", target_id="B1"), white=ONE_HIT, red=FIVE_PEN)
    drawn = result.outcome["damage_card"]
    assert drawn in pile
    assert Counter(g.state.deck.draw_pile) == Counter(pile) - Counter({drawn: 1})
    assert g.state.deck.discard == ("Glancing Blow", drawn)
    assert g.state.dice.counter == counter + 1  # one number from the generator per card
