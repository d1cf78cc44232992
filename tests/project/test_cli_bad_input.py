"""No tracebacks: every CLI command, found from the parser (a new command is swept too), is
run against bad databases, bad ports, bad addresses and bad arguments. Each refusal is one
clear line on stderr and a non-zero exit; never a traceback, never the catch-all line
that says a case was not foreseen."""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import sqlite3
import stat
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from serverkit import duel, live_referee
from tankref.cli import build_parser, main

UNFORESEEN = "unexpected error"  # main()'s safety net: a case a command should say itself


def commands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> Iterator[
    tuple[tuple[str, ...], argparse.ArgumentParser]
]:  # fmt: skip
    """Every command line the parser knows, nested ones (``tables end``) included."""
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if path:
        yield path, parser
    for sub in subs:
        for name, child in sub.choices.items():
            yield from commands(child, (*path, name))


def options(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    return {s: a for a in parser._actions for s in a.option_strings}


def positionals(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    return [
        a
        for a in parser._actions
        if not a.option_strings and not isinstance(a, argparse._SubParsersAction)
    ]


@dataclass(frozen=True)
class BadDatabases:
    garbage: Path
    other_app: Path
    damaged_event: Path
    directory: Path
    damaged_table: str  # the table whose event is damaged

    def items(self) -> list[tuple[str, Path]]:
        return [
            ("garbage bytes", self.garbage),
            ("another application's SQLite", self.other_app),
            ("a tankref db with one damaged event", self.damaged_event),
            ("a directory", self.directory),
        ]


@pytest.fixture(scope="module")
def bad(tmp_path_factory: pytest.TempPathFactory) -> BadDatabases:
    folder = tmp_path_factory.mktemp("bad-dbs")
    garbage = folder / "garbage.sqlite3"
    garbage.write_bytes(bytes(range(256)) * 40)
    other = folder / "contacts.sqlite3"
    raw = sqlite3.connect(other)
    raw.execute("CREATE TABLE contacts (name TEXT, phone TEXT)")
    raw.execute("INSERT INTO contacts VALUES ('Ann', '555')")
    raw.commit()
    raw.close()
    damaged = folder / "damaged.sqlite3"
    with live_referee(damaged) as live:
        table = duel(live.url)
        table.close()
    raw = sqlite3.connect(damaged)
    raw.execute("DROP TRIGGER events_append_only_update")
    # One event cut short: its action and its entry no longer parse.
    raw.execute("UPDATE events SET action = '{\"kind\": ', entry = '{' WHERE seq = 2")
    raw.commit()
    raw.close()
    directory = folder / "a-folder.sqlite3"
    directory.mkdir()
    return BadDatabases(garbage, other, damaged, directory, table.id)


@pytest.fixture(autouse=True)
def _own_data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Demo tokens are looked up in the data folder: the test's, not the user's."""
    monkeypatch.setenv("TANKREF_DATA_DIR", str(tmp_path / "data"))


class _Stranger(BaseHTTPRequestHandler):
    """Another program's web server: 200 and a web page for anything."""

    def _page(self) -> None:
        body = b"<html><body>my router</body></html>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = do_PUT = do_DELETE = _page

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def stranger() -> Iterator[str]:
    """The address of a web server that is not a referee."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Stranger)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def positional_value(action: argparse.Action, case: Path) -> str:
    """A plausible value for each positional argument (a new one must be given one here)."""
    values = {
        "table_id": "0123456789ab",
        "file": str(case / "copy.sqlite3"),
        "export": str(case / "nothing.json"),
        "path": str(case / "save.json"),
    }
    assert action.dest in values, f"the sweep needs a value for a new positional {action.dest}"
    return values[action.dest]


def run_cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        code = main(argv)
    except SystemExit as stop:  # argparse's refusal
        code = stop.code if isinstance(stop.code, int) else 1
    out, err = capsys.readouterr()
    return code, out, err


def one_clear_line(argv: list[str], code: int, err: str) -> None:
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert code != 0, f"{argv}: exit 0 on bad input"
    assert "Traceback" not in err, f"{argv}:\n{err}"
    assert len(lines) == 1, f"{argv}: not one line:\n{err}"
    assert UNFORESEEN not in err, f"{argv}: a case nobody foresaw:\n{err}"
    assert len(lines[0]) > 20, f"{argv}: too terse: {lines[0]}"


def dead_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


# Commands the sweep runs in a process of their own: on good input they would serve or play.
OWN_PROCESS = {("serve",)}


def bad_command_lines(bad: BadDatabases, case: Path, stranger: str) -> Iterator[list[str]]:
    dead = f"127.0.0.1:{dead_port()}"
    for path, parser in commands(build_parser()):
        flags = options(parser)
        base = [*path, *(positional_value(a, case) for a in positionals(parser))]
        yield [*base, "--no-such-flag"]
        for flag, action in flags.items():
            if flag.startswith("--") and action.type not in (None, str) and action.nargs is None:
                yield [*base, flag, "abc"]  # every number option, given a word
        if "--port" in flags:
            for port in ("99999", "-1", "abc", "0"):
                yield [*base, "--port", port]
        if "--db" in flags:
            for _, db in bad.items():
                if db != bad.damaged_event:
                    yield [*base, "--db", str(db)]
                elif "table_id" in {a.dest for a in positionals(parser)}:
                    # Only that table is bad: a backup copies it as it is, and the referee
                    # and `luck` over all tables set it aside and go on with the others.
                    named = [bad.damaged_table if a == "0123456789ab" else a for a in base]
                    yield [*named, "--db", str(db)]
        if "--url" in flags:
            # (A save may name a referee that is not running yet: only malformed ones.)
            asks = () if path == ("tts-save",) else (dead, stranger)
            for url in (*asks, "ftp://127.0.0.1:8765", "127.0.0.1:99999", "http://"):
                yield [*base, "--url", url]
        if "--ruleset" in flags:
            yield [*base, "--ruleset", "chess"]


def test_the_sweep_reaches_every_command() -> None:
    """The list comes from the parser: every top-level command and the nested ones."""
    found = {path for path, _ in commands(build_parser())}
    top = {p[0] for p in found}
    for name in ("serve", "luck", "export", "backup", "verify", "demo", "tts-save", "tables"):
        assert name in top
    assert {("tables", "end"), ("tables", "delete"), ("tables", "list")} <= found


def test_every_command_refuses_bad_input_in_one_line(
    bad: BadDatabases, stranger: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Bad databases (garbage, another app's SQLite, a damaged event, a directory), bad ports
    (99999, -1, "abc"), bad URLs (nothing there, another program's web server, malformed)
    and unknown arguments, for every command: one line on stderr, a non-zero exit, no
    traceback."""
    swept = 0
    for n, argv in enumerate(bad_command_lines(bad, tmp_path, stranger)):
        case = tmp_path / f"case-{n}"
        case.mkdir()
        argv = [a.replace(str(tmp_path), str(case)) for a in argv]
        if tuple(argv[:1]) in OWN_PROCESS:
            done = subprocess.run(
                [sys.executable, "-m", "tankref", *argv],
                capture_output=True, text=True, timeout=60,
            )  # fmt: skip
            code, err = done.returncode, done.stderr
        else:
            code, _, err = run_cli(argv, capsys)
        one_clear_line(argv, code, err)
        swept += 1
    assert swept > 60


def test_export_of_a_damaged_event_names_the_table(
    bad: BadDatabases, capsys: pytest.CaptureFixture[str]
) -> None:
    """The database opens; the table's log does not read: said in one line naming it."""
    ids = [r[0] for r in sqlite3.connect(bad.damaged_event).execute("SELECT id FROM tables")]
    code, out, err = run_cli(["export", ids[0], "--db", str(bad.damaged_event)], capsys)
    one_clear_line(["export"], code, err)
    assert ids[0] in err and out == ""
    code, out, err = run_cli(["luck", "--db", str(bad.damaged_event)], capsys)
    assert "Traceback" not in err and UNFORESEEN not in err


def _immutable(path: Path, on: bool) -> bool:
    """``chattr +i``: what stops root writing (file modes do not). False: not possible here."""
    try:
        done = subprocess.run(["chattr", "+i" if on else "-i", str(path)], capture_output=True)
    except OSError:
        return False
    return done.returncode == 0


@pytest.fixture
def unwritable(bad: BadDatabases, tmp_path: Path) -> Iterator[Path]:
    """A good tankref database nobody may write, in a folder nobody may write (no -wal file
    can be made beside it either)."""
    folder = tmp_path / "locked"
    folder.mkdir()
    db = folder / "readonly.sqlite3"
    shutil.copy(bad.damaged_event, db)
    db.chmod(stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)
    folder.chmod(0o555)
    locked: list[Path] = []
    try:
        if os.name == "posix" and os.geteuid() == 0:
            for path in (db, folder):
                if not _immutable(path, True):
                    pytest.skip("running as root without chattr: nothing is unwritable")
                locked.append(path)
        yield db
    finally:
        for path in locked:
            _immutable(path, False)
        folder.chmod(0o755)


@pytest.mark.skipif(sys.platform == "win32", reason="file modes")
def test_an_unwritable_database_is_said_plainly(unwritable: Path, tmp_path: Path) -> None:
    """A database nobody may write: the referee refuses to start on it in one line (it could
    acknowledge nothing); the commands that only read it read it or say why, in one line."""
    for argv, must_fail in (
        (["serve", "--port", str(dead_port())], True),
        (["luck"], False),
        (["export", "0123456789ab"], True),  # no such table: said plainly
        (["backup", str(tmp_path / "copy.sqlite3")], False),
    ):
        done = subprocess.run(
            [sys.executable, "-m", "tankref", *argv, "--db", str(unwritable)],
            capture_output=True, text=True, timeout=60, cwd=tmp_path,
        )  # fmt: skip
        assert "Traceback" not in done.stderr, (argv, done.stderr)
        assert UNFORESEEN not in done.stderr, (argv, done.stderr)
        if must_fail or done.returncode != 0:
            one_clear_line(argv, done.returncode, done.stderr)
        if argv[0] == "serve":
            assert "cannot" in done.stderr and str(unwritable) in done.stderr, done.stderr


def test_bad_numbers_are_refused_by_the_parser(capsys: pytest.CaptureFixture[str]) -> None:
    """--turns -1, --port 0, --games 0: argparse's refusal naming the option, exit 2."""
    for argv, words in (
        (["demo", "--turns", "-1"], "argument --turns: must be 1 or more, got -1"),
        (["serve", "--port", "0"], "argument --port: a port is 1 to 65535, got 0"),
        (["serve", "--port", "99999"], "a port is 1 to 65535, got 99999"),
        (["serve", "--port", "abc"], "not a port number: 'abc'"),
        (["selfplay", "--games", "0"], "argument --games: must be 1 or more"),
    ):
        code, out, err = run_cli(argv, capsys)
        assert code == 2 and out == ""
        assert words in err and err.count("\n") == 1, err


def test_a_bad_port_in_a_real_process_is_one_line() -> None:
    """`tankref serve --port 99999` as a user types it: one line, exit 2."""
    done = subprocess.run(
        [sys.executable, "-m", "tankref", "serve", "--port", "99999"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "tankref serve: error: argument --port: a port is 1 to 65535, got 99999 "
        "(`tankref serve --help` shows the usage)"
    ]


def test_luck_on_garbage_in_a_real_process_is_one_line(bad: BadDatabases) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "tankref", "luck", "--db", str(bad.garbage)],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 1
    assert len(done.stderr.strip().splitlines()) == 1
    assert "not a database" in done.stderr and "Traceback" not in done.stderr
