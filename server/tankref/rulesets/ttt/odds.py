"""Exact odds of an Engage before the shot: hit, penetration, damage card, destruction, morale.

The numbers come from the same plan the referee resolves (``combat.plan_engage``): the side
hit after the best-armour turn, every Accuracy penalty, the dice, the PEN needed and where
the Grizzled reroll may be spent. The dice faces are read from the table's card data, the
damage cards from what is left in the table's deck, the morale outcomes from ``morale.py``.

Everything is exact (``fractions.Fraction``); floats are only for display (the dice sums of
Accuracy and Penetration are in ``dice_odds``):

- Accuracy: icepool counts the HIT icons of the white pool (at most one hit, TTT-E4); a
  missed roll may get the Grizzled reroll of one die (TTT-CR1).
- Penetration: icepool gives the first roll of the red pool; the star chain (TTT-E6: each *
  rerolls a blank die while the target is not yet penetrated, a * on a reroll grants another)
  and the Grizzled reroll of the weakest die (with that die's own stars) are a dynamic
  programme over (PEN so far, blank dice, stars in hand, fewest PEN on a non-blank die) with
  integer weights over a common denominator, turned into one Fraction at the end.
- Damage card (TTT-E7): a card drawn at random from the draw pile (the full deck when it is
  empty), as ``damage.draw_damage_card`` draws it.
- Morale (TTT-MO1..3, TTT-MR3, TTT-MR5): the target's own check after this shot (a
  penetrating hit, or a second enemy tank hitting it this game turn), and on request the
  checks of its friends (a catastrophic death in their sight, or the last friend that could
  move stopped).

Results are cached by situation: the tuple of numbers that decides the odds (dice faces and
counts, PEN needed, rerolls, deck composition, the target's crew and morale), so a table
full of similar shots is computed once per kind of shot; and each pair's line and plan are
kept by ``combat.plan_engages`` while its tanks, the terrain, the smoke and the options are
the same objects, so the odds after a move plan only the moved tank's pairs again. Pure: no
I/O, no state changes, no dice drawn.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field

from tankref.core.errors import RulesError
from tankref.core.results import Modifier
from tankref.core.trusted import adopt
from tankref.rulesets.ttt.actions import GrizzledUse
from tankref.rulesets.ttt.cards import (
    DamageEffect,
    RulesData,
    Side,
    TankCard,
    default_cards,
)
from tankref.rulesets.ttt.combat import (
    EngagePlan,
    SidePlan,
    clear_plan_cache,
    plan_engage,
    plan_engages,
    plan_shot,
)
from tankref.rulesets.ttt.dice_odds import (
    ONE,
    ZERO,
    DeckKey,
    RedFace,
    TableDice,
    clear_dice_caches,
    hit_odds,
    penetration_odds,
    table_dice,
)
from tankref.rulesets.ttt.morale import bails_out, mobile_friends, morale_after
from tankref.rulesets.ttt.sight import LineOfFire, SideReading, read_line
from tankref.rulesets.ttt.state import Morale, Options, TableState, TankState

__all__ = [
    "CardOdds",
    "MoraleOdds",
    "ShotOdds",
    "brief_odds",
    "cache_sizes",
    "clear_caches",
    "hit_odds",
    "odds_against",
    "odds_for_shooter",
    "odds_for_situation",
    "odds_from_plan",
    "penetration_odds",
    "situation_numbers",
]

# --- the answer, in the result vocabulary -----------------------------------------------------


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class CardOdds(_Frozen):
    """One damage card: how likely this shot is to make the target draw it (TTT-E7)."""

    name: str
    effect: DamageEffect
    catastrophic: bool
    left: int = Field(description="Copies of the card in the pile the card is drawn from.")
    p_given_penetration: float
    p: float = Field(description="Penetrated and drew this card.")
    exact_given_penetration: str
    exact: str


class MoraleOdds(_Frozen):
    """A morale check this shot may cause (TTT-MO2), and how likely it is to fail."""

    tank_id: str
    checks: bool = Field(description="False: this crew makes no check after this shot.")
    why_not: str | None = None
    triggers: tuple[str, ...] = Field(description="The TTT-MO2 triggers counted.")
    p_check: float
    p_failure: float = Field(description="A check with a Shaken or Routed result (green 4-6).")
    exact: dict[str, str]


class ShotOdds(_Frozen):
    """The odds of one Engage before the dice are rolled, with every number that decides them.

    Floats are for display; ``exact`` holds the same probabilities as fractions "a/b".
    """

    shooter: str
    target: str
    shooter_card: str
    target_card: str
    range: float | None = Field(description="Inches; None for a hypothetical shot.")
    hit_side: Side
    hull_down: bool
    best_armour_turn: Side | None = Field(
        description="The armour the referee turns to the shot first (TTT-E3), if any."
    )
    accuracy_dice: int = Field(description="White dice rolled: the card's less every penalty.")
    penetration_dice: int = Field(description="Red dice rolled.")
    armour: int
    cover: int
    needed: int = Field(description="PEN needed: armour of the side hit plus Cover.")
    modifiers: tuple[Modifier, ...]
    grizzled_policy: Literal["auto", "ask"] | None = Field(
        description="The table's option when the shooter has a Grizzled reroll to spend."
    )
    reroll_accuracy: bool = Field(description="The Grizzled reroll may save a missed roll.")
    reroll_penetration: bool = Field(
        description="The Grizzled reroll may save a failed Penetration roll (if still unspent)."
    )
    p_hit: float
    p_penetrate_given_hit: float
    p_penetrate: float
    p_destroyed: float = Field(description="Destroyed by the card or by the crew bailing out.")
    p_destroyed_by_card: float
    p_bail_out: float = Field(description="Routed while Immobilized: the crew bails out (MR5).")
    p_morale_failure: float = Field(description="The target's own check fails (see morale).")
    exact: dict[str, str]
    cards: tuple[CardOdds, ...]
    deck_left: int = Field(description="Cards in the pile the damage card is drawn from.")
    deck_reshuffled: bool = Field(description="The pile is empty: a full deck is shuffled in.")
    morale: MoraleOdds
    friends: tuple[MoraleOdds, ...] | None = Field(
        default=None, description="The target's friends' checks; None when not asked for."
    )
    notes: tuple[str, ...] = ()


def _exact(p: Fraction) -> str:
    return f"{p.numerator}/{p.denominator}"


def _float(p: Fraction) -> float:
    """``float(p)``: the same integer true division ``numbers.Rational.__float__`` makes, so
    the same float, without its generic path (thousands per table's answers, cold)."""
    return p.numerator / p.denominator


# --- the damage card and morale (TTT-E7, TTT-MO1..3, TTT-MR3, TTT-MR5) -------------------------


class _ShotKey(NamedTuple):
    """The dice of a shot: what decides P(hit) and P(penetrated)."""

    white: tuple[int, ...]
    white_dice: int
    reroll_accuracy: bool
    red: tuple[RedFace, ...]
    red_dice: int
    needed: int
    reroll_penetration: bool


class _MoraleKey(NamedTuple):
    """The target's crew as its morale check after this shot sees it."""

    green: tuple[Morale, ...]
    checks: bool  # a Scared crew (Grizzled crews never check, TTT-MO1)
    morale: Morale
    immobilized: bool
    second_hit: bool  # a hit would be the second enemy tank's this game turn (MO2 trigger 2)


class _Situation(NamedTuple):
    """Every number that decides a shot's odds: the cache key (tuples: cheap to hash)."""

    shot: _ShotKey
    deck: DeckKey
    morale: _MoraleKey


@functools.lru_cache(maxsize=256)
def _check(green: tuple[Morale, ...], old: Morale, immobilized: bool) -> tuple[Fraction, Fraction]:
    """(P(the check fails), P(it Routs an Immobilized crew, who bail out)) for one check."""
    sides = len(green)
    fails = sum(1 for result in green if result != "ok")
    bail = sum(1 for result in green if bails_out(old, morale_after(old, result)[0], immobilized))
    return Fraction(fails, sides), Fraction(bail, sides)


@functools.lru_cache(maxsize=4096)
def _shot_dice(shot: _ShotKey) -> tuple[Fraction, Fraction]:
    """(P(hit), P(penetrated)): the dice alone, whatever the deck and the crews."""
    hit_first, hit_again = hit_odds(shot.white, shot.white_dice, shot.reroll_accuracy)
    # The Grizzled reroll is left for Penetration only when Accuracy did not spend it.
    penetrate = hit_first * penetration_odds(
        shot.red, shot.red_dice, shot.needed, shot.reroll_penetration
    )
    if hit_again:
        penetrate += hit_again * penetration_odds(shot.red, shot.red_dice, shot.needed, False)
    return hit_first + hit_again, penetrate


class _DeckCounts(NamedTuple):
    """What the morale and destruction odds need from the pile: copies of each kind."""

    left: int
    destroying: int
    immobilizing: int
    catastrophic: int


@functools.lru_cache(maxsize=1024)
def _deck_counts(deck: DeckKey) -> _DeckCounts:
    return _DeckCounts(
        left=sum(c[1] for c in deck),
        destroying=sum(c[1] for c in deck if c[2] == "destroyed"),
        immobilizing=sum(c[1] for c in deck if c[2] == "immobilized"),
        catastrophic=sum(c[1] for c in deck if c[3]),
    )


class _Linear(NamedTuple):
    """A probability written as P(penetrated)·pen + P(hit)·hit: after the dice, every outcome
    is linear in those two, with weights from the deck and the crew alone."""

    pen: Fraction = ZERO
    hit: Fraction = ZERO

    def of(self, hit: Fraction, penetrate: Fraction) -> Fraction:
        pen, per_hit = self.pen, self.hit
        if not per_hit:
            return penetrate * pen if pen else ZERO
        if not pen:
            return hit * per_hit
        # The sum over one denominator: one reduction instead of three (same fraction).
        den = penetrate.denominator * pen.denominator
        den_hit = hit.denominator * per_hit.denominator
        num = penetrate.numerator * pen.numerator * den_hit
        num += hit.numerator * per_hit.numerator * den
        return Fraction(num, den * den_hit)


class _Weights(NamedTuple):
    destroyed_by_card: _Linear
    bail_out: _Linear
    morale_check: _Linear
    morale_failure: _Linear
    catastrophic: Fraction  # P(a catastrophic card | penetrated)
    stops: Fraction  # P(the target can no longer move | penetrated)


@functools.lru_cache(maxsize=1024)
def _weights(counts: _DeckCounts, crew: _MoraleKey) -> _Weights:
    """How the damage card and the target's morale check turn a hit or a penetration into
    destruction, bail-out and morale failure (TTT-E7, TTT-MO1..3, TTT-MR3, TTT-MR5)."""
    destroying = Fraction(counts.destroying, counts.left)
    immobilizing = Fraction(counts.immobilizing, counts.left)
    stays = ONE - destroying - immobilizing  # on the table and still able to move
    # (on a penetration, on a hit) for each: a hit that fails to penetrate is hit - pen.
    check = [ZERO, ZERO]
    failure = [ZERO, ZERO]
    bail = [ZERO, ZERO]
    if crew.morale == "routed":  # Immobilized on a Routed crew: it bails out at once (MR5)
        bail[0] += immobilizing
    if crew.checks:
        fail_now, bail_now = _check(crew.green, crew.morale, crew.immobilized)
        # Penetrated and still on the table (trigger 1; trigger 2 makes no second check)...
        checked = [stays, ZERO]
        # ... or hit without penetration: a check only as the second enemy tank's hit.
        if crew.second_hit:
            checked = [stays - ONE, ONE]
        for i in (0, 1):
            check[i] += checked[i]
            failure[i] += checked[i] * fail_now
            bail[i] += checked[i] * bail_now
        if crew.morale != "routed":  # Immobilized by the card, then the check
            fail_imm, bail_imm = _check(crew.green, crew.morale, True)
            check[0] += immobilizing
            failure[0] += immobilizing * fail_imm
            bail[0] += immobilizing * bail_imm
    return _Weights(
        destroyed_by_card=_Linear(pen=destroying),
        bail_out=_Linear(*bail),
        morale_check=_Linear(*check),
        morale_failure=_Linear(*failure),
        catastrophic=Fraction(counts.catastrophic, counts.left),
        stops=destroying + immobilizing,
    )


@dataclass(frozen=True)
class _Outcome:
    hit: Fraction
    penetrate: Fraction
    destroyed_by_card: Fraction
    bail_out: Fraction
    morale_check: Fraction
    morale_failure: Fraction
    catastrophic: Fraction  # P(a catastrophic card | penetrated)
    stops: Fraction  # P(the target can no longer move | penetrated)

    @property
    def destroyed(self) -> Fraction:
        return self.destroyed_by_card + self.bail_out


@functools.lru_cache(maxsize=8192)
def _outcome(shot: _ShotKey, counts: _DeckCounts, crew: _MoraleKey) -> _Outcome:
    """The shot's outcome odds: keyed by card kinds, not names, so a pile that changes by
    a card of no consequence to them finds the answer cached."""
    hit, penetrate = _shot_dice(shot)
    w = _weights(counts, crew)
    return _Outcome(
        hit=hit,
        penetrate=penetrate,
        destroyed_by_card=w.destroyed_by_card.of(hit, penetrate),
        bail_out=w.bail_out.of(hit, penetrate),
        morale_check=w.morale_check.of(hit, penetrate),
        morale_failure=w.morale_failure.of(hit, penetrate),
        catastrophic=w.catastrophic,
        stops=w.stops,
    )


def _numbers(s: _Situation) -> _Outcome:
    return _outcome(s.shot, _deck_counts(s.deck), s.morale)


def _deck(rules: RulesData, pile: tuple[str, ...]) -> tuple[DeckKey, bool]:
    """The pile the damage card comes from (the full deck when empty), as a cache key."""
    reshuffled = not pile
    key = pile or rules.deck_names()
    piles = table_dice(rules).piles
    cached = piles.get(key)
    if cached is None:
        counts = Counter(key)
        out = []
        for card in rules.deck:  # deck order, so the answer lists the cards as the file does
            if counts[card.name]:
                out.append((card.name, counts[card.name], card.effect, card.catastrophic))
        cached = tuple(out)
        if len(piles) >= 256:
            piles.clear()
        piles[key] = cached
    return cached, reshuffled


# --- putting the answer together --------------------------------------------------------------


def _fraction_fields(**values: Fraction) -> dict[str, str]:
    return {name: _exact(p) for name, p in values.items()}


def _friends_morale(state: TableState, plan: EngagePlan, n: _Outcome) -> tuple[MoraleOdds, ...]:
    """TTT-MO2 triggers 3 and 4 for the target's friends on the table.

    A friend checks when the target dies catastrophically in its sight (4), or when the
    target was its last friend that could move and no longer can (3): destroyed or
    Immobilized. One check however many triggers fire (TTT-MO2 ruling).
    """
    target = plan.target
    green = table_dice(state.rules).green
    fail = Fraction(sum(1 for result in green if result != "ok"), len(green))
    out = []
    for friend in sorted(state.tanks.values(), key=lambda t: t.id):
        if friend.player != target.player or friend.id == target.id or not friend.on_board:
            continue
        sees = read_line(state, friend, target).visible
        last = target.can_move and mobile_friends(state, friend) == 1
        triggers = []
        if sees:
            triggers.append("TTT-MO2 (4) sees it die catastrophically (Explosion, Fire)")
        if last:
            triggers.append("TTT-MO2 (3) it was the last friend that could move")
        # Stopped (destroyed or Immobilized) covers the catastrophic cards too: one check.
        given = n.stops if last else n.catastrophic if sees else ZERO
        check = ZERO if friend.grizzled else n.penetrate * given
        out.append(
            MoraleOdds(
                tank_id=friend.id,
                checks=not friend.grizzled and bool(triggers),
                why_not="Grizzled crew: no morale checks (TTT-MO1)" if friend.grizzled else None,
                triggers=tuple(triggers),
                p_check=_float(check),
                p_failure=_float(check * fail),
                exact=_fraction_fields(p_check=check, p_failure=check * fail),
            )
        )
    return tuple(out)


def _situation(
    rules: RulesData,
    pile: tuple[str, ...],
    plan: EngagePlan,
    second_hit: bool,
) -> tuple[_Situation, bool]:
    table = _table(rules, pile, None)
    return table.situation(_key(plan, second_hit)), table.reshuffled


# A shot's place among the situations of one table's dice and pile: (white dice, Accuracy
# reroll, red dice, PEN needed, Penetration reroll, crew checks, morale, Immobilized, second
# hit). A flat tuple of small values: cheap to build and to hash once per shot.
_Key = tuple[int, bool, int, int, bool, bool, Morale, bool, bool]


def _key(plan: EngagePlan, second_hit: bool) -> _Key:
    target = plan.target
    return (
        plan.white_dice,
        plan.reroll_accuracy,
        plan.red_dice,
        plan.threshold,
        plan.reroll_penetration,
        not target.grizzled,
        target.morale,
        target.immobilized,
        second_hit,
    )


@dataclass(frozen=True)
class _Answer:
    """The part of the answer that depends on the situation alone (cached with it): the
    fields of a ``ShotOdds`` and of its ``MoraleOdds``, every one in declared order, those a
    shot adds of its own (shooter, target, side, ...) held by a placeholder. A shot copies
    them (one C call each) and sets its own."""

    numbers: _Outcome
    rank: tuple[float, Fraction]  # sorts most likely destroyed first, exactly (see _rank)
    shot: dict[str, Any]
    morale: dict[str, Any]


@dataclass
class _Table:
    """What every shot on one table shares: the dice faces, the pile the damage card comes
    from (as a cache key) and the situations already worked out against them."""

    dice: TableDice
    deck: DeckKey
    reshuffled: bool
    grizzled_policy: Literal["auto", "ask"]
    answers: dict[_Key, _Answer]
    rolls: dict[_Roll, dict[str, Any]]  # each roll's fields (``_roll_fields``)

    def situation(self, key: _Key) -> _Situation:
        white_dice, reroll_acc, red_dice, needed, reroll_pen, checks, morale, imm, second = key
        dice = self.dice
        shot = _ShotKey(dice.white, white_dice, reroll_acc, dice.red, red_dice, needed, reroll_pen)
        crew = _MoraleKey(dice.green, checks, morale, imm, second)
        return _Situation(shot=shot, deck=self.deck, morale=crew)

    def answer(self, key: _Key) -> _Answer:
        found = self.answers.get(key)
        if found is None:
            if len(self.answers) >= _SITUATIONS:
                self.answers.clear()
                self.rolls.clear()
            found = self.answers[key] = _answer(key, self.situation(key), self.rolls)
        return found


_SITUATIONS = 4096  # per dice and pile; a table holds a few hundred kinds of shot
_TABLES = 64
# (the dice faces, the pile) -> the situations worked out against them
_answers: dict[tuple[TableDice, DeckKey], dict[_Key, _Answer]] = {}
# (the dice faces, the pile) -> each roll's fields; filled and cleared with ``_answers``
_rolls: dict[tuple[TableDice, DeckKey], dict[_Roll, dict[str, Any]]] = {}


def _table(rules: RulesData, pile: tuple[str, ...], options: Options | None) -> _Table:
    dice = table_dice(rules)
    deck, reshuffled = _deck(rules, pile)
    answers = _answers.get((dice, deck))
    if answers is None:
        if len(_answers) >= _TABLES:
            _answers.clear()
            _rolls.clear()
        answers = _answers[(dice, deck)] = {}
        _rolls[(dice, deck)] = {}
    policy = _DEFAULT_POLICY if options is None else options.grizzled_reroll
    return _Table(dice, deck, reshuffled, policy, answers, _rolls[(dice, deck)])


_DEFAULT_POLICY = Options().grizzled_reroll


def _rank(destroyed: Fraction) -> tuple[float, Fraction]:
    """Most likely destroyed first: by the float (a fast compare), ties by the exact fraction
    (``float`` never reverses an order, so this is the fractions' order).

    Equal chances share one rank object: a sort meeting two of them (many targets a shot
    cannot destroy, say) sees the same object and goes on to the target id at once, instead
    of comparing two equal fractions (a Python-level ``__eq__`` with ABC checks)."""
    # Keyed by the fraction's integers: a Fraction's own hash is a modular power.
    value = (destroyed.numerator, destroyed.denominator)
    found = _ranks.get(value)
    if found is None:
        if len(_ranks) >= 4096:
            _ranks.clear()
        found = _ranks[value] = (-_float(destroyed), -destroyed)
    return found


_ranks: dict[tuple[int, int], tuple[float, Fraction]] = {}


@functools.lru_cache(maxsize=1024)
def _card_shares(
    deck: DeckKey,
) -> tuple[tuple[str, int, DamageEffect, bool, Fraction, float, str], ...]:
    """Each card's chance to be the one drawn (TTT-E7), with its float and "a/b": the deck
    alone decides it."""
    left = _deck_counts(deck).left
    out = []
    for name, copies, effect, catastrophic in deck:
        p = Fraction(copies, left)
        out.append((name, copies, effect, catastrophic, p, _float(p), _exact(p)))
    return tuple(out)


@functools.lru_cache(maxsize=4096)
def _cards(deck: DeckKey, penetrate: Fraction) -> tuple[CardOdds, ...]:
    """The card lines of a shot: the deck and P(penetrated) decide them, not the crews, so
    situations that differ only in morale share them. Cards with as many copies left have
    the same chances: worked out once for each number of copies."""
    out = []
    drawn: dict[int, tuple[float, str]] = {}
    for name, copies, effect, catastrophic, p, p_float, p_exact in _card_shares(deck):
        found = drawn.get(copies)
        if found is None:
            both = p * penetrate
            found = drawn[copies] = (_float(both), _exact(both))
        values = {
            "name": name,
            "effect": effect,
            "catastrophic": catastrophic,
            "left": copies,
            "p_given_penetration": p_float,
            "p": found[0],
            "exact_given_penetration": p_exact,
            "exact": found[1],
        }
        out.append(adopt(CardOdds, values, _CARD_FIELDS))  # every field: the shared set
    return tuple(out)


_FIRST_TRIGGER = ("TTT-MO2 (1) a penetrating hit that leaves it on the table",)
_SECOND_TRIGGER = (*_FIRST_TRIGGER, "TTT-MO2 (2) hit by a second enemy tank this game turn")
_GRIZZLED = "Grizzled crew: no morale checks (TTT-MO1)"


def _answer(key: _Key, s: _Situation, rolls: dict[_Roll, dict[str, Any]]) -> _Answer:
    """A situation's answer fields: its roll's (``_roll_fields``, shared by the situations
    of that roll on the table) and those the target's crew decides."""
    n = _numbers(s)
    roll = key[:5]
    shared = rolls.get(roll)
    if shared is None:
        shared = rolls[roll] = _roll_fields(roll, s, n)
    shot = shared.copy()
    exact = shot["exact"] = shared["exact"].copy()  # the roll's three, then the crew's four
    destroyed = n.destroyed
    for name, p in (
        ("p_destroyed", destroyed),
        ("p_destroyed_by_card", n.destroyed_by_card),
        ("p_bail_out", n.bail_out),
        ("p_morale_failure", n.morale_failure),
    ):
        exact[name] = _exact(p)
        shot[name] = _float(p)
    crew = s.morale
    morale = {
        "tank_id": "",  # the target's, set by each shot
        "checks": crew.checks,
        "why_not": None if crew.checks else _GRIZZLED,  # only Grizzled crews never check
        "triggers": _SECOND_TRIGGER if crew.second_hit else _FIRST_TRIGGER,
        "p_check": _float(n.morale_check),
        "p_failure": shot["p_morale_failure"],  # the same fraction: its float and "a/b"
        "exact": {"p_check": _exact(n.morale_check), "p_failure": exact["p_morale_failure"]},
    }
    return _Answer(numbers=n, rank=_rank(destroyed), shot=shot, morale=morale)


# A situation's roll: white dice, Accuracy reroll, red dice, PEN needed, Penetration reroll
# (the first five of its ``_Key``).
_Roll = tuple[int, bool, int, int, bool]


def _roll_fields(roll: _Roll, s: _Situation, n: _Outcome) -> dict[str, Any]:
    """The fields of a ``ShotOdds`` that the roll decides on a table (its dice and pile),
    whatever the target's crew: the dice, P(hit) and P(penetrated) with their "a/b", the card
    lines. Worked out once for the situations that share the roll (a table's 157 situations
    have 79 rolls)."""
    white_dice, reroll_accuracy, red_dice, needed, reroll_penetration = roll
    dice = (
        ("p_hit", n.hit),
        ("p_penetrate_given_hit", n.penetrate / n.hit if n.hit else ZERO),
        ("p_penetrate", n.penetrate),
    )
    shot = _SHOT_TEMPLATE.copy()  # declared order; the shot's own: None
    shot.update(
        accuracy_dice=white_dice,
        penetration_dice=red_dice,
        needed=needed,
        reroll_accuracy=reroll_accuracy,
        reroll_penetration=reroll_penetration,
        exact={name: _exact(p) for name, p in dice},
        cards=_cards(s.deck, n.penetrate),
        deck_left=_deck_counts(s.deck).left,
    )
    for name, p in dice:
        shot[name] = _float(p)
    return shot


# Every field of a ShotOdds / MoraleOdds, as the fields set of each answer built: one set
# shared by all (frozen models never add to it; pydantic copies it before a model_copy
# updates it), as ``whole`` would mark them, without a set built per answer.
_SHOT_FIELDS = set(ShotOdds.model_fields)
_MORALE_FIELDS = set(MoraleOdds.model_fields)
_CARD_FIELDS = set(CardOdds.model_fields)
# Every field of a ShotOdds, None: the template each situation's answer fields start from
# (one dict copy, not a dict built over the fields read through pydantic's metaclass).
_SHOT_TEMPLATE: dict[str, Any] = dict.fromkeys(ShotOdds.model_fields)


def _side_notes(plan: EngagePlan) -> tuple[str, ...]:
    side, target = plan.side, plan.target
    if side.best is not None and side.facing is not None:
        return (f"The referee first turns {target.id}'s best armour ({side.best}) to the shot.",)
    if side.best is not None:
        return (f"{target.id} cannot turn its best armour ({side.best}): {side.blocked}.",)
    return ()


_MORALE_NOTE = (
    "Morale counts the target's own check after this shot; a hit that does not penetrate "
    "makes it check only as the second enemy tank to hit it this game turn (TTT-MO2)."
)
_RESHUFFLE_NOTE = "The draw pile is empty: the damage card comes from a full, fresh deck."


def odds_from_plan(
    plan: EngagePlan,
    rules: RulesData,
    *,
    pile: tuple[str, ...] = (),
    options: Options | None = None,
    second_hit: bool = False,
    range_: float | None = None,
    friends_on: TableState | None = None,
) -> ShotOdds:
    """The odds of a planned shot; ``pile`` is the deck's draw pile (empty: a full deck).

    ``friends_on``: the table whose friends of the target should be given their morale odds.
    """
    table = _table(rules, pile, options)
    return _shot(plan, table, _shooter_fields(plan.shooter, table), second_hit, range_, friends_on)[
        0
    ]


def _shooter_fields(shooter: TankState, table: _Table) -> dict[str, Any]:
    """The fields of a ``ShotOdds`` that are the same for every target of ``shooter`` on
    ``table``: read once per shooter (a tank's fields are pydantic attribute reads, slower
    than a plain object's), set on each answer by one ``dict.update``."""
    fields: dict[str, Any] = {
        "shooter": shooter.id,
        "shooter_card": shooter.card.id,
        "deck_reshuffled": table.reshuffled,
        # A shot's notes unless its target has a best armour to speak of (``_shot``).
        "notes": (_MORALE_NOTE, _RESHUFFLE_NOTE) if table.reshuffled else (_MORALE_NOTE,),
    }
    if shooter.grizzled and not shooter.reroll_used:
        fields["grizzled_policy"] = table.grizzled_policy
    return fields


def _shot(
    plan: EngagePlan,
    table: _Table,
    mine: dict[str, Any],
    second_hit: bool,
    range_: float | None,
    friends_on: TableState | None,
) -> tuple[ShotOdds, tuple[float, Fraction]]:
    """The answer for ``plan``; ``mine``: its shooter's fields (``_shooter_fields``)."""
    answer = table.answer(_key(plan, second_hit))
    target, side = plan.target, plan.side
    target_id = target.id
    morale = answer.morale.copy()
    morale["tank_id"] = target_id
    morale["exact"] = morale["exact"].copy()  # a copy: the cached answer is shared
    values = answer.shot.copy()
    values.update(mine)  # every key is already in the template: the declared order stays
    values["target"] = target_id
    values["target_card"] = target.card.id
    values["range"] = None if range_ is None else round(range_, 2)
    reading = side.final or side.shown
    values["hit_side"] = reading.side
    values["hull_down"] = side.hull_down
    values["best_armour_turn"] = side.best if side.facing is not None else None
    values["armour"] = plan.armour
    values["cover"] = plan.line.cover
    values["modifiers"] = plan.accuracy_mods + plan.penetration_mods
    values["exact"] = values["exact"].copy()
    values["morale"] = adopt(MoraleOdds, morale, _MORALE_FIELDS)
    if friends_on is not None:
        values["friends"] = _friends_morale(friends_on, plan, answer.numbers)
    if side.best is not None:
        notes = (_MORALE_NOTE, *_side_notes(plan))
        values["notes"] = (*notes, _RESHUFFLE_NOTE) if table.reshuffled else notes
    return adopt(ShotOdds, values, _SHOT_FIELDS), answer.rank


def _second_hit(state: TableState, shooter: TankState, target: TankState) -> bool:
    """TTT-MO2 trigger 2 as ``do_engage`` fires it: another enemy tank hit the target in this
    game turn, and this shooter has not."""
    return target.hit_turn == state.turn and bool(target.hit_by) and shooter.id not in target.hit_by


def odds_against(
    state: TableState,
    shooter_id: str,
    target_id: str,
    *,
    declared: GrizzledUse | None = None,
    friends: bool = False,
) -> ShotOdds:
    """The odds of ``shooter_id`` engaging ``target_id`` now.

    Raises the same ``RulesError`` as the Engage would when the shot is illegal.
    ``declared`` is the Engage's ``grizzled_reroll`` (read when the table's option is ask).
    ``friends`` adds the target's friends' morale checks (one line of sight per friend).
    """
    plan = plan_engage(state, shooter_id, target_id, declared)
    return _odds(state, _table(state.rules, state.deck.draw_pile, state.options), plan, friends)[0]


def _odds(
    state: TableState, table: _Table, plan: EngagePlan, friends: bool
) -> tuple[ShotOdds, tuple[float, Fraction]]:
    return _shot(
        plan,
        table,
        _shooter_fields(plan.shooter, table),
        _second_hit(state, plan.shooter, plan.target),
        plan.line.range,
        state if friends else None,
    )


def odds_for_shooter(
    state: TableState,
    shooter_id: str,
    *,
    declared: GrizzledUse | None = None,
    friends: bool = False,
) -> list[ShotOdds]:
    """The odds against every enemy ``shooter_id`` may Engage now: most likely to be
    destroyed first, ties by target id.

    Enemies out of sight (or outside a jammed turret's arc) are left out, as ``options_for``
    leaves them out; any other refusal (the shooter may not fire at all) is raised.
    """
    table = _table(state.rules, state.deck.draw_pile, state.options)
    friends_on = state if friends else None
    ranked: list[tuple[tuple[float, Fraction], str, ShotOdds]] = []
    mine: dict[str, Any] | None = None
    # Enemies out of sight, or outside a jammed turret's arc, are left out by the planner.
    for target, plan in plan_engages(state, shooter_id, declared, refusals=False):
        if isinstance(plan, RulesError):  # (none: the planner kept no refusal)
            continue
        if mine is None:
            mine = _shooter_fields(plan.shooter, table)
        second = _second_hit(state, plan.shooter, target)
        odds, rank = _shot(plan, table, mine, second, plan.line.range, friends_on)
        ranked.append((rank, target.id, odds))
    # By rank, ties by target id; ids are unique, so two answers are never compared.
    ranked.sort()
    return [odds for _, _, odds in ranked]


# --- a hypothetical shot (the CLI) ------------------------------------------------------------


def odds_for_situation(
    shooter: TankCard,
    target: TankCard,
    *,
    side: Side = "front",
    moved: bool = False,
    shaken: bool = False,
    optics_damage: int = 0,
    gun_damage: int = 0,
    target_fast: bool = False,
    cover: int = 0,
    concealment: int = 0,
    smoke: int = 0,
    grizzled: bool = False,
    declared: GrizzledUse | None = None,
    target_grizzled: bool = False,
    target_morale: Morale = "ok",
    target_immobilized: bool = False,
    second_hit: bool = False,
    options: Options | None = None,
    rules: RulesData | None = None,
    pile: tuple[str, ...] = (),
) -> ShotOdds:
    """The odds of a shot described by its cards and modifiers, with no table: a full deck
    (or ``pile``), the side named (Turret = hull-down), no best-armour turn. The answer
    calls the tanks "shooter" and "target".

    The same plan functions as a real Engage compute the penalties and dice.
    """
    options = options or Options()
    rules = rules or default_cards().rules
    for name, value in (
        ("optics_damage", optics_damage),
        ("gun_damage", gun_damage),
        ("cover", cover),
        ("concealment", concealment),
        ("smoke", smoke),
    ):
        if value < 0:
            raise ValueError(f"{name} must be 0 or more, got {value}")
    s = TankState(
        id="shooter",
        name=shooter.name,
        player="A",
        card=shooter,
        x=0.0,
        z=0.0,
        facing=0.0,
        crew="grizzled" if grizzled else "scared",
        morale="shaken" if shaken else "ok",
        moved="normal" if moved else "none",
        optics_damage=optics_damage,
        gun_damage=gun_damage,
    )
    t = TankState(
        id="target",
        name=target.name,
        player="B",
        card=target,
        x=0.0,
        z=0.0,
        facing=0.0,
        hull_down=side == "turret",
        crew="grizzled" if target_grizzled else "scared",
        morale=target_morale,
        immobilized=target_immobilized,
        moved="fast" if target_fast else "none",
    )
    given = "as given"
    line = LineOfFire(
        shooter=s.pos,
        target=t.pos,
        range=0.0,
        concealment=concealment,
        concealment_why=given,
        cover=cover,
        cover_why=given,
        smoke=smoke,
        smoke_screens=[(0, smoke)] if smoke else [],
        hull_down=side == "turret",
        hull_down_why=given,
    )
    plan = plan_shot(
        options, s, t, line, SidePlan(SideReading(side, 0.0), hull_down=side == "turret"), declared
    )
    return odds_from_plan(plan, rules, pile=pile, options=options, second_hit=second_hit)


# --- for option lists and hovers ----------------------------------------------------------------


def brief_odds(state: TableState, plan: EngagePlan) -> dict[str, float]:
    """p_hit, p_penetrate and p_destroyed of a planned shot, rounded for display: what
    ``options_for`` adds to each Engage target (no answer model is built). Empty when the
    table's dice have no exact odds."""
    second = _second_hit(state, plan.shooter, plan.target)
    try:
        s, _ = _situation(state.rules, state.deck.draw_pile, plan, second)
        return dict(_brief(s.shot, _deck_counts(s.deck), s.morale))
    except RulesError as err:
        if err.code != "ODDS_NOT_EXACT":
            raise
        return {}


@functools.lru_cache(maxsize=8192)
def _brief(shot: _ShotKey, counts: _DeckCounts, crew: _MoraleKey) -> dict[str, float]:
    hit, penetrate = _shot_dice(shot)
    w = _weights(counts, crew)
    destroyed = w.destroyed_by_card.of(hit, penetrate) + w.bail_out.of(hit, penetrate)
    return {
        "p_hit": round(_float(hit), 4),
        "p_penetrate": round(_float(penetrate), 4),
        "p_destroyed": round(_float(destroyed), 4),
    }


def situation_numbers(state: TableState, plans: Iterable[EngagePlan]) -> int:
    """The exact probabilities of every distinct situation among ``plans`` (hit, penetration,
    destruction, morale: what every answer is made from), and how many there are. No answer
    is built: after ``clear_caches`` this is the probability work alone, for benchmarks (the
    part of the odds no way of building the answers can skip)."""
    table = _table(state.rules, state.deck.draw_pile, state.options)
    keys = {_key(plan, _second_hit(state, plan.shooter, plan.target)) for plan in plans}
    for key in keys:
        _numbers(table.situation(key))
    return len(keys)


def clear_caches() -> None:
    """Forget every cached situation (benchmarks time a cold cache with it)."""
    for cached in (_check, _shot_dice, _deck_counts, _weights, _outcome, _brief):
        cached.cache_clear()
    clear_answer_caches()
    clear_dice_caches()
    clear_plan_cache()


def clear_answer_caches() -> None:
    """Forget each situation's answer (its ShotOdds fields, card lines and rank) but keep
    its numbers and the dice: benchmarks time what building the answers costs, cold."""
    _card_shares.cache_clear()
    _cards.cache_clear()
    _answers.clear()
    _rolls.clear()
    _ranks.clear()


def cache_sizes() -> dict[str, int]:
    """How many kinds of dice and situations the caches hold (for benchmarks)."""
    return {
        "dice": _shot_dice.cache_info().currsize,
        "situations": sum(len(answers) for answers in _answers.values()),
    }
