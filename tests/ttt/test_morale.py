"""Crew and morale through the real engine: the Grizzled reroll and lending (TTT-CR1), who
checks morale and when (TTT-MO1..MO3), Shaken and Routed (TTT-MR1..MR6) and Recover (TTT-R1).

Every state is reached by playing actions with forced dice (supplied faces and damage cards);
no test edits the table state by hand. The duel: Red "R1" (Tiger I, Acc 4, Pen 5) at (0,-20)
facing north, Blue "B1" (Sherman, Acc 3, Pen 3, front armour 5) at (0,20) facing south.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kit.ttt import Game, duel
from tankref.core.errors import RulesError
from tankref.core.geometry import Polygon
from tankref.core.results import Event, Result
from tankref.rulesets.ttt.actions import EndPhase, Engage, Move, Recover, Smoke, Wait
from tankref.rulesets.ttt.presentation import markers
from tankref.rulesets.ttt.state import Options

# Tiger (4 white, 5 red) on a Sherman's front (armour 5).
TIGER_HIT = [5, 1, 1, 1]  # one HIT
TIGER_MISS = [1, 1, 1, 1]
TIGER_PEN = [5, 5, 5, 1, 1]  # 6 PEN >= 5: penetrated, no star
TIGER_NO_PEN = [1, 1, 1, 1, 1]  # 0 PEN
# Sherman (3 white, 3 red) on a Sherman's front (armour 5) or a Tiger's front (armour 6).
SHERMAN_HIT = [5, 1, 1]
SHERMAN_PEN = [5, 5, 5]  # 6 PEN
SHERMAN_NO_PEN = [1, 1, 1]

R2_TIGER = ("R2", "tiger-i", "Red", 10.0, -20.0, 0.0)
R2_SHERMAN = ("R2", "m4a1-sherman", "Red", 10.0, -20.0, 0.0)
B2 = ("B2", "m4a1-sherman", "Blue", 10.0, 20.0, 180.0)


def engage(g: Game, shooter: str, target: str, **dice: Any) -> Result:
    return g.do(Engage(tank_id=shooter, target_id=target), **dice)


def end(g: Game) -> Result:
    return g.do(EndPhase())


def penetrate(
    g: Game, target: str = "B1", *, shooter: str = "R1", card: str, **dice: Any
) -> Result:
    """A Tiger's penetrating hit on a Sherman with the damage card forced."""
    return engage(g, shooter, target, white=TIGER_HIT, red=TIGER_PEN, card=card, **dice)


def shake(g: Game, green: int = 4, card: str = "Glancing Blow", shooter: str = "R1") -> Result:
    """B1 suffers a penetrating hit and rolls ``green`` for morale (4/5 Shaken, 6 Routed)."""
    return penetrate(g, shooter=shooter, card=card, green=[green])


def morale_events(result: Result, tank_id: str | None = None) -> list[Event]:
    return [
        e
        for e in result.events
        if e.kind == "morale_check" and (tank_id is None or e.data["tank_id"] == tank_id)
    ]


def greens(result: Result) -> list[int]:
    return [r.face for r in result.rolls if r.die == "green"]


def clauses(result: Result) -> set[str]:
    return {r.clause for r in result.rulings}


def needs_green(g: Game, action: Any, **dice: Any) -> None:
    """The action cannot be adjudicated without a green die: a morale roll is due."""
    err = g.refused(action, "DICE_NEEDED", **dice)
    assert err.details["need"]["die"] == "green"


# --- TTT-CR1: the Grizzled reroll -------------------------------------------------------------


def test_grizzled_reroll_spent_on_missed_accuracy_TTT_CR1() -> None:
    """TTT-CR1 (auto): a Grizzled crew's missed Accuracy roll is rerolled once, by the referee."""
    g = duel(red_grizzled=True)
    r = engage(g, "R1", "B1", white=[*TIGER_MISS, 5], red=TIGER_NO_PEN)
    assert r.outcome["hit"] is True
    reroll = r.rolls[4]
    assert (reroll.die, reroll.face, reroll.reroll_of, reroll.purpose) == (
        "white",
        5,
        0,
        "Grizzled reroll",
    )
    assert g.tank("R1").reroll_used is True
    note = next(n for n in r.rulings if n.clause == "TTT-CR1")
    assert (note.option, note.value) == ("grizzled_reroll", "auto")


def test_grizzled_reroll_spent_on_failed_penetration_TTT_CR1() -> None:
    """TTT-CR1 (auto): a failed Penetration is rerolled (the weakest die) and can penetrate."""
    g = duel(red_grizzled=True)
    r = engage(
        g, "R1", "B1", white=TIGER_HIT, red=[5, 5, 1, 1, 1, 3], card="Glancing Blow", green=[1]
    )
    assert r.outcome["penetrated"] is True and r.outcome["pens"] == 5
    assert r.rolls[-2].reroll_of is not None  # the red reroll, before the morale die
    assert r.rolls[r.rolls[-2].reroll_of].face == 1  # a blank die was the one rerolled
    assert g.tank("R1").reroll_used is True


