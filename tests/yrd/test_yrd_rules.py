"""The tank yard's clauses (YRD-*), each adjudicated by the real engine with supplied dice."""

from __future__ import annotations

import pytest

from kit.yrd import Yard, yard
from tankref.core.errors import RulesError
from tankref.rulesets.yrd.actions import (
    AntiTank,
    Attack,
    EndTurn,
    Move,
    PlacePiece,
    PlaceTank,
    RemoveTank,
    StartGame,
)
from tankref.rulesets.yrd.engine import adjudicate, new_table, options_for
from tankref.rulesets.yrd.state import Options, TableState


def _option(g: Yard, unit: str, kind: str) -> dict[str, object]:
    found = next(o for o in options_for(g.state, unit) if o.kind == kind)
    return found.to_dict()


def _ruling(g: Yard, option: str) -> str | None:
    return next((r.value for r in g.last.rulings if r.option == option), None)


# --- YRD-SP1 -----------------------------------------------------------------------------------


def test_each_party_has_one_tank_on_one_of_its_three_spaces() -> None:
    """YRD-SP1: a tank dropped near one of its own yard's tank spaces stands on it (snapped to
    the space); a second tank for the party, a tank on the other yard's space or between
    spaces, and a start with a party missing its tank are refused."""
    g = yard(start=False)
    r = g.tank("R")
    assert (r.space, r.x, r.z) == ("attack", *g.spot("Red", "attack"))  # snapped, not +0.4
    g.refused(
        PlaceTank(tank_id="R2", card="yard-tank", player="Red", x=-8, z=-18), "ONE_TANK", "YRD-SP1"
    )
    bx, bz = g.spot("Blue", "shield")
    g.refused(
        PlaceTank(tank_id="R", card="yard-tank", player="Red", x=bx, z=bz),
        "NOT_ON_A_SPACE",
        "YRD-SP1",
    )
    g.refused(
        PlaceTank(tank_id="R", card="yard-tank", player="Red", x=-4, z=-18),
        "NOT_ON_A_SPACE",
        "YRD-SP1",
    )
    g.do(RemoveTank(tank_id="B"))
    g.refused(StartGame(), "NO_TANKS", "YRD-SP1")
    x, z = g.spot("Blue", "shield")
    g.do(PlaceTank(tank_id="B", card="yard-tank", player="Blue", x=x, z=z))
    g.do(StartGame())
    assert g.state.status == "playing" and g.state.active_player == "Red"
    g.refused(RemoveTank(tank_id="B"), "TANK_STAYS", "YRD-SP1")


def test_movement_phase_stay_or_move_to_another_space() -> None:
    """YRD-SP1: in its movement phase the tank moves to one of its other two spaces (by the
    model's position or by name), once, before its attack, only in its own turn and only
    within its yard; staying is no move."""
    g = yard(red="attack", blue="shield")
    x, z = g.spot("Red", "shield")
    g.refused(Move(tank_id="B", space="attack"), "NOT_YOUR_PHASE", "YRD-SP1")
    g.refused(Move(tank_id="R", space="attack"), "SAME_SPACE", "YRD-SP1")
    bx, bz = g.spot("Blue", "attack")
    g.refused(Move(tank_id="R", x=bx, z=bz), "NOT_ON_A_SPACE", "YRD-SP1")
    g.do(Move(tank_id="R", x=x + 1, z=z + 1))
    assert (g.tank("R").space, g.tank("R").x, g.tank("R").z) == ("shield", x, z)
    assert g.last.changes[0].changes["space"] == ["attack", "shield"]
    assert "Shield space" in g.last.changes[0].markers
    g.refused(Move(tank_id="R", space="anti_tank"), "ALREADY_MOVED", "YRD-SP1")
    g.end_turn()
    g.do(Move(tank_id="B", space="anti_tank"))
    g.end_turn()
    g.do(Move(tank_id="R", space="anti_tank"))  # a new turn, a new movement phase
    g.do(AntiTank(tank_id="R", target_id="B"), d20=[3, 9])  # misses
    g.end_turn()
    g.do(AntiTank(tank_id="B", target_id="R"), d20=[2, 5])  # attacks first ...
    g.refused(Move(tank_id="B", space="shield"), "ALREADY_ATTACKED", "YRD-SP1")  # ... then no move


