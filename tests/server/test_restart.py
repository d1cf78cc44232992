"""Durability: the real referee process is killed with SIGKILL and started again on the same
database; nothing it acknowledged is lost and the tables come back exactly as they were.

The skirmish is a seeded self-play game (``tankref.rulesets.ttt.selfplay``: terrain, tanks,
crews, then the two scripted sides to the end), turned into the HTTP requests TTS would send:
terrain and tanks put by id, moves as tank PUTs, everything else posted as actions, each with
its own request id. The table uses the self-play game's server seed (``dice.seed``), so the
referee rolls exactly the dice the in-memory game rolled and the script stays valid; a kill
that swallows one request is recovered by sending that request again with the same id.
Every check reads the referee over HTTP after the restart; the expected state comes from
replaying the log through the pure engine, and at the end from the in-memory game. One test
kills the referee while six clients play six tables at once, their writes sharing commits.
"""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from pgkit import raw
from serverkit import answers_health, free_port, wal_commits
from tankref.core.dice import DiceState
from tankref.core.results import chat_lines
from tankref.rulesets.ttt.actions import Action, CrewRoll, Move, StartGame, parse_action
from tankref.rulesets.ttt.engine import adjudicate, new_table
from tankref.rulesets.ttt.plugin import TableSetup
from tankref.rulesets.ttt.selfplay import play_game, random_table
from tankref.rulesets.ttt.state import TableState

TIMEOUT = 10.0  # seconds for any one HTTP call, start-up or thread join


# --- the skirmish ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Request:
    method: str
    path: str  # under /tables/{id}
    body: dict[str, Any]  # with its request_id

    @property
    def request_id(self) -> str:
        rid: str = self.body["request_id"]
        return rid


@dataclass(frozen=True)
class Skirmish:
    create: dict[str, Any]  # the POST /tables body
    dice_seed: str
    requests: list[Request]
    final: TableState  # the game as it ended in memory


def skirmish(seed: int) -> Skirmish:
    """Self-play game ``seed`` as HTTP requests, from an empty table to the end of the game."""
    start = random_table(seed)
    played: list[Action] = []
    record = play_game(seed, on_step=lambda _state, action, _result: played.append(action))
    dice_seed = start.dice.seed
    body: list[tuple[str, str, dict[str, Any]]] = []
    for piece_id, piece in start.terrain.items():
        body.append(("PUT", f"/terrain/{piece_id}", piece.model_dump(mode="json", exclude={"id"})))
    if start.objective is not None:
        x, z = start.objective
        body.append(("PUT", "/objective", {"x": x, "z": z}))
    owners = {}
    for tank_id, tank in start.tanks.items():  # placement order is the crew-roll order
        owners[tank_id] = {"card": tank.card.id, "player": tank.player}
        where = (
            {"x": tank.x, "z": tank.z, "facing": tank.facing, "hull_down": tank.hull_down}
            if tank.on_table
            else {"x": 0.0, "z": 0.0, "facing": 0.0, "reserve": True}
        )
        body.append(("PUT", f"/tanks/{tank_id}", {**owners[tank_id], **where}))
    for action in (CrewRoll(), StartGame(), *played):
        if isinstance(action, Move):  # TTS reports where the model stands; the referee decides
            where = {"x": action.x, "z": action.z, "facing": action.facing}
            if action.hull_down is not None:
                where["hull_down"] = action.hull_down
            body.append(("PUT", f"/tanks/{action.tank_id}", {**owners[action.tank_id], **where}))
        else:
            body.append(("POST", "/actions", {"action": action.model_dump(mode="json")}))
    requests = [
        Request(method, path, {**data, "request_id": f"sk{seed}-{n:04d}"})
        for n, (method, path, data) in enumerate(body, start=1)
    ]
    setup = {
        "players": [p.model_dump(mode="json") for p in start.players],
        "scenario": start.scenario.model_dump(mode="json"),
        "options": start.options.model_dump(mode="json"),
    }
    create = {"ruleset": "ttt", "setup": setup, "dice": {"source": "server", "seed": dice_seed}}
    return Skirmish(create=create, dice_seed=dice_seed, requests=requests, final=record.final)