def test_grizzled_reroll_not_spent_when_nothing_to_change_TTT_CR1() -> None:
    """TTT-CR1: a hit that penetrates leaves the reroll unused (only spent where it can help)."""
    g = duel(red_grizzled=True)
    r = penetrate(g, card="Glancing Blow", green=[1])
    assert r.outcome["penetrated"] is True
    assert g.tank("R1").reroll_used is False
    assert "TTT-CR1" not in clauses(r)


def test_grizzled_reroll_not_twice_in_one_turn_TTT_CR1() -> None:
    """TTT-CR1: once spent on Accuracy, a failed Penetration in the same turn is not rerolled."""
    g = duel(red_grizzled=True)
    # Exactly five white (four + one reroll) and five red: a second reroll would need a 6th red.
    r = engage(g, "R1", "B1", white=[*TIGER_MISS, 5], red=TIGER_NO_PEN)
    assert r.outcome["hit"] is True and r.outcome["penetrated"] is False
    assert sum(1 for x in r.rolls if x.reroll_of is not None) == 1


def test_grizzled_reroll_stays_used_through_enemy_phase_and_resets_TTT_CR1() -> None:
    """TTT-CR1: the reroll stays spent for the rest of the turn and resets at the owner's next
    phase, where it is spent again."""
    g = duel(red_grizzled=True)
    engage(g, "R1", "B1", white=[*TIGER_MISS, 1], red=())
    end(g)
    assert g.tank("R1").reroll_used is True  # still used in Blue's phase
    end(g)
    assert g.tank("R1").reroll_used is False  # Red's next phase
    r = engage(g, "R1", "B1", white=[*TIGER_MISS, 1])
    assert r.outcome["hit"] is False and len(r.rolls) == 5
    assert g.tank("R1").reroll_used is True


def test_scared_crew_has_no_reroll_TTT_CR1() -> None:
    """TTT-CR1: only a Grizzled crew rerolls: a Scared crew's miss stands with exactly its dice."""
    g = duel()
    r = engage(g, "R1", "B1", white=TIGER_MISS)
    assert r.outcome["hit"] is False and g.tank("R1").reroll_used is False


def test_ask_mode_no_declaration_no_reroll_TTT_CR1() -> None:
    """TTT-CR1 (option ask): without a declaration the reroll is not spent."""
    g = duel(red_grizzled=True, options=Options(grizzled_reroll="ask"))
    r = engage(g, "R1", "B1", white=TIGER_MISS)
    assert r.outcome["hit"] is False
    assert g.tank("R1").reroll_used is False


def test_ask_mode_declared_accuracy_TTT_CR1() -> None:
    """TTT-CR1 (option ask): declared "accuracy", the miss is rerolled, the ruling says so."""
    g = duel(red_grizzled=True, options=Options(grizzled_reroll="ask"))
    r = g.do(
        Engage(tank_id="R1", target_id="B1", grizzled_reroll="accuracy"),
        white=[*TIGER_MISS, 6],
        red=TIGER_NO_PEN,
    )
    assert r.outcome["hit"] is True and g.tank("R1").reroll_used is True
    note = next(n for n in r.rulings if n.clause == "TTT-CR1")
    assert note.value == "ask" and "as declared" in note.text


def test_ask_mode_declared_penetration_skips_accuracy_TTT_CR1() -> None:
    """TTT-CR1 (option ask): declared "penetration", a missed Accuracy roll is not rerolled."""
    g = duel(red_grizzled=True, options=Options(grizzled_reroll="ask"))
    r = g.do(Engage(tank_id="R1", target_id="B1", grizzled_reroll="penetration"), white=TIGER_MISS)
    assert r.outcome["hit"] is False and g.tank("R1").reroll_used is False


def test_ask_mode_declared_penetration_rerolls_penetration_TTT_CR1() -> None:
    """TTT-CR1 (option ask): declared "penetration", a failed Penetration is rerolled."""
    g = duel(red_grizzled=True, options=Options(grizzled_reroll="ask"))
    r = g.do(
        Engage(tank_id="R1", target_id="B1", grizzled_reroll="penetration"),
        white=TIGER_HIT,
        red=[5, 5, 1, 1, 1, 4],
        card="Glancing Blow",
        green=[2],
    )
    assert r.outcome["penetrated"] is True and g.tank("R1").reroll_used is True


def lending_table(options: Options | None = None) -> Game:
    """Grizzled R1 and Scared R2 (a Sherman); Blue's B1 Shakes R2 in Blue's phase of turn 1
    (penetration, Gun Damaged, green 4); returns at Red's phase of turn 2."""
    g = duel(red_grizzled=True, extra=[R2_SHERMAN], options=options)
    end(g)
    engage(g, "B1", "R2", white=SHERMAN_HIT, red=SHERMAN_PEN, card="Gun Damaged", green=[4])
    assert g.tank("R2").morale == "shaken"
    end(g)
    return g


def test_unused_reroll_lent_to_failed_recover_TTT_CR1() -> None:
    """TTT-CR1 (auto): a Grizzled friend's unused reroll is lent to a Scared tank's failed
    Recover; the reroll is then used up."""
    g = lending_table()
    r = g.do(Recover(tank_id="R2"), green=[5, 2])
    assert g.tank("R2").morale == "ok"
    assert g.tank("R1").reroll_used is True
    assert r.rolls[1].reroll_of == 0
    assert "TTT-CR1" in clauses(r)


