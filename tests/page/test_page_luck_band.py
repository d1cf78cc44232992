"""The luck chart's whisker is the referee's band (issue 17 item 6): the page draws
``fair_range`` as it is given and works nothing out itself, so the observed bar ends inside
the whisker exactly when the words say "about as expected"."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any

from pagekit import Watch
from serverkit import live_referee
from tankref.core.luck import LuckTrial, luck_by_player


def test_the_whisker_is_the_band_the_words_use(browser: Any, tmp_path: Path) -> None:
    """Every count of 8 shots at 11/16 (5.5 expected) for Red and of 5 morale checks at 1/2
    for Blue, drawn by the page's own luckNodes: each row's whisker spans its fair_range, and
    the bar's end lies within it exactly when the verdict is as_expected."""
    replies = []
    for k in range(9):
        trials = [LuckTrial("Red", "hit", Fraction(11, 16), i < k) for i in range(8)]
        trials += [LuckTrial("Blue", "morale_failure", Fraction(1, 2), i < k) for i in range(5)]
        players = luck_by_player(trials, ["Red", "Blue"])
        replies.append({"players": [p.model_dump() for p in players], "significance": ""})
    with live_referee(tmp_path / "referee.sqlite3") as live:
        page = browser.new_page()
        watch = Watch(page)
        page.goto(f"{live.url}/")
        page.wait_for_selector("#tables")
        drawn = page.evaluate(
            """async (replies) => {
                const { luckNodes } = await import("/page/charts.js");
                const box = document.createElement("div");
                document.body.append(box);
                return replies.map((reply) => {
                    box.replaceChildren(...luckNodes(reply, new Map()).filter(Boolean));
                    return [...box.querySelectorAll(".luck-row")].map((row) => {
                        const fair = row.querySelector("line.fair");
                        const bar = row.querySelector("rect");
                        const x = (name) => Number(bar.getAttribute(name));
                        return { player: row.dataset.player, measure: row.dataset.measure,
                                 band: row.dataset.band, verdict: row.getAttribute("class"),
                                 x1: Number(fair.getAttribute("x1")),
                                 x2: Number(fair.getAttribute("x2")),
                                 end: x("x") + x("width") };
                    });
                });
            }""",
            replies,
        )
        watch.check_stayed_home(live.url)
        page.close()
    checked = 0
    for reply, rows in zip(replies, drawn, strict=True):
        assert len(rows) == 4  # both players, each on the two measures counted at all
        for row in rows:
            player = next(p for p in reply["players"] if p["player"] == row["player"])
            luck = player[row["measure"]]
            lo, hi = luck["fair_range"]
            assert row["band"] == f"{lo}-{hi}"
            assert row["verdict"] == f"luck-row verdict-{luck['verdict']}"
            inside = row["x1"] - 1e-6 <= row["end"] <= row["x2"] + 1e-6
            assert inside == (luck["verdict"] == "as_expected"), (row, luck)
            checked += 1
    assert checked == 36