# --- YRD-SH1 -----------------------------------------------------------------------------------


def test_a_tank_on_its_shield_space_cannot_be_targeted_from_anti_tank() -> None:
    """YRD-SH1: by default the referee refuses the Anti-tank attack on a shielded tank (no
    dice, nothing spent) and the options say why; the clause's "automatically fails"
    reading (option shield = auto_fail) logs a failed attack that rolls nothing."""
    g = yard(red="anti_tank", blue="shield")
    g.refused(AntiTank(tank_id="R", target_id="B"), "TARGET_SHIELDED", "YRD-SH1")
    option = _option(g, "R", "anti_tank")
    assert (option["allowed"], option["code"], option["clause"]) == (
        False,
        "TARGET_SHIELDED",
        "YRD-SH1",
    )
    g = yard(red="anti_tank", blue="shield", options=Options(shield="auto_fail"))
    assert _option(g, "R", "anti_tank")["detail"] == {
        "targets": [{"target_id": "B", "space": "shield", "auto_fail": True}]
    }
    result = g.do(AntiTank(tank_id="R", target_id="B"))
    assert result.rolls == [] and result.outcome["verdict"] == "auto_fail"
    assert g.tank("B").hp == 5 and g.tank("R").attacked
    assert _ruling(g, "shield") == "auto_fail"


# --- YRD-AT1 -----------------------------------------------------------------------------------


def test_attack_space_contest_adds_defence_and_deals_2d6() -> None:
    """YRD-AT1: the offender adds nothing, the defender its party's defence; the offender
    wins: the piece takes 2d6 damage. The modifier names the clause."""
    g = yard(blue_defence=2, pieces={"P": ("Blue", ("Red", 2))})
    result = g.do(Attack(tank_id="R", target_id="P"), d20=[15, 3], d6=[4, 5])
    assert [(r.die, r.face) for r in result.rolls] == [
        ("d20", 15),
        ("d20", 3),
        ("d6", 4),
        ("d6", 5),
    ]
    assert [(m.clause, m.amount, m.applies_to) for m in result.modifiers] == [
        ("YRD-AT1", 2, "contest_roll")
    ]
    assert result.outcome["verdict"] == "win" and result.outcome["damage"] == 9
    assert (result.outcome["offender_total"], result.outcome["defender_total"]) == (15, 5)
    assert g.state.pieces["P"].hp == 11
    assert g.tank("R").attacked
    g.refused(Attack(tank_id="R", target_id="P"), "ALREADY_ATTACKED", "YRD-SP1", d20=[9, 9])


def test_attack_tie_goes_to_the_defender_and_nothing_happens() -> None:
    """YRD-AT1 (ruling, option tie = defender): 10 against 8 + 2 defence is a tie: the
    defender wins, no damage is rolled (a supplied d6 is left over and refused)."""
    g = yard(blue_defence=2, pieces={"P": ("Blue", ("Red", 1))})
    g.refused(Attack(tank_id="R", target_id="P"), "DICE_COUNT_WRONG", None, d20=[10, 8], d6=[6, 6])
    result = g.do(Attack(tank_id="R", target_id="P"), d20=[10, 8])
    assert result.outcome["verdict"] == "lose" and result.outcome["damage"] == 0
    assert g.state.pieces["P"].hp == 20
    assert _ruling(g, "tie") == "defender"


