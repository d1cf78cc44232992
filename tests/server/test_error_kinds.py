"""An engine refusal's HTTP status comes from its kind (issue 16): the rulesets say what sort
of refusal each is where they raise it, and ``server/errors.py`` holds no list of codes."""

from __future__ import annotations

import ast
import typing
from pathlib import Path

import httpx
import pytest

from serverkit import LiveReferee, new_table
from tankref.core.errors import (
    BadValue,
    DecisionNeeded,
    DiceLeftOver,
    DiceNeed,
    DiceNeeded,
    Kind,
    NotFound,
    RulesError,
)
from tankref.server.errors import STATUS, from_rules

SERVER = Path(__file__).resolve().parents[2] / "server" / "tankref"
# Where refusals are raised, and the helpers that raise them.
RAISERS = {"RulesError", "NotFound", "BadValue", "refuse", "not_found", "bad_value"}


def test_every_kind_has_its_status() -> None:
    assert set(STATUS) == set(typing.get_args(Kind))
    assert STATUS == {
        "refused": 409,
        "needs_dice": 409,
        "needs_decision": 409,
        "not_found": 404,
        "bad_value": 422,
    }


@pytest.mark.parametrize(
    ("error", "status"),
    [
        (RulesError("A_NEW_REFUSAL", "TOY-1", "no"), 409),
        (NotFound("A_NEW_THING_MISSING", None, "tank_id: no such", {"field": "tank_id"}), 404),
        (BadValue("A_NEW_BAD_VALUE", None, "card: not a card", {"field": "card"}), 422),
        (DiceNeeded(DiceNeed("white", 2, "to hit"), {}), 409),
        (DiceLeftOver({"white": 1}, {"white": 2}), 422),
        (
            DecisionNeeded("TOY-2", "pick", decision="d", seat="Red", choices=["a"], field="f"),
            409,
        ),
    ],
)
def test_a_refusal_is_answered_by_its_kind_alone(error: RulesError, status: int) -> None:
    """A code the server has never heard of gets its kind's status: nothing to register."""
    reply = from_rules(error, "action")
    assert reply.status == status
    assert reply.code == error.code and reply.clause == error.clause
    field = error.details.get("field")
    assert reply.field == (f"action.{field}" if field else None)


def _raised_codes() -> set[str]:
    """Every refusal code the engines raise (the first argument of a raise or helper)."""
    codes = set()
    for path in [
        *SERVER.joinpath("core").rglob("*.py"),
        *SERVER.joinpath("rulesets").rglob("*.py"),
    ]:
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            name = getattr(node.func, "id", getattr(node.func, "attr", None))
            first = node.args[0]
            if name in RAISERS and isinstance(first, ast.Constant) and isinstance(first.value, str):
                codes.add(first.value)
    return codes


def test_the_server_keeps_no_list_of_engine_codes() -> None:
    """No engine code is spelled in ``server/errors.py``: a list there would have to be
    kept in step with every ruleset (the kinds replaced three of them)."""
    codes = _raised_codes()
    assert {"UNKNOWN_TANK", "UNKNOWN_CARD", "BAD_FACE", "TWO_PLAYERS"} <= codes  # it reads them
    tree = ast.parse(SERVER.joinpath("server", "errors.py").read_text())
    spelled = {
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    }
    # INVALID is the server's own code for a body pydantic refuses (the timeline's replayed
    # seed check happens to share it): it is not an engine code the server lists.
    assert spelled & codes <= {"INVALID"}


def test_a_bad_value_in_the_setup_is_422_and_makes_no_table_TTT_S1(referee: LiveReferee) -> None:
    """TTT-S1: a first player who is not at the table is a bad value (422, the engine's
    UNKNOWN_PLAYER, now a ``BadValue``); no table is made."""
    before = httpx.get(f"{referee.url}/tables").json()
    reply = httpx.post(
        f"{referee.url}/tables", json={"setup": {"scenario": {"first_player": "Green"}}}
    )
    assert reply.status_code == 422, reply.text
    body = reply.json()
    assert body["code"] == "UNKNOWN_PLAYER" and body["clause"] == "TTT-S1"
    assert "scenario.first_player" in body["message"]
    assert httpx.get(f"{referee.url}/tables").json() == before


def test_an_unknown_piece_is_404_in_the_yard_YRD(referee: LiveReferee) -> None:
    """The yard's own UNKNOWN_TANK raise (a ``NotFound``) is a 404 naming the field, and
    changes nothing."""
    table = new_table(referee.url, ruleset="yrd")
    before = table.snapshot()
    reply = table.http.get(table.path("/tanks/Z9/odds"))
    assert reply.status_code == 404, reply.text
    assert reply.json()["code"] == "UNKNOWN_TANK"
    assert table.snapshot() == before
    table.close()
