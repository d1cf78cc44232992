"""The pair plans the whole-table odds keep between states (issue 18): after an action, a
pair whose tanks, terrain, smoke and options are the same objects is not planned again.

What they are checked against is planning each pair alone (``plan_engage``, which keeps
nothing), at every step of played games, for both sides and each Grizzled declaration: a
key that left out anything a plan reads would give a stale plan here, as a table went on."""

from __future__ import annotations

from tankref.core.errors import RulesError
from tankref.rulesets.ttt.actions import GrizzledUse, Move
from tankref.rulesets.ttt.combat import clear_plan_cache, plan_engage, plan_engages
from tankref.rulesets.ttt.engine import adjudicate
from tankref.rulesets.ttt.odds import odds_against, odds_for_shooter
from tankref.rulesets.ttt.selfplay import play_game, random_table
from tankref.rulesets.ttt.state import TableState


def _alone(state: TableState, shooter_id: str, declared: GrizzledUse | None) -> list[object]:
    """Each enemy's plan, or its refusal, planned alone, by target id (the batch's order)."""
    shooter = state.tanks[shooter_id]
    out: list[object] = []
    for target in sorted(state.tanks.values(), key=lambda t: t.id):
        if target.player == shooter.player or not target.on_board:
            continue
        try:
            out.append((target.id, plan_engage(state, shooter_id, target.id, declared)))
        except RulesError as err:
            out.append((target.id, err.to_dict()))
    return out


def _batch(state: TableState, shooter_id: str, declared: GrizzledUse | None) -> list[object]:
    return [
        (target.id, plan.to_dict() if isinstance(plan, RulesError) else plan)
        for target, plan in plan_engages(state, shooter_id, declared)
    ]


def _shooter_refused(state: TableState, shooter_id: str) -> bool:
    try:
        plan_engages(state, shooter_id)
    except RulesError:
        return True
    return False


def test_kept_pair_plans_equal_fresh_plans_TTT_E1_TTT_E2_TTT_E3_TTT_E4_TTT_E5() -> None:
    """TTT-E1..E5, TTT-CV1, TTT-CN1, TTT-SM3, TTT-CR1: at every step of a played game, every
    tank's batch of plans (and refusals: out of sight, a jammed turret's arc), with the pair
    plans kept from the steps before, equals each pair planned alone, for no declaration and
    each Grizzled declaration; the odds read from them equal each pair's own odds."""
    clear_plan_cache()
    steps: list[TableState] = []
    for seed in range(8):
        play_game(seed, on_step=lambda state, action, result: steps.append(state))
    assert len(steps) > 100
    kept: dict[tuple[str, str], object] = {}  # the plans of the step before
    found = planned = 0
    for state in steps:
        plans: dict[tuple[str, str], object] = {}
        for shooter_id in sorted(state.tanks):
            if _shooter_refused(state, shooter_id):
                continue
            for declared in (None, "accuracy", "penetration", "none"):
                assert _batch(state, shooter_id, declared) == _alone(state, shooter_id, declared)
            for target, plan in plan_engages(state, shooter_id, refusals=False):
                plans[shooter_id, target.id] = plan
                planned += 1
                found += plan is kept.get((shooter_id, target.id))
            for odds in odds_for_shooter(state, shooter_id):
                assert odds_against(state, shooter_id, odds.target) == odds
        kept = plans
    # Many pairs outlive an action (a Move or an Engage changes one or two tanks; a phase's
    # end resets a whole side's): their plans are the very objects of the step before.
    assert found * 4 > planned


def test_a_move_plans_only_the_moved_tanks_pairs_again_TTT_E1() -> None:
    """TTT-E1: after one tank moves, its pairs are planned from its new spot (a new line of
    fire) and every other pair is the very plan kept from before the move."""
    clear_plan_cache()
    state, shooter_id = _a_shooter_with_targets()
    others = sorted(
        t.id
        for t in state.tanks.values()
        if t.player == state.active_player
        and t.id != shooter_id
        and not _shooter_refused(state, t.id)
    )
    before = {
        i: {target.id: plan for target, plan in plan_engages(state, i, refusals=False)}
        for i in [shooter_id, *others]
    }
    tank = state.tanks[shooter_id]
    moved = adjudicate(
        state, Move(tank_id=shooter_id, x=tank.x + 1.0, z=tank.z, facing=tank.facing)
    ).state
    for target, plan in plan_engages(moved, shooter_id, refusals=False):
        old = before[shooter_id][target.id]
        assert plan is not old
        assert plan.line.shooter == (tank.x + 1.0, tank.z)
        assert plan == plan_engage(moved, shooter_id, target.id)
    for other in others:
        for target, plan in plan_engages(moved, other, refusals=False):
            assert target is state.tanks[target.id]
            assert plan is before[other][target.id]


def _a_shooter_with_targets() -> tuple[TableState, str]:
    """A started table and a tank of the player to act that may move and sees enemies."""
    for seed in range(200):
        state = random_table(seed)
        for tank in sorted(state.tanks.values(), key=lambda t: t.id):
            if (
                tank.player == state.active_player
                and tank.on_table
                and not tank.immobilized
                and not _shooter_refused(state, tank.id)
                and plan_engages(state, tank.id, refusals=False)
            ):
                return state, tank.id
    raise AssertionError("no table with a tank that sees an enemy")


def test_a_kept_plan_says_when_the_targets_turn_began_TTT_E3_TTT_F1() -> None:
    """TTT-E3, TTT-F1: a target that changed facing this turn cannot turn its best armour,
    and the refusal says when its turn began. The same tank objects on a table a turn later
    get that turn's words, not the kept plan's."""
    clear_plan_cache()
    for seed in range(200):
        state = random_table(seed)
        for shooter in sorted(state.tanks.values(), key=lambda t: t.id):
            if _shooter_refused(state, shooter.id):
                continue
            for target, plan in plan_engages(state, shooter.id, refusals=False):
                if plan.side.best is None or plan.line.hull_down or target.moved == "fast":
                    continue
                turned = target.model_copy(update={"facing_changed": True})
                now = state.model_copy(update={"tanks": {**state.tanks, target.id: turned}})
                later = now.model_copy(update={"turn": now.turn + 1})
                words = []
                for table in (now, later):
                    kept = dict(
                        (t.id, p) for t, p in plan_engages(table, shooter.id, refusals=False)
                    )
                    assert kept[target.id] == plan_engage(table, shooter.id, target.id)
                    words.append(kept[target.id].side.blocked)
                assert words[0] != words[1]
                assert now.turn_began(turned) in str(words[0])
                assert later.turn_began(turned) in str(words[1])
                return
    raise AssertionError("no shot at a target with a stronger armour to turn")
