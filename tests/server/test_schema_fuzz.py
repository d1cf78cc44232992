"""Schemathesis over the OpenAPI document, against a real referee over HTTP: no 5xx, ever.

Generated cases mostly name tables that do not exist, so on their own they would stop at a
404. To reach the rules, each case is aimed (deterministically, from its own content) at one
of three real tables for a good share of the examples: its ``table_id``, the table's token,
existing tank ids (R1, B1), a fresh request id, positions near the tank, and, on the table
that rolls its own dice, the faces a ``DICE_NEEDED`` refusal asks for. Then every response is
checked by schemathesis (status, content type and body against the document) and by us:
every 4xx is JSON with ``code`` and ``message``, and a refused write leaves the table exactly
as it was (state and log), while an accepted one adds exactly one log entry.

Afterwards the referee still answers /health, each table's log holds exactly the entries the
accepted writes made, and a second referee started on the same database replays every table
to the same state.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import typing
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from schemathesis.checks import negative_data_rejection, positive_data_acceptance
from schemathesis.core import NOT_SET
from schemathesis.core.parameters import ParameterLocation
from websockets.sync.client import connect

from serverkit import LiveReferee, Table, duel, live_referee, new_table
from tankref.rulesets import ruleset_names
from tankref.rulesets.ttt import actions as ttt_actions
from tankref.server.app import create_app
from tankref.server.settings import Settings

# Fuzzing examples per operation (the coverage and examples phases add their own few).
EXAMPLES = 50
# Share of table-scoped cases aimed at a real table, and how the aim is filled in.
AIM = 0.8
RIGHT_TOKEN = 0.85
REAL_TANK = 0.75
ACTIVE_SIDE = 0.75  # the tank is the one whose player's phase it is
FRESH_REQUEST_ID = 0.9
NEAR_THE_TANK = 0.6
TANKS = ("R1", "B1")
PLAYERS = ("Red", "Blue")
CARDS = ("tiger-i", "m4a1-sherman")
SMOKE = ("NbK 39 dischargers", "2-inch smoke mortar")  # each card's own
DICE_KINDS = ("engage", "recover", "crew_roll", "smoke")
WRITES = {"POST", "PUT", "PATCH", "DELETE"}
PATH, HEADER, BODY = ParameterLocation.PATH, ParameterLocation.HEADER, ParameterLocation.BODY
# Refusal codes that come before the rules: transport, validation, ids and tokens.
NOT_RULES = {
    "INVALID",
    "BAD_JSON",
    "JSON_ONLY",
    "METHOD_NOT_ALLOWED",
    "NOT_FOUND",
    "TOKEN_MISSING",
    "TOKEN_WRONG",
    "UNKNOWN_TABLE",
    "UNKNOWN_TANK",
    "UNKNOWN_CARD",
    "UNKNOWN_DIE",
    "REQUEST_ID_REUSED",
    "HTTP_ERROR",
}

# The document as the app builds it (no server needed to load it at collection time; the
# lazy-fixture loader breaks on pytest 9.2). The document test checks the running referee
# serves exactly this; cases are sent to that server.
_APP_DOCUMENT = create_app(Settings(db_path=Path("unused-by-openapi.sqlite3"))).openapi()
schema = schemathesis.openapi.from_dict(_APP_DOCUMENT)

# --- hostile text ------------------------------------------------------------------------
# Besides what the document allows, a share of bodies and queries get one string (a value or
# a key) laced with a character no text may hold (issue 15): a lone surrogate, a control
# character, a bidi override or isolate, a zero-width character. Each must be refused with a
# 422 naming the field, and change nothing. (Queries get no surrogates: the HTTP client
# cannot encode one into a URL.)
HOSTILE_SHARE = 0.25
# A lone surrogate cannot pass through schemathesis (its validator takes UTF-8 only), so a
# body carries a stand-in from a private-use plane, one per surrogate, and the session below
# writes each as the JSON escape itself: the referee decodes a real lone surrogate.
STAND_IN = 0xF0000
SURROGATES = st.integers(0xD800, 0xDFFF).map(lambda code: chr(STAND_IN + code - 0xD800))
_STAND_INS = re.compile(f"[{chr(STAND_IN)}-{chr(STAND_IN + 0x7FF)}]")
CONTROLS = st.sampled_from([*map(chr, range(0x00, 0x20)), "\x7f", *map(chr, range(0x80, 0xA0))])
BIDI = st.sampled_from([*map(chr, range(0x202A, 0x202F)), *map(chr, range(0x2066, 0x206A))])
ZERO_WIDTH = st.sampled_from(["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff"])


def _laced(bad: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """Some text with one bad character somewhere in it."""
    return st.tuples(st.text(max_size=12), bad, st.text(max_size=12)).map("".join)


def _strings(data: Any, where: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], bool]]:
    """Every string in ``data``: its path, and whether it is a key (else a value)."""
    if isinstance(data, str):
        yield where, False
    elif isinstance(data, dict):
        for key, value in data.items():
            yield (*where, key), True
            yield from _strings(value, (*where, key))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            yield from _strings(value, (*where, index))


def _lace(data: Any, where: tuple[Any, ...], as_key: bool, text: str) -> Any:
    """A copy of ``data`` with the string at ``where`` (a key, or a value) replaced."""
    if not where:
        return text
    head, rest = where[0], where[1:]
    if isinstance(data, dict):
        if as_key and not rest:
            return {(text if k == head else k): v for k, v in data.items()}
        return {k: (_lace(v, rest, as_key, text) if k == head else v) for k, v in data.items()}
    copy = list(data)
    copy[head] = _lace(copy[head], rest, as_key, text)
    return copy


def _hostile(data: Any, bad: st.SearchStrategy[str]) -> st.SearchStrategy[Any]:
    places = list(_strings(data))
    if not places:
        return st.just(data)
    laced = st.tuples(st.sampled_from(places), _laced(bad)).map(
        lambda pick: _lace(data, pick[0][0], pick[0][1], pick[1])
    )
    return st.floats(0, 1).flatmap(lambda roll: laced if roll < HOSTILE_SHARE else st.just(data))


class SurrogateEscapes(requests.Session):
    """Sends a JSON body as text, each surrogate stand-in written as its ``\\uXXXX`` escape."""

    def request(self, method: str | bytes, url: str | bytes, *args: Any, **kwargs: Any) -> Any:
        body = kwargs.pop("json", None)
        if body is not None:
            text = json.dumps(body, ensure_ascii=False)
            text = _STAND_INS.sub(lambda m: f"\\u{ord(m[0]) - STAND_IN + 0xD800:04x}", text)
            kwargs["data"] = text.encode()
            headers = dict(kwargs.get("headers") or {})
            if not any(name.lower() == "content-type" for name in headers):
                headers["Content-Type"] = "application/json"
            kwargs["headers"] = headers
        return super().request(method, url, *args, **kwargs)


SESSION = SurrogateEscapes()


@schema.hook
def flatmap_body(context: Any, body: Any) -> st.SearchStrategy[Any]:
    return _hostile(body, st.one_of(SURROGATES, CONTROLS, BIDI, ZERO_WIDTH))


@schema.hook
def flatmap_query(context: Any, query: Any) -> st.SearchStrategy[Any]:
    return _hostile(query, st.one_of(CONTROLS, BIDI, ZERO_WIDTH))


@dataclass
class World:
    """The real tables cases are aimed at, by name."""

    url: str
    tables: dict[str, Table]
    http: httpx.Client

    def snapshot(self, table: Table) -> tuple[int, dict[str, Any]]:
        response = self.http.get(table.path())
        assert response.status_code == 200, response.text
        data: dict[str, Any] = response.json()
        return data["seq"], data


@dataclass
class Ledger:
    """What the fuzzing did, for the checks after it and the summary."""

    cases: Counter[str] = field(default_factory=Counter)
    aimed: Counter[str] = field(default_factory=Counter)
    statuses: Counter[tuple[str, int]] = field(default_factory=Counter)
    codes: Counter[str] = field(default_factory=Counter)  # refusal codes on aimed requests
    applied: Counter[str] = field(default_factory=Counter)  # accepted writes, by what they did
    refused_unchanged: int = 0  # aimed refused writes after which the table was the same
    dice_rounds: int = 0  # follow-ups with the faces a DICE_NEEDED asked for
    bad_text: int = 0  # requests refused for a character no text may hold
    seq: dict[str, int] = field(default_factory=dict)  # table id -> entries the ledger counts


LEDGER = Ledger()


@pytest.fixture(scope="module")
def world(referee: LiveReferee) -> Iterator[World]:
    """Three tables: one in setup (both tanks placed, crews not rolled), a started duel with
    server dice, and a started duel whose players roll their own dice."""
    setup = new_table(referee.url, dice={"seed": "fuzz-setup-table-0"})
    setup.ok(setup.put_tank("R1", card="tiger-i", player="Red", x=0, z=-20, facing=0))
    setup.ok(setup.put_tank("B1", card="m4a1-sherman", player="Blue", x=0, z=20, facing=180))
    tables = {
        "setup": setup,
        "server_dice": duel(referee.url, dice_source="server"),
        "table_dice": duel(referee.url),
    }
    with httpx.Client(base_url=referee.url, timeout=30) as http:
        world = World(url=referee.url, tables=tables, http=http)
        for table in tables.values():
            LEDGER.seq[table.id] = world.snapshot(table)[0]
        yield world
    for table in tables.values():
        table.close()


@pytest.fixture(scope="module")
def api_schema(referee: LiveReferee, world: World) -> schemathesis.BaseSchema:
    """The document as the running referee serves it; cases go to that same server."""
    return schemathesis.openapi.from_url(f"{referee.url}/openapi.json")


# --- the document itself ------------------------------------------------------------------


def test_openapi_document_is_valid_and_documents_the_rules(
    api_schema: schemathesis.BaseSchema, referee: LiveReferee, world: World
) -> None:
    api_schema.validate()  # against the OpenAPI meta-schema
    assert api_schema.raw_schema == _APP_DOCUMENT  # the fuzzed document is the served one
    operations = [result.ok() for result in api_schema.get_all_operations()]  # Err raises
    assert {op.label for op in operations} == {
        "GET /health",
        "GET /rulesets",
        "GET /tables",
        "POST /tables",
        "GET /tables/{table_id}",
        "DELETE /tables/{table_id}",
        "GET /tables/{table_id}/links",  # for the table's creator (its token)
        "GET /tables/{table_id}/seat",  # whose credential a token is (a seat link's check)
        "GET /tables/{table_id}/scene",
        "GET /tables/{table_id}/states/{seq}",  # the replay slider
        "PUT /tables/{table_id}/tanks/{tank_id}",
        "DELETE /tables/{table_id}/tanks/{tank_id}",
        "GET /tables/{table_id}/tanks/{tank_id}/options",
        "GET /tables/{table_id}/tanks/{tank_id}/aids",
        "GET /tables/{table_id}/tanks/{tank_id}/odds",
        "GET /tables/{table_id}/tanks/{tank_id}/odds/{target_id}",
        "PUT /tables/{table_id}/terrain/{piece_id}",
        "PUT /tables/{table_id}/objective",
        "POST /tables/{table_id}/actions",
        "GET /tables/{table_id}/log",
        "GET /tables/{table_id}/events",
        "POST /tables/{table_id}/seeds",
        "POST /tables/{table_id}/undo",
        "POST /tables/{table_id}/void",
        "POST /tables/{table_id}/end",
        "GET /tables/{table_id}/reveal",
        "GET /tables/{table_id}/export",
        "GET /tables/{table_id}/luck",
        "GET /luck",
        "GET /",  # the live page
        "GET /page/{name}",
    }
    raw = api_schema.raw_schema
    components = raw["components"]["schemas"]

    # The action body lists each ruleset's action union, filed under the ruleset's name so
    # two rulesets may both have a Move; TinyTableTopTanks' lists every kind its engine takes,
    # each with its own fields: a client can be generated from the document.
    unions = components["ActionRequest"]["properties"]["action"]["anyOf"]
    assert len(unions) == len(ruleset_names())
    action = next(
        u
        for u in unions
        if all(
            ref.startswith("#/components/schemas/ttt.")
            for ref in u.get("discriminator", {}).get("mapping", {"": ""}).values()
        )
    )
    engine_kinds = {
        model.model_fields["kind"].default
        for model in typing.get_args(typing.get_args(ttt_actions.Action)[0])
    }
    assert action["discriminator"]["propertyName"] == "kind"
    assert set(action["discriminator"]["mapping"]) == engine_kinds
    assert {"engage", "wait", "recover", "smoke", "end_phase", "move"} <= engine_kinds
    assert len(action["oneOf"]) == len(engine_kinds)
    engage = components["ttt.Engage"]
    assert set(engage["required"]) >= {"tank_id", "target_id"}
    assert engage["properties"]["kind"].get("const") == "engage"
    assert engage["additionalProperties"] is False
    # A new table's body is one of the rulesets', told apart by `ruleset` (ttt when absent),
    # each with its own setup; the terrain bodies come from the rulesets too.
    tables = {v["properties"]["ruleset"]["const"]: v for v in components["CreateTable"]["oneOf"]}
    assert set(tables) == set(ruleset_names())
    assert all("ruleset" in v.get("required", []) for k, v in tables.items() if k != "ttt")
    assert "ruleset" not in tables["ttt"].get("required", [])
    setup = tables["ttt"]["properties"]["setup"]
    setup_schema = components[setup["$ref"].rsplit("/", 1)[1]] if "$ref" in setup else setup
    assert {"players", "scenario", "options"} <= set(setup_schema["properties"])
    terrain = raw["paths"]["/tables/{table_id}/terrain/{piece_id}"]["put"]["requestBody"]
    assert terrain["content"]["application/json"]["schema"] != {"type": "object"}

    # Every refusal is documented with the body it really has.
    for path, methods in raw["paths"].items():
        for method, operation in methods.items():
            for status, response in operation["responses"].items():
                if status.startswith("4"):
                    body = response["content"]["application/json"]["schema"]
                    assert body == {"$ref": "#/components/schemas/ErrorReply"}, (method, path)
    assert set(components["ErrorReply"]["required"]) == {"code", "message"}

    # The WebSocket stream is a route of the app but, being no HTTP operation, not in the
    # document (clients find it in docs/api.md and the description).
    assert not any("stream" in path for path in raw["paths"])
    table = world.tables["server_dice"]
    with connect(f"{referee.url.replace('http://', 'ws://')}{table.path('/stream')}") as ws:
        assert json.loads(ws.recv(timeout=10))["seq"] == 1


# --- the fuzzing ------------------------------------------------------------------------


def _digest(case: schemathesis.Case) -> int:
    """The case's own content, as a number: the same case is always aimed the same way."""
    body = None if case.body is NOT_SET else case.body
    text = json.dumps(
        [
            case.operation.label,
            case.path_parameters,
            case.query,
            dict(case.headers or {}),
            body,
        ],
        sort_keys=True,
        default=repr,
    )
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


