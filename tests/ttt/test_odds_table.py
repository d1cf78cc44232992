"""Issue 18: a whole table's odds (``odds_for_shooter`` for every tank, as the page and the
odds-table bench ask for them) equal the odds of each pair asked for alone
(``odds_against``), on tables as self-play leaves them (tanks that have engaged, moved, are
Shaken, Routed, Stunned or Immobilized, decks drawn down and reshuffled, every option set
``selfplay.random_table`` picks) and the same tables with jammed turrets. The same answers
(exact fractions, ranking, notes), and a shooter that may not fire is refused with the
first pair's error and clause."""

from __future__ import annotations

from fractions import Fraction

import pytest

from tankref.core.errors import RulesError
from tankref.core.results import Result
from tankref.rulesets.ttt.actions import Action
from tankref.rulesets.ttt.odds import ShotOdds, clear_caches, odds_against, odds_for_shooter
from tankref.rulesets.ttt.selfplay import play_game
from tankref.rulesets.ttt.state import TableState

SEEDS = range(10)
EVERY = 3  # a state every this many accepted actions of each game


def _states(seed: int) -> list[TableState]:
    seen: list[TableState] = []

    def keep(state: TableState, action: Action, result: Result) -> None:
        if state.status == "playing" and len(seen) < 400:
            seen.append(state)

    play_game(seed, on_step=keep)
    out = []
    for state in seen[::EVERY]:
        # Also the same table with every other tank's turret jammed (TTT-E7: a front arc to
        # fire in), which self-play's few penetrations seldom leave.
        tanks = {
            tank_id: tank.model_copy(update={"turret_jammed": k % 2 == 0})
            for k, (tank_id, tank) in enumerate(sorted(state.tanks.items()))
        }
        out += [state, state.model_copy(update={"tanks": tanks})]
    return out


def _pairs(state: TableState, shooter_id: str) -> list[ShotOdds] | RulesError:
    """Each enemy on the table asked for alone, by id: the answers of those it may engage,
    ranked as the odds rank them, or the first pair's refusal when the shooter itself may
    not fire (a refusal about one target alone leaves that target out)."""
    shooter = state.tanks[shooter_id]
    answers: list[ShotOdds] = []
    enemies = sorted(
        (t for t in state.tanks.values() if t.player != shooter.player and t.on_board),
        key=lambda t: t.id,
    )
    for k, target in enumerate(enemies):
        try:
            answers.append(odds_against(state, shooter_id, target.id))
        except RulesError as err:
            if err.code in ("NO_LINE_OF_SIGHT", "TURRET_JAMMED"):
                continue
            assert k == 0, (shooter_id, target.id, err.code)  # a shooter's refusal comes first
            return err
    answers.sort(key=lambda o: (-Fraction(o.exact["p_destroyed"]), o.target))
    return answers


@pytest.mark.parametrize("seed", SEEDS)
def test_a_whole_tables_odds_equal_each_pair_asked_alone_TTT_E1_TTT_E4_TTT_E7_TTT_MO2(
    seed: int,
) -> None:
    """TTT-E1..E7, TTT-MO1..3: on self-play states, for every tank (the phasing side's and
    the other's), ``odds_for_shooter`` from a cold cache and again warm gives the answers
    ``odds_against`` gives each pair alone (every field, as JSON and as models), or raises
    the same refusal (code, clause, message) as the first pair."""
    states = _states(seed)
    assert len(states) >= 8, seed
    compared = refused = 0
    for state in states:
        for shooter_id in sorted(state.tanks):
            if not state.tanks[shooter_id].on_board:
                continue
            expected = _pairs(state, shooter_id)
            for cold in (True, False):
                if cold:
                    clear_caches()
                try:
                    whole = odds_for_shooter(state, shooter_id)
                except RulesError as err:
                    assert isinstance(expected, RulesError), (seed, shooter_id, err.code)
                    assert (err.code, err.clause, err.message) == (
                        expected.code,
                        expected.clause,
                        expected.message,
                    )
                    refused += 1
                    continue
                assert not isinstance(expected, RulesError), (seed, shooter_id, expected.code)
                assert [o.model_dump_json() for o in whole] == [
                    o.model_dump_json() for o in expected
                ], (seed, shooter_id)
                assert whole == expected
                compared += len(whole)
    # The states hold both kinds: shots to compare, and shooters refused as a whole.
    assert compared > 0 and refused > 0, (seed, compared, refused)
