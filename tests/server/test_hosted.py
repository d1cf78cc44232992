"""The hosted profile (issue 19, `tankref serve --public` or `--settings FILE`): table
creation limited per client address and hour (the address from X-Forwarded-For only from a
trusted proxy), abandoned tables ended by the referee (seed revealed, kept read-only),
links for a table's creator, `/health` asking the database, structured logs that never hold
a token; and the default `tankref serve` left exactly as it was."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from datetime import datetime, timedelta
from pathlib import Path

import httpx
import pytest

from pgkit import fresh_database, referee_database, unreachable
from serverkit import live_referee, serve_command
from tankref.server.app import create_app
from tankref.server.errors import ApiError
from tankref.server.hosted import (
    EXPIRY_REQUEST_ID,
    CreationLimit,
    Profile,
    SettingsFileError,
    expire_abandoned,
    read_settings_file,
)
from tankref.server.serve import referee_config
from tankref.server.settings import Settings
from tankref.server.store import EventStore, TableRow
from trustkit import long_game, open_referee


def table_row(table_id: str) -> TableRow:
    return TableRow(table_id, "ttt", f"2027-01-15T08:00:00+00:00 {table_id}", "0" * 64,
                    {}, {}, "c" * 64, False, "test")  # fmt: skip


def _tables(url: str) -> list[dict[str, object]]:
    listed: list[dict[str, object]] = httpx.get(f"{url}/tables", timeout=10).json()
    return listed


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_table_creation_is_limited_per_address_and_hour(kind: str, tmp_path: Path) -> None:
    """The third table from one address within the hour: 429 with Retry-After (the first
    leaves the hour in just under an hour) and a code naming the limit; no table made.
    Another address (X-Forwarded-For from the trusted proxy) still may."""
    profile = Profile(tables_per_hour=2, forwarded_allow_ips=("127.0.0.1",))
    with referee_database(kind, tmp_path) as db, live_referee(db, profile=profile) as live:
        for _ in range(2):
            assert httpx.post(f"{live.url}/tables", json={}, timeout=10).status_code == 201
        before = _tables(live.url)
        refused = httpx.post(f"{live.url}/tables", json={}, timeout=10)
        assert refused.status_code == 429
        body = refused.json()
        assert body["code"] == "TABLE_CREATION_LIMIT" and "2 tables an hour" in body["message"]
        assert 3500 <= int(refused.headers["Retry-After"]) <= 3600
        assert body["details"]["retry_after"] == int(refused.headers["Retry-After"])
        assert _tables(live.url) == before
        other = {"X-Forwarded-For": "203.0.113.7"}
        made = httpx.post(f"{live.url}/tables", json={}, headers=other, timeout=10)
        assert made.status_code == 201


def test_x_forwarded_for_is_ignored_unless_the_proxy_is_trusted(tmp_path: Path) -> None:
    profile = Profile(tables_per_hour=1, forwarded_allow_ips=("192.0.2.1",))
    with live_referee(tmp_path / "untrusted.sqlite3", profile=profile) as live:
        assert httpx.post(f"{live.url}/tables", json={}, timeout=10).status_code == 201
        # Not from 192.0.2.1: the header is the client's own word, not the proxy's.
        spoofed = {"X-Forwarded-For": "198.51.100.9"}
        again = httpx.post(f"{live.url}/tables", json={}, headers=spoofed, timeout=10)
        assert again.status_code == 429


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_a_refused_body_does_not_count_against_the_limit(kind: str, tmp_path: Path) -> None:
    """One table an hour: bodies the referee refuses (an unknown ruleset, a bad setup) make
    nothing and are not counted, so the next good one is made; beyond the limit the answer
    is 429 whatever the body (the limit is asked first)."""
    profile = Profile(tables_per_hour=1)
    with referee_database(kind, tmp_path) as db, live_referee(db, profile=profile) as live:
        for bad in ({"ruleset": "nope"}, {"setup": {"players": "Red"}}):
            refused = httpx.post(f"{live.url}/tables", json=bad, timeout=10)
            assert refused.status_code == 422, refused.text
        assert httpx.post(f"{live.url}/tables", json={}, timeout=10).status_code == 201
        again = httpx.post(f"{live.url}/tables", json={"ruleset": "nope"}, timeout=10)
        assert again.status_code == 429 and again.json()["code"] == "TABLE_CREATION_LIMIT"
        assert len(_tables(live.url)) == 1


def test_retry_after_is_when_the_oldest_creation_leaves_the_hour(tmp_path: Path) -> None:
    """The referee's clock moved on by hand: Retry-After counts down to the moment the
    first creation leaves the hour, and a creation sent then is made."""
    now = [1_800_000_000.0]
    limit = CreationLimit(1, clock=lambda: now[0])
    store = EventStore(tmp_path / "clock.sqlite3")
    try:
        store.add_table(table_row("t1"), quota=limit.admit(store, "a"))
        now[0] += 1800.5
        with pytest.raises(ApiError) as refused:
            limit.admit(store, "a")
        assert refused.value.status == 429 and refused.value.headers == {"Retry-After": "1800"}
        now[0] += 1799.5  # an hour after the first: it has left the window
        store.add_table(table_row("t2"), quota=limit.admit(store, "a"))
        assert store.table_ids() == ["t1", "t2"]
    finally:
        store.close()


def test_an_abandoned_table_is_ended_by_the_referee_seed_revealed_and_kept(
    tmp_path: Path,
) -> None:
    """A table without a write for longer than the expiry time: an end_game control event
    logged by the referee (its own request id), the seed revealed, no further action, the
    table still there. A table written to recently, and one already over, are left alone."""
    ref = open_referee(tmp_path / "expiry.sqlite3")
    try:
        old = long_game(ref, events=10, seed=3)
        fresh = long_game(ref, events=5, seed=4)
        before = ref.host(fresh).seq
        last = ref.store.events(old)[-1].created_at
        # The sweep's clock two days after the last writes: both tables are abandoned then.
        at = datetime.fromisoformat(last) + timedelta(hours=48)

        async def sweep() -> tuple[int, int]:
            first = await expire_abandoned(ref, 24.0, now=at)
            second = await expire_abandoned(ref, 24.0, now=at)
            return first, second

        ended, again = asyncio.run(sweep())
        assert (ended, again) == (2, 0)  # both are older than a day at that clock
        host = ref.host(old)
        entry = json.loads(ref.store.entry_at(old, host.seq))
        assert entry["kind"] == "end_game" and entry["request_id"] == EXPIRY_REQUEST_ID
        assert "abandoned: no writes for 24 hours" in " ".join(entry["chat"])
        assert host.revealed_seed() is not None and host.summary().status == "over"
        assert old in ref.rows and ref.host(fresh).seq == before + 1

        async def act() -> None:
            await ref.control(host, request_id="late", action={"control": "undo"})

        with pytest.raises(ApiError) as refused:
            asyncio.run(act())
        assert refused.value.code == "GAME_OVER"
    finally:
        ref.store.close()


def test_the_running_referee_sweeps_for_abandoned_tables(tmp_path: Path) -> None:
    """The sweep runs in the served referee: an expiry of 1.8 s (a sweep every second)
    ends an untouched table within a few seconds, and its seed is then revealed."""
    profile = Profile(expire_after_hours=0.0005)
    with live_referee(tmp_path / "sweep.sqlite3", profile=profile) as live:
        created = httpx.post(f"{live.url}/tables", json={}, timeout=10).json()
        table = f"{live.url}/tables/{created['table_id']}"
        deadline = time.monotonic() + 15
        while httpx.get(table, timeout=10).json()["table"]["status"] != "over":
            assert time.monotonic() < deadline, "the table was never expired"
            time.sleep(0.2)
        assert httpx.get(f"{table}/reveal", timeout=10).json()["matches"] is True


def test_a_table_written_to_within_the_time_is_not_expired(tmp_path: Path) -> None:
    ref = open_referee(tmp_path / "recent.sqlite3")
    try:
        table_id = long_game(ref, events=5, seed=5)
        seq = ref.host(table_id).seq
        assert asyncio.run(expire_abandoned(ref, 24.0)) == 0
        assert ref.host(table_id).seq == seq and ref.host(table_id).revealed_seed() is None
    finally:
        ref.store.close()


def test_health_asks_the_database_and_says_when_it_is_away(tmp_path: Path) -> None:
    """For the proxy's health check: 200 while the database answers, 503 with Retry-After
    while it cannot be reached (PostgreSQL; skipped without TANKREF_TEST_PG)."""
    with fresh_database() as url, live_referee(url) as live:
        assert httpx.get(f"{live.url}/health", timeout=10).status_code == 200
        with unreachable(url):
            away = httpx.get(f"{live.url}/health", timeout=30)
            assert away.status_code == 503 and away.headers["Retry-After"]
            assert away.json()["code"] == "DATABASE_UNAVAILABLE"
        assert httpx.get(f"{live.url}/health", timeout=10).status_code == 200


def test_links_are_for_the_tables_creator_and_follow_the_proxy(tmp_path: Path) -> None:
    profile = Profile(forwarded_allow_ips=("127.0.0.1",))
    with live_referee(tmp_path / "links.sqlite3", profile=profile) as live:
        created = httpx.post(f"{live.url}/tables", json={}, timeout=10).json()
        path = f"{live.url}/tables/{created['table_id']}/links"
        assert httpx.get(path, timeout=10).status_code == 401
        seat = next(iter(created["seat_tokens"].values()))
        as_seat = httpx.get(path, headers={"Authorization": f"Bearer {seat}"}, timeout=10)
        assert as_seat.status_code == 403
        headers = {
            "Authorization": f"Bearer {created['token']}",
            "X-Forwarded-Proto": "https",
        }
        links = httpx.get(path, headers=headers, timeout=10).json()
        assert links["referee"].startswith("https://127.0.0.1")
        assert links["spectator"] == f"{links['referee']}/#/tables/{created['table_id']}"
        assert links["players"] == sorted(created["seat_tokens"])
        assert created["token"] not in json.dumps(links)


def test_public_url_names_the_links(tmp_path: Path) -> None:
    profile = Profile(public_url="https://league.example.org/ref/")
    with live_referee(tmp_path / "named.sqlite3", profile=profile) as live:
        created = httpx.post(f"{live.url}/tables", json={}, timeout=10).json()
        links = httpx.get(
            f"{live.url}/tables/{created['table_id']}/links",
            headers={"Authorization": f"Bearer {created['token']}"},
            timeout=10,
        ).json()
        assert links["stream"] == (
            f"https://league.example.org/ref/?view=stream#/tables/{created['table_id']}"
        )


def test_the_default_referee_is_as_it_was() -> None:
    """`tankref serve` with no flags: no limit, no expiry, no proxy trusted, plain logs."""
    settings = Settings()
    assert settings.profile == Profile() == Profile().completed()
    assert settings.host == "127.0.0.1"
    app = create_app(settings)
    assert app.state.creation_limit is None
    config = referee_config(app, "127.0.0.1", 8765, "warning")
    assert config.proxy_headers is False


def test_public_fills_in_what_is_not_set() -> None:
    public = Profile(public=True, tables_per_hour=5).completed()
    assert public.tables_per_hour == 5 and public.expire_after_hours == 14 * 24
    assert public.forwarded_allow_ips == ("127.0.0.1", "::1") and public.json_logs


def test_the_settings_file_mirrors_the_flags(tmp_path: Path) -> None:
    file = tmp_path / "referee.toml"
    file.write_text(
        'host = "0.0.0.0"\npublic = true\ntables-per-hour = 3\nallow-host = ["league.org"]\n'
        "expire_after_hours = 48\njson-logs = false\n"
    )
    assert read_settings_file(file) == {
        "host": "0.0.0.0",
        "public": True,
        "tables_per_hour": 3,
        "allow_host": ["league.org"],
        "expire_after_hours": 48,
        "json_logs": False,
    }
    for text, said in [
        ("tables-per-hour = true", "is not a whole number"),
        ("colour = 1", "unknown setting 'colour'"),
        ("port = ", "not TOML"),
        ("expire-after-hours = 0", "above 0"),
    ]:
        file.write_text(text)
        with pytest.raises(SettingsFileError, match=said):
            read_settings_file(file)


def test_the_settings_file_names_the_workers_and_a_typed_flag_wins(tmp_path: Path) -> None:
    """`workers = 2` in the file is `--workers 2`: on an SQLite file it is refused in one line
    (exit 2) before anything listens; `--workers 1` typed on the command line wins over it."""
    file = tmp_path / "referee.toml"
    file.write_text("workers = 2\n")
    assert read_settings_file(file) == {"workers": 2}
    db = tmp_path / "served.sqlite3"
    refused = subprocess.run(
        [sys.executable, "-m", "tankref", "serve", "--settings", str(file), "--db", str(db),
         "--port", "1"],
        capture_output=True,
        text=True,
        timeout=60,
    )  # fmt: skip
    assert refused.returncode == 2, refused.stderr
    assert refused.stderr.strip().splitlines() == [
        "tankref: --workers 2 needs a PostgreSQL database (--db postgresql://...); an SQLite "
        "file is kept by one referee process"
    ]
    with serve_command(db, "--settings", str(file), "--workers", "1") as served:
        assert httpx.get(f"{served.url}/health", timeout=10).status_code == 200


def test_serve_with_a_settings_file_logs_json_lines_and_flags_win(tmp_path: Path) -> None:
    """The real command: the file's limit (1) is overridden by the flag (2); every request is
    one JSON line with its request id, table, status and duration; no token in the log."""
    file = tmp_path / "referee.toml"
    file.write_text("tables-per-hour = 1\njson-logs = true\n")
    db = tmp_path / "served.sqlite3"
    with serve_command(db, "--settings", str(file), "--tables-per-hour", "2") as served:
        made = [httpx.post(f"{served.url}/tables", json={}, timeout=10) for _ in range(3)]
        assert [r.status_code for r in made] == [201, 201, 429]
        created = made[0].json()
        end = httpx.post(
            f"{served.url}/tables/{created['table_id']}/end",
            json={"request_id": "end-1"},
            headers={"Authorization": f"Bearer {created['token']}", "X-Request-ID": "abc-123"},
            timeout=10,
        )
        assert end.status_code == 200 and end.headers["X-Request-ID"] == "abc-123"
        httpx.get(f"{served.url}/health?token={created['token']}", timeout=10)
        served.proc.terminate()
        served.proc.wait(10)
        text = served.stderr
    lines = [json.loads(line) for line in text.splitlines()]  # every line is JSON
    requests = [line for line in lines if line["event"] == "request"]
    assert {"time", "level", "event", "request_id", "status", "duration_ms"} <= set(requests[0])
    ended = [r for r in requests if r["path"].endswith("/end")]
    assert ended == [
        {**ended[0], "table": created["table_id"], "request_id": "abc-123", "status": 200}
    ]
    assert [r["status"] for r in requests if r["path"] == "/tables"] == [201, 201, 429]
    for secret in (created["token"], *created["seat_tokens"].values()):
        assert secret not in text
