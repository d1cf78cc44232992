"""The AFV tables as pure functions: hits from a 2d6 total, the damage table's two columns,
range bands and the lateral-move penalty. No state, no dice: the engine and the odds share
them."""

from __future__ import annotations

from typing import Literal

from tankref.core.geometry import signed_angle
from tankref.rulesets.afv.cards import UnitClass

HIT_ON = 8  # AFV-HIT1: 8+ one hit, then one more for every 3 above
HIT_STEP = 3
SPOT_ON = 3  # AFV-SP1: infantry in sight is spotted on 1-3
LATERAL_ANGLE = 45.0  # AFV-HIT2: "more than 45 degrees from straight towards you"

# AFV-HIT2: a target that moved laterally, by its class.
LATERAL_PENALTY: dict[UnitClass, int] = {
    "light": -3,
    "recon": -3,
    "medium": -2,
    "heavy": -1,
    "infantry": -1,
}

HumanResult = Literal["nothing", "stopped", "suppressed", "degraded", "destroyed"]
VehicleResult = Literal[
    "nothing", "superficial", "component", "degraded", "stopped_or_no_weapon", "destroyed"
]

HUMAN_WORDS: dict[str, str] = {
    "nothing": "nothing",
    "stopped": "stopped (no move next)",
    "suppressed": "suppressed",
    "degraded": "degraded, suppressed",
    "destroyed": "destroyed",
}
VEHICLE_WORDS: dict[str, str] = {
    "nothing": "nothing",
    "superficial": "superficial",
    "component": "external component destroyed (lights, antenna)",
    "degraded": "degraded (move ½ or shoot -2)",
    "stopped_or_no_weapon": "stopped or no weapon",
    "destroyed": "destroyed",
}


def hits_for(total: int) -> int:
    """AFV-HIT1: 8+ one hit, 11+ two, 14+ three, 17+ four, and so on."""
    if total < HIT_ON:
        return 0
    return 1 + (total - HIT_ON) // HIT_STEP


def _band(total: int) -> int:
    """The damage table's row: 0 for 2 or less, 1 for 3-5, 2 for 6-8, ... 5 for 15+."""
    if total <= 2:
        return 0
    return min(5, 1 + (total - 3) // 3)


_HUMAN: tuple[HumanResult, ...] = (
    "nothing", "stopped", "suppressed", "degraded", "destroyed", "destroyed",
)  # fmt: skip
_VEHICLE: tuple[VehicleResult, ...] = (
    "nothing", "superficial", "component", "degraded", "stopped_or_no_weapon", "destroyed",
)  # fmt: skip


def human_result(total: int) -> HumanResult:
    """AFV-DMG1, human column (a total below 2 reads as the 2 row: nothing)."""
    return _HUMAN[_band(total)]


def vehicle_result(total: int) -> VehicleResult:
    """AFV-DMG1, vehicle column."""
    return _VEHICLE[_band(total)]


RangeBand = Literal["short", "long", "distant"]


def range_band(range_cm: float, short_cm: float) -> tuple[RangeBand, int] | None:
    """AFV-HIT2: short +0; long (to 5x short) -2; distant (to 10x short) -4; beyond: None."""
    if range_cm <= short_cm:
        return "short", 0
    if range_cm <= 5 * short_cm:
        return "long", -2
    if range_cm <= 10 * short_cm:
        return "distant", -4
    return None


def off_line(direction: float, line_heading: float) -> float:
    """Degrees (0-90) between a direction marker and the line between two units: moving
    straight toward or straight away both count as along the line."""
    diff = abs(signed_angle(direction - line_heading))
    return min(diff, 180.0 - diff)


def lateral(direction: float | None, line_heading: float) -> bool:
    """AFV-HIT2: the target's direction marker is more than 45° off the line of fire."""
    return direction is not None and off_line(direction, line_heading) > LATERAL_ANGLE + 1e-9
