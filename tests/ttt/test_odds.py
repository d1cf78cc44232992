"""Exact odds before the shot (issue 5), checked against the real referee.

- Agreement: 218 situations spread over every modifier the rules know (``oddskit.spread``
  plus custom dice) are each adjudicated ``SAMPLES`` times by the real ``adjudicate`` on the
  server's own dice, a different ``DiceState`` seed per sample. Every exact probability must
  hold the simulated count within 5 standard errors of a binomial count (plus one count for
  discreteness); a probability of 0 or 1 must be matched exactly. A pooled test then looks
  for a small bias shared by all situations.
- Hand-checked fractions for small pools, the card data as the source of the faces, and the
  odds changing nothing on the table.

House dice: white 5 = HIT, 6 = HIT HIT, 1-4 blank; red 1-2 blank, 3-4 PEN, 5 PEN PEN,
6 PEN + STAR; green 1-3 morale OK, 4-5 Shaken, 6 Routed.
"""

from __future__ import annotations

import functools
import json
import math
from fractions import Fraction
from itertools import product

import pytest

from kit.ttt import Game, duel
from oddskit import Spec, Tally, build, exact_odds, sample, spread
from tankref.core.dice import DieSpec, Face, SuppliedDice
from tankref.core.errors import RulesError
from tankref.rulesets.ttt.actions import Engage
from tankref.rulesets.ttt.cards import Armour, CardSet, RulesData, TankCard, default_cards
from tankref.rulesets.ttt.engine import adjudicate, options_for
from tankref.rulesets.ttt.odds import (
    ShotOdds,
    hit_odds,
    odds_against,
    odds_for_shooter,
    odds_for_situation,
    penetration_odds,
)
from tankref.rulesets.ttt.state import Options

SAMPLES = 1500  # per situation: 218 situations x 1500 real adjudications in about 30 s
HOUSE_RED = ((0, 0), (0, 0), (1, 0), (1, 0), (2, 0), (1, 1))  # (PEN, STAR) per face


def card(card_id: str, **changes: object) -> TankCard:
    return default_cards().tanks[card_id].model_copy(update=changes)


def rules_with(**faces: tuple[tuple[str, ...], ...]) -> RulesData:
    """The house rules with some dice replaced: ``red=((), ("STAR",), ...)`` (icons per face)."""
    rules = default_cards().rules
    dice = dict(rules.dice)
    for name, icons in faces.items():
        dice[name] = DieSpec(
            name=name,
            label=f"test {name} die",
            faces=tuple(Face(face=i + 1, icons=f) for i, f in enumerate(icons)),
        )
    return rules.model_copy(update={"dice": dice})


def cards_with(**faces: tuple[tuple[str, ...], ...]) -> CardSet:
    return default_cards().model_copy(update={"rules": rules_with(**faces)})


F = Fraction


def exact(odds: ShotOdds, name: str) -> Fraction:
    return Fraction(odds.exact[name])


# --- agreement with the real referee --------------------------------------------------------

BLANK_STAR_RED = ((), ("STAR",), ("PEN",), ("PEN",), ("PEN", "PEN"), ("PEN", "STAR", "STAR"))
WIDE_WHITE = ((), (), (), ("HIT",), ("HIT",), ("HIT", "HIT"))
CUSTOM = [
    Spec(shooter="tiger-i", target="tiger-i", cards=cards_with(red=BLANK_STAR_RED)),
    Spec(
        shooter="king-tiger",
        target="panther-g",
        grizzled=True,
        cards=cards_with(red=BLANK_STAR_RED),
    ),
    Spec(shooter="m4a1-sherman", target="m4a1-sherman", cards=cards_with(red=BLANK_STAR_RED)),
    Spec(
        shooter="is-2",
        target="kv-1",
        bearing=90.0,
        best_armour="never",
        cards=cards_with(red=BLANK_STAR_RED),
    ),
    Spec(shooter="m5-stuart", target="m4a1-sherman", cards=cards_with(white=WIDE_WHITE)),
    Spec(
        shooter="t-34-85",
        target="tiger-i",
        moved=True,
        grizzled=True,
        cards=cards_with(white=WIDE_WHITE, red=BLANK_STAR_RED),
    ),
    Spec(shooter="tiger-i", target="t-34-76", cover=2, cards=cards_with(white=WIDE_WHITE)),
    Spec(
        shooter="panther-g",
        target="cromwell-iv",
        target_fast=True,
        second_hit=True,
        cards=cards_with(red=BLANK_STAR_RED),
    ),
]
SPECS = spread(210) + CUSTOM


