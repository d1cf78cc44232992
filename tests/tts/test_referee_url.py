"""The board's referee URL (issue 19): an https URL with a host name, an optional port and an
optional path prefix works, typed in chat or kept in the save; a malformed one is refused
with a message that shows the form, and the board keeps the URL it had. Real Lua 5.2 (lupa)
with the project's fake TTS."""

from __future__ import annotations

import json
from typing import Any

import pytest
from faketts import FakeTTS
from lupa import lua52
from ttsplay import Game, Table

from serverkit import LiveReferee, free_port
from tankref.tts.bundle import module_source
from tankref.tts.save import build_save


def _util() -> Any:
    lua = lua52.LuaRuntime()
    return lua.execute(module_source("util").replace("use(", "nil and use("))


@pytest.mark.parametrize(
    ("typed", "kept"),
    [
        ("https://referee.example.org", "https://referee.example.org"),
        ("HTTPS://Referee.Example.org:8443/", "https://referee.example.org:8443"),
        ("https://league.example.org/tankref/", "https://league.example.org/tankref"),
        ("https://league.example.org:443/a/b-c_d.e", "https://league.example.org:443/a/b-c_d.e"),
        ("http://127.0.0.1:8765", "http://127.0.0.1:8765"),
        ("127.0.0.1:8765", "http://127.0.0.1:8765"),
        ("https://[::1]:8443/ref", "https://[::1]:8443/ref"),
        ("  http://localhost:9/  ", "http://localhost:9"),
    ],
)
def test_a_referee_url_is_kept_in_one_form(typed: str, kept: str) -> None:
    assert _util().referee_url(typed) == kept


@pytest.mark.parametrize(
    ("typed", "why"),
    [
        ("ftp://referee.example.org", "http or https, not ftp"),
        ("https://", "no host name"),
        ("https://:8443", "no host name"),
        ("https://referee..example.org", "no host name"),
        ("https://-referee.example.org", "no host name"),
        ("https://referee.example.org:0", "1 to 65535"),
        ("https://referee.example.org:99999", "1 to 65535"),
        ("https://referee.example.org:84x3", "1 to 65535"),
        ("https://me:secret@referee.example.org", "no user or password"),
        ("https://referee.example.org/league?x=1", "path prefix"),
        ("https://referee.example.org/le ague", "path prefix"),
        ("https://referee.example.org/#top", "path prefix"),
    ],
)
def test_a_malformed_referee_url_says_why(typed: str, why: str) -> None:
    url, reason = _util().referee_url(typed)
    assert url is None and why in reason


def _game(tts_table: Table, url: str) -> Game:
    tts = tts_table(url, keep=("Red 1", "Blue 1"), seed="tts-url-0001")
    return Game(tts, url, tts.tagged("tankref_board")[0].guid)


def test_an_https_url_with_a_port_and_prefix_is_where_the_board_sends(
    referee: LiveReferee, tts_table: Table
) -> None:
    """Nothing answers there (no TLS server in the test): the request goes to the prefixed
    https URL and the board says no referee answers at it."""
    game = _game(tts_table, referee.url)
    tts = game.tts
    url = f"https://localhost:{free_port()}/league"
    tts.say(f"!tankref url {url}/", color="Red")
    assert game.saved["url"] == url
    assert tts.said(f"referee URL is now {url}")
    game.press("New table")
    assert any(u.startswith(f"{url}/") for _m, u, _ in tts.requests)
    assert tts.said(f"no referee answers at {url}")
    assert "table_id" not in game.saved


def test_a_malformed_url_in_chat_is_refused_and_the_url_kept(
    referee: LiveReferee, tts_table: Table
) -> None:
    game = _game(tts_table, referee.url)
    tts = game.tts
    tts.say("!tankref url https://referee.example.org:99999", color="Red")
    assert game.saved["url"] == referee.url
    assert tts.said("https://referee.example.org:99999 is not a referee URL")
    assert tts.said("http(s)://HOST[:PORT][/PATH]")
    assert tts.said(f"The referee URL stays {referee.url}")


def test_a_save_with_a_malformed_url_says_so_on_load() -> None:
    save = build_save("http://127.0.0.1:8765")
    state = json.loads(save["LuaScriptState"])
    state["url"] = "htp//referee example"
    save["LuaScriptState"] = json.dumps(state)
    tts = FakeTTS.from_save(save)
    try:
        assert tts.said("the save's referee URL htp//referee example is not one")
        assert json.loads(tts.save()["LuaScriptState"])["url"] == "http://127.0.0.1:8765"
    finally:
        tts.close()


def test_the_save_keeps_an_https_url_as_given() -> None:
    """`tankref tts-save --url https://...` (localhost: no name looked up in the test)."""
    url = f"https://localhost:{free_port()}/tankref"
    save = build_save(url)
    assert json.loads(save["LuaScriptState"])["url"] == url
    tts = FakeTTS.from_save(save)
    try:
        tts.settle()
        assert json.loads(tts.save()["LuaScriptState"])["url"] == url
        assert not tts.said("is not one")
    finally:
        tts.close()
