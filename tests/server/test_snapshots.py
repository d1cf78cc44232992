"""Snapshots of a table's state beside its log (issue 18): re-opening a table replays only
the events after its newest usable snapshot.

The log stays the record: a snapshot is taken only if its state hashes to the checkpoint its
event logged, its chain head to the head that event logged, and it was made by the engine now
running; else an older one is taken, or the whole log replayed. Every table re-opened here is
compared with what live play left (the referee that played it, never restarted) and with a
replay of its whole log from event 1 (``rebuild``, what ``tankref verify`` and export run).
The games are played through the real ``Referee`` into real SQLite: TinyTableTopTanks
(``trustkit.long_game``, with undos and voids) and the tank yard (chapter 12).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import random
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from tankref.core.verify import verify_export
from tankref.rulesets.yrd.selfplay import TANK_SPACES, _jitter, _piece_drop
from tankref.server.errors import ApiError
from tankref.server.export import Standing, export_from_file
from tankref.server.referee import SNAPSHOT_EVERY, Referee, TableHost, engine_version, rebuild
from tankref.server.schemas import CreateTable
from tankref.server.store import SCHEMA_VERSION, EventStore, backup
from trustkit import long_game, open_referee


def _standing(ref: Referee, host: TableHost) -> dict[str, Any]:
    """Everything a client can learn of a table, and what the referee keeps beside it."""
    [item] = [i for i in ref.list_tables() if i.table_id == host.id]
    return {
        "state": host.rules.dump_state(host.state),
        "read": json.loads(ref.read(host).model_dump_json()),
        "scene": json.loads(host.scene().model_dump_json()),
        "listed": item.model_dump(mode="json"),
        "requests": dict(host.requests),
        "quiet": dict(host.quiet),
        "seats": dict(host.seat_tokens),
        "cancelled": list(host.timeline.cancelled.items()),  # in the order taken back
        "controls": sorted(host.timeline.controls),
        "pending": host.timeline.pending,
        "ended": host.timeline.ended,
        "seed_players": list(host.timeline.seed_players),
        "seq": host.seq,
        "head": host.head,
        "damaged": host.damaged,
    }


def _whole_replay(ref: Referee, table_id: str) -> dict[str, Any]:
    """The table replayed from event 1 by ``rebuild`` (no snapshot): state, marks, shot."""
    row = ref.store.table(table_id)
    assert row is not None
    whole = rebuild(row, ref.store.events(table_id))
    return {
        "state": whole.rules.dump_state(whole.state),
        "cancelled": list(whole.timeline.cancelled.items()),
        "controls": sorted(whole.timeline.controls),
        "line": whole.line_of_fire,
        "damaged": whole.damaged,
    }


def _of_whole(standing: dict[str, Any], host: TableHost) -> dict[str, Any]:
    return {
        "state": standing["state"],
        "cancelled": standing["cancelled"],
        "controls": standing["controls"],
        "line": host.line_of_fire,
        "damaged": standing["damaged"],
    }


def yard_game(ref: Referee, *, events: int, seed: int) -> str:
    """A tank-yard match (chapter 12) on server dice, played by a seeded random side until
    the log holds at least ``events`` events: pieces dropped, moves (some undone), attacks
    (some voided by both players)."""
    created = ref.create_table(
        CreateTable.model_validate(
            {
                "ruleset": "yrd",
                "setup": {"options": {"turn_limit": 60}},
                "dice": {"seed": f"snapshot-yard-{seed}"},
            }
        )
    )
    host = ref.host(created.table_id)
    rng = random.Random(seed)

    async def play() -> None:
        n = 0

        async def act(action: dict[str, Any]) -> None:
            nonlocal n
            n += 1
            parsed = host.rules.parse_action(action)
            await ref.submit(host, request_id=f"a{n}", request=action, build=lambda _: parsed)

        async def control(action: dict[str, Any]) -> None:
            nonlocal n
            n += 1
            await ref.control(host, request_id=f"c{n}", action=action)

        state = host.state
        for player in state.order:
            spot = state.yard(player).tank_spot(rng.choice(TANK_SPACES))
            x, z = _jitter(rng, spot.x, spot.z, state.options.snap_radius)
            await act(
                {"kind": "place_tank", "tank_id": f"{player[0]}T", "card": "yard-tank"}
                | {"player": player, "x": x, "z": z}
            )
        for k in range(4):
            await act(_piece_drop(rng, host.state, f"P{k}").model_dump(mode="json"))
        await act({"kind": "start_game"})
        while host.seq < events and host.summary().status == "playing":
            player = host.summary().active_player
            tank = host.state.tank_of(player)
            allowed = {
                o["kind"]: o for o in host.rules.options_for(host.state, tank.id) if o["allowed"]
            }
            shots = [k for k in ("attack", "anti_tank") if k in allowed]
            if shots and rng.random() < 0.6:
                kind = rng.choice(shots)
                target = rng.choice(allowed[kind]["detail"]["targets"])["target_id"]
                await act({"kind": kind, "tank_id": tank.id, "target_id": target})
                shot = host.seq
                if rng.random() < 0.08:  # both players void the shot
                    for who, cred in (("Red", "table"), ("Blue", "seat")):
                        await control(
                            {"control": "void", "seq": shot, "player": who, "credential": cred}
                        )
            elif "move" in allowed and rng.random() < 0.6:
                space = rng.choice(allowed["move"]["detail"]["spaces"])["space"]
                await act({"kind": "move", "tank_id": tank.id, "space": space})
                if rng.random() < 0.1:
                    await control({"control": "undo"})
            else:
                await act({"kind": "end_turn", "player": player})

    asyncio.run(play())
    return created.table_id


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, dict[str, Any]]]:
    """A TinyTableTopTanks game and a tank-yard match played live, and what each stood at
    live (with the shot on show). The database is kept for copies."""
    db = tmp_path_factory.mktemp("snapshots") / "played.sqlite3"
    ref = open_referee(db)
    ids = [long_game(ref, events=230, seed=5), yard_game(ref, events=180, seed=2)]
    live = {}
    for table_id in ids:
        host = ref.host(table_id)
        live[table_id] = {**_standing(ref, host), "line": host.line_of_fire}
    ref.store.close()
    return db, live


def _copy(db: Path, folder: Path) -> Path:
    target = folder / "copy.sqlite3"
    backup(db, target)
    return target


def _whole_then_reopens_from_the_older_snapshot(
    restarted: Referee, table_id: str, db: Path
) -> None:
    """The table taken back is the whole log's replay; restarted again, it re-opens from
    the snapshot before the newest, the same (the take-back reaches before the newest)."""
    host = restarted.host(table_id)
    standing = _standing(restarted, host)
    assert _whole_replay(restarted, table_id) == _of_whole(standing, host)
    restarted.store.close()
    again = Referee(EventStore(db))
    try:
        host = again.host(table_id)
        assert host.timeline.floor == SNAPSHOT_EVERY
        assert _standing(again, host) == standing
    finally:
        again.store.close()


def test_snapshots_are_kept_every_50_events_at_checkpoints_never_ahead_of_the_log(
    played: tuple[Path, dict[str, dict[str, Any]]],
) -> None:
    """Live play left a snapshot every ``SNAPSHOT_EVERY`` events, each at an event whose
    state was hashed in the log (a checkpoint), each hashing to it, none past the log."""
    db, live = played
    store = EventStore(db)
    try:
        for table_id, standing in live.items():
            seqs = store.snapshot_seqs(table_id)
            expected = list(range(SNAPSHOT_EVERY, standing["seq"] + 1, SNAPSHOT_EVERY))
            if standing["read"]["table"]["status"] == "over":
                expected.append(standing["seq"])
            assert seqs == sorted(set(expected)), table_id
            for seq, state, logged in store.db.execute(
                "SELECT s.seq, s.state, e.state_sha256 FROM snapshots s JOIN events e "
                "ON e.table_id = s.table_id AND e.seq = s.seq WHERE s.table_id = ?",
                (table_id,),
            ):
                assert hashlib.sha256(state.encode()).hexdigest() == logged, seq
    finally:
        store.close()


@pytest.mark.parametrize("kind", ["ttt", "yrd"])
def test_a_table_reopened_from_its_snapshot_is_the_live_table_and_the_whole_replay(
    played: tuple[Path, dict[str, dict[str, Any]]], kind: str
) -> None:
    """After a restart the table is re-opened from its newest snapshot plus the events after
    it: the same state, read, scene, list item, spent request ids, undo/void marks and chain
    head as live play left (undos and voids among its events), and the same state as a
    replay of its whole log from event 1. Both ways in: on the event loop's thread
    (``host``) and off it (``open``)."""
    db, live = played
    table_id = list(live)[0 if kind == "ttt" else 1]
    standing = live[table_id]
    newest = (standing["seq"] // SNAPSHOT_EVERY) * SNAPSHOT_EVERY
    assert newest >= SNAPSHOT_EVERY and standing["cancelled"]  # snapshots, and take-backs
    for way in ("host", "open"):
        ref = Referee(EventStore(db))
        try:
            host = ref.host(table_id) if way == "host" else asyncio.run(ref.open(table_id))
            assert host.timeline.floor >= newest  # only the tail was replayed
            assert {**_standing(ref, host), "line": host.line_of_fire} == standing
            assert _whole_replay(ref, table_id) == _of_whole(standing, host)
        finally:
            ref.store.close()


def _pad_to(ref: Referee, host: TableHost, seq: int, last: str) -> None:
    """TinyTableTopTanks actions (small moves, phase ends) until event ``seq`` is the active
    side's ``last`` (``wait``: rolls no dice; ``engage``: does), with one tank kept for it."""

    async def pad() -> None:
        n = 0
        while host.seq < seq:
            n += 1
            player = host.summary().active_player
            ready = {}
            for view in host.rules.tank_views(host.state):
                if view.player == player and view.in_play:
                    opts = host.rules.options_for(host.state, view.tank_id)
                    ready[view.tank_id] = ({o["kind"] for o in opts if o["allowed"]}, view)
            kept = next((t for t, (kinds, _) in ready.items() if last in kinds), None)
            if host.seq == seq - 1:
                assert kept is not None, f"no tank may {last} at event {seq}"
                view = ready[kept][1]
                action: dict[str, Any] = {"kind": last, "tank_id": kept}
                if last == "engage":
                    opts = host.rules.options_for(host.state, kept)
                    [engage] = [o for o in opts if o["kind"] == "engage"]
                    action["target_id"] = engage["detail"]["targets"][0]["target_id"]
            else:
                movers = [t for t, (kinds, _) in ready.items() if "move" in kinds and t != kept]
                if movers:
                    view = ready[movers[0]][1]
                    action = {"kind": "move", "tank_id": movers[0], "x": view.x + 0.2}
                    action |= {"z": view.z, "facing": view.facing}
                else:
                    action = {"kind": "end_phase", "player": player}
            parsed = host.rules.parse_action(action)
            await ref.submit(
                host, request_id=f"pad{n}", request=action, build=lambda _, p=parsed: p
            )

    asyncio.run(pad())


