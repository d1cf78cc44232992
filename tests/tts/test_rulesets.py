"""AFV, Minimal Tank Combat and the tank yard played only through the bundled Lua (real Lua
5.2, real HTTP, a live referee): the board makes a table of the save's ruleset, the units
are posted, and each unit's right-click menu is exactly what the referee's options allow
(no per-ruleset menu code: the items come from the option data). Orders go through the
menus and the target buttons; server dice on chosen seeds make every run the same."""

from __future__ import annotations

from typing import Any

from faketts import FakeTTS
from ttsplay import Game, Table, guid_of

from serverkit import LiveReferee
from tankref.core.hexgrid import Hex, HexGrid, hex_distance

# What a player reads on the menu for each allowed option kind (a refused one is absent).
LABELS = {
    "afv": {
        "move": "Move (drag the model)",
        "evade": "Evade",
        "spot": "Spot (pick a target)",
        "fire": "Fire ",
        "embark": "Embark on ",
        "disembark": "Disembark (point on the table)",
    },
    "mtc": {
        "move": "Move (drag the model)",
        "fire": "Fire (pick a target)",
        "end_phase": "End phase",
    },
    "yrd": {
        "move": "Move to the ",
        "attack": "Attack (pick a target)",
        "anti_tank": "Anti-tank (pick a target)",
        "end_turn": "End turn",
    },
}


def menu(tts: FakeTTS, guid: str) -> list[str]:
    return [item[0] for item in tts.get(guid).menu]


def assert_menu_matches_options(game: Game, ruleset: str, guid: str) -> dict[str, Any]:
    """The unit's menu offers each allowed option and nothing the referee refuses."""
    options = game.options(guid)
    labels = menu(game.tts, guid)
    for kind, option in options.items():
        offered = any(label.startswith(LABELS[ruleset][kind]) for label in labels)
        assert offered == option["allowed"], (kind, option, labels)
    assert labels[-1] == "What may it do?"
    return options


def assert_drawn_as_the_referee_says(game: Game) -> None:
    """Every unit's tooltip, name and badges are the referee's view of it, as the last log
    entry that changed it gave it (the scripts draw what entries say)."""
    views: dict[str, Any] = {}
    for entry in game.read("/log?limit=500")["entries"]:
        views.update({t["tank_id"]: t for t in entry["tanks"]})
    assert views
    for view in views.values():
        obj = game.tts.get(view["tank_id"])
        assert obj.description == view["tooltip"], view["tank_id"]
        assert obj.nickname == view["name"]
        assert game.tts.buttons(view["tank_id"]) == view["markers"]


def start(tts_table: Table, url: str, ruleset: str, seed: str, **kw: Any) -> Game:
    tts = tts_table(url, ruleset=ruleset, seed=seed, **kw)
    game = Game(tts, url, tts.tagged("tankref_board")[0].guid)
    game.press("New table")
    assert game.read()["ruleset"] == ruleset
    assert tts.said("tankref: table ")
    return game


def test_afv_through_the_menus(referee: LiveReferee, tts_table: Table) -> None:
    game = start(tts_table, referee.url, "afv", "tts-afv-0001")
    tts = game.tts
    assert "Ruleset: AFV" in tts.buttons(game.board)  # the save starts the board on AFV
    ifv, team = guid_of(tts, "Red 1"), guid_of(tts, "Red 2")
    afv, at_team = guid_of(tts, "Blue 1"), guid_of(tts, "Blue 2")
    assert {t["tank_id"] for t in game.read()["tanks"]} == {ifv, team, afv, at_team}
    kinds = {t["kind"] for t in game.read("/scene")["terrain"]}
    assert kinds == {"woods", "hill", "cover", "mud"}  # tagged with AFV's own kinds
    assert menu(tts, ifv) == ["End phase", "What may it do?"]  # setup: nothing to order yet
    game.press("Start game")
    assert tts.said("The game begins") or game.summary()["status"] == "playing"

    options = assert_menu_matches_options(game, "afv", ifv)
    weapons = [w["name"] for w in options["fire"]["detail"]["weapons"]]
    assert [f"Fire {w} (pick a target)" for w in weapons] == [
        label for label in menu(tts, ifv) if label.startswith("Fire ")
    ]  # one item per weapon system
    team_options = assert_menu_matches_options(game, "afv", team)
    assert team_options["embark"]["allowed"], team_options["embark"]
    assert f"Embark on {tts.get(ifv).nickname}" in menu(tts, team)

    # The team boards the carrier from its menu.
    game.order(team, "Embark on ")
    assert game.read("/log?limit=50")["entries"][-1]["kind"] == "embark"
    # The carrier fires its first weapon at the AFV: odds over the target, then the shot.
    game.order(ifv, f"Fire {weapons[0]}")
    fire = [b for b in tts.buttons(afv) if b.startswith("Fire (")]
    assert fire and " cm): " in fire[0] and "hit " in fire[0]
    assert f"If {tts.get(ifv).nickname} fires: hit " in tts.get(afv).description
    chat_before = len(tts.chat)
    tts.click(afv, "Fire")
    tts.settle()
    shot = game.read("/log?limit=50")["entries"][-1]
    assert shot["kind"] == "fire" and shot["action"]["weapon"] == 0
    assert [c.text for c in tts.chat[chat_before:]][: len(shot["chat"])] == shot["chat"]
    assert_drawn_as_the_referee_says(game)
    assert_menu_matches_options(game, "afv", ifv)  # rebuilt after the shot
    game.order(ifv, "End phase")
    assert game.summary()["active_player"] == "Blue"
    assert_menu_matches_options(game, "afv", afv)


