"""The live page on AFV, Minimal Tank Combat and tank yard tables, in Debian's headless Chromium
against the real referee.

Each table is created and played over HTTP with forced dice; the page draws it from the
referee's generic answers alone: the units where the scene puts them, terrain footprints
(MTC's terrain hexes and its whole hex grid, drawn lightly), a yard's spaces as rings in their
owner's colour, one log row per action with its dice, a selected unit's odds whatever their
shape (every ``p_*`` chance a bar, the exact fractions, breakdowns), a clean note when the
ruleset has no odds for it, and the luck of the one measure these rulesets count. Players
are not called Red and Blue: colours follow the setup's order. Every request is a GET to the
referee; no script error.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Error as PlaywrightError

from kit.afv import cm
from pagekit import Watch, board_clipped, board_overlaps, check_badges_keyed
from serverkit import Table, live_referee, new_table
from tankref.core.geometry import TableArea
from tankref.core.hexgrid import Hex, HexGrid

FIRST, SECOND = "#c62f2f", "#2764c5"  # the page's colours for the first and second player


def rgb(hex_colour: str) -> str:
    """A CSS colour as the browser reports a computed one."""
    r, g, b = (int(hex_colour[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgb({r}, {g}, {b})"


def open_table(browser: Any, url: str, table: Table) -> tuple[Any, Watch]:
    """The list of tables names the table's rule system; follow it to the table."""
    page = browser.new_page()
    watch = Watch(page)
    page.goto(f"{url}/")
    listed = next(t for t in table.ok(table.http.get("/tables")) if t["table_id"] == table.id)
    rules = page.locator(f'#tables tr[data-table="{table.id}"] td[data-ruleset]')
    assert rules.get_attribute("data-ruleset") == table.created["ruleset"]
    assert rules.inner_text() == listed["ruleset_title"] != table.created["ruleset"]
    page.click(f'#tables tr[data-table="{table.id}"] a')
    page.wait_for_selector('#live[data-state="live"]')
    return page, watch


def scene_drawn(page: Any, table: Table) -> dict[str, Any]:
    """The scene as the referee gives it now, once the page has drawn that very one."""
    scene: dict[str, Any] = table.ok(table.http.get(table.path("/scene")))
    page.wait_for_selector(f'#board[data-seq="{scene["seq"]}"]')
    return scene


def check_units(page: Any, scene: dict[str, Any], scale: float = 1.0) -> None:
    """Every unit on the table is drawn once, at (x, -z) (north up), in its player's colour."""
    colours = {p["id"]: c for p, c in zip(scene["players"], (FIRST, SECOND), strict=True)}
    on_table = [t for t in scene["tanks"] if t["on_table"]]
    assert page.locator("#board .tank").count() == len(on_table)
    for t in on_table:
        node = page.locator(f'#board .tank[data-tank="{t["tank_id"]}"]')
        move = re.fullmatch(
            r"translate\((\S+) (\S+)\)(?: scale\((\S+)\))?", node.get_attribute("transform") or ""
        )
        assert move, node.get_attribute("transform")
        assert (float(move[1]), float(move[2])) == pytest.approx((t["x"], -t["z"]), abs=1e-3)
        assert float(move[3] or 1) == pytest.approx(scale, abs=1e-3)
        assert node.get_attribute("data-player") == t["player"]
        if "Destroyed" not in t["markers"]:
            assert node.locator(".hull rect").get_attribute("fill") == colours[t["player"]]


def check_players(page: Any, scene: dict[str, Any]) -> None:
    """Banner and legend name the players in the board's colours, by setup order."""
    for player, colour in zip(scene["players"], (FIRST, SECOND), strict=True):
        for where in ("#banner .player", "#legend li"):
            swatch = page.locator(f'{where}[data-player="{player["id"]}"] .swatch')
            assert swatch.evaluate("n => getComputedStyle(n).backgroundColor") == rgb(colour)
    active = scene["table"]["active_player"]
    if active:
        chip = page.locator("#banner .phase")
        colour = FIRST if active == scene["players"][0]["id"] else SECOND
        assert chip.evaluate("n => getComputedStyle(n).borderLeftColor") == rgb(colour)
    assert scene["ruleset_title"] in page.inner_text("#banner .rules")


