"""A shot's modifiers from the shooter, the target and the line of fire (TTT-E4, TTT-M1,
TTT-MR1, TTT-E7, TTT-E5, TTT-CV1, TTT-CN1, TTT-SM3, TTT-M2) are built once per set of inputs
and kept (issue 18). Kept or built anew, a plan must be the same, and an option edited
between two shots must give the second shot the records its own options make, never the
first shot's."""

from __future__ import annotations

from itertools import product
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from kit.ttt import Game
from tankref.rulesets.ttt import combat
from tankref.rulesets.ttt.cards import default_cards
from tankref.rulesets.ttt.combat import EngagePlan, plan_engage
from tankref.rulesets.ttt.sight import LineOfFire
from tankref.rulesets.ttt.state import Options, SmokeScreen, TableState


def crossed_table() -> TableState:
    """Red's Tiger fires at Blue's Sherman across a wall (Cover 1) and a wood the Sherman
    stands in (heavy concealment), with a -2 screen on the line."""
    g = Game(options=Options(deploy_depth=48.0))
    wall = {"shape": "polygon", "points": [[-6, 1], [6, 1], [6, 3], [-6, 3]]}
    g.terrain("wall", "cover1", wall)
    g.terrain("wood", "forest", {"shape": "circle", "x": 0, "z": 20, "radius": 4})
    g.place("R1", "tiger-i", "Red", 0, -20, 0)
    g.place("B1", "m4a1-sherman", "Blue", 0, 20, 180)
    g.crew("R1")
    g.crew("B1")
    g.start()
    screen = SmokeScreen(id=1, owner="Red", tank_id="R1", ability="pots", x=0, z=-10, strength=2)
    state: TableState = g.state.model_copy(update={"smoke": (screen,)})
    return state


def plan_of(state: TableState) -> EngagePlan:
    return plan_engage(state, "R1", "B1")


def built_anew(state: TableState) -> EngagePlan:
    """The plan with nothing kept from earlier shots."""
    combat._parts.clear()
    combat._shooter_parts.clear()
    return plan_of(state)


def test_kept_parts_give_the_plan_built_anew_after_option_edits_TTT_CV1_TTT_CN1_TTT_SM3() -> None:
    """TTT-CV1/TTT-E5/TTT-CN1/TTT-SM3: every option that changes a shot's modifiers, edited
    between shots on the same table and line: each shot's plan equals the plan built from
    scratch under its own options, and the edits do change the records."""
    base = crossed_table()
    tables = []
    for cover, concealment, stacking in product(
        ("armour", "literal"), ("accuracy", "cover"), ("strongest", "add")
    ):
        options = base.options.model_copy(
            update={"cover": cover, "concealment": concealment, "smoke_stacking": stacking}
        )
        tables.append(base.model_copy(update={"options": options}))
    fresh = [built_anew(state) for state in tables]
    combat._parts.clear()
    # Each shot after the other option sets' shots, whose entries are all kept; then again.
    assert [plan_of(state) for state in tables] == fresh
    assert [plan_of(state) for state in reversed(tables)] == fresh[::-1]
    seen: set[tuple[object, ...]] = set()
    for state, plan in zip(tables, fresh, strict=True):
        options = state.options
        seen.add(
            (
                tuple(m.model_dump_json() for m in plan.accuracy_mods),
                tuple(m.model_dump_json() for m in plan.penetration_mods),
                plan.white_dice,
                plan.red_dice,
                plan.threshold,
            )
        )
        labels = [m.label for m in plan.penetration_mods + plan.accuracy_mods]
        assert any("Cover also taken off the red dice" in x for x in labels) == (
            options.cover == "literal"
        )
        assert any("concealment +2" in x for x in labels) == (options.concealment == "cover")
        assert any(m.clause == "TTT-CN1" for m in plan.accuracy_mods) == (
            options.concealment == "accuracy"
        )
    assert len(seen) == 8  # every option set has modifiers of its own


