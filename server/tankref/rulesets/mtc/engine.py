"""The Minimal Tank Combat referee: a pure function from (state, action, dice) to (state, result).

- ``new_table`` makes a table in setup (designs checked: every problem at once, MTC-BP1).
- ``options_for`` says what a tank may do now (and why not), from the same checks.
- ``adjudicate`` applies one action to a private copy and returns the new state with the
  structured result; a refusal raises a ``RulesError`` and the caller's state is untouched.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic_core import to_jsonable_python

from tankref.core.dice import DiceBag, DiceState, SuppliedDice
from tankref.core.errors import BadValue, RulesError
from tankref.core.geometry import TableArea, bounding_radius, contains, shape_center
from tankref.core.hexgrid import Hex, HexGrid
from tankref.core.options import Option, option
from tankref.core.results import Event, Modifier, Result, RulingNote, TankChange
from tankref.rulesets.mtc import rules
from tankref.rulesets.mtc.actions import (
    Action,
    EndPhase,
    Fire,
    Move,
    PlaceTank,
    PlaceTerrain,
    RemoveTank,
    SetObjective,
    StartGame,
)
from tankref.rulesets.mtc.cards import DIE, CardSet, Design, default_cards, design_problems
from tankref.rulesets.mtc.presentation import markers, tooltip
from tankref.rulesets.mtc.rules import get_tank, label
from tankref.rulesets.mtc.state import (
    PHASES,
    HexTerrain,
    Options,
    TableState,
    TankState,
    TerrainPiece,
    terrain_map,
)

MAX_PIECE_HEXES = 2000
_TRACKED = ("q", "r", "destroyed", "moved", "mp_spent", "road_bonus_used", "fired")


@dataclass(frozen=True)
class Adjudication:
    state: TableState
    result: Result


def bad_designs(designs: Sequence[Design], max_bp: int) -> list[tuple[str, str]]:
    """Every problem of every design (MTC-BP1), as (field path, problem)."""
    out: list[tuple[str, str]] = []
    seen: set[str] = set()
    for index, design in enumerate(designs):
        for where, problem in design_problems(design, max_bp):
            path = f"designs.{index}" + ("" if where == "(design)" else f".{where}")
            out.append((path, f"{design.id}: {problem}"))
        if design.id in seen:
            out.append((f"designs.{index}.id", f"{design.id}: the id is used twice"))
        seen.add(design.id)
    return out


def new_table(
    players: tuple[str, str] = ("Red", "Blue"),
    *,
    grid: HexGrid | None = None,
    area: TableArea | None = None,
    terrain: Sequence[HexTerrain] = (),
    designs: Sequence[Design] = (),
    options: Options | None = None,
    cards: CardSet | None = None,
    dice: DiceState | None = None,
) -> TableState:
    """A table in setup; ``designs`` are the table's own, added to the shipped ones."""
    options = options or Options()
    if players[0] == players[1]:
        raise BadValue("TWO_PLAYERS", "MTC-INI1", "players: the two players need different ids")
    problems = bad_designs(designs, options.max_bp)
    if problems:
        raise RulesError(
            "BAD_DESIGN",
            "MTC-BP1",
            f"{len(problems)} design problem(s): " + "; ".join(p for _, p in problems),
            {"problems": [{"field": f, "problem": p} for f, p in problems]},
        )
    cards = cards or default_cards()
    # The shipped designs are held to the table's ceiling too (MTC-BP1): those above it are
    # not fielded here; placing one is refused naming its cost.
    shipped = {k: d for k, d in cards.designs.items() if d.build_points <= options.max_bp}
    state = TableState(
        players=players,
        grid=grid or HexGrid(),
        area=area or TableArea(),
        options=options,
        designs={**shipped, **{d.id: d for d in designs}},
        die=cards.die,
        setup_terrain=tuple(terrain),
        dice=dice or DiceState(),
    )
    state.terrain = dict(terrain_map(state.setup_terrain, {}))
    return state


# --- the adjudication context ------------------------------------------------------------------


