"""Seeded random self-play of AFV: a fuzzer for the referee.

``random_table(seed)`` builds a started game (units from the shipped roster, terrain) and
``play_game(seed)`` lets two scripted sides play it to the end. The sides choose only among
what ``options_for`` allows, so any refusal of a chosen action is a disagreement between
``options_for`` and ``adjudicate`` and raises ``SelfPlayError``. The one exception is where a
move ends: the bot picks a random point within the rate the option gives, and a move still
refused (slowing terrain on the way, AFV-MV3) is counted in the ``GameRecord``, not raised.

Reproducible: the table and the bots' choices come from ``random.Random(seed)``; the dice
are the server's, seeded with ``afv-selfplay-{seed}``. Pure engine code: no I/O.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field

from tankref.core.dice import DiceState
from tankref.core.errors import RulesError
from tankref.core.geometry import Circle
from tankref.core.options import Option
from tankref.core.results import Result
from tankref.rulesets.afv.actions import (
    Action,
    Disembark,
    Embark,
    EndPhase,
    Evade,
    Fire,
    Move,
    PlaceTank,
    PlaceTerrain,
    Spot,
    StartGame,
)
from tankref.rulesets.afv.cards import default_cards
from tankref.rulesets.afv.engine import adjudicate, new_table, options_for
from tankref.rulesets.afv.state import AfvOptions, TableState, TerrainPiece

__all__ = ["GameRecord", "SelfPlayError", "StepHook", "play_game", "random_table"]

_KINDS = ("hill", "woods", "cover", "rough", "mud", "soft")


class SelfPlayError(AssertionError):
    """``options_for`` allowed an action that ``adjudicate`` refused."""


@dataclass
class GameRecord:
    seed: int
    final: TableState
    steps: int = 0
    fired: int = 0
    refused_moves: int = 0
    kinds: dict[str, int] = field(default_factory=dict)

    @property
    def winner(self) -> str | None:
        return self.final.winner

    @property
    def reason(self) -> str | None:
        return self.final.game_over_reason


def _apply(state: TableState, action: Action) -> TableState:
    return adjudicate(state, action).state


def random_table(seed: int, *, turn_limit: int | None = None) -> TableState:
    """A started game: 2-5 units a side from the roster, up to five terrain pieces."""
    rng = random.Random(seed)
    limit = turn_limit or rng.choice((4, 6, 8))
    state = new_table(
        options=AfvOptions(
            turn_limit=limit, stopped_or_no_weapon=rng.choice(("stopped", "no_weapon"))
        ),
        dice=DiceState(source="server", seed=f"afv-selfplay-{seed}"),
    )
    for n in range(rng.randint(0, 5)):
        piece = TerrainPiece(
            id=f"t{n}",
            kind=rng.choice(_KINDS),
            shape=Circle(x=rng.uniform(-30, 30), z=rng.uniform(-10, 10), radius=rng.uniform(2, 6)),
        )
        state = _apply(state, PlaceTerrain(piece=piece))
    roster = sorted(default_cards().units)
    for player, z_range, facing in (("Red", (-14.0, -3.0), 0.0), ("Blue", (3.0, 14.0), 180.0)):
        for n in range(rng.randint(2, 5)):
            state = _apply(
                state,
                PlaceTank(
                    tank_id=f"{player[0]}{n + 1}",
                    card=rng.choice(roster),
                    player=player,
                    x=rng.uniform(-34, 34),
                    z=rng.uniform(*z_range),
                    facing=facing,
                ),
            )
    return _apply(state, StartGame())


def _allowed(options: list[Option]) -> dict[str, Option]:
    return {o.kind: o for o in options if o.allowed}


StepHook = Callable[[TableState, Action, Result], None]


def play_game(
    seed: int,
    *,
    turn_limit: int | None = None,
    max_steps: int = 5000,
    on_step: StepHook | None = None,
) -> GameRecord:
    """Play a seeded game to its end; raise ``SelfPlayError`` on any disagreement.
    ``on_step(state, action, result)`` is called after every accepted action with the new
    state (for property tests and ``tankref selfplay --verbose``)."""
    rng = random.Random(seed * 7919 + 1)
    state = random_table(seed, turn_limit=turn_limit)
    record = GameRecord(seed=seed, final=state)

    def act(action: Action, *, may_refuse: bool = False) -> bool:
        nonlocal state
        try:
            outcome = adjudicate(state, action)
        except RulesError as err:
            if may_refuse:
                record.refused_moves += 1
                return False
            raise SelfPlayError(
                f"seed {seed}: {action!r} was allowed but refused: {err!r}"
            ) from err
        state = outcome.state
        record.steps += 1
        if on_step is not None:
            on_step(state, action, outcome.result)
        record.kinds[action.kind] = record.kinds.get(action.kind, 0) + 1
        if record.steps > max_steps:
            raise SelfPlayError(f"seed {seed}: no end after {max_steps} steps")
        return True

    while state.status == "playing":
        player = state.active_player
        for unit_id in sorted(state.units):
            if state.status != "playing":
                break
            if state.units[unit_id].player != player or not state.units[unit_id].in_play:
                continue
            allowed = _allowed(options_for(state, unit_id, odds=False))
            if "disembark" in allowed and rng.random() < 0.5:
                carrier = state.units[str(allowed["disembark"].detail["carrier_id"])]  # type: ignore[index]
                reach = state.units[unit_id].card.move_cm / 2.54 * 0.95
                heading = rng.uniform(0, 2 * math.pi)
                x = carrier.x + math.sin(heading) * rng.uniform(0, reach)
                z = carrier.z + math.cos(heading) * rng.uniform(0, reach)
                if state.area.contains((x, z)):
                    act(Disembark(tank_id=unit_id, x=x, z=z))
            elif "embark" in allowed and rng.random() < 0.3:
                carriers = allowed["embark"].detail["carriers"]  # type: ignore[index]
                act(Embark(tank_id=unit_id, carrier_id=rng.choice(carriers)))
                continue
            allowed = _allowed(options_for(state, unit_id, odds=False))
            if "evade" in allowed and rng.random() < 0.15:
                act(Evade(tank_id=unit_id))
                allowed = _allowed(options_for(state, unit_id, odds=False))
            if "move" in allowed and rng.random() < 0.75:
                detail = allowed["move"].detail or {}
                reach = float(detail["rate_cm"]) / 2.54 * 0.999
                away = detail.get("away_heading")
                sx, sz = detail["from"]
                foes = [u for u in state.units.values() if u.player != player and u.on_board]
                if away is not None:
                    heading = math.radians(float(away) + rng.uniform(-10, 10))
                elif foes and rng.random() < 0.6:  # close in: the fights that test the rules
                    foe = min(foes, key=lambda u: math.hypot(u.x - sx, u.z - sz))
                    heading = math.atan2(foe.x - sx, foe.z - sz) + rng.uniform(-0.5, 0.5)
                else:
                    heading = rng.uniform(0, 2 * math.pi)
                dist = rng.uniform(0, reach)
                x, z = sx + math.sin(heading) * dist, sz + math.cos(heading) * dist
                if state.area.contains((x, z)):
                    act(Move(tank_id=unit_id, x=x, z=z, facing=math.degrees(heading)),
                        may_refuse=True)  # fmt: skip
            if "spot" in allowed and rng.random() < 0.3:
                allowed = _allowed(options_for(state, unit_id, odds=False))
                if "spot" in allowed:
                    targets = allowed["spot"].detail["targets"]  # type: ignore[index]
                    act(Spot(tank_id=unit_id, target_id=rng.choice(targets)["target_id"]))
            for _ in range(len(state.units[unit_id].card.weapon)):
                if state.status != "playing":
                    break
                allowed = _allowed(options_for(state, unit_id, odds=False))
                if "fire" not in allowed or rng.random() < 0.1:
                    break
                weapon = rng.choice(allowed["fire"].detail["weapons"])  # type: ignore[index]
                target = rng.choice(weapon["targets"])
                act(Fire(tank_id=unit_id, target_id=target["target_id"], weapon=weapon["weapon"]))
                record.fired += 1
        if state.status == "playing":
            act(EndPhase(player=player))
    record.final = state
    return record