def test_used_reroll_cannot_be_lent_TTT_CR1() -> None:
    """TTT-CR1: a reroll already spent this turn (on the lender's own miss) is not lent."""
    g = lending_table()
    engage(g, "R1", "B1", white=[*TIGER_MISS, 1])
    g.do(Recover(tank_id="R2"), green=[5])  # exactly one green: nothing lent
    assert g.tank("R2").morale == "shaken"


def test_lent_reroll_is_not_spent_again_in_the_turn_TTT_CR1() -> None:
    """TTT-CR1: once lent, the lender's own miss in the same turn is not rerolled."""
    g = lending_table()
    g.do(Recover(tank_id="R2"), green=[6, 1])
    r = engage(g, "R1", "B1", white=TIGER_MISS)
    assert r.outcome["hit"] is False and len(r.rolls) == 4


def test_ask_mode_lends_only_when_named_TTT_CR1() -> None:
    """TTT-CR1 (option ask): no lender_id, no lending; naming the Grizzled friend lends."""
    g = lending_table(Options(grizzled_reroll="ask"))
    g.do(Recover(tank_id="R2"), green=[5])
    assert g.tank("R2").morale == "shaken" and g.tank("R1").reroll_used is False

    g = lending_table(Options(grizzled_reroll="ask"))
    g.do(Recover(tank_id="R2", lender_id="R1"), green=[4, 3])
    assert g.tank("R2").morale == "ok" and g.tank("R1").reroll_used is True


@pytest.mark.parametrize("lender", ["B1", "R2", "R9"])
def test_ask_mode_bad_lender_refused_TTT_CR1(lender: str) -> None:
    """TTT-CR1 (option ask): a lender that is not a friendly Grizzled tank with its reroll
    unused (an enemy, the tank itself, no such tank) is refused LENDER_INVALID."""
    g = lending_table(Options(grizzled_reroll="ask"))
    err = g.refused(Recover(tank_id="R2", lender_id=lender), "LENDER_INVALID", green=[5])
    assert err.clause == "TTT-CR1"


def test_ask_mode_lender_with_used_reroll_refused_TTT_CR1() -> None:
    """TTT-CR1 (option ask): a Grizzled friend whose reroll is spent cannot lend it."""
    g = lending_table(Options(grizzled_reroll="ask"))
    g.do(Engage(tank_id="R1", target_id="B1", grizzled_reroll="accuracy"), white=[*TIGER_MISS, 1])
    g.refused(Recover(tank_id="R2", lender_id="R1"), "LENDER_INVALID", green=[5])


def test_ask_mode_bad_lender_refused_even_if_roll_succeeds_TTT_CR1() -> None:
    """TTT-CR1 (option ask): a bad lender_id is refused whatever the green die shows."""
    g = lending_table(Options(grizzled_reroll="ask"))
    g.refused(Recover(tank_id="R2", lender_id="B1"), "LENDER_INVALID", green=[1])


# --- TTT-MO1, TTT-MO2, TTT-MO3 ----------------------------------------------------------------


def test_grizzled_crew_makes_no_morale_check_TTT_MO1() -> None:
    """TTT-MO1: a penetrated Grizzled crew rolls no green die; the ruling names MO1."""
    g = duel(blue_grizzled=True)
    g.refused(
        Engage(tank_id="R1", target_id="B1"),
        "DICE_COUNT_WRONG",
        white=TIGER_HIT,
        red=TIGER_PEN,
        card="Glancing Blow",
        green=[6],
    )
    r = penetrate(g, card="Glancing Blow")
    assert greens(r) == [] and g.tank("B1").morale == "ok"
    assert "TTT-MO1" in clauses(r)


def test_trigger_penetrating_hit_on_scared_crew_TTT_MO2() -> None:
    """TTT-MO2 (1): a Scared crew that survives a penetrating hit checks morale."""
    g = duel()
    needs_green(
        g,
        Engage(tank_id="R1", target_id="B1"),
        white=TIGER_HIT,
        red=TIGER_PEN,
        card="Glancing Blow",
    )
    r = shake(g, green=2)
    (event,) = morale_events(r, "B1")
    assert "penetrating hit" in event.text and event.data["face"] == 2


def test_no_check_when_penetrated_tank_is_destroyed_TTT_MO2() -> None:
    """TTT-MO2 (1): a crew whose tank is destroyed by the hit makes no morale check."""
    g = duel()
    r = penetrate(g, card="Knocked Out")
    assert g.tank("B1").destroyed and greens(r) == [] and morale_events(r) == []


def test_hit_without_penetration_is_no_trigger_TTT_MO2() -> None:
    """TTT-MO2: a single hit that does not penetrate fires no trigger."""
    g = duel()
    r = engage(g, "R1", "B1", white=TIGER_HIT, red=TIGER_NO_PEN)
    assert r.outcome["hit"] is True and greens(r) == []