@pytest.fixture(scope="module")
def at_snapshot(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Two games whose last event is the one a snapshot was taken at (event 100): a wait
    (rolls no dice) and a shot (rolls them)."""
    games = {}
    for last in ("wait", "engage"):
        db = tmp_path_factory.mktemp(f"at-snapshot-{last}") / "game.sqlite3"
        ref = open_referee(db)
        table_id = long_game(ref, events=90, seed=11)
        _pad_to(ref, ref.host(table_id), 2 * SNAPSHOT_EVERY, last)
        assert ref.store.snapshot_seqs(table_id)[-1] == 2 * SNAPSHOT_EVERY
        ref.store.close()
        games[last] = db
    return games


def _both(db: Path, tmp_path: Path) -> tuple[Referee, Referee, str]:
    """The game's referee as live play left it (its whole undo stack in memory, from a
    replay of the whole log), and one restarted on a copy (re-opened from the snapshot).
    Both on copies: the module's games stay as made for every test."""
    live_db = tmp_path / "live.sqlite3"
    backup(db, live_db)
    live = Referee(EventStore(live_db))
    [table_id] = live.rows
    whole = live.host(table_id)
    row = live.rows[table_id]
    full = rebuild(row, live.store.events(table_id))
    whole.timeline, whole.shots = full.timeline, full.shots  # as if never restarted
    restarted = Referee(EventStore(_copy(db, tmp_path)))
    assert restarted.host(table_id).timeline.floor == 2 * SNAPSHOT_EVERY
    assert whole.timeline.floor == 0
    return live, restarted, table_id


