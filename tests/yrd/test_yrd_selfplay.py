"""Seeded random self-play of the tank yard, and options_for checked against adjudicate."""

from __future__ import annotations

from collections import Counter

from tankref.core.errors import RulesError
from tankref.core.results import Result
from tankref.rulesets.yrd.actions import Action, AntiTank, Attack, EndTurn, Move
from tankref.rulesets.yrd.engine import adjudicate, options_for
from tankref.rulesets.yrd.selfplay import play_game
from tankref.rulesets.yrd.state import TANK_SPACES, TableState


def test_two_hundred_seeded_games_end_without_an_exception() -> None:
    """YRD-SP1..YRD-SD1 under fuzzing: 200 seeded matches with random rulings play to their
    turn limit; every verdict occurs, and some tanks end Heavily Damaged (YRD-HP1)."""
    verdicts: Counter[str] = Counter()
    wrecked = 0
    for seed in range(200):
        record = play_game(seed)
        state = record.final
        assert state.status == "over", seed
        assert state.turn == 2 * state.options.turn_limit, seed
        verdicts += record.verdicts
        wrecked += sum(t.heavily_damaged for t in state.tanks.values())
        for tank in state.tanks.values():
            assert tank.heavily_damaged == (tank.hp == 0), seed
    assert set(verdicts) == {
        "win", "lose", "graze", "critical_success", "critical_failure", "auto_fail",
    }  # fmt: skip
    assert wrecked > 0


def test_same_seed_same_match() -> None:
    """Bit-for-bit replay: the same seed gives the same final JSON; another seed differs."""
    assert play_game(7).final.to_json() == play_game(7).final.to_json()
    assert play_game(7).final.to_json() != play_game(8).final.to_json()


def _candidates(state: TableState, tank_id: str) -> list[tuple[str, str | None, Action]]:
    """Every action the tank could ask for: (option kind, target or space, action)."""
    out: list[tuple[str, str | None, Action]] = [
        ("move", s, Move(tank_id=tank_id, space=s)) for s in TANK_SPACES
    ]
    out += [("attack", p, Attack(tank_id=tank_id, target_id=p)) for p in sorted(state.pieces)]
    out += [("anti_tank", t, AntiTank(tank_id=tank_id, target_id=t)) for t in sorted(state.tanks)]
    player = state.tanks[tank_id].player
    out.append(("end_turn", None, EndTurn(player=player)))
    return out


def _offered(option: dict[str, object], key: str | None) -> bool:
    if not option["allowed"]:
        return False
    detail = option.get("detail") or {}
    assert isinstance(detail, dict)
    if option["kind"] == "move":
        return any(s["space"] == key for s in detail["spaces"])
    if option["kind"] in ("attack", "anti_tank"):
        return any(t["target_id"] == key for t in detail["targets"])
    return True


def test_options_for_agrees_with_adjudicate() -> None:
    """options_for and adjudicate share their checks: over self-play games, for both tanks at
    every step, every move, attack, anti-tank attack and end of turn is offered exactly
    when adjudicate accepts it; a kind refused as a whole is refused with the same code."""
    checked = 0

    def sweep(state: TableState, action: Action, result: Result) -> None:
        nonlocal checked
        if state.status != "playing":
            return
        for tank_id in sorted(state.tanks):
            options = {o.kind: o.to_dict() for o in options_for(state, tank_id)}
            for kind, key, candidate in _candidates(state, tank_id):
                try:
                    adjudicate(state, candidate)
                    accepted, code = True, None
                except RulesError as err:
                    accepted, code = False, err.code
                option = options[kind]
                assert _offered(option, key) == accepted, (kind, key, option, code)
                whole = option.get("code") not in (None, "NO_TARGETS", "TARGET_SHIELDED")
                if not accepted and kind != "move" and whole:
                    assert option["code"] == code, (kind, key, option, code)
                checked += 1

    for seed in range(12):
        play_game(seed, on_step=sweep)
    assert checked > 2_000
