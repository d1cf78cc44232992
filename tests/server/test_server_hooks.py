"""What the server asks a ruleset instead of reading its internals (issue 16): the odds
query's choices, the state anyone may read, and the dice a table may send."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from serverkit import LiveReferee, duel, new_table
from tankref.core.dice import DiceState, SuppliedDice
from tankref.core.errors import BadValue, RulesError
from tankref.rulesets import get_ruleset, ruleset_names


def _table(name: str, source: str = "server", damage_cards: str = "referee") -> Any:
    rules = get_ruleset(name)
    dice = DiceState(source=source, damage_cards=damage_cards, seed="hooks-seed")  # type: ignore[arg-type]
    return rules, rules.new_table(rules.setup_model(), dice)


# --- the odds query: the ruleset's choices ---------------------------------------------------


def test_the_odds_query_reads_the_rulesets_choices_TTT_MO2(referee: LiveReferee) -> None:
    """TTT-MO2: ``friends`` is TinyTableTopTanks' choice (the target's friends' morale
    checks), read from the query through its ``odds_choices`` model."""
    table = duel(referee.url)
    plain = table.ok(table.http.get(table.path("/tanks/R1/odds/B1")))
    asked = table.ok(table.http.get(table.path("/tanks/R1/odds/B1"), params={"friends": "true"}))
    assert plain["friends"] is None and asked["friends"] == []  # B1 has no friends on table
    reply = table.http.get(table.path("/tanks/R1/odds/B1"), params={"friends": "maybe"})
    assert reply.status_code == 422 and reply.json()["field"] == "query.friends"
    table.close()


def test_another_rulesets_odds_do_not_read_ttts_choices(referee: LiveReferee) -> None:
    """The yard's odds take no choices: TinyTableTopTanks' parameters are not its to refuse
    (the route no longer validates them for every table)."""
    table = new_table(referee.url, ruleset="yrd")
    reply = table.http.get(table.path("/tanks/Z9/odds"), params={"grizzled_reroll": "always"})
    assert reply.status_code == 404 and reply.json()["code"] == "UNKNOWN_TANK"
    table.close()


def test_the_document_lists_each_rulesets_odds_choices(referee: LiveReferee) -> None:
    paths = httpx.get(f"{referee.url}/openapi.json").json()["paths"]
    for path in (
        "/tables/{table_id}/tanks/{tank_id}/odds",
        "/tables/{table_id}/tanks/{tank_id}/odds/{target_id}",
    ):
        query = {p["name"]: p for p in paths[path]["get"]["parameters"] if p["in"] == "query"}
        assert set(query) == {"grizzled_reroll", "friends"}
        assert query["friends"]["description"].startswith("TinyTableTopTanks tables:")
        enum = query["grizzled_reroll"]["schema"]["anyOf"][0]["enum"]
        assert enum == ["accuracy", "penetration", "none"]


# --- the state anyone may read -----------------------------------------------------------------


@pytest.mark.parametrize("name", ruleset_names())
def test_public_state_hides_the_seed_until_revealed(name: str) -> None:
    rules, state = _table(name)
    hidden = rules.public_state(state, revealed=False)
    shown = rules.public_state(state, revealed=True)
    assert "seed" not in hidden["dice"] and shown["dice"]["seed"] == "hooks-seed"
    shown["dice"].pop("seed")
    assert hidden == shown  # nothing else is hidden
    assert rules.dice_state(state).seed == "hooks-seed"  # the state itself keeps it


# --- the dice a table may send -----------------------------------------------------------------


@pytest.mark.parametrize("name", ruleset_names())
def test_a_server_dice_table_takes_no_faces(name: str) -> None:
    rules, state = _table(name)
    with pytest.raises(RulesError) as refused:
        rules.accept_dice(state, SuppliedDice(faces={"white": [6]}))
    assert refused.value.code == "SERVER_DICE" and refused.value.kind == "refused"
    assert refused.value.details == {"field": "dice.faces"}
    assert rules.accept_dice(state, SuppliedDice()) is None  # the referee rolls


@pytest.mark.parametrize("name", ruleset_names())
def test_a_table_that_rolls_sends_its_faces(name: str) -> None:
    rules, state = _table(name, source="table")
    dice = SuppliedDice(faces={"white": [6]})
    assert rules.accept_dice(state, dice) == dice


@pytest.mark.parametrize("name", ruleset_names())
def test_a_damage_card_only_where_the_table_draws_them_TTT_E7(name: str) -> None:
    """TTT-E7: only TinyTableTopTanks has a damage deck; a card sent where the referee
    draws them, or to a ruleset without a deck, is a bad value naming dice.damage_card."""
    rules, state = _table(name, source="table")
    with pytest.raises(BadValue) as refused:
        rules.accept_dice(state, SuppliedDice(damage_card="Fire"))
    assert refused.value.code == "DAMAGE_CARD_NOT_WANTED"
    assert refused.value.details == {"field": "dice.damage_card"}
    deck = "draws the damage cards" if rules.damage_deck else f"{rules.title} has no damage deck"
    assert deck in refused.value.message
    if rules.damage_deck:
        rules, state = _table(name, source="table", damage_cards="table")
        card = SuppliedDice(damage_card="Fire")
        assert rules.accept_dice(state, card) == card
