"""Invariants of the TinyTableTopTanks referee, checked with hypothesis over random
self-play games (``tankref.rulesets.ttt.selfplay``) and random actions.

The games use the server's dice, seeded per game; the profile in tests/conftest.py bounds
the number of examples.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from hypothesis import given, settings
from hypothesis import strategies as st

from tankref.core.dice import SuppliedDice
from tankref.core.errors import RulesError
from tankref.core.geometry import Circle, Polygon
from tankref.core.results import Result
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
from tankref.rulesets.ttt.cards import default_cards
from tankref.rulesets.ttt.engine import adjudicate, new_table
from tankref.rulesets.ttt.selfplay import play_game, random_table
from tankref.rulesets.ttt.sight import smoke_on_line
from tankref.rulesets.ttt.state import Scenario, TableState, TerrainPiece


@dataclass(frozen=True)
class Step:
    before: TableState
    action: Action
    result: Result
    after: TableState


@lru_cache(maxsize=256)
def game(seed: int) -> tuple[Step, ...]:
    """Every accepted action of the self-play game ``seed``, with the states around it."""
    steps: list[Step] = []
    current = [random_table(seed)]

    def record(state: TableState, action: Action, result: Result) -> None:
        steps.append(Step(current[0], action, result, state))
        current[0] = state

    play_game(seed, on_step=record)
    return tuple(steps)


GAME_SEEDS = st.integers(min_value=0, max_value=2**31 - 1)


# --- 1. a refused action changes nothing ------------------------------------------------------


def _setup_states() -> list[TableState]:
    """Two tables still in setup, so the setup actions' refusals are exercised too."""
    red = PlaceTank(tank_id="R1", card="tiger-i", player="Red", z=-22)
    meeting = adjudicate(new_table(), red).state
    objective = new_table(scenario=Scenario(kind="objective", defender="Blue"))
    objective = adjudicate(objective, SetObjective(x=0, z=0)).state
    return [meeting, objective]


@lru_cache(maxsize=1)
def _pool() -> tuple[TableState, ...]:
    states: list[TableState] = _setup_states()
    for seed in range(6):
        steps = game(seed)
        states.append(steps[0].before)
        states.extend(s.after for s in steps)
    return tuple(states)


CARDS = sorted(default_cards().tanks)
SMOKE_NAMES = sorted({a.name for c in default_cards().tanks.values() for a in c.smoke})
DECK = [c.name for c in default_cards().rules.deck]

ids = st.sampled_from(["R1", "R2", "R3", "R5", "B1", "B2", "B4", "X9"]) | st.text(
    min_size=1, max_size=6
)
players = st.sampled_from(["Red", "Blue"]) | st.text(min_size=1, max_size=6)
coords = st.floats(-40, 40, allow_nan=False) | st.floats(-10_000, 10_000, allow_nan=False)
facings = st.floats(-3600, 3600, allow_nan=False)
maybe_coord = st.none() | coords
shapes = st.sampled_from(
    [
        Circle(x=0, z=0, radius=5),
        Circle(x=-30, z=20, radius=2),
        Polygon(points=((-5, -5), (5, -5), (0, 8))),
    ]
)
terrain = st.builds(
    TerrainPiece,
    id=st.sampled_from(["T1", "T2", "new"]),
    kind=st.sampled_from(["blocking", "forest", "cover1", "cover2", "hill"]),
    shape=shapes,
)

ACTIONS: st.SearchStrategy[Action] = st.one_of(
    st.builds(
        Move,
        tank_id=ids,
        x=coords,
        z=coords,
        facing=facings,
        hull_down=st.none() | st.booleans(),
    ),
    st.builds(
        Engage,
        tank_id=ids,
        target_id=ids,
        grizzled_reroll=st.sampled_from([None, "accuracy", "penetration", "none"]),
    ),
    st.builds(Wait, tank_id=ids),
    st.builds(Recover, tank_id=ids, lender_id=st.none() | ids),
    st.builds(
        Smoke,
        tank_id=ids,
        ability=st.sampled_from(SMOKE_NAMES) | st.text(min_size=1, max_size=8),
        x=maybe_coord,
        z=maybe_coord,
    ),
    st.builds(EndPhase, player=st.none() | players),
    st.builds(
        PlaceTank,
        tank_id=ids,
        card=st.sampled_from(CARDS) | st.text(min_size=1, max_size=8),
        player=players,
        x=coords,
        z=coords,
        facing=facings,
        reserve=st.booleans(),
    ),
    st.builds(RemoveTank, tank_id=ids),
    st.builds(PlaceTerrain, piece=terrain),
    st.builds(SetObjective, x=coords, z=coords),
    st.builds(CrewRoll, tank_id=st.none() | ids),
    st.just(StartGame()),
)

DICE: st.SearchStrategy[SuppliedDice | None] = st.none() | st.builds(
    SuppliedDice,
    faces=st.dictionaries(
        st.sampled_from(["white", "red", "green", "blue"]),
        st.lists(st.integers(-1, 8), max_size=6),
        max_size=3,
    ),
    damage_card=st.none() | st.sampled_from([*DECK, "Ace of Spades"]),
)


@settings(deadline=None)  # a first example may build games: no per-example deadline
@given(pick=st.integers(0, 10**6), action=ACTIONS, dice=DICE)
def test_refused_action_leaves_state_unchanged(
    pick: int, action: Action, dice: SuppliedDice | None
) -> None:
    """A refused action (RulesError) leaves the table exactly as it was; no other exception
    ever escapes adjudicate; and even an accepted action does not touch its input."""
    pool = _pool()
    state = pool[pick % len(pool)]
    before = state.to_json()
    try:
        adj = adjudicate(state, action, dice)
    except RulesError as err:
        assert err.code
        assert state.to_json() == before
        return
    assert state.to_json() == before
    text = adj.state.to_json()
    assert TableState.from_json(text).to_json() == text


