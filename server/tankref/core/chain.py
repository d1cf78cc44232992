"""The hash chain over a table's log: what lets a player who noted the head detect a cut or
rewritten log later.

The chain starts from the table as created (its setup, dice source, seed commitment and
player seeds), and each event's link is the SHA-256 of the link before it and the event as
exported (its number, kind, action, supplied dice, result hash, checkpoint, engine version,
time and chat lines). The last link is the table's head. Everything hashed is in the export,
so anyone can compute the chain again; nothing here is secret. Pure: the referee, the
export and ``tankref verify`` all use these functions, so they cannot disagree.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

SHORT = 8  # hex digits shown in chat and on the page, like a commit id


def _hash(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


# ``json.dumps(data, sort_keys=True, separators=(",", ":"))``, its encoder made once: the
# same text (``dumps`` makes a new encoder every call with these arguments).
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"))


def _canonical(data: Any) -> str:
    return _CANONICAL.encode(data)


def genesis(
    *,
    table_id: str,
    ruleset: str,
    created_at: str,
    version: str,
    setup: dict[str, Any],
    dice_source: str,
    damage_cards: str,
    commitment: str,
    seed_chosen: bool,
    player_seeds: list[tuple[str | None, str]],
    seat_credentials: bool,
) -> str:
    """The chain's start: the table as created, before any event."""
    return _hash(
        "tankref.table\n"
        + _canonical(
            {
                "id": table_id,
                "ruleset": ruleset,
                "created_at": created_at,
                "version": version,
                "setup": setup,
                "dice_source": dice_source,
                "damage_cards": damage_cards,
                "commitment": commitment,
                "seed_chosen": seed_chosen,
                "player_seeds": [{"player": p, "seed": s} for p, s in player_seeds],
                # part of the start, so an export cannot pass itself off as from before seats
                "seat_credentials": seat_credentials,
            }
        )
    )


def link(
    previous: str,
    *,
    seq: int,
    kind: str,
    request_id: str | None,
    action: dict[str, Any],
    dice: dict[str, Any] | None,
    result_sha256: str,
    state_sha256: str | None,
    version: str,
    at: str,
    chat: list[str],
) -> str:
    """The chain after one event: one hash of the link before it and the event (its keys
    given in sorted order: the encoder sorts them all the same, and a sorted list sorts
    fastest; one link every write)."""
    event = {
        "action": action,
        "at": at,
        "chat": chat,
        "dice": dice,
        "kind": kind,
        "request_id": request_id,
        "result_sha256": result_sha256,
        "seq": seq,
        "state_sha256": state_sha256,
        "version": version,
    }
    return _hash(f"tankref.event\n{previous}\n{_canonical(event)}")


def short(head: str) -> str:
    """The head as shown in chat and on the page."""
    return head[:SHORT]