@functools.cache
def _run(index: int) -> tuple[ShotOdds, Tally]:
    spec = SPECS[index]
    state = build(spec)
    return exact_odds(spec, state), sample(state, SAMPLES, f"odds-agreement-{index}", spec.declared)


def _observed(odds: ShotOdds, tally: Tally) -> list[tuple[str, Fraction, int]]:
    """(what, exact probability, how many of the samples did it)."""
    rows = [
        ("hit", exact(odds, "p_hit"), tally.hit),
        ("penetrated", exact(odds, "p_penetrate"), tally.penetrated),
        ("destroyed", exact(odds, "p_destroyed"), tally.destroyed),
        ("morale failure", exact(odds, "p_morale_failure"), tally.morale_failure),
    ]
    rows += [(f"card {c.name}", F(c.exact), tally.cards[c.name]) for c in odds.cards]
    rows += [
        (f"friend {f.tank_id} fails", F(f.exact["p_failure"]), tally.friend_failure[f.tank_id])
        for f in odds.friends or ()
    ]
    return rows


def _z(p: Fraction, k: int, n: int) -> float:
    return (k - n * float(p)) / math.sqrt(n * float(p) * (1 - float(p)))


@pytest.mark.parametrize("index", range(len(SPECS)), ids=[f"s{i:03d}" for i in range(len(SPECS))])
def test_exact_odds_agree_with_the_real_referee(index: int) -> None:
    """TTT-E4, TTT-E5, TTT-E6, TTT-E7, TTT-CR1, TTT-MO2: the exact P(hit), P(penetrated),
    P(destroyed), P(morale failure), P(each card) and P(each friend fails) hold what the real
    adjudicate does with server dice, within 5 binomial standard errors (+1 count)."""
    odds, tally = _run(index)
    n = tally.n
    wrong = []
    for what, p, k in _observed(odds, tally):
        if p in (0, 1):
            ok = k == n * p
        else:
            ok = abs(k - n * float(p)) <= 5 * math.sqrt(n * float(p) * (1 - float(p))) + 1
        if not ok:
            wrong.append(f"{what}: exact {float(p):.5f}, simulated {k}/{n} = {k / n:.5f}")
    assert not wrong, f"{SPECS[index].label()}: {wrong}"


def test_no_systematic_bias_over_all_situations() -> None:
    """Pooled over all situations, per quantity: the z-scores' mean shows no shared bias
    (|sum z| / sqrt(k) <= 5) and their spread is binomial (sum z^2 <= k + 5 sqrt(2k))."""
    pooled: dict[str, list[float]] = {}
    for index in range(len(SPECS)):
        odds, tally = _run(index)
        for what, p, k in _observed(odds, tally)[:4]:
            if 0 < p < 1:
                pooled.setdefault(what, []).append(_z(p, k, tally.n))
    assert set(pooled) == {"hit", "penetrated", "destroyed", "morale failure"}
    for what, zs in pooled.items():
        k = len(zs)
        assert k >= 80, (what, k)  # enough situations with 0 < p < 1 to pool
        assert abs(sum(zs)) / math.sqrt(k) <= 5, (what, sum(zs) / math.sqrt(k))
        assert sum(z * z for z in zs) <= k + 5 * math.sqrt(2 * k), (what, sum(z * z for z in zs))


def test_the_situations_cover_every_modifier() -> None:
    """The agreement situations reach every clause, option and case the odds depend on, each
    at least five times."""
    seen: dict[str, int] = {}

    def count(key: str, yes: bool) -> None:
        seen[key] = seen.get(key, 0) + int(yes)

    for spec in SPECS:
        odds = exact_odds(spec, build(spec))
        clauses = {m.clause for m in odds.modifiers}
        labels = " ".join(m.label for m in odds.modifiers)
        for clause in ("TTT-M1", "TTT-MR1", "TTT-M2", "TTT-CN1", "TTT-SM3", "TTT-CV1", "TTT-E5"):
            count(clause, clause in clauses)
        count("optics damaged", "Optics Damaged" in labels)
        count("gun damaged", "Gun Damaged" in labels)
        count("light concealment", "light concealment" in labels)
        count("heavy concealment", "heavy concealment" in labels)
        for side in ("front", "side", "rear", "turret"):
            count(f"side {side}", odds.hit_side == side)
        count("best armour turned", odds.best_armour_turn is not None)
        count("reroll at accuracy only", odds.reroll_accuracy and not odds.reroll_penetration)
        count("reroll at penetration only", odds.reroll_penetration and not odds.reroll_accuracy)
        count("reroll at both (auto)", odds.reroll_accuracy and odds.reroll_penetration)
        count("no white dice", odds.accuracy_dice == 0)
        count("six or more red dice", odds.penetration_dice >= 6)
        count("fresh deck", odds.deck_reshuffled)
        count("depleted deck", odds.deck_left < 20)
        count("bail-out possible", odds.p_bail_out > 0)
        count("second-hit trigger", len(odds.morale.triggers) == 2)
        count("Grizzled target", not odds.morale.checks)
        count("friends", bool(odds.friends))
        count("custom dice", spec.cards is not None)
        count(
            "concealment on the armour (option cover)",
            any(m.clause == "TTT-CN1" and m.applies_to == "armour" for m in odds.modifiers),
        )
        count(
            "Immobilized target turned (option immobilized_turns)",
            spec.target_immobilized and odds.best_armour_turn is not None,
        )
    thin = {key: n for key, n in seen.items() if n < 5}
    assert not thin, thin


