"""Scenarios, victory, the turn limit and crew determination, through the real engine
(TTT-S1, TTT-S2, TTT-S3, TTT-C1).

The table is 72" x 48" centred on the origin: Red's edge is south (z = -24), Blue's north
(z = +24), west x = -36, east x = +36.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kit.ttt import Game, duel
from tankref.core.dice import SuppliedDice
from tankref.core.errors import DiceNeeded, RulesError
from tankref.rulesets.ttt.actions import (
    CrewRoll,
    EndPhase,
    Engage,
    Move,
    PlaceTank,
    SetObjective,
    StartGame,
)
from tankref.rulesets.ttt.cards import load_cards
from tankref.rulesets.ttt.engine import adjudicate, new_table, options_for
from tankref.rulesets.ttt.state import Options, Scenario


def end_phase(g: Game, times: int = 1) -> None:
    for _ in range(times):
        g.do(EndPhase())


def game_over_events(g: Game) -> list[dict[str, object]]:
    assert g.last is not None
    return [{"clause": e.clause, **e.data} for e in g.last.events if e.kind == "game_over"]


def knock_out_b1(g: Game, green: tuple[int, ...] = ()) -> None:
    """R1 (tiger-i: 4 white, 5 red) hits B1's front (5) with 6 PEN and draws Knocked Out."""
    g.do(
        Engage(tank_id="R1", target_id="B1"),
        white=[5, 1, 1, 1],
        red=[5, 5, 5, 1, 1],
        green=green,
        card="Knocked Out",
    )
    assert g.tank("B1").destroyed


# --- TTT-S1 Meeting Engagement ----------------------------------------------------------------


def test_ttt_s1_deploy_within_six_inches_of_the_own_edge() -> None:
    """TTT-S1: each side deploys within deploy_depth (6") of its own edge."""
    g = Game()
    g.place("R1", "tiger-i", "Red", 0, -18)  # 6" from the south edge
    g.place("B1", "m4a1-sherman", "Blue", 30, 18, 180)  # 6" from the north edge
    assert g.tank("R1").on_table and g.tank("B1").on_table


@pytest.mark.parametrize(
    ("player", "z"), [("Red", -17.9), ("Blue", 17.5), ("Red", 20.0), ("Blue", -22.0)]
)
def test_ttt_s1_deploying_away_from_the_own_edge_is_refused(player: str, z: float) -> None:
    """TTT-S1: a tank placed more than 6" from its own edge is DEPLOY_ZONE."""
    g = Game()
    err = g.refused(PlaceTank(tank_id="T1", card="tiger-i", player=player, x=0, z=z), "DEPLOY_ZONE")
    assert err.clause == "TTT-S1"
    assert g.state.tanks == {}


def test_ttt_s1_deploy_depth_is_a_table_setting() -> None:
    """TTT-S1: Options(deploy_depth=10) widens the deployment zone."""
    g = Game(options=Options(deploy_depth=10))
    g.place("R1", "tiger-i", "Red", 0, -14)
    assert g.tank("R1").on_table


def test_ttt_s1_the_players_choose_who_goes_first() -> None:
    """TTT-S1: Scenario(first_player="Blue") gives Blue the first phase of turn one."""
    g = duel(scenario=Scenario(first_player="Blue"))
    assert g.state.order == ("Blue", "Red")
    assert (g.state.turn, g.state.active_player) == (1, "Blue")
    g.refused(Move(tank_id="R1", x=0, z=-17, facing=0), "NOT_YOUR_PHASE")
    end_phase(g, 2)
    assert (g.state.turn, g.state.active_player) == (2, "Blue")


def test_ttt_s1_first_player_defaults_to_the_first_listed() -> None:
    """TTT-S1: without a choice the first player listed (Red) takes the first phase."""
    g = duel()
    assert g.state.order == ("Red", "Blue")
    assert g.state.active_player == "Red"


def test_ttt_s1_elimination_the_last_side_with_tanks_wins() -> None:
    """TTT-S1: when one side has no tank left in the game, the other side wins."""
    g = duel()
    knock_out_b1(g)
    assert g.state.status == "over"
    assert g.state.winner == "Red"
    assert [e["winner"] for e in game_over_events(g)] == ["Red"]
    g.refused(EndPhase(), "GAME_OVER")


