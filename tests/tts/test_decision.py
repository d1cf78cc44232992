"""A decision the rules leave to a player, through the Lua (decision.lua): the referee answers
409 DECISION_NEEDED (TTT-E3 with best_armour "ask": the target "can" turn its best armour),
the script asks the seat named in the reply in a dialog, and sends the same action again with
the answer under the same request id.

The fake TTS's ``Player[colour]`` opens the dialog (``showOptionsDialog(description, options,
default_value, callback)``, calling back ``callback(selected_text, selected_index,
player_color)`` with the index counted from 1: the Player API's declarations, and a public TTS
mod that indexes its options table with the index it is handed).
"""

from __future__ import annotations

import json
from typing import Any

import httpx
from faketts import FakeTTS
from ttsplay import Game

from serverkit import LiveReferee
from serverkit import new_table as new_server_table
from tankref.tts.save import build_save


def _actions_sent(tts: FakeTTS) -> list[dict[str, Any]]:
    return [json.loads(body) for method, url, body in tts.requests if url.endswith("/actions")]


def _table_in_blues_phase(url: str) -> tuple[dict[str, Any], dict[str, str]]:
    """A best_armour "ask" table holding the save's Red 1 and Blue 1 (by their guids), Red 1
    turned to face east so Blue 1 sees its side; started, in Blue's phase."""
    save = build_save(url, "ttt")
    guids, placed = {}, {}
    for obj in save["ObjectStates"]:
        if obj["Nickname"] in ("Red 1", "Blue 1"):
            t = obj["Transform"]
            card = next(tag[5:] for tag in obj["Tags"] if tag.startswith("card:"))
            side = next(tag[5:] for tag in obj["Tags"] if tag.startswith("side:"))
            facing = 90.0 if obj["Nickname"] == "Red 1" else t["rotY"]
            guids[obj["Nickname"]] = obj["GUID"]
            placed[obj["GUID"]] = (card, side, t["posX"], t["posZ"], facing)
    table = new_server_table(
        url, setup={"options": {"best_armour": "ask"}}, dice={"source": "server"}
    )
    for guid, (card, side, x, z, facing) in placed.items():
        table.ok(table.put_tank(guid, card=card, player=side, x=x, z=z, facing=facing))
    table.ok(table.act({"kind": "crew_roll"}))
    table.ok(table.act({"kind": "start_game"}))
    table.ok(table.act({"kind": "end_phase"}))
    state = {"table_id": table.id, "token": table.token, "table_ruleset": "ttt"}
    table.close()
    return state, guids


def test_the_deciding_seat_is_asked_and_the_answer_sent_TTT_E3(
    referee: LiveReferee, tts_table: Any
) -> None:
    """TTT-E3 (option ask) in TTS: Blue 1 fires at Red 1's side; the referee asks Red, the
    script shows Red (only Red) a dialog, Red declines the turn, the Engage goes again under
    the same request id with best_armour "stay", and the shot strikes the side."""
    state, guids = _table_in_blues_phase(referee.url)
    r1, b1 = guids["Red 1"], guids["Blue 1"]
    tts = tts_table(referee.url, keep=("Red 1", "Blue 1"), state=state)
    red, blue = tts.player("Red"), tts.player("Blue")
    # Red 1 stands where the referee has it: turned east.
    tts.get(r1).rotation[1] = 90.0
    game = Game(tts, referee.url, tts.tagged("tankref_board")[0].guid)
    tts.settle()  # the script resumes the table and builds each unit's menu
    assert game.summary()["active_player"] == "Blue"

    game.engage(b1, r1)
    assert not blue.dialogs
    (description, labels, default, _) = red.dialogs[0]
    assert labels == ["Turn its best armour to the shot", "Stay as it stands"] and default == 1
    assert "Red decides" in description
    assert tts.said("tankref: waiting for Red")
    assert not [e for e in game.read("/log?limit=500")["entries"] if e["kind"] == "engage"]

    tts.choose("Red", "Stay as it stands")
    (entry,) = [e for e in game.read("/log?limit=500")["entries"] if e["kind"] == "engage"]
    assert entry["result"]["outcome"]["hit_side"] == "side"
    sent = [a for a in _actions_sent(tts) if a["action"]["kind"] == "engage"]
    assert len(sent) == 2 and len({a["request_id"] for a in sent}) == 1
    assert "best_armour" not in sent[0]["action"] and sent[1]["action"]["best_armour"] == "stay"


def test_an_empty_seat_cannot_decide_and_nothing_is_sent_TTT_E3(
    referee: LiveReferee, tts_table: Any
) -> None:
    """TTT-E3 (option ask): nobody sits at Red: the script says so and sends nothing more; the
    table is unchanged."""
    state, guids = _table_in_blues_phase(referee.url)
    tts = tts_table(referee.url, keep=("Red 1", "Blue 1"), state=state)
    red = tts.player("Red")
    red.seated = False  # Red left the table (the host may be anyone)
    tts.get(guids["Red 1"]).rotation[1] = 90.0
    game = Game(tts, referee.url, tts.tagged("tankref_board")[0].guid)
    tts.settle()
    before = httpx.get(f"{referee.url}/tables/{state['table_id']}/log").json()
    game.engage(guids["Blue 1"], guids["Red 1"])
    assert not red.dialogs
    assert tts.said("nobody sits at Red")
    assert httpx.get(f"{referee.url}/tables/{state['table_id']}/log").json() == before
