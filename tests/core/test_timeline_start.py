"""Where every replay starts and which logged events still count: one place each
(``first_state``, ``Timeline.in_effect``), used by the referee, the luck count and verify."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from tankref.core.dice import DiceState
from tankref.core.timeline import Timeline, first_state
from tankref.rulesets import get_ruleset, ruleset_names


@dataclass(frozen=True)
class Numbered:
    """A logged event as far as ``in_effect`` reads it: its place in the log."""

    seq: int


@pytest.mark.parametrize("name", ruleset_names())
def test_first_state_is_the_table_as_created(name: str) -> None:
    """From the setup and dice as stored (JSON, a stored row's extra dice keys included)."""
    rules = get_ruleset(name)
    setup = rules.setup_model()
    dice = DiceState(source="table", seed="start-0", player_seeds=("a",))
    stored = {**dice.model_dump(mode="json"), "player_seed_players": ["Red"]}
    state = first_state(rules, setup.model_dump(mode="json"), stored)
    assert rules.dump_state(state) == rules.dump_state(rules.new_table(setup, dice))


def test_in_effect_leaves_out_undone_actions_and_control_events_TTT_S1() -> None:
    """TTT-S1 placements: the second is undone (event 3 takes back event 2); the actions in
    effect are event 1 and the new placement 4, not the undo itself."""
    rules = get_ruleset("ttt")
    timeline = Timeline(rules, first_state(rules, {}, {"source": "table", "seed": "s"}))
    red = {"kind": "place_tank", "card": "tiger-i", "player": "Red", "z": -20, "facing": 0}
    placements = [{**red, "tank_id": f"R{i}", "x": 10.0 * i} for i in (1, 2, 3)]
    timeline.commit(timeline.act(rules.parse_action(placements[0])), 1)
    timeline.commit(timeline.act(rules.parse_action(placements[1])), 2)
    timeline.commit(timeline.control({"control": "undo"}), 3)
    timeline.commit(timeline.act(rules.parse_action(placements[2])), 4)
    log = [Numbered(seq) for seq in range(1, 5)]
    assert timeline.in_effect(log) == [Numbered(1), Numbered(4)]
    assert timeline.in_effect(log[2:]) == [Numbered(4)]  # read from a later point on
    assert set(timeline.state.tanks) == {"R1", "R3"}  # what the log in effect says