def test_ttt_s1_side_with_a_tank_left_fights_on() -> None:
    """TTT-S1: losing one tank of two is not defeat: the game goes on."""
    g = duel(extra=[("B2", "m4a1-sherman", "Blue", 20, 20, 180)])
    knock_out_b1(g, green=(1,))  # B2, left with no friend, checks morale (TTT-MO2): OK
    assert g.state.status == "playing"
    assert g.state.winner is None


def test_turn_limit_ends_the_game_in_a_draw() -> None:
    """TTT-T1 table setting: Options(turn_limit=2) ends the game after turn 2 with no winner."""
    g = duel(options=Options(turn_limit=2))
    end_phase(g, 3)
    assert g.state.status == "playing"
    g.do(EndPhase())
    assert g.state.status == "over"
    assert g.state.winner is None
    assert g.state.turn == 2
    assert [e["winner"] for e in game_over_events(g)] == [None]
    g.refused(Move(tank_id="R1", x=0, z=-17, facing=0), "GAME_OVER")


# --- TTT-S2 Ambush ----------------------------------------------------------------------------


def ambush(first_player: str | None = None) -> Game:
    """Blue ambushes: B1 (m4a1-sherman, Movement 6) in reserve; Red's R1 on the table."""
    g = Game(scenario=Scenario(kind="ambush", ambusher="Blue", first_player=first_player))
    g.place("R1", "tiger-i", "Red", 0, -20)
    g.place("B1", "m4a1-sherman", "Blue", 0, 0, 180, reserve=True)
    g.crew("R1")
    g.crew("B1")
    g.start()
    return g


def test_ttt_s2_ambusher_tanks_must_start_in_reserve() -> None:
    """TTT-S2: the ambusher's tanks cannot be placed on the table (AMBUSHER_OFF_TABLE)."""
    g = Game(scenario=Scenario(kind="ambush", ambusher="Blue"))
    err = g.refused(
        PlaceTank(tank_id="B1", card="m4a1-sherman", player="Blue", x=0, z=20), "AMBUSHER_OFF_TABLE"
    )
    assert err.clause == "TTT-S2"
    g.place("B1", "m4a1-sherman", "Blue", 0, 0, reserve=True)
    assert g.tank("B1").on_table is False


def test_ttt_s2_the_ambushed_takes_the_first_phase() -> None:
    """TTT-S2: the ambushed side takes the first phase, whatever first_player says."""
    g = ambush(first_player="Blue")
    assert g.state.order == ("Red", "Blue")
    assert g.state.active_player == "Red"


def test_ttt_s2_ambushed_first_when_listed_second() -> None:
    """TTT-S2: with Red ambushing, Blue (the ambushed, listed second) goes first."""
    g = Game(scenario=Scenario(kind="ambush", ambusher="Red"))
    g.place("R1", "tiger-i", "Red", 0, 0, reserve=True)
    g.place("B1", "m4a1-sherman", "Blue", 0, 20, 180)
    g.crew("R1")
    g.crew("B1")
    g.start()
    assert g.state.active_player == "Blue"


def test_ttt_s2_ambusher_cannot_enter_on_turn_one() -> None:
    """TTT-S2: the ambusher stays off the table until its phase of turn two (AMBUSH_NOT_YET)."""
    g = ambush()
    g.do(EndPhase())
    assert (g.state.turn, g.state.active_player) == (1, "Blue")
    err = g.refused(Move(tank_id="B1", x=33, z=0, facing=270), "AMBUSH_NOT_YET")
    assert err.clause == "TTT-S2"
    g.do(EndPhase())  # the game goes on with the ambusher still in reserve
    assert g.state.status == "playing"


