"""The tank yard referee: a pure function from (state, action, dice) to (state, result).

- ``new_table`` makes a table in setup (``setup``).
- ``options_for`` says what a unit may do now (and why not), with the same checks (``menus``).
- ``adjudicate`` applies one action to a private copy and returns the new state with the
  structured result; a refusal raises a ``RulesError`` and the caller's state is untouched.

Each action kind's handler and when it may be taken is one line of ``DISPATCH``; the rules
themselves live by topic: ``setup``, ``turns``, ``movement``, ``attack`` (the Attack space),
``anti_tank`` (the Anti-tank and Shield spaces), ``damage``, ``contest``, ``odds``.
"""

from __future__ import annotations

from tankref.core.adjudication import Adjudication
from tankref.core.dice import SuppliedDice
from tankref.core.dispatch import ANY, PLAY, SETUP, Dispatch, Step
from tankref.core.flow import require_not_over
from tankref.rulesets.yrd.actions import (
    Action,
    AntiTank,
    Attack,
    EndTurn,
    Move,
    PlacePiece,
    PlaceTank,
    RemoveTank,
    StartGame,
)
from tankref.rulesets.yrd.anti_tank import anti_tank
from tankref.rulesets.yrd.attack import attack
from tankref.rulesets.yrd.cards import CardSet, default_cards
from tankref.rulesets.yrd.context import YardContext
from tankref.rulesets.yrd.menus import options_for
from tankref.rulesets.yrd.movement import move
from tankref.rulesets.yrd.setup import (
    new_table,
    place_piece,
    place_tank,
    remove_model,
    start_game,
    with_yards,
)
from tankref.rulesets.yrd.state import TableState
from tankref.rulesets.yrd.turns import end_turn

__all__ = ["DISPATCH", "Adjudication", "adjudicate", "new_table", "options_for", "with_yards"]

# A tank's own actions look the tank up before the match's status (an unknown tank is
# UNKNOWN_TANK in setup too), so their status checks run in the handlers, the same ones
# options_for runs: ``ANY`` here only keeps them out once the match is over.
DISPATCH: Dispatch[YardContext] = Dispatch(
    Action,
    {
        PlaceTank: Step(place_tank, when=SETUP, clause="YRD-SP1", what="placing a tank"),
        PlacePiece: Step(place_piece, when=ANY),
        RemoveTank: Step(remove_model, when=ANY),
        StartGame: Step(start_game, when=SETUP, what="start_game"),
        Move: Step(move, when=ANY),
        Attack: Step(attack, when=ANY),
        AntiTank: Step(anti_tank, when=ANY),
        EndTurn: Step(end_turn, when=PLAY),
    },
)


def adjudicate(
    state: TableState,
    action: Action,
    dice: SuppliedDice | None = None,
    cards: CardSet | None = None,
) -> Adjudication[TableState]:
    """Apply ``action``; raise ``RulesError`` (state untouched) if the rules refuse it."""
    ctx = YardContext(state, action, dice, cards or default_cards())
    # Once the match is over nothing is taken, setup actions included (GAME_OVER first).
    require_not_over(state)
    DISPATCH(ctx, state, action)
    return ctx.finish()