# --- the plan the odds read is the plan the referee resolves ----------------------------------


@pytest.mark.parametrize("index", range(0, len(SPECS), 3))
def test_odds_show_the_numbers_the_referee_uses(index: int) -> None:
    """One source of truth (TTT-E2..E5): with forced dice that hit and fail to penetrate, the
    referee's side, dice, PEN needed and modifiers are exactly those of the odds."""
    spec = SPECS[index]
    state = build(spec)
    odds = exact_odds(spec, state)
    white = [6] * odds.accuracy_dice
    red = [1] * (odds.penetration_dice + (1 if odds.reroll_penetration else 0))
    green = [1] if white and spec.second_hit and not spec.target_grizzled else []
    faces = {"white": white, "red": red if white and odds.penetration_dice else [], "green": green}
    dice = SuppliedDice(faces={k: v for k, v in faces.items() if v})
    shot = Engage(tank_id="R1", target_id="B1", grizzled_reroll=spec.declared)
    result = adjudicate(state, shot, dice).result
    out = result.outcome
    assert out["hit_side"] == odds.hit_side
    assert out["accuracy_dice"] == odds.accuracy_dice
    turned = [e for e in result.events if e.kind == "turn_model"]
    assert bool(turned) == (odds.best_armour_turn is not None)
    mods = [m.model_dump() for m in odds.modifiers]
    if odds.accuracy_dice:
        assert out["hit"] is True and out["penetrated"] is False
        assert (out["penetration_dice"], out["needed"], out["armour"], out["cover"]) == (
            odds.penetration_dice,
            odds.needed,
            odds.armour,
            odds.cover,
        )
        assert [m.model_dump() for m in result.modifiers] == mods
    else:
        assert [m.model_dump() for m in result.modifiers] == [
            m for m in mods if m["applies_to"] == "accuracy_dice"
        ]


# --- hand-checked fractions ------------------------------------------------------------------


def test_one_white_die_hits_one_time_in_three_TTT_E4() -> None:
    """TTT-E4: one white die (faces 5 and 6 show HIT) hits with 2/6 = 1/3: an IS-2 (Accuracy
    2) with a Shaken crew (-1, TTT-MR1) rolls one die."""
    odds = odds_for_situation(card("is-2"), card("m4a1-sherman"), shaken=True)
    assert odds.accuracy_dice == 1
    assert exact(odds, "p_hit") == F(1, 3)


def test_two_white_dice_hit_five_times_in_nine_TTT_E4() -> None:
    """TTT-E4: two dice miss together (4/6)^2 = 4/9 of the time: P(hit) = 5/9."""
    odds = odds_for_situation(card("is-2"), card("m4a1-sherman"))
    assert odds.accuracy_dice == 2
    assert exact(odds, "p_hit") == F(5, 9)
    assert hit_odds((0, 0, 0, 0, 1, 2), 2, False) == (F(5, 9), 0)


def test_two_hit_icons_are_still_one_hit_TTT_E4() -> None:
    """TTT-E4: at most one hit per roll: a 6 printed with two HITs gives the same odds as a 6
    printed with one."""
    single = rules_with(white=((), (), (), (), ("HIT",), ("HIT",)))
    base = odds_for_situation(card("tiger-i"), card("m4a1-sherman"))
    other = odds_for_situation(card("tiger-i"), card("m4a1-sherman"), rules=single)
    assert base.exact == other.exact


