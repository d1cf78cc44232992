"""The log's head in Tabletop Simulator's chat, through the bundled Lua against a live
referee: after each result, "log N, head XXXXXXXX" (the first 8 hex digits); the last one
is the head the referee's read, its log and its export give, whether the result came back
as the reply to a click or by the long-poll from another device."""

from __future__ import annotations

import re

import httpx
from ttsplay import Game, Table, guid_of

from serverkit import LiveReferee

SEED = "tts-game-0003"
HEAD_LINE = re.compile(r"^log (\d+), head ([0-9a-f]{8})$")


def test_the_chat_shows_the_head_after_each_result(referee: LiveReferee, tts_table: Table) -> None:
    tts = tts_table(referee.url, keep=("Red 1", "Blue 1"), seed=SEED)
    game = Game(tts, referee.url, tts.tagged("tankref_board")[0].guid)
    r1, b1 = guid_of(tts, "Red 1"), guid_of(tts, "Blue 1")
    game.begin()
    game.drive(r1, -8, -17, 0)
    game.engage(r1, b1)
    game.press("End phase")
    # Blue's shot from another device (the page): the long-poll brings it, with its head.
    chat_before = len(tts.chat)
    shot = httpx.post(
        f"{referee.url}/tables/{game.table_id}/actions",
        json={"request_id": "page-1", "action": {"kind": "engage", "tank_id": b1, "target_id": r1}},
        headers={"Authorization": f"Bearer {game.saved['token']}"},
        timeout=10,
    )
    assert shot.status_code == 200, shot.text
    head = shot.json()["head_sha256"]
    tts.run_until(lambda: any(head[:8] in c.text for c in tts.chat[chat_before:]), 10)

    shown = [HEAD_LINE.match(c.text) for c in tts.chat if c.text.startswith("log ")]
    assert shown and all(shown), [c.text for c in tts.chat if c.text.startswith("log ")]
    links = {e["seq"]: e["chain_sha256"] for e in game.read("/log?limit=500")["entries"]}
    heads = {int(m.group(1)): m.group(2) for m in shown if m}
    assert {seq: links[seq][:8] for seq in heads} == heads  # each line is its entry's link
    read = game.read()
    assert max(heads) == read["seq"]  # the last result's line was printed...
    assert heads[read["seq"]] == read["head_sha256"][:8] == head[:8]  # ...with the head
    assert game.read("/export")["table"]["head_sha256"] == read["head_sha256"]
    lines = [c for c in tts.chat if c.text.startswith("log ")]
    assert all(c.kind == "print" for c in lines)  # printed beside the result, not broadcast