def _tank_near(rng: random.Random, state: dict[str, Any], tank_id: str) -> dict[str, float]:
    """A position and facing close to where the tank stands: some legal moves, some not."""
    tank = next((t for t in state["tanks"] if t["tank_id"] == tank_id), None)
    x, z, facing = (0.0, 0.0, 0.0) if tank is None else (tank["x"], tank["z"], tank["facing"])
    return {
        "x": round(x + rng.uniform(-7, 7), 2),
        "z": round(z + rng.uniform(-7, 7), 2),
        "facing": (facing + rng.choice([0, 0, 20, 45, 90, 180])) % 360,
    }


@dataclass
class Aimed:
    """A case pointed at a real table, and that table as it was before the request."""

    table: Table
    before: tuple[int, dict[str, Any]]


def _aim(case: schemathesis.Case, world: World, rng: random.Random) -> Aimed | None:
    """Point a share of the cases at a real table, with what it takes to get past the
    404 and the token: the right token, real tanks (mostly the side whose phase it is), a
    fresh request id, positions near the tank. Parts generated invalid stay as they are."""
    params = case.path_parameters or {}
    if "table_id" not in params or _negative(case, PATH) or rng.random() >= AIM:
        return None
    table = world.tables[rng.choice(sorted(world.tables))]
    action = case.body.get("action") if isinstance(case.body, dict) else None
    if isinstance(action, dict) and action.get("kind") in DICE_KINDS and rng.random() < 0.5:
        table = world.tables["table_dice"]  # half the dice rolls are the players' own
    before = world.snapshot(table)
    state = before[1]
    active = state["table"]["active_player"]
    mover = rng.choice(TANKS)
    if active in PLAYERS and rng.random() < ACTIVE_SIDE:
        mover = TANKS[PLAYERS.index(active)]
    params = {**params, "table_id": table.id}
    if "tank_id" in params and rng.random() < REAL_TANK:
        params["tank_id"] = mover
    case.path_parameters = params
    # Never the right token to delete a table: the fuzzing's tables must outlive it (the
    # deletion itself is tested in tests/project/test_cli_tables.py); its refusals are fuzzed.
    deleting = case.operation.label == "DELETE /tables/{table_id}"
    if not _negative(case, HEADER) and not deleting and rng.random() < RIGHT_TOKEN:
        headers = {k: v for k, v in (case.headers or {}).items() if k.lower() != "authorization"}
        headers["Authorization"] = f"Bearer {table.token}"
        case.headers = headers
    if case.operation.path.endswith("/events"):
        # A long-poll on a real table holds up to 25 s: keep it short, keep invalid ones.
        query = dict(case.query or {})
        if 0 <= _number(query.get("wait", 25)) <= 25:
            query["wait"] = 0.05
        case.query = query
    if isinstance(case.body, dict) and not _negative(case, BODY):
        case.body = _aim_body(case, dict(case.body), state, mover, rng)
    return Aimed(table=table, before=before)


