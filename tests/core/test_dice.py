"""The shared dice (tankref.core.dice): faces from data, every roll recorded, the seeded
HMAC-SHA256 generator with rejection sampling, and dice rolled at the table (supplied faces,
with exact refusals when they are wrong or short)."""

from __future__ import annotations

import hashlib
import hmac
import secrets
import tomllib
from collections import Counter
from collections.abc import Sequence

import pytest
from pydantic import ValidationError

from kit.ttt import Game
from tankref.core.dice import (
    DiceBag,
    DiceSource,
    DiceState,
    DieSpec,
    Face,
    SuppliedDice,
    draw_number,
)
from tankref.core.errors import DiceNeeded, RulesError
from tankref.rulesets.ttt.actions import Engage
from tankref.rulesets.ttt.cards import default_cards
from tankref.rulesets.ttt.engine import adjudicate

DICE = default_cards().rules.dice


def bag(
    supplied: SuppliedDice | None = None,
    *,
    seed: str = "dice-tests",
    source: DiceSource = "server",
    player_seeds: tuple[str, ...] = (),
    counter: int = 0,
) -> DiceBag:
    state = DiceState(source=source, seed=seed, player_seeds=player_seeds, counter=counter)
    return DiceBag(state, DICE, supplied)


def hmac_words(seed: str, player_seeds: Sequence[str], counter: int, attempt: int) -> list[int]:
    """The eight 32-bit words of HMAC-SHA256(seed, player seeds | counter | attempt)."""
    prefix = b"".join(len(s).to_bytes(2, "big") + s.encode() for s in player_seeds)
    msg = prefix + counter.to_bytes(8, "big") + attempt.to_bytes(4, "big")
    digest = hmac.new(seed.encode(), msg, hashlib.sha256).digest()
    return [int.from_bytes(digest[i : i + 4], "big") for i in range(0, 32, 4)]


# --- faces from data -------------------------------------------------------------------------


def test_shipped_dice_faces_come_from_card_data() -> None:
    """House-default dice (cards/ttt/dice.toml): white 5 HIT, 6 HIT HIT; red 6 PEN + STAR."""
    white, red, green = DICE["white"], DICE["red"], DICE["green"]
    assert [white.icons(f) for f in range(1, 7)] == [(), (), (), (), ("HIT",), ("HIT", "HIT")]
    assert [red.icons(f) for f in range(1, 7)] == [
        (), (), ("PEN",), ("PEN",), ("PEN", "PEN"), ("PEN", "STAR")
    ]  # fmt: skip
    assert green.sides == 6 and all(green.icons(f) == () for f in range(1, 7))


def test_custom_die_from_toml_data() -> None:
    """A die of any size is card data: faces and icons as written, looked up by face number
    even when the faces are listed out of order."""
    text = """
    [[die]]
    name = "gold"
    label = "gold d7"
    faces = [
        { face = 3, icons = ["STAR"] }, { face = 1 }, { face = 2 }, { face = 4 },
        { face = 5 }, { face = 6, icons = ["HIT"] }, { face = 7, icons = ["HIT", "STAR"] },
    ]
    """
    die = DieSpec.model_validate(tomllib.loads(text)["die"][0])
    assert die.sides == 7
    assert die.icons(3) == ("STAR",) and die.icons(1) == () and die.icons(7) == ("HIT", "STAR")
    b = DiceBag(DiceState(seed="gold"), {"gold": die}, SuppliedDice(faces={"gold": [3, 7]}))
    assert [r.icons for r in b.roll("gold", 2, "for gold")] == [("STAR",), ("HIT", "STAR")]


@pytest.mark.parametrize(
    "numbers",
    [(1, 2, 4), (1, 1, 2), (2, 3), (1, 2, 3, 3, 5), (1,)],
    ids=["gap", "duplicate", "no-one", "dup-and-gap", "one-face"],
)
def test_diespec_refuses_faces_not_numbered_one_to_n(numbers: tuple[int, ...]) -> None:
    """DieSpec refuses faces that are not exactly 1..n (and a die needs two faces at least)."""
    with pytest.raises(ValidationError):
        DieSpec(name="bad", label="bad", faces=tuple(Face(face=n) for n in numbers))


# --- every roll recorded ---------------------------------------------------------------------