def test_trigger_second_attacker_in_one_phase_TTT_MO2() -> None:
    """TTT-MO2 (2): hit by a second, different enemy tank in one turn (no penetration needed)."""
    g = duel(extra=[R2_TIGER])
    engage(g, "R1", "B1", white=TIGER_HIT, red=TIGER_NO_PEN)
    needs_green(g, Engage(tank_id="R2", target_id="B1"), white=TIGER_HIT, red=TIGER_NO_PEN)
    r = engage(g, "R2", "B1", white=TIGER_HIT, red=TIGER_NO_PEN, green=[5])
    (event,) = morale_events(r, "B1")
    assert "second enemy tank" in event.text
    assert g.tank("B1").morale == "shaken"


def test_trigger_second_attacker_from_wait_TTT_MO2() -> None:
    """TTT-MO2 (2): a Waiting tank's shot in the enemy's phase and a second tank's shot in the
    same turn (turn 2: Red's phase then Blue's) give the target a morale check."""
    g = duel(extra=[B2])
    end(g)  # Red, turn 1
    g.do(Wait(tank_id="B2"))
    end(g)  # Blue, turn 1
    r = engage(g, "B2", "R1", white=SHERMAN_HIT, red=SHERMAN_NO_PEN)  # from Wait, Red's phase
    assert r.outcome["hit"] is True and greens(r) == []
    end(g)  # Red, turn 2
    r = engage(g, "B1", "R1", white=SHERMAN_HIT, red=SHERMAN_NO_PEN, green=[4])
    (event,) = morale_events(r, "R1")
    assert "second enemy tank" in event.text and g.tank("R1").morale == "shaken"


def test_hits_by_two_tanks_in_different_turns_no_trigger_TTT_MO2() -> None:
    """TTT-MO2 (2): hits by two different tanks in different turns are no trigger."""
    g = duel(extra=[R2_TIGER])
    engage(g, "R1", "B1", white=TIGER_HIT, red=TIGER_NO_PEN)
    end(g)
    end(g)
    r = engage(g, "R2", "B1", white=TIGER_HIT, red=TIGER_NO_PEN)
    assert r.outcome["hit"] is True and greens(r) == []


def test_trigger_no_friend_left_that_can_move_destroyed_TTT_MO2() -> None:
    """TTT-MO2 (3): the last friend that could move is destroyed (not catastrophically)."""
    g = duel(extra=[B2])
    r = penetrate(g, "B2", card="Knocked Out", green=[4])
    (event,) = morale_events(r)
    assert event.data["tank_id"] == "B1" and "no friendly tank left" in event.text
    assert g.tank("B1").morale == "shaken"


def test_trigger_no_friend_left_that_can_move_immobilized_TTT_MO2() -> None:
    """TTT-MO2 (3): the last mobile friend is Immobilized: it checks for its penetration, and
    B1 checks because no friend can move."""
    g = duel(extra=[B2])
    r = penetrate(g, "B2", card="Immobilized", green=[1, 6])
    by_tank = {e.data["tank_id"]: e for e in morale_events(r)}
    assert set(by_tank) == {"B1", "B2"}
    assert "penetrating hit" in by_tank["B2"].text
    assert "no friendly tank left" in by_tank["B1"].text
    assert g.tank("B2").morale == "ok" and g.tank("B1").morale == "routed"


def test_no_trigger_while_another_friend_can_move_TTT_MO2() -> None:
    """TTT-MO2 (3)/(4): a friend destroyed non-catastrophically while another can still move:
    nobody checks."""
    g = duel(extra=[B2, ("B3", "m4a1-sherman", "Blue", -10.0, 20.0, 180.0)])
    r = penetrate(g, "B2", card="Knocked Out")
    assert greens(r) == [] and morale_events(r) == []


def catastrophe_table(*, wall: bool) -> Game:
    """Blue B1 (0,20), B2 (20,20), B3 (32,20); optionally a blocking wall between B2 and B3."""
    g = Game(options=Options())
    g.place("R1", "tiger-i", "Red", 0, -20, 0)
    for tank_id, x in (("B1", 0.0), ("B2", 20.0), ("B3", 32.0)):
        g.place(tank_id, "m4a1-sherman", "Blue", x, 20, 180)
    if wall:
        g.terrain(
            "wall",
            "blocking",
            Polygon(points=((25, 15), (27, 15), (27, 23), (25, 23))).model_dump(),
        )
    for tank_id in ("R1", "B1", "B2", "B3"):
        g.crew(tank_id)
    g.start()
    return g


@pytest.mark.parametrize("card", ["Explosion", "Fire"])
def test_trigger_catastrophe_in_sight_TTT_MO2(card: str) -> None:
    """TTT-MO2 (4): friends who see a friendly tank destroyed by Explosion or Fire check."""
    g = catastrophe_table(wall=False)
    r = penetrate(g, "B2", card=card, green=[4, 2])
    by_tank = {e.data["tank_id"]: e for e in morale_events(r)}
    assert set(by_tank) == {"B1", "B3"}
    assert card in by_tank["B1"].text
    assert g.tank("B1").morale == "shaken" and g.tank("B3").morale == "ok"


