"""The whole-table odds (issue 18) plan each shooter's targets together: the shooter's checks,
penalties and sight-line numbers once. Over random tables (circles and polygons, few and many
pieces and screens, every flag a shot reads, three option sets) they must give exactly what
planning each pair alone gives: the same plans and refusals (TTT-E1 ... TTT-E7), the same
lines of fire (TTT-E1, TTT-CN1, TTT-CV1, TTT-E2, TTT-SM3) and the same odds."""

from __future__ import annotations

import gc
import random
from collections import Counter
from dataclasses import fields
from fractions import Fraction
from itertools import product

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tankref.core.dice import DiceState
from tankref.core.errors import RulesError
from tankref.core.geometry import (
    LENGTH_EPSILON,
    Circle,
    Polygon,
    SegmentFan,
    arc_at,
    arc_of,
    distance,
    relative_bearing,
    segment_enters,
    segment_point_distance,
    signed_angle,
)
from tankref.core.geometry import contains as shape_contains
from tankref.core.results import Modifier
from tankref.rulesets.ttt.actions import CrewRoll, GrizzledUse, Move, PlaceTank, StartGame
from tankref.rulesets.ttt.cards import Side, default_cards
from tankref.rulesets.ttt.combat import (
    EngagePlan,
    SidePlan,
    clear_plan_cache,
    plan_engage,
    plan_engages,
)
from tankref.rulesets.ttt.dice_odds import _first_roll, hit_odds, table_dice
from tankref.rulesets.ttt.engine import adjudicate, new_table
from tankref.rulesets.ttt.odds import (
    MoraleOdds,
    ShotOdds,
    clear_caches,
    odds_against,
    odds_for_shooter,
)
from tankref.rulesets.ttt.selfplay import play_game
from tankref.rulesets.ttt.selfplay import random_table as played_table
from tankref.rulesets.ttt.sight import (
    FAN_SCAN,
    INDEXED,
    LineOfFire,
    SideReading,
    Sightlines,
    read_line,
)
from tankref.rulesets.ttt.state import (
    DeckState,
    Options,
    SmokeScreen,
    TableState,
    TankState,
    TerrainKind,
    TerrainPiece,
)

KINDS: tuple[TerrainKind, ...] = ("forest", "cover1", "cover2", "hill", "blocking")
OPTIONS = (
    Options(),
    Options(
        concealment="cover",
        cover="literal",
        smoke_stacking="add",
        grizzled_reroll="ask",
        best_armour="never",
    ),
    Options(best_armour="ask", immobilized_turns=True, front_arc=60.0, rear_arc=30.0),
)