def test_attack_tie_rulings_offender_and_reroll() -> None:
    """YRD-AT1 rulings: tie = offender makes a tie the offender's (narrowest) win, a grazing
    hit; tie = reroll rolls both dice again until they differ."""
    g = yard(options=Options(tie="offender"), pieces={"P": ("Blue", ("Red", 1))})
    result = g.do(Attack(tank_id="R", target_id="P"), d20=[8, 8], d6=[3, 4])
    assert result.outcome["verdict"] == "graze" and result.outcome["damage"] == 3
    g = yard(options=Options(tie="reroll"), pieces={"P": ("Blue", ("Red", 1))})
    result = g.do(Attack(tank_id="R", target_id="P"), d20=[8, 8, 12, 4], d6=[1, 1])
    assert result.outcome["verdict"] == "win" and result.outcome["damage"] == 2
    assert "again" in result.rolls[2].purpose


def test_attack_critical_success_doubles_damage_even_against_a_higher_total() -> None:
    """YRD-AT1: a natural 20 is a critical success (ruling: it wins whatever the totals):
    double the 2d6 rolled."""
    g = yard(blue_defence=4, pieces={"P": ("Blue", ("Red", 3))})
    result = g.do(Attack(tank_id="R", target_id="P"), d20=[20, 19], d6=[6, 5])
    assert result.outcome["verdict"] == "critical_success"
    assert result.outcome["damage"] == 22 and g.state.pieces["P"].down
    assert any(m.applies_to == "damage" and m.amount == 11 for m in result.modifiers)
    assert any(e.kind == "piece_down" for e in result.events)
    g.end_turn()
    g.end_turn()
    g.refused(Attack(tank_id="R", target_id="P"), "PIECE_DOWN", "YRD-AT1")


def test_attack_critical_failure_damages_own_tank() -> None:
    """YRD-AT1: a natural 1 is a critical failure: the offender's own tank takes 1 damage
    (and, ruling, the attack fails even against a lower total)."""
    g = yard(pieces={"P": ("Blue", ("Red", 1))})
    result = g.do(Attack(tank_id="R", target_id="P"), d20=[1, 1])
    assert result.outcome["verdict"] == "critical_failure" and result.outcome["damage"] == 0
    assert g.tank("R").hp == 4 and g.state.pieces["P"].hp == 20
    assert any(r.text.startswith("A critical failure") for r in result.rulings)


def test_criticals_off_is_a_table_option() -> None:
    """YRD-AT1 (option criticals = off): a natural 20 is just 20, a natural 1 just 1."""
    g = yard(options=Options(criticals="off"), pieces={"P": ("Blue", ("Red", 1))})
    result = g.do(Attack(tank_id="R", target_id="P"), d20=[20, 5], d6=[2, 2])
    assert result.outcome["verdict"] == "win" and result.outcome["damage"] == 4
    g.end_turn()
    g.end_turn()
    g.do(Attack(tank_id="R", target_id="P"), d20=[1, 5])
    assert g.tank("R").hp == 5 and g.last.outcome["verdict"] == "lose"


def test_grazing_hit_deals_half_damage() -> None:
    """YRD-AT1: winning by 1 or 2 (ruling, option grazing_margin = 2) is a grazing hit: half
    the 2d6 total, rounded down (option grazing_rounding); by 3 it is a full hit."""
    g = yard(pieces={"P": ("Blue", ("Red", 1))})
    result = g.do(Attack(tank_id="R", target_id="P"), d20=[12, 10], d6=[3, 4])
    assert (result.outcome["verdict"], result.outcome["damage"]) == ("graze", 3)
    assert _ruling(g, "grazing_margin") == "2"
    g = yard(options=Options(grazing_rounding="up"), pieces={"P": ("Blue", ("Red", 1))})
    result = g.do(Attack(tank_id="R", target_id="P"), d20=[12, 11], d6=[3, 4])
    assert (result.outcome["verdict"], result.outcome["damage"]) == ("graze", 4)
    g = yard(pieces={"P": ("Blue", ("Red", 1))})
    result = g.do(Attack(tank_id="R", target_id="P"), d20=[13, 10], d6=[3, 4])
    assert (result.outcome["verdict"], result.outcome["damage"]) == ("win", 7)
    g = yard(options=Options(grazing_margin=0), pieces={"P": ("Blue", ("Red", 1))})
    result = g.do(Attack(tank_id="R", target_id="P"), d20=[11, 10], d6=[3, 4])
    assert (result.outcome["verdict"], result.outcome["damage"]) == ("win", 7)