def test_catastrophe_hidden_by_blocking_terrain_TTT_MO2() -> None:
    """TTT-MO2 (4): a friend behind a blocking piece does not see the Explosion: no check."""
    g = catastrophe_table(wall=True)
    r = penetrate(g, "B2", card="Explosion", green=[5])
    assert [e.data["tank_id"] for e in morale_events(r)] == ["B1"]
    assert g.tank("B3").morale == "ok" and g.tank("B1").morale == "shaken"


def test_one_check_per_event_TTT_MO2() -> None:
    """TTT-MO2 ruling: penetration + second attacker in one shot = one green die, both reasons."""
    g = duel(extra=[R2_TIGER])
    engage(g, "R1", "B1", white=TIGER_HIT, red=TIGER_NO_PEN)
    g.refused(
        Engage(tank_id="R2", target_id="B1"),
        "DICE_COUNT_WRONG",
        white=TIGER_HIT,
        red=TIGER_PEN,
        card="Glancing Blow",
        green=[4, 4],
    )
    r = penetrate(g, shooter="R2", card="Glancing Blow", green=[4])
    (event,) = morale_events(r, "B1")
    assert "second enemy tank" in event.text and "penetrating hit" in event.text
    assert "TTT-MO2" in clauses(r)


@pytest.mark.parametrize(
    ("face", "morale"),
    [(1, "ok"), (2, "ok"), (3, "ok"), (4, "shaken"), (5, "shaken"), (6, "routed")],
)
def test_morale_table_TTT_MO3(face: int, morale: str) -> None:
    """TTT-MO3: green 1-3 OK, 4-5 Shaken, 6 Routed."""
    g = duel()
    r = shake(g, green=face)
    assert g.tank("B1").morale == morale
    (event,) = morale_events(r)
    assert event.data["after"] == morale and event.clause == "TTT-MO3"


# --- TTT-MR1..MR6 -----------------------------------------------------------------------------


def shaken_in_blue_phase() -> Game:
    g = duel()
    shake(g, green=4)
    end(g)
    return g


def test_shaken_loses_an_accuracy_die_TTT_MR1() -> None:
    """TTT-MR1: a Shaken crew Engages with one Accuracy die fewer, shown as a TTT-MR1 modifier."""
    g = shaken_in_blue_phase()
    r = engage(g, "B1", "R1", white=[1, 1])  # 3 - 1 = 2 white dice
    assert r.outcome["accuracy_dice"] == 2
    (mod,) = [m for m in r.modifiers if m.clause == "TTT-MR1"]
    assert (mod.amount, mod.applies_to) == (-1, "accuracy_dice")


def test_shaken_cannot_move_fast_TTT_MR1() -> None:
    """TTT-MR1: a Shaken crew cannot Move Fast (SHAKEN_NO_FAST); a Normal Move is fine."""
    g = shaken_in_blue_phase()
    err = g.refused(Move(tank_id="B1", x=0, z=10, facing=180), "SHAKEN_NO_FAST")
    assert err.clause == "TTT-MR1"
    g.do(Move(tank_id="B1", x=0, z=15, facing=180))
    assert g.tank("B1").moved == "normal"


def test_shaken_cannot_wait_TTT_MR1() -> None:
    """TTT-MR1: a Shaken crew cannot Wait (WAIT_WHILE_SHAKEN)."""
    g = shaken_in_blue_phase()
    g.refused(Wait(tank_id="B1"), "WAIT_WHILE_SHAKEN")


def test_shaken_marker_TTT_MR1() -> None:
    """TTT-MR1: the Shaken marker is shown on the tank and in the result's change list."""
    g = duel()
    r = shake(g, green=5)
    (change,) = [c for c in r.changes if c.tank_id == "B1"]
    assert "Shaken" in change.markers and change.changes["morale"] == ["ok", "shaken"]
    assert "Shaken" in markers(g.tank("B1"))


def routed_table(*, z: float, x: float = 0.0) -> Game:
    """B1 deployed at (x, z) (a deep deployment zone), Routed in Red's phase of turn 1, with a
    second Blue tank so the game goes on; returns at Blue's phase."""
    g = duel(blue_at=(x, z, 180.0), options=Options(deploy_depth=12), extra=[B2])
    shake(g, green=6)
    assert g.tank("B1").morale == "routed"
    assert "Routed" in markers(g.tank("B1"))
    end(g)
    return g


def test_routed_tank_does_not_move_or_engage_itself_TTT_MR2() -> None:
    """TTT-MR2: a Routed tank's manual move is refused ROUTED_MOVES_ITSELF; it may not Engage."""
    g = routed_table(z=14)
    g.refused(Move(tank_id="B1", x=0, z=16, facing=0), "ROUTED_MOVES_ITSELF")
    g.refused(Engage(tank_id="B1", target_id="R1"), "ROUTED")
    g.refused(Wait(tank_id="B1"), "ROUTED")


def test_routed_drives_full_movement_toward_entry_edge_TTT_MR2() -> None:
    """TTT-MR2: at the end of its phase the Routed tank drives its full Movement (6") straight
    toward the edge it entered from (north), not the nearer east edge."""
    g = routed_table(x=33, z=14)
    r = end(g)
    (event,) = [e for e in r.events if e.kind == "rout_move"]
    assert (event.data["x"], event.data["z"], event.data["removed"]) == (33, 20, False)
    assert event.clause == "TTT-MR2"
    b1 = g.tank("B1")
    assert (b1.x, b1.z, b1.facing) == (33, 20, 0) and b1.on_board


