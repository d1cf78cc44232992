"""Luck per table and across tables, counted from the log's effective events.

Each event still in effect is replayed through the ruleset with the dice faces its logged
result shows (and the damage card it drew), so the state before every action is rebuilt
exactly whatever happened to the generator since (a voided action's rolls stay spent, a
player seed added later): the faces are the record. The ruleset turns each action into luck
trials (``Ruleset.luck_trials``); ``tankref.core.luck`` does the statistics.

Kept per table and extended by the new events only; the report is cached by the log's seq,
so the page re-reading it on every event costs one replayed action. An undo or void that
changes the effective history starts that table's count again.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import anyio.to_thread
from pydantic import BaseModel, Field
from pydantic_core import to_jsonable_python

from tankref.core.dice import SuppliedDice
from tankref.core.luck import (
    MEASURES,
    SIGNIFICANCE,
    LuckTrial,
    Measure,
    MeasureLuck,
    PlayerLuck,
    luck_by_player,
    measure_luck,
)
from tankref.core.ruleset import Ruleset
from tankref.core.timeline import first_state
from tankref.rulesets import get_ruleset
from tankref.server.referee import Referee, TableHost
from tankref.server.store import EventRow, TableRow
from tankref.server.stores import Store

__all__ = [
    "AllLuck",
    "LuckBook",
    "LuckDesk",
    "NoSuchTable",
    "TableLuck",
    "TableLuckReply",
    "luck_from_store",
    "luck_text",
]


class TableLuck(BaseModel):
    table_id: str
    seq: int = Field(description="The last log event counted.")
    note: str | None = Field(default=None, description="Why counting stopped early, if it did.")
    players: list[PlayerLuck]


class TableLuckReply(TableLuck):
    significance: str = SIGNIFICANCE


class AllLuck(BaseModel):
    significance: str = SIGNIFICANCE
    players: list[PlayerLuck] = Field(description="By player id over every table.")
    tables: list[TableLuck]


Group = tuple[str, Measure]  # (player, measure)


@dataclass
class _Tally:
    rules: Ruleset
    state: Any  # after the last counted event
    players: list[str]  # the table's players, in its order
    read_to: int = 0  # the log's seq read so far (control events included)
    cancelled: int = 0  # undone or voided actions when it was read: more means count again
    trials: dict[Group, list[LuckTrial]] = field(default_factory=dict)
    measures: dict[Group, MeasureLuck] = field(default_factory=dict)  # as of the last report
    note: str | None = None
    report: TableLuck | None = None


def _logged_dice(result: dict[str, Any]) -> SuppliedDice | None:
    """The faces the logged result shows, per die in the order rolled, and the damage card
    it drew (the one draw that is not a die; ``SuppliedDice`` names it)."""
    faces: dict[str, list[int]] = {}
    for roll in result.get("rolls", []):
        faces.setdefault(str(roll["die"]), []).append(int(roll["face"]))
    card = result.get("outcome", {}).get("damage_card")
    if not faces and card is None:
        return None
    return SuppliedDice(faces=faces, damage_card=None if card is None else str(card))


class LuckBook:
    """Every table's count so far. Not thread-safe per table: callers serialise the reads
    and updates of one table (the server holds a lock per table)."""

    def __init__(self) -> None:
        self._tallies: dict[str, _Tally] = {}

    def cached(self, table_id: str, log_seq: int, cancelled: int) -> TableLuck | None:
        tally = self._tallies.get(table_id)
        if tally is None or tally.read_to != log_seq or tally.cancelled != cancelled:
            return None
        return tally.report

    def read_from(self, table_id: str, cancelled: int) -> int:
        """The log seq after which the book needs the effective events: 0 (all of them) for
        a new table, or when an undo or void took back an action since the last count."""
        tally = self._tallies.get(table_id)
        if tally is None or tally.cancelled != cancelled or tally.note:
            return 0
        return tally.read_to

    def count(
        self,
        row: TableRow,
        log_seq: int,
        after: int,
        events: Sequence[EventRow],
        cancelled: int = 0,
        damaged: str | None = None,
    ) -> TableLuck:
        """Count the effective ``events`` after log seq ``after`` (``read_from``'s answer;
        0: all of them, the count starts again), up to ``log_seq``, the log's last seq."""
        tally = self._tallies.get(row.id)
        if tally is None or after == 0:
            rules = get_ruleset(row.ruleset)
            state = first_state(rules, row.setup, row.dice)
            tally = _Tally(rules=rules, state=state, players=rules.summary(state).players)
            self._tallies[row.id] = tally
        if after != tally.read_to:
            raise ValueError(f"table {row.id}: counted to {tally.read_to}, given after {after}")
        changed: set[Group] = set()
        for event in events:
            if tally.note:
                break
            changed |= self._replay(tally, event)
        for group in changed:
            tally.measures[group] = measure_luck(*group, tally.trials[group])
        tally.read_to, tally.cancelled = log_seq, cancelled
        note = tally.note or (f"the table is read-only: {damaged}" if damaged else None)
        others = sorted({player for player, _ in tally.trials} - set(tally.players))
        tally.report = TableLuck(
            table_id=row.id,
            seq=log_seq,
            note=note,
            players=[
                PlayerLuck(
                    player=player,
                    **{
                        m: tally.measures.get((player, m)) or measure_luck(player, m, [])
                        for m in MEASURES
                    },
                )
                for player in (*tally.players, *others)
            ],
        )
        return tally.report

    @staticmethod
    def _replay(tally: _Tally, event: EventRow) -> set[Group]:
        rules = tally.rules
        try:
            logged = json.loads(event.entry)["result"]
            action = rules.parse_action(event.action)
            outcome = rules.adjudicate(tally.state, action, _logged_dice(logged))
            if to_jsonable_python(outcome.result.outcome) != logged.get("outcome", {}):
                raise RuntimeError("its replayed outcome differs from the logged one")
            trials = rules.luck_trials(tally.state, action, outcome.result)
        except Exception as exc:  # an old game the engine no longer replays: say where
            tally.note = f"counted up to the event before {event.seq}: event {event.seq} {exc}"
            return set()
        changed: set[Group] = set()
        for t in trials:
            group = (t.player, t.measure)
            tally.trials.setdefault(group, []).append(
                LuckTrial(t.player, t.measure, t.p, t.happened, event.seq)
            )
            changed.add(group)
        tally.state = outcome.state
        return changed

    def trials(self, table_id: str) -> list[LuckTrial]:
        tally = self._tallies.get(table_id)
        return [] if tally is None else [t for ts in tally.trials.values() for t in ts]

    def aggregate(self, tables: Sequence[TableLuck]) -> AllLuck:
        """Every table's lines, and every player id's over those tables (ids like "Red"
        repeat across tables: they are merged)."""
        trials = [t for table in tables for t in self.trials(table.table_id)]
        return AllLuck(players=luck_by_player(trials), tables=list(tables))


