"""Aids: what a unit may do, as shapes on the table, drawn from the referee's own checks.

A ruleset answers, for one unit, where it may still move (rings, reachable hexes or spaces),
where its arcs fall, and how the referee reads the line of fire to each enemy; each shape
names the clause that decides it. Units are table inches like the scene (+z north, facing 0
faces +z, 90 faces +x), so the TTS scripts and the page only draw. Nothing here knows a rule:
the rulesets fill these shapes by calling the same checks their adjudication uses.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from tankref.core.errors import RulesError


class AidRing(BaseModel):
    """A circle around the point a move is measured from: inside it a move is of this kind."""

    shape: Literal["ring"] = "ring"
    id: str  # normal | fast | rate | slow ... (the ruleset's word for the move)
    x: float
    z: float
    radius: float = Field(ge=0, description="Inches.")
    tolerance: float = Field(
        default=0.0, ge=0, description="Inches the referee allows beyond the radius (drift)."
    )
    clause: str
    label: str


class AidArc(BaseModel):
    """A wedge of a unit's arcs: bearings ``start`` to ``end`` clockwise, absolute degrees."""

    shape: Literal["arc"] = "arc"
    id: str  # front | side-left | side-right | rear
    x: float
    z: float
    start: float
    end: float
    radius: float = Field(gt=0, description="How far to draw it, inches (arcs are unbounded).")
    clause: str
    label: str


class AidHex(BaseModel):
    q: int
    r: int
    x: float  # the hex's centre on the table, inches
    z: float
    cost: int
    road: bool  # reached only with the road bonus


class AidHexes(BaseModel):
    """The hexes a unit may still end its move in."""

    shape: Literal["hexes"] = "hexes"
    id: str
    size: float = Field(gt=0, description="Hex size (centre to corner), inches.")
    orientation: Literal["pointy", "flat"] = "pointy"  # pointy: a corner points north
    hexes: list[AidHex]
    clause: str
    label: str


class AidSpace(BaseModel):
    space: str
    x: float
    z: float


class AidSpaces(BaseModel):
    """The named spaces a unit may move to."""

    shape: Literal["spaces"] = "spaces"
    id: str
    spaces: list[AidSpace]
    clause: str
    label: str


MoveAid = AidRing | AidHexes | AidSpaces

# How a line of fire reads, worst first: the word a front end colours the line by.
LineWord = Literal["blocked", "smoke", "heavy", "cover", "light", "clear"]


class Refusal(BaseModel):
    """Why an aid is absent: the refusal the action itself would get (code, clause, words)."""

    code: str
    clause: str | None
    message: str

    @classmethod
    def of(cls, err: RulesError) -> Refusal:
        return cls(code=err.code, clause=err.clause, message=err.message)


class AidLine(BaseModel):
    """The line of fire to one enemy as the referee reads it now."""

    shape: Literal["line"] = "line"
    target_id: str
    x1: float
    z1: float
    x2: float
    z2: float
    reading: LineWord
    range: float = Field(ge=0, description="Inches; hexes on a hex map.")
    clause: str
    label: str  # what the reading is made of, in the rules' words
    may_fire: bool
    refused: Refusal | None = None  # why it may not fire at this target now


class Aids(BaseModel):
    """Everything drawn for one unit at one state of its table."""

    tank_id: str
    units: Literal["inches"] = "inches"
    move: list[MoveAid] = Field(default_factory=list)
    move_refused: Refusal | None = Field(
        default=None, description="Why it may not move now; then ``move`` is empty."
    )
    limits: list[Refusal] = Field(
        default_factory=list,
        description="Moves left out although it may move (no Fast move, ...), and why.",
    )
    arcs: list[AidArc] = Field(default_factory=list)
    lines: list[AidLine] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)  # rulings the shapes rest on


def worst_reading(*, blocked: bool, smoke: int, concealment: int, cover: int) -> LineWord:
    """The one word a line is coloured by: what spoils the shot most, blocked first.

    Ruling (the aids only): smoke and heavy concealment take two dice or more, cover a bonus to
    the armour, light concealment one die; the full breakdown stays in the line's label."""
    if blocked:
        return "blocked"
    if smoke:
        return "smoke"
    if concealment >= 2:
        return "heavy"
    if cover:
        return "cover"
    if concealment == 1:
        return "light"
    return "clear"


def arc_wedges(
    x: float,
    z: float,
    facing: float,
    front_half: float,
    rear_half: float,
    radius: float,
    clause: str,
) -> list[AidArc]:
    """Front, the two sides and rear of a unit facing ``facing``, from the half-widths the
    table's arc options give (no side wedges when front and rear meet)."""

    def wedge(id_: str, a: float, b: float, label: str) -> AidArc:
        return AidArc(
            id=id_,
            x=x,
            z=z,
            start=round((facing + a) % 360, 6),
            end=round((facing + b) % 360, 6),
            radius=radius,
            clause=clause,
            label=label,
        )

    out = [wedge("front", -front_half, front_half, f"front arc (±{front_half:g}°)")]
    if front_half + rear_half < 180:
        out.append(wedge("side-right", front_half, 180 - rear_half, "side arc"))
        out.append(wedge("side-left", rear_half - 180, -front_half, "side arc"))
    out.append(wedge("rear", 180 - rear_half, 180 + rear_half, f"rear arc (±{rear_half:g}°)"))
    return out
