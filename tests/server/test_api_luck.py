"""Luck over HTTP: `GET /tables/{id}/luck`, `GET /luck` and `tankref luck`, on a real referee
with table dice forced by supplied faces.

The duel (serverkit): Red's Tiger I R1 (4 white, 5 red) faces Blue's Sherman B1 head on
(front armour 5); both crews Scared. Each Tiger shot hits with 1 - (4/6)^4 = 65/81.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import httpx
import pytest

from serverkit import LiveReferee, Table, duel, live_referee
from tankref import cli
from tankref.rulesets.ttt.odds import penetration_odds

TIGER_HITS = 1 - Fraction(4, 6) ** 4
HOUSE_RED = ((0, 0), (0, 0), (1, 0), (1, 0), (2, 0), (1, 1))
PEN = penetration_odds(HOUSE_RED, 5, 5, False)  # 5 red dice against armour 5
ENGAGE = {"kind": "engage", "tank_id": "R1", "target_id": "B1"}


def next_red_phase(table: Table) -> None:
    table.ok(table.act({"kind": "end_phase"}))  # Red's phase ends
    table.ok(table.act({"kind": "end_phase"}))  # Blue does nothing


def red_hits_three_times(url: str) -> Table:
    """Three Tiger shots, all hits; the first penetrates and Blue's crew fails its check."""
    table = duel(url)
    dice = {"faces": {"white": [5, 1, 1, 1], "red": [5, 5, 3, 1, 1], "green": [4]},
            "damage_card": "Glancing Blow"}  # fmt: skip
    entry = table.ok(table.act(ENGAGE, dice=dice))["entry"]
    assert entry["result"]["outcome"]["penetrated"] is True
    next_red_phase(table)
    table.ok(table.act(ENGAGE, dice={"faces": {"white": [6, 1, 1, 1], "red": [1, 1, 1, 1, 1]}}))
    next_red_phase(table)
    table.ok(table.act(ENGAGE, dice={"faces": {"white": [5, 5, 1, 1], "red": [1, 2, 1, 2, 1]}}))
    return table


def luck(table: Table) -> dict[str, Any]:
    return table.ok(table.http.get(table.path("/luck")))


def percentile_of_all_hits(n: int, p: Fraction) -> float:
    """P(fewer than n of n hit) + half P(all n hit): the share of fair tables beaten."""
    return float(100 * (1 - p**n + p**n / 2))


def test_red_hitting_every_shot_is_luckier_than_expected(referee: LiveReferee) -> None:
    table = red_hits_three_times(referee.url)
    report = luck(table)
    assert report["table_id"] == table.id and report["note"] is None
    assert report["seq"] == table.read()["seq"]
    assert "1 time in 100" in report["significance"]
    red, blue = report["players"]
    assert (red["player"], blue["player"]) == ("Red", "Blue")

    hits = red["hit"]
    assert (hits["trials"], hits["observed"]) == (3, 3)
    assert hits["expected_exact"] == str(3 * TIGER_HITS) == "65/27"
    assert hits["expected"] == pytest.approx(float(3 * TIGER_HITS), abs=1e-4)
    assert hits["observed"] > hits["expected"]
    assert hits["luck_percentile"] == pytest.approx(percentile_of_all_hits(3, TIGER_HITS), abs=0.01)
    assert hits["verdict"] == "as_expected" and not hits["significant"]
    assert hits["text"].startswith("Red hit 3 times in 3 shots where 2.4 were expected: ")

    pens = red["penetration"]
    assert (pens["trials"], pens["observed"], pens["expected_exact"]) == (3, 1, str(3 * PEN))
    # Blue's Scared crew checked once (green 4: Shaken), a failure against 1/2.
    morale = blue["morale_failure"]
    assert (morale["trials"], morale["observed"], morale["expected_exact"]) == (1, 1, "1/2")
    assert morale["luck_percentile"] == pytest.approx(25.0)  # more failures: unluckier
    assert blue["hit"]["trials"] == 0 and red["morale_failure"]["trials"] == 0


def test_repeated_reads_are_cached_and_a_new_event_counts(referee: LiveReferee) -> None:
    table = duel(referee.url)
    first = luck(table)
    assert first == luck(table)
    assert first["players"][0]["hit"]["trials"] == 0
    table.ok(table.act(ENGAGE, dice={"faces": {"white": [1, 2, 3, 4]}}))
    after = luck(table)
    assert after["seq"] == first["seq"] + 1
    hits = after["players"][0]["hit"]
    assert (hits["trials"], hits["observed"], hits["expected_exact"]) == (1, 0, "65/81")
    assert hits["text"] == (
        "Red hit 0 times in 1 shot where 0.8 were expected: "
        f"about as expected (unluckier than {round(float(100 - 100 * (1 - TIGER_HITS) / 2))}% "
        "of fair tables)."
    )


