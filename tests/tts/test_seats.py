"""Seats and the table's behaviour through the bundled Lua (issue 13B): who may move and order
which units, the host as the table's referee, players' paint, point orders over covered
ground, rewind, moves posted once the model rests, and the two setup bugs."""

from __future__ import annotations

import json

import pytest
from faketts import MenuClosed
from ttsplay import Game, Table, guid_of

from serverkit import LiveReferee, free_port


def _game(tts_table: Table, url: str, **kw: object) -> Game:
    tts = tts_table(url, keep=("Red 1", "Blue 1"), seed="tts-seats-0001", **kw)
    return Game(tts, url, tts.tagged("tankref_board")[0].guid)


def _log(game: Game) -> list[dict[str, object]]:
    entries: list[dict[str, object]] = game.read("/log?limit=500")["entries"]
    return entries


def _puts(game: Game, guid: str) -> int:
    return sum(1 for m, url, _ in game.tts.requests if m == "PUT" and url.endswith(guid))


def test_blue_may_not_move_reds_tank_it_goes_back_and_nothing_is_sent(
    referee: LiveReferee, tts_table: Table
) -> None:
    game = _game(tts_table, referee.url)
    tts = game.tts
    r1 = guid_of(tts, "Red 1")
    game.begin()
    before, puts = game.read(), _puts(game, r1)
    tts.drop(r1, -8.0, -15.0, 0.0, color="Blue")  # Blue's player drags Red's Tiger
    tts.settle()
    assert tts.said("Bo (Blue) may not order Red's units")
    obj = tts.get(r1)
    assert (obj.position[0], obj.position[2]) == (-8.0, -21.0)  # put back
    assert _puts(game, r1) == puts  # nothing sent to the referee
    assert game.read() == before
    # Nor may Blue give Red's tank an order from its menu.
    game.tts.menu(r1, "Wait", color="Blue")
    tts.settle()
    assert not any(e["kind"] == "wait" for e in _log(game))


def test_a_spectator_may_not_create_a_table_or_set_the_url(
    referee: LiveReferee, tts_table: Table
) -> None:
    game = _game(tts_table, referee.url)
    tts = game.tts
    tts.click(game.board, "New table", color="Grey")
    tts.settle()
    assert tts.said("New table is for the host or a promoted player")
    assert "table_id" not in game.saved
    assert not any(m == "POST" and url.endswith("/tables") for m, url, _ in tts.requests)
    tts.global_menu("tankref: new table", color="Grey", at=(0.0, -40.0))
    tts.settle()
    assert "table_id" not in game.saved
    # Blue sits at the table but is not the host: no referee URL from Blue either.
    hidden = tts.say("!tankref url http://evil.example:9", color="Blue")
    assert hidden is False
    assert game.saved["url"] == referee.url
    assert tts.said("Setting the referee URL is for the host or a promoted player")
    # A promoted player may.
    tts.players["Blue"].promoted = True
    tts.say("!tankref url http://127.0.0.1:9/", color="Blue")
    assert game.saved["url"] == "http://127.0.0.1:9"


def test_the_host_acting_for_the_other_side_is_said_and_logged_with_its_seat(
    referee: LiveReferee, tts_table: Table
) -> None:
    game = _game(tts_table, referee.url)
    tts = game.tts
    b1 = guid_of(tts, "Blue 1")
    game.press("New table")
    assert tts.said("Red sits at Red, Blue sits at Blue")
    game.press("Crew roll")
    game.press("Start game")
    game.press("End phase")  # Blue's phase
    tts.menu(b1, "Wait", color="Red")  # Red hosts: acts for Blue as the table's referee
    tts.settle()
    assert tts.said("Rita (Red) acts for Blue as the table's referee: Wait")
    wait = [e for e in _log(game) if e["kind"] == "wait"]
    assert len(wait) == 1 and wait[0]["by"] == {"seat": "Red", "as_referee": True}
    # Blue's own order carries Blue's seat; the board's End phase carries the presser's.
    game.order(b1, "End phase")
    assert _log(game)[-1]["by"] == {"seat": "Blue", "as_referee": False}