def test_no_white_dice_left_the_shot_cannot_hit_TTT_E4_TTT_M1() -> None:
    """TTT-E4 ruling: an IS-2 that moved (-2, TTT-M1) has no die left: P(hit) = 0."""
    odds = odds_for_situation(card("is-2"), card("m4a1-sherman"), moved=True)
    assert odds.accuracy_dice == 0
    assert exact(odds, "p_hit") == 0 and exact(odds, "p_destroyed") == 0


def test_grizzled_reroll_saves_a_missed_roll_by_policy_TTT_CR1() -> None:
    """TTT-CR1: two dice and the Grizzled reroll: 5/9 + 4/9 * 1/3 = 19/27 (auto, or ask with
    Accuracy declared); declared for Penetration or not at all: 5/9."""
    is2, sherman = card("is-2"), card("m4a1-sherman")
    ask = Options(grizzled_reroll="ask")
    auto = odds_for_situation(is2, sherman, grizzled=True)
    assert exact(auto, "p_hit") == F(19, 27)
    assert auto.reroll_accuracy and auto.reroll_penetration and auto.grizzled_policy == "auto"
    declared = odds_for_situation(is2, sherman, grizzled=True, options=ask, declared="accuracy")
    assert exact(declared, "p_hit") == F(19, 27) and not declared.reroll_penetration
    for choice in ("penetration", "none", None):
        other = odds_for_situation(is2, sherman, grizzled=True, options=ask, declared=choice)
        assert exact(other, "p_hit") == F(5, 9), choice
        assert other.reroll_penetration == (choice == "penetration")
    scared = odds_for_situation(is2, sherman)
    assert exact(scared, "p_hit") == F(5, 9) and scared.grizzled_policy is None


def test_one_red_die_against_armour_one_and_two_TTT_E5() -> None:
    """TTT-E5: one red die: PEN on 3, 4, 5 (two) and 6, so 4/6 reach 1 PEN; only the 5
    reaches 2 (the 6's star has no blank die left to reroll, TTT-E6): 1/6."""
    gun = card("m5-stuart", penetration=1)
    for armour, expected in ((1, F(2, 3)), (2, F(1, 6))):
        target = card("m4a1-sherman", armour=Armour(front=armour, side=5, rear=5, turret=5))
        odds = odds_for_situation(gun, target)
        assert (odds.penetration_dice, odds.needed) == (1, armour)
        assert exact(odds, "p_penetrate_given_hit") == expected, armour
    assert penetration_odds(HOUSE_RED, 1, 2, False) == F(1, 6)


def test_star_rerolls_a_blank_die_TTT_E6() -> None:
    """TTT-E6: two red dice against 2. Without stars 20/36 reach 2 PEN (all but blank-blank
    and blank-single). With the house 6 (PEN + *), the four rolls 6 + blank (4/36) reroll the
    blank, which then shows PEN 4/6 of the time: 20/36 + 4/36 * 4/6 = 17/27."""
    assert penetration_odds(HOUSE_RED, 2, 2, False) == F(17, 27)
    no_star = ((0, 0), (0, 0), (1, 0), (1, 0), (2, 0), (1, 0))
    assert penetration_odds(no_star, 2, 2, False) == F(20, 36)


def test_grizzled_reroll_on_penetration_takes_the_weakest_die_TTT_CR1() -> None:
    """TTT-CR1: one red die against 2 with the Grizzled reroll: the 5 (1/6) succeeds at once;
    any other face is rerolled and then needs the 5 again: 1/6 + 5/6 * 1/6 = 11/36."""
    assert penetration_odds(HOUSE_RED, 1, 2, True) == F(11, 36)


def test_a_blank_that_shows_a_lone_star_is_rerolled_until_it_changes_TTT_E6() -> None:
    """TTT-E6: a die whose face 2 is a blank with a *. One die against 1: PEN on 3-6 (4/6);
    the starred blank (1/6) rerolls itself until it stops: PEN 4/5 of those times. P = 4/5."""
    red = ((0, 0), (0, 1), (1, 0), (1, 0), (2, 0), (1, 2))
    assert penetration_odds(red, 1, 1, False) == F(4, 5)


Slots = list[tuple[int, int]]


