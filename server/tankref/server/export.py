"""A table's whole log as one JSON document (``GET /tables/{id}/export``, ``tankref export``).

The format is ``tankref.core.verify.ExportDocument``: the table (setup, commitment, player
seeds, the server seed once the game is over) and every event in order with its action, the
dice the table supplied, the full result and its hash, the engine version that decided it
and the undo / void markers, and the log's hash chain (each event's link before and after
it, the table's head). Keys are sorted, so the same log always gives the same text.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tankref.core.dice import DiceState
from tankref.core.verify import (
    FORMAT,
    FORMAT_VERSION,
    ExportDocument,
    ExportEvent,
    ExportTable,
    PlayerSeed,
)
from tankref.server.referee import (
    TableHost,
    chained,
    seat_credentials,
    seed_players,
    table_genesis,
)
from tankref.server.store import EventRow, TableRow, read_log
from tankref.server.stores import Store


@dataclass(frozen=True)
class Standing:
    """What an export takes from the live table, copied at one moment on the event loop (the
    log itself is read, and the document built, in a worker thread)."""

    cancelled: dict[int, int]  # seq -> the undo or void that took it back
    seed: str | None
    status: str
    damaged: str | None
    last_seq: int

    @classmethod
    def of(cls, host: TableHost) -> Standing:
        return cls(
            cancelled=dict(host.timeline.cancelled),
            seed=host.revealed_seed(),
            status=host.summary().status,
            damaged=host.damaged,
            last_seq=host.seq,
        )


def export_from_file(db_path: Path, table_id: str, standing: Standing) -> str | None:
    """The export's text, read from the database on a connection of its own: a big table's
    export (thousands of events) is built off the event loop. None: no such table."""
    row, events = read_log(db_path, table_id, standing.last_seq)
    if row is None:
        return None
    return export_text(export_document(row, events, standing))


def export_from_store(store: Store, table_id: str, standing: Standing) -> str | None:
    """``export_from_file`` from any store, read on a connection of its own: a big table's
    export (thousands of events) is built off the event loop. None: no such table."""
    row, events = store.read_log(table_id, standing.last_seq)
    if row is None:
        return None
    return export_text(export_document(row, events, standing))


def export_document(row: TableRow, events: list[EventRow], host: Standing) -> dict[str, Any]:
    """The export of the table ``host`` (rebuilt from ``row`` and ``events``)."""
    dice = DiceState.model_validate(row.dice)
    entries = [json.loads(e.entry) for e in events]
    kinds = {e.seq: str(entry.get("kind")) for e, entry in zip(events, entries, strict=True)}
    out = []
    head = table_genesis(row)
    for event, entry in zip(events, entries, strict=True):
        by = host.cancelled.get(event.seq)
        previous, (head, _) = head, chained(head, event, entry)
        out.append(
            ExportEvent(
                seq=event.seq,
                kind=str(entry.get("kind")),
                request_id=event.request_id,
                action=event.action,
                dice=event.dice,
                result=entry.get("result", {}),
                result_sha256=event.result_sha256,
                state_sha256=event.state_sha256,
                version=event.version,
                at=event.created_at,
                chat=list(entry.get("chat", [])),
                undone_by=by if by is not None and kinds.get(by) == "undo" else None,
                voided_by=by if by is not None and kinds.get(by) == "void" else None,
                previous_sha256=previous,
                chain_sha256=head,
            )
        )
    owners = seed_players(row.dice)
    table = ExportTable(
        id=row.id,
        ruleset=row.ruleset,
        created_at=row.created_at,
        version=row.version,
        setup=row.setup,
        dice_source=dice.source,
        damage_cards=dice.damage_cards,
        commitment=row.commitment,
        seed_chosen=row.seed_chosen,
        seat_credentials=seat_credentials(row.dice),
        player_seeds=[
            PlayerSeed(player=p, seed=s) for p, s in zip(owners, dice.player_seeds, strict=True)
        ],
        seed=host.seed,
        status=host.status,
        damaged=host.damaged,
        last_seq=host.last_seq,
        head_sha256=head,
    )
    doc = ExportDocument(format=FORMAT, format_version=FORMAT_VERSION, table=table, events=out)
    data: dict[str, Any] = doc.model_dump(mode="json")
    return data


def export_text(data: dict[str, Any]) -> str:
    """Deterministic JSON text: sorted keys, one key a line."""
    return json.dumps(data, sort_keys=True, indent=1, ensure_ascii=False) + "\n"