def test_kept_parts_follow_the_line_and_the_target_TTT_E4_TTT_M2() -> None:
    """TTT-E4/TTT-M2/TTT-CV1: a target that moved fast (a card with fast evasion), a screen
    gone, a wall moved out of the line: each shot's plan equals the one built anew, though
    earlier shots are kept."""
    base = crossed_table()
    stuart = default_cards().tanks["m5-stuart"]
    assert stuart.fast_evasion
    fast = base.tanks["B1"].model_copy(update={"moved": "fast", "card": stuart})
    no_wall = {k: v for k, v in base.terrain.items() if k != "wall"}
    tables = [
        base,
        base.model_copy(update={"tanks": {**base.tanks, "B1": fast}}),
        base.model_copy(update={"smoke": ()}),
        base.model_copy(update={"terrain": no_wall}),
        base,
    ]
    combat._parts.clear()
    plans = [plan_of(state) for state in tables]
    assert plans == [built_anew(state) for state in tables]

    def clauses(plan: EngagePlan) -> list[str]:
        return [m.clause for m in plan.accuracy_mods + plan.penetration_mods]

    assert clauses(plans[0]) == ["TTT-CN1", "TTT-SM3", "TTT-CV1"]
    assert clauses(plans[1]) == ["TTT-M2", "TTT-CN1", "TTT-SM3", "TTT-CV1"]  # fast evasion
    assert clauses(plans[2]) == ["TTT-CN1", "TTT-CV1"]  # no screen on the line
    assert clauses(plans[3]) == ["TTT-CN1", "TTT-SM3"]  # no wall: no Cover
    assert plans[3].threshold == plans[0].threshold - 1


def test_kept_shooter_parts_follow_the_shooter_TTT_M1_TTT_MR1_TTT_E7() -> None:
    """TTT-M1/TTT-MR1/TTT-E7: the shooter moved (normal, fast), Shaken, with damaged optics or
    gun, alone and together, shot after shot: each plan equals the one built anew, and each
    state has the penalties and dice of its own."""
    base = crossed_table()
    tiger = base.tanks["R1"]
    changes: list[dict[str, object]] = [
        {},
        {"moved": "normal"},
        {"moved": "fast", "card": default_cards().tanks["m5-stuart"]},  # may fire moving fast
        {"morale": "shaken"},
        {"optics_damage": 1},
        {"optics_damage": 2},
        {"gun_damage": 1},
        {"moved": "normal", "morale": "shaken", "optics_damage": 1, "gun_damage": 2},
        {},
    ]
    tables = [
        base.model_copy(update={"tanks": {**base.tanks, "R1": tiger.model_copy(update=c)}})
        for c in changes
    ]
    fresh = [built_anew(state) for state in tables]
    combat._parts.clear()
    combat._shooter_parts.clear()
    assert [plan_of(state) for state in tables] == fresh
    assert [plan_of(state) for state in reversed(tables)] == fresh[::-1]
    shooter_mods = [
        [(m.clause, m.label, m.amount) for m in plan.accuracy_mods if m.clause != "TTT-CN1"]
        for plan in fresh
    ]
    assert shooter_mods[1][0] == ("TTT-M1", "moved this turn (normal)", -2)
    assert shooter_mods[2][0] == ("TTT-M1", "moved this turn (fast)", -2)
    assert shooter_mods[3][0] == ("TTT-MR1", "Shaken crew", -1)
    assert shooter_mods[5][0] == ("TTT-E7", "Optics Damaged", -2)
    assert fresh[6].penetration_mods[0].label == "Gun Damaged"
    assert fresh[6].red_dice == fresh[0].red_dice - 1
    assert fresh[7].red_dice == fresh[0].red_dice - 2
    assert len({(tuple(m), p.red_dice) for m, p in zip(shooter_mods, fresh, strict=True)}) == 8


