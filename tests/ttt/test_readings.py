"""Readings the referee used without saying so, made explicit (issue 14): each is reported in
the result that uses it, and where both readings are playable it is a per-table option.

- TTT-E3 "A tank **can** … turn its best armor": option ``best_armour: ask`` asks the target's
  owner (a DECISION_NEEDED reply naming the choices and the seat), like table dice.
- TTT-E3/TTT-F1, not printed: may an Immobilized tank turn? Option ``immobilized_turns``.
- TTT-MR5 applied the other way round (Immobilized, then Routed): reported.
- TTT-CN1 concealment as a Cover-style bonus against penetration: option ``concealment``.
- TTT-SM1 "**Most** tanks that can use the ability more than once" are barred from moving or
  engaging: a card field ``bars_move_engage`` makes the exception (tested with a test card).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from kit.ttt import Game, duel
from oddskit import Spec, build, exact_odds
from serverkit import LiveReferee, live_referee
from serverkit import new_table as new_server_table
from tankref.cli import main
from tankref.core.dice import DiceState, SuppliedDice
from tankref.core.errors import DecisionNeeded, RulesError
from tankref.rulesets.ttt.actions import (
    CrewRoll,
    EndPhase,
    Engage,
    Move,
    PlaceTank,
    Smoke,
    StartGame,
)
from tankref.rulesets.ttt.cards import load_cards
from tankref.rulesets.ttt.engine import adjudicate, new_table, options_for
from tankref.rulesets.ttt.odds import odds_against
from tankref.rulesets.ttt.readings import READINGS
from tankref.rulesets.ttt.state import Options

TIGER_HIT = [5, 1, 1, 1]
TIGER_PEN = [5, 5, 5, 1, 1]
SHERMAN_HIT = [5, 1, 1]
SHERMAN_PEN = [5, 5, 5]


# --- TTT-E3, option best_armour: ask -----------------------------------------------------------


def side_shot(best_armour: str = "ask") -> Game:
    """B1 (Sherman, armour 5/3/3/5) faces east: R1 to its south sees its side (3); its best
    armour is the front (5)."""
    return duel(blue_at=(0.0, 20.0, 90.0), options=Options(best_armour=best_armour))  # type: ignore[arg-type]


def test_best_armour_ask_needs_the_owners_decision_TTT_E3() -> None:
    """TTT-E3 option ask: the Engage answers DECISION_NEEDED naming the choices and the seat
    that decides (the target's owner, Blue), before any die; nothing changes."""
    g = side_shot()
    before = g.state.model_dump_json()
    with pytest.raises(DecisionNeeded) as info:
        g.do(Engage(tank_id="R1", target_id="B1"), white=TIGER_HIT)
    err = info.value
    assert (err.code, err.clause) == ("DECISION_NEEDED", "TTT-E3")
    need = err.details["need"]
    assert need["seat"] == "Blue" and need["choices"] == ["turn", "stay"]
    assert (need["decision"], need["field"], need["tank_id"]) == (
        "best_armour",
        "best_armour",
        "B1",
    )
    assert (need["side_shown"], need["best_side"]) == ("side", "front")
    assert err.details["field"] == "best_armour"
    assert g.state.model_dump_json() == before


@pytest.mark.parametrize(
    ("choice", "side", "facing"), [("turn", "front", 180.0), ("stay", "side", 90.0)]
)
def test_best_armour_ask_applies_the_owners_choice_TTT_E3(
    choice: str, side: str, facing: float
) -> None:
    """TTT-E3 option ask: "turn" turns the front to the shot and uses the facing change;
    "stay" (the owner declines) takes the shot on the side; either way the ruling says so."""
    g = side_shot()
    r = g.do(
        Engage(tank_id="R1", target_id="B1", best_armour=choice),  # type: ignore[arg-type]
        white=[1, 1, 1, 1],
    )
    b1 = g.tank("B1")
    assert r.outcome["hit_side"] == side and b1.facing == facing
    assert b1.facing_changed is (choice == "turn")
    (note,) = [n for n in r.rulings if n.clause == "TTT-E3"]
    assert note.option == "best_armour" and note.value == "ask"
    assert ("owner chose to turn" if choice == "turn" else "declines") in note.text


def test_best_armour_decision_refused_when_not_asked_TTT_E3() -> None:
    """TTT-E3: a decision sent to a table whose option is not ask is refused, naming the field."""
    g = side_shot("auto")
    err = g.refused(Engage(tank_id="R1", target_id="B1", best_armour="stay"), "DECISION_NOT_ASKED")
    assert err.details["field"] == "best_armour"


def test_best_armour_ask_not_asked_when_no_turn_is_possible_TTT_E3() -> None:
    """TTT-E3: no question when the shot already meets the best armour."""
    g = duel(options=Options(best_armour="ask"))
    r = g.do(Engage(tank_id="R1", target_id="B1"), white=[1, 1, 1, 1])
    assert r.outcome["hit_side"] == "front"


def test_best_armour_ask_odds_assume_the_owner_turns_TTT_E3() -> None:
    """TTT-E3 option ask: the odds (and the Engage option) show the owner's best choice, the
    turn: the same numbers as the referee's own turn (auto)."""
    asked = odds_against(side_shot("ask").state, "R1", "B1")
    auto = odds_against(side_shot("auto").state, "R1", "B1")
    assert asked.best_armour_turn == "front" and asked.exact == auto.exact
    (engage,) = [o for o in options_for(side_shot().state, "R1") if o.kind == "engage"]
    assert engage.allowed


@pytest.fixture(scope="module")
def referee(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveReferee]:
    with live_referee(tmp_path_factory.mktemp("readings") / "referee.sqlite3") as live:
        yield live


def test_best_armour_ask_over_http_same_request_id_TTT_E3(referee: LiveReferee) -> None:
    """TTT-E3 option ask through the real server: 409 DECISION_NEEDED with the seat and the
    choices, state and log unchanged; sent again with the decision under the same request id
    it applies; sent once more it returns the first result and rolls nothing again."""
    table = new_server_table(
        referee.url, setup={"options": {"best_armour": "ask"}}, dice={"source": "server"}
    )
    # R1 (Tiger, front 6, side 5) faces east: B1 to its north sees its side.
    table.ok(table.put_tank("R1", card="tiger-i", player="Red", x=0, z=-20, facing=90))
    table.ok(table.put_tank("B1", card="m4a1-sherman", player="Blue", x=0, z=20, facing=180))
    table.ok(table.act({"kind": "crew_roll"}))
    table.ok(table.act({"kind": "start_game"}))
    table.ok(table.act({"kind": "end_phase"}))  # Blue's phase
    before = table.snapshot()
    shot = {"kind": "engage", "tank_id": "B1", "target_id": "R1"}
    reply = table.act(shot, request_id="side-shot")
    assert reply.status_code == 409, reply.text
    body = reply.json()
    assert body["code"] == "DECISION_NEEDED" and body["clause"] == "TTT-E3"
    assert body["field"] == "action.best_armour"
    assert body["details"]["need"]["seat"] == "Red"
    assert body["details"]["need"]["choices"] == ["turn", "stay"]
    assert table.snapshot() == before
    decided = {**shot, "best_armour": "turn"}
    first = table.ok(table.act(decided, request_id="side-shot"))
    assert first["applied"] and first["entry"]["result"]["outcome"]["hit_side"] == "front"
    again = table.ok(table.act(decided, request_id="side-shot"))
    assert again["entry"] == first["entry"]
    assert len(table.log()) == len(before[1]) + 1


def test_a_decision_the_table_does_not_ask_for_is_a_422_TTT_E3(referee: LiveReferee) -> None:
    """TTT-E3 with best_armour auto: an Engage carrying best_armour is refused as a value the
    table does not take (422 naming action.best_armour), before any die; nothing changes."""
    table = new_server_table(referee.url, dice={"source": "server"})
    table.ok(table.put_tank("R1", card="tiger-i", player="Red", x=0, z=-20, facing=90))
    table.ok(table.put_tank("B1", card="m4a1-sherman", player="Blue", x=0, z=20, facing=180))
    table.ok(table.act({"kind": "crew_roll"}))
    table.ok(table.act({"kind": "start_game"}))
    table.ok(table.act({"kind": "end_phase"}))  # Blue's phase
    before = table.snapshot()
    shot = {"kind": "engage", "tank_id": "B1", "target_id": "R1", "best_armour": "stay"}
    reply = table.act(shot)
    assert reply.status_code == 422, reply.text
    body = reply.json()
    assert body["code"] == "DECISION_NOT_ASKED" and body["clause"] == "TTT-E3"
    assert body["field"] == "action.best_armour"
    assert table.snapshot() == before


# --- TTT-E3/TTT-F1, option immobilized_turns ------------------------------------------------------


def immobilized_b1(options: Options) -> Game:
    """B1 Immobilized in Red's phase of turn 1 (morale 1: OK); returns at Blue's phase."""
    g = duel(options=options)
    g.do(
        Engage(tank_id="R1", target_id="B1"),
        white=TIGER_HIT,
        red=TIGER_PEN,
        card="Immobilized",
        green=[1],
    )
    g.do(EndPhase())
    return g


@pytest.mark.parametrize("turns", [False, True])
def test_immobilized_turns_option_for_the_facing_change_TTT_E3_TTT_F1(turns: bool) -> None:
    """TTT-F1 with option immobilized_turns: an Immobilized tank turning on the spot is
    refused (default, broken tracks) or allowed (option true)."""
    g = immobilized_b1(Options(immobilized_turns=turns))
    pivot = Move(tank_id="B1", x=0, z=20, facing=90)
    if turns:
        g.do(pivot)
        assert g.tank("B1").facing == 90
    else:
        err = g.refused(pivot, "IMMOBILIZED")
        assert err.clause == "TTT-F1" and "immobilized_turns" in err.message


@pytest.mark.parametrize("turns", [False, True])
def test_immobilized_target_best_armour_option_TTT_E3(turns: bool) -> None:
    """TTT-E3 option immobilized_turns: an Immobilized target shot in the side turns its best
    armour only with the option true; the ruling names the option either way."""
    spec = Spec(bearing=90.0, target_immobilized=True, immobilized_turns=turns)
    state = build(spec)
    r = adjudicate(
        state, Engage(tank_id="R1", target_id="B1"), SuppliedDice(faces={"white": [1, 1, 1, 1]})
    )
    assert r.result.outcome["hit_side"] == ("front" if turns else "side")
    assert exact_odds(spec, state).best_armour_turn == ("front" if turns else None)
    if not turns:
        (note,) = [n for n in r.result.rulings if n.clause == "TTT-E3"]
        assert "immobilized_turns" in note.text


# --- TTT-MR5 the other way round ---------------------------------------------------------------


def test_mr5_reverse_order_is_reported_TTT_MR5() -> None:
    """TTT-MR5 printed: Routed, then Immobilized, bails out. The referee applies it also to an
    Immobilized tank whose crew then Routs, and says so in the result."""
    g = duel()
    r = g.do(
        Engage(tank_id="R1", target_id="B1"),
        white=TIGER_HIT,
        red=TIGER_PEN,
        card="Immobilized",
        green=[6],
    )
    assert g.tank("B1").destroyed_by == "crew bailed out"
    assert any(n.clause == "TTT-MR5" and "ruling" in n.text for n in r.rulings)


def test_mr5_printed_order_has_no_reverse_note_TTT_MR5() -> None:
    """TTT-MR5: the printed order (Routed, then Immobilized) needs no ruling."""
    g = duel(extra=[("R2", "tiger-i", "Red", 10.0, -20.0, 0.0)])
    g.do(
        Engage(tank_id="R1", target_id="B1"),
        white=TIGER_HIT,
        red=TIGER_PEN,
        card="Glancing Blow",
        green=[6],
    )
    r = g.do(
        Engage(tank_id="R2", target_id="B1"), white=TIGER_HIT, red=TIGER_PEN, card="Immobilized"
    )
    assert g.tank("B1").destroyed_by == "crew bailed out"
    assert not any(n.clause == "TTT-MR5" for n in r.rulings)


# --- TTT-CN1, option concealment ------------------------------------------------------------------


@pytest.mark.parametrize("rule", ["accuracy", "cover"])
def test_concealment_option_TTT_CN1(rule: str) -> None:
    """TTT-CN1: heavy concealment (B1 in a wood, R1 outside) takes 2 Accuracy dice off (option
    accuracy), or adds 2 to the armour against penetration (option cover); the odds agree."""
    spec = Spec(concealment=2, concealment_rule=rule)  # type: ignore[arg-type]
    state = build(spec)
    odds = exact_odds(spec, state)
    white = 2 if rule == "accuracy" else 4
    red = [5, 5, 5, 1, 1]  # 6 PEN: enough for the Sherman's front 5, not for 5 + 2
    faces = {"white": [5] + [1] * (white - 1), "red": red}
    if rule == "accuracy":
        faces["green"] = [1]  # penetrated: B1's morale check
    r = adjudicate(
        state,
        Engage(tank_id="R1", target_id="B1"),
        SuppliedDice(faces=faces),
    )
    out = r.result.outcome
    assert out["accuracy_dice"] == white == odds.accuracy_dice
    assert out["needed"] == odds.needed == (5 if rule == "accuracy" else 7)
    assert out["penetrated"] is (rule == "accuracy")
    (mod,) = [m for m in r.result.modifiers if m.clause == "TTT-CN1"]
    assert mod.applies_to == ("accuracy_dice" if rule == "accuracy" else "armour")
    assert f"option concealment: {rule}" in (mod.ruling or "")


# --- TTT-SM1, card field bars_move_engage ---------------------------------------------------------


def smoke_card(tmp_path: Path, bars: bool) -> Path:
    card = tmp_path / "smokers.toml"
    card.write_text(
        "[[tank]]\n"
        'id = "smoker-test"\n'
        'name = "Smoker Test Tank"\n'
        'nation = "Test"\n'
        "movement = 6\n"
        "accuracy = 3\n"
        "penetration = 3\n"
        "armour = { front = 5, side = 3, rear = 3, turret = 5 }\n"
        'smoke = [{ name = "Smoke pots", kind = "self", strength = 1, uses = 3, '
        f"bars_move_engage = {'true' if bars else 'false'} }}]\n",
        encoding="utf-8",
    )
    return card


@pytest.mark.parametrize("bars", [True, False])
def test_reusable_smoke_card_may_let_the_tank_move_TTT_SM1(tmp_path: Path, bars: bool) -> None:
    """TTT-SM1: "most" tanks with reusable smoke may not Move or Engage the turn they pop it
    (bars_move_engage, the default); a card with false lets its tank move after, and move
    before, its smoke."""
    cards = load_cards(None, extra=[smoke_card(tmp_path, bars)])
    state = new_table(cards=cards, dice=DiceState(seed="readings"))
    for action in (
        PlaceTank(tank_id="S1", card="smoker-test", player="Red", x=0, z=-20),
        PlaceTank(tank_id="B1", card="m4a1-sherman", player="Blue", x=0, z=20, facing=180),
    ):
        state = adjudicate(state, action, cards=cards).state
    state = adjudicate(state, CrewRoll(), SuppliedDice(faces={"green": [1, 1]})).state
    state = adjudicate(state, StartGame()).state
    state = adjudicate(state, Smoke(tank_id="S1", ability="Smoke pots")).state
    moves = {o.kind: o for o in options_for(state, "S1", odds=False)}
    # The move option stays (a pivot is no move); the distance it may drive is the question.
    assert (moves["move"].detail or {})["normal"] == (None if bars else 6)
    assert moves["engage"].allowed is not bars
    move = Move(tank_id="S1", x=0, z=-16, facing=0)
    if bars:
        with pytest.raises(RulesError) as info:
            adjudicate(state, move)
        assert (info.value.code, info.value.clause) == ("ACTION_AFTER_SMOKE", "TTT-SM1")
    else:
        assert adjudicate(state, move).state.tanks["S1"].z == -16


def test_shipped_cards_do_not_use_the_smoke_exception_TTT_SM1() -> None:
    """TTT-SM1: every shipped card keeps the printed default."""
    cards = load_cards(None)
    assert all(s.bars_move_engage for c in cards.tanks.values() for s in c.smoke)


# --- every option and reading is listed by `tankref rulings` ---------------------------------


def test_rulings_command_lists_the_new_options_and_readings(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """TTT-E3, TTT-CN1, TTT-R1, TTT-MR2, TTT-MR4, TTT-MR5, TTT-S3: `tankref rulings` lists the
    options added for issue 14 and each reading the referee reports without an option."""
    assert main(["rulings"]) == 0
    out = capsys.readouterr().out
    for text in ("immobilized_turns", "concealment", "ask", "DECISION_NEEDED"):
        assert text in out
    for clause, _ in READINGS:
        assert clause in out
    assert {c for c, _ in READINGS} >= {"TTT-R1", "TTT-MR2", "TTT-MR4", "TTT-MR5", "TTT-S3"}
