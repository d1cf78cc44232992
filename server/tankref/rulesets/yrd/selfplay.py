"""Seeded random self-play of the tank yard: a fuzzer for the referee.

``random_table(seed)`` builds a started match (random rulings, defence values, tanks on
random spaces, pieces on artillery spaces) and ``play_game(seed)`` lets two scripted parties
play it to the turn limit. The parties choose only among what ``options_for`` allows, so
any refusal of a chosen action is a disagreement between ``options_for`` and ``adjudicate``
and raises ``SelfPlayError``. Between actions the wider game moves pieces on and off the
artillery spaces at random.

Everything is reproducible: the bots' choices come from ``random.Random(seed)``, the dice
are the server's, seeded with ``selfplay-{seed}``. Pure engine code: no I/O.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from tankref.core.dice import DiceState
from tankref.core.errors import RulesError
from tankref.core.options import Option
from tankref.core.results import Result
from tankref.rulesets.yrd.actions import (
    Action,
    AntiTank,
    Attack,
    EndTurn,
    Move,
    PlacePiece,
    PlaceTank,
    StartGame,
)
from tankref.rulesets.yrd.cards import default_cards
from tankref.rulesets.yrd.engine import adjudicate, new_table, options_for
from tankref.rulesets.yrd.state import TANK_SPACES, Options, Party, TableState

__all__ = ["GameRecord", "SelfPlayError", "StepHook", "play_game", "random_table"]

StepHook = Callable[[TableState, Action, Result], None]
_WEIGHTS = {"move": 2.0, "attack": 5.0, "anti_tank": 5.0, "end_turn": 1.0}
MAX_ACTIONS = 2_000


class SelfPlayError(RuntimeError):
    """The referee refused an action that ``options_for`` allowed (or a game did not end)."""

    def __init__(self, seed: int, message: str) -> None:
        super().__init__(f"self-play seed {seed}: {message}")
        self.seed = seed


@dataclass
class GameRecord:
    seed: int
    final: TableState
    actions: int = 0
    verdicts: Counter[str] = field(default_factory=Counter)


def _jitter(rng: random.Random, x: float, z: float, radius: float) -> tuple[float, float]:
    """A drop somewhere inside a space's snap circle (TTS never lands dead centre)."""
    r = radius * 0.6
    return round(x + rng.uniform(-r, r) / 1.5, 3), round(z + rng.uniform(-r, r) / 1.5, 3)


def random_options(rng: random.Random) -> Options:
    return Options(
        contest_die=rng.choice(["d20", "d20", "d20", "d12", "d10", "d6"]),
        tie=rng.choice(["defender", "defender", "offender", "reroll"]),
        criticals=rng.choice(["natural", "natural", "off"]),
        grazing_margin=rng.choice([0, 1, 2, 2, 3]),
        grazing_rounding=rng.choice(["down", "up"]),
        advantage=rng.choice(["roll_twice", "roll_twice", "bonus", "off"]),
        advantage_bonus=rng.randint(1, 6),
        shield=rng.choice(["refuse", "refuse", "auto_fail"]),
        turn_limit=rng.randint(3, 12),
    )


def random_table(seed: int, step: StepHook | None = None) -> TableState:
    """A started match, built through the referee itself (placements are actions too)."""
    rng = random.Random(seed)
    parties = (
        Party(id="Red", defence=rng.randint(0, 4)),
        Party(id="Blue", defence=rng.randint(0, 4)),
    )
    state = new_table(
        parties,
        options=random_options(rng),
        first_player=rng.choice(["Red", "Blue"]),
        dice=DiceState(seed=f"selfplay-{seed}"),
    )
    radius = state.options.snap_radius
    setup: list[Action] = []
    for party in parties:
        spot = state.yard(party.id).tank_spot(rng.choice(TANK_SPACES))
        x, z = _jitter(rng, spot.x, spot.z, radius)
        setup.append(
            PlaceTank(tank_id=f"{party.id[0]}T", card="yard-tank", player=party.id, x=x, z=z)
        )
    setup.extend(_piece_drop(rng, state, f"P{n}") for n in range(rng.randint(2, 6)))
    setup.append(StartGame())
    for action in setup:
        state = _apply(seed, state, action, step)
    return state


def _piece_drop(rng: random.Random, state: TableState, piece_id: str) -> PlacePiece:
    cards = sorted(default_cards().pieces)
    old = state.pieces.get(piece_id)
    player = old.player if old else rng.choice(state.order)
    card = old.card.id if old else rng.choice(cards)
    if rng.random() < 0.8:
        owner = rng.choice(state.order)
        spot = rng.choice(state.yard(owner).artillery)
        x, z = _jitter(rng, spot.x, spot.z, state.options.snap_radius)
    else:  # somewhere off the artillery spaces
        x, z = round(rng.uniform(-30, 30), 3), round(rng.uniform(-2, 2), 3)
    return PlacePiece(piece_id=piece_id, card=card, player=player, x=x, z=z)


def _apply(seed: int, state: TableState, action: Action, step: StepHook | None) -> TableState:
    try:
        out = adjudicate(state, action)
    except RulesError as err:
        raise SelfPlayError(seed, f"{action!r} refused: {err.code} {err.message}") from err
    if step is not None:
        step(out.state, action, out.result)
    return out.state


def _choose(rng: random.Random, state: TableState, options: list[Option]) -> Action:
    allowed = [o for o in options if o.allowed]
    weights = [_WEIGHTS[o.kind] for o in allowed]
    pick = rng.choices(allowed, weights)[0]
    tank = state.tanks[
        next(iter(t.id for t in state.tanks.values() if t.player == state.active_player))
    ]
    detail = pick.detail or {}
    if pick.kind == "move":
        dest = rng.choice(detail["spaces"])
        if rng.random() < 0.5:
            return Move(tank_id=tank.id, space=dest["space"])
        x, z = _jitter(rng, dest["x"], dest["z"], state.options.snap_radius)
        return Move(tank_id=tank.id, x=x, z=z, facing=tank.facing)
    if pick.kind == "attack":
        return Attack(tank_id=tank.id, target_id=rng.choice(detail["targets"])["target_id"])
    if pick.kind == "anti_tank":
        return AntiTank(tank_id=tank.id, target_id=rng.choice(detail["targets"])["target_id"])
    return EndTurn(player=state.active_player if rng.random() < 0.5 else None)


def play_game(seed: int, on_step: StepHook | None = None) -> GameRecord:
    """One seeded match from setup to its turn limit."""
    rng = random.Random(seed ^ 0x5EED)
    record = GameRecord(seed=seed, final=random_table(seed, on_step))
    state = record.final
    while state.status == "playing":
        if record.actions >= MAX_ACTIONS:
            raise SelfPlayError(seed, f"no end after {MAX_ACTIONS} actions")
        if rng.random() < 0.15:  # the wider game moves a piece
            piece_id = f"P{rng.randint(0, 6)}"
            state = _apply(seed, state, _piece_drop(rng, state, piece_id), on_step)
        tank = state.tank_of(state.active_player)
        assert tank is not None
        action = _choose(rng, state, options_for(state, tank.id, odds=False))
        try:
            out = adjudicate(state, action)
        except RulesError as err:
            raise SelfPlayError(seed, f"allowed {action!r} refused: {err.code}") from err
        if on_step is not None:
            on_step(out.state, action, out.result)
        verdict = out.result.outcome.get("verdict")
        if verdict is not None:
            record.verdicts[str(verdict)] += 1
        state = out.state
        record.actions += 1
    record.final = state
    return record