def _number(value: Any) -> float:
    """A query value as the server reads it (the coverage phase sends them as text)."""
    if isinstance(value, bool):
        return -1.0
    try:
        return float(value)
    except (TypeError, ValueError):
        return -1.0


def _negative(case: schemathesis.Case, location: ParameterLocation) -> bool:
    """Generated invalid on purpose: left alone, so 'invalid data is refused' still holds."""
    return case.meta is not None and case.meta.is_negative_at(location)


def _aim_body(
    case: schemathesis.Case,
    body: dict[str, Any],
    state: dict[str, Any],
    mover: str,
    rng: random.Random,
) -> dict[str, Any]:
    if rng.random() < FRESH_REQUEST_ID:
        # From the case's content: a replayed case is the same request (answered idempotently).
        body["request_id"] = f"fuzz-{rng.getrandbits(64):016x}"
    if case.operation.label == "PUT /tables/{table_id}/tanks/{tank_id}":
        tank_id = case.path_parameters["tank_id"]
        if rng.random() < NEAR_THE_TANK:
            body.update(_tank_near(rng, state, tank_id))
            side = TANKS.index(tank_id) if tank_id in TANKS else rng.randrange(2)
            body["card"], body["player"] = CARDS[side], PLAYERS[side]
    action = body.get("action")
    if isinstance(action, dict):
        action = dict(action)
        for key in ("tank_id", "lender_id"):
            if key in action and rng.random() < REAL_TANK:
                action[key] = mover
        if "target_id" in action and rng.random() < REAL_TANK:
            action["target_id"] = TANKS[1 - TANKS.index(mover)]
        if action.get("kind") in ("move", "place_tank") and rng.random() < NEAR_THE_TANK:
            action.update(_tank_near(rng, state, str(action.get("tank_id"))))
        if "player" in action and rng.random() < REAL_TANK:
            action["player"] = PLAYERS[TANKS.index(mover)]
        if "ability" in action and action.get("tank_id") in TANKS and rng.random() < REAL_TANK:
            action["ability"] = SMOKE[TANKS.index(action["tank_id"])]
        body["action"] = action
    return body