def test_attack_targets_only_enemy_pieces_on_own_artillery_spaces() -> None:
    """YRD-AT1: the target is an opponent's piece on one of the attacker's own artillery
    spaces: no friendly fire, not a piece on the other homefield or off the spaces, not a
    tank, and only from the Attack space. options_for lists exactly the legal targets."""
    pieces = {
        "mine": ("Red", ("Red", 1)),
        "theirs": ("Blue", ("Red", 2)),
        "far": ("Blue", ("Blue", 1)),
        "off": ("Blue", None),
    }
    g = yard(pieces=pieces)
    g.refused(Attack(tank_id="R", target_id="mine"), "FRIENDLY_FIRE", "YRD-AT1")
    g.refused(Attack(tank_id="R", target_id="far"), "NOT_ON_YOUR_ARTILLERY", "YRD-AT1")
    g.refused(Attack(tank_id="R", target_id="off"), "NOT_ON_YOUR_ARTILLERY", "YRD-AT1")
    g.refused(Attack(tank_id="R", target_id="B"), "NOT_A_PIECE", "YRD-AT1")
    detail = _option(g, "R", "attack")["detail"]
    assert isinstance(detail, dict)
    assert [t["target_id"] for t in detail["targets"]] == ["theirs"]
    assert detail["targets"][0]["p_hit"] == pytest.approx(191 / 400)
    g = yard(red="shield", pieces=pieces)
    g.refused(Attack(tank_id="R", target_id="theirs"), "NOT_ON_ATTACK_SPACE", "YRD-AT1")


def test_piece_without_hp_counts_damage_only() -> None:
    """YRD-AT1: a piece card without HP (the players keep it): the referee adds up damage."""
    g = yard(start=False)
    x, z = g.artillery("Red", 2)
    g.do(PlacePiece(piece_id="P", card="piece", player="Blue", x=x, z=z))
    g.do(StartGame())
    g.do(Attack(tank_id="R", target_id="P"), d20=[18, 2], d6=[6, 6])
    piece = g.state.pieces["P"]
    assert (piece.hp, piece.damage_taken, piece.down) == (None, 12, False)
    assert "Damage 12" in g.last.changes[-1].markers


# --- YRD-AN1 -----------------------------------------------------------------------------------


def test_anti_tank_contest_has_no_modifiers_and_deals_one_damage() -> None:
    """YRD-AN1: neither side adds anything (the party's defence is not added); the offender
    wins: the enemy tank takes 1 damage."""
    g = yard(red="anti_tank", blue="anti_tank", blue_defence=4)
    result = g.do(AntiTank(tank_id="R", target_id="B"), d20=[10, 9])
    assert result.modifiers == [] and result.outcome["verdict"] == "win"
    assert g.tank("B").hp == 4 and result.outcome["damage"] == 1
    assert not result.outcome["advantage"]


def test_anti_tank_advantage_against_a_tank_on_its_attack_space() -> None:
    """YRD-AN1: advantage when the defender's tank is on its Attack space (ruling, option
    advantage = roll_twice: two dice, the higher counts): 3 and 14 against 12 hits; one die
    is not enough (DICE_NEEDED names the second)."""
    g = yard(red="anti_tank", blue="attack")
    with pytest.raises(RulesError) as info:
        adjudicate(g.state, AntiTank(tank_id="R", target_id="B"), _faces(d20=[3]))
    assert info.value.code == "DICE_NEEDED" and info.value.details["need"]["die"] == "d20"
    result = g.do(AntiTank(tank_id="R", target_id="B"), d20=[3, 14, 12])
    assert result.outcome["advantage"] and result.outcome["verdict"] == "win"
    assert "advantage" in result.rolls[0].purpose and g.tank("B").hp == 4
    assert _ruling(g, "advantage") == "roll_twice"


