"""Luck: how each player's dice did against the exact odds of what they rolled for.

A ruleset turns each adjudicated action into *trials* (``LuckTrial``): one chance with its
exact probability ``p`` and whether it came off (a shot hit, a hit penetrated, a morale check
failed). Per player and measure, the count of successes of independent trials with different
chances follows a Poisson-binomial distribution; it is computed exactly (up to float rounding,
no normal approximation), trials with the same chance grouped into one binomial.

One rule decides the words, the figures and the page's whisker: the *luck percentile* (the
share of fair tables the result beats from the player's side, ties counting half). A result
is *about as expected* when that percentile lies between 5 and 95. The same rule gives the
rest: the two-sided p-value is the mid-p value (twice the smaller of the percentile and its
complement), so "about as expected" is exactly p >= 0.10; the band of counts drawn as the
page's whisker (``fair_range``) is every count that would be about as expected. Outside the
band a result is lucky or unlucky; it is also *significant* when fair dice land that far off
less than 1 time in 100 (p below ``SIGNIFICANT``). A table shows six figures (three measures,
two players), so about 1 fair table in 17 shows one significant figure by chance; any one
figure lands outside the band for roughly 1 fair table in 10 (the count is discrete, so not
exactly).

Pure: no I/O.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, Field

__all__ = [
    "AS_EXPECTED",
    "AS_EXPECTED_P",
    "MEASURES",
    "SIGNIFICANCE",
    "SIGNIFICANT",
    "CountDistribution",
    "LuckTrial",
    "Measure",
    "MeasureLuck",
    "PlayerLuck",
    "count_distribution",
    "fair_band",
    "luck_by_player",
    "measure_luck",
]

Measure = Literal["hit", "penetration", "morale_failure"]
MEASURES: tuple[Measure, ...] = ("hit", "penetration", "morale_failure")
# Measures where more successes are bad luck for the player they belong to.
_BAD: frozenset[Measure] = frozenset({"morale_failure"})

SIGNIFICANT = 0.01
AS_EXPECTED = (5.0, 95.0)  # luck percentiles (ties half) that are about as expected
# The same band as a two-sided mid-p value: twice the smaller mid tail, so p >= 0.10.
AS_EXPECTED_P = 2 * AS_EXPECTED[0] / 100
SIGNIFICANCE = (
    "About as expected means the luck percentile (the share of fair tables the result beats "
    "from the player's side, ties counting half: above 50 is luckier than fair dice, below 50 "
    "unluckier) lies between 5 and 95: the same as a two-sided p-value (exact, mid-p) of 0.10 "
    "or more, and a count inside the whisker. Outside that band a result is lucky or "
    "unlucky; significantly so when fair dice land at least this far from the expected count, "
    "on either side, less than 1 time in 100 (p-value below 0.01). With six figures per table "
    "(three measures, two players), about 1 fair table in 17 shows one significant figure by "
    "chance; any one figure lands outside the band for roughly 1 fair table in 10."
)


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

    def mid_tails(self) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        """For each count of the support: P(count < k) + P(count = k)/2 and P(count > k) +
        P(count = k)/2, each summed from its own end (tiny tails stay exact)."""
        half = self.pmf / 2
        lower: npt.NDArray[np.float64] = np.cumsum(self.pmf) - half
        upper: npt.NDArray[np.float64] = np.cumsum(self.pmf[::-1])[::-1] - half
        return lower, upper

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
        description="The counts that would be about as expected (luck percentile 5 to 95): "
        "the page's whisker. The observed count is inside it exactly when the verdict is "
        "as_expected."
    )
    luck_percentile: float = Field(
        description="Share (0-100) of fair tables this result beats from the player's side, "
        "ties counting half; above 50 is luckier than fair dice. 5 to 95: about as expected."
    )
    p_value: float = Field(
        description="Exact two-sided mid-p value of the count (twice the smaller of the "
        "percentile and its complement): 0.10 or more exactly when about as expected."
    )
    significant: bool = Field(description="p_value below 0.01.")
    verdict: Verdict = Field(
        description="as_expected inside the band (luck percentile 5 to 95), else lucky or "
        "unlucky (significantly so when significant)."
    )
    text: str


class PlayerLuck(BaseModel):
    player: str
    hit: MeasureLuck
    penetration: MeasureLuck
    morale_failure: MeasureLuck


def _fraction_text(p: Fraction) -> str:
    return str(p.numerator) if p.denominator == 1 else f"{p.numerator}/{p.denominator}"


def _percent(x: float, crosses: Callable[[float], bool] = lambda _: False) -> str:
    """A percentage for prose: whole numbers, with more digits only near 0 and 100 or where
    fewer would put it on the wrong side of an edge (``crosses``)."""
    for digits in range(0, 7):
        text = f"{x:.{digits}f}"
        if (0 < float(text) < 100 or x in (0.0, 100.0)) and not crosses(float(text)):
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


@dataclass(frozen=True)
class _Standing:
    """Where one count stands among fair tables: the figures a report shows, rounded so that
    each agrees with the one rule (``inside``: luck percentile 5 to 95) it is shown for."""

    inside: bool  # about as expected
    exact: float  # the luck percentile as computed (the prose's)
    percentile: float  # the same rounded to 2 decimals (the report's)
    p_value: float  # two-sided mid-p, 4 significant figures
    significant: bool

    @property
    def lucky(self) -> bool:
        return self.exact >= 50

    @property
    def rank(self) -> str:
        """ "luckier than 99% of fair tables": the share it beats, in as few digits as keep it
        on its own side of the band's edge (outside: above 95, inside: 95 or less)."""
        share = self.exact if self.lucky else 100 - self.exact
        edge = AS_EXPECTED[1]
        words = _percent(share, lambda shown: (shown > edge) == self.inside)
        return f"{'luckier' if self.lucky else 'unluckier'} than {words}% of fair tables"


