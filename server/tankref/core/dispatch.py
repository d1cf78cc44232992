"""Dispatch as data: each action kind names its handler and when it may be taken.

A ruleset writes one table (action class -> ``Step``), checked at import against its action
union so an action kind without a handler (or a handler for no action) fails at once rather
than at a player's table. The status guard runs before the handler with the shared flow
codes (``core.flow``); the handler then checks the rules of its own game.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Generic, TypeVar, Union, get_args, get_origin

from pydantic import BaseModel

from tankref.core.errors import RulesError
from tankref.core.flow import FlowState, require_not_over, require_playing, require_setup

C = TypeVar("C")

# When an action may be taken: during setup, during play, or either (not once it is over).
SETUP = "setup"
PLAY = "playing"
ANY = "any"
# No status guard at all: the handler answers the same in every status (a kind the game
# refuses outright, whatever the moment).
ALWAYS = "always"


@dataclass(frozen=True)
class Step(Generic[C]):
    """One action kind: its handler, when it is taken, and the clause that says so."""

    run: Callable[[C, Any], None]
    when: str = PLAY
    clause: str | None = None
    what: str = "that"


def action_classes(union: object) -> tuple[type[BaseModel], ...]:
    """The members of an action union (``Annotated[A | B, Field(discriminator=...)]``)."""
    if get_origin(union) is Annotated:
        union = get_args(union)[0]
    members = get_args(union) if get_origin(union) in (Union, type(int | str)) else (union,)
    return tuple(m for m in members if isinstance(m, type) and issubclass(m, BaseModel))


class Dispatch(Generic[C]):
    """An action's handler by its class, after its status guard."""

    def __init__(self, union: object, steps: Mapping[type[BaseModel], Step[C]]) -> None:
        kinds = set(action_classes(union))
        missing = sorted(k.__name__ for k in kinds - set(steps))
        extra = sorted(k.__name__ for k in set(steps) - kinds)
        if missing or extra:
            raise TypeError(f"dispatch table: no handler for {missing}; not an action: {extra}")
        self.steps: dict[type[BaseModel], Step[C]] = dict(steps)

    def step(self, action: BaseModel) -> Step[C]:
        step = self.steps.get(type(action))
        if step is None:
            raise RulesError(
                "UNKNOWN_ACTION", None, f"action: {type(action).__name__} is not an action here"
            )
        return step

    def guard(self, state: FlowState, action: BaseModel) -> None:
        """The status check of the action's kind, with the shared codes."""
        self._guard(state, self.step(action))

    @staticmethod
    def _guard(state: FlowState, step: Step[C]) -> None:
        if step.when == SETUP:
            require_setup(state, step.clause, step.what)
        elif step.when == PLAY:
            require_playing(state, step.clause)
        elif step.when == ANY:
            require_not_over(state, step.clause)

    def __call__(self, ctx: C, state: FlowState, action: BaseModel) -> None:
        step = self.step(action)  # looked up once: guard, then handler
        self._guard(state, step)
        step.run(ctx, action)
