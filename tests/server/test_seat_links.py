"""Seat links (issue 19): the creation reply gives each player a link to the live page with
their seat token in the URL's fragment; the creator's links route says they are not shown
again; ``GET /tables/{id}/seat`` tells whose credential a token is and what that seat may
ask now. Over real HTTP and SQLite."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import httpx

from serverkit import LiveReferee, Table, duel, live_referee, new_table
from tankref.server.hosted import Profile

ENGAGE = {"kind": "engage", "tank_id": "R1", "target_id": "B1"}


def fragment(link: str) -> tuple[str, str, str]:
    """(table id, player, token) from a seat link's fragment: ``#/tables/ID/seat/P/TOKEN``."""
    parts = urlsplit(link)
    assert parts.query == ""  # nothing of the seat in what a browser sends
    route = parts.fragment.split("/")
    assert route[:2] == ["", "tables"] and route[3] == "seat" and len(route) == 6, link
    return unquote(route[2]), unquote(route[4]), unquote(route[5])


def check(url: str, table_id: str, token: str | None) -> httpx.Response:
    headers = {} if token is None else {"Authorization": f"Bearer {token}"}
    return httpx.get(f"{url}/tables/{table_id}/seat", headers=headers, timeout=10)


def seat(table: Table, player: str) -> dict[str, Any]:
    reply = table.http.get(table.path("/seat"), headers=table.seat(player))
    return table.ok(reply)


def test_each_player_gets_a_seat_link_whose_fragment_token_is_their_seat(
    referee: LiveReferee,
) -> None:
    table = duel(referee.url, dice_source="server")
    links = table.created["seat_links"]
    assert sorted(links) == sorted(table.created["seat_tokens"]) == ["Blue", "Red"]
    for player, link in links.items():
        assert link.startswith(f"{referee.url}/#/tables/{table.id}/seat/")
        table_id, named, token = fragment(link)
        assert (table_id, named) == (table.id, player)
        assert token == table.created["seat_tokens"][player]
        reply = check(referee.url, table_id, token)
        assert reply.status_code == 200, reply.text
        assert reply.json()["credential"] == "seat" and reply.json()["player"] == player
    assert table.token not in json.dumps(links)  # the table's own token is in none


def test_a_seat_link_names_the_public_url_and_encodes_its_parts(tmp_path: Path) -> None:
    """Behind a proxy the link is the league's address (--public-url); a player whose name
    is not URL-safe is encoded in it and decodes back to the seat."""
    profile = Profile(public_url="https://league.example.org/ref/")
    with live_referee(tmp_path / "named.sqlite3", profile=profile) as live:
        players = [{"id": "Red Army", "edge": "south"}, {"id": "Blue/Grey", "edge": "north"}]
        setup = {"players": players}
        created = new_table(live.url, setup=setup).created
        for player, link in created["seat_links"].items():
            assert link.startswith(
                f"https://league.example.org/ref/#/tables/{created['table_id']}/"
            )
            assert " " not in link and "Blue/Grey" not in link
            table_id, named, token = fragment(link)
            assert named == player
            assert check(live.url, table_id, token).json()["player"] == player


def test_the_links_route_says_seat_links_are_not_shown_again(referee: LiveReferee) -> None:
    table = new_table(referee.url)
    links = table.ok(table.http.get(table.path("/links")))
    assert "only in the reply that created the table" in links["seat_links"]
    shown = json.dumps(links)
    for player, token in table.created["seat_tokens"].items():
        assert token not in shown, player
        assert table.created["seat_links"][player] not in shown


def test_who_a_token_is(referee: LiveReferee) -> None:
    """A seat token: its player; the table's token: the table's; none 401; anything else
    403 (another table's seat token too); an unknown table 404. Never a 500."""
    table, other = new_table(referee.url), new_table(referee.url)
    as_table = check(referee.url, table.id, table.token).json()
    assert as_table["credential"] == "table" and as_table["player"] is None
    assert check(referee.url, table.id, None).json()["code"] == "TOKEN_MISSING"
    assert check(referee.url, table.id, None).status_code == 401
    for wrong in ("not-a-token", other.token, other.created["seat_tokens"]["Red"], "x" * 5000):
        reply = check(referee.url, table.id, wrong)
        assert (reply.status_code, reply.json()["code"]) == (403, "TOKEN_WRONG")
    basic = httpx.get(
        f"{referee.url}/tables/{table.id}/seat", headers={"Authorization": "Basic abc"}
    )
    assert basic.status_code == 401
    missing = check(referee.url, "no-such-table", table.token)
    assert (missing.status_code, missing.json()["code"]) == (404, "UNKNOWN_TABLE")


def test_what_a_seat_may_ask_follows_the_game(referee: LiveReferee) -> None:
    """Seeds while no die is drawn; after a shot its void, the asks so far, and nothing once
    it is voided; nothing at all once the game is over."""
    table = new_table(referee.url, dice={"source": "server", "seed": "seat-links-1"})
    red = seat(table, "Red")
    assert red["seeds_open"] and red["seeds_given"] == [] and red["void"] is None
    body = {"request_id": "seed-red", "player": "Red", "seed": "red's own"}
    table.ok(table.http.post(table.path("/seeds"), json=body, headers=table.seat("Red")))
    assert seat(table, "Blue")["seeds_given"] == ["Red"]
    table.ok(table.put_tank("R1", card="tiger-i", player="Red", x=0, z=-20, facing=0))
    table.ok(table.put_tank("B1", card="m4a1-sherman", player="Blue", x=0, z=20, facing=180))
    table.ok(table.act({"kind": "crew_roll"}))
    table.ok(table.act({"kind": "start_game"}))
    assert not seat(table, "Blue")["seeds_open"]  # the crew roll drew the server's dice
    shot = table.ok(table.act(ENGAGE))["seq"]
    void = seat(table, "Blue")["void"]
    assert void == {"seq": shot, "action": "engage R1 → B1", "asked": [], "needs": ["Red", "Blue"]}
    ask = {"request_id": "void-blue", "seq": shot, "player": "Blue"}
    table.ok(table.http.post(table.path("/void"), json=ask, headers=table.seat("Blue")))
    assert seat(table, "Red")["void"]["asked"] == ["Blue"]
    assert seat(table, "Red")["void"]["needs"] == ["Red"]
    ask = {"request_id": "void-red", "seq": shot, "player": "Red"}
    table.ok(table.http.post(table.path("/void"), json=ask, headers=table.seat("Red")))
    assert seat(table, "Red")["void"] is None  # the crew roll below it: no action to void
    table.ok(table.http.post(table.path("/end"), json={"request_id": "end"}))
    over = seat(table, "Red")
    assert not over["seeds_open"] and over["void"] is None


def test_the_seat_check_changes_nothing(referee: LiveReferee) -> None:
    table = duel(referee.url, dice_source="server")
    table.ok(table.act(ENGAGE))
    before = table.snapshot()
    for player in ("Red", "Blue"):
        seat(table, player)
    assert table.snapshot() == before