def _standing(dist: CountDistribution, observed: int, bad: bool) -> _Standing:
    """The one rule: the observed count's mid tails decide the percentile, the p-value and
    whether it is about as expected; the figures are rounded without crossing its edges."""
    lower, upper = dist.mid_tails()
    i = observed - dist.offset
    if 0 <= i < len(dist.pmf):
        low, high = float(lower[i]), float(upper[i])
    else:  # a count beyond the support (its tail underflowed): as far off as can be
        low, high = (0.0, 1.0) if i < 0 else (1.0, 0.0)
    smaller = min(low, high)
    inside = smaller >= AS_EXPECTED_P / 2
    significant = 2 * smaller < SIGNIFICANT
    percentile = 100 * (high if bad else low)
    shown = round(percentile, 2)
    lo, hi = AS_EXPECTED
    if inside:
        shown = min(max(shown, lo), hi)
    elif lo <= shown <= hi:  # rounding would carry it into the band
        shown = lo - 0.01 if percentile < 50 else hi + 0.01
    p_value = float(f"{min(1.0, 2 * smaller):.4g}")
    for edge, keep_above in ((AS_EXPECTED_P, inside), (SIGNIFICANT, not significant)):
        if keep_above and p_value < edge:
            p_value = edge
        elif not keep_above and p_value >= edge:
            p_value = float(f"{edge - edge / 10_000:.4g}")
    return _Standing(inside, percentile, shown, p_value, significant)


def fair_band(dist: CountDistribution) -> tuple[int, int]:
    """Every count that would be about as expected, by the same rule as ``_standing``: an
    interval (each mid tail only grows one way), never empty (the median count is in it)."""
    lower, upper = dist.mid_tails()
    inside = np.flatnonzero(np.minimum(lower, upper) >= AS_EXPECTED_P / 2)
    if len(inside) == 0:  # cannot happen (the median's smaller mid tail is >= 1/4)
        raise ValueError("no count is about as expected")
    return dist.offset + int(inside[0]), dist.offset + int(inside[-1])


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
    at = _standing(dist, observed, measure in _BAD)
    verdict: Verdict = "as_expected" if at.inside else "lucky" if at.lucky else "unlucky"
    what = _what(player, measure, observed, len(trials), float(expected))
    if at.inside:
        text = f"{what}: about as expected ({at.rank})."
    else:
        how = f"significantly {verdict}" if at.significant else verdict
        text = f"{what}: {how} ({at.rank}; fair dice are this far off {_one_in(at.p_value)})."
    return MeasureLuck(
        measure=measure,
        trials=len(trials),
        observed=observed,
        expected=round(float(expected), 4),
        expected_exact=_fraction_text(expected),
        fair_range=fair_band(dist),
        luck_percentile=at.percentile,
        p_value=at.p_value,
        significant=at.significant,
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