def random_table(seed: int) -> TableState:
    """4-12 tanks a side anywhere on the table, 0-40 pieces (circles and triangles, some
    holding tanks), 0-10 screens, random crews and flags, a part-drawn deck."""
    rng = random.Random(seed)
    state = new_table(options=Options(deploy_depth=48.0), dice=DiceState(seed=f"batch-{seed}"))
    ids = sorted(default_cards().tanks)
    for player, z in (("Red", -20.0), ("Blue", 20.0)):
        for k in range(rng.randint(4, 12)):
            action = PlaceTank(
                tank_id=f"{player[0]}{k + 1:02d}",
                card=rng.choice(ids),
                player=player,
                x=round(rng.uniform(-34, 34), 2),
                z=round(z + rng.uniform(-4, 4), 2),
                facing=round(rng.uniform(0, 360), 1),
                hull_down=rng.random() < 0.1,
            )
            state = adjudicate(state, action).state
    state = adjudicate(state, CrewRoll()).state
    state = adjudicate(state, StartGame()).state
    tanks = list(state.tanks.values())
    pieces: dict[str, TerrainPiece] = {}
    for k in range(rng.choice((0, 3, 8, FAN_SCAN + 1, 40))):
        # Some pieces sit on a tank, so shooters and targets stand inside them.
        x, z = (
            rng.choice(tanks).pos
            if rng.random() < 0.3
            else (rng.uniform(-30, 30), rng.uniform(-20, 20))
        )
        if k % 3:
            shape: Circle | Polygon = Circle(x=x, z=z, radius=rng.uniform(0.5, 6))
        else:
            shape = Polygon(
                points=((x - 1, z - 1), (x + rng.uniform(1, 8), z), (x, z + rng.uniform(1, 8)))
            )
        pieces[f"p{k}"] = TerrainPiece(id=f"p{k}", kind=rng.choice(KINDS), shape=shape)
    screens = tuple(
        SmokeScreen(
            id=k,
            owner="Red",
            tank_id="R01",
            ability="pots",
            x=rng.uniform(-36, 36),
            z=rng.uniform(-24, 24),
            strength=rng.choice((0, 1, 2)),
        )
        for k in range(rng.choice((0, 1, 3, INDEXED + 2)))
    )
    flags = {}
    for tank in tanks:
        roll = rng.random()
        flags[tank.id] = tank.model_copy(
            update={
                "moved": rng.choice(("none", "none", "normal", "fast")),
                "morale": "shaken" if roll < 0.15 else "routed" if roll < 0.2 else "ok",
                "optics_damage": int(rng.random() < 0.1),
                "gun_damage": int(rng.random() < 0.1),
                "turret_jammed": rng.random() < 0.15,
                "immobilized": rng.random() < 0.1,
                "facing_changed": rng.random() < 0.2,
                "reroll_used": rng.random() < 0.3,
                "engaged": rng.random() < 0.05,
                "waiting": rng.random() < 0.3,
                "destroyed": rng.random() < 0.05,
                "hit_by": ("B01",) if rng.random() < 0.2 else (),
                "hit_turn": state.turn,
            }
        )
    deck = list(state.rules.full_deck())
    rng.shuffle(deck)
    return state.model_copy(
        update={
            "tanks": flags,
            "terrain": pieces,
            "smoke": screens,
            "deck": DeckState(draw_pile=tuple(deck[: rng.choice((0, 3, len(deck)))])),
            "options": rng.choice(OPTIONS),
        }
    )


def one_by_one(
    state: TableState, shooter_id: str, declared: GrizzledUse | None = None
) -> list[tuple[str, object]]:
    """``plan_engage`` for each enemy on the table alone: its plan or its refusal."""
    shooter = state.tanks[shooter_id]
    out: list[tuple[str, object]] = []
    for target in sorted(state.tanks.values(), key=lambda t: t.id):
        if target.player == shooter.player or not target.on_board:
            continue
        try:
            out.append((target.id, plan_engage(state, shooter_id, target.id, declared)))
        except RulesError as err:
            out.append((target.id, (err.code, err.clause, err.message, err.details)))
    return out


def batched(
    state: TableState, shooter_id: str, declared: GrizzledUse | None = None
) -> list[tuple[str, object]]:
    return [
        (
            target.id,
            (plan.code, plan.clause, plan.message, plan.details)
            if isinstance(plan, RulesError)
            else plan,
        )
        for target, plan in plan_engages(state, shooter_id, declared)
    ]


def shooter_refusal(state: TableState, shooter_id: str) -> tuple[str, str | None, str] | None:
    try:
        plan_engages(state, shooter_id)
    except RulesError as err:
        return (err.code, err.clause, err.message)
    return None


@settings(deadline=None, max_examples=60)
@given(st.integers(0, 10**9))
def test_batch_plans_equal_one_plan_per_pair_TTT_E1_TTT_E2_TTT_E3_TTT_E4_TTT_E5(
    seed: int,
) -> None:
    """TTT-E1..E5, TTT-E7, TTT-CN1, TTT-CV1, TTT-SM3: for every tank of a random table,
    ``plan_engages`` gives each enemy the plan ``plan_engage`` gives that pair alone (equal
    in every field: line, side, modifiers, dice, PEN needed, rerolls), or the same refusal,
    and a shooter that may not fire is refused as the first pair would be."""
    state = random_table(seed)
    for shooter_id in sorted(state.tanks):
        alone = shooter_refusal(state, shooter_id)
        if alone is not None:
            first = one_by_one(state, shooter_id)[0][1]
            assert isinstance(first, tuple) and first[:3] == alone, (shooter_id, first)
            continue
        assert batched(state, shooter_id) == one_by_one(state, shooter_id), shooter_id