def test_ttt_s2_ambusher_cannot_enter_from_the_ambushed_edge() -> None:
    """TTT-S2: entry from the ambushed side's starting edge (south) is AMBUSH_EDGE."""
    g = ambush()
    end_phase(g, 3)
    assert (g.state.turn, g.state.active_player) == (2, "Blue")
    err = g.refused(Move(tank_id="B1", x=10, z=-21, facing=0), "AMBUSH_EDGE")
    assert err.details == {"edge": "south"}


@pytest.mark.parametrize(
    ("x", "z", "edge", "travelled", "kind"),
    [
        (33, 0, "east", 3.0, "normal"),
        (-26, 5, "west", 10.0, "fast"),
        (0, 19, "north", 5.0, "normal"),
    ],
)
def test_ttt_s2_ambusher_enters_from_another_edge_measured_from_it(
    x: float, z: float, edge: str, travelled: float, kind: str
) -> None:
    """TTT-S2: on turn two the ambusher enters from any other edge; the move is measured from
    that edge."""
    g = ambush()
    end_phase(g, 3)
    r = g.do(Move(tank_id="B1", x=x, z=z, facing=0))
    b1 = g.tank("B1")
    assert b1.on_table and b1.entered_edge == edge
    assert (r.outcome["travelled"], r.outcome["move"]) == (travelled, kind)
    assert any(n.clause == "TTT-S2" for n in r.rulings)


def test_ttt_s2_entry_deeper_than_twice_movement_is_refused() -> None:
    """TTT-S2/TTT-M2: an entry point more than twice Movement from the edge is MOVE_TOO_FAR."""
    g = ambush()
    end_phase(g, 3)
    err = g.refused(Move(tank_id="B1", x=23, z=0, facing=270), "MOVE_TOO_FAR")  # 13" > 12"
    assert err.details["travelled"] == 13.0


# --- TTT-S3 Objective -------------------------------------------------------------------------


def objective_table(turns: int = 6) -> Game:
    return Game(scenario=Scenario(kind="objective", defender="Red", objective_turns=turns))


def objective_game(turns: int = 6) -> Game:
    """Red defends (0, 0) with R1 (tiger-i) at (0, -10); Blue's B1 in reserve."""
    g = objective_table(turns)
    g.do(SetObjective(x=0, z=0))
    g.place("R1", "tiger-i", "Red", 0, -10)
    g.place("B1", "m4a1-sherman", "Blue", 0, 0, 180, reserve=True)
    g.crew("R1")
    g.crew("B1")
    g.start()
    return g


def test_ttt_s3_defenders_deploy_within_twelve_inches_of_the_objective() -> None:
    """TTT-S3: the defender deploys around the objective: beyond 12" is DEPLOY_ZONE."""
    g = objective_table()
    g.refused(
        PlaceTank(tank_id="R1", card="tiger-i", player="Red", x=0, z=-10), "OBJECTIVE_NOT_SET"
    )
    g.do(SetObjective(x=0, z=0))
    err = g.refused(
        PlaceTank(tank_id="R1", card="tiger-i", player="Red", x=0, z=-12.5), "DEPLOY_ZONE"
    )
    assert err.clause == "TTT-S3"
    g.place("R1", "tiger-i", "Red", 12, 0)  # exactly 12"
    assert g.tank("R1").on_table


def test_ttt_s3_attacker_tanks_start_in_reserve() -> None:
    """TTT-S3: the attacker enters from its edge, so its tanks are placed reserve=True."""
    g = objective_table()
    g.do(SetObjective(x=0, z=0))
    g.refused(
        PlaceTank(tank_id="B1", card="m4a1-sherman", player="Blue", x=0, z=20), "ATTACKER_ENTERS"
    )


@pytest.mark.parametrize(("on_table", "ok"), [(1, False), (2, True), (3, False)])
def test_ttt_s3_defender_deploys_half_rounded_up(on_table: int, ok: bool) -> None:
    """TTT-S3 ruling: of 3 defenders exactly ceil(3/2) = 2 start on the table."""
    g = objective_table()
    g.do(SetObjective(x=0, z=0))
    for i in range(3):
        g.place(f"R{i}", "tiger-i", "Red", 2 * i, -5, reserve=i >= on_table)
    g.place("B1", "m4a1-sherman", "Blue", 0, 0, reserve=True)
    g.do(CrewRoll(), green=[1, 1, 1, 1])
    if ok:
        g.start()
        assert g.state.status == "playing"
    else:
        err = g.refused(StartGame(), "DEFENDER_DEPLOYMENT")
        assert err.details == {"wanted": 2, "placed": on_table}


