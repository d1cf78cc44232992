"""Who draws the damage card (TTT-E7, table setting ``damage_cards``): the referee from its own
deck, or the hit tank's owner from a physical deck, asked for like dice once the shot is known
to penetrate."""

from __future__ import annotations

import pytest

from kit.ttt import Game
from tankref.core.dice import DamageCards, DiceSource, DiceState, SuppliedDice
from tankref.core.errors import DiceNeeded
from tankref.rulesets.ttt.actions import Engage
from tankref.rulesets.ttt.engine import adjudicate

SHOT = Engage(tank_id="R1", target_id="B1")
# The Tiger's four white dice: one HIT; its five red: 5 PEN against the Sherman's front 5.
HIT = [5, 1, 1, 1]
PENETRATES = [5, 5, 3, 1, 1]
BOUNCES = [1, 1, 2, 2, 3]


def duel(cards: DamageCards, source: DiceSource = "table") -> Game:
    g = Game(dice=DiceState(source=source, seed="deck-tests", damage_cards=cards))
    g.place("R1", "tiger-i", "Red", 0, -20, 0)
    g.place("B1", "m4a1-sherman", "Blue", 0, 20, 180)
    g.crew("R1")
    g.crew("B1")
    g.start()
    return g


def test_table_deck_asks_for_the_card_once_it_penetrated_TTT_E7() -> None:
    """TTT-E7 with damage_cards table: a penetration is refused DICE_NEEDED naming a damage
    card, who draws it (the hit tank's owner) and the cards left; nothing changes. Sent again
    with the card, it applies that card and takes it out of the referee's pile."""
    g = duel("table")
    before = g.state.model_dump_json()
    err = g.refused(SHOT, "DICE_NEEDED", white=HIT, red=PENETRATES)
    need = err.details["need"]
    assert need["die"] == "damage_card" and need["count"] == 1
    assert need["tank_id"] == "B1" and need["player"] == "Blue"
    assert need["cards"] == sorted(set(g.state.rules.full_deck()))
    assert need["deck_reshuffled"] is True  # the first draw shuffles the full deck in
    assert "Blue draws it (TTT-E7)" in err.message and err.message.startswith("needs a damage")
    assert err.details["used_so_far"] == {"white": 4, "red": 5}
    assert g.state.model_dump_json() == before
    pile = len(g.state.rules.full_deck())  # the first draw shuffles the full deck in
    r = g.do(SHOT, white=HIT, red=PENETRATES, card="Glancing Blow", green=[4])
    assert r.outcome["damage_card"] == "Glancing Blow"
    assert g.state.deck.discard[-1] == "Glancing Blow"
    assert len(g.state.deck.draw_pile) == pile - 1
    assert g.state.dice.counter == 0  # the referee drew nothing of its own


def test_table_deck_asks_nothing_when_the_shot_bounces_TTT_E7() -> None:
    """TTT-E7: no penetration, no card asked for; a card sent anyway is a wrong count."""
    g = duel("table")
    g.refused(SHOT, "DICE_COUNT_WRONG", white=HIT, red=BOUNCES, card="Explosion")
    r = g.do(SHOT, white=HIT, red=BOUNCES)
    assert r.outcome["penetrated"] is False and "damage_card" not in r.outcome


def test_table_deck_card_must_be_left_in_the_pile_TTT_E7() -> None:
    """TTT-E7, drawn without replacement: a card the pile no longer holds is refused naming
    dice.damage_card; nothing changes."""
    g = duel("table")
    err = g.refused(SHOT, "DAMAGE_CARD_NOT_IN_DECK", white=HIT, red=PENETRATES, card="Ace")
    assert err.details["field"] == "dice.damage_card"


def test_referee_deck_draws_its_own_card_TTT_E7() -> None:
    """TTT-E7 with damage_cards referee (the default): the referee draws from its deck with
    one number from the generator; table dice do not make it ask for a card."""
    g = duel("referee")
    assert DiceState().damage_cards == "referee"
    r = g.do(SHOT, white=HIT, red=PENETRATES)  # the seed draws a card that destroys B1
    assert r.outcome["damage_card"] in g.state.rules.full_deck()
    assert g.tank("B1").destroyed and g.state.dice.counter == 1


def test_server_dice_with_the_table_deck_TTT_E7() -> None:
    """Server dice, table deck: the referee rolls, then asks for the card; the card alone sent
    back keeps the dice the referee's (the same seed, the same faces), not table dice."""
    g = duel("table", source="server")
    with pytest.raises(DiceNeeded) as info:
        for n in range(200):  # the first seeded shot that penetrates
            g.state.dice.counter = n
            adjudicate(g.state, SHOT)
    assert info.value.need.die == "damage_card"
    out = adjudicate(g.state, SHOT, SuppliedDice(damage_card="Immobilized"))
    assert out.result.outcome["damage_card"] == "Immobilized"
    assert {r.source for r in out.result.rolls} == {"server"}
