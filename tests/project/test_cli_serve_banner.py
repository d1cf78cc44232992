"""`tankref serve` as a player meets it: a banner whose URL opens (also when bound to every
interface), /health that keeps the database path from callers on other computers, and a
quiet log unless --log-level info asks for every request."""

from __future__ import annotations

import time
from pathlib import Path

import httpx
import pytest
from starlette.requests import HTTPConnection

from serverkit import serve_command
from tankref.server.routes.health import from_this_computer
from tankref.server.serve import banner, lan_address


def _connection(client: tuple[str, int] | None) -> HTTPConnection:
    scope = {"type": "http", "method": "GET", "path": "/health", "headers": [], "client": client}
    return HTTPConnection(scope)


@pytest.mark.parametrize(
    ("client", "here"),
    [
        (("127.0.0.1", 50000), True),
        (("127.8.9.10", 50000), True),
        (("::1", 50000), True),
        (("::ffff:127.0.0.1", 50000), True),
        (("192.168.1.20", 50000), False),
        (("2001:db8::7", 50000), False),
        (("testclient", 50000), False),
        (None, False),
    ],
)
def test_only_a_loopback_caller_is_this_computer(
    client: tuple[str, int] | None, here: bool
) -> None:
    assert from_this_computer(_connection(client)) is here


def test_the_banner_prints_urls_a_browser_opens() -> None:
    """Bound to every interface, the banner gives loopback (and the LAN address if found)
    instead of 0.0.0.0 or ::, and says it listens on all interfaces."""
    assert banner("127.0.0.1", 8765)[0].startswith("tankref referee on http://127.0.0.1:8765 ")
    for host, here in (("0.0.0.0", "http://127.0.0.1:8765"), ("::", "http://[::1]:8765")):
        lines = banner(host, 8765)
        assert lines[0].startswith(f"tankref referee on {here} ")
        assert "0.0.0.0:8765 " not in lines[0] and "[::]:8765 " not in lines[0]
        assert lines[1].startswith("listening on all interfaces")
        lan = lan_address(ipv6=":" in host)
        if lan is not None:
            shown = f"[{lan}]" if ":" in lan else lan
            assert lines[2] == f"from other computers on your network: http://{shown}:8765"
    assert banner("192.168.1.4", 9000)[0].startswith("tankref referee on http://192.168.1.4:9000")


def test_bound_to_every_interface_the_printed_urls_open_and_health_hides_the_path(
    tmp_path: Path,
) -> None:
    """`--host 0.0.0.0`: the banner's loopback URL opens the page; /health names the database
    to a caller on this computer and not to one calling through the LAN address."""
    db = tmp_path / "lan.sqlite3"
    with serve_command(db, host="0.0.0.0") as ref:
        port = ref.url.rsplit(":", 1)[1]
        printed = ref.stdout
        assert f"tankref referee on http://127.0.0.1:{port} " in printed
        assert "listening on all interfaces (0.0.0.0:" in printed
        assert httpx.get(f"http://127.0.0.1:{port}/", timeout=10).status_code == 200
        here = httpx.get(f"http://127.0.0.1:{port}/health", timeout=10).json()
        assert here["database"] == str(db)
        lan = lan_address()
        if lan is None:
            pytest.skip("this computer has no LAN address to call from")
        assert f"from other computers on your network: http://{lan}:{port}" in printed
        remote = httpx.get(f"http://{lan}:{port}/health", timeout=10)
        assert remote.status_code == 200
        assert remote.json()["database"] is None
        assert str(db) not in remote.text and str(tmp_path) not in remote.text


def _requests_logged(db: Path, *level: str) -> str:
    with serve_command(db, *level) as ref:
        for _ in range(3):
            httpx.get(f"{ref.url}/health", timeout=10)
        httpx.get(f"{ref.url}/tables", timeout=10)
        time.sleep(0.3)  # the access log is written after the reply
        ref.proc.terminate()
        ref.proc.wait(30)
        return ref.stdout + ref.stderr


def test_the_default_log_is_quiet_and_info_logs_every_request(tmp_path: Path) -> None:
    """By default: the banner and warnings only (no line per request, no uvicorn chatter);
    --log-level info: every request."""
    quiet = _requests_logged(tmp_path / "q.sqlite3", "--log-level", "warning")
    assert "GET /health" not in quiet and "GET /tables" not in quiet
    assert "Uvicorn running" not in quiet and "Started server process" not in quiet
    assert "tankref referee on http://127.0.0.1:" in quiet
    chatty = _requests_logged(tmp_path / "c.sqlite3", "--log-level", "info")
    assert chatty.count("GET /health") >= 3 and "GET /tables" in chatty


def test_the_default_is_warning() -> None:
    from tankref.cli import build_parser

    args = build_parser().parse_args(["serve"])
    assert args.log_level == "warning"