@dataclass
class Context:
    """One adjudication: a private copy of the state, the dice, the result being built."""

    state: TableState
    bag: DiceBag
    result: Result
    edited: list[str] = field(default_factory=list)

    def edit(self, tank_id: str) -> TankState:
        """A private copy of the tank, put in the new state (the input stays untouched)."""
        if tank_id not in self.edited:
            self.edited.append(tank_id)
            self.state.tanks[tank_id] = self.state.tanks[tank_id].model_copy()
        return self.state.tanks[tank_id]

    def say(self, line: str) -> None:
        self.result.summary.append(line)

    def rule(self, clause: str, text: str) -> None:
        self.result.rulings.append(RulingNote(clause=clause, text=text))


def adjudicate(state: TableState, action: Action, dice: SuppliedDice | None = None) -> Adjudication:
    """Apply ``action``; raise ``RulesError`` (state untouched) if the rules refuse it."""
    work = state.clone()
    ctx = Context(
        work,
        DiceBag(work.dice.model_copy(), {DIE: state.die}, dice),
        Result(action=action.model_dump(mode="json")),
    )
    match action:
        case PlaceTank():
            _place_tank(ctx, action)
        case RemoveTank():
            _remove_tank(ctx, action)
        case PlaceTerrain():
            _place_terrain(ctx, action)
        case SetObjective():
            raise RulesError(
                "NO_OBJECTIVE",
                None,
                "Minimal Tank Combat has no objective marker: the players agree their own "
                "victory conditions (rules 5.0); the referee ends the game when a side has "
                "no tanks left or at the turn limit",
            )
        case StartGame():
            _start_game(ctx)
        case Move():
            _move(ctx, action)
        case Fire():
            _fire(ctx, action)
        case EndPhase():
            _end_phase(ctx, action)
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
        ctx.result.changes.append(_change(new_state, before, after, ctx.result.summary))
    return Adjudication(new_state, ctx.result)


def _change(
    state: TableState, before: TankState | None, after: TankState, summary: list[str]
) -> TankChange:
    diff: dict[str, list[Any]] = {}
    for name in _TRACKED:
        new = getattr(after, name)
        old = getattr(before, name) if before is not None else None
        if old != new:
            diff[name] = [to_jsonable_python(old), to_jsonable_python(new)]
    last = next((line for line in reversed(summary) if after.name in line), None)
    return TankChange(
        tank_id=after.id,
        name=after.name,
        changes=diff,
        markers=markers(state, after),
        tooltip=tooltip(state, after, last),
    )


# --- setup ---------------------------------------------------------------------------------


def _check_setup(state: TableState, what: str) -> None:
    if state.status != "setup":
        raise RulesError("NOT_IN_SETUP", None, f"{what} only during setup")


def _place_tank(ctx: Context, action: PlaceTank) -> None:
    state = ctx.state
    _check_setup(state, "tanks are placed")
    if action.reserve:
        raise RulesError(
            "NO_RESERVE",
            None,
            "reserve: Minimal Tank Combat has no reserve; every tank starts on the map",
            {"field": "reserve"},
        )
    design = state.designs.get(action.design)
    over = default_cards().designs.get(action.design)
    if design is None and over is not None and over.build_points > state.options.max_bp:
        raise RulesError(
            "DESIGN_OVER_BP",
            "MTC-BP1",
            f"card: {over.name} ({over.id}) costs {over.build_points} BP, more than this "
            f"table's {state.options.max_bp} BP (max_bp)",
            {"field": "card"},
        )
    if design is None:
        raise BadValue(
            "UNKNOWN_CARD",
            "MTC-BP1",
            f"card: no design {action.design!r} (known: {', '.join(sorted(state.designs))})",
            {"field": "card"},
        )
    if action.player not in state.players:
        raise BadValue(
            "UNKNOWN_PLAYER",
            None,
            f"player: {action.player!r} is not a player here ({' or '.join(state.players)})",
            {"field": "player"},
        )
    h = state.grid.hex_at(action.x, action.z)
    if not state.on_map(h):
        raise RulesError(
            "OFF_MAP", "MTC-HEX1", f"({action.x:g}, {action.z:g}) is hex {h}, off the map"
        )
    kind = state.terrain_at(h)
    if rules.MOVE_COST[kind] is None:
        raise RulesError("NO_ENTRY", "MTC-MV1", f"hex {h} is a {kind}: no tank may stand there")
    other = state.tank_at(h)
    if other is not None and other.id != action.tank_id:
        raise RulesError(
            "HEX_OCCUPIED",
            "MTC-MV1",
            f"hex {h} already holds {label(other)} (ruling: {rules.RULING_STACKING})",
        )
    old = state.tanks.get(action.tank_id)
    tank = TankState(
        id=action.tank_id,
        name=action.name or (old.name if old else action.tank_id),
        player=action.player,
        design=design,
        q=h.q,
        r=h.r,
        start_q=h.q,
        start_r=h.r,
        facing=action.facing,
    )
    state.tanks[tank.id] = tank
    if tank.id not in ctx.edited:
        ctx.edited.append(tank.id)
    ctx.say(f"{label(tank)}, {design.name} ({design.line()}), placed in hex {h} ({kind})")
    _snap(ctx, tank)