def test_every_server_roll_is_recorded() -> None:
    """Each die is recorded: die, face, its icons, purpose, source and generator counter."""
    b = bag()
    rolled = b.roll("red", 3, "for Penetration")
    assert b.rolls == rolled and len(rolled) == 3
    for i, r in enumerate(rolled):
        assert (r.die, r.purpose, r.source, r.counter) == ("red", "for Penetration", "server", i)
        assert 1 <= r.face <= 6 and r.icons == DICE["red"].icons(r.face)
        assert r.reroll_of is None


def test_table_roll_is_recorded_without_counter() -> None:
    """A table die is recorded with source "table", its icons, and no generator counter."""
    b = bag(SuppliedDice(faces={"white": [6]}))
    (r,) = b.roll("white", 1, "for Accuracy")
    assert (r.die, r.face, r.icons, r.purpose, r.source, r.counter) == (
        "white", 6, ("HIT", "HIT"), "for Accuracy", "table", None
    )  # fmt: skip
    assert b.state.counter == 0


def test_reroll_records_what_it_replaced() -> None:
    """A reroll is a new recorded roll naming the index of the die it replaced."""
    b = bag()
    b.roll("red", 2, "for Penetration")
    again = b.reroll(b.rolls[1], "to reroll (a * was rolled)")
    assert again.reroll_of == 1 and again.counter == 2 and again.die == "red"
    assert len(b.rolls) == 3


# --- the seeded generator --------------------------------------------------------------------


def test_same_seed_and_counter_same_face() -> None:
    """Replay: the same seed and counter give the same face, and the same stream of rolls."""
    assert [draw_number("abc", (), c, 6) for c in range(50)] == [
        draw_number("abc", (), c, 6) for c in range(50)
    ]
    one, two = bag(seed="replay"), bag(seed="replay")
    faces = [r.face for r in one.roll("white", 20, "x")]
    assert faces == [r.face for r in two.roll("white", 20, "x")]


def test_different_seeds_differ() -> None:
    """Two seeds give different streams."""
    a = [draw_number("seed-a", (), c, 6) for c in range(60)]
    b = [draw_number("seed-b", (), c, 6) for c in range(60)]
    assert a != b


def test_counter_advances_one_per_die() -> None:
    """The counter goes up by exactly one per die rolled (and per deck-shuffle number)."""
    b = bag(counter=10)
    rolled = b.roll("white", 4, "for Accuracy")
    assert [r.counter for r in rolled] == [10, 11, 12, 13] and b.settled_state().counter == 14
    b.roll("green", 1, "for morale")
    assert b.settled_state().counter == 15
    n = b.uniform(20)
    assert 0 <= n < 20 and b.settled_state().counter == 16
    assert n == draw_number("dice-tests", (), 15, 20) - 1


@pytest.mark.parametrize("sides", [6, 7])
def test_draw_number_is_uniform(sides: int) -> None:
    """Chi-square over 60,000 draws: each face about equally likely (fixed seed: no flakes).

    The bound 40 lies beyond the 1-in-a-million tail for 5 or 6 degrees of freedom."""
    n = 60_000
    counts = Counter(draw_number("uniformity", (), c, sides) for c in range(n))
    assert set(counts) == set(range(1, sides + 1))
    expected = n / sides
    chi2 = sum((counts[f] - expected) ** 2 / expected for f in range(1, sides + 1))
    assert chi2 < 40, (chi2, counts)


@pytest.mark.parametrize("players", [(), ("alice",), ("alice", "bob")])
def test_draw_number_is_hmac_sha256(players: tuple[str, ...]) -> None:
    """Each number is the first accepted 32-bit word of HMAC-SHA256 (recomputed here), mod n."""
    for counter in range(100):
        for sides in (6, 7, 20):
            word = hmac_words("table-seed", players, counter, 0)[0]  # never rejected for these
            assert draw_number("table-seed", players, counter, sides) == word % sides + 1


@pytest.mark.parametrize(
    "seed",
    ["", "k" * 63, "k" * 64, "k" * 65, "a" * 200, "dé-seed-ü", secrets.token_hex(32)],
)
def test_draw_number_is_hmac_sha256_for_any_key_length(seed: str) -> None:
    """The draw is HMAC-SHA256 (stdlib ``hmac``, recomputed here) whatever the seed's length:
    a key shorter than SHA-256's 64-byte block, exactly one block, and longer (hashed first)."""
    for counter in range(40):
        word = hmac_words(seed, ("p",), counter, 0)[0]
        assert draw_number(seed, ("p",), counter, 6) == word % 6 + 1