def check_log(page: Any, table: Table) -> list[dict[str, Any]]:
    """One row per logged action, newest first, each with the faces its dice showed."""
    log = table.log()
    page.wait_for_selector(f'#log > li[data-seq="{log[-1]["seq"]}"]')
    rows = page.locator("#log > li")
    assert rows.count() == len(log)
    assert [int(s or 0) for s in rows.evaluate_all("ns => ns.map(n => n.dataset.seq)")] == [
        e["seq"] for e in reversed(log)
    ]
    for entry in log:
        row = page.locator(f'#log > li[data-seq="{entry["seq"]}"]')
        assert row.locator(".kind").inner_text() == entry["kind"]
        faces = row.locator(".die").evaluate_all("ns => ns.map(n => Number(n.dataset.face))")
        # Grouped by purpose on the page (each player's initiative dice together, ...).
        rolls = entry["result"].get("rolls", [])
        purposes = list(dict.fromkeys(r.get("purpose") or "" for r in rolls))
        grouped = [r["face"] for p in purposes for r in rolls if (r.get("purpose") or "") == p]
        assert faces == grouped
    return log


def pick(page: Any, unit: str) -> None:
    """Click ``unit`` on the board. The board is drawn afresh whenever the table changes or a
    unit is picked, so a click can land while the drawing it aimed at is being replaced;
    Playwright then finds the old circle without a box ("not visible"). Aim again at the
    new drawing: a real click on the unit's hit area, never a synthetic event."""
    where = f'#board .tank[data-tank="{unit}"] .hit-area'
    for attempt in range(3):
        page.locator(where).wait_for(state="attached")
        try:
            page.click(where, force=True, timeout=5_000)
            return
        except PlaywrightError:
            if attempt == 2:
                raise


def check_odds(page: Any, table: Table, unit: str) -> dict[str, Any]:
    """Pick ``unit`` on the board: per target, a bar per p_* chance, the exact fractions."""
    pick(page, unit)
    page.wait_for_selector(f'#odds[data-tank="{unit}"]')
    reply: dict[str, Any] = table.ok(table.http.get(table.path(f"/tanks/{unit}/odds")))
    assert reply["odds"], "pick a unit with a shot"
    for o in reply["odds"]:
        target = o.get("target", o.get("target_id"))
        block = page.locator(f'#odds .odds[data-target="{target}"]')
        bars = block.locator(":scope > .bar-row")
        shown = {
            b.get_attribute("data-kind"): float(b.get_attribute("data-p") or "nan")
            for b in bars.all()
        }
        wanted = {k[2:]: v for k, v in o.items() if k.startswith("p_")}
        assert shown == pytest.approx(wanted)
        # Behind the "Details" disclosure (closed): in the page, not on show.
        exact = block.locator(".odds-details .exact").text_content() or ""
        fractions = [o["exact"]] if isinstance(o["exact"], str) else o["exact"].values()
        assert all(f in exact for f in fractions)
    return reply


def check_no_odds(page: Any, table: Table, unit: str) -> dict[str, Any]:
    """Pick ``unit``: the ruleset refuses its odds; the panel says why, with the clause."""
    pick(page, unit)
    refused = table.http.get(table.path(f"/tanks/{unit}/odds"))
    assert refused.status_code in (409, 422)
    body: dict[str, Any] = refused.json()
    note = page.locator(f'#odds[data-tank="{unit}"] .no-odds[data-code="{body["code"]}"]')
    note.wait_for()
    assert body["message"] in note.inner_text() and body["clause"] in note.inner_text()
    assert page.locator("#odds .bar-row").count() == 0
    return body


def check_luck(page: Any, table: Table) -> None:
    """The chart has a row per player for each measure someone had a chance at, no other."""
    luck = table.ok(table.http.get(table.path("/luck")))
    counted = {
        m for p in luck["players"] for m, s in p.items() if isinstance(s, dict) and s["trials"]
    }
    assert counted, "play a shot first"
    page.wait_for_selector("#luck .luck-row")
    rows = page.locator("#luck .luck-row")
    assert rows.count() == len(counted) * len(luck["players"])
    for p in luck["players"]:
        for m in counted:
            row = page.locator(f'#luck .luck-row[data-player="{p["player"]}"][data-measure="{m}"]')
            assert row.get_attribute("data-observed") == str(p[m]["observed"])
            assert float(row.get_attribute("data-expected") or "nan") == pytest.approx(
                p[m]["expected"]
            )


def finish(page: Any, watch: Watch, url: str, ruleset: str, tmp_path: Path) -> None:
    # Every badge keyed in the legend; no label on another; nothing cut off at the edge.
    check_badges_keyed(page)
    assert board_overlaps(page) == []
    assert board_clipped(page) == []
    shot = tmp_path / f"page-{ruleset}.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 10_000
    # For people to look at: next to the TTT screenshot the lead asks for.
    if target := os.environ.get("TANKREF_PAGE_SCREENSHOT"):
        shutil.copyfile(shot, Path(target).parent / f"page-{ruleset}.png")
    watch.check_stayed_home(url)
    page.close()


