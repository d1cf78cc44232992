"""The numbers and words of Minimal Tank Combat: the terrain chart, the Combat Results Table
and the referee's rulings, with the small sums read straight off them.

Plain data and arithmetic only (no state, no checks): movement, fire and the odds all read
the same table, so a number is written once.
"""

from __future__ import annotations

from fractions import Fraction

from tankref.rulesets.mtc.state import TankState, TerrainKind

# MTC-MV1: movement points to enter a hex; None = no entry.
MOVE_COST: dict[TerrainKind, int | None] = {
    "clear": 1,
    "rubble": 2,
    "crater": None,
    "road": 1,
    "town": 2,
}
BLOCKS_SIGHT: frozenset[TerrainKind] = frozenset({"crater"})  # MTC-LOS1
TOWN_DEFENSE = 1  # MTC-CB1: +1 DEFENSE in a town

# MTC-CB1 / MTC-CRT1: the columns, weakest first, and the lowest face that destroys.
COLUMNS: tuple[str, ...] = ("1-2", "1-1", "2-1", "3-1")
KILL_FROM: dict[str, int] = {"1-2": 5, "1-1": 4, "2-1": 3, "3-1": 2}

RULING_DROP_PATH = (
    "A drop is a move along the cheapest legal path from the hex the tank began its "
    "movement phase in (several drops in one phase make one move); a reported path is "
    "checked as given."
)
RULING_STACKING = (
    "One tank a hex: a tank may pass through hexes of friendly tanks but not enemy ones, "
    "and may not end its move in a hex another tank holds."
)
RULING_EDGE_LINE = (
    "A line running exactly along hex edges is blocked only if the hexes on both sides of "
    "it block (the shooter gets the benefit of the doubt)."
)
RULING_COLUMNS = "Odds better than 3-1 use the 3-1 column; worse than 1-2 cannot attack."


def road_bonus(tank: TankState) -> int:
    """MTC-MV2: half of MOVE, rounded down."""
    return tank.design.move // 2


def odds_column(attack: int, defense: int) -> str | None:
    """MTC-CB1: the ratio rounded down in the defender's favour; None below 1-2."""
    if attack >= 3 * defense:
        return "3-1"
    if attack >= 2 * defense:
        return "2-1"
    if attack >= defense:
        return "1-1"
    if 2 * attack >= defense:
        return "1-2"
    return None


def p_destroyed(column: str) -> Fraction:
    """MTC-CRT1: the chance one d6 destroys at this column."""
    return Fraction(7 - KILL_FROM[column], 6)