def test_rejection_sampling_skips_biased_words() -> None:
    """A word at or above the largest multiple of n below 2**32 is rejected and the next is
    used; when all eight are rejected a new HMAC (attempt 1) is drawn."""
    sides = 2**31 + 1  # limit = 2**31 + 1: about half the words are rejected
    limit = 2**32 - (2**32 % sides)
    assert limit == 2**31 + 1
    seen_skip = seen_new_attempt = False
    for counter in range(3000):
        words = hmac_words("reject", (), counter, 0)
        got = draw_number("reject", (), counter, sides)
        accepted = [w for w in words if w < limit]
        if accepted:
            assert got == accepted[0] % sides + 1
            seen_skip |= words[0] >= limit
        else:
            again = [w for w in hmac_words("reject", (), counter, 1) if w < limit]
            assert got == again[0] % sides + 1
            seen_new_attempt = True
    assert seen_skip and seen_new_attempt


def test_player_seeds_change_the_stream() -> None:
    """Player seeds are mixed in: adding, reordering or re-splitting them changes the stream."""

    def stream(players: tuple[str, ...]) -> list[int]:
        return [draw_number("s", players, c, 6) for c in range(60)]

    base = stream(())
    assert stream(("alice",)) != base
    assert stream(("alice", "bob")) != stream(("bob", "alice"))
    assert stream(("ab", "c")) != stream(("a", "bc"))  # length-prefixed, no ambiguity
    b = bag(seed="s", player_seeds=("alice",))
    assert [r.face for r in b.roll("green", 60, "x")] == stream(("alice",))


# --- table dice ------------------------------------------------------------------------------


def test_supplied_faces_used_in_order() -> None:
    """Table dice are taken in the order supplied, across calls, per colour."""
    b = bag(SuppliedDice(faces={"white": [6, 1, 5], "red": [3]}))
    assert [r.face for r in b.roll("white", 2, "a")] == [6, 1]
    assert [r.face for r in b.roll("red", 1, "b")] == [3]
    assert [r.face for r in b.roll("white", 1, "c")] == [5]
    b.finish()  # everything used: no complaint


@pytest.mark.parametrize("face", [0, 7, -1])
def test_face_out_of_range_is_bad_face(face: int) -> None:
    """A face that is not on the die is refused BAD_FACE, naming the die."""
    with pytest.raises(RulesError) as info:
        bag(SuppliedDice(faces={"red": [3, face]}))
    assert info.value.code == "BAD_FACE" and "dice.red" in info.value.message


def test_unknown_die_is_refused() -> None:
    """Faces for a die the ruleset does not know are refused UNKNOWN_DIE."""
    with pytest.raises(RulesError) as info:
        bag(SuppliedDice(faces={"blue": [1]}))
    assert info.value.code == "UNKNOWN_DIE" and "blue" in info.value.message


def test_too_few_faces_says_exactly_what_is_needed() -> None:
    """Too few faces raise DiceNeeded naming the count, colour and purpose still missing."""
    b = bag(SuppliedDice(faces={"white": [5, 1], "red": [4]}))
    b.roll("white", 2, "for Accuracy")
    with pytest.raises(DiceNeeded) as info:
        b.roll("red", 2, "for Penetration")
    err = info.value
    assert err.code == "DICE_NEEDED" and err.message == "needs 1 red die for Penetration"
    assert err.details == {
        "need": {"die": "red", "count": 1, "purpose": "for Penetration"},
        "used_so_far": {"white": 2},
    }
    with pytest.raises(DiceNeeded) as info:
        bag(SuppliedDice()).roll("white", 3, "for Accuracy")
    assert info.value.message == "needs 3 white dice for Accuracy"


def test_too_many_faces_is_a_wrong_count() -> None:
    """Faces left unused at the end are refused DICE_COUNT_WRONG, with what was left."""
    b = bag(SuppliedDice(faces={"white": [5, 1, 2]}))
    b.roll("white", 2, "for Accuracy")
    with pytest.raises(RulesError) as info:
        b.finish()
    assert info.value.code == "DICE_COUNT_WRONG"
    assert info.value.details == {"left_over": {"white": 1}, "used": {"white": 2}}


