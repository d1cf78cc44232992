"""What a unit may do now: one entry per action kind, allowed or refused with the clause.

Every ruleset answers "what may this unit do now" in this shape (menus in TTS, the page, the
self-play bots), each refusal carrying the same code and clause the action itself would get,
because the check that builds an option is the very check the adjudication runs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tankref.core.errors import RulesError


@dataclass(frozen=True)
class Option:
    kind: str
    allowed: bool
    code: str | None = None
    clause: str | None = None
    reason: str | None = None
    detail: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if v is not None}


def option(kind: str, check: Callable[[], dict[str, Any] | None]) -> Option:
    """Run the action's own check: allowed with its detail (targets, reach ...), or refused
    with the code, clause and message the action would be refused with."""
    try:
        detail = check()
    except RulesError as err:
        return Option(kind, False, err.code, err.clause, err.message)
    return Option(kind, True, detail=detail)
