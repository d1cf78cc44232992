"""The TTS scripts keep each side's seat token with the game and ask a void with the seat
token of the player who typed it (issue 15), through the bundled Lua in lupa against the
real referee: each side's ask is logged as a seat's; a spectator's is not sent."""

from __future__ import annotations

from typing import Any

import httpx
from ttsplay import Game, Table, guid_of

from serverkit import LiveReferee


def _game(tts_table: Table, url: str) -> Game:
    tts = tts_table(url, keep=("Red 1", "Blue 1"), seed="tts-seat-tokens-1")
    return Game(tts, url, tts.tagged("tankref_board")[0].guid)


def _log(game: Game) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = game.read("/log?limit=500")["entries"]
    return entries


def test_the_scripts_keep_seat_tokens_and_void_with_the_typists_seat(
    referee: LiveReferee, tts_table: Table
) -> None:
    game = _game(tts_table, referee.url)
    tts = game.tts
    r1, b1 = guid_of(tts, "Red 1"), guid_of(tts, "Blue 1")
    game.begin()
    saved = game.saved["seat_tokens"]
    assert sorted(saved) == ["Blue", "Red"]  # kept with the game
    # They are the sides' own seat tokens: each gives no orders, as the referee says.
    order = {"request_id": "probe", "action": {"kind": "wait", "tank_id": r1}}
    for side, token in saved.items():
        probe = httpx.post(
            f"{referee.url}/tables/{game.table_id}/actions",
            json=order,
            headers={"Authorization": f"Bearer {token}"},
            timeout=10,
        )
        assert probe.json()["code"] == "SEAT_TOKEN_NOT_ENOUGH", side
    game.engage(r1, b1)
    shot = next(e for e in reversed(_log(game)) if e["kind"] == "engage")
    assert shot["result"]["rolls"]

    sent = len(tts.requests)
    tts.say("!tankref void", color="Grey")  # a spectator sits at no side
    tts.settle()
    assert tts.said("sits at no side of this table")
    assert len(tts.requests) == sent

    tts.say("!tankref void", color="Red")  # the host, at Red's seat
    tts.settle()
    asked = _log(game)[-1]
    assert asked["kind"] == "void_request"
    assert asked["action"] == {
        "control": "void",
        "credential": "seat",
        "player": "Red",
        "seq": shot["seq"],
    }
    tts.say("!tankref void", color="Blue")
    tts.settle()
    done = _log(game)[-1]
    assert done["kind"] == "void"
    assert done["action"]["credential"] == "seat" and done["action"]["player"] == "Blue"
    assert tts.said(f"Voided by Red and Blue: event {shot['seq']}")
