"""Minimal Tank Combat card data: tank designs (build points) and the die.

A design is four numbers bought with build points (MTC-BP1): ATTACK, DEFENSE, RANGE and MOVE,
each 1 to 5 at one BP a point, at most 15 BP a tank. The shipped designs are card data
(``cards/mtc/designs.toml``); a table may add its own in its setup. Every problem of every
design is reported at once, so a player fixes them all in one go.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from tankref.core.carddata import parse_entries, raise_if, read_dice, read_toml, shipped_dir
from tankref.core.dice import DieSpec

DIE = "d6"
ELEMENTS = ("attack", "defense", "range", "move")
ELEMENT_MIN = 1
ELEMENT_MAX = 5
MAX_BP = 15  # "Tanks can go up in size to 15 BPs" (MTC-BP1)
AVERAGE_BP = 10

_SLUG = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}$")


class Design(BaseModel):
    """A tank design. The element values are checked by :func:`design_problems`, not here,
    so that one report lists every problem (a field constraint would hide the BP total)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(
        max_length=64, description="Design id, e.g. standard; lower-case letters, digits, dashes."
    )
    name: str = Field(min_length=1, max_length=80)
    attack: int = Field(description="ATTACK: strength of the main gun (1-5).")
    defense: int = Field(description="DEFENSE: thickness of the armour (1-5).")
    range: int = Field(description="RANGE: how many hexes the gun reaches (1-5).")
    move: int = Field(description="MOVE: movement points a turn (1-5).")

    @property
    def build_points(self) -> int:
        return self.attack + self.defense + self.range + self.move

    def line(self) -> str:
        return (
            f"ATT {self.attack} DEF {self.defense} RNG {self.range} MOV {self.move} "
            f"({self.build_points} BP)"
        )


def design_problems(design: Design, max_bp: int = MAX_BP) -> list[tuple[str, str]]:
    """Every way ``design`` breaks MTC-BP1, as (field, problem); empty when it is legal."""
    out: list[tuple[str, str]] = []
    if not _SLUG.match(design.id):
        out.append(("id", f"{design.id!r}: use lower-case letters, digits and dashes"))
    for element in ELEMENTS:
        value = getattr(design, element)
        if value < ELEMENT_MIN:
            out.append((element, f"{element.upper()} {value} is below {ELEMENT_MIN}"))
        elif value > ELEMENT_MAX:
            out.append((element, f"{element.upper()} {value} is above {ELEMENT_MAX}"))
    total = design.build_points
    if total > max_bp:
        out.append(("(design)", f"costs {total} BP, more than the {max_bp} BP a tank may cost"))
    return out


class CardSet(BaseModel):
    model_config = ConfigDict(frozen=True)

    designs: dict[str, Design]
    die: DieSpec


def load_cards(folder: Path | None = None, max_bp: int = MAX_BP) -> CardSet:
    """Read ``folder`` (the shipped ``cards/mtc`` by default); every problem in every file,
    broken designs included, is raised together as a ``DataError``."""
    folder = folder or shipped_dir("mtc")
    problems: list[str] = []
    designs: dict[str, Design] = {}
    path = folder / "designs.toml"
    data = read_toml(path, problems)
    if data is not None:
        for index, design in enumerate(parse_entries(path, "design", Design, data, problems)):
            label = f"{path}: design #{index + 1} ({design.id})"
            for where, problem in design_problems(design, max_bp):
                problems.append(f"{label}: {where}: {problem}")
            if design.id in designs:
                problems.append(f"{label}: id: used by another design already")
            designs[design.id] = design
    dice = read_dice(folder, problems, need={DIE: "initiative and combat rolls"})
    raise_if(problems)
    return CardSet(designs=designs, die=dice[DIE])


@functools.cache
def default_cards() -> CardSet:
    """The shipped cards, read once per process."""
    return load_cards()