def _logged(ref: Referee, host: TableHost, reply: str) -> dict[str, Any]:
    """A reply's entry, without what the moments the entries were written decide (their
    times, and the chain links that hash them)."""
    entry = json.loads(reply)["entry"]
    for key in ("at", "previous_sha256", "chain_sha256"):
        entry.pop(key)
    return {"entry": entry, "state": host.rules.dump_state(host.state), "line": host.line_of_fire}


def _control(ref: Referee, table_id: str, action: dict[str, Any], rid: str) -> dict[str, Any]:
    host = ref.host(table_id)
    try:
        reply = asyncio.run(ref.control(host, request_id=rid, action=action))
    except ApiError as err:
        return {"refused": err.code, "state": host.rules.dump_state(host.state)}
    return _logged(ref, host, reply)


def test_an_undo_reaching_before_the_snapshot_replays_the_whole_log_first(
    at_snapshot: dict[str, Path], tmp_path: Path
) -> None:
    """A table re-opened from the snapshot at its last event holds no undo stack below it:
    an undo of that event replays the whole log first, then takes it back as live play
    would (same entry, state, shot on show), and the table is then the whole log's replay;
    a void of it is refused as live play refuses it (it rolled no dice). Restarted once
    more, the undo (after the newest snapshot) reaches back before it: the table is
    re-opened from the snapshot before, the same."""
    live, restarted, table_id = _both(at_snapshot["wait"], tmp_path)
    try:
        for action in ({"control": "void", "player": "Red"}, {"control": "undo"}):
            rid = f"back-{action['control']}"
            theirs = _control(live, table_id, action, rid)
            mine = _control(restarted, table_id, action, rid)
            assert mine == theirs
        assert "refused" not in theirs
        host = restarted.host(table_id)
        assert host.timeline.floor == 0  # the whole log was replayed for it
        assert host.timeline.cancelled == {2 * SNAPSHOT_EVERY: 2 * SNAPSHOT_EVERY + 1}
        _whole_then_reopens_from_the_older_snapshot(restarted, table_id, tmp_path / "copy.sqlite3")
    finally:
        live.store.close()