def test_an_afv_table(browser: Any, tmp_path: Path) -> None:
    """Green and Black (Green first); woods and a hill; Green moves and machine-guns Black's
    infantry (spotting die, hit dice, damage dice); odds of Green's AFV, per weapon, with
    each damage result per hit; Black's units have no odds in Green's phase."""
    with live_referee(tmp_path / "referee.sqlite3") as live:
        setup = {"players": [{"id": "Green", "edge": "south"}, {"id": "Black", "edge": "north"}]}
        table = new_table(
            live.url, ruleset="afv", setup=setup, dice={"source": "table", "seed": "page-afv-01"}
        )
        table.ok(table.put_tank("G1", card="standard-afv", player="Green", x=0, z=0, facing=0))
        table.ok(table.put_tank("G2", card="ifv", player="Green", x=-14, z=-6, facing=30))
        infantry = {"card": "standard-infantry", "player": "Black", "facing": 180}
        table.ok(table.put_tank("K1", x=0, z=cm(30), **infantry))
        table.ok(table.put_tank("K2", card="standard-afv", player="Black", x=-12, z=16, facing=200))
        woods = {"kind": "woods", "shape": {"shape": "circle", "x": 10, "z": 10, "radius": 2}}
        hill = {
            "kind": "hill",
            "name": "Hill 112",
            "shape": {"shape": "polygon", "points": [[18, -10], [30, -10], [30, 0], [18, 0]]},
        }
        table.ok(table.http.put(table.path("/terrain/w1"), json=woods))
        table.ok(table.http.put(table.path("/terrain/hill"), json=hill))
        table.ok(table.act({"kind": "start_game"}))
        table.ok(table.put_tank("G1", card="standard-afv", player="Green", x=0, z=cm(10), facing=0))
        fire = {"kind": "fire", "tank_id": "G1", "target_id": "K1", "weapon": 1}
        table.ok(table.act(fire, dice={"faces": {"d6": [2, 6, 6, 2, 2, 4, 4]}}))

        page, watch = open_table(browser, live.url, table)
        scene = scene_drawn(page, table)
        check_units(page, scene)
        check_players(page, scene)
        assert page.locator("#board .terrain").count() == len(scene["terrain"]) == 2
        assert page.locator('[data-terrain="w1"]').get_attribute("r") == "2"
        assert page.locator('[data-terrain="hill"]').get_attribute("points") == (
            "18,10 30,10 30,0 18,0"  # north up: z is drawn as -y
        )
        labels = page.locator("#board text.terrain-label").all_text_contents()
        # By name, never the rule kind ("Woods", not "woods"; the ruleset's explanation in
        # brackets is left to the tooltip).
        assert sorted(labels) == ["Hill 112", "Woods"]
        kinds = {k.get_attribute("data-kind") for k in page.locator("#legend .terrain-kind").all()}
        assert kinds == {"woods", "hill"}
        line = page.locator("#board .line-of-fire")
        assert line.get_attribute("data-seq") == str(table.read()["seq"])
        # What came of the shot; the units' own labels name them.
        what = scene["line_of_fire"]["label"].rsplit(": ", 1)[1]
        assert line.locator(".fire-label").text_content() == f"last shot: {what}"
        log = check_log(page, table)
        assert [r["face"] for r in log[-1]["result"]["rolls"]] == [2, 6, 6, 2, 2, 4, 4]

        odds = check_odds(page, table, "G1")
        assert {o["target"] for o in odds["odds"]} == {"K2"}  # the machine gun has fired
        block = page.locator('#odds .odds[data-target="K2"]')
        assert "weapon name Main gun" in (block.locator(".facts").text_content() or "")
        per_hit = block.locator('.breakdown[data-breakdown="per_hit"] .bar-row')
        assert per_hit.count() == len(odds["odds"][0]["per_hit"])
        check_no_odds(page, table, "K2")  # Black's unit in Green's phase (AFV-SEQ1)
        check_luck(page, table)
        check_odds(page, table, "G1")  # for the screenshot
        finish(page, watch, live.url, "afv", tmp_path)
        table.close()


GRID = HexGrid(hex_width=2.0, orientation="flat", origin_x=1.0, origin_z=0.0)


def at(q: int, r: int) -> dict[str, float]:
    x, z = GRID.center(Hex(q, r))
    return {"x": x, "z": z}


