"""The contest roll (YRD-AT1, YRD-AN1): rolled for an attack, and its exact odds.

Both come from one description of the contest (``Contest``) and one judge (``judge``), so
the odds a menu shows are the odds the referee adjudicates with. The rulings the text
leaves open are table options (``Options``): the die (d20 each), ties (to the defender),
criticals (the offender's natural highest face / natural 1), grazing hits (winning by 1 or
2) and advantage (roll twice, keep the higher).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Literal

from tankref.core.dice import DiceBag, DieSpec, Roll
from tankref.core.errors import BadValue, RulesError
from tankref.core.results import Modifier, RulingNote
from tankref.rulesets.yrd.state import Options

Verdict = Literal["critical_success", "win", "graze", "lose", "critical_failure"]
VERDICTS: tuple[Verdict, ...] = ("critical_success", "win", "graze", "lose", "critical_failure")
SUCCESS: frozenset[Verdict] = frozenset({"critical_success", "win", "graze"})


@dataclass(frozen=True)
class Contest:
    """One contest as the options and the situation make it."""

    clause: str
    die: str
    sides: int
    offender_dice: int  # 2: advantage, keep the higher
    offender_bonus: int  # advantage as a bonus
    defender_bonus: int  # YRD-AT1: the defending party's defence value
    tie: Literal["defender", "offender", "reroll"]
    criticals: bool
    grazing_margin: int  # 0: no grazing hits (YRD-AN1 has none)


def dice_sides(specs: Mapping[str, DieSpec]) -> dict[str, int]:
    """Each of the table's dice by name: how many sides it has."""
    return {name: spec.sides for name, spec in specs.items()}


def contest_for(
    options: Options,
    sides_of: Mapping[str, int],
    *,
    clause: str,
    defender_bonus: int,
    advantage: bool,
    grazing: bool,
) -> Contest:
    sides = sides_of.get(options.contest_die)
    if sides is None:
        raise BadValue(
            "UNKNOWN_DIE",
            clause,
            f"options.contest_die: no die {options.contest_die!r} in this table's dice "
            f"({', '.join(sides_of)})",
        )
    twice = advantage and options.advantage == "roll_twice"
    return Contest(
        clause=clause,
        die=options.contest_die,
        sides=sides,
        offender_dice=2 if twice else 1,
        offender_bonus=options.advantage_bonus if advantage and options.advantage == "bonus" else 0,
        defender_bonus=defender_bonus,
        tie=options.tie,
        criticals=options.criticals == "natural",
        grazing_margin=options.grazing_margin if grazing else 0,
    )


def judge(contest: Contest, offender_face: int, defender_face: int) -> Verdict | None:
    """The verdict of one throw (the offender's kept face); None: a tie to be rolled again.

    A critical is the offender's natural face alone: a natural highest face wins whatever the
    totals, a natural 1 loses (ruling: the text gives criticals to the offender only)."""
    if contest.criticals and offender_face == contest.sides:
        return "critical_success"
    if contest.criticals and offender_face == 1:
        return "critical_failure"
    margin = (offender_face + contest.offender_bonus) - (defender_face + contest.defender_bonus)
    if margin == 0 and contest.tie == "reroll":
        return None
    if margin < 0 or (margin == 0 and contest.tie == "defender"):
        return "lose"
    # Here the offender won, by ``margin`` (0: a tie that goes to the offender).
    return "graze" if contest.grazing_margin and margin <= contest.grazing_margin else "win"


@dataclass(frozen=True)
class Throw:
    offender: list[Roll]
    defender: Roll
    kept: int
    offender_total: int
    defender_total: int
    verdict: Verdict | None


def roll(bag: DiceBag, contest: Contest, offender: str, defender: str) -> list[Throw]:
    """Roll the contest (again after each tie when ties are rolled again); the last throw
    decides. Offender's dice first, then the defender's."""
    throws: list[Throw] = []
    while True:
        again = " again (tie)" if throws else ""
        purpose = f"for {offender}'s contest roll{again}"
        if contest.offender_dice > 1:
            purpose += " (advantage: the higher counts)"
        off = bag.roll(contest.die, contest.offender_dice, purpose)
        dfn = bag.roll(contest.die, 1, f"for {defender}'s contest roll{again}")[0]
        kept = max(r.face for r in off)
        verdict = judge(contest, kept, dfn.face)
        throws.append(
            Throw(
                offender=off,
                defender=dfn,
                kept=kept,
                offender_total=kept + contest.offender_bonus,
                defender_total=dfn.face + contest.defender_bonus,
                verdict=verdict,
            )
        )
        if verdict is not None:
            return throws


VERDICT_TEXT: dict[Verdict, str] = {
    "critical_success": "critical success",
    "win": "hit",
    "graze": "grazing hit",
    "lose": "the defender wins",
    "critical_failure": "critical failure",
}