def test_advantage_as_a_bonus_or_off() -> None:
    """YRD-AN1 rulings: advantage = bonus adds advantage_bonus to the offender's roll (a
    modifier citing the clause); advantage = off rolls one die plainly."""
    g = yard(red="anti_tank", blue="attack", options=Options(advantage="bonus"))
    result = g.do(AntiTank(tank_id="R", target_id="B"), d20=[8, 12])
    assert result.outcome["verdict"] == "win" and result.outcome["offender_total"] == 13
    assert [(m.clause, m.amount) for m in result.modifiers] == [("YRD-AN1", 5)]
    g = yard(red="anti_tank", blue="attack", options=Options(advantage="off"))
    result = g.do(AntiTank(tank_id="R", target_id="B"), d20=[8, 12])
    assert result.outcome["verdict"] == "lose" and not result.outcome["advantage"]


def test_anti_tank_critical_success_and_failure() -> None:
    """YRD-AN1: a critical success deals 2 damage instead of 1; a critical failure damages
    the offender's own tank by 1 and the attack fails."""
    g = yard(red="anti_tank", blue="anti_tank")
    g.do(AntiTank(tank_id="R", target_id="B"), d20=[20, 20])
    assert g.tank("B").hp == 3 and g.last.outcome["damage"] == 2
    g = yard(red="anti_tank", blue="anti_tank")
    g.do(AntiTank(tank_id="R", target_id="B"), d20=[1, 1])
    assert g.tank("B").hp == 5 and g.tank("R").hp == 4
    assert g.last.outcome["self_damage"] == 1 and not g.last.outcome["hit"]


def test_anti_tank_only_from_its_space_and_only_at_an_enemy_tank() -> None:
    """YRD-AN1: only from the Anti-tank space, never at a piece."""
    g = yard(red="attack", blue="anti_tank", pieces={"P": ("Blue", ("Red", 1))})
    g.refused(AntiTank(tank_id="R", target_id="B"), "NOT_ON_ANTI_TANK_SPACE", "YRD-AN1")
    g.do(Move(tank_id="R", space="anti_tank"))
    g.refused(AntiTank(tank_id="R", target_id="P"), "NOT_A_TANK", "YRD-AN1")


# --- YRD-HP1 / YRD-SD1 -------------------------------------------------------------------------


def _at_hp(g: Yard, tank_id: str, hp: int) -> None:
    """Start the match with a worn tank (the state is built, not played to)."""
    g.state.tanks[tank_id].hp = hp


def test_zero_hp_heavily_damaged_for_the_rest_of_the_match() -> None:
    """YRD-HP1: at 0 HP the tank is Heavily Damaged for the rest of the match: it may not go
    to its Attack space (the move option says so), and on it makes no attack on pieces;
    more damage leaves it at 0."""
    g = yard(red="anti_tank", blue="anti_tank", pieces={"P": ("Red", ("Blue", 1))})
    _at_hp(g, "B", 1)
    result = g.do(AntiTank(tank_id="R", target_id="B"), d20=[15, 2])
    b = g.tank("B")
    assert (b.hp, b.heavily_damaged) == (0, True)
    assert any(e.kind == "heavily_damaged" and e.clause == "YRD-HP1" for e in result.events)
    assert "Heavily Damaged" in result.changes[-1].markers
    g.end_turn()
    g.end_turn()  # Blue was Shut Down through turn 2
    g.end_turn()
    g.refused(Move(tank_id="B", space="attack"), "HEAVILY_DAMAGED", "YRD-HP1")
    move = _option(g, "B", "move")
    assert move["allowed"] and move["detail"]["refused"] == [  # type: ignore[index]
        {"space": "attack", "code": "HEAVILY_DAMAGED", "clause": "YRD-HP1"}
    ]
    g.do(AntiTank(tank_id="B", target_id="R"), d20=[1, 1])  # its own critical failure
    assert g.tank("B").hp == 0 and g.tank("B").heavily_damaged
    # Already on its Attack space when it is wrecked: no more attacks on pieces from there.
    g = yard(red="anti_tank", blue="attack", pieces={"P": ("Red", ("Blue", 1))})
    _at_hp(g, "B", 1)
    g.do(AntiTank(tank_id="R", target_id="B"), d20=[15, 2, 2])
    for _ in range(3):
        g.end_turn()
    g.refused(Attack(tank_id="B", target_id="P"), "HEAVILY_DAMAGED", "YRD-HP1")


