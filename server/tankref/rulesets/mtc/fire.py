"""Fire in Minimal Tank Combat: the line of sight (MTC-LOS1), the odds and the combined attack
(MTC-CB1), and the one d6 on the Combat Results Table (MTC-CRT1).

``plan_fire`` is the whole check of an attack, shared by the fire itself, the menu and the
odds; it returns the plan or raises the refusal and changes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from tankref.core.adjudication import refuse
from tankref.core.errors import RulesError
from tankref.core.flow import NOT_AN_ENEMY
from tankref.core.hexgrid import Hex, hex_distance, hex_lines
from tankref.rulesets.mtc.actions import Fire
from tankref.rulesets.mtc.cards import DIE
from tankref.rulesets.mtc.context import TableContext, get_tank, label
from tankref.rulesets.mtc.rules import (
    BLOCKS_SIGHT,
    KILL_FROM,
    RULING_COLUMNS,
    RULING_EDGE_LINE,
    TOWN_DEFENSE,
    odds_column,
    p_destroyed,
)
from tankref.rulesets.mtc.state import TableState, TankState
from tankref.rulesets.mtc.turns import check_phase, check_playing


@dataclass(frozen=True)
class SightLine:
    """The line from shooter to target: both readings (equal unless it runs along edges)
    and what blocks each; clear when either reading is clear (RULING_EDGE_LINE)."""

    distance: int
    readings: tuple[list[Hex], list[Hex]]
    blocked: tuple[list[str], list[str]]

    @property
    def along_edge(self) -> bool:
        return self.readings[0] != self.readings[1]

    @property
    def clear(self) -> bool:
        return not self.blocked[0] or not self.blocked[1]


def sight_line(state: TableState, a: Hex, b: Hex) -> SightLine:
    readings = hex_lines(a, b)
    occupied = state.occupied()
    blocked: list[list[str]] = []
    for line in readings:
        found = []
        for h in line[1:-1]:  # the shooter's and the target's own hexes never block
            kind = state.terrain_at(h)
            if kind in BLOCKS_SIGHT:
                found.append(f"{kind} in {h}")
            other = occupied.get((h.q, h.r))
            if other is not None:
                found.append(f"{label(other)} in {h}")
        blocked.append(found)
    return SightLine(hex_distance(a, b), readings, (blocked[0], blocked[1]))


def check_may_fire(state: TableState, tank: TankState) -> None:
    check_phase(state, tank, "combat", "fire")
    if tank.fired:
        refuse("ALREADY_FIRED", "MTC-CB1", f"{label(tank)} has fired this turn")


def check_target(state: TableState, shooter: TankState, target: TankState) -> SightLine:
    """MTC-LOS1: the target within RANGE hexes and a clear line."""
    if target.player == shooter.player:
        refuse(NOT_AN_ENEMY, "MTC-CB1", f"{label(target)} is on {shooter.name}'s side")
    if target.destroyed:
        refuse("TARGET_DESTROYED", "MTC-CRT1", f"{label(target)} was destroyed")
    line = sight_line(state, shooter.hex, target.hex)
    if line.distance > shooter.design.range:
        refuse(
            "OUT_OF_RANGE",
            "MTC-LOS1",
            f"{label(target)} is {line.distance} hexes from {shooter.name}; "
            f"its RANGE is {shooter.design.range}",
            distance=line.distance,
            range=shooter.design.range,
        )
    if not line.clear:
        why = "; ".join(line.blocked[0])
        if line.along_edge:
            why += f" and on the other side of the edge: {'; '.join(line.blocked[1])}"
        refuse(
            "NO_LINE_OF_SIGHT",
            "MTC-LOS1",
            f"no line of sight from {shooter.name} to {target.name}: {why}",
            blocked=line.blocked[0],
            blocked_other_side=line.blocked[1],
        )
    return line


@dataclass(frozen=True)
class FirePlan:
    shooters: list[TankState]
    target: TankState
    attack: int
    defense: int
    town: bool
    column: str
    lines: dict[str, SightLine] = field(default_factory=dict)

    @property
    def p(self) -> Fraction:
        return p_destroyed(self.column)


def defense_of(state: TableState, target: TankState) -> tuple[int, bool]:
    town = state.terrain_at(target.hex) == "town"
    return target.design.defense + (TOWN_DEFENSE if town else 0), town


def plan_fire(state: TableState, tank_ids: Sequence[str], target_id: str) -> FirePlan:
    check_playing(state)
    if len(set(tank_ids)) != len(tank_ids):
        refuse("SAME_TANK_TWICE", "MTC-CB1", "tank_ids: a tank fires only once", field="tank_ids")
    shooters = [get_tank(state, t) for t in tank_ids]
    target = get_tank(state, target_id, "target_id")
    lines = {}
    for shooter in shooters:
        check_may_fire(state, shooter)
        lines[shooter.id] = check_target(state, shooter, target)
    attack = sum(s.design.attack for s in shooters)
    defense, town = defense_of(state, target)
    column = odds_column(attack, defense)
    if column is None:
        refuse(
            "ODDS_TOO_LOW",
            "MTC-CB1",
            f"ATTACK {attack} against DEFENSE {defense} is worse than 1-2: no attack "
            f"(ruling: {RULING_COLUMNS})",
            attack=attack,
            defense=defense,
        )
    return FirePlan(shooters, target, attack, defense, town, column, lines)


def partners(state: TableState, shooter: TankState, target: TankState) -> list[str]:
    """Friendly tanks that could join ``shooter``'s attack on ``target`` now."""
    out = []
    for other in sorted(state.tanks.values(), key=lambda t: t.id):
        if other.id == shooter.id or other.player != shooter.player:
            continue
        try:
            check_may_fire(state, other)
            check_target(state, other, target)
        except RulesError:
            continue
        out.append(other.id)
    return out


