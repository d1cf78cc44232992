"""A decision the rules leave to a player, through the Lua (decision.lua): the referee answers
409 DECISION_NEEDED (TTT-E3 with best_armour "ask": the target "can" turn its best armour),
the script asks the seat named in the reply in a dialog, and sends the same action again with
the answer under the same request id.

The fake TTS has no seats yet, so this test gives the Lua runtime its ``Player`` table: one
seat object per colour with ``seated`` and ``showOptionsDialog``. What they do is taken from
the TTS API, not from our scripts: ``Player[colour]`` is a PlayerInstance
(tests/tts/api-names.json lists ``seated`` and ``showOptionsDialog`` there); the dialog is
``showOptionsDialog(description, options, default_value, callback)`` and calls back
``callback(selected_text, selected_index, player_color)`` with the index counted from 1 (the
@typed-tabletop-simulator declarations of the Player API, and a public TTS mod that indexes
its options table with the index it is handed).
"""

from __future__ import annotations

import json
from typing import Any

import httpx
from faketts import FakeTTS, to_python
from ttsplay import Game

from serverkit import LiveReferee
from serverkit import new_table as new_server_table
from tankref.tts.save import build_save


class Seat:
    """Player[colour] with the two members the decision uses; refuses what TTS would."""

    SECTION = "PlayerInstance"

    def __init__(self, colour: str, seated: bool) -> None:
        self.color = colour
        self.seated = seated
        self.dialogs: list[tuple[str, list[str], Any, Any]] = []

    def showOptionsDialog(  # the TTS API's name
        self, description: Any, options: Any, default_value: Any, callback: Any
    ) -> bool:
        labels = to_python(options)
        if not isinstance(description, str):
            raise TypeError("showOptionsDialog: description must be a string")
        if (
            not isinstance(labels, list)
            or not labels
            or not all(isinstance(x, str) for x in labels)
        ):
            raise TypeError("showOptionsDialog: options must be a non-empty list of strings")
        if not (isinstance(default_value, int) and 1 <= default_value <= len(labels)) and (
            default_value not in labels
        ):
            raise ValueError("showOptionsDialog: default_value is neither an index nor an option")
        if not callable(callback):
            raise TypeError("showOptionsDialog: callback must be a function")
        self.dialogs.append((description, labels, default_value, callback))
        return True

    def choose(self, tts: FakeTTS, label: str) -> None:
        """The player picks ``label`` in the dialog open on their screen."""
        _, labels, _, callback = self.dialogs.pop(0)
        callback(label, labels.index(label) + 1, self.color)
        tts.settle()


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
    lua = tts.global_runtime
    seats = {"Red": Seat("Red", True), "Blue": Seat("Blue", True)}
    lua.globals().Player = lua.table_from(seats)
    # Red 1 stands where the referee has it: turned east.
    tts.get(r1).rotation[1] = 90.0
    game = Game(tts, referee.url, tts.tagged("tankref_board")[0].guid)
    tts.settle()  # the script resumes the table and builds each unit's menu
    assert game.summary()["active_player"] == "Blue"

    game.engage(b1, r1)
    assert not seats["Blue"].dialogs
    (description, labels, default, _) = seats["Red"].dialogs[0]
    assert labels == ["Turn its best armour to the shot", "Stay as it stands"] and default == 1
    assert "Red decides" in description
    assert tts.said("tankref: waiting for Red")
    assert not [e for e in game.read("/log?limit=500")["entries"] if e["kind"] == "engage"]

    seats["Red"].choose(tts, "Stay as it stands")
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
    lua = tts.global_runtime
    seats = {"Red": Seat("Red", False), "Blue": Seat("Blue", True)}
    lua.globals().Player = lua.table_from(seats)
    tts.get(guids["Red 1"]).rotation[1] = 90.0
    game = Game(tts, referee.url, tts.tagged("tankref_board")[0].guid)
    tts.settle()
    before = httpx.get(f"{referee.url}/tables/{state['table_id']}/log").json()
    game.engage(guids["Blue 1"], guids["Red 1"])
    assert not seats["Red"].dialogs
    assert tts.said("nobody sits at Red")
    assert httpx.get(f"{referee.url}/tables/{state['table_id']}/log").json() == before