def test_damage_shuts_a_tank_down_until_the_end_of_its_owners_next_turn() -> None:
    """YRD-SD1: hit in the enemy's turn, the tank cannot move or attack through its owner's
    coming turn (it may end it), and acts again after; damaged in its own turn (a critical
    failure) the Shutdown lasts through its owner's following turn."""
    g = yard(red="anti_tank", blue="anti_tank")
    g.end_turn()  # turn 2: Blue's
    g.do(AntiTank(tank_id="B", target_id="R"), d20=[11, 4])
    assert g.tank("R").shutdown_until == 3
    assert any(e.kind == "shutdown" and e.clause == "YRD-SD1" for e in g.last.events)
    g.end_turn()  # turn 3: Red's
    g.refused(Move(tank_id="R", space="shield"), "SHUTDOWN", "YRD-SD1")
    g.refused(AntiTank(tank_id="R", target_id="B"), "SHUTDOWN", "YRD-SD1")
    assert {o.kind: o.code for o in options_for(g.state, "R")} == {
        "move": "SHUTDOWN",
        "attack": "SHUTDOWN",
        "anti_tank": "SHUTDOWN",
        "end_turn": None,
    }
    g.end_turn()
    assert g.tank("R").shutdown_until is None
    assert any(e.kind == "shutdown_lifted" for e in g.last.events)
    g.end_turn()  # turn 5: Red acts again
    g.do(AntiTank(tank_id="R", target_id="B"), d20=[1, 20])  # critical failure: own damage
    assert g.tank("R").shutdown_until == 7  # its next turn is turn 7
    g.end_turn()
    g.end_turn()
    g.refused(Move(tank_id="R", space="shield"), "SHUTDOWN", "YRD-SD1")


# --- YRD-EN1 -----------------------------------------------------------------------------------


def test_tanks_are_affected_only_by_other_tanks() -> None:
    """YRD-EN1: a piece cannot act on a tank (or at all under the tank rules): every option
    of a piece is refused NOT_A_TANK citing YRD-EN1, and an attack named for it is refused;
    pieces coming and going never change a tank."""
    g = yard(red="anti_tank", pieces={"P": ("Blue", ("Red", 1))})
    g.end_turn()
    g.refused(AntiTank(tank_id="P", target_id="R"), "NOT_A_TANK", "YRD-EN1")
    g.refused(Attack(tank_id="P", target_id="R"), "NOT_A_TANK", "YRD-EN1")
    assert {(o.allowed, o.code, o.clause) for o in options_for(g.state, "P")} == {
        (False, "NOT_A_TANK", "YRD-EN1")
    }
    tanks = {k: v.model_dump() for k, v in g.state.tanks.items()}
    x, z = g.spot("Red", "anti_tank")  # even dropped right on the tank
    g.do(PlacePiece(piece_id="P", card="party-member", player="Blue", x=x, z=z))
    g.do(RemoveTank(tank_id="P"))
    assert {k: v.model_dump() for k, v in g.state.tanks.items()} == tanks


# --- turns, the end, JSON ----------------------------------------------------------------------


def test_turn_limit_ends_the_match_without_a_winner() -> None:
    """The match ends after turn_limit rounds (chapter 12 names no winner); then every
    action is refused GAME_OVER."""
    g = yard(options=Options(turn_limit=1))
    g.end_turn()
    g.refused(EndTurn(player="Red"), "NOT_YOUR_PHASE", "YRD-SP1")
    g.do(EndTurn(player="Blue"))
    assert g.state.status == "over" and g.state.winner is None
    assert "turn limit" in (g.state.game_over_reason or "")
    g.refused(Move(tank_id="R", space="shield"), "GAME_OVER", None)