@settings(deadline=None, max_examples=40)
@given(st.integers(0, 10**9))
def test_sightlines_read_what_read_line_reads_TTT_E1_TTT_CN1_TTT_CV1_TTT_SM3(seed: int) -> None:
    """TTT-E1/TTT-CN1/TTT-CV1/TTT-E2/TTT-SM3: one shooter's ``Sightlines`` give every target
    the very ``LineOfFire`` ``read_line`` gives (sight, the blocking piece, concealment, cover,
    hull-down, the screens and their strength, with their reasons), few pieces or many."""
    state = random_table(seed)
    for shooter in state.tanks.values():
        lines = Sightlines(state, shooter)
        for target in state.tanks.values():
            assert lines.line(target) == read_line(state, shooter, target)


@settings(deadline=None, max_examples=200)
@given(
    st.lists(st.tuples(st.floats(-40, 40), st.floats(-40, 40)), min_size=2, max_size=6),
    st.lists(st.floats(0.01, 8), min_size=1, max_size=6),
)
def test_a_segment_fan_is_segment_enters_to_the_last_bit(
    points: list[tuple[float, float]], radii: list[float]
) -> None:
    """``SegmentFan`` answers ``segment_enters``, ``contains`` and ``segment_point_distance``
    exactly, for circles (also ones grazed: a radius equal to the distance) and polygons."""
    a, *ends = points
    shapes: list[Circle | Polygon] = [
        Circle(x=x, z=z, radius=r) for (x, z), r in zip(points, radii, strict=False)
    ]
    for b in ends:  # circles the segment a-b just grazes (within LENGTH_EPSILON or not)
        d = segment_point_distance(a, b, (0.0, 0.0))
        for r in (d, d - LENGTH_EPSILON, d - 2 * LENGTH_EPSILON):
            if 0 < r <= 1000:
                shapes.append(Circle(x=0.0, z=0.0, radius=r))
    shapes.append(Polygon(points=((-5.0, -5.0), (5.0, -4.0), (0.0, 6.0))))
    fan = SegmentFan(a, shapes, tuple(points))
    for b in ends:
        expected = [
            (i, shape_contains(s, b)) for i, s in enumerate(shapes) if segment_enters(s, a, b)
        ]
        assert fan.entered(b) == expected
        assert fan.distances(b) == [segment_point_distance(a, b, p) for p in points]
    assert fan.holds_a == [shape_contains(s, a) for s in shapes]


@settings(deadline=None, max_examples=300)
@given(
    st.tuples(st.floats(-40, 40), st.floats(-40, 40)),
    st.lists(st.tuples(st.floats(-40, 40), st.floats(-40, 40)), min_size=1, max_size=8),
    st.floats(-1, 1),
)
def test_a_segment_fans_cones_leave_out_no_disc_a_segment_grazes(
    a: tuple[float, float], centres: list[tuple[float, float]], nudge: float
) -> None:
    """``SegmentFan`` tests only the discs whose cone (seen from a) holds a segment's bearing:
    it must still find every disc ``segment_enters`` finds, those the segment just grazes
    (radius the distance, a few ulps either side), behind a, and across the bearing pi/-pi
    (segments pointing due west, straight along the cut, included)."""
    ends = [*centres, (a[0] - 30.0, a[1]), (a[0] - 30.0, a[1] + 1e-12), (a[0] - 30.0, a[1] - 0.0)]
    shapes: list[Circle | Polygon] = []
    for b in ends:
        for c in centres:
            d = segment_point_distance(a, b, c)
            for r in (d, d - LENGTH_EPSILON, d * (1 + 1e-15), d + nudge * 1e-12):
                if 0 < r <= 1000:
                    shapes.append(Circle(x=c[0], z=c[1], radius=r))
    for c in centres:  # discs holding a, or nearly
        shapes.append(Circle(x=c[0], z=c[1], radius=max(distance(a, c), 0.01)))
    fan = SegmentFan(a, shapes)
    for b in ends:
        expected = [
            (i, shape_contains(s, b)) for i, s in enumerate(shapes) if segment_enters(s, a, b)
        ]
        assert fan.entered(b) == expected


