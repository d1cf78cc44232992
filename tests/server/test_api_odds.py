"""Exact odds over HTTP: what TTS shows on hover before a shot (the odds engine's numbers)."""

from __future__ import annotations

from fractions import Fraction

from serverkit import LiveReferee, duel


def test_odds_against_every_visible_enemy_are_exact(referee: LiveReferee) -> None:
    """TTT-E4/TTT-E5 odds from the same plan as the shot: the Tiger's 4 white dice hit with
    1 - (4/6)^4 = 65/81; the reply names side, dice and PEN needed."""
    table = duel(referee.url)
    reply = table.ok(table.http.get(table.path("/tanks/R1/odds")))
    assert reply["shooter"] == "R1"
    [odds] = reply["odds"]
    assert odds["target"] == "B1"
    assert odds["hit_side"] == "front"
    assert odds["accuracy_dice"] == 4 and odds["penetration_dice"] == 5
    assert odds["needed"] == 5
    assert Fraction(odds["exact"]["p_hit"]) == 1 - Fraction(4, 6) ** 4
    assert abs(odds["p_hit"] - 65 / 81) < 1e-9
    assert 0 < odds["p_destroyed"] < odds["p_penetrate"] < odds["p_hit"]
    assert abs(sum(c["p_given_penetration"] for c in odds["cards"]) - 1) < 1e-9


def test_odds_against_one_target_and_the_moved_penalty(referee: LiveReferee) -> None:
    """TTT-M1 in the odds: after a Normal Move the Tiger has 2 white dice (5/9 to hit)."""
    table = duel(referee.url)
    table.ok(table.put_tank("R1", card="tiger-i", player="Red", x=0, z=-17, facing=0))
    odds = table.ok(table.http.get(table.path("/tanks/R1/odds/B1")))
    assert odds["accuracy_dice"] == 2
    assert Fraction(odds["exact"]["p_hit"]) == Fraction(5, 9)
    assert any(m["clause"] == "TTT-M1" for m in odds["modifiers"])


def test_odds_refused_like_the_engage_would_be(referee: LiveReferee) -> None:
    """Odds for a shot the rules refuse say why (the Engage's own code and clause), and never
    touch the state."""
    table = duel(referee.url)
    before = table.snapshot()
    reply = table.http.get(table.path("/tanks/B1/odds/R1"))
    assert reply.status_code == 409
    assert reply.json()["code"] == "NOT_YOUR_PHASE" and reply.json()["clause"] == "TTT-W1"
    reply = table.http.get(table.path("/tanks/R1/odds/R1"))
    assert reply.status_code == 409 and reply.json()["code"] == "NOT_AN_ENEMY"
    reply = table.http.get(table.path("/tanks/R1/odds/Z9"))
    assert reply.status_code == 404
    reply = table.http.get(table.path("/tanks/R1/odds"), params={"grizzled_reroll": "always"})
    assert reply.status_code == 422 and reply.json()["field"] == "query.grizzled_reroll"
    assert table.snapshot() == before


def test_engage_options_carry_the_odds_for_hover(referee: LiveReferee) -> None:
    """The options a TTS menu reads list each target with its hit/penetrate/kill odds."""
    table = duel(referee.url)
    options = {o["kind"]: o for o in table.ok(table.http.get(table.path("/tanks/R1/options")))}
    [target] = options["engage"]["detail"]["targets"]
    assert target["target_id"] == "B1"
    assert abs(target["p_hit"] - 65 / 81) < 1e-4
    assert 0 < target["p_destroyed"] < target["p_penetrate"] < target["p_hit"]
