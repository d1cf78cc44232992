"""200 seeded random AFV games between scripted sides that choose only what ``options_for``
allows, on the server's dice: none raises, every one ends."""

from __future__ import annotations

from collections import Counter

from tankref.rulesets.afv.selfplay import GameRecord, play_game, random_table


def test_200_seeded_games_end_without_an_exception() -> None:
    """AFV-SEQ1: 200 games, phase after phase, end in a victory or at the turn limit; every
    kind of action is exercised; refused moves (slowing terrain the bot did not foresee) are
    rare."""
    records: list[GameRecord] = [play_game(seed) for seed in range(200)]
    kinds: Counter[str] = Counter()
    for rec in records:
        assert rec.final.status == "over", rec.seed
        assert rec.reason, rec.seed
        kinds.update(rec.kinds)
    assert {"fire", "move", "spot", "evade", "embark", "disembark", "end_phase"} <= set(kinds)
    assert sum(r.refused_moves for r in records) < kinds["move"] / 20
    assert any(r.winner is not None for r in records)


def test_selfplay_is_reproducible() -> None:
    """The same seed plays the same game, dice and all."""
    assert play_game(7).final == play_game(7).final
    assert random_table(3) == random_table(3)
    assert play_game(7).final != play_game(8).final