def test_ttt_s3_attacker_enters_on_turn_one_from_its_own_edge() -> None:
    """TTT-S3: the attacker enters on turn one, measured from its own (north) edge."""
    g = objective_game()
    g.do(EndPhase())
    assert g.state.turn == 1
    r = g.do(Move(tank_id="B1", x=30, z=19, facing=180))
    assert g.tank("B1").entered_edge == "north"
    assert (r.outcome["travelled"], r.outcome["move"]) == (5.0, "normal")


def test_ttt_s3_attacker_cannot_enter_deep_in_the_table() -> None:
    """TTT-S3: the attacker's entry is measured from its edge: 13" in is MOVE_TOO_FAR."""
    g = objective_game()
    g.do(EndPhase())
    g.refused(Move(tank_id="B1", x=0, z=11, facing=180), "MOVE_TOO_FAR")


def test_ttt_s3_defender_reinforcements_from_turn_two() -> None:
    """TTT-S3: the defender's reserve arrives from turn two (REINFORCEMENTS_NOT_YET before),
    from its own edge."""
    g = objective_table()
    g.do(SetObjective(x=0, z=0))
    g.place("R1", "tiger-i", "Red", 0, -10)
    g.place("R2", "tiger-i", "Red", 0, 0, reserve=True)
    g.place("B1", "m4a1-sherman", "Blue", 0, 0, 180, reserve=True)
    g.do(CrewRoll(), green=[1, 1, 1])
    g.start()
    err = g.refused(Move(tank_id="R2", x=0, z=-20, facing=0), "REINFORCEMENTS_NOT_YET")
    assert err.clause == "TTT-S3"
    end_phase(g, 2)
    r = g.do(Move(tank_id="R2", x=0, z=-20, facing=0))
    assert g.tank("R2").entered_edge == "south"
    assert (r.outcome["travelled"], r.outcome["move"]) == (4.0, "normal")


def test_ttt_s3_attacker_wins_after_a_full_turn_with_no_defender_near() -> None:
    """TTT-S3: no defending tank within 12" through both phases of a turn, counted from the
    moment the last one left: the phase in which it leaves does not count (it was near when
    that phase began), so the attacker wins at the end of the two whole phases after it."""
    g = objective_game()
    g.do(Move(tank_id="R1", x=0, z=-15, facing=0))  # 15" from the objective
    g.do(EndPhase())  # Red's phase: R1 was near when it began
    assert g.state.objective_clear_phases == 0
    g.do(EndPhase())  # Blue's phase: clear throughout
    assert g.state.status == "playing"  # one phase clear is not a full turn
    assert g.state.objective_clear_phases == 1
    g.do(EndPhase())  # Red's phase of turn 2: clear throughout
    assert g.state.status == "over"
    assert g.state.winner == "Blue"
    assert game_over_events(g) == [{"clause": "TTT-S3", "winner": "Blue"}]


def test_ttt_s3_the_phase_the_last_defender_leaves_does_not_count() -> None:
    """TTT-S3 (issue 14, bug 6): the attacker used to win half a turn early, counting the
    phase in which the defender left as clear. A defender back within 12" before the full turn
    is over resets the count."""
    g = objective_game()
    g.do(Move(tank_id="R1", x=0, z=-15, facing=0))
    g.do(EndPhase())
    g.do(EndPhase())
    assert (g.state.status, g.state.objective_clear_phases) == ("playing", 1)
    g.do(Move(tank_id="R1", x=0, z=-11, facing=0))  # back within 12"
    g.do(EndPhase())
    assert (g.state.status, g.state.objective_clear_phases) == ("playing", 0)


