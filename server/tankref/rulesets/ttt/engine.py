"""The TinyTableTopTanks referee: a pure function from (state, action, dice) to (state, result).

- ``new_table`` makes a table in setup.
- ``options_for`` says what a tank may do now (and why not), without changing anything.
- ``adjudicate`` applies one action to a private copy and returns the new state with the
  structured result; a refusal raises a ``RulesError`` and the caller's state is untouched.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic_core import to_jsonable_python

from tankref.core.dice import DiceState, SuppliedDice
from tankref.core.errors import BadValue, RulesError
from tankref.core.geometry import TableArea
from tankref.core.options import Option, option
from tankref.core.results import Result, TankChange
from tankref.rulesets.ttt import combat, morale, movement, setup, smoke, turns
from tankref.rulesets.ttt import odds as shot_odds
from tankref.rulesets.ttt.actions import (
    Action,
    CrewRoll,
    EndPhase,
    Engage,
    Move,
    PlaceTank,
    PlaceTerrain,
    Recover,
    RemoveTank,
    SetObjective,
    Smoke,
    StartGame,
    Wait,
)
from tankref.rulesets.ttt.cards import CardSet, default_cards
from tankref.rulesets.ttt.context import Context, get_tank, tank_label
from tankref.rulesets.ttt.presentation import markers, tooltip
from tankref.rulesets.ttt.state import Options, Player, Scenario, TableState, TankState

_TRACKED = (
    "x", "z", "facing", "hull_down", "on_table", "crew", "morale", "destroyed", "removed",
    "immobilized", "damage", "stunned", "must_recover", "moved", "facing_changed", "engaged",
    "waiting", "recover_tried", "reroll_used", "smoke_uses",
)  # fmt: skip


@dataclass(frozen=True)
class Adjudication:
    state: TableState
    result: Result


def new_table(
    players: Sequence[Player] | None = None,
    *,
    scenario: Scenario | None = None,
    options: Options | None = None,
    area: TableArea | None = None,
    cards: CardSet | None = None,
    dice: DiceState | None = None,
) -> TableState:
    """A table in setup. Defaults: players Red (south edge) and Blue (north), Meeting Engagement."""
    players = tuple(players or (Player(id="Red", edge="south"), Player(id="Blue", edge="north")))
    if len(players) != 2:
        raise BadValue("TWO_PLAYERS", "TTT-T1", "players: TinyTableTopTanks is for two players")
    if players[0].id == players[1].id:
        raise BadValue("TWO_PLAYERS", "TTT-T1", "players: the two players need different ids")
    scenario = scenario or Scenario()
    ids = {p.id for p in players}
    for role in ("first_player", "ambusher", "defender"):
        who = getattr(scenario, role)
        if who is not None and who not in ids:
            raise BadValue("UNKNOWN_PLAYER", "TTT-S1", f"scenario.{role}: {who!r} is not a player")
    if scenario.kind == "ambush" and scenario.ambusher is None:
        raise RulesError(
            "AMBUSHER_NEEDED", "TTT-S2", "scenario.ambusher: name the ambushing player"
        )
    if scenario.kind == "objective" and scenario.defender is None:
        raise RulesError(
            "DEFENDER_NEEDED", "TTT-S3", "scenario.defender: name the defending player"
        )
    state = TableState(
        players=(players[0], players[1]),
        order=(players[0].id, players[1].id),
        scenario=scenario,
        options=options or Options(),
        area=area or TableArea(),
        rules=(cards or default_cards()).rules,
        dice=dice or DiceState(),
    )
    state.order = turns.phase_order(state)
    return state


def adjudicate(
    state: TableState,
    action: Action,
    dice: SuppliedDice | None = None,
    cards: CardSet | None = None,
) -> Adjudication:
    """Apply ``action``; raise ``RulesError`` (state untouched) if the rules refuse it."""
    ctx = Context(state, action.model_dump(), dice)
    match action:
        case PlaceTank():
            setup.do_place_tank(ctx, action, cards or default_cards())
        case RemoveTank():
            setup.do_remove_tank(ctx, action)
        case PlaceTerrain():
            setup.do_place_terrain(ctx, action)
        case SetObjective():
            setup.do_set_objective(ctx, action)
        case CrewRoll():
            setup.do_crew_roll(ctx, action)
        case StartGame():
            turns.do_start_game(ctx, action)
        case Move():
            movement.do_move(ctx, action)
        case Engage():
            combat.do_engage(ctx, action)
        case Wait():
            movement.do_wait(ctx, action)
        case Recover():
            morale.do_recover(ctx, action)
        case Smoke():
            smoke.do_smoke(ctx, action)
        case EndPhase():
            turns.do_end_phase(ctx, action)
    if ctx.state.status == "playing":
        morale.resolve_morale(ctx)
        turns.check_elimination(ctx)
        turns.watch_objective(ctx)
    ctx.bag.finish()
    new_state = ctx.state
    new_state.dice = ctx.bag.settled_state()
    ctx.result.rolls = ctx.bag.rolls
    for tank_id in ctx.edited:
        after = new_state.tanks.get(tank_id)
        before = state.tanks.get(tank_id)
        if after is None:
            ctx.result.changes.append(
                TankChange(
                    tank_id=tank_id,
                    name=before.name if before else tank_id,
                    changes={"removed": [False, True]},
                )
            )
            continue
        label = tank_label(after)
        last = next((line for line in reversed(ctx.result.summary) if label in line), None)
        ctx.result.changes.append(_change(before, after, last))
    return Adjudication(new_state, ctx.result)


def _change(before: TankState | None, after: TankState, last: str | None) -> TankChange:
    diff: dict[str, list[Any]] = {}
    for name in _TRACKED:
        new = getattr(after, name)
        old = getattr(before, name) if before is not None else None
        if old != new:
            diff[name] = [to_jsonable_python(old), to_jsonable_python(new)]  # as JSON shows it
    return TankChange(
        tank_id=after.id,
        name=after.name,
        changes=diff,
        markers=markers(after),
        tooltip=tooltip(after, last),
    )


# --- what may this tank do now ----------------------------------------------------------------


def options_for(state: TableState, tank_id: str, *, odds: bool = True) -> list[Option]:
    """What ``tank_id`` may do now, each refusal with its code and clause. Changes nothing.

    ``odds``: give each Engage target the exact p_hit, p_penetrate and p_destroyed of the
    shot (for hovers); a caller that never shows them (the self-play bots) may skip them.
    """
    tank = get_tank(state, tank_id)
    out: list[Option] = []

    def move_check() -> dict[str, Any]:
        movement.check_may_drive(state, tank)
        drive = movement.drive_blocker(tank)
        fast = movement.fast_blocker(tank)
        pivot = movement.pivot_blocker(state, tank)
        if drive and pivot:
            code, clause, why = drive
            raise RulesError(code, clause, f"{tank.name} cannot move: {why}")
        return {
            "from": [tank.start_x, tank.start_z],
            "normal": None if drive else tank.movement,
            "fast": None if drive or fast else 2 * tank.movement,
            "pivot": pivot is None,
            "entry_edges": None if tank.on_table else movement.entry_edges(state, tank),
        }

    out.append(option("move", move_check))

    def engage_check() -> dict[str, Any]:
        targets = []
        first: RulesError | None = None
        for other in sorted(state.tanks.values(), key=lambda t: t.id):
            if other.player == tank.player or not other.on_board:
                continue
            try:
                if odds:
                    plan = combat.plan_engage(state, tank_id, other.id)
                    line = plan.line
                else:
                    _, _, line = combat.check_engage(state, tank_id, other.id)
            except RulesError as err:
                if err.code not in ("NO_LINE_OF_SIGHT", "TURRET_JAMMED"):
                    raise
                first = first or err
                continue
            target: dict[str, Any] = {"target_id": other.id, "range": round(line.range, 2)}
            if odds:
                # The shot's exact odds (ask mode: no Grizzled reroll declared), cached by
                # situation; the plan they come from is the one the Engage would resolve.
                target.update(shot_odds.brief_odds(state, plan))
            targets.append(target)
        if not targets:
            raise first or RulesError("NO_TARGETS", "TTT-E1", f"{tank.name} has no enemy in sight")
        return {"targets": targets}

    out.append(option("engage", engage_check))

    def wait_check() -> None:
        movement.check_wait(state, tank_id)

    out.append(option("wait", wait_check))

    def recover_check() -> None:
        morale.check_recover(state, Recover(tank_id=tank_id))

    out.append(option("recover", recover_check))

    def smoke_check() -> dict[str, Any]:
        usable = []
        last: RulesError | None = None
        for ability in tank.card.smoke:
            aim = (tank.x, tank.z) if ability.kind == "mortar" else (None, None)
            try:
                smoke.check_smoke(
                    state, Smoke(tank_id=tank_id, ability=ability.name, x=aim[0], z=aim[1])
                )
            except RulesError as err:
                last = err
                continue
            usable.append(
                {
                    "ability": ability.name,
                    "kind": ability.kind,
                    "strength": ability.strength,
                    "range": ability.range,
                }
            )
        if not usable:
            raise last or RulesError("NO_SMOKE", "TTT-SM1", f"{tank.name}'s card has no smoke")
        return {"abilities": usable}

    out.append(option("smoke", smoke_check))
    return out


def legal_actions(state: TableState, tank_id: str) -> list[str]:
    return [o.kind for o in options_for(state, tank_id) if o.allowed]