# --- the referee's side: which events count, and counting off the event loop ----------------


def _cancelled(host: TableHost) -> int:
    return len(host.timeline.cancelled)


@dataclass
class LuckDesk:
    """The server's book, the tables' creation rows, a lock per table."""

    book: LuckBook = field(default_factory=LuckBook)
    rows: dict[str, TableRow] = field(default_factory=dict)
    locks: dict[str, asyncio.Lock] = field(default_factory=dict)

    def row(self, ref: Referee, table_id: str) -> TableRow:
        if table_id not in self.rows:
            self.rows.update((r.id, r) for r in ref.store.tables())
        return self.rows[table_id]

    def count_now(self, ref: Referee, host: TableHost) -> TableLuck:
        """Synchronously (the command line, benchmarks)."""
        cancelled = _cancelled(host)
        cached = self.book.cached(host.id, host.seq, cancelled)
        if cached is not None:
            return cached
        after = self.book.read_from(host.id, cancelled)
        events = ref.effective_events(host, after)
        row = self.row(ref, host.id)
        return self.book.count(row, host.seq, after, events, cancelled, host.damaged)

    async def count(self, ref: Referee, host: TableHost) -> TableLuck:
        """The report, replaying only what is new; the replay runs in a worker thread so a
        long table's first count does not hold up the other tables. The log is read here,
        on the event loop, which is the only thread that uses the store."""
        cached = self.book.cached(host.id, host.seq, _cancelled(host))
        if cached is not None:
            return cached
        lock = self.locks.setdefault(host.id, asyncio.Lock())
        async with lock:
            cancelled = _cancelled(host)
            cached = self.book.cached(host.id, host.seq, cancelled)
            if cached is not None:
                return cached
            after = self.book.read_from(host.id, cancelled)
            events = ref.effective_events(host, after)
            row = self.row(ref, host.id)
            return await anyio.to_thread.run_sync(
                self.book.count, row, host.seq, after, events, cancelled, host.damaged
            )


# --- the command line -------------------------------------------------------------------------


class NoSuchTable(LookupError):
    pass


def luck_from_store(store: Store, table_id: str | None) -> TableLuckReply | AllLuck:
    """What the routes answer, read from the referee's database, either store (the server
    need not run). The store is left open: its opener closes it."""
    ref = Referee(store)
    desk = LuckDesk()
    if table_id is not None:
        host = ref.find(table_id)
        if host is None:
            raise NoSuchTable(f"no table {table_id!r} in {store.where}")
        return TableLuckReply(**desk.count_now(ref, host).model_dump())
    return desk.book.aggregate([desk.count_now(ref, h) for h in ref.hosts()])


def _player_lines(player: PlayerLuck) -> list[str]:
    return [f"  {m.text}" for m in (player.hit, player.penetration, player.morale_failure)]


def _table_lines(table: TableLuck) -> list[str]:
    lines = [f"Table {table.table_id} (to event {table.seq})"]
    if table.note:
        lines.append(f"  Note: {table.note}")
    for player in table.players:
        lines.extend(_player_lines(player))
    return lines


def luck_text(report: TableLuckReply | AllLuck) -> str:
    """The report in words: one line per player and measure."""
    if isinstance(report, TableLuckReply):
        lines = _table_lines(report)
    else:
        lines = []
        for table in report.tables:
            lines += [*_table_lines(table), ""]
        lines.append(f"All {len(report.tables)} table(s), by player id")
        for player in report.players:
            lines.extend(_player_lines(player))
        if not report.players:
            lines.append("  No shots or morale checks yet.")
    lines += ["", report.significance]
    return "\n".join(lines)
