"""Export and verify through the real command line, on a 500-action seeded game played into
a real SQLite log (with undos and voids): an untouched export verifies; one face, one
target, the seed or a dropped event makes verify fail naming the spot; a restart replays the
log to the same state byte for byte. The hash chain: the head verify prints, the head a
player noted (--head) against cut, reordered and rewritten exports, rewritten chat lines,
and --require-seed on a chosen seed."""

from __future__ import annotations

import asyncio
import copy
import hashlib
import json
import subprocess
import sys
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from tankref import cli
from tankref.core.timeline import result_digest
from tankref.server.referee import Referee
from trustkit import long_game, open_referee, rechain


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


# --- the hash chain ---------------------------------------------------------------------------
def test_verify_prints_the_head_and_passes_with_the_head_noted_at_the_end(
    game: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    """The head verify prints is the export's own head and the last event's link; the head a
    player noted at the end (8 digits, as TTS chat shows it) passes, so does the full one."""
    doc = game["doc"]
    head = doc["table"]["head_sha256"]
    assert head == doc["events"][-1]["chain_sha256"]
    links = [e["chain_sha256"] for e in doc["events"]]
    assert len(set(links)) == len(links)  # every event moves the head
    assert all(b["previous_sha256"] == a["chain_sha256"] for a, b in pairwise(doc["events"]))
    code, out = verify(game["export"], capsys)
    assert code == 0, out
    assert out.splitlines()[1] == f"head {head[:8]} ({head}) after event {game['seq']}"
    assert "without it, an export cut short at the end cannot be told apart" in out
    for noted in (head[:8], head.upper()[:12], head):
        code, out = verify(game["export"], capsys, "--head", noted)
        assert code == 0, out
    code, out = verify(game["export"], capsys, "--head", head[:8], "--json")
    assert json.loads(out)["head_reached_at"] == game["seq"]


def test_a_head_noted_mid_game_is_reached_by_the_longer_export(
    game: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    middle = game["doc"]["events"][299]["chain_sha256"]
    code, out = verify(game["export"], capsys, "--head", middle[:8])
    assert code == 0, out
    assert f"is the chain after event 300; the export goes on to event {game['seq']}" in out


def test_a_head_that_is_not_hex_exits_2(
    game: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    for bad in ("abc", "zzzzzzzz", "1234567"):
        assert cli.main(["verify", str(game["export"]), "--head", bad]) == 2
        assert "--head" in capsys.readouterr().err


def test_a_cut_export_fails_against_the_noted_head(
    game: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The last events dropped and last_seq lowered, the links consistent: without the seed
    too (so the cut does not show as an unfinished game), only the head noted at the end
    catches it; without --head verify says plainly which head the export ends at."""
    head = game["doc"]["table"]["head_sha256"]

    def cut(doc: dict[str, Any]) -> None:
        del doc["events"][-3:]
        rechain(doc)

    code, out = verify(tampered(game, tmp_path, cut), capsys)
    assert code == 1  # the seed is out, so the game was over: its end must be there
    assert "MISMATCH table: the seed is revealed, so the game was over, but the export's " in out
    assert "events were cut off the end" in out

    def cut_and_hide(doc: dict[str, Any]) -> None:
        cut(doc)
        doc["table"].update(seed=None, status="playing")

    path = tampered(game, tmp_path, cut_and_hide)
    code, out = verify(path, capsys)
    assert code == 0, out  # consistent with itself: without the noted head, only a report
    ends = json.loads(path.read_text())["table"]["head_sha256"]
    assert f"head {ends[:8]} ({ends}) after event {game['seq'] - 3}" in out
    assert f"the head is {ends[:8]} after event {game['seq'] - 3}: compare it with" in out
    code, out = verify(path, capsys, "--head", head[:8])
    assert code == 1
    assert (
        f"MISMATCH table: the export does not reach the head {head[:8]} (--head): its chain "
        f"ends at {ends[:8]} after event {game['seq'] - 3}"
    ) in out


def test_a_changed_face_target_or_seed_fails_against_the_noted_head(
    game: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each rewrite with the links made consistent again: the noted head is not reached (the
    face and target are hashed through the result hash and the action; the seed through the
    checkpoints re-adjudication compares), and re-adjudication fails too."""
    head = game["doc"]["table"]["head_sha256"]
    event, index = first_server_roll(game["doc"], "white")
    shot = next(e for e in game["doc"]["events"] if e["kind"] == "engage" and e["seq"] > 100)

    def face(doc: dict[str, Any]) -> None:
        result = doc["events"][event["seq"] - 1]["result"]
        result["rolls"][index]["face"] = 7 - result["rolls"][index]["face"]
        doc["events"][event["seq"] - 1]["result_sha256"] = result_digest(result)
        rechain(doc)

    def target(doc: dict[str, Any]) -> None:
        action = doc["events"][shot["seq"] - 1]["action"]
        action["target_id"] = action["target_id"][0] + "9"
        rechain(doc)

    for change in (face, target):
        path = tampered(game, tmp_path, change)
        code, out = verify(path, capsys)
        assert code == 1, out
        code, out = verify(path, capsys, "--head", head[:8])
        assert code == 1 and "does not reach the head" in out, out

    def seed(doc: dict[str, Any]) -> None:
        doc["table"]["seed"] = "trustkit-8"
        doc["table"]["commitment"] = hashlib.sha256(b"trustkit-8").hexdigest()
        rechain(doc)

    path = tampered(game, tmp_path, seed)
    code, out = verify(path, capsys, "--head", head[:8])
    assert code == 1
    assert "does not reach the head" in out  # the commitment starts the chain
    assert "the state after it differs from the logged checkpoint" in out


def test_a_reordered_pair_breaks_the_chain(
    game: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two neighbouring moves swapped and numbered again: the chain breaks at the first of
    them; with the links made consistent, the noted head is not reached."""
    doc = game["doc"]
    head = doc["table"]["head_sha256"]
    k = next(
        i
        for i, (a, b) in enumerate(pairwise(doc["events"]))
        # two moves logged in different milliseconds (the test game is played fast)
        if a["kind"] == b["kind"] == "move" and a["seq"] > 50 and a["at"] < b["at"]
    )

    def swap(doc: dict[str, Any]) -> None:
        events = doc["events"]
        events[k], events[k + 1] = events[k + 1], events[k]
        events[k]["seq"], events[k + 1]["seq"] = k + 1, k + 2

    code, out = verify(tampered(game, tmp_path, swap), capsys, "--json")
    assert code == 1
    first = json.loads(out)["first_mismatch"]
    assert first["seq"] == k + 1
    assert "the hash chain breaks before it" in first["text"]  # it was moved

    def swap_and_rechain(doc: dict[str, Any]) -> None:
        swap(doc)
        rechain(doc)

    path = tampered(game, tmp_path, swap_and_rechain)
    code, out = verify(path, capsys, "--head", head[:8])
    assert code == 1
    assert "does not reach the head" in out
    # Two moves by different tanks re-adjudicate the same either way round: without the
    # head, the times going backwards are what is left to say.
    code, out = verify(path, capsys)
    assert f"note: event {k + 2} was logged at " in out
    assert f"before event {k + 1}" in out and "events were moved" in out


def test_a_rewritten_chat_line_fails(
    game: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Verify makes each event's chat lines again from its result: a line rewritten (here to
    claim a kill) fails, whether or not the forger fixed the chain."""
    shot = next(e for e in game["doc"]["events"] if e["kind"] == "engage" and e["seq"] > 100)
    claim = f"{shot['action']['tank_id']} destroys {shot['action']['target_id']}!"

    def rewrite(doc: dict[str, Any]) -> None:
        doc["events"][shot["seq"] - 1]["chat"][0] = claim

    code, out = verify(tampered(game, tmp_path, rewrite), capsys)
    assert code == 1
    assert f"MISMATCH event {shot['seq']} (engage " in out
    assert "the hash chain breaks at it" in out

    def rewrite_and_rechain(doc: dict[str, Any]) -> None:
        rewrite(doc)
        rechain(doc)

    code, out = verify(tampered(game, tmp_path, rewrite_and_rechain), capsys)
    assert code == 1
    assert f"chat line 1 was {claim!r} in the log, the result gives {shot['chat'][0]!r}" in out


def test_taking_the_links_out_does_not_turn_the_check_off(
    game: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def strip(doc: dict[str, Any]) -> None:
        doc["table"].pop("head_sha256")
        for e in doc["events"]:
            e.pop("previous_sha256")
            e.pop("chain_sha256")

    code, out = verify(tampered(game, tmp_path, strip), capsys)
    assert code == 1
    assert "MISMATCH table: the export's hash chain is missing (format version 2)" in out

    def old_format(doc: dict[str, Any]) -> None:
        strip(doc)
        doc["format_version"] = 1

    code, out = verify(tampered(game, tmp_path, old_format), capsys)
    assert code == 0, out  # an export made before the chain still verifies
    assert "an export from before the hash chain" in out
    head = game["doc"]["table"]["head_sha256"]
    code, out = verify(tampered(game, tmp_path, old_format), capsys, "--head", head[:8])
    assert code == 0, out  # its head is computed from its content


def test_require_seed_fails_a_table_whose_creator_chose_the_seed(
    game: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    assert game["doc"]["table"]["seed_chosen"] is True  # trustkit's tables choose theirs
    code, out = verify(game["export"], capsys)
    assert code == 0 and "note: the server seed was chosen at creation" in out
    code, out = verify(game["export"], capsys, "--require-seed")
    assert code == 1
    assert "MISMATCH table: the server seed was chosen by whoever created the table" in out