def test_routed_driving_off_the_edge_is_removed_for_good_TTT_MR2() -> None:
    """TTT-MR2: a rout move that crosses the edge removes the tank from play for good."""
    g = routed_table(z=14)
    end(g)  # Blue turn 1: to z = 20
    end(g)  # Red turn 2
    # Blue turn 2: 4" to the edge, 6" of Movement: off. B2 is left with no friend that can
    # move (TTT-MO2 trigger 3) and checks morale.
    r = g.do(EndPhase(), green=[1])
    (event,) = [e for e in r.events if e.kind == "rout_move"]
    assert event.data["removed"] is True
    assert [e.data["tank_id"] for e in morale_events(r)] == ["B2"]
    b1 = g.tank("B1")
    assert b1.removed and not b1.on_board and markers(b1) == ["Off Table"]
    assert g.state.status == "playing"  # B2 fights on
    g.refused(Engage(tank_id="R1", target_id="B1"), "TARGET_NOT_ON_TABLE")
    r = end(g)  # Red turn 3: B1 stays gone
    assert g.tank("B1").removed and not any(e.kind == "rout_move" for e in r.events)


def test_shaken_again_is_routed_TTT_MR3() -> None:
    """TTT-MR3: a Shaken crew that rolls Shaken again is Routed."""
    g = duel(extra=[R2_TIGER])
    shake(g, green=4)
    r = shake(g, green=5, card="Gun Damaged", shooter="R2")
    assert g.tank("B1").morale == "routed"
    (event,) = morale_events(r)
    assert event.clause == "TTT-MR3" and event.data["before"] == "shaken"


def shaken_then_immobilized() -> Game:
    """B1 Shaken (green 4), then Immobilized by a second penetration whose morale roll is OK
    (green 1); returns at Blue's phase."""
    g = duel(extra=[R2_TIGER])
    shake(g, green=4)
    r = shake(g, green=1, card="Immobilized", shooter="R2")
    b1 = g.tank("B1")
    assert b1.morale == "shaken" and b1.immobilized and b1.must_recover
    assert "TTT-MR4" in clauses(r)
    end(g)
    return g


def test_immobilized_and_shaken_by_the_same_hit_must_recover_TTT_MR4() -> None:
    """TTT-MR4 ruling: Immobilized by a hit whose morale roll Shakes the crew (either order
    counts): next turn it may only try to Recover."""
    g = duel()
    r = penetrate(g, card="Immobilized", green=[5])
    b1 = g.tank("B1")
    assert b1.morale == "shaken" and b1.immobilized and b1.must_recover
    assert "TTT-MR4" in clauses(r)
    end(g)
    g.refused(Engage(tank_id="B1", target_id="R1"), "MUST_RECOVER")


def test_shaken_immobilized_may_only_recover_TTT_MR4() -> None:
    """TTT-MR4: a Shaken crew that becomes Immobilized may only try to Recover next turn."""
    g = shaken_then_immobilized()
    assert "Must Recover" in markers(g.tank("B1"))
    g.refused(Engage(tank_id="B1", target_id="R1"), "MUST_RECOVER")
    g.refused(Move(tank_id="B1", x=0, z=18, facing=180), "MUST_RECOVER")


def test_shaken_immobilized_recover_success_TTT_MR4() -> None:
    """TTT-MR4: the Recover succeeds (green 1-3): the crew is steady again."""
    g = shaken_then_immobilized()
    g.do(Recover(tank_id="B1"), green=[3])
    b1 = g.tank("B1")
    assert b1.morale == "ok" and not b1.must_recover and b1.on_board


def test_shaken_immobilized_recover_failure_routs_and_bails_out_TTT_MR4() -> None:
    """TTT-MR4/MR5: the Recover fails: the crew Routs and, Immobilized, bails out."""
    g = shaken_then_immobilized()
    r = g.do(Recover(tank_id="B1"), green=[4])
    b1 = g.tank("B1")
    assert b1.morale == "routed" and b1.destroyed and b1.destroyed_by == "crew bailed out"
    assert {e.kind for e in r.events} >= {"rout", "bail_out"}


@pytest.mark.parametrize(("face", "survives"), [(2, True), (6, False)])
def test_referee_rolls_the_forgotten_recover_TTT_MR4(face: int, survives: bool) -> None:
    """TTT-MR4: ending the phase without trying, the referee rolls the Recover itself."""
    g = shaken_then_immobilized()
    needs_green(g, EndPhase())
    r = g.do(EndPhase(), green=[face])
    assert "TTT-MR4" in clauses(r)
    b1 = g.tank("B1")
    assert b1.on_board is survives
    assert b1.morale == ("ok" if survives else "routed")