def commits_so_far(db: Path | str) -> int:
    """How many commits wrote events: SQLite's write-ahead log's commit frames (every commit
    since the start), or on PostgreSQL the distinct transactions the event rows were
    inserted by (each row's ``xmin``)."""
    if isinstance(db, Path):
        return wal_commits(db)
    with raw(db) as conn:
        row = conn.execute("SELECT count(DISTINCT xmin::text) FROM events").fetchone()
    return int(row[0])


# --- the referee process ---------------------------------------------------------------------


class RefereeProcess:
    """``python -m tankref serve`` on one database; ``kill`` is SIGKILL, ``start`` starts anew
    (on a fresh port, so no socket of the dead process is in the way)."""

    def __init__(self, db_path: Path | str, stderr_path: Path) -> None:
        self.db_path = db_path  # an SQLite file, or a PostgreSQL URL
        self.stderr_path = stderr_path
        self.proc: subprocess.Popen[bytes] | None = None
        self.url = ""
        self.starts = 0

    def start(self) -> None:
        assert self.proc is None
        port = free_port()
        self.url = f"http://127.0.0.1:{port}"
        self.starts += 1
        with self.stderr_path.open("ab") as err:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "tankref", "serve", "--port", str(port),
                 "--db", str(self.db_path), "--log-level", "warning"],
                stdout=subprocess.DEVNULL,
                stderr=err,
            )  # fmt: skip
        if not answers_health(self.url, self.proc, TIMEOUT):
            self.kill()
            raise AssertionError(f"the referee did not start:\n{self.stderr_path.read_text()}")

    def kill(self) -> None:
        """SIGKILL: no shutdown hook, no flush, no goodbye."""
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            assert self.proc.wait(TIMEOUT) == -signal.SIGKILL
        self.proc = None

    def restart(self) -> None:
        self.kill()
        self.start()


@contextmanager
def referee_process(tmp_path: Path, db: Path | str) -> Iterator[RefereeProcess]:
    referee = RefereeProcess(db, tmp_path / "referee.stderr")
    referee.start()
    try:
        yield referee
    finally:
        referee.kill()  # always: a test that fails must not leave a server behind


# --- the client ------------------------------------------------------------------------------


class Client:
    """One table on the referee, by whatever URL the referee has now."""

    def __init__(self, referee: RefereeProcess, created: dict[str, Any]) -> None:
        self.referee = referee
        self.table_id: str = created["table_id"]
        self.token: str = created["token"]

    @classmethod
    def create(cls, referee: RefereeProcess, body: dict[str, Any]) -> Client:
        reply = httpx.post(f"{referee.url}/tables", json=body, timeout=TIMEOUT)
        assert reply.status_code == 201, reply.text
        return cls(referee, reply.json())

    def http(self) -> httpx.Client:
        return httpx.Client(
            base_url=self.referee.url,
            headers={"Authorization": f"Bearer {self.token}"},
            timeout=TIMEOUT,
        )

    def send(self, http: httpx.Client, request: Request) -> httpx.Response:
        return http.request(request.method, self.path(request.path), json=request.body)

    def path(self, rest: str = "") -> str:
        return f"/tables/{self.table_id}{rest}"

    def read(self) -> dict[str, Any]:
        with self.http() as http:
            reply = http.get(self.path())
        assert reply.status_code == 200, reply.text
        data: dict[str, Any] = reply.json()
        return data

    def log(self) -> list[dict[str, Any]]:
        entries: list[dict[str, Any]] = []
        after: int | None = 0
        with self.http() as http:
            while after is not None:
                reply = http.get(self.path("/log"), params={"after": after, "limit": 500})
                assert reply.status_code == 200, reply.text
                page = reply.json()
                entries.extend(page["entries"])
                after = page["next_after"]
        return entries


