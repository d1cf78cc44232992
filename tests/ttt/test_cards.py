"""The shipped TinyTableTopTanks card data: it loads, it ranks sensibly, and broken files
are reported with every problem at once (file, entry, field)."""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path

import pytest

from tankref.core.carddata import shipped_dir
from tankref.core.errors import DataError
from tankref.rulesets.ttt.cards import (
    ACCURACY_DIE,
    HIT,
    MORALE_DIE,
    PEN,
    PENETRATION_DIE,
    STAR,
    CardSet,
    TankCard,
    load_cards,
)

# The house-default damage deck from the clause list: name -> (count, effect, catastrophic).
HOUSE_DECK = {
    "Explosion": (3, "destroyed", True),
    "Fire": (3, "destroyed", True),
    "Knocked Out": (2, "destroyed", False),
    "Immobilized": (3, "immobilized", False),
    "Gun Damaged": (2, "gun_damaged", False),
    "Optics Damaged": (2, "optics_damaged", False),
    "Engine Damaged": (2, "engine_damaged", False),
    "Turret Jammed": (1, "turret_jammed", False),
    "Crew Stunned": (1, "crew_stunned", False),
    "Glancing Blow": (1, "none", False),
}

# Every tank in /work/shared/reference/wwii-tanks.md.
REFERENCE_TANKS = {
    "m4a1-sherman",
    "sherman-firefly",
    "panzer-iv-h",
    "panzer-iv-f1",
    "panzer-iii-j",
    "tiger-i",
    "panther-g",
    "king-tiger",
    "t-34-76",
    "t-34-85",
    "cromwell-iv",
    "m5-stuart",
    "kv-1",
    "is-2",
    "churchill-vii",
    "m36-jackson",
}

SIDES = ("front", "side", "rear", "turret")


@pytest.fixture(scope="module")
def cards() -> CardSet:
    return load_cards()


def tank(cards: CardSet, card_id: str) -> TankCard:
    card = cards.tank(card_id)
    assert card is not None, f"no shipped tank card {card_id!r}"
    return card


def copy_shipped(tmp_path: Path) -> Path:
    folder = tmp_path / "ttt"
    shutil.copytree(shipped_dir("ttt"), folder)
    return folder


def problems_of(folder: Path | None, extra: tuple[Path, ...] = ()) -> list[str]:
    with pytest.raises(DataError) as info:
        load_cards(folder, extra=extra)
    return info.value.problems


def pen_chance(dice: int, armour: int) -> float:
    """P(PEN icons >= armour) for ``dice`` house red dice, before star rerolls."""
    per_die = {0: 2 / 6, 1: 3 / 6, 2: 1 / 6}  # faces 1-2 blank; 3, 4, 6 one PEN; 5 two PEN
    dist = {0: 1.0}
    for _ in range(dice):
        nxt: dict[int, float] = {}
        for total, p in dist.items():
            for pen, q in per_die.items():
                nxt[total + pen] = nxt.get(total + pen, 0.0) + p * q
        dist = nxt
    return sum(p for total, p in dist.items() if total >= armour)


# --- (a) the shipped cards -------------------------------------------------------------------


def test_shipped_cards_load_with_every_reference_tank(cards: CardSet) -> None:
    assert len(cards.tanks) >= 12
    assert set(cards.tanks) >= REFERENCE_TANKS
    for card_id, card in cards.tanks.items():
        assert card.id == card_id
        assert card.notes, f"{card_id}: notes should say what the card represents"
    assert {c.nation for c in cards.tanks.values()} == {"Germany", "USA", "USSR", "UK"}


def test_shipped_dice_are_the_house_defaults(cards: CardSet) -> None:
    dice = cards.rules.dice
    assert set(dice) == {ACCURACY_DIE, PENETRATION_DIE, MORALE_DIE}
    white, red, green = dice[ACCURACY_DIE], dice[PENETRATION_DIE], dice[MORALE_DIE]
    assert [white.icons(f) for f in range(1, 7)] == [(), (), (), (), (HIT,), (HIT, HIT)]
    assert [red.icons(f) for f in range(1, 7)] == [
        (),
        (),
        (PEN,),
        (PEN,),
        (PEN, PEN),
        (PEN, STAR),
    ]
    assert green.sides == 6
    assert all(green.icons(f) == () for f in range(1, 7))
    assert "Accuracy" in white.label and "Penetration" in red.label


def test_shipped_damage_deck_is_the_20_card_house_default(cards: CardSet) -> None:
    deck = cards.rules.deck
    assert {c.name: (c.count, c.effect, c.catastrophic) for c in deck} == HOUSE_DECK
    assert len(cards.rules.full_deck()) == 20
    assert Counter(cards.rules.full_deck()) == {n: v[0] for n, v in HOUSE_DECK.items()}
    assert all(c.text for c in deck)


