"""Models the engine builds without validating (``tankref.core.trusted``) are the very models
validation builds: equal, the same JSON byte for byte (result hashes in old logs still
verify), the same ``model_fields_set``; copies are independent like ``model_copy()``'s. The
dice bag's faster paths (keyed once, a batch of draws, a reroll found by identity) draw the
same numbers as the published recipe."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel, PrivateAttr

from kit.ttt import duel
from tankref.core.dice import DiceBag, DiceState, Draws, Roll, SuppliedDice, draw_number
from tankref.core.results import Event, Modifier, Result, RulingNote, TankChange
from tankref.core.trusted import adopt, adopted, built, copied, every_field
from tankref.rulesets.ttt.actions import Engage
from tankref.rulesets.ttt.cards import default_cards
from tankref.rulesets.ttt.engine import adjudicate

DICE = default_cards().rules.dice

# Each result class with values given out of declared order, some fields left to defaults.
CASES: list[tuple[type[BaseModel], dict[str, Any]]] = [
    (
        Roll,
        {
            "reroll_of": None,
            "icons": ("PEN", "STAR"),
            "face": 6,
            "die": "red",
            "purpose": "for Penetration",
            "source": "server",
            "counter": 7,
        },
    ),
    (Modifier, {"amount": -2, "applies_to": "accuracy_dice", "clause": "TTT-M1", "label": "moved"}),
    (RulingNote, {"text": "a ruling", "clause": "TTT-E2", "value": "45/45"}),
    (RulingNote, {"clause": "TTT-E6", "text": "each * rerolls"}),
    (Event, {"text": "Turn B1", "kind": "turn_model", "data": {"facing": 10.5}}),
    (Event, {"kind": "deck_shuffled", "text": "The damage deck is shuffled"}),
    (TankChange, {"name": "Tiger I", "tank_id": "R1", "changes": {"engaged": [False, True]}}),
    (TankChange, {"tank_id": "B1", "name": "B1", "markers": ["Shaken"], "tooltip": "x"}),
    (Result, {"action": {"kind": "engage"}}),
    (Result, {"outcome": {"hit": True}, "action": {"kind": "wait"}, "summary": ["one"]}),
]


@pytest.mark.parametrize(("cls", "values"), CASES)
def test_built_is_the_validated_model(cls: type[BaseModel], values: dict[str, Any]) -> None:
    """Equal to ``cls(**values)``, fields in declared order (so the same JSON), defaults
    filled in fresh, the same fields set."""
    fast = built(cls, **values)
    slow = cls(**values)
    assert type(fast) is cls
    assert fast == slow
    assert list(fast.__dict__) == list(cls.model_fields)
    assert fast.model_dump_json() == slow.model_dump_json()
    assert fast.model_fields_set == slow.model_fields_set
    again = built(cls, **values)
    for name, value in fast.__dict__.items():
        if isinstance(value, (list, dict)) and name not in values:
            assert value is not again.__dict__[name]  # a default list/dict is never shared


def test_adopted_models_are_the_validated_ones_each_with_its_own_fields_set() -> None:
    """``adopted`` (many models of one class in one loop) builds what validation builds: equal,
    the same JSON, the same fields set, and no two models share a fields set."""
    rows = [
        {
            "die": "red",
            "face": face,
            "icons": ("PEN",),
            "purpose": "for Penetration",
            "source": "server",
            "counter": face,
            "reroll_of": None,
        }
        for face in (1, 2, 3)
    ]
    fast = adopted(Roll, [dict(row) for row in rows], frozenset(Roll.model_fields))
    slow = [Roll(**row) for row in rows]
    assert fast == slow
    assert [r.model_dump_json() for r in fast] == [r.model_dump_json() for r in slow]
    assert all(f.model_fields_set == s.model_fields_set for f, s in zip(fast, slow, strict=True))
    fast[0].model_fields_set.discard("counter")
    assert "counter" in fast[1].model_fields_set  # each model's set is its own


def test_a_fields_set_shared_by_models_with_every_field_never_changes() -> None:
    """``every_field``: one fields set for every model built with all its fields given (as
    the engine builds rolls, rulings, events, changes). Assigning a field (the models that
    allow it) leaves the shared set as it was, so no model's set speaks for another's."""
    every = every_field(TankChange)
    values = {"tank_id": "R1", "name": "Tiger I", "changes": {}, "markers": [], "tooltip": ""}
    first, second = (adopt(TankChange, dict(values), every) for _ in range(2))
    first.tooltip = "changed"
    assert every == set(TankChange.model_fields) == second.model_fields_set
    assert first.model_fields_set == TankChange(**values).model_fields_set
    shot = adjudicate(duel().state, Engage(tank_id="R1", target_id="B1")).result
    for model in [*shot.rolls, *shot.rulings, *shot.events, *shot.changes, *shot.modifiers]:
        assert model.model_fields_set == set(type(model).model_fields)


@pytest.mark.parametrize("source", ["server", "table"])
def test_a_bags_rolls_are_the_validated_rolls(source: str) -> None:
    """The dice bag's rolls (server-drawn or supplied by the table) equal ``Roll`` validated
    from their own fields, byte for byte, every field set."""
    state = DiceState.model_validate({"source": source, "seed": "bag-rolls"})
    supplied = SuppliedDice(faces={"red": [1, 6, 4]}) if source == "table" else None
    bag = DiceBag(state, DICE, supplied)
    rolls = bag.roll("red", 3, "for Penetration")
    for roll in rolls:
        slow = Roll(**roll.__dict__)
        assert roll == slow and roll.model_dump_json() == slow.model_dump_json()
        assert roll.model_fields_set == set(Roll.model_fields)
        assert roll.icons == DICE["red"].icons(roll.face)


def test_a_whole_engage_result_serialises_as_validation_would() -> None:
    """An Engage's result, built without validation from rolls to changes, is the result its
    own JSON validates back into, byte for byte."""
    shot = Engage(tank_id="R1", target_id="B1")
    table = duel().state
    # the first seed whose shot goes the whole way (hit, penetration, card, morale)
    result = next(
        r
        for r in (
            adjudicate(
                table.model_copy(update={"dice": DiceState(seed=f"trusted-{k}")}), shot
            ).result
            for k in range(200)
        )
        if r.outcome.get("penetrated")
    )
    text = result.model_dump_json()
    revalidated = Result.model_validate_json(text)
    assert revalidated == result
    assert revalidated.model_dump_json() == text
    assert len(result.rolls) >= 3 and len(result.changes) == 2 and result.events


class _Secret(BaseModel):
    value: int
    _note: str = PrivateAttr(default="")


def test_copied_is_an_independent_shallow_copy() -> None:
    """Like ``model_copy()``: equal, its own field dict and fields set; a model with private
    attributes takes pydantic's own path (and keeps them)."""
    state = DiceState(seed="copy", counter=3)
    copy = copied(state)
    assert copy == state and copy is not state
    assert copy.model_fields_set == state.model_fields_set
    copy.counter = 4
    assert state.counter == 3
    assert state.model_fields_set == {"seed", "counter"}  # the copy's set is its own
    secret = _Secret(value=1)
    secret._note = "kept"
    twin = copied(secret)
    assert twin._note == "kept" and twin == secret


