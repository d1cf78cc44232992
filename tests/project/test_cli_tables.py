"""Demo tables on a referee that keeps them: marked as demo tables when made, listed by
`tankref tables`, ended and deleted with `tankref tables end|delete` (the demo keeps their
tokens where the CLI finds them; any other table takes --token). Deletion is
`DELETE /tables/{id}` with the table's token: every row of the table goes in one
transaction, the log stays append-only for every other table, and a refusal changes
nothing."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import httpx
import pytest

from serverkit import duel, live_referee, new_table
from tankref.cli import main
from tankref.server.settings import demo_tokens_path
from tankref.server.store import EventStore, StoreFailure

TABLE_ROWS = ("tables", "events", "quiet_requests", "seat_tokens", "demo_tables")


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "data"
    monkeypatch.setenv("TANKREF_DATA_DIR", str(folder))
    return folder


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def rows_of(db: Path, table_id: str) -> dict[str, int]:
    raw = sqlite3.connect(db)
    try:
        return {
            name: raw.execute(
                f"SELECT count(*) FROM {name} WHERE {'id' if name == 'tables' else 'table_id'} = ?",
                (table_id,),
            ).fetchone()[0]
            for name in TABLE_ROWS
        }
    finally:
        raw.close()


def listing(capsys: pytest.CaptureFixture[str], url: str) -> dict[str, list[str]]:
    code, out, err = run(capsys, "tables", "--url", url)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].split() == ["TABLE", "RULESET", "STATUS", "DEMO", "EVENTS"]
    return {ln.split()[0]: ln.split()[1:] for ln in lines[1:]}


def test_a_demo_table_is_marked_listed_ended_and_deleted(
    tmp_path: Path, data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`tankref demo --url 127.0.0.1:PORT` (no scheme) makes a demo table and says how to
    end and delete it, never printing its token; `tankref tables` lists it as a demo table
    beside a player's table; `end` ends it (on the referee that made it, found with its
    token) and `delete` removes it and all its rows."""
    db = tmp_path / "ref.sqlite3"
    with live_referee(db) as live:
        players = duel(live.url)
        address = live.url.removeprefix("http://")
        code, out, err = run(capsys, "demo", "--url", address, "--turns", "1")
        assert code == 0, err
        tokens = json.loads(demo_tokens_path().read_text())
        assert demo_tokens_path().parent == data
        (demo_id,) = tokens
        assert tokens[demo_id]["url"] == live.url
        assert tokens[demo_id]["token"] not in out + err  # kept, not printed
        assert f"Table {demo_id} is a demo table" in out
        assert f"tankref tables end {demo_id}" in out and f"tankref tables delete {demo_id}" in out

        listed = listing(capsys, address)
        assert listed[demo_id][:3] == ["ttt", "playing", "demo"]
        assert listed[players.id][:3] == ["ttt", "playing", "-"]
        events = int(listed[demo_id][3])
        assert events > 5

        # No --url: the referee the demo made it on (kept beside its token).
        code, out, err = run(capsys, "tables", "end", demo_id)
        assert code == 0, err
        assert out.startswith(f"Table {demo_id} is over")
        assert listing(capsys, address)[demo_id][1] == "over"

        assert rows_of(db, demo_id)["demo_tables"] == 1
        code, out, err = run(capsys, "tables", "--url", address, "delete", demo_id)
        assert code == 0, err
        assert out == f"Deleted table {demo_id} and its log ({events + 1} events).\n"
        assert demo_id not in listing(capsys, address)  # the page's list drops it too
        assert httpx.get(f"{live.url}/tables/{demo_id}").status_code == 404
        assert json.loads(demo_tokens_path().read_text()) == {}
        # A player's table is untouched and plays on.
        players.ok(players.act({"kind": "end_phase"}))
    assert rows_of(db, demo_id) == dict.fromkeys(TABLE_ROWS, 0)
    assert rows_of(db, players.id)["events"] > 0
    with live_referee(db) as live:  # after a restart: gone, and the other table replays
        assert [t["table_id"] for t in httpx.get(f"{live.url}/tables").json()] == [players.id]