@settings(deadline=None, max_examples=25)
@given(st.integers(0, 10**9))
def test_whole_table_odds_equal_odds_of_each_pair_TTT_E4_TTT_E6_TTT_E7_TTT_MO2(seed: int) -> None:
    """TTT-E4..E7, TTT-MO1..3, TTT-MR5: ``odds_for_shooter`` (one batch, from a cold cache)
    gives each target the answer ``odds_against`` gives that pair alone, ranked by the exact
    P(destroyed) (ties by target id), every answer equal to itself validated from its JSON
    (its models are built from computed values without validation)."""
    state = random_table(seed)
    clear_caches()
    for shooter_id in sorted(state.tanks):
        try:
            batch = odds_for_shooter(state, shooter_id, friends=True)
        except RulesError:
            continue
        pairs = []
        for target_id, plan in one_by_one(state, shooter_id):
            if isinstance(plan, EngagePlan):
                pairs.append(odds_against(state, shooter_id, target_id, friends=True))
        pairs.sort(key=lambda o: (-Fraction(o.exact["p_destroyed"]), o.target))
        assert [o.model_dump_json() for o in batch] == [o.model_dump_json() for o in pairs]
        assert batch == pairs
        for odds in batch:
            assert ShotOdds.model_validate_json(odds.model_dump_json()) == odds
            assert set(odds.__dict__) == set(ShotOdds.model_fields)
            assert set(odds.morale.__dict__) == set(MoraleOdds.model_fields)


def test_built_plans_have_every_field_and_equal_the_ordinary_build() -> None:
    """The plans, side readings and modifiers the planner builds without ``__init__`` carry
    every declared field and equal the same values built the ordinary way."""
    state = random_table(11)
    seen = 0
    for shooter_id in sorted(state.tanks):
        try:
            planned = plan_engages(state, shooter_id)
        except RulesError:
            continue
        for _, plan in planned:
            if isinstance(plan, RulesError):
                continue
            seen += 1
            for built, cls in ((plan, EngagePlan), (plan.side, SidePlan)):
                assert set(built.__dict__) == {f.name for f in fields(cls)}
                assert cls(**built.__dict__) == built
            assert SideReading(**plan.side.shown.__dict__) == plan.side.shown
            for mod in (*plan.accuracy_mods, *plan.penetration_mods):
                assert Modifier.model_validate(mod.model_dump()) == mod
                assert mod.model_dump_json() == Modifier(**mod.model_dump()).model_dump_json()
    assert seen > 20


@settings(max_examples=300)
@given(
    st.one_of(st.floats(-720, 720), st.sampled_from([45.0, -45.0, 135.0, 180.0, -180.0, 0.0])),
    st.sampled_from([(45.0, 45.0), (60.0, 30.0), (90.0, 90.0), (30.0, 150.0), (100.0, 20.0)]),
)
def test_arc_at_reads_what_arc_of_reads_TTT_E2(
    relative: float, widths: tuple[float, float]
) -> None:
    """TTT-E2: the unchecked arc reading the side hit uses gives arc_of's arc and edge, on
    the arc edges too (within EPSILON_DEG) and where front and rear meet (no side arc)."""
    front, rear = widths
    reading = arc_of(relative, front, rear)
    assert arc_at(signed_angle(relative), front, rear) == (reading.arc, reading.on_edge)


def _side_by_the_text(
    options: Options, shooter: TankState, target: TankState, hull_down: bool, facing: float
) -> tuple[Side, float]:
    """TTT-E2 read with the checked public arc reading: the arc the shooter's bearing falls
    in (relative to ``facing``), the weaker armour on an arc edge, the Turret when hull-down."""
    rel = relative_bearing(facing, target.pos, shooter.pos)
    if hull_down:
        return "turret", rel
    reading = arc_of(rel, options.front_arc, options.rear_arc)
    if reading.on_edge is None:
        return reading.arc, rel
    first, second = reading.on_edge
    armour = target.card.armour
    return (first if armour.of(first) <= armour.of(second) else second), rel


