"""The conformance suite: what every registered ruleset must satisfy, checked the same way
for each (after OpenSpiel's random-simulation test).

For each ruleset and a few seeds its own bots play a game (``Ruleset.self_play``); over the
positions that game passed through:

- options agree with adjudication: each action an allowed menu entry offers is accepted, and
  an action of a refused entry's kind is refused with the entry's code and clause;
- every refusal changes nothing: the state's JSON and its dice counter are as before;
- the state round-trips through JSON;
- self-play ends (status over) and is deterministic (same seed, same final state);
- replay from the log equals the live state (the real ``Timeline``: played live, logged with
  the result and state digests, replayed from the log);
- the odds agree with sampled adjudications (``odds`` figures against the frequency over N
  adjudications on fresh server dice, within a binomial tolerance).

All a ruleset gives for this goes through the ``Ruleset`` Protocol's conformance hooks.
"""

from __future__ import annotations

import functools
import math
from collections import Counter
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import pytest

import toyrules
from kit import adjudicated, get_ruleset, refused, ruleset_names
from tankref.core.errors import RulesError
from tankref.core.ruleset import OddsTrial, PlayRecord, Ruleset
from tankref.core.timeline import Timeline, result_digest, state_digest
from tankref.rulesets import registered

SEEDS = (0, 1, 2, 3)
EVERY = 4  # options are checked in every 4th position of a game (all tanks, all entries)
SAMPLES = 2000  # adjudications per odds figure
FIGURES = 3  # odds figures sampled per ruleset
SIGMAS = 4.0  # binomial tolerance (deterministic dice seeds: a pass stays a pass)


@dataclass(frozen=True)
class LoggedEvent:
    """One entry as the event log keeps it (what ``Timeline.replay`` reads)."""

    seq: int
    action: dict[str, Any]
    dice: dict[str, Any] | None
    result_sha256: str
    state_sha256: str | None


@dataclass(frozen=True)
class Played:
    record: PlayRecord
    positions: tuple[Any, ...]  # the start and the state after each action, in order
    log: tuple[LoggedEvent, ...]
    live: Any  # the live timeline's final state


@functools.cache
def played(name: str, seed: int) -> Played:
    """A seeded self-play game, played again live through the real ``Timeline`` as the referee
    would (each action adjudicated, committed and logged with its digests)."""
    rules = get_ruleset(name)
    record = rules.self_play(seed)
    timeline = Timeline(rules, record.start)
    positions = [record.start]
    log = []
    for seq, action in enumerate(record.actions, start=1):
        step = timeline.act(action)
        timeline.commit(step, seq)
        positions.append(step.state)
        log.append(
            LoggedEvent(
                seq,
                step.action,
                None,
                result_digest(step.result_json()),
                state_digest(rules, step.state),
            )
        )
    return Played(record, tuple(positions), tuple(log), timeline.state)


def in_play(rules: Ruleset, game: Played) -> list[Any]:
    return [s for s in game.positions if rules.summary(s).status == "playing"]


# Rulesets that live under tests/ (a folder each, installed nowhere): registered while this
# module runs, each by its one line, so the suite runs over them too while every other module
# still sees only the installed ones.
TEST_RULESETS = {toyrules.NAME: toyrules.ruleset}


@pytest.fixture(scope="module", autouse=True)
def _test_rulesets_registered() -> Iterator[None]:
    with ExitStack() as stack:
        for name, factory in TEST_RULESETS.items():
            stack.enter_context(registered(name, factory))
        yield


NAMES = sorted({*ruleset_names(), *TEST_RULESETS})
GAMES = [(name, seed) for name in NAMES for seed in SEEDS]


def test_every_ruleset_is_under_the_suite() -> None:
    """The suite runs over the registry (and the registry is not empty), and over the
    rulesets that live under tests/, registered for it."""
    assert {"ttt", "afv", "mtc", "yrd", "toy"} <= set(NAMES)
    assert set(NAMES) == set(ruleset_names())


