"""The AFV referee: a pure function from (state, action, dice) to (state, result).

- ``new_table`` makes a table in setup (``setup``).
- ``options_for`` says what a unit may do now (and why not), through the same ``check_*``
  functions the actions run, without changing anything (``options``).
- ``adjudicate`` applies one action to a private copy and returns the new state with the
  structured result; a refusal raises a ``RulesError`` and the caller's state is untouched.

The rules live by topic: ``setup``, ``turns``, ``movement``, ``spotting``, ``fire``,
``damage``, ``carry``; ``odds`` and ``options`` read the plan ``fire`` makes. Distances: the
table reports inches; every rule distance is in cm (``cards.inches_to_cm``).
"""

from __future__ import annotations

from tankref.core.adjudication import Adjudication
from tankref.core.dice import SuppliedDice
from tankref.core.dispatch import PLAY, SETUP, Dispatch, Step
from tankref.rulesets.afv.actions import (
    Action,
    Disembark,
    Embark,
    EndPhase,
    Evade,
    Fire,
    Move,
    PlaceTank,
    PlaceTerrain,
    RemoveTank,
    Spot,
    StartGame,
)
from tankref.rulesets.afv.cards import CardSet
from tankref.rulesets.afv.carry import disembark, embark
from tankref.rulesets.afv.context import AfvContext
from tankref.rulesets.afv.fire import fire
from tankref.rulesets.afv.movement import evade, move
from tankref.rulesets.afv.options import options_for
from tankref.rulesets.afv.setup import new_table, place, place_terrain, remove, start_game
from tankref.rulesets.afv.spotting import spot
from tankref.rulesets.afv.state import TableState
from tankref.rulesets.afv.turns import check_victory, end_phase

__all__ = ["adjudicate", "new_table", "options_for"]

# Each action kind, when it may be taken and the clause that says so; the rest of its rules
# are its handler's.
DISPATCH: Dispatch[AfvContext] = Dispatch(
    Action,
    {
        PlaceTank: Step(place, when=SETUP, clause="AFV-UNITS", what="placing a unit"),
        RemoveTank: Step(remove, when=SETUP, clause="AFV-UNITS", what="taking a unit off"),
        PlaceTerrain: Step(place_terrain, when=SETUP, clause="AFV-MV3", what="placing terrain"),
        StartGame: Step(start_game, when=SETUP, clause="AFV-SEQ1", what="starting the game"),
        Move: Step(move, when=PLAY, clause="AFV-SEQ1"),
        Evade: Step(evade, when=PLAY, clause="AFV-SEQ1"),
        Spot: Step(spot, when=PLAY, clause="AFV-SEQ1"),
        Fire: Step(fire, when=PLAY, clause="AFV-SEQ1"),
        Embark: Step(embark, when=PLAY, clause="AFV-SEQ1"),
        Disembark: Step(disembark, when=PLAY, clause="AFV-SEQ1"),
        EndPhase: Step(end_phase, when=PLAY, clause="AFV-SEQ1"),
    },
)


def adjudicate(
    state: TableState,
    action: Action,
    dice: SuppliedDice | None = None,
    cards: CardSet | None = None,
) -> Adjudication[TableState]:
    """Apply ``action``; raise ``RulesError`` (state untouched) if the rules refuse it."""
    ctx = AfvContext(state, action.model_dump(), dice, cards)
    DISPATCH(ctx, ctx.state, action)
    check_victory(ctx)
    # The acting unit is listed even when its state did not change (a spotting roll changes
    # nothing it tracks), so the table redraws its tooltip with what it just did.
    acting = getattr(action, "tank_id", None)
    if isinstance(acting, str) and acting in ctx.state.units:
        ctx.touch(acting)
    return ctx.finish()
