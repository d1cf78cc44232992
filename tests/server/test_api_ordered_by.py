"""Who gave an order at the table (issue 13): the action and tank bodies may say the TTS seat
and whether a host or promoted player acted as the table's referee; the log keeps it; a bad
value is a 4xx naming the field, with state and log unchanged."""

from __future__ import annotations

import pytest

from serverkit import LiveReferee, duel


def test_an_order_is_logged_with_its_seat_and_referee_flag(referee: LiveReferee) -> None:
    table = duel(referee.url)
    by = {"seat": "White", "as_referee": True}
    reply = table.ok(table.act({"kind": "wait", "tank_id": "R1"}, request_id="w-1", by=by))
    assert reply["entry"]["by"] == by
    logged = table.log()[-1]
    assert logged["request_id"] == "w-1" and logged["by"] == by
    # The same request again is the same request: replayed, not applied twice.
    again = table.ok(table.act({"kind": "wait", "tank_id": "R1"}, request_id="w-1", by=by))
    assert again["replayed"] is True and len(table.log()) == logged["seq"]


def test_a_move_is_logged_with_its_seat(referee: LiveReferee) -> None:
    table = duel(referee.url)
    put = {"card": "tiger-i", "player": "Red", "x": 0.0, "z": -16.0, "facing": 0.0}
    reply = table.ok(table.put_tank("R1", **put, request_id="m-1", by={"seat": "Red"}))
    assert reply["entry"]["by"] == {"seat": "Red", "as_referee": False}
    assert table.log()[-1]["by"] == {"seat": "Red", "as_referee": False}


def test_an_order_without_a_seat_logs_none(referee: LiveReferee) -> None:
    table = duel(referee.url)
    table.ok(table.act({"kind": "wait", "tank_id": "R1"}))
    assert table.log()[-1]["by"] is None


@pytest.mark.parametrize(
    ("by", "field"),
    [
        ({"seat": "Mauve"}, "seat"),
        ({"seat": "Red", "as_referee": "yes"}, "as_referee"),
        ({"seat": "Red", "host": True}, "host"),
        ("Red", "by"),
    ],
)
def test_a_bad_seat_is_refused_naming_the_field(
    referee: LiveReferee, by: object, field: str
) -> None:
    table = duel(referee.url)
    before = table.snapshot()
    reply = table.act({"kind": "wait", "tank_id": "R1"}, by=by)
    assert reply.status_code == 422, reply.text
    assert field in reply.json()["message"] or field in str(reply.json().get("field"))
    put = {"card": "tiger-i", "player": "Red", "x": 0.0, "z": -16.0, "facing": 0.0}
    moved = table.put_tank("R1", **put, by=by)
    assert moved.status_code == 422, moved.text
    assert table.snapshot() == before