def test_a_void_reaching_before_the_snapshot_replays_the_whole_log_first(
    at_snapshot: dict[str, Path], tmp_path: Path
) -> None:
    """The same for a shot: an undo is refused as live play refuses it (it rolled dice);
    both players' voids take it back as live play would, its line of fire with it."""
    live, restarted, table_id = _both(at_snapshot["engage"], tmp_path)
    shot = 2 * SNAPSHOT_EVERY
    try:
        asks = [
            {"control": "undo"},
            {"control": "void", "seq": shot, "player": "Red", "credential": "table"},
            {"control": "void", "seq": shot, "player": "Blue", "credential": "seat"},
        ]
        for k, action in enumerate(asks):
            theirs = _control(live, table_id, action, f"back-{k}")
            assert _control(restarted, table_id, action, f"back-{k}") == theirs
        host = restarted.host(table_id)
        assert host.timeline.cancelled[shot] == shot + 2
        assert host.line_of_fire == live.host(table_id).line_of_fire
        assert host.line_of_fire is None or host.line_of_fire.seq != shot
        _whole_then_reopens_from_the_older_snapshot(restarted, table_id, tmp_path / "copy.sqlite3")
    finally:
        live.store.close()


def test_a_seat_check_sees_the_void_below_the_snapshot(
    at_snapshot: dict[str, Path], tmp_path: Path
) -> None:
    """Re-opened from the snapshot at its last event, the table holds no undo stack: what a
    seat may void is read from the whole log's replay, as live play knows it (the shot; the
    wait rolled no dice: nothing)."""
    for last, void in (("engage", 2 * SNAPSHOT_EVERY), ("wait", None)):
        (tmp_path / last).mkdir()
        live, restarted, table_id = _both(at_snapshot[last], tmp_path / last)
        try:
            theirs = asyncio.run(live.seat_check(live.host(table_id), "Blue"))
            ours = asyncio.run(restarted.seat_check(restarted.host(table_id), "Blue"))
            assert ours == theirs
            assert (ours.void.seq if ours.void else None) == void, last
        finally:
            live.store.close()
            restarted.store.close()


