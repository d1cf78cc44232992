"""The tables a referee hosts: state derived from the event log, one action at a time each.

A write goes: validate -> adjudicate on the current state (pure; a refusal changes nothing)
-> queue the event and wait for the commit that holds it -> swap in the new state -> wake
the listeners -> reply. The table's lock is held from the adjudication to the swap, so two
writes to one table never interleave; other tables carry on meanwhile, and their events
share the commit (``tankref.server.store.GroupCommit``).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, MutableMapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any, NamedTuple

from pydantic import ValidationError
from pydantic_core import to_json

from tankref import __version__
from tankref.core import chain
from tankref.core.dice import DiceState, SuppliedDice
from tankref.core.errors import RulesError
from tankref.core.results import Result, chat_lines
from tankref.core.ruleset import Ruleset, TableSummary, TankView
from tankref.core.scene import LineOfFire
from tankref.core.timeline import Step, Timeline, describe, first_state, result_digest
from tankref.core.trusted import copied
from tankref.rulesets import get_ruleset, ruleset_names
from tankref.server.errors import RETRY_AFTER, ApiError, from_rules, from_validation
from tankref.server.schemas import (
    CreateTable,
    DicePublic,
    OrderedBy,
    Scene,
    SeatCheck,
    TableCreated,
    TableDeleted,
    TableListItem,
    TableRead,
    VoidOpen,
    log_entry_json,
)
from tankref.server.store import (
    EventRow,
    LoggedSnapshot,
    Quota,
    Reopened,
    Snapshot,
    StoreFailure,
    StoreUnavailable,
    TableBusy,
    TableGone,
    TableRow,
    WriteConflict,
    event_row,
    one_line,
)
from tankref.server.stores import Store, TableWriter

log = logging.getLogger("tankref.server")


# The second last written and its text up to the seconds: an event's time is one f-string,
# its date written out again only when the second changes.
_second: tuple[int, str] = (-1, "")


def _now() -> str:
    """``datetime.now(UTC).isoformat(timespec="milliseconds")``: the same text (tested)."""
    return _at(time.time_ns())


def _at(ns: int) -> str:
    """The time ``ns`` nanoseconds after the epoch, in UTC, to the millisecond (floored, as
    ``datetime.now`` floors the same clock to the microsecond and ``isoformat`` that to the
    millisecond)."""
    global _second
    second, milli = divmod(ns // 1_000_000, 1000)
    kept = _second  # read once: another thread may replace it meanwhile, never half of it
    if kept[0] != second:
        text = datetime.fromtimestamp(second, UTC).isoformat(timespec="seconds")[:19]
        kept = _second = (second, text)
    return f"{kept[1]}.{milli:03d}+00:00"


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


# ``json.dumps(data, sort_keys=True, separators=(",", ":"))``, its encoder made once (dumps
# makes a new one on every call given any option: a third of a request hash's time).
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"))


def _canonical(data: Any) -> str:
    return _CANONICAL.encode(data)


CHECKPOINT_EVERY = 25
# A snapshot of the state every this many events (a multiple of CHECKPOINT_EVERY: its state
# is hashed in the log) and when the game is over: re-opening a table replays at most this
# many events after its snapshot (issue 18).
SNAPSHOT_EVERY = 50
# Tables kept rebuilt in memory (about 3 MB for a 500-event game): beyond this many, the least
# recently used idle one is dropped and rebuilt from its log when next used (issue 18: a
# referee with 1,000 tables in its log must not hold them all).
KEEP_REBUILT = 64
# A table used this recently is not dropped: a request may hold it between awaits (its body
# still arriving) before it takes the table's lock.
IDLE_SECONDS = 1.0


__all__ = [
    "Referee",
    "TableHost",
    "chained",
    "engine_version",
    "rebuild",
    "reopen",
    "replay_onto",
    "result_digest",
    "still_there",
    "table_genesis",
]


def _reply(
    applied: bool,
    replayed: bool,
    seq: int,
    entry_json: str | None,
    table: TableSummary | bytes,
    head: str,
) -> str:
    """A ``Reply`` as JSON text, around the entry's JSON exactly as it was logged (no second
    serialisation of the biggest part); ``table``: the summary, or its JSON already made."""
    table_json = (table if isinstance(table, bytes) else to_json(table)).decode()
    return (
        f'{{"applied":{str(applied).lower()},"replayed":{str(replayed).lower()},"seq":{seq},'
        f'"entry":{entry_json or "null"},"table":{table_json},'
        f'"head_sha256":"{head}"}}'
    )


def engine_version(ruleset: str) -> str:
    """tankref's version and the ruleset's data fingerprint (its ``data_fingerprint``):
    what decided a result."""
    return f"{__version__}+{ruleset}.cards.{get_ruleset(ruleset).data_fingerprint()}"


@dataclass
class LogPages:
    """Reads of the log's tail as served, for the one seq they were read at: the waiters one
    write wakes (hundreds of long-polls and streams) all ask for the same newest entries,
    which are then read from SQLite and encoded once. The log is append-only, so such a page
    changes only with seq. Reads further back (paging through history) are not kept."""

    TAIL = 50  # entries from the log's end: what live waiters ask for
    seq: int = -1
    pages: dict[tuple[int, int], bytes] = field(default_factory=dict)  # (after, limit) -> body
    entries: dict[tuple[int, int], list[str]] = field(default_factory=dict)

    def page(self, seq: int, after: int, limit: int, make: Callable[[], bytes]) -> bytes:
        if not self._kept(seq, after):
            return make()
        body = self.pages.get((after, limit))
        if body is None:
            body = self.pages[(after, limit)] = make()
        return body

    def read(self, seq: int, after: int, limit: int, read: Callable[[], list[str]]) -> list[str]:
        if not self._kept(seq, after):
            return read()
        entries = self.entries.get((after, limit))
        if entries is None:
            entries = self.entries[(after, limit)] = read()
        return entries

    def _kept(self, seq: int, after: int) -> bool:
        """Whether a read after ``after`` is kept; the cache emptied if the log moved on."""
        if seq != self.seq or len(self.pages) + len(self.entries) > 16:
            self.seq = seq
            self.pages.clear()
            self.entries.clear()
        return seq - after <= self.TAIL


class SpentRequests(MutableMapping[str, tuple[int, str]]):
    """Request id -> (seq, request hash) of a table re-opened from a snapshot: the ids of
    the events up to the snapshot come with their seqs from the log's index of request ids
    (reading their hashes too would read every event's row, ten times the time); a hash is
    read from the log when its id is asked for again (a repeated request, ``read``)."""

    __slots__ = ("known", "read", "unread")

    def __init__(self, unread: dict[str, int], read: Callable[[int], str] | None = None) -> None:
        self.known: dict[str, tuple[int, str]] = {}
        self.unread = unread  # id -> seq, hash not read yet
        self.read = read  # seq -> that event's request hash (set on the event loop's thread)

    def __contains__(self, key: object) -> bool:
        return key in self.known or key in self.unread

    def __getitem__(self, key: str) -> tuple[int, str]:
        found = self.known.get(key)
        if found is None:
            seq = self.unread[key]
            if self.read is None:
                raise KeyError(key)
            found = self.known[key] = (seq, self.read(seq))
            del self.unread[key]
        return found

    def __setitem__(self, key: str, value: tuple[int, str]) -> None:
        self.unread.pop(key, None)
        self.known[key] = value

    def __delitem__(self, key: str) -> None:
        if self.unread.pop(key, None) is None:
            del self.known[key]

    def __iter__(self) -> Iterator[str]:
        yield from self.unread
        yield from self.known

    def __len__(self) -> int:
        return len(self.known) + len(self.unread)


class Recorded(NamedTuple):
    """A step made into its next event, not yet committed (``Referee._entry``). A named
    tuple: made once an event, without a frozen dataclass's setattr per field."""

    row: EventRow
    head: str  # the log's hash chain after it
    table_json: bytes  # the table's summary after it, as the entry and the reply carry it
    snapshot: Snapshot | None  # due with it (queued after it, committed with it)


def _numbered(line: LineOfFire, seq: int) -> LineOfFire:
    """``line.model_copy(update={"seq": seq})`` (tested), without pydantic's generic path:
    a shallow copy, ``seq`` set in it and among its fields set."""
    numbered = copied(line)
    numbered.__dict__["seq"] = seq
    numbered.__pydantic_fields_set__.add("seq")
    return numbered


@dataclass
class TableHost:
    """One table in memory: its derived state and the machinery to serialise its writes."""

    id: str
    rules: Ruleset
    created_at: str
    token_sha256: str
    commitment: str
    seed_chosen: bool
    timeline: Timeline  # the derived state and what the log says about it (undo stack ...)
    head: str  # the log's hash chain after its last event (tankref.core.chain)
    seq: int = 0
    damaged: str | None = None  # why the log could not be replayed; the table is read-only
    # player -> SHA-256 of their seat token: a player's own credential, beside the table's
    seat_tokens: dict[str, str] = field(default_factory=dict)
    # request id -> (seq, request hash): a repeated request is answered from the log
    requests: MutableMapping[str, tuple[int, str]] = field(default_factory=dict)
    # request id -> (seq, request hash) of a request that changed nothing: answered the same
    quiet: dict[str, tuple[int, str]] = field(default_factory=dict)
    closing: bool = False  # the server is stopping: held long-polls answer now
    deleted: bool = False  # its owner deleted it: a write still queued on its lock is refused
    shots: dict[int, LineOfFire] = field(default_factory=dict)  # seq -> line, for the scene
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    # Long-polls and streams waiting on this table: while any does, it stays in memory (a
    # waiter on a dropped copy would never hear of the next write).
    watchers: int = 0
    used: float = field(default_factory=time.monotonic)  # when a request last asked for it
    pages: LogPages = field(default_factory=lambda: LogPages())
    _changed: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def state(self) -> Any:
        return self.timeline.state

    def summary(self) -> TableSummary:
        return self.timeline.summary()

    @property
    def revealed(self) -> bool:
        """The game is over (by the rules or by agreement): its secrets may be shown. Shown
        mid-game, the server seed would let anyone predict the next rolls."""
        return self.damaged is None and self.timeline.over

    def revealed_seed(self) -> str | None:
        """The server seed once revealed, else None."""
        return self.rules.dice_state(self.state).seed if self.revealed else None

    def dice_public(self) -> DicePublic:
        dice = self.rules.dice_state(self.state)
        return DicePublic(
            source=dice.source,
            damage_cards=dice.damage_cards,
            commitment=self.commitment,
            seed_chosen=self.seed_chosen,
            player_seeds=list(dice.player_seeds),
            counter=dice.counter,
            seed=self.revealed_seed(),
        )

    def public_state(self) -> dict[str, Any]:
        """The state as anyone may read it: the ruleset hides its secrets until revealed."""
        return self.rules.public_state(self.state, revealed=self.revealed)

    def note_shot(self, seq: int, step: Step) -> None:
        """Keep the line of each shot still in effect: the scene draws the latest one, and
        an undo or void takes its line back with it."""
        if step.takes_back is not None:
            self.shots.pop(step.takes_back, None)
            return
        line = self._line(seq, step)
        if line is not None:
            self.shots[seq] = line

    def _line(self, seq: int, step: Step) -> LineOfFire | None:
        """The line of fire a step's result draws, if any (on the state after it)."""
        line = self.rules.line_of_fire(step.state, step.result)
        return None if line is None else _numbered(line, seq)

    def line_after(self, seq: int, step: Step) -> LineOfFire | None:
        """The latest shot still in effect once ``step`` is event ``seq`` (``note_shot``
        worked out on the side)."""
        line = None if step.takes_back is not None else self._line(seq, step)
        if line is not None:
            return line
        left = [k for k in self.shots if k != step.takes_back]
        return self.shots[max(left)] if left else None

    @property
    def line_of_fire(self) -> LineOfFire | None:
        return self.shots[max(self.shots)] if self.shots else None

    def scene(self) -> Scene:
        parts = self.rules.scene_parts(self.state)
        return Scene(
            table_id=self.id,
            seq=self.seq,
            ruleset=self.rules.name,
            ruleset_title=self.rules.title,
            table=self.summary(),
            area=parts.area,
            players=parts.players,
            tanks=self.rules.tank_views(self.state),
            terrain=parts.terrain,
            rings=parts.rings,
            line_of_fire=self.line_of_fire,
            grid=parts.grid,
        )

    def notify(self) -> None:
        if self.watchers:  # else no one waits on it (``wait_after`` counts itself in first)
            self._changed.set()
            self._changed = asyncio.Event()

    async def wait_after(self, after: int, timeout: float) -> None:
        """Return when the log has an event after ``after``, or when ``timeout`` runs out."""
        if self.seq > after or timeout <= 0 or self.closing:
            return
        self.watchers += 1
        try:
            # asyncio.timeout, not wait_for: no extra task per waiter (hundreds may wait)
            with contextlib.suppress(TimeoutError):  # time's up: the caller answers "nothing new"
                async with asyncio.timeout(timeout):
                    await self._changed.wait()
        finally:
            self.watchers -= 1

    @contextlib.contextmanager
    def watched(self) -> Iterator[None]:
        """Keep the table in memory while a stream follows it (between waits too)."""
        self.watchers += 1
        try:
            yield
        finally:
            self.watchers -= 1


class Referee:
    """The tables in the log. Start-up reads and checks each table's row only; a table is
    re-opened when it is first used (``host``): from its newest usable snapshot, the events
    after it replayed (``reopen``), and the least recently used idle tables beyond
    ``keep_rebuilt`` are dropped again (re-opened on next use). Listing tables replays
    none: a table not in memory is listed from its last log entry."""

    def __init__(
        self,
        store: Store,
        *,
        keep_rebuilt: int = KEEP_REBUILT,
        idle_seconds: float = IDLE_SECONDS,
    ) -> None:
        self.store = store
        # Every table that loads, as created, oldest first (the order tables are listed in).
        self.rows: dict[str, TableRow] = {}
        # The tables rebuilt in memory, least recently used first.
        self.tables: OrderedDict[str, TableHost] = OrderedDict()
        # Tables whose row or log cannot be read (an unknown ruleset, a damaged file): id ->
        # why. Left as they are in the database; every request to one is told why.
        self.quarantined: dict[str, str] = {}
        # A table not in memory: (seq, summary) as its log last left it, for the list.
        self._listed: dict[str, tuple[int, TableSummary]] = {}
        self.keep_rebuilt = keep_rebuilt
        self.idle_seconds = idle_seconds
        self._loading: dict[str, asyncio.Future[None]] = {}  # replays under way (``open``)
        self._versions: dict[str, str] = {}
        # Other referee processes write this database too (``listen``): the newest seq heard
        # of each table, and the catch-ups under way (one a table at a time).
        self.shared = False
        self._heard: dict[str, int] = {}
        self._following: dict[str, asyncio.Future[None]] = {}
        self.demo_ids = store.demo_table_ids()  # tables `tankref demo` made (listed as such)
        # Requests waiting on the commit that holds their write: with the guards' count of
        # writes under way, whether another write may come before a commit (``set_busy``).
        self.committing = 0
        self.load()

    def release_waiters(self) -> None:
        """The server is stopping: every held long-poll answers now (with what it has), and
        streams close, instead of being cut off when the grace period runs out."""
        for host in self.tables.values():
            host.closing = True
            host.notify()

    # --- several referee processes on one database (issue 19) --------------------------------
    def listen(self) -> threading.Event | None:
        """Hear the writes other referee processes make to this database (on the running
        event loop): a table in memory is caught up from its log and its long-polls and
        streams woken. The event is set while the store listens; None: nobody else writes
        this database (SQLite)."""
        loop = asyncio.get_running_loop()

        def heard(table_id: str, seq: int) -> None:  # the store's listening thread
            # Only news of a table this process holds something of wakes the event loop
            # (dict look-ups are safe from another thread): the rest is read from the log
            # when first used.
            if table_id in self.tables or table_id in self._loading or table_id in self._listed:
                loop.call_soon_threadsafe(self._news, table_id, seq)

        def reconnected() -> None:
            loop.call_soon_threadsafe(self._follow_all)

        def deleted(table_id: str) -> None:  # rare: always handed to the event loop
            loop.call_soon_threadsafe(self._deleted, table_id)

        listening = self.store.listen(heard, reconnected, deleted)
        self.shared = listening is not None
        return listening

    def _news(self, table_id: str, seq: int) -> None:
        """Another process logged ``table_id``'s event ``seq``."""
        if seq > self._heard.get(table_id, 0):
            self._heard[table_id] = seq
        self._listed.pop(table_id, None)  # the list reads its last entry again
        host = self.tables.get(table_id)
        if host is None:
            return
        idle = time.monotonic() - host.used >= self.idle_seconds
        if idle and not host.watchers and not host.lock.locked() and host.id not in self._following:
            # Nobody here follows it: forgotten rather than replayed on every write another
            # process makes (re-opened from its newest snapshot if it is asked for again).
            del self.tables[table_id]
            return
        self._follow(host)

    def _deleted(self, table_id: str) -> None:
        """The table was deleted (here, or by another process): it is forgotten, requests
        for it are answered 404, a write waiting on it too, and whoever waits on it is
        answered now (a long-poll 404, a stream closed)."""
        host = self.tables.pop(table_id, None)
        self.rows.pop(table_id, None)
        self._listed.pop(table_id, None)
        self._heard.pop(table_id, None)
        self.demo_ids.discard(table_id)
        if host is not None:
            host.deleted = True
            host.closing = True
            host.notify()

    def _follow_all(self) -> None:
        """The store listens again after losing its connection: whatever was written
        meanwhile was not heard, so every table in memory reads its log's tail."""
        self._listed.clear()
        for host in list(self.tables.values()):
            self._follow(host)

    def _follow(self, host: TableHost) -> None:
        if host.id not in self._following:
            self._following[host.id] = asyncio.ensure_future(self._follow_up(host))

    async def _follow_up(self, host: TableHost) -> None:
        caught_up = False
        try:
            async with host.lock:  # after any write of ours in progress: never applied twice
                if self.tables.get(host.id) is host and not host.deleted:
                    await self._catch_up(host)
                    caught_up = True
        except Exception as exc:  # the database away: the next write or reconnection retries
            log.warning("table %s: could not catch up from the log: %s", host.id, one_line(exc))
        finally:
            del self._following[host.id]
        if caught_up and self._heard.get(host.id, 0) > host.seq:  # heard more meanwhile
            self._follow(host)

    async def _catch_up(self, host: TableHost) -> None:
        """The events other processes logged after this copy's seq, applied as a replay
        applies them (the logged dice and results, never adjudicated again), its hash chain
        checked; then its waiters woken. With the request ids the others spent on requests
        that changed nothing (answered the same here too). The table's lock is held."""
        host.quiet = self.store.quiet_requests(host.id)
        events = self.store.events(host.id, after=host.seq)
        if not events:
            return
        head, broken = _check_log(self.rows[host.id], events, host.head)
        for event in events:
            if host.timeline.reaches_back(event.action):  # before its snapshot: whole log
                await self._replay_whole(host)
            replay_onto(host, (event,))
        host.head = head
        if broken is not None and not host.damaged:
            host.damaged = broken
            log.error("table %s: %s", host.id, broken)
        host.notify()

    async def _written(self, host: TableHost, write: Callable[[TableWriter], Any]) -> str:
        """``write`` (a request on the table as it stands, its lock held), once more if it
        lost its seq to another referee process's: then inside the table's ``hold``, which
        no other process writes the table through, after catching the table up from the
        log (a request id another process already applied is then answered from the log,
        never applied twice); so the second try cannot lose. The first try holds nothing
        while it adjudicates: an uncontended write waits on no other process."""
        still_there(host)
        if self._heard.get(host.id, 0) > host.seq:  # sure to lose as it stands: catch up first
            await self._caught_up(host)
        try:
            reply: str = await write(self.store)
            return reply
        except _Behind:
            pass
        except _Gone:
            self._deleted(host.id)
            raise
        try:
            async with self.store.hold(host.id) as held:
                still_there(host)
                await self._caught_up(host)
                reply = await write(held)
                return reply
        except _Behind:
            # Lost even while held: something wrote the log without the table's lock (not a
            # referee). Nothing applied; the table is read again from its log.
            self._fall_behind(host)
            raise
        except _Gone:
            self._deleted(host.id)
            raise
        except TableBusy as exc:
            # The holder has kept the table for seconds where a write takes milliseconds:
            # stuck, or cut off until the server ends its session. Nothing applied.
            log.warning("table %s: %s", host.id, exc)
            raise _Behind(held_by_another=True) from None

    async def _caught_up(self, host: TableHost) -> None:
        """``_catch_up`` for a write that lost the race; a copy that cannot be caught up is
        forgotten (re-opened from the log on its next use) and the write refused."""
        try:
            await self._catch_up(host)
        except StoreFailure:  # the database away: 503 (Retry-After), nothing applied
            self._fall_behind(host)
            raise
        except ApiError:  # the log before its snapshot no longer replays: read-only
            raise
        except Exception as exc:
            log.warning("table %s: could not catch up from the log: %s", host.id, exc)
            self._fall_behind(host)
            raise ApiError(
                503,
                "NOT_SAVED",
                f"the referee could not read this table's log again ({one_line(exc)}); "
                "nothing was applied",
            ) from None

    def _row(self, table_id: str) -> TableRow | None:
        """The table's row; with other processes writing the database, one made by another
        (read once from the database: it is then kept like the rest)."""
        row = self.rows.get(table_id)
        if row is not None or not self.shared or table_id in self.quarantined:
            return row
        row = self.store.table(table_id)
        if row is not None:
            self._take_row(row)
        return self.rows.get(table_id)

    def _take_row(self, row: TableRow) -> None:
        try:
            _check_row(row)
        except Exception as exc:
            self._set_aside(row.id, exc)
        else:
            self.rows[row.id] = row

    def version(self, ruleset: str) -> str:
        if ruleset not in self._versions:
            self._versions[ruleset] = engine_version(ruleset)
        return self._versions[ruleset]

    # --- start-up: every table's row; its log when it is first used -------------------------
    def load(self) -> None:
        """Read and check every table's row (cheap: no log is read). A row that does not
        load sets its table aside; a log that does not is found on the table's first use."""
        try:  # every row in one read; one that does not read: each on its own, below
            rows: dict[str, TableRow | None] = {r.id: r for r in self.store.tables()}
        except Exception:
            rows = dict.fromkeys(self.store.table_ids())
        for table_id, read in rows.items():
            try:
                row = read or self.store.table(table_id)
                assert row is not None  # listed a moment ago, and rows are never deleted
                _check_row(row)
            except Exception as exc:  # one table that cannot be read must not stop the rest
                self._set_aside(table_id, exc)
                continue
            self.rows[table_id] = row
        if self.rows:
            log.info("%d table(s) in the event log, each rebuilt on first use", len(self.rows))

    def _set_aside(self, table_id: str, exc: Exception) -> None:
        self.quarantined[table_id] = f"{type(exc).__name__}: {one_line(exc, 300)}"
        log.error("table %s set aside, it does not load: %s", table_id, exc)

    def _rebuilt(
        self, row: TableRow, reopened: tuple[TableHost, Snapshot | None] | None = None
    ) -> TableHost:
        """The table made again from its log (``reopen``: from its newest snapshot on;
        ``reopened``: done already, elsewhere), with the requests and seats kept beside the
        log. A snapshot the re-opening made on the way (the log had none near its end) is
        saved."""
        if reopened is None:
            reopened = reopen_from(self.store.reopen, row, self.version(row.ruleset))
        host, made = reopened
        if isinstance(host.requests, SpentRequests):  # hashes from this thread's connection

            def read(seq: int) -> str:
                return self.store.request_digest(row.id, seq)

            host.requests.read = read
        host.quiet = self.store.quiet_requests(row.id)
        host.seat_tokens = self.store.seat_tokens(row.id)
        if made is not None:
            self._save_snapshot(made)
        return host

    def _save_snapshot(self, snapshot: Snapshot, writer: TableWriter | None = None) -> None:
        """Kept for the table's next re-opening: with the next group commit when a loop runs
        (nobody waits on it: it is derived, and a lost one only means a longer replay);
        ``writer``: with the write in hand, where that goes."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:  # no event loop (a tool, a test): written here and now
            try:
                self.store.add_snapshot(snapshot)
            except StoreFailure as exc:
                _snapshot_lost(snapshot, exc)
            return
        written = (writer or self.store).queue_snapshot(snapshot)
        written.add_done_callback(
            lambda done: _snapshot_lost(snapshot, None if done.cancelled() else done.exception())
        )

    async def open(self, table_id: str) -> TableHost:
        """``host`` for a request: a table not in memory is replayed in a worker thread, on
        a connection of its own, so the other tables are served meanwhile (a long log takes
        a while); requests for it that come meanwhile wait for the same replay."""
        row = self._row(table_id)
        if row is not None and table_id not in self.tables:
            loading = self._loading.get(table_id)
            if loading is None:
                loading = asyncio.ensure_future(self._load_aside(row))
                self._loading[table_id] = loading
            with contextlib.suppress(Exception):  # ``host`` says what went wrong
                await asyncio.shield(loading)  # one impatient client does not stop it
        return self.host(table_id)

    async def open_current(self, table_id: str) -> TableHost:
        """``open`` for a read. With other processes writing the database, the copy is first
        brought up to the log as it stands: a write another worker acknowledged a moment ago
        may not be heard of yet (its notification is on its way), and a client that wrote
        there and reads here must see its write (a stale copy would offer a tank a shot it
        has already fired). One indexed read of the log's last seq; caught up only if behind."""
        host = await self.open(table_id)
        if not self.shared:
            return host
        last = self.store.last_seq(table_id)
        if last > host.seq:
            self._heard[table_id] = max(last, self._heard.get(table_id, 0))
            async with host.lock:  # after a catch-up or a write of ours in progress
                still_there(host)
                if last > host.seq:
                    try:
                        await self._catch_up(host)
                    except (StoreFailure, ApiError):  # 503 with Retry-After; or read-only
                        raise
                    except Exception as exc:
                        log.warning("table %s: could not catch up from the log: %s", host.id, exc)
                        self._fall_behind(host)  # re-opened from the log on its next use
                        raise ApiError(
                            503,
                            "NOT_CAUGHT_UP",
                            f"the referee could not read this table's newest log entries "
                            f"({one_line(exc)}); ask again",
                            headers={"Retry-After": "1"},
                        ) from None
        return host

    async def find_open(self, table_id: str) -> TableHost | None:
        """``open``, or None: no such table, or set aside."""
        try:
            return await self.open(table_id)
        except ApiError:
            return None

    async def _load_aside(self, row: TableRow) -> None:
        read = self.store.read_reopen  # on a connection of its own
        try:
            version = self.version(row.ruleset)

            def replay() -> tuple[TableHost, Snapshot | None]:
                return reopen_from(read, row, version)

            host = self._rebuilt(row, await asyncio.to_thread(replay))
        except StoreUnavailable:  # not the table's fault: ``host`` tries again, and says so
            pass
        except _Gone:  # deleted by another process before we heard of it
            self._deleted(row.id)
        except Exception as exc:  # its log does not load: set aside, as at start
            if row.id in self.rows:
                self._set_aside(row.id, exc)
                del self.rows[row.id]
                self._listed.pop(row.id, None)
        else:
            if row.id not in self.tables and self.rows.get(row.id) is row:  # not deleted since
                self._keep(host)
        finally:
            del self._loading[row.id]

    def _keep(self, host: TableHost) -> None:
        """``host`` is in memory now; the least recently used idle tables beyond
        ``keep_rebuilt`` go (each keeps its place in the list from what it last showed)."""
        self.tables[host.id] = host
        self._listed.pop(host.id, None)
        if self.shared and self._heard.get(host.id, 0) > host.seq:  # written while it loaded
            self._follow(host)
        excess = len(self.tables) - self.keep_rebuilt
        if excess <= 0:
            return
        now = time.monotonic()
        for table_id, kept in list(self.tables.items()):
            if excess <= 0:
                break
            busy = kept.watchers or kept.lock.locked() or kept is host
            if busy or now - kept.used < self.idle_seconds:
                continue
            del self.tables[table_id]
            self._listed[table_id] = (kept.seq, kept.summary())
            excess -= 1

    @staticmethod
    def _host_from_row(row: TableRow, state: Any = None) -> TableHost:
        """The table as created; ``state`` None: made again from the stored setup."""
        rules = get_ruleset(row.ruleset)
        if state is None:
            state = first_state(rules, row.setup, row.dice)
        return TableHost(
            id=row.id,
            rules=rules,
            created_at=row.created_at,
            token_sha256=row.token_sha256,
            commitment=row.commitment,
            seed_chosen=row.seed_chosen,
            timeline=Timeline(
                rules,
                state,
                seed_players(row.dice),
                seat_credentials=seat_credentials(row.dice),
            ),
            head=table_genesis(row),
        )

    async def _replay_whole(self, host: TableHost) -> None:
        """The table's timeline replayed from event 1, its undo stack whole: for a take-back
        that reaches before the snapshot the table was re-opened from (``Timeline.floor``).
        Off the event loop; the table's lock is held, so its log does not move meanwhile."""
        row = self.rows[host.id]
        read_log = self.store.read_log  # on a connection of its own

        def replay() -> TableHost:
            _, events = read_log(host.id, upto=host.seq)
            return rebuild(row, events)

        whole = await asyncio.to_thread(replay)
        still_there(host)
        if whole.damaged:  # the log before the snapshot no longer replays: read-only now
            host.damaged = whole.damaged
            raise ApiError(409, "TABLE_DAMAGED", f"this table is read-only: {host.damaged}")
        host.timeline, host.shots = whole.timeline, whole.shots

    def effective_events(self, host: TableHost, after: int = 0) -> list[EventRow]:
        """The table's game actions after log seq ``after`` still in effect, oldest first
        (``Timeline.in_effect``)."""
        return host.timeline.in_effect(self.store.events(host.id, after=after))

    # --- tables ----------------------------------------------------------------------------
    def create_table(self, body: CreateTable, *, quota: Quota | None = None) -> TableCreated:
        """A new table from ``body`` (refused with a 4xx naming the field); ``quota``: the
        creation limit it is made under (``CreationLimited`` beyond it, nothing made)."""
        if body.ruleset not in ruleset_names():
            raise ApiError(
                422,
                "UNKNOWN_RULESET",
                f"ruleset: no ruleset {body.ruleset!r} (known: {', '.join(ruleset_names())})",
                field="ruleset",
            )
        rules = get_ruleset(body.ruleset)
        try:
            setup = rules.parse_setup(body.setup)
        except ValidationError as exc:
            raise from_validation(list(exc.errors()), "setup") from None
        if body.dice.damage_cards == "table" and not rules.damage_deck:
            raise ApiError(
                422,
                "NO_DAMAGE_DECK",
                f"dice.damage_cards: {rules.title} draws no damage cards; leave it 'referee'",
                field="dice.damage_cards",
            )
        seed = body.dice.seed or secrets.token_hex(32)
        dice = DiceState(
            source=body.dice.source,
            damage_cards=body.dice.damage_cards,
            seed=seed,
            player_seeds=tuple(body.dice.player_seeds[k] for k in sorted(body.dice.player_seeds)),
        )
        try:
            state = rules.new_table(setup, dice)
        except RulesError as err:
            raise from_rules(err, "setup") from None
        token = secrets.token_urlsafe(32)
        # One credential per player, for what is theirs alone to ask (a void, their seed).
        seat_tokens = {p: secrets.token_urlsafe(32) for p in rules.summary(state).players}
        row = TableRow(
            id=secrets.token_hex(6),
            ruleset=rules.name,
            created_at=_now(),
            token_sha256=_sha256(token),
            setup=setup.model_dump(mode="json"),
            # who gave each player seed, kept beside the generator (a player may not replace
            # their seed; the export names them)
            dice={
                **dice.model_dump(mode="json"),
                "player_seed_players": sorted(body.dice.player_seeds),
                "seat_credentials": True,  # seat tokens were made (a table from before: none)
            },
            commitment=_sha256(seed),
            seed_chosen=body.dice.seed is not None,
            version=self.version(rules.name),
        )
        self.store.add_table(
            row, {p: _sha256(t) for p, t in seat_tokens.items()}, demo=body.demo, quota=quota
        )
        if body.demo:
            self.demo_ids.add(row.id)
        host = self._host_from_row(row, state)
        host.seat_tokens = {p: _sha256(t) for p, t in seat_tokens.items()}
        self.rows[host.id] = row
        self._keep(host)
        log.info("table %s created (%s)", host.id, rules.title)
        return TableCreated(
            table_id=host.id,
            token=token,
            seat_tokens=seat_tokens,
            ruleset=rules.name,
            dice=host.dice_public(),
            table=host.summary(),
        )

    def host(self, table_id: str) -> TableHost:
        """The table, rebuilt from its log if it is not in memory (its first use since
        start-up, or dropped while idle)."""
        host = self.tables.get(table_id)
        if host is None:
            row = self._row(table_id)
            if row is not None:
                try:
                    host = self._rebuilt(row)
                except StoreUnavailable:  # the database, not the table: 503, try again
                    raise
                except _Gone:  # deleted by another process before we heard of it
                    self._deleted(table_id)
                    raise
                except Exception as exc:  # its log does not load: set aside, as at start
                    self._set_aside(table_id, exc)
                    del self.rows[table_id]
                    self._listed.pop(table_id, None)
                else:
                    self._keep(host)
        if host is None and table_id in self.quarantined:
            raise ApiError(
                409,
                "TABLE_QUARANTINED",
                f"table_id: table {table_id!r} could not be loaded and is set aside, read-only "
                f"({self.quarantined[table_id]}); the other tables play on",
                field="table_id",
            )
        if host is None:
            raise ApiError(
                404, "UNKNOWN_TABLE", f"table_id: no table {table_id!r}", field="table_id"
            )
        self.tables.move_to_end(table_id)
        host.used = time.monotonic()
        return host

    def find(self, table_id: str) -> TableHost | None:
        """The table (rebuilt if need be), or None: no such table, or set aside."""
        try:
            return self.host(table_id)
        except ApiError:
            return None

    def hosts(self) -> Iterator[TableHost]:
        """Every table that loads, oldest first, each rebuilt if need be (all tables' luck)."""
        for table_id in list(self.rows):
            host = self.find(table_id)
            if host is not None:
                yield host

    def authorize(
        self, host: TableHost, authorization: str | None, *, seats: bool = False
    ) -> str | None:
        """Whose credential this is: None for the table's token, a player for their seat
        token (accepted only where ``seats``: a seat token asks what is its player's alone).
        """
        scheme, _, token = (authorization or "").partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise ApiError(
                401,
                "TOKEN_MISSING",
                "this needs the table's token or a player's seat token: "
                "'Authorization: Bearer <token>'"
                if seats
                else "writes need the table's token: 'Authorization: Bearer <token>'",
                headers={"WWW-Authenticate": "Bearer"},
            )
        digest = _sha256(token.strip())
        if secrets.compare_digest(digest, host.token_sha256):
            return None
        for player, seat_digest in host.seat_tokens.items():
            if secrets.compare_digest(digest, seat_digest):
                if not seats:
                    raise ApiError(
                        403,
                        "SEAT_TOKEN_NOT_ENOUGH",
                        f"that is {player}'s seat token: it asks only for {player}'s void and "
                        "seed; this needs the table's token",
                    )
                return player
        raise ApiError(403, "TOKEN_WRONG", "that is not this table's token")

    async def seat_check(self, host: TableHost, player: str | None) -> SeatCheck:
        """What ``player``'s seat (None: the table's token) may ask now: give a seed, void the
        latest action. Under the table's lock: a table re-opened from a snapshot whose undo
        stack stops there has its log replayed first, as a void would."""
        async with host.lock:
            still_there(host)
            if not host.damaged and host.timeline.reaches_back({"control": "void"}):
                with contextlib.suppress(ApiError):  # damaged meanwhile: nothing to void
                    await self._replay_whole(host)
            return seat_check(host, player)

    def list_tables(self) -> list[TableListItem]:
        """Every table, oldest first; none is replayed for it."""
        if self.shared:  # tables other processes made
            for row in self.store.tables():
                if row.id not in self.rows and row.id not in self.quarantined:
                    self._take_row(row)
        items = []
        for table_id, row in list(self.rows.items()):
            host = self.tables.get(table_id)
            listed = (host.seq, host.summary()) if host is not None else self._last_shown(row)
            if listed is None:
                continue  # its log does not load: set aside
            rules = get_ruleset(row.ruleset)
            items.append(
                TableListItem(
                    table_id=table_id,
                    ruleset=rules.name,
                    ruleset_title=rules.title,
                    created_at=row.created_at,
                    seq=listed[0],
                    table=listed[1],
                    demo=table_id in self.demo_ids,
                )
            )
        return items

    def _last_shown(self, row: TableRow) -> tuple[int, TableSummary] | None:
        """(seq, summary) of a table not in memory: as its last log entry showed it (every
        entry carries the table's summary after it), or as created when it has none. Kept
        until the table is next rebuilt (it cannot change before). None: set aside."""
        listed = self._listed.get(row.id)
        if listed is None:
            last = self.store.last_entry(row.id)
            try:
                if last is None:
                    rules = get_ruleset(row.ruleset)
                    listed = (0, rules.summary(first_state(rules, row.setup, row.dice)))
                else:
                    summary = json.loads(last[1])["table"]
                    listed = (last[0], TableSummary.model_validate(summary))
            except (ValueError, KeyError, TypeError):  # an entry that does not say: ask the log
                host = self.find(row.id)
                return None if host is None else (host.seq, host.summary())
            self._listed[row.id] = listed
        return listed

    async def delete_table(self, host: TableHost) -> TableDeleted:
        """The table gone for good, its log too (its owner asked, with its token), after
        any write in progress. Anyone still waiting on it is answered now."""
        async with host.lock:
            still_there(host)
            try:
                events = self.store.delete_table(host.id)
            except StoreFailure as exc:
                raise ApiError(
                    503, "NOT_SAVED", f"the referee could not delete it ({exc}); nothing changed"
                ) from None
            host.deleted = True
        self._deleted(host.id)
        host.closing = True
        host.notify()
        log.info("table %s deleted (%d events)", host.id, events)
        return TableDeleted(table_id=host.id, deleted=True, events=events)

    def read(self, host: TableHost) -> TableRead:
        return TableRead(
            table_id=host.id,
            ruleset=host.rules.name,
            created_at=host.created_at,
            seq=host.seq,
            dice=host.dice_public(),
            table=host.summary(),
            damaged=host.damaged,
            tanks=host.rules.tank_views(host.state),
            state=host.public_state(),
            head_sha256=host.head,
        )

    # --- writes ----------------------------------------------------------------------------
    async def submit(
        self,
        host: TableHost,
        *,
        request_id: str | None,
        request: dict[str, Any],
        build: Any,
        dice: SuppliedDice | None = None,
        by: OrderedBy | None = None,
    ) -> str:
        """Apply the action ``build(state)`` makes (None: nothing to do), once per request id;
        the reply as JSON text (``Reply``).

        ``request`` is what the client asked, for recognising a repeated request id.
        """
        request_sha = _sha256(_canonical(request))

        async def write(writer: TableWriter) -> str:
            return await self._submit(host, writer, request_id, request_sha, build, dice, by)

        async with host.lock:
            return await self._written(host, write)

    async def _submit(
        self,
        host: TableHost,
        writer: TableWriter,
        request_id: str | None,
        request_sha: str,
        build: Any,
        dice: SuppliedDice | None,
        by: OrderedBy | None,
    ) -> str:
        """``submit`` on the table as it stands (its lock held)."""
        repeated = self._repeated(host, request_id, request_sha)
        if repeated is not None:
            return repeated
        if dice is not None:
            try:  # up front, before any dice: only what this table takes from a client
                dice = host.rules.accept_dice(host.state, dice)
            except RulesError as err:
                raise from_rules(err) from None
        action = build(host.state)
        if action is None:
            if request_id is not None:  # spent: the same id must never apply later
                written = writer.queue_quiet_request(host.id, request_id, request_sha, host.seq)
                cancelled = await self._committed(written, host.id, "request")
                host.quiet[request_id] = (host.seq, request_sha)
                if cancelled:
                    raise asyncio.CancelledError
            return _reply(False, False, host.seq, None, host.summary(), host.head)
        try:
            step = host.timeline.act(action, dice)
        except RulesError as err:
            raise from_rules(err, "action") from None
        return await self._record(host, writer, request_id, request_sha, step, dice, by)

    async def control(
        self, host: TableHost, *, request_id: str | None, action: dict[str, Any]
    ) -> str:
        """Log a control event (``{"control": "undo" | "void" | "end_game" | "player_seed",
        ...}``, see ``tankref.core.timeline``) once per request id; the reply as JSON text."""
        request_sha = _sha256(_canonical(action))

        async def write(writer: TableWriter) -> str:
            return await self._control(host, writer, request_id, request_sha, action)

        async with host.lock:
            return await self._written(host, write)

    async def _control(
        self,
        host: TableHost,
        writer: TableWriter,
        request_id: str | None,
        request_sha: str,
        action: dict[str, Any],
    ) -> str:
        """``control`` on the table as it stands (its lock held)."""
        repeated = self._repeated(host, request_id, request_sha)
        if repeated is not None:
            return repeated
        if host.timeline.reaches_back(action):  # before its snapshot: the whole log
            await self._replay_whole(host)
        try:
            step = host.timeline.control(action)
        except RulesError as err:
            raise from_rules(err) from None
        return await self._record(host, writer, request_id, request_sha, step, None)

    def _repeated(self, host: TableHost, request_id: str | None, request_sha: str) -> str | None:
        """The first reply to a repeated request id (never applied twice); refuses writes to a
        damaged table. None: a new request."""
        if request_id is not None and request_id in host.quiet:
            seq, first_sha = host.quiet[request_id]
            if first_sha != request_sha:
                raise _reused(request_id)
            return _reply(False, True, seq, None, host.summary(), host.head)
        if request_id is not None and request_id in host.requests:
            seq, first_sha = host.requests[request_id]
            if first_sha != request_sha:
                raise _reused(request_id)
            entry = self.store.entry_at(host.id, seq)
            return _reply(True, True, seq, entry, host.summary(), host.head)
        if host.damaged:
            raise ApiError(409, "TABLE_DAMAGED", f"this table is read-only: {host.damaged}")
        return None

    async def _record(
        self,
        host: TableHost,
        writer: TableWriter,
        request_id: str | None,
        request_sha: str,
        step: Step,
        dice: SuppliedDice | None,
        by: OrderedBy | None = None,
    ) -> str:
        """Append the step's event and wait for the commit that holds it; only then does the
        table move on. The table's lock is held meanwhile: its next write waits, others
        go on (and share the commit)."""
        event = self._entry(host, request_id, request_sha, step, dice, by)
        written = writer.queue_event(event.row)
        if event.snapshot is not None:
            # Queued in this turn, after its event: committed with it (and refused without it).
            self._save_snapshot(event.snapshot, writer)
        cancelled = await self._committed(written, host.id, f"event {event.row.seq}")
        # Committed: only now does the table move on.
        self._apply(host, event, step)
        if cancelled:
            raise asyncio.CancelledError
        return _reply(True, False, event.row.seq, event.row.entry, event.table_json, event.head)

    async def _committed(self, written: asyncio.Future[None], table_id: str, what: str) -> bool:
        """``_committed``, counted in ``committing`` meanwhile."""
        self.committing += 1
        try:
            return await _committed(written, table_id, what)
        finally:
            self.committing -= 1

    def _entry(
        self,
        host: TableHost,
        request_id: str | None,
        request_sha: str,
        step: Step,
        dice: SuppliedDice | None,
        by: OrderedBy | None = None,
    ) -> Recorded:
        """The step as its next event (its row with the log entry, the chain's head after
        it, a snapshot when one is due), the table untouched: the CPU of recording it, which
        ``bench/write_path.py`` times on its own."""
        seq = host.seq + 1
        summary = host.timeline.summary_after(step)
        table_json = to_json(summary)
        # The result serialised once: its digest is of these bytes, and the entry holds them.
        result_json = to_json(step.result)
        result_sha = hashlib.sha256(result_json).hexdigest()
        at = _now()
        action = step.action
        supplied = None if dice is None else dice.model_dump(mode="json")
        chat = chat_lines(step.result)
        # The state's JSON at checkpoints: hashed for the log, and the snapshot's text when
        # one is due with it (made once: a 20 v 20 state is ~50 KB of JSON).
        state_json = self._checkpoint(host, seq, step.state, summary)
        state_sha = None if state_json is None else _sha256(state_json)
        version = self.version(host.rules.name)
        # One hash per append: the chain goes on from the head kept in memory.
        head = chain.link(
            host.head,
            seq=seq,
            kind=step.kind,
            request_id=request_id,
            action=action,
            dice=supplied,
            result_sha256=result_sha,
            state_sha256=state_sha,
            version=version,
            at=at,
            chat=chat,
        )
        entry_json = log_entry_json(
            result=result_json,
            table=table_json,
            seq=seq,
            at=at,
            request_id=request_id,
            kind=step.kind,
            action=action,
            dice=supplied,
            chat=chat,
            tanks=self._changed_tanks(host, step.state, step.result),
            by=by,
            previous_sha256=host.head,
            chain_sha256=head,
        )
        row = event_row(
            table_id=host.id,
            seq=seq,
            request_id=request_id,
            request_sha256=request_sha,
            action=action,
            dice=supplied,
            entry=entry_json,
            result_sha256=result_sha,
            state_sha256=state_sha,
            version=version,
            created_at=at,
        )
        snapshot = None
        if state_sha is not None and (seq % SNAPSHOT_EVERY == 0 or summary.status == "over"):
            made = snapshot_of(host, version, step, state_json)
            snapshot = replace(made, head_sha256=head)
        return Recorded(row, head, table_json, snapshot)

    @staticmethod
    def _apply(host: TableHost, event: Recorded, step: Step) -> None:
        """The table moves on to a committed event, and whoever waits on it is woken."""
        seq = event.row.seq
        host.timeline.commit(step, seq)
        host.seq = seq
        host.head = event.head
        host.note_shot(seq, step)
        if event.row.request_id is not None:
            host.requests[event.row.request_id] = (seq, event.row.request_sha256)
        host.notify()

    def _fall_behind(self, host: TableHost) -> None:
        """Another referee process logged this table's next event first (a shared
        PostgreSQL database): this copy is behind its log. It is forgotten, and the table's
        next use re-opens it from the log; whoever waits on it now is answered."""
        if self.tables.get(host.id) is host:
            del self.tables[host.id]
        self._listed.pop(host.id, None)
        host.closing = True
        host.notify()

    def _checkpoint(
        self, host: TableHost, seq: int, state: Any, summary: TableSummary
    ) -> str | None:
        """The state's JSON at checkpoints, whose hash the event logs: while setting up, when
        the game is over, and every ``CHECKPOINT_EVERY`` events in play; else None. (Hashing
        the whole state on every shot would cost as much as adjudicating it; the result is
        hashed on every event.)"""
        if summary.status == "playing" and seq % CHECKPOINT_EVERY:
            return None
        return host.rules.dump_state(state)

    @staticmethod
    def _changed_tanks(host: TableHost, state: Any, result: Result) -> list[TankView]:
        changes = {c.tank_id: c for c in result.changes}
        tanks = host.rules.tank_views(state, list(changes))
        for view in tanks:  # the engine's tooltip also says what just happened to the tank
            # set in place: a required field, so already among the view's fields set
            view.__dict__["tooltip"] = changes[view.tank_id].tooltip or view.tooltip
        return tanks

    # --- reads -----------------------------------------------------------------------------
    def entries_json(self, host: TableHost, after: int, limit: int) -> list[str]:
        """Log entries (JSON text) after ``after``; the newest read once a seq for all who ask
        (``LogPages``)."""
        return host.pages.read(
            host.seq, after, limit, lambda: self.store.entries(host.id, after, limit)
        )


def _check_log(
    row: TableRow, events: list[EventRow], head: str | None = None
) -> tuple[str, str | None]:
    """Each logged entry (served as it is stored) is JSON and carries the result its event
    decided: a damaged entry sets the table aside rather than being served. Returns the
    log's head and, if an entry's chain link disagrees, why (the table is then read-only).
    Each entry is parsed once, here, at start-up: the chain of a log written before the
    chain existed is computed in the same pass. ``head``: the chain before ``events``
    (None: they are the whole log, from the table's genesis)."""
    head = table_genesis(row) if head is None else head
    broken: str | None = None
    for event in events:
        try:
            entry = json.loads(event.entry)
        except ValueError as exc:
            raise ValueError(f"event {event.seq}: its logged entry is not JSON ({exc})") from None
        result = entry.get("result") if isinstance(entry, dict) else None
        if not isinstance(result, dict) or result_digest(result) != event.result_sha256:
            raise ValueError(f"event {event.seq}: its logged entry does not match its result")
        head, wrong = chained(head, event, entry)
        broken = broken or wrong
    return head, broken


def still_there(host: TableHost) -> None:
    """404 for a table deleted (by any referee process) while a request waited on it."""
    if host.deleted:
        raise _Gone(host.id)


class _ReachesBack(Exception):
    """The events after a snapshot take back an action from before it (whose state before
    it the snapshot does not hold): an older snapshot is needed, or the whole log."""

    def __init__(self, seq: int) -> None:
        super().__init__(seq)
        self.seq = seq


def reopen_from(
    read: Callable[[str, Callable[[LoggedSnapshot], Any]], Reopened],
    row: TableRow,
    version: str,
    below: int | None = None,
) -> tuple[TableHost, Snapshot | None]:
    """``reopen`` on what ``read`` (``EventStore.reopen`` or ``read_reopen``) reads; when the
    events after the snapshot reach back before it, again from an older one (at worst from
    event 1). ``below``: only from a snapshot before that seq (the replay bench's longest
    tail)."""
    while True:
        take = _taker(row, version, below)
        try:
            return reopen(row, read(row.id, take), version)
        except _ReachesBack as back:
            below = back.seq


def reopen(row: TableRow, read: Reopened, version: str) -> tuple[TableHost, Snapshot | None]:
    """The table re-opened from what ``read_reopen`` read: from the snapshot it took (a
    ``TableHost``, see ``_taker``), else from the table as created, with the events after it
    replayed and their entries and hash chain checked; the table marked damaged where the
    chain breaks. Also a snapshot to save, at the tail's last checkpoint, when the tail is
    ``SNAPSHOT_EVERY`` events or more (a log from before snapshots: its first re-opening
    makes one). Pure: a worker thread may run it. Raises 404 when the table is no longer
    in the log (deleted by another referee process)."""
    if read.row is None:
        raise _Gone(row.id)
    host: TableHost = read.snapshot or Referee._host_from_row(row)
    if read.requests:
        host.requests = SpentRequests(read.requests)
    events = read.events
    cut = next(
        (
            i + 1
            for i in range(len(events) - 1, -1, -1)
            if events[i].state_sha256 is not None and events[i].seq >= read.after + SNAPSHOT_EVERY
        ),
        0,
    )
    head, broken = _check_log(row, events[:cut], host.head)
    _replay_tail(host, events[:cut], read.after)
    made = None
    if cut and not host.damaged and broken is None:
        host.head = head
        made = snapshot_of(host, version)
    head, later = _check_log(row, events[cut:], head)
    _replay_tail(host, events[cut:], read.after)
    host.head = head
    broken = broken or later
    if broken is not None and not host.damaged:
        # After the replay: the engine's reason for an edited event is plainer.
        host.damaged = broken
        log.error("table %s: %s", row.id, broken)
    return host, made


def _replay_tail(host: TableHost, events: list[EventRow], after: int) -> None:
    """``replay_onto``, refusing (``_ReachesBack``) an undo or void of an action from before
    the snapshot at ``after`` the table was re-opened from (0: none, nothing to refuse)."""
    if not after:
        replay_onto(host, events)
        return
    for event in events:
        if host.timeline.reaches_back(event.action):
            raise _ReachesBack(after)
        replay_onto(host, (event,))


def snapshot_of(
    host: TableHost, version: str, step: Step | None = None, state_json: str | None = None
) -> Snapshot:
    """The table as it stands (``step``: once that step is its next event, worked out on the
    side; the caller then gives the chain's head after it), for the ``snapshots`` table: the
    state's JSON (the text its checkpoint hashes; ``state_json``: that text, made already),
    the timeline's marks and the shot on show beside it (the only one a snapshot needs, see
    ``_taker``)."""
    if step is None:
        seq, state, marks, shot = host.seq, host.state, host.timeline.marks(), host.line_of_fire
    else:
        seq, state = host.seq + 1, step.state
        marks, shot = host.timeline.marks_after(step, seq), host.line_after(seq, step)
    marks["shot"] = None if shot is None else shot.model_dump(mode="json")
    return Snapshot(
        table_id=host.id,
        seq=seq,
        version=version,
        state=host.rules.dump_state(state) if state_json is None else state_json,
        timeline=json.dumps(marks),
        head_sha256=host.head,
    )


def _taker(
    row: TableRow, version: str, below: int | None = None
) -> Callable[[LoggedSnapshot], TableHost | None]:
    """What ``read_reopen`` offers each snapshot to, newest first: the table at the
    snapshot, or None to try the next. A snapshot is taken only if its engine is the one
    running (else the log is replayed by this one: a rules change must show) and its state
    hashes to the checkpoint its event logged, its chain head to the head it logged; one
    that does not is passed over, with a warning. Only the latest shot still in effect is
    kept: taking back an action at or before the snapshot replays the whole log first
    (``Timeline.reaches_back``), shots included. ``below``: only snapshots before that seq
    (the events after a later one reach back before it)."""

    def take(logged: LoggedSnapshot) -> TableHost | None:
        snap = logged.snapshot
        if snap.version != version or (below is not None and snap.seq >= below):
            return None
        try:
            if logged.state_sha256 != _sha256(snap.state):
                raise ValueError("its state does not hash to the checkpoint its event logged")
            logged_head = json.loads(logged.entry).get("chain_sha256")
            if logged_head is not None and logged_head != snap.head_sha256:
                raise ValueError("its chain head is not the one its event logged")
            rules = get_ruleset(row.ruleset)
            marks = json.loads(snap.timeline)
            host = Referee._host_from_row(row, rules.load_state(snap.state))
            host.timeline = Timeline.from_marks(
                rules, host.state, marks, seat_credentials=seat_credentials(row.dice)
            )
            if marks["shot"] is not None:
                shot = LineOfFire.model_validate(marks["shot"])
                host.shots[shot.seq or snap.seq] = shot
        except (ValueError, KeyError, TypeError) as exc:
            log.warning(
                "table %s: its snapshot at event %d is not used (%s); replaying from further back",
                row.id,
                snap.seq,
                one_line(exc),
            )
            return None
        host.head = snap.head_sha256
        host.seq = snap.seq
        return host

    return take


def _snapshot_lost(snapshot: Snapshot, exc: BaseException | None) -> None:
    # Derived data: the table re-opens from an older one, or its log. (A conflict: another
    # process logged that seq, with its own snapshot; or the table was deleted.)
    if exc is not None and not isinstance(exc, WriteConflict | TableGone):
        log.warning(
            "table %s: its snapshot at event %d was not saved: %s",
            snapshot.table_id,
            snapshot.seq,
            one_line(exc),
        )


def _check_row(row: TableRow) -> None:
    """What start-up checks of a table without reading its log: a ruleset this referee
    knows, a setup it accepts, dice that read (its log and hash chain: on first use)."""
    rules = get_ruleset(row.ruleset)
    rules.setup_model.model_validate(row.setup)
    DiceState.model_validate(row.dice)


async def _committed(written: asyncio.Future[None], table_id: str, what: str) -> bool:
    """Waits for the commit that holds a write; True if the request was cancelled meanwhile.

    A cancellation does not cut the wait short: the row may already be on its way to disk,
    and the table must neither move on without it nor take its next write before it is
    known to be saved or refused. (The caller then applies it and raises CancelledError.)
    A refused write raises 503 NOT_SAVED: nothing was applied."""
    cancelled = False
    while not written.done():
        try:
            await asyncio.shield(written)
        except asyncio.CancelledError:
            cancelled = True
        except Exception:  # refused: the future holds why, said below
            break
    exc = written.exception()
    if isinstance(exc, WriteConflict):  # the caller catches up from the log, tries again
        log.info("table %s: %s lost to another referee process's: %s", table_id, what, exc)
        raise _Behind()
    if isinstance(exc, TableGone):  # deleted by another process meanwhile: nothing applied
        raise _Gone(table_id)
    if exc is not None:  # disk full, file gone ...: say so; nothing was applied
        log.error("table %s: could not save %s: %s", table_id, what, exc)
        if cancelled:
            raise asyncio.CancelledError
        if isinstance(exc, StoreUnavailable):
            raise ApiError(
                503,
                "DATABASE_UNAVAILABLE",
                f"the referee cannot reach its database ({exc}); nothing was applied: "
                "send it again shortly",
                headers={"Retry-After": RETRY_AFTER},
            ) from None
        raise ApiError(
            503, "NOT_SAVED", f"the referee could not save this action ({exc}); nothing was applied"
        ) from None
    return cancelled


class _Behind(ApiError):
    """The write lost to another referee process's (``WriteConflict``): nothing applied.
    Tried again inside the table's hold, it never reaches the client but in the
    pathological cases ``Referee._written`` names."""

    def __init__(self, *, held_by_another: bool = False) -> None:
        said = (
            "another referee process has held this table for seconds"
            if held_by_another
            else "this table's log was written without its lock"
        )
        super().__init__(
            409,
            "TABLE_MOVED_ON",
            f"{said}; nothing was applied: send it again (the table is read again from its log)",
            headers={"Retry-After": "1" if held_by_another else "0"},
        )


class _Gone(ApiError):
    """The table was deleted by another referee process before the write reached the log."""

    def __init__(self, table_id: str) -> None:
        super().__init__(
            404, "UNKNOWN_TABLE", f"table_id: table {table_id!r} was deleted", field="table_id"
        )


def _reused(request_id: str) -> ApiError:
    return ApiError(
        409,
        "REQUEST_ID_REUSED",
        f"request_id: {request_id!r} was already used for a different request on this table",
        field="request_id",
    )


def seed_players(dice: dict[str, Any]) -> list[str | None]:
    """Who gave each player seed at creation (None: a table from before that was kept)."""
    owners = dice.get("player_seed_players")
    if isinstance(owners, list):
        return [str(p) for p in owners]
    return [None] * len(dice.get("player_seeds", ()))


def seat_check(host: TableHost, player: str | None) -> SeatCheck:
    """``Referee.seat_check`` on the table as it stands."""
    timeline = host.timeline
    players = list(host.summary().players)
    writable = host.damaged is None  # a read-only table takes no seed and no void
    void = None
    open_void = timeline.void_open() if writable else None
    if open_void is not None:
        top, asked = open_void
        void = VoidOpen(
            seq=top.seq,
            action=describe(top.action),
            asked=list(asked),
            needs=[p for p in players if p not in asked],
        )
    return SeatCheck(
        table_id=host.id,
        credential="table" if player is None else "seat",
        player=player,
        players=players,
        seeds_open=writable and timeline.seeds_open(),
        seeds_given=[p for p in timeline.seed_players if p is not None],
        void=void,
    )


def seat_credentials(dice: dict[str, Any]) -> bool:
    """Whether the table has seat tokens, so that each void ask needs its own credential
    (False: a table created before seat tokens, which keeps the one-token void)."""
    return dice.get("seat_credentials") is True


def table_genesis(row: TableRow) -> str:
    """The start of a table's hash chain, from its row (the fields its export shows)."""
    dice = DiceState.model_validate(row.dice)
    return chain.genesis(
        table_id=row.id,
        ruleset=row.ruleset,
        created_at=row.created_at,
        version=row.version,
        setup=row.setup,
        dice_source=dice.source,
        damage_cards=dice.damage_cards,
        commitment=row.commitment,
        seed_chosen=row.seed_chosen,
        player_seeds=list(zip(seed_players(row.dice), dice.player_seeds, strict=True)),
        seat_credentials=seat_credentials(row.dice),
    )


def chained(previous: str, event: EventRow, entry: dict[str, Any]) -> tuple[str, str | None]:
    """The chain after a stored event, and what is wrong with it (None: nothing). Events
    logged before the chain existed are hashed the same way on load (their entries just do
    not carry it); an entry that does carry it must agree, else the stored log was edited
    after it was written. ``entry``: the event's entry, parsed."""
    head = chain.link(
        previous,
        seq=event.seq,
        kind=str(entry.get("kind")),
        request_id=event.request_id,
        action=event.action,
        dice=event.dice,
        result_sha256=event.result_sha256,
        state_sha256=event.state_sha256,
        version=event.version,
        at=event.created_at,
        chat=list(entry.get("chat", [])),
    )
    logged = (entry.get("previous_sha256"), entry.get("chain_sha256"))
    if logged != (None, None) and logged != (previous, head):
        return head, (
            f"event {event.seq}: the log's hash chain breaks here (its entry says "
            f"{str(logged[1])[:16]}..., the stored events hash to {head[:16]}...): the "
            "database was edited after it was written"
        )
    return head, None


def rebuild(row: TableRow, events: list[EventRow]) -> TableHost:
    """A table made again from its log (start-up, ``tankref export``): every event replayed
    through ``Timeline.replay``; a log that no longer replays marks the table damaged. Its
    ``head`` is left at the chain's start: ``Referee.load`` computes the log's head while it
    checks the entries (the export computes its own)."""
    host = Referee._host_from_row(row)
    replay_onto(host, events)
    return host


def replay_onto(host: TableHost, events: Iterable[EventRow]) -> None:
    """``rebuild``'s replay, going on from wherever ``host`` stands (the replay slider's
    positions, ``tankref.server.history``, go on from one kept earlier)."""
    for event in events:
        if event.request_id is not None:
            host.requests[event.request_id] = (event.seq, event.request_sha256)
        if not host.damaged:
            try:
                step = host.timeline.replay(event)
            except Exception as exc:  # a rules or data change broke an old game: say so
                host.damaged = f"event {event.seq} no longer replays: {exc}"
                log.error("table %s: %s", host.id, host.damaged)
            else:
                host.note_shot(event.seq, step)
        host.seq = event.seq
