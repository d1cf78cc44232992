"""Tank yard card data: the tank's stat block, the pieces on artillery spaces, the dice.

All of it is data the players may edit (``cards/yrd/``); a table snapshots the dice when it
is created and a unit's card when it is placed, so a later edit never changes a game.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, field_validator

from tankref.core.carddata import parse_entries, raise_if, read_dice, read_toml, shipped_dir
from tankref.core.dice import DieSpec

_SLUG = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}$")
DAMAGE_DIE = "d6"  # YRD-AT1: 2d6 damage from the Attack space


class _Card(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    name: str = Field(min_length=1, max_length=80)

    @field_validator("id")
    @classmethod
    def _slug(cls, value: str) -> str:
        if not _SLUG.match(value):
            raise ValueError("use lower-case letters, digits and dashes (e.g. 'yard-tank')")
        return value


class TankCard(_Card):
    """A tank's stat block (YRD-HP1): its HP."""

    hp: int = Field(ge=1, le=999)


class PieceCard(_Card):
    """A piece that may stand on an artillery space; ``hp`` None: the players keep its HP."""

    hp: int | None = Field(default=None, ge=1, le=9999)


class CardSet(BaseModel):
    model_config = ConfigDict(frozen=True)

    tanks: dict[str, TankCard]
    pieces: dict[str, PieceCard]
    dice: dict[str, DieSpec]


def load_cards(folder: Path | None = None) -> CardSet:
    """Read ``folder`` (the shipped ``cards/yrd`` by default); every problem in every file is
    raised together as a ``DataError``."""
    folder = folder or shipped_dir("yrd")
    problems: list[str] = []
    ids: dict[str, Path] = {}

    def unique(path: Path, kind: str, card_id: str) -> bool:
        if card_id in ids:
            problems.append(f"{path}: {kind} ({card_id}): id: used by another card already")
            return False
        ids[card_id] = path
        return True

    tanks: dict[str, TankCard] = {}
    path = folder / "tanks.toml"
    data = read_toml(path, problems)
    if data is not None:
        for tank in parse_entries(path, "tank", TankCard, data, problems):
            if unique(path, "tank", tank.id):
                tanks[tank.id] = tank

    pieces: dict[str, PieceCard] = {}
    path = folder / "pieces.toml"
    data = read_toml(path, problems)
    if data is not None:
        for piece in parse_entries(path, "piece", PieceCard, data, problems):
            if unique(path, "piece", piece.id):
                pieces[piece.id] = piece

    dice = read_dice(folder, problems, need={DAMAGE_DIE: "the Attack space's damage die, YRD-AT1"})
    raise_if(problems)
    return CardSet(tanks=tanks, pieces=pieces, dice=dice)


@functools.cache
def default_cards() -> CardSet:
    """The shipped cards, read once per process."""
    return load_cards()