def test_the_matchs_flow_is_refused_with_the_shared_codes() -> None:
    """YRD-SP1: setup, the match, its end, checked with the core's one set of flow codes:
    NOT_STARTED before start_game, SETUP_OVER for a placement or a second start (codes that
    were ALREADY_STARTED), NOT_YOUR_PHASE in the other party's turn (was NOT_YOUR_TURN) with
    the field named, GAME_OVER for everything once over; a tank's options give the same."""
    g = yard(start=False)
    g.refused(Move(tank_id="R", space="shield"), "NOT_STARTED", None)
    g.refused(EndTurn(), "NOT_STARTED", None)
    g.refused(Move(tank_id="nobody", space="shield"), "UNKNOWN_TANK", None)  # looked up first
    assert {o.code for o in options_for(g.state, "R")} == {"NOT_STARTED"}
    g.do(StartGame())
    g.refused(StartGame(), "SETUP_OVER", None)
    x, z = g.spot("Red", "shield")
    g.refused(
        PlaceTank(tank_id="R", card="yard-tank", player="Red", x=x, z=z), "SETUP_OVER", "YRD-SP1"
    )
    with pytest.raises(RulesError) as info:
        adjudicate(g.state, EndTurn(player="Blue"))
    assert (info.value.code, info.value.details) == ("NOT_YOUR_PHASE", {"field": "player"})
    assert {o.code for o in options_for(g.state, "B")} == {"NOT_YOUR_PHASE"}
    g.state = g.state.model_copy(update={"status": "over", "game_over_reason": "agreed"})
    for action in (
        StartGame(),
        PlaceTank(tank_id="R", card="yard-tank", player="Red", x=x, z=z),
        PlacePiece(piece_id="P", card="party-member", player="Red", x=30, z=0),
        RemoveTank(tank_id="R"),
        AntiTank(tank_id="R", target_id="B"),
    ):
        g.refused(action, "GAME_OVER", None)
    assert {o.code for o in options_for(g.state, "R")} == {"GAME_OVER"}


def test_an_adjudication_leaves_the_callers_models_alone() -> None:
    """YRD-AN1/YRD-SD1 on a private copy: the damaged tank and the attacker are new objects in
    the new state; the caller's state (and the models nobody touched) are as they were."""
    g = yard(red="anti_tank", blue="attack", pieces={"P": ("Red", ("Blue", 2))})
    before = g.state
    text = before.to_json()
    g.do(AntiTank(tank_id="R", target_id="B"), d20=[15, 17, 3])
    assert before.to_json() == text
    assert before.tanks["B"].hp == 5 and g.tank("B").hp == 4 and g.tank("B").shutdown
    assert g.state.pieces["P"] is before.pieces["P"]  # untouched: shared, not copied
    assert [c.tank_id for c in g.last.changes] == ["R", "B"]  # in the order touched


def test_state_round_trips_through_json() -> None:
    """A played table's state survives JSON: equal after loading, identical text again."""
    g = yard(red="anti_tank", blue="attack", pieces={"P": ("Red", ("Blue", 2))})
    g.do(AntiTank(tank_id="R", target_id="B"), d20=[5, 17, 3])
    text = g.state.to_json()
    again = TableState.from_json(text)
    assert again == g.state and again.to_json() == text


def test_layout_problems_are_reported_at_once() -> None:
    """The yard layout: spaces whose snap circles overlap are refused, every pair named."""
    with pytest.raises(RulesError) as info:
        new_table(options=Options(snap_radius=5))
    assert info.value.code == "BAD_LAYOUT"
    assert len(info.value.details["problems"]) > 2


def _faces(**faces: list[int]) -> object:
    from tankref.core.dice import SuppliedDice

    return SuppliedDice(faces=faces)
