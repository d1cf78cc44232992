"""The AFV engine's contracts: pure adjudication, JSON round trips, ``options_for`` agreeing
with ``adjudicate`` over many self-played positions, exact odds, luck trials, the plug-in."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest

from kit.afv import AfvGame, cm
from tankref.core.errors import RulesError
from tankref.core.ruleset import TankPut
from tankref.rulesets import get_ruleset, ruleset_names
from tankref.rulesets.afv.actions import Embark, Evade, Fire, Move, Spot
from tankref.rulesets.afv.engine import adjudicate, options_for
from tankref.rulesets.afv.odds import hit_distribution
from tankref.rulesets.afv.selfplay import play_game
from tankref.rulesets.afv.state import TableState


def _positions(seeds: range, every: int = 7) -> list[TableState]:
    """Every ``every``-th state of short self-played games, while they are in play."""
    states: list[TableState] = []
    for seed in seeds:
        taken: list[TableState] = []

        def keep(state: TableState, *_: object, taken: list[TableState] = taken) -> None:
            taken.append(state)

        play_game(seed, turn_limit=4, on_step=keep)
        states.extend(s for s in taken[::every] if s.status == "playing")
    return states


@pytest.fixture(scope="module")
def positions() -> list[TableState]:
    return _positions(range(12))


def _ok(state: TableState, action: object) -> str | None:
    """None when the engine accepts the action (server dice), else the refusal's code."""
    try:
        adjudicate(state, action)  # type: ignore[arg-type]
    except RulesError as err:
        return err.code
    return None


def test_options_agree_with_adjudicate(positions: list[TableState]) -> None:
    """AFV-FR1, AFV-SP1, AFV-MV1, AFV-SPC1: in hundreds of self-played positions, every unit's
    options say exactly what the engine accepts: each weapon system and target it lists fires,
    every other pair is refused; move, evade, spot and embark alike."""
    checked = 0
    for state in positions:
        for unit_id, unit in sorted(state.units.items()):
            if unit.player != state.active_player:
                continue
            opts = {o.kind: o for o in options_for(state, unit_id, odds=False)}
            listed = set()
            if opts["fire"].allowed:
                for w in opts["fire"].detail["weapons"]:  # type: ignore[index]
                    listed |= {(w["weapon"], t["target_id"]) for t in w["targets"]}
            for weapon, target in itertools.product(range(len(unit.card.weapon)), state.units):
                code = _ok(state, Fire(tank_id=unit_id, target_id=target, weapon=weapon))
                assert (code is None) == ((weapon, target) in listed), (
                    unit_id,
                    weapon,
                    target,
                    code,
                )
                checked += 1
            spots = (
                {t["target_id"] for t in opts["spot"].detail["targets"]}  # type: ignore[index]
                if opts["spot"].allowed else set()
            )  # fmt: skip
            for target in state.units:
                code = _ok(state, Spot(tank_id=unit_id, target_id=target))
                assert (code is None) == (target in spots), (unit_id, target, code)
            here = Move(tank_id=unit_id, x=unit.start_x, z=unit.start_z, facing=unit.facing)
            assert (_ok(state, here) is None) == opts["move"].allowed, unit_id
            assert (_ok(state, Evade(tank_id=unit_id)) is None) == opts["evade"].allowed
            carriers = set(opts["embark"].detail["carriers"]) if opts["embark"].allowed else set()  # type: ignore[index]
            for other in state.units:
                code = _ok(state, Embark(tank_id=unit_id, carrier_id=other))
                assert (code is None) == (other in carriers), (unit_id, other, code)
    assert checked > 500


def test_state_round_trips_through_json(positions: list[TableState]) -> None:
    """The whole table state (units, markers, spotting, dice) survives a JSON round trip."""
    for state in positions[::5]:
        again = TableState.from_json(state.to_json())
        assert again == state and again.to_json() == state.to_json()