def test_deck_names_and_cards_by_name_are_the_deck_s_own(cards: CardSet) -> None:
    """What a shuffle puts back and what a drawn name means (TTT-E7), read from a per-rules
    cache: the same as reading the deck itself, for each table's own (edited) deck too."""
    rules = cards.rules
    assert rules.deck_names() == tuple(c.name for c in rules.deck for _ in range(c.count))
    assert rules.full_deck() == list(rules.deck_names())
    assert all(rules.deck_card(c.name) is c for c in rules.deck)
    assert rules.deck_card("No Such Card") is None
    edited = rules.model_copy(update={"deck": rules.deck[:2]})
    assert edited.deck_names() == tuple(c.name for c in edited.deck for _ in range(c.count))
    assert rules.deck_card(rules.deck[2].name) is rules.deck[2]
    assert edited.deck_card(rules.deck[2].name) is None


# --- (b) the values rank sensibly against the published figures ------------------------------


def test_front_armour_king_tiger_over_tiger_over_panzer_iv(cards: CardSet) -> None:
    king, tiger = tank(cards, "king-tiger"), tank(cards, "tiger-i")
    p4h, p4f = tank(cards, "panzer-iv-h"), tank(cards, "panzer-iv-f1")
    assert king.armour.front > tiger.armour.front > p4h.armour.front > p4f.armour.front
    assert king.armour.front == max(c.armour.front for c in cards.tanks.values())


def test_firefly_outguns_the_75mm_sherman_on_the_same_hull(cards: CardSet) -> None:
    firefly, sherman = tank(cards, "sherman-firefly"), tank(cards, "m4a1-sherman")
    assert firefly.penetration > sherman.penetration
    assert firefly.penetration >= tank(cards, "panzer-iv-h").penetration
    assert firefly.armour == sherman.armour.model_copy(update={"rear": firefly.armour.rear})


def test_gun_ranking_follows_published_penetration(cards: CardSet) -> None:
    def pen(card_id: str) -> int:
        return tank(cards, card_id).penetration

    assert pen("king-tiger") == max(c.penetration for c in cards.tanks.values())
    assert pen("king-tiger") > pen("panther-g") >= pen("tiger-i") > pen("panzer-iv-h")
    assert pen("panzer-iv-h") > pen("panzer-iv-f1")
    assert pen("t-34-85") > pen("t-34-76")
    assert pen("m36-jackson") > pen("m4a1-sherman")


def test_stuart_has_the_lowest_armour_and_penetration(cards: CardSet) -> None:
    stuart = tank(cards, "m5-stuart")
    others = [c for c in cards.tanks.values() if c.id != stuart.id]

    def total(card: TankCard) -> int:
        return sum(card.armour.of(s) for s in SIDES)

    assert all(total(stuart) < total(c) for c in others)
    assert all(stuart.armour.front < c.armour.front for c in others)
    assert stuart.penetration == min(c.penetration for c in cards.tanks.values())
    assert stuart.movement == max(c.movement for c in cards.tanks.values())


def test_churchill_vii_front_very_high_but_gun_weak(cards: CardSet) -> None:
    churchill = tank(cards, "churchill-vii")
    others = [c for c in cards.tanks.values() if c.id not in {"churchill-vii", "king-tiger"}]
    assert all(churchill.armour.front >= c.armour.front for c in others)
    assert churchill.armour.turret >= tank(cards, "tiger-i").armour.turret
    assert churchill.penetration <= tank(cards, "m4a1-sherman").penetration
    assert churchill.penetration < tank(cards, "panzer-iv-h").penetration
    assert churchill.movement == min(c.movement for c in cards.tanks.values())


def test_kv1_armour_high_all_round(cards: CardSet) -> None:
    kv1 = tank(cards, "kv-1").armour
    values = [kv1.of(s) for s in SIDES]
    assert max(values) - min(values) <= 1
    for medium in ("m4a1-sherman", "panzer-iv-h", "t-34-76", "cromwell-iv", "panther-g"):
        other = tank(cards, medium).armour
        assert kv1.side > other.side, medium
        assert kv1.rear > other.rear, medium


def test_panther_front_high_side_weak(cards: CardSet) -> None:
    panther, tiger = tank(cards, "panther-g"), tank(cards, "tiger-i")
    assert panther.armour.front >= tiger.armour.front
    assert panther.armour.side < tiger.armour.side
    assert panther.armour.front - panther.armour.side >= 3