def test_a_tampered_snapshot_is_passed_over_with_a_warning(
    played: tuple[Path, dict[str, dict[str, Any]]],
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A snapshot whose state no longer hashes to its logged checkpoint (edited in the
    database), or whose chain head is not its event's, is not used: the warning names it,
    and the table is re-opened from the one before, the same as live play left it."""
    db, live = played
    table_id = next(iter(live))
    standing = live[table_id]
    copy = _copy(db, tmp_path)
    raw = sqlite3.connect(copy)
    seqs = [r[0] for r in raw.execute("SELECT seq FROM snapshots WHERE table_id = ?", (table_id,))]
    newest, older = seqs[-1], seqs[-2]
    raw.execute(  # a hit made a miss, say: the state text no longer what the log hashed
        "UPDATE snapshots SET state = replace(state, '\"turn\":', '\"turn\": ') "
        "WHERE table_id = ? AND seq = ?",
        (table_id, newest),
    )
    raw.execute(
        "UPDATE snapshots SET head_sha256 = ? WHERE table_id = ? AND seq = ?",
        ("0" * 64, table_id, older),
    )
    raw.commit()
    raw.close()
    ref = Referee(EventStore(copy))
    try:
        with caplog.at_level(logging.WARNING, logger="tankref.server"):
            host = ref.host(table_id)
        warned = [r for r in caplog.records if r.levelno == logging.WARNING]
        assert [f"its snapshot at event {s} is not used" in r.getMessage() for s, r in
                zip((newest, older), warned, strict=True)] == [True, True]  # fmt: skip
        assert "checkpoint" in warned[0].getMessage() and "head" in warned[1].getMessage()
        assert host.timeline.floor == seqs[-3]
        assert {**_standing(ref, host), "line": host.line_of_fire} == standing
    finally:
        ref.store.close()


def test_a_database_from_before_snapshots_opens_and_gets_one(
    played: tuple[Path, dict[str, dict[str, Any]]], tmp_path: Path
) -> None:
    """A schema-1 database (no snapshots table) is brought to this schema on opening; its
    tables are replayed from event 1 on first use, as live play left them, and that first
    use saves a snapshot at the log's last checkpoint, which the next restart starts from.
    A snapshot made by another engine version is not used (the log is replayed by this one,
    so a rules change shows) and is not warned about."""
    db, live = played
    copy = _copy(db, tmp_path)
    raw = sqlite3.connect(copy)
    raw.execute("DROP TABLE snapshots")
    raw.execute("UPDATE meta SET value = '1' WHERE key = 'schema'")
    raw.commit()
    raw.close()
    for table_id, standing in live.items():
        ref = Referee(EventStore(copy))
        try:
            schema = ref.store.db.execute("SELECT value FROM meta WHERE key = 'schema'")
            assert schema.fetchone()[0] == str(SCHEMA_VERSION)
            host = ref.host(table_id)
            assert host.timeline.floor == 0
            assert {**_standing(ref, host), "line": host.line_of_fire} == standing
            made = ref.store.snapshot_seqs(table_id)
            assert len(made) == 1 and made[0] > standing["seq"] - SNAPSHOT_EVERY
        finally:
            ref.store.close()
        ref = Referee(EventStore(copy))
        try:
            assert ref.host(table_id).timeline.floor == made[0]
            assert _standing(ref, ref.host(table_id)) == {
                k: v for k, v in standing.items() if k != "line"
            }
            ref.store.db.execute("UPDATE snapshots SET version = 'another engine'")
        finally:
            ref.store.close()
        ref = Referee(EventStore(copy))
        try:
            assert ref.host(table_id).timeline.floor == 0
        finally:
            ref.store.close()


def test_a_table_with_snapshots_is_deleted_whole(
    played: tuple[Path, dict[str, dict[str, Any]]], tmp_path: Path
) -> None:
    """Deleting a table takes its snapshots with it (they point at its events)."""
    db, live = played
    table_id = next(iter(live))
    copy = _copy(db, tmp_path)
    ref = Referee(EventStore(copy))
    try:
        gone = asyncio.run(ref.delete_table(ref.host(table_id)))
        assert gone.events == live[table_id]["seq"]
        assert ref.store.snapshot_seqs(table_id) == []
        other = list(live)[1]
        assert ref.store.snapshot_seqs(other)  # the other table's are left
    finally:
        ref.store.close()


def test_a_request_repeated_from_before_the_snapshot_is_answered_from_the_log(
    played: tuple[Path, dict[str, dict[str, Any]]], tmp_path: Path
) -> None:
    """The request ids of the events before the snapshot a table was re-opened from are read
    from the log's index (their hashes when asked): such an id sent again is answered from
    the log and applies nothing; with a different request it is refused as reused."""
    db, live = played
    table_id = next(iter(live))
    ref = Referee(EventStore(_copy(db, tmp_path)))
    try:
        host = ref.host(table_id)
        floor = host.timeline.floor
        [first] = [
            e for e in ref.store.events(table_id, limit=floor) if e.action.get("control") == "undo"
        ][:1]
        assert first.request_id is not None and first.seq < floor
        reply = json.loads(
            asyncio.run(ref.control(host, request_id=first.request_id, action={"control": "undo"}))
        )
        assert (reply["applied"], reply["replayed"], reply["seq"]) == (True, True, first.seq)
        assert host.seq == live[table_id]["seq"]  # nothing applied
        with pytest.raises(ApiError) as refused:
            asyncio.run(
                ref.control(host, request_id=first.request_id, action={"control": "end_game"})
            )
        assert refused.value.code == "REQUEST_ID_REUSED"
        assert dict(host.requests) == live[table_id]["requests"]
    finally:
        ref.store.close()


def test_verify_and_export_still_replay_every_event_from_event_1(
    played: tuple[Path, dict[str, dict[str, Any]]], tmp_path: Path
) -> None:
    """What a snapshot trusts, and what still checks it: an entry edited in the database
    before the newest snapshot is not looked at when the table is re-opened from that
    snapshot (the ruling: only the events after it are checked then), but the export is
    built from the whole log and verify replays and chains every event from event 1, so
    the edit is caught there, naming the event; the untouched log verifies clean."""
    db, live = played
    table_id = next(iter(live))
    copy = _copy(db, tmp_path)

    def verified() -> tuple[TableHost, Any]:
        ref = Referee(EventStore(copy))
        try:
            host = ref.host(table_id)
            text = export_from_file(copy, table_id, Standing.of(host))
            assert text is not None
            return host, verify_export(json.loads(text), engine_version("ttt"))
        finally:
            ref.store.close()

    host, clean = verified()
    assert clean.ok and host.timeline.floor > 10 and host.damaged is None
    raw = sqlite3.connect(copy)
    raw.execute("DROP TRIGGER events_append_only_update")
    (text,) = raw.execute(
        "SELECT entry FROM events WHERE table_id = ? AND seq = 10", (table_id,)
    ).fetchone()
    entry = json.loads(text)
    entry["chat"] = ["R1 destroys B1!"]
    raw.execute(
        "UPDATE events SET entry = ? WHERE table_id = ? AND seq = 10",
        (json.dumps(entry), table_id),
    )
    raw.commit()
    raw.close()
    host, edited = verified()
    assert host.timeline.floor > 10 and host.damaged is None  # not re-checked on re-opening
    assert not edited.ok
    assert any(p.seq == 10 for p in edited.problems), edited.problems