def test_routed_crew_immobilized_bails_out_TTT_MR5() -> None:
    """TTT-MR5: a Routed crew whose tank is Immobilized bails out: destroyed, no morale roll."""
    g = duel(extra=[R2_TIGER])
    shake(g, green=6)
    r = penetrate(g, shooter="R2", card="Immobilized")  # no green die: nobody left to check
    b1 = g.tank("B1")
    assert b1.destroyed and b1.destroyed_by == "crew bailed out"
    (event,) = [e for e in r.events if e.kind == "bail_out"]
    assert event.clause == "TTT-MR5"


def test_immobilized_crew_routed_by_morale_bails_out_TTT_MR5() -> None:
    """TTT-MR5: Immobilized by a hit, then Routed by that hit's morale roll: it bails out."""
    g = duel()
    penetrate(g, card="Immobilized", green=[6])
    assert g.tank("B1").destroyed_by == "crew bailed out"


def test_recover_refused_after_engage_TTT_MR6() -> None:
    """TTT-MR6: after an Engage, Recover is refused."""
    g = shaken_in_blue_phase()
    engage(g, "B1", "R1", white=[1, 1])
    g.refused(Recover(tank_id="B1"), "RECOVER_AFTER_ENGAGE", green=[1])


def wait_for_blue() -> Game:
    """R1 Waits in Red's phase of turn 1; returns at Blue's phase."""
    g = duel()
    g.do(Wait(tank_id="R1"))
    end(g)
    return g


def test_recover_refused_after_fast_move_TTT_MR6() -> None:
    """TTT-MR6: B1 Moves Fast, is then Shaken by R1 firing from Wait: Recover is refused."""
    g = wait_for_blue()
    g.do(Move(tank_id="B1", x=0, z=10, facing=180))
    assert g.tank("B1").moved == "fast"
    shake(g, green=4)
    g.refused(Recover(tank_id="B1"), "RECOVER_AFTER_FAST_MOVE", green=[1])


def test_recover_refused_after_wait_TTT_MR6() -> None:
    """TTT-MR6/TTT-MR1: B1 Waits, is then Shaken by R1 firing from Wait: the Shaken crew
    loses its Wait (TTT-MR1), and Recover is refused, the complication being from this turn
    (TTT-R1: prior rounds only)."""
    g = wait_for_blue()
    g.do(Wait(tank_id="B1"))
    shake(g, green=5)
    assert not g.tank("B1").waiting
    err = g.refused(Recover(tank_id="B1"), "RECOVER_TOO_SOON", green=[1])
    assert err.clause == "TTT-R1"


def test_recover_refused_after_smoke_TTT_MR6() -> None:
    """TTT-MR6: B1 pops its (reusable) smoke mortar, is then Shaken: Recover is refused."""
    g = wait_for_blue()
    g.do(Smoke(tank_id="B1", ability="2-inch smoke mortar", x=12, z=20))
    assert g.tank("B1").smoke_popped
    shake(g, green=4)
    g.refused(Recover(tank_id="B1"), "RECOVER_AFTER_ACTION", green=[1])


def test_recover_allowed_after_normal_move_TTT_MR6() -> None:
    """TTT-MR6: after a Normal Move, Recover is allowed."""
    g = shaken_in_blue_phase()
    g.do(Move(tank_id="B1", x=0, z=16, facing=180))
    g.do(Recover(tank_id="B1"), green=[1])
    assert g.tank("B1").morale == "ok"


# --- TTT-R1 -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("face", "morale"),
    [(1, "ok"), (2, "ok"), (3, "ok"), (4, "shaken"), (5, "shaken"), (6, "shaken")],
)
def test_recover_roll_TTT_R1(face: int, morale: str) -> None:
    """TTT-R1: green 1-3 recovers (status OK); 4-6 changes nothing (not even a 6)."""
    g = shaken_in_blue_phase()
    r = g.do(Recover(tank_id="B1"), green=[face])
    assert g.tank("B1").morale == morale
    assert g.tank("B1").recover_tried is True
    if morale == "shaken":
        assert "TTT-R1" in clauses(r)


def test_routed_crew_recovers_TTT_R1() -> None:
    """TTT-R1: a Routed crew that Recovers is OK and makes no rout move at the phase end."""
    g = routed_table(z=14)
    g.do(Recover(tank_id="B1"), green=[2])
    r = end(g)
    assert g.tank("B1").morale == "ok" and (g.tank("B1").x, g.tank("B1").z) == (0, 14)
    assert not any(e.kind == "rout_move" for e in r.events)


def test_recover_once_per_turn_TTT_R1() -> None:
    """TTT-R1: one Recover attempt per turn (RECOVER_ALREADY_TRIED); none other action after."""
    g = shaken_in_blue_phase()
    g.do(Recover(tank_id="B1"), green=[5])
    g.refused(Recover(tank_id="B1"), "RECOVER_ALREADY_TRIED", green=[1])
    g.refused(Engage(tank_id="B1", target_id="R1"), "ACTION_AFTER_RECOVER")
    g.refused(Wait(tank_id="B1"), "WAIT_WHILE_SHAKEN")


def test_nothing_to_recover_TTT_R1() -> None:
    """TTT-R1: a crew that is neither Shaken nor Routed has nothing to recover."""
    g = duel()
    err = g.refused(Recover(tank_id="R1"), "NOTHING_TO_RECOVER", green=[1])
    assert err.clause == "TTT-R1"