def _check(case: schemathesis.Case, response: schemathesis.Response, negative: bool) -> None:
    """Schemathesis' checks (no 5xx; status, content type, headers and body as documented;
    invalid data refused) and ours: every 4xx is JSON that says what and why."""
    # Left out: 'schema-valid request accepted'. The document cannot say that both players
    # need different ids, or that a card id must exist; those get a 422 with the field.
    case.validate_response(
        response, excluded_checks=[positive_data_acceptance, negative_data_rejection]
    )
    # Only for cases generated invalid: aiming keeps valid ones valid, but the revalidation
    # after an edit can misjudge some (a surrogate pair in a string reads as invalid). Bodies
    # are validated strictly, so a value of another JSON type ("1.5", false) is refused too.
    if negative:
        case.validate_response(response, checks=[negative_data_rejection])
    assert response.status_code < 500, response.text
    if 400 <= response.status_code < 500:
        error = _json(response)
        assert isinstance(error, dict), response.text
        assert isinstance(error.get("code"), str) and error["code"], response.text
        assert isinstance(error.get("message"), str) and error["message"], response.text


def _sent(case: schemathesis.Case) -> str:
    body = None if case.body is NOT_SET else case.body
    return json.dumps({"path": case.path_parameters, "query": case.query, "body": body})[:300]