# --- the option and the handler --------------------------------------------------------------


def fire_option(state: TableState, tank: TankState) -> dict[str, Any]:
    """Every enemy the tank may fire at (the fire's own checks), the column and chance alone,
    and the friends that could join the attack."""
    check_may_fire(state, tank)
    targets = []
    first: RulesError | None = None
    for other in sorted(state.tanks.values(), key=lambda t: t.id):
        if other.player == tank.player or not other.in_play:
            continue
        try:
            line = check_target(state, tank, other)
        except RulesError as err:
            first = first or err
            continue
        defense, _ = defense_of(state, other)
        column = odds_column(tank.design.attack, defense)
        p = p_destroyed(column) if column else None
        targets.append(
            {
                "target_id": other.id,
                "distance": line.distance,
                "attack": tank.design.attack,
                "defense": defense,
                "column": column,
                "p_destroyed": None if p is None else float(p),
                "exact": None if p is None else f"{p.numerator}/{p.denominator}",
                "partners": partners(state, tank, other),
            }
        )
    if not targets:
        raise first or RulesError(
            "NO_TARGETS", "MTC-LOS1", f"{label(tank)} has no enemy in range and sight"
        )
    return {"targets": targets}


def fire(ctx: TableContext, action: Fire) -> None:
    plan = plan_fire(ctx.state, action.tank_ids, action.target_id)
    names = " and ".join(s.name for s in plan.shooters)
    town = f" + {TOWN_DEFENSE} town" if plan.town else ""
    kill_from = KILL_FROM[plan.column]
    die = ctx.bag.roll(DIE, 1, f"on the CRT at {plan.column} (X on {kill_from}-6)")[0]
    destroyed = die.face >= kill_from
    for shooter in plan.shooters:
        ctx.edit(shooter.id).fired = True
    target = ctx.edit(plan.target.id)
    lines = "; ".join(
        f"{sid} {line.distance} hex{'es' if line.distance != 1 else ''}"
        for sid, line in plan.lines.items()
    )
    ctx.say(
        f"{names} fire{'s' if len(plan.shooters) == 1 else ''} at {label(target)}: "
        f"{'X, destroyed' if destroyed else 'N, no effect'}."
    )
    ctx.say(
        f"ATTACK {plan.attack} : DEFENSE {target.design.defense}{town} = {plan.defense} "
        f"-> column {plan.column}, X on {kill_from}-6; rolled {die.face}. Range: {lines}."
    )
    if plan.town:
        ctx.modifier(
            "MTC-CB1",
            f"{target.name} in a town: +{TOWN_DEFENSE} DEFENSE",
            TOWN_DEFENSE,
            "armour",
        )
    ctx.rule("MTC-CB1", RULING_COLUMNS)
    if any(line.along_edge for line in plan.lines.values()):
        ctx.rule("MTC-LOS1", RULING_EDGE_LINE)
    ctx.result.outcome = {
        "shooters": [s.id for s in plan.shooters],
        "target": target.id,
        "attack": plan.attack,
        "defense": plan.defense,
        "town": plan.town,
        "column": plan.column,
        "kill_from": kill_from,
        "face": die.face,
        "result": "X" if destroyed else "N",
        "destroyed": destroyed,
        "p_destroyed": f"{plan.p.numerator}/{plan.p.denominator}",
    }
    if destroyed:
        target.destroyed = True
        target.destroyed_by = tuple(s.id for s in plan.shooters)
        ctx.event(
            "destroyed",
            "MTC-CRT1",
            f"{label(target)} is destroyed and removed from the game",
            tank_id=target.id,
            by=list(target.destroyed_by),
        )
