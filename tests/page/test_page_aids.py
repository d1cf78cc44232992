"""The page's aids (issue 20): hovering a unit draws the referee's aids for it, and the
selected unit keeps its lines of fire with their readings."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pagekit import Watch
from serverkit import duel, live_referee


def test_hovering_a_unit_shows_its_aids_TTT_M1_M2_E2(browser: Any, tmp_path: Path) -> None:
    """TTT-M1/TTT-M2: hovering Red's Tiger draws its Normal and Fast rings at the referee's
    radii; TTT-E2: its four arc wedges; TTT-E1: its line to Blue's Sherman with the reading.
    Leaving the board takes them away; a selected unit keeps its lines."""
    with live_referee(tmp_path / "referee.sqlite3") as live:
        table = duel(live.url)
        aids = table.ok(table.http.get(table.path("/tanks/R1/aids")))
        radii = {r["id"]: r["radius"] for r in aids["move"]}
        page = browser.new_page()
        watch = Watch(page)
        page.goto(f"{live.url}/#/tables/{table.id}")
        page.wait_for_selector('#live[data-state="live"]')
        board = page.locator("#board")
        board.locator('.tank[data-tank="R1"] .hull').hover()
        page.wait_for_selector('#board .aids-layer[data-unit="R1"] .aid-ring[data-ring="fast"]')
        layer = board.locator(".aids-layer")
        assert (
            float(layer.locator('[data-ring="normal"]').get_attribute("r") or 0) == radii["normal"]
        )
        assert float(layer.locator('[data-ring="fast"]').get_attribute("r") or 0) == radii["fast"]
        assert layer.locator(".aid-arc").count() == 4
        line = layer.locator('.aid-line[data-target="B1"]')
        assert line.get_attribute("data-reading") == aids["lines"][0]["reading"]
        assert "TTT-" in (line.locator("title").text_content() or "")

        page.mouse.move(1300, 740)  # off the board
        page.wait_for_selector("#board .aids-layer", state="detached")

        board.locator('.tank[data-tank="B1"] .hull').click()
        page.wait_for_selector('#board .aids-layer[data-unit="B1"] .aid-line[data-target="R1"]')
        assert board.locator(".aid-ring").count() == 0  # not Blue's phase: no move, and why
        assert "TTT-T1" in (board.locator(".aid-refused").text_content() or "")
        page.mouse.move(1300, 740)
        page.wait_for_selector("#board .aid-refused", state="detached")
        kept = board.locator('.aids-layer[data-unit="B1"] .aid-line[data-target="R1"]')
        assert kept.count() == 1  # the selected unit keeps its line of fire
        watch.check_stayed_home(live.url)
