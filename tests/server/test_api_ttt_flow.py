"""TinyTableTopTanks' flow over HTTP (real referee, SQLite): the shared codes with TTT's
clauses and HTTP statuses, and the table summary naming the phase of the turn (TTT-T1)."""

from __future__ import annotations

from serverkit import LiveReferee, new_table


def test_the_table_summary_names_the_phase_of_the_turn_TTT_T1(referee: LiveReferee) -> None:
    """TTT-T1: every reply and read says which phase of the turn it is ("first", then
    "second"), as MTC says its step; nothing in setup."""
    table = new_table(referee.url, dice={"source": "table", "seed": "ttt-phase"})
    assert table.read()["table"]["phase"] is None
    table.ok(table.put_tank("R1", card="tiger-i", player="Red", x=0, z=-20, facing=0))
    table.ok(table.put_tank("B1", card="m4a1-sherman", player="Blue", x=0, z=20, facing=180))
    table.ok(table.act({"kind": "crew_roll"}, dice={"faces": {"green": [1, 1]}}))
    started = table.ok(table.act({"kind": "start_game"}))["entry"]["table"]
    assert (started["active_player"], started["phase"]) == ("Red", "first")
    ended = table.ok(table.act({"kind": "end_phase"}))["entry"]["table"]
    assert (ended["turn"], ended["active_player"], ended["phase"]) == (1, "Blue", "second")
    assert table.read()["table"]["phase"] == "second"


def test_a_tank_action_before_the_start_is_409_NOT_STARTED_TTT_T1(referee: LiveReferee) -> None:
    """TTT-T1: a Wait before start_game is 409 NOT_STARTED (was GAME_NOT_STARTED) with the
    clause; the table and its log are unchanged."""
    table = new_table(referee.url, dice={"source": "table", "seed": "ttt-not-started"})
    table.ok(table.put_tank("R1", card="tiger-i", player="Red", x=0, z=-20, facing=0))
    before = table.snapshot()
    reply = table.act({"kind": "wait", "tank_id": "R1"})
    assert reply.status_code == 409
    body = reply.json()
    assert (body["code"], body["clause"]) == ("NOT_STARTED", "TTT-T1")
    assert table.snapshot() == before
