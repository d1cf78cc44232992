"""Luck: how each player's dice did against the exact odds of what they rolled for.

A ruleset turns each adjudicated action into *trials* (``LuckTrial``): one chance with its
exact probability ``p`` and whether it came off (a shot hit, a hit penetrated, a morale check
failed). Per player and measure, the count of successes of independent trials with different
chances follows a Poisson-binomial distribution; it is computed exactly (up to float rounding,
no normal approximation), trials with the same chance grouped into one binomial.

What "significant" means here: fair dice land at least this far from the expected count,
on either side, less than 1 time in 100 (exact two-sided p-value below ``SIGNIFICANT``). A
table shows six figures (three measures, two players), so about 1 fair table in 17 shows
one significant figure by chance; the plain-language line always gives the percentile, so a
player can judge a figure that is merely unusual.

Pure: no I/O.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, Field

__all__ = [
    "MEASURES",
    "SIGNIFICANCE",
    "SIGNIFICANT",
    "CountDistribution",
    "LuckTrial",
    "Measure",
    "MeasureLuck",
    "PlayerLuck",
    "count_distribution",
    "luck_by_player",
    "measure_luck",
]

Measure = Literal["hit", "penetration", "morale_failure"]
MEASURES: tuple[Measure, ...] = ("hit", "penetration", "morale_failure")
# Measures where more successes are bad luck for the player they belong to.
_BAD: frozenset[Measure] = frozenset({"morale_failure"})

SIGNIFICANT = 0.01
SIGNIFICANCE = (
    "Significant means fair dice land at least this far from the expected count, on either "
    "side, less than 1 time in 100 (exact two-sided p-value below 0.01). With six figures "
    "per table (three measures, two players), about 1 fair table in 17 shows one such figure "
    "by chance. The percentile says how many fair tables this result beats from the player's "
    "side (ties count half): above 50 is luckier than fair dice, below 50 unluckier."
)
_FAIR_RANGE = (0.05, 0.95)  # fair_range: the 5th..95th percentile of the count


@dataclass(frozen=True)
class LuckTrial:
    """One chance a player's dice had: ``p`` exact, ``happened`` as adjudicated.

    ``seq``: the log event it came from (set by whoever walks the log).
    """

    player: str
    measure: Measure
    p: Fraction
    happened: bool
    seq: int | None = None

    def __post_init__(self) -> None:
        if not 0 <= self.p <= 1:
            raise ValueError(f"p must be a probability, got {self.p}")

    @property
    def exact(self) -> str:
        """``p`` as "a/b"."""
        return f"{self.p.numerator}/{self.p.denominator}"


# --- the distribution of a count ---------------------------------------------------------------


@dataclass(frozen=True)
class CountDistribution:
    """P(count = k) for k = ``offset`` .. ``offset + len(pmf) - 1``; zero elsewhere."""

    offset: int
    pmf: npt.NDArray[np.float64]

    def p_equal(self, k: int) -> float:
        i = k - self.offset
        return float(self.pmf[i]) if 0 <= i < len(self.pmf) else 0.0

    def p_below(self, k: int) -> float:
        """P(count < k), summed over the tail itself (no 1 - x: tiny tails stay exact)."""
        i = min(max(k - self.offset, 0), len(self.pmf))
        return float(self.pmf[:i].sum())

    def p_above(self, k: int) -> float:
        """P(count > k)."""
        i = min(max(k - self.offset + 1, 0), len(self.pmf))
        return float(self.pmf[i:].sum())

    def quantile(self, q: float) -> int:
        """The smallest count k with P(count <= k) >= q."""
        cumulative = np.cumsum(self.pmf)
        i = int(np.searchsorted(cumulative, q * cumulative[-1] - 1e-12))
        return self.offset + min(i, len(self.pmf) - 1)


def _trim(offset: int, pmf: npt.NDArray[np.float64]) -> tuple[int, npt.NDArray[np.float64]]:
    """Drop the tails that underflowed to exactly zero (keeps big convolutions short)."""
    nonzero = np.flatnonzero(pmf)
    if len(nonzero) == 0:
        return offset, np.ones(1)
    first, last = int(nonzero[0]), int(nonzero[-1])
    return offset + first, pmf[first : last + 1]


def _binomial(n: int, p: float) -> npt.NDArray[np.float64]:
    """P(k of n trials with chance ``p`` succeed), k = 0..n, from log factorials."""
    k = np.arange(n + 1)
    log_fact = np.concatenate(([0.0], np.cumsum(np.log(np.arange(1, n + 1)))))
    log_pmf = (
        log_fact[n] - log_fact[k] - log_fact[n - k] + k * math.log(p) + (n - k) * math.log1p(-p)
    )
    pmf: npt.NDArray[np.float64] = np.exp(log_pmf)
    out: npt.NDArray[np.float64] = pmf / pmf.sum()  # the log-space rounding, renormalised
    return out


def count_distribution(ps: Iterable[Fraction]) -> CountDistribution:
    """The exact distribution of the number of successes of independent trials (the
    Poisson-binomial): certain trials shift it, the others are grouped by chance into
    binomials and convolved."""
    offset = 0
    groups: Counter[Fraction] = Counter()
    for p in ps:
        if p >= 1:
            offset += 1
        elif p > 0:
            groups[p] += 1
    pmf: npt.NDArray[np.float64] = np.ones(1)
    for p, n in sorted(groups.items()):
        pmf = np.convolve(pmf, _binomial(n, float(p)))
        offset, pmf = _trim(offset, pmf)
    return CountDistribution(offset, pmf)


# --- the report --------------------------------------------------------------------------------

Verdict = Literal["lucky", "unlucky", "as_expected"]


class MeasureLuck(BaseModel):
    """One player's luck on one measure: observed against expected, and how unusual it is."""

    measure: Measure
    trials: int
    observed: int
    expected: float = Field(description="Sum of each trial's exact chance.")
    expected_exact: str = Field(description="The same as a fraction 'a/b' (or an integer).")
    fair_range: tuple[int, int] = Field(
        description="The 5th..95th percentile of the count with fair dice."
    )
    luck_percentile: float = Field(
        description="Share (0-100) of fair tables this result beats from the player's side, "
        "ties counting half; above 50 is luckier than fair dice."
    )
    p_value: float = Field(description="Exact two-sided p-value of the count.")
    significant: bool = Field(description="p_value below 0.01.")
    verdict: Verdict
    text: str


