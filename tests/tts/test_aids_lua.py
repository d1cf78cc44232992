"""The aids through the bundled Lua in the fake TTS against a live referee (issue 20): a held
unit's rings for the seat that may move it, "Show arcs", the target lines coloured by the
referee's readings, and the players' own drawings kept."""

from __future__ import annotations

import math
from typing import Any

import pytest
from faketts import FakeTTS
from ttsplay import Game, Table, guid_of

from serverkit import LiveReferee

SEED = "tts-aids-0001"
# Red 1 looks at Blue 1 across open ground and at Blue 2 straight through the Farmhouse.
MOVES = {"Red 1": (24.0, -20.0, 0.0), "Blue 1": (0.0, 20.0, 180.0), "Blue 2": (24.0, 20.0, 180.0)}
COLOURS = {  # aids.lua's colour per reading
    "clear": [0.2, 0.85, 0.2],
    "light": [0.75, 0.9, 0.3],
    "cover": [0.3, 0.6, 1],
    "heavy": [1, 0.6, 0.1],
    "smoke": [0.75, 0.75, 0.75],
    "blocked": [0.9, 0.1, 0.1],
}


def _thick(tts: FakeTTS, thickness: float) -> list[dict[str, Any]]:
    return [
        line
        for line in tts.global_lines
        if line not in tts.save_lines and abs(line.get("thickness", 0) - thickness) < 1e-6
    ]


def rings(tts: FakeTTS) -> list[tuple[float, float, float]]:
    """The aids' rings drawn now: (centre x, centre z, radius)."""
    out = []
    for line in _thick(tts, 0.15):
        pts = line["points"][:-1]
        cx = sum(p[0] for p in pts) / len(pts)
        cz = sum(p[2] for p in pts) / len(pts)
        out.append(
            (round(cx, 2), round(cz, 2), round(math.hypot(pts[0][0] - cx, pts[0][2] - cz), 2))
        )
    return sorted(out)


def _game(referee: LiveReferee, tts_table: Table) -> tuple[Game, FakeTTS]:
    tts = tts_table(referee.url, keep=("Red 1", "Blue 1", "Blue 2"), seed=SEED, moves=MOVES)
    game = Game(tts, referee.url, tts.tagged("tankref_board")[0].guid)
    game.begin()
    return game, tts


def test_held_unit_shows_its_rings_for_its_seat_only_TTT_M1_M2(
    referee: LiveReferee, tts_table: Table
) -> None:
    """TTT-M1/TTT-M2: Red's seat picking up Red 1 draws the Normal and Fast rings the referee
    gives (Movement and twice it, around where it began its phase), the chat naming the
    holder; dropping clears them; Blue's seat picking it up draws nothing and reads nothing.
    A player's own Vector Paint survives every redraw."""
    game, tts = _game(referee, tts_table)
    r1 = guid_of(tts, "Red 1")
    tts.paint([(0, 1.2, 0), (5, 1.2, 5)], color="Blue")
    painted = tts.global_lines[-1]
    aids = game.read(f"/tanks/{r1}/aids")
    want = sorted((r["x"], r["z"], r["radius"]) for r in aids["move"])
    movement = game.read()["state"]["tanks"][r1]["card"]["movement"]
    assert [w[2] for w in want] == [movement, 2 * movement]

    assert tts.grab(r1, color="Blue")
    tts.run(0.5)
    assert rings(tts) == []
    assert not any(url.endswith("/aids") for _, url, _ in tts.requests)
    tts.release(r1)
    tts.settle()

    assert tts.grab(r1, color="Red")
    tts.run_until(lambda: rings(tts) != [], 10, "rings drawn")
    assert [(x, z, r) for x, z, r in rings(tts)] == [(x, z, float(r)) for x, z, r in want]
    assert tts.said("holds Red 1")
    assert painted in tts.global_lines
    tts.drop(r1, 24, -17, 0, color="Red")
    tts.settle()
    assert rings(tts) == []
    assert painted in tts.global_lines
    assert game.read()["state"]["tanks"][r1]["moved"] == "normal"


def test_show_arcs_toggles_and_target_lines_follow_the_readings_TTT_E2_E1(
    referee: LiveReferee, tts_table: Table
) -> None:
    """TTT-E2: "Show arcs" draws the unit's front, side and rear wedges and a second choice
    takes them away. TTT-E1/TTT-CV1: while Red 1 picks a target every enemy gets a line in the
    colour of the referee's reading; Blue 2, behind the Farmhouse, is blocked and says why on
    hover; cancelling the pick takes the lines and the note away."""
    game, tts = _game(referee, tts_table)
    r1, b1, b2 = (guid_of(tts, n) for n in ("Red 1", "Blue 1", "Blue 2"))
    tts.menu(r1, "Show arcs", color="Blue")  # looking is anyone's
    tts.run_until(lambda: _thick(tts, 0.12) != [], 10, "arcs drawn")
    wedges = _thick(tts, 0.12)
    assert len(wedges) == 4  # front, two sides, rear (45° each way by default)
    assert all(w["points"][0][0] == 24 and w["points"][0][2] == -20 for w in wedges)
    tts.menu(r1, "Show arcs", color="Blue")
    tts.run(0.2)
    assert _thick(tts, 0.12) == []

    lines = {li["target_id"]: li for li in game.read(f"/tanks/{r1}/aids")["lines"]}
    assert lines[b2]["reading"] == "blocked" and not lines[b2]["may_fire"]
    assert lines[b1]["may_fire"]
    before = tts.get(b2).description
    game.order(r1, "Engage")
    tts.run_until(lambda: len(_thick(tts, 0.2)) == 2, 10, "target lines")
    drawn = {
        (round(li["points"][1][0], 2), round(li["points"][1][2], 2)): li["color"]
        for li in _thick(tts, 0.2)
    }
    for line in lines.values():
        assert drawn[(line["x2"], line["z2"])] == COLOURS[line["reading"]], line
    assert "may not engage it" in tts.get(b2).description
    assert "TTT-E1" in tts.get(b2).description
    tts.click(r1, "Cancel target", color="Red")
    tts.run(0.2)
    assert _thick(tts, 0.2) == []
    assert tts.get(b2).description == before


def test_vector_lines_have_no_per_seat_field_in_the_fake() -> None:
    """TTS draws Global vector lines for every seat (VectorLine: points, color, thickness,
    loop, rotation, square; api-names.json): a script that tries to draw for one seat only
    fails in the fake instead of silently drawing for all."""
    tts = FakeTTS()
    tts.global_script = (
        "function for_red() Global.setVectorLines({{points = {{0, 1, 0}, {1, 1, 1}}, "
        'color = {1, 0, 0}, thickness = 0.1, visible_to = "Red"}}) end\n'
        "function for_all() Global.setVectorLines({{points = {{0, 1, 0}, {1, 1, 1}}, "
        "color = {1, 0, 0}, thickness = 0.1, loop = false}}) end"
    )
    tts.load()
    try:
        with pytest.raises(Exception, match="visible_to"):
            tts.global_runtime.globals()["for_red"]()
        tts.global_runtime.globals()["for_all"]()
        assert len(tts.global_lines) == 1
    finally:
        tts.close()
