"""Seeded random self-play of Minimal Tank Combat: a fuzzer for the referee.

``random_table(seed)`` builds a started game (a small hex map with random terrain and
roads, a random table design beside the shipped ones, two to four tanks a side) and
``play_game(seed)`` lets two scripted sides play it to the end. The sides choose only among
what ``options_for`` offers (a hex from the move list, a target and partners from the fire
list), so any refusal of a chosen action is a disagreement between ``options_for`` and
``adjudicate`` and raises ``SelfPlayError``.

Everything is reproducible: the table and the bots' choices come from ``random.Random``
seeded with the game seed; the dice are the server's, seeded with ``selfplay-mtc-{seed}``.
Pure engine code: no I/O.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from tankref.core.dice import DiceState
from tankref.core.errors import RulesError
from tankref.core.geometry import TableArea
from tankref.core.hexgrid import Hex, HexGrid
from tankref.core.results import Result
from tankref.rulesets.mtc import rules
from tankref.rulesets.mtc.actions import Action, EndPhase, Fire, Move, PlaceTank, StartGame
from tankref.rulesets.mtc.cards import ELEMENT_MAX, ELEMENT_MIN, Design
from tankref.rulesets.mtc.engine import adjudicate, new_table, options_for
from tankref.rulesets.mtc.state import HexTerrain, Options, TableState, TerrainKind

__all__ = ["GameRecord", "SelfPlayError", "StepHook", "play_game", "random_table"]

TURN_LIMIT = 8
PLAYERS = ("Red", "Blue")
StepHook = Callable[[TableState, Action, Result], None]


class SelfPlayError(RuntimeError):
    """The referee refused an action that ``options_for`` allowed (or a game did not end)."""

    def __init__(self, seed: int, message: str) -> None:
        super().__init__(f"mtc self-play seed {seed}: {message}")
        self.seed = seed


@dataclass(frozen=True)
class GameRecord:
    seed: int
    turns: int
    actions: int
    fires: int
    destroyed: int
    winner: str | None
    reason: str
    final: TableState


def _random_design(rng: random.Random) -> Design:
    """A legal design of 4 to 15 BP (MTC-BP1)."""
    values = [ELEMENT_MIN] * 4
    for _ in range(rng.randint(0, 11)):
        i = rng.randrange(4)
        if values[i] < ELEMENT_MAX:
            values[i] += 1
    attack, defense, range_, move = values
    return Design(
        id="custom", name="Custom", attack=attack, defense=defense, range=range_, move=move
    )


def random_table(seed: int) -> TableState:
    rng = random.Random(seed)
    grid = HexGrid(hex_width=rng.choice([1.5, 2.0]), orientation=rng.choice(["pointy", "flat"]))
    area = TableArea(x_min=-12, x_max=12, z_min=-10, z_max=10)
    hexes = list(grid.hexes_in(area.x_min, area.x_max, area.z_min, area.z_max))
    terrain: dict[Hex, TerrainKind] = {}
    kinds: tuple[TerrainKind, ...] = ("rubble", "crater", "town")
    for h in hexes:
        if rng.random() < 0.18:
            terrain[h] = rng.choice(kinds)
    # A road straight across the map, along one of the hex directions.
    start = rng.choice(hexes)
    dq, dr = rng.choice([(1, 0), (0, 1), (1, -1)])
    for i in range(-20, 21):
        h = Hex(start.q + i * dq, start.r + i * dr)
        terrain[h] = "road"
    state = new_table(
        PLAYERS,
        grid=grid,
        area=area,
        terrain=[
            HexTerrain(q=h.q, r=h.r, kind=k)
            for h, k in terrain.items()
            if area.contains(grid.center(h))
        ],
        designs=[_random_design(rng)],
        options=Options(turn_limit=TURN_LIMIT),
        dice=DiceState(seed=f"selfplay-mtc-{seed}"),
    )
    design_ids = sorted(state.designs)
    ordered = sorted(hexes, key=lambda h: grid.center(h)[1])
    third = max(1, len(ordered) // 3)
    zones = {"Red": ordered[:third], "Blue": ordered[-third:]}
    for player in PLAYERS:
        for n in range(rng.randint(2, 4)):
            spots = [
                h
                for h in zones[player]
                if rules.MOVE_COST[state.terrain_at(h)] is not None and state.tank_at(h) is None
            ]
            if not spots:
                break
            h = rng.choice(spots)
            x, z = grid.center(h)
            action = PlaceTank(
                tank_id=f"{player[0]}{n + 1}",
                design=rng.choice(design_ids),
                player=player,
                x=x,
                z=z,
            )
            state = adjudicate(state, action).state
    return adjudicate(state, StartGame()).state


def play_game(seed: int, on_step: StepHook | None = None) -> GameRecord:
    """Play one seeded game to its end; raise ``SelfPlayError`` on any disagreement."""
    rng = random.Random(seed * 7919 + 1)
    state = random_table(seed)
    actions = fires = destroyed = 0

    def act(action: Action) -> None:
        nonlocal state, actions
        try:
            outcome = adjudicate(state, action)
        except RulesError as err:
            raise SelfPlayError(seed, f"{action!r} refused: {err.code}: {err.message}") from err
        if on_step is not None:
            on_step(state, action, outcome.result)
        state = outcome.state
        actions += 1

    while state.status == "playing":
        if actions > 2000:
            raise SelfPlayError(seed, "the game did not end")
        active = state.active_player
        mine = [t.id for t in state.tanks.values() if t.player == active and t.in_play]
        rng.shuffle(mine)
        if state.step == "movement":
            for tank_id in mine:
                option = options_for(state, tank_id)[0]
                if not option.allowed or option.detail is None or rng.random() < 0.15:
                    continue
                end = rng.choice(option.detail["hexes"])
                h = Hex(*end["hex"])
                if rng.random() < 0.5:
                    x, z = state.grid.center(h)
                    jitter = state.grid.hex_width * 0.3
                    x += rng.uniform(-jitter, jitter)
                    z += rng.uniform(-jitter, jitter)
                    act(Move(tank_id=tank_id, x=x, z=z, facing=rng.uniform(0, 360)))
                else:
                    act(Move(tank_id=tank_id, hex=(h.q, h.r)))
        else:
            for tank_id in mine:
                if state.status != "playing" or state.tanks[tank_id].fired:
                    continue
                option = options_for(state, tank_id)[1]
                if not option.allowed or option.detail is None:
                    continue
                target = rng.choice(option.detail["targets"])
                group = [tank_id] + [p for p in target["partners"] if rng.random() < 0.6]
                attack = sum(state.tanks[t].design.attack for t in group)
                if rules.odds_column(attack, target["defense"]) is None:
                    continue
                before = state.tanks[target["target_id"]].destroyed
                act(Fire(tank_ids=tuple(group), target_id=target["target_id"]))
                fires += 1
                destroyed += int(state.tanks[target["target_id"]].destroyed and not before)
        if state.status == "playing":
            act(EndPhase(player=active))
    return GameRecord(
        seed=seed,
        turns=state.turn,
        actions=actions,
        fires=fires,
        destroyed=destroyed,
        winner=state.winner,
        reason=state.game_over_reason or "",
        final=state,
    )