@pytest.mark.parametrize("sides", [2, 3, 6, 7, 20, 100, 2**31 + 1])
def test_draws_in_a_batch_are_the_recipe(sides: int) -> None:
    """``Draws.numbers`` (keyed once, one loop) gives ``draw_number``'s numbers, the recipe
    ``tests/core/test_dice.py`` checks against the standard library's HMAC; 2**31 + 1 sides
    reject about half the first words, so a batch redraws numbers in its middle too, each
    with its own counter."""
    draws = Draws("batch-seed", ("p1", "p2"))
    assert draws.numbers(40, 60, sides) == [
        draw_number("batch-seed", ("p1", "p2"), c, sides) for c in range(40, 100)
    ]
    with pytest.raises(ValueError, match="sides"):
        draws.numbers(0, 1, 0)


def test_reroll_replaces_the_very_die_not_an_equal_one() -> None:
    """Two table dice showing the same face are equal models; a reroll of the first names the
    first (found by identity), not the last equal one."""
    table = DiceState(source="table", seed="same-faces")
    bag = DiceBag(table, DICE, SuppliedDice(faces={"white": [3, 3, 5]}))
    first, second = bag.roll("white", 2, "for Accuracy")
    assert first == second and first is not second
    again = bag.reroll(first, "Grizzled reroll")
    assert again.reroll_of == 0
    assert again.face == 5


def test_a_game_through_the_fast_paths_replays_to_the_same_state() -> None:
    """The same seed and actions give the same states and results twice over (nothing in the
    fast paths depends on object identity across adjudications)."""
    shot = Engage(tank_id="R1", target_id="B1")
    a = adjudicate(duel().state, shot)
    b = adjudicate(duel().state, shot)
    assert a.result.model_dump_json() == b.result.model_dump_json()
    assert a.state.model_dump_json() == b.state.model_dump_json()