def test_a_minimal_tank_combat_table(browser: Any, tmp_path: Path) -> None:
    """A flat hex map with a road and a town: the grid is drawn lightly over the whole map,
    the terrain hexes as hexagons, the tanks at their hex centres, sized to a hex. The page
    follows the game live: odds of R1 alone in the combat phase (the CRT column, the exact
    fraction), then R1 and R2 fire together and R1's odds give way to the refusal."""
    with live_referee(tmp_path / "referee.sqlite3") as live:
        setup = {
            "grid": GRID.model_dump(),
            "terrain": [
                {"q": 1, "r": 0, "kind": "road"},
                {"q": 2, "r": 0, "kind": "road"},
                {"q": 4, "r": 1, "kind": "town"},
            ],
            "designs": [
                {"id": "sniper", "name": "Sniper", "attack": 3, "defense": 1, "range": 5, "move": 1}
            ],
        }
        table = new_table(
            live.url, ruleset="mtc", setup=setup, dice={"source": "table", "seed": "page-mtc-01"}
        )
        table.ok(table.put_tank("R1", card="raider", player="Red", facing=0, **at(0, 0)))
        table.ok(table.put_tank("R2", card="sniper", player="Red", facing=0, **at(0, 2)))
        table.ok(table.put_tank("B1", card="standard", player="Blue", facing=180, **at(4, 0)))
        crater = {"kind": "crater", "shape": {"shape": "circle", **at(3, 3), "radius": 0.5}}
        table.ok(table.http.put(table.path("/terrain/crater-1"), json=crater))
        table.ok(table.act({"kind": "start_game"}, dice={"faces": {"d6": [4, 4, 5, 2]}}))

        page, watch = open_table(browser, live.url, table)
        scene = scene_drawn(page, table)
        assert scene["grid"] == GRID.model_dump()
        # The grid: every hex of the map, computed as tankref.core.hexgrid does.
        grid = page.locator("#board path.hex-grid")
        cells = list(GRID.hexes_in(-36, 36, -24, 24))
        assert scene["area"] == TableArea().model_dump()
        assert grid.get_attribute("data-cells") == str(len(cells))
        first = (grid.get_attribute("d") or "").split("Z")[0].removeprefix("M").split("L")
        drawn = [float(v) for p in first for v in p.split()]
        corners = [v for x, z in GRID.corners(cells[0]) for v in (x, -z)]
        assert drawn == pytest.approx(corners, abs=1e-3)
        assert page.locator("#board .grid line").count() == 0  # no 6" squares on a hex map
        # Terrain hexes as the scene's hexagons.
        assert page.locator("#board polygon.terrain").count() == len(scene["terrain"]) == 4
        road = next(t for t in scene["terrain"] if t["id"] == "hex:1,0")
        points = page.locator('[data-terrain="hex:1,0"]').get_attribute("points") or ""
        assert [float(v) for p in points.split() for v in p.split(",")] == pytest.approx(
            [v for x, z in road["shape"]["points"] for v in (x, -z)], abs=1e-3
        )
        # "road (1,0)": its name, the hex in brackets left to the tooltip; a name too long
        # for its hex ("crater") is not drawn (its colour, the legend and the tooltip say it).
        labels = page.locator("#board text.terrain-label").all_text_contents()
        assert sorted(labels) == ["road", "road", "town"]
        kinds = {k.get_attribute("data-kind") for k in page.locator("#legend .terrain-kind").all()}
        assert kinds == {"road", "town", "crater"}
        check_units(page, scene, scale=2.0 / 3.6)
        check_players(page, scene)

        # Movement: R1 drives two hexes along the road; then Red's combat phase.
        moved = table.ok(table.put_tank("R1", card="raider", player="Red", facing=90, **at(2, 0)))
        page.wait_for_selector(f'#log > li[data-seq="{moved["seq"]}"]')
        table.ok(table.act({"kind": "end_phase", "player": "Red"}))
        page.wait_for_selector('#banner .phase:has-text("Red\'s combat phase")')
        odds = check_odds(page, table, "R1")
        assert odds["odds"][0]["column"] == "1-1"
        assert "column 1-1" in (
            page.locator('#odds .odds[data-target="B1"] .facts').text_content() or ""
        )
        fire = {"kind": "fire", "tank_ids": ["R1", "R2"], "target_id": "B1"}
        shot = table.ok(table.act(fire, dice={"faces": {"d6": [2]}}))["seq"]
        page.wait_for_selector(f'#board .line-of-fire[data-seq="{shot}"]')
        refused = check_no_odds(page, table, "R1")  # live: R1 has fired this turn
        assert refused["clause"].startswith("MTC-")
        scene = scene_drawn(page, table)
        check_units(page, scene, scale=2.0 / 3.6)
        log = check_log(page, table)
        assert [r["face"] for r in log[-1]["result"]["rolls"]] == [2]
        check_luck(page, table)
        finish(page, watch, live.url, "mtc", tmp_path)
        table.close()


