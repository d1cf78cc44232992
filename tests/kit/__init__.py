"""The shared test kit: what every ruleset's tests do the same way.

- ``get_ruleset`` / ``ruleset_names``: the registry, imported here and nowhere else in the kit,
  so moving it is one line;
- ``adjudicated``: apply an action through the ruleset and check the input was not touched;
- ``refused``: the action is refused with this code (and clause), and neither the state nor
  the dice counter moved;
- ``faces``: table dice, the faces a test supplies per die (never a patched generator);
- ``Table``: a table under test that keeps the state an accepted action leaves.

Per-ruleset builders (a TTT duel, an AFV table in cm, an MTC hex map, a yard) live in
``kit.ttt``, ``kit.afv``, ``kit.mtc`` and ``kit.yrd``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from pydantic import BaseModel

from tankref.core.dice import SuppliedDice
from tankref.core.errors import RulesError
from tankref.core.results import Result
from tankref.core.ruleset import Outcome, Ruleset
from tankref.rulesets import get_ruleset, ruleset_names

__all__ = [
    "Table",
    "adjudicated",
    "faces",
    "get_ruleset",
    "refused",
    "ruleset_names",
]


def faces(card: str | None = None, **dice: Sequence[int]) -> SuppliedDice:
    """Table dice: the faces given per die (``d6=[4, 2]``, ``white=[6]``; dice given no face
    are left out) and a damage card."""
    return SuppliedDice(faces={die: list(f) for die, f in dice.items() if f}, damage_card=card)


def adjudicated(
    rules: Ruleset, state: Any, action: BaseModel, dice: SuppliedDice | None = None
) -> Outcome:
    """The ruleset's adjudication of ``action``; its input state is left exactly as it was."""
    before = rules.dump_state(state)
    outcome = rules.adjudicate(state, action, dice)
    assert rules.dump_state(state) == before, "adjudicate changed its input"
    return outcome


def refused(
    rules: Ruleset,
    state: Any,
    action: BaseModel,
    code: str | None,
    clause: str | None = None,
    dice: SuppliedDice | None = None,
    *,
    check_clause: bool = True,
) -> RulesError:
    """``action`` is refused with ``code`` (and ``clause``, unless ``check_clause`` is off;
    code None: with any code), and the refusal changed nothing: the state's JSON and its
    dice counter are as before."""
    before = rules.dump_state(state)
    counter = rules.dice_state(state).counter
    with pytest.raises(RulesError) as info:
        rules.adjudicate(state, action, dice)
    if code is not None:
        assert info.value.code == code, info.value
    if code is not None and check_clause:
        assert info.value.clause == clause, info.value
    assert rules.dump_state(state) == before, "a refusal changed the state"
    assert rules.dice_state(state).counter == counter, "a refusal drew dice"
    return info.value


class Table:
    """A table under test of one ruleset: ``apply`` keeps the state an accepted action
    leaves and its result; ``expect_refusal`` leaves everything as it was."""

    def __init__(self, ruleset: str, state: Any) -> None:
        self.rules = get_ruleset(ruleset)
        self.state = state
        self.results: list[Result] = []

    @property
    def last(self) -> Result | None:
        return self.results[-1] if self.results else None

    def apply(self, action: BaseModel, dice: SuppliedDice | None = None) -> Result:
        outcome = adjudicated(self.rules, self.state, action, dice)
        self.state = outcome.state
        self.results.append(outcome.result)
        return outcome.result

    def expect_refusal(
        self,
        action: BaseModel,
        code: str,
        clause: str | None = None,
        dice: SuppliedDice | None = None,
        *,
        check_clause: bool = True,
    ) -> RulesError:
        return refused(
            self.rules, self.state, action, code, clause, dice, check_clause=check_clause
        )
