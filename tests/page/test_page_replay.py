"""The page's replay slider, in Debian's headless Chromium against the real referee.

A played game's history is stepped through by keyboard and by the buttons; at each entry N
the board drawn (each tank's place, facing and marker badges read back from the SVG, the
line of fire, the turn in the banner) must be the state ``GET /tables/{id}/states/N``
gives, and that state the independent rebuild of the stored log by the engine
(``replaykit.rebuilt_at``). A new entry logged while a past one is shown leaves the board
where it is; Live (or End) brings the board back, and it follows the game again.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx

from pagekit import Watch
from replaykit import played_duel, rebuilt_at
from serverkit import Table, live_referee

DRAWN_TANKS = """nodes => nodes.map(n => ({
    tank_id: n.dataset.tank,
    x: Number(n.dataset.x),
    z: Number(n.dataset.z),
    facing: Number(n.dataset.facing),
    badges: [...n.querySelectorAll('.badge')].map(b => b.dataset.marker),
    destroyed: n.classList.contains('destroyed'),
}))"""


def _drawn_as(tank: dict[str, Any]) -> dict[str, Any]:
    """How the board draws a tank of the scene: every marker a badge, Destroyed a cross."""
    return {
        "tank_id": tank["tank_id"],
        "x": tank["x"],
        "z": tank["z"],
        "facing": tank["facing"],
        "badges": [m for m in tank["markers"] if m != "Destroyed"],
        "destroyed": "Destroyed" in tank["markers"],
    }


def check_board_at(page: Any, db: Path, table: Table, seq: int) -> dict[str, Any]:
    """The board shows entry ``seq`` as the referee rebuilds it; the rebuild is the engine's."""
    page.wait_for_selector(f'#replay[data-shown="{seq}"]')
    page.wait_for_selector(f'#board[data-seq="{seq}"]')
    position: dict[str, Any] = table.ok(table.http.get(table.path(f"/states/{seq}")))
    rebuilt = rebuilt_at(db, table.id, seq)
    assert position["state"] == rebuilt.state
    assert position["scene"]["tanks"] == rebuilt.tanks
    scene = position["scene"]
    drawn = sorted(
        page.locator("#board .tank").evaluate_all(DRAWN_TANKS), key=lambda t: t["tank_id"]
    )
    expected = sorted(
        (_drawn_as(t) for t in scene["tanks"] if t["on_table"]), key=lambda t: t["tank_id"]
    )
    assert drawn == expected, seq
    fire = page.locator("#board .line-of-fire")
    if scene["line_of_fire"] is None:
        assert fire.count() == 0
    else:
        assert fire.get_attribute("data-seq") == str(scene["line_of_fire"]["seq"])
    banner = page.locator("#banner")
    assert banner.get_attribute("data-turn") == str(scene["table"]["turn"])
    assert banner.get_attribute("data-status") == scene["table"]["status"]
    assert page.locator("#replay").get_attribute("data-mode") == "replay"
    return position


def test_the_slider_steps_the_board_through_the_log_and_live_resumes(
    browser: Any, tmp_path: Path
) -> None:
    db = tmp_path / "referee.sqlite3"
    with live_referee(db) as live:
        table = played_duel(live.url, until=12)
        last = table.read()["seq"]
        assert last >= 12
        page = browser.new_page()
        watch = Watch(page)
        page.goto(f"{live.url}/#/tables/{table.id}")
        page.wait_for_selector('#live[data-state="live"]')
        replay = page.locator("#replay")
        slider = page.locator("#replay-slider")
        assert replay.get_attribute("data-mode") == "live"
        assert slider.get_attribute("max") == str(last)
        assert page.locator("#board").get_attribute("data-seq") == str(last)
        assert page.locator("#replay-live").is_disabled()

        # Keyboard: Home is the table as created; each arrow one entry on.
        slider.focus()
        page.keyboard.press("Home")
        check_board_at(page, db, table, 0)
        assert "the table as created" in page.inner_text("#replay-status")
        for seq in (1, 2):
            page.keyboard.press("ArrowRight")
            check_board_at(page, db, table, seq)
        # The buttons: on to the shot that shakes and immobilises B1 (entry 8) ...
        forward = page.locator("#replay-forward")
        for seq in range(3, 9):
            forward.click()
            if seq in (5, 6, 8):  # R1 waits; the wait undone; the first shot
                check_board_at(page, db, table, seq)
        shot = check_board_at(page, db, table, 8)
        assert "Entry 8 of" in page.inner_text("#replay-status")
        assert shot["headline"] in page.inner_text("#replay-status")  # the log's own words
        b1 = next(t for t in shot["scene"]["tanks"] if t["tank_id"] == "B1")
        assert {"Shaken", "Immobilized"} <= set(b1["markers"])
        # ... and back one (keyboard on the button), then jumps by keyboard on the slider.
        page.locator("#replay-back").focus()
        page.keyboard.press("Enter")
        check_board_at(page, db, table, 7)
        slider.focus()
        page.keyboard.press("End")  # the last entry: live again
        page.wait_for_selector('#replay[data-mode="live"]')
        page.keyboard.press("ArrowLeft")
        check_board_at(page, db, table, last - 1)
        for _ in range(last - 1 - 10):
            page.keyboard.press("ArrowLeft")
        check_board_at(page, db, table, 10)

        # A new entry while entry 10 is shown: the slider grows, the board stays put.
        added = table.ok(table.act({"kind": "end_phase"}))["seq"]
        assert added == last + 1
        page.wait_for_selector(f'#replay-slider[max="{added}"]')
        page.wait_for_function(
            f"() => window.tankrefPage.updates >= 1 && "
            f"document.querySelector('#log > li[data-seq=\"{added}\"]')"
        )
        check_board_at(page, db, table, 10)

        # Live: the board is the live table's again, and follows the game.
        page.click("#replay-live")
        page.wait_for_selector(f'#board[data-seq="{added}"]')
        assert replay.get_attribute("data-mode") == "live"
        live_scene = table.ok(table.http.get(table.path("/scene")))
        drawn = sorted(
            page.locator("#board .tank").evaluate_all(DRAWN_TANKS), key=lambda t: t["tank_id"]
        )
        assert drawn == sorted(
            (_drawn_as(t) for t in live_scene["tanks"] if t["on_table"]),
            key=lambda t: t["tank_id"],
        )
        tiger = next(t for t in live_scene["tanks"] if t["tank_id"] == "R1")
        assert live_scene["table"]["active_player"] == "Red"
        moved = table.ok(
            table.put_tank("R1", card="tiger-i", player="Red", x=0, z=tiger["z"] + 1, facing=0)
        )
        page.wait_for_selector(f'#board[data-seq="{moved["seq"]}"]')
        drawn_z = page.locator('#board .tank[data-tank="R1"]').get_attribute("data-z")
        assert float(drawn_z) == tiger["z"] + 1
        assert slider.get_attribute("max") == str(moved["seq"])
        assert slider.input_value() == str(moved["seq"])

        watch.check_stayed_home(live.url)
        # Every position the page drew came from the states route, each asked once.
        asked = [u for _, u in watch.requests if "/states/" in u]
        assert len(asked) == len(set(asked))
        assert (
            httpx.get(f"{live.url}/tables/{table.id}/states/{moved['seq'] + 1}").status_code == 404
        )
        page.close()