@settings(deadline=None, max_examples=40)
@given(st.integers(0, 10**9))
def test_a_plan_adds_up_as_the_rules_say_TTT_E2_TTT_E3_TTT_E4_TTT_E5_TTT_CV1_TTT_CN1(
    seed: int,
) -> None:
    """Every plan the batch makes holds the numbers the rules give, worked out here from the
    checked public readings (not the planner's own shortcuts): the side shown by the bearing
    (TTT-E2), turned to the best armour when the referee turns it (TTT-E3, then that side is
    hit), the white dice as the card's less every penalty (TTT-E4), the red dice and the PEN
    needed as armour of the side hit plus Cover (TTT-E5, TTT-CV1, TTT-CN1 as cover)."""
    state = random_table(seed)
    options = state.options
    for shooter_id in sorted(state.tanks):
        try:
            planned = plan_engages(state, shooter_id)
        except RulesError:
            continue
        for target, plan in planned:
            if isinstance(plan, RulesError):
                continue
            shooter, side, line = plan.shooter, plan.side, plan.line
            shown = _side_by_the_text(options, shooter, target, line.hull_down, target.facing)
            assert (side.shown.side, side.shown.relative) == shown
            if side.facing is not None:
                final = _side_by_the_text(options, shooter, target, False, side.facing)
                assert (side.side, side.reading.relative) == final
                assert side.side == side.best
                armour = target.card.armour
                assert armour.of(side.best) > armour.of(side.shown.side)
            else:
                assert side.final is None
            white = shooter.card.accuracy + sum(m.amount for m in plan.accuracy_mods)
            assert plan.white_dice == max(0, white)
            red = shooter.card.penetration + sum(
                m.amount for m in plan.penetration_mods if m.applies_to == "penetration_dice"
            )
            assert plan.red_dice == max(0, red)
            assert plan.armour == target.card.armour.of(side.side)
            hidden = line.concealment if options.concealment == "cover" else 0
            assert plan.threshold == plan.armour + line.cover + hidden


def test_lines_of_fire_have_every_field_and_a_screen_list_of_their_own() -> None:
    """The lines of fire built without ``__init__`` carry every declared field, equal the
    same values built the ordinary way, and no two share their list of screens."""
    state = random_table(5)
    shooter = state.tanks["R01"]
    sight = Sightlines(state, shooter)
    lines = [sight.line(t) for t in state.tanks.values()]
    lines += [read_line(state, shooter, t) for t in state.tanks.values()]
    for line in lines:
        assert set(line.__dict__) == {f.name for f in fields(LineOfFire)}
        assert LineOfFire(**line.__dict__) == line
    assert len({id(line.smoke_screens) for line in lines}) == len(lines)
    blank = read_line(state, shooter, shooter)  # a line of no length: every default
    a = shooter.pos
    assert blank == LineOfFire(a, a, distance(a, a))


def test_answers_share_nothing_a_caller_could_change() -> None:
    """Answers built from one cached situation are separate: changing one answer's exact
    fractions (or its morale's) changes no other answer, nor the next one built; each is
    marked as having every field set, and a copy with an update marks its own set only."""
    state = random_table(7)
    clear_caches()
    shooter_id = next(
        s for s in sorted(state.tanks) if _answers_or_none(state, s) and len(_answers(state, s)) > 1
    )
    first = _answers(state, shooter_id)
    before = [o.model_dump_json() for o in first]
    first[0].exact["p_hit"] = "tampered"
    first[0].morale.exact["p_check"] = "tampered"
    assert [o.model_dump_json() for o in first[1:]] == before[1:]
    assert [o.model_dump_json() for o in _answers(state, shooter_id)] == before
    for odds in first:
        assert odds.model_fields_set == set(ShotOdds.model_fields)
        assert odds.morale.model_fields_set == set(MoraleOdds.model_fields)
    copy = first[1].model_copy(update={"notes": ()})
    assert copy.model_fields_set == set(ShotOdds.model_fields)
    assert first[2].model_fields_set is not copy.model_fields_set


def _answers(state: TableState, shooter_id: str) -> list[ShotOdds]:
    return odds_for_shooter(state, shooter_id)


