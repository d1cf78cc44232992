"""The core's adjudication kit, flow guards and dispatch table, on a tiny state of their own."""

from __future__ import annotations

from typing import Annotated, Literal

import pytest
from pydantic import BaseModel, Field

from tankref.core.adjudication import Context, find_unit, refuse
from tankref.core.dice import DiceState, DieSpec, Face
from tankref.core.dispatch import ALWAYS, PLAY, SETUP, Dispatch, Step
from tankref.core.errors import RulesError
from tankref.core.flow import GameStatus

D6 = DieSpec(name="d6", label="d6", faces=tuple(Face(face=n) for n in range(1, 7)))


class Piece(BaseModel):
    id: str
    name: str
    x: float = 0


class Board(BaseModel):
    status: GameStatus = "setup"
    turn: int = 0
    winner: str | None = None
    game_over_reason: str | None = None
    tanks: dict[str, Piece] = Field(default_factory=dict)
    dice: DiceState = Field(default_factory=DiceState)

    @property
    def active_player(self) -> str | None:
        return "Red" if self.status == "playing" else None

    def clone(self) -> Board:
        copy = self.model_copy()
        copy.tanks = dict(self.tanks)
        copy.dice = self.dice.model_copy()
        return copy


class Nudge(BaseModel):
    kind: Literal["nudge"] = "nudge"
    tank_id: str


class Start(BaseModel):
    kind: Literal["start"] = "start"


Act = Annotated[Nudge | Start, Field(discriminator="kind")]


class Work(Context[Board, Piece]):
    tracked = ("x",)


def _nudge(ctx: Work, action: Nudge) -> None:
    ctx.edit(action.tank_id).x += 1
    ctx.say(f"{action.tank_id} nudged")


def _start(ctx: Work, action: Start) -> None:
    ctx.state.status = "playing"


DISPATCH: Dispatch[Work] = Dispatch(Act, {Nudge: Step(_nudge), Start: Step(_start, when=SETUP)})


def test_copy_on_write_leaves_the_callers_state_alone() -> None:
    board = Board(status="playing", tanks={"a": Piece(id="a", name="A")})
    ctx = Work(board, {"kind": "nudge"}, {"d6": D6}, None)
    DISPATCH(ctx, ctx.state, Nudge(tank_id="a"))
    done = ctx.finish()
    assert board.tanks["a"].x == 0 and done.state.tanks["a"].x == 1
    assert done.result.changes[0].changes == {"x": [0, 1]}


def test_flow_guard_uses_the_shared_codes() -> None:
    board = Board()
    ctx = Work(board, {}, {"d6": D6}, None)
    with pytest.raises(RulesError) as err:
        DISPATCH(ctx, board, Nudge(tank_id="a"))
    assert err.value.code == "NOT_STARTED"
    playing = Board(status="playing")
    with pytest.raises(RulesError) as err:
        DISPATCH(Work(playing, {}, {"d6": D6}, None), playing, Start())
    assert err.value.code == "SETUP_OVER"
    over = Board(status="over", game_over_reason="Red has no tanks left")
    with pytest.raises(RulesError) as err:
        DISPATCH(Work(over, {}, {"d6": D6}, None), over, Nudge(tank_id="a"))
    assert err.value.code == "GAME_OVER" and "no tanks left" in err.value.message


def test_a_dispatch_table_missing_an_action_fails_at_once() -> None:
    with pytest.raises(TypeError, match="Start"):
        Dispatch(Act, {Nudge: Step(_nudge, when=PLAY)})


class Hail(BaseModel):
    kind: Literal["hail"] = "hail"


def _no_hail(ctx: Work, action: Hail) -> None:
    refuse("NO_HAIL", None, "this game has no hail")


def test_an_always_step_has_no_status_guard() -> None:
    """A kind the game refuses outright answers with its own code in setup, play and over."""
    table: Dispatch[Work] = Dispatch(Hail, {Hail: Step(_no_hail, when=ALWAYS)})
    for status in ("setup", "playing", "over"):
        board = Board(status=status)
        with pytest.raises(RulesError) as err:
            table(Work(board, {}, {"d6": D6}, None), board, Hail())
        assert err.value.code == "NO_HAIL", status


def test_an_unknown_unit_is_not_found_naming_the_field() -> None:
    pieces = {"a": Piece(id="a", name="A")}
    assert find_unit(pieces, "a").name == "A"
    with pytest.raises(RulesError) as err:
        find_unit(pieces, "zz", "target_id", noun="unit")
    assert (err.value.code, err.value.kind) == ("UNKNOWN_TANK", "not_found")
    assert err.value.details["field"] == "target_id" and "no unit 'zz'" in err.value.message
