"""When things go wrong the table says what to do, and nothing is half-applied: a referee
that is not running, a refusal (4xx), and an answer lost on the way back (Retry sends the
same request id, and the referee's log shows it applied once)."""

from __future__ import annotations

import json

import httpx
from ttsplay import Game, Table, guid_of

from serverkit import LiveReferee, free_port


def _game(tts_table: Table, url: str) -> Game:
    tts = tts_table(url, keep=("Red 1", "Blue 1"), seed="tts-errors-0001")
    return Game(tts, url, tts.tagged("tankref_board")[0].guid)


def test_no_referee_running_says_how_to_start_it(tts_table: Table) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    game = _game(tts_table, url)
    game.press("New table")
    assert game.tts.said(f"no referee answers at {url}")
    assert game.tts.said("tankref serve")
    assert "table_id" not in game.saved  # nothing half-made
    r1 = guid_of(game.tts, "Red 1")
    assert [m[0] for m in game.tts.get(r1).menu] == ["What may it do?"]  # no options yet
    game.order(r1, "What may it do?")
    assert game.tts.said("no table yet")


def test_a_refusal_is_explained_and_the_model_goes_back(
    referee: LiveReferee, tts_table: Table
) -> None:
    game = _game(tts_table, referee.url)
    tts = game.tts
    r1 = guid_of(tts, "Red 1")
    game.press("New table")
    before = game.read(), game.read("/log?limit=500")
    # Setup: Red's tank put down in Blue's deployment zone.
    game.drive(r1, -8.0, 20.0, 0.0)
    assert tts.said("refused: ") and tts.said("(TTT-S1)")
    assert tts.get(r1).position[0] == -8.0 and tts.get(r1).position[2] == -21.0  # put back
    assert (game.read(), game.read("/log?limit=500")) == before  # state and log unchanged
    game.press("Crew roll")
    game.press("Start game")
    # Play: a move of more than twice its Movement.
    log_before = game.read("/log?limit=500")
    game.drive(r1, -8.0, 0.0, 0.0)
    assert tts.said("(TTT-M2)")
    assert tts.get(r1).position[2] == -21.0
    assert game.read("/log?limit=500") == log_before
    # Out of phase: Blue's tank in Red's phase is offered no Wait; its menu says why not.
    b1 = guid_of(tts, "Blue 1")
    assert not any(m[0].startswith("Wait") for m in tts.get(b1).menu)
    game.order(b1, "What may it do?")
    assert tts.said("Blue 1 may: nothing now") and tts.said("wait (")


def test_a_lost_answer_is_retried_under_the_same_request_id(
    referee: LiveReferee, tts_table: Table
) -> None:
    game = _game(tts_table, referee.url)
    tts = game.tts
    r1 = guid_of(tts, "Red 1")
    game.begin()
    tts.drop_replies.append("/actions")  # the referee gets it; the answer never comes back
    game.order(r1, "Wait")
    assert tts.said("no referee answers") and tts.said("Retry")
    waits = [e for e in game.read("/log?limit=500")["entries"] if e["kind"] == "wait"]
    assert len(waits) == 1  # it was applied (and the long-poll brings it to the table)

    game.press("Retry")
    sent = [json.loads(b) for m, url, b in tts.requests if url.endswith("/actions")]
    wait_ids = [s["request_id"] for s in sent if s["action"]["kind"] == "wait"]
    assert len(wait_ids) == 2 and wait_ids[0] == wait_ids[1]
    waits = [e for e in game.read("/log?limit=500")["entries"] if e["kind"] == "wait"]
    assert len(waits) == 1 and waits[0]["request_id"] == wait_ids[0]  # applied once
    assert "Wait" in tts.buttons(r1)
    line = waits[0]["chat"][0]
    assert sum(c.text == line for c in tts.chat) == 1  # drawn once, however it arrived
    game.press("Retry")
    assert tts.said("nothing to retry")


def test_a_saved_game_resumes_its_table(referee: LiveReferee, tts_table: Table) -> None:
    """onSave keeps the table id, token and request counter; onLoad resumes the table."""
    from faketts import FakeTTS

    game = _game(tts_table, referee.url)
    game.press("New table")
    game.press("Crew roll")
    saved = game.tts.save()
    game.tts.close()
    state = json.loads(saved["LuaScriptState"])
    assert state["table_id"] and state["token"] and state["counter"] > 0

    again = FakeTTS.from_save(saved)
    try:
        board = again.tagged("tankref_board")[0].guid
        resumed = Game(again, referee.url, board)
        again.settle()
        assert again.said(f"resumed table {state['table_id']}")
        r1 = guid_of(again, "Red 1")
        assert "Crew: " in again.get(r1).description  # redrawn from the referee
        resumed.press("Start game")
        assert again.said("The game begins")
        assert resumed.saved["counter"] > state["counter"]  # ids never repeat on a table
    finally:
        again.close()


def test_an_undo_from_another_device_puts_the_model_back(
    referee: LiveReferee, tts_table: Table
) -> None:
    """Entries the scripts were not written for (undo, from the browser page) still draw:
    chat line, and the model back where the referee now has it."""
    game = _game(tts_table, referee.url)
    tts = game.tts
    r1 = guid_of(tts, "Red 1")
    game.begin()
    game.drive(r1, -8.0, -18.0, 10.0)
    undo = httpx.post(
        f"{referee.url}/tables/{game.table_id}/undo",
        json={"request_id": "page-undo-1"},
        headers={"Authorization": f"Bearer {game.saved['token']}"},
        timeout=10,
    )
    assert undo.status_code == 200, undo.text
    tts.run_until(lambda: tts.said("Undone: "), 10, "the undo to arrive by long-poll")
    obj = tts.get(r1)
    assert (obj.position[0], obj.position[2], obj.rotation[1]) == (-8.0, -21.0, 0.0)