def throw_text(throws: list[Throw], c: Contest) -> str:
    """The throws as the summary tells them: each side's faces, bonuses and totals."""
    parts = []
    for t in throws:
        off = "/".join(str(r.face) for r in t.offender)
        off_text = f"{c.die} {off}" + (f" (keeps {t.kept})" if len(t.offender) > 1 else "")
        if c.offender_bonus:
            off_text += f" + {c.offender_bonus} = {t.offender_total}"
        def_text = f"{t.defender.face}"
        if c.defender_bonus:
            def_text += f" + {c.defender_bonus} defence = {t.defender_total}"
        parts.append(f"{off_text} vs {def_text}" + (" (tie: again)" if t.verdict is None else ""))
    return "; ".join(parts)


def modifiers(contest: Contest, defender_party: str) -> list[Modifier]:
    out: list[Modifier] = []
    if contest.defender_bonus:
        out.append(
            Modifier(
                clause="YRD-AT1",
                label=f"{defender_party}'s party defence (defender)",
                amount=contest.defender_bonus,
                applies_to="contest_roll",
            )
        )
    if contest.offender_bonus:
        out.append(
            Modifier(
                clause="YRD-AN1",
                label="advantage: the defender's tank is on its Attack space (offender)",
                amount=contest.offender_bonus,
                applies_to="contest_roll",
                ruling="advantage = bonus",
            )
        )
    return out


def rulings(contest: Contest, options: Options, advantage: bool) -> list[RulingNote]:
    """The readings this contest used, each with the table option that chose it."""
    c = contest.clause
    notes = [
        RulingNote(
            clause=c,
            text=f"Contest roll: one {contest.die} each, the higher total wins.",
            option="contest_die",
            value=contest.die,
        ),
        RulingNote(
            clause=c,
            text={
                "defender": "A tie goes to the defender.",
                "offender": "A tie goes to the offender.",
                "reroll": "A tie is rolled again.",
            }[contest.tie],
            option="tie",
            value=contest.tie,
        ),
        RulingNote(
            clause=c,
            text=(
                f"Criticals are the offender's only: a natural {contest.sides} is a critical "
                "success (wins whatever the totals), a natural 1 a critical failure (loses)."
                if contest.criticals
                else "No critical hits or misses at this table."
            ),
            option="criticals",
            value=options.criticals,
        ),
    ]
    if c == "YRD-AT1":
        notes.append(
            RulingNote(
                clause=c,
                text=(
                    f"Grazing hit: the offender wins by {contest.grazing_margin} or less (a tie "
                    f"won by the offender included) and deals half the damage rolled, rounded "
                    f"{options.grazing_rounding}; a critical success is never grazing."
                    if contest.grazing_margin
                    else "No grazing hits at this table."
                ),
                option="grazing_margin",
                value=str(contest.grazing_margin),
            )
        )
    if advantage:
        notes.append(
            RulingNote(
                clause="YRD-AN1",
                text={
                    "roll_twice": "Advantage: the offender rolls twice and keeps the higher "
                    "(criticals read on the kept die).",
                    "bonus": f"Advantage: +{options.advantage_bonus} to the offender's roll.",
                    "off": "Advantage is not used at this table.",
                }[options.advantage],
                option="advantage",
                value=options.advantage,
            )
        )
    return notes


# --- exact odds --------------------------------------------------------------------------------


@lru_cache(maxsize=512)
def verdict_odds(contest: Contest) -> dict[Verdict, Fraction]:
    """P(each verdict) exactly, ties that are rolled again taken out."""
    s, n = contest.sides, contest.offender_dice
    counts: dict[Verdict, int] = dict.fromkeys(VERDICTS, 0)
    total = 0
    for kept in range(1, s + 1):
        ways = kept**n - (kept - 1) ** n  # throws of n dice whose highest face is ``kept``
        for dfn in range(1, s + 1):
            verdict = judge(contest, kept, dfn)
            if verdict is None:
                continue
            counts[verdict] += ways
            total += ways
    if total == 0:  # every throw ties and is rolled again: the contest never ends
        raise RulesError("CONTEST_NEVER_ENDS", contest.clause, "every throw would be a tie")
    return {v: Fraction(k, total) for v, k in counts.items()}


def halve(total: int, rounding: str) -> int:
    return (total + 1) // 2 if rounding == "up" else total // 2


@lru_cache(maxsize=8)
def _two_d6() -> dict[int, Fraction]:
    out: dict[int, Fraction] = {}
    for a in range(1, 7):
        for b in range(1, 7):
            out[a + b] = out.get(a + b, Fraction(0)) + Fraction(1, 36)
    return out


def artillery_damage_odds(contest: Contest, rounding: str) -> dict[int, Fraction]:
    """YRD-AT1: P(the piece takes each amount of damage), 0 included."""
    odds = verdict_odds(contest)
    out: dict[int, Fraction] = {0: odds["lose"] + odds["critical_failure"]}
    for total, p in _two_d6().items():
        dealt_by: tuple[tuple[Verdict, int], ...] = (
            ("win", total),
            ("graze", halve(total, rounding)),
            ("critical_success", 2 * total),
        )
        for verdict, dealt in dealt_by:
            q = odds[verdict] * p
            if q:
                out[dealt] = out.get(dealt, Fraction(0)) + q
    return dict(sorted(out.items()))