@pytest.mark.parametrize(("name", "seed"), GAMES)
def test_self_play_ends_and_is_deterministic(name: str, seed: int) -> None:
    """A seeded game ends (status over, by the rules or a turn limit) without an exception,
    and the same seed plays the same game to the same final state."""
    rules = get_ruleset(name)
    game = played(name, seed)
    summary = rules.summary(game.record.final)
    assert summary.status == "over", summary
    assert summary.reason, summary
    assert len(game.record.actions) > 0
    again = rules.self_play(seed)
    assert rules.dump_state(again.final) == rules.dump_state(game.record.final)
    assert [a.model_dump() for a in again.actions] == [a.model_dump() for a in game.record.actions]


@pytest.mark.parametrize(("name", "seed"), GAMES)
def test_replay_from_the_log_equals_live_state(name: str, seed: int) -> None:
    """The actions the bots took, played live through the real ``Timeline``, end where the
    bots' game ended; replayed from the log (each action parsed from its logged JSON, each
    result and state checked against its logged digest) they end there again."""
    rules = get_ruleset(name)
    game = played(name, seed)
    final = rules.dump_state(game.record.final)
    assert rules.dump_state(game.live) == final
    replay = Timeline(rules, game.record.start)
    for event in game.log:
        replay.replay(event)
    assert rules.dump_state(replay.state) == final
    assert replay.state == game.record.final


@pytest.mark.parametrize(("name", "seed"), GAMES)
def test_state_round_trips_through_json(name: str, seed: int) -> None:
    """Every position of the game: dump, load, dump gives the same text and an equal state."""
    rules = get_ruleset(name)
    for state in played(name, seed).positions:
        text = rules.dump_state(state)
        again = rules.load_state(text)
        assert rules.dump_state(again) == text
        assert again == state


def _check_options(rules: Ruleset, state: Any, seen: Counter[str]) -> None:
    for view in rules.tank_views(state):
        for entry in rules.options_for(state, view.tank_id):
            kind, allowed = entry["kind"], entry["allowed"]
            actions = rules.option_actions(state, view.tank_id, entry)
            tally = f"{kind} {'allowed' if allowed else 'refused'}"
            seen[tally] += len(actions)
            for action in actions:
                if allowed:
                    try:
                        adjudicated(rules, state, action)
                    except RulesError as err:
                        pytest.fail(f"{view.tank_id}: allowed {action!r} was refused: {err!r}")
                    continue
                refused(rules, state, action, entry["code"], entry.get("clause"))


@pytest.mark.parametrize(("name", "seed"), GAMES)
def test_options_agree_with_adjudication(name: str, seed: int) -> None:
    """In positions of the game, for every tank: each action an allowed menu entry offers is
    accepted; an action of a refused entry's kind is refused with the entry's code and clause,
    changing neither the state nor the dice counter."""
    rules = get_ruleset(name)
    seen: Counter[str] = Counter()
    for state in in_play(rules, played(name, seed))[::EVERY]:
        _check_options(rules, state, seen)
    assert sum(seen.values()) > 20, seen
    # An allowed entry always names something to do: one that built no action was unchecked.
    assert [k for k, n in seen.items() if k.endswith("allowed") and n == 0] == [], seen


@pytest.mark.parametrize("name", NAMES)
def test_refusals_change_nothing_once_the_game_is_over(name: str) -> None:
    """Every action the bots took, tried again on the finished table, is refused, and the
    refusal leaves the state's JSON and the dice counter as they were."""
    rules = get_ruleset(name)
    game = played(name, SEEDS[0])
    tried = 0
    for action in game.record.actions:
        before = rules.dump_state(game.record.final)
        counter = rules.dice_state(game.record.final).counter
        with pytest.raises(RulesError):
            rules.adjudicate(game.record.final, action)
        assert rules.dump_state(game.record.final) == before
        assert rules.dice_state(game.record.final).counter == counter
        tried += 1
    assert tried > 0


