"""The TTT summary and tank views, made from the state's own values without validating them
again, are the very models validation makes: the same JSON, byte for byte (every log entry
holds them), and the same fields set, on every state of whole self-play games."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic_core import to_json

from tankref.core.ruleset import ModelState, TableSummary, TankView
from tankref.rulesets import get_ruleset
from tankref.rulesets.ttt import turns
from tankref.rulesets.ttt.presentation import markers, tooltip
from tankref.rulesets.ttt.state import TableState

RULES: Any = get_ruleset("ttt")


def validated_summary(state: TableState) -> TableSummary:
    """The summary as validation makes it: the shared one, then its phase."""
    shared = ModelState.summary(RULES, state)
    return shared.model_copy(update={"phase": turns.phase_name(state)})


def validated_views(state: TableState, tank_ids: list[str]) -> list[TankView]:
    """Each tank's view as validation makes it from the state's values."""
    return [
        TankView(
            tank_id=tank.id,
            name=tank.name,
            card=tank.card.id,
            player=tank.player,
            x=tank.x,
            z=tank.z,
            facing=tank.facing,
            on_table=tank.on_table,
            in_play=tank.in_play,
            markers=markers(tank),
            tooltip=tooltip(tank),
        )
        for tank in (state.tanks.get(i) for i in tank_ids)
        if tank is not None
    ]


def types(model: Any) -> dict[str, type]:
    return {name: type(value) for name, value in model.__dict__.items()}


def same(made: list[Any], validated: list[Any]) -> None:
    assert to_json(made) == to_json(validated)
    assert [m.model_fields_set for m in made] == [v.model_fields_set for v in validated]
    assert made == validated
    # equal values of the same types (3 == 3.0, but a view holds what validation makes)
    assert [types(m) for m in made] == [types(v) for v in validated]


def states(seed: int) -> list[TableState]:
    """Every state of one self-play game, the start and the end included."""
    record = RULES.self_play(seed)
    out = [record.start]
    for action in record.actions:
        out.append(RULES.adjudicate(out[-1], action).state)
    assert out[-1] == record.final
    return out


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_every_summary_and_view_of_a_game_is_the_validated_model(seed: int) -> None:
    played = states(seed)
    assert played[0].status != played[-1].status  # a game from its start to its end
    for state in played:
        same([RULES.summary(state)], [validated_summary(state)])
        every = sorted(state.tanks)
        # all tanks (the scene), and some by id as an event's changes name them, one unknown
        same(RULES.tank_views(state), validated_views(state, every))
        some = [*every[::3], "no-such-tank"]
        same(RULES.tank_views(state, some), validated_views(state, some))


def test_views_of_whole_number_places_are_floats_as_validation_makes_them() -> None:
    """A place held as an int (say, a value an engine computed) is still written 3.0."""
    state = states(1)[0]
    tank_id = sorted(state.tanks)[0]
    tank = state.tanks[tank_id]
    tank.__dict__.update(x=3, z=-4, facing=90)
    (view,) = RULES.tank_views(state, [tank_id])
    assert b'"x":3.0,"z":-4.0,"facing":90.0' in to_json(view)
    same([view], validated_views(state, [tank_id]))
