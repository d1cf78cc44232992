"""Exact odds of the dice of a shot: Accuracy (TTT-E4) and Penetration (TTT-E5, TTT-E6), with
the Grizzled reroll (TTT-CR1), from the faces in the table's card data.

Split from ``odds`` (which puts a whole shot's answer together: the damage card, morale,
the cache by situation): these are the pure dice sums, cached by the faces and counts that
decide them. Everything is exact (``fractions.Fraction``).
"""

from __future__ import annotations

import functools
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import NamedTuple

import icepool  # type: ignore[import-untyped]

from tankref.core.errors import RulesError
from tankref.rulesets.ttt.cards import (
    ACCURACY_DIE,
    HIT,
    MORALE_DIE,
    PEN,
    PENETRATION_DIE,
    STAR,
    DamageEffect,
    RulesData,
)
from tankref.rulesets.ttt.morale import morale_result
from tankref.rulesets.ttt.state import Morale

ZERO = Fraction(0)
ONE = Fraction(1)

# --- the dice, read from the card data --------------------------------------------------------

RedFace = tuple[int, int]  # (PEN icons, STAR icons) on one face
DeckKey = tuple[tuple[str, int, DamageEffect, bool], ...]  # name, copies left, effect, catastrophic


@dataclass(frozen=True)
class TableDice:
    white: tuple[int, ...]  # HIT icons on each face
    red: tuple[RedFace, ...]
    green: tuple[Morale, ...]  # the morale result of each face (TTT-MO3)
    # Draw piles already read against this card data's deck (the effects are its own).
    piles: dict[tuple[str, ...], DeckKey] = field(default_factory=dict, compare=False)


_TABLE_DICE: dict[int, tuple[RulesData, TableDice]] = {}


def table_dice(rules: RulesData) -> TableDice:
    """The faces that matter, per table's card data (cached by identity: the cache holds the
    data it was read from, so an id is never reused while it is cached)."""
    hit = _TABLE_DICE.get(id(rules))
    if hit is not None and hit[0] is rules:
        return hit[1]
    white = rules.dice[ACCURACY_DIE]
    red = rules.dice[PENETRATION_DIE]
    green = rules.dice[MORALE_DIE]
    dice = TableDice(
        white=tuple(f.icons.count(HIT) for f in white.faces),
        red=tuple((f.icons.count(PEN), f.icons.count(STAR)) for f in red.faces),
        green=tuple(morale_result(f.face) for f in green.faces),
    )
    if len(_TABLE_DICE) >= 64:
        _TABLE_DICE.clear()
    _TABLE_DICE[id(rules)] = (rules, dice)
    return dice


# --- Accuracy (TTT-E4, TTT-CR1) ---------------------------------------------------------------


@functools.lru_cache(maxsize=64)
def _die(faces: tuple[object, ...]) -> icepool.Die:
    """One die of these faces (icepool), built once: building a die costs more than the sums
    of a few dice drawn from it."""
    return icepool.Die(list(faces))


@functools.lru_cache(maxsize=1024)
def hit_odds(white: tuple[int, ...], dice: int, reroll: bool) -> tuple[Fraction, Fraction]:
    """(P(the roll hits), P(it misses and the Grizzled reroll of one die hits)).

    At most one hit per roll: the roll hits when it shows at least one HIT icon.
    """
    if dice <= 0:
        return ZERO, ZERO  # no dice left: the Engage fails without a roll
    die = _die(white)
    first = Fraction((dice @ die).probability(">=", 1))
    again = (ONE - first) * Fraction(die.probability(">=", 1)) if reroll else ZERO
    return first, again


# --- Penetration (TTT-E5, TTT-E6, TTT-CR1) ----------------------------------------------------

# A pool as the star chain sees it: PEN so far, blank dice, stars in hand, and the fewest PEN
# on a non-blank die (0: none yet), which is the die the Grizzled reroll takes when no die is
# blank.
_Pool = tuple[int, int, int, int]


def _not_exact(why: str) -> RulesError:
    return RulesError("ODDS_NOT_EXACT", "TTT-E6", f"no exact odds for these red dice: {why}")


def _add_die(pool: _Pool, face: RedFace) -> _Pool:
    """One more red die showing ``face`` in a pool (PEN so far, blank dice, stars, the fewest
    PEN on a non-blank die): the bookkeeping of the first roll, for icepool to weigh."""
    pens, blanks, stars, low = pool
    pen, star = face
    fewest = low if pen == 0 or 0 < low <= pen else pen
    return (pens + pen, blanks + (pen == 0), stars + star, fewest)


@functools.lru_cache(maxsize=256)
def _red_pool(red: tuple[RedFace, ...], dice: int) -> icepool.Die:
    """The first Penetration roll of ``dice`` red dice as pools (icepool), one die added to
    the pool of one fewer: every smaller pool on the way is cached too, so a table's few
    dice counts cost one chain of additions."""
    if dice == 0:
        return icepool.Die([(0, 0, 0, 0)])
    return icepool.map(_add_die, _red_pool(red, dice - 1), _die(red))


@functools.lru_cache(maxsize=256)
def _first_roll(red: tuple[RedFace, ...], dice: int) -> tuple[tuple[_Pool, int], ...]:
    """The first Penetration roll as pools with integer weights over sides**dice (icepool)."""
    pools = _red_pool(red, dice)
    scale, rest = divmod(len(red) ** dice, pools.denominator())
    assert not rest  # icepool's weights are over a divisor of sides**dice
    return tuple((pool, weight * scale) for pool, weight in pools.items())


