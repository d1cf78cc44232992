"""`tankref migrate` (issue 19): every table of an SQLite file copied with its whole log in
seq order (seat token hashes, spent request ids, snapshots and demo marks too) into another
database, each copy verified as `tankref verify` verifies an export; a target that already
holds any of the tables is refused, nothing copied. `tankref export` and `tankref luck` read
either store: from the SQLite file and from its PostgreSQL copy they print the same bytes.
The PostgreSQL runs need ``TANKREF_TEST_PG`` (skipped without it); the SQLite-to-SQLite run
needs nothing."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from test_restart import skirmish

from clikit import run_cli
from pgkit import fresh_database, raw
from serverkit import duel, live_referee
from tankref.server.stores import Store, open_store


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A referee's SQLite file: a whole seeded game played to its end (server dice, seed
    revealed, snapshots), a table dice duel with a move that changed nothing (a spent request
    id) and a game ended by agreement."""
    db = tmp_path_factory.mktemp("migrate") / "source.sqlite3"
    with live_referee(db) as live:
        game = skirmish(7)
        created = httpx.post(f"{live.url}/tables", json=game.create, timeout=30).json()
        with httpx.Client(
            base_url=f"{live.url}/tables/{created['table_id']}",
            headers={"Authorization": f"Bearer {created['token']}"},
            timeout=30,
        ) as http:
            for request in game.requests:
                reply = http.request(request.method, request.path, json=request.body)
                assert reply.status_code == 200, reply.text
        table = duel(live.url)
        table.ok(
            table.put_tank(
                "R1", card="tiger-i", player="Red", x=0, z=-20, facing=0, request_id="still"
            )
        )
        table.ok(table.http.post(table.path("/end"), json={"request_id": "end-1"}))
        table.close()
    return db


def _everything(store: Store) -> dict[str, Any]:
    """What a migrate must carry over, table by table."""
    return {
        table_id: (
            store.table(table_id),
            store.events(table_id),
            store.seat_tokens(table_id),
            store.quiet_requests(table_id),
            store.snapshot_seqs(table_id),
        )
        for table_id in store.table_ids()
    }


def _read(db: str | Path) -> dict[str, Any]:
    store = open_store(db)
    try:
        return _everything(store)
    finally:
        store.close()


@pytest.fixture
def target_pg() -> Iterator[str]:
    with fresh_database() as url:
        yield url


def test_the_source_holds_what_a_migrate_must_carry(source: Path) -> None:
    tables = _read(source)
    assert len(tables) == 2
    assert any(snapshots for *_, snapshots in tables.values())
    assert any(quiet for *_, quiet, _snapshots in tables.values())
    assert all(seats for _row, _events, seats, *_ in tables.values())


