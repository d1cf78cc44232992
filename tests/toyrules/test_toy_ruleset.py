"""A fifth ruleset is a folder and one line (issue 16): toy tanks (this folder) is registered
by the ``toy_registered`` fixture's one line and nothing else in tankref changes. Then it is
served (tables made and actions adjudicated over HTTP by the real referee), listed in
``/health`` and ``/rulesets``, drawn on the live page, offered by ``tankref tts-save``, and
its save plays in the fake TTS, whose board learns the ruleset from the referee."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

import toyrules
from kit import Table as EngineTable
from kit import faces
from serverkit import LiveReferee, Table, live_referee, new_table
from tankref.cli import main
from tankref.core.dice import DiceState
from tankref.core.errors import BadValue, NotFound
from tankref.rulesets import get_ruleset, registered, ruleset_names

TESTS = Path(__file__).resolve().parents[1]
# The fake TTS and its players live with the TTS tests (pytest puts that folder on the path
# only when it collects them).
if str(TESTS / "tts") not in sys.path:
    sys.path.append(str(TESTS / "tts"))


@pytest.fixture(scope="module")
def toy_registered() -> Iterator[None]:
    with registered("toy", toyrules.ruleset):  # the one line that adds the ruleset
        yield


@pytest.fixture(scope="module")
def referee(
    toy_registered: None, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LiveReferee]:
    with live_referee(tmp_path_factory.mktemp("toy") / "referee.sqlite3") as live:
        yield live


def _duel(url: str) -> Table:
    """Red's tankette R1 at (0, 0), Blue's gun tank B1 10 in north: started, Red's turn."""
    table = new_table(
        url, ruleset="toy", setup={"players": ["Red", "Blue"]}, dice={"source": "table"}
    )
    table.ok(table.put_tank("R1", card="tankette", player="Red", x=0.0, z=0.0, facing=0.0))
    table.ok(table.put_tank("B1", card="gun-tank", player="Blue", x=0.0, z=10.0, facing=180.0))
    table.ok(table.act({"kind": "start_game"}))
    return table


def test_registered_for_the_block_and_gone_after() -> None:
    assert "toy" not in ruleset_names()
    with registered("toy", toyrules.ruleset):
        assert "toy" in ruleset_names()
        assert get_ruleset("toy").info().clause_prefix == "TOY"
    assert "toy" not in ruleset_names()
    with pytest.raises(KeyError, match="no ruleset 'toy'"):
        get_ruleset("toy")


def test_listed_in_health_and_rulesets(referee: LiveReferee) -> None:
    assert "toy" in httpx.get(f"{referee.url}/health").json()["rulesets"]
    listed = {r["name"]: r for r in httpx.get(f"{referee.url}/rulesets").json()}
    toy = listed["toy"]
    assert toy["title"] == "Toy tanks" and toy["clause_prefix"] == "TOY"
    assert toy["terrain_kinds"] == [] and toy["setups"][0]["setup"] == {"players": ["Red", "Blue"]}
    assert toy["setup_schema"]["title"] == "ToySetup"
    assert set(listed) == {"afv", "mtc", "ttt", "toy", "yrd"}
    schema = httpx.get(f"{referee.url}/openapi.json").json()["components"]["schemas"]
    ruleset_consts = [b["properties"]["ruleset"] for b in schema["CreateTable"]["oneOf"]]
    assert any(r["const"] == "toy" and "Toy tanks" in r["description"] for r in ruleset_consts)


def test_served_a_shot_adjudicated_over_http_toy_f1_and_v1(referee: LiveReferee) -> None:
    """TOY-F1: the d6 the table supplies decides the hit (5 on hits-on 4+); TOY-V1: Blue's
    last tank gone, Red wins and the game is over."""
    table = _duel(referee.url)
    options = {o["kind"]: o for o in table.ok(table.http.get(table.path("/tanks/R1/options")))}
    assert options["fire"]["allowed"] and options["fire"]["detail"]["targets"][0]["p_hit"] == 0.5
    need = table.act({"kind": "fire", "tank_id": "R1", "target_id": "B1"})
    assert need.status_code == 409 and need.json()["code"] == "DICE_NEEDED"
    done = table.ok(
        table.act({"kind": "fire", "tank_id": "R1", "target_id": "B1"}, dice={"faces": {"d6": [5]}})
    )
    assert done["entry"]["result"]["outcome"]["hit"] is True
    assert [r["face"] for r in done["entry"]["result"]["rolls"]] == [5]
    summary = table.read()["table"]
    assert summary["status"] == "over" and summary["winner"] == "Red"
    odds = table.http.get(table.path("/tanks/R1/odds"))
    assert odds.status_code == 409 and odds.json()["clause"] == "TOY-T1"


