"""AFV card data: the unit roster and the plain d6 (``cards/afv/``).

Distances on the cards are centimetres, as the rule text gives them; the table (TTS) measures
in inches and the engine converts where the two meet (``CM_PER_INCH``). A table snapshots the
cards it uses, so a later edit never changes a game already played.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from tankref.core.carddata import parse_entries, raise_if, read_dice, read_toml, shipped_dir
from tankref.core.dice import DieSpec

CM_PER_INCH = 2.54
DIE = "d6"  # every AFV roll is on plain six-sided dice

UnitClass = Literal["infantry", "recon", "light", "medium", "heavy"]
# Terrain kinds a table may tag; the cards name the ones that slow a unit (AFV-MV3).
TerrainKind = Literal["hill", "woods", "cover", "rough", "mud", "soft"]

_SLUG = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}$")


def cm_to_inches(cm: float) -> float:
    return cm / CM_PER_INCH


def inches_to_cm(inches: float) -> float:
    return inches * CM_PER_INCH


def both(cm: float) -> str:
    """A distance the way results and tooltips say it: the rule's cm, then the table's inches."""
    return f'{cm:g} cm ({cm_to_inches(cm):.1f}")'


class _Card(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Weapon(_Card):
    """One weapon system (AFV-FR1: each fires once a turn, at a single target)."""

    name: str = Field(min_length=1, max_length=60)
    hit: int = Field(ge=0, le=12)
    pen: int = Field(ge=0, le=20)
    short_cm: float = Field(gt=0, le=1000, allow_inf_nan=False)

    @property
    def anti_personnel(self) -> bool:
        """AFV-AP1 ruling: a weapon with hit above 0 is an anti-personnel attack."""
        return self.hit > 0

    def line(self) -> str:
        return f"{self.name}: {self.hit} hit, {self.pen} pen, {both(self.short_cm)} short"


class UnitCard(_Card):
    id: str
    name: str = Field(min_length=1, max_length=80)
    unit_class: UnitClass = Field(alias="class")
    move_cm: float = Field(gt=0, le=1000, allow_inf_nan=False)
    slow_move_cm: float | None = Field(default=None, gt=0, le=1000, allow_inf_nan=False)
    slow_on: tuple[TerrainKind, ...] = ()
    armour: int = Field(ge=0, le=20)
    weapon: tuple[Weapon, ...] = Field(min_length=1, max_length=6)
    carries: int = Field(default=0, ge=0, le=6)
    spots_for_all: bool = False
    fires_only_after_stop: bool = False
    degrades_to: str | None = None
    notes: str = ""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    @field_validator("id")
    @classmethod
    def _slug(cls, value: str) -> str:
        if not _SLUG.match(value):
            raise ValueError("use lower-case letters, digits and dashes (e.g. 'standard-afv')")
        return value

    @model_validator(mode="after")
    def _consistent(self) -> UnitCard:
        if (self.slow_move_cm is None) != (not self.slow_on):
            raise ValueError("slow_move_cm and slow_on go together")
        if self.unit_class == "infantry" and self.carries:
            raise ValueError("infantry carry nobody")
        if self.degrades_to is not None and self.unit_class != "infantry":
            raise ValueError("only infantry degrade to another unit type (AFV-DMG2)")
        return self

    @property
    def infantry(self) -> bool:
        return self.unit_class == "infantry"


class CardSet(BaseModel):
    model_config = ConfigDict(frozen=True)

    units: dict[str, UnitCard]
    dice: dict[str, DieSpec]

    def unit(self, card_id: str) -> UnitCard | None:
        return self.units.get(card_id)


def load_cards(folder: Path | None = None) -> CardSet:
    """Read ``folder`` (the shipped ``cards/afv`` by default); every problem raised at once."""
    folder = folder or shipped_dir("afv")
    problems: list[str] = []
    units: dict[str, UnitCard] = {}
    path = folder / "units.toml"
    data = read_toml(path, problems)
    if data is not None:
        for card in parse_entries(path, "unit", UnitCard, data, problems):
            if card.id in units:
                problems.append(f"{path}: unit ({card.id}): id: used by another card already")
            units[card.id] = card
    for card in units.values():
        if card.degrades_to is not None and card.degrades_to not in units:
            problems.append(f"{path}: unit ({card.id}): degrades_to: no unit {card.degrades_to!r}")
    dice = read_dice(folder, problems, need={DIE: "every AFV roll"})
    raise_if(problems)
    return CardSet(units=units, dice=dice)


@functools.cache
def default_cards() -> CardSet:
    """The shipped cards, read once per process."""
    return load_cards()