def test_ttt_s3_a_destroyed_defender_does_not_hold_the_objective() -> None:
    """TTT-S3: a destroyed defender does not count; a far reinforcement does not either."""
    g = objective_table()
    g.do(SetObjective(x=0, z=0))
    g.place("R1", "m4a1-sherman", "Red", 0, -10)
    g.place("R2", "tiger-i", "Red", 0, 0, reserve=True)
    g.place("B1", "tiger-i", "Blue", 0, 0, 180, reserve=True)
    g.do(CrewRoll(), green=[1, 1, 1])
    g.start()
    g.do(EndPhase())
    g.do(Move(tank_id="B1", x=0, z=20, facing=180))
    # Moved: 4 - 2 = 2 white; 5 red vs the Sherman's front 5.
    g.do(
        Engage(tank_id="B1", target_id="R1"),
        white=[5, 1],
        red=[5, 5, 5, 1, 1],
        card="Knocked Out",
    )
    assert g.tank("R1").destroyed and g.state.status == "playing"  # R2 is still to come
    g.do(EndPhase())
    assert g.state.objective_clear_phases == 0  # R1 held the objective when the phase began
    g.do(Move(tank_id="R2", x=0, z=-20, facing=0))  # 20" from the objective
    g.do(EndPhase())
    assert (g.state.status, g.state.objective_clear_phases) == ("playing", 1)
    g.do(EndPhase())
    assert (g.state.status, g.state.winner) == ("over", "Blue")


def test_ttt_s3_defender_wins_by_holding_through_turn_n() -> None:
    """TTT-S3: a defender within 12" through turn N wins when turn N ends, not before."""
    g = objective_game(turns=2)
    end_phase(g, 3)
    assert g.state.status == "playing"
    g.do(EndPhase())
    assert (g.state.status, g.state.winner) == ("over", "Red")
    assert game_over_events(g) == [{"clause": "TTT-S3", "winner": "Red"}]


def test_ttt_s3_objective_game_ignores_the_turn_limit() -> None:
    """TTT-S3: the agreed N, not Options.turn_limit, ends an Objective game."""
    g = Game(
        options=Options(turn_limit=1),
        scenario=Scenario(kind="objective", defender="Red", objective_turns=2),
    )
    g.do(SetObjective(x=0, z=0))
    g.place("R1", "tiger-i", "Red", 0, -10)
    g.place("B1", "m4a1-sherman", "Blue", 0, 0, reserve=True)
    g.do(CrewRoll(), green=[1, 1])
    g.start()
    end_phase(g, 2)
    assert (g.state.status, g.state.turn) == ("playing", 2)


# --- TTT-C1 Crew determination ----------------------------------------------------------------


def two_tanks() -> Game:
    g = Game()
    g.place("R1", "tiger-i", "Red", 0, -20)
    g.place("B1", "m4a1-sherman", "Blue", 0, 20, 180)
    return g


@pytest.mark.parametrize(
    ("tank_id", "face", "crew", "total"),
    [
        ("B1", 6, "grizzled", 6),
        ("B1", 5, "scared", 5),
        ("R1", 5, "grizzled", 6),
        ("R1", 4, "scared", 5),
    ],
)
def test_ttt_c1_crew_roll(tank_id: str, face: int, crew: str, total: int) -> None:
    """TTT-C1: a 6 makes the crew Grizzled, otherwise Scared; tiger-i adds +1 (5 is enough)."""
    g = two_tanks()
    r = g.do(CrewRoll(tank_id=tank_id), green=[face])
    assert g.tank(tank_id).crew == crew
    assert g.tank(tank_id).crew_roll == total
    mods = [(m.clause, m.amount, m.applies_to) for m in r.modifiers]
    assert mods == ([("TTT-C1", 1, "crew_roll")] if tank_id == "R1" else [])


