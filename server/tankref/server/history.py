"""A table as it stood after any entry of its log: what the page's replay slider shows.

Each position is rebuilt from the log by the referee's own start-up replay
(``referee.replay_onto``), so the board at entry N is what the referee would have had, had
the log stopped there. Rebuilt positions are kept, a few, so that stepping does not replay
from the start each time: a request goes on from the nearest kept position at or before the
entry it asks for. On the way, one position is kept every ``stride`` entries (a step back
then replays at most ``stride - 1`` entries), and the one asked for (the next step goes on
from it). Once ``max_positions`` are kept, over all tables, the least recently used goes,
one between strides first.

A kept position is never replayed further: one that is gone on from is copied first (its
state is shared, states are never changed in place; only the bookkeeping around it, the
undo stack and such, is copied). The log is read and replayed in a worker thread, on a
read-only connection of its own, one replay at a time per table: reading a long log on the
event loop would hold up every other request as long as the read takes.
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import json
import threading
from collections import OrderedDict
from typing import Any

import anyio.to_thread
from pydantic import BaseModel, Field

from tankref.core.timeline import describe
from tankref.server.referee import Referee, TableHost, replay_onto
from tankref.server.schemas import Scene
from tankref.server.store import EventRow, TableRow
from tankref.server.stores import Store

STRIDE = 25
MAX_POSITIONS = 100


class EntryState(BaseModel):
    """The table as it stood after one entry of its log, rebuilt from the log."""

    table_id: str
    seq: int = Field(description="The entry; 0: the table as it was created.")
    last_seq: int = Field(description="The log's last entry now (the live table's).")
    kind: str | None = Field(description="The entry's kind (an action's, or undo, void ...).")
    what: str | None = Field(description="The entry in a few words, e.g. 'engage R1 → B1'.")
    headline: str | None = Field(
        description="The entry's first chat line, e.g. 'Tiger I Ausf. E (R1) engages ...'."
    )
    at: str | None = Field(description="When the entry was logged (UTC).")
    damaged: str | None = Field(
        description="Why the log stops replaying at or before this entry, if it does: the "
        "state is then the last one it reached."
    )
    state: dict[str, Any] = Field(description="The public state, as GET /tables/{id} gives it.")
    scene: Scene


# (table id, when it was created, entry seq): the creation time tells a table apart from any
# later one given the same id.
_Key = tuple[str, str, int]


def fork(host: TableHost) -> TableHost:
    """A copy of a rebuilt table that can be replayed further without touching ``host``."""
    timeline = copy.copy(host.timeline)
    for item in dataclasses.fields(timeline):
        value = getattr(timeline, item.name)
        if isinstance(value, list | dict | set):  # the bookkeeping; entries are immutable
            setattr(timeline, item.name, copy.copy(value))
    return dataclasses.replace(
        host,
        timeline=timeline,
        shots=dict(host.shots),
        requests={},  # a position answers no request
        quiet={},
        seat_tokens={},
        lock=asyncio.Lock(),
        _changed=asyncio.Event(),
    )


class History:
    def __init__(
        self, store: Store, *, stride: int = STRIDE, max_positions: int = MAX_POSITIONS
    ) -> None:
        self.store = store  # used on the event loop only, as the referee does
        self.stride = stride
        self.max_positions = max_positions
        self._kept: OrderedDict[_Key, TableHost] = OrderedDict()
        self._guard = threading.Lock()  # replays of different tables run in worker threads
        self._tables: dict[str, asyncio.Lock] = {}  # one replay at a time per table
        self.replayed = 0  # entries replayed so far, all requests together (for tests, benches)

    def __len__(self) -> int:
        return len(self._kept)

    async def entry_state(self, row: TableRow, seq: int, last_seq: int) -> EntryState:
        """The table after entry ``seq`` as the route answers it. Its log is read and
        replayed in a worker thread, so a long table's first replay does not hold up the
        other tables."""
        event = self.store.events(row.id, after=seq - 1, limit=1)[0] if seq else None
        async with self._tables.setdefault(row.id, asyncio.Lock()):
            host = self._found(row, seq)
            if host is None:
                start = self._start(row, seq)
                host = await anyio.to_thread.run_sync(self._read_and_replay, row, start, seq)
        return await anyio.to_thread.run_sync(_entry_state, host, event, last_seq)

    def _read_and_replay(self, row: TableRow, start: TableHost, seq: int) -> TableHost:
        _, events = self.store.read_log(row.id, upto=seq, after=start.seq)
        return self._replay(row, start, events)

    def at(self, row: TableRow, seq: int) -> TableHost:
        """The table after entry ``seq`` (0: as created; the caller checks that the log has
        it), all on this thread. Read-only: the caller must not replay it further."""
        host = self._found(row, seq)
        if host is not None:
            return host
        start = self._start(row, seq)
        events = self.store.events(row.id, after=start.seq, limit=seq - start.seq)
        return self._replay(row, start, events)

    def _found(self, row: TableRow, seq: int) -> TableHost | None:
        key = (row.id, row.created_at, seq)
        with self._guard:
            found = self._kept.get(key)
            if found is not None:
                self._kept.move_to_end(key)
            return found

    def _start(self, row: TableRow, seq: int) -> TableHost:
        """Where a replay to ``seq`` starts: a copy of the nearest position kept at or
        before it, else the table as created."""
        with self._guard:
            mine = [k for k in self._kept if k[:2] == (row.id, row.created_at) and k[2] <= seq]
            best = max(mine, key=lambda k: k[2], default=None)
            if best is None:
                return Referee._host_from_row(row)
            self._kept.move_to_end(best)
            return fork(self._kept[best])

    def _replay(self, row: TableRow, host: TableHost, events: list[EventRow]) -> TableHost:
        """``host`` (a copy of its own) replayed through ``events``; positions kept on the
        way, and the last one."""
        for event in events:
            replay_onto(host, [event])
            self.replayed += 1
            if event.seq % self.stride == 0 and event is not events[-1]:
                self._keep((row.id, row.created_at, event.seq), fork(host))
        self._keep((row.id, row.created_at, host.seq), host)
        return host

    def _keep(self, key: _Key, host: TableHost) -> None:
        with self._guard:
            self._kept[key] = host
            self._kept.move_to_end(key)
            while len(self._kept) > self.max_positions:
                # The least recently used goes, a position between strides before one on a
                # stride: those are where steps back go on from.
                between = next((k for k in self._kept if k[2] % self.stride), None)
                self._kept.pop(between if between is not None else next(iter(self._kept)))


def _entry_state(host: TableHost, event: EventRow | None, last_seq: int) -> EntryState:
    logged: dict[str, Any] = {} if event is None else json.loads(event.entry)
    kind = logged.get("kind")
    chat = logged.get("chat") or [None]
    return EntryState(
        table_id=host.id,
        seq=host.seq,
        last_seq=last_seq,
        kind=None if kind is None else str(kind),
        what=None if event is None else describe(event.action),
        headline=None if chat[0] is None else str(chat[0]),
        at=None if event is None else event.created_at,
        damaged=host.damaged,
        state=host.public_state(),
        scene=host.scene(),
    )
