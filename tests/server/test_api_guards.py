"""What every request passes first: JSON only, size limit, same-origin writes, loopback host;
and that nothing (not even a bad request) makes the referee answer 500 or log the token."""

from __future__ import annotations

import logging
import socket
from pathlib import Path

import httpx
import pytest

from serverkit import LiveReferee, duel, live_referee

ACTION = b'{"request_id":"g1","action":{"kind":"wait","tank_id":"R1"}}'


def test_malformed_json_is_400_naming_the_body(referee: LiveReferee) -> None:
    """Broken JSON: 400 BAD_JSON; the table is unchanged."""
    table = duel(referee.url)
    before = table.snapshot()
    for raw in (b'{"request_id": "x", "action": ', b"[1, 2", b"\xff\xfe", b"nul"):
        reply = table.http.post(
            table.path("/actions"), content=raw, headers={"Content-Type": "application/json"}
        )
        assert reply.status_code in (400, 422), reply.text
        assert reply.json()["code"] in ("BAD_JSON", "INVALID")
        assert reply.json()["field"] == "body" or reply.json()["field"]
    reply = table.http.post(
        table.path("/actions"), content=b'{"a": ', headers={"Content-Type": "application/json"}
    )
    assert reply.status_code == 400
    assert reply.json()["code"] == "BAD_JSON"
    assert table.snapshot() == before


def test_wrong_body_shape_is_422(referee: LiveReferee) -> None:
    """A JSON list or string where an object belongs: 422, never 500."""
    table = duel(referee.url)
    for body in ([1, 2], "wait", 7, None):
        reply = table.http.post(table.path("/actions"), json=body)
        assert reply.status_code == 422, (body, reply.text)
        assert reply.json()["code"] == "INVALID"


def test_only_json_is_accepted_for_writes(referee: LiveReferee) -> None:
    """A form or text/plain post (what another site's page can send unasked): 415."""
    table = duel(referee.url)
    before = table.snapshot()
    for kind in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data"):
        reply = table.http.post(
            table.path("/actions"), content=ACTION, headers={"Content-Type": kind}
        )
        assert reply.status_code == 415, kind
        assert reply.json()["code"] == "JSON_ONLY"
    reply = table.http.post(table.path("/actions"), content=ACTION)  # no content type at all
    assert reply.status_code == 415
    assert table.snapshot() == before


def test_bodies_over_the_limit_are_413(referee: LiveReferee) -> None:
    """Over 64 KiB: 413, whether announced by Content-Length or streamed in chunks."""
    table = duel(referee.url)
    before = table.snapshot()
    big = b'{"request_id":"big","action":{"kind":"wait","tank_id":"' + b"R" * 70_000 + b'"}}'
    reply = table.http.post(
        table.path("/actions"), content=big, headers={"Content-Type": "application/json"}
    )
    assert reply.status_code == 413
    assert reply.json()["code"] == "BODY_TOO_LARGE"

    def chunks() -> object:
        for i in range(0, len(big), 8192):
            yield big[i : i + 8192]

    reply = table.http.post(
        table.path("/actions"), content=chunks(), headers={"Content-Type": "application/json"}
    )
    assert reply.status_code == 413
    assert table.snapshot() == before


def test_foreign_origin_writes_are_refused(referee: LiveReferee) -> None:
    """A browser page from another origin cannot write, even with the token (403); the
    referee's own origin can; TTS sends no Origin at all."""
    table = duel(referee.url)
    before = table.snapshot()
    for origin in ("http://evil.example", "null", "http://127.0.0.1:1"):
        reply = table.http.post(
            table.path("/actions"),
            content=ACTION,
            headers={"Content-Type": "application/json", "Origin": origin},
        )
        assert reply.status_code == 403, origin
        assert reply.json()["code"] == "FOREIGN_ORIGIN"
    assert table.snapshot() == before
    own = referee.url
    reply = table.http.post(
        table.path("/actions"),
        content=ACTION,
        headers={"Content-Type": "application/json", "Origin": own},
    )
    assert reply.status_code == 200, reply.text
    # Reads are open to anyone (a spectator page): no Origin check on GET.
    assert (
        table.http.get(table.path(), headers={"Origin": "http://evil.example"}).status_code == 200
    )


def test_unknown_host_is_refused(referee: LiveReferee) -> None:
    """DNS rebinding guard: a request whose Host is some other name gets 400 UNKNOWN_HOST."""
    reply = httpx.get(f"{referee.url}/health", headers={"Host": "attacker.example:8765"})
    assert reply.status_code == 400
    assert reply.json()["code"] == "UNKNOWN_HOST"
    assert httpx.get(f"{referee.url}/health", headers={"Host": "localhost:8765"}).status_code == 200


def test_raw_garbage_on_the_socket_never_kills_the_server(referee: LiveReferee) -> None:
    """A client that sends nonsense bytes or hangs up early does not disturb the referee."""
    host, port = referee.url.removeprefix("http://").split(":")
    for payload in (b"GARBAGE\r\n\r\n", b"POST /tables HTTP/1.1\r\nContent-Length: 5\r\n\r\n{"):
        with socket.create_connection((host, int(port)), timeout=5) as s:
            s.sendall(payload)
    assert httpx.get(f"{referee.url}/health").status_code == 200


def test_unknown_routes_and_methods_are_json(referee: LiveReferee) -> None:
    """404 and 405 come back in the same JSON shape as every other refusal."""
    reply = httpx.get(f"{referee.url}/nowhere")
    assert reply.status_code == 404 and reply.json()["code"] == "NOT_FOUND"
    reply = httpx.patch(f"{referee.url}/tables", json={})
    assert reply.status_code == 405 and reply.json()["code"] == "METHOD_NOT_ALLOWED"


def test_the_token_never_reaches_the_logs(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture[str]
) -> None:
    """With access logs on at debug level, whatever happens (writes, refusals, a wrong token,
    a read), no log line holds a token."""
    caplog.set_level(logging.DEBUG)
    with live_referee(tmp_path / "debug.sqlite3", log_level="debug") as live:
        table = duel(live.url)
        table.ok(table.act({"kind": "wait", "tank_id": "R1"}))
        table.act({"kind": "fly"})
        table.read()
        wrong = httpx.post(
            f"{live.url}{table.path('/actions')}",
            json={"request_id": "z", "action": {"kind": "end_phase"}},
            headers={"Authorization": "Bearer not-the-token"},
        )
        assert wrong.status_code == 403
    out, err = capfd.readouterr()
    text = out + err + caplog.text + "\n".join(str(r.args) for r in caplog.records)
    assert "/actions" in text  # the access log was on: the check below means something
    assert table.token not in text
    assert "not-the-token" not in text
