"""Sight and spotting (AFV-FR1, AFV-SP1): what blocks a line, infantry in cover, the spotting
d6 for enemy infantry, and what a recon unit spots for its whole side."""

from __future__ import annotations

from dataclasses import dataclass

from tankref.core.adjudication import refuse
from tankref.core.flow import NOT_AN_ENEMY, TARGET_NOT_ON_TABLE
from tankref.core.geometry import contains, segment_enters
from tankref.rulesets.afv import rules
from tankref.rulesets.afv.actions import Spot
from tankref.rulesets.afv.cards import DIE
from tankref.rulesets.afv.context import AfvContext, get_unit, own_unit
from tankref.rulesets.afv.presentation import unit_label
from tankref.rulesets.afv.state import Spotting, TableState, UnitState

# Where the text is silent the referee rules, and says so in the result when it applies.
RULING_SPOT = (
    "One spotting d6 per unit and infantry target per phase; a failed roll is not retried "
    "that phase. Vehicles in line of sight are seen without a roll."
)
RULING_SIGHT = (
    "Hills and woods block line of sight (a piece the shooter or the target stands in does "
    "not); only hills block direct fire at what a recon unit spots."
)


def sight_blocker(
    state: TableState, a: UnitState, b: UnitState, kinds: tuple[str, ...]
) -> str | None:
    """The first piece of ``kinds`` on the line a-b; a piece either unit stands in is its own
    position, not a screen between them."""
    for piece in sorted(state.terrain.values(), key=lambda p: p.id):
        if piece.kind not in kinds:
            continue
        if contains(piece.shape, a.pos) or contains(piece.shape, b.pos):
            continue
        if segment_enters(piece.shape, a.pos, b.pos):
            return piece.id
    return None


def in_sight(state: TableState, a: UnitState, b: UnitState) -> bool:
    return sight_blocker(state, a, b, ("hill", "woods")) is None


def in_cover(state: TableState, unit: UnitState) -> str | None:
    for piece in sorted(state.terrain.values(), key=lambda p: p.id):
        if piece.kind in ("woods", "cover") and contains(piece.shape, unit.pos):
            return piece.id
    return None


def spot_entry(state: TableState, spotter: str, target: str) -> Spotting | None:
    return next((s for s in state.spotting if s.spotter == spotter and s.target == target), None)


def recon_spotter(state: TableState, shooter: UnitState, target: UnitState) -> UnitState | None:
    """A friendly recon unit that sees the target now (for infantry: that has spotted it)."""
    for unit in sorted(state.units.values(), key=lambda u: u.id):
        if unit.player != shooter.player or not unit.on_board or not unit.card.spots_for_all:
            continue
        if not in_sight(state, unit, target):
            continue
        if not target.infantry or target.revealed:
            return unit
        entry = spot_entry(state, unit.id, target.id)
        if entry is not None and entry.spotted:
            return unit
    return None


@dataclass
class Seen:
    """How a shooter may see a target: ``roll`` True when a spotting d6 decides it first."""

    how: str  # sight | recon
    roll: bool = False
    by: str | None = None
    note: str = ""


def check_seen(state: TableState, shooter: UnitState, target: UnitState) -> Seen:
    """AFV-FR1 and AFV-SP1: may ``shooter`` shoot at ``target`` as far as seeing it goes?"""
    if in_sight(state, shooter, target):
        if not target.infantry:
            return Seen("sight", note="in line of sight")
        if target.revealed:
            return Seen("sight", note="revealed by firing while Suppressed (AFV-FR1)")
        entry = spot_entry(state, shooter.id, target.id)
        if entry is not None and entry.spotted:
            return Seen("sight", note="spotted")
        recon = recon_spotter(state, shooter, target)
        if recon is not None:
            return Seen("recon", by=recon.id, note=f"spotted by recon {unit_label(recon)}")
        if entry is not None:
            refuse(
                "NOT_SPOTTED", "AFV-SP1",
                f"{unit_label(shooter)} failed to spot {unit_label(target)} this phase",
            )  # fmt: skip
        if shooter.carried_by is None:
            return Seen("sight", roll=True, note="infantry: a spotting d6, 1-3 (AFV-SP1)")
    hill = sight_blocker(state, shooter, target, ("hill",))
    recon = recon_spotter(state, shooter, target)
    if recon is not None and hill is None:
        return Seen(
            "recon", by=recon.id, note=f"out of sight, spotted by recon {unit_label(recon)}"
        )
    blocker = sight_blocker(state, shooter, target, ("hill", "woods"))
    why = f"{state.terrain[blocker].kind} {blocker} blocks the line" if blocker else "not spotted"
    if blocker and hill is None:
        why += " and no friendly recon unit spots it"
    refuse(
        "NO_LINE_OF_SIGHT", "AFV-FR1",
        f"{unit_label(shooter)} cannot see {unit_label(target)}: {why}", blocker=blocker,
    )  # fmt: skip


def check_spot(state: TableState, spot: Spot) -> tuple[UnitState, UnitState]:
    unit = own_unit(state, spot.tank_id, "AFV-SP1")
    if unit.carried_by is not None:
        refuse("CARRIED", "AFV-SPC1", f"{unit_label(unit)} is carried: it cannot spot")
    target = get_unit(state, spot.target_id, "target_id")
    if target.player == unit.player:
        refuse(NOT_AN_ENEMY, "AFV-SP1", f"target_id: {unit_label(target)} is a friend")
    if not target.on_board:
        refuse(
            TARGET_NOT_ON_TABLE, "AFV-SP1", f"target_id: {unit_label(target)} is not on the table"
        )
    if not target.infantry:
        refuse(
            "SPOT_NOT_NEEDED", "AFV-SP1",
            f"{unit_label(target)} is a vehicle: seen without a roll when in line of sight",
        )  # fmt: skip
    if target.revealed:
        refuse("SPOT_NOT_NEEDED", "AFV-SP1", f"{unit_label(target)} revealed itself (AFV-FR1)")
    if spot_entry(state, unit.id, target.id) is not None:
        refuse(
            "ALREADY_SPOTTED", "AFV-SP1",
            f"{unit_label(unit)} already looked for {unit_label(target)} this phase",
        )  # fmt: skip
    if not in_sight(state, unit, target):
        refuse(
            "NO_LINE_OF_SIGHT", "AFV-SP1",
            f"{unit_label(unit)} has no line of sight to {unit_label(target)}",
        )  # fmt: skip
    return unit, target


def roll_spot(ctx: AfvContext, unit: UnitState, target: UnitState) -> bool:
    roll = ctx.bag.roll(DIE, 1, f"to spot {unit_label(target)} (1-3, AFV-SP1)")[0]
    spotted = roll.face <= rules.SPOT_ON
    ctx.state.spotting = (
        *ctx.state.spotting,
        Spotting(spotter=unit.id, target=target.id, spotted=spotted),
    )
    ctx.rule("AFV-SP1", RULING_SPOT)
    shared = (
        " Recon: every friendly unit sees it (AFV-SP1)."
        if spotted and unit.card.spots_for_all
        else ""
    )
    ctx.say(
        f"{unit_label(unit)} looks for {unit_label(target)}: d6 {roll.face}, "
        f"{'spotted' if spotted else 'not spotted'} (1-3, AFV-SP1).{shared}"
    )
    return spotted


def spot(ctx: AfvContext, action: Spot) -> None:
    unit, target = check_spot(ctx.state, action)
    spotted = roll_spot(ctx, unit, target)
    ctx.result.outcome = {"spotter": unit.id, "target_id": target.id, "spotted": spotted}