def test_players_paint_survives_every_redraw(referee: LiveReferee, tts_table: Table) -> None:
    game = _game(tts_table, referee.url)
    tts = game.tts
    r1, b1 = guid_of(tts, "Red 1"), guid_of(tts, "Blue 1")
    tts.paint([(0.0, 1.0, 0.0), (5.0, 1.0, 5.0)], color="Blue")
    drawn = [line for line in tts.global_lines if line not in tts.save_lines]
    game.begin()
    game.engage(r1, b1)  # a line of fire drawn and redrawn
    tts.skip(5)
    game.press("End phase")
    paint = [line for line in tts.global_lines if line.get("thickness") == 0.1]
    assert paint == drawn  # the players' line, once, as drawn


def test_a_move_is_posted_only_once_the_model_rests(referee: LiveReferee, tts_table: Table) -> None:
    game = _game(tts_table, referee.url)
    tts = game.tts
    r1 = guid_of(tts, "Red 1")
    game.press("New table")
    puts = _puts(game, r1)
    tts.drop(r1, -8.0, -18.0, 0.0, color="Red")
    tts.run(0.1)
    tts.skip(0.5)  # past the old 0.3 s, the model still sliding
    assert not tts.get(r1).resting
    assert _puts(game, r1) == puts
    tts.settle()
    assert tts.get(r1).resting
    assert _puts(game, r1) == puts + 1


def test_turning_a_named_tank_in_setup_keeps_its_name(
    referee: LiveReferee, tts_table: Table
) -> None:
    game = _game(tts_table, referee.url)
    tts = game.tts
    r1 = guid_of(tts, "Red 1")
    game.press("New table")
    named = tts.get(r1).nickname
    assert named.startswith("Red 1")
    game.drive(r1, -6.0, -21.0, 15.0)  # moved and turned in setup, now a known tank
    game.drive(r1, -6.0, -20.0, 30.0)
    assert tts.get(r1).nickname == named
    assert {t["tank_id"]: t["name"] for t in game.read()["tanks"]}[r1] == named


def test_retry_resends_a_failed_new_table(referee: LiveReferee, tts_table: Table) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    game = _game(tts_table, url)
    tts = game.tts
    game.press("New table")
    assert tts.said("no referee answers")
    assert "table_id" not in game.saved
    tts.say(f"!tankref url {referee.url}", color="Red")  # the host points at the real one
    game.press("Retry")
    assert tts.said("tankref: table ")
    assert game.saved["table_id"]
    game.url = referee.url
    assert {t["tank_id"] for t in game.read()["tanks"]} == {
        guid_of(tts, "Red 1"),
        guid_of(tts, "Blue 1"),
    }


def test_rewind_puts_models_where_the_referee_has_them_without_repeating_chat(
    referee: LiveReferee, tts_table: Table
) -> None:
    game = _game(tts_table, referee.url)
    tts = game.tts
    r1 = guid_of(tts, "Red 1")
    game.press("New table")
    game.press("Crew roll")
    older = tts.save()  # a rewind checkpoint
    game.press("Start game")
    game.drive(r1, -8.0, -16.0, 20.0)
    said = [c.text for c in tts.chat]
    tts.rewind(older)  # TTS puts the model back at -21 and runs onLoad with the older state
    tts.settle()
    obj = tts.get(r1)
    assert (obj.position[0], obj.position[2], obj.rotation[1]) == (-8.0, -16.0, 20.0)
    tts.run(0.5)
    new = [c.text for c in tts.chat][len(said) :]
    repeated = [line for line in new if line in said]
    assert not repeated, repeated
    assert game.saved["seq"] == game.read()["seq"]
    assert json.loads(older["LuaScriptState"])["seq"] < game.saved["seq"]
    # The rewound counter is older, but request ids never repeat: the next order applies.
    game.order(r1, "Wait")
    assert [e["kind"] for e in _log(game)][-1] == "wait"
    assert _log(game)[-1]["request_id"] not in [e["request_id"] for e in _log(game)[:-1]]


