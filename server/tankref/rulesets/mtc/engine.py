"""The Minimal Tank Combat referee: a pure function from (state, action, dice) to (state, result).

- ``new_table`` makes a table in setup (designs checked: every problem at once, MTC-BP1).
- ``options_for`` says what a tank may do now (and why not), from the same checks.
- ``adjudicate`` applies one action to a private copy and returns the new state with the
  structured result; a refusal raises a ``RulesError`` and the caller's state is untouched.

Both are tables: which handler each action kind runs and when (``DISPATCH``), and which check
builds each menu entry (``OPTION_CHECKS``); the topics live in ``setup``, ``movement``,
``fire`` and ``turns``.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from tankref.core.adjudication import Adjudication
from tankref.core.dice import SuppliedDice
from tankref.core.dispatch import ALWAYS, PLAY, SETUP, Dispatch, Step
from tankref.core.options import Option, option
from tankref.rulesets.mtc.actions import (
    Action,
    EndPhase,
    Fire,
    Move,
    PlaceTank,
    PlaceTerrain,
    RemoveTank,
    SetObjective,
    StartGame,
)
from tankref.rulesets.mtc.cards import DIE
from tankref.rulesets.mtc.context import TableContext, get_tank
from tankref.rulesets.mtc.fire import fire, fire_option
from tankref.rulesets.mtc.movement import move, move_option
from tankref.rulesets.mtc.setup import (
    bad_designs,
    new_table,
    no_objective,
    place_tank,
    place_terrain,
    remove_tank,
)
from tankref.rulesets.mtc.state import TableState, TankState
from tankref.rulesets.mtc.turns import (
    TURN_CLAUSE,
    check_sides,
    end_phase,
    end_phase_option,
    start_game,
)

__all__ = ["DISPATCH", "OPTION_CHECKS", "adjudicate", "bad_designs", "new_table", "options_for"]

DISPATCH: Dispatch[TableContext] = Dispatch(
    Action,
    {
        PlaceTank: Step(place_tank, when=SETUP, what="placing a tank"),
        RemoveTank: Step(remove_tank, when=SETUP, what="taking a tank away"),
        PlaceTerrain: Step(place_terrain, when=SETUP, what="placing terrain"),
        # Refused in every status: the game has no objective marker (rules 5.0).
        SetObjective: Step(no_objective, when=ALWAYS),
        StartGame: Step(start_game, when=SETUP, what="starting the game"),
        Move: Step(move, when=PLAY, clause=TURN_CLAUSE),
        Fire: Step(fire, when=PLAY, clause=TURN_CLAUSE),
        EndPhase: Step(end_phase, when=PLAY, clause=TURN_CLAUSE),
    },
)

# A tank's menu: each entry is the action's own check (the one its handler runs).
OPTION_CHECKS: tuple[tuple[str, Callable[[TableState, TankState], dict[str, Any] | None]], ...] = (
    ("move", move_option),
    ("fire", fire_option),
    ("end_phase", end_phase_option),
)


def adjudicate(
    state: TableState, action: Action, dice: SuppliedDice | None = None
) -> Adjudication[TableState]:
    """Apply ``action``; raise ``RulesError`` (state untouched) if the rules refuse it."""
    ctx = TableContext(state, action.model_dump(mode="json"), {DIE: state.die}, dice)
    DISPATCH(ctx, ctx.state, action)
    check_sides(ctx)
    return ctx.finish()


def options_for(state: TableState, tank_id: str) -> list[Option]:
    """What ``tank_id`` may do now, each refusal with its code and clause. Changes nothing.

    Move lists every hex it may end in (cheapest cost, whether the road bonus is needed);
    fire lists every enemy it may fire at, the column and chance alone, and the friends
    that could join the attack.
    """
    tank = get_tank(state, tank_id)
    return [option(kind, partial(check, state, tank)) for kind, check in OPTION_CHECKS]
