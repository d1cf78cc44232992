"""The result vocabulary: what any front end renders without knowing the rules."""

from __future__ import annotations

from kit.ttt import Game, duel
from tankref.core.results import Result
from tankref.rulesets.ttt.actions import Engage, Move, RemoveTank, Wait
from tankref.rulesets.ttt.presentation import _markers, _tooltip_head, markers, tooltip
from tankref.rulesets.ttt.state import TankState


def test_engage_result_is_structured_and_round_trips_through_json() -> None:
    """TTT-E4/TTT-E5/TTT-E7: rolls in the order thrown with why; modifiers with clauses; the
    outcome; each changed tank with markers and a tooltip; all of it plain JSON."""
    g = duel()
    g.do(Move(tank_id="R1", x=0, z=-16, facing=0))
    result = g.do(
        Engage(tank_id="R1", target_id="B1"),
        white=[6, 1],
        red=[5, 5, 3, 1, 1],
        green=[6],
        card="Gun Damaged",
    )
    assert [(r.die, r.purpose) for r in result.rolls] == [
        ("white", "for Accuracy"),
        ("white", "for Accuracy"),
        *[("red", "for Penetration")] * 5,
        ("green", "for the morale check of M4A1 Sherman (75 mm) (B1)"),
    ]
    assert result.rolls[0].icons == ("HIT", "HIT")
    assert [(m.clause, m.amount, m.applies_to) for m in result.modifiers] == [
        ("TTT-M1", -2, "accuracy_dice")
    ]
    assert result.outcome["penetrated"] is True and result.outcome["damage_card"] == "Gun Damaged"
    b1 = next(c for c in result.changes if c.tank_id == "B1")
    assert b1.markers == ["Routed", "Gun Damaged"]
    assert b1.changes["morale"] == ["ok", "routed"]
    assert "Status: Routed, Gun Damaged" in b1.tooltip
    assert "Last: Morale check for M4A1 Sherman (75 mm) (B1)" in b1.tooltip
    r1 = next(c for c in result.changes if c.tank_id == "R1")
    assert r1.changes["engaged"] == [False, True]
    assert "Last: Tiger I Ausf. E (R1) engages" in r1.tooltip
    again = Result.model_validate_json(result.model_dump_json())
    assert again == result


def test_markers_follow_the_state() -> None:
    """TTT-W1/TTT-CR1: the marker list names Grizzled and Wait as the tank gets them."""
    g = duel(red_grizzled=True)
    result = g.do(Wait(tank_id="R1"))
    (change,) = result.changes
    assert change.markers == ["Grizzled", "Wait"]
    assert change.changes == {"waiting": [False, True]}


# One field at a time, a value that shows a marker the quiet tank does not.
MARKED: dict[str, object] = {
    "destroyed": True, "removed": True, "on_table": False, "crew": "grizzled",
    "morale": "shaken", "moved": "fast", "waiting": True, "immobilized": True,
    "must_recover": True, "gun_damage": 2, "optics_damage": 1, "engine_damaged": True,
    "turret_jammed": True, "stunned": "next", "hull_down": True,
}  # fmt: skip


def test_markers_kept_by_status_are_never_stale() -> None:
    """Markers are kept by the fields they are read from: a tank that differs from one seen
    before in any one of them (an edit) gets its own markers, worked out afresh, not the
    other's; and each call hands back a list of its own."""
    tank = duel().state.tanks["R1"]
    quiet = tank.model_copy(update={"crew": "scared", "morale": "ok", "stunned": "no"})
    seen = markers(quiet)
    assert markers(quiet) == seen == _markers(quiet)
    seen.append("scribbled")
    assert "scribbled" not in markers(quiet)
    for field, value in MARKED.items():
        edited = quiet.model_copy(update={field: value})
        assert markers(edited) == _markers(edited) != _markers(quiet), field
        again = edited.model_copy(update={"morale": "routed"})  # a second edit on top
        assert markers(again) == _markers(again), field


def _fresh_tooltip(tank: TankState, last: str | None = None) -> str:
    head = _tooltip_head(tank, _markers(tank))
    return f"{head}\nLast: {last}" if last else head


def test_tooltips_kept_by_status_and_card_are_never_stale() -> None:
    """The tooltip's lines above the last result are kept with the markers, by the status
    fields and the card: a tank that differs from one seen before in any one of them gets
    its own text, written afresh; the last result line is the caller's, never kept."""
    g = duel()
    tank = g.state.tanks["R1"]
    other_card = g.state.tanks["B1"].card
    assert other_card is not tank.card and other_card.name != tank.card.name
    quiet = tank.model_copy(update={"crew": "scared", "morale": "ok", "stunned": "no"})
    assert tooltip(quiet) == tooltip(quiet) == _fresh_tooltip(quiet)
    assert tooltip(quiet, "it fired") == _fresh_tooltip(quiet, "it fired")
    assert tooltip(quiet) == _fresh_tooltip(quiet)  # the last line was not kept
    for field, value in [*MARKED.items(), ("card", other_card)]:
        edited = quiet.model_copy(update={field: value})
        assert tooltip(edited) == _fresh_tooltip(edited) != _fresh_tooltip(quiet), field
        again = edited.model_copy(update={"morale": "shaken"})  # a second edit on top
        assert tooltip(again, "last") == _fresh_tooltip(again, "last"), field


def test_removing_a_tank_in_setup_is_reported() -> None:
    """TTT-S1: taking a tank off the table during setup is a change the front ends see."""
    g = Game()
    g.place("R1", "tiger-i", "Red", 0, -20)
    result = g.do(RemoveTank(tank_id="R1"))
    assert [(c.tank_id, c.changes) for c in result.changes] == [("R1", {"removed": [False, True]})]
    assert "R1" not in g.state.tanks


def _fields_read(func: object, owner: str) -> set[str]:
    """The attributes ``func`` reads off its parameter ``owner``, properties followed into
    the fields they read (``self.x`` in their own source)."""
    import ast
    import inspect
    import textwrap

    from tankref.rulesets.ttt.state import TankState

    tree = ast.parse(textwrap.dedent(inspect.getsource(func)))  # type: ignore[arg-type]
    names = {
        node.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == owner
    }
    out: set[str] = set()
    for name in names:
        prop = getattr(TankState, name, None)
        if isinstance(prop, property):
            out |= _fields_read(prop.fget, "self")
        else:
            out.add(name)
    return out


def test_markers_cache_key_holds_every_field_the_markers_read() -> None:
    """The markers cache is keyed by ``_status_fields``: every field ``_markers`` reads
    (directly or through a property such as ``grizzled``) must be in that key, or an edit of
    the missing field would hand back another status's markers. Read from the code itself,
    so a marker added later without its field in the key fails here."""
    from tankref.rulesets.ttt import presentation
    from tankref.rulesets.ttt.state import TankState

    read = _fields_read(presentation._markers, "tank")
    assert read <= set(TankState.model_fields), read - set(TankState.model_fields)
    assert {"crew", "hull_down"} <= read  # the walk found the reads, through properties too
    keyed = set(presentation._status_fields.__reduce__()[1])  # the itemgetter's names
    assert read <= keyed, f"read but not in the cache key: {sorted(read - keyed)}"
    # the tooltip's head is kept in the same entry, keyed by the card as well
    head = _fields_read(presentation._tooltip_head, "tank")
    assert {"card", "crew", "morale"} <= head
    assert head <= keyed | {"card"}, f"read but not in the cache key: {sorted(head - keyed)}"