# --- property: Grizzled crews never panic -----------------------------------------------------

HARMLESS = (
    ["Immobilized"] * 3
    + ["Gun Damaged"] * 2
    + ["Optics Damaged"] * 2
    + ["Engine Damaged"] * 2
    + ["Turret Jammed", "Crew Stunned", "Glancing Blow"]
)


@settings(max_examples=25, deadline=None)
@given(
    cards=st.permutations(HARMLESS).map(lambda p: p[:3]),
    faces=st.lists(st.integers(1, 6), min_size=3, max_size=3),
)
def test_grizzled_crew_never_gets_a_morale_result_TTT_MO1_CR1(
    cards: list[str], faces: list[int]
) -> None:
    """TTT-MO1/CR1: across several penetrating hits, whatever green face is offered, a Grizzled
    crew never uses it (the offer is a wrong dice count) and its morale stays "ok"."""
    g = duel(blue_grizzled=True)
    for card, face in zip(cards, faces, strict=True):
        with pytest.raises(RulesError) as info:
            penetrate(g, card=card, green=[face])
        assert info.value.code == "DICE_COUNT_WRONG"
        assert info.value.details["left_over"] == {"green": 1}
        r = penetrate(g, card=card)
        assert r.outcome["penetrated"] is True and greens(r) == []
        assert g.tank("B1").morale == "ok"
        end(g)
        end(g)
    assert g.tank("B1").damage == tuple(cards)


def _two_tigers_and_a_sherman() -> Game:
    return duel(extra=[("R2", "tiger-i", "Red", 10.0, -20.0, 0.0)])


def test_mo2_second_attacker_counts_both_phases_of_the_game_turn() -> None:
    """TTT-MO2 (2) ruling: "in one turn" is the printed turn, both phases: R1 hits B1 in Red's
    phase, the Waiting R2 hits it in Blue's phase of the same turn: B1 checks morale."""
    g = _two_tigers_and_a_sherman()
    g.do(Wait(tank_id="R2"))
    g.do(Engage(tank_id="R1", target_id="B1"), white=[5, 1, 1, 1], red=[1, 1, 1, 1, 1])
    g.do(EndPhase())
    result = g.do(
        Engage(tank_id="R2", target_id="B1"), white=[5, 1, 1, 1], red=[1, 1, 1, 1, 1], green=[2]
    )
    checks = [e for e in result.events if e.kind == "morale_check"]
    assert len(checks) == 1 and "second enemy tank" in checks[0].text


def test_mo2_hits_in_different_game_turns_do_not_add_up() -> None:
    """TTT-MO2 (2): a hit in Blue's phase of turn 1 and another in Red's phase of turn 2 are
    in different turns: no morale check (no green die is asked for)."""
    g = _two_tigers_and_a_sherman()
    g.do(Wait(tank_id="R2"))
    g.do(EndPhase())
    g.do(Engage(tank_id="R2", target_id="B1"), white=[5, 1, 1, 1], red=[1, 1, 1, 1, 1])
    g.do(EndPhase())
    result = g.do(Engage(tank_id="R1", target_id="B1"), white=[5, 1, 1, 1], red=[1, 1, 1, 1, 1])
    assert not [e for e in result.events if e.kind == "morale_check"]
    assert g.tank("B1").hit_by == ("R1",) and g.tank("B1").hit_turn == 2


def test_routed_result_names_the_point_it_must_drive_to_TTT_MR2() -> None:
    """TTT-MR2: the moment a crew Routs, the result says where it will drive (its full
    Movement toward the edge it entered from), so TTS can show the point."""
    g = duel(blue_at=(33.0, 14.0, 180.0), options=Options(deploy_depth=12), extra=[B2])
    r = shake(g, green=6)
    (event,) = [e for e in r.events if e.kind == "routed"]
    assert event.clause == "TTT-MO3"
    assert event.data == {
        "tank_id": "B1",
        "edge": "north",
        "x": 33.0,
        "z": 20.0,
        "leaves_table": False,
        "drives_this_phase": False,  # Routed in Red's phase: it drives at the end of its own
    }


def test_standing_holds_every_field_in_play_and_can_move_read() -> None:
    """The after-action checks (TTT-MO2 (3)'s mobile friends, a side out of tanks) skip a
    touched tank whose ``standing`` fields hold the values they held before the action: so
    ``in_play`` and ``can_move`` must read no field outside them, or a change of the missing
    field would go unseen. Read from the properties' own source."""
    import ast
    import inspect
    import textwrap

    from tankref.rulesets.ttt.state import TankState, standing

    keyed = set(standing.__reduce__()[1])  # the itemgetter's names
    for prop in (TankState.in_play, TankState.can_move):
        assert isinstance(prop, property) and prop.fget is not None
        tree = ast.parse(textwrap.dedent(inspect.getsource(prop.fget)))
        read = {
            node.attr
            for node in ast.walk(tree)
            if isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "self"
        }
        assert read and read <= set(TankState.model_fields), read
        assert read <= keyed, f"read but not in standing: {sorted(read - keyed)}"
