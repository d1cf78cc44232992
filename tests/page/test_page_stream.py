"""The page for a streamer (issue 17, item 9), in Debian's headless Chromium against the real
referee, on the game ``tankref demo`` plays (its own code, through the HTTP API).

At 1280x720 and 1920x1080, in the normal view and in ``?view=stream``: the page fills the
window without scrolling and no element pokes out of it; everything on the board lies inside
the board (a tank at or past the table's edge is not cut off); no two labels on the board
overlap (the bounding boxes of its SVG text elements); units are shown by their names, not
their ids; every badge on the board has its marker in the legend; terrain is labelled by its
name. The odds read "7 in 10 to hit", with the exact fractions behind a disclosure; the log's
outcome fields carry their units. Screenshots go to tests/page/screenshots/ (not committed).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import httpx
import pytest

from pagekit import Watch, board_clipped, board_overlaps, check_badges_keyed
from serverkit import live_referee
from tankref.server.demo import play

SHOTS = Path(__file__).parent / "screenshots"
SIZES = ((1280, 720), (1920, 1080))
VIEWS = ("normal", "stream")

# Every element of the page that lies outside the window, unless a scrolling panel of the
# page holds it (a long log scrolls within its panel; the page itself never does).
OUTSIDE = """() => {
  const w = innerWidth, h = innerHeight, out = [];
  const scrolls = (n) => ["auto", "scroll", "hidden"].includes(getComputedStyle(n).overflowY)
    || ["auto", "scroll", "hidden"].includes(getComputedStyle(n).overflowX);
  for (const n of document.body.querySelectorAll("*")) {
    const r = n.getBoundingClientRect();
    if (!r.width && !r.height) continue;
    let held = false;
    for (let p = n.parentElement; p && p !== document.body; p = p.parentElement) {
      if (p instanceof HTMLElement && scrolls(p)) { held = true; break; }
    }
    // What is inside the board is checked against the board (pagekit.board_clipped).
    if (n.closest("svg") && n.tagName.toLowerCase() !== "svg") held = true;
    if (held) continue;
    if (r.left < -0.5 || r.top < -0.5 || r.right > w + 0.5 || r.bottom > h + 0.5) {
      const box = [r.left, r.top, r.right, r.bottom].map(Math.round);
      out.push(`${n.tagName}#${n.id} ${n.getAttribute("class") || ""} ${box}`);
    }
  }
  return out;
}"""


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """A referee with the demo's game played on it (seed 1, four turns)."""
    db = tmp_path_factory.mktemp("referee") / "referee.sqlite3"
    with live_referee(db) as live:
        final = play(live.url, 1, 4, lambda _line: None)
        yield live.url, final["table_id"]


def opened(
    browser: Any, url: str, table_id: str, size: tuple[int, int], view: str
) -> tuple[Any, Watch, dict[str, Any]]:
    """The demo table at ``size``, in ``view``, once its board and last result are drawn."""
    scene: dict[str, Any] = httpx.get(f"{url}/tables/{table_id}/scene").json()
    page = browser.new_page()
    watch = Watch(page)
    page.set_viewport_size({"width": size[0], "height": size[1]})
    query = "?view=stream" if view == "stream" else ""
    page.goto(f"{url}/{query}#/tables/{table_id}")
    page.wait_for_selector(f'#board[data-seq="{scene["seq"]}"]')
    page.wait_for_selector(f'#last-result[data-seq="{scene["seq"]}"]')
    return page, watch, scene


