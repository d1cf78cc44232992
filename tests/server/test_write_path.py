"""The write path's shortcuts give what the long way gives: a log entry assembled from parts
is the entry model's own JSON, byte for byte, and the result's digest is of those bytes."""

from __future__ import annotations

import hashlib

import pytest
from pydantic_core import to_json

from tankref.core.results import chat_lines
from tankref.core.timeline import result_digest
from tankref.rulesets import get_ruleset, ruleset_names
from tankref.server.schemas import LogEntry, OrderedBy, log_entry_json


@pytest.mark.parametrize("name", ruleset_names())
def test_log_entry_json_is_the_models_own_serialisation(name: str) -> None:
    """Every action of a self-play game of each ruleset: the entry the referee logs (parts
    serialised once, nothing validated again) is ``LogEntry.model_dump_json()``, and the
    result digest taken of the entry's result bytes is ``result_digest`` of the result as
    logged (what the start-up replay and ``tankref verify`` check)."""
    rules = get_ruleset(name)
    record = rules.self_play(1)
    state = record.start
    assert len(record.actions) > 10
    for seq, action in enumerate(record.actions, start=1):
        outcome = rules.adjudicate(state, action)
        state, result = outcome.state, outcome.result
        summary = rules.summary(state)
        tanks = rules.tank_views(state, [c.tank_id for c in result.changes])
        data = action.model_dump(mode="json")
        by = OrderedBy(seat="Red", as_referee=seq % 2 == 0) if seq % 3 else None
        dice = {"faces": {"white": [seq % 6 + 1]}} if seq % 4 == 0 else None
        fields = {
            "seq": seq,
            "at": "2026-12-02T01:02:03.456+00:00",
            "request_id": f"r-{seq}" if seq % 5 else None,
            "kind": str(data.get("kind")),
            "action": data,
            "dice": dice,
            "chat": chat_lines(result),
            "tanks": tanks,
            "by": by,
            "previous_sha256": "a" * 64,
            "chain_sha256": "b" * 64,
        }
        result_json = to_json(result)
        built = log_entry_json(result=result_json, table=to_json(summary), **fields)
        model = LogEntry(result=result.model_dump(mode="json"), table=summary, **fields)
        assert built == model.model_dump_json(), (name, seq)
        logged = LogEntry.model_validate_json(built).result
        assert hashlib.sha256(result_json).hexdigest() == result_digest(logged), (name, seq)


def test_a_log_entry_missing_a_field_is_refused() -> None:
    """An entry built without one of the model's fields fails loudly, never shorter."""
    with pytest.raises(KeyError, match="chain_sha256"):
        log_entry_json(
            result=b"{}",
            table=b"{}",
            seq=1,
            at="now",
            request_id=None,
            kind="wait",
            action={},
            dice=None,
            chat=[],
            tanks=[],
            by=None,
            previous_sha256=None,
        )