def test_server_dice_count_too(referee: LiveReferee) -> None:
    table = duel(referee.url, dice_source="server")
    entry = table.ok(table.act(ENGAGE))["entry"]
    hits = luck(table)["players"][0]["hit"]
    assert (hits["trials"], hits["observed"]) == (1, int(entry["result"]["outcome"]["hit"]))


def test_unknown_table_is_a_404(referee: LiveReferee) -> None:
    response = httpx.get(f"{referee.url}/tables/nosuchtable/luck")
    assert response.status_code == 404
    assert response.json()["code"] == "UNKNOWN_TABLE"


def test_across_tables_the_cli_and_a_restart(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "luck.sqlite3"
    with live_referee(db) as live:
        lucky = red_hits_three_times(live.url)
        other = duel(live.url)
        other.ok(other.act(ENGAGE, dice={"faces": {"white": [1, 1, 1, 1]}}))  # a miss
        every = httpx.get(f"{live.url}/luck").json()
        one = luck(lucky)

    assert {t["table_id"] for t in every["tables"]} == {lucky.id, other.id}
    mine = next(t for t in every["tables"] if t["table_id"] == lucky.id)
    assert mine["players"] == one["players"]
    red = next(p for p in every["players"] if p["player"] == "Red")
    # Red over both tables: 4 shots, 3 hits.
    assert (red["hit"]["trials"], red["hit"]["observed"]) == (4, 3)
    assert red["hit"]["expected_exact"] == str(4 * TIGER_HITS)
    assert [p["player"] for p in every["players"]] == ["Blue", "Red"]

    # The command line reads the same database and says the same.
    assert cli.main(["luck", lucky.id, "--db", str(db), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == one
    assert cli.main(["luck", "--db", str(db)]) == 0
    text = capsys.readouterr().out
    assert f"Table {lucky.id}" in text and f"Table {other.id}" in text
    assert "All 2 table(s), by player id" in text
    assert "Red hit 3 times in 4 shots where 3.2 were expected" in text
    assert "Blue failed 1 of 1 morale check where 0.5 were expected" in text
    assert cli.main(["luck", "nosuchtable", "--db", str(db)]) == 1
    assert "no table 'nosuchtable'" in capsys.readouterr().err
    assert cli.main(["luck", "--db", str(tmp_path / "missing.sqlite3")]) == 1
    assert "no referee database" in capsys.readouterr().err

    # A restarted referee replays the log and gives the same report.
    with live_referee(db) as live:
        again = httpx.get(f"{live.url}/tables/{lucky.id}/luck").json()
        assert again == one
        assert httpx.get(f"{live.url}/luck").json() == every


def void(table: Table, seq: int) -> None:
    for player in ("Red", "Blue"):
        body = {"request_id": table.next_id(), "seq": seq, "player": player}
        table.ok(table.http.post(table.path("/void"), json=body, headers=table.seat(player)))


def test_a_voided_shot_no_longer_counts(referee: LiveReferee) -> None:
    """Server dice: the voided shot's rolls stay spent, so the shot taken again rolls other
    dice; the luck counts only the shot in effect, with the faces the log shows for it."""
    table = duel(referee.url, dice_source="server")
    first = table.ok(table.act(ENGAGE))
    assert luck(table)["players"][0]["hit"]["trials"] == 1
    void(table, first["seq"])
    report = luck(table)
    assert report["seq"] == table.read()["seq"] == first["seq"] + 2
    assert report["players"][0]["hit"]["trials"] == 0

    again = table.ok(table.act(ENGAGE))["entry"]["result"]
    assert again["rolls"][0]["counter"] > first["entry"]["result"]["rolls"][-1]["counter"]
    report = luck(table)
    assert report["note"] is None  # the shot replayed with its own faces, not the voided ones
    hits = report["players"][0]["hit"]
    assert (hits["trials"], hits["observed"]) == (1, int(again["outcome"]["hit"]))


def test_an_undone_action_leaves_the_count_as_it_was(referee: LiveReferee) -> None:
    table = red_hits_three_times(referee.url)
    before = luck(table)
    table.ok(table.act({"kind": "end_phase"}))
    body = {"request_id": table.next_id()}
    table.ok(table.http.post(table.path("/undo"), json=body))
    after = luck(table)
    assert after["seq"] == before["seq"] + 2
    assert after["players"] == before["players"]