def _answers_or_none(state: TableState, shooter_id: str) -> list[ShotOdds] | None:
    try:
        return odds_for_shooter(state, shooter_id)
    except RulesError:
        return None


@pytest.mark.parametrize("dice", [1, 2, 3, 4])
def test_the_first_red_roll_counts_every_face_combination_TTT_E5_TTT_E6(dice: int) -> None:
    """TTT-E5/TTT-E6: the first Penetration roll as the star chain starts from it (PEN,
    blank dice, stars, fewest PEN on a non-blank die) weighs each pool as the count of the
    ordered face combinations giving it, over sides**dice: every combination enumerated."""
    red = table_dice(default_cards().rules).red
    expected: Counter[tuple[int, int, int, int]] = Counter()
    for faces in product(red, repeat=dice):
        pens = sum(pen for pen, _ in faces)
        blanks = sum(1 for pen, _ in faces if pen == 0)
        stars = sum(star for _, star in faces)
        low = min((pen for pen, _ in faces if pen > 0), default=0)
        expected[(pens, blanks, stars, low)] += 1
    clear_caches()
    assert dict(_first_roll(red, dice)) == dict(expected)
    assert sum(expected.values()) == len(red) ** dice


@pytest.mark.parametrize("dice", [1, 2, 3, 4, 5])
def test_hit_odds_count_every_face_combination_TTT_E4(dice: int) -> None:
    """TTT-E4: P(at least one HIT icon) for the house's white dice, every combination of
    faces enumerated, with and without the Grizzled reroll of one die (TTT-CR1)."""
    white = table_dice(default_cards().rules).white
    combos = list(product(white, repeat=dice))
    first = Fraction(sum(1 for faces in combos if any(faces)), len(combos))
    one = Fraction(sum(1 for face in white if face), len(white))
    clear_caches()
    assert hit_odds(white, dice, False) == (first, Fraction(0))
    assert hit_odds(white, dice, True) == (first, (1 - first) * one)


def test_a_shooters_batch_leaves_nothing_for_the_garbage_collector() -> None:
    """The refusals a batch keeps (a target out of sight, say) hold no traceback: with one,
    the planner's frame and the list of refusals would hold each other, and every line,
    plan and answer of the shooter would wait for a garbage collection instead of being
    freed at once (thousands of objects a table's odds)."""
    state, shooter_id = _shooter_with_a_plan_and_a_refusal()
    odds_for_shooter(state, shooter_id)  # the caches filled first: they are kept on purpose
    gc.collect()
    gc.disable()
    try:
        plan_engages(state, shooter_id)
        odds_for_shooter(state, shooter_id)
        assert gc.collect() == 0
    finally:
        gc.enable()


def _shooter_with_a_plan_and_a_refusal() -> tuple[TableState, str]:
    for seed in range(100):
        state = random_table(seed)
        for shooter_id in sorted(state.tanks):
            try:
                planned = plan_engages(state, shooter_id)
            except RulesError:
                continue
            if {isinstance(plan, RulesError) for _, plan in planned} == {True, False}:
                return state, shooter_id
    raise AssertionError("no shooter with both a plan and a refusal")


# --- the pair plans kept between states ---------------------------------------------------
# After an action, a pair whose tanks, terrain, smoke and options are the same objects is not
# planned again (``combat._pair_plans``). Checked against planning each pair alone, which
# keeps nothing, at every step of played games: a key that left out anything a plan reads
# would give a stale plan here, as a table went on.


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
            if shooter_refusal(state, shooter_id) is not None:
                continue
            for declared in (None, "accuracy", "penetration", "none"):
                assert batched(state, shooter_id, declared) == one_by_one(
                    state, shooter_id, declared
                )
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
        and not shooter_refusal(state, t.id) is not None
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
        state = played_table(seed)
        for tank in sorted(state.tanks.values(), key=lambda t: t.id):
            if (
                tank.player == state.active_player
                and tank.on_table
                and not tank.immobilized
                and not shooter_refusal(state, tank.id) is not None
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
        state = played_table(seed)
        for shooter in sorted(state.tanks.values(), key=lambda t: t.id):
            if shooter_refusal(state, shooter.id) is not None:
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