def test_a_refusal_changes_nothing_toy_m1(referee: LiveReferee) -> None:
    """TOY-M1: a tankette moves at most 6 in; the 9-in move is refused with the clause, and
    the table and its log are as they were."""
    table = _duel(referee.url)
    before = table.snapshot()
    refused = table.act({"kind": "move", "tank_id": "R1", "x": 0.0, "z": -9.0, "facing": 0.0})
    assert refused.status_code == 409
    assert refused.json()["code"] == "TOO_FAR" and refused.json()["clause"] == "TOY-M1"
    assert table.snapshot() == before
    moved = table.ok(table.put_tank("R1", card="tankette", player="Red", x=0.0, z=-5.0, facing=0.0))
    assert moved["entry"]["kind"] == "move"


def test_offered_by_tts_save(toy_registered: None, tmp_path: Path) -> None:
    assert main(["tts-save", str(tmp_path / "toy.json"), "--ruleset", "toy"]) == 0
    save = json.loads((tmp_path / "toy.json").read_text())
    assert save["SaveName"] == "tankref: Toy tanks"
    assert json.loads(save["LuaScriptState"])["ruleset"] == "toy"
    tanks = [o for o in save["ObjectStates"] if "tank" in o["Tags"]]
    assert sorted(t["Nickname"] for t in tanks) == ["Blue 1", "Red 1"]
    assert {"card:tankette", "side:Red"} <= set(
        tanks[[t["Nickname"] for t in tanks].index("Red 1")]["Tags"]
    )
    assert sum("die_d6" in o["Tags"] for o in save["ObjectStates"]) == 2


def test_its_save_plays_in_the_fake_tts(referee: LiveReferee, tmp_path: Path) -> None:
    """The board knows toy tanks only from the referee's GET /rulesets: it names it, makes
    its table, posts the units, starts the game and offers each unit the referee's options
    (TOY-T1: Red's tankette may move and fire; Blue's gun tank waits)."""
    from faketts import FakeTTS
    from ttsplay import Game, guid_of

    from tankref.tts.save import build_save

    tts = FakeTTS.from_save(build_save(referee.url, "toy"))
    try:
        tts.settle()
        board = tts.tagged("tankref_board")[0].guid
        assert "Ruleset: Toy tanks" in tts.buttons(board)
        assert "Setup: Red and Blue" in tts.buttons(board)
        game = Game(tts, referee.url, board)
        game.press("New table")
        assert game.read()["ruleset"] == "toy"
        red, blue = guid_of(tts, "Red 1"), guid_of(tts, "Blue 1")
        assert sorted(t["tank_id"] for t in game.read()["tanks"]) == sorted([red, blue])
        assert "End turn" in tts.buttons(board)
        game.press("Start game")
        assert game.summary()["status"] == "playing"
        menu = [item[0] for item in tts.get(red).menu]
        assert "Move (drag the model)" in menu and "Fire (pick a target)" in menu
        assert [item[0] for item in tts.get(blue).menu] == ["What may it do?"]
        game.press("End turn")
        assert game.summary()["active_player"] == "Blue"
        # The board's choice cycles through exactly what the referee lists, in its order.
        titles = [r["title"] for r in httpx.get(f"{referee.url}/rulesets").json()]
        seen = []
        for _ in titles:
            game.press("Ruleset")
            seen.append(next(b for b in tts.buttons(board) if b.startswith("Ruleset: "))[9:])
        assert sorted(seen) == sorted(titles) and seen[-1] == "Toy tanks"
    finally:
        tts.close()


def test_drawn_on_the_page(referee: LiveReferee, tmp_path: Path) -> None:
    """The page lists the table by the toy's title and draws both units where the scene has
    them, from the referee's generic answers alone."""
    from pagekit import chromium

    table = _duel(referee.url)
    with chromium(tmp_path / "profile") as browser:
        page = browser.new_page()
        page.goto(f"{referee.url}/")
        cell = page.locator(f'#tables tr[data-table="{table.id}"] td[data-ruleset]')
        cell.wait_for()
        assert cell.inner_text() == "Toy tanks" and cell.get_attribute("data-ruleset") == "toy"
        page.click(f'#tables tr[data-table="{table.id}"] a')
        page.wait_for_selector('#live[data-state="live"]')
        scene: dict[str, Any] = table.ok(table.http.get(table.path("/scene")))
        page.wait_for_selector(f'#board[data-seq="{scene["seq"]}"]')
        for tank in scene["tanks"]:
            assert page.locator(f'#board [data-tank="{tank["tank_id"]}"]').count() == 1
        assert "Toy tanks" in page.inner_text("#banner .rules")