def _trials(rules: Ruleset, name: str) -> list[tuple[Any, OddsTrial]]:
    """Up to ``FIGURES`` odds figures strictly between 0 and 1, from the seeded games."""
    found: list[tuple[Any, OddsTrial]] = []
    figures: set[tuple[str, Fraction]] = set()  # what is sampled: each figure once
    for seed in SEEDS:
        for state in in_play(rules, played(name, seed)):
            for trial in rules.odds_trials(state):
                figure = (trial.label.split()[0], trial.p)
                if 0 < trial.p < 1 and figure not in figures and len(found) < FIGURES:
                    figures.add(figure)
                    found.append((state, trial))
            if len(found) >= FIGURES:
                return found
    return found


def _rolled(rules: Ruleset, game: Played) -> bool:
    start = rules.dice_state(game.record.start).counter
    return rules.dice_state(game.record.final).counter > start


def within(hits: int, n: int, p: float) -> bool:
    """``hits`` of ``n`` is a plausible draw at chance ``p`` (normal approximation)."""
    return abs(hits - n * p) <= SIGMAS * math.sqrt(n * p * (1 - p)) + 1


def test_the_tolerance_catches_a_wrong_figure() -> None:
    """The binomial tolerance passes a fair count and fails one off by a tenth."""
    assert within(SAMPLES // 2, SAMPLES, 0.5)
    assert within(SAMPLES // 3, SAMPLES, 1 / 3)
    assert not within(SAMPLES * 55 // 100, SAMPLES, 0.45)
    assert not within(SAMPLES * 30 // 100, SAMPLES, 0.2)


@functools.cache
def sampled(name: str) -> tuple[tuple[OddsTrial, int], ...]:
    """Each odds figure chosen for ``name`` with how often its outcome happened in
    ``SAMPLES`` adjudications of its action, each on freshly seeded server dice."""
    rules = get_ruleset(name)
    out = []
    for state, trial in _trials(rules, name):
        dice = rules.dice_state(state)
        hits = 0
        for i in range(SAMPLES):
            fresh = dice.model_copy(
                update={
                    "source": "server",
                    "seed": f"conformance-{i}",
                    "player_seeds": (),
                    "counter": 0,
                }
            )
            outcome = rules.adjudicate(rules.with_dice(state, fresh), trial.action)
            hits += trial.happened(outcome.result)
        out.append((trial, hits))
    return tuple(out)


@pytest.mark.parametrize("name", NAMES)
def test_odds_agree_with_sampled_adjudications(name: str) -> None:
    """Each sampled ``odds`` figure (exact) matches the frequency of its outcome over
    ``SAMPLES`` adjudications of its action on freshly seeded server dice."""
    rules = get_ruleset(name)
    if not sampled(name) and not any(_rolled(rules, played(name, seed)) for seed in SEEDS):
        pytest.skip(f"{name}: its games roll no dice, so there are no odds to sample")
    assert sampled(name), f"{name}: dice were rolled but no odds figure between 0 and 1 given"
    for trial, hits in sampled(name):
        assert within(hits, SAMPLES, float(trial.p)), (
            f"{name} {trial.label}: odds say {float(trial.p):.4f}, "
            f"{hits}/{SAMPLES} = {hits / SAMPLES:.4f} sampled"
        )


@pytest.mark.parametrize("name", NAMES)
def test_the_sampling_would_catch_an_odds_figure_off_by_a_tenth(name: str) -> None:
    """The same counts reject each figure moved by 0.1 either way (where it stays a chance):
    the odds check has the power to see a wrong figure, not only to pass a right one."""
    for trial, hits in sampled(name):
        for wrong in (float(trial.p) - 0.1, float(trial.p) + 0.1):
            if 0 < wrong < 1:
                assert not within(hits, SAMPLES, wrong), (name, trial.label, wrong, hits)
