"""Export and verify through the real command line, on a 500-action seeded game played into
a real SQLite log (with undos and voids): an untouched export verifies; one face, one
target, the seed or a dropped event makes verify fail naming the spot; a restart replays the
log to the same state byte for byte."""

from __future__ import annotations

import asyncio
import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tankref import cli
from tankref.server.referee import Referee
from trustkit import long_game, open_referee


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A 560-event game, ended by agreement (the seed revealed), and its export file."""
    folder = tmp_path_factory.mktemp("trust")
    db = folder / "game.sqlite3"
    ref = open_referee(db)
    table_id = long_game(ref, events=560, seed=7)
    host = ref.host(table_id)
    asyncio.run(ref.control(host, request_id="end", action={"control": "end_game"}))
    final = host.rules.dump_state(host.state)
    seq = host.seq
    cancelled = dict(host.timeline.cancelled)
    ref.store.close()
    export = folder / "game.json"
    assert cli.main(["export", table_id, "--db", str(db), "-o", str(export)]) == 0
    return {
        "db": db,
        "id": table_id,
        "final": final,
        "seq": seq,
        "cancelled": cancelled,
        "export": export,
        "doc": json.loads(export.read_text()),
    }


def verify(path: Path, capsys: pytest.CaptureFixture[str], *flags: str) -> tuple[int, str]:
    code = cli.main(["verify", str(path), *flags])
    return code, capsys.readouterr().out


def tampered(game: dict[str, Any], tmp_path: Path, change: Any) -> Path:
    doc = copy.deepcopy(game["doc"])
    change(doc)
    path = tmp_path / "tampered.json"
    path.write_text(json.dumps(doc))
    return path


def test_restart_replays_the_game_byte_for_byte(game: dict[str, Any]) -> None:
    ref = Referee(open_referee(game["db"], fast=False).store)
    host = ref.host(game["id"])
    assert host.damaged is None
    assert host.seq == game["seq"] >= 560
    assert host.rules.dump_state(host.state) == game["final"]
    assert host.timeline.cancelled == game["cancelled"]
    assert len(game["cancelled"]) >= 5  # the game did take actions back
    effective = ref.effective_events(host)
    assert len(effective) >= 500
    assert not {e.seq for e in effective} & set(game["cancelled"])
    ref.store.close()


def test_untouched_export_verifies(
    game: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    doc = game["doc"]
    assert doc["format"] == "tankref.table-export"
    assert doc["table"]["seed"] == "trustkit-7"
    assert doc["table"]["player_seeds"] == [{"player": "Red", "seed": "red-7"}]
    marked = {e["seq"]: e["undone_by"] or e["voided_by"] for e in doc["events"]}
    assert {s: by for s, by in marked.items() if by} == game["cancelled"]
    assert all(e["version"].startswith("0.") for e in doc["events"])
    code, out = verify(game["export"], capsys)
    assert code == 0, out
    assert "OK" in out.splitlines()[0]
    assert f"{game['seq']} re-adjudicated" in out.splitlines()[0]


def first_server_roll(doc: dict[str, Any], die: str) -> tuple[dict[str, Any], int]:
    for event in doc["events"]:
        for i, roll in enumerate(event["result"].get("rolls", [])):
            if roll["die"] == die and roll["source"] == "server":
                return event, i
    raise AssertionError(f"no {die} roll")


def test_one_face_changed_fails_naming_the_die(
    game: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    event, index = first_server_roll(game["doc"], "white")
    face = event["result"]["rolls"][index]["face"]
    wrong = 1 if face != 1 else 2

    def change(doc: dict[str, Any]) -> None:
        doc["events"][event["seq"] - 1]["result"]["rolls"][index]["face"] = wrong

    code, out = verify(tampered(game, tmp_path, change), capsys)
    assert code == 1
    nth = sum(1 for r in event["result"]["rolls"][: index + 1] if r["die"] == "white")
    assert (
        f"MISMATCH event {event['seq']} (engage {event['action']['tank_id']} → "
        f"{event['action']['target_id']}): white die {nth} was face {wrong} in the log, "
        f"the seed gives {face}"
    ) in out


def test_one_target_changed_fails_at_that_event(
    game: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = game["doc"]
    shot = next(e for e in doc["events"] if e["kind"] == "engage" and e["seq"] > 100)
    enemies = sorted({e["action"]["target_id"] for e in doc["events"] if e["kind"] == "engage"})
    other = next(t for t in enemies if t[0] == shot["action"]["target_id"][0]
                 and t != shot["action"]["target_id"])  # fmt: skip

    def change(doc: dict[str, Any]) -> None:
        doc["events"][shot["seq"] - 1]["action"]["target_id"] = other

    code, out = verify(tampered(game, tmp_path, change), capsys, "--json")
    assert code == 1
    report = json.loads(out)
    assert report["ok"] is False
    assert report["first_mismatch"]["seq"] == shot["seq"]
    assert report["first_mismatch"]["text"].startswith(f"event {shot['seq']} (engage ")


def test_seed_changed_fails_at_the_commitment_and_the_first_roll(
    game: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def change(doc: dict[str, Any]) -> None:
        doc["table"]["seed"] = "trustkit-8"

    code, out = verify(tampered(game, tmp_path, change), capsys)
    assert code == 1
    lines = [line for line in out.splitlines() if line.startswith("MISMATCH")]
    assert lines[0].startswith("MISMATCH table: the revealed seed does not match the commitment")
    # The state hashes logged during setup hold the seed too: the first one differs.
    assert lines[1] == (
        "MISMATCH event 1 (place_tank R1): the state after it differs from the logged "
        "checkpoint (state_sha256)"
    )


def test_a_dropped_event_fails_naming_it(
    game: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def change(doc: dict[str, Any]) -> None:
        del doc["events"][199]  # event 200

    code, out = verify(tampered(game, tmp_path, change), capsys)
    assert code == 1
    assert "MISMATCH event 200: missing: the log goes from event 199 to event 201" in out

    def drop_last(doc: dict[str, Any]) -> None:
        doc["events"].pop()

    code, out = verify(tampered(game, tmp_path, drop_last), capsys)
    assert code == 1
    assert f"the table had {game['seq']} events but the export holds {game['seq'] - 1}" in out


def test_unreadable_files_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    assert cli.main(["verify", str(broken)]) == 2
    assert "cannot read" in capsys.readouterr().err
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"format": "something-else"}))
    assert cli.main(["verify", str(other)]) == 2
    assert "not a tankref table export" in capsys.readouterr().err


def test_before_the_end_verify_checks_up_to_the_first_server_roll(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "open.sqlite3"
    ref = open_referee(db)
    table_id = long_game(ref, events=40, seed=3)
    ref.store.close()
    export = tmp_path / "open.json"
    assert cli.main(["export", table_id, "--db", str(db), "-o", str(export)]) == 0
    assert json.loads(export.read_text())["table"]["seed"] is None
    code, out = verify(export, capsys)
    assert code == 0, out
    assert "not revealed yet" in out
    assert "draws the server's dice" in out
    code, out = verify(export, capsys, "--require-seed")
    assert code == 1


def test_the_installed_command_runs_verify(game: dict[str, Any]) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "tankref", "verify", str(game["export"])],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    helptext = subprocess.run(
        [sys.executable, "-m", "tankref", "--help"], capture_output=True, text=True, timeout=60
    ).stdout
    assert "export" in helptext and "verify" in helptext
