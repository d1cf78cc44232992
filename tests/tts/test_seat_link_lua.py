"""A seated player gets their own seat link inside TTS (issue 19): ``!tankref seatlink``
typed at a side's seat colour is answered with ``printToColor`` to that colour alone, with
the link the referee made at New table (kept with the game), whose token is that side's
seat. Through the bundled Lua in lupa against the real referee: the other players never see
it; a colour at no side, a board with no table and a table without seat tokens get one line.
"""

from __future__ import annotations

import re

import httpx
from ttsplay import Game, Table

from serverkit import LiveReferee, new_table

LINK = re.compile(r"https?://\S+/#/tables/\S+/seat/\S+")


def _seat_of(url: str, link: str) -> str:
    """Whose seat the link's token is, as the referee says (GET /tables/{id}/seat)."""
    route = link.split("#", 1)[1].split("/")
    reply = httpx.get(
        f"{url}/tables/{route[2]}/seat",
        headers={"Authorization": f"Bearer {route[5]}"},
        timeout=10,
    )
    assert reply.status_code == 200, reply.text
    player: str = reply.json()["player"]
    return player


def _saved_state(table_id: str, token: str, **more: object) -> dict[str, object]:
    """A board's saved state for a TTT table in setup, Red and Blue at their own colours (an
    older save: ``more`` adds what it had, e.g. seat tokens without their links)."""
    return {
        "table_id": table_id,
        "token": token,
        "players": ["Red", "Blue"],
        "seats": {"Red": "Red", "Blue": "Blue"},
        "table_ruleset": "ttt",
        "status": "setup",
        **more,
    }


def test_each_side_gets_its_own_link_privately(referee: LiveReferee, tts_table: Table) -> None:
    tts = tts_table(referee.url, keep=("Red 1", "Blue 1"), seed="tts-seat-link-1")
    game = Game(tts, referee.url, tts.tagged("tankref_board")[0].guid)
    sent = len(tts.requests)
    assert tts.say("!tankref seatlink", color="Blue") is False  # hidden from the chat
    assert "there is no table yet" in tts.seen_by("Blue")
    assert len(tts.requests) == sent
    game.begin()
    links = game.saved["seat_links"]  # kept with the game, as the referee made them
    assert sorted(links) == ["Blue", "Red"]

    for colour in ("Blue", "Red"):
        before = {c: tts.seen_by(c) for c in ("Red", "Blue", "Grey")}
        tts.say("!tankref seatlink", color=colour)
        new = {c: tts.seen_by(c)[len(before[c]) :] for c in before}
        assert f"your seat link for {colour}" in new[colour]
        assert links[colour] in new[colour]
        assert _seat_of(referee.url, links[colour]) == colour
        for other in set(new) - {colour}:
            assert new[other] == "", other  # nothing at all reached the others
    assert not LINK.search(tts.seen_by("Grey"))

    tts.player("Grey").seated = True  # a spectator sits down: at no side
    tts.say("!tankref seatlink", color="Grey")
    answer = tts.seen_by("Grey").splitlines()[-1]
    assert "sits at no side of this table" in answer and not LINK.search(answer)
    assert "sits at no side" not in tts.seen_by("Red")


def test_a_table_from_before_seat_links_gets_them_made_the_referees_way(
    referee: LiveReferee, tts_table: Table
) -> None:
    """A save whose table came with seat tokens but no links: the link is made from the
    board's URL, exactly as the referee makes it."""
    made = new_table(referee.url)
    state = _saved_state(made.id, made.token, seat_tokens=made.created["seat_tokens"])
    tts = tts_table(referee.url, keep=("Red 1", "Blue 1"), state=state)
    tts.say("!tankref seatlink", color="Red")
    assert made.created["seat_links"]["Red"] in tts.seen_by("Red")
    assert made.created["seat_links"]["Red"] not in tts.seen_by("Blue")


def test_a_table_without_seat_tokens_says_so(referee: LiveReferee, tts_table: Table) -> None:
    made = new_table(referee.url)
    state = _saved_state(made.id, made.token)
    tts = tts_table(referee.url, keep=("Red 1", "Blue 1"), state=state)
    tts.say("!tankref seatlink", color="Blue")
    assert "made before seat tokens: Blue has no seat link" in tts.seen_by("Blue")
    assert not LINK.search(tts.chat_text())