# Every input a shot's parts may be built from, with the values it may take here.
_LINE_VALUES: dict[str, list[object]] = {
    "concealment": [0, 1, 2],
    "concealment_why": ["wood", "wheat"],
    "cover": [0, 1, 2],
    "cover_why": ["wall", "hedge"],
    "smoke": [0, 1, 3],
    "smoke_screens": [[], [(1, 1)], [(1, 1), (2, 2)]],
}
_OPTION_VALUES: dict[str, list[str]] = {
    "cover": ["armour", "literal"],
    "concealment": ["accuracy", "cover"],
    "smoke_stacking": ["strongest", "add"],
}
_TANK_VALUES: dict[str, list[object]] = {
    "moved": ["none", "normal", "fast"],
    "morale": ["ok", "shaken"],
    "optics_damage": [0, 1, 2],
    "gun_damage": [0, 1, 2],
    "card": ["m5-stuart", "tiger-i"],
}


def _pick(values: dict[str, list[Any]]) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries({name: st.sampled_from(vals) for name, vals in values.items()})


Shot = tuple[dict[str, Any], dict[str, Any], dict[str, Any], dict[str, Any]]


def _edits(shot: Shot) -> list[Shot]:
    """``shot`` with one input changed, for every input and every other value it may take:
    shots that differ in exactly one input, the case a key missing that input gets wrong."""
    out: list[Shot] = []
    for part, values in enumerate((_OPTION_VALUES, _LINE_VALUES, _TANK_VALUES, _TANK_VALUES)):
        for name, vals in values.items():
            for value in vals:
                if value != shot[part][name]:
                    edited = list(shot)
                    edited[part] = {**shot[part], name: value}
                    out.append((edited[0], edited[1], edited[2], edited[3]))
    return out


def _check_kept_against_anew(shot: Shot) -> None:
    cards = default_cards().tanks
    tank = crossed_table().tanks["R1"]
    option_values, line_values, shooter_values, target_values = shot
    options = Options(**option_values)
    line = LineOfFire(shooter=(0.0, 0.0), target=(0.0, 10.0), range=10.0, **line_values)
    shooter = tank.model_copy(update={**shooter_values, "card": cards[shooter_values["card"]]})
    target = tank.model_copy(update={**target_values, "card": cards[target_values["card"]]})
    accuracy = combat._shot_penalties(options, target, line)
    assert combat._accuracy_part(options, target, line) == (
        accuracy,
        sum(m.amount for m in accuracy),
        0,
    ), shot
    penetration = combat._line_modifiers(options, line)
    assert combat._penetration_part(options, line) == (
        penetration,
        sum(m.amount for m in penetration if m.applies_to == "penetration_dice"),
        line.cover + combat.concealment_armour(options, line),
    ), shot
    own, gun = combat._shooter_penalties(shooter), combat._gun_modifiers(shooter)
    assert combat._shooter_part(shooter) == (
        own,
        sum(m.amount for m in own),
        gun,
        sum(m.amount for m in gun if m.applies_to == "penetration_dice"),
    ), shot


@settings(max_examples=25, deadline=None)
@given(
    st.tuples(_pick(_OPTION_VALUES), _pick(_LINE_VALUES), _pick(_TANK_VALUES), _pick(_TANK_VALUES))
)
def test_kept_parts_equal_parts_built_anew_one_input_changed_TTT_E4_TTT_CV1_TTT_SM3(
    shot: Shot,
) -> None:
    """TTT-E4/TTT-E5/TTT-E7/TTT-CV1/TTT-CN1/TTT-SM3/TTT-M2: a shot, then every shot that
    differs from it in one input (an option, a field of the line, of the shooter or of the
    target), each after the first's parts are kept: each shot's parts equal those its own
    inputs build from scratch (records, texts and dice alike)."""
    for edited in _edits(shot):
        combat._parts.clear()
        combat._shooter_parts.clear()
        _check_kept_against_anew(shot)
        _check_kept_against_anew(edited)