def test_migrate_round_trips_sqlite_postgresql_sqlite_and_verify_passes(
    source: Path, target_pg: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_cli(capsys, "migrate", "--from", f"sqlite:{source}", "--to", target_pg)
    assert code == 0, err
    assert "migrated 2 table(s)" in out and "every table verified OK" in out
    assert "copied table 2 of 2" in err and "verified 2 of 2 tables" in err
    assert _read(target_pg) == _read(source)

    back = tmp_path / "back.sqlite3"
    code, _out, err = run_cli(capsys, "migrate", "--from", target_pg, "--to", f"sqlite:{back}")
    assert code == 0, err
    assert _read(back) == _read(source)


def test_migrate_refuses_a_target_that_holds_any_of_the_tables(
    source: Path, target_pg: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_cli(capsys, "migrate", "--from", f"sqlite:{source}", "--to", target_pg)[0] == 0
    before = _read(target_pg)
    code, out, err = run_cli(capsys, "migrate", "--from", f"sqlite:{source}", "--to", target_pg)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "already holds 2 of these tables" in err
    assert "nothing copied" in err
    assert _read(target_pg) == before


def test_migrate_into_a_file_needs_no_server(
    source: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "copy.sqlite3"
    code, _out, err = run_cli(capsys, "migrate", "--from", str(source), "--to", f"sqlite:{target}")
    assert code == 0, err
    assert _read(target) == _read(source)
    code, _out, err = run_cli(capsys, "migrate", "--from", str(source), "--to", f"sqlite:{target}")
    assert code == 2 and "nothing copied" in err


def test_migrate_from_a_missing_file_says_so_and_makes_none(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "nope.sqlite3"
    code, _out, err = run_cli(
        capsys, "migrate", "--from", f"sqlite:{missing}", "--to", f"sqlite:{tmp_path / 'x'}"
    )
    assert code == 2 and f"no SQLite file at {missing}" in err
    assert not missing.exists()


def test_a_table_whose_log_was_tampered_with_fails_verify_and_is_named(
    source: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The copy is checked, not trusted: an event's result hash changed in the source file
    (the append-only trigger dropped first, as someone with the file could) is copied as it
    is, and verify fails that table by name; exit 1."""
    tampered = tmp_path / "tampered.sqlite3"
    tampered.write_bytes(source.read_bytes())
    with sqlite3.connect(tampered) as db:
        table_id = db.execute("SELECT id FROM tables ORDER BY created_at LIMIT 1").fetchone()[0]
        db.execute("DROP TRIGGER events_append_only_update")
        db.execute(
            "UPDATE events SET result_sha256 = ? WHERE table_id = ? AND seq = 3",
            ("0" * 64, table_id),
        )
    code, out, err = run_cli(
        capsys, "migrate", "--from", str(tampered), "--to", f"sqlite:{tmp_path / 'copy.sqlite3'}"
    )
    assert code == 1 and "1 FAILED verify" in out
    assert f"table {table_id}: verify FAILED" in err


def _exports(capsys: pytest.CaptureFixture[str], table_ids: list[str], *db: str) -> dict[str, str]:
    """Each table's export as `tankref export ID [--db DB]` printed it."""
    done = {}
    for table_id in table_ids:
        code, out, err = run_cli(capsys, "export", table_id, *db)
        assert code == 0 and err == "", err
        done[table_id] = out
    return done


def test_export_and_luck_read_postgresql_as_they_read_the_file(
    source: Path,
    target_pg: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every table's export from the SQLite file and from its PostgreSQL copy (a migrate):
    byte for byte the same document, to stdout and with -o, named by --db or TANKREF_DB; the
    luck reports too, per table and over all, as text and as JSON."""
    assert run_cli(capsys, "migrate", "--from", f"sqlite:{source}", "--to", target_pg)[0] == 0
    ids = list(_read(source))
    from_file = _exports(capsys, ids, "--db", str(source))
    assert all('"format": "tankref.table-export"' in text for text in from_file.values())
    assert _exports(capsys, ids, "--db", target_pg) == from_file
    monkeypatch.setenv("TANKREF_DB", target_pg)
    assert _exports(capsys, ids) == from_file
    written = tmp_path / "pg.json"
    assert run_cli(capsys, "export", ids[0], "-o", str(written))[0] == 0
    assert written.read_bytes() == from_file[ids[0]].encode()
    monkeypatch.setenv("TANKREF_DB", str(source))  # a file named so is read too
    assert _exports(capsys, ids) == from_file
    monkeypatch.delenv("TANKREF_DB")

    for report in ([], [ids[0]], ["--json"], [ids[1], "--json"]):
        code, on_file, err = run_cli(capsys, "luck", *report, "--db", str(source))
        assert code == 0 and err == "" and ("Table" in on_file or '"players"' in on_file)
        assert run_cli(capsys, "luck", *report, "--db", target_pg) == (0, on_file, "")


def test_export_and_luck_of_no_such_table_on_postgresql_say_so(
    source: Path, target_pg: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """As for a file: one line naming the table and the database (no password), exit 1."""
    assert run_cli(capsys, "migrate", "--from", f"sqlite:{source}", "--to", target_pg)[0] == 0
    for command in ("export", "luck"):
        code, out, err = run_cli(capsys, command, "0123456789ab", "--db", target_pg)
        assert code == 1 and out == ""
        assert err == f"tankref {command}: no table '0123456789ab' in {target_pg}\n"


def test_reading_an_empty_postgresql_database_refuses_it_and_makes_nothing(
    target_pg: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """export, luck and migrate's source only read: a database with no referee tables is
    said so in one line and left empty (not given the referee's tables)."""
    for argv in (
        ["export", "0123456789ab", "--db", target_pg],
        ["luck", "--db", target_pg],
        ["migrate", "--from", target_pg, "--to", f"sqlite:{tmp_path / 'copy.sqlite3'}"],
    ):
        code, out, err = run_cli(capsys, *argv)
        assert code in (1, 2) and out == "" and err.count("\n") == 1, err
        assert f"{target_pg}: no referee database there" in err
    with raw(target_pg) as db:
        count = "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'"
        assert db.execute(count).fetchone()[0] == 0


def test_backup_copies_the_file_tankref_db_names(
    source: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Without --db, `tankref backup` reads the database TANKREF_DB names, as serve does."""
    monkeypatch.setenv("TANKREF_DB", str(source))
    copy = tmp_path / "copy.sqlite3"
    code, out, err = run_cli(capsys, "backup", str(copy))
    assert code == 0, err
    assert "backed up 2 table(s)" in out and f"from {source} to {copy}" in out
    assert _read(copy) == _read(source)