def test_mtc_moves_snap_to_hexes_and_tanks_fire_together(
    referee: LiveReferee, tts_table: Table
) -> None:
    grid = HexGrid(hex_width=2.0, orientation="pointy", origin_x=0.0, origin_z=0.0)
    moves = {
        "Red 1": (0.0, -2.0, 0.0),
        "Red 2": (2.0, -2.0, 0.0),
        "Blue 1": (0.0, 2.0, 180.0),
        "Blue 2": (2.0, 2.0, 180.0),
    }
    game = start(tts_table, referee.url, "mtc", "tts-mtc-0001", moves=moves)
    tts = game.tts
    assert game.read()["state"]["grid"] == grid.model_dump()  # the grid the save draws
    game.press("Start game")
    active = game.summary()["active_player"]
    own = [guid_of(tts, f"{active} 1"), guid_of(tts, f"{active} 2")]
    enemy = guid_of(tts, "Blue 1" if active == "Red" else "Red 1")

    # Movement phase: move offered (by dragging), fire not.
    options = assert_menu_matches_options(game, "mtc", own[0])
    game.order(own[0], "Move")
    assert tts.said("drag the model to move (MOVE ")
    # Drag into a neighbouring hex, off its centre: the referee snaps the model to the centre.
    here = Hex(*options["move"]["detail"]["from"])
    target = grid.hex_at(*tts.get(enemy).position[::2])
    step = min(
        (Hex(*h["hex"]) for h in options["move"]["detail"]["hexes"] if h["cost"] == 1),
        key=lambda h: hex_distance(h, target),
    )
    assert step != here
    x, z = grid.center(step)
    game.drive(own[0], round(x + 0.3, 2), round(z - 0.2, 2))
    position = tts.get(own[0]).position
    assert (round(position[0], 3), round(position[2], 3)) == (round(x, 3), round(z, 3))
    game.press("End phase")  # to the combat phase

    # Combined fire: pick the target, add the partner, fire together.
    options = assert_menu_matches_options(game, "mtc", own[0])
    assert options["fire"]["allowed"], options["fire"]
    game.order(own[0], "Fire (pick a target)")
    assert any(b.startswith("Joins the fire: no") for b in tts.buttons(own[1]))
    tts.click(own[1], "Joins the fire")
    assert "Joins the fire: yes" in tts.buttons(own[1])
    assert f"If {tts.get(own[0]).nickname} fires: " in tts.get(enemy).description
    tts.click(enemy, "Fire")
    tts.settle()
    shot = game.read("/log?limit=50")["entries"][-1]
    assert shot["kind"] == "fire" and shot["action"]["tank_ids"] == own
    assert tts.said(shot["chat"][0])
    assert_drawn_as_the_referee_says(game)


def test_the_tank_yard_through_the_menus(referee: LiveReferee, tts_table: Table) -> None:
    game = start(tts_table, referee.url, "yrd", "tts-yrd-0001")
    tts = game.tts
    red, blue = guid_of(tts, "Red tank"), guid_of(tts, "Blue tank")
    piece = guid_of(tts, "Blue piece")
    assert len(game.read()["tanks"]) == 4  # two tanks, two pieces
    assert game.read("/scene")["terrain"] == []  # the yard markers are not terrain
    rings = [line for line in tts.global_lines if len(line["points"]) > 2]
    assert len(rings) == 12  # every yard space, as the referee's scene draws it
    game.press("Start game")

    # Red's tank on its Attack space: attack the piece on Red's artillery space.
    assert_menu_matches_options(game, "yrd", red)
    assert "Move to the Anti-tank space" in menu(tts, red)
    game.order(red, "Attack")
    assert any(b.startswith("Attack: ") for b in tts.buttons(piece))
    tts.click(piece, "Attack")
    tts.settle()
    attack = game.read("/log?limit=50")["entries"][-1]
    assert attack["kind"] == "attack" and tts.said(attack["chat"][0])
    assert_menu_matches_options(game, "yrd", red)  # its one attack is spent
    game.order(red, "End turn")
    assert game.summary()["active_player"] == "Blue"

    # Blue's tank on its Anti-tank space fires at Red's tank, then moves to its Shield.
    assert_menu_matches_options(game, "yrd", blue)
    game.order(blue, "Move to the Shield space")
    position = tts.get(blue).position
    assert (position[0], position[2]) == (-8.0, 18.0)  # the model goes to the space
    assert_menu_matches_options(game, "yrd", blue)
    assert_drawn_as_the_referee_says(game)