def test_ttt_c1_card_grizzled_crew_needs_no_roll(tmp_path: Path) -> None:
    """TTT-C1: a card with crew.grizzled = true is Grizzled without a roll."""
    card = tmp_path / "veterans.toml"
    card.write_text(
        "[[tank]]\n"
        'id = "veteran-test"\n'
        'name = "Veteran Test Tank"\n'
        'nation = "Test"\n'
        "movement = 6\n"
        "accuracy = 3\n"
        "penetration = 3\n"
        "armour = { front = 5, side = 3, rear = 3, turret = 5 }\n"
        "crew = { modifier = 0, grizzled = true }\n",
        encoding="utf-8",
    )
    cards = load_cards(None, extra=[card])
    state = new_table(cards=cards)
    place = PlaceTank(tank_id="V1", card="veteran-test", player="Red", x=0, z=-20)
    state = adjudicate(state, place, cards=cards).state
    adj = adjudicate(state, CrewRoll(tank_id="V1"), SuppliedDice(faces={}), cards=cards)
    assert adj.state.tanks["V1"].crew == "grizzled"
    assert adj.state.tanks["V1"].crew_roll is None
    assert adj.result.rolls == []
    assert any(e.kind == "crew" and e.clause == "TTT-C1" for e in adj.result.events)


def test_ttt_c1_game_cannot_start_with_an_unknown_crew() -> None:
    """TTT-C1: start_game is refused CREW_NOT_ROLLED while a crew is unknown."""
    g = two_tanks()
    g.crew("R1")
    err = g.refused(StartGame(), "CREW_NOT_ROLLED")
    assert err.clause == "TTT-C1"
    assert err.details == {"tanks": ["B1"]}
    g.crew("B1")
    g.start()
    assert g.state.status == "playing"


def test_ttt_c1_crew_is_rolled_once() -> None:
    """TTT-C1: a crew already rolled cannot be rolled again."""
    g = two_tanks()
    g.crew("R1")
    g.refused(CrewRoll(tank_id="R1"), "CREW_ALREADY_ROLLED", green=[6])


def test_ttt_c1_table_dice_short_of_a_green_die() -> None:
    """TTT-C1: rolling both crews with one green face supplied asks for 1 more green die."""
    g = two_tanks()
    err = g.refused(CrewRoll(), "DICE_NEEDED", green=[6])
    assert isinstance(err, DiceNeeded)
    assert "1 green die" in err.message
    assert err.details["need"]["die"] == "green" and err.details["need"]["count"] == 1
    g.do(CrewRoll(), green=[6, 2])
    assert (g.tank("B1").crew, g.tank("R1").crew) == ("grizzled", "scared")


def test_ttt_c1_crew_roll_is_for_setup_only() -> None:
    """TTT-C1: crews are determined before the game starts."""
    g = duel()
    with pytest.raises(RulesError) as info:
        g.do(CrewRoll(tank_id="R1"), green=[6])
    assert info.value.code == "SETUP_OVER"


def test_ttt_s2_entering_tank_dragged_again_is_measured_from_where_it_crossed_the_edge() -> None:
    """TTT-S2 ruling: a tank that entered this phase and is dragged on is still measured from
    the point where it crossed the edge, so two drags cannot add up to more than its move."""
    g = ambush()
    end_phase(g, 3)
    g.do(Move(tank_id="B1", x=33, z=0, facing=270))  # 3" in from the east edge
    r = g.do(Move(tank_id="B1", x=27, z=0, facing=270))
    assert (r.outcome["travelled"], r.outcome["move"]) == (9.0, "fast")
    g.refused(Move(tank_id="B1", x=23, z=0, facing=270), "MOVE_TOO_FAR")


def test_ttt_s2_options_name_the_edges_the_ambusher_may_enter_from() -> None:
    """TTT-S2: what the referee offers a reserve tank: every edge but the ambushed side's."""
    g = ambush()
    (move_option,) = [o for o in options_for(g.state, "B1") if o.kind == "move"]
    assert not move_option.allowed and move_option.code == "NOT_YOUR_PHASE"
    end_phase(g, 1)
    (move_option,) = [o for o in options_for(g.state, "B1") if o.kind == "move"]
    assert not move_option.allowed and move_option.code == "AMBUSH_NOT_YET"
    end_phase(g, 2)
    (move_option,) = [o for o in options_for(g.state, "B1") if o.kind == "move"]
    assert move_option.allowed and move_option.detail is not None
    assert sorted(move_option.detail["entry_edges"]) == ["east", "north", "west"]
