"""Dice with custom faces, a replayable seeded generator, and dice rolled at the table.

Every roll is recorded (which die, which face, which icons, why). The server's dice come from
HMAC-SHA256 over the table's seed and a roll counter, with the face picked by rejection
sampling so no face is favoured; the same seed and counter give the same game bit for bit.
A table that rolls physical dice supplies the face numbers instead; when it has not supplied
enough, the engine says exactly which dice it needs and changes nothing.
"""

from __future__ import annotations

import functools
import hashlib
import secrets
import struct
from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import repeat
from operator import is_
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from tankref.core.errors import (
    BadValue,
    DiceLeftOver,
    DiceNeed,
    DiceNeeded,
    RulesError,
    bad_value,
)
from tankref.core.trusted import adopt, every_field

DiceSource = Literal["server", "table"]
# Who draws a ruleset's damage cards: the referee from its own deck (seeded like the dice), or
# the players from a physical deck, the referee asking for the card like it asks for dice.
DamageCards = Literal["referee", "table"]


class Face(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    face: int = Field(ge=1, le=100)
    icons: tuple[str, ...] = ()


class DieSpec(BaseModel):
    """A die as card data: its colour name and the icons on each numbered face."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    label: str
    faces: tuple[Face, ...] = Field(min_length=2)

    @field_validator("faces")
    @classmethod
    def _faces_numbered_one_to_n(cls, faces: tuple[Face, ...]) -> tuple[Face, ...]:
        ordered = tuple(sorted(faces, key=lambda f: f.face))
        numbers = [f.face for f in ordered]
        if numbers != list(range(1, len(faces) + 1)):
            raise ValueError(f"faces must be numbered 1..{len(faces)}, got {numbers}")
        return ordered  # kept in face order, so face n is faces[n - 1]

    @property
    def sides(self) -> int:
        return len(self.faces)

    def icons(self, face: int) -> tuple[str, ...]:
        return self.faces[face - 1].icons


class Roll(BaseModel):
    """One die as it fell: kept in every result so anyone can check the arithmetic."""

    model_config = ConfigDict(frozen=True)

    die: str
    face: int
    icons: tuple[str, ...]
    purpose: str
    source: DiceSource
    counter: int | None = None  # the generator's counter for server dice
    reroll_of: int | None = None  # index, in the same result, of the roll this one replaced


_EVERY_ROLL_FIELD = every_field(Roll)


class DiceState(BaseModel):
    """The table's generator: seed and how many numbers it has drawn."""

    source: DiceSource = "server"
    damage_cards: DamageCards = "referee"
    seed: str = Field(default_factory=lambda: secrets.token_hex(32))
    player_seeds: tuple[str, ...] = ()
    counter: int = 0


_MASK32 = 1 << 32


_BLOCK = 64  # SHA-256's block size: HMAC pads (or first hashes) the key to it (RFC 2104)


@functools.lru_cache(maxsize=256)
def _keyed(seed: str, player_seeds: tuple[str, ...]) -> tuple[Any, Any]:
    """HMAC-SHA256 keyed with the table's seed, split into its inner hash (player seeds
    already fed in) and its outer hash, as RFC 2104 defines it. Copying two plain SHA-256
    states per number is the same HMAC as ``hmac.new(...).copy()`` at a fraction of the
    cost (a hot path: every die and card draw)."""
    key = seed.encode()
    if len(key) > _BLOCK:
        key = hashlib.sha256(key).digest()
    key = key.ljust(_BLOCK, b"\0")
    inner = hashlib.sha256(bytes(b ^ 0x36 for b in key))
    outer = hashlib.sha256(bytes(b ^ 0x5C for b in key))
    inner.update(b"".join(len(s).to_bytes(2, "big") + s.encode() for s in player_seeds))
    return inner, outer


_first_word = struct.Struct(">I").unpack_from  # a digest's first 32-bit word, big-endian
# A counter's message for attempt 0: its 8 bytes, then the attempt's 4 (zero), big-endian, in
# one C call (a hot path: every number)
_first_message = struct.Struct(">Q4x").pack


class Draws:
    """The numbers of one seed and set of player seeds: HMAC-SHA256 over the player seeds
    (each length-prefixed), the counter and an attempt number, rejection sampled. Keyed once,
    for all the draws of one adjudication (a hot path: every die and card draw)."""

    __slots__ = ("_inner", "_outer")

    def __init__(self, seed: str, player_seeds: Sequence[str]) -> None:
        seeds = player_seeds if type(player_seeds) is tuple else tuple(player_seeds)
        self._inner, self._outer = _keyed(seed, seeds)

    def number(self, counter: int, sides: int) -> int:
        """A uniform number in 1..sides for this counter."""
        return self.numbers(counter, 1, sides)[0]

    def numbers(self, first: int, count: int, sides: int) -> list[int]:
        """The numbers (each in 1..sides) for counters ``first`` .. ``first + count - 1``."""
        if sides < 1:
            raise ValueError("sides must be positive")
        limit = _MASK32 - (_MASK32 % sides)  # largest multiple of sides that fits: no modulo bias
        copy_inner, copy_outer = self._inner.copy, self._outer.copy
        out: list[int] = []
        for message in map(_first_message, range(first, first + count)):
            inner = copy_inner()
            inner.update(message)
            outer = copy_outer()
            outer.update(inner.digest())
            digest = outer.digest()
            (value,) = _first_word(digest)
            if value < limit:  # the first word nearly always fits
                out.append(value % sides + 1)
            else:  # this number's counter: the first, and one for each number before it
                out.append(self._rejected(first + len(out), sides, limit, digest))
        return out

    def _rejected(self, counter: int, sides: int, limit: int, digest: bytes) -> int:
        attempt = 0
        while True:
            for i in range(0, 32, 4):
                value = int.from_bytes(digest[i : i + 4], "big")
                if value < limit:
                    return value % sides + 1
            attempt += 1  # all eight words rejected: astronomically rare, but stay unbiased
            inner = self._inner.copy()
            inner.update(counter.to_bytes(8, "big") + attempt.to_bytes(4, "big"))
            outer = self._outer.copy()
            outer.update(inner.digest())
            digest = outer.digest()


def draw_number(seed: str, player_seeds: Sequence[str], counter: int, sides: int) -> int:
    """A uniform number in 1..sides for this counter: HMAC-SHA256 over the player seeds
    (each length-prefixed), the counter and an attempt number, rejection sampled."""
    if sides < 1:
        raise ValueError("sides must be positive")
    return Draws(seed, player_seeds).number(counter, sides)


class SuppliedDice(BaseModel):
    """Face numbers rolled at the table, per die colour, in the order they are to be used."""

    model_config = ConfigDict(extra="forbid", strict=True)

    faces: dict[str, list[int]] = Field(default_factory=dict)
    damage_card: str | None = None


def dice_taken(
    table: DiceState, supplied: SuppliedDice, *, damage_deck: bool, title: str
) -> SuppliedDice | None:
    """What a table may send for an adjudication, checked up front before any dice: faces
    only from a table that rolls its own, a card only from one that draws its own. On a
    server-dice table the token holder must not choose the dice (the card of a physical
    damage deck is still the table's to send); an empty ``dice`` there is dropped, so it
    cannot turn the referee's dice into the table's. The dice to adjudicate with (None: the
    referee's own). ``damage_deck``: the ruleset draws damage cards; ``title`` names it."""
    if supplied.faces and table.source == "server":
        raise RulesError(
            "SERVER_DICE",
            None,
            "dice.faces: this table's dice are rolled by the referee (dice.source: server); "
            "it takes no faces from the table: send the action without dice.faces",
            {"field": "dice.faces"},
        )
    if table.source == "server" and supplied.damage_card is None:
        return None
    if supplied.damage_card is None or table.damage_cards == "table":
        return supplied
    if table.source == "server" and damage_deck:
        raise RulesError(
            "SERVER_DICE",
            None,
            "dice.damage_card: this table's referee rolls the dice and draws the damage cards "
            "(dice.source: server, dice.damage_cards: referee); send the action without a card",
            {"field": "dice.damage_card"},
        )
    if damage_deck:
        why = "this table's referee draws the damage cards (dice.damage_cards: referee)"
    else:
        why = f"{title} has no damage deck"
    bad_value(
        "DAMAGE_CARD_NOT_WANTED",
        None,
        f"dice.damage_card: {why}; send the action without a card",
        field="dice.damage_card",
    )


class DiceBag:
    """The dice for one adjudication: server-seeded, or the faces the table supplied.

    It works on a copy of the table's ``DiceState``; the engine keeps the copy only if the
    whole action succeeds.
    """

    def __init__(
        self,
        state: DiceState,
        dice: Mapping[str, DieSpec],
        supplied: SuppliedDice | None = None,
    ) -> None:
        self.state = state
        self.dice = dice
        self.rolls: list[Roll] = []
        self._queues: dict[str, list[int]] | None = None
        self._used: dict[str, int] = {}
        self.damage_card = supplied.damage_card if supplied else None
        self.damage_card_taken = False
        self.counter = state.counter  # kept here on the hot path; see ``settled_state``
        self._draws: Draws | None = None
        # A card alone on a server-dice table is the table's deck answering: the referee
        # still rolls the dice.
        card_only = (
            supplied is not None
            and not supplied.faces
            and supplied.damage_card is not None
            and state.source == "server"
        )
        if supplied is not None and not card_only:
            self._queues = {}
            for name, faces in supplied.faces.items():
                spec = dice.get(name)
                if spec is None:
                    raise BadValue(
                        "UNKNOWN_DIE",
                        None,
                        f"dice.{name}: no die called {name!r} (known: {', '.join(dice)})",
                    )
                for face in faces:
                    if not 1 <= face <= spec.sides:
                        raise BadValue(
                            "BAD_FACE",
                            None,
                            f"dice.{name}: face {face} is not on a {spec.sides}-sided die",
                        )
                self._queues[name] = list(faces)
        elif state.source == "table":
            self._queues = {}

    @property
    def from_table(self) -> bool:
        return self._queues is not None

    def roll(self, die: str, count: int, purpose: str, reroll_of: int | None = None) -> list[Roll]:
        faces_of = self.dice[die].faces
        source: DiceSource
        counters: Iterable[int | None]
        if self._queues is None:  # the referee's dice, keyed on the first roll (``draws``)
            first = self.counter
            self.counter = first + count
            faces = (self._draws or self.draws).numbers(first, count, len(faces_of))
            source, counters = "server", range(first, first + count)
        else:
            queue = self._queues.get(die, [])
            if len(queue) < count:
                raise DiceNeeded(DiceNeed(die, count - len(queue), purpose), dict(self._used))
            faces = queue[:count]
            del queue[:count]
            self._used[die] = self._used.get(die, 0) + count
            source, counters = "table", repeat(None)
        # Each die's ``Roll`` (every field given, in declared order): the model validation
        # would build, without validating what the bag computed itself. Built as its fields
        # are written, here (one pass, no call a roll: cheaper than a list of the dicts first
        # and ``adopted`` over it, measured for one die and for five; a hot path: every die).
        out = [
            adopt(
                Roll,
                {
                    "die": die,
                    "face": face,
                    "icons": faces_of[face - 1].icons,
                    "purpose": purpose,
                    "source": source,
                    "counter": counter,
                    "reroll_of": reroll_of,
                },
                _EVERY_ROLL_FIELD,
            )
            for face, counter in zip(faces, counters, strict=False)  # table: repeat(None)
        ]
        self.rolls.extend(out)
        return out

    def reroll(self, old: Roll, purpose: str) -> Roll:
        """Roll again the die that showed ``old`` (a star or a Grizzled reroll)."""
        rolls = self.rolls
        # the last roll that is ``old`` itself (not one equal to it), found in C
        index = len(rolls) - 1 - list(map(is_, reversed(rolls), repeat(old))).index(True)
        return self.roll(old.die, 1, purpose, reroll_of=index)[0]

    def uniform(self, n: int) -> int:
        """A number in 0..n-1 from the table's generator (deck shuffles; never table dice)."""
        counter = self.counter
        self.counter = counter + 1
        return self.draws.numbers(counter, 1, n)[0] - 1

    @property
    def draws(self) -> Draws:
        """The table's generator, keyed on first use (a table rolling its own dice may never
        need it)."""
        draws = self._draws
        if draws is None:
            draws = self._draws = Draws(self.state.seed, self.state.player_seeds)
        return draws

    def settled_state(self) -> DiceState:
        """The generator's state after this adjudication's draws."""
        if self.state.counter != self.counter:
            self.state.__dict__["counter"] = self.counter  # the bag's own count (core.trusted)
            self.state.__pydantic_fields_set__.add("counter")
        return self.state

    def take_damage_card(self, ask: Callable[[], tuple[str, dict[str, object]]]) -> str | None:
        """The damage card the table drew by hand, if it supplied one; None: the referee
        draws. A table that draws its own cards (``damage_cards: table``) and has not sent
        one is asked for it, like dice: ``DICE_NEEDED`` naming it, nothing changed. ``ask``:
        what the request says (its purpose and details), worked out only when it is made."""
        if self.damage_card is None and self.state.damage_cards == "table":
            purpose, extra = ask()
            raise DiceNeeded(DiceNeed("damage_card", 1, purpose, extra), dict(self._used))
        self.damage_card_taken = True
        return self.damage_card

    def finish(self) -> None:
        """Refuse leftover supplied faces: a wrong count is an error, not a shrug."""
        queues = self._queues
        # the referee's own dice leave nothing over: no comprehension run for them
        left = {die: len(q) for die, q in queues.items() if q} if queues else {}
        if self.damage_card is not None and not self.damage_card_taken:
            left["damage_card"] = 1
        if left:
            raise DiceLeftOver(left, dict(self._used))
