"""The result vocabulary every ruleset speaks and every front end renders.

A result says what was rolled, every modifier with the clause that imposed it and the ruling
used where the rules are silent, the outcome, and what changed on each tank (including its
marker list and a short tooltip), so TTS, a web page or a log can show it without knowing
the rules.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from tankref.core.dice import Roll

# What a modifier changes, in the ruleset's words: accuracy_dice, penetration_dice, armour,
# morale_roll, crew_roll (TTT); hit_roll, damage_roll (AFV); contest_roll, damage (tank yard).
# Open text, so a new ruleset needs no change to the core.
ModifierTarget = str


class Modifier(BaseModel):
    clause: str
    label: str
    amount: int
    applies_to: ModifierTarget
    ruling: str | None = None


class RulingNote(BaseModel):
    """A reading of the rules the referee applied; ``option`` names the table setting."""

    clause: str
    text: str
    option: str | None = None
    value: str | None = None


class TankChange(BaseModel):
    tank_id: str
    name: str
    changes: dict[str, list[Any]] = Field(default_factory=dict)  # field -> [before, after]
    markers: list[str] = Field(default_factory=list)
    tooltip: str = ""


class Event(BaseModel):
    """Something the table should notice: a morale check, a model to turn, a victory."""

    kind: str
    clause: str | None = None
    text: str
    data: dict[str, Any] = Field(default_factory=dict)


class Result(BaseModel):
    action: dict[str, Any]
    summary: list[str] = Field(default_factory=list)
    rolls: list[Roll] = Field(default_factory=list)
    modifiers: list[Modifier] = Field(default_factory=list)
    rulings: list[RulingNote] = Field(default_factory=list)
    outcome: dict[str, Any] = Field(default_factory=dict)
    events: list[Event] = Field(default_factory=list)
    changes: list[TankChange] = Field(default_factory=list)


def chat_lines(result: Result) -> list[str]:
    """One or two lines for a game chat: what happened, then the math that decided it."""
    lines = [line for line in result.summary if line]
    if len(lines) <= 2:
        return lines
    return [lines[0], " ".join(lines[1:])]