def _enumerate(red: tuple[tuple[int, int], ...], dice: int, needed: int, reroll: bool) -> Fraction:
    """Every face of every roll, slots kept as the referee keeps them (no shortcuts)."""
    sides = len(red)

    def spend(slots: list[tuple[int, int]], stars: int) -> list[tuple[Fraction, Slots]]:
        if stars > 0 and sum(p for p, _ in slots) < needed:
            blank = next((i for i, (p, _) in enumerate(slots) if p == 0), None)
            if blank is not None:
                out = []
                for face in red:
                    new = [*slots[:blank], face, *slots[blank + 1 :]]
                    out += [(q / sides, s) for q, s in spend(new, stars - 1 + face[1])]
                return out
        return [(F(1), slots)]

    if needed <= 0:
        return F(1)
    total = F(0)
    for roll in product(red, repeat=dice):
        for q, slots in spend(list(roll), sum(f[1] for f in roll)):
            if sum(p for p, _ in slots) >= needed:
                total += q / sides**dice
            elif reroll and slots:
                weakest = min(range(len(slots)), key=lambda i: slots[i][0])
                for face in red:
                    new = [*slots[:weakest], face, *slots[weakest + 1 :]]
                    for q2, s2 in spend(new, face[1]):
                        if sum(p for p, _ in s2) >= needed:
                            total += q * q2 / sides / sides**dice
    return total


def test_blank_face_with_two_stars_has_no_exact_odds_TTT_E6() -> None:
    """TTT-E6: a blank face with two *s lets stars pile up without end; the chance the chain
    runs dry is then irrational, so the odds refuse (ODDS_NOT_EXACT) instead of guessing,
    and options_for simply leaves the odds out."""
    red = ((), ("STAR", "STAR"), ("PEN",), ("PEN",), ("PEN", "PEN"), ("PEN", "STAR"))
    with pytest.raises(RulesError) as info:
        odds_for_situation(card("tiger-i"), card("m4a1-sherman"), rules=rules_with(red=red))
    assert info.value.code == "ODDS_NOT_EXACT"
    g = Game(cards=cards_with(red=red))
    g.place("R1", "tiger-i", "Red", 0.0, -20.0, 0.0)
    g.place("B1", "m4a1-sherman", "Blue", 0.0, 20.0, 180.0)
    g.crew("R1")
    g.crew("B1")
    g.start()
    engage = next(o for o in options_for(g.state, "R1") if o.kind == "engage")
    assert engage.detail is not None
    assert engage.detail["targets"] == [{"target_id": "B1", "range": 40.0}]


# --- modifiers, sides, cards and morale ---------------------------------------------------------


def test_accuracy_penalties_with_their_clauses_TTT_M1_TTT_MR1_TTT_M2_TTT_CN1_TTT_SM3() -> None:
    """Each Accuracy penalty costs its dice and is listed with its clause: moved -2 (TTT-M1),
    Shaken -1 (TTT-MR1), Optics Damaged -1 (TTT-E7), a fast target whose card evades -1
    (TTT-M2), light/heavy concealment -1/-2 (TTT-CN1), smoke -N (TTT-SM3)."""
    king, cromwell, panther = card("king-tiger"), card("cromwell-iv"), card("panther-g")
    cases = [
        ({"moved": True}, cromwell, "TTT-M1", 2),
        ({"shaken": True}, cromwell, "TTT-MR1", 3),
        ({"optics_damage": 1}, cromwell, "TTT-E7", 3),
        ({"target_fast": True}, cromwell, "TTT-M2", 3),
        ({"target_fast": True}, panther, None, 4),  # the Panther's card gives no evasion
        ({"concealment": 1}, cromwell, "TTT-CN1", 3),
        ({"concealment": 2}, cromwell, "TTT-CN1", 2),
        ({"smoke": 2}, cromwell, "TTT-SM3", 2),
    ]
    for kwargs, target, clause, dice in cases:
        odds = odds_for_situation(king, target, **kwargs)
        assert odds.accuracy_dice == dice, kwargs
        assert [m.clause for m in odds.modifiers] == ([clause] if clause else []), kwargs
        full = odds_for_situation(king, target)
        assert (exact(odds, "p_hit") < exact(full, "p_hit")) == (clause is not None)


def test_gun_damage_and_cover_TTT_E7_TTT_CV1_TTT_E5() -> None:
    """Gun Damaged costs a red die (TTT-E7); Cover adds to the PEN needed (TTT-CV1), once by
    default, and option literal also takes it off the dice (TTT-E5)."""
    tiger, sherman = card("tiger-i"), card("m4a1-sherman")
    plain = odds_for_situation(tiger, sherman)
    gun = odds_for_situation(tiger, sherman, gun_damage=1)
    assert (gun.penetration_dice, gun.needed) == (4, 5)
    assert exact(gun, "p_penetrate") < exact(plain, "p_penetrate")
    cover = odds_for_situation(tiger, sherman, cover=1)
    assert (cover.penetration_dice, cover.needed, cover.cover) == (5, 6, 1)
    literal = odds_for_situation(tiger, sherman, cover=1, options=Options(cover="literal"))
    assert (literal.penetration_dice, literal.needed) == (4, 6)
    assert [m.clause for m in literal.modifiers] == ["TTT-CV1", "TTT-E5"]
    assert exact(literal, "p_penetrate") < exact(cover, "p_penetrate") < exact(plain, "p_penetrate")