# --- 2. smoke only weakens (TTT-SM4) ----------------------------------------------------------


@settings(deadline=None)  # a first example may build games: no per-example deadline
@given(
    seed=GAME_SEEDS,
    a=st.tuples(st.floats(-36, 36), st.floats(-24, 24)),
    b=st.tuples(st.floats(-36, 36), st.floats(-24, 24)),
)
def test_smoke_only_weakens(seed: int, a: tuple[float, float], b: tuple[float, float]) -> None:
    """TTT-SM4: no screen ever gets stronger; a screen thins by exactly 1 at the start of its
    owner's phase and is otherwise unchanged; without a new screen the smoke penalty on any
    line of fire never grows from one state to the next."""
    for step in game(seed):
        old = {s.id: s for s in step.before.smoke}
        new = {s.id: s for s in step.after.smoke}
        placed = set(new) - set(old)
        if placed:
            assert isinstance(step.action, Smoke), step.action
            assert len(placed) == 1
        after = step.after
        began = [e.data["player"] for e in step.result.events if e.kind == "phase_started"]
        assert len(began) <= 1
        if began:
            assert isinstance(step.action, EndPhase)
        for sid, screen in old.items():
            decays = began == [screen.owner]
            expected = screen.strength - 1 if decays else screen.strength
            if expected <= 0:
                assert sid not in new, (seed, step.action)
                continue
            assert sid in new, (seed, step.action)
            assert new[sid].strength == expected, (seed, step.action)
            assert new[sid].strength <= screen.strength
            assert (new[sid].x, new[sid].z, new[sid].owner) == (screen.x, screen.z, screen.owner)
        if not placed:
            stacking = after.options.smoke_stacking
            assert (
                smoke_on_line(after.smoke, a, b, stacking)[0]
                <= smoke_on_line(step.before.smoke, a, b, stacking)[0]
            )


# --- 3. Grizzled crews make no morale checks (TTT-MO1) ------------------------------------------


@settings(deadline=None)  # a first example may build games: no per-example deadline
@given(seed=GAME_SEEDS)
def test_grizzled_crew_never_gets_a_morale_result(seed: int) -> None:
    """TTT-MO1: over a random game no Grizzled crew is ever checked for morale: no
    morale_check event or green morale roll for it, and it is never Shaken or Routed."""
    for step in game(seed):
        grizzled = {t.id for t in step.after.tanks.values() if t.grizzled}
        for event in step.result.events:
            if event.kind in ("morale_check", "rout"):
                assert event.data["tank_id"] not in grizzled, (seed, event)
        for roll in step.result.rolls:
            if "morale check" in roll.purpose:
                assert not any(f"({tid})" in roll.purpose for tid in grizzled), roll
        for tank_id in grizzled:
            tank = step.after.tanks[tank_id]
            assert tank.morale == "ok" and not tank.must_recover, (seed, tank_id)


def test_the_games_reach_the_cases_the_properties_are_about() -> None:
    """TTT-MO1, TTT-SM4, TTT-E7, TTT-MR2: the random games do reach each case the properties
    here are about (a Grizzled crew meeting a morale trigger, smoke thinning and clearing,
    tanks destroyed and driven off), so none of them holds vacuously."""
    steps = [step for seed in range(40) for step in game(seed)]
    clauses = {note.clause for step in steps for note in step.result.rulings}
    events = {event.kind for step in steps for event in step.result.events}
    assert "TTT-MO1" in clauses
    assert {"smoke_decay", "smoke_gone", "morale_check", "rout_move", "damage"} <= events
    finals = [game(seed)[-1].after for seed in range(40)]
    assert any(t.destroyed for s in finals for t in s.tanks.values())
    assert any(t.removed for s in finals for t in s.tanks.values())


# --- 4. destroyed tanks never come back ---------------------------------------------------------


@settings(deadline=None)  # a first example may build games: no per-example deadline
@given(seed=GAME_SEEDS)
def test_destroyed_tanks_never_come_back(seed: int) -> None:
    """TTT-E7 / TTT-MR2: once destroyed (or driven off the table) a tank stays so, never on
    the board again, and nothing about it changes afterwards: it does not move, turn or act."""
    for step in game(seed):
        for tank_id, old in step.before.tanks.items():
            if not (old.destroyed or old.removed):
                continue
            new = step.after.tanks[tank_id]
            assert new.destroyed == old.destroyed and new.removed == old.removed
            assert not new.on_board
            assert new.destroyed_by == old.destroyed_by
            assert (new.x, new.z, new.facing) == (old.x, old.z, old.facing), (seed, tank_id)
            assert new == old, (seed, tank_id, step.action)  # frozen: nothing about it changes
            acted = step.result.action.get("tank_id")
            assert acted != tank_id, (seed, step.action)


# --- 5. the dice counter only grows -------------------------------------------------------------


@settings(deadline=None)  # a first example may build games: no per-example deadline
@given(seed=GAME_SEEDS)
def test_dice_counter_only_grows(seed: int) -> None:
    """Server dice: the generator's seed never changes and its counter never goes back; each
    roll of an action carries a counter from that action's own range, in order."""
    for step in game(seed):
        old, new = step.before.dice, step.after.dice
        assert new.seed == old.seed
        assert new.counter >= old.counter
        assert all(r.counter is not None for r in step.result.rolls)
        counters = [r.counter for r in step.result.rolls if r.counter is not None]
        assert counters == sorted(counters)
        assert len(set(counters)) == len(counters)
        assert all(old.counter <= c < new.counter for c in counters)
