"""TinyTableTopTanks card data: tank cards, the three dice, the damage deck.

All of it is data the players may edit (``cards/ttt/``); the engine snapshots what a table
uses when the table is created, so a later edit never changes a game already played.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from tankref.core.carddata import parse_entries, raise_if, read_dice, read_toml, shipped_dir
from tankref.core.dice import DieSpec

Side = Literal["front", "side", "rear", "turret"]
DamageEffect = Literal[
    "destroyed",
    "immobilized",
    "gun_damaged",
    "optics_damaged",
    "engine_damaged",
    "turret_jammed",
    "crew_stunned",
    "none",
]
# The die names the TTT engine rolls; the faces on them are data.
ACCURACY_DIE = "white"
PENETRATION_DIE = "red"
MORALE_DIE = "green"
HIT = "HIT"
PEN = "PEN"
STAR = "STAR"

_SLUG = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}$")


class _Card(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Armour(_Card):
    front: int = Field(ge=0, le=12)
    side: int = Field(ge=0, le=12)
    rear: int = Field(ge=0, le=12)
    turret: int = Field(ge=0, le=12)

    def of(self, side: Side) -> int:
        return int(getattr(self, side))


class Crew(_Card):
    modifier: int = Field(default=0, ge=-3, le=5)  # added to the crew roll (TTT-C1)
    grizzled: bool = False  # Grizzled without a roll


class SmokeAbility(_Card):
    name: str = Field(min_length=1, max_length=60)
    kind: Literal["self", "mortar"]
    strength: Literal[1, 2]
    range: float | None = Field(default=None, gt=0, le=120)  # inches, mortars only
    uses: int = Field(default=1, ge=1, le=99)  # per game (TTT-SM1: once unless the card says)
    # TTT-SM1: "most" tanks that may use it more than once may not Move or Engage in the turn
    # they pop it; a card whose tank is the exception says false here.
    bars_move_engage: bool = True

    @model_validator(mode="after")
    def _range_for_mortars_only(self) -> SmokeAbility:
        if self.kind == "mortar" and self.range is None:
            raise ValueError("a mortar smoke ability needs a range (inches)")
        if self.kind == "self" and self.range is not None:
            raise ValueError("a self smoke ability has no range")
        return self


class TankCard(_Card):
    id: str
    name: str = Field(min_length=1, max_length=80)
    nation: str = Field(min_length=1, max_length=40)
    movement: float = Field(gt=0, le=30)  # inches, a Normal Move (TTT-M1)
    accuracy: int = Field(ge=1, le=8)  # white dice (TTT-E4)
    penetration: int = Field(ge=1, le=10)  # red dice (TTT-E5)
    armour: Armour
    crew: Crew = Crew()
    fast_evasion: bool = False  # "-1 enemy Accuracy" while Moving Fast (TTT-M2)
    engage_while_fast: bool = False  # may Engage while Moving Fast (TTT-M2)
    smoke: tuple[SmokeAbility, ...] = ()
    notes: str = ""

    @field_validator("id")
    @classmethod
    def _slug(cls, value: str) -> str:
        if not _SLUG.match(value):
            raise ValueError("use lower-case letters, digits and dashes (e.g. 'tiger-i')")
        return value

    @model_validator(mode="after")
    def _unique_smoke_names(self) -> TankCard:
        names = [s.name for s in self.smoke]
        if len(set(names)) != len(names):
            raise ValueError("smoke ability names must be unique on a card")
        return self

    def smoke_ability(self, name: str) -> SmokeAbility | None:
        for ability in self.smoke:
            if ability.name == name:
                return ability
        return None


class DamageCard(_Card):
    name: str = Field(min_length=1, max_length=40)
    count: int = Field(ge=1, le=40)
    effect: DamageEffect
    catastrophic: bool = False  # Explosion / Fire: friends who see it check morale (TTT-MO2)
    text: str = ""

    @model_validator(mode="after")
    def _catastrophic_destroys(self) -> DamageCard:
        if self.catastrophic and self.effect != "destroyed":
            raise ValueError("only a 'destroyed' card can be catastrophic")
        return self


class RulesData(_Card):
    """The dice faces and damage deck a table plays with (house defaults are card data)."""

    dice: dict[str, DieSpec]
    deck: tuple[DamageCard, ...]

    @model_validator(mode="after")
    def _complete(self) -> RulesData:
        missing = {ACCURACY_DIE, PENETRATION_DIE, MORALE_DIE} - set(self.dice)
        if missing:
            raise ValueError(f"dice missing: {', '.join(sorted(missing))}")
        names = [c.name for c in self.deck]
        if len(set(names)) != len(names):
            raise ValueError("damage card names must be unique")
        return self

    def deck_card(self, name: str) -> DamageCard | None:
        return _deck_of(self)[1].get(name)

    def full_deck(self) -> list[str]:
        """Card names in file order, each as many times as its count (before shuffling)."""
        return list(self.deck_names())

    def deck_names(self) -> tuple[str, ...]:
        """``full_deck()`` as a tuple: the pile a shuffle puts back (TTT-E7)."""
        return _deck_of(self)[0]


# id of a table's rules -> (the rules, the full deck's names, its cards by name). The rules
# are a frozen snapshot shared by every state of a table: worked out once per snapshot, not
# once per damage card drawn. The rules are kept in the entry, so that an id reused by a
# later object is never taken for them.
_decks: dict[int, tuple[RulesData, tuple[str, ...], dict[str, DamageCard]]] = {}
_DECKS = 64


def _deck_of(rules: RulesData) -> tuple[tuple[str, ...], dict[str, DamageCard]]:
    known = _decks.get(id(rules))
    if known is not None and known[0] is rules:
        return known[1], known[2]
    names = tuple(c.name for c in rules.deck for _ in range(c.count))
    by_name = {c.name: c for c in rules.deck}  # names are unique (``_complete``)
    if len(_decks) >= _DECKS:
        _decks.clear()
    _decks[id(rules)] = (rules, names, by_name)
    return names, by_name


class CardSet(BaseModel):
    model_config = ConfigDict(frozen=True)

    tanks: dict[str, TankCard]
    rules: RulesData

    def tank(self, card_id: str) -> TankCard | None:
        return self.tanks.get(card_id)


def load_cards(folder: Path | None = None, extra: Sequence[Path] = ()) -> CardSet:
    """Read ``folder`` (the shipped ``cards/ttt`` by default) plus any extra tank files.

    Every problem in every file is gathered and raised together as a ``DataError``.
    """
    folder = folder or shipped_dir("ttt")
    problems: list[str] = []
    tanks: dict[str, TankCard] = {}
    tank_files = sorted((folder / "tanks").glob("*.toml")) + list(extra)
    if not tank_files:
        problems.append(f"{folder / 'tanks'}: no tank card files (*.toml)")
    for path in tank_files:
        data = read_toml(path, problems)
        if data is None:
            continue
        for card in parse_entries(path, "tank", TankCard, data, problems):
            if card.id in tanks:
                problems.append(f"{path}: tank ({card.id}): id: used by another card already")
            else:
                tanks[card.id] = card

    # Which dice a table needs is checked with the rest of the rules data (RulesData).
    dice = read_dice(folder, problems, need={})

    deck: list[DamageCard] = []
    deck_path = folder / "damage-deck.toml"
    data = read_toml(deck_path, problems)
    if data is not None:
        deck = list(parse_entries(deck_path, "card", DamageCard, data, problems, "name"))

    raise_if(problems)
    try:
        rules = RulesData(dice=dice, deck=tuple(deck))
    except ValueError as exc:
        raise_if([f"{folder}: {exc}"])
        raise
    return CardSet(tanks=tanks, rules=rules)


@functools.cache
def default_cards() -> CardSet:
    """The shipped cards, read once per process."""
    return load_cards()