def test_best_armour_turn_and_hull_down_decide_the_side_TTT_E2_TTT_E3() -> None:
    """TTT-E3: shot from the side, the referee turns the Sherman's front (5) to the shot, and
    the odds are against the front; with option never they are against the side (3).
    TTT-E2: a hull-down target is hit on the Turret."""
    anywhere = Options(deploy_depth=48.0)
    g = duel(red_at=(20.0, 0.0, 270.0), blue_at=(0.0, 0.0, 0.0), options=anywhere)
    turned = odds_against(g.state, "R1", "B1")
    assert (turned.hit_side, turned.armour, turned.best_armour_turn) == ("front", 5, "front")
    never = Options(deploy_depth=48.0, best_armour="never")
    g2 = duel(red_at=(20.0, 0.0, 270.0), blue_at=(0.0, 0.0, 0.0), options=never)
    flank = odds_against(g2.state, "R1", "B1")
    assert (flank.hit_side, flank.armour, flank.best_armour_turn) == ("side", 3, None)
    assert exact(flank, "p_penetrate") > exact(turned, "p_penetrate")
    turret = odds_for_situation(card("tiger-i"), card("m4a1-sherman"), side="turret")
    assert (turret.hit_side, turret.hull_down, turret.armour) == ("turret", True, 5)


def test_damage_card_odds_follow_the_draw_pile_TTT_E7() -> None:
    """TTT-E7: the card is drawn from what is left of the table's deck (a full deck when the
    pile is empty): the card odds follow the pile and add up to P(penetrated)."""
    tiger, sherman = card("tiger-i"), card("m4a1-sherman")
    fresh = odds_for_situation(tiger, sherman)
    assert fresh.deck_reshuffled and fresh.deck_left == 20
    explosion = next(c for c in fresh.cards if c.name == "Explosion")
    assert F(explosion.exact_given_penetration) == F(3, 20)
    assert sum(F(c.exact) for c in fresh.cards) == exact(fresh, "p_penetrate")
    assert exact(fresh, "p_destroyed_by_card") == exact(fresh, "p_penetrate") * F(8, 20)
    last = odds_for_situation(tiger, sherman, pile=("Knocked Out",))
    assert not last.deck_reshuffled and last.deck_left == 1
    assert exact(last, "p_destroyed") == exact(last, "p_penetrate")
    harmless = odds_for_situation(tiger, sherman, pile=("Glancing Blow", "Gun Damaged"))
    assert exact(harmless, "p_destroyed") == 0


def test_card_effects_come_from_the_tables_deck_data_TTT_E7() -> None:
    """TTT-E7: a card's effect is the deck data's own: two decks with the same card names and
    different effects give different odds (and the cache does not mix them up)."""
    tiger, sherman = card("tiger-i"), card("m4a1-sherman")
    rules = default_cards().rules
    deadly = rules.model_copy(
        update={
            "deck": tuple(
                c.model_copy(update={"effect": "destroyed"}) if c.name == "Glancing Blow" else c
                for c in rules.deck
            )
        }
    )
    house = odds_for_situation(tiger, sherman, pile=("Glancing Blow",))
    other = odds_for_situation(tiger, sherman, pile=("Glancing Blow",), rules=deadly)
    assert exact(house, "p_destroyed") == 0
    assert exact(other, "p_destroyed") == exact(other, "p_penetrate") > 0


def test_grizzled_target_never_fails_morale_TTT_MO1() -> None:
    """TTT-MO1: a Grizzled target makes no morale check: P(morale failure) = 0."""
    odds = odds_for_situation(card("tiger-i"), card("m4a1-sherman"), target_grizzled=True)
    assert not odds.morale.checks and odds.morale.why_not
    assert exact(odds, "p_morale_failure") == 0


