"""A physical damage deck through the Lua (TTT-E7, dice.damage_cards "table"): "!tankref cards
table" before New table; when a shot penetrates the referee asks for the card (409
DICE_NEEDED), the script tells the table who draws and which cards are left, and "!tankref
card NAME" sends the whole action again with the card under the same request id."""

from __future__ import annotations

import json

from ttsplay import Game, Table, guid_of

from serverkit import LiveReferee

SEED = "tts-deck-1"  # Red's first shot penetrates


def _engages_sent(game: Game) -> list[dict[str, object]]:
    sent = [json.loads(body) for _, url, body in game.tts.requests if url.endswith("/actions")]
    return [a for a in sent if a["action"]["kind"] == "engage"]  # type: ignore[index]


def test_the_table_draws_the_damage_card_and_types_it_TTT_E7(
    referee: LiveReferee, tts_table: Table
) -> None:
    tts = tts_table(referee.url, keep=("Red 1", "Blue 1"), seed=SEED)
    game = Game(tts, referee.url, tts.tagged("tankref_board")[0].guid)
    r1, b1 = guid_of(tts, "Red 1"), guid_of(tts, "Blue 1")

    tts.say("!tankref card Fire")  # nothing asked for yet: told so, nothing sent
    assert tts.said("no damage card is asked for now")
    tts.say("!tankref cards table")
    assert not tts.said("!tankref cards table")  # a command: not echoed to chat
    assert "drawn from the deck" in tts.get(game.board).description
    game.press("New table")
    assert game.read()["dice"]["damage_cards"] == "table"
    game.press("Crew roll")
    game.press("Start game")

    game.engage(r1, b1)
    assert [e["kind"] for e in game.read("/log?limit=500")["entries"]].count("engage") == 0
    pending = game.saved["pending"]
    wanted = pending["card_wanted"]  # saved with the game while it waits
    assert wanted["die"] == "damage_card" and wanted["player"] == "Blue"
    assert tts.said("tankref: draw a damage card for ") and tts.said("Blue draws it (TTT-E7)")
    assert tts.said("left in the deck: ") and tts.said("Immobilized")

    tts.say("!tankref card Banana")  # not a card: told the cards left, nothing sent
    tts.settle()
    assert tts.said("'Banana' is not one card left in the deck")
    assert len(_engages_sent(game)) == 1

    tts.say("!tankref card immob")  # the start of one card's name is enough
    tts.settle()
    engages = [e for e in game.read("/log?limit=500")["entries"] if e["kind"] == "engage"]
    assert len(engages) == 1
    assert engages[0]["result"]["outcome"]["damage_card"] == "Immobilized"
    assert engages[0]["dice"]["damage_card"] == "Immobilized"
    sent = _engages_sent(game)
    assert len(sent) == 2 and len({a["request_id"] for a in sent}) == 1
    assert "dice" not in sent[0] and sent[1]["dice"] == {"damage_card": "Immobilized"}
    assert game.saved.get("pending") is None
    assert tts.said("Immobilized")


def test_a_card_asked_for_survives_a_save_and_reload_TTT_E7(
    referee: LiveReferee, tts_table: Table
) -> None:
    """TTT-E7: the shot waiting for its card is saved with the game; reloaded, the card typed
    then sends it (the same request id) and it applies once."""
    from faketts import FakeTTS

    tts = tts_table(referee.url, keep=("Red 1", "Blue 1"), seed=SEED)
    game = Game(tts, referee.url, tts.tagged("tankref_board")[0].guid)
    r1, b1 = guid_of(tts, "Red 1"), guid_of(tts, "Blue 1")
    tts.say("!tankref cards table")
    game.begin()
    game.engage(r1, b1)
    waiting = game.saved["pending"]
    assert waiting["card_wanted"]["die"] == "damage_card"
    saved = tts.save()
    tts.close()

    again = FakeTTS.from_save(saved)
    try:
        resumed = Game(again, referee.url, again.tagged("tankref_board")[0].guid)
        again.settle()
        again.say("!tankref card Gun Damaged")
        again.settle()
        engages = [e for e in resumed.read("/log?limit=500")["entries"] if e["kind"] == "engage"]
        assert len(engages) == 1 and engages[0]["request_id"] == waiting["body"]["request_id"]
        assert engages[0]["result"]["outcome"]["damage_card"] == "Gun Damaged"
        assert resumed.saved.get("pending") is None
    finally:
        again.close()
