"""Actions over HTTP: adjudication with chat and tank views, idempotency, refusals, table dice."""

from __future__ import annotations

import httpx

from serverkit import LiveReferee, Table, duel

# Red's Tiger hits (white 5) and penetrates the Sherman's front 5 (red 5, 5, 3 = 5 PEN).
HIT_AND_KILL = {
    "faces": {"white": [5, 1, 1, 1], "red": [5, 5, 3, 1, 1]},
    "damage_card": "Explosion",
}
ENGAGE = {"kind": "engage", "tank_id": "R1", "target_id": "B1"}


def test_engage_reply_has_result_chat_and_tank_views(referee: LiveReferee) -> None:
    """TTT-E4/TTT-E5 over HTTP: the reply carries the rolls, the outcome, chat lines with the
    math, and each changed tank's markers and tooltip, ready for TTS to show."""
    table = duel(referee.url)
    reply = table.ok(table.act(ENGAGE, dice=HIT_AND_KILL))
    assert reply["applied"] is True and reply["replayed"] is False
    entry = reply["entry"]
    assert entry["seq"] == 5
    assert entry["kind"] == "engage"
    result = entry["result"]
    assert result["outcome"]["hit"] is True and result["outcome"]["penetrated"] is True
    assert [r["face"] for r in result["rolls"] if r["die"] == "white"] == [5, 1, 1, 1]
    assert 1 <= len(entry["chat"]) <= 2
    assert "engages" in entry["chat"][0]
    assert "Accuracy: 4" in entry["chat"][1] and "Explosion" in entry["chat"][1]
    views = {t["tank_id"]: t for t in entry["tanks"]}
    assert views["B1"]["markers"] == ["Destroyed"]
    assert "Destroyed" in views["B1"]["tooltip"]
    assert "Last:" in views["B1"]["tooltip"]
    assert entry["table"]["status"] == "over"
    assert entry["table"]["winner"] == "Red"


def test_same_request_id_returns_first_result_and_never_rolls_again(
    any_referee: LiveReferee,
) -> None:
    """A retried request (same id) gets the first reply back; the dice counter and the log stay
    (on either store)."""
    table = duel(any_referee.url, dice_source="server")
    first = table.ok(table.act(ENGAGE, request_id="shot-1"))
    counter = table.read()["dice"]["counter"]
    seq = table.read()["seq"]
    again = table.ok(table.act(ENGAGE, request_id="shot-1"))
    assert again["replayed"] is True
    assert again["entry"] == first["entry"]
    assert table.read()["dice"]["counter"] == counter
    assert table.read()["seq"] == seq
    assert len(table.log()) == seq


def test_request_id_reused_for_a_different_request_is_refused(any_referee: LiveReferee) -> None:
    """The same id with another body is a client bug: 409 naming request_id, nothing applied
    (on either store)."""
    table = duel(any_referee.url)
    table.ok(table.act({"kind": "wait", "tank_id": "R1"}, request_id="a-1"))
    before = table.snapshot()
    reply = table.act({"kind": "end_phase"}, request_id="a-1")
    assert reply.status_code == 409
    assert reply.json()["code"] == "REQUEST_ID_REUSED"
    assert reply.json()["field"] == "request_id"
    assert table.snapshot() == before


def test_action_out_of_phase_names_the_clause(referee: LiveReferee) -> None:
    """TTT-T1/TTT-W1: Blue's tank cannot Engage in Red's phase: 409 with the clause; state
    and log unchanged."""
    table = duel(referee.url)
    before = table.snapshot()
    reply = table.act({"kind": "engage", "tank_id": "B1", "target_id": "R1"})
    assert reply.status_code == 409
    body = reply.json()
    assert body["code"] == "NOT_YOUR_PHASE"
    assert body["clause"] == "TTT-W1"
    assert "Engage" in body["message"]
    assert table.snapshot() == before


def test_unknown_tank_in_action_is_404_naming_the_field(referee: LiveReferee) -> None:
    """An action naming a tank the table does not have: 404 naming target_id."""
    table = duel(referee.url)
    before = table.snapshot()
    reply = table.act({"kind": "engage", "tank_id": "R1", "target_id": "B9"})
    assert reply.status_code == 404
    assert reply.json()["code"] == "UNKNOWN_TANK"
    assert reply.json()["field"] == "action.target_id"
    assert table.snapshot() == before


def test_malformed_actions_name_the_field(referee: LiveReferee) -> None:
    """Unknown kinds, missing fields and wrong types: 422 naming the field; nothing changes."""
    table = duel(referee.url)
    before = table.snapshot()
    cases = [
        ({"kind": "fly", "tank_id": "R1"}, "action"),
        ({"kind": "engage", "tank_id": "R1"}, "action.engage.target_id"),
        ({"kind": "engage", "tank_id": "R1", "target_id": 7}, "action.engage.target_id"),
        ({"tank_id": "R1"}, "action"),
        ({"kind": "wait", "tank_id": "R1", "extra": 1}, "action.wait.extra"),
        ({"kind": "crew_roll", "tank_id": 1}, "action.crew_roll.tank_id"),
        ({"kind": "smoke", "tank_id": "R1", "ability": "x", "x": "3"}, "action.smoke.x"),
    ]
    for action, field in cases:
        reply = table.act(action)
        assert reply.status_code == 422, (action, reply.text)
        assert reply.json()["field"] == field, (action, reply.json())
    reply = table.http.post(table.path("/actions"), json={"action": {"kind": "wait"}})
    assert reply.status_code == 422 and reply.json()["field"] == "request_id"
    reply = table.http.post(
        table.path("/actions"), json={"request_id": "bad id with spaces", "action": {}}
    )
    assert reply.status_code == 422 and reply.json()["field"] == "request_id"
    assert table.snapshot() == before