def test_morale_after_a_penetration_or_a_second_hit_TTT_MO2_TTT_MO3() -> None:
    """TTT-MO2/TTT-MO3: a Scared target checks after a penetration that leaves it on the table
    (green 4-6 fail: 1/2); as the second enemy tank's hit this turn, after any hit."""
    tiger, sherman = card("tiger-i"), card("m4a1-sherman")
    odds = odds_for_situation(tiger, sherman)
    stays = F(12, 20)  # every card but the 8 destroying ones leaves it on the table to check
    check = exact(odds, "p_penetrate") * stays
    assert F(odds.morale.exact["p_check"]) == check
    assert exact(odds, "p_morale_failure") == check / 2
    second = odds_for_situation(tiger, sherman, second_hit=True)
    hit_only = exact(second, "p_hit") - exact(second, "p_penetrate")
    assert F(second.morale.exact["p_check"]) == hit_only + check
    assert len(second.morale.triggers) == 2


def test_routed_or_shaken_target_bails_out_when_immobilized_TTT_MR5_TTT_MR3() -> None:
    """TTT-MR5: a Routed crew that draws Immobilized bails out (destroyed, no check). TTT-MR3:
    a Shaken crew already Immobilized that fails again (4-6) Routs and bails out."""
    tiger, sherman = card("tiger-i"), card("m4a1-sherman")
    routed = odds_for_situation(tiger, sherman, target_morale="routed", pile=("Immobilized",))
    assert exact(routed, "p_bail_out") == exact(routed, "p_penetrate")
    assert exact(routed, "p_destroyed") == exact(routed, "p_penetrate")
    assert exact(routed, "p_morale_failure") == 0
    shaken = odds_for_situation(
        tiger, sherman, target_morale="shaken", target_immobilized=True, pile=("Glancing Blow",)
    )
    assert exact(shaken, "p_bail_out") == exact(shaken, "p_penetrate") / 2
    steady = odds_for_situation(tiger, sherman, target_immobilized=True, pile=("Glancing Blow",))
    assert exact(steady, "p_bail_out") == exact(steady, "p_penetrate") / 6  # only a 6 Routs


def test_friends_check_on_a_catastrophe_in_sight_or_the_last_mover_stopped_TTT_MO2() -> None:
    """TTT-MO2 triggers 3 and 4 for the target's friends: B2 alone with B1 checks when B1 is
    destroyed or Immobilized (it was B2's last friend that could move); with B3 too, B2 and
    B3 check only when they see B1 die catastrophically (Explosion, Fire)."""
    alone = build(Spec(friends="one"))
    odds = odds_against(alone, "R1", "B1", friends=True)
    (b2,) = odds.friends or ()
    stops = F(11, 20)  # 8 destroying + 3 Immobilized of a fresh deck
    assert F(b2.exact["p_check"]) == exact(odds, "p_penetrate") * stops
    assert F(b2.exact["p_failure"]) == F(b2.exact["p_check"]) / 2
    pair = build(Spec(friends="hidden"))  # B2 behind a barn, B3 in sight
    odds = odds_against(pair, "R1", "B1", friends=True)
    by_id = {f.tank_id: f for f in odds.friends or ()}
    assert F(by_id["B2"].exact["p_check"]) == 0 and not by_id["B2"].checks
    assert F(by_id["B3"].exact["p_check"]) == exact(odds, "p_penetrate") * F(6, 20)
    assert odds_against(pair, "R1", "B1").friends is None


# --- the table, the API and the card data --------------------------------------------------------


def test_dice_faces_come_from_the_card_data() -> None:
    """A white die printed with HIT on 4, 5 and 6 hits half the time: the odds read the
    table's card data (snapshotted at creation), never hard-coded faces."""
    wide = ((), (), (), ("HIT",), ("HIT",), ("HIT",))
    g = Game(cards=cards_with(white=wide))
    g.place("R1", "is-2", "Red", 0.0, -20.0, 0.0)
    g.place("B1", "m4a1-sherman", "Blue", 0.0, 20.0, 180.0)
    g.crew("R1")
    g.crew("B1")
    g.start()
    assert exact(odds_against(g.state, "R1", "B1"), "p_hit") == F(3, 4)  # 2 dice: 1 - 1/4
    assert exact(odds_against(duel("is-2").state, "R1", "B1"), "p_hit") == F(5, 9)


def test_odds_change_nothing_and_draw_no_dice() -> None:
    """The odds are pure: the state (dice counter and deck included) is the same after
    odds_against, odds_for_shooter and options_for."""
    g = duel(extra=[("B2", "panther-g", "Blue", 10.0, 20.0, 180.0)])
    before = g.state.model_dump_json()
    counter = g.state.dice.counter
    odds_against(g.state, "R1", "B1", friends=True)
    odds_for_shooter(g.state, "R1")
    options_for(g.state, "R1")
    assert g.state.model_dump_json() == before
    assert g.state.dice.counter == counter