def _spend_stars(
    pools: Iterable[tuple[_Pool, int]],
    needed: int,
    chain: tuple[tuple[int, int, int], ...],
    chain_sides: int,
) -> tuple[int, dict[tuple[int, int, int], int], int]:
    """TTT-E6 as ``combat._spend_stars`` plays it, for whole distributions at once.

    Each round rerolls one blank die of every pool that still has a star, a blank and too few
    PEN. Returns (weight penetrated, weight stopped short by (PEN, blanks, fewest PEN),
    factor): both weights are over the input's denominator times ``factor``.
    """
    won = 0
    stopped: dict[tuple[int, int, int], int] = defaultdict(int)
    active: dict[_Pool, int] = defaultdict(int)
    for (pens, blanks, stars, low), weight in pools:
        if pens >= needed:
            won += weight
        elif stars > 0 and blanks > 0:
            active[(pens, blanks, stars, low)] += weight
        else:
            stopped[(pens, blanks, low)] += weight
    factor = 1
    while active:
        factor *= chain_sides
        won *= chain_sides
        for key in stopped:
            stopped[key] *= chain_sides
        following: dict[_Pool, int] = defaultdict(int)
        for (pens, blanks, stars, low), weight in active.items():
            for pen, star, faces in chain:
                total = pens + pen
                w = weight * faces
                if total >= needed:
                    won += w
                    continue
                left = blanks - 1 + (pen == 0)
                hand = stars - 1 + star
                fewest = low if pen == 0 or 0 < low <= pen else pen
                if hand > 0 and left > 0:
                    following[(total, left, hand, fewest)] += w
                else:
                    stopped[(total, left, fewest)] += w
        active = following
    return won, stopped, factor


class _Chain(NamedTuple):
    """The first Penetration roll and its star chain against one PEN needed (TTT-E6)."""

    p: Fraction  # P(penetrated) before any Grizzled reroll
    stopped: tuple[tuple[tuple[int, int, int], int], ...]  # short: (PEN, blanks, fewest PEN)
    denominator: int  # of the stopped weights
    sides: int
    chain: tuple[tuple[int, int, int], ...]  # the faces a star reroll may change to
    chain_sides: int
    full: tuple[tuple[int, int, int], ...]  # every face: (PEN, STAR, faces)


@functools.lru_cache(maxsize=4096)
def _first_chain(red: tuple[RedFace, ...], dice: int, needed: int) -> _Chain:
    """Shared by the odds with and without the Grizzled reroll (they differ only after it)."""
    sides = len(red)
    classes = Counter(red)
    if any(pen == 0 and star > 1 for (pen, star) in classes):
        # Stars could then pile up without end; the chance the chain runs dry is a root of a
        # polynomial, not a fraction.
        raise _not_exact("a face with no PEN and more than one *")
    # A blank die that shows a lone * again changes nothing but the die: the chain goes on
    # from the same place, so it is left out of the rerolls (the rest renormalised).
    loops = classes.get((0, 1), 0)
    if loops == sides:
        raise _not_exact("every face is a blank with a *: the rerolls never end")
    chain = tuple(
        (pen, star, faces) for (pen, star), faces in classes.items() if (pen, star) != (0, 1)
    )
    chain_sides = sides - loops
    full = tuple((pen, star, faces) for (pen, star), faces in classes.items())
    won, stopped, factor = _spend_stars(_first_roll(red, dice), needed, chain, chain_sides)
    denominator = sides**dice * factor
    return _Chain(
        Fraction(won, denominator),
        tuple(stopped.items()),
        denominator,
        sides,
        chain,
        chain_sides,
        full,
    )


@functools.lru_cache(maxsize=4096)
def penetration_odds(red: tuple[RedFace, ...], dice: int, needed: int, reroll: bool) -> Fraction:
    """P(the red dice reach ``needed`` PEN), stars and (if ``reroll``) the Grizzled reroll in.

    Mirrors ``combat._roll_penetration``: the first roll; stars reroll the first blank die
    while too few PEN show; then the Grizzled reroll takes the weakest die (a blank, else the
    die with the fewest PEN) and only that die's own stars are spent after it.
    """
    if needed <= 0:
        return ONE  # no PEN needed: even an empty pool penetrates
    if dice <= 0:
        return ZERO
    first = _first_chain(red, dice, needed)
    if not reroll or not first.stopped:
        return first.p
    # The Grizzled reroll (TTT-CR1) on the weakest die, then that die's own stars.
    after: dict[_Pool, int] = defaultdict(int)
    for (pens, blanks, low), weight in first.stopped:
        lost, blanks_left = (0, blanks - 1) if blanks else (low, 0)
        for pen, star, faces in first.full:
            after[(pens - lost + pen, blanks_left + (pen == 0), star, 0)] += weight * faces
    won2, _, factor2 = _spend_stars(after.items(), needed, first.chain, first.chain_sides)
    return first.p + Fraction(won2, first.denominator * first.sides * factor2)


def clear_dice_caches() -> None:
    """Forget the cached dice sums and the faces read from card data."""
    for cached in (hit_odds, penetration_odds, _first_chain, _first_roll, _red_pool, _die):
        cached.cache_clear()
    _TABLE_DICE.clear()