class PlayerLuck(BaseModel):
    player: str
    hit: MeasureLuck
    penetration: MeasureLuck
    morale_failure: MeasureLuck


def _fraction_text(p: Fraction) -> str:
    return str(p.numerator) if p.denominator == 1 else f"{p.numerator}/{p.denominator}"


def _percent(x: float) -> str:
    """A percentage for prose: whole numbers, with more digits only near 0 and 100."""
    for digits in range(0, 7):
        text = f"{x:.{digits}f}"
        if 0 < float(text) < 100 or x in (0.0, 100.0):
            return text.rstrip("0").rstrip(".") if "." in text else text
    return f"{x:.6f}"


def _one_in(p: float) -> str:
    if p < 1e-9:
        return "less than 1 time in a billion"
    n = 1 / p
    digits = max(0, math.floor(math.log10(n)) - 1)  # two significant figures
    rounded = round(n / 10**digits) * 10**digits
    return f"about 1 time in {rounded:,}"


def _what(player: str, measure: Measure, observed: int, trials: int, expected: float) -> str:
    where = f"where {expected:.1f} {'was' if f'{expected:.1f}' == '1.0' else 'were'} expected"
    times = "time" if observed == 1 else "times"
    if measure == "hit":
        shots = "shot" if trials == 1 else "shots"
        return f"{player} hit {observed} {times} in {trials} {shots} {where}"
    if measure == "penetration":
        hits = "hit" if trials == 1 else "hits"
        return f"{player} penetrated {observed} {times} in {trials} {hits} {where}"
    checks = "morale check" if trials == 1 else "morale checks"
    return f"{player} failed {observed} of {trials} {checks} {where}"


_NOTHING_YET: dict[Measure, str] = {  # trials with a chance of 0 or 1 are not luck
    "hit": "{player}: no shot that could hit or miss yet.",
    "penetration": "{player}: no hit that could penetrate or not yet.",
    "morale_failure": "{player}: no morale checks yet.",
}


def measure_luck(player: str, measure: Measure, trials: Sequence[LuckTrial]) -> MeasureLuck:
    """The report for one player and measure from its trials (all of that player/measure)."""
    observed = sum(1 for t in trials if t.happened)
    expected = sum((t.p for t in trials), Fraction(0))
    if not trials:
        return MeasureLuck(
            measure=measure,
            trials=0,
            observed=0,
            expected=0.0,
            expected_exact="0",
            fair_range=(0, 0),
            luck_percentile=50.0,
            p_value=1.0,
            significant=False,
            verdict="as_expected",
            text=_NOTHING_YET[measure].format(player=player),
        )
    dist = count_distribution(t.p for t in trials)
    below, equal, above = dist.p_below(observed), dist.p_equal(observed), dist.p_above(observed)
    p_value = min(1.0, 2 * min(below + equal, above + equal))
    better = above if measure in _BAD else below  # fair results this one beats
    percentile = 100 * (better + equal / 2)
    significant = p_value < SIGNIFICANT
    lucky = percentile >= 50
    verdict: Verdict = ("lucky" if lucky else "unlucky") if significant else "as_expected"
    rank = (
        f"luckier than {_percent(percentile)}% of fair tables"
        if lucky
        else f"unluckier than {_percent(100 - percentile)}% of fair tables"
    )
    what = _what(player, measure, observed, len(trials), float(expected))
    if significant:
        text = f"{what}: {rank}; fair dice are this far off {_one_in(p_value)}."
    else:
        text = f"{what}: about as expected ({rank})."
    return MeasureLuck(
        measure=measure,
        trials=len(trials),
        observed=observed,
        expected=round(float(expected), 4),
        expected_exact=_fraction_text(expected),
        fair_range=(dist.quantile(_FAIR_RANGE[0]), dist.quantile(_FAIR_RANGE[1])),
        luck_percentile=round(percentile, 2),
        p_value=float(f"{p_value:.4g}"),
        significant=significant,
        verdict=verdict,
        text=text,
    )


def luck_by_player(trials: Iterable[LuckTrial], players: Sequence[str] = ()) -> list[PlayerLuck]:
    """One report per player: ``players`` first in their order (even with no trials), then
    any other player with trials, by id."""
    by: dict[tuple[str, Measure], list[LuckTrial]] = {}
    for trial in trials:
        by.setdefault((trial.player, trial.measure), []).append(trial)
    others = sorted({player for player, _ in by} - set(players))
    return [
        PlayerLuck(
            player=player,
            hit=measure_luck(player, "hit", by.get((player, "hit"), [])),
            penetration=measure_luck(player, "penetration", by.get((player, "penetration"), [])),
            morale_failure=measure_luck(
                player, "morale_failure", by.get((player, "morale_failure"), [])
            ),
        )
        for player in (*players, *others)
    ]
