"""Typed refusals shared by every ruleset.

An engine never half-applies an action: it raises one of these before the new state is
handed back, so the caller's state is exactly what it was. Each error carries a stable
``code`` (for programs), the ``clause`` it enforces (for players) and a plain message, and
its ``kind``: what sort of refusal it is, which is all a front end needs to answer it (the
server's HTTP status comes from the kind alone, never from a list of codes).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, NoReturn

# refused: the rules say no as the game stands; not_found: no such tank, unit or piece;
# bad_value: a value the table never takes, whatever the game's state (an unknown card, a
# face not on the die); needs_dice / needs_decision: nothing applied, ask again with them.
Kind = Literal["refused", "not_found", "bad_value", "needs_dice", "needs_decision"]


class RulesError(Exception):
    """An action the rules refuse. ``code`` is stable; ``message`` is for people."""

    kind: ClassVar[Kind] = "refused"

    def __init__(
        self, code: str, clause: str | None, message: str, details: dict[str, Any] | None = None
    ) -> None:
        super().__init__(message)
        self.code = code
        self.clause = clause
        self.message = message
        self.details: dict[str, Any] = details or {}

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "clause": self.clause,
            "message": self.message,
            "details": self.details,
        }

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.code!r}, {self.clause!r}, {self.message!r})"


class NotFound(RulesError):
    """No such tank, unit or piece on this table."""

    kind: ClassVar[Kind] = "not_found"


class BadValue(RulesError):
    """A value in the request the table does not take: wrong whatever the game's state."""

    kind: ClassVar[Kind] = "bad_value"


def not_found(code: str, clause: str | None, message: str, **details: Any) -> NoReturn:
    raise NotFound(code, clause, message, details)


def bad_value(code: str, clause: str | None, message: str, **details: Any) -> NoReturn:
    raise BadValue(code, clause, message, details)


@dataclass(frozen=True)
class DiceNeed:
    """What the table still has to roll: ``count`` dice of ``die`` for ``purpose``."""

    die: str
    count: int
    purpose: str
    extra: dict[str, Any] = field(default_factory=dict)

    def describe(self) -> str:
        if self.die == "damage_card":
            return f"a damage card {self.purpose}".strip()
        noun = "die" if self.count == 1 else "dice"
        return f"{self.count} {self.die} {noun} {self.purpose}".strip()


class DiceNeeded(RulesError):
    """Table dice ran short: say exactly which dice are needed next; nothing changed."""

    kind: ClassVar[Kind] = "needs_dice"

    def __init__(self, need: DiceNeed, used: dict[str, int]) -> None:
        super().__init__(
            "DICE_NEEDED",
            None,
            f"needs {need.describe()}",
            {
                "need": {
                    "die": need.die,
                    "count": need.count,
                    "purpose": need.purpose,
                    **need.extra,
                },
                "used_so_far": used,
            },
        )
        self.need = need


class DiceLeftOver(BadValue):
    """More faces were supplied than the adjudication used: the count is wrong."""

    def __init__(self, left: dict[str, int], used: dict[str, int]) -> None:
        parts = ", ".join(f"{n} {die}" for die, n in left.items())
        super().__init__(
            "DICE_COUNT_WRONG",
            None,
            f"too many dice supplied: {parts} not used (used {used})",
            {"left_over": left, "used": used},
        )


class DataError(Exception):
    """Broken data files: every problem found, listed at once."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__(
            f"{len(problems)} problem(s) in the data:\n" + "\n".join(f"  - {p}" for p in problems)
        )


class DecisionNeeded(RulesError):
    """A player must choose before the action can be adjudicated (like DICE_NEEDED, nothing
    changed): ``seat`` is the player who decides, ``choices`` what they may answer, and
    ``field`` the action field the answer goes in, sent again under the same request id."""

    kind: ClassVar[Kind] = "needs_decision"

    def __init__(
        self,
        clause: str,
        message: str,
        *,
        decision: str,
        seat: str,
        choices: list[str],
        field: str,
        **extra: object,
    ) -> None:
        super().__init__(
            "DECISION_NEEDED",
            clause,
            message,
            {
                "need": {
                    "decision": decision,
                    "seat": seat,
                    "choices": choices,
                    "field": field,
                    **extra,
                },
                "field": field,
            },
        )