def _dice_for(case: schemathesis.Case, need: dict[str, Any], rng: random.Random) -> bool:
    """Add the faces a DICE_NEEDED asked for to the body, as the players would roll them."""
    body = case.body
    if not isinstance(body, dict) or _negative(case, BODY):
        return False
    dice = body.get("dice") if isinstance(body.get("dice"), dict) else {}
    faces = dice.get("faces") if isinstance(dice.get("faces"), dict) else {}
    rolled = faces.get(need["die"]) if isinstance(faces.get(need["die"]), list) else []
    rolled = rolled + [rng.randint(1, 6) for _ in range(int(need["count"]))]
    case.body = {**body, "dice": {**dice, "faces": {**faces, need["die"]: rolled}}}
    return True


@schema.parametrize()
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
def test_fuzzed_requests_never_fail_the_server(case: schemathesis.Case, world: World) -> None:
    label = case.operation.label
    rng = random.Random(_digest(case))
    negative = case.meta is not None and case.meta.generation.mode.is_negative
    aimed = _aim(case, world, rng)
    LEDGER.cases[label] += 1
    table = None if aimed is None else aimed.table
    before = aimed.before if aimed is not None and case.method.upper() in WRITES else None
    if aimed is not None:
        LEDGER.aimed[label] += 1

    for _ in range(8):  # the first call, then each round of table dice it asks for
        response = case.call(base_url=world.url, session=SESSION, timeout=30)
        LEDGER.statuses[(label, response.status_code)] += 1
        reply = _json(response)
        after, grew = None, False
        if table is not None and before is not None:
            after = world.snapshot(table)
            accepted = response.status_code < 300 and isinstance(reply, dict)
            grew = accepted and reply.get("applied") is True and reply.get("replayed") is False
            if grew:  # counted before any check can fail, so the ledger stays true
                LEDGER.seq[table.id] += 1
                LEDGER.applied[reply["entry"]["kind"]] += 1
        _check(case, response, negative)
        if response.status_code == 422 and "is not allowed in" in str(reply.get("message")):
            LEDGER.bad_text += 1
        if table is None:
            return
        if response.status_code >= 400:
            LEDGER.codes[reply["code"]] += 1
        if before is None or after is None:
            return
        if response.status_code < 300:
            # Accepted: one new log entry if it did something, none for a replay or a no-op.
            assert after[0] == before[0] + grew, (label, response.text)
            return
        # Refused: not a byte of the table changed (log length and derived state).
        assert after == before, f"{label} refused with {response.text} but changed the table"
        LEDGER.refused_unchanged += 1
        if reply["code"] != "DICE_NEEDED" or not _dice_for(case, reply["details"]["need"], rng):
            return
        LEDGER.dice_rounds += 1


