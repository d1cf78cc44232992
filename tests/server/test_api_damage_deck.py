"""The damage deck over HTTP (TTT-E7, table setting dice.damage_cards): a table that draws its
own cards is asked for the card like dice; a referee's table refuses a supplied card up front;
replay, export and verify keep the cards."""

from __future__ import annotations

import json
from pathlib import Path

import httpx

from serverkit import LiveReferee, Table, duel, live_referee, new_table
from tankref.core.verify import verify_export

ENGAGE = {"kind": "engage", "tank_id": "R1", "target_id": "B1"}
PENETRATES = {"white": [5, 1, 1, 1], "red": [5, 5, 3, 1, 1]}


def test_table_deck_answers_dice_needed_with_the_card_wanted_TTT_E7(
    referee: LiveReferee,
) -> None:
    """TTT-E7, damage_cards table: a penetration answers 409 DICE_NEEDED naming the damage
    card, who draws it and the cards left; nothing applied. The whole action sent again under
    the same request id with the card applies once; the read shows the setting."""
    table = duel(referee.url, damage_cards="table")
    assert table.read()["dice"]["damage_cards"] == "table"
    before = table.snapshot()
    reply = table.act(ENGAGE, request_id="shot", dice={"faces": PENETRATES})
    assert reply.status_code == 409, reply.text
    body = reply.json()
    assert body["code"] == "DICE_NEEDED"
    need = body["details"]["need"]
    assert need["die"] == "damage_card" and need["player"] == "Blue" and need["tank_id"] == "B1"
    assert "Glancing Blow" in need["cards"] and "Explosion" in need["cards"]
    assert "damage card" in body["message"]
    assert table.snapshot() == before
    dice = {"faces": {**PENETRATES, "green": [4]}, "damage_card": "Glancing Blow"}
    entry = table.ok(table.act(ENGAGE, request_id="shot", dice=dice))["entry"]
    assert entry["result"]["outcome"]["damage_card"] == "Glancing Blow"
    again = table.ok(table.act(ENGAGE, request_id="shot", dice=dice))
    assert again["replayed"] is True and again["seq"] == entry["seq"]
    assert [e["kind"] for e in table.log()].count("engage") == 1


def test_referee_deck_refuses_a_supplied_card_up_front_TTT_E7(referee: LiveReferee) -> None:
    """TTT-E7, damage_cards referee (the default): a card sent with the action is refused 422
    naming dice.damage_card before anything is rolled, even on a shot that would not
    penetrate; without it the referee draws its own card."""
    table = duel(referee.url, damage_cards="referee")
    assert table.read()["dice"]["damage_cards"] == "referee"
    before = table.snapshot()
    dice = {"faces": PENETRATES, "damage_card": "Explosion"}
    reply = table.act(ENGAGE, dice=dice)
    assert reply.status_code == 422, reply.text
    body = reply.json()
    assert body["code"] == "DAMAGE_CARD_NOT_WANTED" and body["field"] == "dice.damage_card"
    assert "dice.damage_cards: referee" in body["message"]
    miss = {"faces": {"white": [1, 1, 1, 1]}, "damage_card": "Explosion"}
    assert table.act(ENGAGE, dice=miss).json()["code"] == "DAMAGE_CARD_NOT_WANTED"
    assert table.snapshot() == before
    entry = table.ok(table.act(ENGAGE, dice={"faces": PENETRATES}))["entry"]
    assert entry["result"]["outcome"]["damage_card"]


def test_default_is_the_referee_deck_and_only_decks_take_cards_TTT_E7(
    referee: LiveReferee,
) -> None:
    """A new table's damage cards default to the referee, with server or table dice; a
    ruleset without a damage deck (AFV's damage table) refuses damage_cards table and any
    supplied card, naming the field."""
    for source in ("server", "table"):
        made = new_table(referee.url, dice={"source": source})
        assert made.read()["dice"]["damage_cards"] == "referee"
    body = {"ruleset": "afv", "dice": {"damage_cards": "table"}}
    reply = httpx.post(f"{referee.url}/tables", json=body, timeout=30)
    assert reply.status_code == 422, reply.text
    assert reply.json()["field"] == "dice.damage_cards" and reply.json()["code"] == "NO_DAMAGE_DECK"
    afv = new_table(referee.url, ruleset="afv", dice={"source": "table"})
    reply = afv.act({"kind": "end_phase"}, dice={"damage_card": "Explosion"})
    assert reply.status_code == 422 and reply.json()["field"] == "dice.damage_card"
    assert "no damage deck" in reply.json()["message"]


def test_table_deck_export_verifies_TTT_E7(referee: LiveReferee) -> None:
    """The cards the table drew are in the log and the export names the setting: verify
    re-adjudicates every event (the checkpoints included) without a mismatch."""
    table = duel(referee.url, damage_cards="table")
    dice = {"faces": {**PENETRATES, "green": [4]}, "damage_card": "Immobilized"}
    table.ok(table.act(ENGAGE, dice=dice))
    export = table.ok(table.http.get(table.path("/export")))
    assert export["table"]["damage_cards"] == "table"
    report = verify_export(export)
    assert report.ok, report
    assert report.readjudicated == table.read()["seq"]


def test_server_dice_table_deck_survives_a_restart_and_verifies_TTT_E7(tmp_path: Path) -> None:
    """Server dice with a physical deck: the referee rolls, then asks only for the card; the
    card sent alone keeps the dice the referee's. A restarted referee rebuilds the same table
    from the log, its luck report counts the shot, and the export verifies with the seed."""
    db = tmp_path / "deck.sqlite3"
    with live_referee(db) as live:
        table = duel(live.url, dice_source="server", damage_cards="table")
        for _ in range(12):  # Red shoots each turn until a shot penetrates (a fixed seed)
            reply = table.act(ENGAGE, request_id=table.next_id())
            if reply.status_code == 409:
                break
            table.ok(reply)
            table.ok(table.act({"kind": "end_phase"}))
            table.ok(table.act({"kind": "end_phase"}))
        body = reply.json()
        assert body["code"] == "DICE_NEEDED" and body["details"]["need"]["die"] == "damage_card"
        assert body["details"]["used_so_far"] == {}  # the dice were the referee's
        shot = json.loads(reply.request.content)["request_id"]
        dice = {"damage_card": "Immobilized"}
        entry = table.ok(table.act(ENGAGE, request_id=shot, dice=dice))["entry"]
        assert entry["result"]["outcome"]["damage_card"] == "Immobilized"
        assert {r["source"] for r in entry["result"]["rolls"]} == {"server"}
        before = table.read()
        luck = table.ok(table.http.get(table.path("/luck")))
        assert luck["note"] is None
    with live_referee(db) as live:
        again = Table(live.url, table.created)
        assert again.read() == before
        assert again.ok(again.http.get(again.path("/luck"))) == luck
        again.ok(again.http.post(again.path("/end"), json={"request_id": "the-end"}))
        export = again.ok(again.http.get(again.path("/export")))
        assert export["table"]["seed"] is not None
        report = verify_export(export)  # --require-seed would fail it: duel() picks the seed
        assert report.ok and report.seed_revealed, report.to_dict()
        assert report.readjudicated == again.read()["seq"]
