"""The quick route for actions (``routes.actions.QuickAction``, issue 18) answers every
request exactly as FastAPI's documented route does: the same replies to the same requests,
refusals in the same order of checks, on two referees side by side (one without it)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from serverkit import LiveReferee, Table, duel, live_referee
from tankref.server.app import create_app
from tankref.server.routes.actions import QuickAction
from tankref.server.settings import Settings

# What differs between two tables even when every request is the same: when the table and
# its entries were written, and the hash chain (it starts from the table's id and time).
VOLATILE = {"at", "created_at", "head_sha256", "previous_sha256", "chain_sha256"}


@pytest.fixture(scope="module")
def referees(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LiveReferee, ...]]:
    folder = tmp_path_factory.mktemp("quick")
    with (
        live_referee(folder / "quick.sqlite3") as quick,
        live_referee(folder / "documented.sqlite3", quick_actions=False) as documented,
    ):
        yield quick, documented


def _same(data: Any, table: Table) -> Any:
    """A reply with what only tells the two tables apart left out (their ids, the volatile
    fields)."""
    if isinstance(data, dict):
        return {k: _same(v, table) for k, v in data.items() if k not in VOLATILE}
    if isinstance(data, list):
        return [_same(v, table) for v in data]
    if isinstance(data, str):
        return data.replace(table.id, "<table>")
    return data


def _answer(table: Table, response: httpx.Response) -> tuple[int, str | None, Any]:
    body = response.json() if response.content else None
    return response.status_code, response.headers.get("content-type"), _same(body, table)


def _post(
    table: Table, body: Any, *, headers: dict[str, str] | None = None, path: str | None = None
) -> httpx.Response:
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    return table.http.post(
        path or table.path("/actions"),
        content=raw,
        headers={"Content-Type": "application/json", **(headers or {})},
    )


ENGAGE = {"kind": "engage", "tank_id": "R1", "target_id": "B1"}
WAIT = {"kind": "wait", "tank_id": "R1"}
BLUE_ENGAGES = {"kind": "engage", "tank_id": "B1", "target_id": "R1"}  # in Red's phase
SEAT = {"seat": "Red"}  # headers: Red's seat token (a void's credential, not an action's)
NO_TOKEN = {"Authorization": ""}
UNKNOWN = "/tables/nosuch/actions"
TOO_LONG = f"/tables/{'t' * 65}/actions"


def _body(request_id: str, action: Any, **more: Any) -> dict[str, Any]:
    return {"request_id": request_id, "action": action, **more}


# Each after the other, to each referee's table: (what it tests, body, headers, path)
REQUESTS: list[tuple[str, Any, dict[str, str] | None, str | None]] = [
    ("a wait", _body("w-1", WAIT), None, None),
    ("the same again", _body("w-1", WAIT), None, None),
    ("the id reused", _body("w-1", {"kind": "end_phase"}), None, None),
    ("not JSON", b"{not json", None, None),
    ("JSON, not an object", [1, 2], None, None),
    ("no request_id", {"action": ENGAGE}, None, None),
    ("a bad request_id", _body("a b", ENGAGE), None, None),
    ("an extra field", _body("x-1", ENGAGE, extra=1), None, None),
    ("an unknown action", _body("x-2", {"kind": "fly"}), None, None),
    ("a wrong type (strict)", _body("x-3", {"kind": "wait", "tank_id": 5}), None, None),
    ("no token", _body("x-4", ENGAGE), NO_TOKEN, None),
    ("a wrong token", _body("x-5", ENGAGE), {"Authorization": "Bearer nope"}, None),
    ("no token and a bad body", {"action": ENGAGE}, NO_TOKEN, None),
    ("an unknown table", _body("x-6", ENGAGE), None, UNKNOWN),
    ("an unknown table, bad body", {"action": 1}, None, UNKNOWN),
    ("a table id too long", _body("x-7", ENGAGE), None, TOO_LONG),
    ("out of phase (TTT-W1)", _body("x-8", BLUE_ENGAGES), None, None),
    ("faces to server dice", _body("x-9", ENGAGE, dice={"faces": {"white": [6]}}), None, None),
    ("a seat token", _body("x-10", ENGAGE), SEAT, None),
    ("nothing to recover", _body("x-11", {"kind": "recover", "tank_id": "R1"}), None, None),
    ("an engage, who ordered it", _body("x-12", ENGAGE, by={"seat": "Red"}), None, None),
    ("end the phase", _body("x-13", {"kind": "end_phase"}), None, None),
]  # fmt: skip


def test_quick_route_answers_as_the_documented_route(referees: tuple[LiveReferee, ...]) -> None:
    """TTT-E4, TTT-W1 and every refusal kind of an action (400 BAD_JSON, 401, 403, 404, 409,
    422): each request gets the same status, content type and body from the quick route as
    from FastAPI's route alone, and both tables end in the same state with the same log."""
    quick, documented = referees
    tables = [duel(live.url, dice_source="server") for live in (quick, documented)]
    for what, body, headers, path in REQUESTS:
        answers = [
            _answer(
                t, _post(t, body, headers=t.seat("Red") if headers is SEAT else headers, path=path)
            )
            for t in tables
        ]
        assert answers[0] == answers[1], what
        assert answers[0][0] in (200, 400, 401, 403, 404, 409, 422), what
    reads = [_same(t.read(), t) for t in tables]
    assert reads[0] == reads[1]
    assert reads[0]["seq"] == 7  # 4 of setup, the wait, the engage, the end of the phase
    assert _same(tables[0].log(), tables[0]) == _same(tables[1].log(), tables[1])


def test_quick_route_is_first(tmp_path: Path) -> None:
    """The quick route is matched before every other (else FastAPI's would answer first);
    turned off, it is not there at all."""
    on = create_app(Settings(db_path=tmp_path / "on.sqlite3"))
    off = create_app(Settings(db_path=tmp_path / "off.sqlite3", quick_actions=False))
    assert isinstance(on.router.routes[0], QuickAction)
    assert not any(isinstance(r, QuickAction) for r in off.router.routes)
    # The documentation is the same either way.
    assert on.openapi() == off.openapi()