def test_another_tables_token_is_given_with_token(
    tmp_path: Path, data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A table the demo did not make: without --token the CLI says what it needs; a wrong
    token is the referee's 403; the right one deletes it."""
    with live_referee(tmp_path / "ref.sqlite3") as live:
        table = new_table(live.url)
        code, out, err = run(capsys, "tables", "delete", table.id, "--url", live.url)
        assert code == 2 and out == ""
        assert f"no token for table {table.id}: give --token=TOKEN" in err
        code, out, err = run(
            capsys, "tables", "delete", table.id, "--url", live.url, "--token", "wrong"
        )
        assert code == 1 and "403 that is not this table's token" in err
        assert table.read()["table_id"] == table.id
        code, out, err = run(
            capsys, "tables", "delete", table.id, "--url", live.url, f"--token={table.token}"
        )
        assert code == 0, err
        assert f"Deleted table {table.id}" in out
        code, out, err = run(capsys, "tables", "--url", live.url)
        assert out == f"No tables on the referee at {live.url}.\n"


def test_delete_needs_the_tables_own_token_and_a_refusal_changes_nothing(
    tmp_path: Path,
) -> None:
    """DELETE /tables/{id}: no token 401, another's 403, a seat token 403 (it asks only for
    its player's void and seed); the table and its log are as before each refusal. With its
    token: 200, and a second DELETE is a 404."""
    db = tmp_path / "ref.sqlite3"
    with live_referee(db) as live:
        table = duel(live.url)
        other = new_table(live.url)
        before = table.snapshot()
        path = f"{live.url}/tables/{table.id}"
        assert httpx.delete(path).status_code == 401
        wrong = httpx.delete(path, headers={"Authorization": f"Bearer {other.token}"})
        assert wrong.status_code == 403 and wrong.json()["code"] == "TOKEN_WRONG"
        seat = httpx.delete(path, headers=table.seat("Red"))
        assert seat.status_code == 403 and seat.json()["code"] == "SEAT_TOKEN_NOT_ENOUGH"
        assert table.snapshot() == before
        gone = table.http.delete(table.path())
        assert gone.status_code == 200
        assert gone.json() == {"table_id": table.id, "deleted": True, "events": before[0]["seq"]}
        again = table.http.delete(table.path())
        assert again.status_code == 404 and again.json()["code"] == "UNKNOWN_TABLE"
        late = table.act({"kind": "end_phase"})
        assert late.status_code == 404
        assert other.read()["table_id"] == other.id


def test_the_log_stays_append_only_after_a_deletion(tmp_path: Path) -> None:
    """The guard lifted for the deletion is back at once: deleting or editing any other
    table's event is still refused by the database itself."""
    db = tmp_path / "ref.sqlite3"
    with live_referee(db) as live:
        gone = duel(live.url)
        kept = duel(live.url)
        assert gone.http.delete(gone.path()).status_code == 200
    raw = sqlite3.connect(db)
    try:
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            raw.execute("DELETE FROM events WHERE table_id = ?", (kept.id,))
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            raw.execute("UPDATE events SET entry = '{}' WHERE table_id = ?", (kept.id,))
    finally:
        raw.close()


def test_a_deletion_that_fails_midway_leaves_every_row(tmp_path: Path) -> None:
    """One transaction: when its last step fails (here a row of another program's table
    still refers to the table, and foreign keys are on), every row deleted before it comes
    back, and so does the append-only guard."""
    db = tmp_path / "ref.sqlite3"
    with live_referee(db) as live:
        table = duel(live.url)
    raw = sqlite3.connect(db)
    raw.execute("CREATE TABLE notes (table_id TEXT NOT NULL REFERENCES tables(id))")
    raw.execute("INSERT INTO notes VALUES (?)", (table.id,))
    raw.commit()
    raw.close()
    before = rows_of(db, table.id)
    store = EventStore(db)
    try:
        with pytest.raises(StoreFailure) as refused:  # the store's own error, for any store
            store.delete_table(table.id)
        assert isinstance(refused.value.__cause__, sqlite3.IntegrityError)
    finally:
        store.close()
    assert rows_of(db, table.id) == before
    raw = sqlite3.connect(db)
    try:
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            raw.execute("DELETE FROM events WHERE table_id = ?", (table.id,))
    finally:
        raw.close()