def test_table_dice_reply_says_which_dice_are_needed(referee: LiveReferee) -> None:
    """Table dice: each reply names the next dice to roll (409 DICE_NEEDED); with every face
    supplied the action applies and shows those faces (TTT-E4, TTT-E5)."""
    table = duel(referee.url)
    before = table.snapshot()
    reply = table.act(ENGAGE, request_id="shot")
    assert reply.status_code == 409
    body = reply.json()
    assert body["code"] == "DICE_NEEDED"
    assert body["details"]["need"] == {"die": "white", "count": 4, "purpose": "for Accuracy"}
    assert "4 white dice" in body["message"]
    reply = table.act(ENGAGE, request_id="shot", dice={"faces": {"white": [5, 1, 1, 1]}})
    assert reply.status_code == 409
    assert reply.json()["details"]["need"]["die"] == "red"
    assert reply.json()["details"]["need"]["count"] == 5
    assert table.snapshot() == before
    miss_pen = {"faces": {"white": [5, 1, 1, 1], "red": [1, 1, 2, 2, 3]}}
    entry = table.ok(table.act(ENGAGE, request_id="shot", dice=miss_pen))["entry"]
    assert entry["result"]["outcome"]["penetrated"] is False
    assert [r["source"] for r in entry["result"]["rolls"]] == ["table"] * 9
    assert entry["dice"] == {**miss_pen, "damage_card": None}


def test_table_dice_count_and_faces_are_checked(referee: LiveReferee) -> None:
    """Too many faces, a face not on the die, an unknown die: 422, nothing applied."""
    table = duel(referee.url)
    before = table.snapshot()
    too_many = {"faces": {"white": [1, 1, 1, 1, 1]}}
    reply = table.act(ENGAGE, dice=too_many)
    assert reply.status_code == 422 and reply.json()["code"] == "DICE_COUNT_WRONG"
    reply = table.act(ENGAGE, dice={"faces": {"white": [7, 1, 1, 1]}})
    assert reply.status_code == 422 and reply.json()["code"] == "BAD_FACE"
    reply = table.act(ENGAGE, dice={"faces": {"purple": [1]}})
    assert reply.status_code == 422 and reply.json()["code"] == "UNKNOWN_DIE"
    reply = table.act(ENGAGE, dice={"faces": {"white": ["5", 1, 1, 1]}})
    assert reply.status_code == 422 and reply.json()["field"] == "dice.faces.white.0"
    assert table.snapshot() == before


def test_wait_then_enemy_phase_shot(referee: LiveReferee) -> None:
    """TTT-W1 over HTTP: a Waiting tank fires in the enemy's phase; the entry shows Wait gone."""
    table = duel(referee.url)
    table.ok(table.act({"kind": "wait", "tank_id": "R1"}))
    table.ok(table.act({"kind": "end_phase", "player": "Red"}))
    assert table.read()["table"]["active_player"] == "Blue"
    entry = table.ok(
        table.act(ENGAGE, dice={"faces": {"white": [1, 1, 1, 1]}}),
    )["entry"]
    assert entry["result"]["outcome"]["hit"] is False
    r1 = next(t for t in entry["tanks"] if t["tank_id"] == "R1")
    assert "Wait" not in r1["markers"]


def _writes(table: Table) -> list[httpx.Response]:
    return [
        table.http.post(
            table.path("/actions"), json={"request_id": "w1", "action": {"kind": "end_phase"}}
        ),
        table.http.put(
            table.path("/tanks/R1"),
            json={"card": "tiger-i", "player": "Red", "x": 0, "z": -18, "facing": 0},
        ),
        table.http.put(
            table.path("/terrain/T1"),
            json={"kind": "forest", "shape": {"shape": "circle", "x": 0, "z": 0, "radius": 3}},
        ),
        table.http.put(table.path("/objective"), json={"x": 0, "z": 0}),
        table.http.delete(table.path("/tanks/R1")),
    ]


def test_writes_need_the_token(referee: LiveReferee) -> None:
    """Every write without a token is 401, with another table's token 403; nothing changes."""
    table = duel(referee.url)
    other = duel(referee.url)
    before = table.snapshot()
    table.http.headers.pop("Authorization")
    for reply in _writes(table):
        assert reply.status_code == 401, reply.text
        assert reply.json()["code"] == "TOKEN_MISSING"
    table.http.headers["Authorization"] = f"Bearer {other.token}"
    for reply in _writes(table):
        assert reply.status_code == 403, reply.text
        assert reply.json()["code"] == "TOKEN_WRONG"
    table.http.headers["Authorization"] = f"Basic {table.token}"
    assert _writes(table)[0].status_code == 401
    table.http.headers["Authorization"] = f"Bearer {table.token}"
    assert table.snapshot() == before