def test_only_the_host_ends_the_game_or_takes_an_action_back(
    referee: LiveReferee, tts_table: Table
) -> None:
    game = _game(tts_table, referee.url)
    tts = game.tts
    r1 = guid_of(tts, "Red 1")
    game.begin()
    game.order(r1, "Wait")
    tts.say("!tankref undo", color="Blue")
    tts.say("!tankref end we are tired", color="Blue")
    tts.settle()
    assert tts.said("Undo is for the host or a promoted player")
    assert game.summary()["status"] == "playing"
    kinds = [e["kind"] for e in _log(game)]
    tts.say("!tankref undo", color="Red")
    tts.settle()
    assert len(_log(game)) == len(kinds) + 1  # the Wait taken back, by the host
    tts.say("!tankref end we are tired", color="Red")
    tts.settle()
    assert game.summary()["status"] == "over"
    assert "we are tired (ended at the table by Rita (Red))" in json.dumps(_log(game)[-1])


def test_a_point_order_on_covered_ground_works_from_the_objects_menu(
    referee: LiveReferee, tts_table: Table
) -> None:
    """The table's own menu does not open over the hedge (FACTS.md): right-clicking the hedge
    offers the same item, and the smoke lands where the pointer was."""
    game = _game(tts_table, referee.url)
    tts = game.tts
    b1 = guid_of(tts, "Blue 1")
    hedge = next(o for o in tts.objects.values() if o.nickname == "Hedge")
    spot = (round(hedge.position[0] - 4.0, 2), round(hedge.position[2] + 0.2, 2))
    b = tts.get(b1)
    b.position = [spot[0], b.position[1], b.position[2]]  # set up within mortar range
    game.begin()
    game.press("End phase")
    game.order(b1, "Smoke")
    assert hedge in tts.covering(*spot)  # the hedge covers the spot
    with pytest.raises(MenuClosed):
        tts.global_menu("tankref: mortar smoke here", color="Blue", at=spot)
    tts.menu(hedge.guid, "tankref: mortar smoke here", color="Blue", at=spot)
    tts.settle()
    smoke = game.read()["state"]["smoke"]
    assert [(s["x"], s["z"]) for s in smoke] == [spot], tts.chat_text()[-500:]
    assert _log(game)[-1]["by"] == {"seat": "Blue", "as_referee": False}


def test_a_spectator_moving_terrain_is_put_back_and_nothing_is_sent(
    referee: LiveReferee, tts_table: Table
) -> None:
    game = _game(tts_table, referee.url)
    tts = game.tts
    game.press("New table")
    hedge = next(o.guid for o in tts.objects.values() if o.nickname == "Hedge")
    obj = tts.get(hedge)
    was = (obj.position[0], obj.position[2], obj.rotation[1])
    puts = _puts(game, hedge)
    tts.drop(hedge, was[0] + 10.0, was[1] - 5.0, was[2] + 45.0, color="Grey")
    tts.settle()
    assert (obj.position[0], obj.position[2], obj.rotation[1]) == was
    assert _puts(game, hedge) == puts
    assert tts.said("Watcher (Grey) sits at no side of this table")


def test_rewind_puts_terrain_where_the_referee_has_it(
    referee: LiveReferee, tts_table: Table
) -> None:
    game = _game(tts_table, referee.url)
    tts = game.tts
    game.press("New table")
    hedge = next(o.guid for o in tts.objects.values() if o.nickname == "Hedge")
    older = tts.save()
    was = tts.get(hedge).position[:]
    tts.drop(hedge, was[0] + 6.0, was[2] - 2.0, 30.0, color="Red")
    tts.settle()
    placed = next(t for t in game.read("/scene")["terrain"] if t["id"] == hedge)["shape"]
    tts.rewind(older)
    assert tts.get(hedge).position == was  # TTS brought back the older place
    tts.settle()
    obj = tts.get(hedge)
    assert (
        abs(obj.position[0] - (was[0] + 6.0)) < 0.01
        and abs(obj.position[2] - (was[2] - 2.0)) < 0.01
    )
    assert abs(obj.rotation[1] - 30.0) < 0.1
    assert next(t for t in game.read("/scene")["terrain"] if t["id"] == hedge)["shape"] == placed
