"""Properties over many seeded positions: ``options_for`` agrees with ``adjudicate``, a
refusal changes nothing, the state round-trips through JSON, and 200 self-play games end
without an exception."""

from __future__ import annotations

import random

import pytest

from tankref.core.errors import RulesError
from tankref.core.hexgrid import Hex, neighbours
from tankref.core.results import Result
from tankref.rulesets.mtc.actions import Action, Fire, Move
from tankref.rulesets.mtc.engine import adjudicate, options_for
from tankref.rulesets.mtc.selfplay import GameRecord, play_game
from tankref.rulesets.mtc.state import TableState


def _positions(seeds: range) -> list[TableState]:
    """Every state the self-play games passed through (a few per game, seeded)."""
    out: list[TableState] = []
    rng = random.Random(1)

    def keep(state: TableState, action: Action, result: Result) -> None:
        if rng.random() < 0.25:
            out.append(state)

    for seed in seeds:
        play_game(seed, on_step=keep)
    return out


@pytest.fixture(scope="module")
def positions() -> list[TableState]:
    return _positions(range(20))


def _accepted(state: TableState, action: Action) -> RulesError | None:
    before = state.to_json()
    try:
        adjudicate(state, action)
    except RulesError as err:
        assert state.to_json() == before, "a refusal changed the state"
        return err
    assert state.to_json() == before, "adjudicate changed its input"
    return None


def test_move_options_agree_with_adjudication(positions: list[TableState]) -> None:
    """Every hex the move option lists is accepted at the listed cost; every other hex
    within MOVE + bonus + 1 is refused (MTC-MV1, MTC-MV2); a refused move option means
    every move is refused with the same code."""
    checked = 0
    rng = random.Random(5)
    moving = [s for s in positions if s.status == "playing" and s.step == "movement"]
    for state in moving[:30] + positions[:10]:
        for tank in state.tanks.values():
            option = options_for(state, tank.id)[0]
            if not option.allowed:
                err = _accepted(state, Move(tank_id=tank.id, hex=tank.hex))
                assert err is not None and err.code == option.code
                continue
            assert option.detail is not None
            listed = {Hex(*e["hex"]): e["cost"] for e in option.detail["hexes"]}
            ring = {tank.start_hex}
            for _ in range(tank.design.move + tank.design.move // 2 + 1):
                ring |= {n for h in ring for n in neighbours(h)}
            for h in listed:
                outcome = adjudicate(state, Move(tank_id=tank.id, hex=(h.q, h.r)))
                assert outcome.result.outcome["cost"] == listed[h]
                checked += 1
            others = sorted(ring - set(listed))
            for h in rng.sample(others, min(25, len(others))):
                err = _accepted(state, Move(tank_id=tank.id, hex=(h.q, h.r)))
                assert err is not None, (tank.id, h)
                checked += 1
    assert checked > 1000


def test_fire_options_agree_with_adjudication(positions: list[TableState]) -> None:
    """Every listed target is accepted alone where a column is given (refused ODDS_TOO_LOW
    where not) and with all its partners; every enemy not listed is refused (MTC-LOS1,
    MTC-CB1)."""
    fired = 0
    for state in positions:
        for tank in state.tanks.values():
            option = options_for(state, tank.id)[1]
            enemies = [t.id for t in state.tanks.values() if t.player != tank.player]
            if not option.allowed:
                for enemy in enemies:
                    assert _accepted(state, Fire(tank_ids=(tank.id,), target_id=enemy))
                continue
            assert option.detail is not None
            targets = {t["target_id"]: t for t in option.detail["targets"]}
            for enemy in enemies:
                alone = _accepted(state, Fire(tank_ids=(tank.id,), target_id=enemy))
                if enemy not in targets:
                    assert alone is not None
                elif targets[enemy]["column"] is None:
                    assert alone is not None and alone.code == "ODDS_TOO_LOW"
                else:
                    assert alone is None
                    fired += 1
                if enemy in targets and targets[enemy]["partners"]:
                    group = (tank.id, *targets[enemy]["partners"])
                    err = _accepted(state, Fire(tank_ids=group, target_id=enemy))
                    assert err is None or err.code == "ODDS_TOO_LOW"
    assert fired > 10


def test_state_round_trips_through_json(positions: list[TableState]) -> None:
    for state in positions:
        assert TableState.from_json(state.to_json()) == state


@pytest.fixture(scope="module")
def records() -> list[GameRecord]:
    return [play_game(seed) for seed in range(200)]


def test_two_hundred_self_play_games_end_without_an_exception(records: list[GameRecord]) -> None:
    """Each of 200 seeded games is played to its end (a side destroyed, or the turn limit)
    with every action chosen from ``options_for``; none is refused or raises."""
    assert len(records) == 200
    assert all(r.reason for r in records)
    assert {r.winner for r in records} >= {"Red", "Blue", None}
    assert sum(r.fires for r in records) > 200 and sum(r.destroyed for r in records) > 50