@pytest.mark.parametrize("view", VIEWS)
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_demo_game_fits_the_screen_with_names_a_legend_and_no_label_on_another(
    browser: Any, demo: Any, size: tuple[int, int], view: str
) -> None:
    url, table_id = demo
    page, watch, scene = opened(browser, url, table_id, size, view)
    SHOTS.mkdir(exist_ok=True)
    shot = SHOTS / f"demo-{view}-{size[0]}x{size[1]}.png"
    page.screenshot(path=str(shot))
    assert shot.stat().st_size > 10_000

    # Fills the window, never scrolls; nothing pokes out of it or out of the board.
    scroll = page.evaluate(
        "() => [document.documentElement.scrollWidth, document.documentElement.scrollHeight]"
    )
    assert scroll[0] <= size[0] and scroll[1] <= size[1], scroll
    assert page.evaluate(OUTSIDE) == []
    assert board_clipped(page) == []
    board = page.locator("#board").bounding_box()
    assert board["width"] >= 0.6 * size[0] and board["height"] >= 0.6 * size[1], board
    if view == "stream":
        # The board and the last result only, on a page OBS can key out.
        for hidden in (".top", "#banner", ".side", "#legend"):
            assert not page.locator(hidden).is_visible(), hidden
        assert (
            page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgba(0, 0, 0, 0)"
        )
        assert board["width"] >= 0.95 * size[0]
    last = page.locator("#last-result")
    assert last.is_visible()
    newest = httpx.get(f"{url}/tables/{table_id}/log?after={scene['seq'] - 1}").json()["entries"][0]
    assert newest["chat"][0] in last.inner_text()

    # No two labels on the board overlap.
    assert page.locator("#board text").count() > 8
    assert board_overlaps(page) == []

    # Names, not ids: each unit's label is its name (the id only beside a shared name).
    ids = {t["tank_id"] for t in scene["tanks"]}
    names = [t["name"] for t in scene["tanks"]]
    for t in scene["tanks"]:
        if not t["on_table"]:
            continue
        label = page.locator(f'#board .tank[data-tank="{t["tank_id"]}"] .tank-label').text_content()
        assert label is not None and label.startswith(t["name"]) and label not in ids
        if names.count(t["name"]) > 1:
            assert label == f"{t['name']} ({t['tank_id']})"  # two Shermans: told apart
    fire = page.locator("#board .fire-label").text_content() or ""
    assert fire.startswith("last shot: ") and not any(i in fire.split() for i in ids)
    # Terrain by its name as the ruleset gives it, never the rule kind.
    labels = sorted(page.locator("#board text.terrain-label").all_text_contents())
    assert labels == sorted(t["label"] for t in scene["terrain"]) == ["Farmhouse", "Hollow Wood"]

    if view == "normal":
        # Every badge drawn is in the legend with the marker it stands for.
        assert page.locator("#board .badge").count(), "the demo's game ends with markers"
        check_badges_keyed(page)
    watch.check_stayed_home(url)
    page.close()


def test_the_odds_read_in_words_with_the_fractions_behind_a_disclosure(
    browser: Any, demo: Any
) -> None:
    """Pick a unit: "N in 10 to hit" on the bars, the exact fractions and the shot's facts (range
    in inches) only once "Details" is opened; the log's outcome range in inches."""
    url, table_id = demo
    page, watch, scene = opened(browser, url, table_id, (1280, 720), "normal")
    shooter = next(
        t["tank_id"]
        for t in scene["tanks"]
        if t["in_play"]
        and httpx.get(f"{url}/tables/{table_id}/tanks/{t['tank_id']}/odds").status_code == 200
    )
    reply = httpx.get(f"{url}/tables/{table_id}/tanks/{shooter}/odds").json()
    page.locator(f'#board .tank[data-tank="{shooter}"] .hit-area').click(force=True)
    page.wait_for_selector(f'#odds[data-tank="{shooter}"] .odds')
    # The picked unit's aids (lines of fire, each with its reading) keep clear of the labels.
    page.wait_for_selector("#board .aids-layer .aid-reading")
    assert board_overlaps(page) == []
    odds = reply["odds"][0]
    block = page.locator(f'#odds .odds[data-target="{odds["target"]}"]')
    hit = block.locator(':scope > .bar-row[data-kind="hit"]')
    assert 0.095 <= odds["p_hit"] < 0.95, "a chance said in tenths (test_page_words has the rest)"
    tenths = math.floor(10 * odds["p_hit"] + 0.5)
    assert hit.locator(".bar-value").inner_text() == f"{tenths} in 10"
    assert hit.get_attribute("aria-label") == f"{tenths} in 10 to hit"
    names = {t["tank_id"]: t["name"] for t in scene["tanks"]}
    heading = block.locator("h3").inner_text()
    assert heading.startswith(f"{names[shooter]} → {names[odds['target']]}")
    assert heading.endswith(f"at {round(odds['range'], 1):g} in")
    assert not block.locator(".exact").is_visible()
    assert not block.locator(".facts").is_visible()
    block.locator(".odds-details summary").click()
    exact = block.locator(".exact").inner_text()
    assert all(f in exact for f in odds["exact"].values())
    assert f"range {round(odds['range'], 1):g} in" in block.locator(".facts").inner_text()

    # The log: the last shot's range with its unit.
    shot = next(
        e
        for e in reversed(httpx.get(f"{url}/tables/{table_id}/log?limit=500").json()["entries"])
        if e["kind"] == "engage"
    )
    row = page.locator(f'#log > li[data-seq="{shot["seq"]}"]')
    assert row.count() == 1, "the demo's last shot is on the log's newest page"
    row.locator("summary").click()
    outcome = row.locator(".outcome").inner_text()
    assert f"{round(shot['result']['outcome']['range'], 1):g} in" in outcome
    watch.check_stayed_home(url)
    page.close()