@pytest.mark.parametrize(("hit", "modifier"), [(0, 0), (3, -2), (0, -4), (3, 0), (0, 3)])
def test_hit_odds_match_every_face_pair(hit: int, modifier: int) -> None:
    """AFV-HIT1: the exact hit distribution equals counting all 36 face pairs."""
    counts: dict[int, int] = {}
    for a, b in itertools.product(range(1, 7), repeat=2):
        total = a + b + hit + modifier
        k = 0 if total < 8 else 1 + (total - 8) // 3
        counts[k] = counts.get(k, 0) + 1
    assert hit_distribution(hit, modifier) == {k: Fraction(n, 36) for k, n in counts.items()}


def test_odds_for_a_shot_are_exact_and_in_the_options() -> None:
    """AFV-HIT1, AFV-DMG1: main gun (hit 0, pen 9) at a Standard AFV (armour 6) in short range:
    P(hit) = 15/36; per hit P(destroyed) = P(2d6 + 3 >= 15) = 1/36."""
    game = AfvGame()
    game.put("R1", "standard-afv", "Red", 0, 0)
    game.put("B1", "standard-afv", "Blue", 0, cm(30), 180)
    game.start()
    odds = get_ruleset("afv").odds(game.state, "R1", "B1")
    main = next(o for o in odds if o.weapon == 0)
    assert main.exact["p_hit"] == "5/12"
    # one hit (8-10: 6+5+4+3 ways... ) or two (11-12: 3 ways): 1 - (35/36)^k
    two = Fraction(3, 36)
    one = Fraction(15, 36) - two
    expected = one * Fraction(1, 36) + two * (1 - Fraction(35, 36) ** 2)
    assert main.exact["p_destroyed"] == f"{expected.numerator}/{expected.denominator}"
    fire = next(o for o in options_for(game.state, "R1") if o.kind == "fire")
    target = fire.detail["weapons"][0]["targets"][0]  # type: ignore[index]
    assert target["exact"]["p_hit"] == "5/12"


def test_luck_trials_count_each_fired_shot_as_a_hit_chance() -> None:
    """Luck: a fired shot is one 'hit' trial with its exact chance (modifiers included)."""
    game = AfvGame()
    game.put("R1", "standard-afv", "Red", 0, 0)
    game.put("B1", "standard-afv", "Blue", 0, cm(30), 180)
    game.start()
    before = game.state
    action = Fire(tank_id="R1", target_id="B1")
    result = game.do(action, [4, 4, 1, 1])
    trials = get_ruleset("afv").luck_trials(before, action, result)
    assert [(t.player, t.measure, t.p, t.happened) for t in trials] == [
        ("Red", "hit", Fraction(5, 12), True)
    ]


def test_the_plugin_is_registered_and_maps_the_table_honestly() -> None:
    """The ruleset registers as 'afv'; a TTS put is a placement in setup and a move in play;
    reserves, hull-down and an objective do not exist in AFV and are refused with a code."""
    assert "afv" in ruleset_names()
    afv = get_ruleset("afv")
    assert (afv.title, afv.clause_prefix) == ("AFV", "AFV")
    game = AfvGame()
    put = TankPut(card="standard-afv", player="Red", x=0, z=0, facing=0)
    place = afv.tank_put(game.state, "R1", put)
    assert place is not None and place.kind == "place_tank"  # type: ignore[attr-defined]
    game.put("R1", "standard-afv", "Red", 0, 0)
    game.put("B1", "standard-afv", "Blue", 0, cm(30), 180)
    assert afv.tank_put(game.state, "R1", put) is None  # the same report again: nothing
    game.start()
    drift = put.model_copy(update={"x": 0.1})
    assert afv.tank_put(game.state, "R1", drift) is None
    move = afv.tank_put(game.state, "R1", put.model_copy(update={"z": 5.0}))
    assert move is not None and move.kind == "move"  # type: ignore[attr-defined]
    for bad, code in ((dict(reserve=True), "NO_RESERVE"), (dict(hull_down=True), "NO_HULL_DOWN")):
        with pytest.raises(RulesError) as info:
            afv.tank_put(game.state, "R1", put.model_copy(update=bad))
        assert info.value.code == code
    with pytest.raises(RulesError) as info:
        afv.objective_put(game.state, 0, 0)
    assert info.value.code == "NO_OBJECTIVE"
    assert afv.load_state(afv.dump_state(game.state)) == game.state