def test_a_tank_yard_table(browser: Any, tmp_path: Path) -> None:
    """Ann's and Bob's yards: their twelve spaces as rings in the owner's colour with their
    names; Ann's tank attacks Bob's party member on her artillery space (contest and damage
    dice); Bob's tank on its Shield space has no odds (the ruleset says so), then moves to
    Anti-tank and hits Ann's tank with advantage."""
    with live_referee(tmp_path / "referee.sqlite3") as live:
        setup = {
            "players": [{"id": "Ann", "defence": 1}, {"id": "Bob", "defence": 2}],
            "first_player": "Ann",
        }
        table = new_table(
            live.url, ruleset="yrd", setup=setup, dice={"source": "table", "seed": "page-yrd-01"}
        )
        table.ok(table.put_tank("A", card="yard-tank", player="Ann", x=0.5, z=-18.2, facing=0))
        table.ok(table.put_tank("B", card="yard-tank", player="Bob", x=-8, z=18, facing=180))
        piece = {"card": "party-member", "player": "Bob", "facing": 180}
        table.ok(table.put_tank("P1", x=0.3, z=-8.1, **piece))
        table.ok(table.act({"kind": "start_game"}))

        page, watch = open_table(browser, live.url, table)
        scene = scene_drawn(page, table)
        check_units(page, scene)
        check_players(page, scene)
        rings = page.locator("#board .ring")
        assert rings.count() == len(scene["rings"]) == 12
        colours = {"Ann": FIRST, "Bob": SECOND}
        for r in scene["rings"]:
            ring = page.locator(f'#board .ring[data-ring="{r["id"]}"]')
            circle = ring.locator("circle")
            assert (circle.get_attribute("cx"), circle.get_attribute("cy")) == (
                str(r["x"]).removesuffix(".0"),
                str(-r["z"]).removesuffix(".0"),
            )
            assert circle.get_attribute("r") == str(r["radius"]).removesuffix(".0")
            assert circle.get_attribute("stroke") == colours[r["owner"]]
            # The owner's colour says whose; the label names the space.
            label = r["label"].removeprefix(f"{r['owner']} ")
            assert ring.locator("text.ring-label").text_content() == label

        odds = check_odds(page, table, "A")
        assert [o["target"] for o in odds["odds"]] == ["P1"]
        damage = page.locator('#odds .breakdown[data-breakdown="damage"] .bar-row')
        assert damage.count() == len(odds["odds"][0]["damage"])
        attack = {"kind": "attack", "tank_id": "A", "target_id": "P1"}
        table.ok(table.act(attack, dice={"faces": {"d20": [15, 3], "d6": [4, 5]}}))
        table.ok(table.act({"kind": "end_turn"}))
        page.wait_for_selector('#banner .phase:has-text("Bob")')
        refused = check_no_odds(page, table, "B")
        assert refused["code"] == "ODDS_NOT_AVAILABLE"
        check_no_odds(page, table, "P1")  # a piece does not attack (YRD-EN1)

        table.ok(table.put_tank("B", card="yard-tank", player="Bob", x=8, z=18, facing=180))
        anti_tank = {"kind": "anti_tank", "tank_id": "B", "target_id": "A"}
        shot = table.ok(table.act(anti_tank, dice={"faces": {"d20": [2, 12, 5]}}))["seq"]
        page.wait_for_selector(f'#board .line-of-fire[data-seq="{shot}"]')
        table.ok(table.act({"kind": "end_turn", "player": "Bob"}))
        scene = scene_drawn(page, table)
        check_units(page, scene)
        tank = page.locator('#board .tank[data-tank="A"]')
        assert {b.get_attribute("data-marker") for b in tank.locator(".badge").all()} == set(
            next(t for t in scene["tanks"] if t["tank_id"] == "A")["markers"]
        )
        log = check_log(page, table)
        assert [r["face"] for r in log[-2]["result"]["rolls"]] == [2, 12, 5]
        check_luck(page, table)
        finish(page, watch, live.url, "yrd", tmp_path)
        table.close()