def _remove_tank(ctx: Context, action: RemoveTank) -> None:
    state = ctx.state
    _check_setup(state, "tanks are taken away")
    tank = get_tank(state, action.tank_id)
    del state.tanks[tank.id]
    if tank.id not in ctx.edited:
        ctx.edited.append(tank.id)
    ctx.say(f"{label(tank)} taken off the table")


def _footprint_hexes(state: TableState, action: PlaceTerrain) -> list[Hex]:
    if action.hexes is not None:
        return [Hex(q, r) for q, r in action.hexes]
    shape = action.shape
    assert shape is not None
    cx, cz = shape_center(shape)
    reach = bounding_radius(shape)
    area = state.area
    # Only the part on the map matters; refuse a footprint of absurdly many hexes up front.
    x0, x1 = max(cx - reach, area.x_min), min(cx + reach, area.x_max)
    z0, z1 = max(cz - reach, area.z_min), min(cz + reach, area.z_max)
    hex_area = state.grid.hex_width**2 * 0.8660254
    if x0 <= x1 and z0 <= z1 and (x1 - x0 + 2) * (z1 - z0 + 2) / hex_area > MAX_PIECE_HEXES:
        raise RulesError(
            "PIECE_TOO_BIG",
            "MTC-HEX1",
            f"shape: the piece would cover more than {MAX_PIECE_HEXES} hexes",
            {"field": "shape"},
        )
    found = []
    if x0 <= x1 and z0 <= z1:
        found = [
            h for h in state.grid.hexes_in(x0, x1, z0, z1) if contains(shape, state.grid.center(h))
        ]
    if not found:  # a piece smaller than a hex still covers the hex it sits in
        found = [state.grid.hex_at(cx, cz)]
    return found


def _place_terrain(ctx: Context, action: PlaceTerrain) -> None:
    state = ctx.state
    _check_setup(state, "terrain is placed")
    hexes = [h for h in _footprint_hexes(state, action) if state.on_map(h)]
    if not hexes:
        raise RulesError("OFF_MAP", "MTC-HEX1", "the terrain piece covers no hex of the map")
    if rules.MOVE_COST[action.terrain] is None:
        for h in hexes:
            other = state.tank_at(h)
            if other is not None:
                raise RulesError(
                    "NO_ENTRY",
                    "MTC-MV1",
                    f"hex {h} holds {label(other)}: it cannot become a {action.terrain}",
                )
    pieces = dict(state.pieces)
    pieces.pop(action.piece_id, None)  # moved: it goes to the end (the latest piece wins)
    pieces[action.piece_id] = TerrainPiece(
        id=action.piece_id,
        kind=action.terrain,
        hexes=tuple((h.q, h.r) for h in hexes),
        name=action.name,
    )
    state.pieces = pieces
    state.terrain = dict(terrain_map(state.setup_terrain, pieces))
    listed = ", ".join(str(h) for h in hexes[:8]) + (" ..." if len(hexes) > 8 else "")
    ctx.say(f"{action.terrain.capitalize()} ({action.piece_id}) covers hex(es) {listed}")
    ctx.result.outcome = {"hexes": [[h.q, h.r] for h in hexes], "terrain": action.terrain}


# --- turns ---------------------------------------------------------------------------------


def _start_game(ctx: Context) -> None:
    state = ctx.state
    _check_setup(state, "the game is started")
    for player in state.players:
        if not any(t.player == player for t in state.tanks.values()):
            raise RulesError("NO_TANKS", None, f"{player} has no tank on the map")
    state.status = "playing"
    ctx.say("The game begins.")
    _start_turn(ctx)


