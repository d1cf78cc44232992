"""A player's seat link on the live page (issue 19), in Debian's headless Chromium against a
real referee: the page checks the link, keeps the seat for that table in the browser and
takes the token out of the address and the history; it shows the seat and offers only what
a seat token may do (the player's seed, a void), each refusal with its code; a bad link
keeps nothing; the stream view and spectators never see a seat. Two players are two
Chromiums that share nothing."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest

from pagekit import Watch, chromiums
from serverkit import LiveReferee, Table, duel, live_referee, new_table

ENGAGE = {"kind": "engage", "tank_id": "R1", "target_id": "B1"}


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveReferee]:
    with live_referee(tmp_path_factory.mktemp("referee") / "referee.sqlite3") as referee:
        yield referee


@pytest.fixture(scope="module")
def players(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[Any]]:
    """Two browsers on two computers, as it were: nothing kept in one is in the other."""
    folder = tmp_path_factory.mktemp("chromium")
    with chromiums(folder / "one", folder / "two") as contexts:
        yield contexts


def kept(page: Any, table_id: str) -> Any:
    text = page.evaluate("(id) => localStorage.getItem(`tankref.seat.${id}`)", table_id)
    return None if text is None else json.loads(text)


def open_link(page: Any, link: str) -> None:
    """The seat link typed into the address bar of a page already open on the referee."""
    page.goto(link)
    page.wait_for_function("() => !location.hash.includes('/seat/')")


def test_a_seat_link_keeps_the_seat_leaves_the_address_and_gives_the_seed(
    live: LiveReferee, players: list[Any]
) -> None:
    table = new_table(live.url, dice={"source": "server", "seed": "page-seat-1"})
    link, token = table.created["seat_links"]["Blue"], table.created["seat_tokens"]["Blue"]
    page = players[0].new_page()
    watch = Watch(page)
    page.goto(f"{live.url}/#/")
    page.wait_for_selector("#tables")
    open_link(page, link)
    page.wait_for_selector('#seat-who[data-player="Blue"]')
    assert page.locator("#seat-who").inner_text().startswith("Your seat: Blue")
    assert page.url == f"{live.url}/#/tables/{table.id}"
    assert kept(page, table.id) == {"player": "Blue", "token": token}
    # The token went to the referee only as a header, in no address; none is in the history.
    assert all(token not in url for _, url in watch.requests)
    page.go_back()
    assert page.url == f"{live.url}/#/"
    page.go_forward()
    assert page.url == f"{live.url}/#/tables/{table.id}"
    page.wait_for_selector('#seat-who[data-player="Blue"]')  # kept: shown again

    page.fill("#seat-seed-text", "blue's lucky socks")
    page.click("#seat-seed")
    page.wait_for_selector("#seat-seed-given")
    assert page.locator("#seat-seed").count() == 0  # given once: the button is gone
    assert "Blue added a dice seed" in page.locator("#seat-outcome").inner_text()
    seed = table.log()[-1]
    assert seed["kind"] == "player_seed"
    assert seed["action"] == {
        "control": "player_seed",
        "player": "Blue",
        "seed": "blue's lucky socks",
    }
    assert {m for m, u in watch.requests if "/seeds" in u} == {"POST"}
    assert watch.errors == []
    page.close()


def test_a_refusal_is_shown_with_its_code(live: LiveReferee, players: list[Any]) -> None:
    """The page still offers the seed when the server has rolled meanwhile (its stream
    was cut, so it has not heard): the referee refuses, the page says why and drops the
    button. Nothing was logged for it."""
    table = new_table(live.url, dice={"source": "server", "seed": "page-seat-2"})
    page = players[0].new_page()
    page.route_web_socket(re.compile(r".*/stream.*"), lambda ws: None)  # heard nothing
    page.goto(f"{live.url}/#/")
    open_link(page, table.created["seat_links"]["Red"])
    page.wait_for_selector("#seat-seed")
    table.ok(table.put_tank("R1", card="tiger-i", player="Red", x=0, z=-20, facing=0))
    table.ok(table.put_tank("B1", card="m4a1-sherman", player="Blue", x=0, z=20, facing=180))
    table.ok(table.act({"kind": "crew_roll"}))  # the server's dice are drawn
    before = table.snapshot()
    page.click("#seat-seed")
    outcome = page.wait_for_selector('#seat-outcome[data-code="DICE_ALREADY_ROLLED"]')
    assert "before the first roll" in outcome.inner_text()
    page.wait_for_function("() => !document.getElementById('seat-seed')")
    assert table.snapshot() == before
    page.close()


def test_two_seats_void_a_shot_from_two_browsers(live: LiveReferee, players: list[Any]) -> None:
    table = duel(live.url, dice_source="server")
    shot = table.ok(table.act(ENGAGE))["seq"]
    blue, red = players[0].new_page(), players[1].new_page()
    for page, player in ((blue, "Blue"), (red, "Red")):
        page.goto(f"{live.url}/#/")
        open_link(page, table.created["seat_links"][player])
        page.wait_for_selector(f'#seat-who[data-player="{player}"]')
    assert kept(red, table.id)["player"] == "Red"  # each browser holds its own seat only

    ask = blue.wait_for_selector(f'#seat-void[data-seq="{shot}"]')
    assert ask.inner_text() == f"Ask to void #{shot} (engage R1 → B1)"
    ask.click()
    blue.wait_for_selector("#seat-void-asked")
    assert "it needs Red too" in blue.locator("#seat-void-asked").inner_text()
    join = red.wait_for_selector(f'#seat-void[data-seq="{shot}"]:has-text("Join Blue")')
    assert join.inner_text() == f"Join Blue's void of #{shot} (engage R1 → B1)"
    join.click()
    red.wait_for_selector('#seat-outcome:has-text("Voided by Blue and Red")')
    log = table.log()
    assert [e["kind"] for e in log[-2:]] == ["void_request", "void"]
    assert [e["action"]["credential"] for e in log[-2:]] == ["seat", "seat"]
    assert [e["action"]["player"] for e in log[-2:]] == ["Blue", "Red"]
    # Both pages hear of it: the start of the game rolled no dice, nothing to void now.
    for page in (blue, red):
        page.wait_for_function(
            "() => !document.querySelector('#seat-void, #seat-void-asked')"
            " && document.getElementById('seat-who')"
        )
        page.close()


@pytest.mark.parametrize("whose", ["bogus", "another seat", "the table's token"])
def test_a_bad_seat_link_keeps_nothing(live: LiveReferee, players: list[Any], whose: str) -> None:
    table = new_table(live.url)
    token = {
        "bogus": "not-a-seat-token",
        "another seat": table.created["seat_tokens"]["Red"],
        "the table's token": table.token,
    }[whose]
    page = players[1].new_page()
    page.goto(f"{live.url}/#/")
    open_link(page, f"{live.url}/#/tables/{table.id}/seat/Blue/{token}")
    problem = page.wait_for_selector("#seat-problem")
    assert "This seat link is not valid" in problem.inner_text()
    assert "Nothing was kept" in problem.inner_text()
    if whose == "bogus":
        assert "TOKEN_WRONG" in problem.inner_text()
    assert kept(page, table.id) is None
    assert token not in page.url
    assert page.locator("#seat-who").count() == 0
    page.close()


def _seated(live: LiveReferee, context: Any, player: str = "Blue") -> tuple[Table, Any]:
    table = new_table(live.url)
    page = context.new_page()
    page.goto(f"{live.url}/#/")
    open_link(page, table.created["seat_links"][player])
    page.wait_for_selector(f'#seat-who[data-player="{player}"]')
    return table, page


def test_the_stream_view_never_shows_a_seat(live: LiveReferee, players: list[Any]) -> None:
    """Not the seat this browser keeps for the table, nor one from a link opened in it
    (whose token still leaves the address, and is not kept)."""
    table, page = _seated(live, players[0])
    page.close()
    other = new_table(live.url)
    for shown, link in (
        (table, f"{live.url}/?view=stream#/tables/{table.id}"),
        (other, other.created["seat_links"]["Red"].replace("/#/", "/?view=stream#/")),
    ):
        stream = players[0].new_page()
        watch = Watch(stream)
        stream.goto(link)
        stream.wait_for_selector('#board:not([data-seq="-1"])')
        assert stream.url == f"{live.url}/?view=stream#/tables/{shown.id}"
        assert stream.locator("#seat").is_hidden()
        assert stream.locator("#seat-body *").count() == 0
        assert not [u for _, u in watch.requests if u.endswith("/seat")]
        stream.close()
    probe = players[0].new_page()
    probe.goto(f"{live.url}/#/")
    assert kept(probe, other.id) is None
    probe.close()


def test_spectators_see_no_seat_and_only_read(live: LiveReferee, players: list[Any]) -> None:
    _, page = _seated(live, players[0])  # a seat at another table, kept in this browser
    page.close()
    table = duel(live.url, dice_source="server")
    page = players[0].new_page()
    watch = Watch(page)
    page.goto(f"{live.url}/#/tables/{table.id}")
    page.wait_for_selector(f'#board[data-seq="{table.read()["seq"]}"]')
    assert page.locator("#seat").is_hidden()
    watch.check_stayed_home(live.url)  # GETs only, and no seat check
    assert not [u for _, u in watch.requests if u.endswith("/seat")]
    page.close()


def test_a_seat_is_forgotten_on_request_or_when_its_table_is_gone(
    live: LiveReferee, players: list[Any]
) -> None:
    table, page = _seated(live, players[1])
    page.click("#seat-forget")
    page.wait_for_selector("#seat-forgotten")
    assert kept(page, table.id) is None
    page.reload()
    page.wait_for_selector("#banner strong")
    assert page.locator("#seat").is_hidden()
    page.close()

    table, page = _seated(live, players[1])
    table.ok(table.http.delete(table.path()))
    page.reload()
    problem = page.wait_for_selector("#seat-problem")
    assert "no longer valid" in problem.inner_text() and "UNKNOWN_TABLE" in problem.inner_text()
    assert kept(page, table.id) is None
    page.close()