def _json(response: schemathesis.Response) -> Any:
    try:
        return json.loads(response.content)
    except ValueError:
        return None


# --- after the fuzzing ------------------------------------------------------------------


def test_after_fuzzing_the_referee_is_whole(referee: LiveReferee, world: World) -> None:
    if not LEDGER.cases:
        pytest.skip("runs after test_fuzzed_requests_never_fail_the_server")
    health = world.http.get("/health")
    assert health.status_code == 200 and health.json()["status"] == "ok"

    # Each table's log holds exactly the entries the accepted writes made: no refusal wrote.
    states = {}
    for table in world.tables.values():
        seq, data = world.snapshot(table)
        assert seq == LEDGER.seq[table.id] == len(table.log())
        states[table.id] = data

    # The fuzzing reached the rules, not only the 404s and the token check.
    table_scoped = sum(n for label, n in LEDGER.cases.items() if "{table_id}" in label)
    assert sum(LEDGER.aimed.values()) >= table_scoped // 2
    assert sum(LEDGER.applied.values()) >= 10 and len(LEDGER.applied) >= 4, LEDGER.applied
    assert LEDGER.refused_unchanged >= 50
    rules_refusals = set(LEDGER.codes) - NOT_RULES
    assert len(rules_refusals) >= 6, LEDGER.codes  # NOT_YOUR_PHASE, MOVE_TOO_FAR, SETUP_OVER...
    assert LEDGER.codes["INVALID"] > 0 and LEDGER.codes["TOKEN_MISSING"] > 0
    assert LEDGER.bad_text >= 20, LEDGER.bad_text  # the hostile text reached the referee

    # A second referee on the same database replays every table to the same state.
    with live_referee(referee.db_path) as again, httpx.Client(base_url=again.url) as http:
        for table_id, data in states.items():
            replayed = http.get(f"/tables/{table_id}").json()
            assert replayed["damaged"] is None
            assert replayed == data
        assert http.get("/health").json()["tables"] == health.json()["tables"]

    print(_summary())


def _summary() -> str:
    lines = [f"{'operation':48} {'cases':>5} {'aimed':>5}  statuses"]
    for label, n in LEDGER.cases.items():
        statuses = sorted((s, c) for (lbl, s), c in LEDGER.statuses.items() if lbl == label)
        text = " ".join(f"{s}x{c}" for s, c in statuses)
        lines.append(f"{label:48} {n:>5} {LEDGER.aimed[label]:>5}  {text}")
    lines.append(f"accepted writes by kind: {dict(LEDGER.applied.most_common())}")
    lines.append(f"refusal codes on real tables: {dict(LEDGER.codes.most_common())}")
    lines.append(
        f"refused for bad text: {LEDGER.bad_text}; "
        f"refused writes that left the table unchanged: {LEDGER.refused_unchanged}; "
        f"table-dice rounds: {LEDGER.dice_rounds}"
    )
    return "\n".join(lines)