def raw_http(client: Client, request: Request) -> bytes:
    """``request`` as bytes for a plain socket (a client that vanishes before the reply)."""
    body = json.dumps(request.body).encode()
    head = (
        f"{request.method} {client.path(request.path)} HTTP/1.1\r\n"
        f"Host: 127.0.0.1\r\nAuthorization: Bearer {client.token}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    return head.encode() + body


@dataclass
class Stream:
    """A client thread posting requests one after another, as fast as the referee answers."""

    client: Client
    requests: list[Request]
    kill_after: int  # acknowledgements before the test may kill the referee
    acked: dict[str, dict[str, Any]] = field(default_factory=dict)  # request id -> reply
    in_flight: int | None = None  # index of the request the kill cut off
    failure: str | None = None
    ready: threading.Event = field(default_factory=threading.Event)

    def run(self, first: int) -> None:
        try:
            with self.client.http() as http:
                for index in range(first, len(self.requests)):
                    request = self.requests[index]
                    self.in_flight = index
                    try:
                        reply = self.client.send(http, request)
                    except httpx.TransportError:
                        return  # the referee is gone; ``in_flight`` says where we were
                    if reply.status_code != 200:
                        self.failure = f"{request}: {reply.status_code} {reply.text}"
                        return
                    self.acked[request.request_id] = reply.json()
                    if len(self.acked) >= self.kill_after:
                        self.ready.set()
                self.in_flight = None
        except Exception as exc:  # reported by the test, not lost in the thread
            self.failure = repr(exc)
        finally:
            self.ready.set()


# --- checks ----------------------------------------------------------------------------------


def public(state: TableState) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(state.to_json())
    if state.status != "over":  # the secret behind the commitment, revealed at the end
        data["dice"].pop("seed")
    return data


def replay(game: Skirmish, entries: list[dict[str, Any]]) -> TableState:
    """The logged actions through the pure engine, from a table set up the same way; each
    logged result and chat line must be what the engine decides."""
    setup = TableSetup.model_validate(game.create["setup"])
    state = new_table(
        setup.players,
        scenario=setup.scenario,
        options=setup.options,
        dice=DiceState(seed=game.dice_seed, source="server"),
    )
    for entry in entries:
        adj = adjudicate(state, parse_action(entry["action"]))
        assert adj.result.model_dump(mode="json") == entry["result"], entry["seq"]
        assert chat_lines(adj.result) == entry["chat"], entry["seq"]
        state = adj.state
    return state


def check_log(game: Skirmish, client: Client, acked: dict[str, dict[str, Any]]) -> None:
    """After a restart: every acknowledged reply is in the log as it was sent, the log is
    contiguous with no request id twice, and the state is the replay of the log."""
    table = client.read()
    entries = client.log()
    assert [e["seq"] for e in entries] == list(range(1, len(entries) + 1))
    assert table["seq"] == len(entries)
    ids = [e["request_id"] for e in entries]
    assert len(set(ids)) == len(ids), "a request id was applied twice"
    by_id = {e["request_id"]: e for e in entries}
    for request_id, reply in acked.items():
        assert reply["applied"], request_id
        assert by_id.get(request_id) == reply["entry"], f"acknowledged {request_id} lost"
    assert table["state"] == public(replay(game, entries))
    assert table["dice"]["counter"] == table["state"]["dice"]["counter"]


def test_quiet_kill_keeps_every_table_exactly(tmp_path: Path, referee_db: Path | str) -> None:
    """SIGKILL with no request in flight: after the restart each table reads back identical
    (state, tanks, dice, seq) with the identical log, and the game plays on to the same end
    it reaches in memory, with the same token."""
    game = skirmish(1)
    with referee_process(tmp_path, referee_db) as referee:
        client = Client.create(referee, game.create)
        other = Client.create(referee, game.create)  # a second table rides along
        half = len(game.requests) // 2
        with client.http() as http, other.http() as http2:
            for request in game.requests[:half]:
                assert client.send(http, request).status_code == 200, request
            for request in game.requests[:5]:
                assert other.send(http2, request).status_code == 200, request
        before = [(c.read(), c.log()) for c in (client, other)]
        assert before[0][0]["seq"] == half > 0

        referee.restart()

        assert [(c.read(), c.log()) for c in (client, other)] == before
        with client.http() as http:
            for request in game.requests[half:]:
                reply = client.send(http, request)
                assert reply.status_code == 200, reply.text
                assert reply.json()["replayed"] is False
        final = client.read()
        assert final["state"] == public(game.final)
        assert final["table"]["status"] == "over"


def test_kill_mid_stream_loses_no_acknowledged_action(
    tmp_path: Path, referee_db: Path | str
) -> None:
    """SIGKILL while a client thread posts a stream of actions (engages, moves as tank PUTs,
    waits, recover, smoke, end_phase ...), three times over one game. After each restart: every
    acknowledged reply is in the log with the identical entry; seqs are contiguous; no request
    id is applied twice; the state equals the pure engine's replay of the log. The request the
    kill cut off is sent again with its id: it is either replayed (it had been committed) or
    applied now, never both. A request committed but never answered (its client vanished) is
    replayed after a restart. An acknowledged engage sent again is replayed with the same entry
    and rolls no dice; the token still works. The game, five starts and four kills later, ends
    exactly as it does in memory."""
    game = skirmish(13)
    requests = game.requests
    assert len(requests) > 100
    kinds = {r.body["action"]["kind"] for r in requests if r.path == "/actions"}
    assert {"engage", "end_phase"} <= kinds
    started = next(
        i for i, r in enumerate(requests) if r.body.get("action") == {"kind": "start_game"}
    )
    assert sum(r.path.startswith("/tanks/") for r in requests[started:]) >= 10  # moves
    with referee_process(tmp_path, referee_db) as referee:
        client = Client.create(referee, game.create)
        acked: dict[str, dict[str, Any]] = {}
        resumed: list[bool] = []  # per kill: was the cut-off request already committed?
        first = 0
        quarter = len(requests) // 4
        for stop, delay in ((quarter, 0.0), (2 * quarter, 0.0005), (3 * quarter, 0.0015)):
            stream = Stream(client, requests, kill_after=stop - len(acked))
            thread = threading.Thread(target=stream.run, args=(first,), daemon=True)
            thread.start()
            assert stream.ready.wait(TIMEOUT)
            time.sleep(delay)  # a little later each time: the next request further along
            referee.kill()  # the thread has already sent (or is sending) the next request
            thread.join(TIMEOUT)
            assert not thread.is_alive()
            assert stream.failure is None, stream.failure
            assert stream.in_flight is not None, "the stream finished before the kill"
            acked.update(stream.acked)

            referee.start()
            check_log(game, client, acked)

            # The cut-off request again, same id: the first result, or applied only now.
            cut = requests[stream.in_flight]
            logged = {e["request_id"]: e for e in client.log()}
            with client.http() as http:
                reply = client.send(http, cut)
            assert reply.status_code == 200, reply.text
            body = reply.json()
            assert body["replayed"] is (cut.request_id in logged)
            if body["replayed"]:
                assert body["entry"] == logged[cut.request_id]
            resumed.append(body["replayed"])
            acked[cut.request_id] = body
            first = stream.in_flight + 1

        # Committed but never answered: the request is sent on a raw socket whose reply is
        # never read, and the referee is killed once the log has it. Sent again: replayed.
        unanswered = requests[first]
        with socket.create_connection(("127.0.0.1", int(referee.url.rsplit(":", 1)[1]))) as raw:
            raw.sendall(raw_http(client, unanswered))
            deadline = time.monotonic() + TIMEOUT
            while unanswered.request_id not in {e["request_id"] for e in client.log()[-3:]}:
                assert time.monotonic() < deadline, "the raw request was never applied"
                time.sleep(0.01)
            referee.kill()
        referee.start()
        check_log(game, client, acked)
        with client.http() as http:
            reply = client.send(http, unanswered)
        assert reply.status_code == 200, reply.text
        assert reply.json()["replayed"] is True
        assert reply.json()["entry"] == client.log()[-1]
        acked[unanswered.request_id] = reply.json()
        first += 1

        # An acknowledged engage again: the same entry, and no die is rolled for it.
        engage = next(
            r for r in requests[:first] if r.body.get("action", {}).get("kind") == "engage"
        )
        counter = client.read()["dice"]["counter"]
        with client.http() as http:
            again = client.send(http, engage)
            assert again.status_code == 200, again.text
            assert again.json()["replayed"] is True
            assert again.json()["entry"] == acked[engage.request_id]["entry"]
            assert client.read()["dice"]["counter"] == counter
            # The write token still opens the table, and only the right one does.
            wrong = http.post(
                client.path("/actions"),
                json={"request_id": "x-1", "action": {"kind": "end_phase"}},
                headers={"Authorization": "Bearer not-the-token"},
            )
            assert wrong.status_code == 403, wrong.text

        # The rest of the game, then the last check: the crashes changed nothing.
        stream = Stream(client, requests, kill_after=len(requests) + 1)
        stream.run(first)
        assert stream.failure is None, stream.failure
        assert stream.in_flight is None
        acked.update(stream.acked)
        check_log(game, client, acked)
        assert len(client.log()) == len(requests)
        assert client.read()["state"] == public(game.final)
        assert referee.starts == 5
        print(f"cut-off requests already committed at the kill: {resumed}")


def test_kill_under_concurrent_load_loses_no_acknowledged_action(
    tmp_path: Path, referee_db: Path | str
) -> None:
    """Six tables played at once, each by its own client thread as fast as the referee
    answers, so their writes share commits (group commit: fewer commits in the log than
    events); SIGKILL mid-stream, twice. After each restart, every table: every acknowledged
    reply is in its log with the identical entry, seqs contiguous, no request id twice, state
    the pure engine's replay of the log; each cut-off request sent again is replayed if it
    had been committed, else applied now, never both. Then the games go on."""
    games = [skirmish(seed) for seed in (13, 3, 7, 8, 9, 10)]  # long games: 79 to 120 requests
    with referee_process(tmp_path, referee_db) as referee:
        clients = [Client.create(referee, game.create) for game in games]
        acked: list[dict[str, dict[str, Any]]] = [{} for _ in games]
        first = [0] * len(games)
        shared = False
        for round_ in range(2):
            streams = [
                Stream(client, game.requests, kill_after=12)
                for n, (client, game) in enumerate(zip(clients, games, strict=True))
            ]
            threads = [
                threading.Thread(target=stream.run, args=(first[n],), daemon=True)
                for n, stream in enumerate(streams)
            ]
            for thread in threads:
                thread.start()
            for stream in streams:
                assert stream.ready.wait(TIMEOUT * 3)
            if round_ == 0:  # before the kill: the log as written under load
                events = sum(len(stream.acked) for stream in streams)
                commits = commits_so_far(referee.db_path)
                shared = commits < events
                print(f"{events}+ events acknowledged in at most {commits} commits")
            referee.kill()
            for thread in threads:
                thread.join(TIMEOUT)
                assert not thread.is_alive()
            referee.start()
            for n, (stream, game, client) in enumerate(zip(streams, games, clients, strict=True)):
                assert stream.failure is None, stream.failure
                assert stream.in_flight is not None, "the stream finished before the kill"
                acked[n].update(stream.acked)
                check_log(game, client, acked[n])
                cut = game.requests[stream.in_flight]
                logged = {e["request_id"]: e for e in client.log()}
                with client.http() as http:
                    reply = client.send(http, cut)
                assert reply.status_code == 200, reply.text
                assert reply.json()["replayed"] is (cut.request_id in logged)
                if reply.json()["replayed"]:
                    assert reply.json()["entry"] == logged[cut.request_id]
                acked[n][cut.request_id] = reply.json()
                first[n] = stream.in_flight + 1
        assert shared, "six clients at once never shared a commit"
        for n, (game, client) in enumerate(zip(games, clients, strict=True)):
            check_log(game, client, acked[n])
        assert referee.starts == 3