def _start_turn(ctx: Context) -> None:
    """MTC-INI1: both players roll a die, the higher is player 1, ties are re-rolled."""
    state = ctx.state
    state.turn += 1
    a, b = state.players
    rolled: list[list[int]] = []
    while True:
        face_a = ctx.bag.roll(DIE, 1, f"for {a}'s initiative, turn {state.turn}")[0].face
        face_b = ctx.bag.roll(DIE, 1, f"for {b}'s initiative, turn {state.turn}")[0].face
        rolled.append([face_a, face_b])
        if face_a != face_b:
            break
    first = a if face_a > face_b else b
    state.order = (first, state.enemy_of(first))
    state.phase = 0
    for tank in list(state.tanks.values()):
        if not tank.in_play:
            continue
        if (
            tank.moved
            or tank.fired
            or tank.mp_spent
            or (tank.start_q, tank.start_r)
            != (
                tank.q,
                tank.r,
            )
        ):
            edited = ctx.edit(tank.id)
            edited.start_q, edited.start_r = edited.q, edited.r
            edited.moved = edited.fired = edited.road_bonus_used = False
            edited.mp_spent = 0
    rolls = ", then ".join(f"{a} {x}, {b} {y}" for x, y in rolled)
    ties = len(rolled) - 1
    ctx.say(
        f"Turn {state.turn} initiative: {rolls}"
        + (f" ({ties} tie{'s' if ties > 1 else ''} re-rolled)" if ties else "")
        + f". {first} is player 1: {first} moves and fires first."
    )
    ctx.result.events.append(
        Event(
            kind="initiative",
            clause="MTC-INI1",
            text=f"Turn {state.turn}: {first} is player 1",
            data={"turn": state.turn, "rolls": rolled, "player_1": first},
        )
    )
    ctx.result.outcome.update({"turn": state.turn, "initiative": rolled, "player_1": first})


def _end_phase(ctx: Context, action: EndPhase) -> None:
    state = ctx.state
    rules.check_playing(state)
    active = state.active_player
    if action.player is not None and action.player != active:
        raise RulesError(
            "NOT_YOUR_PHASE",
            "MTC-INI1",
            f"player: it is {active}'s {state.step} phase, not {action.player}'s",
            {"field": "player"},
        )
    ctx.say(f"{active} ends the {state.step} phase.")
    if state.phase + 1 < len(PHASES):
        state.phase += 1
        ctx.say(f"{state.active_player}'s {state.step} phase.")
        return
    if state.turn >= state.options.turn_limit:
        _game_over(ctx, None, f"turn limit ({state.options.turn_limit}) reached")
        return
    _start_turn(ctx)


def _game_over(ctx: Context, winner: str | None, reason: str) -> None:
    state = ctx.state
    state.status = "over"
    state.winner = winner
    state.game_over_reason = reason
    text = f"Game over: {reason}" + (f"; {winner} wins." if winner else "; a draw.")
    ctx.say(text)
    ctx.result.events.append(
        Event(kind="game_over", text=text, data={"winner": winner, "reason": reason})
    )


# --- movement ------------------------------------------------------------------------------


def destination(state: TableState, action: Move) -> Hex:
    if action.hex is not None:
        return Hex(*action.hex)
    if action.x is not None and action.z is not None:
        return state.grid.hex_at(action.x, action.z)
    assert action.path is not None
    return Hex(*action.path[-1])


def plan_move(state: TableState, action: Move) -> rules.MovePlan:
    tank = get_tank(state, action.tank_id)
    path = None if action.path is None else [Hex(q, r) for q, r in action.path]
    return rules.plan_move(state, tank, destination(state, action), path)


def _move(ctx: Context, action: Move) -> None:
    plan = plan_move(ctx.state, action)
    tank = ctx.edit(plan.tank_id)
    tank.q, tank.r = plan.dest
    tank.moved = plan.dest != plan.start
    tank.mp_spent = plan.cost
    tank.road_bonus_used = plan.road_bonus > 0
    if action.facing is not None:
        tank.facing = action.facing
    route = " > ".join(str(h) for h in plan.path)
    if not tank.moved:
        ctx.say(f"{label(tank)} stays in hex {plan.start} this phase.")
    else:
        budget = f"{tank.design.move} MP" + (
            f" + {plan.road_bonus} road bonus" if plan.road_bonus else ""
        )
        ctx.say(f"{label(tank)} moves {route}: {plan.cost} MP of {budget}.")
    clause = "MTC-MV2" if plan.road_bonus else "MTC-MV1"
    if not plan.reported and tank.moved:
        ctx.rule(clause, rules.RULING_DROP_PATH)
    ctx.result.outcome = {
        "from": list(plan.start),
        "to": list(plan.dest),
        "path": [list(h) for h in plan.path],
        "cost": plan.cost,
        "move": tank.design.move,
        "road_bonus": plan.road_bonus,
        "path_reported": plan.reported,
    }
    _snap(ctx, tank)


