"""Test kit for the replay slider: a short game with a varied history, and the table after
entry N rebuilt independently of the referee (the stored log, the engine's ``Timeline``).

The independent rebuild reads the database on its own connection and replays with the
engine alone: it shares no code with ``tankref.server.history`` or ``Referee.load`` beyond
the engine, so a position the referee rebuilds wrongly (a copy that leaks between positions,
an entry skipped or replayed twice) shows as a difference.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from serverkit import Table, duel
from tankref.core.timeline import Timeline, first_state
from tankref.rulesets import get_ruleset
from tankref.server.store import read_log

CARDS = {"R1": ("tiger-i", "Red", -20, 0, 2), "B1": ("m4a1-sherman", "Blue", 20, 180, -2)}


def played_duel(url: str, *, until: int | None = None) -> Table:
    """A server-dice duel played to its end (TTT; seeded, so always the same game): a wait
    taken back (undo), then each phase a move forward, a shot at the enemy, end of phase.
    Its history has markers coming and going (Immobilized, Shaken), lines of fire, a move
    refused (changes nothing), and the game's end (Red wins on entry 17). ``until``: stop
    once the log has that many entries (the game still on)."""
    table = duel(url, dice_source="server")
    table.ok(table.act({"kind": "wait", "tank_id": "R1"}))
    table.ok(table.http.post(table.path("/undo"), json={"request_id": "undo-the-wait"}))
    z = {tank: spec[2] for tank, spec in CARDS.items()}
    for _turn in range(8):
        for tank, (card, player, _, facing, step) in CARDS.items():
            read = table.read()
            if read["table"]["status"] != "playing" or (until and read["seq"] >= until):
                return table
            z[tank] += step
            # A crippled tank is refused its move or shot: logged as nothing, as in play.
            table.put_tank(tank, card=card, player=player, x=0, z=z[tank], facing=facing)
            enemy = "B1" if tank == "R1" else "R1"
            table.act({"kind": "engage", "tank_id": tank, "target_id": enemy})
            table.act({"kind": "end_phase"})
    return table


@dataclass(frozen=True)
class Rebuilt:
    seq: int
    state: dict[str, Any]  # the public state
    tanks: list[dict[str, Any]]  # each tank as the scene draws it (TankView, as JSON)


def rebuilt_at(db: Path, table_id: str, seq: int) -> Rebuilt:
    """The table after entry ``seq``, from the stored log and the engine alone."""
    row, events = read_log(db, table_id, seq)
    assert row is not None
    rules = get_ruleset(row.ruleset)
    timeline = Timeline(
        rules,
        first_state(rules, row.setup, row.dice),
        seat_credentials=row.dice.get("seat_credentials") is True,
    )
    for event in events:
        timeline.replay(event)
    assert timeline.seq == seq
    return Rebuilt(
        seq=seq,
        state=rules.public_state(timeline.state, revealed=timeline.over),
        tanks=[view.model_dump(mode="json") for view in rules.tank_views(timeline.state)],
    )