def test_unused_damage_card_is_a_wrong_count() -> None:
    """A damage card supplied but never drawn is a wrong count too; drawn, it is fine."""
    b = bag(SuppliedDice(damage_card="Explosion"))
    with pytest.raises(RulesError) as info:
        b.finish()
    assert info.value.code == "DICE_COUNT_WRONG"
    assert info.value.details["left_over"] == {"damage_card": 1}
    b = bag(SuppliedDice(damage_card="Explosion"))
    assert b.take_damage_card("for B1") == "Explosion"
    b.finish()


def test_table_source_without_faces_needs_dice() -> None:
    """A table that rolls its own dice (source "table") never falls back to the generator."""
    b = bag(source="table")
    assert b.from_table
    with pytest.raises(DiceNeeded):
        b.roll("green", 1, "for morale")
    assert b.state.counter == 0


# --- through the engine ----------------------------------------------------------------------


def table_duel(source: DiceSource = "table", seed: str = "engine-dice") -> Game:
    """Red's Tiger R1 at (0,-20) facing north, Blue's Sherman B1 at (0,20) facing south."""
    g = Game(dice=DiceState(source=source, seed=seed))
    g.place("R1", "tiger-i", "Red", 0, -20, 0)
    g.place("B1", "m4a1-sherman", "Blue", 0, 20, 180)
    g.crew("R1")
    g.crew("B1")
    g.start()
    return g


def test_engine_table_dice_needed_then_supplied() -> None:
    """Table dice through the engine: an Engage without faces is refused DICE_NEEDED saying
    "needs 4 white dice for Accuracy", the state unchanged; with the faces it succeeds."""
    g = table_duel()
    action = Engage(tank_id="R1", target_id="B1")
    before = g.state.model_dump_json()
    with pytest.raises(DiceNeeded) as info:
        adjudicate(g.state, action)
    assert info.value.message == "needs 4 white dice for Accuracy"
    assert g.state.model_dump_json() == before
    r = g.do(action, white=[1, 2, 3, 4])
    assert r.outcome["hit"] is False
    assert [(x.die, x.face, x.source) for x in r.rolls] == [
        ("white", f, "table") for f in (1, 2, 3, 4)
    ]
    assert g.state.dice.counter == 0  # no generator number drawn
    assert g.tank("R1").engaged


def test_engine_asks_for_the_next_dice_with_what_was_used() -> None:
    """On a hit with no red faces, the refusal names the red dice and the white ones used."""
    g = table_duel()
    err = g.refused(Engage(tank_id="R1", target_id="B1"), "DICE_NEEDED", white=[5, 1, 1, 1])
    assert err.message == "needs 5 red dice for Penetration"
    assert err.details["used_so_far"] == {"white": 4}


def test_engine_refuses_wrong_counts_and_faces() -> None:
    """Through the engine: an extra face, an unused damage card, a bad face, an unknown die
    are all refused and change nothing."""
    g = table_duel()
    action = Engage(tank_id="R1", target_id="B1")
    err = g.refused(action, "DICE_COUNT_WRONG", white=[1, 1, 1, 1, 1])
    assert err.details["left_over"] == {"white": 1}
    err = g.refused(action, "DICE_COUNT_WRONG", white=[1, 1, 1, 1], card="Explosion")
    assert err.details["left_over"] == {"damage_card": 1}
    g.refused(action, "BAD_FACE", white=[1, 1, 1, 9])
    with pytest.raises(RulesError) as info:
        adjudicate(g.state, action, SuppliedDice(faces={"purple": [1]}))
    assert info.value.code == "UNKNOWN_DIE"


def test_engine_server_dice_replay_bit_for_bit() -> None:
    """Server dice: the same seed and actions give the same rolls and state; another seed not."""

    def play(seed: str) -> tuple[list[tuple[str, int, int | None]], str]:
        g = table_duel("server", seed)
        adj = adjudicate(g.state, Engage(tank_id="R1", target_id="B1"))
        rolls = [(r.die, r.face, r.counter) for r in adj.result.rolls]
        assert all(r.source == "server" for r in adj.result.rolls)
        assert adj.state.dice.counter >= len(rolls)
        return rolls, adj.state.model_dump_json()

    first, again = play("seed-one"), play("seed-one")
    assert first == again
    assert [c for _, _, c in first[0]][:4] == [0, 1, 2, 3]
    assert play("seed-two")[0] != first[0]