def test_an_installed_package_adds_a_ruleset_by_entry_point(tmp_path: Path) -> None:
    """Another package declares its ruleset in the entry point group ``tankref.rulesets`` (a
    dist-info on the path is all an installed package leaves): a fresh process lists it,
    and the CLI offers it, with no call to ``register``."""
    dist = tmp_path / "toyrules_plugin-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: toyrules-plugin\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text("[tankref.rulesets]\ntoy = toyrules:ruleset\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(TESTS)])}
    done = subprocess.run(
        [sys.executable, "-m", "tankref.cli", "rulesets"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "toy   Toy tanks (clauses TOY-)" in done.stdout
    assert "ttt   TinyTableTopTanks" in done.stdout


def _engine_duel() -> EngineTable:
    """Through the Ruleset interface alone: Red's R1 (tankette) at (0, 0) and R2 (gun tank) at
    (-20, 0), Blue's B1 (gun tank) 10 in north of R1; started, Red's turn, table dice."""
    rules = get_ruleset("toy")
    state = rules.new_table(rules.parse_setup({}), DiceState(source="table"))
    table = EngineTable("toy", state)
    for tank_id, card, player, x, z in [
        ("R1", "tankette", "Red", 0.0, 0.0),
        ("R2", "gun-tank", "Red", -20.0, 0.0),
        ("B1", "gun-tank", "Blue", 0.0, 10.0),
    ]:
        put = {"kind": "place_tank", "tank_id": tank_id, "card": card, "player": player}
        table.apply(rules.parse_action({**put, "x": x, "z": z}))
    table.apply(rules.parse_action({"kind": "start_game"}))
    return table


def test_flow_refusals_use_the_cores_codes_toy_s1_s2_t1(toy_registered: None) -> None:
    """TOY-S1/S2/T1 through the core's shared guards and codes: NOT_STARTED in setup,
    SETUP_OVER once started, NOT_YOUR_PHASE on the other player's turn (the toy's old
    NOT_YOUR_TURN), GAME_OVER once a side has no tank (TOY-V1); each refusal changes nothing."""
    rules = get_ruleset("toy")
    setup = EngineTable("toy", rules.new_table(rules.parse_setup({}), DiceState()))
    setup.expect_refusal(rules.parse_action({"kind": "end_turn"}), "NOT_STARTED", "TOY-T1")
    setup.expect_refusal(rules.parse_action({"kind": "start_game"}), "NO_TANKS", "TOY-S2")
    table = _engine_duel()
    place = {"kind": "place_tank", "tank_id": "R3", "card": "tankette", "player": "Red"}
    table.expect_refusal(rules.parse_action({**place, "x": 1.0, "z": 1.0}), "SETUP_OVER", "TOY-S1")
    table.expect_refusal(rules.parse_action({"kind": "start_game"}), "SETUP_OVER", "TOY-S2")
    blue_moves = rules.parse_action({"kind": "move", "tank_id": "B1", "x": 0, "z": 9, "facing": 0})
    table.expect_refusal(blue_moves, "NOT_YOUR_PHASE", "TOY-T1")
    own = rules.parse_action({"kind": "fire", "tank_id": "R1", "target_id": "R2"})
    table.expect_refusal(own, "NOT_AN_ENEMY", "TOY-F1")
    far = rules.parse_action({"kind": "fire", "tank_id": "R2", "target_id": "B1"})
    table.expect_refusal(far, "NO_TARGET", "TOY-F1")
    table.apply(
        rules.parse_action({"kind": "fire", "tank_id": "R1", "target_id": "B1"}), faces(d6=[4])
    )
    assert rules.summary(table.state).winner == "Red"
    table.expect_refusal(rules.parse_action({"kind": "end_turn"}), "GAME_OVER", "TOY-T1")


def test_unknown_tank_is_not_found_and_unknown_card_a_bad_value_toy_s1(
    toy_registered: None,
) -> None:
    """UNKNOWN_TANK is the core's not-found kind, UNKNOWN_CARD (TOY-S1) its bad-value kind."""
    rules = get_ruleset("toy")
    table = _engine_duel()
    gone = rules.parse_action({"kind": "fire", "tank_id": "R1", "target_id": "B9"})
    assert isinstance(table.expect_refusal(gone, "UNKNOWN_TANK", None), NotFound)
    table = EngineTable("toy", rules.new_table(rules.parse_setup({}), DiceState()))
    put = {"kind": "place_tank", "tank_id": "R1", "card": "tiger", "player": "Red", "x": 0, "z": 0}
    assert isinstance(
        table.expect_refusal(rules.parse_action(put), "UNKNOWN_CARD", "TOY-S1"), BadValue
    )


def test_results_list_what_changed_on_each_tank_toy_m1_f1(toy_registered: None) -> None:
    """The core Context's change tracking: a move lists the tank's new place (TOY-M1); a shot
    lists the shooter as fired and the target destroyed, with its marker (TOY-F1)."""
    rules = get_ruleset("toy")
    table = _engine_duel()
    moved = table.apply(
        rules.parse_action({"kind": "move", "tank_id": "R1", "x": 0.0, "z": 6.0, "facing": 0.0})
    )
    assert [(c.tank_id, c.changes) for c in moved.changes] == [
        ("R1", {"z": [0.0, 6.0], "moved": [False, True]})
    ]
    shot = table.apply(
        rules.parse_action({"kind": "fire", "tank_id": "R1", "target_id": "B1"}), faces(d6=[4])
    )
    changes = {c.tank_id: c for c in shot.changes}
    assert changes["R1"].changes == {"fired": [False, True]}
    assert changes["B1"].changes == {"destroyed": [False, True]}
    assert changes["B1"].markers == ["destroyed"]


def test_aids_served_from_the_moves_and_shots_own_checks_toy_m1_f1_t1(
    referee: LiveReferee,
) -> None:
    """GET .../aids: R1's ring is its card's 6 in (TOY-M1) and its line to B1 (10 in) may
    fire (TOY-F1); B1 on Red's turn may neither move nor fire, with the action's own refusal
    (NOT_YOUR_PHASE, TOY-T1); once R1 has moved its ring gives way to ALREADY_MOVED."""
    table = _duel(referee.url)
    red = table.ok(table.http.get(table.path("/tanks/R1/aids")))
    assert [(m["shape"], m["radius"], m["clause"]) for m in red["move"]] == [
        ("ring", 6.0, "TOY-M1")
    ]
    assert [(ln["target_id"], ln["range"], ln["may_fire"]) for ln in red["lines"]] == [
        ("B1", 10.0, True)
    ]
    blue = table.ok(table.http.get(table.path("/tanks/B1/aids")))
    assert blue["move"] == [] and blue["move_refused"]["code"] == "NOT_YOUR_PHASE"
    assert blue["lines"][0]["refused"]["clause"] == "TOY-T1"
    refused = table.act({"kind": "move", "tank_id": "B1", "x": 0.0, "z": 9.0, "facing": 0.0})
    assert refused.json()["code"] == blue["move_refused"]["code"]
    table.ok(table.act({"kind": "move", "tank_id": "R1", "x": 0.0, "z": -6.0, "facing": 0.0}))
    again = table.ok(table.http.get(table.path("/tanks/R1/aids")))
    assert again["move"] == [] and again["move_refused"]["code"] == "ALREADY_MOVED"
    assert (
        again["lines"][0]["range"] == 16.0 and again["lines"][0]["refused"]["code"] == "NO_TARGET"
    )
    missing = table.http.get(table.path("/tanks/R9/aids"))
    assert missing.status_code == 404 and missing.json()["code"] == "UNKNOWN_TANK"


def test_bad_input_is_a_4xx_naming_the_field_toy_s1(referee: LiveReferee) -> None:
    """An unknown card is 422 naming ``card``; an unknown tank 404 naming ``tank_id``; the
    table and its log are unchanged."""
    table = new_table(referee.url, ruleset="toy", setup={"players": ["Red", "Blue"]})
    before = table.snapshot()
    card = table.put_tank("R1", card="tiger", player="Red", x=0.0, z=0.0, facing=0.0)
    assert card.status_code == 422, card.text
    assert card.json()["code"] == "UNKNOWN_CARD" and card.json()["field"].endswith("card")
    gone = table.act({"kind": "remove_tank", "tank_id": "R9"})
    assert gone.status_code == 404 and gone.json()["field"].endswith("tank_id")
    assert table.snapshot() == before