def test_m36_turret_weak_open_top_but_gun_strong(cards: CardSet) -> None:
    m36 = tank(cards, "m36-jackson")
    assert m36.armour.turret == min(c.armour.turret for c in cards.tanks.values())
    assert m36.armour.turret < m36.armour.front
    assert m36.penetration >= tank(cards, "tiger-i").penetration
    assert "open" in m36.notes.lower()


def test_armour_and_penetration_span_the_scale(cards: CardSet) -> None:
    """TTT-E5: penetration is PEN icons >= armour (+ cover). With the house red die (about 0.83
    PEN per die, a little under 1 with star rerolls) every card keeps armour within 2..8 and
    penetration within 2..6 red dice, so for every pair of tanks the shot ranges from
    near-certain (6 dice against 2) to near-impossible (2 dice against 8), and both ends occur.
    """
    for card in cards.tanks.values():
        assert 2 <= card.penetration <= 6, card.id
        assert 2 <= card.accuracy <= 4, card.id
        for side in SIDES:
            assert 2 <= card.armour.of(side) <= 8, (card.id, side)
    for shooter in cards.tanks.values():
        for target in cards.tanks.values():
            for side in SIDES:
                chance = pen_chance(shooter.penetration, target.armour.of(side))
                assert 0.0 <= chance <= 1.0
    best_gun = max(c.penetration for c in cards.tanks.values())
    worst_gun = min(c.penetration for c in cards.tanks.values())
    assert pen_chance(best_gun, 2) > 0.95  # near-certain
    assert pen_chance(worst_gun, 8) == 0.0  # beyond reach, stars or not (2 PEN a die at most)
    assert 0.2 < pen_chance(3, 3) < 0.8  # a Sherman against a Sherman's side: a real gamble
    pens = {c.penetration for c in cards.tanks.values()}
    fronts = {c.armour.front for c in cards.tanks.values()}
    assert min(pens) == 2 and max(pens) == 6
    assert min(fronts) == 2 and max(fronts) == 8


def test_fast_tanks_evade_and_only_the_stuart_fires_on_the_move(cards: CardSet) -> None:
    """TTT-M2: "-1 enemy Accuracy while Moving Fast" and "may Engage while Moving Fast" are
    card data: the fast light/medium tanks have the first, the Stuart alone the second."""
    for fast in ("m5-stuart", "cromwell-iv", "t-34-76", "t-34-85"):
        assert tank(cards, fast).fast_evasion, fast
    for slow in ("tiger-i", "king-tiger", "churchill-vii", "kv-1", "is-2"):
        assert not tank(cards, slow).fast_evasion, slow
    firing = [c.id for c in cards.tanks.values() if c.engage_while_fast]
    assert firing == ["m5-stuart"]
    assert "Moving Fast" in tank(cards, "m5-stuart").notes
    heavies = ("tiger-i", "king-tiger", "churchill-vii", "kv-1", "is-2")
    assert max(tank(cards, h).movement for h in heavies) < tank(cards, "cromwell-iv").movement


def test_crew_modifiers_are_card_data_and_used_sparingly(cards: CardSet, tmp_path: Path) -> None:
    """TTT-C1: a card may modify the crew roll or make the crew Grizzled automatically; the
    shipped cards use it sparingly, and a card that says grizzled = true is read as such."""
    modified = {c.id for c in cards.tanks.values() if c.crew.modifier != 0}
    assert 1 <= len(modified) <= 3
    assert all(0 <= c.crew.modifier <= 1 for c in cards.tanks.values())
    assert not any(c.crew.grizzled for c in cards.tanks.values())

    folder = copy_shipped(tmp_path)
    (folder / "tanks" / "aces.toml").write_text(
        "[[tank]]\n"
        'id = "tiger-131"\nname = "Tiger 131"\nnation = "Germany"\n'
        "movement = 5\naccuracy = 4\npenetration = 5\n"
        "armour = { front = 6, side = 5, rear = 5, turret = 7 }\n"
        "crew = { modifier = 0, grizzled = true }\n",
        encoding="utf-8",
    )
    ace = load_cards(folder).tank("tiger-131")
    assert ace is not None and ace.crew.grizzled


def test_smoke_abilities_and_uses_come_from_the_card(cards: CardSet) -> None:
    """TTT-SM1: smoke is once per match unless the card says more; TTT-SM2: a mortar places
    its screen within its range, a self screen has none; TTT-SM3: strength 1 or 2."""
    abilities = [s for c in cards.tanks.values() for s in c.smoke]
    assert any(s.uses > 1 for s in abilities)
    assert any(s.uses == 1 for s in abilities)
    assert any(s.strength == 2 for s in abilities)
    for s in abilities:
        assert (s.range is not None) == (s.kind == "mortar"), s.name
    sherman = tank(cards, "m4a1-sherman").smoke_ability("2-inch smoke mortar")
    assert sherman is not None and sherman.kind == "mortar" and sherman.range == 12
    firefly = tank(cards, "sherman-firefly").smoke[0]
    assert firefly.uses == 1  # not written in the file: the default is once per match


