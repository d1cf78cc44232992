"""Verify checks every roll's source against the table's (issue 15): an export whose server
rolls are rewritten as faces the table sent (re-adjudication alone replays those faces to
the same results) fails through the real command line; so does a card slipped in."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from serverkit import LiveReferee, duel
from tankref import cli
from tankref.core.timeline import result_digest
from trustkit import rechain

ENGAGE = {"kind": "engage", "tank_id": "R1", "target_id": "B1"}


@pytest.fixture(scope="module")
def export(referee: LiveReferee) -> dict[str, Any]:
    """A server-dice duel: Red shoots in each of its phases, then the game ends by agreement
    (the seed revealed) unless a shot already won it."""
    table = duel(referee.url, dice_source="server")
    for _ in range(3):
        if table.ok(table.act(ENGAGE))["table"]["status"] == "over":
            break
        table.ok(table.act({"kind": "end_phase"}))
        table.ok(table.act({"kind": "end_phase"}))
    else:
        table.ok(table.http.post(table.path("/end"), json={"request_id": "end"}))
    doc: dict[str, Any] = table.ok(table.http.get(table.path("/export")))
    return doc


def verify(
    doc: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> tuple[int, str]:
    path = tmp_path / "export.json"
    path.write_text(json.dumps(doc))
    code = cli.main(["verify", str(path)])
    return code, capsys.readouterr().out


def as_table_faces(doc: dict[str, Any]) -> dict[str, Any]:
    """Every server roll rewritten as faces the table sent, the checkpoints dropped (the
    counter no longer moves): what re-adjudication alone accepts."""
    forged = copy.deepcopy(doc)
    for event in forged["events"]:
        rolls = event["result"].get("rolls") or []
        if not rolls:
            continue
        faces: dict[str, list[int]] = {}
        for roll in rolls:
            faces.setdefault(roll["die"], []).append(roll["face"])
            roll.update(source="table", counter=None)
        event["dice"] = {"faces": faces, "damage_card": None}
        event["state_sha256"] = None
        event["result_sha256"] = result_digest(event["result"])  # as a forger would
    rechain(forged)  # and the hash chain made consistent again
    return forged


def test_untouched_server_dice_export_verifies(
    export: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = verify(export, tmp_path, capsys)
    assert code == 0, out
    rolled = [e for e in export["events"] if e["result"].get("rolls")]
    assert rolled and all(r["source"] == "server" for e in rolled for r in e["result"]["rolls"])


def test_server_rolls_rewritten_as_table_faces_fail_verify_TTT_E4(
    export: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """TTT-E4/TTT-C1 rolls of a server-dice table rewritten as the table's faces: verify exits
    1 naming the first such event and the table's dice source."""
    forged = as_table_faces(export)
    first = next(e for e in forged["events"] if e["dice"])
    code, out = verify(forged, tmp_path, capsys)
    assert code == 1, out
    assert f"MISMATCH event {first['seq']} (" in out
    assert "faces from the table, but the referee rolls this table's dice" in out
    assert "dice.source: server" in out


def test_a_roll_marked_as_the_tables_fails_verify_TTT_E4(
    export: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Only the source of one roll changed (no faces sent): still a mismatch."""
    forged = copy.deepcopy(export)
    shot = next(e for e in forged["events"] if e["kind"] == "engage")
    shot["result"]["rolls"][0]["source"] = "table"
    shot["result_sha256"] = result_digest(shot["result"])
    rechain(forged)
    code, out = verify(forged, tmp_path, capsys)
    assert code == 1, out
    assert f"event {shot['seq']} (" in out and "rolls from table" in out


def test_a_card_slipped_into_a_referee_deck_fails_verify_TTT_E7(
    export: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """TTT-E7: the referee draws this table's cards; an event carrying a card is forged."""
    forged = copy.deepcopy(export)
    shot = next(e for e in forged["events"] if e["kind"] == "engage")
    shot["dice"] = {"faces": {}, "damage_card": "Explosion"}
    rechain(forged)
    code, out = verify(forged, tmp_path, capsys)
    assert code == 1, out
    assert "a damage card from the table, but the referee draws the cards" in out