@pytest.mark.parametrize(
    ("target", "code"),
    [("R2", "NOT_AN_ENEMY"), ("B2", "NO_LINE_OF_SIGHT"), ("B9", "UNKNOWN_TANK")],
)
def test_illegal_shot_raises_the_engage_refusal_TTT_E1(target: str, code: str) -> None:
    """TTT-E1: odds for a shot the referee would refuse raise the same RulesError code."""
    g = Game(options=Options(deploy_depth=48.0))
    g.terrain("rock", "blocking", {"shape": "circle", "x": 10.0, "z": 0.0, "radius": 3.0})
    g.place("R1", "tiger-i", "Red", 0.0, -20.0, 0.0)
    g.place("R2", "tiger-i", "Red", 5.0, -20.0, 0.0)
    g.place("B1", "m4a1-sherman", "Blue", 0.0, 20.0, 180.0)
    g.place("B2", "m4a1-sherman", "Blue", 20.0, 20.0, 180.0)
    for tank_id in ("R1", "R2", "B1", "B2"):
        g.crew(tank_id)
    g.start()
    with pytest.raises(RulesError) as odds_err:
        odds_against(g.state, "R1", target)
    with pytest.raises(RulesError) as engage_err:
        g.do(Engage(tank_id="R1", target_id=target), white=[1, 1, 1, 1])
    assert odds_err.value.code == engage_err.value.code == code
    g.do(Engage(tank_id="R1", target_id="B1"), white=[1, 1, 1, 1])
    with pytest.raises(RulesError) as again:
        odds_for_shooter(g.state, "R1")
    assert again.value.code == "ALREADY_ENGAGED"


def test_odds_for_shooter_ranks_likely_kills_first() -> None:
    """Every enemy the shooter may Engage now, most likely destroyed first (ties by id);
    an enemy out of sight is left out."""
    g = Game(options=Options(deploy_depth=48.0))
    g.terrain("rock", "blocking", {"shape": "circle", "x": 15.0, "z": 0.0, "radius": 3.0})
    g.place("R1", "tiger-i", "Red", 0.0, -20.0, 0.0)
    for tank_id, card_id, x in (
        ("B1", "king-tiger", -20.0),
        ("B2", "m5-stuart", 0.0),
        ("B3", "m5-stuart", 10.0),
        ("B4", "m4a1-sherman", 30.0),  # behind the rock
    ):
        g.place(tank_id, card_id, "Blue", x, 20.0, 180.0)
    for tank_id in ("R1", "B1", "B2", "B3", "B4"):
        g.crew(tank_id)
    g.start()
    ranked = odds_for_shooter(g.state, "R1")
    assert [o.target for o in ranked] == ["B2", "B3", "B1"]
    assert ranked[0].p_destroyed == ranked[1].p_destroyed > ranked[2].p_destroyed


def test_shot_odds_are_json_with_exact_fractions() -> None:
    """The answer serialises to JSON; each exact value is an "a/b" string equal to its float."""
    odds = odds_against(build(Spec(friends="one", second_hit=True)), "R1", "B1", friends=True)
    data = json.loads(odds.model_dump_json())
    assert ShotOdds.model_validate(data) == odds
    for name, text in data["exact"].items():
        numerator, denominator = text.split("/")
        assert int(denominator) > 0
        assert data[name] == pytest.approx(int(numerator) / int(denominator), abs=1e-15), name
    assert data["modifiers"] == []  # the default shot: the Tiger stands still in the open
    assert data["shooter"] == "R1" and data["target"] == "B1" and data["needed"] == 5
    assert [f["tank_id"] for f in data["friends"]] == ["B2"]


def test_options_for_engage_targets_carry_the_odds() -> None:
    """Each Engage target in options_for carries p_hit, p_penetrate and p_destroyed (rounded
    to 4 places) from the same odds; odds=False leaves them out."""
    g = duel(extra=[("B2", "panther-g", "Blue", 10.0, 20.0, 180.0)])
    engage = next(o for o in options_for(g.state, "R1") if o.kind == "engage")
    assert engage.detail is not None
    for target in engage.detail["targets"]:
        odds = odds_against(g.state, "R1", target["target_id"])
        for name in ("p_hit", "p_penetrate", "p_destroyed"):
            assert target[name] == round(getattr(odds, name), 4)
    bare = next(o for o in options_for(g.state, "R1", odds=False) if o.kind == "engage")
    assert bare.detail is not None
    assert all(set(t) == {"target_id", "range"} for t in bare.detail["targets"])