# --- (c)-(f) broken data: every problem at once, with file, entry and field -------------------


BROKEN_TANKS = """\
[[tank]]
id = "reverse-gear"
name = "Broken Movement"
nation = "Nowhere"
movement = -1
accuracy = 3
penetration = 3
armour = { front = 4, side = 3, rear = 2, turret = 4 }

[[tank]]
id = "paper-tank"
name = "Broken Armour"
nation = "Nowhere"
movement = 6
accuracy = 3
penetration = 3
armour = { front = "thick", side = 3, rear = 2, turret = 4 }
turbo = true
"""


def test_broken_files_report_every_problem_at_once(tmp_path: Path) -> None:
    folder = copy_shipped(tmp_path)
    broken = folder / "tanks" / "broken.toml"
    broken.write_text(BROKEN_TANKS, encoding="utf-8")
    dice = folder / "dice.toml"
    dice.write_text(
        dice.read_text(encoding="utf-8").replace('label = "red Penetration die"', "label = 6"),
        encoding="utf-8",
    )

    problems = problems_of(folder)

    def find(*parts: str) -> list[str]:
        return [p for p in problems if all(part in p for part in parts)]

    assert find(str(broken), "reverse-gear", "movement")
    assert find(str(broken), "paper-tank", "armour.front")
    assert find(str(broken), "paper-tank", "turbo")
    assert find(str(dice), "red", "label")
    assert len(problems) == 4, problems
    # the good shipped files are not blamed
    assert all("germany.toml" not in p for p in problems)


def test_toml_syntax_error_names_the_file(tmp_path: Path) -> None:
    folder = copy_shipped(tmp_path)
    bad = folder / "tanks" / "typo.toml"
    bad.write_text('[[tank]]\nid = "typo"\nmovement = \n', encoding="utf-8")
    problems = problems_of(folder)
    assert len(problems) == 1
    assert str(bad) in problems[0] and "TOML" in problems[0]


def test_duplicate_tank_id_across_files_is_reported(tmp_path: Path) -> None:
    folder = copy_shipped(tmp_path)
    copy = folder / "tanks" / "zz-copies.toml"
    source = (folder / "tanks" / "germany.toml").read_text(encoding="utf-8")
    copy.write_text(source, encoding="utf-8")
    problems = problems_of(folder)
    assert any(str(copy) in p and "(tiger-i)" in p and "id" in p for p in problems)
    assert all(str(copy) in p for p in problems)

    extra = tmp_path / "mine.toml"
    extra.write_text(source, encoding="utf-8")
    problems = problems_of(None, extra=(extra,))
    assert any(str(extra) in p and "(king-tiger)" in p for p in problems)


@pytest.mark.parametrize(
    ("smoke", "message"),
    [
        ('{ name = "Mortar", kind = "mortar", strength = 1 }', "needs a range"),
        ('{ name = "Candles", kind = "self", strength = 1, range = 6 }', "has no range"),
    ],
)
def test_smoke_range_must_match_its_kind(tmp_path: Path, smoke: str, message: str) -> None:
    """TTT-SM2: a smoke mortar needs a range, a self screen must not have one."""
    folder = copy_shipped(tmp_path)
    bad = folder / "tanks" / "smoky.toml"
    bad.write_text(
        "[[tank]]\n"
        'id = "smoky"\nname = "Smoky"\nnation = "Nowhere"\n'
        "movement = 6\naccuracy = 3\npenetration = 3\n"
        "armour = { front = 4, side = 3, rear = 2, turret = 4 }\n"
        f"smoke = [{smoke}]\n",
        encoding="utf-8",
    )
    problems = problems_of(folder)
    assert len(problems) == 1
    assert str(bad) in problems[0] and "(smoky)" in problems[0]
    assert "smoke.0" in problems[0] and message in problems[0]


# --- (g) the card data ships inside the package ---------------------------------------------


def test_card_data_ships_in_the_package() -> None:
    folder = shipped_dir("ttt")
    assert (folder / "dice.toml").is_file()
    assert (folder / "damage-deck.toml").is_file()
    names = {p.name for p in (folder / "tanks").glob("*.toml")}
    assert names >= {"germany.toml", "usa.toml", "ussr.toml", "uk.toml"}