def _snap(ctx: Context, tank: TankState) -> None:
    """Tell the table to set the model in the middle of its hex."""
    x, z = ctx.state.grid.center(tank.hex)
    ctx.result.events.append(
        Event(
            kind="place_model",
            clause="MTC-HEX1",
            text=f"{tank.name} to the centre of hex {tank.hex}",
            data={"tank_id": tank.id, "x": round(x, 4), "z": round(z, 4), "hex": list(tank.hex)},
        )
    )


# --- combat --------------------------------------------------------------------------------


def _fire(ctx: Context, action: Fire) -> None:
    state = ctx.state
    plan = rules.plan_fire(state, action.tank_ids, action.target_id)
    names = " and ".join(s.name for s in plan.shooters)
    town = f" + {rules.TOWN_DEFENSE} town" if plan.town else ""
    kill_from = rules.KILL_FROM[plan.column]
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
        ctx.result.modifiers.append(
            Modifier(
                clause="MTC-CB1",
                label=f"{target.name} in a town: +{rules.TOWN_DEFENSE} DEFENSE",
                amount=rules.TOWN_DEFENSE,
                applies_to="armour",
            )
        )
    ctx.rule("MTC-CB1", rules.RULING_COLUMNS)
    if any(line.along_edge for line in plan.lines.values()):
        ctx.rule("MTC-LOS1", rules.RULING_EDGE_LINE)
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
        ctx.result.events.append(
            Event(
                kind="destroyed",
                clause="MTC-CRT1",
                text=f"{label(target)} is destroyed and removed from the game",
                data={"tank_id": target.id, "by": list(target.destroyed_by)},
            )
        )
        if not any(t.in_play and t.player == target.player for t in state.tanks.values()):
            _game_over(ctx, state.enemy_of(target.player), f"{target.player} has no tanks left")


# --- what may this tank do now --------------------------------------------------------------------


def options_for(state: TableState, tank_id: str) -> list[Option]:
    """What ``tank_id`` may do now, each refusal with its code and clause. Changes nothing.

    Move lists every hex it may end in (cheapest cost, whether the road bonus is needed);
    fire lists every enemy it may fire at, the column and chance alone, and the friends
    that could join the attack.
    """
    tank = get_tank(state, tank_id)

    def move_check() -> dict[str, Any]:
        rules.check_may_move(state, tank)
        reach = rules.reachable_for(state, tank)
        return {
            "from": list(tank.start_hex),
            "move": reach.budget,
            "road_bonus": reach.bonus if reach.road is not None else 0,
            "hexes": reach.ends(state, tank),
        }

    def fire_check() -> dict[str, Any]:
        rules.check_may_fire(state, tank)
        targets = []
        first: RulesError | None = None
        for other in sorted(state.tanks.values(), key=lambda t: t.id):
            if other.player == tank.player or not other.in_play:
                continue
            try:
                line = rules.check_target(state, tank, other)
            except RulesError as err:
                first = first or err
                continue
            defense, _ = rules.defense_of(state, other)
            column = rules.odds_column(tank.design.attack, defense)
            p = rules.p_destroyed(column) if column else None
            targets.append(
                {
                    "target_id": other.id,
                    "distance": line.distance,
                    "attack": tank.design.attack,
                    "defense": defense,
                    "column": column,
                    "p_destroyed": None if p is None else float(p),
                    "exact": None if p is None else f"{p.numerator}/{p.denominator}",
                    "partners": rules.partners(state, tank, other),
                }
            )
        if not targets:
            raise first or RulesError(
                "NO_TARGETS", "MTC-LOS1", f"{label(tank)} has no enemy in range and sight"
            )
        return {"targets": targets}

    def end_check() -> None:
        rules.check_playing(state)
        if tank.player != state.active_player:
            raise RulesError(
                "NOT_YOUR_PHASE",
                "MTC-INI1",
                f"it is {state.active_player}'s {state.step} phase",
            )

    return [option("move", move_check), option("fire", fire_check), option("end_phase", end_check)]
