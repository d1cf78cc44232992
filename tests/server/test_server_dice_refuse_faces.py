"""A server-dice table is the referee's dice, whoever holds the token (issue 15): faces and
cards the client sends are refused up front with a 409 naming the table's dice source, and
nothing changes; on a table that rolls its own dice they are what the table rolled."""

from __future__ import annotations

from typing import Any

from serverkit import LiveReferee, Table, duel, new_table

ENGAGE = {"kind": "engage", "tank_id": "R1", "target_id": "B1"}
# The attack the issue reports: four hits, five penetrations and the worst card.
CHOSEN = {"faces": {"white": [6, 6, 6, 6], "red": [5, 5, 5, 5, 5]}, "damage_card": "Explosion"}


def refused_as_server_dice(table: Table, reply: Any, field: str) -> None:
    assert reply.status_code == 409, reply.text
    body = reply.json()
    assert (body["code"], body["field"]) == ("SERVER_DICE", field), body
    assert "dice.source: server" in body["message"]
    assert "need" not in body["details"]  # it never says how many faces to send


def test_server_table_refuses_chosen_faces_and_card_for_a_shot_TTT_E4_E5_E7(
    referee: LiveReferee,
) -> None:
    """TTT-E4, TTT-E5, TTT-E7 on a server-dice table: the token holder's faces and card are refused
    (409 SERVER_DICE), state and log unchanged; the same shot without them is the
    referee's roll."""
    table = duel(referee.url, dice_source="server")
    before = table.snapshot()
    refused_as_server_dice(table, table.act(ENGAGE, dice=CHOSEN), "dice.faces")
    refused_as_server_dice(table, table.act(ENGAGE, dice={"faces": CHOSEN["faces"]}), "dice.faces")
    card_only = table.act(ENGAGE, dice={"damage_card": "Explosion"})
    refused_as_server_dice(table, card_only, "dice.damage_card")
    assert "dice.damage_cards: referee" in card_only.json()["message"]
    assert table.snapshot() == before
    # An empty dice body does not turn the referee's dice into the table's (no DICE_NEEDED).
    entry = table.ok(table.act(ENGAGE, dice={"faces": {}}))["entry"]
    assert entry["dice"] is None
    assert {r["source"] for r in entry["result"]["rolls"]} == {"server"}


def test_server_table_refuses_faces_for_a_crew_roll_TTT_C1(referee: LiveReferee) -> None:
    """The crew roll (TTT-C1) on a server-dice table takes no faces either."""
    table = new_table(referee.url, dice={"source": "server"})
    table.ok(table.put_tank("R1", card="tiger-i", player="Red", x=0, z=-20, facing=0))
    table.ok(table.put_tank("B1", card="m4a1-sherman", player="Blue", x=0, z=20, facing=180))
    before = table.snapshot()
    crew = table.act({"kind": "crew_roll"}, dice={"faces": {"green": [6, 6]}})
    refused_as_server_dice(table, crew, "dice.faces")
    assert table.snapshot() == before
    rolled = table.ok(table.act({"kind": "crew_roll"}))["entry"]["result"]["rolls"]
    assert rolled and {r["source"] for r in rolled} == {"server"}


def test_server_table_with_a_physical_deck_still_refuses_faces_TTT_E7(
    referee: LiveReferee,
) -> None:
    """dice.damage_cards: table on a server-dice table: the drawn card is the table's to send
    (TTT-E7), the faces never are, even beside a card."""
    table = duel(referee.url, dice_source="server", damage_cards="table")
    before = table.snapshot()
    refused_as_server_dice(table, table.act(ENGAGE, dice=CHOSEN), "dice.faces")
    assert table.snapshot() == before
    alone = table.act(ENGAGE, dice={"damage_card": "Explosion"})
    assert alone.json().get("code") != "SERVER_DICE", alone.text


def test_every_ruleset_refuses_faces_on_a_server_table_AFV_HIT1_MTC_INI1_YRD_AT1(
    referee: LiveReferee,
) -> None:
    """AFV, MTC and the yard share the dice path: faces sent to their server-dice tables are
    refused before the action is adjudicated (MTC's start rolls initiative, MTC-INI1)."""
    cases: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
        ("afv", {"options": {"turn_limit": 5}}, {"d6": [6, 6]}),
        ("mtc", {}, {"d6": [6, 1, 6, 1]}),
        ("yrd", {}, {"d20": [20, 1]}),
    ]
    for ruleset, setup, faces in cases:
        table = new_table(referee.url, ruleset=ruleset, setup=setup, dice={"source": "server"})
        before = table.snapshot()
        reply = table.act({"kind": "start_game"}, dice={"faces": faces})
        refused_as_server_dice(table, reply, "dice.faces")
        assert table.snapshot() == before, ruleset
        table.close()


def test_table_dice_table_still_takes_the_faces_it_rolled_TTT_E4_E5(referee: LiveReferee) -> None:
    """The same chosen faces on a table that rolls its own dice are the table's roll."""
    table = duel(referee.url, dice_source="table")
    entry = table.ok(table.act(ENGAGE, dice=CHOSEN))["entry"]
    assert {r["source"] for r in entry["result"]["rolls"]} == {"table"}
    assert entry["result"]["outcome"]["damage_card"] == "Explosion"
